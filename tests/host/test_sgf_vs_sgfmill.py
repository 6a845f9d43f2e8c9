"""firmware/rules/sgf.py against sgfmill (CPython only) on every Go record in the shared corpus.

Per file: the main line's moves, the root's size, komi, handicap and setup stones, and every
property value of every main-line node must agree. The corpus is read in place from
``$TENGEN_SHARED/corpus/go`` (default ``<repo>/../shared``); the tests skip when it is missing.
"""

import os
import re

import pytest
from sgfmill import sgf as sgfmill

from firmware.rules import sgf
from tests.support import shared_path

CORPUS = shared_path("corpus", "go")
FILES = sorted(
    os.path.relpath(os.path.join(d, f), CORPUS)
    for d, _, names in os.walk(CORPUS)
    for f in names
    if f.endswith(".sgf")
)
_SOFT_BREAK = re.compile(rb"\\(?:\r\n|\n\r|\n|\r)")
_ESCAPE = re.compile(rb"\\(.)", re.DOTALL)


def _unescape(raw):
    """sgfmill's raw value with SGF escapes resolved and decoded as firmware/rules/sgf.py promises."""
    bb = _ESCAPE.sub(rb"\1", _SOFT_BREAK.sub(b"", raw))
    try:
        return bb.decode("utf-8")
    except UnicodeDecodeError:
        return bb.decode("latin-1")


def _xy(row_col):
    """sgfmill's (row, col), row 0 at the bottom, as firmware/rules/sgf.py's (x, y)."""
    return None if row_col is None else (row_col[1], row_col[0])


def compare(path):
    """Assert that both readers agree on the file; return its number of moves."""
    with open(path, "rb") as f:
        data = f.read()
    nodes = sgf.parse(data)
    info = sgf.game_info(nodes[0])
    ours = sgf.moves(nodes, info["size"])

    game = sgfmill.Sgf_game.from_bytes(data)
    main = game.get_main_sequence()
    theirs = []
    for node in main:
        colour, move = node.get_move()
        if colour is not None:
            theirs.append((colour.upper(), _xy(move)))
    assert ours == theirs

    root = game.get_root()
    assert info["size"] == game.get_size()
    assert (info["komi"] is None) == (not root.has_property("KM"))
    assert float(info["komi"] or 0) == game.get_komi()
    assert info["handicap"] == (game.get_handicap() or 0)
    black, white, _ = root.get_setup_stones()
    assert set(info["ab"]) == {_xy(p) for p in black} and len(info["ab"]) == len(black)
    assert set(info["aw"]) == {_xy(p) for p in white} and len(info["aw"]) == len(white)

    assert len(nodes) == len(main)
    for mine, node in zip(nodes, main, strict=True):
        assert sorted(mine) == sorted(node.properties())
        for ident in mine:
            assert mine[ident] == [_unescape(v) for v in node.get_raw_list(ident)], ident
    return len(ours)


@pytest.mark.parametrize("name", FILES or ["(corpus missing)"])
def test_file_agrees_with_sgfmill(name):
    if not FILES:
        pytest.skip("Go corpus not found at %s (set TENGEN_SHARED)" % CORPUS)
    compare(os.path.join(CORPUS, name))


def test_move_counts_match_corpus_index(capsys):
    if not FILES:
        pytest.skip("Go corpus not found at %s (set TENGEN_SHARED)" % CORPUS)
    with open(os.path.join(CORPUS, "index.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    column = rows[0].index("moves")
    expected = {row[0]: int(row[column]) for row in rows[1:]}
    counts = {}
    for name in FILES:
        with open(os.path.join(CORPUS, name), "rb") as f:
            nodes = sgf.parse(f.read())
        counts[name] = len(sgf.moves(nodes, sgf.game_info(nodes[0])["size"]))
    assert counts == expected
    with capsys.disabled():
        print(
            "\nsgf corpus: %d files, %d moves (each file also compared with sgfmill)"
            % (len(counts), sum(counts.values()))
        )
