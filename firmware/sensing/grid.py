"""Raw Hall frames → debounced per-point states: thresholds with hysteresis, drift tracking.

Start reading at ``Sensing.update``. A frame is an ``array('H')`` of ``n * n`` 12-bit ADC
counts, index ``y * n + x`` (y = 0 the bottom row, x = 0 the left column). Every point has
its own calibration (``calibration.py``): a baseline and a signed delta per colour, whose
signs were learned at calibration, so a sensor mounted the other way round simply has the
opposite signs. Black stones read below the baseline on a normally mounted sensor (North
down, research/hardware.md §5), white ones above.

How a reading becomes a state, per point, on every frame (the viper kernel ``_scan``):

1. ``d = reading - baseline``; its sign picks the colour on that side, ``m = |d|`` is
   compared with that colour's thresholds, each a fraction of that colour's own |delta|:

   - ``m <= LEAVE`` (20 %): near the baseline, EMPTY;
   - ``m >= ENTER`` (40 %): that colour;
   - ``m >= OVER`` (200 %), or a reading at a rail of the ADC (<= 16 or >= 4079): nowhere
     near any class (two stones, a foreign magnet, a shorted line), UNCERTAIN;
   - in between (the hysteresis band): the point keeps its colour if it has it, an EMPTY
     point stays EMPTY, anything else is UNCERTAIN. An EMPTY point that reads in the band
     for ``gap_frames`` frames in a row (a stone resting far off-centre, a stone held just
     above the point) becomes UNCERTAIN, so the referee can ask about it.

2. Debounce: a new class must be read on ``debounce`` consecutive frames, and for at least
   ``debounce_ms`` from the first of them to this one (by the caller's ``now_ms``), before
   the stable state changes (a one-frame spike, a brief touch, a stone slid quickly across a
   point, changes nothing). A lingering band reading likewise needs ``gap_frames`` frames and
   ``gap_ms``. ``unsettled`` counts the points that are waiting; ``settling(i)`` tells what
   one awaits.

   Why by time: the board's frames come at ~190/s from the DMA scan and ~100/s from the polled
   fallback (firmware/hal/rp2040.py), and a count of frames would be a different delay on
   each. ``board_sensing`` is the board's: 2 frames and ``DEBOUNCE_MS`` (10 ms), so a stone
   put down is seen and judged within SPEC §7's 50 ms on both paths (bench/bench_sensing.py,
   part 4, adds it up). The constructor's own defaults (3 frames, no time) are the 20 scans/s
   of the research, which the tests and the virtual board replay.

3. Drift: once per ``drift_ms`` (by the caller's ``now_ms``) the baseline of every point
   that has been stably EMPTY and quiet (|d| <= LEAVE / 4) for ``quiet_steps`` steps moves
   1/16 count toward the reading, at most LEAVE / 4 away from its calibrated value. That
   follows Hall offset drift with temperature (tens of counts over hours), never a stone,
   and not the crosstalk of an eye's neighbours (8 %, outside the quiet band).

Why these thresholds (fractions of each point's own calibrated delta; the field figures are
research §1.2's and firmware/hal/virtual_grid.py's magnet model: 6×3 mm N35 at z = 5 mm):
- LEAVE 20 %: crosstalk from neighbours has the opposite sign, 1.1–1.5 % of a stone's signal
  per orthogonal neighbour and ~0.6 % per diagonal one: an eye among eight stones of one
  colour reads ~8 %, a point deep in a solid area ~11 %, the research's theoretical extreme
  (all 360 other points one colour) 8–18 %. 20 % is 1.8× the solid area, above the extreme,
  and still above the solid area plus the drift tracker's largest correction (5 %) the other
  way; it is ~180 counts against 1.4 counts of ADC noise.
- ENTER 40 %: a stone 3 mm off-centre keeps 64–80 % of its field and enters with a margin
  of 1.6×. A stone 5 mm off keeps ~29 % (23–47 % by magnet): rather than guessing, it falls
  in the band and is reported UNCERTAIN after ``gap_frames``, so the referee asks for it to
  be centred instead of missing it (a press with no new stone would be a pass). 6 mm and
  more off (over a quarter of the pitch) reads as nothing here, and near nothing anywhere.
  Research's 25 % would take 5 mm stones as stones, but leave only 10 % between ENTER and
  the crosstalk extreme, and widen the spot where a stone slid across the board reads as one.
- The band between them (20 % of delta, ~180 counts) is 100× the noise, so a point never
  chatters; a stone nudged after it was seen keeps its colour until it reads below 20 %.
- OVER 200 %: a stone centred better than at calibration reads up to ~160 %; beyond 2× it is
  not one of our stones. (A typical black delta, ~890 counts below a ~2048 baseline, would
  hit the ADC's 0 before 2.5× could be read: hence 2×, and the rails.)

Points the calibration or a self-test found bad are always UNCERTAIN and never change: the
referee asks the players about them. ``update`` allocates nothing (tests/test_sensing_alloc.py).
"""

