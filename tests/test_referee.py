"""The referee (firmware/referee/) against what players do at the board, press by press.

The board the sensors see is drawn as in tests/diagrams.py (top row first, ``X`` black, ``O``
white, ``?`` a point the sensors cannot judge); the game's position is set up from another
diagram. Expectations are worked out from SPEC §3-§4 and the seeds: captured stones off
before the press (000 第二十三条, 004 第22条6), the first point counts (002 第六条1(6)), the
second of two stones is taken back (002 第六条1(4)), 004's void move as a pass.
"""

from firmware.referee import incidents as inc
from firmware.referee.referee import (
    ACCEPTED,
    REFUSED,
    VOID_PASS,
    WARN,
    Referee,
)
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.gomoku import OPENING_DESIGNATED, RENJU, Gomoku
from tests.diagrams import board_from, rows_of

_SEEN = {"X": BLACK, "O": WHITE, "?": 3}


def seen(diagram):
    """The stable states a diagram shows, as the sensing layer hands them over."""
    rows = rows_of(diagram)
    n = len(rows)
    out = bytearray(n * n)
    for i, row in enumerate(rows):
        for x, ch in enumerate(row):
            out[(n - 1 - i) * n + x] = _SEEN.get(ch, 0)
    return out


EMPTY9 = "\n".join([". . . . . . . . ."] * 9)


def go(diagram=EMPTY9, to_move=BLACK, **settings):
    game = board_from(diagram, to_move=to_move)
    return game, Referee(game, **settings)


def idx(text, n=9):
    """Frame index of a Go vertex like ``E5``."""
    x = "ABCDEFGHJKLMNOPQRST".index(text[0])
    return (int(text[1:]) - 1) * n + x


def test_a_stone_and_a_press_make_the_move():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    assert ref.press(BLACK, 1000) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK
    assert game.to_move == WHITE
    assert ref.log.last()[:4] == (inc.MOVE, 1, 1000, (idx("E9"),))


def test_a_press_with_no_stone_is_a_pass_in_go():
    game, ref = go()
    ref.see(seen(EMPTY9))
    assert ref.press(BLACK, 5) == ACCEPTED
    assert game.passes == 1 and ref.log.last()[0] == inc.PASS


def test_two_new_stones_are_refused():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". X . . X . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED
    assert ref.why == inc.TWO_MOVES and len(ref.points) == 2
    assert game.ply == 0


def test_the_wrong_colour_and_the_wrong_paddle():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . O . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.WRONG_COLOUR
    assert ref.press(WHITE, 5) == REFUSED and ref.why == inc.WRONG_COLOUR


CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . X O X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_captures_must_be_off_before_the_press():
    game, ref = go(CAPTURE)
    played = CAPTURE.replace(
        ". . . X O X . . .\n    . . . . . . . . .", ". . . X O X . . .\n    . . . . X . . . ."
    )
    ref.see(seen(played))
    assert ref.press(BLACK, 10) == REFUSED
    assert ref.why == inc.CAPTURES_LEFT and ref.points == (idx("E5"),)
    assert game.ply == 0 and game.board.color_at(4, 4) == WHITE  # nothing was played
    ref.see(seen(played.replace("X O X", "X . X")))
    assert ref.press(BLACK, 20) == ACCEPTED
    assert game.board.color_at(4, 4) == 0 and game.captures[BLACK] == 1


def test_captures_left_only_warned_when_set_so():
    game, ref = go(CAPTURE, captures=WARN)
    played = CAPTURE.replace(
        ". . . X O X . . .\n    . . . . . . . . .", ". . . X O X . . .\n    . . . . X . . . ."
    )
    ref.see(seen(played))
    assert ref.press(BLACK, 10) == ACCEPTED
    assert inc.CAPTURES_LEFT in ref.log.kinds()
    assert [i for i, want in ref.fixes()] == [idx("E5")]  # still to be taken off


