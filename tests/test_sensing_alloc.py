"""The scan loop's sensing step allocates nothing: ``Sensing.update`` under ``heap_lock`` and
``micropython.mem_total()`` (DESIGN §2, SPEC §7: no collector pauses while the clock runs).

The frames come from the model in ``tests/test_sensing.py``. They are made before the
measured region and copied into two buffers (as a DMA scan engine fills its two) inside it,
element by element: a slice assignment would allocate a slice object of its own.
"""

import gc
from array import array

import micropython

from firmware.clock import ticks
from firmware.sensing.grid import BLACK, ERR_LENGTH, ERR_RANGE, WHITE, Sensing
from tests.support import IS_MICROPYTHON, locked, skip
from tests.test_sensing import Model, calibrate

N = 19
N2 = N * N


def _script(m):
    """Frames of a little play: quiet, stones put down, a one-frame spike, a hovering hand,
    captures lifted, quiet again. (frames, the stable changes they make)."""
    frames = []

    def shoot(k):
        for _ in range(k):
            frames.append(m.frame())

    shoot(4)
    for i in range(0, N2, 9):  # 41 stones
        m.stones[i] = BLACK if i % 2 else WHITE
    shoot(4)
    m.stones[200] = BLACK  # a one-frame spike
    shoot(1)
    m.stones[200] = 0
    m.stones[201] = WHITE
    for s in (20, 45, 60, 35, 10):  # a hand hovering with a stone
        m.strength[201] = s
        shoot(1)
    m.stones[201] = 0
    for i in range(0, N2, 18):  # 21 of them lifted
        m.stones[i] = 0
    shoot(4)
    shoot(8)
    return frames, 41 + 21


def _fresh():
    m = Model(N, 31)
    cal, _ = calibrate(m, empty=8, per_pass=2)
    frames, changes = _script(m)
    # quiet_steps=1: the drift tracking moves baselines inside the measured frames too.
    s = Sensing(N, cal, quiet_steps=1)
    bufs = (array("H", bytes(2 * N2)), array("H", bytes(2 * N2)))
    return s, frames, changes, bufs


def _settle(s, frames, bufs):
    """Warm up: the first calls check each buffer's type (once) and settle every point."""
    t = 0
    for k in range(6):
        b = bufs[k & 1]
        f = frames[0]
        for i in range(N2):
            b[i] = f[i]
        t += 250
        s.update(b, t)
    return t


def test_update_passes_nothing_through_the_allocator():
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    s, frames, changes, bufs = _fresh()
    t = _settle(s, frames, bufs)
    base_before = bytes(s.base)
    short = array("H", bytes(2 * N2 - 2))
    s.update(short, t)
    total = 0
    k = 0
    gc.collect()
    before = micropython.mem_total()
    # Inline, not through a helper: a helper's own frame would be counted too.
    for f in frames:
        b = bufs[k]
        for i in range(N2):
            b[i] = f[i]
        t += 250
        total += s.update(b, t)
        k ^= 1
    b = bufs[k]
    b[77] = 4096
    bad = s.update(b, t)
    b[77] = 0
    short_code = s.update(short, t)
    used = micropython.mem_total() - before
    assert used == 0, used
    assert total == changes, total
    assert bad == ERR_RANGE and short_code == ERR_LENGTH
    assert bytes(s.base) != base_before  # drift steps were taken


def test_update_runs_under_heap_lock_across_the_tick_wrap():
    s, frames, changes, bufs = _fresh()
    _settle(s, frames, bufs)
    t0 = ticks.add(ticks.MASK, -3000)  # 3 s before the 2**30 wrap
    s._drift_at = t0
    out = array("i", [0, t0])

    def play():
        t = out[1]
        k = 0
        for f in frames:
            b = bufs[k]
            for i in range(N2):
                b[i] = f[i]
            t = ticks.add(t, 250)
            out[0] += s.update(b, t)
            k ^= 1
        out[1] = t

    assert locked(play) is None
    assert out[0] == changes
    assert ticks.diff(out[1], t0) == 250 * len(frames)
    assert out[1] < t0  # wrapped


def test_the_state_of_a_19x19_grid_fits_the_rp2040_heap():
    if not IS_MICROPYTHON:
        skip("gc.mem_alloc() is MicroPython's measure")
    from firmware.sensing.calibration import Calibration

    cal = Calibration.nominal(N)
    gc.collect()
    before = gc.mem_alloc()
    s = Sensing(N, cal)
    gc.collect()
    used = gc.mem_alloc() - before
    assert s.states[0] == 3
    # ~10 KB of arrays (thresholds 5.8 KB, baselines, states, debounce counters, changes);
    # the unix port's objects are larger than the board's, so the bound is conservative.
    assert used < 12 * 1024, used
    assert WHITE == 2


def test_the_boards_time_debounce_passes_nothing_through_the_allocator():
    # The board's Sensing (debounced by time) at the DMA scan's ~190 frames/s: stones put
    # down and lifted settle through the time path, across the tick wrap.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    _, frames, changes, bufs = _fresh()
    s = _board_fresh()
    _settle(s, frames, bufs)
    t = ticks.add(ticks.MASK, -200)
    total = 0
    k = 0
    gc.collect()
    before = micropython.mem_total()
    for f in frames:
        b = bufs[k]
        for i in range(N2):
            b[i] = f[i]
        for _ in range(4):  # each frame of the script held for 4 scans, 5 ms apart
            t = ticks.add(t, 5)
            total += s.update(b, t)
        k ^= 1
    used = micropython.mem_total() - before
    assert used == 0, used
    # Held 20 ms, the script's one-frame spike and the hovering stone are seen too.
    assert total >= changes, total


def _board_fresh():
    from firmware.sensing.grid import board_sensing

    m = Model(N, 31)
    cal, _ = calibrate(m, empty=8, per_pass=2)
    return board_sensing(N, cal)
