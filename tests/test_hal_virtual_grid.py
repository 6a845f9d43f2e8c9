"""The simulated Hall grid (firmware/hal/virtual_grid.py, the virtual board's scanner): each
physical effect is there, with the right sign and size, and the frames are the same on CPython
and MicroPython for a seed."""

import math

from firmware.hal.virtual_grid import (
    BLACK,
    EMPTY,
    WHITE,
    SimGrid,
    checkerboard,
    magnet_bz,
)
from tests import support

N = 19


def _delta(g, x, y):
    """Noise-free reading of (x, y) less its true baseline."""
    return g.level(x, y) - g.true_baseline(x, y)


def _means(g, scans):
    """Mean reading of every point over ``scans`` scans."""
    frame = g.new_frame()
    acc = [0] * (g.n * g.n)
    for _ in range(scans):
        g.scan(frame)
        for p in range(g.n * g.n):
            acc[p] += frame[p]
    return [a / scans for a in acc]


def _checksum(frame, h):
    for v in frame:
        h = (h * 31 + v) & 0xFFFFFFFF
    return h


def test_magnet_field_matches_the_research_table():
    # research/hardware.md §1.2: 6×3 N35 on axis 72 / 48 / 33 mT at z = 4 / 5 / 6 mm; 29 % of
    # it left 5 mm off-centre; four neighbours at 22 mm give ≈ 1.9 mT of the other sign.
    assert abs(magnet_bz(0.0, 4.0) - 72.1) < 0.2
    assert abs(magnet_bz(0.0, 5.0) - 47.7) < 0.1
    assert abs(magnet_bz(0.0, 6.0) - 32.8) < 0.1
    assert abs(magnet_bz(5.0, 5.0) / magnet_bz(0.0, 5.0) - 0.295) < 0.005
    four = 4 * magnet_bz(22.0, 5.0)
    assert -2.2 < four < -1.7
    # On the axis the exact formula agrees with the textbook one.
    z = 5.0
    onaxis = 1210.0 / 2 * ((z + 3) / math.sqrt(9 + (z + 3) ** 2) - z / math.sqrt(9 + z * z))
    assert abs(magnet_bz(0.0, z) - onaxis) < 1e-9


def test_nominal_gain_is_15_mv_per_mt_of_48_mt():
    g = SimGrid()
    # 15 mV/mT at 3.3 V full scale: 18.6 counts/mT × 47.7 mT.
    assert 880 < g.nominal_gain < 895


def test_empty_board_reads_each_baseline_near_mid_scale():
    g = SimGrid(seed=3)
    means = _means(g, 64)
    spread = 0.0
    for y in range(N):
        for x in range(N):
            base = g.true_baseline(x, y)
            assert 1900 < base < 2200
            assert abs(means[y * N + x] - base) < 0.8, (x, y)
            spread += (base - 2048.0) ** 2
    spread = math.sqrt(spread / (N * N))
    assert 15 < spread < 35, spread  # σ = 25 counts of offset spread


def test_black_reads_below_and_white_above_by_the_point_gain():
    g = SimGrid(seed=5)
    g.put(4, 4, BLACK, strength=1.0)
    g.put(12, 12, WHITE, strength=1.0)
    gb = g.true_gain(4, 4)
    gw = g.true_gain(12, 12)
    assert 600 < gb < 1200 and 600 < gw < 1200
    assert abs(_delta(g, 4, 4) + gb) < 1e-6
    assert abs(_delta(g, 12, 12) - gw) < 1e-6
    means = _means(g, 16)
    assert abs(means[4 * N + 4] - (g.true_baseline(4, 4) - gb)) < 1.5
    assert abs(means[12 * N + 12] - (g.true_baseline(12, 12) + gw)) < 1.5


def test_gains_spread_around_the_nominal():
    g = SimGrid(seed=9)
    gains = [g.true_gain(x, y) for y in range(N) for x in range(N)]
    mean = sum(gains) / len(gains)
    sd = math.sqrt(sum((v - mean) ** 2 for v in gains) / len(gains))
    assert abs(mean / g.nominal_gain - 1.0) < 0.02
    assert 0.05 < sd / g.nominal_gain < 0.09  # σ = 7 %


