"""Self-test of the Hall grid: which points are dead, stuck, noisy or read the wrong way.

``selftest(frames, cal, expected)`` looks at a series of raw frames of a board at rest (empty,
or holding the stones ``expected`` says) together with the calibration, and returns one
entry per faulty point: ``(index, F_* bits, "D4: ...")``, the point named as players name it
(Go columns, no I). ``mark(sensing, found)`` then makes those points UNCERTAIN in play.
``Known(sensing)`` stands in for the calibration on the board, whose sensing keeps no
``Calibration`` (the app's run: firmware/ui/calibrate.py's ``SelfTesting``, the link's
``selftest``).

What is named (the checks run in this order; a point gets every fault it has):
- dead: every reading pinned at 0 or 4095, or (with a stone expected) no response to it;
- stuck: the very same reading in every frame (a live sensor always shows ~1.4 counts of
  ADC noise, so a constant value means a stuck mux or channel);
- noisy: σ over the series above ``noise_max``;
- wrong sign: an expected stone reads on the other colour's side of the baseline; weak: it
  reads in the hysteresis band (between LEAVE and ENTER of its calibrated delta);
- offset: an expected empty point reads further than LEAVE from its baseline;
- and whatever the calibration itself found (``Calibration.problems``).

Not on the hot path: it allocates freely.
"""

import math

from firmware.sensing.calibration import (
    F_DEAD,
    F_NOISY,
    F_OFFSET,
    F_SIGN,
    F_STUCK,
    F_WEAK,
    FAULT_NAMES,
    NOISE_MAX,
    PIN_HI,
    PIN_LO,
    fault_text,
    point_name,
)
from firmware.sensing.grid import BLACK, EMPTY, ENTER_PCT, LEAVE_PCT, STATE_NAMES, WHITE

MIN_FRAMES = 4  # fewer frames cannot tell stuck from quiet, nor measure σ


def selftest(frames, cal, expected=None, noise_max=NOISE_MAX):
    """``[(index, fault bits, message)]``, in index order, for the faulty points.

    ``frames``: an iterable of raw frames (``array('H')`` of n*n counts) of a board at rest;
    ``cal``: its ``Calibration``; ``expected``: n*n states (EMPTY, BLACK, WHITE) on the board
    during the frames, or None to skip the stone checks."""
    n = cal.size
    n2 = n * n
    lo = [4096] * n2
    hi = [-1] * n2
    total = [0] * n2
    dev = [0] * n2
    dev2 = [0] * n2
    first = None
    k = 0
    for frame in frames:
        if len(frame) != n2:
            raise ValueError("frame has %d values, not %d" % (len(frame), n2))
        if first is None:
            first = frame[:]  # frames may be one buffer refilled in place
        for i in range(n2):
            v = frame[i]
            if v < lo[i]:
                lo[i] = v
            if v > hi[i]:
                hi[i] = v
            total[i] += v
            d = v - first[i]
            dev[i] += d
            dev2[i] += d * d
        k += 1
    if k < MIN_FRAMES:
        raise ValueError("self-test needs at least %d frames, has %d" % (MIN_FRAMES, k))
    found = {}
    for i in range(n2):
        bits = 0
        msgs = []
        if hi[i] <= PIN_LO or lo[i] >= PIN_HI:
            bits |= F_DEAD
            msgs.append("dead (pinned at %d)" % (0 if hi[i] <= PIN_LO else 4095))
        elif hi[i] == lo[i]:
            bits |= F_STUCK
            msgs.append("stuck (reads %d in every frame)" % lo[i])
        m = dev[i] / k
        var = dev2[i] / k - m * m
        sigma = math.sqrt(var) if var > 0 else 0.0
        if sigma > noise_max:
            bits |= F_NOISY
            msgs.append("noisy (σ %.1f counts)" % sigma)
        if expected is not None and not bits:
            b, msg = _stone_check(cal, i, total[i] / k, expected[i])
            bits |= b
            if msg:
                msgs.append(msg)
        if bits:
            found[i] = (bits, msgs)
    head = getattr(cal, "source", "at calibration") + ": "
    for i, bits, msg in cal.problems():
        old_bits, msgs = found.get(i, (0, []))
        msgs.append(head + msg[msg.find(": ") + 2 :])
        found[i] = (old_bits | bits, msgs)
    out = []
    for i in sorted(found):
        bits, msgs = found[i]
        out.append((i, bits, point_name(i, n) + ": " + "; ".join(msgs)))
    return out


def _stone_check(cal, i, mean, want):
    """Fault bits and message for a point expected to hold ``want`` at ``mean`` counts."""
    d = mean - cal.base16[i] / 16
    black = cal.black[i]
    white = cal.white[i]
    if want == EMPTY:
        small = min(abs(black), abs(white))
        if small and abs(d) * 100 >= LEAVE_PCT * small:
            return F_OFFSET, "offset (reads %+d counts off its baseline, empty)" % int(d)
        return 0, ""
    if want not in (BLACK, WHITE):
        return 0, ""
    delta = black if want == BLACK else white
    if delta == 0 or (black > 0) == (white > 0):
        return 0, ""  # the calibration could not learn this point: reported from there
    pct = int(d * 100 / delta)
    name = STATE_NAMES[want]
    other = STATE_NAMES[3 - want]
    if pct <= -LEAVE_PCT:
        return F_SIGN, "wrong sign (the %s stone reads as %s)" % (name, other)
    if pct < LEAVE_PCT:
        return F_DEAD, "dead (no response to the %s stone: %d %%)" % (name, pct)
    if pct < ENTER_PCT:
        return F_WEAK, "weak (the %s stone reads %d %% of its calibrated Δ)" % (name, pct)
    return 0, ""


class Known:
    """The bad points ``sensing`` (firmware/sensing/grid.py's ``Sensing``) already knows, its
    calibration's and any ``mark``ed since, as the calibration ``selftest`` takes: the board's
    sensing keeps its calibration's baselines and faults, not the ``Calibration`` itself. Only
    for ``expected=None`` (the stone checks need the calibrated deltas)."""

    source = "known bad"  # what selftest's messages say these came from

    def __init__(self, sensing):
        self.size = sensing.n
        self.faults = sensing.faults

    def problems(self):
        """``[(index, fault bits, message)]`` as ``Calibration.problems``, for the known ones."""
        n = self.size
        f = self.faults
        return [
            (i, f[i], point_name(i, n) + ": " + fault_text(f[i])) for i in range(n * n) if f[i]
        ]


def fault_names(bits):
    """The names of ``bits`` (``calibration.FAULT_NAMES``): ``["dead", "noisy"]``."""
    return [name for bit, name in FAULT_NAMES if bits & bit]


def mark(sensing, found):
    """Make every point of a ``selftest`` result bad in ``sensing``: UNCERTAIN from now on."""
    for i, bits, _ in found:
        sensing.mark_bad(i, bits)
