"""Tests for firmware/gtp/go.py, the GTP front-end, driven through ``Engine.handle`` (no processes).

Plain asserts: pytest runs them on CPython, tests/mp_run.py on the MicroPython unix port.
Vertices are GTP's: columns A..T without I, rows from 1 at the bottom.
"""

import os
import random
import sys

from firmware.gtp.core import clean
from firmware.gtp.go import Engine, format_komi, parse_komi, star_points


def ok(e, line):
    """The result of a command that must succeed."""
    r = e.handle(line)
    assert r is not None and r[:2] == "= " and r[-2:] == "\n\n", "%r -> %r" % (line, r)
    assert "\n\n" not in r[:-2], "empty line inside the response: %r" % r
    return r[2:-2]


def fail(e, line):
    """The message of a command that must fail."""
    r = e.handle(line)
    assert r is not None and r[:2] == "? " and r[-2:] == "\n\n", "%r -> %r" % (line, r)
    assert "\n" not in r[:-2], "multi-line error: %r" % r
    return r[2:-2]


def new(*lines):
    """A fresh engine after the given (successful) commands."""
    e = Engine()
    for line in lines:
        ok(e, line)
    return e


def alive(e):
    """The engine still answers."""
    assert e.handle("name") == "= Tengen\n\n"


_temp_count = [0]


def temp_sgf(text):
    """Write ``text`` to a fresh temporary file; return its path (the caller removes it)."""
    _temp_count[0] += 1
    # Random bits in the name: pytest's workers and two runs on one machine share the folder.
    path = "%s/tengen-test-gtp-%s-%08x-%d.sgf" % (
        os.getenv("TMPDIR") or "/tmp",
        sys.implementation.name,
        random.getrandbits(32),
        _temp_count[0],
    )
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- protocol ------------------------------------------------------------------------------


def test_administrative_commands():
    e = Engine()
    assert ok(e, "protocol_version") == "2"
    assert ok(e, "name") == "Tengen"
    assert ok(e, "version")
    assert ok(e, "known_command play") == "true"
    assert ok(e, "known_command tengen-ko_rule") == "true"
    assert ok(e, "known_command genmove") == "false"
    listed = ok(e, "list_commands").split("\n")
    for name in (
        "protocol_version name version known_command list_commands quit boardsize clear_board "
        "komi play undo showboard fixed_handicap set_free_handicap loadsgf final_score "
        "list_stones is_legal all_legal captures tengen-ko_rule tengen-repetition"
    ).split():
        assert name in listed, name
    assert not e.done
    assert ok(e, "quit") == ""
    assert e.done


def test_ids_are_echoed_on_success_and_failure():
    e = Engine()
    assert e.handle("7 name") == "=7 Tengen\n\n"
    assert e.handle("8 play b D4") == "=8 \n\n"
    assert e.handle("9 frobnicate") == "?9 unknown command\n\n"
    assert e.handle("10 play b D4").startswith("?10 illegal move")
    assert e.handle("11 boardsize 99") == "?11 unacceptable size\n\n"
    assert e.handle("12").startswith("?12 syntax error")
    assert e.handle("0 protocol_version") == "=0 2\n\n"


def test_preprocessing_comments_tabs_control_characters():
    e = Engine()
    for line in ("", "   ", "\n", "\r\n", "# a comment", "   # indented comment", "\t\x01\x7f\n"):
        assert e.handle(line) is None, repr(line)
    assert e.handle("name # trailing comment\n") == "= Tengen\n\n"
    assert e.handle("\tname\r\n") == "= Tengen\n\n"
    assert e.handle("na\x00m\x1be") == "= Tengen\n\n"  # control characters vanish
    assert e.handle("play\tb\tD4") == "= \n\n"
    assert e.handle(b"3 list_stones black\r\n") == "=3 D4\n\n"
    assert clean("  1\tplay  b  d4 # x") == "1 play  b  d4"
    assert clean("#") == ""