KO = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
    . . X O . O . . .
    . . . X O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def _ko_taken(**settings):
    # Black takes the ko at E5; White may not take back at D5 at once.
    game, ref = go(KO, **settings)
    after = KO.replace(". . X O . O . . .", ". . X . X O . . .")
    ref.see(seen(after))
    assert ref.press(BLACK, 10) == ACCEPTED
    retake = after.replace(". . X . X O . . .", ". . X O . O . . .")
    ref.see(seen(retake))
    return game, ref


def test_an_illegal_point_is_refused():
    game, ref = _ko_taken()
    assert ref.press(WHITE, 20) == REFUSED
    assert ref.why == inc.ILLEGAL and ref.points == (idx("D5"),)
    assert game.to_move == WHITE


def test_under_004_an_illegal_move_is_void_and_a_pass():
    game, ref = _ko_taken(illegal=VOID_PASS)
    assert ref.press(WHITE, 20) == ACCEPTED
    assert game.to_move == BLACK and game.passes == 1
    assert ref.log.kinds()[-2:] == [inc.ILLEGAL, inc.PASS]


def test_the_first_point_counts():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . . X . . .", 1)))
    assert inc.MOVED_NEW in ref.log.kinds()
    assert ref.press(BLACK, 5) == REFUSED
    assert ref.why == inc.MOVED_NEW and ref.points == (idx("E9"), idx("F9"))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    assert ref.press(BLACK, 6) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK


def test_a_scattered_board_is_guided_back():
    stones = """
        . . . . . . . . .
        . . X . . . O . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . O . . . .
        . . . . . . . . .
        . . O . . . X . .
        . . . . . . . . .
        . . . . . . . . .
    """
    game, ref = go(stones)
    ref.see(seen(stones))
    assert not ref.scattered
    knocked = stones.replace("X", ".").replace("O", ".")
    ref.see(seen(knocked))
    assert ref.scattered and inc.SCATTERED in ref.log.kinds()
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.SCATTERED
    assert len(ref.fixes()) == 6
    assert sorted(w for i, w in ref.fixes()) == [1, 1, 1, 2, 2, 2]
    ref.see(seen(stones))
    assert not ref.scattered and ref.log.last()[0] == inc.RESTORED
    assert ref.fixes() == []


def test_an_unseen_point_is_not_a_pass():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . ? . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.UNSEEN
    assert game.ply == 0


def test_arbiter_undo_and_the_way_back():
    game, ref = go()
    board = EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)
    ref.see(seen(board))
    ref.press(BLACK, 5)
    assert ref.undo()
    assert ref.fixes() == [(idx("E9"), 0)]  # take the stone off
    assert ref.log.last()[0] == inc.UNDO


def test_go_end_lifted_stones_are_dead():
    stones = """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X X X X
        O O O O O O O O O
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
    """
    game, ref = go(stones)
    ref.see(seen(stones.replace(". . . . . . X . .", ". . . . . . . . .")))
    assert ref.dead_stones() == [(6, 2)]
    result = ref.count()
    assert result.black_area2 == 2 * 36 and result.white_area2 == 2 * 45
    assert ref.log.last()[0] == inc.COUNT


# ---- Renju -------------------------------------------------------------------------------------

EMPTY15 = "\n".join([". " * 14 + "."] * 15)


def renju_seen(stones):
    """15x15 states from ``{(x, y): colour}``."""
    out = bytearray(225)
    for (x, y), c in stones.items():
        out[y * 15 + x] = c
    return out


def test_renju_no_pass_in_the_first_five_moves():
    game = Gomoku(RENJU)
    ref = Referee(game)
    ref.see(renju_seen({}))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.NO_STONE


