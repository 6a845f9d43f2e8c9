"""The data of the chip's benches, as one LittleFS image of the Pico's filesystem.

    micropython -m bench.chip_data OUT_DIR [--games N] [--journal N] [--tries N]
                                           [--referee-moves N]

Run by ``bench/chip.py`` on the MicroPython unix port from the repository root. It writes
``OUT_DIR/fs.bin``: the 1,408 KiB VfsLfs2 filesystem the rp2 port mounts at ``/`` (352 blocks
of 4 KiB, ``progsize=256`` as the port's ``_boot.py`` formats it), which the emulated chip
boots with and the unix port mounts from a RAM block device, so both runtimes read the same
files. Start reading at ``main``. In it:

- ``/bench/go.bin``: ``--games`` corpus games spread evenly over ``<shared>/corpus/go``
  (19x19, no setup stones), each ``u16 count`` then its moves as ``colour << 10 | y << 5 | x``
  (x 1023: a pass); then the 1,024-ply game of ``tests/go_worst.py`` the same way; then the
  three comb snakes (1-3 bands): ``u16 stones``, the setup stones as codes, the two liberties;
- ``/bench/renju.bin``: the slowest ``forbidden()`` check ``bench_renju``'s search finds and
  the searched-for positions of ``tests/test_gomoku_alloc.py``, each 225 cells and the point
  of its slowest check (``u16``);
- ``/bench/referee.bin``: the first ``--referee-moves`` moves of a corpus game of at most 200
  moves (``bench_referee``'s first game), each its code, ``u8`` stones it takes, their points;
- ``/games``: the journal with ``--journal`` finished 250-move games (``bench_journal``'s).

The corpus is read in place (``$TENGEN_SHARED/corpus/go``); without it the Go and referee
parts are written empty and the chip's drivers say so. Nothing here is timed.
"""

import gc
import struct
import sys

import vfs

from bench.bench_go import read_options
from tests.test_journal_index import QuietRam

BLOCKS = 352  # the rp2 port's filesystem on the Tengen image: 1,408 KiB
_DEV = QuietRam(4096, BLOCKS)  # first, while the heap is empty: 1.4 MB in one piece
MOUNT = "/cd"
PASS = 1023

from firmware.rules import sgf  # noqa: E402
from tests import go_worst  # noqa: E402
from tests.support import shared_path  # noqa: E402

USAGE = """usage: chip_data.py OUT_DIR [--games N] [--journal N] [--tries N] [--referee-moves N]
  --games N          corpus games for the Go replay (default 24)
  --journal N        finished games in the journal (default 1000; 0: none)
  --tries N          tries of the search for the slowest Renju check (default 6000)
  --referee-moves N  moves of the game played through sensing and the referee (default 120)"""


def code(c, xy):
    return (c << 10) | (PASS if xy is None else (xy[1] << 5) | xy[0])


