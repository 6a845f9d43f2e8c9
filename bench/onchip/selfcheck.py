"""Chip driver: the boot's known-answer self-checks (``firmware/boot/selfcheck.py``).

Sent by ``bench/chip.py`` after ``prelude.py``, first after a soft reset, so the first run is
cold as the boot's is: it imports the kernels' modules (their top-level code runs: the Zobrist
keys, the Renju tables), which on the unix port means compiling them from source, so only the
chip's cold figure means anything. ``selfcheck`` checks the HAL kernels only where
``firmware.hal.rp2040`` is loaded: it is loaded here on both runtimes (as ``bench_selfcheck``
does). Emitted: ``selfcheck_import`` (importing the module and the HAL), ``selfcheck_cold``
(the first ``selfcheck.run()``) and ``selfcheck`` (the runs after it: the first of them, the
fastest).
"""

from bench.onchip.prelude import PASSES, Worst, calibrate, emit, gc, ticks_diff, ticks_us


def main():
    t0 = ticks_us()
    from firmware.boot import selfcheck
    from firmware.hal import rp2040  # noqa: F401  (loaded, as on the board: HAL is checked)

    imp = ticks_diff(ticks_us(), t0)
    emit("selfcheck_import", imp, imp)
    cold = Worst()
    w = Worst()
    for k in range(1 + max(3, PASSES)):
        gc.collect()
        t0 = ticks_us()
        failed = selfcheck.run()
        (cold if k == 0 else w).add(ticks_diff(ticks_us(), t0))
        if failed:
            emit("selfcheck_failed", 0, 0, repr(failed).replace(" ", "_")[:200])
    cold.emit("selfcheck_cold")
    w.emit("selfcheck", "%d_checks" % len(selfcheck.CHECKS))
    calibrate()  # after the cold run, not before it


main()