def test_garbage_is_answered_with_errors_and_the_engine_keeps_going():
    e = new("boardsize 9")
    for line in (
        b"\xff\xfe\xfd",
        b"\xc3(",  # invalid UTF-8
        "é à ü",
        "PLAY b D4",  # command names are case-sensitive
        "play",
        "play b",
        "play b D4 E5",
        "play purple D4",
        "play b D",
        "play b 4D",
        "play b I5",  # GTP skips the letter I
        "play b A0",
        "play b A-1",
        "play b Z9",
        "play b D4.5",
        "boardsize",
        "boardsize nine",
        "boardsize 1_9",
        "komi",
        "komi seven",
        "undo now",
        "list_stones",
        "list_stones grey",
        "is_legal b",
        "captures",
        "fixed_handicap",
        "fixed_handicap two",
        "set_free_handicap",
        "loadsgf",
        "tengen-ko_rule japanese",
        "1 2 3",
        "-5 name",
        "x" * 1000,
    ):
        assert e.handle(line)[:1] == "?", repr(line)
        alive(e)
    assert ok(e, "list_stones black") == ""
    assert ok(e, "list_stones white") == ""


def test_internal_errors_become_replies():
    class Broken(Engine):
        COMMANDS = dict(Engine.COMMANDS)

    def boom(self, args):
        return 1 // 0

    Broken.COMMANDS["boom"] = boom
    e = Broken()
    r = fail(e, "boom")
    assert r.startswith("internal error (ZeroDivisionError"), r
    alive(e)


# ---- setup ---------------------------------------------------------------------------------


def test_boardsize_range_and_reset():
    e = new("play b D4")
    for n in ("1", "0", "20", "25", "-3"):
        assert fail(e, "boardsize " + n) == "unacceptable size"
    assert ok(e, "list_stones b") == "D4"  # refused sizes change nothing
    assert fail(e, "boardsize 9x9").startswith("syntax error")
    ok(e, "boardsize 2")
    assert ok(e, "list_stones b") == ""
    ok(e, "play b B2")
    ok(e, "boardsize 19")
    assert ok(e, "list_stones b") == ""
    ok(e, "play w T19")
    assert ok(e, "list_stones white") == "T19"


def test_komi_forms():
    e = Engine()
    assert ok(e, "get_komi") == "5.5"  # default: the board's, 2¾ stones (1988 rules)
    for text, shown in (
        ("6.5", "6.5"),
        ("7", "7"),
        ("7.0", "7"),
        ("7.50", "7.5"),
        ("+2", "2"),
        ("0", "0"),
        ("0.0", "0"),
        (".5", "0.5"),
        ("5.", "5"),
        ("-3.5", "-3.5"),
        ("-0.5", "-0.5"),
        ("-0", "0"),
        ("184", "184"),
    ):
        assert ok(e, "komi " + text) == ""
        assert ok(e, "get_komi") == shown, text
    for text in ("6.25", "7.1", "0.05", "7.500001", "-2.75"):
        assert fail(e, "komi " + text) == "komi must be a multiple of 0.5", text
    for text in ("seven", "1e3", "nan", "inf", "7,5", ".", "-", "+.", "1.2.3", "0x10"):
        assert fail(e, "komi " + text).startswith("syntax error"), text
    assert ok(e, "get_komi") == "184"  # refused values change nothing
    assert parse_komi("3.5") == 7 and parse_komi("-3.5") == -7 and parse_komi("6") == 12
    assert format_komi(15) == "7.5" and format_komi(-1) == "-0.5" and format_komi(0) == "0"


