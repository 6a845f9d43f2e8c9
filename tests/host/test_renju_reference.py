"""Black's forbidden points, fives and overlines agree with the PyPI package ``renju``, on both
runtimes.

``renju`` 0.1.0 (``renju/check_forbid.py``) is Piskvork's Renju judge in Python, the reference
``firmware/rules/gomoku_board.py`` was ported from; ``renju.RenjuBoard`` decides wins, fouls and
draws under its ``freestyle``, ``standard`` and ``renju`` rules. The checks:

1. ``forbidden()`` on EVERY empty point of a few thousand seeded random positions (sizes 5 to
   19, mostly 15; 20-75 % of the points filled, uniform, clustered around the centre, and
   black-heavy ones built from line fragments, which is where double-threes nest) equals
   ``get_foul_type``: on CPython in-process, and on the MicroPython unix port in a subprocess
   that reads the same positions from a file. The same run checks ``lines()`` for every stone
   and ``has_five()`` against a naive count of runs.
2. Random games on ``renju.RenjuBoard`` under each of its three rules: after every move, the
   verdict our board gives (``lines()`` and ``forbidden()``, ``has_five()``) equals renju's
   status and reason.
3. The nasty positions of ``tests/test_gomoku_alloc.py`` (hand-made, and built by a search for
   the deepest recursion) are among the positions of 1, and renju gives their marked points
   the verdicts that file expects.

The MicroPython subprocess runs while CPython computes renju's verdicts; the whole file takes
about 35 s here, most of it renju's judge and ours on CPython.

Coordinates: ours ``(x, y)`` has y from the bottom; renju's ``board[x][y]`` prints y = 0 at the
top, so ours ``(x, y)`` is renju's ``(x, size - 1 - y)``. A disagreement is reported with the
position as a diagram (top row first), the point and both verdicts.
"""

import os
import random
import subprocess

import pytest

renju = pytest.importorskip("renju")

from renju.board import BoardStatus, RenjuBoard, WinReason  # noqa: E402
from renju.check_forbid import ForbidChecker, get_foul_type  # noqa: E402

from firmware.rules import gomoku_board  # noqa: E402
from firmware.rules.gomoku_board import (  # noqa: E402
    BLACK,
    DOUBLE_FOUR,
    DOUBLE_THREE,
    FIVE,
    LONG,
    OVERLINE,
    WHITE,
    GomokuBoard,
)
from tests.support import REPO  # noqa: E402
from tests.test_gomoku_alloc import NASTY, parse  # noqa: E402

MICROPYTHON = os.path.join(REPO, ".venv", "bin", "micropython")
SEED = 20240615
POSITIONS = 2400  # ~260,000 forbidden() checks on each runtime
GAMES = 150  # random games per rule
_CELL = {".": 0, "X": BLACK, "O": WHITE}
_DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))

# ---- positions -------------------------------------------------------------------------------
# A position is (size, text): text[y * size + x] is "X", "O" or "." for the point (x, y).


def _uniform(rng, n):
    # Every point filled with the same chance, Black usually the more numerous.
    fill = rng.uniform(0.20, 0.75)
    black = rng.uniform(0.45, 0.75)
    return "".join(
        ("X" if rng.random() < black else "O") if rng.random() < fill else "."
        for _ in range(n * n)
    )


def _cluster(rng, n):
    # Stones heaped around a point near the centre, as in a real game.
    cells = ["."] * (n * n)
    cx = (n - 1) / 2 + rng.uniform(-2, 2)
    cy = (n - 1) / 2 + rng.uniform(-2, 2)
    spread = rng.uniform(1.5, 4.0)
    black = rng.uniform(0.5, 0.75)
    for _ in range(int(rng.uniform(0.20, 0.75) * n * n)):
        for _ in range(20):  # a few tries for an empty point near the heap
            x = round(rng.gauss(cx, spread))
            y = round(rng.gauss(cy, spread))
            if 0 <= x < n and 0 <= y < n and cells[y * n + x] == ".":
                cells[y * n + x] = "X" if rng.random() < black else "O"
                break
    return "".join(cells)


