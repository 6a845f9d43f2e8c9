"""The game clock (firmware/clock/) to the millisecond, one time control at a time.

Every expectation is worked out by hand from the seeds in ../shared/seeds/, never by asking the
code: 000 第十二条 (读秒: the last M minutes of the limit are counted; a move under a full minute
costs nothing, each full minute used costs one; the calls at 30, 40, 50, 55, 58 s and
"还剩N分钟" at the full minute; in the last minute 30, 40, 50 s, then "1" … "9" and
"10，超时判负") and 第十四条 (paused time is not counted); 002 第八条 (包干制, 多重时限 with
move requirements, 加秒制, 共用时限 split into halves, 迟到计时: the absent player's clock runs);
003 第12条 (Japanese periods, the last period's last ten seconds counted 1 … 10, a move at "10"
is late; 定時限步制; 延時罰點制); 004 第22条 (lateness deducted twice, a forfeit limit that
itself is allowed (含); 第5款 a timeout in the last minute turned into a pass with the same
counting; 第6款 capture removal is part of the move, the 1988 rules' free removal in byo-yomi
being the ``free_captures`` setting). Bronstein and simple delay follow their usual definitions
(SPEC §3). Games start at tick 0 unless a test says otherwise; every figure is in ms.
"""

from firmware.clock import control, cues, ticks
from firmware.clock.clock import (
    BLACK,
    BOTH,
    F_ARBITER,
    F_COUNTING,
    F_FLAGGED,
    F_LOW,
    F_PAUSED,
    F_RUNNING,
    FINISHED,
    FLAGGED,
    FORFEIT,
    LATE,
    NOT_NOW,
    NOT_RUNNING,
    NOT_STARTED,
    OK,
    PAUSED,
    RUNNING,
    WHITE,
    WRONG_SIDE,
    Clock,
    Face,
    format_time,
)

SEC = 1000
MIN = 60000
HOUR = 3600000


def _face(c, side, now):
    f = Face()
    c.face(side, now, f)
    return f


def _text(f):
    return bytes(f.text[: f.length]).decode()


def _fmt(ms):
    buf = bytearray(12)
    return bytes(buf[: format_time(ms, buf)]).decode()


def _cue(kind, n):
    return kind << 8 | n


def _cues(c, now, most=40):
    """The cues from ``now`` on as ``(tick, cue)``, asking again at each cue's tick as the
    buzzer task does, until there is none."""
    out = []
    while len(out) < most:
        cue = c.next_cue(now)
        if not cue:
            break
        now = c.cue_tick
        out.append((now, cue))
    return out


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


# ---- ticks ---------------------------------------------------------------------------------


def test_ticks_wrap_at_two_to_the_thirty():
    p = ticks.PERIOD
    assert p == 1 << 30
    assert ticks.diff(5, p - 5) == 10  # across the wrap
    assert ticks.diff(p - 5, 5) == -10
    assert ticks.add(p - 5, 10) == 5
    assert ticks.add(5, -10) == p - 5
    assert ticks.add(0, 0) == 0
    assert ticks.diff(1234, 1234) == 0
    assert 0 <= ticks.now_ms() < p


# ---- Chinese byo-yomi (000 第十二条二) ---------------------------------------------------


def test_chinese_move_under_a_full_minute_costs_nothing():
    c = Clock(control.chinese(5 * MIN, 5))  # all five minutes kept: counting from move one
    c.start(0)
    assert c.press(BLACK, 59999) == OK  # 59.999 s: not a full minute
    assert _face(c, BLACK, 59999).units == 5
    assert c.press(WHITE, 119999) == OK  # 59.999 → 119.999: exactly one full minute
    assert _face(c, WHITE, 119999).units == 4
    assert c.press(BLACK, 239998) == OK  # 119.999 s: one full minute only
    assert _face(c, BLACK, 239998).units == 4
    assert c.press(WHITE, 359998) == OK  # 120.000 s: two full minutes
    assert _face(c, WHITE, 359998).units == 2
    # A waiting side in counting shows a fresh minute: the next move is counted from zero.
    f = _face(c, WHITE, 360000)
    assert (f.main_ms, f.count_s, _text(f)) == (MIN, 0, "1:00")
    assert f.flags == F_COUNTING


def test_chinese_counting_entered_during_a_move():
    tc = control.chinese(6 * MIN, 5)  # one minute of main time, five kept
    assert tc.main_ms == MIN and tc.periods == 5
    c = Clock(tc)
    c.start(0)
    assert c.press(BLACK, 30000) == OK
    f = _face(c, BLACK, 30000)
    assert (f.main_ms, f.count_s, f.units) == (30000, -1, -1)
    assert c.press(WHITE, 31000) == OK
    # Black from 31.000: 30 s of main time, then 15 s of counting.
    f = _face(c, BLACK, 76000)
    assert (f.main_ms, f.count_s, f.units) == (45000, 15, 5)
    assert f.flags & F_COUNTING and f.flags & F_RUNNING
    # Only the part after the main time is counted: 30 s + 59.999 s costs nothing.
    assert c.press(BLACK, 31000 + 30000 + 59999) == OK
    assert _face(c, BLACK, 121000).units == 5

    c = Clock(tc)
    c.start(0)
    c.press(BLACK, 30000)
    c.press(WHITE, 31000)
    assert c.press(BLACK, 31000 + 30000 + 60000) == OK  # a full minute of counting
    assert _face(c, BLACK, 121000).units == 4


def test_chinese_press_at_the_limit_is_late():
    c = Clock(control.chinese(MIN, 1))  # only the last minute
    c.start(0)
    assert c.press(BLACK, 60000) == LATE  # "10，超时判负": a move at 10 is already late
    assert c.state == FLAGGED and c.flagged == BLACK and c.flag_tick == 60000
    assert c.press(BLACK, 60000) == NOT_RUNNING

    c = Clock(control.chinese(MIN, 1))
    c.start(0)
    assert c.press(BLACK, 59999) == OK
    assert c.running == WHITE and c.state == RUNNING
    assert _face(c, BLACK, 59999).units == 1


