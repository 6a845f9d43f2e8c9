"""A side played from the PC (an engine, an opponent elsewhere) at the real board (issue L).

The real ``App`` on the simulated grid (tests/rig.py: faces and buzzer recorded) with the real
link ``Server`` on it: the PC's requests go in as the serial line's bytes, the player's hands
put the stones down. What is asserted is what the player sees and hears, what the link answers
and what the journal keeps. Both runtimes.
"""

import json

from firmware.game.match import OVER, standing
from firmware.link.server import Server
from firmware.referee import incidents as inc
from firmware.store import records as R
from firmware.store.journal import Journal
from firmware.ui import say
from tests.rig import Rig
from tests.test_journal import fresh_root


class Board:
    """A rig with its link: ``ask(cmd, **fields)`` is the PC's request, its reply a dict."""

    def __init__(self, settings, journal=True):
        self.journal = Journal(fresh_root(blocks=128)) if journal else None
        self.rig = Rig(settings, journal=self.journal)
        self.events = []
        self.srv = Server(
            self.rig.app,
            self.journal,
            b"k" * 32,
            out=self._out,
            now=lambda: self.rig.now,
            settings=self.rig.app.settings,
        )
        self.rig.app.server = self.srv
        self.ids = 0

    def _out(self, data):
        obj = json.loads(bytes(data).decode())
        if "event" in obj:
            self.events.append(obj)

    def ask(self, cmd, **fields):
        self.ids += 1
        req = {"v": 1, "id": self.ids, "cmd": cmd}
        req.update(fields)
        return json.loads(self.srv.handle(json.dumps(req).encode()).decode())

    def ok(self, cmd, **fields):
        r = self.ask(cmd, **fields)
        assert r["ok"], r
        return r

    def records(self):
        """The newest game's records (in progress or finished)."""
        return self.journal.records(self.journal.games()[-1][0])

    def code(self, v):
        """The point code of a vertex of the game (``y << 5 | x``, y from the bottom)."""
        x, y = self.rig._xy(v)
        m = (19 - self.rig.match.game.board.size) // 2
        return (y - m) << 5 | (x - m)


def _go9(remote=2, **more):
    s = {"game": "go", "size": 9, "time": "quick", "remote": remote}
    s.update(more)
    return Board(s)


def test_the_remote_move_is_shown_to_the_player_and_committed_when_put_down():
    b = _go9(remote=2, white="GNU Go 3.8")
    rig = b.rig
    assert b.ok("start")["started"]
    rig.put("C3", "b")
    rig.press("b")
    st = b.ok("state")
    assert st["ply"] == 1 and st["remote"] == 2 and st["expect"] == -1
    rig.heard()
    # White's move comes from the PC: Black's face says it, with the cue.
    r = b.ok("move", ply=1, point=b.code("E5"))
    assert r["placed"] is False
    rig.run(100)
    assert rig.seen("b") == "W E5"
    assert "CONFIRM" in rig.heard()
    assert b.ok("state")["expect"] == b.code("E5")
    # White's clock runs while the stone is not down.
    assert rig.match.clock.running == 2
    # Asked again: the same answer, nothing done twice.
    assert b.ok("move", ply=1, point=b.code("E5"))["placed"] is False
    # Put on the wrong point: refused and said, where the stone belongs.
    rig.put("E6", "w")
    assert rig.seen("b") == "PUT E5"
    assert "REFUSE" in rig.heard()
    assert rig.match.game.ply == 1
    rig.lift("E6")
    rig.run(3000)
    assert rig.seen("b") == "W E5"  # the notice gone, the move still waits
    rig.put("E5", "w")
    st = b.ok("state")
    assert st["ply"] == 2 and st["expect"] == -1 and st["moves"][1] == b.code("E5")
    assert rig.match.clock.running == 1  # Black's turn, Black's clock
    assert b.ok("move", ply=1, point=b.code("E5"))["placed"] is True  # asked again
    # The journal keeps the move, when it came and where it was put instead.
    recs = b.records()
    kinds = [r[1] for r in recs if r[0] == R.INCIDENT]
    assert inc.REMOTE in kinds and inc.WRONG_POINT in kinds
    wrong = [r for r in recs if r[0] == R.INCIDENT and r[1] == inc.WRONG_POINT][0]
    assert list(wrong[4]) == [b.code("E5"), b.code("E6")]
    moves = [r for r in recs if r[0] == R.MOVE]
    assert [m[3] for m in moves] == [b.code("C3"), b.code("E5")]
    assert '"remote":2' in recs[0][1]["extra"] and "GNU Go 3.8" in recs[0][1]["extra"]


