"""pytest setup: the repository root goes on sys.path so tests import ``firmware`` and
``tests.support`` exactly as tests/mp_run.py arranges it on MicroPython; then the run's order
for make test's parallel workers (``pytest_collection_modifyitems``, below)."""

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Importing the firmware package installs its CPython stand-in for the ``micropython`` module,
# so test files may ``import micropython`` (heap_lock, const) as they do on the board.
import firmware  # noqa: E402, F401

# ---- the run's order: the longest first, what shares a costly fixture on one worker ----------
#
# make test runs pytest on several workers (pytest-xdist, ``--dist loadgroup``); a worker takes
# the next test when it is done with one. Two things keep the run short:
# - the longest tests start first (they are marked ``slow(seconds)``): a 70 s journey that
#   starts last holds the whole run for 70 s while the other workers idle;
# - the tests that share a fixture made once (a session's: the chip's images, the hardware
#   design's outputs; a module's: a reference built from the corpus, a board on the emulated
#   chip) run on one worker, so it is made once, not once per worker.
# The terminal summary names every test that took over ``UNMARKED_S`` without the mark.

UNMARKED_S = 10.0
# The long tests of tests/*.py, which also run on MicroPython and so cannot import pytest for
# a mark: their usual seconds here.
SLOW_HERE = {
    "tests/test_go_rules.py::test_long_random_game_matches_a_reference_and_undoes_exactly": 30,
    "tests/test_go_referee.py::test_simple_ko_games_agree_with_gnugo": 8,
    "tests/test_journeys.py::test_resignation_from_the_keys_and_a_loss_on_time": 8,
    "tests/test_physical_replay.py::test_corpus_games_replayed_stone_by_stone": 7,
    "tests/test_powercut_clock.py::test_cuts_in_byoyomi_keep_the_periods_and_the_period_s_time": 6,
    "tests/test_powercut_clock.py::test_charged_the_off_time_is_taken_exactly_down_to_the_flag": 10,
    "tests/test_clock_game.py::test_every_control_over_a_whole_game": 13,
    "tests/test_board.py::test_the_boot_log_keeps_only_its_last_few_kb_of_whole_entries": 8,
}
_DEFAULT_S = 0.5  # an unmarked test's weight in the order


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow(seconds): a long test, started first (its usual duration, about)"
    )


def _group(item):
    """The worker group of a test: the costly fixture it shares, else None."""
    for mark in item.iter_markers("xdist_group"):
        return mark.args[0] if mark.args else mark.kwargs.get("name")
    names = item.fixturenames
    if "hardware_out" in names:  # a minute to make; its users take seconds: one worker
        return "hardware"
    # The chip's images are made once a clone under a lock, and each emulated chip keeps a
    # core busy: its tests share one worker (test_chip_journeys, with its own board on the
    # emulated chip all along, is a second: at most two chips run at once).
    if "chip_images" in names or "emu" in names:
        return "chip"
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        if defs and defs[-1].scope == "module" and defs[-1].baseid:  # the module's own
            return item.nodeid.split("::")[0]
    return None


def _test_id(nodeid):
    """A test's id without its parameters and its group: the key of ``SLOW_HERE``."""
    return nodeid.split("[")[0].split("@")[0]


def _weight(item):
    mark = item.get_closest_marker("slow")
    if mark and mark.args:
        return float(mark.args[0])
    return float(SLOW_HERE.get(_test_id(item.nodeid), _DEFAULT_S))


def _join(item, group):
    """Put ``item`` in xdist's ``group``: what xdist's worker does for ``--dist loadgroup``
    (``@group`` after the test's id, which the scheduler reads). xdist 3.8 writes the id to
    ``item._nodeid``, which pytest 9.2 no longer reads (the id is ``item._id``): its groups were
    silently ignored. Done here for both (tests/host/test_run_order.py checks it works)."""
    new = "%s@%s" % (item.nodeid, group)
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(new)
    else:
        item._nodeid = new


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    units = {}  # group (or the test itself) -> [weight, first index, items]
    for i, item in enumerate(items):
        g = _group(item)
        if (
            g is not None
            and getattr(config.option, "loadgroup", False)
            and not item.nodeid.endswith("@" + g)
        ):
            _join(item, g)
        unit = units.setdefault(g if g is not None else ("", i), [0.0, i, []])
        unit[0] += _weight(item)
        unit[2].append(item)
    # Heaviest unit first; ties keep the collected order (the same on every worker).
    order = sorted(units.values(), key=lambda u: (-u[0], u[1]))
    items[:] = [item for unit in order for item in unit[2]]


def pytest_terminal_summary(terminalreporter, config):
    late = []
    for rep in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        marked = "slow" in rep.keywords or _test_id(rep.nodeid) in SLOW_HERE
        if rep.when == "call" and rep.duration > UNMARKED_S and not marked:
            late.append((rep.duration, rep.nodeid))
    if late:
        terminalreporter.write_sep("-", "tests over %d s not marked slow" % UNMARKED_S)
        for d, nodeid in sorted(late, reverse=True):
            terminalreporter.write_line(
                "%6.1fs %s: @pytest.mark.slow(%d) (tests/*.py: SLOW_HERE)" % (d, nodeid, d)
            )
