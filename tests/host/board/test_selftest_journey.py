"""A maker's sensor self-test, end to end: the installed ``tengen selftest`` reaches a virtual
board (``python -m host_tools.board.sim``, test_virtual_board.py's ``Sim``) over its pty. A healthy
board: exit 0, "no fault", ``TEST.OK`` on the faces; during a game it refuses: exit 2 with
the reason. A board with that calibration whose D4 sensor has died since
(``TENGEN_SIM_DEAD=D4``, read by firmware/hal/virtual.py): exit 1 and the point named, on the
faces too.
"""

import json
import os
import subprocess

import pytest

from firmware.hal.virtual import DEAD_ENV, shown
from host_tools.common.link import RUNTIME_ENV, Link
from tests.host.board.test_virtual_board import MICROPYTHON, TENGEN, Sim

pytestmark = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e.pop(DEAD_ENV, None)
    e[RUNTIME_ENV] = str(tmp_path / "run")  # our own boards only
    e["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")  # no paired keys of the user's
    return e


def _selftest(sim, *args):
    r = subprocess.run(
        [str(TENGEN), "selftest", "--port", sim.link, *args],
        capture_output=True,
        text=True,
        env=sim.env,
        timeout=120,
    )
    return r.returncode, r.stdout, r.stderr


@pytest.mark.slow(5)
def test_a_healthy_board_a_game_then_a_dead_sensor(tmp_path, env):
    flash = tmp_path / "flash"
    sim = Sim(flash, env)
    try:
        code, out, errs = _selftest(sim)
        assert code == 0, (out, errs)
        assert out.strip() == "no fault: 361 sensors over 16 scans", out
        sim.do("wait 300")
        assert sim.last("face B ") == "face B " + shown("TEST.OK"), sim.said[-8:]

        with Link(sim.link) as link:  # a game begins: the board refuses the test
            link.request("start")
        code, out, errs = _selftest(sim)
        assert code == 2 and "in_progress" in errs and "game" in errs, (out, errs)
    finally:
        assert sim.close() == 0

    # Another board with this one's calibration, whose D4 sensor has died since.
    other = tmp_path / "other"
    other.mkdir()
    (other / "calibration.json").write_bytes((flash / "calibration.json").read_bytes())
    dead = Sim(other, dict(env, **{DEAD_ENV: "D4"}))
    try:
        code, out, errs = _selftest(dead)
        assert code == 1, (out, errs)
        lines = out.strip().splitlines()
        assert lines[0] == "D4   dead: dead (pinned at 4095)", out
        assert lines[-1].startswith("1 faulty point (361 sensors over 16 scans)"), out
        dead.do("wait 2500")  # the faces: how many, and which, by turns
        faces = [ln for ln in dead.said if ln.startswith("face W ")]
        assert "face W " + shown("PINNED", "D4") in faces, faces[-6:]
        assert "face W " + shown("BAD", "1") in faces, faces[-6:]
        code, out, errs = _selftest(dead, "--json")
        assert code == 1
        result = json.loads(out)
        assert result["count"] == 1 and result["faults"][0]["point"] == "D4", result
        assert result["faults"][0]["faults"] == ["dead"]
    finally:
        assert dead.close() == 0
