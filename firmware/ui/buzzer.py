"""A quiet buzzer that never blocks: a sequencer of ``(hertz, ms)`` patterns on a PWM pin.

``play(pattern, now)`` starts a pattern (the clock's cue patterns, ``firmware/clock/cues.py``,
or the few below); ``step(now)`` moves it on and answers how many ms until it wants to be
called again, so the UI task sleeps exactly that long (-1: nothing is playing). Each step
is timed from when the previous one was due, not from when ``step`` ran, so a late wake-up
shortens the next step instead of shifting the whole pattern: a pattern lasts what it says
to the millisecond. ``step`` allocates nothing.

The piezo is quiet on purpose (002: 棋钟运行时声响应很低弱; hardware/README.md §5: 1–2 kHz,
below its resonance, at 2–10 % duty). Volume 0 is silent: nothing is played at all.
"""

import micropython
from micropython import const

from firmware.clock import cues, ticks

VOLUMES = const(4)
DUTY = (0, 1311, 2621, 5243)  # duty_u16 per volume: silent, 2 %, 4 %, 8 %

# The board's own sounds besides the clock's cues (SPEC §3, §4).
KEY = ((2400, 8),)  # a key press that did something
REFUSE = ((700, 150), (0, 60), (700, 150))  # a press or a move refused (captures left ...)
CONFIRM = ((1500, 40), (2000, 60))  # a setting saved, an arbiter action done


class Buzzer:
    """Plays one pattern at a time on ``pwm`` (``machine.PWM``: ``freq(hz)``, ``duty_u16(d)``)."""

    def __init__(self, pwm, volume=2):
        self.pwm = pwm
        self.volume = volume
        self.pattern = ()
        self.i = 0  # the step playing
        self.due = 0  # the tick it ends
        self.playing = False
        pwm.duty_u16(0)

    def set_volume(self, volume):
        """0 (silent) … 3; a pattern playing goes on at the new volume from its next step."""
        self.volume = volume if 0 <= volume < VOLUMES else 2
        if self.volume == 0:
            self.stop()

    @micropython.native
    def _tone(self, hz):
        pwm = self.pwm
        if hz == 0 or self.volume == 0:
            pwm.duty_u16(0)
        else:
            pwm.freq(hz)
            pwm.duty_u16(DUTY[self.volume])

    @micropython.native
    def play(self, pattern, now):
        """Start ``pattern`` at ``now`` (any pattern playing is cut); ms until ``step``, or -1
        when there is nothing to play (an empty pattern, volume 0)."""
        if self.volume == 0 or len(pattern) == 0:
            self.stop()
            return -1
        self.pattern = pattern
        self.i = 0
        self.playing = True
        hz, ms = pattern[0]
        self._tone(hz)
        self.due = ticks.add(now, ms)
        return ms

    def cue(self, cue, now):
        """Play a clock cue (``kind << 8 | n``); as ``play``."""
        return self.play(cues.pattern(cue), now)

    @micropython.native
    def step(self, now):
        """Move the pattern on at ``now``: ms until the next step is due, -1 when done."""
        if not self.playing:
            return -1
        wait = ticks.diff(self.due, now)
        pattern = self.pattern
        while wait <= 0:
            self.i += 1
            if self.i >= len(pattern):
                self.stop()
                return -1
            hz, ms = pattern[self.i]
            self._tone(hz)
            self.due = ticks.add(self.due, ms)
            wait = ticks.diff(self.due, now)
        return wait

    @micropython.native
    def stop(self):
        """Silence, at once."""
        self.pwm.duty_u16(0)
        self.playing = False
        self.pattern = ()
        self.i = 0
