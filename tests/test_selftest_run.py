"""The sensor self-test a maker runs on a new board, end to end on the virtual board (both
runtimes): the link's ``selftest`` (firmware/link/server.py) starts the app's run
(firmware/game/app.py ``selftest``, firmware/ui/calibrate.py ``SelfTesting``), the scans go through
firmware/sensing/selftest.py, the faces say it, and the link answers with the faulty points.

The board is ``tests/rig.py``'s ``BoardRig`` (``firmware/boot/board.py``'s ``build`` on the virtual
hardware), with a sensor killed after the calibration (``make_hardware(dead=...)``: the same
hook as the virtual board's ``TENGEN_SIM_DEAD``), as one that fails on a board already
calibrated.
"""

from firmware.hal import virtual as V
from firmware.sensing.calibration import F_DEAD, Calibration
from firmware.sensing.grid import UNCERTAIN, Sensing
from firmware.sensing.selftest import Known, fault_names, selftest
from firmware.store.journal import read_file, write_atomic
from firmware.ui.calibrate import TEST_FRAMES
from tests.rig import BoardRig
from tests.test_journal import fresh_root

D4 = 3 * 19 + 3  # its frame index: y * n + x
_cal = []


def _board(dead=()):
    """A virtual board (``tests/rig.py``'s ``BoardRig``) on a fresh flash with the one
    calibration of these tests, its sounds so far taken."""
    root = fresh_root(blocks=128)[: -len("/games")]
    if not _cal:  # calibrated once, healthy: the dead sensor dies afterwards
        V.make_hardware(root, dead=[])
        _cal.append(read_file(root + V.CALIBRATION))
    else:
        write_atomic(root + V.CALIBRATION, _cal[0])
    b = BoardRig(root=root, dead=dead)
    b.heard()
    return b


def _until_done(b):
    """Poll ``selftest`` as ``tengen selftest`` does until it is done; its reply."""
    for _ in range(50):
        r = b.ask("selftest")
        assert r["ok"], r
        if r.get("done"):
            return r
        assert r == {"v": 1, "id": r["id"], "ok": True, "running": True}, r
        b.run(20)
    raise AssertionError("the self-test never finished")


def test_a_healthy_board_has_no_fault_and_the_faces_say_so():
    b = _board()
    r = b.ask("selftest", start=True)
    assert r["ok"] and r["running"] is True
    b.run(10)  # the next pass draws the faces
    assert b.seen("b") == V.shown("TEST.") and b.seen("w") == V.shown("TEST.")
    r = _until_done(b)
    assert r["frames"] == TEST_FRAMES and r["points"] == 361
    assert r["count"] == 0 and r["faults"] == [] and "error" not in r
    assert b.seen("b") == V.shown("TEST.OK") and b.seen("w") == V.shown("TEST.OK")
    assert "CONFIRM" in b.heard()
    b.run(9000)  # a few seconds later: the clock again
    assert "TEST" not in b.seen("b")
    assert b.ask("selftest")["count"] == 0  # the result is kept for the link
    assert not b.app.match.sensing.bad_points()


def test_a_dead_sensor_is_named_marked_and_shown():
    b = _board(dead=[(3, 3, "high")])
    assert b.ask("selftest")["running"] is True  # no result yet: asking starts a run
    r = _until_done(b)
    assert r["count"] == 1, r
    f = r["faults"][0]
    assert f["point"] == "D4" and f["index"] == D4 and f["faults"] == ["dead"]
    assert f["message"].startswith("D4: dead (pinned at 4095)")
    # The faces: how many, then the first point's fault, by turns.
    shown = b.seen_over("w", 5000, every=1000)
    assert V.shown("BAD", "1") in shown and V.shown("PINNED", "D4") in shown, shown
    assert "REFUSE" in b.heard()
    s = b.app.match.sensing  # in play the point reads UNCERTAIN: the referee sees no stone
    assert s.faults[D4] & F_DEAD and s.states[D4] == UNCERTAIN and s.bad_points() == [D4]
    # Kept until a new run; that one also names what is known already.
    assert b.ask("selftest")["faults"][0]["point"] == "D4"
    assert b.ask("selftest", start=True)["running"] is True
    again = _until_done(b)
    assert again["count"] == 1 and "known bad: dead" in again["faults"][0]["message"]


def test_refused_during_a_game_with_the_reason():
    b = _board()
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
