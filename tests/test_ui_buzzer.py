"""The buzzer sequencer (firmware/ui/buzzer.py): each step of a pattern to the millisecond.

A fake PWM records every ``freq``/``duty_u16`` call with the tick the test says it is. The
expected timings are the patterns' own figures (firmware/clock/cues.py): the double beep at
55/58 s is 40 ms of 2 kHz, 80 ms of silence, 40 ms of 2 kHz.
"""

from array import array

import micropython

from firmware.clock import cues, ticks
from firmware.ui import buzzer
from firmware.ui.buzzer import DUTY, Buzzer
from tests.support import locked, skip


class PWM:
    """A fake ``machine.PWM``: the calls, as (tick, 'f' or 'd', value)."""

    def __init__(self, size=64):
        self.kind = bytearray(size)
        self.val = array("i", [0] * size)
        self.at = array("i", [0] * size)
        self.n = 0
        self.now = 0
        self.hz = 0
        self.duty = 0
        self.loud = 0  # calls that made a sound

    @micropython.native
    def _rec(self, k, v):
        if self.n < len(self.kind):
            self.kind[self.n] = k
            self.val[self.n] = v
            self.at[self.n] = self.now
            self.n += 1

    @micropython.native
    def freq(self, hz):
        self.hz = hz
        self._rec(102, hz)

    @micropython.native
    def duty_u16(self, d):
        self.duty = d
        if d:
            self.loud += 1
        self._rec(100, d)

    def calls(self):
        return [(self.at[i], chr(self.kind[i]), self.val[i]) for i in range(self.n)]


def _sounding(pwm):
    # (tick, hz) at each change of what is heard: hz 0 for silence.
    out = []
    hz = 0
    for at, k, v in pwm.calls():
        if k == "f":
            hz = v
        elif k == "d":
            out.append((at, hz if v else 0))
    return out


def drive(bz, pwm, now):
    pwm.now = now
    return bz.step(now)


def test_a_double_beep_to_the_ms():
    pwm = PWM()
    bz = Buzzer(pwm, volume=2)
    assert pwm.duty == 0
    t0 = 1000
    pwm.now = t0
    pattern = cues.pattern(cues.MARK_LATE << 8 | 55)
    assert pattern == ((2000, 40), (0, 80), (2000, 40))
    assert bz.play(pattern, t0) == 40
    assert pwm.hz == 2000 and pwm.duty == DUTY[2]
    assert drive(bz, pwm, t0 + 39) == 1  # 1 ms early: nothing changes
    assert pwm.duty == DUTY[2]
    assert drive(bz, pwm, t0 + 40) == 80  # the gap
    assert pwm.duty == 0
    assert drive(bz, pwm, t0 + 120) == 40  # the second beep
    assert pwm.duty == DUTY[2] and pwm.hz == 2000
    assert drive(bz, pwm, t0 + 159) == 1
    assert drive(bz, pwm, t0 + 160) == -1  # done: silent
    assert pwm.duty == 0 and not bz.playing
    assert drive(bz, pwm, t0 + 500) == -1
    assert _sounding(pwm) == [(0, 0), (t0, 2000), (t0 + 40, 0), (t0 + 120, 2000), (t0 + 160, 0)]


def test_a_late_wake_does_not_shift_the_pattern():
    pwm = PWM()
    bz = Buzzer(pwm, volume=1)
    t0 = 5000
    assert bz.play(cues.pattern(cues.MINUTE_LEFT << 8 | 2), t0) == 120  # falling: 120 120 160
    assert drive(bz, pwm, t0 + 125) == 115  # 5 ms late: the second tone ends at 240 still
    assert pwm.hz == 1500
    assert drive(bz, pwm, t0 + 400) == -1  # so late that the third tone is over too
    assert pwm.duty == 0
    # The quietest volume's duty, every time a tone sounded.
    assert [v for _, k, v in pwm.calls() if k == "d" and v] == [DUTY[1]] * 3


def test_volume_zero_is_silent():
    pwm = PWM()
    bz = Buzzer(pwm, volume=0)
    assert bz.play(cues.pattern(cues.TIMEOUT << 8 | 10), 0) == -1
    assert bz.step(10) == -1 and bz.cue(cues.COUNT << 8 | 3, 20) == -1
    assert pwm.loud == 0 and pwm.duty == 0
    # Turned down while playing: silent at once.
    bz.set_volume(3)
    assert bz.play(buzzer.REFUSE, 100) == 150
    assert pwm.duty == DUTY[3]
    bz.set_volume(0)
    assert pwm.duty == 0 and bz.step(400) == -1
    assert DUTY[0] == 0 and all(d <= 6554 for d in DUTY)  # at most 10 % duty: quiet


def test_a_new_pattern_cuts_the_old_and_across_the_tick_wrap():
    pwm = PWM()
    bz = Buzzer(pwm)
    t0 = ticks.PERIOD - 30  # the 2**30 wrap falls inside the pattern
    assert bz.play(buzzer.REFUSE, t0) == 150
    assert drive(bz, pwm, ticks.add(t0, 150)) == 60
    assert bz.cue(cues.MARK << 8 | 30, ticks.add(t0, 170)) == 40  # one short beep instead
    assert drive(bz, pwm, ticks.add(t0, 209)) == 1
    assert drive(bz, pwm, ticks.add(t0, 210)) == -1
    assert pwm.duty == 0
    assert bz.play((), 0) == -1  # an empty pattern plays nothing
    assert bz.cue(0, 0) == -1


def test_every_cue_pattern_plays_in_its_length():
    for k in range(1, 8):
        pattern = cues.pattern(k << 8 | 5)
        pwm = PWM()
        bz = Buzzer(pwm)
        total = sum(ms for _, ms in pattern)
        now = 0
        wait = bz.play(pattern, now)
        while wait >= 0:
            now += wait
            wait = drive(bz, pwm, now)
        assert now == total, (k, now, total)
        assert pwm.duty == 0


@micropython.native
def _steps(job):
    bz, pwm, times = job
    i = 0
    n = len(times)
    while i < n:
        if not bz.playing:
            bz.play(buzzer.REFUSE, times[i])
        pwm.now = times[i]
        bz.step(times[i])
        i += 1


def test_step_allocates_nothing():
    pwm = PWM(8)
    bz = Buzzer(pwm)
    times = array("i", [ticks.add(ticks.PERIOD - 1000, 7 * k) for k in range(400)])
    job = (bz, pwm, times)
    _steps(job)
    err = locked(lambda: _steps(job))
    assert err is None, err
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    bz.play(cues.pattern(cues.MARK_LATE << 8 | 55), 0)
    before = micropython.mem_total()
    t = 0
    while t < 200:
        bz.step(t)
        t += 1
    assert micropython.mem_total() - before == 0