def corpus_moves(root, wanted):
    """Up to ``wanted`` games spread evenly over the corpus index: ``[[codes]]``."""
    from tests.go_corpus import corpus_games

    names = [name for name, _ in corpus_games(root)]
    out = []
    if not names or wanted <= 0:
        return out
    step = max(1, len(names) // wanted)
    for k in range(0, len(names), step):
        if len(out) >= wanted:
            break
        with open(root + "/" + names[k], "rb") as f:
            nodes = sgf.parse(f.read())
        info = sgf.game_info(nodes[0])
        if info["size"] != 19 or info["ab"] or info["aw"]:
            continue
        mv = sgf.moves(nodes, 19)
        nodes = None
        out.append([code(1 if c == "B" else 2, xy) for c, xy in mv])
        gc.collect()
    return out


def go_data(root, games):
    buf = bytearray()

    def put(codes):
        buf.extend(struct.pack("<H", len(codes)))
        for m in codes:
            buf.extend(struct.pack("<H", m))

    corpus = corpus_moves(root, games) if root else []
    buf.extend(struct.pack("<H", len(corpus)))
    for codes in corpus:
        put(codes)
    put([code(c, None if x is None else (x, y)) for c, x, y in go_worst.long_game()])
    for bands in (1, 2, 3):
        grid, first, last = go_worst.comb_snake(bands)
        stones = [code(grid[y][x], (x, y)) for y in range(19) for x in range(19) if grid[y][x]]
        put(stones)
        buf.extend(struct.pack("<HH", code(0, first), code(0, last)))
    return buf, len(corpus)


def renju_data(tries):
    from bench.bench_renju import SIZE, make_positions, most_calls, search, searched
    from firmware.rules.gomoku_board import GomokuBoard

    board = GomokuBoard(SIZE)
    rows = []
    cells, point, _, _, _ = search(tries)
    rows.append(("search", cells, point))
    for name, cells, _ in make_positions(0):
        if searched(name):
            board.clear()
            for i in range(SIZE * SIZE):
                if cells[i]:
                    board.put(cells[i], i % SIZE, i // SIZE)
            rows.append((name, cells, most_calls(board, cells)[2]))
    buf = bytearray(struct.pack("<H", len(rows)))
    for _, cells, point in rows:
        buf.extend(cells)
        buf.extend(struct.pack("<H", point))
    return buf, len(rows)


def referee_data(root, moves):
    """A corpus game of at most 200 moves (bench_referee's first), with each move's takes."""
    from firmware.rules.go import Game
    from firmware.virtual.board import play_taking
    from tests.go_corpus import corpus_games

    buf = bytearray(struct.pack("<H", 0))
    if not root:
        return buf, 0
    short = [name for name, n in corpus_games(root) if n <= 200][:1]
    if not short:
        return buf, 0
    name = short[0]
    with open(root + "/" + name, "rb") as f:
        mv = sgf.moves(sgf.parse(f.read()), 19)
    shadow = Game(19)
    count = 0
    for colour, xy in mv[:moves]:
        c = 1 if colour == "B" else 2
        taken = [] if xy is None else play_taking(shadow, c, xy[0], xy[1])
        if xy is None:
            shadow.play(c, None, None)
        buf.extend(struct.pack("<HB", code(c, xy), len(taken)))
        for x, y in taken:
            buf.extend(struct.pack("<H", (y << 5) | x))
        count += 1
    buf[0:2] = struct.pack("<H", count)
    return buf, count


def journal_data(games):
    """``games`` finished games in ``MOUNT/games`` (bench_journal's four templates in turn)."""
    from bench.bench_journal import templates
    from firmware.store import records as R
    from firmware.store.journal import Journal

    j = Journal(MOUNT + "/games", margin=0, reserve=0)
    tpl = templates()
    for g in range(1, games + 1):
        recs = tpl[g % 4]
        recs[0][1]["game_no"] = g
        if j.store(R.pack(g, recs)):
            raise RuntimeError("the journal is full at game %d" % g)
    j.close()


def write(name, data):
    with open(MOUNT + "/bench/" + name, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print(USAGE)
        sys.exit(2)
    out = sys.argv[1]
    opts = read_options(
        sys.argv[1:], USAGE, {"games": 24, "journal": 1000, "tries": 6000, "referee_moves": 120}
    )
    root = shared_path("corpus", "go")
    try:
        open(root + "/index.tsv").close()
    except OSError:
        root = None
    vfs.VfsLfs2.mkfs(_DEV, progsize=256)
    vfs.mount(vfs.VfsLfs2(_DEV, progsize=256), MOUNT)
    try:
        import os

        os.mkdir(MOUNT + "/bench")
        data, ngames = go_data(root, opts["games"])
        write("go.bin", data)
        data, npos = renju_data(opts["tries"])
        write("renju.bin", data)
        data, nmoves = referee_data(root, opts["referee_moves"])
        write("referee.bin", data)
        data = None
        gc.collect()
        if opts["journal"] > 0:
            journal_data(opts["journal"])
        free = os.statvfs(MOUNT)
    finally:
        vfs.umount(MOUNT)
    with open(out + "/fs.bin", "wb") as f:
        f.write(_DEV.data)
    print(
        "= data %d %d %d %d %d"
        % (ngames, npos, nmoves, opts["journal"], free[0] * free[3] // 1024)
    )
    print("= corpus %s" % (root or "-"))


if __name__ == "__main__":
    main()
