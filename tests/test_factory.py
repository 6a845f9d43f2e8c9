"""The factory settings are a tested configuration: every game kind played from a new board.

Each test starts from a board with no settings file at all (a fresh flash folder: the board
as it leaves the factory, ``tests/rig.py``'s ``BoardRig``: ``firmware/boot/board.py``'s ``build``
on the virtual hardware), changes the settings only as a user does (the menu's keys, or the
link's ``settings`` request as ``tengen settings`` sends it) and plays through the real App:
stones on the simulated Hall grid, the paddles, the four keys. What is asserted is what the
players read on the faces' glass (the emulated HT1621 read back) and hear, at the moments
they would look, and what the journal kept. Both runtimes.

Seen on the way (issue 24): Renju with the default ten fifth-move offers (五手N打, 002
第三条2) could not get past move 5, the fifth offer stone tripping the disturbed-board check;
the faces now say how many offers are down of how many are due (``3/10  OFR``) and, while
White chooses, how many are still down (``SELECT  10``).
"""

from firmware.game.match import COUNTED, DEAD, OVER, PLAY
from firmware.game.settings import DEFAULTS
from firmware.referee import incidents as inc
from firmware.store import records as R
from firmware.store.journal import read_file
from tests.rig import BoardRig

# 雨月 (Ugetsu): Black 1 on H8, White 2 on H9, Black 3 on I8; White 4 on G8 (after the swap).
UGETSU = (("H8", "b"), ("H9", "w"), ("I8", "b"))
# Ten offers of ten shapes in that position; the first is the one White keeps.
OFFERS = ("J8", "E5", "F12", "K4", "L11", "C9", "M13", "D3", "N13", "B2")


def _clock(text, move_no=None, running=None):
    # A face showing its clock (a time such as 2:55:00 and the move number), not a word.
    parts = text.split("  ")
    ok = ":" in parts[0] and len(parts) > 1 and parts[1].startswith("#")
    if ok and move_no is not None:
        ok = parts[1] == "#%d" % move_no
    if ok and running is not None:
        ok = text.endswith("RUN") == running
    return ok


def _settings_file(rig):
    try:
        return read_file(rig.root + "/settings.json")
    except OSError:
        return None


def _new_board():
    rig = BoardRig()
    # Nothing was ever saved, and the board says nothing is wrong: no RESET, no NO CAL.
    assert _settings_file(rig) is None and not rig.app.errors
    return rig


def _result(rig, game_no=1):
    recs = rig.journal.records(game_no)
    assert recs and recs[-1][0] == R.RESULT, recs[-3:]
    return recs[-1]


def _incidents(rig, game_no=1):
    return [r[1] for r in rig.journal.records(game_no) if r[0] == R.INCIDENT]


def _menu_game(rig, pluses, label):
    # A long MODE opens the menu on the game; PLUS steps through GO 19, GO 13, GO 9, RENJU,
    # STD (standard Gomoku), FREE (freestyle): the game in the big cells, its size small.
    rig.key("mode", long=True)
    assert rig.seen("b") == "GO  19" == rig.seen("w")  # the factory's game
    for _ in range(pluses):
        rig.key("plus")
    if label:
        assert rig.seen("b") == label, rig.seen("b")


def _menu_done(rig):
    rig.key("mode", long=True)
    assert rig.heard()[-1:] == ["CONFIRM"]
    assert _settings_file(rig) is not None  # the menu saves the choice


def _count_both_ways(rig, points, stones):
    # The count stays on the faces, SGF style and Chinese style by turns, until confirmed.
    shown = rig.seen_over("b", 4500)
    assert sorted(shown) == sorted([points + "  OK?", stones + "  OK?"]), shown
    rig.press("b")
    assert rig.seen("b") == "OK" and rig.match.phase == COUNTED
    rig.press("w")
    assert rig.match.phase == OVER and rig.heard()[-1] == "CONFIRM"
    rig.run(4000)
    assert rig.seen("b") == points == rig.seen("w")


# ---- Go -------------------------------------------------------------------------------------


