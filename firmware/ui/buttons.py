"""The keys: debounce, short and long presses, repeat, chords; events as small ints.

The UI task polls the four soft keys every 5 ms (hardware/README.md §5) and hands ``poll``
a bitmask of the keys held now (1 = held: the pins are active low, the caller inverts) and
the tick. The paddles have their own IRQ timestamps (the app); their bits exist here so the
virtual board can drive everything through one object.

Timing, all from the tick at which a poll first saw the key's new level (its edge):

- Debounce: a new level counts once it has been seen unchanged for ``DEBOUNCE_MS`` (20 ms);
  a bounce restarts the wait. A key is held from its edge on, once debounced.
- ``PRESS``: a key let go before ``LONG_MS`` (800 ms), sent at the (debounced) release. A
  short press is sent on release so that a chord can begin with any key.
- ``LONG``: sent once when a key alone has been held ``LONG_MS`` (and is still seen held);
  its release then sends nothing.
  Keys in ``repeat`` (+ and − by default) then send ``REPEAT`` every ``REPEAT_MS``.
- ``CHORD``: a second key held down while a first is held (neither long yet): both keys'
  bits, sent when the second is debounced; the chord's keys send nothing more until they
  are let go (all of them).
- ``PADDLE``: a paddle pressed (debounced), sent at once.

An event is ``kind << 8 | keys`` (``kind(ev)``, ``keys(ev)``); 0 is none. ``poll`` returns
the oldest event waiting; when one poll makes several (two keys let go together), the rest
come from ``pending()``, or from the next polls. Nothing allocates.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import ticks

# Key bits.
PAUSE = const(1)
MODE = const(2)
PLUS = const(4)
MINUS = const(8)
PADDLE_L = const(16)
PADDLE_R = const(32)
KEYS = const(4)  # the soft keys: bits 0 … 3
NBITS = const(6)
PADDLES = const(48)

# Event kinds.
PRESS = const(1)
LONG = const(2)
REPEAT = const(3)
CHORD = const(4)
PADDLE = const(5)
KIND_NAMES = ("", "press", "long", "repeat", "chord", "paddle")
KEY_NAMES = ("pause", "mode", "+", "-", "paddle L", "paddle R")

DEBOUNCE_MS = const(20)
LONG_MS = const(800)
REPEAT_MS = const(200)

ARBITER = const(CHORD << 8 | PAUSE | MODE)  # the arbiter chord's event

_QUEUE = const(8)

# Per-key state bits.
_HELD = const(1)  # debounced level: held
_USED = const(2)  # long, repeat or part of a chord: its release sends nothing


def event(kind, keys):
    """The event of ``kind`` for ``keys``."""
    return kind << 8 | keys


def kind(ev):
    """PRESS, LONG, REPEAT, CHORD or PADDLE (0: no event)."""
    return ev >> 8


def keys(ev):
    """The key bits of an event."""
    return ev & 0xFF


def describe(ev):
    """An event in words, for logs and tests (allocates)."""
    if not ev:
        return "none"
    names = [KEY_NAMES[b] for b in range(NBITS) if ev & (1 << b)]
    return KIND_NAMES[kind(ev)] + " " + "+".join(names)


class Buttons:
    """Debounced key events from polled levels."""

    def __init__(
        self, debounce_ms=DEBOUNCE_MS, long_ms=LONG_MS, repeat_ms=REPEAT_MS, repeat=PLUS | MINUS
    ):
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.repeat_ms = repeat_ms
        self.repeat = repeat
        self.raw = 0  # the levels of the last poll
        self.held = 0  # debounced levels
        self.state = bytearray(NBITS)
        self.edge = array("i", [0] * NBITS)  # the tick each key's raw level last changed
        self.next = array("i", [0] * NBITS)  # while held: the tick of its next LONG/REPEAT
        self.chord = 0  # the keys of the chord in progress, until all are let go
        self.queue = array("H", [0] * _QUEUE)
        self.head = 0
        self.count = 0

    @micropython.native
    def _put(self, ev):
        if self.count < _QUEUE:  # a full queue (nobody reads) drops the newest
            self.queue[(self.head + self.count) % _QUEUE] = ev
            self.count += 1

    @micropython.native
    def pending(self):
        """The next waiting event, 0 if none."""
        if self.count == 0:
            return 0
        ev = self.queue[self.head]
        self.head = (self.head + 1) % _QUEUE
        self.count -= 1
        return ev

    @micropython.native
    def _down(self, b, bit, at):
        # Key b is held (debounced) since its edge ``at``.
        st = self.state
        self.held |= bit
        if bit & PADDLES:
            st[b] = _HELD | _USED
            self._put(PADDLE << 8 | bit)
            return
        others = self.held & ~bit & ~PADDLES
        free = 0
        k = 0
        while k < KEYS:
            if others & (1 << k) and not st[k] & _USED:
                free |= 1 << k
            k += 1
        if free or (self.chord and others & self.chord):
            # A chord: with the free keys held, or a key added to a chord in progress.
            st[b] = _HELD | _USED
            k = 0
            while k < KEYS:
                if free & (1 << k):
                    st[k] |= _USED
                k += 1
            if free:
                self.chord = free | bit
                self._put(CHORD << 8 | free | bit)
            else:
                self.chord |= bit
            return
        st[b] = _HELD
        self.next[b] = ticks.add(at, self.long_ms)

    @micropython.native
    def _up(self, b, bit):
        st = self.state
        self.held &= ~bit
        if not st[b] & _USED:
            self._put(PRESS << 8 | bit)
        st[b] = 0
        if self.chord & bit:
            self.chord &= ~bit

    @micropython.native
    def poll(self, levels, now):
        """Take the keys' levels at tick ``now``; the oldest event waiting (0: none)."""
        changed = levels ^ self.raw
        self.raw = levels
        st = self.state
        edge = self.edge
        b = 0
        while b < NBITS:
            bit = 1 << b
            if changed & bit:
                edge[b] = now
            elif (levels ^ self.held) & bit and ticks.diff(now, edge[b]) >= self.debounce_ms:
                if levels & bit:
                    self._down(b, bit, edge[b])
                else:
                    self._up(b, bit)
            s = st[b]
            if (
                s & _HELD
                and levels & bit
                and not bit & PADDLES
                and ticks.diff(now, self.next[b]) >= 0
            ):
                if not s & _USED:  # held alone for long_ms
                    self._put(LONG << 8 | bit)
                    st[b] = s | _USED
                    self.next[b] = ticks.add(self.next[b], self.repeat_ms)
                elif self.repeat & bit and not self.chord & bit:
                    self._put(REPEAT << 8 | bit)
                    self.next[b] = ticks.add(self.next[b], self.repeat_ms)
            b += 1
        return self.pending()

    def reset(self):
        """Forget every key (after the menus or the arbiter took over, say)."""
        self.raw = 0
        self.held = 0
        self.chord = 0
        self.count = 0
        for b in range(NBITS):
            self.state[b] = 0
