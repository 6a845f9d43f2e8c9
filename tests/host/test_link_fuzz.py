"""The link's fuzz and floods (tests/test_link.py) at full size on the MicroPython unix port, each
in a bounded heap (``-X heapsize``):

- 10^5 random and mutated lines (invalid UTF-8 of every kind among them) while a game is played
  through ``Match``: no exception, one reply per line, each strict UTF-8 JSON with its line's id,
  never ``internal``, the clock exact (4 MB: the simulated grid and a 512 KB RAM flash);
- 30,000 ``settings`` requests (new and oversized keys, oversized values, invalid UTF-8, lines
  too long, valid changes in between) in a 384 KB heap: every reply with its id, none
  ``internal``, the heap as it was after the first 200 (within 4 KB);
- requests answered in a heap filled but for 0 to 64 KB: the right reply or ``no_memory``,
  always with the request's id.

The 384 KB hold the test and the firmware compiled from source, which the unix port does in
the same heap (on the board the modules are frozen: nothing is compiled); at 256 KB the
compile alone failed in some checkouts (a longer path, a larger parse of ``server.py``), and at
320 KB once ``server.py`` signed its commands (CI's 150-character clone path).
"""

import json
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


def _run(heap, keyword, **env):
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    done = subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=" + heap, "tests/mp_run.py", "tests/test_link.py"]
        + ["-k", keyword],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, **env),
    )
    last = done.stdout.splitlines()[-1] if done.stdout else ""
    assert done.returncode == 0 and last.startswith("1 passed, 0 failed"), (
        done.stdout + done.stderr
    )


@pytest.mark.slow(7)
def test_link_fuzz_100k_lines_on_micropython():
    _run("4M", "fuzz_lines_while", TENGEN_LINK_FUZZ="100000")


def test_settings_flood_30k_requests_in_a_small_heap():
    _run("384k", "settings_flood", TENGEN_LINK_FLOOD="30000")


def test_requests_in_a_nearly_full_heap_keep_their_id():
    _run("384k", "nearly_full_heap")


def test_the_stand_in_board_bounds_its_lines_as_serve_does(tmp_path):
    # firmware/link/stdio.py, the PC tests' board: a 300 KB line in a 512 KB heap is answered
    # too_long and the next request answered, as the board's own serve does (it read the whole
    # line into one object before: MemoryError).
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    hello = b'{"v":1,"id":%d,"cmd":"hello"}\n'
    data = hello % 1 + b'{"v":1,"id":2,"cmd":"hello","x":"' + b"a" * 300_000 + b'"}\n'
    data += hello % 3
    done = subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=512k", "-m", "firmware.link.stdio", str(tmp_path)],
        input=data,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r.get("id"), r["ok"], r.get("error")) for r in replies] == [
        (1, True, None),
        (2, False, "too_long"),
        (3, True, None),
    ]
