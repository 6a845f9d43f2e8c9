"""Games from power-on to a finished record, as players and arbiters live them (issue G).

Each test drives the real ``App`` as the players do — stones on the simulated grid, the
paddles, the four keys, time passing — and asserts only what a player sees on the faces and
hears from the buzzer (tests/rig.py records both), and what the journal keeps. Both runtimes.
"""

from firmware.game.match import COUNTED, DEAD, OVER, PLAY
from firmware.referee import incidents as inc
from firmware.store import records as R
from firmware.store.journal import Journal
from firmware.ui import say
from tests.rig import Rig
from tests.test_journal import fresh_root


def _result(journal, game_no):
    recs = journal.records(game_no)
    assert recs and recs[-1][0] == R.RESULT, recs[-3:]
    return recs[-1]


def _clock(text):
    # A face showing its clock (a time such as 58:59 and the move number), not a word.
    return text[:1].isdigit() and ":" in text and "#" in text


def _finished(journal):
    return [g for g, _, done, _ in journal.games() if done]


def test_a_go_game_from_the_menu_to_the_count_and_the_next_game():
    journal = Journal(fresh_root(blocks=128))
    rig = Rig({"game": "go", "size": 19}, journal=journal)
    # Power-on → the menu (a long MODE): Go 19 and the 1988 rules are the first choices.
    rig.key("mode", long=True)
    assert rig.seen("b") == "GO 19"
    rig.key("mode")
    assert rig.seen("b") == "1988 RUL"
    for _ in range(4):  # ko, komi, handicap, then the time
        rig.key("mode")
    assert rig.seen("w") == "3:00 CN"
    rig.key("minus")  # the preset before it: 1:00 CN (one hour, the last minute counted)
    assert rig.seen("w") == "1:00 CN"
    rig.key("mode", long=True)
    assert rig.heard()[-1] == "CONFIRM"
    assert rig.match.settings["rules"] == "1988" and rig.match.settings["time"] == "cn-local"
    assert rig.seen("b") == "59:00 #1"  # an hour, the last minute kept for counting
    rig.key("pause")  # Black's clock starts
    assert rig.match.clock.state == 1
    # A ko in the lower left, a stone elsewhere for each.
    for v, c in (("D5", "b"), ("E5", "w"), ("C4", "b"), ("F4", "w"), ("D3", "b"), ("E3", "w")):
        rig.put(v, c)
        rig.press(c)
    rig.put("Q16", "b")
    rig.press("b")
    rig.put("D4", "w")
    rig.press("w")
    rig.heard()
    rig.put("E4", "b")  # takes D4: the white stone must come off before the press
    rig.press("b")
    assert rig.match.game.ply == 8
    assert rig.seen("b") == "CAP D4" and rig.heard() == ["REFUSE"]
    assert _clock(rig.seen("w"))  # the other face keeps its clock
    rig.lift("D4")
    rig.press("b")
    assert rig.match.game.ply == 9
    rig.put("D4", "w")  # the immediate recapture: a ko
    rig.press("w")
    assert rig.seen("w") == "KO D4" and "REFUSE" in rig.heard()
    rig.lift("D4")
    rig.put("Q4", "w")
    rig.press("w")
    assert rig.match.game.ply == 10
    rig.run(4000)  # the notices are gone: the clocks are back
    assert _clock(rig.seen("w")) and _clock(rig.seen("b"))
    # Two passes: the board asks for the dead stones.
    rig.press("b")
    assert rig.seen("b") == "PASS"
    rig.press("w")
    assert rig.match.phase == DEAD
    rig.run(3000)
    assert rig.seen("b") == "DEAD 0" and rig.seen("w") == "DEAD 0"
    rig.lift("Q4")  # White's stone there is dead: the players take it off
    assert rig.seen("b") == "DEAD 1"
    assert rig.match.referee.log.kinds()[-1] != inc.SCATTERED
    rig.key("mode")  # the count
    assert rig.match.phase == COUNTED
    # Black 5 stones and the eye at D4; White 3; the rest shared: 364 half stones, komi 2¾.
    seen = set()
    for _ in range(3):
        seen.add(rig.seen("b"))
        rig.run(2000)
    assert seen == {"W+2.5 OK?", "W 1.25 OK?"}, seen  # SGF style, then 白胜1¼子
    rig.press("b")  # Black agrees
    assert rig.seen("b") == "OK" and rig.match.phase == COUNTED
    rig.run(3100)
    assert rig.seen("b") in ("W+2.5 OK", "W 1.25 OK") and rig.seen("w").endswith("OK?")
    rig.press("w")
    assert rig.match.phase == OVER and rig.match.result == "W+2.5"
    assert rig.heard()[-1] == "CONFIRM"
    rig.run(5000)
    assert rig.seen("b") == "W+2.5" == rig.seen("w")
    rec = _result(journal, 1)
    assert rec[1] == 2 and rec[2] == 3 and rec[3] == -5  # White, by the count, 2.5 points
    assert _finished(journal) == [1]
    # The next game from the keys: PAUSE, clear the board, PAUSE.
    rig.key("pause")
    assert rig.match.phase == PLAY and rig.match.clock.state == 0
    assert rig.seen("b") == "59:00 #1"
    rig.key("pause")  # stones of the last game are still on the board
    assert rig.match.clock.state == 0 and rig.seen("b").startswith("CLR. ")  # and a point
    assert "REFUSE" in rig.heard()
    rig.grid.clear()
    rig.run(300)
    rig.key("pause")
    assert rig.match.clock.state == 1 and journal.game_no == 2


