"""Test runner for the MicroPython unix port, which has neither unittest nor pytest.

    micropython tests/mp_run.py [tests/test_x.py ...] [-k substring] [-v]

With no files it runs every tests/test_*.py (not tests/host/: those are CPython-only). In each
module it calls every top-level ``test_*`` function with no arguments, in the order they appear
in the file. ``tests.support.SkipTest`` counts as a skip, any other exception as a failure; a
module that cannot be imported is one failure. The last line is ``N passed, N failed, N skipped``
and the exit status is 1 if anything failed. ``-k`` keeps tests whose ``module.function`` name
contains the substring. It prints only what a reader should act on: each failure with its
traceback, each skip with its reason, and the totals; ``-v`` adds a line per module with its
counts and time.
"""

import gc
import os
import sys
import time

# sys.path[0] is this runner's folder; the repository above it holds the tests package.
sys.path.insert(0, (sys.path[0] or ".") + "/..")
from tests.support import abspath, parent  # noqa: E402

TESTS = parent(abspath(__file__))
ROOT = parent(TESTS)


def _module_name(path):
    """Import name for a test file: dotted from the repo root, or its base name elsewhere."""
    path = abspath(path)
    if path.startswith(ROOT + "/"):
        name = path[len(ROOT) + 1 :]
    else:
        # A file outside the repository (a temporary test, say): import it from its folder.
        sys.path.insert(1, parent(path))
        name = path[path.rfind("/") + 1 :]
    return name[:-3].replace("/", ".")


def _test_names(module, path):
    """Names of the module's test functions, in file order (MicroPython has no inspect)."""
    found = [n for n in dir(module) if n.startswith("test_") and callable(getattr(module, n))]
    order = []
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("def test_"):
                    name = line[4:].split("(")[0].strip()
                    if name in found and name not in order:
                        order.append(name)
    except OSError:
        pass
    return order + sorted(n for n in found if n not in order)


def _report(label, exc):
    msg = str(exc)
    print("FAIL %s: %s%s" % (label, type(exc).__name__, ": " + msg if msg else ""))
    sys.print_exception(exc)


def run_module(path, keyword, totals, verbose=False):
    """Import the test file at ``path``, run its tests, add to ``totals`` [passed, failed, skipped]."""
    from tests.support import SkipTest

    name = _module_name(path)
    short = name[name.rfind(".") + 1 :]
    counts = [0, 0, 0]
    start = time.ticks_ms()
    try:
        __import__(name)
        module = sys.modules[name]
    except SkipTest as e:
        print("SKIP %s: %s" % (short, e))
        counts[2] += 1
        module = None
    except Exception as e:
        _report(short, e)
        counts[1] += 1
        module = None
    if module is not None:
        for fname in _test_names(module, path):
            label = short + "." + fname
            if keyword and keyword not in label:
                continue
            try:
                getattr(module, fname)()
                counts[0] += 1
            except SkipTest as e:
                print("SKIP %s: %s" % (label, e))
                counts[2] += 1
            except Exception as e:
                _report(label, e)
                counts[1] += 1
    elapsed = time.ticks_diff(time.ticks_ms(), start)
    if verbose or counts[1]:
        print(
            "%s: %d passed, %d failed, %d skipped in %d ms"
            % (short, counts[0], counts[1], counts[2], elapsed)
        )
    for i in range(3):
        totals[i] += counts[i]
    gc.collect()


def main(argv):
    if sys.implementation.name != "micropython":
        print("mp_run.py is for the MicroPython unix port; on CPython run pytest")
        return 2
    # The script's own folder is sys.path[0]; drop it so that tests import `tests.support`
    # exactly once, and put the repository root first for `firmware` and `tests`.
    while TESTS in sys.path:
        sys.path.remove(TESTS)
    sys.path.insert(0, ROOT)

    files = []
    keyword = None
    verbose = False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "-k" and args:
            keyword = args.pop(0)
        elif arg == "-v":
            verbose = True
        else:
            files.append(arg)
    if not files:
        files = [
            TESTS + "/" + n
            for n in sorted(os.listdir(TESTS))
            if n.startswith("test_") and n.endswith(".py")
        ]

    totals = [0, 0, 0]
    for path in files:
        run_module(path, keyword, totals, verbose)
    print("%d passed, %d failed, %d skipped" % tuple(totals))
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