def test_stones_differ_a_little_unless_strength_is_given():
    g = SimGrid(seed=2)
    strengths = []
    for x in range(0, 19, 4):
        g.put(x, 9, WHITE)
        strengths.append(g.stones()[-1][6])
    assert len(set(strengths)) == len(strengths)
    assert all(0.94 <= s <= 1.06 for s in strengths)
    g.put(0, 0, BLACK, strength=1.0)
    assert g.stones()[0][6] == 1.0


def test_crosstalk_is_opposite_and_one_to_two_percent():
    g = SimGrid(seed=4)
    g.put(9, 9, BLACK, strength=1.0)
    # One pitch across (22 mm): exactly the crosstalk figure, of the other sign.
    for x, y in ((8, 9), (10, 9)):
        frac = _delta(g, x, y) / g.true_gain(x, y)
        assert abs(frac - 0.015) < 1e-9, frac
    # One pitch along (23.7 mm) a little less; diagonals less again; all of the other sign.
    for x, y in ((9, 8), (9, 10)):
        frac = _delta(g, x, y) / g.true_gain(x, y)
        assert 0.01 < frac < 0.015, frac
    for x, y in ((8, 8), (10, 10)):
        frac = _delta(g, x, y) / g.true_gain(x, y)
        assert 0.003 < frac < 0.01, frac
    # Farther points: a tail that dies away.
    assert 0 < _delta(g, 11, 9) / g.true_gain(11, 9) < 0.004
    # A white stone does the same the other way round.
    g.lift(9, 9)
    g.put(9, 9, WHITE, strength=1.0)
    assert abs(_delta(g, 10, 9) / g.true_gain(10, 9) + 0.015) < 1e-9


def test_crosstalk_none_keeps_the_bare_magnet():
    g = SimGrid(crosstalk=None)
    assert abs(g.profile(1.0, 0.0) - magnet_bz(22.0, 5.0) / magnet_bz(0.0, 5.0)) < 1e-12


def test_crosstalk_of_four_neighbours_adds_up_in_an_eye():
    g = SimGrid(seed=6)
    for x, y in ((8, 9), (10, 9), (9, 8), (9, 10)):
        g.put(x, y, WHITE, strength=1.0)
    frac = _delta(g, 9, 9) / g.true_gain(9, 9)
    assert -0.065 < frac < -0.045, frac  # an empty eye looks slightly black


def test_off_centre_falloff_is_monotone():
    g = SimGrid(seed=8)
    g.put(9, 9, WHITE, strength=1.0)
    gain = g.true_gain(9, 9)
    last = 2.0
    for i in range(0, 9):
        d = i * 0.05
        g.move(9, 9, d, 0.0)
        frac = _delta(g, 9, 9) / gain
        assert frac < last, (d, frac)
        last = frac
    # 3 mm off keeps about two thirds, 5 mm under a third (research §1.2); the same along y
    # (pitch 23.7 mm) at the same distance in mm.
    assert abs(g.profile(3.0 / 22.0, 0.0) - 0.643) < 0.01
    assert abs(g.profile(0.0, 5.0 / 23.7) - 0.295) < 0.01
    # Still the key point in the ground truth while it rests within half a pitch.
    assert g.color_at(9, 9) == WHITE


def test_stone_half_way_reads_weakly_on_both_points():
    g = SimGrid(seed=10)
    g.put(5, 5, BLACK, dx=0.5, strength=1.0)
    a = _delta(g, 5, 5) / g.true_gain(5, 5)
    b = _delta(g, 6, 5) / g.true_gain(6, 5)
    # Both near zero (the field changes sign ~9.5 mm off-axis, so slightly the other way).
    assert abs(a) < 0.05 and abs(b) < 0.05, (a, b)
    assert abs(a - b) < 1e-9
    # Past half-way the ground truth moves to the other point.
    g.move(5, 5, 0.6, 0.0)
    assert g.color_at(6, 5) == BLACK and g.color_at(5, 5) == EMPTY


