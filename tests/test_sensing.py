"""Sensing: raw Hall frames → stable point states, calibration, self-test (firmware/sensing).

The frames come from ``Model``, a small physical model of the grid written for these tests:
per-sensor baseline and gain spread, ~1.4 counts of ADC noise from the seeded ``Rng`` (the
same numbers on CPython and MicroPython), crosstalk from the eight neighbours (1.5 % of a
stone's delta per orthogonal one, 0.5 % per diagonal one, with the opposite sign), a stone's
strength in percent (off-centre or held above the point), sensors mounted reversed, and the
faults a self-test must name (pinned, stuck, noisy, dead, same sign).
"""

import io
import json
import os
import sys
import time
from array import array

from firmware.sensing import calibration as C
from firmware.sensing.calibration import (
    PASS_A,
    PASS_B,
    Calibration,
    CalibrationError,
    Calibrator,
    pattern,
    point_name,
)
from firmware.sensing.grid import (
    BLACK,
    DEBOUNCE_MS,
    EMPTY,
    ERR_LENGTH,
    ERR_RANGE,
    ERR_TYPE,
    GAP_MS,
    MIN_FRAMES,
    UNCERTAIN,
    WHITE,
    Sensing,
    board_sensing,
    error_text,
)
from firmware.sensing.selftest import mark, selftest
from tests.support import Rng


class Model:
    """An ``n`` × ``n`` Hall grid with stones on it; ``frame()`` is one raw scan."""

    def __init__(self, n=9, seed=7, reversed_points=()):
        r = Rng(seed)
        self.rng = r
        self.n = n
        n2 = n * n
        self.base = [2048 + r.between(-150, 150) for _ in range(n2)]
        self.gain = [r.between(600, 1000) for _ in range(n2)]  # counts of a centred stone
        self.polarity = [1] * n2  # -1: the sensor is mounted the other way round
        for i in reversed_points:
            self.polarity[i] = -1
        self.stones = bytearray(n2)
        self.strength = [100] * n2  # % of a centred stone's field (off-centre, held above)
        self.noise = [1] * n2  # noise multiplier
        self.drift = 0  # counts added to every baseline (temperature)
        self.cross = 15  # per mille of a stone's delta, per orthogonal neighbour
        self.cross_diag = 5
        self.pinned = {}  # point -> the constant it reads (0, 4095: a dead output)
        self.same_sign = set()  # points whose white reads like black (a broken sensor)
        self.nbrs = []
        for i in range(n2):
            x, y = i % n, i // n
            near = []
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (dx or dy) and 0 <= x + dx < n and 0 <= y + dy < n:
                        near.append(((y + dy) * n + x + dx, dx == 0 or dy == 0))
            self.nbrs.append(near)

    def delta(self, i, colour):
        """What a centred stone of ``colour`` moves sensor ``i`` by (black North-down:
        below the baseline on a normally mounted sensor)."""
        d = self.gain[i] * self.polarity[i]
        if colour == BLACK or (colour == WHITE and i in self.same_sign):
            return -d
        return d

    def ideal(self, i):
        """What sensor ``i`` reads without noise (before the ADC's clamping)."""
        st = self.stones
        v = self.base[i] + self.drift
        c = st[i]
        if c:
            v += self.delta(i, c) * self.strength[i] // 100
        for j, orth in self.nbrs[i]:
            c = st[j]
            if c:
                v -= self.delta(i, c) * (self.cross if orth else self.cross_diag) // 1000
        return v

    def frame(self, out=None):
        n2 = self.n * self.n
        if out is None:
            out = array("H", bytes(2 * n2))
        r = self.rng
        for i in range(n2):
            v = self.ideal(i) + self.noise[i] * (r.below(3) + r.below(3) + r.below(3) - 3)
            if i in self.pinned:
                v = self.pinned[i]
            out[i] = 0 if v < 0 else 4095 if v > 4095 else v
        return out

    def clear(self):
        for i in range(self.n * self.n):
            self.stones[i] = EMPTY
            self.strength[i] = 100


def at(n, name):
    """Frame index of a vertex name such as ``D4`` on an n x n grid."""
    for i in range(n * n):
        if point_name(i, n) == name:
            return i
    raise ValueError(name)


def calibrate(m, empty=16, per_pass=4, swap_a=(), missing_b=()):
    """Run the calibration procedure on the model: (Calibration, Calibrator).

    ``swap_a``: points where pass A got the wrong colour; ``missing_b``: points left empty in
    pass B (players' mistakes the validation must explain)."""
    c = Calibrator(m.n)
    m.clear()
    for _ in range(empty):
        c.add_empty(m.frame())
    m.stones[:] = pattern(m.n, PASS_A)
    for i in swap_a:
        m.stones[i] = 3 - m.stones[i]
    for _ in range(per_pass):
        c.add_pass_a(m.frame())
    m.stones[:] = pattern(m.n, PASS_B)
    for i in missing_b:
        m.stones[i] = EMPTY
    for _ in range(per_pass):
        c.add_pass_b(m.frame())
    m.clear()
    return c.finish(), c


