"""host_tools/play/gtp_board.py (``tengen gtp --board``) and host_tools/play/board_player.py against a
fake board: an in-memory stand-in for the board's link that keeps a game of Go by the rules,
commits a remote stone a few ``state`` polls after it was sent (the player putting it down)
and plays the scripted moves of the player at the board. The same fake answers over a
pseudo-terminal for the installed ``tengen gtp --board`` started from another folder.
"""

import io
import json
import os
import select
import subprocess
import sys
import threading
import tty
from pathlib import Path

import pytest

from firmware.game import settings as S
from firmware.rules.coords import parse_vertex
from firmware.rules.go import Game, fixed_handicap
from firmware.rules.go_count import result_sgf
from host_tools.common.link import LinkError
from host_tools.play.board_player import PASS, BoardPlayer, GameOver, Illegal
from host_tools.play.gtp_board import Engine, serve

BIN = Path(sys.executable).parent
TENGEN = BIN / "tengen"


def code(v, size=19):
    """The point code of a GTP vertex."""
    xy = parse_vertex(v, size)
    return PASS if xy is None else xy[1] << 5 | xy[0]


class FakeBoard:
    """The board's link as the contract says it, in memory. ``human``: the points the player
    at the board plays, in order, each ``delay`` polls after its turn came; ``place_after``:
    polls before a remote stone is on the board; ``count``: (margin4, dead points) the
    players agree on after two passes."""

    def __init__(self, human=(), delay=3, place_after=3, not_clear=0, count=(0, ())):
        self.settings = S.apply(S.DEFAULTS, {})[0]
        self.human = list(human)
        self.delay = delay
        self.place_after = place_after
        self.not_clear = not_clear  # `start` refused this many times (stones to lift)
        self.count = count
        self.sent = []  # every request: (cmd, fields)
        self.polls = 0
        self.game = None
        self.game_no = 0
        self.remote = 0
        self.result = ""
        self.phase = "play"
        self.expect = -1
        self.wait = 0  # polls left before the pending stone / the human's move
        self.margin4 = None
        self.dead = []
        self.clock_said = []
        self.watching = False

    # ---- the link ------------------------------------------------------------------------

    def request(self, cmd, **fields):
        self.sent.append((cmd, fields))
        method = getattr(self, "cmd_" + cmd, None)
        if method is None:
            raise LinkError("unknown_cmd", cmd)
        return method(**fields)

    def read_event(self, timeout):
        return None

    # ---- commands ------------------------------------------------------------------------

    def cmd_hello(self):
        return {"name": "tengen", "fw": "9.8.7", "board": "fake"}

    def cmd_time(self, epoch=None):
        return {"epoch": epoch}

    def cmd_watch(self, on=True):
        self.watching = on
        return {"watching": on}

    def cmd_settings(self, set=None):
        if set:
            new, errors = S.apply(self.settings, set)
            if errors:
                raise LinkError("bad_value", errors[0])
            self.settings = new
        return {"settings": {k: v for k, v in self.settings.items() if k != "pin"}}

    def cmd_start(self):
        if self.game is not None and self.game.ply and not self.result:
            raise LinkError("in_progress", "a game is being played")
        if self.not_clear:
            self.not_clear -= 1
            raise LinkError("not_clear", "lift the stones")
        s = self.settings
        self.game = Game(s["size"] if s["game"] == "go" else 15)
        if s["handicap"] >= 2:
            self.game.place_handicap(fixed_handicap(self.game.size, s["handicap"]))
        self.remote = s["remote"]
        self.result = ""
        self.phase = "play"
        self.expect = -1
        self.margin4 = None
        self.dead = []
        self.game_no += 1
        self.wait = self.delay
        return {"started": True, "game_no": self.game_no}

    def cmd_move(self, ply, point):
        g = self.game
        if g is None or not self.remote:
            raise LinkError("not_remote", "no remote side")
        if ply == g.ply - 1 and self._point(ply) == point:
            return {"placed": True}  # asked again: committed already
        if self.result or g.to_move != self.remote:
            raise LinkError("not_your_turn", "not the remote's turn")
        if ply != g.ply:
            raise LinkError("bad_ply", "ply %d" % g.ply)
        if point == PASS:
            self._commit(PASS)
            return {"placed": True}
        x, y = point & 31, point >> 5
        if g.legal(self.remote, x, y):
            raise LinkError("illegal", "taken" if g.board.color_at(x, y) else "ko or suicide")
        self.expect = point
        self.wait = self.place_after
        return {"placed": False}

    def cmd_undo(self, ply):
        if self.result:
            raise LinkError("over", "the game is over")
        if ply != self.game.ply - 1:
            raise LinkError("bad_ply", "ply %d" % self.game.ply)
        self.game.undo()
        self.expect = -1
        self.wait = self.delay
        return {"ply": ply}

    def cmd_resign(self, side):
        self.result = ("W" if side == 1 else "B") + "+R"
        self.phase = "over"
        return {"result": self.result}

    def cmd_clock(self, side, ms, stones):
        if self.game is None:
            raise LinkError("no_game", "no game")
        self.clock_said.append((side, ms, stones))
        return {"clocks": [0, 0, 0, 0]}

    def cmd_state(self):
        self.polls += 1
        self._step()
        g = self.game
        size = g.size if g else self.settings["size"]
        ply = g.ply if g else 0
        return {
            "game": self.settings["game"],
            "size": size,
            "ply": ply,
            "moves": [self._point(i) for i in range(ply)],
            "colours": [g.move(i)[0] for i in range(ply)],
            "to_move": g.to_move if g else 1,
            "clock": {"state": "running" if g and not self.result else "not started"},
            "result": self.result,
            "phase": self.phase,
            "game_no": self.game_no,
            "remote": self.remote,
            "expect": self.expect,
            "dead": list(self.dead),
            "margin4": self.margin4,
        }

    # ---- the player at the board ---------------------------------------------------------

    def _point(self, i):
        c, x, y = self.game.move(i)
        return PASS if x is None else y << 5 | x

    def _commit(self, point):
        g = self.game
        if point == PASS:
            g.play(g.to_move, None, None)
        else:
            assert g.play(g.to_move, point & 31, point >> 5) == 0
        self.wait = self.delay
        if g.passes >= 2:
            self.phase = "dead stones"
            self.wait = self.delay

    def _step(self):
        # What the player did since the last look, once ``wait`` polls have gone by.
        g = self.game
        if g is None or self.result:
            return
        if self.wait > 0:
            self.wait -= 1
            return
        if self.phase == "dead stones":
            self.margin4, self.dead = self.count[0], list(self.count[1])
            self.phase = "counted"
        elif self.phase == "play" and self.expect >= 0:
            point, self.expect = self.expect, -1
            self._commit(point)
        elif self.phase == "play" and g.to_move != self.remote and self.human:
            move = self.human.pop(0)
            if move == "resign":
                self.cmd_resign(g.to_move)
            else:
                self._commit(move)