def test_fixed_handicap_vertices_follow_gtp():
    expected = {
        19: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
        13: "D4 K10 D10 K4 D7 K7 G4 G10 G7",
        9: "C3 G7 C7 G3 C5 G5 E3 E7 E5",
    }
    for size in (19, 13, 9):
        stars = expected[size].split()
        corners = stars[:4]
        centre = stars[8]
        sides = stars[4:8]
        for n in range(2, 10):
            e = new("boardsize %d" % size)
            got = ok(e, "fixed_handicap %d" % n).split()
            assert len(got) == n and len(set(got)) == n, (size, n, got)
            assert set(got) <= set(stars), (size, n, got)
            assert (centre in got) == (n % 2 == 1 and n >= 5), (size, n, got)
            if n <= 4:
                assert set(got) <= set(corners) and set(corners[:2]) <= set(got)
            else:
                assert set(corners) <= set(got)
                assert len([v for v in got if v in sides]) == n - 4 - (n % 2)
            assert sorted(ok(e, "list_stones black").split()) == sorted(got)
            assert ok(e, "list_stones white") == ""
            assert ok(e, "showboard").endswith("white to play")  # White moves after a handicap
    e = new("boardsize 19")
    assert sorted(ok(e, "fixed_handicap 9").split()) == sorted(expected[19].split())


def test_fixed_handicap_errors():
    for size, n in ((19, 1), (19, 10), (19, 0), (19, -2), (13, 10), (8, 5), (7, 5), (5, 2)):
        e = new("boardsize %d" % size)
        assert fail(e, "fixed_handicap %d" % n) == "invalid number of stones", (size, n)
        assert ok(e, "list_stones black") == ""
    e = new("boardsize 8")
    assert len(ok(e, "fixed_handicap 4").split()) == 4
    e = new("play b D4")
    assert fail(e, "fixed_handicap 2") == "board not empty"
    e = new("fixed_handicap 2")
    assert fail(e, "fixed_handicap 2") == "board not empty"
    assert fail(e, "undo") == "cannot undo"  # handicap stones are not moves
    e = new("play b pass")
    assert fail(e, "fixed_handicap 2") == "board not empty"  # a game has started


def test_set_free_handicap():
    e = new("boardsize 19")
    assert ok(e, "set_free_handicap D4 Q16 k10") == ""
    assert ok(e, "list_stones black") == "D4 K10 Q16"
    assert ok(e, "showboard").endswith("white to play")
    assert fail(e, "set_free_handicap A1 A2") == "board not empty"
    ok(e, "clear_board")
    assert fail(e, "set_free_handicap D4") == "invalid number of stones"
    assert fail(e, "set_free_handicap") == "invalid number of stones"
    assert fail(e, "set_free_handicap D4 D4") == "bad vertex list"
    assert fail(e, "set_free_handicap D4 pass") == "bad vertex list"
    assert fail(e, "set_free_handicap D4 Z99") == "bad vertex list"
    assert fail(e, "set_free_handicap D4 I4") == "bad vertex list"
    assert ok(e, "list_stones black") == ""
    ok(e, "boardsize 3")
    assert fail(e, "set_free_handicap A1 D4") == "bad vertex list"  # off the 3x3 board
    everything = "A1 B1 C1 A2 B2 C2 A3 B3 C3"
    assert fail(e, "set_free_handicap " + everything) == "invalid number of stones"
    ok(e, "set_free_handicap " + everything[:-3])
    assert ok(e, "all_legal white") == "C3"
    assert ok(e, "all_legal black") == ""  # C3 would fill Black's own last liberty


# ---- playing -------------------------------------------------------------------------------


SHORT_GAME_BOARD = """
   A B C D E F G H J
 9 . . . . . . . . . 9
 8 . . . . . . . . . 8
 7 . . + . . . + . . 7
 6 . . . . X . . . . 6
 5 . . . X + X . . . 5
 4 . . . . X . . . . 4
 3 . . + . . . + . . 3
 2 O . . . . . . . . 2
 1 O . . . . . . . . 1
   A B C D E F G H J
Captures: black (X) 1, white (O) 0
Komi 6.5, ko rule chinese, move 8, black to play"""


def test_short_game_with_a_capture():
    e = new("boardsize 9", "komi 6.5")
    for move in ("b D5", "w E5", "b F5", "w A1", "b E6", "w A2"):
        ok(e, "play " + move)
    assert ok(e, "list_stones white") == "A1 A2 E5"
    assert ok(e, "captures black") == "0"
    ok(e, "play B e4")  # colours and vertices in any case
    assert ok(e, "captures black") == "1"
    assert ok(e, "captures white") == "0"
    assert ok(e, "captures B") == "1"
    assert ok(e, "list_stones white") == "A1 A2"
    assert ok(e, "list_stones BLACK") == "E4 D5 F5 E6"
    assert fail(e, "play w E5") == "illegal move (suicide)"
    ok(e, "play w pass")
    assert ok(e, "showboard") == SHORT_GAME_BOARD
    alive(e)