class Run:
    """Feeds the model's frames to a Sensing at 20 scans/s (or every ``step_ms``) and records
    what changed."""

    def __init__(self, m, s, step_ms=50):
        self.m = m
        self.s = s
        self.t = 0
        self.step = step_ms
        self.buf = array("H", bytes(2 * m.n * m.n))

    def frames(self, k):
        """``k`` frames; the changes they made as ``[(index, old, new)]``."""
        out = []
        for _ in range(k):
            self.t += self.step
            r = self.s.update(self.m.frame(self.buf), self.t)
            assert r >= 0, error_text(r)
            for j in range(r):
                i = self.s.changed[j]
                out.append((i, self.s.changed_from[j], self.s.states[i]))
        return out


def setup(n=9, seed=7, **kw):
    m = Model(n, seed)
    cal, _ = calibrate(m)
    s = Sensing(n, cal, **kw)
    run = Run(m, s)
    run.frames(s.params[1])  # every point settles from UNCERTAIN
    assert bytes(s.states) == bytes(n * n)
    return m, s, run


# ---- classification, hysteresis, debounce ---------------------------------------------------


def test_points_start_uncertain_and_settle_after_the_debounce():
    m = Model(9)
    cal, _ = calibrate(m)
    s = Sensing(9, cal)
    assert bytes(s.states) == bytes([UNCERTAIN] * 81)
    m.stones[at(9, "C3")] = BLACK
    run = Run(m, s)
    assert run.frames(2) == []
    assert s.unsettled == 81
    changes = run.frames(1)
    assert len(changes) == 81 and s.unsettled == 0
    assert s.states[at(9, "C3")] == BLACK
    assert sum(s.states) == BLACK


def test_stones_of_both_colours_are_seen_where_they_are():
    m, s, run = setup(9)
    want = bytearray(81)
    r = Rng(3)
    for i in range(81):
        want[i] = r.below(3)
    m.stones[:] = want
    changes = run.frames(3)
    assert bytes(s.states) == bytes(want)
    assert len(changes) == sum([1 for c in want if c])
    for i, old, new in changes:
        assert old == EMPTY and new == want[i]
    m.clear()
    run.frames(3)
    assert bytes(s.states) == bytes(81)


def test_reversed_sensors_are_learned_and_read_right():
    rev = (at(9, "A1"), at(9, "E5"), at(9, "J9"))
    m = Model(9, 11, reversed_points=rev)
    cal, c = calibrate(m)
    assert c.problems == []
    assert [i for i, _ in c.notes] == list(rev)
    assert "E5: mounted reversed" in c.notes[1][1]
    for i in rev:
        assert cal.black[i] > 0 > cal.white[i]
    s = Sensing(9, cal)
    run = Run(m, s)
    m.stones[rev[0]] = BLACK
    m.stones[rev[1]] = WHITE
    run.frames(3)
    assert s.states[rev[0]] == BLACK and s.states[rev[1]] == WHITE and s.states[rev[2]] == EMPTY


def test_calibrated_deltas_match_the_sensors():
    m = Model(9, 5)
    cal, _ = calibrate(m)
    for i in range(81):
        # Each colour is measured with four neighbours of the other colour, whose crosstalk
        # adds (+6 %) and four diagonal ones of the same colour (-2 %).
        for colour, d in ((BLACK, cal.black[i]), (WHITE, cal.white[i])):
            true = m.delta(i, colour)
            assert abs(d - true) <= abs(true) * 8 // 100 + 3, (i, colour, d, true)
        assert abs(cal.base16[i] / 16 - m.base[i]) < 1.5
        assert 5 <= cal.noise10[i] <= 25  # σ of 1.4 counts, measured on 16 frames