def test_captures_must_be_lifted_before_the_remote_move_counts():
    b = _go9(remote=2)
    rig = b.rig
    b.ok("start")
    # Black C3 … White surrounds it: B C3, W C4, B G7, W D3, B G6, W C2, B G5, then W B3 takes.
    script = [("b", "C3"), ("w", "C4"), ("b", "G7"), ("w", "D3"), ("b", "G6"), ("w", "C2")]
    script += [("b", "G5")]
    for colour, v in script:
        if colour == "b":
            rig.put(v, "b")
            rig.press("b")
        else:
            b.ok("move", ply=rig.match.game.ply, point=b.code(v))
            rig.put(v, "w")
    assert rig.match.game.ply == 7
    b.ok("move", ply=7, point=b.code("B3"))
    rig.put("B3", "w")
    assert rig.match.game.ply == 7  # C3 is still on the board: not yet
    rig.lift("C3")
    assert rig.match.game.ply == 8
    assert rig.match.game.captures[2] == 1


def test_a_remote_pass_undo_time_and_resignation():
    b = _go9(remote=2)
    rig = b.rig
    b.ok("start")
    rig.put("C3", "b")
    rig.press("b")
    assert b.ok("move", ply=1, point=1023)["placed"] is True  # a pass is made at once
    assert rig.match.game.ply == 2 and rig.match.clock.running == 1
    # The PC takes back White's pass, then Black's C3: the faces say which stone to lift.
    assert b.ok("undo", ply=1)["ply"] == 1
    assert rig.match.clock.running == 2
    assert b.ok("undo", ply=0)["ply"] == 0
    assert rig.match.clock.running == 1
    rig.run(100)
    assert rig.seen("b") == "UNDO C3"
    rig.lift("C3")
    rig.put("D4", "b")
    rig.press("b")
    assert rig.match.game.ply == 1
    # The remote's clock as its controller says (GTP time_left): 5 minutes of main time.
    clocks = b.ok("clock", side=2, ms=300000, stones=0)["clocks"]
    assert clocks[2] == 300000
    assert b.ask("resign", side=1)["error"] == "not_remote"  # the player resigns at the board
    assert b.ok("resign", side=2)["result"] == "B+R"
    assert rig.match.phase == OVER
    # The record: the moves that stand (D4 alone), the undos kept.
    recs = b.records()
    assert [r[1] for r in recs if r[0] == R.EDIT].count(9) == 2
    assert [m[2] for m in standing({"records": recs, "moves": []})] == [b.code("D4")]


def test_the_remote_side_s_paddle_is_the_board_s():
    b = _go9(remote=2)
    rig = b.rig
    b.ok("start")
    rig.put("C3", "b")
    rig.press("b")
    rig.put("E5", "w")  # a white stone down before the PC said anything
    rig.press("w")  # the player presses White's paddle: ignored, White's move is the PC's
    assert rig.match.game.ply == 1
    rig.lift("E5")
    b.ok("move", ply=1, point=b.code("E5"))
    rig.put("E5", "w")
    assert rig.match.game.ply == 2


def test_refusals_say_why():
    b = _go9(remote=2)
    rig = b.rig
    assert b.ask("move", ply=0, point=0)["error"] == "not_your_turn"  # not started
    b.ok("start")
    assert b.ask("start")["ok"]  # asked again at once: the same game
    assert b.ask("move", ply=0, point=0)["error"] == "not_your_turn"  # Black's turn
    rig.put("C3", "b")
    rig.press("b")
    r = b.ask("move", ply=1, point=b.code("C3"))
    assert r["error"] == "illegal" and "taken" in r["message"], r
    assert b.ask("move", ply=5, point=0)["error"] == "bad_ply"
    assert b.ask("move", ply=1, point=9 << 5 | 9)["error"] == "illegal"  # off a 9x9 board
    assert b.ask("start")["error"] == "in_progress"
    assert b.ask("undo", ply=0)["ok"]
    plain = Board({"game": "go", "size": 9, "time": "quick"})
    plain.ok("start")
    plain.rig.put("C3", "b")
    plain.rig.press("b")
    assert plain.ask("move", ply=1, point=0)["error"] == "not_remote"
    assert plain.ask("undo", ply=0)["error"] == "not_remote"