def test_occupied_and_off_board_moves_are_refused():
    e = new("boardsize 9", "play b E5")
    assert fail(e, "play w E5") == "illegal move (occupied)"
    assert fail(e, "play b E5") == "illegal move (occupied)"
    assert fail(e, "play b K10") == "illegal move (off board)"  # a vertex, but not on 9x9
    assert fail(e, "play b T19") == "illegal move (off board)"
    assert fail(e, "play b Z9").startswith("syntax error")
    assert ok(e, "list_stones black") == "E5"
    assert ok(e, "list_stones white") == ""
    assert ok(e, "play w D5") == ""  # any colour may play, in any order (GTP)
    assert ok(e, "play w D6") == ""


def test_is_legal_suicide_and_ko():
    # A ko on 5x5: White's B2 has one liberty, C2, where Black captures and a ko arises.
    e = new("boardsize 5")
    for move in ("b A2", "b B3", "b B1", "w B2", "w C3", "w D2", "w C1"):
        ok(e, "play " + move)
    assert ok(e, "is_legal b A1") == "1"
    assert ok(e, "is_legal b C2") == "1"
    assert ok(e, "is_legal b B2") == "0"  # occupied
    assert ok(e, "is_legal b F1") == "0"  # off the 5x5 board
    assert ok(e, "is_legal w pass") == "1"
    ok(e, "play b C2")
    assert ok(e, "captures black") == "1"
    assert ok(e, "is_legal w B2") == "0"  # the immediate recapture: ko
    assert ok(e, "is_legal b B2") == "1"  # Black may fill it
    assert fail(e, "play w B2") == "illegal move (ko)"
    assert "B2" not in ok(e, "all_legal white").split()
    # Suicide: Black at E1 between White E2 and D1.
    ok(e, "play w E2")
    ok(e, "play w D1")
    assert ok(e, "is_legal b E1") == "0"
    assert fail(e, "play b E1") == "illegal move (suicide)"
    assert ok(e, "is_legal w E1") == "1"
    alive(e)


def test_all_legal():
    e = new("boardsize 3", "play w A2", "play w B1")
    assert ok(e, "all_legal b") == "C1 B2 C2 A3 B3 C3"  # A1 is suicide
    assert ok(e, "all_legal w") == "A1 C1 B2 C2 A3 B3 C3"
    e = new("boardsize 2")
    assert ok(e, "all_legal black") == "A1 B1 A2 B2"
    assert fail(e, "all_legal").startswith("syntax error")


def test_undo_back_to_an_empty_board():
    e = new("boardsize 9")
    moves = ("b D5", "w E5", "b F5", "w A1", "b E6", "w pass", "b E4", "w A3")
    for move in moves:
        ok(e, "play " + move)
    assert ok(e, "captures black") == "1"
    assert ok(e, "list_stones white") == "A1 A3"
    ok(e, "undo")
    assert ok(e, "list_stones white") == "A1"
    ok(e, "undo")  # the capture is taken back
    assert ok(e, "captures black") == "0"
    assert ok(e, "list_stones white") == "A1 E5"
    for _ in moves[2:]:
        ok(e, "undo")
    assert ok(e, "list_stones black") == ""
    assert ok(e, "list_stones white") == ""
    assert fail(e, "undo") == "cannot undo"
    assert e.handle("4 undo") == "?4 cannot undo\n\n"
    assert ok(e, "showboard").endswith("move 0, black to play")
    ok(e, "play b E5")  # and the game goes on
    assert ok(e, "list_stones black") == "E5"


