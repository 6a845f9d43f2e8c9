"""What the boot's known-answer self-checks (``firmware/boot/selfcheck.py``) cost, on the unix port.

    micropython -m bench.bench_selfcheck [--passes N]

Run from the repository root (``make bench`` runs it so). Measured:

1. the calibration loop of DESIGN.md section 3 (``bench_go``'s), sampled all through the run:
   every RP2040 figure is an estimate, unix time x 48.8 ms / calibration time;
2. each check alone and all of them together (``selfcheck.run()``, as ``board.build`` runs
   them, the HAL check included), the fastest of the passes, with the RP2040 estimate and the
   estimate x 1.55 (on-chip.md: comparison-heavy viper loops ran 1.55x slower on the chip
   than estimated);
3. the bytes they allocate (``gc.mem_alloc()`` with collections held off: nearly all garbage;
   they run in ~4.3 KB of free heap) and what stays after a collection.
Information only: the exit status is 0 whatever the figures.
"""

import gc
import sys

from bench import measured
from bench.bench_go import (
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
)
from firmware.boot import selfcheck as SC
from firmware.hal import rp2040  # noqa: F401  (loaded, as on the board: HAL is checked too)

VIPER_MARGIN = measured.SELFCHECK  # the chip against the estimate, measured (bench/chip.py)
BOOT_BUDGET_MS = 500  # a boot that takes half a second longer is still a quick boot

USAGE = """usage: bench_selfcheck.py [--passes N]
  --passes N   times every check is run; its fastest counts (default 20)"""


def first_and_best_us(fn, passes, cal):
    """(the first timing, the fastest of ``passes``) of ``fn()`` in µs, a collection before
    each. The boot runs each check once, cold: the first timing is the one a player waits."""
    first = best = None
    for i in range(passes):
        gc.collect()
        t0 = ticks_us()
        fn()
        dt = ticks_diff(ticks_us(), t0)
        if first is None:
            first = dt
        if best is None or dt < best:
            best = dt
        if i % 5 == 0:
            cal.sample(1)
    return first, best


def heap(fn):
    """(peak bytes above the live heap while ``fn`` runs, bytes left after a collection)."""
    if not IS_MICROPYTHON:
        return None, None
    gc.collect()
    before = gc.mem_alloc()
    gc.disable()
    try:
        fn()
        peak = gc.mem_alloc() - before
    finally:
        gc.enable()
    gc.collect()
    return peak, gc.mem_alloc() - before


def main():
    opts = read_options(sys.argv, USAGE, {"passes": 20})
    passes = max(1, opts["passes"])
    cal, start_us, overhead = start("self-check", "about a second")
    assert SC.run() == [], "a check fails here: the bench would time the wrong thing"
    rows = []
    for tag, what, fn in SC.CHECKS:
        rows.append((tag, what) + first_and_best_us(fn, passes, cal))
    first_total, total = first_and_best_us(SC.run, passes, cal)
    peak, kept = heap(SC.run)
    cal.sample(9)
    scale = cal.scale()
    report_calibration(cal, overhead, start_us, "check", "DESIGN.md section 3, bench_go's loop")

    section("2. The checks: the first run (cold, as at boot) and the fastest of %d" % passes)
    line = "  %-4s %-28s %9s %9s %12s %12s"
    print(line % ("tag", "kernels", "first µs", "best µs", "RP2040 ms", "x%.2f ms" % VIPER_MARGIN))
    print(line % ("", "", "", "", "(first run)", "(first run)"))
    for tag, what, first, us in rows + [("all", "selfcheck.run()", first_total, total)]:
        est = first * scale
        print(line % (tag, what, first, us, "%.1f" % est, "%.1f" % (est * VIPER_MARGIN)))
    print(
        "  (sum of the rows, fastest: %d µs; run() adds the comparisons)" % sum(r[3] for r in rows)
    )
    est = first_total * scale

    section("3. Heap")
    if peak is None:
        print("  (CPython: not measured)")
    else:
        print("  allocated while the checks run: %d bytes (collections held off; garbage)" % peak)
        print("  after a collection:   %d bytes kept" % kept)

    section("4. Summary")
    print(
        "  boot time added (first run): %.0f ms estimated on the RP2040, %.0f ms with the"
        " chip's measured ratio"
        " (budget %d ms): %s"
        % (
            est,
            est * VIPER_MARGIN,
            BOOT_BUDGET_MS,
            "ok" if est * VIPER_MARGIN <= BOOT_BUDGET_MS else "over",
        )
    )
    print(
        "  (on the chip the boot's first run also imports the kernels' modules: 333 ms"
        " measured, bench/README.md)"
    )


if __name__ == "__main__":
    main()
