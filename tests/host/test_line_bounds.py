"""Every line server the project runs on the PC bounds its lines as the board's link does.

The board's ``serve`` (``protocol.Framer``, tests/test_link.py) and the PC tests' stand-in board
(``firmware/link/stdio.py``, tests/host/test_link_fuzz.py) answer a line over their bound
``too_long``; GTP (tests/host/test_gtp_process.py, test_gtp_board.py) answers ``? line too
long``. Here the others, each with a 32 KB line, then a request that must still be answered:
the virtual board's hands in simulated time (``firmware/virtual/board.py --simulated``, its
stdin read a line at a time, in a heap where holding the line whole failed), in real time
(its stdin written to directly) and ``tengen sim`` headless (``host_tools/board/sim.py``, which reads the hands' lines
before the board does). The link clients (``host_tools/common/link.py``: board_player, scripted,
sync) read replies, not requests: their buffer is dropped past 1 MiB.
"""

import queue
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host_tools.board.sim import Board
from tests.host.board.test_virtual_board import Sim, env  # noqa: F401 (env: a fixture)

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
LONG = "x" * 32768
HEAP = "800k"  # the whole board runs in 700 KB (its calibration's checkerboard the most of it)


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_the_simulated_board_answers_a_32k_line_and_goes_on(runtime):
    if runtime == "micropython" and not MICROPYTHON.exists():
        pytest.skip("micropython (unix port) not installed")
    # HEAP: the board's own heap and room to spare, not a 32 KB line's copies (the old
    # simulator echoed the whole line in its answer: MemoryError there).
    cmd = (
        [str(MICROPYTHON), "-X", "heapsize=" + HEAP]
        if runtime == "micropython"
        else [sys.executable]
    )
    done = subprocess.run(
        cmd + ["-m", "firmware.virtual.board", "--simulated"],
        input="frobnicate\n%s\nfoo\nquit\n" % LONG,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert [line for line in said if line.startswith("?")] == [
        "? unknown command: frobnicate (put lift slide press key wait skip show echo quit)",
        "? line too long (at most 4096 bytes)",
        "? unknown command: foo (put lift slide press key wait skip show echo quit)",
    ]
    assert said[-1] == "bye quit" and not [line for line in said if "xxxx" in line]


def _until(board, line, timeout=60):
    said = []
    end = time.monotonic() + timeout
    while not said or said[-1] != line:
        try:
            said.append(board.lines.get(timeout=max(0.1, end - time.monotonic())))
        except queue.Empty:
            raise AssertionError("no %r after %r" % (line, said[-5:])) from None
        assert said[-1] is not None, said[-5:]
    return said


def test_the_virtual_board_answers_a_32k_command_line_and_goes_on(tmp_path, env):  # noqa: F811
    board = Board(tmp_path / "flash", quiet=True)
    try:
        assert board.send("echo up")
        _until(board, "echo up")
        assert board.send(LONG) and board.send("echo after")
        said = _until(board, "echo after")
        assert "? line too long (at most 4096 bytes)" in said, said
        assert not [line for line in said if "xxxx" in line], said
    finally:
        board.close()


def test_tengen_sim_headless_answers_a_32k_line_and_goes_on(tmp_path, env):  # noqa: F811
    sim = Sim(tmp_path / "flash", env)
    try:
        said = sim.do(LONG)
        assert "? line too long (at most 4096 characters)" in said, said
        assert not [line for line in said if "xxxx" in line], said
    finally:
        sim.close()
