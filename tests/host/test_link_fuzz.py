"""The link's fuzz (tests/test_link.py) at 10^5 lines, on the MicroPython unix port, while a
game is played through ``Match``: no exception, one reply per line, the clock exact."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")


def test_link_fuzz_100k_lines_on_micropython():
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    done = subprocess.run(
        [str(MICROPYTHON), "tests/mp_run.py", "tests/test_link.py", "-k", "fuzz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, TENGEN_LINK_FUZZ="100000"),
    )
    last = done.stdout.splitlines()[-1] if done.stdout else ""
    assert done.returncode == 0 and last.startswith("1 passed, 0 failed"), (
        done.stdout + done.stderr
    )