def test_clear_board_keeps_size_and_komi():
    e = new("boardsize 13", "komi 0.5", "play b G7", "play w G8")
    ok(e, "clear_board")
    assert ok(e, "list_stones black") == "" and ok(e, "list_stones white") == ""
    assert ok(e, "captures black") == "0"
    assert ok(e, "get_komi") == "0.5"
    assert ok(e, "final_score") == "W+0.5"
    assert ok(e, "showboard").split("\n")[1] == "   A B C D E F G H J K L M N"


def test_showboard_star_points():
    e = Engine()
    diagram = ok(e, "showboard").split("\n")
    assert diagram[0] == ""  # the diagram starts on the line after '='
    assert diagram[1] == "   A B C D E F G H J K L M N O P Q R S T"
    assert diagram[2] == "19 . . . . . . . . . . . . . . . . . . . 19"
    assert diagram[5] == "16 . . . + . . . . . + . . . . . + . . . 16"
    assert diagram[11] == "10 . . . + . . . . . + . . . . . + . . . 10"
    assert diagram[17] == " 4 . . . + . . . . . + . . . . . + . . . 4"
    assert diagram[20] == " 1 . . . . . . . . . . . . . . . . . . . 1"
    assert diagram[21] == diagram[1]
    assert diagram[22] == "Captures: black (X) 0, white (O) 0"
    assert len(star_points(19)) == 9
    assert sorted(star_points(13)) == [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]
    assert sorted(star_points(9)) == [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]
    assert star_points(4) == [] and star_points(5) == [(2, 2)]


# ---- scoring -------------------------------------------------------------------------------


def test_final_score_of_a_constructed_position():
    # 5x5: Black owns columns A-C (15 points), White D-E (10): Black is 5 points ahead.
    e = new("boardsize 5")
    for row in range(1, 6):
        ok(e, "play b C%d" % row)
        ok(e, "play w D%d" % row)
    for komi, result in (("0", "B+5"), ("4.5", "B+0.5"), ("5", "0"), ("7.5", "W+2.5")):
        ok(e, "komi " + komi)
        assert ok(e, "final_score") == result, komi
    # Empty points touching both colours are shared half and half.
    e = new("boardsize 5", "komi 0", "play b A1", "play w E5")
    assert ok(e, "final_score") == "0"  # the one open region touches both: all shared
    ok(e, "play b B2")
    assert ok(e, "final_score") == "B+1"  # stones: 2 against 1, the rest shared


def test_final_score_of_an_empty_board_is_komi_to_white():
    e = Engine()
    assert ok(e, "final_score") == "W+5.5"
    for komi, result in (("6.5", "W+6.5"), ("0", "0"), ("-3", "B+3"), ("0.5", "W+0.5")):
        ok(e, "komi " + komi)
        assert ok(e, "final_score") == result
    ok(e, "boardsize 9")
    assert ok(e, "final_score") == "W+0.5"


# ---- ko rules ------------------------------------------------------------------------------


def _ko_cycle(rule):
    """Set up the 5x5 ko, let Black take, both pass, and have White retake: the reply."""
    e = new("boardsize 5", "tengen-ko_rule " + rule)
    for move in ("b A2", "b B3", "b B1", "w B2", "w C3", "w D2", "w C1"):
        ok(e, "play " + move)
    ok(e, "play b C2")  # move 8 takes the ko; the position after move 7 had White on B2
    assert ok(e, "tengen-repetition") == ""
    ok(e, "play w pass")
    ok(e, "play b pass")
    return e, e.handle("play w B2")  # move 11 recreates the position after move 7


def test_ko_rule_switching():
    e = Engine()
    assert ok(e, "tengen-ko_rule") == "chinese"  # the default (SPEC §1)
    for rule in ("positional", "situational", "simple", "none", "CHINESE"):
        ok(e, "tengen-ko_rule " + rule)
        assert ok(e, "tengen-ko_rule") == rule.lower()
    assert fail(e, "tengen-ko_rule japanese").startswith("syntax error")
    assert fail(e, "tengen-ko_rule chinese positional").startswith("syntax error")
    assert ok(e, "tengen-ko_rule") == "chinese"


