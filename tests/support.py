"""Helpers for test files that run on both runtimes: pytest on CPython, tests/mp_run.py on the
MicroPython unix port.

The unix port's ``os`` has no ``os.path``, so paths are joined and checked here with plain
string handling and ``os.stat``. Paths use '/' (the firmware and its tests target POSIX only).
"""

import os
import sys

IS_MICROPYTHON = sys.implementation.name == "micropython"


class SkipTest(Exception):
    """Raised by ``skip()`` on MicroPython; mp_run.py counts it as a skip, not a failure."""


def join(*parts):
    """Join path parts with '/'; an absolute part restarts the path, as ``os.path.join`` does."""
    path = ""
    for part in parts:
        if part.startswith("/") or not path:
            path = part
        elif path.endswith("/"):
            path += part
        else:
            path += "/" + part
    return path


def exists(path):
    """Whether ``path`` names an existing file or directory."""
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def abspath(path):
    """Absolute path without '.' and '..' parts (``__file__`` may be relative on MicroPython)."""
    if not path.startswith("/"):
        path = join(os.getcwd(), path)
    parts = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


def parent(path):
    """The folder that holds ``path``."""
    return path[: path.rfind("/")] or "/"


# Computed once at import, before any test can change the working directory.
REPO = parent(parent(abspath(__file__)))
SHARED = os.getenv("TENGEN_SHARED") or join(parent(REPO), "shared")


def shared_path(*parts):
    """Path of a file in the read-only shared data directory (``$TENGEN_SHARED`` or ../shared)."""
    return join(SHARED, *parts)


class Rng:
    """xorshift32: the same numbers on CPython and MicroPython (their ``random`` differ)."""

    def __init__(self, seed):
        self.s = seed or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def below(self, n):
        return self.next() % n

    def between(self, lo, hi):
        """An integer from lo to hi, both included."""
        return lo + self.below(hi - lo + 1)


def locked(fn):
    """Run ``fn()`` with the heap locked; the MemoryError it raised, or None."""
    import micropython  # built in, or firmware/_mpshim.py on CPython

    micropython.heap_lock()
    try:
        fn()
        err = None
    except MemoryError as e:
        err = e
    micropython.heap_unlock()
    return err


def skip(msg):
    """Skip the current test (or, called at import, the whole module) on either runtime."""
    if IS_MICROPYTHON:
        raise SkipTest(msg)
    import pytest

    pytest.skip(msg, allow_module_level=True)


def require_shared(*parts):
    """Return the shared data path, or skip the test when that data is not there."""
    path = shared_path(*parts)
    if not exists(path):
        skip("shared data not found: " + path)
    return path
