"""The history's bookkeeping around the arbiter's repetition report and the side to move."""

from firmware.rules.go import KO_CHINESE, KO_SITUATIONAL, Game
from firmware.rules.go_board import BLACK, OK, WHITE
from tests.support import IS_MICROPYTHON, skip


def _ko_fight(game):
    # A ko on 5x5 at B3/C3; returns after Black takes, White takes back after two ko threats.
    # . . . . .
    # . X O . .
    # X O . O .      Black plays C3 (x=2, y=2) taking B3, later White retakes at B3.
    # . X O . .
    for c, x, y in (
        (BLACK, 1, 3), (WHITE, 2, 3), (BLACK, 0, 2), (WHITE, 1, 2),
        (BLACK, 1, 1), (WHITE, 2, 1), (BLACK, 4, 4), (WHITE, 3, 2),
    ):  # fmt: skip
        assert game.play(c, x, y) == OK
    assert game.play(BLACK, 2, 2) == OK  # takes the white stone at B3: ko
    assert game.board.color_at(1, 2) == 0


def test_legal_keeps_the_repetition_report():
    game = Game(5, KO_CHINESE)
    _ko_fight(game)
    ply_before_take = game.ply - 1
    assert game.play(WHITE, 4, 0) == OK  # ko threat elsewhere
    assert game.play(BLACK, 0, 4) == OK
    game.undo()
    game.undo()
    # Pass twice instead, then White retakes: the position after Black's take returns later.
    assert game.play(WHITE, None, None) == OK
    assert game.play(BLACK, None, None) == OK
    assert game.play(WHITE, 1, 2) == OK  # retake: the position before Black's take returns
    assert game.repeat == ply_before_take
    assert game.legal(BLACK, 4, 0) == OK
    assert game.repeat == ply_before_take


def test_set_to_move_mid_game_is_what_undo_and_situational_superko_see():
    game = Game(9, KO_SITUATIONAL)
    assert game.play(BLACK, 4, 4) == OK
    game.set_to_move(BLACK)  # GTP lets a colour play twice
    assert game.play(BLACK, 3, 3) == OK
    assert game.undo()
    assert game.to_move == BLACK
    r = game.ply * 3 + 2  # the history word of the current ply: bit 21 says White is next
    assert game.hist[r] >> 21 & 1 == 0


def test_resignation_ends_with_the_other_side_winning():
    game = Game(9)
    assert game.play(BLACK, 4, 4) == OK
    assert game.resign(WHITE) == "B+R"
    assert game.resigned == WHITE
    assert game.resign(BLACK) == "W+R"
    game.clear()
    assert game.resigned == 0


def test_viper_copies_of_board_constants_agree():
    # go.py repeats a few of go_board's constants, because viper folds only its own module's.
    # MicroPython keeps ``_NAME = const()`` out of the module, so only CPython can compare;
    # both runtimes compile the same source.
    if IS_MICROPYTHON:
        skip("private constants are folded away on MicroPython")
    from firmware.rules import go, go_board

    assert go._PASS == go_board.PASS
    assert go._SUPERKO == go_board.SUPERKO
    assert go._FULL == go_board.FULL
    assert go._ST_KO == go_board.ST_KO
    assert go._ST_H1 == go_board.ST_H1
    assert go._ST_H2 == go_board.ST_H2
    assert go._ST_NLOG == go_board.ST_NLOG