def engine(board, **kw):
    """An Engine over ``board`` polling at once (the fake has no time to wait for)."""
    return Engine(BoardPlayer(board, poll_s=0.001), **kw)


def say(e, *lines):
    """The responses to ``lines``, in order."""
    return [e.handle(line) for line in lines]


def settings_sent(board):
    """Every setting change the board was sent, merged."""
    out = {}
    for cmd, fields in board.sent:
        if cmd == "settings" and fields.get("set"):
            out.update(fields["set"])
    return out


# ---- the dialogue ----------------------------------------------------------------------------


def test_administrative_commands():
    e = engine(FakeBoard())
    r = say(e, "1 protocol_version", "2 name", "3 version", "list_commands")
    assert r[0] == "=1 2\n\n"
    assert r[1] == "=2 Tengen board\n\n"
    assert r[2].startswith("=3 9.8.7") and r[2].endswith("\n\n")
    listed = r[3][2:-2].split("\n")
    for name in (
        "genmove",
        "play",
        "time_settings",
        "kgs-time_settings",
        "time_left",
        "final_status_list",
        "final_score",
        "undo",
        "showboard",
    ):
        assert name in listed
    assert say(e, "known_command genmove", "known_command frobnicate") == [
        "= true\n\n",
        "= false\n\n",
    ]
    assert e.handle("frobnicate") == "? unknown command\n\n"
    assert e.handle("gogui-analyze_commands") == "= \n\n"
    assert e.handle("  # a comment") is None
    assert e.handle("9 quit") == "=9 \n\n" and e.done


