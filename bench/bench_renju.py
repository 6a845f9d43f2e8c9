"""Speed and memory of the Renju judge (``firmware/rules/gomoku_board.py``) on the MicroPython
unix port.

    micropython -m bench.bench_renju [--positions N] [--passes N]

Run from the repository root (``make bench`` runs it so). It also runs under CPython
(``python -m bench.bench_renju``) for comparison. What each part measures: ``bench/README.md``.
In short:

1. the calibration loop of DESIGN.md §3 (``bench_go``'s, imported), sampled all through the
   run: every RP2040 figure is an estimate, unix time x 48.8 ms / calibration time;
2. ``forbidden(x, y)`` on every empty point of a set of dense 15x15 positions (seeded random
   ones, the same on both runtimes, and the nasty ones of ``tests/test_gomoku_alloc.py``: the
   recursive double-three, the deepest recursion met, double-fours, overlines), each check
   timed alone, the fastest of the passes;
3. ``forbidden_points()``, the full scan, on the same positions;
4. memory: bytes through the allocator per check (``micropython.mem_total()``), a
   ``heap_lock`` run, what a full scan allocates for its result, and per ``Gomoku.play`` of
   seeded random games (``firmware/rules/gomoku.py``: stones, passes, fives, fouls);
5. a summary against the RP2040 targets;
6. (printed before 5) a seeded, deterministic search for the position whose check calls the
   judge most, and that check's first call beside its best, with the searched-for positions'
   worst checks.

The summary is information only: the exit status is 0 whatever the figures (only a crash or
a bad option fails).
"""

import gc
import sys
from array import array

from bench import measured

# Run as ``micropython -m bench.bench_renju`` from the repository root, so the repository is
# on the path. The calibration, the timers and the report helpers are bench_go's.
from bench.bench_go import (
    CALIB_RP2040_MS,
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
    verdict,
)
from firmware.rules.gomoku import CLAIM, CLAIM_AUTO, Gomoku
from firmware.rules.gomoku_board import FORBIDDEN_NAMES, GomokuBoard
from tests.support import Rng
from tests.test_gomoku_alloc import NASTY, parse

# isort: split
import micropython  # noqa: E402  (built in, or firmware/_mpshim.py on CPython)

TARGET_CHECK_WORST_MS = 5.0
NAMES = [name for name, _, _ in NASTY]


def searched(name):
    """Whether the position was built by a search to be slow (not met in play or at random)."""
    return "searched for" in name


SIZE = 15
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP column letters (no I)
SEED = 2024

USAGE = """usage: bench_renju.py [--positions N] [--passes N] [--tries N]
  --positions N   seeded random 15x15 positions (default 300), besides the nasty ones
  --passes N      times every check is repeated; its fastest time counts (default 5)
  --tries N       positions the search for the slowest check tries (default 6000)"""

SEARCH_SEED = 7


def parse_args(argv):
    opts = read_options(argv, USAGE, {"positions": 300, "passes": 5, "tries": 6000})
    return opts


# ---- positions -------------------------------------------------------------------------------


_DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _uniform(rng, cells):
    # 20-75 % of the points filled, 45-75 % of the stones black.
    fill = rng.between(200, 750)
    black = rng.between(450, 750)
    for i in range(SIZE * SIZE):
        if rng.below(1000) < fill:
            cells[i] = 1 if rng.below(1000) < black else 2