def test_noise_rms_is_about_1_4_lsb():
    g = SimGrid(seed=11)
    frame = g.new_frame()
    nn = N * N
    s1 = [0] * nn
    s2 = [0] * nn
    scans = 100
    for _ in range(scans):
        g.scan(frame)
        for p in range(nn):
            v = frame[p]
            s1[p] += v
            s2[p] += v * v
    var = 0.0
    for p in range(nn):
        m = s1[p] / scans
        var += s2[p] / scans - m * m
    rms = math.sqrt(var / nn * scans / (scans - 1))
    assert 1.3 < rms < 1.5, rms
    # Zero noise gives the rounded level every time.
    q = SimGrid(seed=11, noise=0.0)
    q.scan(frame)
    assert frame[0] == int(math.floor(q.level(0, 0) + 0.5))


def test_readings_stay_within_twelve_bits():
    g = SimGrid(seed=12, noisy={(0, 0): 3000.0})
    g.hover(9, 9, 3.0)  # three stones' worth of field: past full scale
    frame = g.new_frame()
    lo = hi = False
    for _ in range(40):
        g.scan(frame)
        assert frame[9 * N + 9] == 4095
        lo = lo or frame[0] == 0
        hi = hi or frame[0] == 4095
    assert lo and hi


def test_dead_stuck_noisy_and_reversed_sensors():
    g = SimGrid(
        seed=13,
        dead=((1, 1), (2, 2, "low"), (3, 3, "high")),
        stuck={(4, 4): 1234},
        noisy={(5, 5): 30.0},
        reversed=((6, 6),),
    )
    base11 = g.true_baseline(1, 1)
    for x in range(1, 7):
        g.put(x, x, WHITE, strength=1.0)
    means = _means(g, 200)
    assert g.true_gain(1, 1) == 0.0
    assert abs(means[1 * N + 1] - base11) < 6  # flat: only a neighbour's crosstalk
    frame = g.scan(g.new_frame())
    assert frame[2 * N + 2] == 0 and frame[3 * N + 3] == 4095 and frame[4 * N + 4] == 1234
    assert g.true_baseline(4, 4) == 1234.0 and g.true_sigma(4, 4) == 0.0
    # The noisy one: σ ≈ 30 about a white stone's level.
    fr = g.new_frame()
    level = g.level(5, 5)
    var = 0.0
    for _ in range(300):
        g.scan(fr)
        var += (fr[5 * N + 5] - level) ** 2
    assert 25 < math.sqrt(var / 300) < 35
    # The reversed one reads a white stone below its baseline.
    assert g.true_gain(6, 6) < -600
    assert means[6 * N + 6] < g.true_baseline(6, 6) - 600
    # Good sensors next to them are unaffected.
    assert means[7 * N + 8] > 1800


def test_bad_arguments_are_refused():
    for kwargs in ({"dead": ((1, 1, "sideways"),)}, {"stuck": {(19, 0): 5}}):
        try:
            SimGrid(**kwargs)
        except ValueError:
            pass
        else:
            raise AssertionError(kwargs)
    g = SimGrid()
    g.put(3, 3, BLACK)
    for call in (
        lambda: g.put(3, 3, WHITE),
        lambda: g.put(0, 0, 3),
        lambda: g.put(-1, 0, BLACK),
        lambda: g.lift(4, 4),
        lambda: g.move(4, 4, 0.1, 0.0),
    ):
        try:
            call()
        except ValueError:
            pass
        else:
            raise AssertionError("accepted")


