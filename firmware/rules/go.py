"""A game of Go: the board plus its history (moves, position hashes, undo) and the ko rule.

``Game.play`` is the one legality function, in numbered steps (GNU Go's order): 1 pass,
2 on the board, 3 empty, 4 simple ko, 5 suicide, 6 superko. Steps 2–5 are the fast board's
(``go_board.py``); step 6 and everything about time order live here.

Ko rules (seed 000 第二十条, 003 第6条):
- ``none``: no ko restriction at all (only for test harnesses).
- ``simple``: the immediate recapture of a ko is refused.
- ``chinese`` (default): simple ko is refused; any other return of an earlier whole-board
  position is allowed but reported in ``repeat`` with the move number it repeats, because
  under 000 第二十条三 the arbiter decides triple ko, eternal life and 双提二子 (draw or replay).
- ``positional``: a move may not recreate any earlier board position.
- ``situational``: a move may not make the opponent face a position seen before with the
  same player to move (003 第6条 著子後不得使對方重覆面臨曾出現過的局面).

Nothing allocates per move while the history has room (``capacity``): arrays are
preallocated, and repeated positions are found through an open-addressing table of plies
keyed by the position hash, so lookups cost the same at move 300 as at move 3.
"""

from array import array

import micropython
from micropython import const

from firmware.rules.bitboard import new_array, ptr16, ptr32
from firmware.rules.go_board import (
    BLACK,
    KO_CHECK,
    NO_KO,
    OK,
    PASS,
    ST_H1,
    ST_H2,
    ST_KO,
    SUICIDE_FORBID,
    WHITE,
    Board,
)

KO_NONE = const(0)
KO_SIMPLE = const(1)
KO_CHINESE = const(2)
KO_POSITIONAL = const(3)
KO_SITUATIONAL = const(4)
KO_RULES = ("none", "simple", "chinese", "positional", "situational")
SUICIDE_RULES = ("forbid", "allow", "allow-all")

# A key for "white to move": situational positions differ from positional ones by it.
_WHITE_TO_MOVE = const(0x1B873593)
_FREE = const(0xFFFF)
# go_board's constants again: viper code folds only constants defined in its own module
# (tests/test_go_history.py checks that the two copies agree).
_WHITE = const(2)  # WHITE
_PASS = const(1023)  # PASS
_SUPERKO = const(5)  # SUPERKO
_ST_KO = const(0)  # ST_KO
_ST_H1 = const(1)  # ST_H1
_ST_H2 = const(2)  # ST_H2
_ST_NLOG = const(4)  # ST_NLOG
_NONE = None  # viper tests ``x is None`` only against a named object

# The history is one array of ``_REC`` words per ply j (the position after j moves; ply 0 is
# the start), each word a small int on the RP2040:
_H1 = const(0)  # position hash, first key
_H2 = const(1)  # second key
_TM_SLOT = const(2)  # side to move << 16 | the ply's slot in the position table
_MOVE = const(3)  # board ko word before the move << 12 | color << 10 | point (ply >= 1)
_LOG = const(4)  # removal-log length before the move (ply >= 1)
_REC = const(5)


def opponent(c):
    """The other colour."""
    return 3 - c


@micropython.viper
def _commit(
    hist, table, h1: int, h2: int, j: int, tm: int, rule: int, word: int, start: int
) -> int:
    # Records position (h1, h2) as ply j and returns the latest earlier ply with the same
    # position (-1 if none, or if ``rule`` asks for no check). Under a superko rule a repeat is
    # not recorded: the caller refuses the move.
    h = ptr32(hist)
    t = ptr16(table)
    key = h1
    if rule == KO_SITUATIONAL and tm == _WHITE:
        key = h1 ^ _WHITE_TO_MOVE
    mask = int(len(table)) - 1
    i = key & mask
    found = -1
    while t[i] != _FREE:
        q = t[i] * _REC
        if rule >= KO_CHINESE and h[q + _H1] == h1 and h[q + _H2] == h2:
            if rule != KO_SITUATIONAL or (h[q + _TM_SLOT] >> 16) == tm:
                found = t[i]
        i = (i + 1) & mask
    if found >= 0 and rule >= KO_POSITIONAL:
        return found
    t[i] = j
    r = j * _REC
    h[r + _H1] = h1
    h[r + _H2] = h2
    h[r + _TM_SLOT] = (tm << 16) | i
    h[r + _MOVE] = word
    h[r + _LOG] = start
    return found


