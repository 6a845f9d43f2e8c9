"""Per-point calibration of the Hall grid: how it is measured, checked, saved and loaded.

Start reading at ``Calibrator``: the procedure of research/hardware.md §5, driven by the UI.

1. Empty board: ``add_empty(frame)`` for several frames (32 recommended) → the baseline and
   the noise σ of every point.
2. Checkerboard pass A (``pattern(n, PASS_A)``: black where x + y is even, white where odd):
   ``add_pass_a(frame)`` for a few frames (8 recommended).
3. Pass B, the colours swapped: ``add_pass_b(frame)``. Every point has now read both
   colours, each time with four neighbours of the other colour.
4. ``finish()`` → a ``Calibration`` with each point's signed black and white deltas (their
   signs are learned here: a sensor mounted the other way round is accepted), its faults,
   and ``problems``: one message per bad point ("D4: black and white read the same way
   (sign)", "K10: dead (no response)", "Q16: noisy (σ 9.3 counts)").

A point is bad (``F_*`` bits, always UNCERTAIN in play) when it is pinned to a rail or does
not respond, reads the same value in every frame, is noisier than NOISE_MAX, reads black and
white on the same side of its baseline, or reads a colour by less than max(8σ, MIN_DELTA)
(research §5 step 4). The board plays with a few bad points: the referee asks about them.

The file is JSON, one object: ``version`` (VERSION), ``size``, ``base`` (counts, multiples
of 1/16), ``noise`` (σ, counts), ``black`` and ``white`` (signed deltas, counts),
``faults`` (F_* bits), ``check`` (a checksum of them all). ``load`` refuses anything else
with a ``CalibrationError`` that says why.
"""

import json
import math
from array import array

from micropython import const

from firmware.rules.coords import GO_COLUMNS, vertex

VERSION = const(1)

# Fault bits, per point.
F_DEAD = const(1)  # pinned at 0 or 4095, or no response to stones
F_STUCK = const(2)  # the same reading in every frame: not even noise
F_NOISY = const(4)  # σ above NOISE_MAX
F_SIGN = const(8)  # black and white on the same side of the baseline, or the wrong side
F_WEAK = const(16)  # one colour reads too little to be told from the baseline
F_OFFSET = const(32)  # (self-test) an empty point far from its baseline
FAULT_NAMES = ((F_DEAD, "dead"), (F_STUCK, "stuck"), (F_NOISY, "noisy"), (F_SIGN, "sign"))
FAULT_NAMES += ((F_WEAK, "weak"), (F_OFFSET, "offset"))

NOISE_MAX = 5.0  # σ, counts (research §5 step 1; the ADC's own noise is ~1.4)
MIN_DELTA = const(150)  # counts: a stone must move a point this far (research §5 step 4)
PIN_LO = const(16)  # a baseline at or below this, or at or above PIN_HI, is a pinned output
PIN_HI = const(4079)
MIN_EMPTY_FRAMES = const(4)

# Phases of the procedure.
EMPTY_BOARD = const(0)
PASS_A = const(1)  # black on (x + y) even, white on odd
PASS_B = const(2)  # swapped

_FIELDS = ("version", "size", "base", "noise", "black", "white", "faults", "check")


class CalibrationError(ValueError):
    """A calibration file or procedure that cannot be used; ``str()`` says why."""


def point_name(i, n):
    """The name of frame index ``i`` on an ``n`` × ``n`` grid: ``D4`` (Go columns, no I)."""
    x = i % n
    y = i // n
    if x < len(GO_COLUMNS):
        return vertex(x, y)
    return "%d,%d" % (x, y)


