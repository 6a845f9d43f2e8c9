"""The keys (firmware/ui/buttons.py): debounce, long press, repeat and chords to the ms.

The keys are polled every 5 ms as on the board (hardware/README.md §5). A script says from
which tick which keys are held; ``run`` polls on every multiple of 5 ms and lists the events
with the tick of the poll that produced them. The expectations follow the rules in the
module's header: a level counts after 20 ms unchanged, counted from the first poll that saw
it; a long press at 800 ms from that edge; repeats every 200 ms after it.
"""

from array import array

import micropython

from firmware.clock import ticks
from firmware.ui import buttons
from firmware.ui.buttons import (
    ARBITER,
    CHORD,
    LONG,
    MINUS,
    MODE,
    PADDLE,
    PADDLE_L,
    PADDLE_R,
    PAUSE,
    PLUS,
    PRESS,
    REPEAT,
    Buttons,
    event,
)
from tests.support import locked, skip


def run(script, until, t0=0, b=None):
    """Poll every 5 ms from 0 to ``until``; ``script`` is [(tick, levels), ...] in order, each
    level holding from its tick. The events as (ms since t0, event)."""
    b = b or Buttons()
    out = []
    levels = 0
    j = 0
    t = 0
    while t <= until:
        while j < len(script) and script[j][0] <= t:
            levels = script[j][1]
            j += 1
        ev = b.poll(levels, ticks.add(t0, t))
        while ev:
            out.append((t, ev))
            ev = b.pending()
        t += 5
    return out


def test_a_short_press_is_sent_at_the_debounced_release():
    assert run([(100, PLUS), (250, 0)], 400) == [(270, event(PRESS, PLUS))]


def test_bounces_restart_the_wait():
    # Down at 100, bounces at 105 and 110, then held: still one press; the release bounces.
    script = [(100, MODE), (105, 0), (110, MODE), (300, 0), (305, MODE), (310, 0)]
    assert run(script, 500) == [(330, event(PRESS, MODE))]


def test_a_glitch_shorter_than_the_debounce_is_nothing():
    assert run([(100, PAUSE), (115, 0)], 400) == []
    # Seen held at 100 … 115 and let go at 120: the poll at 120 sees the release, so the key
    # was never 20 ms steady.
    assert run([(100, PAUSE), (120, 0)], 400) == []
    # Held until 125: the poll at 120 debounces it.
    assert run([(100, PAUSE), (125, 0)], 400) == [(145, event(PRESS, PAUSE))]


def test_long_press_at_exactly_800_ms():
    assert run([(0, MODE), (1000, 0)], 1200) == [(800, event(LONG, MODE))]
    # Let go just before: a press (seen up at 795, debounced at 815).
    assert run([(0, MODE), (795, 0)], 1200) == [(815, event(PRESS, MODE))]
    # Seen up at the very poll the long press would fall on: still a press.
    assert run([(0, MODE), (800, 0)], 1200) == [(820, event(PRESS, MODE))]
    assert run([(0, MODE), (805, 0)], 1200) == [(800, event(LONG, MODE))]


def test_plus_and_minus_repeat_after_the_long_press():
    got = run([(0, PLUS), (1250, 0)], 1500)
    assert got == [
        (800, event(LONG, PLUS)),
        (1000, event(REPEAT, PLUS)),
        (1200, event(REPEAT, PLUS)),
    ]
    # Pause does not repeat.
    assert run([(0, PAUSE), (1700, 0)], 2000) == [(800, event(LONG, PAUSE))]


def test_the_arbiter_chord():
    # Pause held, mode added 300 ms later: one chord when mode is debounced; no presses or
    # long presses from either key afterwards, whatever order they are let go in.
    script = [(0, PAUSE), (300, PAUSE | MODE), (1500, MODE), (1600, 0)]
    got = run(script, 2000)
    assert got == [(320, ARBITER)]
    assert ARBITER == event(CHORD, PAUSE | MODE)
    assert buttons.describe(ARBITER) == "chord pause+mode"
    # Both pressed in the same poll.
    assert run([(100, PAUSE | MODE), (200, 0)], 400) == [(120, ARBITER)]
    # A third key joining a chord sends nothing more.
    script = [(0, PLUS), (50, PLUS | MINUS), (100, PLUS | MINUS | MODE), (200, 0)]
    assert run(script, 400) == [(70, event(CHORD, PLUS | MINUS))]


