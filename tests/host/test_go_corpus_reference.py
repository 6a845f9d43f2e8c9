"""The stones after every move of every corpus game equal sgfmill's, on both runtimes.

sgfmill's ``boards.Board`` is an independent Go implementation. For each game the digest of
``tests/go_corpus.py`` (a CRC32 chained over the rows after every move) is computed three
ways: from sgfmill's board, from the firmware rules on CPython, and from the firmware rules
on the MicroPython unix port (a subprocess). All three must agree for all 1,862 games.
"""

import os
import subprocess

import pytest
from sgfmill import sgf, sgf_moves

from tests.go_corpus import corpus_games, replay, rows_digest, rows_of
from tests.support import REPO, shared_path

CORPUS = shared_path("corpus", "go")
MICROPYTHON = os.path.join(REPO, ".venv", "bin", "micropython")


def sgfmill_digest(path):
    """``(moves, digest)`` of one game replayed with sgfmill."""
    with open(path, "rb") as f:
        game = sgf.Sgf_game.from_bytes(f.read())
    board, plays = sgf_moves.get_setup_and_moves(game)
    size = board.side
    crc = 0
    for colour, move in plays:
        if move is not None:
            board.play(move[0], move[1], colour)
        black = []
        white = []
        for y in range(size):
            row = board.board[y]  # sgfmill's row 0 is the bottom row, as ours
            for x in range(size):
                if row[x] == "b":
                    black.append((x, y))
                elif row[x] == "w":
                    white.append((x, y))
        crc = rows_digest(rows_of(black, white, size), crc)
    return len(plays), crc


@pytest.fixture(scope="module")
def reference():
    if not os.path.exists(os.path.join(CORPUS, "index.tsv")):
        pytest.skip("Go corpus not found at %s (set TENGEN_SHARED)" % CORPUS)
    return {name: sgfmill_digest(os.path.join(CORPUS, name)) for name, _ in corpus_games(CORPUS)}


def test_cpython_replay_matches_sgfmill(reference):
    for name, expected in reference.items():
        assert replay(os.path.join(CORPUS, name)) == expected, name


def test_micropython_replay_matches_sgfmill(reference):
    if not os.path.exists(MICROPYTHON):
        pytest.skip("no MicroPython unix port at %s (run make test)" % MICROPYTHON)
    code = "import sys; sys.path.insert(0, '.'); import tests.go_corpus as c; c.main(%r)" % CORPUS
    out = subprocess.run(
        [MICROPYTHON, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    seen = {}
    for line in out.stdout.splitlines():
        name, moves, crc = line.split()
        seen[name] = (int(moves), int(crc))
    assert len(seen) == len(reference) == 1862
    for name, expected in reference.items():
        assert seen[name] == expected, name
    assert sum(m for m, _ in seen.values()) == 302623
