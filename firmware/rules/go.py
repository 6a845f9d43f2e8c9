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

The history has room for ``capacity`` plies (1,024 by default), all allocated with the game,
so no move of a game allocates: not at ply 400 nor at ply 1,000. A move past the room is
refused with ``FULL`` and changes nothing (``undo`` makes room again): a game that long is a
cycle the arbiter ends (000 第二十条三), and a refusal is never a wrong verdict nor a
MemoryError. A repeated position is found by scanning the earlier plies' hashes, newest
first: a viper loop of a few instructions a ply (a new position at ply 1,024: the whole move
0.43 ms on the emulated RP2040, bench/README.md "The chip column"), with no table to grow or
rebuild when the ko rule or the side to move changes.
"""

from array import array

import micropython
from micropython import const

from firmware.rules.bitboard import new_array
from firmware.rules.go_board import (
    BLACK,
    KO_CHECK,
    NO_KO,
    OK,
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
CAPACITY = const(1024)  # plies a game has room for: the longest real games are under 600

# go_board's constants again: viper code folds only constants defined in its own module
# (tests/test_go_history.py checks that the copies agree).
_PASS = const(1023)  # PASS
_SUPERKO = const(5)  # SUPERKO
_FULL = const(6)  # FULL
_ST_KO = const(0)  # ST_KO
_ST_H1 = const(1)  # ST_H1
_ST_H2 = const(2)  # ST_H2
_ST_NLOG = const(4)  # ST_NLOG
_NONE = None  # viper tests ``x is None`` only against a named object

# The history is one array of ``_REC`` words per ply j (the position after j moves; ply 0 is
# the start), each word a small int on the RP2040 (below 2**30):
_H1 = const(0)  # position hash, first key
_H2 = const(1)  # second key
_WORD = const(2)  # the move that made ply j (ply >= 1), in the bits below
_REC = const(3)
# Bits of the word: the point (``y << 5 | x``, or _PASS) in bits 0-9, the colour in 10-11,
# and:
_TAKEN = const(12)  # the stones the move removed (at most 361: 9 bits), from this bit
_WHITE_NEXT = const(0x200000)  # bit 21: White moves after this ply (situational rule, undo)
_KO_LEFT = const(0x400000)  # bit 22: the move left a simple-ko ban. The ban is always its
# only captured stone's point, for the other colour, so undo rebuilds it from the log.


def opponent(c):
    """The other colour."""
    return 3 - c


@micropython.viper
def _seen(h: ptr32, q: int, h1: int, h2: int, white: int, rule: int) -> int:
    # The latest ply whose position is (h1, h2), from the ply whose record starts at word q
    # back to ply 0, and under the situational rule with the same side to move (``white``:
    # 1 if White); -1 if none. Newest first, so the chinese rule's report names the latest,
    # and a ko fight's repeat is found at once. The two words the loop reads all the time
    # come first: compiled for the board (mpy-cross), viper keeps only the first two locals
    # in registers and the others on the stack, a load or store each use, and on the
    # Cortex-M0+ that cost 38 % of this loop (470 -> 290 µs for 1,023 plies, bench/README.md).
    while q >= 0:
        if h[q] == h1 and h[q + _H2] == h2:
            if rule != KO_SITUATIONAL or ((h[q + _WORD] >> 21) & 1) == white:
                return q // _REC
        q -= _REC
    return -1


class Game:
    """Board, move history, ko rule and suicide rule of one game of Go."""

    def __init__(self, size=19, ko_rule=KO_CHINESE, suicide=SUICIDE_FORBID, capacity=CAPACITY):
        self.ko_rule = ko_rule
        self.suicide = suicide
        self.capacity = capacity
        self.board = self._new_board(size)
        self.hist = new_array("I", _REC * (capacity + 1))
        self.ply = 0
        self.clear()

    def _new_board(self, size):
        # The removal log holds every stone the history's moves can take: each was put down
        # by one of them or was a setup stone, so it never has to grow mid-game.
        board = Board(size, self.capacity + size * size)
        # What the board enforces itself: the suicide rule, and simple ko unless there is none.
        board.rule = self.suicide | (KO_CHECK if self.ko_rule != KO_NONE else 0)
        return board

    @property
    def size(self):
        """Board size (lines per side)."""
        return self.board.size

    def clear(self, size=None):
        """Start again on an empty board (of a new ``size`` if given)."""
        if size is not None and size != self.board.size:
            self.board = self._new_board(size)
        self.board.clear()
        self.ply = 0
        self.to_move = BLACK
        self.captures = array("H", [0, 0, 0])  # stones taken by [_, black, white]
        self.repeat = -1
        self.passes = 0
        self.resigned = 0  # the colour that resigned, if one did
        self._restart()

    def _restart(self):
        # Records ply 0: the position with setup stones and the side to move first.
        h = self.hist
        h[_H1], h[_H2] = self.board.hash()
        h[_WORD] = _WHITE_NEXT if self.to_move == WHITE else 0

    def set_ko_rule(self, rule):
        """Change the ko rule (one of ``KO_*``); earlier positions count under the new one."""
        if not 0 <= rule < len(KO_RULES):
            raise ValueError("unknown ko rule %r" % rule)
        self.ko_rule = rule
        self.board.rule = self.suicide | (KO_CHECK if rule != KO_NONE else 0)

    # ---- moves ---------------------------------------------------------------------------

    @micropython.viper
    def play(self, c: int, x, y) -> int:
        """Play colour ``c`` at ``(x, y)`` (``x`` = None passes); return OK or the reason.

        A refused move changes nothing. After a legal move under the ``chinese`` rule,
        ``repeat`` is the ply whose position it recreates (-1 if none): the number of moves
        after which that position stood, for the arbiter (000 第二十条三). With the history
        full (``capacity`` plies) every move, a pass too, is refused with ``FULL``.

        Viper, so that its frame lives on the C stack: a bytecode function with this many
        locals gets its frame from the heap on every call (measured: 224 B a move).
        """
        j = int(self.ply) + 1
        if j > int(self.capacity):
            return _FULL
        b = self.board
        st = ptr32(b.st)
        h = ptr32(self.hist)
        start = st[_ST_NLOG]
        if x is _NONE:  # step 1: a pass is always legal
            st[_ST_KO] = 0
            word = (c << 10) | _PASS
            self.passes = int(self.passes) + 1
            self.repeat = -1
        else:
            ko_word = st[_ST_KO]
            ix = int(x)
            iy = int(y)
            r = int(b.play(c, x, y))  # steps 2–5: on the board, empty, simple ko, suicide
            if r:
                return r
            rule = int(self.ko_rule)
            rep = -1
            if rule >= KO_CHINESE:
                rep = int(_seen(self.hist, (j - 1) * _REC, st[_ST_H1], st[_ST_H2], c & 1, rule))
                if rep >= 0 and rule >= KO_POSITIONAL:  # step 6: superko
                    q = (j - 1) * _REC
                    b.unplay(c, ix, iy, start, ko_word, h[q + _H1], h[q + _H2])
                    return _SUPERKO
            taken = st[_ST_NLOG] - start
            word = (taken << _TAKEN) | (c << 10) | (iy << 5) | ix
            if st[_ST_KO]:
                word |= _KO_LEFT
            self.repeat = rep
            self.passes = 0
            if taken:
                self._count_taken(start, 1)
        if c == 1:  # Black moved: White is next
            word |= _WHITE_NEXT
        q = j * _REC
        h[q + _H1] = st[_ST_H1]
        h[q + _H2] = st[_ST_H2]
        h[q + _WORD] = word
        self.ply = j
        self.to_move = 3 - c
        return 0

    @micropython.viper
    def _count_taken(self, start: int, sign: int):
        # Credits (sign 1) or debits (-1) the stones logged since ``start`` to their captor.
        # A move removes stones of one colour only: the opponent's, or its own in a suicide.
        b = self.board
        caps = ptr16(self.captures)
        i = 3 - (int(ptr16(b.log)[start]) >> 10)
        caps[i] = caps[i] + sign * (int(ptr32(b.st)[_ST_NLOG]) - start)

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
        """Take back the last move; False if there is none. Viper for the reason ``play`` is.

        The position before the move comes back whole from the history: its hash is the
        previous ply's, its ko ban is rebuilt from the previous move's record and the log.
        """
        j = int(self.ply)
        if j == 0:
            return False
        h = ptr32(self.hist)
        q = j * _REC
        word = h[q + _WORD]
        prev = h[q - _REC + _WORD]
        b = self.board
        st = ptr32(b.st)
        start = st[_ST_NLOG] - ((word >> _TAKEN) & 0x1FF)
        ko = 0
        if prev & _KO_LEFT:
            ko = ((3 - ((prev >> 10) & 3)) << 10) | int(ptr16(b.log)[start - 1])
        p = word & 0x3FF
        if p == _PASS:
            st[_ST_KO] = ko
        else:
            if st[_ST_NLOG] != start:
                self._count_taken(start, -1)
            q -= _REC  # the previous ply: the position the move is taken back to
            b.unplay((word >> 10) & 3, p & 31, p >> 5, start, ko, h[q + _H1], h[q + _H2])
        self.ply = j - 1
        self.to_move = 2 if prev & _WHITE_NEXT else 1
        passes = 0
        k = j - 1
        while k > 0 and (h[k * _REC + _WORD] & 0x3FF) == _PASS:
            passes += 1
            k -= 1
        self.passes = passes
        self.repeat = -1
        return True

    def move(self, i):
        """``(color, x, y)`` of move ``i`` (0-based); x and y are None for a pass."""
        word = self.hist[(i + 1) * _REC + _WORD]
        p = word & 0x3FF
        c = (word >> 10) & 3
        if p == _PASS:
            return (c, None, None)
        return (c, p & 31, p >> 5)

    def point(self, i):
        """Move ``i``'s point as every record has it: ``y << 5 | x``, 1023 a pass (no tuple:
        the journal's per-move path allocates nothing)."""
        return self.hist[(i + 1) * _REC + _WORD] & 0x3FF

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
        # The current position now stands with ``c`` to move: what situational superko and
        # undo read.
        r = self.ply * _REC + _WORD
        self.hist[r] = (self.hist[r] & ~_WHITE_NEXT) | (_WHITE_NEXT if c == WHITE else 0)

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
