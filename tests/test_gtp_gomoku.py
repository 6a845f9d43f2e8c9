"""GTP in the Gomoku variants (firmware/gtp/gomoku.py) through ``Engine.handle``, both runtimes.

Vertices are seed 002's: columns A–O with no skipped letter, rows from 1 at the bottom.
"""

from tests.test_gtp import _load, fail, new, ok


def test_tengen_game_switches_and_reports():
    e = new()
    assert ok(e, "tengen-game") == "go"
    ok(e, "tengen-game renju")
    assert ok(e, "tengen-game") == "renju"
    assert "15 . . ." in ok(e, "showboard")
    assert fail(e, "tengen-game chess").startswith("syntax error")
    assert fail(e, "komi 6.5") == "komi is for Go (tengen-game go)"
    ok(e, "tengen-game go")
    assert fail(e, "tengen-forbidden") == "tengen-forbidden is for Gomoku (tengen-game renju)"
    assert "19 . . ." in ok(e, "showboard")


def test_columns_keep_the_letter_i():
    e = new("tengen-game standard", "play b i8")
    assert ok(e, "list_stones b") == "I8"
    assert fail(e, "play w p1").startswith("syntax error")  # 15 columns: A-O


def test_play_reports_the_win():
    e = new("tengen-game renju")
    for m in ("b h8", "w h9", "b i8", "w i9", "b j8", "w j9", "b k8", "w k9"):
        assert ok(e, "play " + m) == ""
    assert ok(e, "play b l8") == "win B"
    assert ok(e, "final_score") == "B+"
    assert fail(e, "play w a1").startswith("illegal move (the game is over")


def test_white_overline_wins_in_renju_only():
    moves = ("b a1", "w h8", "b a3", "w i8", "b a5", "w j8", "b a7", "w l8", "b a9", "w m8")
    for variant, result in (("renju", "win W"), ("standard", ""), ("freestyle", "win W")):
        e = new("tengen-game " + variant, *["play " + m for m in moves])
        ok(e, "play b a11")
        assert ok(e, "play w k8") == result, variant


def test_forbidden_lists_and_play_loses():
    e = new("tengen-game renju")
    for m in ("b h8", "w a1", "b h10", "w a3", "b h6", "w a5", "b h11", "w a7"):
        ok(e, "play " + m)
    assert ok(e, "tengen-forbidden") == ""
    ok(e, "play b h7")  # H6 H7 H8 . H10 H11: H9 would be six in a row
    assert ok(e, "play w a9") == ""
    assert "H9 overline" in ok(e, "tengen-forbidden").split("\n")
    assert ok(e, "play b h9") == "win W overline"


def test_forbidden_is_empty_in_free_variants():
    e = new("tengen-game freestyle", "play b h8")
    assert ok(e, "tengen-forbidden") == ""


def test_no_pass_before_move_six():
    e = new("tengen-game renju", "play b h8", "play w h9")
    assert fail(e, "play b pass").startswith("illegal move (no pass in the first five moves")


def test_undo_and_clear_board():
    e = new("tengen-game renju", "play b h8", "play w h9")
    ok(e, "undo")
    assert ok(e, "list_stones w") == ""
    ok(e, "clear_board")
    assert fail(e, "undo") == "cannot undo"
    ok(e, "boardsize 19")
    assert "19 . . ." in ok(e, "showboard")
    assert fail(e, "boardsize 4") == "unacceptable size"


def test_loadsgf_reads_gm4_setup_and_moves():
    # SGF rows count from the top: hh is H8 on a 15x15 board, ii is I7.
    e = new("tengen-game renju")
    text = "(;GM[4]FF[4]SZ[15]AB[hh]AW[ih];B[ii];W[gg];B[jj])"
    assert _load(e, text) == "= white\n\n"
    assert ok(e, "list_stones b") == "J6 I7 H8"
    assert ok(e, "list_stones w") == "I8 G9"
    assert _load(e, text, "2") == "= white\n\n"
    assert ok(e, "list_stones b") == "I7 H8"


def test_loadsgf_sizes_and_refusals():
    e = new("tengen-game standard")
    assert _load(e, "(;GM[4];B[hh])") == "= white\n\n"  # no SZ: Renju's 15x15
    assert ok(e, "list_stones b") == "H8"
    r = _load(e, "(;GM[1]SZ[19];B[pd])")
    assert r.startswith("? cannot load file (GM[1] is not Gomoku"), r
    assert ok(e, "list_stones b") == "H8"  # unchanged
    r = _load(e, "(;GM[4]SZ[15];B[hh];W[hh])")
    assert r.startswith("? cannot load file (move 2 W H8: occupied"), r
    g = new()
    r = _load(g, "(;GM[4]SZ[15];B[hh])")
    assert r.startswith("? cannot load file (GM[4] is Gomoku"), r
