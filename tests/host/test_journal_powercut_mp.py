"""tests/test_journal_powercut.py needs VfsLfs2, so pytest runs it on the MicroPython unix port."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")


@pytest.mark.parametrize("test_file", ["tests/test_journal_powercut.py", "tests/test_journal.py"])
def test_journal_on_littlefs(test_file):
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    done = subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=64M", "tests/mp_run.py", test_file],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    last = done.stdout.splitlines()[-1] if done.stdout else ""
    assert done.returncode == 0 and " 0 failed, 0 skipped" in last, done.stdout + done.stderr