def test_chinese_rule_allows_a_repetition_and_reports_it():
    e, reply = _ko_cycle("chinese")
    assert reply == "= \n\n"
    assert ok(e, "tengen-repetition") == "7"
    assert ok(e, "list_stones white") == "C1 B2 D2 C3"
    assert ok(e, "is_legal b C2") == "0"  # the simple ko still holds
    assert ok(e, "tengen-repetition") == "7"  # trial moves do not clear the report
    ok(e, "play b E5")
    assert ok(e, "tengen-repetition") == ""  # only the move that repeated is reported
    ok(e, "undo")
    assert ok(e, "tengen-repetition") == ""


def test_positional_and_situational_superko_refuse_the_repetition():
    for rule in ("positional", "situational"):
        e, reply = _ko_cycle(rule)
        assert reply == "? illegal move (superko)\n\n", (rule, reply)
        assert ok(e, "is_legal w B2") == "0"
        assert ok(e, "list_stones black") == "B1 A2 C2 B3"
        assert ok(e, "tengen-repetition") == ""
        alive(e)


def test_simple_ko_rule_allows_the_repetition_silently():
    e, reply = _ko_cycle("simple")
    assert reply == "= \n\n"
    assert ok(e, "tengen-repetition") == ""


def test_switching_to_positional_mid_game_sees_earlier_positions():
    e, reply = _ko_cycle("chinese")
    ok(e, "undo")  # back before White's retake
    ok(e, "tengen-ko_rule positional")
    assert fail(e, "play w B2") == "illegal move (superko)"
    ok(e, "tengen-ko_rule chinese")
    ok(e, "play w B2")
    assert ok(e, "tengen-repetition") == "7"


# ---- loadsgf -------------------------------------------------------------------------------

# 9x9, komi 5.5, Black C7, White G7 set up, White to play; moves: W E5, B D6, W pass, B F4.
GAME = "(;GM[1]FF[4]SZ[9]KM[5.5]AB[cc]AW[gc]PL[W];W[ee];B[dd];W[tt];B[ff]C[end])"


def _load(e, text, *more):
    """Write ``text`` to a temporary file and run loadsgf on it; the raw response."""
    path = temp_sgf(text)
    try:
        return e.handle(" ".join(("loadsgf", path) + more))
    finally:
        os.remove(path)


def test_loadsgf_whole_game():
    e = Engine()
    assert _load(e, GAME) == "= white\n\n"
    assert ok(e, "list_stones black") == "F4 D6 C7"
    assert ok(e, "list_stones white") == "E5 G7"
    assert ok(e, "get_komi") == "5.5"
    assert ok(e, "showboard").split("\n")[1] == "   A B C D E F G H J"
    ok(e, "undo")  # the file's moves are the history
    assert ok(e, "list_stones black") == "D6 C7"
    ok(e, "undo")
    ok(e, "undo")
    ok(e, "undo")
    assert fail(e, "undo") == "cannot undo"  # setup stones stay
    assert ok(e, "list_stones black") == "C7"


def test_loadsgf_up_to_a_move_number():
    e = Engine()
    for number, answer, black in (
        ("1", "white", "C7"),  # no move played: PL says White
        ("2", "black", "C7"),
        ("3", "white", "D6 C7"),  # move 3 is White's pass
        ("4", "black", "D6 C7"),
        ("5", "white", "F4 D6 C7"),  # past the end: the whole game
        ("99", "white", "F4 D6 C7"),
    ):
        assert _load(e, GAME, number) == "= %s\n\n" % answer, number
        assert ok(e, "list_stones black") == black, number
    for number in ("0", "-1", "two"):
        assert fail(e, "loadsgf /nonexistent.sgf " + number).startswith("syntax error")


