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

from micropython import const

from firmware.rules.go_board import (
    BLACK,
    NO_KO,
    OK,
    PASS,
    SUICIDE_FORBID,
    SUPERKO,
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
_EMPTY_SLOT = const(-1)


def opponent(c):
    """The other colour."""
    return 3 - c


class Game:
    """Board, move history, ko rule and suicide rule of one game of Go."""

    def __init__(self, size=19, ko_rule=KO_CHINESE, suicide=SUICIDE_FORBID, capacity=400):
        self.board = Board(size)
        self.ko_rule = ko_rule
        self.suicide = suicide
        self._alloc(capacity)
        self.clear()

    def _alloc(self, capacity):
        self.capacity = capacity
        # Per move i (0-based): what was played, and what undo needs.
        self.moves = array("H", [0] * capacity)  # color << 10 | point
        self.log_start = array("H", [0] * capacity)
        self.ko_before = array("H", [0] * capacity)  # the board's ko word before the move
        # Per ply j (the position after j moves; ply 0 is the start): hashes and side to move.
        self.hash1 = array("I", [0] * (capacity + 1))
        self.hash2 = array("I", [0] * (capacity + 1))
        self.to_move_at = bytearray(capacity + 1)
        self.slot = array("H", [0] * (capacity + 1))
        tab = 64
        while tab < 2 * (capacity + 1):
            tab <<= 1
        self.table = array("h", [_EMPTY_SLOT] * tab)

    @property
    def size(self):
        """Board size (lines per side)."""
        return self.board.size

    def clear(self, size=None):
        """Start again on an empty board (of a new ``size`` if given)."""
        if size is not None and size != self.board.size:
            self.board = Board(size)
        self.board.clear()
        self.ply = 0
        self.to_move = BLACK
        self.captures = array("H", [0, 0, 0])  # stones taken by [_, black, white]
        self.repeat = -1
        self.passes = 0
        for i in range(len(self.table)):
            self.table[i] = _EMPTY_SLOT
        self._record_ply()

    # ---- position table ------------------------------------------------------------------

    def _key(self, j):
        return self.hash1[j] ^ (_WHITE_TO_MOVE if self.to_move_at[j] == WHITE else 0)

    def _find(self, h1, h2, tm):
        # The latest earlier ply with this board (and, if situational, this side to move).
        situational = self.ko_rule == KO_SITUATIONAL
        key = h1 ^ (_WHITE_TO_MOVE if situational and tm == WHITE else 0)
        mask = len(self.table) - 1
        i = key & mask
        found = -1
        while True:
            j = self.table[i]
            if j == _EMPTY_SLOT:
                return found
            if self.hash1[j] == h1 and self.hash2[j] == h2:
                if not situational or self.to_move_at[j] == tm:
                    found = j
            i = (i + 1) & mask

    def _insert(self, j):
        situational = self.ko_rule == KO_SITUATIONAL
        key = self._key(j) if situational else self.hash1[j]
        mask = len(self.table) - 1
        i = key & mask
        while self.table[i] != _EMPTY_SLOT:
            i = (i + 1) & mask
        self.table[i] = j
        self.slot[j] = i

    def _rebuild_table(self):
        for i in range(len(self.table)):
            self.table[i] = _EMPTY_SLOT
        for j in range(self.ply + 1):
            self._insert(j)

    def _record_ply(self):
        j = self.ply
        self.hash1[j] = self.board.h1
        self.hash2[j] = self.board.h2
        self.to_move_at[j] = self.to_move
        if j == 0:
            self._rebuild_table()
        else:
            self._insert(j)

    def set_ko_rule(self, rule):
        """Change the ko rule (one of ``KO_*``); earlier positions are re-indexed for it."""
        if not 0 <= rule < len(KO_RULES):
            raise ValueError("unknown ko rule %r" % rule)
        self.ko_rule = rule
        self._rebuild_table()

    def _grow(self):
        old = (self.moves, self.log_start, self.ko_before, self.hash1, self.hash2, self.to_move_at)
        self._alloc(2 * self.capacity)
        new = (self.moves, self.log_start, self.ko_before, self.hash1, self.hash2, self.to_move_at)
        for a, b in zip(old, new):
            for i in range(len(a)):
                b[i] = a[i]
        self._rebuild_table()

    # ---- moves ---------------------------------------------------------------------------

    def play(self, c, x, y):
        """Play colour ``c`` at ``(x, y)`` (``x`` = None passes); return OK or the reason.

        A refused move changes nothing. After a legal move under the ``chinese`` rule,
        ``repeat`` is the ply whose position it recreates (-1 if none): the number of moves
        after which that position stood, for the arbiter (000 第二十条三).
        """
        if self.ply == self.capacity:
            self._grow()
        b = self.board
        i = self.ply
        if x is None:  # step 1: a pass is always legal
            self.ko_before[i] = b.ko
            self.log_start[i] = b.nlog
            self.moves[i] = (c << 10) | PASS
            b.ko = NO_KO
            self.passes += 1
            self.repeat = -1
            self._advance(c)
            return OK
        ko_word = b.ko
        start = b.nlog
        r = b.play(c, x, y, self.suicide, self.ko_rule != KO_NONE)  # steps 2–5
        if r:
            return r
        rep = self._find(b.h1, b.h2, 3 - c) if self.ko_rule >= KO_CHINESE else -1
        if rep >= 0 and self.ko_rule >= KO_POSITIONAL:  # step 6
            b.unplay(c, x, y, start, ko_word)
            return SUPERKO
        self.ko_before[i] = ko_word
        self.log_start[i] = start
        self.moves[i] = (c << 10) | (y << 5) | x
        self.passes = 0
        self.repeat = rep
        self._count_taken(c, start, 1)
        self._advance(c)
        return OK

    def _advance(self, c):
        self.ply += 1
        self.to_move = 3 - c
        self._record_ply()

    def _count_taken(self, c, start, sign):
        b = self.board
        for k in range(start, b.nlog):
            owner = b.log[k] >> 10
            self.captures[3 - owner] += sign

    def legal(self, c, x, y):
        """OK if ``c`` may play at ``(x, y)`` now, else the reason; the game is unchanged."""
        r = self.play(c, x, y)
        if r == OK:
            self.undo()
        return r

    def undo(self):
        """Take back the last move; False if there is none."""
        if self.ply == 0:
            return False
        j = self.ply
        self.table[self.slot[j]] = _EMPTY_SLOT  # LIFO, so no later entry probed past it
        self.ply = j - 1
        i = j - 1
        m = self.moves[i]
        c = m >> 10
        p = m & 0x3FF
        b = self.board
        if p == PASS:
            b.ko = self.ko_before[i]
        else:
            self._count_taken(c, self.log_start[i], -1)
            b.unplay(c, p & 31, p >> 5, self.log_start[i], self.ko_before[i])
        self.to_move = self.to_move_at[i]
        self.passes = 0
        k = i - 1
        while k >= 0 and self.moves[k] & 0x3FF == PASS:
            self.passes += 1
            k -= 1
        self.repeat = -1
        return True

    def move(self, i):
        """``(color, x, y)`` of move ``i`` (0-based); x and y are None for a pass."""
        m = self.moves[i]
        p = m & 0x3FF
        if p == PASS:
            return (m >> 10, None, None)
        return (m >> 10, p & 31, p >> 5)

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
        self.board.ko = NO_KO
        self._record_ply()

    def set_to_move(self, c):
        """Say who moves next (after handicap stones White; SGF ``PL``)."""
        self.to_move = c
        if self.ply == 0:
            self._record_ply()

    def place_handicap(self, points):
        """Put free handicap stones on an empty board; White moves next. Raises ValueError."""
        if self.ply or self.board.stones:
            raise ValueError("board not empty")
        if len(points) < 2:
            raise ValueError("a handicap needs at least two stones")
        seen = []
        for xy in points:
            if xy is None or xy in seen:
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