def test_setup_becomes_the_boards_settings():
    board = FakeBoard()
    e = engine(board)
    assert say(e, "boardsize 9", "komi 6.5", "time_settings 600 30 5") == ["= \n\n"] * 3
    sent = settings_sent(board)
    assert (sent["game"], sent["size"], sent["komi2"]) == ("go", 9, 13)
    assert sent["time"] == "canadian/600/5/30"
    assert e.handle("get_komi") == "= 6.5\n\n"
    e.handle("time_settings 300 0 0")
    assert settings_sent(board)["time"] == "absolute/300"
    board.sent.clear()
    e.handle("time_settings 0 0 0")  # no time limit: the board's time left as it is
    e.handle("time_settings 300 30 0")
    assert "time" not in settings_sent(board)
    e.handle("kgs-time_settings byoyomi 600 30 5")
    assert settings_sent(board)["time"] == "byoyomi/600/5/30"
    e.handle("kgs-time_settings canadian 900 300 25")
    assert settings_sent(board)["time"] == "canadian/900/25/300"
    e.handle("kgs-time_settings absolute 1200")
    assert settings_sent(board)["time"] == "absolute/1200"
    assert e.handle("kgs-time_settings none") == "= \n\n"
    assert e.handle("boardsize 10") == "? unacceptable size\n\n"
    assert e.handle("komi 99").startswith("? the board refuses it: komi2")
    assert e.handle("fixed_handicap 3") == "= C3 G7 C7\n\n"
    assert settings_sent(board)["handicap"] == 3
    assert e.handle("set_free_handicap C3 G7 C7") == "= \n\n"
    assert e.handle("set_free_handicap C3 G7 D7").startswith(
        "? the board puts handicap stones only on the fixed points: C3 G7 C7"
    )


def test_a_game_with_the_board_as_white():
    board = FakeBoard(human=[code("E5"), code("E6")], place_after=5)
    e = engine(board, opponent="GNU Go 3.8")
    say(e, "boardsize 9", "clear_board", "komi 7")
    assert board.game is None  # nothing starts before the first move
    polls = board.polls
    assert e.handle("1 play b D5") == "=1 \n\n"
    assert board.settings["remote"] == 1 and board.settings["black"] == "GNU Go 3.8"
    assert board.settings["komi2"] == 14 and board.game.size == 9
    assert board.polls - polls >= 5  # answered only once the stone was put down
    assert board.game.ply == 1
    assert e.handle("2 genmove w") == "=2 E5\n\n"
    assert e.handle("genmove b").startswith("? the player at the board is white")
    assert e.handle("play w J9").startswith("? white plays at the board")
    assert e.handle("play w E5") == "= \n\n"  # its own move said back: nothing to do
    assert e.handle("play b E5") == "? illegal move (taken)\n\n"
    assert e.handle("play b D6") == "= \n\n"
    assert e.handle("genmove w") == "= E6\n\n"
    assert e.handle("time_left b 300 0") == "= \n\n"
    assert board.clock_said[-1] == (1, 300000, 0)
    shown = e.handle("showboard")
    assert shown.startswith("= \n   A B C D E F G H J") and "Komi 7, move 4" in shown
    assert " 5 . . . X O . . . . 5" in shown
    assert e.handle("list_stones white") == "= E5 E6\n\n"


def test_the_board_as_black_with_time_said_before_the_start_and_a_board_to_clear():
    board = FakeBoard(human=[code("Q16")], not_clear=2)
    e = engine(board)
    assert e.handle("time_left b 600 0") == "= \n\n"  # no game yet: kept for the start
    assert e.handle("genmove b") == "= Q16\n\n"
    assert board.settings["remote"] == 2 and board.settings["white"] == "GTP opponent"
    assert [c for c, _ in board.sent].count("start") == 3  # refused twice: stones to clear
    assert board.clock_said == [(1, 600000, 0)]
    assert e.handle("play w D4") == "= \n\n"


def test_undo():
    board = FakeBoard(human=[code("C3"), code("D4")])
    e = engine(board)
    say(e, "boardsize 9", "clear_board")
    assert e.handle("play b E5") == "= \n\n"
    assert e.handle("genmove w") == "= C3\n\n"
    assert e.handle("undo") == "= \n\n"
    assert ("undo", {"ply": 1}) in board.sent
    assert e.handle("genmove w") == "= D4\n\n"  # the player's move again, after the undo
    assert board.game.ply == 2


def test_final_score_and_status_from_the_count():
    dead = [code("G7", 9)]
    board = FakeBoard(human=[code("G7"), PASS], count=(7, dead))
    e = engine(board)
    say(e, "boardsize 9", "clear_board", "komi 6.5")
    assert e.handle("play b E5") == "= \n\n"
    assert e.handle("genmove w") == "= G7\n\n"
    assert e.handle("final_score") == "? the game is still being played: no count yet\n\n"
    assert e.handle("play b pass") == "= \n\n"
    assert e.handle("genmove w") == "= pass\n\n"
    assert e.handle("final_score") == "= %s\n\n" % result_sgf(7) == "= B+3.5\n\n"
    assert e.handle("final_status_list dead") == "= G7\n\n"
    assert e.handle("final_status_list alive") == "= E5\n\n"
    assert e.handle("final_status_list seki") == "= \n\n"
    board.result = "B+3.5"  # both confirmed
    assert e.handle("final_score") == "= B+3.5\n\n"


