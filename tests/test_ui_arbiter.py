"""Arbiter mode (firmware/ui/arbiter.py): the PIN accepted, refused and locked out; each
action's tuple (SPEC §3 arbiter functions, §6: a chord plus a PIN)."""

from firmware.clock import ticks
from firmware.ui import arbiter, buttons
from firmware.ui.arbiter import (
    ADJUST,
    BLACK,
    BOTH_LOSE,
    DRAW,
    ENTER,
    EXIT,
    FIELD,
    IDLE,
    LATE,
    LIST,
    LOCKED,
    LOCKOUT,
    PAUSE,
    PIN,
    REFUSED,
    RESULT,
    RESUME,
    SEAL,
    TIMEOUT_PASS,
    UNDO,
    WARNING,
    WHITE,
    Arbiter,
)
from firmware.ui.buttons import MINUS, MODE, PLUS, PRESS, REPEAT, Buttons, event

NAMES = {"+": PLUS, "-": MINUS, "m": MODE, "p": buttons.PAUSE}


def line(a, now=0):
    """What the faces show: the big cells' text, then the small cells' (``"0___ PIN"``,
    ``"+1:30 W"``; the words are firmware/ui/texts.py's)."""
    big, small = a.text(now)
    return (big + " " + small).strip()


def keys(a, seq, now=0):
    """Press keys by name ('+', '-', 'm', 'p'); the actions that came, in order."""
    out = []
    for k in seq:
        r = a.handle(event(PRESS, NAMES[k]), now)
        if r is not None:
            out.append(r)
    return out


def enter(a, digits, now=0):
    """Key in a PIN from 0 on each digit: + that many times (- for 6 … 9), then MODE."""
    out = []
    for d in digits:
        d = int(d)
        out += keys(a, "+" * d if d <= 5 else "-" * (10 - d), now)
        out += keys(a, "m", now)
    return out


def test_the_right_pin_opens_the_mode():
    a = Arbiter("0427")
    assert a.state == IDLE and not a.active and a.text(0) == ("", "")
    assert a.begin(0) is None and a.state == PIN
    assert line(a, 0) == "0___ PIN"
    assert keys(a, "m") == [] and line(a, 0) == "-0__ PIN"  # the digit taken is hidden
    assert keys(a, "++++") == [] and line(a, 0) == "-4__ PIN"
    assert keys(a, "m++m") == [] and line(a, 0) == "---0 PIN"
    assert keys(a, "---") == [] and line(a, 0) == "---7 PIN"
    assert keys(a, "m") == [(ENTER,)]
    assert a.state == LIST and a.active and line(a, 0) == "PAUSE"


def test_pause_steps_back_and_leaves_the_pin():
    a = Arbiter("0427")
    a.begin(0)
    keys(a, "m++++m")
    assert line(a, 0) == "--0_ PIN"
    keys(a, "p")
    assert line(a, 0) == "-4__ PIN"  # the digit back, to be changed
    keys(a, "pp")
    assert a.state == IDLE
    a.begin(0)
    assert enter(a, "0427") == [(ENTER,)]


def test_three_wrong_pins_lock_for_a_minute():
    a = Arbiter("0427")
    t = 1000
    a.begin(t)
    assert enter(a, "1111", t) == [(REFUSED, 1)]
    assert a.state == PIN  # try again at once
    assert enter(a, "0428", t) == [(REFUSED, 2)]
    assert enter(a, "4270", t) == [(LOCKOUT, 60000)]
    assert a.state == IDLE and a.refused == 3
    assert a.begin(t + 1) == (LOCKED, 59999)
    assert line(a, t + 1) == "CLOSED 60"
    assert a.begin(t + 59999) == (LOCKED, 1)
    assert line(a, t + 59001) == "CLOSED 1" and a.state == IDLE
    assert a.begin(t + 60000) is None and a.state == PIN  # the minute is over
    assert line(a, t + 60000) == "0___ PIN"
    assert enter(a, "9999", t + 60000) == [(REFUSED, 1)]  # the count started again
    assert enter(a, "0427", t + 61000) == [(ENTER,)]


def test_the_right_pin_resets_the_count():
    a = Arbiter("5555")
    a.begin(0)
    assert enter(a, "1234") + enter(a, "1234") + enter(a, "5555") == [
        (REFUSED, 1),
        (REFUSED, 2),
        (ENTER,),
    ]
    assert keys(a, "p") == [(EXIT,)]
    a.begin(10)
    assert enter(a, "1234") == [(REFUSED, 1)] and a.refused == 3


def test_lockout_across_the_tick_wrap():
    a = Arbiter("0000", lockout_ms=1000)
    t0 = ticks.PERIOD - 300
    for _ in range(3):
        a.begin(t0)
        out = enter(a, "1111", t0)
    assert out == [(LOCKOUT, 1000)]
    assert a.begin(ticks.add(t0, 999)) == (LOCKED, 1)
    assert a.begin(ticks.add(t0, 1000)) is None


def opened(pin="2024"):
    a = Arbiter(pin)
    a.begin(0)
    assert enter(a, pin) == [(ENTER,)]
    return a


