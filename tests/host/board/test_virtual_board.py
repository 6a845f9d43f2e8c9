"""The virtual board end to end: started as ``make sim`` starts it without a terminal (the
launcher, ``python -m host_tools.board.sim``, stdin a pipe, a temporary ``--flash`` folder), played
through its commands, reached by the installed ``tengen`` command over its pseudo-terminal as a
board on USB. Each board notes its pty in a runtime folder of the test's own
(``TENGEN_RUNTIME_DIR``), so runs sharing a machine do not see each other's boards.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.hal.virtual import shown
from host_tools.common.link import RUNTIME_ENV, Link

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
TENGEN = BIN / "tengen"
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"

pytestmark = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)

OFF = 5  # a 9x9 game sits in the middle of the 19x19 grid: its E5 is the grid's K10
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def grid(vertex):
    """The grid's point of a 9x9 game's vertex (the commands take the physical board's)."""
    x = COLUMNS.index(vertex[0])
    y = int(vertex[1:]) - 1
    return "%s%d" % (COLUMNS[x + OFF], y + OFF + 1)


class Sim:
    """``python -m host_tools.board.sim --flash FLASH`` with stdin a pipe: ``do(*commands)`` sends
    them and returns what the board said until they were done; ``link`` its pty."""

    def __init__(self, flash, env, seed=None):
        self.env = env
        seeded = ["--seed", str(seed)] if seed is not None else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools.board.sim", "--flash", str(flash)] + seeded,
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.said = []
        self.n = 0
        first = self.until(lambda line: line.startswith("ready "))
        assert first[0].startswith("link: /dev/") and first[1] == "flash: %s" % flash, first
        self.link = first[0][len("link: ") :]
        self.board_id = first[-1].split()[1]
        self.until(lambda line: line.startswith("board "))  # the first report is out

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, done, timeout=30):
        got = []
        end = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            if line is None:
                raise EOFError("the board stopped: %r" % got[-5:])
            got.append(line)
            self.said.append(line)
            if done(line):
                return got

    def do(self, *commands, timeout=60):
        self.n += 1
        mark = "echo done %d" % self.n
        self.proc.stdin.write("".join(c + "\n" for c in commands + (mark,)))
        self.proc.stdin.flush()
        return self.until(lambda line: line == mark, timeout)

    def last(self, prefix):
        """The last line the board said that starts with ``prefix``."""
        return [ln for ln in self.said if ln.startswith(prefix)][-1]

    def tengen(self, *args, env=None):
        r = subprocess.run(
            [str(TENGEN), *args], capture_output=True, text=True, env=env or self.env, timeout=120
        )
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    def pair(self, *args, env=None):
        """``tengen pair ARGS`` as the arbiter does it: run, and MODE pressed at the board once
        its faces ask (``PAIR ?``, read off the glass); tengen's output (exit 0), once the
        faces are back from saying ``OK``."""
        proc = subprocess.Popen(
            [str(TENGEN), "pair", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env or self.env,
        )
        try:
            self.until(lambda line: line == "face B PAIR  ?")  # the glass read back
            self.do("key mode")
            out, errs = proc.communicate(timeout=60)
            if self.last("face B ") == "face B OK":  # the press taken: OK a while, then back
                self.until(lambda line: line.startswith("face B ") and line != "face B OK")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0, (args, out, errs)
        assert "Press MODE on the board" in errs, errs  # the PC told the user
        return out

    def games(self):
        """The games the board keeps (the link's ``list``)."""
        with Link(self.link) as link:
            return link.request("list")["games"]

    def note(self):
        """The runtime note the launcher left: its pty, its pid, the board's pid."""
        folder = Path(self.env[RUNTIME_ENV])
        for f in folder.glob("virtual-*.json"):
            note = json.loads(f.read_text())
            if note["port"] == self.link:
                return note
        raise AssertionError("no runtime note for %s" % self.link)

    def close(self):
        """The end of stdin (the board stops), everything it said then, its exit code."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:
            self.until(lambda line: False, timeout=5)
        except (EOFError, queue.Empty):
            pass
        return self.proc.returncode


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e[RUNTIME_ENV] = str(tmp_path / "run")
    e["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")  # no paired keys of the user's
    return e


def _moves(game):
    return [node.get_move() for node in game.get_main_sequence()[1:] if node.get_move()[0]]


@pytest.mark.slow(10)
def test_a_9x9_game_played_to_the_count_then_synced_home(tmp_path, env):
    sim = Sim(tmp_path / "flash", env)
    try:
        # The board on USB as tengen sees it: listed, then set up over the link.
        boards = json.loads(sim.tengen("boards", "--json"))
        assert [b["port"] for b in boards] == [sim.link]
        assert boards[0]["board"] == sim.board_id and boards[0]["name"] == "tengen"
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        sim.tengen("time", "--port", sim.link, "--set")
        sim.tengen("settings", "--port", sim.link, "pin=4821", "--pin", "0000")
        assert sim.board_id in sim.pair("--pin", "4821", "--port", sim.link)

        sim.do("key pause")  # Black's clock starts, the 9x9 game
        assert sim.last("game ") == "game go 9"
        assert sim.last("face B ") == "face B " + shown("10:00") + "  #1  RUN"
        sim.do("put %s b" % grid("E5"), "press b", "put %s w" % grid("F6"), "press w")
        assert sim.last("face W ").endswith("#3")
        board = sim.last("board ")[6:]
        assert board.count("X") == 1 and board.count("O") == 1
        assert sim.do("put Z1 b", "key spin")[-3:-1] == [
            "? put Z1 b: not a vertex: 'Z1'",
            "? key spin: keys are pause, mode, plus, minus (a+b for a chord)",
        ]
        sim.do("press b", "press w", "wait 1600")  # two passes (PASS on the faces a while)
        sim.do("key mode", "wait 300")  # no dead stones to lift: the count
        assert "OK?" in sim.last("face B ")
        sim.do("press b", "press w", "wait 300")  # both players confirm the count

        with Link(sim.link) as link:
            state = link.request("state")
        assert state["phase"] == "over" and state["ply"] == 4
        result = state["result"]
        assert result.startswith(("B+", "W+")), result
        assert sim.last("face B ") == "face B " + shown(result)
        assert "buzz CONFIRM" in sim.said

        # Home: tengen sync over the pty, the SGF read back by sgfmill.
        out = sim.tengen("sync", "--port", sim.link, "--dest", str(tmp_path / "home"))
        assert out.startswith("1 written, 1 acknowledged")
        game = sgf.Sgf_game.from_bytes(
            next((tmp_path / "home" / sim.board_id).glob("*_000001.sgf")).read_bytes()
        )
        assert game.get_size() == 9 and game.get_root().get("RE") == result
        assert _moves(game) == [("b", (4, 4)), ("w", (5, 5)), ("b", None), ("w", None)]
        bin_file = str(next((tmp_path / "home" / sim.board_id).glob("*_000001.bin")))
        assert sim.tengen("verify", bin_file).strip() == bin_file + ": ok"  # the paired key
        watch = sim.tengen("watch", "--once", "--port", sim.link)
        assert "result: %s" % result in watch
    finally:
        assert sim.close() == 0
    assert sim.said[-1] == "bye eof"
    assert not list(Path(env[RUNTIME_ENV]).glob("virtual-*.json"))  # the note is gone


@pytest.mark.slow(9)
def test_killed_mid_game_the_board_resumes_on_its_flash(tmp_path, env):
    flash = tmp_path / "flash"
    sim = Sim(flash, env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        moves = ("E5", "b"), ("F6", "w"), ("E4", "b")
        sim.do("key pause")
        for v, c in moves:
            sim.do("put %s %s" % (grid(v), c), "press %s" % c)
        board_pid = sim.note()["board_pid"]
        os.kill(board_pid, signal.SIGKILL)  # the power goes
        with pytest.raises(EOFError):
            sim.until(lambda line: False)
    finally:
        sim.close()

    again = Sim(flash, env)  # the same folder: the same board, its game resumed, paused
    try:
        assert again.board_id == sim.board_id
        again.do("wait 300")  # the app's first passes: the faces drawn
        board = again.last("board ")[6:]
        assert board.count("X") == 2 and board.count("O") == 1  # the stones stayed put
        assert "PAUSE" in again.last("face B ")
        with Link(again.link) as link:
            state = link.request("state")
        assert state["ply"] == 3 and state["clock"]["state"] == "paused"
        assert state["moves"] == [4 << 5 | 4, 5 << 5 | 5, 3 << 5 | 4]
        watch = again.tengen("watch", "--once", "--port", again.link)
        assert "go 9x9, move 3" in watch and "clock: paused" in watch
        again.do("key pause", "put %s w" % grid("D4"), "press w")  # play goes on
        with Link(again.link) as link:
            assert link.request("state")["ply"] == 4
    finally:
        assert again.close() == 0


def test_maintenance_over_the_link_stops_the_board(tmp_path, env):
    sim = Sim(tmp_path / "flash", env)
    try:
        with Link(sim.link) as link:
            assert link.request("maintenance", pin="0000")["maintenance"] is True
        sim.until(lambda line: line == "bye maintenance")
        assert sim.proc.wait(timeout=15) == 0
    finally:
        sim.close()


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_the_demo_plays_in_simulated_time_and_leaves_no_folder(runtime, tmp_path):
    # The same board in simulated time (``--demo``: no flash folder given, a fresh one made
    # under TMPDIR and removed): the demo's four moves, its two stones at once refused.
    cmd = [str(MICROPYTHON)] if runtime == "micropython" else [sys.executable]
    done = subprocess.run(
        cmd + ["-m", "firmware.virtual.board", "--demo"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[0].startswith("ready ") and said[-1] == "bye eof"
    assert "buzz REFUSE" in said and "last 4 W D16" in said, said
    assert list(tmp_path.iterdir()) == []
