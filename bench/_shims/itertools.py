"""The one part of CPython's ``itertools`` that sgfmill needs, for the MicroPython unix port.

The unix port ships no ``itertools``; ``sgfmill.boards`` imports ``chain`` from it (used only by
``Board.apply_setup``). ``bench/bench_go.py`` puts this folder on ``sys.path`` on MicroPython
only, and only when ``import itertools`` fails, so CPython never sees this file.
"""


def chain(*iterables):
    """Yield the items of each iterable in turn, as ``itertools.chain`` does."""
    for it in iterables:
        yield from it
