"""``tengen play``'s parts with fakes only: the engines' clients (host_tools/play/engines.py) against
small engines written here as Python scripts that speak GTP and the Gomocup protocol, and the
match loop (host_tools/play/play.py) against a fake BoardPlayer that keeps a game in memory.

The coordinate edge is the point: GTP's Q16 is (15, 15), Gomocup's 7,0 the TOP row (y 14 on
15x15). Real engines (GNU Go) against the virtual board are the journeys' business.
"""

import json
import sys

import pytest
from typer.testing import CliRunner

from firmware.clock import control as C
from firmware.rules.gomoku import PASS, point
from host_tools.play import engines as E
from host_tools.play import play as P
from host_tools.play.board_player import BoardError, GameOver, Illegal

BLACK, WHITE = 1, 2

# ---- fake engines ----------------------------------------------------------------------------

# A GTP engine: plays the moves of its script for genmove, logs every command to a file.
GTP_ENGINE = r"""
import json, sys
cfg = json.load(open(sys.argv[1]))
moves = list(cfg["moves"])
logf = open(cfg["log"], "a")
FIXED = {2: "C3 G7", 9: "C3 G7 C7 G3 C5 G5 E3 E7 E5"}
while True:
    line = sys.stdin.readline()
    if not line:
        break
    cmd = line.split()
    if not cmd:
        continue
    logf.write(line.strip() + "\n"); logf.flush()
    name = cmd[0]
    ok = lambda text="": sys.stdout.write("= %s\n\n" % text)
    if name in cfg.get("fail", []):
        sys.stdout.write("? %s failed\n\n" % name)
    elif name == "crash" or name in cfg.get("crash", []):
        sys.exit(3)
    elif name == "name":
        ok(cfg.get("name", "FakeGo"))
    elif name == "version":
        ok(cfg.get("version", "1.0"))
    elif name == "list_commands":
        ok("\n".join(cfg.get("commands", ["name", "version", "genmove", "play"])))
    elif name == "fixed_handicap":
        ok(cfg.get("handicap") or FIXED[int(cmd[1])])
    elif name == "genmove":
        ok(moves.pop(0))
    elif name == "final_score":
        ok(cfg.get("score", "B+3.5"))
    elif name == "final_status_list":
        ok(cfg.get("dead", ""))
    elif name == "quit":
        ok(); sys.stdout.flush(); break
    elif name == "hang":
        sys.stdout.flush(); import time; time.sleep(3600)
    else:
        ok()
    sys.stdout.flush()
"""

# A Gomocup brain: START/INFO/ABOUT/BEGIN/TURN/BOARD/END; moves from its script, each after a
# MESSAGE and a DEBUG line (a manager must pass over them); "ERROR" in the script answers so.
BRAIN = r"""
import json, sys
cfg = json.load(open(sys.argv[1]))
moves = list(cfg["moves"])
logf = open(cfg["log"], "a")
def say(text):
    sys.stdout.write(text + "\n"); sys.stdout.flush()
def move():
    m = moves.pop(0)
    if m.startswith("ERROR"):
        say(m); return
    say("MESSAGE thinking about " + m); say("DEBUG depth 1"); say(m)
while True:
    line = sys.stdin.readline()
    if not line:
        break
    line = line.strip()
    logf.write(line + "\n"); logf.flush()
    word = line.split(" ")[0]
    if word == "START":
        say("OK")
    elif word == "ABOUT":
        say('name="fakebrain", version="0.1", author="tests", country="XX"')
    elif word in ("BEGIN", "TURN", "DONE"):
        move()
    elif word == "END":
        break
    elif word in ("INFO", "BOARD") or "," in line:
        pass
    else:
        say("UNKNOWN " + line)
"""


def _engine(tmp_path, script, file, **cfg):
    """The command of a fake engine with ``cfg``; its command log is ``tmp_path/file.log``."""
    cfg.setdefault("moves", [])
    cfg["log"] = str(tmp_path / (file + ".log"))
    (tmp_path / (file + ".py")).write_text(script)
    (tmp_path / (file + ".json")).write_text(json.dumps(cfg))
    return '"%s" "%s" "%s"' % (
        sys.executable,
        tmp_path / (file + ".py"),
        tmp_path / (file + ".json"),
    )