def test_chinese_tick_flags_at_the_limit_not_before():
    c = Clock(control.chinese(3 * MIN, 2))  # one minute main, two kept: limit 180 s
    c.start(0)
    assert c.tick(179999) == OK and c.state == RUNNING
    assert c.tick(180000) == LATE
    assert c.state == FLAGGED and c.flagged == BLACK and c.flag_tick == 180000
    assert c.tick(180001) == OK  # the flag fell once
    f = _face(c, BLACK, 200000)
    assert (f.main_ms, _text(f), f.units) == (0, "0:00.0", 0)
    assert f.flags & F_FLAGGED and not f.flags & F_RUNNING
    assert c.next_cue(200000) == 0


def test_chinese_cues_of_a_kept_minute_and_of_the_last():
    c = Clock(control.chinese(2 * MIN, 2))  # two kept minutes, no main time
    c.start(1000)
    mark, late, left = cues.MARK, cues.MARK_LATE, cues.MINUTE_LEFT
    expected = [
        (31000, _cue(mark, 30)),
        (41000, _cue(mark, 40)),
        (51000, _cue(mark, 50)),
        (56000, _cue(late, 55)),
        (59000, _cue(late, 58)),
        (61000, _cue(left, 1)),  # "还剩1分钟"
        (91000, _cue(mark, 30)),  # the last minute: 30, 40, 50, then 1 … 9
        (101000, _cue(mark, 40)),
        (111000, _cue(mark, 50)),
    ]
    expected += [(111000 + n * SEC, _cue(cues.COUNT, n)) for n in range(1, 10)]
    expected.append((121000, _cue(cues.TIMEOUT, 10)))
    assert _cues(c, 1000) == expected
    assert c.tick(120999) == OK and c.tick(121000) == LATE


def test_chinese_cue_words_and_the_minutes_left():
    c = Clock(control.chinese(5 * MIN, 5))
    c.start(0)
    assert c.next_cue(58000) == _cue(cues.MINUTE_LEFT, 4) and c.cue_tick == 60000
    assert cues.words(_cue(cues.MINUTE_LEFT, 4)) == ("还剩4分钟", "4 minutes left")
    assert c.next_cue(60000) == _cue(cues.MARK, 30) and c.cue_tick == 90000
    assert c.next_cue(239999) == _cue(cues.MINUTE_LEFT, 1) and c.cue_tick == 240000
    assert cues.words(_cue(cues.MINUTE_LEFT, 1)) == ("还剩1分钟", "1 minute left")
    # The fifth minute is the last: no 55 or 58, the count starts at 51 s.
    assert c.next_cue(240000) == _cue(cues.MARK, 30) and c.cue_tick == 270000
    assert c.next_cue(280000) == _cue(cues.MARK, 50) and c.cue_tick == 290000
    assert c.next_cue(290000) == _cue(cues.COUNT, 1) and c.cue_tick == 291000
    assert c.next_cue(299000) == _cue(cues.TIMEOUT, 10) and c.cue_tick == 300000
    assert cues.words(_cue(cues.MARK, 30)) == ("30秒", "30 seconds")
    assert cues.words(_cue(cues.MARK_LATE, 58)) == ("58秒", "58 seconds")
    assert cues.words(_cue(cues.COUNT, 7)) == ("7", "7")
    assert cues.words(_cue(cues.TIMEOUT, 10))[0] == "10，超时判负"
    assert cues.words(cues.FLAG << 8)[0] == "超时判负"
    assert cues.kind(_cue(cues.COUNT, 7)) == cues.COUNT and cues.number(_cue(cues.COUNT, 7)) == 7


def test_chinese_counting_restarts_with_each_move():
    c = Clock(control.chinese(5 * MIN, 5))
    c.start(0)
    c.press(BLACK, 45000)  # 45 s: free
    c.press(WHITE, 50000)
    # Black's next move is counted from its own start: 30 s at 80 s, not 55 s of the last.
    assert c.next_cue(50000) == _cue(cues.MARK, 30) and c.cue_tick == 80000


def test_chinese_first_cue_after_the_main_time():
    c = Clock(control.chinese(70000, 1))  # 10 s of main time, the last minute kept
    c.start(0)
    assert c.next_cue(0) == _cue(cues.MARK, 30) and c.cue_tick == 40000


def test_cue_patterns_are_told_apart_without_looking():
    # SPEC §3: one short beep per ten-second mark, a double beep at 55/58 s, one beep per
    # counted second, a falling tone for a lost minute or period, a long tone on timeout.
    def tones(cue):
        return [hz for hz, _ in cues.pattern(cue) if hz]

    assert len(tones(_cue(cues.MARK, 30))) == 1
    assert len(tones(_cue(cues.MARK_LATE, 55))) == 2
    assert len(tones(_cue(cues.COUNT, 3))) == 1
    for falling in (_cue(cues.MINUTE_LEFT, 2), _cue(cues.PERIOD_LEFT, 2)):
        t = tones(falling)
        assert len(t) >= 2 and all(t[i] > t[i + 1] for i in range(len(t) - 1))
    longest = max(
        ms for cue in (_cue(cues.MARK, 30), _cue(cues.COUNT, 1)) for _, ms in cues.pattern(cue)
    )
    for end in (_cue(cues.TIMEOUT, 10), cues.FLAG << 8):
        assert sum(ms for _, ms in cues.pattern(end)) > 10 * longest
    assert cues.pattern(0) == ()


# ---- Japanese byo-yomi (003 第12条) -----------------------------------------------------