def test_a_reading_between_the_thresholds_keeps_the_old_state():
    m, s, run = setup(9)
    p = at(9, "D4")
    m.stones[p] = BLACK
    run.frames(3)
    assert s.states[p] == BLACK
    # 30 % of the field: below ENTER (40 %), above LEAVE (20 %): still black, for ever.
    m.strength[p] = 30
    assert run.frames(60) == []
    assert s.states[p] == BLACK and s.unsettled == 0
    # Below LEAVE: empty, after the debounce.
    m.strength[p] = 10
    assert run.frames(2) == []
    assert run.frames(1) == [(p, BLACK, EMPTY)]
    # From empty, 30 % stays empty (the band does not enter)...
    m.strength[p] = 30
    assert run.frames(s.params[2] - 1) == []
    assert s.states[p] == EMPTY
    assert s.settling(p) == (UNCERTAIN, s.params[2] - 1)
    # ... until it has lingered there gap_frames: UNCERTAIN, for the referee to ask about.
    assert run.frames(1) == [(p, EMPTY, UNCERTAIN)]
    # A firm stone from there: black after the debounce.
    m.strength[p] = 100
    assert run.frames(3) == [(p, UNCERTAIN, BLACK)]


def test_white_hysteresis_mirrors_black():
    m, s, run = setup(9)
    p = at(9, "F3")
    m.stones[p] = WHITE
    m.strength[p] = 60
    assert run.frames(3) == [(p, EMPTY, WHITE)]
    m.strength[p] = 30
    assert run.frames(40) == []
    m.strength[p] = 0
    assert run.frames(3) == [(p, WHITE, EMPTY)]


def test_a_one_frame_spike_changes_nothing_k_frames_do():
    m, s, run = setup(9)
    p = at(9, "G7")
    for k in (1, 2):
        m.stones[p] = WHITE
        assert run.frames(k) == []
        m.stones[p] = EMPTY
        assert run.frames(5) == []
    m.stones[p] = WHITE
    assert run.frames(2) == []
    assert s.unsettled == 1 and s.settling(p) == (WHITE, 2)
    assert run.frames(1) == [(p, EMPTY, WHITE)]
    assert s.nchanged == 1 and s.changed[0] == p and s.changed_from[0] == EMPTY
    assert s.unsettled == 0
    assert run.frames(1) == [] and s.nchanged == 0


def test_debounce_is_a_parameter():
    m = Model(5)
    cal, _ = calibrate(m)
    s = Sensing(5, cal, debounce=1)
    run = Run(m, s)
    run.frames(1)
    m.stones[7] = BLACK
    assert run.frames(1) == [(7, EMPTY, BLACK)]


def test_a_stone_slid_across_the_board_is_seen_only_where_it_stops():
    m, s, run = setup(9)
    y = 4
    for dwell in (1, 2):  # frames spent over each point: less than the debounce
        changes = []
        for x in range(9):
            m.clear()
            i = y * 9 + x
            m.stones[i] = BLACK
            changes += run.frames(dwell)
            if x < 8:  # half-way to the next point: both read a little
                m.stones[i + 1] = BLACK
                m.strength[i] = m.strength[i + 1] = 10
                changes += run.frames(1)
        m.clear()
        m.stones[y * 9 + 8] = BLACK
        changes += run.frames(3)
        assert changes == [(y * 9 + 8, EMPTY, BLACK)], changes
        m.clear()
        run.frames(3)


def test_a_hovering_hand_with_a_stone_creates_no_move():
    m, s, run = setup(9)
    p = at(9, "E5")
    m.stones[p] = WHITE
    # Up and down above the point, touching the ENTER level for one frame at a time.
    for strength in (5, 15, 30, 45, 30, 15, 25, 50, 35, 45, 20, 5, 0):
        m.strength[p] = strength
        assert run.frames(1) == []
    m.clear()
    assert run.frames(5) == []
    assert bytes(s.states) == bytes(81)


def test_a_stone_off_centre_is_seen_or_reported_uncertain_never_elsewhere():
    m, s, run = setup(9)
    p = at(9, "C7")
    m.stones[p] = BLACK
    m.strength[p] = 70  # ~3 mm off: still seen
    assert run.frames(3) == [(p, EMPTY, BLACK)]
    m.clear()
    run.frames(3)
    q = at(9, "G3")
    m.stones[q] = WHITE
    m.strength[q] = 30  # ~5 mm off: not a stone yet, not empty either
    changes = run.frames(s.params[2])
    assert changes == [(q, EMPTY, UNCERTAIN)]


def test_crosstalk_does_not_fill_an_eye():
    m, s, run = setup(9)
    eye = at(9, "E5")
    for j, _ in m.nbrs[eye]:
        m.stones[j] = BLACK
    run.frames(3)
    assert s.states[eye] == EMPTY
    # The research's extreme: 4 % per orthogonal neighbour, far beyond a real board.
    m.cross = 40
    assert run.frames(20) == []
    assert s.states[eye] == EMPTY
    m.clear()
    m.stones[eye] = BLACK  # a stone alone, then surrounded by the other colour
    run.frames(3)
    for j, _ in m.nbrs[eye]:
        m.stones[j] = WHITE
    run.frames(3)
    assert s.states[eye] == BLACK


