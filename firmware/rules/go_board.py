"""The fast Go board: stones as row bitboards, captures, simple ko, suicide, Zobrist hashes.

Like KataGo's ``Board`` this knows nothing of whose turn it is, of superko or of the move
history: ``firmware/rules/go.py`` keeps those. Start reading at ``Board.play``.

Layout: ``rows`` holds black rows at ``0..n-1`` and white rows at ``n..2n-1`` (see
``bitboard.py``). A point is encoded as ``y << 5 | x`` (x from the left, y from the bottom);
``PASS`` is a code no point can have. Captured and suicided stones are appended to a log
(``log``, entries ``color << 10 | point``) so that the history can undo any move exactly.
"""

from array import array

from micropython import const

from firmware.rules.bitboard import flood, scratch

EMPTY = const(0)
BLACK = const(1)
WHITE = const(2)
PASS = const(1023)
NO_KO = const(0xFFFF)

# Reasons a move is refused; 0 means legal. Numbered as the legality steps in go.py.
OK = const(0)
OFF_BOARD = const(1)
OCCUPIED = const(2)
KO = const(3)
SUICIDE = const(4)
SUPERKO = const(5)
REASONS = ("legal", "off board", "occupied", "ko", "suicide", "superko")

SUICIDE_FORBID = const(0)
SUICIDE_ALLOW = const(1)  # a group of two or more may kill itself; one stone may not
SUICIDE_ALLOW_ALL = const(2)

_STRIDE = const(19)
_SIDE = const(361)


def _zobrist_keys():
    # Two independent 30-bit key sets (two 30-bit words make a 60-bit position key, so a
    # false repetition needs two collisions); 30 bits keep every key a small int on the RP2040.
    keys = array("I", [0] * (4 * _SIDE))
    s = 0x2545F491
    for i in range(4 * _SIDE):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        keys[i] = s >> 2
    return keys


ZOBRIST = _zobrist_keys()


def point(x, y):
    """The point code of column ``x``, row ``y``."""
    return (y << 5) | x


