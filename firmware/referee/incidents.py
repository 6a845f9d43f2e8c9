"""What the referee noticed: incident kinds, their words, and a bounded log for the arbiter.

An incident is ``(kind, move_no, time_ms, points, detail)``: ``points`` point codes
(``y << 5 | x``), ``detail`` a small int (0: none). The log keeps them in preallocated
arrays, not tuples, so logging allocates nothing; the words are looked up only when shown.
"""

from array import array

import micropython
from micropython import const

MOVE = const(1)  # a move committed by a clock press
PASS = const(2)  # a press with no new stone, taken as a pass
CAPTURES_LEFT = const(3)  # captured stones still on the board at the press (000 第二十三条)
ILLEGAL = const(4)  # a stone on a point the rules refuse (detail: the rules' reason)
WRONG_COLOUR = const(5)  # a new stone of the colour not to play
TWO_MOVES = const(6)  # two new stones at once (连走二步, 002 第六条1(4))
MOVED_NEW = const(7)  # this turn's stone lifted and put down elsewhere: the first point counts
MOVED_OLD = const(8)  # a stone of the position moved (移子)
MISSING = const(9)  # stones of the position not seen
EXTRA = const(10)  # stones seen that the position does not have
SCATTERED = const(11)  # too many differences: the board was disturbed (散乱)
RESTORED = const(12)  # the seen board matches the position again
NO_STONE = const(13)  # a press with no new stone where a pass is not allowed
UNSEEN = const(14)  # points the sensors cannot judge (uncertain or bad)
OFFERS = const(15)  # the fifth-move offers seen at Black's press (五手N打)
KEPT = const(16)  # the offer White kept
COUNT = const(17)  # Go: the dead stones lifted, the count made
UNDO = const(18)  # the arbiter took back a move
PRESS_FIRST = const(19)  # pressed, then the stone put down (先按钟后落子, 002 第六条1(8))
DISPUTE = const(20)  # Go: the count disputed, play goes on (以实战解决, 000 第九条)
SWAP = const(21)  # Renju: White took Black after move 3 (三手可交换, 002 第三条2)
FOUL = const(22)  # Renju claim mode: Black's forbidden move, White may claim (002 第十条1)
CLAIM = const(23)  # a claim that decided the game (detail: the claiming colour)
FALSE_CLAIM = const(24)  # a claim with nothing to claim (detail: the claiming colour)
NOT_CLEAR = const(25)  # a start refused: stones on the board the new game does not have
REMOTE = const(26)  # the remote side's move came (an engine, a player elsewhere): put it down
WRONG_POINT = const(27)  # a stone for the remote's move on another point (points: its, this)
REMOTE_DEAD = const(28)  # Go's end: the stones the remote side (an engine) calls dead
COUNT_DIFFERS = const(29)  # the remote side's count differs (points: the stones in question,
# detail: its count in quarter stones, Black positive, as the journal's margins)
POWER_OFF = const(30)  # the board was off and the game resumed (firmware/clock/checkpoint.py:
# detail: the off-time in s << 4, -1 unknown; 8 the turn from its checkpoint, 4 the off-time
# charged to it; the side to play)

# The detail of an OFFERS incident: 0 the offers taken at Black's press; else the press was
# refused, and why: fewer or more stones than Black announced (五手N打, 002 第三条2), two of
# the same shape (不同形, 002 第二条10: its points are that shape's offers, one to move
# first, the one that may stay last), or White pressed without keeping exactly one offer
# (its points: the offered stones still down).
OFFERS_SHORT = const(1)
OFFERS_OVER = const(2)
OFFERS_SAME = const(3)
OFFERS_KEEP = const(4)
OFFERS_WORDS = (
    ("五手N打：打点", "fifth-move offers"),
    ("打点数量不足", "fewer offers than announced"),
    ("打点数量过多", "more offers than announced"),
    ("打点同形：请换一个", "two offers of the same shape: move one"),
    ("白方应只保留一个打点", "White keeps exactly one offer"),
)

WORDS = {
    MOVE: ("着子", "move"),
    PASS: ("虚着（按钟未落子）", "pass (a press with no new stone)"),
    CAPTURES_LEFT: (
        "提子未提清，请先提掉",
        "captured stones still on the board: remove them first",
    ),
    ILLEGAL: ("着手无效", "a move the rules do not allow"),
    WRONG_COLOUR: ("棋子颜色不对", "a stone of the wrong colour"),
    TWO_MOVES: ("连走二步：请收回第二子", "two moves in a row: take the second stone back"),
    MOVED_NEW: (
        "拔子：以第一落点为准，请放回",
        "the stone was moved: the first point counts, put it back",
    ),
    MOVED_OLD: ("移子：请放回原位", "a stone was moved: put it back"),
    MISSING: ("缺子：请放回", "stones missing: put them back"),
    EXTRA: ("多子：请拿掉", "extra stones: take them off"),
    SCATTERED: ("棋局散乱：请按提示复原", "the board is disturbed: restore it as shown"),
    RESTORED: ("棋局已复原", "the board is restored"),
    NO_STONE: ("按钟未落子", "the clock was pressed with no new stone"),
    UNSEEN: ("无法判断的交叉点", "points the board cannot see: check them"),
    OFFERS: ("五手N打：打点", "fifth-move offers"),
    KEPT: ("白方保留的打点", "the offer White kept"),
    COUNT: ("数子", "the count"),
    UNDO: ("裁判悔棋", "the arbiter took a move back"),
    PRESS_FIRST: ("先按钟后落子", "the clock was pressed before the stone was put down"),
    DISPUTE: ("对死活有争议：以实战解决", "the count disputed: play goes on"),
    SWAP: ("三手可交换", "the swap: White took Black after move 3"),
    FOUL: ("黑方禁手", "Black's forbidden move: White may claim it"),
    CLAIM: ("指出", "a claim that decided the game"),
    FALSE_CLAIM: ("指出无效", "a claim with nothing to claim"),
    NOT_CLEAR: ("请清盘", "clear the board before the game starts"),
    REMOTE: ("对方着子：请代为落子", "the remote side's move: put its stone down"),
    WRONG_POINT: ("落点不对：请放到指示的交叉点", "not that point: put the stone where shown"),
    REMOTE_DEAD: ("对方提出的死子", "the stones the remote side calls dead"),
    COUNT_DIFFERS: (
        "双方计算结果不一致",
        "the remote side's count differs from the board's",
    ),
    POWER_OFF: ("断电", "the power was off"),
}