def test_japanese_periods_used_one_by_one():
    c = Clock(control.japanese(MIN, 5, 30 * SEC))
    c.start(0)
    assert c.press(BLACK, 60000 + 29999) == OK  # inside the first period: none used
    assert _face(c, BLACK, 89999).units == 5
    assert c.press(WHITE, 90999) == OK  # White: 1 s of main time
    assert c.press(BLACK, 90999 + 30000) == OK  # exactly one period: overrun, one used
    assert _face(c, BLACK, 120999).units == 4
    assert c.press(WHITE, 121999) == OK
    assert c.press(BLACK, 121999 + 65000) == OK  # 65 s: two periods overrun
    assert _face(c, BLACK, 186999).units == 2
    assert c.press(WHITE, 187999) == OK
    f = _face(c, WHITE, 187999)
    assert (f.main_ms, f.units, f.count_s) == (57000, -1, -1)
    # Black from 187.999 with two periods: the first ends with "1 period left", the last is
    # counted 1 … 9 in its last ten seconds and "10" at its end; no 30/40/50 calls.
    expected = [(217999, _cue(cues.PERIOD_LEFT, 1))]
    expected += [(238999 + (n - 1) * SEC, _cue(cues.COUNT, n)) for n in range(1, 10)]
    expected.append((247999, _cue(cues.TIMEOUT, 10)))
    assert _cues(c, 187999) == expected
    assert cues.words(_cue(cues.PERIOD_LEFT, 1)) == ("还剩1次", "1 period left")
    assert cues.words(_cue(cues.PERIOD_LEFT, 4)) == ("还剩4次", "4 periods left")
    assert c.tick(247998) == OK
    assert c.press(BLACK, 247999) == LATE  # a move at "10" is late
    assert c.flagged == BLACK


def test_japanese_last_period_to_the_millisecond():
    tc = control.japanese(MIN, 1, 30 * SEC)
    c = Clock(tc)
    c.start(0)
    assert c.press(BLACK, 89999) == OK
    assert _face(c, BLACK, 89999).units == 1  # the last period is kept for the next move
    c = Clock(tc)
    c.start(0)
    assert c.press(BLACK, 90000) == LATE
    c = Clock(tc)
    c.start(0)
    assert c.tick(89999) == OK and c.tick(90000) == LATE


def test_japanese_period_used_cue_from_the_main_time():
    c = Clock(control.japanese(MIN, 3, 30 * SEC))
    c.start(0)
    assert c.next_cue(0) == _cue(cues.PERIOD_LEFT, 2) and c.cue_tick == 90000
    assert c.next_cue(90000) == _cue(cues.PERIOD_LEFT, 1) and c.cue_tick == 120000
    assert c.next_cue(120000) == _cue(cues.COUNT, 1) and c.cue_tick == 141000


# ---- capture removal in byo-yomi (004 第22条6 vs the 1988 rules) --------------------------


def test_free_captures_in_chinese_counting():
    tc = control.chinese(2 * MIN, 2)
    on = Clock(tc, free_captures=True)
    on.start(0)
    assert on.press(BLACK, 65000, free_ms=10000) == OK  # 55 s counted: free
    assert _face(on, BLACK, 65000).units == 2
    off = Clock(tc)
    off.start(0)
    assert off.press(BLACK, 65000, free_ms=10000) == OK  # 004: removal counts, 65 s
    assert _face(off, BLACK, 65000).units == 1


def test_free_captures_in_japanese_periods():
    tc = control.japanese(MIN, 3, 30 * SEC)
    on = Clock(tc, free_captures=True)
    on.start(0)
    assert on.press(BLACK, 95000, free_ms=6000) == OK  # 35 s in the period, 6 s removal
    assert _face(on, BLACK, 95000).units == 3
    off = Clock(tc)
    off.start(0)
    assert off.press(BLACK, 95000, free_ms=6000) == OK
    assert _face(off, BLACK, 95000).units == 2


def test_free_captures_only_in_byo_yomi():
    c = Clock(control.chinese(3 * MIN, 2), free_captures=True)  # one minute of main time
    c.start(0)
    assert c.press(BLACK, 30000, free_ms=10000) == OK  # main time: removal counts
    assert _face(c, BLACK, 30000).main_ms == 30000
    # Removal that starts in the main time: the part in the main time counts, the part in
    # byo-yomi is free. 10 s periods; main ends at 60 s, removal from 59.5 s to 72 s.
    c = Clock(control.japanese(MIN, 3, 10 * SEC), free_captures=True)
    c.start(0)
    assert c.press(BLACK, 72000, free_ms=12500) == OK
    f = _face(c, BLACK, 72000)
    assert (f.units, f.main_ms) == (3, 10000)


# ---- Canadian (定時限步制) ---------------------------------------------------------------


def test_canadian_blocks_renewed_after_k_moves():
    c = Clock(control.canadian(MIN, 3, 5 * MIN))
    c.start(0)
    assert c.press(BLACK, 70000) == OK  # main gone at 60 s; this move is the block's first
    f = _face(c, BLACK, 70000)
    assert (f.main_ms, f.moves_left, _text(f)) == (290000, 2, "4:50")
    assert f.flags & F_COUNTING
    assert c.press(WHITE, 71000) == OK
    assert c.press(BLACK, 91000, move=False) == OK  # no stone: time runs, no move counted
    f = _face(c, BLACK, 91000)
    assert (f.main_ms, f.moves_left) == (270000, 2)
    assert c.press(WHITE, 92000) == OK
    assert c.press(BLACK, 122000) == OK
    assert (_face(c, BLACK, 122000).main_ms, _face(c, BLACK, 122000).moves_left) == (240000, 1)
    assert c.press(WHITE, 123000) == OK
    assert c.press(BLACK, 163000) == OK  # the third move: a fresh block, 200 s not carried
    f = _face(c, BLACK, 163000)
    assert (f.main_ms, f.moves_left) == (300000, 3)
    assert c.press(WHITE, 164000) == OK
    f = _face(c, WHITE, 164000)
    assert (f.main_ms, f.moves_left, f.flags & F_COUNTING) == (56000, -1, 0)
    f = _face(c, BLACK, 264000)
    assert (f.main_ms, f.moves_left) == (200000, 3)
    assert c.next_cue(164000) == cues.FLAG << 8 and c.cue_tick == 464000
    assert c.tick(463999) == OK
    assert c.tick(464000) == LATE and c.flagged == BLACK


