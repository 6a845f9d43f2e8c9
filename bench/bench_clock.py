"""Speed and memory of the game clock (``firmware/clock``) on the MicroPython unix port.

    micropython -m bench.bench_clock [--calls N] [--passes N]

Run from the repository root (``make bench`` runs it so). It also runs under CPython
(``python -m bench.bench_clock``) for comparison. What each part measures: ``bench/README.md``.
In short:

1. the calibration loop of DESIGN.md §3 (``bench_go``'s, imported), sampled all through the
   run: every RP2040 figure is an estimate, unix time x 48.8 ms / calibration time;
2. ``Clock.tick``, ``Clock.press``, ``Clock.next_cue`` and ``Clock.face`` under several time
   controls, each in the phase that matters (the counting of Chinese and Japanese byo-yomi,
   a Canadian block, a penalty period: the slowest paths), timed in batches of N calls, the
   fastest of the passes, with the cost of the same loop around a method that does nothing;
3. memory: bytes through the allocator per call (``micropython.mem_total()``);
4. a summary against the RP2040 target (a tick within 0.2 ms). It is information only: the
   exit status is 0 whatever the figures (only a crash or a bad option fails).
"""

import gc
import sys
from array import array

# Run as ``micropython -m bench.bench_clock`` from the repository root, so the repository is on
# the path. The calibration, the timers and the report helpers are bench_go's.
from bench.bench_go import (
    CALIB_RP2040_MS,
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
    verdict,
)
from firmware.clock import ticks
from firmware.clock.clock import BLACK, OK, RUNNING, WHITE, Clock, Face
from firmware.clock.control import PRESETS

# isort: split
import micropython  # noqa: E402  (built in, or firmware/_mpshim.py on CPython)

TARGET_TICK_MS = 0.2
T0 = ticks.PERIOD - 30000  # the clocks start 30 s before the tick wrap, as in the tests
STEP = 7  # ms between two presses: a thousand presses stay inside every overtime

# (preset, into overtime?, what the case is)
CASES = (
    ("cn-national", True, "Chinese counting (kept minutes)"),
    ("cn-national", False, "Chinese, main time"),
    ("japanese-5x30", True, "Japanese byo-yomi"),
    ("canadian-25-10", True, "Canadian block"),
    ("ing-penalty", True, "penalty period"),
    ("renju-stages", False, "stages (40 moves in 2 h)"),
    ("fischer-30-30", False, "Fischer"),
    ("shared-2h", False, "shared time"),
)
CALLS = ("tick", "press", "next_cue", "face")

USAGE = """usage: bench_clock.py [--calls N] [--passes N]
  --calls N    calls in one timed batch, each also timed alone (default 300: a batch
               stays under a millisecond, so the host's noise rarely lands in one)
  --passes N   times every batch is repeated; its fastest counts (default 5)"""


def parse_args(argv):
    opts = read_options(argv, USAGE, {"calls": 300, "passes": 5})
    opts["calls"] = max(10, opts["calls"])
    return opts


# ---- the clocks ------------------------------------------------------------------------------


def setup(name, overtime):
    """A running clock of preset ``name``, both players in their overtime if ``overtime``
    (each pressed exactly as its main time ran out): (clock, the tick its turn started at)."""
    c = Clock(PRESETS[name])
    c.start(T0)
    at = T0
    if overtime:
        for side in (BLACK, WHITE):
            at = ticks.add(at, c.main[side])
            assert c.press(side, at) == OK
    else:
        for side in (BLACK, WHITE):
            at = ticks.add(at, 60000)
            assert c.press(side, at) == OK
    return c, at


class Null:
    """The same methods doing nothing: the cost of the timing loop and of a method call."""

    def tick(self, now):
        return 0

    def press(self, side, at):
        return 0

    def next_cue(self, now):
        return 0

    def face(self, side, now, f):
        return 0


class Inputs:
    """The arguments of a batch, made before it is timed (``ticks.add`` is not measured)."""

    def __init__(self, n, at):
        self.n = n
        self.sides = bytearray(n)
        self.presses = array("i", [0] * n)
        self.moments = array("i", [0] * n)  # ticks spread over the first 5 min of the turn
        t = at
        for i in range(n):
            self.sides[i] = BLACK if i % 2 == 0 else WHITE
            t = ticks.add(t, STEP)
            self.presses[i] = t
            self.moments[i] = ticks.add(at, (i * 7919) % 300000)
        self.now = ticks.add(at, 1000)