def test_resignation_from_the_keys_and_a_loss_on_time():
    journal = Journal(fresh_root(blocks=128))
    rig = Rig({"game": "go", "size": 9, "time": "blitz-delay"}, journal=journal)
    rig.key("pause")
    rig.put("E5", "b")
    rig.press("b")
    # White resigns on its own turn: PLUS+MINUS asks, MODE answers.
    rig.key("plus+minus")
    assert rig.seen("w") == "RESIGN ?" and rig.match.phase == PLAY
    rig.key("pause")  # no: the question goes
    assert _clock(rig.seen("w")) and rig.match.phase == PLAY
    rig.key("plus+minus")
    rig.key("plus")  # the question goes to the other side: Black resigns
    assert rig.seen("b") == "RESIGN ?"
    rig.key("plus")
    rig.key("mode")
    assert rig.match.result == "B+R" and rig.seen("b") == "B+R" == rig.seen("w")
    assert _result(journal, 1)[1:3] == (1, 1)  # Black, by resignation
    # The next game, lost on time: White's five minutes run out.
    rig.grid.clear()
    rig.key("pause")
    rig.key("pause")
    assert rig.match.clock.state == 1
    rig.put("E5", "b")
    rig.press("b")
    rig.heard()
    rig.run(5 * 60 * 1000 + 6000)
    assert rig.match.result == "B+T" and rig.seen("w") == "B+T"
    assert "TIMEOUT" in rig.heard()  # the long tone
    assert _result(journal, 2)[1:3] == (1, 2)  # Black, on time
    assert _finished(journal) == [1, 2]


def _renju_opening(rig):
    # 1 H8, 2 H9, 3 I8 (雨月), White swaps, 4 G8, 5 two offers, White keeps I10 with 6 M3.
    rig.key("pause")
    for v, c in (("H8", "b"), ("H9", "w"), ("I8", "b")):
        rig.put(v, c)
        rig.press(c)
    rig.key("mode")  # White takes Black (三手可交换)
    assert rig.seen("b") == "CHANGE" and rig.match.game.swapped
    rig.put("G8", "w")
    rig.press("w")
    rig.put("I10", "b")
    rig.put("F6", "b")
    rig.press("b")
    assert rig.seen("w") == "OFFERS 2"
    rig.lift("F6")
    rig.put("M3", "w")
    rig.press("w")
    assert rig.match.game.ply == 6
    rig.put("J10", "b")
    rig.press("b")
    rig.put("N3", "w")
    rig.press("w")
    rig.heard()
    rig.put("I9", "b")  # a double-three: forbidden for Black
    rig.press("b")