# ---- Fischer, Bronstein, simple delay ------------------------------------------------------


def _fischer_game(t0):
    c = Clock(control.fischer(5 * MIN, 10 * SEC))
    c.start(t0)
    t = 0
    for _ in range(100):
        t += 12345
        assert c.press(BLACK, ticks.add(t0, t)) == OK
        t += 8000
        assert c.press(WHITE, ticks.add(t0, t)) == OK
    return c, t


def test_fischer_over_a_hundred_moves():
    # Black: 300 s + 100 x (10 s - 12.345 s) = 65.5 s; White: 300 s + 100 x 2 s = 500 s.
    c, t = _fischer_game(0)
    assert t == 2034500
    b = _face(c, BLACK, t)
    w = _face(c, WHITE, t)
    assert (b.main_ms, _text(b), b.move_no) == (65500, "1:06", 201)
    assert (w.main_ms, _text(w)) == (500000, "8:20")
    assert c.spent[BLACK] == 1234500 and c.spent[WHITE] == 800000
    assert c.tick(t + 65499) == OK and c.tick(t + 65500) == LATE


def test_fischer_across_the_tick_wrap():
    t0 = ticks.PERIOD - 1000000  # the 2034.5 s game crosses the wrap
    c, t = _fischer_game(t0)
    assert _face(c, BLACK, ticks.add(t0, t)).main_ms == 65500
    assert _face(c, WHITE, ticks.add(t0, t)).main_ms == 500000
    assert c.tick(ticks.add(t0, t + 65499)) == OK
    assert c.tick(ticks.add(t0, t + 65500)) == LATE


def test_fischer_no_increment_without_a_move():
    c = Clock(control.fischer(MIN, 10 * SEC))
    c.start(0)
    assert c.press(BLACK, 5000, move=False) == OK
    assert _face(c, BLACK, 5000).main_ms == 55000
    assert c.press(WHITE, 6000) == OK
    assert _face(c, WHITE, 6000).main_ms == 69000


def test_bronstein_gives_back_up_to_the_delay():
    c = Clock(control.bronstein(5 * MIN, 10 * SEC))
    c.start(0)
    assert c.press(BLACK, 4000) == OK  # 4 s back
    assert _face(c, BLACK, 4000).main_ms == 300000
    assert c.press(WHITE, 19000) == OK  # 15 s used, 10 s back
    assert _face(c, WHITE, 19000).main_ms == 295000
    assert c.press(BLACK, 29000) == OK  # exactly 10 s: all back
    assert _face(c, BLACK, 29000).main_ms == 300000
    assert c.press(WHITE, 39001) == OK  # 10.001 s: 1 ms lost
    assert _face(c, WHITE, 39001).main_ms == 294999
    assert c.tick(339000) == OK and c.tick(339001) == LATE  # no delay before the flag


def test_simple_delay_first_seconds_free():
    c = Clock(control.delay(MIN, 5 * SEC))
    c.start(0)
    assert _face(c, BLACK, 3000).main_ms == 60000
    assert c.press(BLACK, 5000) == OK  # all inside the delay
    assert _face(c, BLACK, 5000).main_ms == 60000
    assert c.press(WHITE, 13000) == OK  # 8 s: 3 s counted
    assert _face(c, WHITE, 13000).main_ms == 57000
    assert _face(c, BLACK, 17000).main_ms == 60000  # 4 s into Black's turn: still free
    assert _face(c, BLACK, 21000).main_ms == 57000  # 8 s: 3 s counted


def test_simple_delay_flag_at_main_plus_delay():
    c = Clock(control.delay(MIN, 5 * SEC))
    c.start(0)
    c.press(BLACK, 1000)
    c.press(WHITE, 9000)  # White: 8 s, 3 s counted → 57 s
    assert _face(c, WHITE, 9000).main_ms == 57000
    c.press(BLACK, 10000)
    assert _face(c, WHITE, 17000).main_ms == 55000  # 7 s into the turn: 2 s counted
    assert c.next_cue(10000) == cues.FLAG << 8 and c.cue_tick == 72000
    assert c.tick(71999) == OK  # 57 s + 5 s after 10 s
    assert c.tick(72000) == LATE and c.flagged == WHITE


# ---- penalty periods (延時罰點制) --------------------------------------------------------


def test_penalty_periods_and_points():
    tc = control.penalty(MIN, 10 * MIN, 2, 2)  # up to two periods of 10 min, 2 points each
    c = Clock(tc)
    c.start(0)
    assert c.press(BLACK, 65000) == OK  # 5 s into the first extra period
    f = _face(c, BLACK, 65000)
    assert (f.units, f.main_ms, f.units * tc.points) == (1, 595000, 2)
    assert f.flags & F_COUNTING
    assert c.press(WHITE, 66000) == OK
    assert c.press(BLACK, 666000) == OK  # 600 s: the first period's 595 s, 5 s of the second
    f = _face(c, BLACK, 666000)
    assert (f.units, f.main_ms, f.units * tc.points) == (2, 595000, 4)
    assert c.press(WHITE, 667000) == OK
    assert c.tick(667000 + 594999) == OK
    assert c.tick(667000 + 595000) == LATE and c.flagged == BLACK  # no third period


