"""The byo-yomi announcements: when each falls, its words, and its buzzer pattern.

Seed 000 第十二条二 is what the arbiter says in Chinese counting: in every kept minute but
the last, at 30, 40, 50, 55 and 58 s and at the full minute (then "还剩N分钟"); in the last
minute at 30, 40, 50 s, then "1" … "9" each second and "10, 超时判负" at the full minute.
Seed 003 第12条 counts the last ten seconds of the last Japanese period 1 … 10, and a move
at "10" is late. A Japanese period used up is announced like a lost kept minute.

A cue is a small int, ``kind << 8 | n``. The clock asks ``counting_next`` for the first cue
after a moment of the counting, so the buzzer task can sleep until it; the words and the
patterns are looked up only when a cue is played.
"""

import micropython
from micropython import const

MARK = const(1)  # n seconds of the counted minute: 30, 40, 50 (one short beep)
MARK_LATE = const(2)  # 55 or 58 s (a double beep)
MINUTE_LEFT = const(3)  # a kept minute used up: n left ("还剩N分钟", a falling tone)
COUNT = const(4)  # the last ten seconds: n = 1 … 9 (one beep a second)
TIMEOUT = const(5)  # "10, 超时判负" at the end of the last minute or period (a long tone)
PERIOD_LEFT = const(6)  # a Japanese period used up: n left (a falling tone)
FLAG = const(7)  # time up in a control without counting (a long tone)

_SEC = const(1000)
_MARKS = (30, 40, 50, 55, 58)  # seconds of a kept minute that is not the last
_LAST_MARKS = (30, 40, 50)  # then 51 … 59 are counted "1" … "9"


def kind(cue):
    """The kind of a cue (MARK ... FLAG)."""
    return cue >> 8


def number(cue):
    """The number a cue says (seconds, minutes or periods left, the count)."""
    return cue & 0xFF


@micropython.native  # as bytecode its frame would be borrowed from the heap
def counting_next(chinese, period_ms, units, t, out):
    """The first cue strictly after ``t`` ms of counting; its moment goes to ``out[0]``.

    ``units`` kept minutes (``chinese``) or Japanese periods of ``period_ms`` are left when
    the counting of this move starts; ``t`` may be negative (the main time is still running).
    Returns 0 when no cue is left. Nothing allocates: the clock calls this on its own path.
    """
    if units <= 0:
        return 0
    j = t // period_ms if t >= 0 else 0  # the period (minute) t falls in
    if j >= units:
        return 0
    r = t - j * period_ms  # where t is inside it; negative before the counting starts
    base = j * period_ms
    left = units - j  # units left while this period runs
    if chinese:
        marks = _MARKS if left > 1 else _LAST_MARKS
        i = 0
        while i < len(marks):  # an index, not ``for``: a for loop allocates its iterator
            s = marks[i]
            if s * _SEC > r:
                out[0] = base + s * _SEC
                return (MARK_LATE if s > 50 else MARK) << 8 | s
            i += 1
        if left > 1:
            out[0] = base + period_ms
            return MINUTE_LEFT << 8 | (left - 1)
    elif left > 1:
        out[0] = base + period_ms
        return PERIOD_LEFT << 8 | (left - 1)
    # The last minute or period: "1" … "9" in its last ten seconds, "10" at its end.
    first = period_ms - 10 * _SEC
    n = 1
    while n < 10:
        at = first + n * _SEC
        if at > r and at > 0:
            out[0] = base + at
            return COUNT << 8 | n
        n += 1
    out[0] = base + period_ms
    return TIMEOUT << 8 | 10


def words(cue):
    """``(Chinese, English)`` of a cue, as the arbiter would say it."""
    k = cue >> 8
    n = cue & 0xFF
    if k == MARK or k == MARK_LATE:
        return ("%d秒" % n, "%d seconds" % n)
    if k == MINUTE_LEFT:
        return ("还剩%d分钟" % n, "%d minute%s left" % (n, "" if n == 1 else "s"))
    if k == PERIOD_LEFT:
        return ("还剩%d次" % n, "%d period%s left" % (n, "" if n == 1 else "s"))
    if k == COUNT:
        return ("%d" % n, "%d" % n)
    if k == TIMEOUT:
        return ("10，超时判负", "10 — time is up, the game is lost")
    if k == FLAG:
        return ("超时判负", "time is up, the game is lost")
    return ("", "")


# Buzzer patterns, (hertz, ms) steps with 0 Hz for silence. SPEC §3: quiet, and told apart
# without looking: one short beep per ten-second mark, a double beep at 55/58 s, one beep per
# counted second, a falling tone for a lost minute or period, a long tone on timeout.
_SHORT = ((2000, 40),)
_DOUBLE = ((2000, 40), (0, 80), (2000, 40))
_TICK = ((2400, 30),)
_FALLING = ((2000, 120), (1500, 120), (1000, 160))
_LONG = ((1500, 1200),)
_PATTERNS = ((), _SHORT, _DOUBLE, _FALLING, _TICK, _LONG, _FALLING, _LONG)


def pattern(cue):
    """The buzzer pattern of a cue: ``((hertz, ms), ...)``; constant tuples, no allocation."""
    k = cue >> 8
    return _PATTERNS[k] if 0 < k < len(_PATTERNS) else ()