def test_the_board_player_resigning_and_the_game_ending_while_a_stone_waits():
    board = FakeBoard(human=["resign"])
    e = engine(board)
    say(e, "boardsize 9", "clear_board")
    assert e.handle("genmove b") == "= resign\n\n"
    assert e.handle("final_score") == "= W+R\n\n"
    assert e.handle("final_status_list dead") == "= \n\n"

    board = FakeBoard(place_after=10**9)  # the stone is never put down...
    e = engine(board)
    say(e, "boardsize 9", "clear_board")
    real = board._step

    def step():
        real()
        if board.polls > 20:  # ...the remote's flag falls instead
            board.result = "W+T"

    board._step = step
    assert e.handle("play b E5") == "? the game is over: W+T\n\n"


def test_board_player_api():
    board = FakeBoard(human=[code("D4")])
    p = BoardPlayer(board, poll_s=0.001)
    assert board.watching
    p.new_game(1, game="go", size=9)
    p.play(1, code("E5"))
    assert p.wait_move(2) == code("D4")
    assert p.moves() == [(1, code("E5")), (2, code("D4"))]
    with pytest.raises(Illegal):
        p.play(1, code("D4"))
    p.resign(1)
    with pytest.raises(GameOver) as over:
        p.wait_move(2, timeout=5)
    assert over.value.result == "W+R"
    p.close()
    assert not board.watching


def test_eof_ends_the_session():
    board = FakeBoard()
    e = engine(board)
    out = io.BytesIO()
    serve(e, io.BytesIO(b"1 name\n\n2 boardsize 9\n# no quit\n"), out)
    assert out.getvalue() == b"=1 Tengen board\n\n=2 \n\n"


# ---- tengen gtp --board, a process, over a pseudo-terminal -------------------------------


def serve_over_pty(board, master, stop):
    """Answer the link's JSON lines on the pty's ``master`` with ``board`` until ``stop``."""
    buf = b""
    while not stop.is_set():
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            continue
        try:
            buf += os.read(master, 4096)
        except OSError:
            return
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = json.loads(line)
            fields = {k: v for k, v in req.items() if k not in ("v", "id", "cmd")}
            try:
                reply = dict(board.request(req["cmd"], **fields), ok=True)
            except LinkError as e:
                reply = {"ok": False, "error": e.code, "message": e.message}
            reply["id"] = req["id"]
            os.write(master, json.dumps(reply).encode() + b"\n")


@pytest.mark.skipif(not TENGEN.exists(), reason="the installed tengen command is needed")
def test_tengen_gtp_board_from_another_folder(tmp_path):
    board = FakeBoard(human=[code("E5", 9)])
    master, slave = os.openpty()
    tty.setraw(slave)  # no echo: the fake would read its own replies
    stop = threading.Event()
    server = threading.Thread(target=serve_over_pty, args=(board, master, stop), daemon=True)
    server.start()
    env = dict(
        os.environ,
        TENGEN_RUNTIME_DIR=str(tmp_path / "run"),
        TENGEN_DATA_DIR=str(tmp_path / "data"),
        TENGEN_CONFIG_DIR=str(tmp_path / "config"),
    )
    script = "name\nboardsize 9\nclear_board\nplay b D5\ngenmove w\nshowboard\nquit\nname\n"
    try:
        done = subprocess.run(
            [str(TENGEN), "gtp", "--board", os.ttyname(slave), "--opponent", "KataGo"],
            cwd=tmp_path,
            env=env,
            input=script.encode(),
            capture_output=True,
            timeout=120,
        )
    finally:
        stop.set()
        server.join(10)
        os.close(master)
        os.close(slave)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    responses = out[:-2].split("\n\n")
    assert responses[:5] == ["= Tengen board", "= ", "= ", "= ", "= E5"]
    assert " 5 . . . X O . . . . 5" in responses[5]
    assert responses[6:] == ["= "]  # nothing after quit
    assert board.settings["black"] == "KataGo" and board.settings["remote"] == 1
    assert board.sent[-1] == ("watch", {"on": False})  # left as tengen watch leaves a board
    assert b"tengen gtp:" in done.stderr


def test_a_32k_line_is_answered_too_long_and_the_next_one_served():
    # Bounded as the board's link is (firmware/link/lines.py): the line is never held whole.
    e = engine(FakeBoard())
    out = io.BytesIO()
    serve(e, io.BytesIO(b"1 name\n2 " + b"x" * 32768 + b"\n3 boardsize 9\n"), out)
    assert out.getvalue() == (
        b"=1 Tengen board\n\n? line too long (at most 4096 bytes)\n\n=3 \n\n"
    )