def test_frames_are_reproducible_for_a_seed():
    def run(seed):
        g = SimGrid(seed=seed, dead=((0, 0),), noisy={(1, 0): 9.0}, reversed=((2, 0),))
        g.put(3, 3, BLACK)
        g.put(4, 3, WHITE, dx=0.2, dy=-0.1)
        g.put(15, 15, WHITE, height=6.0)
        g.hover(10, 10, -0.05, 2.0)
        frame = g.new_frame()
        h = 0
        for _ in range(3):
            h = _checksum(g.scan(frame), h)
        for _ in g.slide([(-1.5, 8.0), (7.0, 8.0), (7.0, 12.0)], 9, color=BLACK):
            h = _checksum(g.scan(frame), h)
        return h

    a = run(1)
    assert a == run(1)
    assert a != run(2)
    # Computed once on CPython; MicroPython must give the same frames.
    assert a == 1754793544, a


def test_slide_passes_over_intermediate_points():
    g = SimGrid(seed=14)
    frame = g.new_frame()
    y = 4
    best = [0.0] * N  # strongest white-ward reading seen on row y, as a fraction of gain
    positions = []
    for pos in g.slide([(-1.0, 4.0), (6.0, 4.0)], 70, color=WHITE):
        positions.append(pos)
        g.scan(frame)
        for x in range(N):
            frac = (frame[y * N + x] - g.true_baseline(x, y)) / g.true_gain(x, y)
            best[x] = max(best[x], frac)
        # While it slides, the ground truth has at most that one stone, wherever it rests.
        assert sum(1 for c in g.truth() if c) <= 1
    assert positions[-1] == (6.0, 4.0) and len(positions) == 70
    for x in range(6):
        assert best[x] > 0.9, (x, best[x])  # right over each point on the way
    assert best[8] < 0.05  # never got there
    assert g.stones() == [(6, 4, WHITE, 6.0, 4.0, 0.0, g.stones()[0][6])]
    t = g.truth()
    assert t[4 * N + 6] == WHITE and sum(1 for c in t if c) == 1
    for x in range(5):
        assert abs(_delta(g, x, y)) < 0.01 * g.true_gain(x, y)


def test_slide_an_existing_stone_round_a_corner():
    g = SimGrid(seed=15)
    g.put(2, 2, BLACK)
    seen = set()
    for fx, fy in g.slide([(2, 2), (5, 2), (5, 6)], 28):
        if fx == int(fx) and fy == int(fy):
            seen.add((int(fx), int(fy)))
    assert (4, 2) in seen and (5, 2) in seen and (5, 4) in seen
    assert g.color_at(2, 2) == EMPTY and g.color_at(5, 6) == BLACK
    # Onto an occupied point: refused, and the stone stays where it was.
    g.put(9, 9, WHITE)
    try:
        for _ in g.slide([(5, 6), (9, 9)], 4):
            pass
    except ValueError:
        pass
    else:
        raise AssertionError("slid onto a stone")
    assert g.color_at(5, 6) == BLACK and g.color_at(9, 9) == WHITE


def test_lift_and_put_elsewhere():
    g = SimGrid(seed=16)
    g.put(3, 3, BLACK)
    assert g.lift(3, 3) == BLACK
    assert abs(_delta(g, 3, 3)) < 1e-6 and abs(_delta(g, 4, 3)) < 1e-6
    g.put(10, 11, BLACK)
    t = g.truth()
    assert t[3 * N + 3] == EMPTY and t[11 * N + 10] == BLACK
    assert _delta(g, 10, 11) < -600


def test_stone_held_above_reads_weaker_and_grows_as_it_comes_down():
    g = SimGrid(seed=17)
    gain = g.true_gain(7, 7)
    fracs = []
    for h in g.descend(7, 7, BLACK, 10, height=20.0):
        fracs.append(-_delta(g, 7, 7) / gain)
        if h > 0.0:
            assert g.color_at(7, 7) == EMPTY  # in the hand, not on the board
    assert fracs[0] < 0.05  # 18 mm up: a few percent
    assert all(fracs[i] < fracs[i + 1] for i in range(len(fracs) - 1))
    assert fracs[-1] > 0.9 and g.color_at(7, 7) == BLACK
    # And back up again: it fades, then is gone.
    ups = [-_delta(g, 7, 7) / gain for _ in g.ascend(7, 7, 5, height=15.0)]
    assert all(ups[i] > ups[i + 1] for i in range(len(ups) - 1))
    assert g.stones() == [] and abs(_delta(g, 7, 7)) < 1e-6


