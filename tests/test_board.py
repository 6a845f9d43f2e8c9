"""The board's wiring (firmware/board.py) on a bench: power cuts, settings that cannot brick it.

A bench HAL gives ``board.build`` the simulated grid, recorded faces and buzzer, keys, paddles
and the link's output, with the flash as a folder (a LittleFS on MicroPython): the same wiring
as the device and the virtual board. A "power cut" is dropping the app mid-game and building
the board again on the same flash. Both runtimes.
"""

import json

from firmware import board
from firmware.clock.clock import BLACK, PAUSED, RUNNING
from firmware.match import PLAY
from firmware.store.journal import read_file, write_atomic
from tests import rig as R
from tests.test_journal import fresh_root


class Bench:
    """A HAL for firmware/board.py with everything recorded (see its header)."""

    def __init__(self, root, seed=9):
        self.root = root
        self.scanner, cal = R.grid_for(seed)
        write_atomic(root + board.CALIBRATION, json.dumps(cal.to_dict()).encode())
        self.faces = (R.Face(), R.Face())
        self.buzzer = R.Buzzer()
        self.levels = 0
        self.t = 0
        self.keys = lambda: self.levels
        self.now = lambda: self.t
        self.board_id = "bench"
        self.set_rtc = None
        self.sent = []
        self.link_out = self.sent.append
        self.hit = None

    def attach_paddles(self, hit):
        self.hit = hit


class Board(R.Rig):
    """``tests/rig.py``'s hands and eyes on a board built by ``board.build``."""

    def __init__(self, root, hw=None):
        self.hw = hw or Bench(root)
        self.app, self.server = board.build(self.hw)
        self.grid = self.hw.scanner
        self.faces = self.hw.faces
        self.buzzer = self.hw.buzzer
        self.heard_at = 0
        self.run(200)

    # The bench's time and keys are the rig's.
    now = property(lambda self: self.hw.t, lambda self, v: setattr(self.hw, "t", v))
    levels = property(lambda self: self.hw.levels, lambda self, v: setattr(self.hw, "levels", v))

    def ask(self, cmd, **fields):
        req = {"v": 1, "id": len(self.hw.sent) + 1, "cmd": cmd}
        req.update(fields)
        reply = self.server.handle(json.dumps(req).encode())
        return json.loads(reply)


def _root():
    return fresh_root(blocks=128)[: -len("/games")]


def test_a_power_cut_mid_game_resumes_paused_and_a_settings_change_waits():
    root = _root()
    write_atomic(root + board.SETTINGS, b'{"game": "go", "size": 9, "time": "quick"}')
    b = Board(root)
    assert b.match.game.board.size == 9
    b.key("pause")
    for v, c in (("E5", "b"), ("C3", "w"), ("G7", "b")):
        b.put(v, c)
        b.run(3000)
        b.press(c)
    clocks = b.match.clocks()
    assert b.match.game.ply == 3
    # Between the cut and the restart, the PC changes the board's settings.
    r = b.ask("settings", set={"game": "renju"})
    assert r["ok"], r
    assert b.match.game.board.size == 9  # the game in progress is not touched
    b.run(5000)
    # The power is cut: build the board again on the same flash.
    b2 = Board(root, Bench(root))
    m = b2.match
    assert m.game.board.size == 9 and m.game.ply == 3 and m.phase == PLAY
    assert m.clock.state == PAUSED and m.clocks() == clocks
    assert "PAUSE" in b2.seen("w")
    # The stones are on the board (the grid is the same): the players resume with PAUSE.
    b2.key("pause")
    assert m.clock.state == RUNNING and m.clock.running == 2
    b2.put("C7", "w")
    b2.press("w")
    assert m.game.ply == 4 and b2.journal_moves() == 4
    # The next game is the new settings' (after this one ends).
    b2.key("plus+minus")
    b2.key("mode")
    assert m.result == "W+R"  # Black's clock ran: Black resigned
    b2.key("pause")
    assert b2.match.game.board.size == 15 and b2.match.settings["game"] == "renju"


def _journal_moves(self):
    from firmware.store import records as Rec

    j = self.app.journal
    return sum(1 for r in j.records(j.game_no) if r[0] == Rec.MOVE)


Board.journal_moves = _journal_moves


def test_invalid_settings_from_the_link_are_refused():
    root = _root()
    b = Board(root)
    before = read_file(root + board.SETTINGS)
    for change in ({"time": "45min"}, {"game": "chess"}, {"colour": "red"}, {"volume": 9}):
        r = b.ask("settings", set=change)
        assert not r["ok"] and r["error"] == "bad_value", r
        assert list(change)[0] in r["message"], r
    assert read_file(root + board.SETTINGS) == before
    assert b.ask("settings", set={"time": "quick", "volume": 0})["ok"]
    assert json.loads(read_file(root + board.SETTINGS))["time"] == "quick"


def test_a_damaged_or_invalid_settings_file_boots_to_defaults_and_says_so():
    from firmware import settings as S

    for data in (b"{not json", b'{"time": "45min", "game": "chess", "volume": 1}', b"\xff" * 3000):
        root = _root()
        write_atomic(root + board.SETTINGS, data)
        b = Board(root)
        assert b.match.settings["time"] == S.DEFAULTS["time"]
        assert b.match.settings["game"] == "go" and b.match.game.board.size == 19
        assert b.seen("b") == "RESET SET" == b.seen("w")
        assert "REFUSE" in b.heard()
        assert any(w == "settings" for w, _ in b.app.errors)
        b.run(7000)
        assert b.seen("b") == "2:55:00 #1"  # then the clock: 3 h, the last 5 min counted
        b.key("pause")
        assert b.match.clock.state == RUNNING and b.match.clock.running == BLACK
