"""Millisecond ticks that wrap as the RP2040's do: period 2**30, compared only by ``diff``.

MicroPython's ``time.ticks_ms`` wraps at 2**30 on the RP2040 (about 12.4 days) but at 2**62
on the 64-bit unix port, so the clock does its tick arithmetic here, with the RP2040's
period on every runtime: a game run on the unix port crosses the same wrap the board would.
The rules are MicroPython's ``ticks_diff``/``ticks_add``: a difference is only meaningful
within half a period. Every intermediate value stays below 2**30 in size, a small int on the
RP2040, so nothing here allocates.
"""

import time

from micropython import const

PERIOD = const(1 << 30)
MASK = const((1 << 30) - 1)
_HALF = const(1 << 29)


def diff(a, b):
    """``a - b`` in ticks: negative if ``a`` is before ``b`` (as ``time.ticks_diff``)."""
    # PERIOD itself (2**30) is one past the RP2040's small ints, a boxed int there: any sum
    # with it allocates, so the wrap is done with MASK + 1 in two small steps.
    d = a - b
    if d >= _HALF:
        return d - MASK - 1
    if d < -_HALF:
        return d + MASK + 1
    return d


def add(a, d):
    """The tick ``d`` ms after ``a`` (before it if negative), wrapped (as ``time.ticks_add``)."""
    if d >= 0:
        r = MASK - d  # a + d wraps when a > r
        return a - r - 1 if a > r else a + d
    s = a + d
    return s + MASK + 1 if s < 0 else s


try:
    _ticks_ms = time.ticks_ms
except AttributeError:  # CPython

    def _ticks_ms():
        return time.monotonic_ns() // 1000000


def now_ms():
    """The current tick of the 2**30 period (the board's own ``ticks_ms`` already is one)."""
    return _ticks_ms() & MASK


def sleep_ms(ms):
    """An asyncio sleep of ``ms`` (MicroPython's ``sleep_ms``; CPython, the tests, ``sleep``)."""
    import asyncio

    f = getattr(asyncio, "sleep_ms", None)
    return f(ms) if f is not None else asyncio.sleep(ms / 1000)