def test_renju_fifth_move_offers_on_the_real_board():
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=2)
    ref = Referee(game)
    stones = {}
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 8), (6, 7))):  # 花月 + White 4
        c = BLACK if k % 2 == 0 else WHITE
        stones[(x, y)] = c
        ref.see(renju_seen(stones))
        assert ref.press(c, 10 * k) == ACCEPTED, k
    stones[(9, 9)] = BLACK  # the two offers
    stones[(5, 5)] = BLACK
    ref.see(renju_seen(stones))
    assert ref.press(BLACK, 100) == ACCEPTED
    assert ref.log.last()[0] == inc.OFFERS and game.offered
    ref.see(renju_seen(stones))
    assert not ref.scattered  # the offers are expected on the board
    del stones[(5, 5)]  # White keeps J10 and plays move 6
    stones[(10, 10)] = WHITE
    ref.see(renju_seen(stones))
    assert ref.press(WHITE, 110) == ACCEPTED
    assert game.board.color_at(9, 9) == BLACK and game.board.color_at(5, 5) == 0
    assert game.board.color_at(10, 10) == WHITE and game.to_move == BLACK
    assert inc.KEPT in ref.log.kinds()


def test_renju_offers_must_be_cut_to_one():
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=2)
    ref = Referee(game)
    stones = {}
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 8), (6, 7))):
        stones[(x, y)] = BLACK if k % 2 == 0 else WHITE
        ref.see(renju_seen(stones))
        ref.press(BLACK if k % 2 == 0 else WHITE, k)
    stones[(9, 9)] = BLACK
    stones[(5, 5)] = BLACK
    ref.see(renju_seen(stones))
    ref.press(BLACK, 100)
    stones[(10, 10)] = WHITE  # White plays without removing an offer
    ref.see(renju_seen(stones))
    assert ref.press(WHITE, 110) == REFUSED and ref.why == inc.OFFERS


def test_a_moved_stone_of_the_position():
    stones = EMPTY9.replace(". . . . . . . . .", ". . X . . . . . .", 1)
    game, ref = go(stones, to_move=WHITE)
    ref.see(seen(stones))
    slid = EMPTY9.replace(". . . . . . . . .", ". . . X . . . . .", 1)  # C9 to D9 (移子)
    ref.see(seen(slid))
    assert ref.log.last()[:4] == (inc.MOVED_OLD, 1, 0, (idx("C9"), idx("D9")))
    assert ref.press(WHITE, 5) == REFUSED and ref.why == inc.MOVED_OLD
    game, ref = go(stones, to_move=BLACK)  # the mover's own stone moved: not a move
    ref.see(seen(slid))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.MOVED_OLD
    assert game.ply == 0


def test_pressed_first_then_the_stone():
    game, ref = go()
    ref.see(seen(EMPTY9))
    assert ref.press(BLACK, 5) == ACCEPTED  # a pass
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)), 6)
    assert ref.log.last()[0] == inc.PRESS_FIRST


BIG_CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X X X X X . . .
    X O O O O O X . .
    . X X X X X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_a_big_capture_taken_off_is_not_a_scattered_board():
    # Black A5 takes the five white stones; the player lifts them before pressing, which the
    # referee must not mistake for a disturbed board.
    start = BIG_CAPTURE.replace("X O O O O O X", ". O O O O O X")
    game, ref = go(start)
    ref.see(seen(start))
    ref.see(seen(BIG_CAPTURE))  # A5 down
    ref.see(seen(BIG_CAPTURE.replace("X O O O O O X", "X . . . . . X")))  # the five lifted
    assert not ref.scattered
    assert ref.press(BLACK, 10) == ACCEPTED
    assert game.captures[BLACK] == 5
    assert inc.SCATTERED not in ref.log.kinds()


def test_a_bad_point_is_declared_by_the_players():
    # A dead sensor on E9 reads UNCERTAIN for ever: the players say what is there.
    game, ref = go()
    bad = EMPTY9.replace(". . . . . . . . .", ". . . . ? . . . .", 1)
    ref.see(seen(bad))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.UNSEEN
    ref.declare(idx("E9"), BLACK)  # Black put its stone there
    assert ref.press(BLACK, 6) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK
    ref.see(seen(bad))  # still unseen, still declared
    ref.see(seen(bad.replace("? . . . .", "? O . . .")))
    assert ref.press(WHITE, 7) == ACCEPTED and game.board.color_at(5, 8) == WHITE