def test_renju_designated_opening_swap_offers_and_a_foul_auto():
    journal = Journal(fresh_root(blocks=128))
    rig = Rig({"game": "renju", "opening": "designated", "offers": 2, "claims": "auto"}, journal)
    _renju_opening(rig)
    assert rig.match.result.startswith("W+F") and rig.match.phase == OVER
    assert rig.seen("b") == "W+F 33" and "CONFIRM" in rig.heard()
    rec = _result(journal, 1)
    assert rec[1] == 2
    kinds = [r[1] for r in journal.records(1) if r[0] == R.INCIDENT]
    assert inc.SWAP in kinds and inc.OFFERS in kinds and inc.KEPT in kinds


def test_renju_foul_in_claim_mode_is_signalled_and_claimed():
    journal = Journal(fresh_root(blocks=128))
    rig = Rig({"game": "renju", "opening": "designated", "offers": 2, "claims": "claim"}, journal)
    _renju_opening(rig)
    assert rig.match.phase == PLAY and not rig.match.result  # signalled, not decided
    assert rig.seen("w") == "FOUL I9" and "REFUSE" in rig.heard()
    rig.key("mode")  # White claims
    assert rig.match.result.startswith("W+F") and rig.seen("w") == "W+F 33"
    kinds = [r[1] for r in journal.records(1) if r[0] == R.INCIDENT]
    assert inc.FOUL in kinds and inc.CLAIM in kinds


def test_every_incident_kind_has_a_face_text_and_a_sound():
    from firmware.ui import buzzer

    for kind in range(2, 26):
        assert kind in say.kinds(), kind
        word, small, more = say.incident(kind, (3 << 5 | 3,), 0, False)
        assert word and len(word.replace(" ", "")) <= 6 and more, (kind, word)
        assert say.pattern(kind) in (buzzer.REFUSE, buzzer.KEY)
    # Through the app: each incident logged by the referee reaches a face and the buzzer
    # (the count's own incident excepted: the faces show the count itself, see the first test;
    # and a start refused: the faces name the points to clear instead, tests/test_clear.py).
    rig = Rig({"game": "go", "size": 19})
    rig.key("pause")
    for kind in range(2, 26):
        if kind == inc.COUNT or kind == inc.NOT_CLEAR:
            continue
        rig.heard()
        rig.match.referee.log.add(kind, 1, rig.now, (3 << 5 | 3,), 0)
        rig.run(100)
        word = say.incident(kind, (3 << 5 | 3,), 0, False)[0]
        shown = rig.seen("b") + "|" + rig.seen("w")
        assert word in shown, (kind, word, shown)
        want = "REFUSE" if say.is_fault(kind) else "KEY"
        assert rig.heard() == [want], kind
        rig.run(3100)


def test_the_arbiter_mode_on_the_faces():
    rig = Rig({"game": "go", "size": 19})
    rig.key("pause")
    rig.key("pause+mode")
    assert rig.seen("b") == "0___ PIN ARB"
    rig.pin("000")  # the chord was the first key: three more digits would be wrong
    rig.key("mode")
    assert rig.seen("b") == "NO PIN" and "REFUSE" in rig.heard()
    rig.run(3000)
    rig.pin("1234")
    assert rig.seen("b") == "PAUSE ARB" and rig.app.arbiter.active
    rig.key("mode")  # pause
    assert rig.match.clock.state == 2 and rig.seen("b").startswith("PAUSED")
    rig.key("pause")  # leave the mode
    rig.run(3000)
    assert "PAUSE" in rig.seen("b") and "ARB" not in rig.seen("b")
    rig.key("pause")  # players cannot resume what the arbiter paused
    assert rig.match.clock.state == 2


def test_every_reason_the_go_rules_refuse_a_point_has_its_word():
    from firmware.rules.go_board import REASONS

    words = set()
    for reason in range(1, len(REASONS)):
        word, _, more = say.incident(inc.ILLEGAL, (3 << 5 | 3,), reason, False)
        assert word != say.incident(inc.ILLEGAL, (3 << 5 | 3,), 0, False)[0], REASONS[reason]
        assert len(word.replace(" ", "")) <= 6 and more, (reason, word)
        words.add(word)
    assert len(words) == len(REASONS) - 1  # one word per reason
