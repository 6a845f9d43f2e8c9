"""Chip driver: a frame through sensing and the referee, and a press (``bench_referee``'s).

Sent by ``bench/chip.py`` after ``prelude.py``; data ``/bench/referee.bin`` (a corpus game's
moves and the stones each takes, ``bench/chip_data.py``). The grid is synthetic and the same
on both runtimes: 2048 counts for an empty point, -800 black, +800 white (the emulator's Hall
model), a fixed pattern of -3..+4 counts of noise; a calibration by the real procedure
(``Calibrator``: the empty board, then the two checkerboards). Each stone goes down, frames
come 50 ms apart until the referee has seen it, the stones it takes come off, four more
frames, the paddle: every frame's ``Sensing.update`` (and ``Referee.see`` when a state
changed) and every ``Referee.press`` timed alone. Emitted: ``ref_change`` (the slowest frame
with a change), ``ref_change_mean``, ``ref_quiet_mean`` (frames with no change), ``ref_press``.
"""

from array import array

import micropython
from micropython import const

from bench.onchip.prelude import PASSES, calibrate, data, emit, gc, ticks_diff, ticks_us, u16
from firmware.referee.referee import ACCEPTED, Referee
from firmware.rules.go import Game
from firmware.sensing.calibration import Calibrator, pattern
from firmware.sensing.grid import Sensing

N = 19
N2 = N * N
_N2 = const(361)
LEVEL = (2048, 1248, 2848)  # empty, black, white


@micropython.viper
def fill(frame, level, k: int):
    # One scan: each point's level and a fixed pattern of -3..+4 counts of noise.
    f = ptr16(frame)
    lv = ptr16(level)
    i = 0
    while i < _N2:
        f[i] = lv[i] + ((i * 5 + k * 3) & 7) - 3
        i += 1


def calibration(frame, level):
    cal = Calibrator(N)
    k = 0
    for phase in (None, 1, 2):
        where = None if phase is None else pattern(N, phase)
        for i in range(N2):
            level[i] = LEVEL[0] if where is None else LEVEL[where[i]]
        for _ in range(6):
            fill(frame, level, k)
            k += 1
            (cal.add_empty, cal.add_pass_a, cal.add_pass_b)[0 if phase is None else phase](frame)
    for i in range(N2):
        level[i] = LEVEL[0]
    return cal.finish()


def play(buf, frame, level, cal, acc):
    """One replay of the game; ``acc``: [changes, sum, max, quiet, sum, press max]."""
    sensing = Sensing(N, cal)
    ref = Referee(Game(N), grid=N, log_limit=1000)
    now = 0
    k = 0

    def step():
        nonlocal now, k
        now += 50
        k += 1
        fill(frame, level, k)
        t0 = ticks_us()
        changed = sensing.update(frame, now)
        if changed > 0:
            ref.see(sensing.states, now)
        dt = ticks_diff(ticks_us(), t0)
        if changed > 0:
            acc[0] += 1
            acc[1] += dt
            acc[2] = max(acc[2], dt)
        else:
            acc[3] += 1
            acc[4] += dt

    for _ in range(8):
        step()
    at = 2
    for _ in range(u16(buf, 0)):
        m = u16(buf, at)
        ntaken = buf[at + 2]
        at += 3
        c = m >> 10
        p = m & 1023
        if p != 1023:
            i = (p >> 5) * N + (p & 31)
            level[i] = LEVEL[c]
            j = 0
            while ref.seen[i] != c and j < 50:
                step()
                j += 1
            for _ in range(ntaken):
                q = u16(buf, at)
                at += 2
                level[(q >> 5) * N + (q & 31)] = LEVEL[0]
            for _ in range(4):
                step()
        t0 = ticks_us()
        r = ref.press(c, now)
        dt = ticks_diff(ticks_us(), t0)
        acc[5] = max(acc[5], dt)
        if r != ACCEPTED:
            raise ValueError("press refused: %r" % ref.why)


def main():
    calibrate()
    buf = data("referee.bin")
    if not u16(buf, 0):
        emit("ref_none", 0, 0, "no_corpus")
        return
    frame = array("H", bytes(2 * N2))
    level = array("H", bytes(2 * N2))
    cal = calibration(frame, level)
    first = None
    best = None
    for _ in range(PASSES):
        for i in range(N2):
            level[i] = LEVEL[0]
        gc.collect()
        acc = [0, 0, 0, 0, 0, 0]
        play(buf, frame, level, cal, acc)
        if first is None:
            first = acc
        best = acc if best is None else [min(a, b) for a, b in zip(best, acc)]
    words = "%d_moves_%d_frames" % (u16(buf, 0), first[0] + first[3])
    emit("ref_change", first[2], best[2], words)
    emit("ref_change_mean", first[1] / first[0], best[1] / best[0])
    emit("ref_quiet_mean", first[4] / first[3], best[4] / best[3])
    emit("ref_press", first[5], best[5])


main()