def test_start_waits_for_a_clear_board_and_a_finished_game_makes_the_next():
    b = _go9(remote=1)
    rig = b.rig
    rig.put("A1", "w")
    r = b.ask("start")
    assert r["error"] == "not_clear" and "A1" in r["message"]
    rig.run(100)
    assert rig.seen("b") == "CLR.  1 A1"  # the point to clear, how many are left
    rig.lift("A1")
    b.ok("start")
    b.ok("move", ply=0, point=b.code("E5"))  # the remote plays Black: White's face says it
    rig.run(100)
    assert rig.seen("w") == "B E5"
    rig.put("E5", "b")
    assert rig.match.game.ply == 1 and rig.match.clock.running == 2
    b.ok("resign", side=1)
    first = b.journal.games()[-1][0]
    rig.lift("E5")
    assert b.ok("start")["game_no"] == first + 1
    # Begun, no move yet, and the PC changes the game (a GTP boardsize): that game is kept as
    # Void and the new one starts.
    b.ok("settings", set={"size": 13})
    r = b.ok("start")
    assert r["game_no"] == first + 2 and rig.match.game.board.size == 13
    assert b.journal.records(first + 1)[-1][0] == R.RESULT
    assert b.ask("start")["game_no"] == first + 2  # asked again: the same game


def test_start_names_the_stones_outside_a_smaller_game_too():
    # ... and the PC follows the points to clear: the link's state, the watch's events.
    b = _go9(remote=1)
    rig = b.rig
    b.ok("watch", on=True)
    rig.grid.put(0, 0, 1)  # the grid's corner: outside the 9x9 game
    rig.put("C3", "w")
    rig.run(300)
    assert b.ok("state")["clear"] is None  # nothing named before PAUSE is refused
    r = b.ask("start")
    assert r["error"] == "not_clear", r
    assert r["message"] == "clear the board first: C3 and 1 stone outside the game's area"
    rig.run(100)
    assert rig.seen("b") == "CLR.  2 C3"
    assert b.ok("state")["clear"] == {"points": [b.code("C3")], "outside": 1}

    def cleared():
        b.srv.poll()
        return [(e["points"], e["outside"]) for e in b.events if e["event"] == "clear"]

    assert cleared() == [([b.code("C3")], 1)]
    rig.lift("C3")
    assert cleared()[-1] == ([], 1)
    assert b.ask("start")["message"] == "clear the board first: 1 stone outside the game's area"
    rig.grid.lift(0, 0)
    rig.run(300)
    assert cleared()[-1] == ([], 0)  # done: the faces say OK
    b.ok("start")
    assert rig.match.clock.state == 1 and not rig.app.clearing


def test_renju_remote_move_sits_in_the_middle_of_the_grid():
    b = Board({"game": "renju", "opening": "free", "time": "renju-rif", "remote": 1})
    rig = b.rig
    b.ok("start")
    h8 = 7 << 5 | 7  # 天元 of the 15x15 game
    b.ok("move", ply=0, point=h8)
    rig.run(100)
    assert rig.seen("w") == "B H8"
    assert say.point_name(h8, True) == "H8"
    rig.grid.put(9, 9, 1)  # the grid's middle
    rig.run(200)
    assert rig.match.game.ply == 1
    rig.put("H9", "w")
    rig.press("w")
    assert b.ok("move", ply=2, point=8 << 5 | 8)["placed"] is False
    rig.put("I9", "b")
    assert rig.match.game.ply == 3


def test_a_time_spec_from_the_pc_is_the_game_s_clock():
    b = _go9(remote=2, time="byoyomi/600/5/30")
    b.ok("start")
    c = b.rig.match.clock
    assert c.control.kind == 3 and c.control.main_ms == 600000 and c.control.periods == 5
    assert b.journal and b.journal.game_no
    r = b.ask("settings", set={"time": "byoyomi/600/5/3"})  # periods of 10-60 s
    assert not r["ok"] and "spec" in r["message"]


# ---- Go's end against an engine: its dead stones, its answer to the count -------------------


def _to_two_passes(b):
    # B C3, W G7, B G6 (inside White's corner: the engine calls it dead), B and W pass.
    rig = b.rig
    b.ok("start")
    rig.put("C3", "b")
    rig.press("b")
    b.ok("move", ply=1, point=b.code("G7"))
    rig.put("G7", "w")
    rig.put("G6", "b")
    rig.press("b")
    b.ok("move", ply=3, point=b.code("E5"))
    rig.put("E5", "w")
    rig.press("b")  # Black passes
    assert b.ok("move", ply=5, point=1023)["placed"]  # White (the engine) passes
    st = b.ok("state")
    assert st["phase"] == "dead stones" and st["count_no"] == 0
    b.rig.run(1600)


