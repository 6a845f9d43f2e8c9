"""Chip driver: the game clock's ``tick``, ``press`` and ``face`` (``firmware/clock``).

Sent by ``bench/chip.py`` after ``prelude.py``. The cases of ``bench_clock`` (eight time
controls, each in its slowest phase); per call, a batch of ``ARGS["calls"]`` calls timed
together (µs per call, the loop included, as ``bench_clock``'s batch) and each call timed
alone (the slowest). Emitted, the slowest case of each: ``clock_tick`` / ``clock_press`` /
``clock_face`` (batch, µs per call) and ``clock_*_single`` (the slowest single call).
"""

from array import array

from bench.onchip.prelude import ARGS, PASSES, Worst, calibrate, gc, ticks_diff, ticks_us
from firmware.clock import ticks
from firmware.clock.clock import BLACK, OK, WHITE, Clock, Face
from firmware.clock.control import PRESETS

T0 = ticks.PERIOD - 30000  # 30 s before the tick wrap, as bench_clock and the tests
STEP = 7
CASES = (
    ("cn-national", True),
    ("cn-national", False),
    ("japanese-5x30", True),
    ("canadian-25-10", True),
    ("ing-penalty", True),
    ("renju-stages", False),
    ("fischer-30-30", False),
    ("shared-2h", False),
)


def setup(name, overtime):
    c = Clock(PRESETS[name])
    c.start(T0)
    at = T0
    for side in (BLACK, WHITE):
        at = ticks.add(at, c.main[side] if overtime else 60000)
        assert c.press(side, at) == OK
    return c, at


def inputs(n, at):
    sides = bytearray(n)
    presses = array("i", [0] * n)
    moments = array("i", [0] * n)
    t = at
    for i in range(n):
        sides[i] = BLACK if i % 2 == 0 else WHITE
        t = ticks.add(t, STEP)
        presses[i] = t
        moments[i] = ticks.add(at, (i * 7919) % 300000)
    return sides, presses, moments, ticks.add(at, 1000)


def batch(c, call, inp, face, single):
    sides, presses, moments, now = inp
    n = len(sides)
    worst = 0
    t0 = ticks_us()
    for i in range(n):
        if single:
            t1 = ticks_us()
        if call == 0:
            c.tick(now)
        elif call == 1:
            c.press(sides[i], presses[i])
        else:
            c.face(BLACK, moments[i], face)
        if single:
            dt = ticks_diff(ticks_us(), t1)
            if dt > worst:
                worst = dt
    return ticks_diff(ticks_us(), t0) / n, worst


def main():
    calibrate()
    n = ARGS.get("calls", 100)
    face = Face()
    names = ("tick", "press", "face")
    per = [[Worst() for _ in CASES] for _ in names]
    one = [[Worst() for _ in CASES] for _ in names]
    for _ in range(PASSES):
        for k in range(len(CASES)):
            name, overtime = CASES[k]
            for call in range(3):
                c, at = setup(name, overtime)
                inp = inputs(n, at)
                gc.collect()
                per[call][k].add(batch(c, call, inp, face, False)[0])
                c, at = setup(name, overtime)
                gc.collect()
                one[call][k].add(batch(c, call, inp, face, True)[1])
    for call in range(3):
        for tab, suffix in ((per, ""), (one, "_single")):
            w = Worst()
            w.first = max([x.first for x in tab[call]])
            w.best = max([x.best for x in tab[call]])
            k = [x.first for x in tab[call]].index(w.first)
            w.emit("clock_%s%s" % (names[call], suffix), CASES[k][0])


main()
