"""The fast Go board: stones as row bitboards, captures, simple ko, suicide, Zobrist hashes.

Like KataGo's ``Board`` this knows nothing of whose turn it is, of superko or of the move
history: ``firmware/rules/go.py`` keeps those. Start reading at ``Board.play``.

Layout: ``rows`` holds black rows at ``0..n-1`` and white rows at ``n..2n-1`` (see
``bitboard.py``). A point is encoded as ``y << 5 | x`` (x from the left, y from the bottom);
``PASS`` is a code no point can have. Removed stones (captures and suicides) are appended to
a log (``log``, entries ``color << 10 | point``) so that the history can undo any move
exactly. The small words of state (ko, hashes, counts) live in the array ``st`` so that the
viper kernel can update them without allocating.
"""

import micropython
from micropython import const

from firmware.rules.bitboard import color_at, flood, new_array, scratch

EMPTY = const(0)
BLACK = const(1)
WHITE = const(2)
PASS = const(1023)
NO_KO = const(0)  # no colour is 0, so no ko word is 0

# Reasons a move is refused; 0 means legal. Numbered as the legality steps in go.py.
OK = const(0)
OFF_BOARD = const(1)
OCCUPIED = const(2)
KO = const(3)
SUICIDE = const(4)
SUPERKO = const(5)
FULL = const(6)  # the game's history has no room for another move (go.Game.capacity)
REASONS = ("legal", "off board", "occupied", "ko", "suicide", "superko", "history full")

SUICIDE_FORBID = const(0)
SUICIDE_ALLOW = const(1)  # a group of two or more may kill itself; one stone may not
SUICIDE_ALLOW_ALL = const(2)
KO_CHECK = const(4)  # added to the suicide rule in ``Board.rule``: enforce simple ko

# Words of ``Board.st``.
ST_KO = const(0)  # color << 10 | point that colour may not play next (simple ko), or NO_KO
ST_H1 = const(1)  # position hash, first 30-bit key
ST_H2 = const(2)  # second, independent 30-bit key
ST_STONES = const(3)
ST_NLOG = const(4)  # entries used in the removal log
_ST_WORDS = const(5)

_NONE = None  # viper tests ``x is None`` only against a named object
_STRIDE = const(19)
_SIDE = const(361)
_SIDE2 = const(722)


def _zobrist_keys():
    # Two independent 30-bit key sets (two 30-bit words make a 60-bit position key, so a
    # false repetition needs two collisions); 30 bits keep every key a small int on the RP2040.
    keys = new_array("I", 4 * _SIDE)
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


@micropython.viper
def _toggle(rows, stbuf, n: int, c: int, x: int, y: int, count: int):
    # Adds (count 1) or removes (count -1) the stone of colour c at (x, y), with its hash keys.
    r = ptr32(rows)
    st = ptr32(stbuf)
    z = ptr32(ZOBRIST)
    i = (c - 1) * n + y
    r[i] = r[i] ^ (1 << x)
    k = (c - 1) * _SIDE + y * _STRIDE + x
    st[ST_H1] = st[ST_H1] ^ z[k]
    st[ST_H2] = st[ST_H2] ^ z[_SIDE2 + k]
    st[ST_STONES] = st[ST_STONES] + count


@micropython.viper
def _take(rows, gbuf, logbuf, stbuf, n: int, c: int) -> int:
    # Lifts the complete group left in ``g`` by flood() and logs each stone; returns the count.
    r = ptr32(rows)
    g = ptr32(gbuf)
    log = ptr16(logbuf)
    st = ptr32(stbuf)
    z = ptr32(ZOBRIST)
    off = (c - 1) * n
    zoff = (c - 1) * _SIDE
    nlog = st[ST_NLOG]
    first = nlog
    h1 = st[ST_H1]
    h2 = st[ST_H2]
    yy = g[n]
    while yy <= g[n + 1]:
        row = g[yy]
        r[off + yy] = r[off + yy] & ~row
        k = zoff + yy * _STRIDE
        e = (c << 10) | (yy << 5)
        while row:
            if row & 1:
                h1 ^= z[k]
                h2 ^= z[_SIDE2 + k]
                log[nlog] = e
                nlog += 1
            row = row >> 1
            k += 1
            e += 1
        yy += 1
    st[ST_H1] = h1
    st[ST_H2] = h2
    st[ST_NLOG] = nlog
    st[ST_STONES] = st[ST_STONES] - (nlog - first)
    return nlog - first