def test_the_engine_s_dead_stones_are_named_until_lifted_and_its_agreement_confirms():
    from firmware.ui import texts as T

    b = _go9(remote=2)
    rig = b.rig
    assert b.ask("dead", points=[b.code("G6")])["error"] == "not_now"  # not before the end
    _to_two_passes(b)
    assert b.ask("dead", points=[b.code("D4")])["error"] == "not_a_stone"
    assert b.ok("dead", points=[b.code("G6"), b.code("C3")])["dead"]
    rig.run(1600)  # the PASS said, then the dead stones
    # The player's face names them one at a time (in the engine's order), how many left.
    assert rig.seen("b") == "%s 2 G6" % T.LIFT_DEAD
    assert rig.seen("w").startswith("DEAD")  # the engine's own face: the phase
    rig.lift("G6")
    assert rig.seen("b") == "%s 1 C3" % T.LIFT_DEAD
    rig.lift("C3")
    assert rig.seen("b") == "DEAD 2"  # all lifted: the count of them, then MODE
    rig.key("mode")
    st = b.ok("state")
    assert st["phase"] == "counted" and st["count_no"] == 1
    assert sorted(st["dead"]) == sorted([b.code("G6"), b.code("C3")])
    rig.press("w")  # the engine's paddle: its confirmation is the PC's now
    rig.press("b")
    assert rig.match.confirmed == 1 and not rig.match.result
    rig.run(3000)  # the OK said, then the count
    assert rig.seen("b").endswith(" " + T.OK) and rig.seen("w").endswith(" " + T.ASK)
    assert b.ask("confirm", count_no=0, agree=True)["error"] == "stale"
    r = b.ok("confirm", count_no=1, agree=True, margin4=st["margin4"])
    assert r["result"] == rig.match.result != "" and rig.match.phase == OVER
    assert b.ok("confirm", count_no=1, agree=True)["result"] == r["result"]  # asked again
    recs = b.records()
    proposed = [r for r in recs if r[0] == R.INCIDENT and r[1] == inc.REMOTE_DEAD]
    assert [sorted(p[4]) for p in proposed] == [sorted([b.code("G6"), b.code("C3")])]
    assert not [r for r in recs if r[0] == R.INCIDENT and r[1] == inc.COUNT_DIFFERS]


def test_a_count_the_engine_does_not_share_is_said_and_kept_then_mended():
    from firmware.ui import texts as T

    b = _go9(remote=2)
    rig = b.rig
    _to_two_passes(b)
    b.ok("dead", points=[b.code("G6")])
    rig.lift("C3")  # the player lifts another stone than the engine's
    rig.key("mode")
    st = b.ok("state")
    rig.heard()
    assert b.ok("confirm", count_no=1, agree=False, margin4=-40)["result"] == ""
    rig.run(100)
    word, small, _ = say.incident(inc.COUNT_DIFFERS, [b.code("G6")], 0, False)
    assert rig.seen("b") == rig.seen("w") == "%s %s" % (word, small) == "DIFFER G6"
    assert "REFUSE" in rig.heard()
    rig.run(3000)
    assert rig.seen("w").endswith(" " + T.NO)  # the engine's face: its NO to this count
    rig.press("b")
    assert not rig.match.result  # the player alone cannot end it
    recs = b.records()
    [differs] = [r for r in recs if r[0] == R.INCIDENT and r[1] == inc.COUNT_DIFFERS]
    assert list(differs[4]) == [b.code("G6"), b.code("C3")] and differs[5] == -40
    assert st["margin4"] != -40
    # Mended: C3 back, G6 lifted, MODE again: a new count, which the engine shares.
    rig.put("C3", "b")
    rig.lift("G6")
    rig.key("mode")
    st = b.ok("state")
    assert st["count_no"] == 2 and st["dead"] == [b.code("G6")]
    b.ok("confirm", count_no=2, agree=True)
    assert not rig.match.result  # the player's paddle is still to come
    rig.press("b")
    assert rig.match.phase == OVER and rig.match.result


def test_a_dispute_sends_play_on_and_the_next_end_asks_the_engine_again():
    b = _go9(remote=2)
    rig = b.rig
    _to_two_passes(b)
    b.ok("dead", points=[b.code("G6")])
    rig.key("pause")  # 以实战解决
    st = b.ok("state")
    assert st["phase"] == "play" and st["to_move"] == 1 and not st["result"]
    assert b.ask("confirm", count_no=1, agree=True)["error"] == "not_remote"
    rig.put("D6", "b")
    rig.press("b")
    assert b.ok("state")["ply"] == 7
    b.ok("move", ply=7, point=1023)
    rig.press("b")
    st = b.ok("state")
    assert st["phase"] == "dead stones"
    rig.key("mode")  # no proposal this time: the paddles confirm as before
    rig.press("b")
    rig.press("w")
    assert rig.match.phase == OVER