def test_penalty_limit_from_the_start():
    c = Clock(control.penalty(MIN, 10 * MIN, 2, 2))
    c.start(0)
    f = _face(c, BLACK, 660000)  # exactly the start of the second period
    assert (f.units, f.main_ms) == (2, 600000)
    assert c.tick(1259999) == OK and c.tick(1260000) == LATE


# ---- stages (多重时限, 002 第八条2) -------------------------------------------------------


def test_stages_requirement_met_adds_the_next_stage():
    c = Clock(control.stages(((10 * MIN, 2), (5 * MIN, 0))))
    c.start(0)
    f = _face(c, BLACK, 0)
    assert (f.main_ms, f.moves_left) == (600000, 2)
    assert c.press(BLACK, 60000) == OK
    assert _face(c, BLACK, 60000).moves_left == 1
    assert c.press(WHITE, 61000) == OK
    assert c.press(BLACK, 101000) == OK  # second move: 500 s left + 300 s of the next stage
    f = _face(c, BLACK, 101000)
    assert (f.main_ms, f.moves_left, _text(f)) == (800000, -1, "13:20")


def test_stages_requirement_not_met_flags_at_the_stage_end():
    c = Clock(control.stages(((10 * MIN, 2), (5 * MIN, 0))))
    c.start(0)
    c.press(BLACK, 60000)
    c.press(WHITE, 61000)
    assert c.tick(600999) == OK
    assert c.tick(601000) == LATE and c.flagged == BLACK  # 600 s used, one move short


def test_stages_without_requirement_flow_on():
    tc = control.stages(((2 * MIN, 0), (3 * MIN, 2), (MIN, 0)))
    c = Clock(tc)
    c.start(0)
    assert c.tick(299999) == OK  # 120 s flow into the 180 s stage that needs two moves
    assert c.tick(300000) == LATE

    c = Clock(tc)
    c.start(0)
    f = _face(c, BLACK, 60000)
    assert (f.main_ms, f.moves_left) == (60000, -1)
    f = _face(c, BLACK, 150000)
    assert (f.main_ms, f.moves_left) == (150000, 2)
    assert c.press(BLACK, 150000) == OK  # made in the second stage: counts for it
    f = _face(c, BLACK, 150000)
    assert (f.main_ms, f.moves_left) == (150000, 1)
    assert c.press(WHITE, 151000) == OK
    assert c.press(BLACK, 201000) == OK  # 100 s left + the last stage's 60 s
    f = _face(c, BLACK, 201000)
    assert (f.main_ms, f.moves_left) == (160000, -1)
    assert c.tick(201000 + 119000 + 180000 - 1) == OK  # White: 119 s + 180 s
    assert c.tick(201000 + 119000 + 180000) == LATE and c.flagged == WHITE


# ---- shared time (共用时限, 002 第八条1) ---------------------------------------------------


def test_shared_pool_and_split():
    c = Clock(control.shared(10 * MIN))
    c.start(0)
    assert c.press(BLACK, 60000) == OK
    assert c.press(WHITE, 150000) == OK  # the pool: 600 - 60 - 90 = 450 s
    assert _face(c, BLACK, 160000).main_ms == 440000
    assert _face(c, WHITE, 160000).main_ms == 440000  # one pool: both faces show it
    assert c.split(170000) == OK  # 430 s left: 215 s each
    assert c.state == RUNNING and c.running == BLACK
    assert _face(c, BLACK, 170000).main_ms == 215000
    assert _face(c, WHITE, 170000).main_ms == 215000
    assert c.press(BLACK, 185000) == OK
    assert _face(c, BLACK, 195000).main_ms == 200000  # absolute now: each its own
    assert _face(c, WHITE, 195000).main_ms == 205000
    assert c.split(195000) == NOT_NOW
    assert c.tick(399999) == OK
    assert c.tick(400000) == LATE and c.flagged == WHITE


def test_shared_pool_runs_out_on_the_player_to_move():
    c = Clock(control.shared(MIN))
    c.start(0)
    c.press(BLACK, 20000)
    assert c.tick(59999) == OK
    assert c.tick(60000) == LATE and c.flagged == WHITE


def test_shared_split_while_paused_and_refusals():
    c = Clock(control.shared(10 * MIN))
    assert c.split(0) == NOT_NOW  # not started
    c.start(0)
    c.pause(100000)
    assert c.split(200000) == OK  # 500 s left
    assert c.state == PAUSED
    c.resume(300000)
    assert _face(c, BLACK, 310000).main_ms == 240000
    assert _face(c, WHITE, 310000).main_ms == 250000
    a = Clock(control.absolute(MIN))
    a.start(0)
    assert a.split(1000) == NOT_NOW


# ---- pause (000 第十四条) -----------------------------------------------------------------


def test_pause_never_counts():
    c = Clock(control.absolute(10 * MIN))
    c.start(0)
    assert c.pause(30000) == OK and c.state == PAUSED
    assert c.press(BLACK, 40000) == NOT_RUNNING
    assert c.pause(40000) == NOT_RUNNING
    f = _face(c, BLACK, 90000)
    assert (f.main_ms, f.flags) == (570000, F_PAUSED)
    assert _face(c, WHITE, 90000).flags == F_PAUSED
    assert c.tick(700000) == OK and c.state == PAUSED  # no flag while paused
    assert c.resume(100000) == OK
    assert c.resume(100000) == NOT_NOW
    assert c.press(BLACK, 110000) == OK
    assert _face(c, BLACK, 110000).main_ms == 560000  # 30 s + 10 s


def test_pause_at_the_limit_is_late():
    c = Clock(control.absolute(MIN))
    c.start(0)
    assert c.pause(60000) == LATE and c.state == FLAGGED