def test_go_19_as_it_comes_a_capture_the_dead_and_the_count():
    rig = _new_board()
    # Power-on: Go 19x19, the 1988 rules, komi 5½, China's national time, both clocks still.
    assert _clock(rig.seen("b"), 1, False) and _clock(rig.seen("w"), 1, False)
    assert rig.match.game.board.size == 19 and rig.match.komi2() == DEFAULTS["komi2"] == 11
    rig.key("pause")  # Black's clock starts
    assert _clock(rig.seen("b"), 1, True) and _clock(rig.seen("w"), 1, False)
    rig.play((("K10", "b"), ("A1", "w"), ("B1", "b"), ("L10", "w")))
    rig.heard()
    rig.put("A2", "b")  # takes A1: the white stone must come off before the press
    rig.press("b")
    assert rig.seen("b") == "CAP  A1" and rig.heard() == ["REFUSE"]
    assert _clock(rig.seen("w"), 5, False)  # the other face keeps its clock
    rig.lift("A1")
    rig.press("b")
    assert _clock(rig.seen("w"), 6, True) and rig.match.game.ply == 5
    rig.put("C3", "w")  # a white stone that will be dead
    rig.press("w")
    # Black's wall on the K line, White's on the L line.
    for y in range(1, 20):
        if y != 10:
            rig.play((("K%d" % y, "b"), ("L%d" % y, "w")))
    assert rig.match.game.ply == 42 and _clock(rig.seen("b"), 43, True)
    rig.press("b")  # two passes: the board asks for the dead stones
    assert rig.seen("b") == "PASS" == rig.seen("w")
    rig.press("w")
    assert rig.match.phase == DEAD
    rig.run(3000)
    assert rig.seen("b") == "DEAD  0" == rig.seen("w")
    rig.lift("C3")
    assert rig.seen("b") == "DEAD  1" == rig.seen("w")
    rig.key("mode")  # the count: Black 190 points, White 171; komi 2¾ stones
    _count_both_ways(rig, "B+13.5", "B 6.75")
    rec = _result(rig)
    assert rec[1] == 1 and rec[2] == 3 and rec[3] == 27  # Black, by the count, 13.5 points
    assert inc.CAPTURES_LEFT in _incidents(rig) and _settings_file(rig) is None


def test_go_13_from_the_menu_names_points_in_its_own_coordinates_and_resigns():
    rig = _new_board()
    _menu_game(rig, 1, "GO  13")
    _menu_done(rig)
    assert _clock(rig.seen("b"), 1, False)
    rig.key("pause")
    assert rig.match.game.board.size == 13
    rig.play((("G7", "b"), ("A1", "w"), ("B1", "b"), ("N13", "w")))
    rig.heard()
    rig.put("A2", "b")  # the 13x13's A1 is the grid's D4: the faces say the game's name
    rig.press("b")
    assert rig.seen("b") == "CAP  A1" and rig.heard() == ["REFUSE"]
    rig.lift("A1")
    rig.press("b")
    assert _clock(rig.seen("w"), 6, True)
    rig.key("plus+minus")  # White, whose clock runs, is asked
    assert rig.seen("w") == "RESIGN  ?"
    rig.key("mode")
    assert rig.match.result == "B+R" and rig.seen("b") == "B+R" == rig.seen("w")
    assert _result(rig)[1:3] == (1, 1)  # Black, by resignation


def test_go_9_from_the_link_to_the_count():
    rig = _new_board()
    r = rig.ask("settings", set={"game": "go9"})  # tengen settings game=go9
    assert r["ok"] and r["settings"]["size"] == 9
    rig.key("pause")  # the new settings are taken with the game
    assert rig.match.game.board.size == 9 and _clock(rig.seen("b"), 1, True)
    for y in range(1, 10):
        rig.play((("E%d" % y, "b"), ("F%d" % y, "w")))
    rig.press("b")
    rig.press("w")
    rig.run(3000)
    assert rig.seen("b") == "DEAD  0"
    rig.key("mode")  # Black 45 points, White 36; komi 2¾ stones
    _count_both_ways(rig, "B+3.5", "B 1.75")
    assert _result(rig)[1:4] == (1, 3, 7)


# ---- Gomoku -----------------------------------------------------------------------------------