def _log(tmp_path, name):
    return (tmp_path / (name + ".log")).read_text().splitlines()


# ---- the fake board --------------------------------------------------------------------------


class FakeBoard:
    """BoardPlayer's API over a game in memory: the player's moves come from ``script`` (a
    point code, or a result string: the game ends so); ``results`` {ply: result} ends the game
    after that many moves (a five); ``refuse`` points the board refuses for the remote."""

    def __init__(self, link, settings, script=(), results=None, refuse=(), ends=()):
        self.link = link
        self.ends = list(ends)  # what wait_end says in turn after two passes (Go)
        self.proposed = None
        self.answers = []
        self.s = dict(settings)
        self.script = list(script)
        self.results = dict(results or {})
        self.refuse = set(refuse)
        self.moves = []
        self.to_move = BLACK
        self.result = ""
        self.started = None
        self.resigned = None
        self.closed = False

    def settings(self, **changes):
        self.s.update(changes)
        return dict(self.s)

    def state(self):
        return {
            "to_move": self.to_move,
            "ply": len(self.moves),
            "result": self.result,
            "clock": {"clocks": [600000, 0, 540000, 0]},
        }

    def new_game(self, remote, **settings):
        self.settings(remote=remote, **settings)
        self.started = dict(self.s)
        self.to_move = WHITE if self.s.get("handicap", 0) >= 2 else BLACK

    def _commit(self, colour, p):
        assert colour == self.to_move
        self.moves.append((colour, p))
        self.to_move = WHITE if colour == BLACK else BLACK
        self.result = self.results.get(len(self.moves), "")

    def play(self, colour, p):
        assert colour == self.s["remote"]
        if self.result:
            raise GameOver(self.result)
        if p in self.refuse:
            raise Illegal("illegal", "forbidden")
        self._commit(colour, p)

    def wait_move(self, colour):
        assert colour != self.s["remote"]
        step = self.script.pop(0)
        if isinstance(step, str):
            self.result = step
            raise GameOver(step)
        self._commit(colour, step)
        return step

    def resign(self, colour):
        assert colour == self.s["remote"]
        self.resigned = colour
        self.result = "%s+R" % ("W" if colour == BLACK else "B")

    def propose_dead(self, points):
        self.proposed = list(points)

    def wait_end(self, answered=0):
        if not self.ends:
            raise BoardError("timeout", "no count within 1 s")
        end = self.ends.pop(0)
        if end["phase"] == "over":
            self.result = end["result"]
        elif end["phase"] == "counted":
            assert end["count_no"] > answered
        return end

    def answer_count(self, count_no, agree, margin4=None):
        self.answers.append((count_no, agree, margin4))
        return {"result": "", "confirmed": 1}

    def close(self):
        self.closed = True


GO9 = {"game": "go", "size": 9, "komi2": 13, "handicap": 0, "time": "quick", "remote": 0}
RENJU = {"game": "renju", "size": 15, "komi2": 0, "handicap": 0, "time": "renju-rif", "remote": 0}


def _run(board, cmd, lines, **kw):
    return P.run(object(), cmd, say=lines.append, player_factory=lambda link: board, **kw)


# ---- the coordinate edge -----------------------------------------------------------------------


def test_gtp_vertices_count_rows_from_the_bottom():
    assert E.gtp_point("Q16", 19) == point(15, 15)
    assert E.gtp_vertex(point(15, 15)) == "Q16"
    assert E.gtp_point("A1", 9) == point(0, 0)
    assert E.gtp_point("J9", 9) == point(8, 8)  # no I column
    assert E.gtp_point("pass", 19) == PASS and E.gtp_vertex(PASS) == "pass"
    with pytest.raises(E.EngineError):
        E.gtp_point("K10", 9)


def test_gomocup_rows_count_from_the_top():
    assert E.gomocup_point("7,0", 15) == point(7, 14)  # the TOP row
    assert E.gomocup_point("0,14", 15) == point(0, 0)
    assert E.gomocup_xy(point(7, 14), 15) == "7,0"
    assert E.gomocup_xy(point(3, 2), 15) == "3,12"
    for bad in ("15,0", "7", "a,b", ""):
        with pytest.raises(E.EngineError):
            E.gomocup_point(bad, 15)


