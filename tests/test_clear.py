"""Clearing the board for a game (firmware/game/app.py's ``clearing``), read off the glass.

PAUSE before a game is refused while stones the new game does not have are on the board;
then both faces name the points to clear one at a time, with how many are left, in the
game's own coordinates, as the stones come off, until the board is ready. What is checked is
what the player reads: the real HT1621 driver's RAM on the emulated chips, read back
(firmware/hal/virtual.py), on both runtimes.
"""

from firmware.hal import virtual as V
from firmware.ui import say
from tests.rig import Rig


def glassed(rig):
    """The rig's faces swapped for the real driver on emulated glass: a reader per face."""
    bus, chips, faces = V.make_faces(2)
    rig.app.faces = faces
    rig.run(100)
    return lambda colour: V.read(chips[0 if colour[0] in "bB" else 1].ram).line()


def clear_text(count, point):
    """The glass line meant for ``count`` stones to take off, the next on ``point``."""
    return "%s%3d  %s" % (say.CLEAR_WORD, count, point)


def test_the_faces_name_each_point_to_clear_and_count_down_as_stones_come_off():
    rig = Rig({"game": "go", "size": 19, "time": "quick"})
    read = glassed(rig)
    rig.put("Q16", "w")
    rig.put("D4", "b")
    rig.put("K10", "b")
    rig.heard()
    rig.key("pause")  # refused: the last game's stones
    assert rig.match.clock.state == 0 and rig.heard() == ["REFUSE"]
    assert read("b") == read("w") == clear_text(3, "D4") == "CLR.  3  D4"
    rig.lift("Q16")  # not the one named: the count goes down, the point stays
    assert read("b") == clear_text(2, "D4")
    rig.lift("D4")  # the next, without PAUSE again
    assert read("w") == clear_text(1, "K10")
    rig.put("C3", "w")  # one more put down meanwhile: named first (row 3)
    assert read("b") == clear_text(2, "C3")
    rig.lift("C3")
    rig.lift("K10")
    assert read("b") == read("w") == say.CLEARED and rig.heard()[-1] == "CONFIRM"
    rig.run(3000)
    assert read("b").endswith("#1")  # the clock again: PAUSE starts
    rig.key("pause")
    assert rig.match.clock.state == 1


def test_a_smaller_game_names_its_own_points_and_the_stones_outside_its_area():
    # Go 9x9 sits in the middle of the grid (its D4 is the grid's J9); a stone outside it
    # has no name there ("OUT"), and would have made the first move a disturbed board.
    rig = Rig({"game": "go", "size": 9, "time": "quick"})
    read = glassed(rig)
    rig.grid.put(0, 0, 1)  # the grid's A1
    rig.grid.put(18, 18, 2)  # T19
    rig.put("D4", "w")
    rig.key("pause")
    assert rig.match.clock.state == 0
    assert read("b") == clear_text(3, "D4")
    rig.lift("D4")
    assert read("b") == clear_text(2, say.OUTSIDE) == "CLR.  2  OUT"
    rig.grid.lift(0, 0)
    rig.grid.lift(18, 18)
    rig.run(300)
    assert read("b") == say.CLEARED
    rig.key("pause")
    rig.put("E5", "b")
    rig.press("b")
    assert rig.match.game.ply == 1  # played, not FIX


def test_an_outside_stone_alone_refuses_the_start():
    rig = Rig({"game": "go", "size": 13, "time": "quick"})
    read = glassed(rig)
    rig.grid.put(1, 1, 1)
    rig.run(300)
    rig.key("pause")
    assert rig.match.clock.state == 0 and read("w") == clear_text(1, say.OUTSIDE)


def test_renju_names_points_with_its_own_columns():
    # Renju's 15x15 (columns A to O, I included) in the middle of the grid.
    rig = Rig({"game": "renju", "time": "quick"})
    read = glassed(rig)
    rig.put("I9", "b")
    rig.put("H8", "w")
    rig.key("pause")
    assert read("b") == clear_text(2, "H8")
    rig.lift("H8")
    assert read("b") == clear_text(1, "I9")  # the I lit on the left: not a 1


def test_handicap_stones_are_named_to_put_down():
    rig = Rig({"game": "go", "size": 19, "time": "quick", "handicap": 2})
    read = glassed(rig)
    rig.put("K10", "w")
    rig.key("pause")
    assert read("b") == clear_text(1, "K10")  # what comes off first
    rig.lift("K10")
    assert read("b") == "%s%3d  %s" % (say.PUT_WORD, 2, "D4") == "PUT.  2  D4"
    rig.put("D4", "b")
    assert read("b") == "PUT.  1  Q16"
    rig.put("Q16", "b")
    assert read("b") == say.CLEARED
    rig.key("pause")
    assert rig.match.clock.state == 1 and rig.match.game.to_move == 2


def test_hundreds_of_stones_read_as_a_number_and_the_menu_ends_the_naming():
    rig = Rig({"game": "go", "size": 19, "time": "quick"})
    read = glassed(rig)
    for y in range(8):
        for x in range(19):
            rig.grid.put(x, y, 1 + (x + y) % 2)
    rig.run(300)
    rig.key("pause")
    assert read("b") == "CLR.152  A1"  # the point after the word keeps the count a number
    rig.grid.lift(0, 0)
    rig.run(300)
    assert read("b") == "CLR.151  B1"
    rig.key("mode", long=True)  # the menu: the game may change, PAUSE asks again
    assert not rig.app.clearing and "CLR" not in read("b")


def test_what_the_board_wants_done_for_the_pc_and_the_view():
    # App.to_clear: the grid's points with a mark, before a game and for a capture in play.
    rig = Rig({"game": "go", "size": 9, "time": "quick"})
    rig.grid.put(0, 0, 1)
    rig.put("A1", "w")
    assert rig.app.to_clear() == {0: "x", 5 * 19 + 5: "x"}  # A1 of the game is grid F6
    rig.grid.lift(0, 0)
    rig.lift("A1")
    assert rig.app.to_clear() == {}
    rig.key("pause")
    for v, c in (("A2", "b"), ("A1", "w")):
        rig.put(v, c)
        rig.press(c)
    rig.put("B1", "b")  # takes A1: still on the board
    assert rig.app.to_clear() == {5 * 19 + 5: "x"}
    rig.lift("A1")
    assert rig.app.to_clear() == {}
    rig.press("b")
    assert rig.match.game.ply == 3


def test_every_clearing_text_reads_back_as_meant_and_fits_the_oled_line():
    # The big cells' word and count, the small cells' point, as the glass shows them: no
    # digit read as a letter (2/Z, 5/S, 0/O), for every count up to a full board.
    for word in (say.CLEAR_WORD, say.PUT_WORD):
        for count in (1, 2, 5, 9, 10, 20, 50, 99, 100, 205, 250, 361):
            for point in ("A1", "D4", "Q16", "T19", "I9", "O15", "S2", say.OUTSIDE):
                text = "%s%3d" % (word, count)
                assert V.shown(text, point) == "%s  %s" % (text, point), (text, point)
    assert V.shown(say.CLEARED) == say.CLEARED
    for small, more in (
        ("Q16", say.CLEAR_MORE),
        ("Q16", say.PUT_MORE),
        (say.OUTSIDE, say.OUTSIDE_MORE),
        ("", say.CLEARED_MORE),
    ):
        assert len((small + " " + more).strip()) <= 16, more  # the OLED's text line
