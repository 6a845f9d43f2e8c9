"""Arbiter mode: a key chord and a PIN, then the arbiter's actions (SPEC §3, §6).

Start with ``Arbiter.begin`` (the app calls it on the PAUSE+MODE chord, ``buttons.ARBITER``)
and ``Arbiter.handle`` (every key event while ``state`` is not IDLE). Nothing here touches
the clock or the game: each step answers an action tuple (or None), and the app executes it
and journals it; the PIN's outcomes are actions too, so a refused PIN is on record.

The PIN (4 digits, set from the PC) is entered one digit at a time: + and − change the digit
shown, MODE takes it, PAUSE goes back a digit (or leaves). A wrong PIN is refused and counted;
the third wrong one in a row locks arbiter mode for a minute (``lockout_ms``), and the count
starts again after it. During the lockout ``begin`` answers ``(LOCKED, ms_left)``.

In the mode, + and − go through the actions, MODE chooses one, PAUSE leaves. An action's
fields (a side, an amount) are set with + and −, MODE goes to the next field and, after the
last, gives the action; PAUSE goes back to the list. The actions (``ACTION_NAMES``):

    (PAUSE,) / (RESUME,)             暂停 (000 第十四条): the label follows ``paused``
    (ADJUST, side, delta_ms)         add to (or take from) a side's time, by minutes and seconds
    (UNDO,)                          take back the last move
    (WARNING, side)                  a warning (004 第24条)
    (RESULT, who)                    BLACK, WHITE, DRAW or BOTH_LOSE
    (TIMEOUT_PASS,)                  the last-minute timeout becomes a pass (004 第22条第5款)
    (SEAL,)                          sealed move (封棋, 000 第十四条/第二十二条): pause and record
    (LATE, side)                     a late player arrives now (004 第22条1-3)
    (EXIT,)                          leave arbiter mode

and from the PIN: (ENTER,) accepted, (REFUSED, attempts) wrong, (LOCKOUT, lockout_ms) the
third wrong one, (LOCKED, ms_left) a chord during the lockout.
"""

from micropython import const

from firmware.clock import ticks
from firmware.ui import buttons
from firmware.ui import texts as T

BLACK = const(1)
WHITE = const(2)
DRAW = const(0)
BOTH_LOSE = const(3)

# States.
IDLE = const(0)
PIN = const(1)
LIST = const(2)
FIELD = const(3)

# Actions: the first item of each tuple.
ENTER = const(1)
REFUSED = const(2)
LOCKOUT = const(3)
LOCKED = const(4)
EXIT = const(5)
PAUSE = const(6)
RESUME = const(7)
ADJUST = const(8)
UNDO = const(9)
WARNING = const(10)
RESULT = const(11)
TIMEOUT_PASS = const(12)
SEAL = const(13)
LATE = const(14)
ACTION_NAMES = (
    "",
    "arbiter",
    "pin refused",
    "pin lockout",
    "pin locked",
    "arbiter exit",
    "pause",
    "resume",
    "adjust",
    "undo",
    "warning",
    "result",
    "timeout to pass",
    "sealed move",
    "late arrival",
)

# The list, in order; PAUSE stands for PAUSE or RESUME. Its labels and the results' words
# are firmware/ui/texts.py's (ARB_LIST by action, ARB_RESULTS by result).
MENU = (PAUSE, ADJUST, UNDO, WARNING, RESULT, TIMEOUT_PASS, SEAL, LATE, EXIT)
RESULTS = (BLACK, WHITE, DRAW, BOTH_LOSE)

PIN_LEN = const(4)
ATTEMPTS = const(3)
LOCKOUT_MS = const(60000)