from array import array

import micropython
from micropython import const

from firmware.clock import ticks
from firmware.sensing.calibration import F_SIGN

EMPTY = const(0)
BLACK = const(1)  # = the rules' BLACK
WHITE = const(2)  # = the rules' WHITE
UNCERTAIN = const(3)
STATE_NAMES = ("empty", "black", "white", "uncertain")
_GAP = const(4)  # kernel only: an EMPTY point reading in the hysteresis band

# Thresholds in percent of each colour's calibrated |delta| (see the header for why).
ENTER_PCT = const(40)
LEAVE_PCT = const(20)
OVER_PCT = const(200)

# Defaults. At the research's 20 scans/s: 150 ms debounce, 1 s before a lingering band
# reading turns UNCERTAIN, drift 0.25 count/s after 10 s of quiet.
DEBOUNCE = const(3)
GAP_FRAMES = const(20)
DRIFT_MS = const(250)
QUIET_STEPS = const(40)
# The board's (``board_sensing``), by time whatever the frame rate. 10 ms: the worst stone
# down -> judged is then ~25 ms on the DMA path and ~32-46 ms on the polled one, estimated on
# the chip (bench/bench_sensing.py part 4), inside SPEC §7's 50 ms; two frames at least, so a
# single frame never decides. A stone touched down for less, or a stone slid across a point
# faster than ~8 mm (where it reads above ENTER) in 10 ms, i.e. 0.8 m/s, is not seen there.
DEBOUNCE_MS = const(10)
GAP_MS = const(1000)
MIN_FRAMES = const(2)
MAX_MS = const(60000)  # the per-point start times are 16-bit ms: well below their wrap

# What ``update`` returns for a frame it refuses (nothing is changed then).
ERR_LENGTH = const(-1)
ERR_TYPE = const(-2)
ERR_RANGE = const(-3)
ADC_MAX = const(4095)
_RAIL_LO = const(16)  # = calibration.PIN_LO, PIN_HI: an output pinned to a rail
_RAIL_HI = const(4079)

# Per point: 8 words of ``Sensing.thr``; per point 3 bytes of ``Sensing.aux``.
_T_UP_ENTER = const(0)  # thresholds, counts, for the colour read above the baseline
_T_DN_ENTER = const(3)  # the same for the colour read below it
_T_BASE0 = const(6)  # calibrated baseline x16 (the drift is bounded around it)
_T_CAP = const(7)  # how far the baseline may drift, x16
_P_N2 = const(0)  # words of ``Sensing.params``
_P_DEBOUNCE = const(1)
_P_GAP = const(2)
_P_DRIFT = const(3)  # 1 on a frame that takes a drift step
_P_QUIET = const(4)
_P_UNSETTLED = const(5)  # out: points waiting for their debounce
_P_DEBOUNCE_MS = const(6)
_P_GAP_MS = const(7)
_P_NOW = const(8)  # the frame's now_ms, low 16 bits


def error_text(code):
    """A message for a code ``update`` returned (static strings: nothing allocated)."""
    if code == ERR_LENGTH:
        return "frame has the wrong length"
    if code == ERR_TYPE:
        return "frame is not an array of 16-bit ADC counts"
    if code == ERR_RANGE:
        return "frame value out of 0-4095 (see error_index)"
    return "ok"


# Viper: a refused 19x19 frame (the whole range check) takes 1.0 µs on the unix port against
# 38-64 µs as bytecode (bench/bench_sensing.py).
@micropython.viper
def _first_bad(frame, n2: int) -> int:
    """Index of the first value outside 0–4095, or -1."""
    f = ptr16(frame)
    i = 0
    while i < n2:
        v = int(f[i])
        if v > ADC_MAX or v < 0:  # v < 0: the CPython path over an array('h')
            return i
        i += 1
    return -1


