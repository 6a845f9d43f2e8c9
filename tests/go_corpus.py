"""Replaying the real Go games of ``../shared/corpus/go`` through the firmware rules.

Runs on both runtimes. For each game it returns the number of moves played and a digest: a
CRC32 chained over the board rows (black rows then white rows, ``array('I')`` bytes) after
every move, so two replays agree on the digest only if they agree on every stone after every
move. ``tests/host/test_go_corpus_reference.py`` computes the same digest with sgfmill, an
independent implementation, and compares it with this module run on the MicroPython unix port
(``micropython tests/go_corpus.py`` prints one ``file moves digest`` line per game).
"""

import sys
from array import array

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - both runtimes have it
    from zlib import crc32

from firmware.rules import sgf
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, REASONS, WHITE


def corpus_games(root):
    """Yield ``(path relative to root, number of moves)`` per game, from ``index.tsv``.

    A generator, reading one line at a time: the MicroPython heap has no room to spare.
    """
    with open(root + "/index.tsv") as f:
        f.readline()
        for line in f:
            cols = line.split("\t")
            if len(cols) > 6:
                yield cols[0], int(cols[6])


def game_moves(root, shortest, longest, size=19):
    """``sgf.moves`` of the first game of ``root``'s corpus with ``shortest`` to ``longest``
    moves (a game of ordinary length, for tests that play one through the board)."""
    for name, moves in corpus_games(root):
        if shortest <= moves <= longest:
            with open(root + "/" + name, "rb") as f:
                return sgf.moves(sgf.parse(f.read()), size)
    raise ValueError("no game of %d-%d moves in %s" % (shortest, longest, root))


def rows_digest(rows, crc):
    """Chain the CRC over one position's rows."""
    return crc32(bytes(rows), crc)


def replay(path, game=None):
    """Replay one SGF file; return ``(moves, digest)``. Raises AssertionError on a refused move."""
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    info = sgf.game_info(nodes[0])
    size = info["size"]
    if game is None or game.size != size:
        game = Game(size)
    else:
        game.clear()
    for x, y in info["ab"]:
        game.setup(BLACK, x, y)
    for x, y in info["aw"]:
        game.setup(WHITE, x, y)
    crc = 0
    n = 0
    for color, xy in sgf.moves(nodes, size):
        c = BLACK if color == "B" else WHITE
        r = game.play(c, xy[0], xy[1]) if xy else game.play(c, None, None)
        n += 1
        assert r == 0, "%s move %d refused: %s" % (path, n, REASONS[r])
        crc = rows_digest(game.board.rows, crc)
    return n, crc


def rows_of(black, white, size):
    """The ``array('I')`` row layout of two sets of ``(x, y)`` points (for reference boards)."""
    rows = array("I", [0] * (2 * size))
    for x, y in black:
        rows[y] |= 1 << x
    for x, y in white:
        rows[size + y] |= 1 << x
    return rows


def main(root):
    """Print ``name moves digest`` for every corpus game (used from the host test)."""
    game = Game(19)
    for name, _ in corpus_games(root):
        n, crc = replay(root + "/" + name, game)
        print(name, n, crc)


if __name__ == "__main__":
    main(sys.argv[1])
