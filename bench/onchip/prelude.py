"""What every chip bench driver starts with, on the emulated RP2040 and on the unix port.

The drivers in this folder (``go.py``, ``renju.py``, ...) are not imported: ``bench/chip.py``
sends each as one script, this file's text first, then the run's settings (``ROOT``,
``PASSES``, ``ARGS``; on the unix port a ``mount`` of the chip's filesystem image), then the
driver without its ``from bench.onchip.prelude import ...`` line. The same text runs on both
runtimes, so the unix port's figure (the benches' estimate) and the chip's are of one code.

A driver reports with ``emit``: lines ``= KEY FIRST BEST [words]``, µs, where FIRST is the
first pass's figure (its slowest call for a worst case: what a player meets, cold) and BEST
the benches' statistic (each call's fastest over ``PASSES``, then the slowest of those).
"""

import gc
import sys
import time

ticks_us = time.ticks_us
ticks_diff = time.ticks_diff
ON_CHIP = sys.platform == "rp2"
ROOT = ""  # where the chip's filesystem is: "" on the chip, the mount point on the unix port
PASSES = 1
ARGS = {}


def emit(key, *values):
    """One result line for the host: ``= KEY v1 v2 ...``."""
    print("=", key, *values)


def calib():
    # DESIGN.md section 3's loop (bench_go's calib): the benches' RP2040 rule is scaled by it.
    x = 0
    for i in range(10000):
        x += i


def calibrate(runs=5):
    """The calibration loop's fastest time in µs, emitted as ``calib``."""
    best = None
    for _ in range(runs):
        t0 = ticks_us()
        calib()
        dt = ticks_diff(ticks_us(), t0)
        if best is None or dt < best:
            best = dt
    emit("calib", best, best)
    return best


def data(name):
    """The bytes of a data file of ``bench/chip_data.py`` (``/bench/NAME`` on the chip)."""
    with open(ROOT + "/bench/" + name, "rb") as f:
        return f.read()


def u16(buf, i):
    return buf[i] | (buf[i + 1] << 8)


class Worst:
    """A call timed ``PASSES`` times: the first timing, and the fastest (one call: one key)."""

    def __init__(self):
        self.first = -1
        self.best = -1

    def add(self, us):
        if self.first < 0:
            self.first = us
        if self.best < 0 or us < self.best:
            self.best = us

    def emit(self, key, *words):
        emit(key, self.first, self.best, *words)


def mount(path, point):
    """The unix port: the chip's filesystem image ``path`` mounted at ``point`` (RAM)."""
    import vfs

    from tests.test_journal_index import QuietRam

    with open(path, "rb") as f:
        img = f.read()
    dev = QuietRam(4096, len(img) // 4096)
    dev.data[:] = img
    img = None
    gc.collect()
    vfs.mount(vfs.VfsLfs2(dev, progsize=256), point)
