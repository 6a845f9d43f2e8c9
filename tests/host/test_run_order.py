"""make test's order for its parallel workers (tests/conftest.py): the longest tests first, and
the tests that share a costly fixture on one worker. Checked on a small suite of its own, run by
pytest-xdist as make test runs it (``--dist loadgroup``): a grouping that is silently ignored
(as xdist's own was under pytest 9.2) costs minutes a run and no test would fail."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
import sys
sys.path.insert(0, %r)
from tests.conftest import (  # noqa: F401  the project's hooks, as its own suite has them
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_terminal_summary,
)
"""

SHARED = """
import time
import pytest

MADE = []


@pytest.fixture(scope="module")
def costly():
    MADE.append(1)
    return len(MADE)


@pytest.mark.parametrize("i", range(6))
def test_shares_it(costly, i):
    time.sleep(0.1)
    assert costly == 1
"""

PLAIN = """
import time
import pytest


@pytest.mark.parametrize("i", range(6))
def test_plain(i):
    time.sleep(0.1)


@pytest.mark.slow(30)
def test_long():
    time.sleep(0.1)


@pytest.mark.xdist_group("pair")
def test_first_of_a_pair():
    pass


@pytest.mark.xdist_group("pair")
def test_second_of_a_pair():
    pass
"""


def _suite(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST % str(ROOT))
    (tmp_path / "test_shared.py").write_text(textwrap.dedent(SHARED))
    (tmp_path / "test_plain.py").write_text(textwrap.dedent(PLAIN))
    return tmp_path


def _pytest(folder, *args):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(folder)]
        + list(args),
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_longest_first_and_a_group_in_one_piece(tmp_path):
    folder = _suite(tmp_path)
    r = _pytest(folder, "--collect-only", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    ids = [ln for ln in r.stdout.splitlines() if "::" in ln]
    assert ids[0] == "test_plain.py::test_long"  # marked 30 s: before everything
    shared = [i for i, n in enumerate(ids) if "test_shares_it" in n]
    assert shared == list(range(shared[0], shared[0] + 6))  # one unit, in its order


def test_the_workers_keep_each_group_on_one_worker(tmp_path):
    folder = _suite(tmp_path)
    r = _pytest(folder, "-n", "3", "--dist", "loadgroup", "-v")
    assert r.returncode == 0, r.stdout + r.stderr
    ran = re.findall(r"^\[(gw\d)\] \[ *\d+%\] PASSED (\S+)", r.stdout, re.M)
    assert len(ran) == 15, r.stdout
    workers = {}
    for gw, nodeid in ran:
        workers.setdefault(nodeid.split("::")[0] + nodeid.partition("@")[2], set()).add(gw)
    # The module's fixture made once: all six on one worker (and the fixture's count says 1).
    assert len(workers["test_shared.py" + "test_shared.py"]) == 1, workers
    assert len(workers["test_plain.pypair"]) == 1, workers
    assert all("@" in n for _, n in ran if "shares_it" in n or "pair" in n)