# Viper: a 19x19 update takes 4.4-5.7 µs on the unix port against 245-620 µs as bytecode
# (43-110x, bench/bench_sensing.py); ~0.6-0.8 ms estimated on the RP2040.
@micropython.viper
def _scan(frame, base, thr, up, st, aux, since, changed, was, params) -> int:
    """Classify, debounce and drift every point of ``frame``; the number of stable changes.

    ``base`` baselines x16; ``thr`` 8 words a point (see _T_*); ``up`` the colour read above
    the baseline, 0 for a bad point; ``st`` stable states; ``aux`` candidate, count, quiet
    per point; ``since`` when each point's candidate was first read (ms, low 16 bits); the
    changes go to ``changed`` (indices) and ``was`` (their old states).
    """
    f = ptr16(frame)
    b = ptr16(base)
    t = ptr16(thr)
    u = ptr8(up)
    s = ptr8(st)
    a = ptr8(aux)
    sn = ptr16(since)
    ch = ptr16(changed)
    w = ptr8(was)
    p = ptr32(params)
    n2 = int(p[_P_N2])
    need = int(p[_P_DEBOUNCE])
    need_gap = int(p[_P_GAP])
    drift = int(p[_P_DRIFT])
    quiet = int(p[_P_QUIET])
    need_ms = int(p[_P_DEBOUNCE_MS])
    gap_ms = int(p[_P_GAP_MS])
    now = int(p[_P_NOW])
    nch = 0
    unsettled = 0
    i = 0
    while i < n2:
        hi = int(u[i])
        if hi == 0:  # a bad point: UNCERTAIN for good
            i += 1
            continue
        cur = int(s[i])
        b16 = int(b[i])
        v = int(f[i])
        d16 = (v << 4) - b16
        j = i << 3
        if d16 >= 0:
            m = d16
            col = hi
        else:
            m = 0 - d16
            col = 3 - hi
            j += _T_DN_ENTER
        leave = int(t[j + 1]) << 4
        if m <= leave:
            raw = EMPTY
        elif m >= int(t[j + 2]) << 4 or v <= _RAIL_LO or v >= _RAIL_HI:
            raw = UNCERTAIN
        elif m >= int(t[j]) << 4:
            raw = col
        elif cur == col:
            raw = col
        elif cur == EMPTY:
            raw = _GAP
        else:
            raw = UNCERTAIN
        k = i * 3
        if raw == cur:
            a[k + 1] = 0
            if cur == EMPTY:
                if m <= leave >> 2:
                    if drift:
                        q = int(a[k + 2])
                        if q < quiet:
                            a[k + 2] = q + 1
                        else:
                            j = i << 3
                            off = b16 - int(t[j + _T_BASE0])
                            cap = int(t[j + _T_CAP])
                            if d16 > 0 and off < cap:
                                b[i] = b16 + 1
                            elif d16 < 0 and off > 0 - cap:
                                b[i] = b16 - 1
                else:
                    a[k + 2] = 0
        else:
            a[k + 2] = 0
            if raw == int(a[k]):
                n = int(a[k + 1]) + 1
                if n > 255:
                    n = 255
            else:
                a[k] = raw
                n = 1
            a[k + 1] = n
            if n == 1:  # the candidate's first frame
                sn[i] = now
            held = (now - int(sn[i])) & 0xFFFF
            if raw == _GAP:
                if n >= need_gap and held >= gap_ms:
                    raw = UNCERTAIN
                else:
                    raw = cur
            elif n < need or held < need_ms:
                raw = cur
            if raw != cur:
                s[i] = raw
                w[nch] = cur
                ch[nch] = i
                nch += 1
                a[k + 1] = 0
            else:
                unsettled += 1
        i += 1
    p[_P_UNSETTLED] = unsettled
    return nch


def _length(frame):
    """``len(frame)``, or -1 for an object that has no length."""
    try:
        return len(frame)
    except TypeError:
        return -1