def pattern(n, phase):
    """Where the stones go in a checkerboard pass: a bytearray of n*n states (1 black, 2
    white), for the UI to show."""
    out = bytearray(n * n)
    for i in range(n * n):
        even = (i % n + i // n) % 2 == 0
        out[i] = 1 if even == (phase == PASS_A) else 2
    return out


class Calibration:
    """One board's calibration: per point ``base16`` (baseline x16, array('H')), ``noise10``
    (σ x10, array('H')), ``black`` and ``white`` (signed deltas in counts, array('h')) and
    ``faults`` (bytearray of F_* bits; nonzero = bad point)."""

    def __init__(self, size, base16, noise10, black, white, faults):
        self.size = size
        self.base16 = base16
        self.noise10 = noise10
        self.black = black
        self.white = white
        self.faults = faults

    @classmethod
    def nominal(cls, n, base=2048, delta=800):
        """A factory calibration with no measurement behind it: every point at ``base``,
        black ``-delta``, white ``+delta`` (the polarity convention). For a simulator, or a
        board not calibrated yet."""
        n2 = n * n
        return cls(
            n,
            array("H", [base * 16] * n2),
            array("H", [14] * n2),
            array("h", [-delta] * n2),
            array("h", [delta] * n2),
            bytearray(n2),
        )

    def check(self):
        """The checksum of the data (Fletcher-style, mod 65521: the same on every runtime)."""
        a = 1
        b = 0
        for arr in (self.base16, self.noise10, self.black, self.white, self.faults):
            for v in arr:
                a = (a + (v & 0xFFFF)) % 65521
                b = (b + a) % 65521
        return b * 65536 + a

    def problems(self):
        """``[(index, fault bits, message)]`` for every bad point, in index order."""
        out = []
        for i in range(self.size * self.size):
            bits, msg = diagnose(self, i)
            bits |= self.faults[i]
            if bits:
                if not msg:
                    msg = "marked bad (%s)" % fault_text(bits)
                out.append((i, bits, point_name(i, self.size) + ": " + msg))
        return out

    # ---- file ----------------------------------------------------------------------------

    def to_dict(self):
        return {
            "version": VERSION,
            "size": self.size,
            "base": [v / 16 for v in self.base16],
            "noise": [v / 10 for v in self.noise10],
            "black": list(self.black),
            "white": list(self.white),
            "faults": list(self.faults),
            "check": self.check(),
        }

    def save(self, dest):
        """Write the calibration as JSON to ``dest``: a file-like object or a path."""
        text = json.dumps(self.to_dict())
        if hasattr(dest, "write"):
            dest.write(text)
            return
        with open(dest, "w") as f:
            f.write(text)


def fault_text(bits):
    """``"dead, noisy"`` for a set of F_* bits."""
    return ", ".join([name for bit, name in FAULT_NAMES if bits & bit])


def diagnose(cal, i):
    """``(fault bits, message)`` of point ``i`` from its calibration data; ``(0, "")`` if
    it is good. The first fault found names the message, the most telling first."""
    b16 = cal.base16[i]
    sigma = cal.noise10[i] / 10
    black = cal.black[i]
    white = cal.white[i]
    floor = max(8 * sigma, MIN_DELTA)
    if b16 <= PIN_LO * 16 or b16 >= PIN_HI * 16:
        return F_DEAD, "dead (pinned at %d)" % (0 if b16 <= PIN_LO * 16 else 4095)
    if abs(black) < floor and abs(white) < floor:
        if cal.noise10[i] == 0:
            return F_DEAD | F_STUCK, "stuck (reads %d in every frame)" % ((b16 + 8) // 16)
        return F_DEAD, "dead (no response)"
    if sigma > NOISE_MAX:
        return F_NOISY, "noisy (σ %.1f counts)" % sigma
    if black != 0 and white != 0 and (black > 0) == (white > 0):
        return F_SIGN, "black and white read the same way (sign)"
    for name, d in (("black", black), ("white", white)):
        if abs(d) < floor:
            return F_WEAK, "weak %s (Δ %+d counts, needs %d)" % (name, d, floor)
    return 0, ""


class Calibrator:
    """The calibration procedure (see the module header); frames in, ``finish()`` out.

    Not on the hot path: it allocates freely (sums as Python ints)."""

    def __init__(self, n):
        self.n = n
        n2 = n * n
        self.count = [0, 0, 0]  # frames per phase
        self.sums = [[0] * n2, [0] * n2, [0] * n2]
        self.first = None  # the first empty frame: squares are summed around it
        self.dev = [0] * n2
        self.dev2 = [0] * n2
        self.problems = []
        self.notes = []

    def add(self, phase, frame):
        """Add one raw frame of ``phase`` (EMPTY_BOARD, PASS_A, PASS_B)."""
        n2 = self.n * self.n
        if len(frame) != n2:
            raise CalibrationError("frame has %d values, not %d" % (len(frame), n2))
        for v in frame:
            if not 0 <= v <= 4095:
                raise CalibrationError("frame value %d out of 0-4095" % v)
        s = self.sums[phase]
        for i in range(n2):
            s[i] += frame[i]
        self.count[phase] += 1
        if phase == EMPTY_BOARD:
            if self.first is None:
                self.first = array("H", frame)
            f0 = self.first
            for i in range(n2):
                d = frame[i] - f0[i]
                self.dev[i] += d
                self.dev2[i] += d * d

    def add_empty(self, frame):
        self.add(EMPTY_BOARD, frame)

    def add_pass_a(self, frame):
        self.add(PASS_A, frame)

    def add_pass_b(self, frame):
        self.add(PASS_B, frame)

    def finish(self):
        """The ``Calibration``; ``self.problems`` lists the bad points with a message each,
        ``self.notes`` what is unusual but fine (sensors mounted the other way round)."""
        n = self.n
        n2 = n * n
        k = self.count[EMPTY_BOARD]
        if k < MIN_EMPTY_FRAMES:
            raise CalibrationError(
                "needs at least %d empty-board frames, has %d" % (MIN_EMPTY_FRAMES, k)
            )
        for phase, name in ((PASS_A, "pass A"), (PASS_B, "pass B")):
            if not self.count[phase]:
                raise CalibrationError("no frame of checkerboard %s" % name)
        base16 = array("H", bytes(2 * n2))
        noise10 = array("H", bytes(2 * n2))
        black = array("h", bytes(2 * n2))
        white = array("h", bytes(2 * n2))
        se, sa, sb = self.sums
        ka = self.count[PASS_A]
        kb = self.count[PASS_B]
        for i in range(n2):
            base = se[i] / k
            base16[i] = min(65535, int(base * 16 + 0.5))
            m = self.dev[i] / k
            var = self.dev2[i] / k - m * m
            noise10[i] = min(65535, int(math.sqrt(var if var > 0 else 0) * 10 + 0.5))
            da = _clamp16(sa[i] / ka - base)
            db = _clamp16(sb[i] / kb - base)
            if (i % n + i // n) % 2 == 0:  # black in pass A
                black[i], white[i] = da, db
            else:
                black[i], white[i] = db, da
        cal = Calibration(n, base16, noise10, black, white, bytearray(n2))
        # Most sensors share one mounting: black below the baseline. A point with both signs
        # the other way is a sensor mounted reversed (fine: signs are learned); a point with
        # both on one side had a wrong stone in one pass, or a broken sensor.
        below = 0
        for i in range(n2):
            if black[i] < 0 < white[i]:
                below += 1
        normal_black_below = 2 * below >= n2
        self.problems = []
        self.notes = []
        for i in range(n2):
            bits, msg = diagnose(cal, i)
            name = point_name(i, n)
            if bits:
                cal.faults[i] = bits
                if bits & F_SIGN:
                    # Which pass put the suspicious stone there: the colour on the unusual
                    # side is the one to check.
                    wrong_black = (black[i] > 0) == normal_black_below
                    col = "black" if wrong_black else "white"
                    in_a = ((i % n + i // n) % 2 == 0) == wrong_black
                    msg += "; check the %s stone of pass %s" % (col, "A" if in_a else "B")
                elif bits & F_WEAK:
                    msg += "; a stone missing in a pass?"
                self.problems.append((i, bits, name + ": " + msg))
            elif (black[i] < 0) != normal_black_below:
                self.notes.append((i, name + ": mounted reversed (accepted: signs are learned)"))
        return cal


def _clamp16(d):
    v = int(d + 0.5) if d >= 0 else -int(-d + 0.5)
    return max(-32768, min(32767, v))


def load(src, size=None):
    """A ``Calibration`` from JSON: ``src`` a file-like object or a path. ``size``, if given,
    is the board's: a file for another size is refused. Raises ``CalibrationError`` (with the
    reason) for a wrong version or size, a missing field, corrupt data; ``OSError`` if the
    path cannot be read."""
    if hasattr(src, "read"):
        text = src.read()
    else:
        with open(src) as f:
            text = f.read()
    try:
        d = json.loads(text)
    except ValueError:
        raise CalibrationError("corrupt: not JSON") from None
    if not isinstance(d, dict):
        raise CalibrationError("corrupt: not a calibration object")
    for key in _FIELDS:
        if key not in d:
            raise CalibrationError("missing field %r" % key)
    if d["version"] != VERSION:
        raise CalibrationError(
            "wrong version %r (this firmware reads version %d)" % (d["version"], VERSION)
        )
    n = d["size"]
    if not isinstance(n, int) or not 2 <= n <= 25:
        raise CalibrationError("corrupt: size %r" % (n,))
    if size is not None and n != size:
        raise CalibrationError("wrong size %d (this board is %dx%d)" % (n, size, size))
    n2 = n * n
    base16 = array("H", _values(d, "base", n2, 0, 4095, 16))
    noise10 = array("H", _values(d, "noise", n2, 0, 6553, 10))
    black = array("h", _values(d, "black", n2, -4095, 4095, 1))
    white = array("h", _values(d, "white", n2, -4095, 4095, 1))
    faults = bytearray(_values(d, "faults", n2, 0, 255, 1))
    cal = Calibration(n, base16, noise10, black, white, faults)
    if d["check"] != cal.check():
        raise CalibrationError("corrupt: checksum mismatch")
    for i in range(n2):  # a file edited by hand keeps its own marks and gets ours
        cal.faults[i] |= diagnose(cal, i)[0]
    return cal


def _values(d, key, n2, lo, hi, scale):
    """The list ``d[key]`` as ints (x ``scale``), checked; CalibrationError otherwise."""
    vals = d[key]
    if not isinstance(vals, list):
        raise CalibrationError("corrupt: %r is not a list" % key)
    if len(vals) != n2:
        raise CalibrationError("corrupt: %r has %d values, not %d" % (key, len(vals), n2))
    out = []
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise CalibrationError("corrupt: %r holds %r" % (key, v))
        out.append(int(v * scale + 0.5) if v >= 0 else -int(-v * scale + 0.5))
    return out
