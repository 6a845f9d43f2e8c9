"""What the referee noticed: incident kinds, their words, and a bounded log for the arbiter.

An incident is a tuple ``(kind, move_no, time_ms, points, detail)``: ``points`` a tuple of
point codes (``y << 5 | x``), ``detail`` a small int or "". The words are looked up only
when shown, so logging costs no string building.
"""

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
    SWAP: ("三手交换", "White took Black after move 3 (swap)"),
    FOUL: ("黑方禁手", "Black's forbidden move: White may claim it"),
    CLAIM: ("指出", "a claim that decided the game"),
    FALSE_CLAIM: ("指出无效", "a claim with nothing to claim"),
    NOT_CLEAR: ("请清盘", "clear the board before the game starts"),
}


def words(kind):
    """``(Chinese, English)`` of an incident kind."""
    return WORDS.get(kind, ("", ""))


class Log:
    """The incidents of a game, oldest first; past ``limit`` the oldest are dropped."""

    def __init__(self, limit=400):
        self.limit = limit
        self.items = []
        self.dropped = 0
        self.total = 0  # incidents ever added (the journal forwards the new ones)

    def add(self, kind, move_no, time_ms, points=(), detail=""):
        """Record one incident."""
        if len(self.items) >= self.limit:
            self.items.pop(0)
            self.dropped += 1
        self.items.append((kind, move_no, time_ms, tuple(points), detail))
        self.total += 1

    def last(self):
        """The latest incident, or None."""
        return self.items[-1] if self.items else None

    def kinds(self):
        """The kinds in order (for tests and summaries)."""
        return [i[0] for i in self.items]