def test_the_actions_and_their_tuples():
    a = opened()
    # The list: + and - walk it, round.
    labels = []
    for _ in range(len(arbiter.MENU)):
        labels.append(line(a, 0))
        keys(a, "+")
    assert labels == [
        "PAUSE",
        "ADJUST",
        "UNDO",
        "ALERT",
        "RESULT",
        "T.PASS",
        "SEAL",
        "LATE",
        "QUIT",
    ]
    assert line(a, 0) == "PAUSE"
    keys(a, "-")
    assert line(a, 0) == "QUIT"
    keys(a, "+")
    # Pause, then resume: the label follows.
    assert keys(a, "m") == [(PAUSE,)] and line(a, 0) == "PLAY"
    assert keys(a, "m") == [(RESUME,)] and line(a, 0) == "PAUSE"
    # Adjust White by +1:30: side, minutes, seconds.
    assert keys(a, "+m") == [] and a.state == FIELD and line(a, 0) == "ADJUST B"
    assert keys(a, "+") == [] and line(a, 0) == "ADJUST W"
    assert keys(a, "m++") == [] and line(a, 0) == "+2:00 W"
    assert keys(a, "m" + "-" * 30) == [] and line(a, 0) == "+1:30 W"
    assert keys(a, "m") == [(ADJUST, WHITE, 90000)] and a.state == LIST
    # And Black by -1:00.
    assert keys(a, "mm-mm") == [(ADJUST, BLACK, -60000)]
    assert keys(a, "mm-") == [] and line(a, 0) == "-1:00 B"
    assert keys(a, "p") == [] and a.state == LIST  # pause: back to the list, nothing done
    assert keys(a, "+m") == [(UNDO,)]
    assert keys(a, "+m") == [] and line(a, 0) == "ALERT B"
    assert keys(a, "m") == [(WARNING, BLACK)]
    assert keys(a, "+m") == [] and line(a, 0) == "B+ RES"
    assert [keys(a, "+") or line(a, 0) for _ in range(4)] == [
        "W+ RES",
        "TIE RES",
        "NULL RES",
        "B+ RES",
    ]
    assert keys(a, "++m") == [(RESULT, DRAW)]
    assert keys(a, "+m") == [(TIMEOUT_PASS,)]
    assert keys(a, "+m") == [(SEAL,)]
    assert a.paused  # a sealed move pauses the clock: resume is offered
    assert keys(a, "+m+m") == [(LATE, WHITE)]
    assert keys(a, "+m") == [(EXIT,)] and a.state == IDLE and not a.active
    assert BOTH_LOSE == 3


def test_repeat_changes_values_and_other_events_do_nothing():
    a = opened()
    keys(a, "+m")  # adjust
    keys(a, "m")  # Black, to the minutes
    for _ in range(120):
        a.handle(event(REPEAT, PLUS), 0)
    assert line(a, 0) == "+99:00 B"  # at most 99 minutes
    assert a.handle(event(REPEAT, MODE), 0) is None
    assert a.handle(event(buttons.LONG, MODE), 0) is None
    assert a.handle(buttons.ARBITER, 0) is None
    assert a.handle(event(buttons.PADDLE, buttons.PADDLE_L), 0) is None
    assert a.state == FIELD


def test_every_line_fits_a_face():
    a = opened()

    # Six big cells ('.' and ':' take none), three small (tests/test_glass_texts.py reads
    # every one back off the glass).
    def fits(t):
        return len(t[0].replace(".", "").replace(":", "")) <= 6 and len(t[1]) <= 3

    for i in range(len(arbiter.MENU)):
        a.index = i
        assert fits(a.text(0))
    a.state = FIELD
    for act in (ADJUST, WARNING, RESULT, LATE):
        a.action = act
        for f in range(3):
            a.field = f
            a.minutes = -99
            a.seconds = -59
            assert fits(a.text(0)), a.text(0)


def test_a_bad_pin_setting_is_refused():
    for pin in ("123", "12345", "12a4", [1, 2, 3, 10]):
        try:
            Arbiter(pin)
        except ValueError:
            continue
        raise AssertionError(pin)
    a = Arbiter([1, 2, 3, 4])
    a.set_pin("9876")
    a.begin(0)
    assert enter(a, "9876") == [(ENTER,)]


def test_from_key_levels_through_the_buttons():
    # The chord held, let go, then the PIN typed on the keys at human speed.
    b = Buttons()
    a = Arbiter("0100")
    script = [(0, buttons.PAUSE), (150, buttons.PAUSE | MODE), (400, 0)]
    t = 400
    for key in (MODE, PLUS, MODE, MODE, MODE):  # 0, +1 → 1, 0, 0
        script += [(t + 100, key), (t + 200, 0)]
        t += 300
    out = []
    levels = 0
    j = 0
    now = 0
    while now <= t + 100:
        while j < len(script) and script[j][0] <= now:
            levels = script[j][1]
            j += 1
        ev = b.poll(levels, now)
        while ev:
            if ev == buttons.ARBITER:
                out.append(("begin", a.begin(now)))
            elif a.state != IDLE:
                r = a.handle(ev, now)
                if r:
                    out.append((now, r))
            ev = b.pending()
        now += 5
    assert out == [("begin", None), (1820, (ENTER,))]
    assert a.state == LIST
