"""The sensor self-test a maker runs on a new board, end to end on the virtual board (both
runtimes): the link's ``selftest`` (firmware/link/server.py) starts the app's run
(firmware/app.py ``selftest``, firmware/ui/calibrate.py ``SelfTesting``), the scans go through
firmware/sensing/selftest.py, the faces say it, and the link answers with the faulty points.

The board is ``firmware/board.py``'s ``build`` on ``firmware/hal/virtual.py``'s hardware, with
a sensor killed after the calibration (``make_hardware(dead=...)``: the same hook as the
virtual board's ``TENGEN_SIM_DEAD``), as one that fails on a board already calibrated.
"""

import json

from firmware import board
from firmware.hal import virtual as V
from firmware.sensing.calibration import F_DEAD, Calibration
from firmware.sensing.grid import UNCERTAIN, Sensing
from firmware.sensing.selftest import Known, fault_names, selftest
from firmware.store.journal import read_file, write_atomic
from firmware.ui.calibrate import TEST_FRAMES
from tests.test_journal import fresh_root

D4 = 3 * 19 + 3  # its frame index: y * n + x
_cal = []


class _Line:
    """The PC's end of the link: what the board wrote, line by line."""

    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += data
        return len(data)

    def flush(self):
        pass


class _Board:
    """A virtual board (a fresh flash with the one calibration of these tests) and its link."""

    def __init__(self, dead=()):
        root = fresh_root(blocks=128)[: -len("/games")]
        if not _cal:  # calibrated once, healthy: the dead sensor dies afterwards
            V.make_hardware(root, dead=[])
            _cal.append(read_file(root + V.CALIBRATION))
        else:
            write_atomic(root + V.CALIBRATION, _cal[0])
        self.link = _Line()
        self.hw = V.make_hardware(root, self.link, dead=list(dead))
        self.app, self.server = board.build(self.hw)
        self.next_id = 1
        self.run(200)
        self.hw.buzzer.take()

    def run(self, ms):
        """Let ``ms`` pass, the app's pass every 10 ms (the virtual board's scan)."""
        for _ in range(ms // 10):
            self.hw.skip(10)
            self.app.step(self.hw.now())

    def ask(self, cmd, **fields):
        req = {"v": 1, "id": self.next_id, "cmd": cmd}
        req.update(fields)
        self.next_id += 1
        start = len(self.link.data)
        self.server.feed(json.dumps(req).encode() + b"\n")
        while self.server.poll():
            pass
        return json.loads(self.link.data[start:].decode().strip().split("\n")[-1])

    def seen(self, k=0):
        return V.read(self.hw.chips[k].ram).line()

    def test_until_done(self):
        """Poll ``selftest`` as ``tengen selftest`` does until it is done; its reply."""
        for _ in range(50):
            r = self.ask("selftest")
            assert r["ok"], r
            if r.get("done"):
                return r
            assert r == {"v": 1, "id": r["id"], "ok": True, "running": True}, r
            self.run(20)
        raise AssertionError("the self-test never finished")


def test_a_healthy_board_has_no_fault_and_the_faces_say_so():
    b = _Board()
    r = b.ask("selftest", start=True)
    assert r["ok"] and r["running"] is True
    b.run(10)  # the next pass draws the faces
    assert b.seen(0) == V.shown("TEST.") and b.seen(1) == V.shown("TEST.")
    r = b.test_until_done()
    assert r["frames"] == TEST_FRAMES and r["points"] == 361
    assert r["count"] == 0 and r["faults"] == [] and "error" not in r
    assert b.seen(0) == V.shown("TEST.OK") and b.seen(1) == V.shown("TEST.OK")
    assert "CONFIRM" in b.hw.buzzer.take()
    b.run(9000)  # a few seconds later: the clock again
    assert "TEST" not in b.seen(0)
    assert b.ask("selftest")["count"] == 0  # the result is kept for the link
    assert not b.app.match.sensing.bad_points()


def test_a_dead_sensor_is_named_marked_and_shown():
    b = _Board(dead=[(3, 3, "high")])
    assert b.ask("selftest")["running"] is True  # no result yet: asking starts a run
    r = b.test_until_done()
    assert r["count"] == 1, r
    f = r["faults"][0]
    assert f["point"] == "D4" and f["index"] == D4 and f["faults"] == ["dead"]
    assert f["message"].startswith("D4: dead (pinned at 4095)")
    # The faces: how many, then the first point's fault, by turns.
    shown = set()
    for _ in range(5):
        shown.add(b.seen(1))
        b.run(1000)
    assert V.shown("BAD", "1") in shown and V.shown("PINNED", "D4") in shown, shown
    assert "REFUSE" in b.hw.buzzer.take()
    s = b.app.match.sensing  # in play the point reads UNCERTAIN: the referee sees no stone
    assert s.faults[D4] & F_DEAD and s.states[D4] == UNCERTAIN and s.bad_points() == [D4]
    # Kept until a new run; that one also names what is known already.
    assert b.ask("selftest")["faults"][0]["point"] == "D4"
    assert b.ask("selftest", start=True)["running"] is True
    again = b.test_until_done()
    assert again["count"] == 1 and "known bad: dead" in again["faults"][0]["message"]


def test_refused_during_a_game_with_the_reason():
    b = _Board()
    assert b.ask("start")["ok"]
    b.run(100)
    r = b.ask("selftest", start=True)
    assert not r["ok"] and r["error"] == "in_progress" and "game" in r["message"], r
    r = b.ask("selftest")
    assert not r["ok"] and r["error"] == "in_progress"
    assert b.app.testing is None
    assert not b.ask("selftest", start="yes")["ok"]  # start is true or false
    b.app.match.resign(1, b.hw.now())  # over: the sensors may be tested again
    b.run(100)
    assert b.ask("selftest", start=True)["running"] is True


def test_the_check_on_the_board_uses_what_its_sensing_knows():
    # The board's sensing keeps no Calibration: Known gives selftest its bad points.
    cal = Calibration.nominal(5)
    cal.faults[7] = F_DEAD
    s = Sensing(5, cal)
    k = Known(s)
    assert k.size == 5 and k.problems() == [(7, F_DEAD, "C2: dead")]
    frames = []
    for j in range(6):
        f = [2048 + (i + j) % 3 for i in range(25)]
        f[12] = 4095  # C3 pinned
        frames.append(f)
    found = selftest(frames, k)
    assert [(i, m) for i, _, m in found] == [
        (7, "C2: known bad: dead"),
        (12, "C3: dead (pinned at 4095)"),
    ]
    assert fault_names(found[1][1]) == ["dead"] and fault_names(3) == ["dead", "stuck"]


def test_the_virtual_boards_dead_sensors_from_words():
    assert V.dead_sensors("D4 k10:low t19:flat") == [
        (3, 3, "high"),
        (9, 9, "low"),
        (18, 18, "flat"),
    ]
    assert V.dead_sensors("") == [] and V.dead_sensors(None) == []
