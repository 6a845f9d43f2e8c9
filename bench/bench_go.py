"""Speed and memory of the Go rules core (``firmware/rules``) on the MicroPython unix port.

    micropython bench/bench_go.py [--games N] [--passes N] [--sgfmill-games N]
                                  [--count-games N] [--sgfmill DIR] [--corpus DIR]

Run from the repository root (``make bench`` runs it as ``micropython -m bench.bench_go``). It
also runs under CPython (``python bench/bench_go.py``) for comparison. What each part measures
and how to read the numbers: ``bench/README.md``. In short:

1. the calibration loop of DESIGN.md §3, sampled all through the run: every RP2040 figure is
   an estimate, unix time x 48.8 ms / calibration time;
2. replay of the real games in ``<shared>/corpus/go``: every ``Game.play`` timed on its own;
3. the same moves on sgfmill's ``boards.Board``, on the same runtime: the baseline ratio;
4. ``go_count.count`` on the final 19x19 positions of corpus games;
5. memory: heap bytes of ``Game(19)`` and of a full replay, and whether a move allocates;
6. built worst cases (``tests/go_worst.py``, no corpus needed): a 1,024-ply game of big
   captures and a ko, each move timed alone, and the move past the history's room; the comb
   snake's second-to-last liberty, ``legal()`` there, its capture and the undo of it;
7. a summary against the RP2040 targets. It is information only: the exit status is 0 whatever
   the figures (only a crash or a bad option fails).

The corpus is read in place (``$TENGEN_SHARED/corpus/go`` or ``<repo>/../shared/corpus/go``),
never copied. sgfmill is found through ``--sgfmill DIR`` or ``$TENGEN_SGFMILL`` (the folder
that holds the ``sgfmill`` package: a site-packages directory), else it is imported from the
runtime's own path, else from ``<repo>/.venv/lib/python*/site-packages``.
"""

import gc
import os
import sys
import time
from array import array

IS_MICROPYTHON = sys.implementation.name == "micropython"

CALIB_RP2040_MS = 48.8  # DESIGN.md §3: the calibration loop on an emulated 125 MHz RP2040
TARGET_MOVE_MEAN_MS = 0.5
TARGET_MOVE_WORST_MS = 2.0
TARGET_COUNT_MS = 100.0
TARGET_SGFMILL_RATIO = 50.0

BLACK = 1
WHITE = 2
PASS = 1023  # moves are stored as colour << 10 | y << 5 | x; this low part is a pass
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP column letters (no I)
CALIB_EVERY = 32  # games between two calibration samples

USAGE = """usage: bench_go.py [--games N] [--passes N] [--sgfmill-games N] [--count-games N]
                   [--sgfmill DIR] [--corpus DIR]
  --games N          replay only the first N corpus games (default: all)
  --passes N         times every game is replayed; its fastest replay counts (default 3)
  --sgfmill-games N  games replayed on sgfmill for the ratio (default 50)
  --count-games N    end positions counted (default 50, spread over the games)
  --sgfmill DIR      folder holding the sgfmill package (or $TENGEN_SGFMILL)
  --corpus DIR       Go SGF corpus (default $TENGEN_SHARED/corpus/go or ../shared/corpus/go)"""


# ---- paths (the unix port's os has no os.path) ---------------------------------------------


def _is_dir(path):
    try:
        return os.stat(path)[0] & 0o170000 == 0o040000
    except OSError:
        return False


# Run as ``micropython -m bench.bench_go`` from the repository root (``make bench``), so the
# repository is on the path and the test helpers know where it and the shared data are.
from tests.support import REPO, SHARED  # noqa: E402

BENCH = REPO + "/bench"

from bench import measured  # noqa: E402

# The firmware package first: on CPython it adds `micropython`.
from firmware.rules import go_count, sgf  # noqa: E402
from firmware.rules.go import Game  # noqa: E402
from firmware.rules.go_board import REASONS, Board  # noqa: E402
from tests import go_worst  # noqa: E402

# isort: split
import micropython  # noqa: E402  (built in, or firmware/_mpshim.py on CPython)

# ---- timers and heap -----------------------------------------------------------------------

if IS_MICROPYTHON:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
else:

    def ticks_us():
        """Microseconds, like MicroPython's ``time.ticks_us``."""
        return time.perf_counter_ns() // 1000

    def ticks_diff(a, b):
        """``a - b``: CPython's counter does not wrap."""
        return a - b


def mem_alloc():
    """Heap bytes in use (MicroPython), or None where the runtime cannot say."""
    f = getattr(gc, "mem_alloc", None)
    return f() if f else None


# ---- options -------------------------------------------------------------------------------


def read_options(argv, usage, defaults, paths=()):
    """``--name N`` options (``--name PATH`` for ``paths``) over ``defaults``; exits on errors."""
    opts = dict(defaults)
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(usage)
            sys.exit(0)
        key = a[2:].replace("-", "_")
        if not a.startswith("--") or key not in opts or i + 1 >= len(argv):
            print(usage)
            sys.exit(2)
        v = argv[i + 1]
        if key in paths:
            opts[key] = v
        else:
            try:
                opts[key] = int(v)
            except ValueError:
                print("%s needs a number, not %r" % (a, v))
                sys.exit(2)
        i += 2
    if "passes" in opts:
        opts["passes"] = max(1, opts["passes"])
    return opts