def words(kind, detail=0):
    """``(Chinese, English)`` of an incident kind (an OFFERS refusal's by its ``detail``)."""
    if kind == OFFERS and 0 < detail < len(OFFERS_WORDS):
        return OFFERS_WORDS[detail]
    return WORDS.get(kind, ("", ""))


class Log:
    """The latest incidents of a game, oldest first, held in preallocated rings so that
    adding one allocates nothing (the referee logs from the scan loop): past ``limit``
    incidents, or past ``room`` points in all, the oldest are dropped (the journal keeps them
    all). Readers on the scan loop use the accessors by position (``kind(j)``, ``point(j, k)``
    ...: 0 is the oldest held); ``items`` and ``last()`` build the tuples for the others."""

    def __init__(self, limit=400, room=0):
        self.limit = limit
        self.room = room or 4 * limit  # a few points an incident on average
        self._kind = bytearray(limit)
        self._no = array("H", bytes(2 * limit))
        self._at = array("i", bytes(4 * limit))  # ticks: below 2**30, a small int on the chip
        self._detail = array("h", bytes(2 * limit))
        self._start = array("H", bytes(2 * limit))  # where its points begin in ``_pool``
        self._count = array("H", bytes(2 * limit))
        self._pool = array("H", bytes(2 * self.room))  # the points, a ring in logging order
        self._head = 0  # the slot of the oldest incident
        self._free = 0  # where the next incident's points go in the pool
        self._used = 0  # points held
        self.size = 0  # incidents held
        self.dropped = 0
        self.total = 0  # incidents ever added (the journal forwards the new ones)

    def add(self, kind, move_no, time_ms, points=(), detail=0):
        """Record one incident: ``points`` a sequence of point codes, ``detail`` a small int
        (anything else is kept as 0)."""
        self.put(kind, move_no, time_ms, points, len(points), detail)

    @micropython.native
    def put(self, kind, move_no, time_ms, points, count, detail=0):
        """``add`` with the first ``count`` codes of ``points`` (a preallocated buffer)."""
        room = self.room
        if count > room:  # more points than the whole pool: the first ones
            count = room
        while self.size and (self.size >= self.limit or self._used + count > room):
            self._drop()
        s = (self._head + self.size) % self.limit
        self._kind[s] = kind
        self._no[s] = move_no
        self._at[s] = time_ms
        self._detail[s] = detail if isinstance(detail, int) else 0
        start = self._free
        self._start[s] = start
        self._count[s] = count
        pool = self._pool
        k = 0
        while k < count:
            pool[(start + k) % room] = points[k]
            k += 1
        self._free = (start + count) % room
        self._used += count
        self.size += 1
        self.total += 1

    @micropython.native
    def _drop(self):
        s = self._head
        self._used -= self._count[s]
        self._head = (s + 1) % self.limit
        self.size -= 1
        self.dropped += 1

    @micropython.native
    def first_new(self, seen):
        """The position of the first incident added after the first ``seen`` ever (those
        dropped since are skipped)."""
        j = self.size - (self.total - seen)
        return j if j > 0 else 0

    @micropython.native
    def kind(self, j):
        """The kind of the ``j``-th incident held (0 the oldest)."""
        return self._kind[(self._head + j) % self.limit]

    @micropython.native
    def move_no(self, j):
        """Its move number."""
        return self._no[(self._head + j) % self.limit]

    @micropython.native
    def time_ms(self, j):
        """Its time (ms)."""
        return self._at[(self._head + j) % self.limit]

    @micropython.native
    def detail(self, j):
        """Its detail (0: none)."""
        return self._detail[(self._head + j) % self.limit]

    @micropython.native
    def npoints(self, j):
        """How many points it has."""
        return self._count[(self._head + j) % self.limit]

    @micropython.native
    def point(self, j, k):
        """Its ``k``-th point code."""
        s = (self._head + j) % self.limit
        return self._pool[(self._start[s] + k) % self.room]

    def points(self, j):
        """Its point codes as a tuple (allocates)."""
        return tuple(self.point(j, k) for k in range(self.npoints(j)))

    def item(self, j):
        """The ``j``-th incident as a tuple ``(kind, move_no, time_ms, points, detail)``."""
        return (self.kind(j), self.move_no(j), self.time_ms(j), self.points(j), self.detail(j))

    @property
    def items(self):
        """Every incident held, oldest first, as tuples (allocates: not for the scan loop)."""
        return [self.item(j) for j in range(self.size)]

    def last(self):
        """The latest incident as a tuple, or None."""
        return self.item(self.size - 1) if self.size else None

    def kinds(self):
        """The kinds in order (for tests and summaries)."""
        return [self.kind(j) for j in range(self.size)]