def test_after_a_long_press_a_second_key_is_no_chord():
    script = [(0, PAUSE), (900, PAUSE | MODE), (1000, PAUSE), (1100, 0)]
    assert run(script, 1300) == [(800, event(LONG, PAUSE)), (1020, event(PRESS, MODE))]


def test_a_chord_key_held_on_does_not_repeat():
    script = [(0, PLUS), (100, PLUS | MODE), (200, PLUS), (2000, 0)]
    assert run(script, 2200) == [(120, event(CHORD, PLUS | MODE))]
    # Let go entirely, the keys work alone again.
    script = [(0, PLUS | MODE), (100, 0), (200, PLUS), (300, 0)]
    assert run(script, 500) == [(20, event(CHORD, PLUS | MODE)), (320, event(PRESS, PLUS))]


def test_paddles_are_sent_at_once_both_in_one_poll():
    got = run([(10, PADDLE_L | PADDLE_R), (50, 0)], 200)
    assert got == [(30, event(PADDLE, PADDLE_L)), (30, event(PADDLE, PADDLE_R))]
    # A paddle is never part of a chord, nor long.
    got = run([(0, PAUSE), (100, PAUSE | PADDLE_L), (1500, 0)], 1800)
    assert got == [(120, event(PADDLE, PADDLE_L)), (800, event(LONG, PAUSE))]


def test_across_the_tick_wrap():
    t0 = ticks.PERIOD - 400
    got = run([(0, MODE), (1000, 0)], 1200, t0=t0)
    assert got == [(800, event(LONG, MODE))]
    got = run([(390, PLUS), (450, 0)], 600, t0=t0)
    assert got == [(470, event(PRESS, PLUS))]


def test_the_queue_keeps_order_and_drops_when_full():
    b = Buttons()
    for i in range(12):
        b._put(i + 1)
    assert [b.pending() for _ in range(9)] == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    b.reset()
    assert b.poll(0, 0) == 0 and b.held == 0


def test_describe():
    assert buttons.describe(event(PRESS, MINUS)) == "press -"
    assert buttons.describe(0) == "none"


@micropython.native
def _polls(job):
    b, levels, times, out = job
    i = 0
    n = len(times)
    while i < n:
        ev = b.poll(levels[i], times[i])
        while ev:
            out[ev >> 8] += 1
            ev = b.pending()
        i += 1


# Twelve seconds of everything: presses, bounces, a long press and repeats, chords, paddles.
SCRIPT = (
    (100, PLUS),
    (10, 0),
    (5, PLUS),
    (150, PLUS),
    (100, 0),
    (1300, MINUS),
    (100, 0),
    (200, MODE),
    (300, MODE | PAUSE),
    (100, PAUSE),
    (100, 0),
    (50, PADDLE_L),
    (50, 0),
    (900, PAUSE),
    (100, 0),
)


def _job():
    n = 2400
    levels = array("i", [0] * n)
    times = array("i", [0] * n)
    for k in range(n):
        times[k] = ticks.add(ticks.PERIOD - 5000, 5 * k)
    k = 0
    while k < n:
        for ms, lv in SCRIPT:
            for _ in range(ms // 5):
                if k < n:
                    levels[k] = lv
                    k += 1
    return (Buttons(), levels, times, array("i", [0] * 6))


def test_poll_allocates_nothing():
    job = _job()
    _polls(job)
    counts = job[3]
    assert min(counts[PRESS], counts[LONG], counts[REPEAT], counts[CHORD], counts[PADDLE]) > 2
    job = _job()
    err = locked(lambda: _polls(job))
    assert err is None, err
    assert list(job[3]) == list(counts)
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    b, levels, times, out = _job()
    before = micropython.mem_total()
    i = 0
    while i < len(times):
        ev = b.poll(levels[i], times[i])
        while ev:
            ev = b.pending()
        i += 1
    assert micropython.mem_total() - before == 0