def test_something_far_stronger_than_a_stone_is_uncertain():
    m, s, run = setup(9)
    p = at(9, "B2")
    m.stones[p] = BLACK
    m.strength[p] = 300  # two stones stacked, a tool's magnet
    assert run.frames(3) == [(p, EMPTY, UNCERTAIN)]
    m.strength[p] = 100
    assert run.frames(3) == [(p, UNCERTAIN, BLACK)]


# ---- the board's debounce, by time ------------------------------------------------------------

# The board's two scan paths (firmware/hal/rp2040.py): the DMA scan at ~190 frames/s (a frame
# every ~5.3 ms: 5 here) and the polled fallback, a frame every POLL_MS = 10 ms.
RATES_MS = (5, 10)


def board_setup(step_ms, n=9, seed=7):
    m = Model(n, seed)
    cal, _ = calibrate(m)
    s = board_sensing(n, cal)
    run = Run(m, s, step_ms)
    run.frames(-(-DEBOUNCE_MS // step_ms) + 1)  # every point settles from UNCERTAIN
    assert bytes(s.states) == bytes(n * n)
    return m, s, run


def test_a_stone_put_down_is_seen_within_50_ms_on_both_scan_paths():
    for step in RATES_MS:
        m, s, run = board_setup(step)
        p = at(9, "E5")
        # The stone lands just after a frame read its point: the next frame is the first to
        # read it, one step later; the change comes with the first frame DEBOUNCE_MS after it.
        down = run.t
        m.stones[p] = BLACK
        k = 0
        changes = []
        while not changes:
            changes = run.frames(1)
            k += 1
        assert changes == [(p, EMPTY, BLACK)], step
        first = down + step
        assert run.t - first >= DEBOUNCE_MS and run.t - first < DEBOUNCE_MS + step, step
        assert k >= MIN_FRAMES
        # Simulated time from the stone to the frame that shows it, plus the next frame's
        # time for sensing and referee on the chip (bench/bench_sensing.py part 4 adds the
        # scan's own duration): well inside SPEC's 50 ms.
        assert run.t - down + step <= 50 - 5, (step, run.t - down)


def test_a_touch_shorter_than_the_debounce_is_not_a_move():
    for step in RATES_MS:
        m, s, run = board_setup(step)
        p = at(9, "C7")
        # Read on frames spanning less than DEBOUNCE_MS: nothing; a frame in between without
        # the stone restarts the wait.
        for span in range(0, DEBOUNCE_MS, step):
            m.stones[p] = WHITE
            assert run.frames(span // step + 1) == [], (step, span)
            m.stones[p] = EMPTY
            assert run.frames(3) == [] and s.unsettled == 0
        m.stones[p] = WHITE
        frames = -(-DEBOUNCE_MS // step)  # frames spanning DEBOUNCE_MS after the first
        assert run.frames(frames) == []
        assert run.frames(1) == [(p, EMPTY, WHITE)], step


def test_time_debounce_needs_two_frames_whatever_the_gap_between_them():
    m, s, run = board_setup(5)
    p = at(9, "D4")
    m.stones[p] = BLACK
    run.step = 1000  # a frame after a long stall: one frame is never enough
    assert run.frames(1) == []
    assert s.settling(p) == (BLACK, 1)
    assert run.frames(1) == [(p, EMPTY, BLACK)]


def test_a_stone_slid_fast_across_the_board_is_seen_only_where_it_stops():
    # At the DMA rate a stone over each point for two frames (10 ms < DEBOUNCE_MS) and half
    # way to the next for one: ~0.7 m/s. It is seen only where it rests.
    m, s, run = board_setup(5)
    y = 4
    changes = []
    for x in range(9):
        m.clear()
        i = y * 9 + x
        m.stones[i] = BLACK
        changes += run.frames(2)
        if x < 8:
            m.stones[i + 1] = BLACK
            m.strength[i] = m.strength[i + 1] = 10
            changes += run.frames(1)
    m.clear()
    m.stones[y * 9 + 8] = BLACK
    changes += run.frames(5)
    assert changes == [(y * 9 + 8, EMPTY, BLACK)], changes


def test_a_lingering_band_reading_turns_uncertain_after_gap_ms_at_any_rate():
    for step in RATES_MS:
        m, s, run = board_setup(step)
        p = at(9, "G3")
        m.stones[p] = WHITE
        m.strength[p] = 30  # in the band: not a stone yet, not empty either
        frames = GAP_MS // step  # the first reading, then GAP_MS - step later: not yet
        assert run.frames(frames) == [], step
        assert run.frames(1) == [(p, EMPTY, UNCERTAIN)], step


def test_the_time_debounce_is_checked():
    cal = Calibration.nominal(3)
    for kw in ({"debounce_ms": -1}, {"gap_ms": 60001}):
        try:
            Sensing(3, cal, **kw)
        except ValueError as e:
            assert "0-60000" in str(e)
        else:
            raise AssertionError("accepted %r" % kw)


# ---- drift ----------------------------------------------------------------------------------


def test_baselines_follow_a_slow_drift_on_empty_points_only():
    m = Model(5, 9)
    cal, _ = calibrate(m)
    s = Sensing(5, cal)
    run = Run(m, s, step_ms=250)  # every frame is a drift step (drift_ms 250)
    run.frames(3)
    p = 12
    m.stones[p] = BLACK
    run.frames(3)
    q = 3
    m.stones[q] = WHITE
    m.strength[q] = 12  # a stone held above: not EMPTY-quiet, must not be tracked
    run.frames(3)
    base_p = s.baseline(p)
    base_q = s.baseline(q)
    changes = []
    for _ in range(25):  # +25 counts in 250 s at 4 scans/s: 0.1 count/s (hours, on a board)
        m.drift += 1
        changes += run.frames(40)
    assert changes == []
    for i in range(25):
        if i in (p, q):
            continue
        # The baseline follows the reading: the drift, and the crosstalk of p's and q's
        # stones on their neighbours (harmless: a neighbour's stone is there, or it is not).
        assert abs(s.baseline(i) - m.ideal(i)) < 4, (i, s.baseline(i), m.ideal(i))
    assert s.baseline(p) == base_p  # under a stone: untouched
    assert s.baseline(q) == base_q  # a reading outside the quiet band: untouched
    # Stones are still seen both ways after the drift.
    m.clear()
    m.stones[7] = WHITE
    run.frames(3)
    assert s.states[7] == WHITE and s.states[p] == EMPTY


def test_drift_waits_for_quiet_and_is_bounded():
    m = Model(5, 9)
    cal, _ = calibrate(m)
    s = Sensing(5, cal, quiet_steps=40)
    run = Run(m, s, step_ms=250)
    run.frames(3)
    m.drift = 15
    run.frames(40)  # the first 40 steps only count the quiet
    assert s.baseline(0) == cal.base16[0] / 16
    run.frames(16)
    assert s.baseline(0) > cal.base16[0] / 16
    # A jump is not followed (it is not a drift); a slow drift only up to LEAVE / 4 of the
    # smaller delta.
    m.drift = 160
    before = s.baseline(0)
    run.frames(100)
    assert s.baseline(0) == before
    for drift in range(16, 120, 2):
        m.drift = drift
        run.frames(80)
    for i in range(25):
        cap = min(abs(cal.black[i]), abs(cal.white[i])) * 20 // 100 / 4
        tracked = s.baseline(i) - cal.base16[i] / 16
        assert cap - 1 <= tracked <= cap, (i, tracked, cap)


def test_no_drift_without_time():
    m = Model(5, 9)
    cal, _ = calibrate(m)
    s = Sensing(5, cal)
    m.drift = 20
    buf = array("H", bytes(50))
    for _ in range(200):
        s.update(m.frame(buf))  # now_ms left at 0
    assert s.baseline(4) == cal.base16[4] / 16


# ---- bad frames ---------------------------------------------------------------------------


def _snapshot(s):
    return (bytes(s.states), bytes(s.aux), bytes(s.base), s.frames)


def test_bad_frames_are_refused_and_change_nothing():
    m, s, run = setup(9)
    m.stones[5] = BLACK
    run.frames(2)  # a debounce under way: the refusals must not disturb it
    before = _snapshot(s)
    good = m.frame()
    short = array("H", good[:80])
    high = array("H", good)
    high[40] = 4096
    neg = array("h", good)
    neg[3] = -1
    cases = (
        (short, ERR_LENGTH),
        (array("H", list(good) + [0]), ERR_LENGTH),
        (high, ERR_RANGE),
        (neg, ERR_RANGE),
        (array("I", good), ERR_TYPE),
        (array("B", [1] * 81), ERR_TYPE),
        (bytearray(81), ERR_TYPE),
        (list(good), ERR_TYPE),
        (None, ERR_TYPE),
        (42, ERR_TYPE),
        ("x" * 81, ERR_TYPE),
    )
    for frame, code in cases:
        assert s.update(frame, run.t) == code, (frame, code)
        assert error_text(code) != "ok"
        assert _snapshot(s) == before
        assert s.nchanged == 0
    assert s.update(high) == ERR_RANGE and s.error_index == 40
    assert s.update(neg) == ERR_RANGE and s.error_index == 3
    assert s.rejected == len(cases) + 2
    assert run.frames(1) == [(5, EMPTY, BLACK)]  # the debounce went on where it was


def test_a_memoryview_of_a_frame_is_accepted():
    m, s, run = setup(9)
    m.stones[0] = WHITE
    f = m.frame()
    for _ in range(3):
        assert s.update(memoryview(f)) >= 0
    assert s.states[0] == WHITE


def test_a_calibration_for_another_size_is_refused():
    try:
        Sensing(9, Calibration.nominal(19))
    except ValueError as e:
        assert "19x19" in str(e)
    else:
        raise AssertionError("accepted")


# ---- calibration file -----------------------------------------------------------------------


def _same(a, b):
    return (
        a.size == b.size
        and list(a.base16) == list(b.base16)
        and list(a.noise10) == list(b.noise10)
        and list(a.black) == list(b.black)
        and list(a.white) == list(b.white)
        and bytes(a.faults) == bytes(b.faults)
    )


def test_calibration_round_trip_through_a_file_object_and_a_path():
    m = Model(9, 21)
    m.noise[at(9, "B7")] = 7  # a bad point survives the round trip too
    cal, _ = calibrate(m)
    assert cal.faults[at(9, "B7")] == C.F_NOISY
    f = io.StringIO()
    cal.save(f)
    text = f.getvalue()
    d = json.loads(text)
    assert d["version"] == 1 and d["size"] == 9 and len(d["base"]) == 81
    back = C.load(io.StringIO(text), size=9)
    assert _same(back, cal)
    path = "%s/tengen-test-calibration-%s-%d.json" % (
        os.getenv("TMPDIR") or "/tmp",
        sys.implementation.name,
        time.time_ns() if hasattr(time, "time_ns") else int(time.time()),
    )
    try:
        cal.save(path)
        assert _same(C.load(path), cal)
    finally:
        os.remove(path)
    # The same board read with either copy: identical states.
    s1 = Sensing(9, cal)
    s2 = Sensing(9, back)
    m.stones[at(9, "E5")] = WHITE
    for _ in range(3):
        fr = m.frame()
        assert s1.update(fr) == s2.update(fr)
    assert bytes(s1.states) == bytes(s2.states)
    assert s1.states[at(9, "B7")] == UNCERTAIN


def _refusal(d_or_text, size=None):
    text = d_or_text if isinstance(d_or_text, str) else json.dumps(d_or_text)
    try:
        C.load(io.StringIO(text), size)
    except CalibrationError as e:
        return str(e)
    raise AssertionError("accepted")


def test_load_refuses_with_a_reason():
    cal = Calibration.nominal(5)
    good = cal.to_dict()
    assert _same(C.load(io.StringIO(json.dumps(good))), cal)

    def edited(key, value):
        d = dict(good)
        d[key] = value
        return d

    text = json.dumps(good)
    assert _refusal(text[: len(text) // 2]) == "corrupt: not JSON"
    assert _refusal("[1, 2]") == "corrupt: not a calibration object"
    assert _refusal(edited("version", 2)) == "wrong version 2 (this firmware reads version 1)"
    assert _refusal(good, size=19) == "wrong size 5 (this board is 19x19)"
    assert _refusal(edited("size", "5")) == "corrupt: size '5'"
    for key in ("version", "base", "white", "check"):
        d = dict(good)
        del d[key]
        assert _refusal(d) == "missing field '%s'" % key
    assert (
        _refusal(edited("black", good["black"][:-1])) == "corrupt: 'black' has 24 values, not 25"
    )
    assert _refusal(edited("white", 3)) == "corrupt: 'white' is not a list"
    assert _refusal(edited("base", [5000] * 25)) == "corrupt: 'base' holds 5000"
    assert _refusal(edited("noise", ["x"] * 25)) == "corrupt: 'noise' holds 'x'"
    bent = list(good["black"])
    bent[7] = -799
    assert _refusal(edited("black", bent)) == "corrupt: checksum mismatch"


def test_loading_a_missing_file_raises_oserror():
    try:
        C.load("/nonexistent/tengen/calibration.json")
    except OSError:
        pass
    else:
        raise AssertionError("loaded")


def test_the_procedure_refuses_too_few_frames_and_bad_frames():
    c = Calibrator(3)
    f = array("H", [2048] * 9)
    for _ in range(3):
        c.add_empty(f)
    for msg in ("needs at least 4 empty-board frames, has 3", "no frame of checkerboard pass A"):
        try:
            c.finish()
        except CalibrationError as e:
            assert str(e) == msg, str(e)
        else:
            raise AssertionError("finished")
        c.add_empty(f)
    for frame, msg in (([1] * 8, "frame has 8 values, not 9"), ([5000] * 9, "out of 0-4095")):
        try:
            c.add_pass_a(frame)
        except CalibrationError as e:
            assert msg in str(e)
        else:
            raise AssertionError("accepted")


# ---- validation, bad points -----------------------------------------------------------------


def test_validation_names_every_bad_point_with_its_reason():
    m = Model(9, 13)
    m.gain[at(9, "D4")] = 0  # dead: no response
    m.pinned[at(9, "A9")] = 4095
    m.pinned[at(9, "J1")] = 0
    m.noise[at(9, "H8")] = 7
    m.same_sign.add(at(9, "C6"))
    stuck = at(9, "F2")
    m.pinned[stuck] = 2051  # stuck mid-scale
    cal, c = calibrate(m, swap_a=(at(9, "E5"),), missing_b=(at(9, "G3"),))
    msgs = dict([(point_name(i, 9), msg) for i, _, msg in c.problems])
    assert msgs["D4"] == "D4: dead (no response)"
    assert msgs["A9"] == "A9: dead (pinned at 4095)"
    assert msgs["J1"] == "J1: dead (pinned at 0)"
    assert msgs["F2"] == "F2: stuck (reads 2051 in every frame)"
    assert msgs["H8"].startswith("H8: noisy (σ ") and msgs["H8"].endswith(" counts)")
    sigma = float(msgs["H8"][len("H8: noisy (σ ") :].split()[0])
    assert 6 < sigma < 14  # 7 x 1.4, measured on 16 frames
    assert msgs["C6"].startswith("C6: black and white read the same way (sign)")
    # E5 is even: black in pass A, where the player put a white stone.
    assert msgs["E5"] == (
        "E5: black and white read the same way (sign); check the black stone of pass A"
    )
    # G3 is even: white in pass B, left out.
    assert msgs["G3"].startswith("G3: weak white (Δ ")
    assert msgs["G3"].endswith("a stone missing in a pass?")
    assert sorted(msgs) == sorted(["D4", "A9", "J1", "F2", "H8", "C6", "E5", "G3"])
    kinds = dict([(point_name(i, 9), bits) for i, bits, _ in c.problems])
    assert kinds["D4"] == C.F_DEAD and kinds["F2"] == C.F_DEAD | C.F_STUCK
    assert kinds["H8"] == C.F_NOISY and kinds["C6"] == C.F_SIGN and kinds["G3"] == C.F_WEAK
    # The calibration carries them, and says the same again when asked.
    assert [p[0] for p in cal.problems()] == [p[0] for p in c.problems]


def test_a_board_with_bad_points_still_plays():
    m = Model(9, 17)
    m.gain[at(9, "D4")] = 0
    m.noise[at(9, "H2")] = 7
    cal, c = calibrate(m, swap_a=(at(9, "E5"),))
    bad = sorted([i for i, _, _ in c.problems])
    assert bad == sorted([at(9, "D4"), at(9, "H2"), at(9, "E5")])
    s = Sensing(9, cal)
    assert s.bad_points() == bad
    run = Run(m, s)
    run.frames(3)
    for i in range(81):
        assert s.states[i] == (UNCERTAIN if i in bad else EMPTY)
    # Stones on bad and good points: only the good ones are seen; bad ones never change.
    for i in bad + [at(9, "C3"), at(9, "G7")]:
        m.stones[i] = BLACK
    changes = run.frames(30)
    assert sorted(changes) == sorted([(at(9, "C3"), EMPTY, BLACK), (at(9, "G7"), EMPTY, BLACK)])
    for i in bad:
        assert s.states[i] == UNCERTAIN
    s.reset(EMPTY)
    for i in bad:
        assert s.states[i] == UNCERTAIN


def test_nominal_calibration_plays_on_an_ideal_board():
    s = Sensing(19, Calibration.nominal(19))
    f = array("H", [2048] * 361)
    f[60] = 2048 - 700
    f[61] = 2048 + 700
    for _ in range(3):
        s.update(f)
    assert s.states[60] == BLACK and s.states[61] == WHITE and s.unsettled == 0
    assert sum(s.states) == 3


# ---- self-test ------------------------------------------------------------------------------


def test_selftest_names_each_fault_kind():
    m = Model(9, 19)
    cal, c = calibrate(m)
    assert c.problems == []
    # After calibration, things break.
    m.pinned[at(9, "A1")] = 0
    m.pinned[at(9, "B1")] = 4095
    m.pinned[at(9, "C2")] = 1999  # stuck
    m.noise[at(9, "D3")] = 8
    flipped = at(9, "E4")
    m.polarity[flipped] = -1  # resoldered the other way round
    dead = at(9, "F5")
    m.gain[dead] = 0
    weak = at(9, "G6")
    m.strength[weak] = 30
    stray = at(9, "H7")
    m.drift = 0
    expected = bytearray(81)
    for i in (flipped, dead, at(9, "A1")):
        m.stones[i] = BLACK
        expected[i] = BLACK
    m.stones[weak] = WHITE
    expected[weak] = WHITE
    m.stones[stray] = WHITE  # a stone nobody expected: an offset point
    frames = [m.frame() for _ in range(16)]
    found = selftest(frames, cal, expected)
    msgs = dict([(point_name(i, 9), msg) for i, _, msg in found])
    assert msgs["A1"] == "A1: dead (pinned at 0)"
    assert msgs["B1"] == "B1: dead (pinned at 4095)"
    assert msgs["C2"] == "C2: stuck (reads 1999 in every frame)"
    assert msgs["D3"].startswith("D3: noisy (σ ")
    assert msgs["E4"] == "E4: wrong sign (the black stone reads as white)"
    assert msgs["F5"].startswith("F5: dead (no response to the black stone")
    assert msgs["G6"].startswith("G6: weak (the white stone reads 2")
    assert msgs["H7"].startswith("H7: offset (reads +")
    assert sorted(msgs) == ["A1", "B1", "C2", "D3", "E4", "F5", "G6", "H7"]
    bits = dict([(point_name(i, 9), b) for i, b, _ in found])
    assert bits["A1"] == C.F_DEAD and bits["C2"] == C.F_STUCK and bits["D3"] == C.F_NOISY
    assert bits["E4"] == C.F_SIGN and bits["G6"] == C.F_WEAK and bits["H7"] == C.F_OFFSET
    # Without the expected stones only what the frames alone show is named.
    found = selftest(frames, cal)
    assert sorted([point_name(i, 9) for i, _, _ in found]) == ["A1", "B1", "C2", "D3"]


def test_selftest_repeats_what_the_calibration_found_and_marks_points_bad():
    m = Model(9, 23)
    m.gain[at(9, "J9")] = 0
    cal, _ = calibrate(m)
    m.noise[at(9, "B8")] = 9
    frames = [m.frame() for _ in range(8)]
    found = selftest(frames, cal, bytearray(81))
    assert [msg for _, _, msg in found] == [
        found[0][2],
        "J9: at calibration: dead (no response)",
    ]
    assert found[0][2].startswith("B8: noisy")
    s = Sensing(9, cal)
    mark(s, found)
    assert s.bad_points() == [at(9, "B8"), at(9, "J9")]
    run = Run(m, s)
    m.stones[at(9, "B8")] = WHITE
    run.frames(5)
    assert s.states[at(9, "B8")] == UNCERTAIN


def test_selftest_needs_a_few_frames():
    cal = Calibration.nominal(3)
    try:
        selftest([array("H", [2048] * 9)] * 3, cal)
    except ValueError as e:
        assert "at least 4 frames" in str(e)
    else:
        raise AssertionError("ran")


# ---- the viper kernels against their own source as plain Python ----------------------------


def test_viper_and_plain_python_paths_agree():
    # On MicroPython this runs grid.py's source without its viper decorators next to the
    # compiled module: viper's machine-word arithmetic must give the same states, changes
    # and baselines as Python's. (On CPython both are plain Python: trivially equal.)
    from bench.bench_sensing import plain_sensing

    plain_sensing_class = plain_sensing()
    m = Model(7, 29, reversed_points=(3, 30))
    m.noise[10] = 8
    cal, _ = calibrate(m)
    fast = Sensing(7, cal, quiet_steps=2, gap_frames=4)
    plain = plain_sensing_class(7, cal, quiet_steps=2, gap_frames=4)
    r = Rng(77)
    bufs = (array("H", bytes(98)), array("H", bytes(98)))
    t = 0
    for k in range(400):
        if k % 5 == 0:  # stones come and go, some off-centre or held above
            i = r.below(49)
            m.stones[i] = r.below(3)
            m.strength[i] = (10, 30, 45, 70, 100, 250)[r.below(6)]
        m.drift = k // 40
        b = m.frame(bufs[k & 1])
        if k % 97 == 50:
            b[r.below(49)] = 4096 + r.below(1000)
        t += 250
        a1 = fast.update(b, t)
        a2 = plain.update(b, t)
        assert a1 == a2, (k, a1, a2)
        assert list(fast.changed[: max(a1, 0)]) == list(plain.changed[: max(a2, 0)])
        assert bytes(fast.states) == bytes(plain.states), k
        assert bytes(fast.aux) == bytes(plain.aux), k
        assert fast.unsettled == plain.unsettled
    assert bytes(fast.base) == bytes(plain.base)
    assert bytes(fast.base) != bytes(array("H", cal.base16))  # drift happened