# ---- time --------------------------------------------------------------------------------------


def test_time_setting_presets_and_specs():
    assert E.time_control("quick") is C.PRESETS["quick"]
    tc = E.time_control("byoyomi/600/5/30")
    assert (tc.kind, tc.main_ms, tc.periods, tc.period_ms) == (C.JAPANESE, 600000, 5, 30000)
    tc = E.time_control("canadian/3600/25/600")
    assert (tc.kind, tc.moves, tc.period_ms) == (C.CANADIAN, 25, 600000)
    assert E.time_control("fischer/1800/30").increment_ms == 30000
    assert E.time_control("absolute/900").kind == C.ABSOLUTE
    for bad in ("nope", "absolute", "byoyomi/1/2", "fischer/a/b", "absolute/-5"):
        with pytest.raises(ValueError):
            E.time_control(bad)


def test_engines_are_told_the_time():
    assert E.gtp_time(E.time_control("quick")) == ((600, 30, 1), ("byoyomi", 600, 30, 3))
    assert E.gtp_time(E.time_control("canadian/3600/25/600")) == (
        (3600, 600, 25),
        ("canadian", 3600, 600, 25),
    )
    assert E.gtp_time(E.time_control("absolute/900")) == ((900, 0, 0), ("absolute", 900))
    assert E.gtp_time(E.time_control("fischer/1800/30")) == ((1800, 30, 1), None)
    assert E.gomocup_time(E.time_control("renju-rif")) == {
        "timeout_match": 3600000,
        "timeout_turn": 30000,
    }
    assert E.gomocup_time(E.time_control("renju-stages")) == {"timeout_match": 3 * 3600000}


# ---- the clients -------------------------------------------------------------------------------


def test_gtp_client(tmp_path):
    cmd = _engine(
        tmp_path,
        GTP_ENGINE,
        "gtp",
        moves=["Q16", "pass", "resign"],
        name="GNU Go",
        version="3.8",
        commands=["kgs-time_settings", "genmove"],
    )
    with E.GtpEngine(cmd) as g:
        assert g.full_name() == "GNU Go 3.8"
        g.boardsize(19)
        g.komi(13)
        g.time_settings(E.time_control("quick"))
        g.play(BLACK, point(3, 3))
        assert g.genmove(WHITE) == point(15, 15)
        assert g.genmove(BLACK) == PASS
        assert g.genmove(WHITE) == E.RESIGN
    assert g.p.proc.poll() is not None  # quit ended it
    log = _log(tmp_path, "gtp")
    assert "komi 6.5" in log and "play b D4" in log
    assert "kgs-time_settings byoyomi 600 30 3" in log and log[-1] == "quit"


def test_gtp_handicap_follows_the_board(tmp_path):
    # The engine puts its stones on C3 G7 whatever the size: right on 9x9; on 19x19 the
    # board's D4 Q16 are sent with set_free_handicap instead.
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", handicap="C3 G7")
    with E.GtpEngine(cmd) as g:
        g.boardsize(9)
        assert g.handicap(2) == [point(2, 2), point(6, 6)]
        g.boardsize(19)
        assert g.handicap(2) == [point(3, 3), point(15, 15)]
    log = _log(tmp_path, "gtp")
    assert [line for line in log if "handicap" in line] == [
        "fixed_handicap 2",
        "fixed_handicap 2",
        "set_free_handicap D4 Q16",
    ]


def test_gtp_errors(tmp_path, monkeypatch):
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", fail=["play"])
    with E.GtpEngine(cmd) as g:
        with pytest.raises(E.EngineError, match="play: play failed"):
            g.play(BLACK, point(0, 0))
        with pytest.raises(E.EngineError, match="exited"):
            g.send("crash")
    # An engine that never answers: the command times out; close still ends it.
    monkeypatch.setattr(E, "QUIT_TIMEOUT", 0.5)
    g = E.GtpEngine(cmd, timeout=0.5)
    with pytest.raises(E.EngineError, match="no answer"):
        g.send("hang")
    g.close()
    assert g.p.proc.poll() is not None
    with pytest.raises(E.EngineError, match="cannot start"):
        E.GtpEngine(str(tmp_path / "no-such-engine"))