class Board:
    """Stones, the removal log, the simple-ko point and the position hash of one board."""

    def __init__(self, size=19, log_capacity=1024):
        if not 2 <= size <= 19:
            raise ValueError("board size must be 2..19, not %d" % size)
        self.size = size
        self.rows = new_array("I", 2 * size)
        self.g = scratch(size)
        self.log = new_array("H", max(log_capacity, size * size + 1))
        # A move removes at most the stones on the board and itself, and every stone ever put
        # down is on the board or in the log: while the log has room for all of those plus
        # one, the next move fits. A log of ``moves + setup stones`` entries never grows.
        self.log_limit = len(self.log) - 1
        self.st = new_array("I", _ST_WORDS)
        self.rule = SUICIDE_FORBID | KO_CHECK  # what ``play`` enforces; go.Game sets its own
        self.clear()

    def clear(self):
        """Empty the board."""
        for i in range(2 * self.size):
            self.rows[i] = 0
        for i in range(_ST_WORDS):
            self.st[i] = 0
        self.st[ST_KO] = NO_KO

    @property
    def ko(self):
        """``color << 10 | point`` that colour may not play next (simple ko), or NO_KO."""
        return self.st[ST_KO]

    @property
    def nlog(self):
        """Entries used in the removal log."""
        return self.st[ST_NLOG]

    @property
    def stones(self):
        """Stones on the board."""
        return self.st[ST_STONES]

    def hash(self):
        """The position's two 30-bit Zobrist keys."""
        return self.st[ST_H1], self.st[ST_H2]

    def color_at(self, x, y):
        """EMPTY, BLACK or WHITE at ``(x, y)``."""
        return color_at(self.rows, self.size, x, y)

    def put(self, c, x, y):
        """Add a stone of colour ``c`` on an empty point, without captures (setup and undo)."""
        _toggle(self.rows, self.st, self.size, c, x, y, 1)

    def lift(self, c, x, y):
        """Remove the stone of colour ``c`` at ``(x, y)``."""
        _toggle(self.rows, self.st, self.size, c, x, y, -1)

    def ensure_log_room(self):
        """Grow the removal log if the next move could overflow it (allocates; a ``Game``'s
        board never needs to, its log has room for every stone its history can take)."""
        used = self.st[ST_NLOG]
        if used + self.st[ST_STONES] + 1 > len(self.log):
            grown = new_array("H", 2 * len(self.log))
            for i in range(used):
                grown[i] = self.log[i]
            self.log = grown
        self.log_limit = len(self.log) - 1

    # Viper: with Game.play and _commit it took a corpus move from 8.7 µs (bytecode methods)
    # to about 1.4 µs on the unix port; its frame stays off the heap (see Game.play).
    @micropython.viper
    def play(self, c: int, x, y) -> int:
        """Play colour ``c`` at ``(x, y)``; return OK or the reason it is refused (board unchanged).

        ``x`` None passes, which only lifts the ko ban.

        Steps, as seed 000 第三条–第五条 orders them: the point must be on the board and empty;
        with ``KO_CHECK`` in ``self.rule``, not the simple-ko point (000 第二十条一); the stone goes down
        and every neighbouring enemy group left without liberties is taken (第四条; when both sides
        are without liberties only the opponent's stones go, 第四条二); if nothing was taken and
        the stone's own group has no liberty, the move is suicide (禁着点, 第五条) unless the
        suicide rule (``self.rule & 3``) allows it, and then the group is taken instead. The stones
        removed are the log entries from ``st[ST_NLOG]`` before the call. This is the board
        alone, with no history: a game's moves go through ``go.Game.play``, which calls this.
        """
        stbuf = self.st
        st = ptr32(stbuf)
        if x is _NONE:
            st[ST_KO] = NO_KO
            return OK
        if st[ST_NLOG] + st[ST_STONES] > int(self.log_limit):
            self.ensure_log_room()
        rows = self.rows
        gbuf = self.g
        logbuf = self.log
        n = int(self.size)
        rule = int(self.rule)
        px = int(x)
        py = int(y)
        if px < 0 or py < 0 or px >= n or py >= n:
            return OFF_BOARD
        r = ptr32(rows)
        z = ptr32(ZOBRIST)
        bit = 1 << px
        if (r[py] | r[n + py]) & bit:
            return OCCUPIED
        p = (py << 5) | px
        if (rule & KO_CHECK) and ((c << 10) | p) == st[ST_KO]:
            return KO
        o = 3 - c
        own = (c - 1) * n
        opp = (o - 1) * n
        r[own + py] = r[own + py] | bit
        k = (c - 1) * _SIDE + py * _STRIDE + px
        st[ST_H1] = st[ST_H1] ^ z[k]
        st[ST_H2] = st[ST_H2] ^ z[_SIDE2 + k]
        st[ST_STONES] = st[ST_STONES] + 1
        start = st[ST_NLOG]
        taken = 0
        libs = 0  # empty neighbours of the new stone
        friends = 0  # neighbours of its own colour
        last = n - 1
        d = 0
        while d < 4:
            xx = px
            yy = py
            if d == 0:
                xx = px - 1
            elif d == 1:
                xx = px + 1
            elif d == 2:
                yy = py - 1
            else:
                yy = py + 1
            d += 1
            if xx < 0 or yy < 0 or xx > last or yy > last:
                continue
            b = 1 << xx
            if r[opp + yy] & b:
                # Most enemy neighbours have an empty point next to them: alive without a fill.
                occ = r[yy] | r[n + yy]
                if xx > 0 and not occ & (b >> 1):
                    continue
                if xx < last and not occ & (b << 1):
                    continue
                if yy > 0 and not (r[yy - 1] | r[n + yy - 1]) & b:
                    continue
                if yy < last and not (r[yy + 1] | r[n + yy + 1]) & b:
                    continue
                if not int(flood(rows, opp, n, gbuf, xx, yy, 1)):
                    taken += int(_take(rows, gbuf, logbuf, stbuf, n, o))
            elif r[own + yy] & b:
                friends += 1
            else:
                libs += 1
        if taken == 0 and libs == 0 and not int(flood(rows, own, n, gbuf, px, py, 1)):
            suicide = rule & 3
            if suicide == SUICIDE_FORBID or (suicide == SUICIDE_ALLOW and friends == 0):
                _toggle(rows, stbuf, n, c, px, py, -1)
                return SUICIDE
            _take(rows, gbuf, logbuf, stbuf, n, c)
            st[ST_KO] = NO_KO
        elif taken == 1 and friends == 0 and libs == 0:
            # A ko: one stone taken by a lone stone whose only liberty is the point just emptied.
            st[ST_KO] = (o << 10) | int(ptr16(logbuf)[start])
        else:
            st[ST_KO] = NO_KO
        return OK

    @micropython.viper
    def unplay(self, c: int, x: int, y: int, log_start: int, ko: int, h1: int, h2: int):
        """Undo a move of ``c`` at ``(x, y)``: put back what it removed, lift it, restore ko.

        ``h1, h2`` is the position's hash before the move (``hash()`` then; ``go.Game`` keeps
        it in its history): restoring it whole, instead of undoing each stone's keys, makes
        taking back the capture of a 150-stone group a few row operations per stone.
        """
        r = ptr32(self.rows)
        st = ptr32(self.st)
        log = ptr16(self.log)
        n = int(self.size)
        nlog = st[ST_NLOG]
        k = log_start
        while k < nlog:
            e = log[k]
            p = e & 0x3FF
            i = ((e >> 10) - 1) * n + (p >> 5)
            r[i] = r[i] | (1 << (p & 31))
            k += 1
        # After the log, so that a suicided stone (logged with its group) is lifted too.
        i = (c - 1) * n + y
        r[i] = r[i] & ~(1 << x)
        st[ST_STONES] = st[ST_STONES] + (nlog - log_start) - 1
        st[ST_NLOG] = log_start
        st[ST_H1] = h1
        st[ST_H2] = h2
        st[ST_KO] = ko