def test_pause_moves_a_cue_by_the_paused_time():
    c = Clock(control.chinese(MIN, 1))
    c.start(0)
    assert c.next_cue(0) == _cue(cues.MARK, 30) and c.cue_tick == 30000
    c.pause(35000)
    assert c.next_cue(36000) == 0  # nothing is announced while paused
    c.resume(100000)  # 65 s paused
    expected = [(105000, _cue(cues.MARK, 40)), (115000, _cue(cues.MARK, 50))]
    expected += [(115000 + n * SEC, _cue(cues.COUNT, n)) for n in range(1, 10)]
    expected.append((125000, _cue(cues.TIMEOUT, 10)))
    assert _cues(c, 100000) == expected
    assert c.tick(124999) == OK and c.tick(125000) == LATE

    c = Clock(control.chinese(MIN, 1))
    c.start(0)
    c.pause(29000)  # the 30 s call would fall in the pause
    c.resume(50000)
    assert c.next_cue(50000) == _cue(cues.MARK, 30) and c.cue_tick == 51000


def test_press_stamped_before_the_resume():
    c = Clock(control.absolute(10 * MIN))
    c.start(0)
    c.press(BLACK, 10000)
    c.pause(20000)  # White has used 10 s
    c.resume(50000)
    assert c.press(WHITE, 40000) == OK  # stamped in the pause: as at the resume
    assert _face(c, WHITE, 50000).main_ms == 590000
    # Black's clock starts at the resume, not at the stamp: the pause is nobody's time.
    assert _face(c, BLACK, 60000).main_ms == 580000


# ---- refused presses ------------------------------------------------------------------------


def test_presses_before_start_and_by_the_wrong_side():
    c = Clock(control.absolute(MIN))
    assert c.state == NOT_STARTED
    assert c.press(BLACK, 0) == NOT_RUNNING
    assert c.pause(0) == NOT_RUNNING and c.resume(0) == NOT_NOW
    assert c.tick(100000) == OK and c.next_cue(0) == 0
    assert c.start(1000) == OK
    assert c.start(2000) == NOT_NOW
    assert c.press(WHITE, 3000) == WRONG_SIDE  # Black's clock runs
    assert c.running == BLACK and _face(c, BLACK, 3000).main_ms == 58000
    assert c.press(BLACK, 3000) == OK
    assert c.press(BLACK, 4000) == WRONG_SIDE
    c.finish(5000)
    assert c.state == FINISHED
    assert c.press(WHITE, 6000) == NOT_RUNNING
    assert _face(c, WHITE, 9000).main_ms == 58000  # stopped for good at 5 s


# ---- the arbiter ----------------------------------------------------------------------------


def test_adjust_only_when_not_running():
    c = Clock(control.absolute(10 * MIN))
    assert c.adjust(BLACK, main_ms=5 * MIN) == OK  # before the start
    assert _face(c, BLACK, 0).main_ms == 300000
    c.start(0)
    assert c.adjust(BLACK, main_ms=MIN) == NOT_NOW
    assert _face(c, BLACK, 1000).main_ms == 299000


def test_adjust_sets_what_the_face_shows():
    c = Clock(control.chinese(10 * MIN, 3))  # 7 min of main time, three kept
    c.start(0)
    c.press(BLACK, 100000)
    c.pause(150000)  # White has used 50 s
    assert c.adjust(WHITE, main_ms=400000) == OK
    f = _face(c, WHITE, 160000)
    assert (f.main_ms, _text(f), f.flags) == (400000, "6:40", F_PAUSED)
    c.resume(200000)
    assert _face(c, WHITE, 210000).main_ms == 390000
    c.pause(220000)
    assert c.adjust(BLACK, main_ms=0, units=2, moves=10) == OK  # Black waits, in counting
    f = _face(c, BLACK, 220000)
    assert (f.main_ms, f.units, f.count_s, f.move_no) == (MIN, 2, 0, 11)
    assert f.flags == F_COUNTING | F_PAUSED
    c.resume(230000)
    assert c.press(WHITE, 240000) == OK
    assert _face(c, WHITE, 240000).main_ms == 370000
    assert c.tick(359999) == OK and c.tick(360000) == LATE  # two kept minutes


def test_adjust_settles_the_running_turn_first():
    c = Clock(control.canadian(MIN, 3, 5 * MIN))
    c.start(0)
    c.press(BLACK, 70000)  # block: 290 s, 2 moves
    c.press(WHITE, 71000)
    c.pause(72000)  # Black has used 1 s of the block
    assert c.adjust(BLACK, moves_left=1) == OK
    f = _face(c, BLACK, 72000)
    assert (f.main_ms, f.moves_left) == (289000, 1)
    c.resume(80000)
    assert c.press(BLACK, 90000) == OK  # the last move of the block: renewed
    f = _face(c, BLACK, 90000)
    assert (f.main_ms, f.moves_left) == (300000, 3)


def test_adjust_unflags():
    c = Clock(control.absolute(MIN))
    c.start(0)
    assert c.tick(60000) == LATE
    assert c.adjust(BLACK, moves=3) == OK and c.state == FLAGGED  # no time given
    assert c.adjust(BLACK, main_ms=10000) == OK
    assert c.state == PAUSED and c.flagged == 0
    f = _face(c, BLACK, 65000)
    assert (f.main_ms, f.flags) == (10000, F_PAUSED | F_LOW)
    c.resume(70000)
    assert c.tick(79999) == OK and c.tick(80000) == LATE


def test_adjust_gives_main_time_back_in_counting():
    c = Clock(control.chinese(MIN, 1))
    c.start(0)
    assert c.tick(60000) == LATE
    assert c.adjust(BLACK, main_ms=30000, units=1) == OK
    f = _face(c, BLACK, 60000)  # main time again, not counting
    assert (f.main_ms, f.count_s, f.units) == (30000, -1, -1)
    assert not f.flags & F_COUNTING
    c.resume(100000)
    assert c.next_cue(100000) == _cue(cues.MARK, 30) and c.cue_tick == 160000
    assert c.tick(189999) == OK and c.tick(190000) == LATE