class Sensing:
    """Stable per-point states of an ``n`` × ``n`` Hall grid, fed one raw frame at a time.

    ``calibration`` is a ``calibration.Calibration`` (or anything with ``size``, ``base16``,
    ``black``, ``white`` and ``faults`` laid out the same way). Public, read-only between
    calls: ``states`` (bytearray, n*n stable states), after each ``update`` the first
    ``nchanged`` entries of ``changed`` (frame indices) and ``changed_from`` (their previous
    states), ``unsettled`` (points waiting for their debounce), ``error_index`` (the first bad
    value of the last refused frame), ``faults`` (bytearray of ``calibration.F_*`` bits per
    point; nonzero = a bad point, always UNCERTAIN).

    Every point starts UNCERTAIN and settles after ``debounce`` frames (and ``debounce_ms``).
    """

    def __init__(
        self,
        n,
        calibration,
        debounce=DEBOUNCE,
        gap_frames=GAP_FRAMES,
        drift_ms=DRIFT_MS,
        quiet_steps=QUIET_STEPS,
        debounce_ms=0,
        gap_ms=0,
    ):
        if calibration.size != n:
            raise ValueError(
                "calibration is for %dx%d, not %dx%d" % ((calibration.size,) * 2 + (n, n))
            )
        if not 1 <= debounce <= 255 or not 1 <= gap_frames <= 255 or not 0 <= quiet_steps <= 255:
            raise ValueError("debounce, gap_frames and quiet_steps must be within 1-255")
        if not 0 <= debounce_ms <= MAX_MS or not 0 <= gap_ms <= MAX_MS:
            raise ValueError("debounce_ms and gap_ms must be within 0-%d" % MAX_MS)
        n2 = n * n
        self.n = n
        self.n2 = n2
        self.states = bytearray(n2)
        self.changed = array("H", bytes(2 * n2))
        self.changed_from = bytearray(n2)
        self.nchanged = 0
        self.unsettled = 0
        self.error_index = -1
        self.frames = 0  # frames accepted
        self.rejected = 0  # frames refused
        self.drift_ms = drift_ms
        self.base = array("H", bytes(2 * n2))
        self.thr = array("H", bytes(16 * n2))
        self.up = bytearray(n2)
        self.aux = bytearray(3 * n2)
        self.since = array("H", bytes(2 * n2))
        self.faults = bytearray(n2)
        self.params = array(
            "i", [n2, debounce, gap_frames, 0, quiet_steps, 0, debounce_ms, gap_ms, 0]
        )
        self._ok = [None, None]  # the last two frame buffers whose type was checked
        self._okn = 0
        self._drift_at = 0
        self._drift_started = False
        self.load(calibration)

    def load(self, calibration):
        """Take a (new) calibration: baselines, thresholds, bad points; states restart."""
        if calibration.size != self.n:
            raise ValueError("calibration is for another board size")
        for i in range(self.n2):
            self.base[i] = calibration.base16[i]
            self.faults[i] = calibration.faults[i]
            self._derive(i, calibration.black[i], calibration.white[i])
        self.reset()

    def _derive(self, i, black, white):
        """Thresholds of point ``i`` from its signed deltas; a bad point if they cannot work."""
        j = i << 3
        if self.faults[i] or black == 0 or white == 0 or (black > 0) == (white > 0):
            self.up[i] = 0
            if not self.faults[i]:
                self.faults[i] = F_SIGN
            return
        if white > 0:
            self.up[i] = WHITE
            hi, lo = white, -black
        else:
            self.up[i] = BLACK
            hi, lo = black, -white
        for off, mag in ((0, hi), (_T_DN_ENTER, lo)):
            self.thr[j + off] = max(1, mag * ENTER_PCT // 100)
            self.thr[j + off + 1] = mag * LEAVE_PCT // 100
            self.thr[j + off + 2] = min(65535, mag * OVER_PCT // 100)
        self.thr[j + _T_BASE0] = self.base[i]
        # LEAVE / 4, x16; never so far that the baseline x16 could leave array('H')'s range.
        b16 = self.base[i]
        self.thr[j + _T_CAP] = min((min(hi, lo) * LEAVE_PCT // 100) * 4, b16, 65535 - b16)

    def reset(self, state=UNCERTAIN):
        """Every good point to ``state`` (bad ones stay UNCERTAIN); pending debounces dropped."""
        for i in range(self.n2):
            self.states[i] = state if self.up[i] else UNCERTAIN
            self.aux[3 * i] = self.aux[3 * i + 1] = self.aux[3 * i + 2] = 0
        self.nchanged = 0
        self.unsettled = 0

    def update(self, frame, now_ms=0):
        """Take one raw frame: the number of stable states that changed (listed in
        ``changed[:nchanged]`` / ``changed_from``), or a negative ``ERR_*`` code when the
        frame is refused (``error_text``), in which case nothing at all has changed.

        ``now_ms`` is a tick of ``firmware.clock.ticks`` (the board's ``ticks_ms``); the
        drift tracking steps by it, so a caller that always passes 0 gets no drift tracking.
        Allocates nothing once each frame buffer has been seen (its type is checked once).
        """
        return self._update(frame, now_ms)

    # Viper, not for speed: a bytecode method this size would borrow its call frame from the
    # heap on every frame (200 bytes on the unix port); a viper frame is on the C stack.
    # (Viper has no default arguments: hence the small ``update`` in front.)
    @micropython.viper
    def _update(self, frame, now_ms) -> int:
        n2 = int(self.n2)
        if int(_length(frame)) != n2:
            return int(self._refuse(ERR_LENGTH if int(_length(frame)) >= 0 else ERR_TYPE, -1))
        ok = self._ok
        if frame is not ok[0] and frame is not ok[1]:
            if not self._type_ok(frame):
                return int(self._refuse(ERR_TYPE, -1))
        bad = int(_first_bad(frame, n2))
        if bad >= 0:
            return int(self._refuse(ERR_RANGE, bad))
        p = ptr32(self.params)
        p[_P_NOW] = int(now_ms) & 0xFFFF
        p[_P_DRIFT] = 0
        if not self._drift_started:
            self._drift_started = True
            self._drift_at = now_ms
        elif int(ticks.diff(now_ms, self._drift_at)) >= int(self.drift_ms):
            p[_P_DRIFT] = 1
            self._drift_at = now_ms
        n = int(
            _scan(
                frame,
                self.base,
                self.thr,
                self.up,
                self.states,
                self.aux,
                self.since,
                self.changed,
                self.changed_from,
                self.params,
            )
        )
        self.nchanged = n
        self.unsettled = p[_P_UNSETTLED]
        self.frames = (int(self.frames) + 1) & 0x3FFFFFFF  # a small int on the RP2040
        return n

    def _refuse(self, code, index):
        self.error_index = index
        self.nchanged = 0
        self.rejected += 1
        return code

    def _type_ok(self, frame):
        """Whether ``frame`` holds 16-bit items (allocates: once per new buffer)."""
        try:
            code = getattr(frame, "typecode", None) or getattr(frame, "format", None)
            if code is not None:  # CPython's array and memoryview
                ok = code in ("H", "h")
            else:  # MicroPython's arrays do not say their type: count their bytes
                ok = not isinstance(frame, (bytes, bytearray)) and len(bytes(frame)) == 2 * self.n2
        except (TypeError, ValueError):
            ok = False
        if ok:
            self._ok[self._okn] = frame
            self._okn ^= 1
        return ok

    # ---- bad points and inspection ---------------------------------------------------------

    def mark_bad(self, i, fault):
        """Make point ``i`` bad (``fault``: ``calibration.F_*`` bits): UNCERTAIN from now on."""
        self.faults[i] |= fault
        self.up[i] = 0
        self.states[i] = UNCERTAIN

    def bad_points(self):
        """Frame indices of the points always reported as UNCERTAIN."""
        return [i for i in range(self.n2) if not self.up[i]]

    def baseline(self, i):
        """Point ``i``'s current (drift-tracked) baseline, in counts."""
        return self.base[i] / 16

    def settling(self, i):
        """The state point ``i`` is heading for (``UNCERTAIN`` for a lingering band reading)
        and how many frames it has read so, or ``(states[i], 0)`` if it is settled."""
        n = self.aux[3 * i + 1]
        if not n:
            return self.states[i], 0
        c = self.aux[3 * i]
        return (UNCERTAIN if c == _GAP else c), n


def board_sensing(n, calibration):
    """The board's ``Sensing``: debounced by time (``MIN_FRAMES`` frames and ``DEBOUNCE_MS``;
    a lingering band reading ``GAP_MS``), the same delays at any frame rate."""
    return Sensing(
        n,
        calibration,
        debounce=MIN_FRAMES,
        gap_frames=MIN_FRAMES,
        debounce_ms=DEBOUNCE_MS,
        gap_ms=GAP_MS,
    )