def _shapes(rng, n):
    # Black line fragments with gaps (twos, threes, broken threes, fours) crossing each other,
    # a few white stones among them: many double-threes, and threes whose completion points are
    # themselves forbidden (the recursive case).
    cells = ["."] * (n * n)
    target = rng.uniform(0.20, 0.45) * n * n
    white = rng.uniform(0.05, 0.35)
    placed = 0
    while placed < target:
        x = rng.randrange(n)
        y = rng.randrange(n)
        dx, dy = rng.choice(_DIRS)
        for _ in range(rng.randint(2, 5)):
            if 0 <= x < n and 0 <= y < n and cells[y * n + x] == ".":
                cells[y * n + x] = "O" if rng.random() < white else "X"
                placed += 1
            step = 2 if rng.random() < 0.25 else 1
            x += dx * step
            y += dy * step
    return "".join(cells)


def make_positions(count, seed=SEED):
    """``count`` seeded random positions: a third of each kind, mostly on 15x15."""
    rng = random.Random(seed)
    kinds = (_uniform, _cluster, _shapes)
    out = []
    for i in range(count):
        n = rng.choice((15,) * 8 + (5, 7, 9, 11, 13, 19))
        out.append((n, kinds[i % 3](rng, n)))
    return out


def diagram(n, text, mark=None):
    """The position top row first, ``*`` on the point ``mark``; column letters A.. underneath."""
    lines = []
    for y in range(n - 1, -1, -1):
        row = []
        for x in range(n):
            row.append("*" if mark == (x, y) else text[y * n + x])
        lines.append("%2d %s" % (y + 1, " ".join(row)))
    lines.append("   " + " ".join("ABCDEFGHJKLMNOPQRST"[:n]))
    return "\n".join(lines)


# ---- what each side says ---------------------------------------------------------------------