def test_gomocup_client(tmp_path):
    cmd = _engine(tmp_path, BRAIN, "brain", moves=["7,7", "7,0", "ERROR no move"])
    with E.GomocupBrain(cmd) as b:
        assert b.full_name() == "fakebrain 0.1"
        b.start(15)
        b.rule("renju")
        assert b.begin() == point(7, 7)
        assert b.turn(point(7, 14)) == point(7, 14)  # sent as 7,0; answered 7,0: the top row
        assert b.messages == ["thinking about 7,7", "thinking about 7,0"]
        with pytest.raises(E.EngineError, match="ERROR no move"):
            b.turn(point(0, 0))
        with pytest.raises(E.EngineError, match="UNKNOWN"):
            b.send("NONSENSE")
    log = _log(tmp_path, "brain")
    assert log[:5] == ["ABOUT", "START 15", "INFO rule 4", "BEGIN", "TURN 7,0"]
    assert log[-1] == "END"


# ---- the match loop ----------------------------------------------------------------------------


def test_go_game_to_the_count(tmp_path):
    # Two passes: the engine's dead stones go to the board; the player's first count (C3
    # left on the board) is not the engine's, said so; the second (C3 lifted) is; the result
    # is the board's once both confirmed.
    cmd = _engine(
        tmp_path,
        GTP_ENGINE,
        "gtp",
        moves=["E5", "pass"],
        name="GNU Go",
        version="3.8",
        score="W+2.5",
        dead="C3",
        commands=["kgs-time_settings"],
    )
    ends = [
        {"phase": "counted", "count_no": 1, "margin4": 7, "dead": []},
        {"phase": "counted", "count_no": 2, "margin4": -5, "dead": [point(2, 2)]},
        {"phase": "over", "result": "W+2.5"},
    ]
    board = FakeBoard(None, GO9, script=[point(2, 2), PASS], ends=ends)
    lines = []
    out = _run(board, cmd, lines)
    assert out["error"] is None
    assert board.started["remote"] == WHITE and board.started["white"] == "GNU Go 3.8"
    assert out["moves"] == [
        [BLACK, point(2, 2)],
        [WHITE, point(4, 4)],
        [BLACK, PASS],
        [WHITE, PASS],
    ]
    assert board.moves == [tuple(m) for m in out["moves"]]
    assert board.proposed == [point(2, 2)] and out["engine_dead"] == [point(2, 2)]
    assert board.answers == [(1, False, -5), (2, True, -5)]
    assert out["result"] == "W+2.5" and out["engine_score"] == "W+2.5"
    assert out["count"] == {"margin4": -5, "dead": [point(2, 2)], "agreed": True}
    assert lines == [
        "engine: GNU Go 3.8 plays white",
        "B C3",
        "W E5",
        "B pass",
        "W pass",
        "engine_dead: C3",
        "engine_score: W+2.5",
        "count: B+3.5",
        "engine disagrees: it counts W+2.5 (lifted none; it calls dead C3)",
        "count: W+2.5",
        "engine agrees: waiting for the player to confirm",
        "result: W+2.5",
    ]
    log = _log(tmp_path, "gtp")
    assert log[:5] == ["name", "version", "boardsize 9", "clear_board", "komi 6.5"]
    assert "kgs-time_settings byoyomi 600 30 3" in log
    assert "play b C3" in log and "play b pass" in log and "time_left w 540 0" in log
    assert "final_status_list dead" in log
    assert board.closed and log[-1] == "quit"
    json.dumps(out)  # --json prints it


def test_the_same_dead_stones_agree_whatever_the_engine_s_own_scoring(tmp_path):
    # An engine scoring by territory (GNU Go without --chinese-rules) may say W+1.5 where the
    # board's area count says W+2.5: the same stones lifted, the engine agrees.
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["E5", "pass"], dead="C3", score="W+1.5")
    ends = [
        {"phase": "counted", "count_no": 1, "margin4": -5, "dead": [point(2, 2)]},
        {"phase": "over", "result": "W+2.5"},
    ]
    board = FakeBoard(None, GO9, script=[point(2, 2), PASS], ends=ends)
    out = _run(board, cmd, [])
    assert board.answers == [(1, True, -3)] and out["result"] == "W+2.5"
    assert P.margin4_of("W+86.5") == -173 and P.margin4_of("B+3") == 6
    assert P.margin4_of("0") == 0 and P.margin4_of("nonsense") is None


