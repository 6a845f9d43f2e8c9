"""``tengen watch`` against a live virtual board (``host_tools/board/sim.py`` headless, as
test_virtual_board.py starts it): the picture right way up (row 1 at the bottom), Go's and
Renju's coordinates each their own, the last move marked and named, incidents in words, the
clocks as the faces show them; and a watch that goes on when the board is unplugged and comes
back on its folder. The rendered view is read back through rich's recording console.
"""

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections import deque

import pytest
from rich.console import Console
from typer.testing import CliRunner

from firmware.referee import incidents as inc
from host_tools.cli import app
from host_tools.common.link import RUNTIME_ENV
from host_tools.live import watch as W
from tests.host.board.test_virtual_board import MICROPYTHON, ROOT, TENGEN, Sim

pytestmark = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)

GRID = "ABCDEFGHJKLMNOPQRST"  # the physical grid's columns (the sim's commands), no I


def on_grid(vertex, size, columns=W.GO_COLUMNS):
    """The grid's point of a ``size`` game's vertex (the game sits in the grid's middle)."""
    off = (19 - size) // 2
    x = columns.index(vertex[0])
    y = int(vertex[1:]) - 1
    return "%s%d" % (GRID[x + off], y + off + 1)


def go9(vertex):
    return on_grid(vertex, 9)


def renju(vertex):
    return on_grid(vertex, 15, W.GOMOKU_COLUMNS)


@pytest.fixture
def env(tmp_path, monkeypatch):
    e = dict(os.environ)
    e[RUNTIME_ENV] = str(tmp_path / "run")
    e["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")
    monkeypatch.setenv(RUNTIME_ENV, e[RUNTIME_ENV])  # the watch in this process looks there
    return e


class Shown:
    """A screen that keeps what it was given."""

    def __init__(self):
        self.events = []
        self.notices = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def show(self, view, ev=None):
        if ev is not None:
            self.events.append(ev)

    def notice(self, text, view, **fields):
        self.notices.append((text, fields))


def follow_until(watcher, done, timeout=20):
    end = time.monotonic() + timeout
    while not done(watcher.view):
        assert time.monotonic() < end, watcher.view.text()
        watcher.step()