def _offers_and_keep(rig, offers, kept, white_6):
    # Black puts the offers down one by one, White's face (waiting) counting them; Black's
    # press; White lifts all but ``kept``, puts move 6 down and presses.
    due = len(offers)
    assert rig.seen("w") == "0/%d  OFR" % due  # what is due, before the first is down
    for k in range(due):
        rig.put(offers[k], "b")
        assert rig.seen("w") == "%d/%d  OFR" % (k + 1, due), (k, rig.seen("w"))
        assert not rig.match.referee.scattered
    # Black's own face: the count by turns with its running clock.
    shown = rig.seen_over("b", 4500)
    assert "%d/%d  OFR" % (due, due) in shown and any(_clock(t, 5, True) for t in shown), shown
    rig.heard()
    rig.press("b")
    assert rig.seen("b") == "OFFERS  %d" % due == rig.seen("w") and rig.heard() == ["KEY"]
    assert len(rig.match.game.offered) == due
    rig.run(3000)
    assert rig.seen("b") == "SELECT  %d" % due  # Black waits for White's choice
    down = due
    for v in offers:
        if v != kept:
            rig.lift(v)
            down -= 1
            assert rig.seen("b") == "SELECT  %d" % down, (v, rig.seen("b"))
    assert down == 1
    rig.put(white_6, "w")
    rig.press("w")
    assert rig.seen("w") == "CHOSEN  " + kept and rig.heard() == ["KEY"]
    assert rig.match.game.ply == 6 and not rig.match.game.offered
    rig.run(3000)
    assert _clock(rig.seen("b"), 7, True) and _clock(rig.seen("w"), 7, False)


def test_renju_from_the_link_ten_offers_the_swap_and_a_five():
    # The report: tengen settings game=renju, the default ten offers.
    rig = _new_board()
    r = rig.ask("settings", set={"game": "renju"})
    s = r["settings"]
    assert r["ok"] and s["offers"] == 10 and s["opening"] == "designated"
    assert s["time"] == "renju-rif"  # Renju's own time, as the menu sets it, not Go's
    rig.key("pause")
    rig.play(UGETSU)
    assert _clock(rig.seen("w"), 4, True)
    rig.key("mode")  # White takes Black (三手可交换): the players change seats
    assert rig.seen("b") == "CHANGE" == rig.seen("w") and rig.match.game.swapped
    rig.run(3000)
    rig.put("G8", "w")
    rig.press("w")
    # Nine offers and the press: refused, one short; the tenth, and on.
    for v in OFFERS[:9]:
        rig.put(v, "b")
    assert rig.seen("w") == "9/10  OFR"
    rig.heard()
    rig.press("b")
    assert rig.seen("b") == "SHORT  9" == rig.seen("w") and rig.heard() == ["REFUSE"]
    assert rig.match.game.ply == 4
    rig.run(3000)
    for v in OFFERS[:9]:
        rig.lift(v)
    _offers_and_keep(rig, OFFERS, "J8", "A1")
    rig.play((("K8", "b"), ("A2", "w")))  # Black 7 makes four (H8 … K8), White 8 elsewhere
    rig.put("L8", "b")  # Black 9: five
    rig.press("b")
    assert rig.match.phase == OVER and rig.seen("b") == "B+5" == rig.seen("w")
    assert rig.heard()[-1] == "CONFIRM"
    kinds = _incidents(rig)
    assert inc.SWAP in kinds and inc.OFFERS in kinds and inc.KEPT in kinds
    assert inc.SCATTERED not in kinds and _result(rig)[1] == 1