def batch(obj, call, inp, face):
    """µs for ``inp.n`` calls of ``call`` on ``obj`` (a Clock or a Null), in one timing."""
    n = inp.n
    now = inp.now
    if call == "tick":
        t0 = ticks_us()
        for _ in range(n):
            obj.tick(now)
        return ticks_diff(ticks_us(), t0)
    if call == "press":
        sides = inp.sides
        presses = inp.presses
        t0 = ticks_us()
        for i in range(n):
            obj.press(sides[i], presses[i])
        return ticks_diff(ticks_us(), t0)
    if call == "next_cue":
        moments = inp.moments
        t0 = ticks_us()
        for i in range(n):
            obj.next_cue(moments[i])
        return ticks_diff(ticks_us(), t0)
    moments = inp.moments
    t0 = ticks_us()
    for i in range(n):
        obj.face(BLACK, moments[i], face)
    return ticks_diff(ticks_us(), t0)


def singles(obj, call, inp, face, out):
    """Each of the ``inp.n`` calls timed alone, its µs into ``out`` (an array of n)."""
    n = inp.n
    now = inp.now
    sides = inp.sides
    presses = inp.presses
    moments = inp.moments
    for i in range(n):
        if call == "tick":
            t0 = ticks_us()
            obj.tick(now)
        elif call == "press":
            t0 = ticks_us()
            obj.press(sides[i], presses[i])
        elif call == "next_cue":
            t0 = ticks_us()
            obj.next_cue(moments[i])
        else:
            t0 = ticks_us()
            obj.face(BLACK, moments[i], face)
        out[i] = ticks_diff(ticks_us(), t0)


def measure(opts, cal):
    """Per (case, call): the fastest batch's µs per call, and the worst single call: the
    first pass's slowest (interrupts and all) and the slowest call in its fastest timing over
    the passes (the same call of the same sequence: a call that is slow every time).
    The same for the Null loop per call."""
    n = opts["calls"]
    best = {}
    floor = {}
    first_max = {}
    mins = {}
    face = Face()
    null = Null()
    out = array("i", [0] * n)
    for p in range(opts["passes"]):
        for case in range(len(CASES)):
            name, overtime, _ = CASES[case]
            cal.sample(1)
            for call in CALLS:
                c, at = setup(name, overtime)  # a fresh clock: presses change its state
                inp = Inputs(n, at)
                gc.collect()
                us = batch(c, call, inp, face) / n
                assert c.state == RUNNING, (name, call)
                key = (case, call)
                if key not in best or us < best[key]:
                    best[key] = us
                if case == 0:
                    us = batch(null, call, inp, face) / n
                    if call not in floor or us < floor[call]:
                        floor[call] = us
                c, at = setup(name, overtime)
                gc.collect()
                singles(c, call, inp, face, out)
                if p == 0:
                    first_max[key] = max(out)
                    mins[key] = array("i", out)
                else:
                    m = mins[key]
                    for i in range(n):
                        if out[i] < m[i]:
                            m[i] = out[i]
    worst = {key: max(m) for key, m in mins.items()}
    return best, floor, first_max, worst


def bytes_per_call(opts):
    """{(case, call): bytes through the allocator per call}, or None where unknown.

    A batch borrows one frame for ``batch()`` itself (a bytecode function with many locals);
    what the same batch around a method that does nothing allocates is taken off."""
    if not hasattr(micropython, "mem_total"):
        return None
    n = opts["calls"]
    face = Face()
    out = {}
    # The loop alone, around a method that does nothing: its own frame, its timer readings.
    inp = Inputs(n, T0)
    null = Null()
    for _ in range(2):
        gc.collect()
        before = micropython.mem_total()
        batch(null, "tick", inp, face)
        out["loop"] = micropython.mem_total() - before
    for case in range(len(CASES)):
        name, overtime, _ = CASES[case]
        for call in CALLS:
            c, at = setup(name, overtime)
            inp = Inputs(n, at)
            batch(c, call, inp, face)  # warm up: first calls may cache objects
            c, at = setup(name, overtime)
            inp = Inputs(n, at)
            gc.collect()
            before = micropython.mem_total()
            batch(c, call, inp, face)
            out[(case, call)] = (micropython.mem_total() - before - out["loop"]) / n
    return out


# ---- report ----------------------------------------------------------------------------------