def parse_args(argv):
    defaults = {
        "games": None,
        "passes": 3,
        "sgfmill_games": 50,
        "count_games": 50,
        "sgfmill": None,
        "corpus": None,
    }
    return read_options(argv, USAGE, defaults, ("sgfmill", "corpus"))


# ---- 1. calibration ------------------------------------------------------------------------


def calib():
    x = 0
    for i in range(10000):
        x += i


class Calibration:
    """The calibration loop's time in µs, sampled all through the run.

    The machine's speed drifts (on a shared virtual machine, by tens of per cent within
    seconds), so ``sample()`` is called between games in every pass and the fastest sample
    counts, the same statistic as the fastest replays it scales.
    """

    def __init__(self):
        self.best = None
        self.slowest = 0
        self.samples = 0

    def sample(self, runs=3):
        for _ in range(runs):
            t0 = ticks_us()
            calib()
            dt = ticks_diff(ticks_us(), t0)
            self.samples += 1
            if self.best is None or dt < self.best:
                self.best = dt
            if dt > self.slowest:
                self.slowest = dt

    def scale(self):
        """RP2040 ms per unix-port µs: the DESIGN.md §3 rule."""
        return CALIB_RP2040_MS / self.best


def timer_overhead(runs=10000):
    """Mean reading in µs of an empty ``ticks_us`` interval (it is in every per-move figure)."""
    total = 0
    for _ in range(runs):
        t0 = ticks_us()
        total += ticks_diff(ticks_us(), t0)
    return total / runs


# ---- corpus --------------------------------------------------------------------------------


def corpus_dir(opts):
    if opts["corpus"]:
        return opts["corpus"]
    shared = SHARED
    return shared + "/corpus/go"


def find_sgf(root, rel=""):
    """Relative paths of every ``*.sgf`` under ``root``, sorted, recursing into folders."""
    out = []
    folder = root + "/" + rel if rel else root
    for name in sorted(os.listdir(folder)):
        path = rel + "/" + name if rel else name
        if _is_dir(root + "/" + path):
            out.extend(find_sgf(root, path))
        elif name.endswith(".sgf"):
            out.append(path)
    return out


CHUNK_BITS = 13
CHUNK = 1 << CHUNK_BITS  # moves per storage block


