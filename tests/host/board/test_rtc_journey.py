"""The calendar time through a power cycle, end to end: the installed ``tengen time --set``
reaches a virtual board (``python -m host_tools.board.sim``, test_virtual_board.py's ``Sim``) over
its pty, the board is stopped, a new one starts on the same flash folder, and ``tengen time``
(which only reads the time, it never sets it) shows this PC's time: the board took it from
its PCF8563 (emulated, kept in the folder's rtc.bin) at boot, with no PC.
"""

import json
import os
import time

import pytest

from host_tools.common.link import RUNTIME_ENV
from tests.host.board.test_virtual_board import MICROPYTHON, TENGEN, Sim

pytestmark = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)

# The board's second and the PC's are whole seconds, each rounded down: a read can trail the
# PC by under 2 s however slow the machine (the chip's time runs on the host's own clock).
CLOSE_S = 3


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e[RUNTIME_ENV] = str(tmp_path / "run")  # our own boards only
    e["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")  # no paired keys of the user's
    return e


def test_the_board_knows_the_time_after_a_power_cycle_with_no_pc(tmp_path, env):
    flash = tmp_path / "flash"
    sim = Sim(flash, env)
    try:
        before = json.loads(sim.tengen("time", "--port", sim.link, "--json"))
        assert before["epoch"] is None  # a new board: the chip never set
        sim.tengen("time", "--port", sim.link, "--set")
    finally:
        assert sim.close() == 0
    assert (flash / "rtc.bin").is_file()

    again = Sim(flash, env)  # the power back: the same folder, nobody sets the time
    try:
        shown = json.loads(again.tengen("time", "--port", again.link, "--json"))
        assert shown["epoch"] is not None, shown
        assert abs(shown["epoch"] - int(time.time())) <= CLOSE_S, shown
        assert abs(shown["drift"]) <= CLOSE_S, shown
    finally:
        assert again.close() == 0