class Game:
    """Board, move history, ko rule and suicide rule of one game of Go."""

    def __init__(self, size=19, ko_rule=KO_CHINESE, suicide=SUICIDE_FORBID, capacity=400):
        self.board = Board(size)
        self.ko_rule = ko_rule
        self.suicide = suicide
        self._set_board_rule()
        self.ply = 0
        self._alloc(capacity)
        self.clear()

    def _set_board_rule(self):
        # What the board enforces itself: the suicide rule, and simple ko unless there is none.
        self.board.rule = self.suicide | (KO_CHECK if self.ko_rule != KO_NONE else 0)

    def _alloc(self, capacity):
        self.capacity = capacity
        self.hist = new_array("I", _REC * (capacity + 1))
        tab = 64
        while tab < 2 * (capacity + 1):  # at most half full: probe chains stay short
            tab <<= 1
        self.table = new_array("H", tab, 0xFF)

    @property
    def size(self):
        """Board size (lines per side)."""
        return self.board.size

    def clear(self, size=None):
        """Start again on an empty board (of a new ``size`` if given)."""
        if size is not None and size != self.board.size:
            self.board = Board(size)
            self._set_board_rule()
        self.board.clear()
        for j in range(self.ply + 1):  # only these slots are in use
            self.table[self.hist[j * _REC + _TM_SLOT] & 0xFFFF] = _FREE
        self.ply = 0
        self.to_move = BLACK
        self.captures = array("H", [0, 0, 0])  # stones taken by [_, black, white]
        self.repeat = -1
        self.passes = 0
        self.resigned = 0  # the colour that resigned, if one did
        st = self.board.st
        _commit(self.hist, self.table, st[ST_H1], st[ST_H2], 0, BLACK, KO_NONE, 0, 0)

    def _restart(self):
        # Re-records ply 0 after setup stones or a new side to move.
        self.table[self.hist[_TM_SLOT] & 0xFFFF] = _FREE
        st = self.board.st
        _commit(self.hist, self.table, st[ST_H1], st[ST_H2], 0, self.to_move, KO_NONE, 0, 0)

    def _rebuild_table(self):
        for i in range(len(self.table)):
            self.table[i] = _FREE
        h = self.hist
        for j in range(self.ply + 1):
            r = j * _REC
            tm = h[r + _TM_SLOT] >> 16
            key = h[r + _H1]
            if self.ko_rule == KO_SITUATIONAL and tm == WHITE:
                key ^= _WHITE_TO_MOVE
            i = key & (len(self.table) - 1)
            while self.table[i] != _FREE:
                i = (i + 1) & (len(self.table) - 1)
            self.table[i] = j
            h[r + _TM_SLOT] = (tm << 16) | i

    def set_ko_rule(self, rule):
        """Change the ko rule (one of ``KO_*``); earlier positions are re-indexed for it."""
        if not 0 <= rule < len(KO_RULES):
            raise ValueError("unknown ko rule %r" % rule)
        self.ko_rule = rule
        self._set_board_rule()
        self._rebuild_table()

    def _grow(self):
        old = self.hist
        self._alloc(2 * self.capacity)
        for i in range(len(old)):
            self.hist[i] = old[i]
        self._rebuild_table()

    # ---- moves ---------------------------------------------------------------------------

    @micropython.viper
    def play(self, c: int, x, y) -> int:
        """Play colour ``c`` at ``(x, y)`` (``x`` = None passes); return OK or the reason.

        A refused move changes nothing. After a legal move under the ``chinese`` rule,
        ``repeat`` is the ply whose position it recreates (-1 if none): the number of moves
        after which that position stood, for the arbiter (000 第二十条三).

        Viper, so that its frame lives on the C stack: a bytecode function with this many
        locals gets its frame from the heap on every call (measured: 224 B a move).
        """
        j = int(self.ply) + 1
        if j > int(self.capacity):
            self._grow()
        b = self.board
        st = ptr32(b.st)
        ko_word = st[_ST_KO]
        start = st[_ST_NLOG]
        if x is _NONE:  # step 1: a pass is always legal
            st[_ST_KO] = 0
            word = (ko_word << 12) | (c << 10) | _PASS
            _commit(self.hist, self.table, st[_ST_H1], st[_ST_H2], j, 3 - c, KO_NONE, word, start)
            self.passes = int(self.passes) + 1
            self.repeat = -1
        else:
            ix = int(x)
            iy = int(y)
            r = int(b.play(c, x, y))  # steps 2–5: on the board, empty, simple ko, suicide
            if r:
                return r
            rule = int(self.ko_rule)
            word = (ko_word << 12) | (c << 10) | (iy << 5) | ix
            rep = int(
                _commit(self.hist, self.table, st[_ST_H1], st[_ST_H2], j, 3 - c, rule, word, start)
            )
            if rep >= 0 and rule >= KO_POSITIONAL:  # step 6: superko
                b.unplay(c, ix, iy, start, ko_word)
                return _SUPERKO
            self.repeat = rep
            self.passes = 0
            if st[_ST_NLOG] != start:
                self._count_taken(start, 1)
        self.ply = j
        self.to_move = 3 - c
        return 0

    @micropython.viper
    def _count_taken(self, start: int, sign: int):
        # Credits (sign 1) or debits (-1) the stones logged since ``start`` to their captors.
        b = self.board
        log = ptr16(b.log)
        caps = ptr16(self.captures)
        end = int(ptr32(b.st)[_ST_NLOG])
        k = start
        while k < end:
            i = 3 - (log[k] >> 10)
            caps[i] = caps[i] + sign
            k += 1

    def legal(self, c, x, y):
        """OK if ``c`` may play at ``(x, y)`` now, else the reason; the game is unchanged."""
        repeat = self.repeat
        r = self.play(c, x, y)
        if r == OK:
            self.undo()
            self.repeat = repeat  # the arbiter's report stays about the real last move
        return r

    @micropython.viper
    def undo(self) -> bool:
        """Take back the last move; False if there is none. Viper for the reason ``play`` is."""
        j = int(self.ply)
        if j == 0:
            return False
        h = ptr32(self.hist)
        t = ptr16(self.table)
        r = j * _REC
        t[h[r + _TM_SLOT] & 0xFFFF] = _FREE  # last in, first out: chains stay whole
        word = h[r + _MOVE]
        start = h[r + _LOG]
        p = word & 0x3FF
        b = self.board
        if p == _PASS:
            ptr32(b.st)[_ST_KO] = word >> 12
        else:
            if ptr32(b.st)[_ST_NLOG] != start:
                self._count_taken(start, -1)
            b.unplay((word >> 10) & 3, p & 31, p >> 5, start, word >> 12)
        self.ply = j - 1
        self.to_move = h[r - _REC + _TM_SLOT] >> 16
        passes = 0
        k = j - 1
        while k > 0 and (h[k * _REC + _MOVE] & 0x3FF) == _PASS:
            passes += 1
            k -= 1
        self.passes = passes
        self.repeat = -1
        return True

    def move(self, i):
        """``(color, x, y)`` of move ``i`` (0-based); x and y are None for a pass."""
        word = self.hist[(i + 1) * _REC + _MOVE]
        p = word & 0x3FF
        c = (word >> 10) & 3
        if p == PASS:
            return (c, None, None)
        return (c, p & 31, p >> 5)

    def resign(self, c):
        """Colour ``c`` resigns (000 第七条二, 中途认输); return the SGF result, ``W+R`` or ``B+R``."""
        self.resigned = c
        return ("W" if c == BLACK else "B") + "+R"

    # ---- setup ---------------------------------------------------------------------------

    def setup(self, c, x, y):
        """Place (or with EMPTY remove) a setup stone before the first move: handicap, SGF AB/AW."""
        if self.ply:
            raise ValueError("setup stones only before the first move")
        n = self.board.size
        if not (0 <= x < n and 0 <= y < n):
            raise ValueError("setup point off the board")
        old = self.board.color_at(x, y)
        if old:
            self.board.lift(old, x, y)
        if c:
            self.board.put(c, x, y)
        self.board.st[ST_KO] = NO_KO
        self._restart()

    def set_to_move(self, c):
        """Say who moves next (after handicap stones White; SGF ``PL``; GTP's free order)."""
        self.to_move = c
        if self.ply == 0:
            self._restart()
        else:
            # The current position now stands with ``c`` to move: what situational superko and
            # undo read. Re-indexing costs a pass over the history; this is no hot path.
            r = self.ply * _REC + _TM_SLOT
            self.hist[r] = (c << 16) | (self.hist[r] & 0xFFFF)
            self._rebuild_table()

    def place_handicap(self, points):
        """Put free handicap stones on an empty board; White moves next. Raises ValueError."""
        if self.ply or self.board.stones:
            raise ValueError("board not empty")
        if len(points) < 2:
            raise ValueError("a handicap needs at least two stones")
        n = self.board.size
        seen = []
        for xy in points:  # all checked before any stone goes down
            if xy is None or xy in seen or not (0 <= xy[0] < n and 0 <= xy[1] < n):
                raise ValueError("bad vertex list")
            seen.append(xy)
        for x, y in points:
            self.setup(BLACK, x, y)
        self.set_to_move(WHITE)


def fixed_handicap(size, count):
    """The GTP fixed handicap points (GTP 2 §4.1.1) as a list of ``(x, y)``; ValueError if none."""
    if size % 2 == 0 or size == 7:
        top = 4
    else:
        top = 9
    if size < 7 or not 2 <= count <= top:
        raise ValueError("no fixed handicap of %d on %dx%d" % (count, size, size))
    edge = 2 if size < 13 else 3
    line = (edge, (size - 1) // 2, size - 1 - edge)
    # (column, row) indices into ``line``: D4 Q16 D16 Q4, the sides D10 Q10, K4 K16; an odd
    # count of five or more takes the centre (天元) instead of the last of those.
    order = ((0, 0), (2, 2), (0, 2), (2, 0), (0, 1), (2, 1), (1, 0), (1, 2))
    if count >= 5 and count % 2:
        pick = order[: count - 1] + ((1, 1),)
    else:
        pick = order[:count]
    return [(line[cx], line[cy]) for cx, cy in pick]