def renju_grid(n, text):
    """renju's ``board[x][y]``, y from the top."""
    grid = [[0] * n for _ in range(n)]
    for i, ch in enumerate(text):
        if ch != ".":
            grid[i % n][n - 1 - i // n] = _CELL[ch]
    return grid


def renju_fouls(n, text):
    """renju's kind for every empty point, in text order, as a string of digits.

    One ``ForbidChecker`` serves the whole position: ``foulr`` puts everything back as it found
    it, and ``get_foul_type`` is just ``ForbidChecker(board, x, y).foulr(x, y, 0)`` (five times
    slower for building the checker at each point). ``test_one_checker_per_position_is_get_foul_type``
    checks the shortcut against ``get_foul_type`` itself.
    """
    checker = ForbidChecker(renju_grid(n, text), 0, 0)
    return "".join(
        str(checker.foulr(i % n, n - 1 - i // n, 0)) for i, ch in enumerate(text) if ch == "."
    )


def board_of(n, text, board=None):
    """A ``GomokuBoard`` holding the position (``board`` cleared and reused if given)."""
    if board is None or board.size != n:
        board = GomokuBoard(n)
    else:
        board.clear()
    for i, ch in enumerate(text):
        if ch != ".":
            board.put(_CELL[ch], i % n, i // n)
    return board


def our_fouls(board, n, text):
    return "".join(str(board.forbidden(i % n, i // n)) for i, ch in enumerate(text) if ch == ".")


def naive_runs(n, text, x, y):
    """FIVE | LONG for the stone on (x, y), counted cell by cell."""
    ch = text[y * n + x]
    out = 0
    for dx, dy in _DIRS:
        run = 1
        for s in (1, -1):
            cx, cy = x + s * dx, y + s * dy
            while 0 <= cx < n and 0 <= cy < n and text[cy * n + cx] == ch:
                run += 1
                cx += s * dx
                cy += s * dy
        if run == 5:
            out |= FIVE
        elif run > 5:
            out |= LONG
    return out


def naive_lines(n, text):
    """``lines()`` expected for every stone in text order, and ``has_five`` for (black exact,
    black five-or-more, white exact, white five-or-more), as one string of digits."""
    lines = []
    seen = {"X": 0, "O": 0}
    for i, ch in enumerate(text):
        if ch != ".":
            r = naive_runs(n, text, i % n, i // n)
            lines.append(str(r))
            seen[ch] |= r
    fives = "".join("1" if seen[ch] & bits else "0" for ch in "XO" for bits in (FIVE, FIVE | LONG))
    return "".join(lines) + " " + fives


def our_lines(board, n, text):
    lines = "".join(
        str(board.lines(_CELL[ch], i % n, i // n)) for i, ch in enumerate(text) if ch != "."
    )
    fives = "".join(
        "1" if board.has_five(c, exact) else "0" for c in (BLACK, WHITE) for exact in (1, 0)
    )
    return lines + " " + fives


# The same on the MicroPython unix port: positions in, one line of verdicts per position out.
MP_SCRIPT = """
import sys
sys.path.insert(0, %r)
from firmware.rules.gomoku_board import GomokuBoard
CELL = {"X": 1, "O": 2}
boards = {}
with open(sys.argv[-1]) as f:
    for line in f:
        n, text = line.split()
        n = int(n)
        b = boards.get(n)
        if b is None:
            b = boards[n] = GomokuBoard(n)
        b.clear()
        for i in range(n * n):
            ch = text[i]
            if ch != ".":
                b.put(CELL[ch], i %% n, i // n)
        out = []
        for i in range(n * n):
            if text[i] == ".":
                out.append(str(b.forbidden(i %% n, i // n)))
        out.append(" ")
        for i in range(n * n):
            ch = text[i]
            if ch != ".":
                out.append(str(b.lines(CELL[ch], i %% n, i // n)))
        out.append(" ")
        for c in (1, 2):
            for exact in (1, 0):
                out.append("1" if b.has_five(c, exact) else "0")
        print("".join(out))
"""


def _disagreement(what, n, text, i, ours, theirs):
    point = (i % n, i // n)
    return "%s at %s (x, y), ours %s, renju %s:\n%s" % (
        what,
        point,
        ours,
        theirs,
        diagram(n, text, point),
    )


def compare_fouls(n, text, ours, theirs):
    """'' when the digit strings agree, else a report of the first differing point."""
    if ours == theirs:
        return ""
    empties = [i for i, ch in enumerate(text) if ch == "."]
    for k, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return _disagreement("forbidden", n, text, empties[k], a, b)
    return "forbidden: %d verdicts, renju %d" % (len(ours), len(theirs))


def compare_lines(n, text, ours, expected):
    if ours == expected:
        return ""
    stones = [i for i, ch in enumerate(text) if ch != "."]
    a_lines, a_fives = ours.split(" ")
    b_lines, b_fives = expected.split(" ")
    for k, (a, b) in enumerate(zip(a_lines, b_lines, strict=False)):
        if a != b:
            return _disagreement("lines()", n, text, stones[k], a, b)
    return "has_five (B exact, B 5+, W exact, W 5+): ours %s, naive %s:\n%s" % (
        a_fives,
        b_fives,
        diagram(n, text),
    )


# ---- fixtures ---------------------------------------------------------------------------------


def nasty_positions():
    """The hand-made and searched-for positions of tests/test_gomoku_alloc.py, as (size, text),
    with their marked point and the verdict that test expects there."""
    out = []
    for name, diagram, kind in NASTY:
        n, stones, mark = parse(diagram)
        cells = ["."] * (n * n)
        for x, y, c in stones:
            cells[y * n + x] = "X" if c == BLACK else "O"
        out.append((name, n, "".join(cells), mark, kind))
    return out


@pytest.fixture(scope="module")
def positions():
    """The random positions, then the nasty ones: both runtimes check them all."""
    return make_positions(POSITIONS) + [(n, text) for _, n, text, _, _ in nasty_positions()]


@pytest.fixture(scope="module")
def micropython_run(positions, tmp_path_factory):
    """The MicroPython subprocess, started before the reference is computed so that the two
    overlap; its output goes to a file (a pipe would fill up while nobody reads it)."""
    if not os.path.exists(MICROPYTHON):
        pytest.skip("no MicroPython unix port at %s (run make test)" % MICROPYTHON)
    folder = tmp_path_factory.mktemp("renju")
    data = folder / "positions.txt"
    data.write_text("".join("%d %s\n" % p for p in positions))
    script = folder / "check.py"
    script.write_text(MP_SCRIPT % REPO)
    out = open(folder / "out.txt", "w+")  # noqa: SIM115  (closed in the test)
    err = open(folder / "err.txt", "w+")  # noqa: SIM115
    proc = subprocess.Popen(
        [MICROPYTHON, "-X", "heapsize=8M", str(script), str(data)],
        cwd=REPO,
        stdout=out,
        stderr=err,
    )
    yield proc, out, err
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    out.close()
    err.close()


@pytest.fixture(scope="module")
def reference(positions):
    """renju's verdict for every empty point, and the naive lines/has_five, per position."""
    return [(renju_fouls(n, text), naive_lines(n, text)) for n, text in positions]


# ---- 1. forbidden points, lines, fives on random positions -----------------------------------
# The MicroPython test comes first: its fixture starts the subprocess, then the reference
# (CPython, the slow part) is computed while it runs.


def test_micropython_agrees_with_renju(micropython_run, positions, reference):
    proc, out, err = micropython_run
    proc.wait(timeout=600)
    err.seek(0)
    assert proc.returncode == 0, err.read()
    out.seek(0)
    got = out.read().splitlines()
    assert len(got) == len(positions)
    bad = []
    for (n, text), (fouls, lines), line in zip(positions, reference, got, strict=True):
        f, stones, fives = line.split(" ")
        why = compare_fouls(n, text, f, fouls) or compare_lines(
            n, text, stones + " " + fives, lines
        )
        if why:
            bad.append(why)
    assert not bad, "%d positions disagree; the first:\n%s" % (len(bad), bad[0])


def test_cpython_agrees_with_renju(positions, reference):
    board = None
    bad = []
    for (n, text), (fouls, lines) in zip(positions, reference, strict=True):
        board = board_of(n, text, board)
        why = compare_fouls(n, text, our_fouls(board, n, text), fouls) or compare_lines(
            n, text, our_lines(board, n, text), lines
        )
        if why:
            bad.append(why)
    assert not bad, "%d positions disagree; the first:\n%s" % (len(bad), bad[0])


def test_the_positions_are_worth_checking(positions, reference):
    # Guards the generator: enough of every verdict to matter (the figures are about half of
    # what the seeded positions give).
    kinds = [0, 0, 0, 0]
    checks = 0
    for fouls, _ in reference:
        checks += len(fouls)
        for k in range(4):
            kinds[k] += fouls.count(str(k))
    assert checks > 200_000, checks
    assert kinds[DOUBLE_THREE] > 800, kinds
    assert kinds[DOUBLE_FOUR] > 3_000, kinds
    assert kinds[OVERLINE] > 4_000, kinds


def test_the_positions_reach_the_recursion(positions, monkeypatch):
    # ... and the recursive rule is exercised: threes whose completion point is itself
    # forbidden, several levels deep. _foul is wrapped here (CPython runs it as plain Python,
    # and its recursive call looks the name up in the module) to count its nesting.
    seen = {"depth": 0, "deepest": 0, "inner_fouls": 0}
    inner = gomoku_board._foul

    def counted(rows, n, lb, x, y, depth, limit):
        seen["depth"] += 1
        seen["deepest"] = max(seen["deepest"], seen["depth"])
        try:
            kind = inner(rows, n, lb, x, y, depth, limit)
        finally:
            seen["depth"] -= 1
        if seen["depth"] and kind:
            seen["inner_fouls"] += 1
        return kind

    monkeypatch.setattr(gomoku_board, "_foul", counted)
    board = None
    for n, text in positions[2::3][:400]:  # line-fragment positions, the deepest ones
        board = board_of(n, text, board)
        our_fouls(board, n, text)
    print("recursion: %(deepest)d levels deep, %(inner_fouls)d inner fouls" % seen)
    # The judge looks at completion points only while two live threes are possible: it goes
    # 4 deep here with 926 completion points found forbidden (8 and 4,484 without that).
    assert seen["deepest"] >= 3, seen
    assert seen["inner_fouls"] > 400, seen


def test_the_nasty_positions_mean_the_same_to_renju():
    # The verdicts tests/test_gomoku_alloc.py expects at its marked points are renju's too
    # (every other point of those positions is compared with the random ones above).
    for name, n, text, (x, y), kind in nasty_positions():
        assert get_foul_type(renju_grid(n, text), x, n - 1 - y) == kind, name


def test_one_checker_per_position_is_get_foul_type(positions):
    # The shortcut renju_fouls() takes, against renju's own entry point on a few positions.
    for n, text in positions[:40]:
        grid = renju_grid(n, text)
        direct = "".join(
            str(get_foul_type(grid, i % n, n - 1 - i // n))
            for i, ch in enumerate(text)
            if ch == "."
        )
        assert renju_fouls(n, text) == direct, diagram(n, text)


# ---- 2. random games: who wins, and why --------------------------------------------------------


def our_verdict(board, rule, c, x, y):
    """(status, reason) our board gives for colour ``c`` playing on empty (x, y), the stone
    then left on the board; renju.RenjuBoard's rules as that package states them."""
    kind = board.forbidden(x, y) if c == BLACK else 0
    board.put(c, x, y)
    made = board.lines(c, x, y)
    win = BoardStatus.BLACK_WIN if c == BLACK else BoardStatus.WHITE_WIN
    if rule == "freestyle":
        if made:
            return win, WinReason.FIVE_IN_A_ROW
    elif rule == "standard":
        if made & FIVE:
            return win, WinReason.FIVE_IN_A_ROW
    elif c == WHITE:
        if made:  # white's overline wins (seed 002, 第十条 1(1))
            return win, WinReason.FIVE_IN_A_ROW
    elif made & FIVE:  # an exact five wins even if it is also a forbidden shape
        return win, WinReason.FIVE_IN_A_ROW
    elif kind:
        reasons = {
            DOUBLE_THREE: WinReason.DOUBLE_THREE,
            DOUBLE_FOUR: WinReason.DOUBLE_FOUR,
            OVERLINE: WinReason.OVERLINE,
        }
        return BoardStatus.WHITE_WIN, reasons[kind]
    if board.full():
        return BoardStatus.DRAW, WinReason.DRAW
    return BoardStatus.ONGOING, WinReason.NORMAL


def random_game(rng, n):
    """Moves of a random game, most of them next to stones already played (fives come sooner)."""
    free = [(x, y) for x in range(n) for y in range(n)]
    rng.shuffle(free)
    moves = []
    taken = set()
    near = []
    while len(moves) < n * n:
        if near and rng.random() < 0.8:
            p = near[rng.randrange(len(near))]
        else:
            p = free.pop()
        if p in taken:
            continue
        taken.add(p)
        moves.append(p)
        x, y = p
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                q = (x + dx, y + dy)
                if 0 <= q[0] < n and 0 <= q[1] < n and q not in taken:
                    near.append(q)
        near = [q for q in near if q not in taken]
    return moves


@pytest.mark.parametrize("rule", ["renju", "standard", "freestyle"])
def test_random_games_end_as_renju_says(rule):
    rng = random.Random("%d-%s" % (SEED, rule))
    ends = {}
    for g in range(GAMES):
        n = 15 if g % 5 else rng.choice((7, 9, 11))
        ref = RenjuBoard(board_size=n, rule=rule)
        board = GomokuBoard(n)
        for ply, (x, y) in enumerate(random_game(rng, n)):
            c = BLACK if ply % 2 == 0 else WHITE
            ours = our_verdict(board, rule, c, x, y)
            theirs = ref.play_move(x, n - 1 - y)
            text = "".join(".XO"[board.color_at(i % n, i // n)] for i in range(n * n))
            assert ours == theirs, "game %d move %d: ours %s, renju %s\n%s" % (
                g,
                ply + 1,
                ours,
                theirs,
                diagram(n, text, (x, y)),
            )
            # has_five() says the same: exact for the rules where only five wins.
            exact = rule == "standard" or (rule == "renju" and c == BLACK)
            won = ours[0] == (BoardStatus.BLACK_WIN if c == BLACK else BoardStatus.WHITE_WIN)
            assert board.has_five(c, exact) == won, (g, ply + 1)
            if ours[0] != BoardStatus.ONGOING:
                ends[ours[1]] = ends.get(ours[1], 0) + 1
                break
    # Every way a game can end under this rule happened at least a few times.
    assert ends.get(WinReason.FIVE_IN_A_ROW, 0) > GAMES // 4, ends
    if rule == "renju":
        for why in (WinReason.DOUBLE_THREE, WinReason.DOUBLE_FOUR, WinReason.OVERLINE):
            assert ends.get(why, 0) >= 3, ends