def rendered(view):
    """The live view as a terminal shows it, as plain text."""
    console = Console(record=True, width=160, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(view.render())
    return console.export_text()


def board_of(text, columns, size):
    """``{vertex: glyph}`` of the board in ``text`` (stones, and the last-move brackets as
    ``"(●)"``), read by place: the header's letters give each column's character column, the
    row labels each row; so a board drawn upside down or with the wrong letters fails."""
    lines = text.splitlines()
    head = " ".join(columns[:size])
    top = next(i for i, line in enumerate(lines) if head in line)
    c0 = lines[top].index(head)
    assert lines[top + size + 1][c0 : c0 + len(head)] == head  # the header again below
    out = {}
    for i in range(size):
        line = lines[top + 1 + i]
        row = int(line[c0 - 4 : c0 - 1])
        assert row == size - i, (row, line)  # row `size` at the top, row 1 at the bottom
        for x in range(size):
            glyph = line[c0 + 2 * x]
            if glyph in "●○":
                if line[c0 + 2 * x - 1] == "(":
                    assert line[c0 + 2 * x + 1] == ")"
                    glyph = "(%s)" % glyph
                out["%s%d" % (columns[x], row)] = glyph
    return out


@pytest.mark.slow(9)
def test_go_9x9_live_right_way_up_with_its_incidents(tmp_path, env):
    sim = Sim(tmp_path / "flash", env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        sim.do("key pause")  # Black's clock starts
        watcher = W.Watcher(sim.link, Shown(), retry_for=0)
        watcher.connect()
        sim.do(
            *("put %s b" % go9("D6"), "press b"),  # D6: as D16 on 19x19, near the top
            *("put %s w" % go9("J9"), "press w"),  # J: Go's ninth column (no I)
            *("put %s b" % go9("H9"), "press b"),
            *("put %s w" % go9("C3"), "press w"),
            *("put %s b" % go9("J8"), "press b"),  # takes J9, still on the board: CAP J9
            *("lift %s" % go9("J9"), "press b"),  # off: the move counts
            *("put %s b" % go9("E5"), "press w"),  # White's paddle on a black stone
            *("lift %s" % go9("E5"), "wait 300"),
        )
        follow_until(watcher, lambda v: len(v.moves) == 5 and len(v.incidents) >= 2)
        view = watcher.view
        text = rendered(view)
        assert board_of(text, W.GO_COLUMNS, 9) == {
            "D6": "●",
            "H9": "●",
            "C3": "○",
            "J8": "(●)",  # the last move, and J9 taken off
        }, text
        assert "go 9x9, move 5, last J8 (Black)" in text
        assert "phase: play" in text
        cap = inc.words(inc.CAPTURES_LEFT)[1]
        colour = inc.words(inc.WRONG_COLOUR)[1]
        assert "move 5: %s (J9)" % cap in text
        assert "move 6: %s (E5)" % colour in text
        assert re.search(r"▶ ○ White +\d:\d\d  RUN", text), text  # quick: 10 min, m:ss
        assert re.search(r"  ● Black +9:\d\d *$", text, re.M), text
        assert "clock: running (White)" in text
        watcher.close()  # the port is opened exclusively
        # --once, a plain picture: the same places, the same names.
        once = CliRunner().invoke(app, ["watch", "--once", "--port", sim.link])
        assert once.exit_code == 0, once.output
        assert board_of(once.stdout, W.GO_COLUMNS, 9) == board_of(text, W.GO_COLUMNS, 9)
        assert "go 9x9, move 5, last J8 (Black)" in once.stdout
        got = json.loads(
            CliRunner().invoke(app, ["watch", "--once", "--json", "--port", sim.link]).stdout
        )
        assert got["last"] == {"colour": 1, "point": 7 << 5 | 8, "name": "J8"}
        assert [m["name"] for m in got["moves"]] == ["D6", "J9", "H9", "C3", "J8"]
        assert got["board"][0] == "......." + "X."  # row 9: H9 black, J9 empty
        assert got["clock"]["faces"][1]["running"] is True and got["phase"] == "play"

        # The end, followed live: two passes, the count, both confirm.
        watcher = W.Watcher(sim.link, Shown(), retry_for=0)
        watcher.connect()
        sim.do("press w", "press b", "wait 1600")  # two passes (PASS on the faces a while)
        follow_until(watcher, lambda v: v.phase == "dead stones")
        text = rendered(watcher.view)
        assert "go 9x9, move 7, last pass (Black)" in text and "phase: dead stones" in text
        assert "move 7: %s" % inc.words(inc.PASS)[1] in text  # a pass has no point
        sim.do("key mode", "wait 300")  # no dead stones lifted: the count
        follow_until(watcher, lambda v: v.phase == "counted")
        sim.do("press b", "press w", "wait 300")  # both confirm
        follow_until(watcher, lambda v: v.phase == "over" and v.result)
        text = rendered(watcher.view)
        result = watcher.view.result
        assert result.startswith(("B+", "W+")) and "result: %s" % result in text
        assert "phase: over" in text and "clock: finished" in text, text
        assert board_of(text, W.GO_COLUMNS, 9)["J8"] == "●"  # the last move was a pass
        assert "move 7: %s" % inc.words(inc.COUNT)[1] in text  # the incidents stay
        watcher.close()
    finally:
        assert sim.close() == 0


def test_renju_live_with_its_own_letters(tmp_path, env):
    sim = Sim(tmp_path / "flash", env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=renju", "opening=free", "time=renju-rif")
        sim.do("key pause")
        watcher = W.Watcher(sim.link, Shown(), retry_for=0)
        watcher.connect()
        assert watcher.view.game() == "renju" and watcher.view.size() == 15
        sim.do(
            *("put %s b" % renju("H8"), "press b"),  # the centre: the grid's K10
            *("put %s w" % renju("I9"), "press w"),  # I: Renju's ninth column
            *("put %s b" % renju("J7"), "press b"),
            *("put %s b" % renju("K12"), "press w"),  # White's paddle on a black stone
            *("lift %s" % renju("K12"), "wait 300"),
        )
        follow_until(watcher, lambda v: len(v.moves) == 3 and v.incidents)
        text = rendered(watcher.view)
        assert "    A B C D E F G H I J K L M N O" in text
        assert board_of(text, W.GOMOKU_COLUMNS, 15) == {"H8": "●", "I9": "○", "J7": "(●)"}
        assert "renju 15x15, move 3, last J7 (Black)" in text
        assert "move 4: %s (K12)" % inc.words(inc.WRONG_COLOUR)[1] in text
        # renju-rif: 60 min + 30 s a move, so the faces show h:mm:ss (Black: two moves)
        assert re.search(r"  ● Black +1:0[01]:\d\d *$", text, re.M), text
        assert re.search(r"▶ ○ White +1:00:[0-3]\d  RUN", text), text
        watcher.close()
    finally:
        assert sim.close() == 0


class Lines:
    """A process's stdout lines, read in a thread."""

    def __init__(self, proc):
        self.q = queue.Queue()
        self.proc = proc
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.q.put(line)
        self.q.put(None)

    def until(self, done, timeout=60):
        end = time.monotonic() + timeout
        seen = []
        while True:
            line = self.q.get(timeout=max(0.1, end - time.monotonic()))
            assert line is not None, seen[-5:]
            obj = json.loads(line)
            seen.append(obj)
            if done(obj):
                return obj


@pytest.mark.slow(13)
def test_unplugged_board_comes_back_and_the_watch_goes_on(tmp_path, env):
    flash = tmp_path / "flash"
    sim = Sim(flash, env)
    watch = None
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        sim.do("key pause", "put %s b" % go9("E5"), "press b")
        watch = subprocess.Popen(
            [str(TENGEN), "watch", "--port", sim.link, "--json", "--retry-for", "60"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out = Lines(watch)
        first = out.until(lambda o: o["event"] == "state")
        assert first["last"]["name"] == "E5" and first["clock"]["running"] == 2
        os.kill(sim.note()["board_pid"], signal.SIGKILL)  # unplugged
        with pytest.raises(EOFError):
            sim.until(lambda line: False)
        sim.close()
        gone = out.until(lambda o: o["event"] == "link")
        assert gone["status"] == "waiting" and gone["message"] == W.WAITING

        again = Sim(flash, env)  # the same board, on a new pty
        try:
            back = out.until(lambda o: o["event"] == "link")
            assert back["status"] == "back" and back["port"] == again.link
            state = out.until(lambda o: o["event"] == "state")
            assert state["ply"] == 1 and state["clock"]["state"] == "paused"
            assert state["link"] == "ok"
            again.do("key pause", "put %s w" % go9("F6"), "press w")  # play goes on
            move = out.until(lambda o: o["event"] == "move")
            assert (move["ply"], move["name"], move["colour"]) == (2, "F6", 2)
            watch.send_signal(signal.SIGINT)  # Ctrl-C
            # A bound for a hang, not a measure: a loaded run may take its time.
            assert watch.wait(timeout=60) == 0
        finally:
            assert again.close() == 0
    finally:
        if watch is not None and watch.poll() is None:
            watch.kill()
            watch.wait()
        sim.close()


def test_the_wait_is_bounded_by_retry_for(tmp_path, env):
    from tests.host.test_cli_more import GameBoard

    b = GameBoard(tmp_path / "games")
    try:
        timer = threading.Timer(1.0, b.kill)  # unplugged, never back (no id to look for)
        timer.start()
        r = CliRunner().invoke(app, ["watch", "--port", b.path, "--retry-for", "1.5"])
        timer.join()
    finally:
        b.stop()
    assert r.exit_code == 1, r.output
    assert "go 19x19, move 4, last D16 (White)" in r.stdout  # the picture, in a pipe
    assert W.WAITING in r.output and "did not come back within 1.5 s" in r.output


class FakeLink:
    """A board on ``port`` that answers ``hello`` as ``board`` and has a 9x9 game of one move."""

    def __init__(self, port, board):
        self.port = port
        self.board = board
        self.events = deque()

    def request(self, cmd, **fields):
        if cmd == "hello":
            return {"name": "tengen", "board": self.board}
        if cmd == "state":
            return {"game": "go", "size": 9, "moves": [4 << 5 | 4], "colours": [1]}
        return {}

    def close(self):
        pass


def test_the_board_is_found_again_by_its_id_on_another_port():
    shown = Shown()
    ports = [{"port": "/dev/b2", "board": "b2"}, {"port": "/dev/b1", "board": "b1"}]
    watcher = W.Watcher(
        "/no/such/port",  # the pty the board had is gone
        shown,
        retry_for=5,
        open_link=lambda port: FakeLink(port, port[-2:]),
        find_boards=lambda: ports,
    )
    watcher.board_id = "b1"
    watcher.reconnect()
    assert watcher.link.port == watcher.port == "/dev/b1"
    assert [f["status"] for _, f in shown.notices] == ["waiting", "back"]
    assert shown.events[-1] == {"event": "state"} and watcher.view.last() == (4 << 5 | 4, 1)
    assert watcher.view.status == ""


def test_a_refused_start_names_the_stones_outside_a_smaller_game():
    ev = {"kind": inc.NOT_CLEAR, "move": 1, "points": [2 << 5 | 2], "detail": 2}
    assert W.incident_text(ev, "go9") == (
        "move 1: clear the board before the game starts: 2 stones outside the game's area (C3)"
    )


def test_the_points_to_clear_before_a_game_follow_the_board():
    view = W.View()
    state = {"game": "go9", "size": 9, "moves": [], "colours": [], "clock": {}, "phase": "play"}
    view.load(dict(state, clear={"points": [3 << 5 | 3, 4 << 5 | 4], "outside": 1}))
    assert "to clear before the game (3): D4, E5 and 1 outside the game's area" in view.text()
    before = view.version
    view.apply({"v": 1, "event": "clear", "points": [4 << 5 | 4], "outside": 0})
    assert view.version > before and view.clear_line() == "to clear before the game (1): E5"
    assert view.snapshot()["clear"] == {
        "points": [{"point": 4 << 5 | 4, "name": "E5"}],
        "outside": 0,
    }
    view.apply({"v": 1, "event": "clear", "points": [], "outside": 0})
    assert view.clear_line() == "" and "to clear" not in view.text()
    assert view.snapshot()["clear"] is None