def report(best, floor, first_max, worst, mem, cal, opts):
    scale = cal.scale()
    n = opts["calls"]
    section(
        "2. Clock calls: µs per call, batches of %d, the fastest of %d passes"
        % (n, opts["passes"])
    )
    head = "  %-32s" + " %9s" * len(CALLS)
    print(head % (("",) + CALLS))
    for case in range(len(CASES)):
        row = [CASES[case][2]] + ["%.2f" % best[(case, call)] for call in CALLS]
        print(head % tuple(row))
    print(head % tuple(["(the loop around a no-op method)"] + ["%.2f" % floor[c] for c in CALLS]))
    print("  RP2040 estimate, ms per call (unix time x %.1f, loop included):" % (scale * 1000))
    for case in range(len(CASES)):
        row = [CASES[case][2]] + ["%.3f" % (best[(case, call)] * scale) for call in CALLS]
        print(head % tuple(row))
    print(
        "  press: alternate sides, %d ms apart; next_cue and face: at ticks spread over the" % STEP
    )
    print("  first 5 min of the turn (face: Black's, the running side's); tick: not flagging.")
    print()
    print("  The worst single call, each call timed alone (µs; the timer reads whole µs, so")
    print("  ±1 µs): the first pass's slowest (host interrupts included) / the slowest call in")
    print("  its fastest timing over the %d passes" % opts["passes"])
    print(head % (("",) + CALLS))
    for case in range(len(CASES)):
        row = [CASES[case][2]]
        row += ["%d / %d" % (first_max[(case, call)], worst[(case, call)]) for call in CALLS]
        print(head % tuple(row))

    section("3. Memory: bytes through the allocator per call (micropython.mem_total())")
    if mem is None:
        print("  n/a on %s" % sys.implementation.name)
    else:
        print(head % (("",) + CALLS))
        for case in range(len(CASES)):
            row = [CASES[case][2]] + ["%.2f" % mem[(case, call)] for call in CALLS]
            print(head % tuple(row))
        print(
            "  (less %d bytes a batch: what the same loop around a method doing nothing takes)"
            % mem["loop"]
        )

    section(
        "4. Summary (RP2040 = unix time x %.1f ms / %d µs calibration: an ESTIMATE)"
        % (CALIB_RP2040_MS, cal.best)
    )
    line = "  %-24s %12s %17s %12s   %s"
    print(line % ("", "measured", "RP2040 estimate", "target", "verdict"))
    for call in CALLS:
        slow = 0
        for case in range(len(CASES)):
            if best[(case, call)] > best[(slow, call)]:
                slow = case
        us = best[(slow, call)]
        est = us * scale
        target = verdict_s = ""
        if call == "tick":
            target = "<= %g ms" % TARGET_TICK_MS
            verdict_s = verdict(est, TARGET_TICK_MS)
        label = "%s, slowest case" % call
        print(line % (label, "%.2f µs" % us, "%.4f ms" % est, target, verdict_s))
        print("  %-24s (%s)" % ("", CASES[slow][2]))
        one = max([worst[(case, call)] for case in range(len(CASES))])
        cold = max([first_max[(case, call)] for case in range(len(CASES))])
        # The timer reads whole µs: a single call's estimate is ± one µs's worth, so its
        # verdict goes by the lower bound (the batch above is the precise figure).
        est = one * scale
        verdict_s = verdict((one - 1) * scale, TARGET_TICK_MS) if call == "tick" else ""
        what = "%.3f ±%.2f ms" % (est, scale)
        print(line % ("  worst single call", "%d µs" % one, what, target, verdict_s))
        cold_ms = "%.3f ms" % (cold * scale)
        print(line % ("  first pass's slowest", "%d µs" % cold, cold_ms, "", ""))
    print("  (the first pass's slowest includes the host's preemptions: milliseconds on a busy")
    print("  machine are the host's, not the clock's; the worst single call is the figure.)")
    # What the app's clock task does on a tick that redraws the faces: the tick, two faces.
    us = max([best[(case, "tick")] + 2 * best[(case, "face")] for case in range(len(CASES))])
    print(line % ("tick + both faces", "%.2f µs" % us, "%.4f ms" % (us * scale), "", ""))
    if mem is None:
        print("  allocation per call: not measured on %s" % sys.implementation.name)
    else:
        most = max([mem[(case, call)] for case in range(len(CASES)) for call in CALLS])
        print(
            line % ("bytes per call, most", "%.2f" % most, "", "0", "ok" if most == 0 else "over")
        )
    if not IS_MICROPYTHON:
        print("  (CPython run: the RP2040 column applies the unix-port rule and means little)")
    print("  The targets are information: this benchmark never fails the build.")


def main():
    opts = parse_args(sys.argv)
    cal, start_us, overhead = start("clock", "a few seconds")
    best, floor, first_max, worst = measure(opts, cal)
    mem = bytes_per_call(opts)
    cal.sample(9)
    report_calibration(cal, overhead, start_us, "call", "DESIGN.md section 3, bench_go's loop")
    report(best, floor, first_max, worst, mem, cal, opts)


if __name__ == "__main__":
    main()