def test_renju_from_the_menu_with_claims_a_foul_claimed_after_ten_offers():
    rig = _new_board()
    _menu_game(rig, 3, "RENJU  15")
    for _ in range(3):  # the opening, the offers, the claims
        rig.key("mode")
    rig.key("plus")
    assert rig.seen("b") == "CALL  CLA"
    _menu_done(rig)
    s = rig.match.settings
    assert (s["game"], s["opening"], s["offers"], s["claims"]) == (
        "renju",
        "designated",
        10,
        "claim",
    )
    rig.key("pause")
    rig.play(UGETSU)
    rig.key("mode")  # the swap
    rig.run(3000)
    rig.put("G8", "w")
    rig.press("w")
    offers = ("I10",) + OFFERS[1:]
    _offers_and_keep(rig, offers, "I10", "M3")
    rig.play((("J10", "b"), ("N3", "w")))
    rig.heard()
    rig.put("I9", "b")  # a double-three (I8-I9-I10, H8-I9-J10): forbidden for Black
    rig.press("b")
    assert rig.match.phase == PLAY and not rig.match.result  # signalled, not decided
    assert rig.seen("w") == "FOUL  I9" and "REFUSE" in rig.heard()
    rig.key("mode")  # White claims it
    assert rig.match.result.startswith("W+F") and rig.seen("w") == "W+F  33"
    kinds = _incidents(rig)
    assert inc.FOUL in kinds and inc.CLAIM in kinds and inc.SCATTERED not in kinds


def test_freestyle_as_the_menu_sets_it_a_free_opening_and_an_overline_wins():
    # 002 第四条1: a designated opening brings the swap, the offers and the forbidden moves;
    # freestyle has none of them, so it opens free whatever the (Renju) opening setting says.
    rig = _new_board()
    _menu_game(rig, 5, None)
    _menu_done(rig)
    assert rig.match.settings["game"] == "freestyle" and rig.match.game.opening == 0
    rig.key("pause")
    white = ("A1", "C1", "E1", "G1", "J1")
    black = ("H8", "I8", "J8", "K8", "M8")
    for k in range(5):
        rig.play(((black[k], "b"), (white[k], "w")))
    rig.put("L8", "b")  # H8 … M8: six in a row, a win in freestyle
    rig.press("b")
    assert rig.seen("b") == "B+5" == rig.seen("w") and _result(rig)[1] == 1


def test_standard_gomoku_with_a_free_opening_an_overline_is_no_win():
    rig = _new_board()
    _menu_game(rig, 4, "STD  15")
    _menu_done(rig)
    assert rig.match.settings["game"] == "standard" and rig.match.game.opening == 0
    rig.key("pause")
    white = ("A1", "C1", "E1", "G1", "J1", "L1", "N1", "A15")
    black = ("H8", "I8", "J8", "L8", "M8", "K8")  # K8 makes six: not five
    for k in range(6):
        rig.play(((black[k], "b"), (white[k], "w")))
    assert rig.match.phase == PLAY and _clock(rig.seen("b"), 13, True)
    rig.play((("H9", "b"), (white[6], "w"), ("H10", "b"), (white[7], "w"), ("H11", "b")))
    rig.play((("O15", "w"),))
    rig.put("H12", "b")  # H8 … H12: exactly five
    rig.press("b")
    assert rig.seen("b") == "B+5" == rig.seen("w") and _result(rig)[1] == 1


def test_the_offers_texts_read_on_the_glass_as_meant():
    # Every count the offers can show, every word of their incidents, drawn by the real
    # driver and read back: no glyph read as another (1/I, 0/O, 5/S).
    from firmware.game.settings import _KINDS
    from firmware.hal import virtual as V
    from firmware.ui import say

    most = _KINDS["offers"][2]
    for due in range(2, most + 1):
        for down in range(due + 5):
            big, small, more = say.offers_text(down, due)
            assert big == "%d/%d" % (down, due) and small == say.OFFERS_WORD and more
            assert V.shown(big, small) == "%d/%d  OFR" % (down, due)
        assert V.shown(say.CHOOSE_WORD, str(due)) == "SELECT  %d" % due
    words = {}
    for detail in range(5):
        pts = (7 << 5 | 9, 4 << 5 | 4)
        word, small, more = say.incident(inc.OFFERS, pts, detail, True)
        words[detail] = V.shown(word, small)
        assert more and say.is_fault(inc.OFFERS, detail) == (detail != 0)
    assert words == {
        0: "OFFERS  2",
        inc.OFFERS_SHORT: "SHORT  2",
        inc.OFFERS_OVER: "SPARE  2",
        inc.OFFERS_SAME: "DOUBLE  J8",
        inc.OFFERS_KEEP: "SELECT  2",
    }
    assert inc.words(inc.OFFERS, inc.OFFERS_SAME)[1] != inc.words(inc.OFFERS)[1]