def test_loadsgf_handicap_and_defaults():
    e = new("komi 3")
    assert _load(e, "(;SZ[19]HA[2]AB[dp][pd])") == "= white\n\n"  # handicap: White first
    assert ok(e, "list_stones black") == "D4 Q16"
    assert ok(e, "get_komi") == "3"  # no KM: komi unchanged
    assert _load(e, "(;SZ[13]AB[aa];B[bb])", "1") == "= black\n\n"  # the next move says so
    assert _load(e, "(;SZ[13]AW[aa])") == "= black\n\n"
    assert ok(e, "list_stones white") == "A13"
    assert _load(e, "(;GM[1]FF[4];B[pd];W[dp];B[];W[])") == "= black\n\n"  # passes as ''
    assert ok(e, "showboard").endswith("move 4, black to play")


def test_loadsgf_errors_leave_the_game_unchanged():
    e = new("boardsize 9", "komi 6.5", "play b E5")
    assert fail(e, "loadsgf /nonexistent/tengen/game.sgf") == "cannot load file"
    for text, words in (
        ("(;SZ[9];B[ee]", "cannot load file (unterminated"),
        ("not an sgf at all", "cannot load file (not SGF"),
        ("", "cannot load file (empty"),
        ("(;GM[4]SZ[15];B[hh])", "cannot load file (GM[4]"),
        ("(;SZ[21])", "cannot load file (unacceptable size 21)"),
        ("(;SZ[9]KM[6.3])", "cannot load file (KM[6.3]: komi must be a multiple of 0.5)"),
        ("(;SZ[9];B[zz])", "cannot load file (point 'zz'"),
        ("(;SZ[9];B[ee];W[ee])", "cannot load file (move 2 W E5 is illegal: occupied)"),
        (
            "(;SZ[9]AB[ab][ba];B[ee];W[aa])",
            "cannot load file (move 2 W A9 is illegal: suicide)",
        ),
    ):
        r = _load(e, text)
        assert r.startswith("? " + words), (text, r)
        assert r.endswith("\n\n") and "\n" not in r[:-2], r
        assert ok(e, "list_stones black") == "E5", text
        assert ok(e, "get_komi") == "6.5"
        assert ok(e, "showboard").split("\n")[1] == "   A B C D E F G H J"
    # Only the moves before the illegal one are replayed when a move number stops earlier.
    assert _load(e, "(;SZ[9];B[ee];W[ee])", "2") == "= white\n\n"


def test_loadsgf_garbage_bytes():
    e = Engine()
    path = temp_sgf("")
    try:
        with open(path, "wb") as f:
            f.write(b"(;SZ[9]C[\xff\xfe\x00];B[ee]\x00)")
        assert e.handle("loadsgf " + path)[:1] == "?"
        with open(path, "wb") as f:
            f.write(b"(;SZ[9]C[\xff\xfe\x00\x01];B[ee])")
        assert e.handle("loadsgf " + path) == "= white\n\n"
        assert ok(e, "list_stones b") == "E5"
    finally:
        os.remove(path)
    alive(e)


def test_loadsgf_uses_the_current_ko_rule():
    # The 5x5 ko cycle as a file: legal under chinese, refused under positional superko.
    cycle = "(;SZ[5];B[ad];B[bc];B[be];W[bd];W[cc];W[dd];W[ce];B[cd];W[];B[];W[bd])"
    e = Engine()
    assert _load(e, cycle) == "= black\n\n"
    assert ok(e, "tengen-repetition") == "7"
    ok(e, "tengen-ko_rule positional")
    r = _load(e, cycle)
    assert r == "? cannot load file (move 11 W B2 is illegal: superko)\n\n", r


def test_defaults_are_the_boards_factory_settings():
    # One source: firmware/game/settings.py's DEFAULTS, as a new board starts its games.
    from firmware.game import settings as S
    from firmware.gtp.go import format_komi
    from firmware.rules.go import KO_RULES
    from firmware.rules.gomoku import CLAIM_MODES

    e = Engine()
    assert ok(e, "get_komi") == format_komi(S.DEFAULTS["komi2"])
    assert e.game.size == S.DEFAULTS["size"]
    assert ok(e, "tengen-ko_rule") == S.DEFAULTS["ko"] == KO_RULES[e.game.ko_rule]
    ok(e, "tengen-game renju")
    assert CLAIM_MODES[e.gomoku.claims] == S.DEFAULTS["claims"]