class Board:
    """Stones, captures, the simple-ko point and the position hash of one board."""

    def __init__(self, size=19, log_capacity=512):
        if not 2 <= size <= 19:
            raise ValueError("board size must be 2..19, not %d" % size)
        self.size = size
        self.rows = array("I", [0] * (2 * size))
        self.g = scratch(size)
        self.log = array("H", [0] * log_capacity)
        self.nlog = 0
        self.ko = NO_KO  # color << 10 | point: who may not play where next (simple ko)
        self.h1 = 0
        self.h2 = 0
        self.stones = 0

    def clear(self):
        """Empty the board."""
        for i in range(2 * self.size):
            self.rows[i] = 0
        self.nlog = 0
        self.ko = NO_KO
        self.h1 = 0
        self.h2 = 0
        self.stones = 0

    def color_at(self, x, y):
        """EMPTY, BLACK or WHITE at ``(x, y)``."""
        bit = 1 << x
        if self.rows[y] & bit:
            return BLACK
        if self.rows[self.size + y] & bit:
            return WHITE
        return EMPTY

    def put(self, c, x, y):
        """Add a stone of colour ``c`` on an empty point (no captures: setup and undo)."""
        self.rows[(c - 1) * self.size + y] |= 1 << x
        k = (c - 1) * _SIDE + y * _STRIDE + x
        self.h1 ^= ZOBRIST[k]
        self.h2 ^= ZOBRIST[2 * _SIDE + k]
        self.stones += 1

    def lift(self, c, x, y):
        """Remove the stone of colour ``c`` at ``(x, y)``."""
        self.rows[(c - 1) * self.size + y] &= ~(1 << x)
        k = (c - 1) * _SIDE + y * _STRIDE + x
        self.h1 ^= ZOBRIST[k]
        self.h2 ^= ZOBRIST[2 * _SIDE + k]
        self.stones -= 1

    def _remove_group(self, c):
        # Takes the complete group left in ``g`` by flood() off the board, logging each stone.
        g = self.g
        n = self.size
        taken = 0
        for yy in range(g[n], g[n + 1] + 1):
            r = g[yy]
            x = 0
            while r:
                if r & 1:
                    self.lift(c, x, yy)
                    self._log(c, (yy << 5) | x)
                    taken += 1
                r >>= 1
                x += 1
        return taken

    def _log(self, c, p):
        if self.nlog == len(self.log):
            grown = array("H", [0] * (2 * len(self.log)))
            for i in range(self.nlog):
                grown[i] = self.log[i]
            self.log = grown
        self.log[self.nlog] = (c << 10) | p
        self.nlog += 1

    def _open_neighbour(self, x, y):
        # 1 if a point next to (x, y) is empty: the cheap test before any flood fill.
        n = self.size
        rows = self.rows
        occ = rows[y] | rows[n + y]
        if x > 0 and not occ & (1 << (x - 1)):
            return 1
        if x < n - 1 and not occ & (1 << (x + 1)):
            return 1
        bit = 1 << x
        if y > 0 and not (rows[y - 1] | rows[n + y - 1]) & bit:
            return 1
        if y < n - 1 and not (rows[y + 1] | rows[n + y + 1]) & bit:
            return 1
        return 0

    def _capture_at(self, o, x, y):
        # Captures the group of colour ``o`` at (x, y) if it has no liberty; returns stones taken.
        n = self.size
        if not self.rows[(o - 1) * n + y] & (1 << x):
            return 0  # empty, or already taken with another neighbour's group
        if flood(self.rows, (o - 1) * n, n, self.g, x, y, 1):
            return 0
        return self._remove_group(o)

    def play(self, c, x, y, suicide=SUICIDE_FORBID, ko=1):
        """Play colour ``c`` at ``(x, y)``; return OK or the reason it is refused (board unchanged).

        Steps, as seed 000 第三条–第五条 orders them: the point must be on the board and empty;
        with ``ko`` set, not the simple-ko point (000 第二十条一); the stone goes down and every
        neighbouring enemy group left without liberties is taken (第四条: when both sides are
        without liberties only the opponent's stones go, 第四条二); if nothing was taken and the
        stone's own group has no liberty, the move is suicide (禁着点, 第五条) unless the
        ``suicide`` rule allows it, and then the group is taken instead. ``nlog`` minus its
        value before the call is the number of stones removed, listed in ``log``.
        """
        n = self.size
        if x < 0 or y < 0 or x >= n or y >= n:
            return OFF_BOARD
        bit = 1 << x
        rows = self.rows
        if (rows[y] | rows[n + y]) & bit:
            return OCCUPIED
        p = (y << 5) | x
        if ko and (c << 10) | p == self.ko:
            return KO
        o = 3 - c
        self.put(c, x, y)
        start = self.nlog
        taken = 0
        if x > 0:
            taken += self._capture_at(o, x - 1, y)
        if x < n - 1:
            taken += self._capture_at(o, x + 1, y)
        if y > 0:
            taken += self._capture_at(o, x, y - 1)
        if y < n - 1:
            taken += self._capture_at(o, x, y + 1)
        if not taken and not self._open_neighbour(x, y):
            if not flood(rows, (c - 1) * n, n, self.g, x, y, 1):
                g = self.g
                single = g[n] == g[n + 1] and g[y] == bit
                if suicide == SUICIDE_FORBID or (suicide == SUICIDE_ALLOW and single):
                    self.lift(c, x, y)
                    return SUICIDE
                self._remove_group(c)
        self.ko = NO_KO
        # A ko: one stone was taken by a lone stone that now has that single liberty.
        if taken == 1 and self._lone_in_atari(c, x, y):
            self.ko = (o << 10) | (self.log[start] & 0x3FF)
        return OK

    def _lone_in_atari(self, c, x, y):
        n = self.size
        rows = self.rows
        own = (c - 1) * n
        libs = 0
        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            xx = x + dx
            yy = y + dy
            if 0 <= xx < n and 0 <= yy < n:
                b = 1 << xx
                if rows[own + yy] & b:
                    return 0
                if not (rows[yy] | rows[n + yy]) & b:
                    libs += 1
        return libs == 1

    def unplay(self, c, x, y, log_start, ko):
        """Undo a move of ``c`` at ``(x, y)``: put back what it removed, lift it, restore ko."""
        while self.nlog > log_start:
            self.nlog -= 1
            e = self.log[self.nlog]
            q = e & 0x3FF
            self.put(e >> 10, q & 31, q >> 5)
        # After the log, so that a suicided stone (logged with its group) is lifted too.
        self.lift(c, x, y)
        self.ko = ko