def test_late_arrival_of_white():
    c = Clock(control.absolute(HOUR))
    c.start(0, absent=WHITE)  # 002 第八条5: the absent player's clock runs
    assert c.running == WHITE
    assert _face(c, WHITE, 1000).flags & F_RUNNING
    assert not _face(c, BLACK, 1000).flags & F_RUNNING
    assert c.press(BLACK, 1000) == WRONG_SIDE
    assert c.arrive(WHITE, 600000) == OK  # 10 min late, deducted once
    assert c.running == BLACK
    assert _face(c, WHITE, 600000).main_ms == 3000000
    assert _face(c, BLACK, 610000).main_ms == 3590000  # Black's clock from the arrival
    assert c.arrive(WHITE, 700000) == NOT_NOW

    c = Clock(control.absolute(HOUR))
    c.start(0, absent=WHITE)
    assert c.arrive(WHITE, 600000, factor=2) == OK  # 004 第22条1: twice
    assert _face(c, WHITE, 600000).main_ms == 2400000
    assert _face(c, BLACK, 600000).main_ms == 3600000


def test_late_arrival_limit():
    c = Clock(control.absolute(HOUR))
    c.start(0, absent=WHITE)
    assert c.arrive(WHITE, 15 * MIN, factor=2, limit_ms=15 * MIN) == OK  # 15 min (含)
    assert _face(c, WHITE, 15 * MIN).main_ms == 1800000
    c = Clock(control.absolute(HOUR))
    c.start(0, absent=WHITE)
    assert c.arrive(WHITE, 15 * MIN + 1, factor=2, limit_ms=15 * MIN) == FORFEIT
    assert c.state == FINISHED and c.forfeit == WHITE
    assert c.press(WHITE, 15 * MIN + 2) == NOT_RUNNING


def test_late_arrival_of_black_and_of_both():
    c = Clock(control.absolute(HOUR))
    c.start(0, absent=BLACK)
    assert c.running == BLACK
    assert c.arrive(BLACK, 300000, factor=2) == OK
    assert _face(c, BLACK, 300000).main_ms == 3000000  # 5 min run + 5 min deducted
    assert c.running == BLACK
    assert c.press(BLACK, 310000) == OK
    assert _face(c, BLACK, 310000).main_ms == 2990000

    c = Clock(control.absolute(HOUR))
    c.start(0, absent=BOTH)  # the arbiter starts Black's clock
    assert c.running == BLACK
    assert c.arrive(WHITE, 120000, factor=2) == OK
    assert _face(c, WHITE, 120000).main_ms == 3360000
    assert c.running == BLACK
    assert c.arrive(BLACK, 300000, factor=2) == OK
    assert _face(c, BLACK, 300000).main_ms == 3000000
    assert c.arrive(BLACK, 300000) == NOT_NOW


def test_timeout_becomes_a_pass_in_chinese_counting():
    c = Clock(control.chinese(MIN, 1))
    c.start(0)
    assert c.timeout_to_pass(0) == NOT_NOW  # not flagged
    c.press(BLACK, 30000)
    c.press(WHITE, 40000)
    assert c.tick(100000) == LATE and c.flagged == BLACK
    assert c.timeout_to_pass(130000) == OK  # 004 第22条5
    assert c.state == RUNNING and c.running == WHITE and c.flagged == 0
    b = _face(c, BLACK, 130000)
    assert (b.units, b.main_ms, b.count_s, b.move_no) == (1, MIN, 0, 4)  # the pass is a move
    assert not b.flags & F_FLAGGED
    w = _face(c, WHITE, 135000)  # White's clock from the request, not from the flag
    assert (w.count_s, w.main_ms) == (5, 55000)
    assert c.press(WHITE, 135000) == OK
    # The same counting goes on: Black's last minute, 30, 40, 50, 1 … 9, 10.
    assert c.next_cue(135000) == _cue(cues.MARK, 30) and c.cue_tick == 165000
    assert c.next_cue(185000) == _cue(cues.COUNT, 1) and c.cue_tick == 186000
    assert c.tick(194999) == OK and c.tick(195000) == LATE
    assert c.timeout_to_pass(196000) == OK  # and again, as often as it is asked
    assert c.moves[BLACK] == 3


def test_timeout_becomes_a_pass_in_japanese_only_with_counting():
    c = Clock(control.japanese(MIN, 2, 30 * SEC))
    c.start(0)
    assert c.tick(120000) == LATE
    assert c.timeout_to_pass(120000) == OK
    c.press(WHITE, 121000)
    assert _face(c, BLACK, 121000).units == 1
    assert c.tick(150999) == OK and c.tick(151000) == LATE  # one period of 30 s
    for tc in (control.absolute(MIN), control.canadian(MIN, 2, MIN), control.fischer(MIN, 0)):
        c = Clock(tc)
        c.start(0)
        assert c.tick(10 * MIN) == LATE
        assert c.timeout_to_pass(10 * MIN) == NOT_NOW


# ---- the faces ------------------------------------------------------------------------------


def test_format_time():
    cases = (
        (0, "0:00.0"),  # only at the flag
        (1, "0:00.1"),
        (100, "0:00.1"),
        (101, "0:00.2"),
        (5050, "0:05.1"),
        (9900, "0:09.9"),
        (9901, "0:10"),  # rounded up to 10.0 s: no longer under 10 s
        (9999, "0:10"),
        (10000, "0:10"),
        (10001, "0:11"),
        (59001, "1:00"),
        (60000, "1:00"),
        (60001, "1:01"),
        (600000, "10:00"),
        (3599000, "59:59"),
        (3599001, "1:00:00"),
        (3600000, "1:00:00"),
        (3600001, "1:00:01"),
        (3661000, "1:01:01"),
        (36000000, "10:00:00"),
    )
    for ms, text in cases:
        assert _fmt(ms) == text, (ms, _fmt(ms), text)