def test_a_dispute_sends_play_on_and_the_next_passes_end_it(tmp_path):
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["E5", "pass", "pass"], dead="C3")
    ends = [{"phase": "play"}, {"phase": "over", "result": "B+1.5"}]
    board = FakeBoard(None, GO9, script=[point(2, 2), PASS, point(3, 3), PASS], ends=ends)
    lines = []
    out = _run(board, cmd, lines)
    assert out["error"] is None and out["result"] == "B+1.5"
    played = [m[1] for m in out["moves"]]
    assert played == [point(2, 2), point(4, 4), PASS, PASS, point(3, 3), PASS, PASS]
    assert "count disputed at the board: play goes on" in lines
    log = _log(tmp_path, "gtp")
    # The engine keeps the two passes, as the board's record does, and plays on after them.
    assert log.count("final_status_list dead") == 2
    k = log.index("play b D4")
    assert "play b pass" in log[:k] and "final_status_list dead" in log[:k]


def test_an_engine_without_dead_stones_and_a_game_left_without_a_result(tmp_path):
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["E5", "pass"], fail=["final_status_list"])
    ends = [{"phase": "counted", "count_no": 1, "margin4": 7, "dead": []}]
    board = FakeBoard(None, GO9, script=[point(2, 2), PASS], ends=ends)
    lines = []
    out = _run(board, cmd, lines)
    # The board's paddles confirm for both then; nothing is answered for the engine.
    assert board.proposed is None and board.answers == []
    assert any(line.startswith("engine: no dead stones") for line in lines)
    # The wait ran out of ends here: a game with no result is an error, never a result.
    assert out["result"] is None and out["error"] == "timeout: no count within 1 s"


def test_a_game_over_at_the_board_without_a_result_is_an_error(tmp_path):
    # The board says the game is over but names no result (voided from elsewhere, say):
    # tengen play reports no result, and says so.
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["E5", "pass"], fail=["final_status_list"])
    ends = [{"phase": "over", "result": ""}]
    board = FakeBoard(None, GO9, script=[point(2, 2), PASS], ends=ends)
    lines = []
    out = _run(board, cmd, lines)
    assert out["result"] is None or out["result"] == ""
    assert out["error"] == "the game ended without a result at the board"
    assert lines[-1] == "error: the game ended without a result at the board"


def test_go_engine_black_with_handicap_and_resign(tmp_path):
    # The board's remote setting names Black; with handicap White (the player) moves first.
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["G3", "resign"])
    board = FakeBoard(None, dict(GO9, handicap=2, remote=BLACK), script=[point(4, 4), point(5, 5)])
    lines = []
    out = _run(board, cmd, lines)
    assert out["colour"] == "black" and board.started["black"] == "FakeGo 1.0"
    assert out["moves"] == [[WHITE, point(4, 4)], [BLACK, point(6, 2)], [WHITE, point(5, 5)]]
    assert board.resigned == BLACK and out["result"] == "W+R"
    assert lines[-2:] == ["B resigns", "result: W+R"]
    assert "fixed_handicap 2" in _log(tmp_path, "gtp")


def test_player_resigns_at_the_board(tmp_path):
    cmd = _engine(tmp_path, GTP_ENGINE, "gtp", moves=["E5"])
    board = FakeBoard(None, GO9, script=[point(2, 2), "W+R"])
    out = _run(board, cmd, [], colour="white")
    assert out["result"] == "W+R" and out["error"] is None and len(out["moves"]) == 2


