"""tests/mp_run.py, driven through the real MicroPython unix port (CPython only)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")

SAMPLE = """
from tests.support import skip


def test_passes():
    assert 1 + 1 == 2


def test_fails():
    assert 1 + 1 == 3, "arithmetic"


def test_skips():
    skip("not today")


def helper_not_collected():
    raise RuntimeError("must not run")
"""


def run_mp(*args):
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    return subprocess.run(
        [str(MICROPYTHON), "tests/mp_run.py", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_counts_pass_fail_skip_and_exits_1(tmp_path):
    test_file = tmp_path / "test_sample.py"
    test_file.write_text(SAMPLE)
    result = run_mp(test_file)
    lines = result.stdout.splitlines()
    assert lines[-1] == "1 passed, 1 failed, 1 skipped", result.stdout
    assert "FAIL test_sample.test_fails: AssertionError: arithmetic" in lines
    assert "SKIP test_sample.test_skips: not today" in lines
    assert result.returncode == 1


def test_all_passing_exits_0_and_k_filters(tmp_path):
    test_file = tmp_path / "test_sample2.py"
    test_file.write_text(SAMPLE)
    result = run_mp(test_file, "-k", "passes")
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed, 0 skipped", result.stdout
    assert result.returncode == 0


def test_import_error_is_one_failure(tmp_path):
    test_file = tmp_path / "test_broken.py"
    test_file.write_text("import no_such_module_here\n")
    result = run_mp(test_file)
    assert result.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped", result.stdout
    assert result.returncode == 1