def test_face_of_plain_time():
    c = Clock(control.absolute(2 * HOUR))
    c.start(0)
    f = _face(c, BLACK, 0)
    assert (f.main_ms, _text(f), f.move_no) == (7200000, "2:00:00", 1)
    assert (f.count_s, f.units, f.moves_left) == (-1, -1, -1)  # nothing but plain time
    assert f.flags == F_RUNNING
    assert _face(c, WHITE, 0).flags == 0
    assert _text(_face(c, BLACK, 3601000)) == "59:59"
    c.press(BLACK, 7200000 - 59999)  # 59.999 s left
    f = _face(c, BLACK, 7200000)
    assert (_text(f), f.flags, f.move_no) == ("1:00", F_LOW, 2)
    c.arbiter = True
    assert _face(c, WHITE, 7200000).flags == F_RUNNING | F_ARBITER


def test_face_in_chinese_counting():
    c = Clock(control.chinese(3 * MIN, 2))  # one minute main, two kept
    c.start(0)
    f = _face(c, BLACK, 30000)
    assert (f.main_ms, f.count_s, f.units) == (30000, -1, -1)
    assert f.flags & F_RUNNING and not f.flags & F_COUNTING
    f = _face(c, BLACK, 75000)
    assert (f.main_ms, _text(f), f.count_s, f.units) == (45000, "0:45", 15, 2)
    assert f.flags == F_RUNNING | F_COUNTING  # not the last minute: not low
    f = _face(c, BLACK, 135000)
    assert (f.main_ms, f.count_s, f.units) == (45000, 15, 1)
    assert f.flags == F_RUNNING | F_COUNTING | F_LOW
    f = _face(c, BLACK, 179999)
    assert (f.main_ms, _text(f), f.count_s) == (1, "0:00.1", 59)
    f = _face(c, WHITE, 75000)
    assert (f.main_ms, f.flags, f.count_s) == (MIN, 0, -1)


def test_face_in_japanese_periods():
    c = Clock(control.japanese(MIN, 3, 30 * SEC))
    c.start(0)
    f = _face(c, BLACK, 100000)  # 40 s of byo-yomi: the first period gone, 10 s into the next
    assert (f.main_ms, f.count_s, f.units) == (20000, 10, 2)
    assert f.flags == F_RUNNING | F_COUNTING
    f = _face(c, BLACK, 145000)  # 85 s: the last period, 25 s in
    assert (f.main_ms, _text(f), f.count_s, f.units) == (5000, "0:05.0", 25, 1)
    assert f.flags & F_LOW


def test_face_move_numbers_and_flags_after_a_flag():
    c = Clock(control.fischer(MIN, 5 * SEC))
    c.start(0)
    c.press(BLACK, 1000)
    c.press(WHITE, 2000)
    c.press(BLACK, 3000)
    assert _face(c, WHITE, 3000).move_no == 4
    assert c.tick(3000 + 64000) == LATE  # White: 64 s left after the first move
    f = _face(c, WHITE, 100000)
    assert (f.main_ms, _text(f)) == (0, "0:00.0")
    assert f.flags & F_FLAGGED and not f.flags & F_RUNNING
    assert not _face(c, BLACK, 100000).flags & F_FLAGGED


# ---- presets and definitions ----------------------------------------------------------------


def test_presets_follow_the_seeds():
    p = control.PRESETS
    nat = p["cn-national"]
    assert nat.kind == control.CHINESE and nat.periods == 5  # 全国比赛保留五分钟
    assert nat.main_ms + nat.periods * MIN <= 24 * HOUR  # 要求在一天之内结束
    loc = p["cn-local"]
    assert loc.periods == 1 and HOUR <= loc.main_ms + MIN <= 2 * HOUR  # 基层: 1 至 2 小时
    for tc in p.values():
        if tc.kind == control.JAPANESE:
            assert tc.period_ms <= MIN  # 讀秒限制皆在60 秒內
    rs = p["renju-stages"]
    assert rs.kind == control.STAGES and rs.stages == ((2 * HOUR, 40), (HOUR, 0))
    assert _raises(control.chinese, 4 * MIN, 5)  # the kept minutes are part of the limit
    assert _raises(control.japanese, MIN, 3, 61 * SEC)
    assert _raises(control.absolute, 0)


def test_both_absent_and_black_comes_first_opens_whites_clock():
    # 002 第八条5: both away, the arbiter opens one clock (Black's); once one player is there
    # the other's clock runs.
    c = Clock(control.absolute(HOUR))
    c.start(0, absent=BOTH)
    assert c.arrive(BLACK, 60000) == OK
    assert c.running == WHITE
    assert _face(c, BLACK, 60000).main_ms == HOUR - 60000  # Black's own clock took it
    assert c.arrive(WHITE, 100000) == OK  # 100 s late: 40 s on its clock, 60 s deducted
    assert c.running == BLACK
    assert _face(c, WHITE, 100000).main_ms == HOUR - 100000
    assert c.press(BLACK, 105000) == OK
    assert _face(c, BLACK, 105000).main_ms == HOUR - 65000


def test_adjust_penalty_periods_and_what_is_left_of_one():
    tc = control.penalty(MIN, 10 * MIN, 2, 2)
    c = Clock(tc)
    c.start(0)
    assert c.press(BLACK, 65000) == OK  # into the first extra period
    assert c.penalty_points(BLACK) == 2
    assert c.adjust(BLACK, units=2, period_ms=30000) == NOT_NOW  # not while running
    c.pause(70000)
    assert c.adjust(BLACK, units=2, period_ms=30000) == OK
    f = _face(c, BLACK, 70000)
    assert (f.units, f.main_ms) == (2, 30000)
    assert c.penalty_points(BLACK) == 4
    assert c.penalty_points(WHITE) == 0