def test_hover_is_a_weak_transient():
    g = SimGrid(seed=18)
    g.hover(9.5, 9.0, 0.08, radius=1.0)
    near = _delta(g, 9, 9) / g.true_gain(9, 9)
    far = _delta(g, 12, 9) / g.true_gain(12, 9)
    assert 0.04 < near < 0.08 and 0 < far < near / 5
    g.hover(9.0, 9.0, -0.08)  # replaces the first; negative looks black-ward
    assert abs(_delta(g, 9, 9) / g.true_gain(9, 9) + 0.08) < 1e-9
    g.unhover()
    for y in range(N):
        for x in range(N):
            assert abs(_delta(g, x, y)) < 1e-6
    assert sum(g.truth()) == 0


def test_drift_moves_the_baselines():
    g = SimGrid(seed=19)
    before = g.true_baseline(0, 0)
    g.drift(12.0)
    assert abs(g.true_baseline(0, 0) - before - 12.0) < 1e-9
    means = _means(g, 32)
    assert abs(means[0] - g.true_baseline(0, 0)) < 1.0


def test_checkerboard_passes():
    g = SimGrid(seed=20)
    checkerboard(g, 0)
    t = g.truth()
    assert t[0] == BLACK and t[1] == WHITE and t[N] == WHITE
    assert sum(1 for c in t if c == BLACK) == 181 and sum(1 for c in t if c == WHITE) == 180
    a = g.level(9, 9) - g.true_baseline(9, 9)
    checkerboard(g, 1)
    t = g.truth()
    assert t[0] == WHITE and t[1] == BLACK
    b = g.level(9, 9) - g.true_baseline(9, 9)
    # Each pass reads its colour with four opposite neighbours: both deltas a little larger.
    gain = g.true_gain(9, 9)
    assert -1.12 * gain < a < -gain and gain < b < 1.12 * gain


def test_scan_allocates_nothing():
    g = SimGrid(seed=21, stuck={(0, 0): 100})
    g.put(1, 1, WHITE)
    frame = g.new_frame()
    g.scan(frame)
    assert support.locked(lambda: g.scan(frame)) is None


def test_a_smaller_board():
    g = SimGrid(n=15, seed=22)
    frame = g.new_frame()
    assert len(frame) == 225
    g.put(14, 14, WHITE, strength=1.0)
    g.scan(frame)
    assert frame[224] > g.true_baseline(14, 14) + 600


def test_slide_needs_a_path():
    g = SimGrid()
    for path, steps in (([(1, 1)], 3), ([(1, 1), (2, 1)], 0)):
        try:
            for _ in g.slide(path, steps, color=BLACK):
                pass
        except ValueError:
            pass
        else:
            raise AssertionError(path)
    assert g.stones() == []


def test_slide_starts_from_where_an_off_centre_stone_really_is():
    g = SimGrid(seed=23)
    g.put(2, 2, WHITE, dx=0.2, dy=0.1)
    positions = list(g.slide([(2.0, 2.0), (3.0, 2.0)], 4))
    assert abs(positions[0][0] - 2.4) < 1e-9 and abs(positions[0][1] - 2.075) < 1e-9
    assert positions[-1] == (3.0, 2.0)
    assert g.stones()[0][:6] == (3, 2, WHITE, 3.0, 2.0, 0.0)
    # Carried over the board at 10 mm: weak everywhere on the way, not on the board at the end.
    best = 0.0
    for _ in g.slide([(3, 2), (8, 2)], 10, height=10.0):
        for x in range(N):
            best = max(best, _delta(g, x, 2) / g.true_gain(x, 2))
    assert best < 0.1 and g.color_at(8, 2) == EMPTY
    assert g.stones()[0][:6] == (8, 2, WHITE, 8.0, 2.0, 10.0)