def test_renju_brain_black_to_a_five(tmp_path):
    # The brain is Black: BEGIN, then TURN with each of the player's moves; its 7,0 is the
    # top row. The board says the game is over after Black's third move (a five, say).
    cmd = _engine(tmp_path, BRAIN, "brain", moves=["7,7", "7,0", "8,8"])
    board = FakeBoard(None, RENJU, script=[point(6, 6), point(0, 0)], results={5: "B+"})
    lines = []
    out = _run(board, cmd, lines, colour="black")
    assert out["error"] is None and out["result"] == "B+"
    assert board.started["opening"] == "free" and board.started["black"] == "fakebrain 0.1"
    assert out["moves"] == [
        [BLACK, point(7, 7)],
        [WHITE, point(6, 6)],
        [BLACK, point(7, 14)],
        [WHITE, point(0, 0)],
        [BLACK, point(8, 6)],
    ]
    assert lines[1:6] == ["B H8", "W G7", "B H15", "W A1", "B I7"]
    log = _log(tmp_path, "brain")
    assert log[:2] == ["ABOUT", "START 15"]
    assert "INFO rule 4" in log and "INFO timeout_turn 30000" in log
    turns = [line for line in log if line.startswith(("BEGIN", "TURN"))]
    assert turns == ["BEGIN", "TURN 6,8", "TURN 0,14"]
    assert log[-1] == "END"


def test_gomoku_brain_white_and_the_players_pass(tmp_path):
    # The player (Black) passes: Gomocup has none, so the brain gets the whole BOARD.
    cmd = _engine(tmp_path, BRAIN, "brain", moves=["6,6", "5,5"])
    board = FakeBoard(None, dict(RENJU, game="freestyle"), script=[point(7, 7), PASS, "B+"])
    out = _run(board, cmd, [])
    assert out["colour"] == "white" and out["result"] == "B+"
    log = _log(tmp_path, "brain")
    assert "INFO rule 0" in log and "TURN 7,7" in log
    k = log.index("BOARD")
    assert log[k : k + 4] == ["BOARD", "7,7,2", "6,6,1", "DONE"]


def test_engine_errors_end_the_match(tmp_path):
    cmd = _engine(tmp_path, BRAIN, "brain", moves=["ERROR cannot think"])
    board = FakeBoard(None, RENJU, script=[])
    lines = []
    out = _run(board, cmd, lines, colour="black")
    assert "ERROR cannot think" in out["error"] and lines[-1].startswith("error: ")
    assert board.closed

    cmd = _engine(tmp_path, GTP_ENGINE, "gtp2", moves=["E5"], crash=["play"])
    out = _run(FakeBoard(None, GO9, script=[point(2, 2)]), cmd, [])
    assert "exited" in out["error"]

    cmd = _engine(tmp_path, GTP_ENGINE, "gtp3", moves=["E5"])
    out = _run(FakeBoard(None, GO9, refuse=[point(4, 4)]), cmd, [], colour="black")
    assert out["error"].startswith("the board refused the engine's move")


def test_wrong_options():
    board = FakeBoard(None, GO9)
    with pytest.raises(P.PlayError):
        _run(board, "true", [], colour="purple")
    with pytest.raises(P.PlayError):
        _run(board, "true", [], protocol="gomocup")
    with pytest.raises(P.PlayError):
        _run(FakeBoard(None, RENJU), "true", [], protocol="gtp")


def test_cli_play(tmp_path, monkeypatch):
    from host_tools.cli import app

    seen = {}

    def fake_run(port, engine, colour, protocol, say=None):
        seen.update(port=port, engine=engine, colour=colour, protocol=protocol)
        (say or print)("engine: X plays white")
        return {"engine": "X", "colour": "white", "moves": [], "result": "B+R", "error": None}

    monkeypatch.setattr(P, "run", fake_run)
    r = CliRunner().invoke(
        app, ["play", "--engine", "gnugo --mode gtp", "--port", "/dev/x", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.splitlines()[-1])["result"] == "B+R"
    assert seen == {
        "port": "/dev/x",
        "engine": "gnugo --mode gtp",
        "colour": None,
        "protocol": "auto",
    }
    monkeypatch.undo()  # the real run: a wrong colour exits 2 before the port is opened
    r = CliRunner().invoke(
        app, ["play", "--engine", "x", "--port", str(tmp_path), "--colour", "red"]
    )
    assert r.exit_code == 2