class Corpus:
    """Parsed games, their moves in blocks of ``CHUNK`` moves, ``colour << 10 | y << 5 | x``.

    Game ``g`` is ``length[g]`` moves from ``start[g]`` (block ``start >> CHUNK_BITS``, offset
    ``start & (CHUNK - 1)``; no game spans two blocks) on a ``size[g]`` board, read from
    ``file_name(file[g])``. ``times`` parallels ``blocks``: each move's fastest time (µs, 255 =
    255 or more). Everything is allocated before the first file is parsed, sized from the file
    sizes (a move takes at least 6 bytes of SGF, ";B[aa]"): the unix port's heap is 2 MB, and
    long-lived objects allocated among the parser's garbage fragment it until a block no
    longer finds a hole.
    """

    def __init__(self, root, limit=None):
        files = find_sgf(root)
        nfiles = len(files)
        self.nfiles = nfiles
        self.skipped = []  # (name, why)
        bound = 0
        for name in files if limit is None else files[: limit + 50]:
            bound += os.stat(root + "/" + name)[6] // 6
        # The names as one string: the list's strings lie scattered over the heap among the
        # directory walk's garbage, and would leave no hole for a block.
        self._at = array("I", bytearray(4 * (nfiles + 1)))
        for f in range(nfiles):
            self._at[f + 1] = self._at[f] + len(files[f])
        self._names = "".join(files)
        files = None
        gc.collect()
        self.blocks = []
        self.times = []
        for _ in range(bound // CHUNK + 2):  # + 2: the ends of blocks no game fills
            self.blocks.append(array("H", bytearray(2 * CHUNK)))
            self.times.append(bytearray(CHUNK))
        self.start = array("I", bytearray(4 * nfiles))
        self.length = array("H", bytearray(2 * nfiles))
        self.file = array("H", bytearray(2 * nfiles))
        self.size = bytearray(nfiles)
        self.games = 0
        self.total = 0
        self.full = False  # stopped early: no room left for the next game
        end = 0  # where the next game goes
        for fi in range(nfiles):
            if limit is not None and self.games >= limit:
                break
            name = self.file_name(fi)
            with open(root + "/" + name, "rb") as f:
                data = f.read()
            try:
                nodes = sgf.parse(data)
                info = sgf.game_info(nodes[0])
                size = info["size"]
                if info["ab"] or info["aw"]:
                    self.skipped.append((name, "setup stones"))
                    continue
                if not 2 <= size <= 19:
                    self.skipped.append((name, "size %d" % size))
                    continue
                mv = sgf.moves(nodes, size)
            except sgf.SgfError as e:
                self.skipped.append((name, str(e)))
                continue
            data = nodes = None
            n = len(mv)
            if n > CHUNK:
                self.skipped.append((name, "%d moves: more than the bench stores" % n))
                continue
            if (end & (CHUNK - 1)) + n > CHUNK:
                end = ((end >> CHUNK_BITS) + 1) << CHUNK_BITS  # on to the next block
            if end >> CHUNK_BITS >= len(self.blocks):
                self.full = True
                break
            block = self.blocks[end >> CHUNK_BITS]
            i = end & (CHUNK - 1)
            for colour, xy in mv:
                c = BLACK if colour == "B" else WHITE
                block[i] = (c << 10) | (PASS if xy is None else (xy[1] << 5) | xy[0])
                i += 1
            g = self.games
            self.start[g] = end
            self.length[g] = n
            self.file[g] = fi
            self.size[g] = size
            self.games = g + 1
            self.total += n
            end += n
        mv = None
        used = (end >> CHUNK_BITS) + 1
        del self.blocks[used:]  # give back what the bound overestimated
        del self.times[used:]

    def __len__(self):
        return self.games

    def file_name(self, f):
        """The path of SGF file ``f`` (of all those found), relative to the corpus folder."""
        return self._names[self._at[f] : self._at[f + 1]]

    def name(self, g):
        """The file of game ``g``, relative to the corpus folder."""
        return self.file_name(self.file[g])

    def span(self, g):
        """(moves block, times block, first index, end index) of game ``g``."""
        s = self.start[g]
        lo = s & (CHUNK - 1)
        return self.blocks[s >> CHUNK_BITS], self.times[s >> CHUNK_BITS], lo, lo + self.length[g]

    def move(self, g, k):
        """Move ``k`` (from 0) of game ``g``, encoded."""
        moves, _, lo, _ = self.span(g)
        return moves[lo + k]


def vertex(m):
    """GTP vertex of an encoded move: ``Q16``, or ``pass``."""
    p = m & 1023
    if p == PASS:
        return "pass"
    return "%s%d" % (COLUMNS[p & 31], (p >> 5) + 1)


def play_encoded(game, m):
    """Play an encoded move (on untimed paths); the result of ``Game.play``."""
    p = m & 1023
    if p == PASS:
        return game.play(m >> 10, None, None)
    return game.play(m >> 10, p & 31, p >> 5)


# ---- 2. replay with Game.play --------------------------------------------------------------


def play_game(game, size, moves, tk, lo, hi):
    """Replay one game, timing each ``Game.play`` alone; each move's minimum goes to ``tk``.

    Returns (µs of all moves, µs of the moves on the board, moves on the board, refused moves,
    index of the first refused move or -1, its reason, the slowest single timing, the index of
    that move). Between its two clock readings there is nothing but the call of ``Game.play``.
    """
    game.clear(size)
    t_all = 0
    t_board = 0
    on_board = 0
    refused = 0
    first = -1
    reason = 0
    slowest = 0
    slowest_at = lo
    for i in range(lo, hi):
        m = moves[i]
        c = m >> 10
        p = m & 1023
        if p == PASS:
            x = y = None
        else:
            x = p & 31
            y = p >> 5
        t0 = ticks_us()
        r = game.play(c, x, y)
        dt = ticks_diff(ticks_us(), t0)
        t_all += dt
        if x is not None:
            t_board += dt
            on_board += 1
        if dt < tk[i]:
            tk[i] = dt
        if dt > slowest:
            slowest = dt
            slowest_at = i
        if r:
            refused += 1
            if first < 0:
                first = i
                reason = r
    return t_all, t_board, on_board, refused, first, reason, slowest, slowest_at


class ReplayBench:
    """Every corpus game replayed once per pass; ``result()`` sums up, in µs.

    A game's time is its fastest replay, a move's time the minimum of its timings. The OS can
    interrupt any single timing and the machine's speed drifts for a second or more at a time
    (see README), but passes seconds apart will not all be slowed at the same game.
    """

    def __init__(self, corpus, game):
        self.corpus = corpus
        self.game = game
        n = len(corpus)
        self.best = array("I", [0xFFFFFFFF] * n)
        for g in range(n):
            _, tk, lo, hi = corpus.span(g)
            for i in range(lo, hi):
                tk[i] = 255
        self.passes = 0
        self.refused = 0
        self.first_refused = None
        self.slowest = 0
        self.board_moves = 0

    def run_pass(self, cal):
        corpus = self.corpus
        for g in range(len(corpus)):
            if g % CALIB_EVERY == 0:
                gc.collect()  # the same tidy heap for every game
                cal.sample(1)
            moves, tk, lo, hi = corpus.span(g)
            t_all, _, on_board, ref, first, reason, mx, _ = play_game(
                self.game, corpus.size[g], moves, tk, lo, hi
            )
            if t_all < self.best[g]:
                self.best[g] = t_all
            if mx > self.slowest:
                self.slowest = mx
            if self.passes == 0:
                self.board_moves += on_board
                self.refused += ref
                if first >= 0 and self.first_refused is None:
                    self.first_refused = (g, first - lo, reason)
        self.passes += 1

    def result(self):
        corpus = self.corpus
        worst = (-1, 0, 0)  # (µs, game, move)
        total = 0
        for g in range(len(corpus)):
            total += self.best[g]
            _, tk, lo, hi = corpus.span(g)
            for i in range(lo, hi):
                if tk[i] > worst[0]:
                    worst = (tk[i], g, i - lo)
        return {
            "games": len(corpus),
            "moves": corpus.total,
            "passes": self.passes,
            "total_us": total,
            "board_moves": self.board_moves,
            "refused": self.refused,
            "first_refused": self.first_refused,
            "worst": worst,
            "slowest_us": self.slowest,
        }


# ---- 3. sgfmill baseline -------------------------------------------------------------------


def _site_packages_with_sgfmill():
    lib = REPO + "/.venv/lib"
    if not _is_dir(lib):
        return None
    for name in sorted(os.listdir(lib)):
        site = lib + "/" + name + "/site-packages"
        if _is_dir(site + "/sgfmill"):
            return site
    return None


def import_sgfmill(opts):
    """(sgfmill.boards, where it came from) or (None, why not)."""
    if IS_MICROPYTHON:
        try:
            import itertools  # noqa: F401
        except ImportError:
            sys.path.append(BENCH + "/_shims")  # itertools.chain, which sgfmill imports
    path = opts["sgfmill"] or os.getenv("TENGEN_SGFMILL")
    if not path:
        try:
            from sgfmill import boards

            return boards, "the runtime's own path"
        except ImportError:
            path = _site_packages_with_sgfmill()
    if not path:
        return None, "not found (pass --sgfmill DIR or set TENGEN_SGFMILL)"
    sys.path.append(path)  # last, so that nothing there shadows the firmware or the shims
    try:
        from sgfmill import boards
    except ImportError as e:
        return None, "cannot be imported from %s: %s" % (path, e)
    return boards, path


def sgfmill_game(boards, size, moves, lo, hi):
    """Replay one game on ``sgfmill.boards.Board``; (µs, moves, errors, slowest µs).

    Passes are skipped (sgfmill's board has no pass). The time includes the garbage
    collections its allocations cause: that is part of its cost.
    """
    b = boards.Board(size)
    total = 0
    n = 0
    errors = 0
    slowest = 0
    for i in range(lo, hi):
        m = moves[i]
        p = m & 1023
        if p == PASS:
            continue
        colour = "b" if m >> 10 == BLACK else "w"
        row = p >> 5  # sgfmill's row 0 is the bottom line, as our y
        col = p & 31
        t0 = ticks_us()
        try:
            b.play(row, col, colour)
        except ValueError:
            errors += 1
        dt = ticks_diff(ticks_us(), t0)
        total += dt
        n += 1
        if dt > slowest:
            slowest = dt
    return total, n, errors, slowest


class NullGame:
    """A game whose ``play`` does nothing: what the timing loop itself costs per move."""

    def clear(self, size=None):
        pass

    def play(self, c, x, y):
        return 0


class BoardOnly:
    """Our fast board alone, no history: captures, simple ko, suicide, as sgfmill's Board."""

    def __init__(self):
        self.board = Board(19)
        self.play = self.board.play  # timed directly, no wrapper call in between

    def clear(self, size=None):
        if size is not None and size != self.board.size:
            self.board = Board(size)
            self.play = self.board.play
        self.board.clear()


class SgfmillBench:
    """Ours and sgfmill game by game on the first ``ngames`` games, once per pass.

    Per-move means are over the moves on the board (sgfmill has no pass); each game's fastest
    replay counts, on either side. ``NullGame`` replays the same moves, for the floor: a
    ``play`` that does nothing still costs a method call and a clock reading.
    """

    def __init__(self, boards, corpus, game, ngames):
        self.boards = boards
        self.corpus = corpus
        self.game = game
        self.ngames = ngames
        self.scratch = bytearray(CHUNK)  # these per-move minima are not the replay bench's
        self.ours = array("I", [0xFFFFFFFF] * ngames)
        self.mill = array("I", [0xFFFFFFFF] * ngames)
        self.null = array("I", [0xFFFFFFFF] * ngames)
        self.board = array("I", [0xFFFFFFFF] * ngames)
        self.null_game = NullGame()
        self.board_only = BoardOnly()
        self.passes = 0
        self.moves = 0
        self.errors = 0
        self.slowest = 0

    def run_pass(self, cal):
        corpus = self.corpus
        for g in range(self.ngames):
            if g % 8 == 0:
                cal.sample(1)
            moves, _, lo, hi = corpus.span(g)
            size = corpus.size[g]
            # A collection before each side: sgfmill leaves most of the heap full of garbage,
            # and the allocator's search through it would slow down whatever allocates next.
            gc.collect()
            t_board = play_game(self.game, size, moves, self.scratch, lo, hi)[1]
            self.ours[g] = min(self.ours[g], t_board)
            gc.collect()
            t, n, err, mx = sgfmill_game(self.boards, size, moves, lo, hi)
            self.mill[g] = min(self.mill[g], t)
            self.slowest = max(self.slowest, mx)
            t_null = play_game(self.null_game, size, moves, self.scratch, lo, hi)[1]
            self.null[g] = min(self.null[g], t_null)
            t_bo = play_game(self.board_only, size, moves, self.scratch, lo, hi)[1]
            self.board[g] = min(self.board[g], t_bo)
            if self.passes == 0:
                self.moves += n
                self.errors += err
        self.passes += 1

    def result(self):
        ours = 0
        mill = 0
        null = 0
        board = 0
        for g in range(self.ngames):
            ours += self.ours[g]
            mill += self.mill[g]
            null += self.null[g]
            board += self.board[g]
        return {
            "games": self.ngames,
            "moves": self.moves,
            "ours_us": ours,
            "mill_us": mill,
            "null_us": null,
            "board_us": board,
            "errors": self.errors,
            "mill_slowest_us": self.slowest,
        }


# ---- 4. counting ---------------------------------------------------------------------------


class CountBench:
    """``go_count.count`` on final 19x19 positions spread over the corpus, once per pass.

    Each position is rebuilt and counted once per pass, the heap collected first (count()
    allocates its lists); its fastest count is its time.
    """

    def __init__(self, corpus, game, wanted):
        pool = [g for g in range(len(corpus)) if corpus.size[g] == 19]
        wanted = min(wanted, len(pool))
        self.corpus = corpus
        self.game = game
        self.picks = [pool[j * len(pool) // wanted] for j in range(wanted)]
        self.best = array("I", [0xFFFFFFFF] * wanted)
        self.passes = 0

    def run_pass(self, cal):
        corpus = self.corpus
        game = self.game
        for j in range(len(self.picks)):
            if j % 8 == 0:
                cal.sample(1)
            g = self.picks[j]
            game.clear(19)
            for k in range(corpus.length[g]):
                play_encoded(game, corpus.move(g, k))
            gc.collect()
            t0 = ticks_us()
            go_count.count(game.board)
            dt = ticks_diff(ticks_us(), t0)
            if dt < self.best[j]:
                self.best[j] = dt
        self.passes += 1

    def result(self):
        total = 0
        worst = (-1, 0)
        for j in range(len(self.picks)):
            total += self.best[j]
            if self.best[j] > worst[0]:
                worst = (self.best[j], self.picks[j])
        return {
            "positions": len(self.picks),
            "passes": self.passes,
            "total_us": total,
            "worst": worst,
        }


# ---- 5. memory -----------------------------------------------------------------------------

QUIET_MOVES = ((3, 3), (15, 15), (3, 15), (15, 3), (9, 9), (9, 3), (3, 9), (15, 9), (9, 15))


def longest_game(corpus):
    best = None
    for g in range(len(corpus)):
        n = corpus.length[g]
        if corpus.size[g] == 19 and (best is None or n > best[1]):
            best = (g, n)
    return best


def replay_probed(game, moves, lo, hi, probe):
    """Replay a game (from an empty board) and return how much ``probe()`` grew meanwhile."""
    game.clear(19)
    gc.collect()
    before = probe()
    for i in range(lo, hi):
        m = moves[i]  # decoded inline: the loop itself must not allocate
        p = m & 1023
        if p == PASS:
            game.play(m >> 10, None, None)
        else:
            game.play(m >> 10, p & 31, p >> 5)
    return probe() - before


def bench_memory(corpus):
    """Heap bytes of ``Game(19)`` and of the longest game's replay (MicroPython only)."""
    gc.collect()
    a0 = mem_alloc()
    if a0 is None:
        return None
    game = Game(19)
    a1 = mem_alloc()
    gc.collect()
    a2 = mem_alloc()
    out = {"construct": a1 - a0, "retained": a2 - a0}  # all allocated; what the Game keeps
    longest = longest_game(corpus) if corpus else None
    if longest:
        g, n = longest
        moves, _, lo, hi = corpus.span(g)
        out["replay"] = (replay_probed(game, moves, lo, hi, mem_alloc), g, n)
        total = getattr(micropython, "mem_total", None)  # bytes ever allocated, freed or not
        if total:
            out["traffic"] = replay_probed(game, moves, lo, hi, total)
    return out


def allocates(game, moves):
    """Whether playing ``moves`` [(colour, x, y)] on ``game`` allocates: "yes" or "no"."""
    micropython.heap_lock()
    try:
        for k in range(len(moves)):
            c, x, y = moves[k]
            game.play(c, x, y)
        return "no"
    except MemoryError:
        return "yes"
    finally:
        micropython.heap_unlock()


def bench_heap_lock():
    """Moves under ``micropython.heap_lock()``: do (quiet moves, a capture, a pass) allocate?"""
    if not IS_MICROPYTHON:
        return None
    game = Game(19)
    quiet = [(BLACK if i % 2 == 0 else WHITE, x, y) for i, (x, y) in enumerate(QUIET_MOVES)]
    quiet_result = allocates(game, quiet)
    game.clear(19)
    game.play(BLACK, 1, 0)
    game.play(WHITE, 0, 0)
    capture_result = allocates(game, [(BLACK, 0, 1)])  # takes the white stone in the corner
    pass_result = allocates(game, [(WHITE, None, None)])
    return quiet_result, capture_result, pass_result


# ---- 6. built worst cases ----------------------------------------------------------------

WORST_RUNS = 9  # replays of the long game; each move's first and fastest timing are reported
SNAKE_RUNS = 50  # timings of each step on the comb snake (each well under a millisecond)
MARKED_PLIES = (401, 801)  # where the history used to grow (its room was 400, then 800)


def encode(moves):
    """``[(colour, x, y)]`` as an ``array('H')`` of ``colour << 10 | y << 5 | x`` codes."""
    out = array("H", bytearray(2 * len(moves)))
    for i in range(len(moves)):
        c, x, y = moves[i]
        out[i] = (c << 10) | (PASS if x is None else (y << 5) | x)
    return out


def timed(fn, a, b, c):
    """µs of one call ``fn(a, b, c)`` and its result."""
    t0 = ticks_us()
    r = fn(a, b, c)
    return ticks_diff(ticks_us(), t0), r


def bench_long_game(cal, runs):
    """The long game of ``tests/go_worst.py``, ``runs`` times; figures in µs."""
    game = Game(19)
    moves = encode(go_worst.long_game())
    tk = array("I", [0xFFFFFFFF] * len(moves))
    first = None
    for _ in range(runs):
        gc.collect()
        cal.sample(1)
        r = play_game(game, 19, moves, tk, 0, len(moves))
        refused = r[3]
        if first is None:
            first = (r[6], r[7] + 1)  # the first replay's slowest timing, and its ply
    # The move past the room: refused, and nothing changes.
    full_us = None
    for _ in range(runs):
        dt, reason = timed(game.play, 1, 3, 9)
        full_us = dt if full_us is None else min(full_us, dt)
    # A new position at the last ply: the repetition scan reads all 1,023 earlier plies.
    game.undo()
    scan_us = None
    for _ in range(runs):
        dt, r = timed(game.play, game.to_move, 3, 9)
        game.undo()
        scan_us = dt if scan_us is None else min(scan_us, dt)
    total = 0
    worst = (0, 0)
    for i in range(len(moves)):
        total += tk[i]
        if tk[i] > worst[0]:
            worst = (tk[i], i + 1)
    out = {
        "plies": len(moves),
        "runs": runs,
        "refused": refused,
        "total_us": total,
        "worst": worst,
        "first": first,
        "marked": [(j, tk[j - 1]) for j in MARKED_PLIES],
        "full": (full_us, reason),
        "scan_us": scan_us,
        "captures": tuple(game.captures),
    }
    total_bytes = getattr(micropython, "mem_total", None)
    if total_bytes:
        out["traffic"] = replay_probed(game, moves, 0, len(moves), total_bytes)
    return out


def bench_snake(cal, bands, runs):
    """The comb snake of ``bands`` bands: µs (first, fastest) of each step, and the taken."""
    grid, (fx, fy), (lx, ly) = go_worst.comb_snake(bands)
    game = Game(19)
    go_worst.set_up(game, grid)
    names = ("play", "legal", "capture", "undo")
    best = {}
    firsts = {}

    def note(name, dt):
        if name not in firsts:
            firsts[name] = dt
        best[name] = min(best.get(name, dt), dt)

    taken = 0
    for _ in range(runs):
        cal.sample(1)
        dt, r = timed(game.play, 2, fx, fy)  # White: the second-to-last liberty
        note("play", dt)
        game.undo()
        dt, r = timed(game.legal, 2, fx, fy)
        note("legal", dt)
        game.play(2, fx, fy)
        game.play(1, None, None)
        dt, r = timed(game.play, 2, lx, ly)  # the last: the whole snake is taken
        note("capture", dt)
        taken = game.captures[2]
        t0 = ticks_us()
        game.undo()
        note("undo", ticks_diff(ticks_us(), t0))
        game.undo()
        game.undo()
    return {
        "bands": bands,
        "stones": sum([row.count(1) for row in grid]),
        "taken": taken,
        "rows": [(k, firsts[k], best[k]) for k in names],
    }


# ---- report --------------------------------------------------------------------------------


def section(title):
    print()
    print(title)


def verdict(value, limit):
    return "ok" if value <= limit else "over"


def report_calibration(cal, overhead, start_us, unit="move", title="DESIGN.md section 3"):
    """Section 1 of a bench report: the calibration loop and the RP2040 rule it gives."""
    scale = cal.scale()
    section("1. Calibration (%s)" % title)
    print(
        "  calib() loop:  %d µs, the fastest of %d samples taken all through the run"
        % (cal.best, cal.samples)
    )
    print("                 (at the start %d µs, the slowest %d µs)" % (start_us, cal.slowest))
    print(
        "  RP2040 rule:   unix time x %.1f ms / %d µs = unix time x %.1f: an estimate"
        % (CALIB_RP2040_MS, cal.best, scale * 1000)
    )
    print("  timer:         an empty ticks_us interval reads %.2f µs on average" % overhead)
    print("                 (included in every per-%s figure, not subtracted)" % unit)


def report_replay(corpus, root, load_s, rep, scale):
    section("2. Replay of the corpus with Game.play (chinese ko rule, suicide forbidden)")
    print("  corpus:    %s (%d SGF files)" % (root, corpus.nfiles))
    print("  parsed:    %d games in %.1f s (parsing is not timed)" % (len(corpus), load_s))
    for name, why in corpus.skipped[:5]:
        print("  skipped:   %s: %s" % (name, why))
    if len(corpus.skipped) > 5:
        print("  skipped:   ... %d games in all" % len(corpus.skipped))
    if corpus.full:
        print("  stopped:   the move store was full (a bench limit, not a corpus error)")
    n = rep["moves"]
    print("  moves:     %d in %d games, %d refused" % (n, rep["games"], rep["refused"]))
    if rep["first_refused"]:
        g, k, r = rep["first_refused"]
        m = corpus.move(g, k)
        print(
            "  refused:   first %s move %d (%s), reason %d" % (corpus.name(g), k + 1, vertex(m), r)
        )
    total = rep["total_us"]
    mean = total / n
    rate = n * 1e6 / total
    print(
        "  time:      %.3f s in Game.play (each game's fastest of %d replays)"
        % (total / 1e6, rep["passes"])
    )
    print("  mean:      %7.2f µs per move   RP2040 estimate %.3f ms" % (mean, mean * scale))
    print(
        "  rate:      %7d moves/s       RP2040 estimate %d moves/s" % (rate, rate / scale / 1000)
    )
    dt, g, k = rep["worst"]
    shown = ">= 255" if dt == 255 else "%7d" % dt
    print("  worst:     %s µs per move   RP2040 estimate %.3f ms" % (shown, dt * scale))
    print(
        "             %s move %d (%s); a move's time is the minimum of its %d timings"
        % (corpus.name(g), k + 1, vertex(corpus.move(g, k)), rep["passes"])
    )
    print(
        "             (the slowest single timing, interruptions included: %d µs)"
        % rep["slowest_us"]
    )


def report_sgfmill(cmp, where):
    section("3. Baseline: sgfmill boards.Board.play, same runtime, same moves, same passes")
    if cmp is None:
        print("  skipped:   %s" % where)
        return None
    ours = cmp["ours_us"] / cmp["moves"]
    mill = cmp["mill_us"] / cmp["moves"]
    board = cmp["board_us"] / cmp["moves"]
    ratio = mill / board
    print("  sgfmill:   imported from %s" % where)
    print(
        "  games:     the first %d: %d moves on the board (passes left out)"
        % (cmp["games"], cmp["moves"])
    )
    print(
        "  sgfmill:   %7.2f µs per move mean, slowest %d µs (its GC included), %d errors"
        % (mill, cmp["mill_slowest_us"], cmp["errors"])
    )
    print(
        "  ours:      %7.2f µs per move mean, Board.play: the board alone, like sgfmill's" % board
    )
    print(
        "             %7.2f µs per move mean, Game.play: with history and repetition (x%.1f)"
        % (ours, mill / ours)
    )
    null = cmp["null_us"] / cmp["moves"]
    print("  floor:     %7.2f µs per move for a play() that does nothing, in the same loop" % null)
    print("  ratio:     ours faster by x%.1f (board against board)" % ratio)
    if null > 0:
        print("             (the floor allows at most x%.0f)" % (mill / null))
    print("             (sgfmill checks no ko and allows suicide; ours checks both, and superko)")
    return ratio


def report_count(corpus, cnt, scale):
    section("4. Counting: go_count.count(board) on final 19x19 positions")
    if cnt is None:
        print("  skipped:   no 19x19 games (or --count-games 0)")
        return
    mean = cnt["total_us"] / cnt["positions"]
    dt, g = cnt["worst"]
    print(
        "  positions: %d, spread over the games; the fastest of %d counts each"
        % (cnt["positions"], cnt["passes"])
    )
    print("  mean:      %7.1f µs   RP2040 estimate %.1f ms" % (mean, mean * scale))
    print(
        "  worst:     %7d µs   RP2040 estimate %.1f ms   (%s, after %d moves)"
        % (dt, dt * scale, corpus.name(g), corpus.length[g])
    )


def report_memory(corpus, mem, locked):
    section("5. Memory (gc.mem_alloc() deltas in bytes; the heap allocates 16-byte blocks)")
    name = sys.implementation.name
    if mem is None:
        print("  n/a on %s" % name)
    else:
        print(
            "  Game(19):     %d bytes allocated while constructing, %d kept after gc.collect()"
            % (mem["construct"], mem["retained"])
        )
        if "replay" in mem:
            b, g, n = mem["replay"]
            print(
                "  full replay:  %d bytes allocated by %d moves (%s, the longest game)"
                % (b, n, corpus.name(g))
            )
        if "traffic" in mem:
            print(
                "  allocator:    %d bytes allocated and freed again by those moves, %.0f per move"
                % (mem["traffic"], mem["traffic"] / n)
            )
            print("                (micropython.mem_total(): every byte through the allocator)")
    if locked is None:
        print("  heap_lock:    n/a on %s" % name)
    else:
        print("  allocates under micropython.heap_lock()?")
        print("                non-capturing moves: %s; a capture: %s; a pass: %s" % locked)
        print("                (with the heap locked, call frames go on the C stack instead)")


def report_worst(long, snakes, scale):
    section("6. Built worst cases (tests/go_worst.py): each call timed alone, µs")
    k = measured.GO_WORST
    margin = "x%.2f: chip / estimate of these cases on the emulated chip (bench/measured.py)" % k
    if long:
        n = long["plies"]
        print(
            "  long game:  %d plies (walls, 4 x two 112-stone captures, a ko retaken 22 times),"
            " %d refused" % (n, long["refused"])
        )
        print("              each move's fastest of %d replays" % long["runs"])
        mean = long["total_us"] / n
        print("  mean:       %7.2f µs per move   RP2040 estimate %.3f ms" % (mean, mean * scale))
        dt, ply = long["worst"]
        print("  worst:      %7d µs at ply %d    RP2040 estimate %.3f ms" % (dt, ply, dt * scale))
        dt, ply = long["first"]
        print(
            "  first run:  %7d µs at ply %d    (slowest single timing of the first replay)"
            % (dt, ply)
        )
        for ply, dt in long["marked"]:
            print(
                "  ply %4d:   %7d µs            RP2040 estimate %.3f ms (where the history used to grow)"
                % (ply, dt, dt * scale)
            )
        dt = long["scan_us"]
        print(
            "  new position at ply %d: %d µs, estimate %.3f ms (its scan reads every ply; %s:"
            " %.3f ms)" % (n, dt, dt * scale, margin.split(":")[0], dt * scale * k)
        )
        dt, reason = long["full"]
        print(
            "  ply %d:  refused (%s) in %d µs: the history's room is %d plies"
            % (n + 1, REASONS[reason], dt, n)
        )
        if "traffic" in long:
            print(
                "  allocator:  %d bytes through it over the whole game (micropython.mem_total())"
                % long["traffic"]
            )
    for sn in snakes:
        print(
            "  comb snake, %d band%s: %d black stones, two liberties; taken: %d"
            % (sn["bands"], "s" if sn["bands"] > 1 else "", sn["stones"], sn["taken"])
        )
        for name, first, best in sn["rows"]:
            print(
                "    %-8s first %4d µs, fastest %4d µs   RP2040 estimate %.3f ms (%.3f with x%.2f)"
                % (name, first, best, best * scale, best * scale * k, k)
            )
    print("  (%s)" % margin)


def report_summary(cal, rep, cnt, ratio, long=None, snakes=()):
    scale = cal.scale()
    section(
        "7. Summary (RP2040 = unix time x %.1f ms / %d µs calibration: an ESTIMATE)"
        % (CALIB_RP2040_MS, cal.best)
    )
    row = "  %-20s %12s %17s %12s   %s"
    print(row % ("", "measured", "RP2040 estimate", "target", "verdict"))

    def line(label, us, us_format, ms_format, limit_ms):
        est = us * scale
        target = "<= %g ms" % limit_ms
        print(row % (label, us_format % us, ms_format % est, target, verdict(est, limit_ms)))

    if rep:
        mean = rep["total_us"] / rep["moves"]
        line("move, mean", mean, "%.2f µs", "%.3f ms", TARGET_MOVE_MEAN_MS)
        line("move, worst", rep["worst"][0], "%d µs", "%.3f ms", TARGET_MOVE_WORST_MS)
    else:
        print("  move:  not measured (no corpus)")
    if cnt:
        mean = cnt["total_us"] / cnt["positions"]
        line("count, mean", mean, "%.1f µs", "%.1f ms", TARGET_COUNT_MS)
        line("count, worst", cnt["worst"][0], "%d µs", "%.1f ms", TARGET_COUNT_MS)
    else:
        print("  count: not measured")
    if long:
        line("long game, worst", long["worst"][0], "%d µs", "%.3f ms", TARGET_MOVE_WORST_MS)
    for sn in snakes:
        worst = max([best for _, _, best in sn["rows"]])
        label = "comb snake %d, worst" % sn["bands"]
        line(label, worst, "%d µs", "%.3f ms", TARGET_MOVE_WORST_MS)
    if ratio is not None:
        lim = TARGET_SGFMILL_RATIO
        v = "ok" if ratio >= lim else "under"
        print(row % ("board vs sgfmill", "x%.1f" % ratio, "(a ratio)", ">= x%d" % lim, v))
    else:
        print("  speed vs sgfmill: not measured")
    if not IS_MICROPYTHON:
        print("  (CPython run: the RP2040 column applies the unix-port rule and means little)")
    print("  The targets are information: this benchmark never fails the build.")


def start(what, how_long):
    """Print the banner, calibrate: ``(calibration, first calib µs, timer overhead µs)``."""
    impl = sys.implementation
    version = ".".join([str(v) for v in impl.version[:3]])
    print("Tengen %s benchmark on %s %s" % (what, impl.name, version))
    if not IS_MICROPYTHON:
        print("(CPython: for comparison only; the RP2040 rule is meant for the unix port)")
    print("Measuring: %s on the unix port ..." % how_long)
    cal = Calibration()
    cal.sample(9)
    return cal, cal.best, timer_overhead()


def main():
    opts = parse_args(sys.argv)
    passes = opts["passes"]
    cal, start_us, overhead = start("Go rules", "about 10 s for the whole corpus")

    root = corpus_dir(opts)
    corpus = rep = cnt = cmp = None
    load_s = 0
    where = "no corpus"
    if _is_dir(root):
        t0 = ticks_us()
        corpus = Corpus(root, opts["games"])
        load_s = ticks_diff(ticks_us(), t0) / 1e6
        gc.collect()
    if corpus:
        game = Game(19)
        benches = [ReplayBench(corpus, game)]
        boards, where = import_sgfmill(opts)
        ngames = min(opts["sgfmill_games"], len(corpus))
        if boards is None:
            where = "sgfmill " + where
        elif ngames <= 0:
            where = "no games asked for"
        else:
            benches.append(SgfmillBench(boards, corpus, game, ngames))
        if opts["count_games"] > 0 and any(corpus.size[g] == 19 for g in range(len(corpus))):
            benches.append(CountBench(corpus, game, opts["count_games"]))
        # Pass after pass, each bench once per pass: the repeats of any one measurement lie
        # seconds apart, so a slow spell of the machine cannot hit them all.
        for _ in range(passes):
            for bench in benches:
                gc.collect()
                bench.run_pass(cal)
        rep = benches[0].result()
        for bench in benches[1:]:
            if isinstance(bench, SgfmillBench):
                cmp = bench.result()
            else:
                cnt = bench.result()
    mem = bench_memory(corpus)
    locked = bench_heap_lock()
    runs = max(WORST_RUNS, passes)
    long = bench_long_game(cal, runs)
    snakes = [bench_snake(cal, bands, max(SNAKE_RUNS, passes)) for bands in (1, 2, 3)]
    cal.sample(9)

    scale = cal.scale()
    report_calibration(cal, overhead, start_us)
    ratio = None
    if corpus is None:
        section("Corpus not found at %s: replay, sgfmill and count skipped." % root)
        print("  (set TENGEN_SHARED to the shared data folder, or pass --corpus DIR)")
    elif not corpus:
        section("No games found in %s" % root)
    else:
        report_replay(corpus, root, load_s, rep, scale)
        ratio = report_sgfmill(cmp, where)
        report_count(corpus, cnt, scale)
    report_memory(corpus, mem, locked)
    report_worst(long, snakes, scale)
    report_summary(cal, rep, cnt, ratio, long, snakes)


if __name__ == "__main__":
    main()