class Arbiter:
    """The arbiter mode's state: PIN entry, lockout, the action list and its fields."""

    def __init__(self, pin="0000", attempts=ATTEMPTS, lockout_ms=LOCKOUT_MS):
        self.set_pin(pin)
        self.max_attempts = attempts
        self.lockout_ms = lockout_ms
        self.state = IDLE
        self.attempts = 0  # wrong PINs in a row
        self.refused = 0  # wrong PINs in all (for the record)
        self.locked_at = 0
        self.locked = False
        self.paused = False  # the app keeps this true while the clock is paused
        self.entered = bytearray(PIN_LEN)
        self.pos = 0  # the digit being entered
        self.digit = 0
        self.index = 0  # the action shown in the list
        self.action = 0  # the action whose fields are being set
        self.field = 0
        self.side = BLACK
        self.minutes = 0  # ADJUST: signed minutes and seconds
        self.seconds = 0
        self.result = BLACK

    @property
    def active(self):
        """In the mode proper (the faces show F_ARBITER): after the PIN, until EXIT."""
        return self.state == LIST or self.state == FIELD

    def set_pin(self, pin):
        """A new PIN: 4 digits, as a string ("0427") or a sequence of ints."""
        if isinstance(pin, str):
            pin = [ord(c) - 48 for c in pin]
        if len(pin) != PIN_LEN or not all(0 <= d <= 9 for d in pin):
            raise ValueError("the PIN is 4 digits")
        self.pin = bytes(pin)

    def lock_left(self, now):
        """Ms of lockout left at ``now`` (0: not locked)."""
        if not self.locked:
            return 0
        left = self.lockout_ms - ticks.diff(now, self.locked_at)
        if left <= 0:
            self.locked = False
            return 0
        return left

    def begin(self, now):
        """The arbiter chord: PIN entry starts, or (LOCKED, ms_left) during a lockout."""
        left = self.lock_left(now)
        if left:
            return (LOCKED, left)
        if self.state == IDLE:
            self._pin_start()
        return None

    def leave(self):
        """Out of the mode (the app's own way out, e.g. the game ended)."""
        self.state = IDLE

    def _pin_start(self):
        self.state = PIN
        self.pos = 0
        self.digit = 0
        for i in range(PIN_LEN):
            self.entered[i] = 0

    def handle(self, ev, now):
        """One key event: an action tuple, or None."""
        k = buttons.kind(ev)
        key = buttons.keys(ev)
        if k not in (buttons.PRESS, buttons.REPEAT) or key not in (
            buttons.PAUSE,
            buttons.MODE,
            buttons.PLUS,
            buttons.MINUS,
        ):
            return None
        step = 1 if key == buttons.PLUS else -1 if key == buttons.MINUS else 0
        if k == buttons.REPEAT and not step:
            return None
        if self.state == PIN:
            return self._pin_key(key, step, now)
        if self.state == LIST:
            if step:
                self.index = (self.index + step) % len(MENU)
                return None
            if key == buttons.PAUSE:
                self.state = IDLE
                return (EXIT,)
            return self._choose(MENU[self.index])
        if self.state == FIELD:
            if step:
                self._change(step)
                return None
            if key == buttons.PAUSE:
                self.state = LIST
                return None
            return self._next_field()
        return None

    # ---- the PIN ----------------------------------------------------------------------------

    def _pin_key(self, key, step, now):
        if step:
            self.digit = (self.digit + step) % 10
            return None
        if key == buttons.PAUSE:
            if self.pos == 0:
                self.state = IDLE
            else:
                self.pos -= 1
                self.digit = self.entered[self.pos]
            return None
        self.entered[self.pos] = self.digit
        self.pos += 1
        self.digit = 0
        if self.pos < PIN_LEN:
            return None
        same = 0
        for i in range(PIN_LEN):  # every digit compared: no early exit
            same |= self.entered[i] ^ self.pin[i]
        if same == 0:
            self.attempts = 0
            self.state = LIST
            self.index = 0
            return (ENTER,)
        self.attempts += 1
        self.refused += 1
        if self.attempts >= self.max_attempts:
            self.attempts = 0
            self.locked = True
            self.locked_at = now
            self.state = IDLE
            return (LOCKOUT, self.lockout_ms)
        self._pin_start()
        return (REFUSED, self.attempts)

    # ---- the actions ------------------------------------------------------------------------

    def _choose(self, action):
        if action == PAUSE:
            act = RESUME if self.paused else PAUSE
            self.paused = not self.paused
            return (act,)
        if action in (UNDO, TIMEOUT_PASS, SEAL):
            if action == SEAL:
                self.paused = True
            return (action,)
        if action == EXIT:
            self.state = IDLE
            return (EXIT,)
        self.action = action
        self.field = 0
        self.side = BLACK
        self.minutes = 0
        self.seconds = 0
        self.result = BLACK
        self.state = FIELD
        return None

    def _change(self, step):
        a = self.action
        if a == RESULT:
            i = RESULTS.index(self.result)
            self.result = RESULTS[(i + step) % len(RESULTS)]
        elif self.field == 0:
            self.side = WHITE if self.side == BLACK else BLACK
        elif self.field == 1:
            self.minutes = max(-99, min(99, self.minutes + step))
        else:
            self.seconds = max(-59, min(59, self.seconds + step))

    def _next_field(self):
        a = self.action
        if a == ADJUST and self.field < 2:
            self.field += 1
            return None
        self.state = LIST
        if a == ADJUST:
            return (ADJUST, self.side, (self.minutes * 60 + self.seconds) * 1000)
        if a == RESULT:
            return (RESULT, self.result)
        return (a, self.side)  # WARNING, LATE

    # ---- what the faces show ----------------------------------------------------------------

    def text(self, now):
        """``(big, small)`` for the faces (firmware/ui/texts.py's words): the PIN's digits
        with ``PIN`` in the small cells, a label of the list, a field's value with its side
        (or ``RES``); ("", "") when idle and not locked, ``CLOSED`` and the seconds left
        while locked."""
        if self.state == IDLE:
            left = self.lock_left(now)
            return (T.CLOSED, str((left + 999) // 1000)) if left else ("", "")
        if self.state == PIN:
            rest = PIN_LEN - 1 - self.pos
            return (T.PIN_TAKEN * self.pos + str(self.digit) + T.PIN_TO_COME * rest, T.PIN)
        if self.state == LIST:
            a = MENU[self.index]
            if a == PAUSE and self.paused:
                a = RESUME
            return (T.ARB_LIST[a], "")
        a = self.action
        if a == RESULT:
            return (T.ARB_RESULTS[self.result], T.ARB_RESULT)
        side = T.SIDES[self.side]
        if a == ADJUST and self.field:
            t = self.minutes * 60 + self.seconds
            sign = T.SIGNS[1 if t < 0 else 0]
            t = -t if t < 0 else t
            return (T.ADJ_TIME % (sign, t // 60, t % 60), side)
        return (T.ARB_LIST[a], side)  # ADJUST, WARNING, LATE: the side to choose
