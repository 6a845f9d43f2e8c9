"""`tengen time`, `settings`, `pair`, `watch --once`, and sync/verify with the paired key,
against the link's server on the MicroPython unix port behind a pty (as in test_sync.py)."""

import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from firmware.link.stdio import PIN, SECRET
from host_tools.cli import app
from host_tools.common import keys
from tests.host.records.test_sync import MICROPYTHON, ROOT, Board, fill

pytestmark = pytest.mark.skipif(MICROPYTHON is None, reason="micropython not installed")

run = CliRunner().invoke


class GameBoard(Board):
    """The stdio server with ``--game``: a Go match with four moves played."""

    def __init__(self, root):
        import tty

        master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.proc = subprocess.Popen(
            [str(MICROPYTHON), "-m", "firmware.link.stdio", str(root), "--game"],
            stdin=master,
            stdout=master,
            cwd=ROOT,
        )
        os.close(master)


@pytest.fixture
def config(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv(keys.ENV, str(folder))
    return folder


@pytest.fixture
def board(tmp_path):
    root = tmp_path / "games"
    fill(root, 3, seed=11)
    b = Board(root)
    yield b
    b.stop()


def test_time_show_and_set(board):
    r = run(app, ["time", "--port", board.path, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"epoch": None, "drift": None}
    r = run(app, ["time", "--port", board.path])
    assert r.exit_code == 0 and "not set" in r.stdout
    r = run(app, ["time", "--set", "--port", board.path])
    assert r.exit_code == 0, r.output
    assert "UTC" in r.stdout
    r = run(app, ["time", "--port", board.path, "--json"])
    got = json.loads(r.stdout)
    assert abs(got["epoch"] - time.time()) < 5 and abs(got["drift"]) < 5


def test_settings_show_and_set(board):
    r = run(app, ["settings", "--port", board.path, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"game": "go19"}  # the PIN is never shown
    # (no bool here: MicroPython's isinstance(True, int) is False, so the server refuses them)
    args = ["settings", "komi2=15", "opening=free", "time=cn-local", "--port", board.path]
    r = run(app, args + ["--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {
        "game": "go",  # the board keeps the game and its size apart (firmware/game/settings.py)
        "size": 19,
        "komi2": 15,
        "opening": "free",
        "time": "cn-local",
    }
    for bad in ("time=45min", "game=chess", "colour=red"):  # refused whole, a clear reason
        r = run(app, ["settings", bad, "komi2=11", "--port", board.path])
        assert r.exit_code == 1 and "bad_value" in r.output, r.output
        assert bad.split("=")[0] in r.output, r.output
    r = run(app, ["settings", "--port", board.path, "--json"])
    assert json.loads(r.stdout)["komi2"] == 15 and json.loads(r.stdout)["time"] == "cn-local"
    r = run(app, ["settings", "--port", board.path])
    assert r.exit_code == 0 and "komi2" in r.stdout and "cn-local" in r.stdout
    r = run(app, ["settings", "pin=1234", "--port", board.path])  # no PIN given
    assert r.exit_code == 1 and "missing" in r.output, r.output
    r = run(app, ["settings", "pin=1234", "--pin", "0000", "--port", board.path])
    assert r.exit_code == 1 and "bad_pin" in r.output, r.output
    r = run(app, ["settings", "oops", "--port", board.path])
    assert r.exit_code == 2


def test_pair_stores_the_key_and_sync_verify_use_it(board, config, tmp_path):
    r = run(app, ["pair", "--pin", "0000", "--port", board.path])
    assert r.exit_code == 1 and "bad_pin" in r.output
    assert not (config / "keys.json").exists()
    r = run(app, ["pair", "--pin", PIN, "--port", board.path])
    assert r.exit_code == 0, r.output
    path = config / "keys.json"
    assert json.loads(path.read_text()) == {"stdio": SECRET.hex()}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert keys.get("stdio") == SECRET and keys.get("other") is None
    keys.store("other", bytes(32))  # a second board's key: both kept
    assert keys.load() == {"stdio": SECRET.hex(), "other": bytes(32).hex()}

    dest = tmp_path / "home"
    r = run(app, ["sync", "--port", board.path, "--dest", str(dest), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.splitlines()[-1])["written"] == [1, 2, 3]
    bins = sorted(str(p) for p in (dest / "stdio").glob("*.bin"))
    r = run(app, ["verify"] + bins)
    assert r.exit_code == 0, r.output
    keys.store("stdio", bytes(32))  # a wrong stored key: the HMAC check fails
    r = run(app, ["verify"] + bins)
    assert r.exit_code == 1 and "HMAC" in r.output, r.output
    r = run(app, ["verify", "--secret", SECRET.hex()] + bins)  # --secret wins
    assert r.exit_code == 0, r.output


def test_a_paired_board_obeys_only_the_pc_holding_its_key(board, config, tmp_path, monkeypatch):
    # Issue [O]: before, anyone on the port could ack a game (the arbiter's sync then skipped
    # it as acknowledged elsewhere) or set the next game. Paired, only the key's PC can.
    from host_tools.common.link import Link

    r = run(app, ["pair", "--pin", PIN, "--port", board.path])
    assert r.exit_code == 0, r.output
    monkeypatch.setenv(keys.ENV, str(tmp_path / "another-pc"))  # a PC without the key
    r = run(app, ["settings", "komi2=13", "--port", board.path])
    assert r.exit_code == 1 and "need_mac" in r.output and "pair this one" in r.output, r.output
    r = run(app, ["sync", "--port", board.path, "--dest", str(tmp_path / "theirs"), "--json"])
    got = json.loads(r.stdout.splitlines()[-1])
    assert r.exit_code == 1 and got["written"] == [1, 2, 3] and got["acked"] == [], got
    assert all("need_mac" in why for why in got["failed"].values()) and len(got["failed"]) == 3
    with Link(board.path) as link:  # the reads are open; nothing was acknowledged
        games = link.request("list")["games"]
        assert [g["acked"] for g in games if g["finished"]] == [False] * 3
        assert "komi2" not in link.request("settings")["settings"]
    keys.store("stdio", bytes(32))  # a key, not the board's
    r = run(app, ["settings", "komi2=13", "--port", board.path])
    assert r.exit_code == 1 and "bad_mac" in r.output and "pair again" in r.output, r.output

    monkeypatch.setenv(keys.ENV, str(config))  # the arbiter's PC, which paired
    r = run(app, ["sync", "--port", board.path, "--dest", str(tmp_path / "home"), "--json"])
    got = json.loads(r.stdout.splitlines()[-1])
    assert r.exit_code == 0 and got["written"] == got["acked"] == [1, 2, 3], got
    r = run(app, ["settings", "komi2=13", "--port", board.path, "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["komi2"] == 13, r.output
    r = run(app, ["time", "--set", "--port", board.path])
    assert r.exit_code == 0, r.output


def test_the_link_signs_again_after_a_restart_or_another_pc(board, config):
    # Link's recovery: a stale nonce (the board restarted: bad_mac) or a seq another PC used
    # meanwhile (replayed) make it read hello and sign anew, once; the request is carried out.
    from host_tools.common.link import Link, LinkError

    assert run(app, ["pair", "--pin", PIN, "--port", board.path]).exit_code == 0
    with Link(board.path) as link:
        assert link.request("ack", game=1)["acked"] is True  # need_mac, then signed
        key, nonce, seq = link.signing
        assert key == SECRET and seq == 1 and link.request("hello")["seq"] == 1
        link.signing[1] = b"0" * 16  # as after a power cycle: the board has a new nonce
        assert link.request("ack", game=2)["acked"] is True
        assert link.signing[1] == nonce and link.signing[2] == 2
        link.signing[2] = 0  # as if another PC had signed seq 1 and 2 meanwhile
        assert link.request("ack", game=3)["acked"] is True
        assert link.request("hello")["seq"] == 3
        link.signing = None
        link.key = bytes(32)  # a key that is not the board's: said plainly, no loop
        with pytest.raises(LinkError) as e:
            link.request("settings", set={"komi2": 13})
        assert e.value.code == "bad_mac" and "pair again" in e.value.message


def test_pair_wants_the_boards_own_pin(tmp_path, config):
    b = Board(tmp_path / "games", pin="0000")  # as a new board: the factory PIN
    try:
        r = run(app, ["pair", "--pin", "0000", "--port", b.path])
        assert r.exit_code == 1 and "factory PIN" in r.output and "pin=NNNN" in r.output
        r = run(app, ["settings", "pin=2580", "--pin", "0000", "--port", b.path])
        assert r.exit_code == 0, r.output
        r = run(app, ["pair", "--pin", "2580", "--port", b.path])
        assert r.exit_code == 0 and keys.get("stdio") == SECRET, r.output
    finally:
        b.stop()


def test_sync_with_a_wrong_stored_key_fails(board, config, tmp_path):
    keys.store("stdio", bytes(32))
    r = run(app, ["sync", "--port", board.path, "--dest", str(tmp_path / "h"), "--json"])
    assert r.exit_code == 1
    assert json.loads(r.stdout.splitlines()[-1])["failed"]


def test_watch_once_renders_the_game(tmp_path):
    b = GameBoard(tmp_path / "games")
    try:
        r = run(app, ["watch", "--once", "--port", b.path])
        j = run(app, ["watch", "--once", "--json", "--port", b.path])
    finally:
        b.stop()
    assert r.exit_code == 0, r.output
    out = r.stdout
    # D4 (x 3, y 3) black, Q16 (x 15, y 15) white, Q4 black, D16 white: the last move
    assert "go 19x19, move 4, last D16 (White)" in out
    lines = out.splitlines()
    head = "    A B C D E F G H J K L M N O P Q R S T"
    top = lines.index(head)
    assert lines[top + 20] == head
    rows = lines[top + 1 : top + 20]  # row 19 at the top, row 1 at the bottom
    assert [int(line[:2]) for line in rows] == list(range(19, 0, -1))
    assert all(line.endswith(" %d" % (19 - i)) for i, line in enumerate(rows))

    def at(vertex):  # the glyph at a vertex, by its place under the header's letter
        col = 4 + 2 * "ABCDEFGHJKLMNOPQRST".index(vertex[0])
        return rows[19 - int(vertex[1:])][col - 1 : col + 2]

    assert at("D16") == "(○)"  # the last move, in brackets
    assert at("Q16")[1] == "○" and at("D4")[1] == "●" and at("Q4")[1] == "●"
    assert at("K10")[1] == "+"  # tengen, a star point
    assert sum(line.count("●") + line.count("○") for line in rows) == 4
    # cn-local: 1 h, the last minute counted; the faces show 59:00 before it
    assert "  ● Black    59:00" in out and "  ○ White    59:00" in out
    assert "clock: paused" in out and "phase: play" in out
    assert j.exit_code == 0, j.output
    got = json.loads(j.stdout)
    assert got["last"] == {"colour": 2, "point": 15 << 5 | 3, "name": "D16"}
    assert got["board"][3][3] == "O" and got["board"][15][15] == "X"  # D16, Q4
    assert [f["time"] for f in got["clock"]["faces"]] == ["59:00", "59:00"]


def test_watch_without_a_game_and_without_a_board(board, tmp_path):
    r = run(app, ["watch", "--once", "--port", board.path])  # the stand-in: no game
    assert r.exit_code == 1
    for cmd in (["time"], ["settings"], ["pair", "--pin", PIN], ["watch", "--once"]):
        r = run(app, cmd + ["--port", str(tmp_path / "nope")])
        assert r.exit_code == 2, (cmd, r.output)


def test_keys_file_is_replaced_atomically(config):
    keys.store("a", b"\x01")
    keys.store("b", b"\x02")
    assert sorted(p.name for p in Path(config).iterdir()) == ["keys.json"]
    (config / "keys.json").write_text("not json")
    assert keys.load() == {} and keys.get("a") is None


def test_watch_view_follows_events():
    from host_tools.live.watch import View

    v = View()
    v.load({"game": "go9", "size": 9, "moves": [], "colours": [], "clock": {}, "result": ""})
    # black surrounds a white stone at (1, 0): white's stone is captured
    for ply, (colour, x, y) in enumerate(
        [(1, 0, 0), (2, 1, 0), (1, 2, 0), (2, 5, 5), (1, 1, 1)], start=1
    ):
        v.apply({"event": "move", "ply": ply, "colour": colour, "point": y << 5 | x})
    assert v.stones() == {(0, 0): 1, (2, 0): 1, (1, 1): 1, (5, 5): 2}
    v.apply({"event": "undo", "ply": 4})
    assert (1, 0) in v.stones() and (1, 1) not in v.stones()
    v.apply({"event": "incident", "kind": 5, "move": 5, "points": [3 << 5 | 3]})
    v.apply({"event": "incident", "kind": 4, "move": 5, "points": [8 << 5 | 8], "detail": 3})
    v.apply({"event": "clock", "state": "paused", "running": 1, "clocks": [61000, 0, 5000, 2]})
    v.apply({"event": "result", "result": "B+R"})
    text = v.text()
    assert "move 5: a stone of the wrong colour (D4)" in text and "result: B+R" in text
    assert "move 5: a move the rules do not allow: ko: play elsewhere first (J9)" in text
    # no time control known: the main time as the faces write it (m:ss, m:ss.t under 10 s)
    assert "  ● Black     1:01\n" in text and "  ○ White   0:05.0\n" in text
    assert "clock: paused" in text
    assert "last F6 (White)" in text  # the undo took move 5 back
    v.apply({"event": "game", "game": "renju", "size": 15})
    assert v.need_state
    v.render()  # the live view builds


def test_the_host_signs_what_the_board_wants_signed():
    from firmware.link.server import _OPEN
    from host_tools.common.link import OPEN

    assert OPEN == _OPEN  # the reads the board takes unsigned, the same on both ends