def _cluster(rng, cells):
    # Stones heaped around the centre: the chance of a stone falls off with the distance.
    fill = rng.between(200, 750)
    black = rng.between(500, 750)
    radius = 3 + rng.below(5)
    c = SIZE // 2
    for i in range(SIZE * SIZE):
        d = max(abs(i % SIZE - c), abs(i // SIZE - c))
        chance = fill * 2 * radius // (radius + d)
        if rng.below(1000) < chance:
            cells[i] = 1 if rng.below(1000) < black else 2


def _fragments(rng, cells):
    # Black line fragments with gaps, a few white stones among them: double-threes, and threes
    # whose completion points are forbidden (the recursion).
    target = rng.between(200, 450) * SIZE * SIZE // 1000
    white = rng.between(50, 350)
    placed = 0
    while placed < target:
        x = rng.below(SIZE)
        y = rng.below(SIZE)
        dx, dy = _DIRS[rng.below(4)]
        for _ in range(2 + rng.below(4)):
            if 0 <= x < SIZE and 0 <= y < SIZE and not cells[y * SIZE + x]:
                cells[y * SIZE + x] = 2 if rng.below(1000) < white else 1
                placed += 1
            step = 2 if rng.below(4) == 0 else 1
            x += dx * step
            y += dy * step


def make_positions(count):
    """``[(name, cells, marked point or None)]``: the nasty positions, then ``count`` random
    ones; ``cells[y * 15 + x]`` is 0, 1 (black) or 2 (white)."""
    out = []
    for name, diagram, _ in NASTY:
        n, stones, mark = parse(diagram)
        if n != SIZE:  # the small diagrams go in the middle of a 15x15 board
            shift = (SIZE - n) // 2
            stones = [(x + shift, y + shift, c) for x, y, c in stones]
            mark = (mark[0] + shift, mark[1] + shift)
        cells = bytearray(SIZE * SIZE)
        for x, y, c in stones:
            cells[y * SIZE + x] = c
        out.append((name, cells, mark))
    rng = Rng(SEED)
    kinds = (_uniform, _cluster, _fragments)
    names = ("uniform", "cluster", "fragments")
    for i in range(count):
        cells = bytearray(SIZE * SIZE)
        kinds[i % 3](rng, cells)
        out.append(("random %d (%s)" % (i, names[i % 3]), cells, None))
    return out


def load(board, cells):
    board.clear()
    for i in range(SIZE * SIZE):
        if cells[i]:
            board.put(cells[i], i % SIZE, i // SIZE)


def vertex(x, y):
    return "%s%d" % (COLUMNS[x], y + 1)


def diagram(cells, mark):
    lines = []
    for y in range(SIZE - 1, -1, -1):
        row = []
        for x in range(SIZE):
            row.append("*" if (x, y) == mark else ".XO"[cells[y * SIZE + x]])
        lines.append("    %2d %s" % (y + 1, " ".join(row)))
    lines.append("       " + " ".join(COLUMNS[:SIZE]))
    return "\n".join(lines)


# ---- 2. and 3. timing ------------------------------------------------------------------------


def _filled(n):
    """array("I") of n words 0xFFFFFFFF (the unix port's arrays cannot be multiplied)."""
    return array("I", b"\xff" * (4 * n))


class Checks:
    """Every empty point of every position, each ``forbidden()`` timed alone per pass.

    ``best[p * 225 + i]`` is point ``i`` of position ``p``'s fastest time in µs (0xFFFFFFFF for
    a stone); ``kind`` its verdict; ``scan[p]`` the fastest ``forbidden_points()`` of ``p``.
    """

    def __init__(self, positions):
        self.positions = positions
        n = len(positions)
        self.best = _filled(n * SIZE * SIZE)
        self.kind = bytearray(n * SIZE * SIZE)
        self.scan = _filled(n)
        self.found = array("H", bytearray(2 * n))  # forbidden points the scan returned
        self.slowest = 0  # the slowest single timing of any check, interrupts and all
        self.board = GomokuBoard(SIZE)

    def run_pass(self, cal):
        board = self.board
        best = self.best
        kind = self.kind
        for p in range(len(self.positions)):
            if p % 16 == 0:
                gc.collect()
                cal.sample(1)
            cells = self.positions[p][1]
            load(board, cells)
            base = p * SIZE * SIZE
            for i in range(SIZE * SIZE):
                if cells[i]:
                    continue
                x = i % SIZE
                y = i // SIZE
                t0 = ticks_us()
                k = board.forbidden(x, y)
                dt = ticks_diff(ticks_us(), t0)
                if dt < best[base + i]:
                    best[base + i] = dt
                if dt > self.slowest:
                    self.slowest = dt
                kind[base + i] = k
            gc.collect()  # the scan allocates its result: start each from the same heap
            t0 = ticks_us()
            found = board.forbidden_points()
            dt = ticks_diff(ticks_us(), t0)
            if dt < self.scan[p]:
                self.scan[p] = dt
            self.found[p] = len(found)

    def result(self):
        """Sums and extremes in µs; the extremes apart for the positions searched for (built to
        be slow) and for the others (random and hand-made: what play can meet)."""
        r = {"checks": 0, "total": 0, "by_kind": [[0, 0] for _ in range(4)]}
        r["worst"] = [(0, 0, 0), (0, 0, 0)]  # (µs, position, point): met, searched for
        r["scan_worst"] = [(0, 0), (0, 0)]  # (µs, position)
        r["scan_total"] = 0
        for p in range(len(self.positions)):
            g = 1 if searched(self.positions[p][0]) else 0
            base = p * SIZE * SIZE
            for i in range(SIZE * SIZE):
                t = self.best[base + i]
                if t == 0xFFFFFFFF:
                    continue
                k = self.kind[base + i]
                r["checks"] += 1
                r["total"] += t
                r["by_kind"][k][0] += 1
                r["by_kind"][k][1] += t
                if t > r["worst"][g][0]:
                    r["worst"][g] = (t, p, i)
            r["scan_total"] += self.scan[p]
            if self.scan[p] > r["scan_worst"][g][0]:
                r["scan_worst"][g] = (self.scan[p], p)
        return r


# ---- 6. the search for the slowest check ---------------------------------------------------


def _valid(board, cells):
    # A position a game can reach with Black to move: as many black stones as white ones,
    # and no five or overline for either side (the game would be over).
    black = 0
    white = 0
    for c in cells:
        if c == 1:
            black += 1
        elif c == 2:
            white += 1
    if black != white:
        return False
    return not board.has_five(1, False) and not board.has_five(2, False)


def most_calls(board, cells):
    """(calls, levels, point) of the empty point whose ``forbidden()`` calls the judge most."""
    best = (0, 0, -1)
    for i in range(SIZE * SIZE):
        if not cells[i]:
            board.forbidden(i % SIZE, i // SIZE)
            calls, levels = board.last_check()
            if calls > best[0] or (calls == best[0] and levels > best[1]):
                best = (calls, levels, i)
    return best


def _near(rng, point):
    # A point within four lines and columns of ``point`` (the worst check's neighbourhood),
    # clipped to the board.
    x = min(SIZE - 1, max(0, point % SIZE + rng.below(9) - 4))
    y = min(SIZE - 1, max(0, point // SIZE + rng.below(9) - 4))
    return y * SIZE + x


def _mutate(rng, cells, worst):
    # One change that keeps the stone counts equal: move a stone, swap a black and a white
    # one, add or take away a black and a white stone. Half the points are drawn near the
    # current worst check, where a change most often makes it worse.
    for _ in range(1 + rng.below(2)):
        kind = rng.below(6)
        a = _near(rng, worst) if worst >= 0 and rng.below(2) else rng.below(SIZE * SIZE)
        b = rng.below(SIZE * SIZE)
        if kind < 3:
            if cells[a] and not cells[b]:
                cells[b] = cells[a]
                cells[a] = 0
            elif cells[b] and not cells[a]:
                cells[a] = cells[b]
                cells[b] = 0
        elif kind == 3:
            if cells[a] and cells[b] and cells[a] != cells[b]:
                cells[a], cells[b] = cells[b], cells[a]
        elif kind == 4:
            if a != b and not cells[a] and not cells[b]:
                cells[a] = 1
                cells[b] = 2
        elif cells[a] and cells[b] and cells[a] != cells[b]:
            cells[a] = 0
            cells[b] = 0


def search(tries, seed=SEARCH_SEED):
    """Hill-climbing from a seeded random position towards the check that calls the judge
    most (ties: the deeper one), among positions a game can reach. Deterministic: the same
    position for the same ``tries`` and ``seed`` on every machine and runtime.

    Returns ``(cells, point, calls, levels, valid tries)``.
    """
    rng = Rng(seed)
    board = GomokuBoard(SIZE)
    cells = bytearray(SIZE * SIZE)
    while True:  # 30 black and 30 white stones at random, until no five
        for i in range(SIZE * SIZE):
            cells[i] = 0
        k = 0
        while k < 60:
            i = rng.below(SIZE * SIZE)
            if not cells[i]:
                cells[i] = 1 + (k & 1)
                k += 1
        load(board, cells)
        if _valid(board, cells):
            break
    cur = most_calls(board, cells)
    trial = bytearray(SIZE * SIZE)
    valid = 0
    for _ in range(tries):
        trial[:] = cells
        _mutate(rng, trial, cur[2])
        load(board, trial)
        if not _valid(board, trial):
            continue
        valid += 1
        got = most_calls(board, trial)
        if (got[0], got[1]) >= (cur[0], cur[1]):
            cur = got
            cells[:] = trial
    return cells, cur[2], cur[0], cur[1], valid


def time_check(cells, point, passes):
    """(first pass's µs, fastest of ``passes`` µs, verdict) of one check on a fresh board."""
    board = GomokuBoard(SIZE)
    load(board, cells)
    gc.collect()
    x = point % SIZE
    y = point // SIZE
    first = 0
    best = 0xFFFFFFFF
    kind = 0
    for p in range(passes):
        t0 = ticks_us()
        kind = board.forbidden(x, y)
        dt = ticks_diff(ticks_us(), t0)
        if p == 0:
            first = dt
        best = min(best, dt)
    return first, best, kind


def worst_fixed(positions, passes):
    """For each searched-for position (and the worst check of each): (name, point, calls,
    levels, first µs, best µs, verdict)."""
    board = GomokuBoard(SIZE)
    out = []
    for name, cells, _ in positions:
        if not searched(name):
            continue
        load(board, cells)
        calls, levels, point = most_calls(board, cells)
        first, best, kind = time_check(cells, point, passes)
        out.append((name, point, calls, levels, first, best, kind))
    return out


# ---- 4. memory -------------------------------------------------------------------------------


def bench_memory(positions):
    """(bytes through the allocator over all checks, checks, heap_lock verdict, bytes one full
    scan allocates for its result), None where the runtime cannot say."""
    board = GomokuBoard(SIZE)
    checks = 0
    through = None
    if hasattr(micropython, "mem_total"):
        through = 0
        for _, cells, _ in positions:
            load(board, cells)
            board.forbidden(0, 0)
            gc.collect()
            before = micropython.mem_total()
            for i in range(SIZE * SIZE):
                if not cells[i]:
                    board.forbidden(i % SIZE, i // SIZE)
            through += micropython.mem_total() - before
    for _, cells, _ in positions:
        for i in range(SIZE * SIZE):
            if not cells[i]:
                checks += 1
    locked = None
    if IS_MICROPYTHON:
        locked = "no"
        for _, cells, _ in positions[: len(NASTY)]:
            load(board, cells)
            micropython.heap_lock()
            try:
                for i in range(SIZE * SIZE):
                    if not cells[i]:
                        board.forbidden(i % SIZE, i // SIZE)
            except MemoryError:
                locked = "YES"
            micropython.heap_unlock()
    scan_bytes = None
    if hasattr(micropython, "mem_total"):
        load(board, positions[NAMES.index("deepest recursion met")][1])
        gc.collect()
        before = micropython.mem_total()
        found = board.forbidden_points()
        scan_bytes = (micropython.mem_total() - before, len(found))
    return through, checks, locked, scan_bytes


# ---- report ----------------------------------------------------------------------------------


def report_checks(positions, checks, r, scale, passes):
    section("2. forbidden(x, y) on every empty point (each check timed alone)")
    print(
        "  positions:  %d on 15x15 (%d nasty ones, then seeded random ones), %d checks,"
        % (len(positions), len(NASTY), r["checks"])
    )
    print("              each the fastest of %d passes" % passes)
    mean = r["total"] / r["checks"]
    print("  mean:       %7.2f µs   RP2040 estimate %.3f ms" % (mean, mean * scale))
    for k in range(4):
        count, total = r["by_kind"][k]
        if count:
            name = FORBIDDEN_NAMES[k] or "allowed"
            print(
                "    %-13s %6d checks, mean %7.2f µs   RP2040 estimate %.3f ms"
                % (name, count, total / count, total / count * scale)
            )
    for g, label in ((0, "worst:"), (1, "searched:")):
        t, p, i = r["worst"][g]
        name, cells, _ = positions[p]
        k = checks.kind[p * SIZE * SIZE + i]
        print(
            "  %-11s %7d µs   RP2040 estimate %.2f ms   (%s, %s, %s)"
            % (
                label,
                t,
                t * scale,
                name,
                vertex(i % SIZE, i // SIZE),
                FORBIDDEN_NAMES[k] or "allowed",
            )
        )
        if g == 0:
            print(diagram(cells, (i % SIZE, i // SIZE)))
    print(
        "  (searched: the positions built by a search to be slow, see tests/test_gomoku_alloc.py)"
    )
    print("  the slowest single timing, interrupts included: %d µs" % checks.slowest)
    print("  the nasty positions: the marked point, its verdict; the slowest point")
    for q in range(len(NASTY)):
        name, cells, mark = positions[q]
        i = mark[1] * SIZE + mark[0]
        t = checks.best[q * SIZE * SIZE + i]
        k = checks.kind[q * SIZE * SIZE + i]
        if k != NASTY[q][2]:  # the small diagrams are moved onto a 15x15 board
            name += " (NOT %s)" % (FORBIDDEN_NAMES[NASTY[q][2]] or "allowed")
        worst = max(checks.best[q * SIZE * SIZE + j] for j in range(SIZE * SIZE) if not cells[j])
        print("    %s" % name)
        print(
            "      %-13s %5d µs = %6.2f ms;  slowest %5d µs = %6.2f ms   (RP2040 estimates)"
            % (FORBIDDEN_NAMES[k] or "allowed", t, t * scale, worst, worst * scale)
        )


def report_scan(positions, checks, r, scale):
    section("3. forbidden_points(): every empty point of a position, in one call")
    n = len(positions)
    mean = r["scan_total"] / n
    print("  mean:       %7.1f µs   RP2040 estimate %.1f ms" % (mean, mean * scale))
    for g, label in ((0, "worst:"), (1, "searched:")):
        t, p = r["scan_worst"][g]
        print(
            "  %-11s %7d µs   RP2040 estimate %.1f ms   (%s: %d empty points, %d forbidden)"
            % (
                label,
                t,
                t * scale,
                positions[p][0],
                SIZE * SIZE - sum(1 for c in positions[p][1] if c),
                checks.found[p],
            )
        )


GAMES_SEED = 2002
GAMES = 12  # random games in each claim mode


def bench_game_bytes():
    """Bytes through the allocator per ``Gomoku.play`` over seeded random Renju games in auto
    and claim mode, each move counted alone after the game is made: ``(calls, bytes, worst
    call, [stones, passes, fives, fouls])``; None where the runtime cannot say."""
    if not hasattr(micropython, "mem_total"):
        return None
    rng = Rng(GAMES_SEED)
    calls = through = worst = 0
    seen = [0, 0, 0, 0]  # stones, passes, games ended by a five, black fouls
    for claims in (CLAIM_AUTO, CLAIM):
        for _ in range(GAMES):
            g = Gomoku(claims=claims)
            while not g.over() and g.ply < SIZE * SIZE:
                c = g.to_move
                x = y = None
                if g.ply < 5 or rng.below(20):
                    x = 4 + rng.below(7)  # near the centre, where the shapes meet
                    y = 4 + rng.below(7)
                    while g.board.color_at(x, y):
                        x = rng.below(SIZE)
                        y = rng.below(SIZE)
                logged = len(g.incidents)
                before = micropython.mem_total()
                r = g.play(c, x, y)
                used = micropython.mem_total() - before
                calls += 1
                through += used
                worst = max(worst, used)
                if r == 0:
                    seen[0 if x is not None else 1] += 1
                if len(g.incidents) > logged and g.incidents[-1][0] == "foul":
                    seen[3] += 1
            seen[2] += g.reason == 1  # WIN_FIVE
    return calls, through, worst, seen


def report_memory(mem, game_bytes):
    section("4. Memory")
    through, count, locked, scan_bytes = mem
    name = sys.implementation.name
    if through is None:
        print("  mem_total:  n/a on %s" % name)
    else:
        print(
            "  forbidden(): %d bytes through the allocator in %d checks, %.2f per check"
            % (through, count, through / count)
        )
        print("              (micropython.mem_total(): every byte, even if freed at once)")
    if locked is None:
        print("  heap_lock:  n/a on %s" % name)
    else:
        print("  MemoryError under micropython.heap_lock(), nasty positions: %s" % locked)
    if scan_bytes is not None:
        print(
            "  forbidden_points(): %d bytes for a result of %d points (its list and tuples)"
            % scan_bytes
        )
    if game_bytes is not None:
        calls, through, worst, seen = game_bytes
        print(
            "  Gomoku.play: %d bytes through the allocator in %d calls of %d random games"
            " (worst call %d B)" % (through, calls, 2 * GAMES, worst)
        )
        print(
            "              %d stones, %d passes, %d games won by a five, %d black fouls;"
            " auto and claim mode" % tuple(seen)
        )


def report_search(found, fixed, scale, passes, tries, took_ms):
    section("6. The slowest check a search finds (judge calls for one forbidden())")
    cells, point, calls, levels, valid = found
    print(
        "  search: seed %d, %d tries (%d positions a game can reach), %d ms on this runtime"
        % (SEARCH_SEED, tries, valid, took_ms)
    )
    print("  (hill-climbing: equal stone counts, no five or overline for either side)")
    first, best, kind = time_check(cells, point, passes)
    print(
        "  found:  %s, %s: %d calls, %d levels deep; first call %d µs, best of %d %d µs"
        % (
            vertex(point % SIZE, point // SIZE),
            FORBIDDEN_NAMES[kind] or "allowed",
            calls,
            levels,
            first,
            passes,
            best,
        )
    )
    print(
        "          RP2040 estimate %.2f ms first, %.2f ms best (x%.2f, chip / estimate of the"
        % (first * scale, best * scale, measured.RENJU)
    )
    print(
        "          judge on the emulated chip, bench/measured.py: %.2f ms)"
        % (first * scale * measured.RENJU)
    )
    print(diagram(cells, (point % SIZE, point // SIZE)))
    print("  the searched-for positions of tests/test_gomoku_alloc.py, their worst check:")
    for name, p, c, lv, f, b, k in fixed:
        print("    %s" % name)
        print(
            "      %s %-12s %3d calls %2d levels  first %4d µs, best %4d µs = %.2f ms"
            % (
                vertex(p % SIZE, p // SIZE),
                FORBIDDEN_NAMES[k] or "allowed",
                c,
                lv,
                f,
                b,
                b * scale,
            )
        )
    return first, best, calls, levels


def report_summary(cal, r, mem, worst):
    scale = cal.scale()
    section(
        "5. Summary (RP2040 = unix time x %.1f ms / %d µs calibration: an ESTIMATE)"
        % (CALIB_RP2040_MS, cal.best)
    )
    row = "  %-22s %12s %17s %12s   %s"
    print(row % ("", "measured", "RP2040 estimate", "target", "verdict"))
    mean = r["total"] / r["checks"]
    print(row % ("check, mean", "%.2f µs" % mean, "%.3f ms" % (mean * scale), "", ""))
    first, best, calls, levels = worst
    for label, t in (
        ("check, worst", r["worst"][0][0]),
        ("  searched for", r["worst"][1][0]),
        ("searched now, 1st", first),
        ("searched now, best", best),
    ):
        print(
            row
            % (
                label,
                "%d µs" % t,
                "%.2f ms" % (t * scale),
                "<= %g ms" % TARGET_CHECK_WORST_MS,
                verdict(t * scale, TARGET_CHECK_WORST_MS),
            )
        )
    print("  (the search's check: %d calls of the judge, %d levels deep)" % (calls, levels))
    through, count, _, _ = mem
    if through is None:
        print("  allocation per check: not measured on %s" % sys.implementation.name)
    else:
        per = through / count
        print(row % ("bytes per check", "%.2f" % per, "", "0", "ok" if per == 0 else "over"))
    for g, label in ((0, "full scan, worst"), (1, "  searched for")):
        t = r["scan_worst"][g][0]
        print(row % (label, "%d µs" % t, "%.1f ms" % (t * scale), "", ""))
    if not IS_MICROPYTHON:
        print("  (CPython run: the RP2040 column applies the unix-port rule and means little)")
    print("  The targets are information: this benchmark never fails the build.")


def main():
    opts = parse_args(sys.argv)
    cal, start_us, overhead = start("Renju judge", "a few seconds")

    positions = make_positions(opts["positions"])
    checks = Checks(positions)
    for _ in range(opts["passes"]):
        checks.run_pass(cal)
    r = checks.result()
    mem = bench_memory(positions)
    game_bytes = bench_game_bytes()
    t0 = ticks_us()
    found = search(opts["tries"])
    took_ms = ticks_diff(ticks_us(), t0) // 1000
    fixed = worst_fixed(positions, opts["passes"])
    cal.sample(9)

    scale = cal.scale()
    report_calibration(cal, overhead, start_us, "check", "DESIGN.md section 3, bench_go's loop")
    report_checks(positions, checks, r, scale, opts["passes"])
    report_scan(positions, checks, r, scale)
    report_memory(mem, game_bytes)
    worst = report_search(found, fixed, scale, opts["passes"], opts["tries"], took_ms)
    report_summary(cal, r, mem, worst)


if __name__ == "__main__":
    main()
