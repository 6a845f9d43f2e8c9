"""A game of Gomoku or Renju: turns, wins, forbidden-move claims and the openings of seed 002.

Seed 002 is 中国五子棋竞赛规则 (2013). Start reading at ``Gomoku.play``. The board
(``gomoku_board.py``) judges shapes; this module adds everything that depends on the game so
far: whose turn it is, the opening procedure (第三条), passes and draws (第十条2, 第十一条1),
claims of forbidden moves and fives (第十条1), and the incidents an arbiter would want kept.

Every change of the game goes through ``_apply`` as one event, kept in ``events``, so that
``undo`` can replay the game without its last event: the opening procedure, the claims and
the incidents all come back exactly as they were.

A move allocates nothing (the referee judges it in the scan loop, where a collection would
stop the clock too): an event is an int ``kind << 12 | arg << 10 | point`` (only the fifth-move
offers, an adjudication and a setup, once a game each, are tuples); ``moves`` and ``events``
are lists made with room for a full board and some passes, which MicroPython keeps when they
are emptied in place; the incidents are packed ints in an array, and the few functions a move
runs through are native, because a bytecode function with more than a few locals gets its
frame from the heap on every call. The fifth-move offers and the designated opening's first
three stones (the opening tables' look-ups) allocate, once a game.
"""

from array import array

import micropython
from micropython import const

from firmware.rules import renju_openings as openings
from firmware.rules.bitboard import new_array
from firmware.rules.coords import GOMOKU_COLUMNS, vertex
from firmware.rules.gomoku_board import (
    BLACK,
    DOUBLE_FOUR,
    DOUBLE_THREE,
    EMPTY,
    FIVE,
    FORBIDDEN_NAMES,
    LONG,
    OVERLINE,
    WHITE,
    GomokuBoard,
)

RENJU = const(0)  # Black: exact five wins, 3-3 / 4-4 / overline forbidden; White: five or more
STANDARD = const(1)  # exactly five for both, nothing forbidden
FREESTYLE = const(2)  # five or more for both
VARIANTS = ("renju", "standard", "freestyle")

CLAIM_AUTO = const(0)  # the board ends the game at a forbidden move or a five at once
CLAIM = const(1)  # RIF practice: nothing is announced until the player claims it
CLAIM_MODES = ("auto", "claim")

OPENING_FREE = const(0)  # 自由开局 (第三条3)
OPENING_DESIGNATED = const(1)  # 指定开局 with 三手可交换 and 五手N打 (第三条2, 第二条9-10)
OPENINGS = ("free", "designated")

# What a request did: 0 done, else why not. MESSAGES has the words for each.
OK = const(0)
OFF_BOARD = const(1)
OCCUPIED = const(2)
GAME_OVER = const(3)
WRONG_TURN = const(4)  # 第六条1(4): a second stone in a row is taken back
NO_PASS_YET = const(5)
NOT_ON_TENGEN = const(6)
NOT_AN_OPENING = const(7)
NO_OFFER_COUNT = const(8)
NO_SWAP_NOW = const(9)
OFFERS_NEEDED = const(10)
BAD_OFFERS = const(11)
SAME_SHAPE = const(12)
NOT_OFFERED = const(13)
CHOOSE_FIRST = const(14)
NOTHING_TO_CLAIM = const(15)
NO_DRAW_OFFER = const(16)
MESSAGES = (
    "ok",
    "off the board",
    "occupied",
    "the game is over",
    "not that colour's turn",
    "no pass in the first five moves (第十一条1(1))",
    "Black 1 must be on H8, 天元: put it there (第六条1(1))",
    "not one of the 26 openings: start the opening again (第六条1(2))",
    "Black must announce the number of fifth-move offers with the opening (第六条1(3))",
    "a swap is allowed once, after Black 3 and before White 4 (三手可交换)",
    "Black 5 is offered as N stones (五手N打): place them all",
    "the offers must be N distinct empty points",
    "two offers give the same shape (五手N打: 不同形): choose another",
    "White keeps one of the offered stones",
    "White must first keep one of the offered stones",
    "nothing to claim",
    "no draw offer to answer",
)

# How a game ended (``reason``) and who won (``winner``: BLACK, WHITE, or DRAW).
DRAW = const(3)
WIN_FIVE = const(1)
WIN_FOUL = const(2)  # Black's forbidden move; ``foul`` says which kind
DRAW_PASSES = const(3)
DRAW_FULL = const(4)
DRAW_AGREED = const(5)
WIN_RESIGN = const(6)
ADJUDICATED = const(7)  # the arbiter's or the clock's decision (timeout, penalties, ...)
REASONS = (
    "",
    "five",
    "forbidden move",
    "both passed",
    "board full",
    "draw agreed",
    "resigned",
    "adjudicated",
)

# Incident kinds, as ``(kind, ply, point, detail)`` tuples in ``incidents``. Kept packed
# (``_K_*``: the index in _KINDS) as ``k << 22 | ply << 12 | point << 2 | detail``, below
# 2**30 so that on the RP2040 every one is a small int.
I_FOUL = "foul"  # a forbidden black move (detail: its kind)
I_FIVE = "five"  # a five made in claim mode, not yet claimed
I_LAPSED = "lapsed"  # White played on: the claim of that foul is lost (第十条1(2))
I_CLAIM = "claim"  # a claim that decided the game
I_FALSE_CLAIM = "false claim"
I_SWAP = "swap"
I_OFFERS = "offers"  # the fifth-move offers (detail: their points)
I_DRAW_OFFER = "draw offer"  # detail: the offering colour
I_DRAW_OFFER_IRREGULAR = (
    "irregular draw offer"  # not right after one's move, or too many (第十条3)
)
I_DRAW_DECLINED = "draw declined"
I_PASS = "pass"
_KINDS = (
    I_FOUL,
    I_FIVE,
    I_LAPSED,
    I_CLAIM,
    I_FALSE_CLAIM,
    I_SWAP,
    I_OFFERS,
    I_DRAW_OFFER,
    I_DRAW_OFFER_IRREGULAR,
    I_DRAW_DECLINED,
    I_PASS,
)
_K_FOUL = const(0)
_K_FIVE = const(1)
_K_LAPSED = const(2)
_K_CLAIM = const(3)
_K_FALSE_CLAIM = const(4)
_K_SWAP = const(5)
_K_OFFERS = const(6)  # its detail, the offered points, is kept as a tuple beside the log
_K_DRAW_OFFER = const(7)
_K_DRAW_OFFER_IRREGULAR = const(8)
_K_DRAW_DECLINED = const(9)
_K_PASS = const(10)
_INCIDENT_ROOM = const(64)  # incidents before the log doubles: passes, fouls, draw offers

PASS = const(1023)  # a point code no point has, as in go_board

_E_PLAY = const(0)
_E_PASS = const(1)
_E_SWAP = const(2)
_E_OFFER = const(3)
_E_CHOOSE = const(4)
_E_CLAIM = const(5)
_E_DRAW_OFFER = const(6)
_E_DRAW_ANSWER = const(7)
_E_RESIGN = const(8)
_E_ADJUDICATE = const(9)
# Events other than _E_OFFER and _E_ADJUDICATE are ints: ``kind << 12 | arg << 10 | point``.
_EV = const(12)
_ARG = const(10)


def _room_list(n):
    # An empty list with room for n items: MicroPython keeps a list's room when it is emptied
    # by ``del a[:]``, so appending up to n items allocates nothing.
    a = [0] * n
    del a[:]
    return a


def point(x, y):
    """The point code of ``(x, y)``, as Go's: ``y << 5 | x``."""
    return (y << 5) | x


def xy(p):
    """``(x, y)`` of a point code."""
    return (p & 31, p >> 5)


def name(p):
    """``H8`` for the centre, ``pass`` for PASS: A–O, no skipped letter."""
    if p == PASS:
        return "pass"
    return vertex(p & 31, p >> 5, GOMOKU_COLUMNS)


class Gomoku:
    """One game of Renju, standard Gomoku or freestyle Gomoku."""

    def __init__(
        self, variant=RENJU, size=15, claims=CLAIM_AUTO, opening=OPENING_FREE, offers=None
    ):
        if variant not in (RENJU, STANDARD, FREESTYLE):
            raise ValueError("unknown variant %r" % (variant,))
        if opening == OPENING_DESIGNATED and size != 15:
            raise ValueError("the designated openings are for the 15x15 board")
        self.variant = variant
        self.claims = claims
        self.opening = opening
        self.board = GomokuBoard(size)
        self.size = size
        room = size * size + 16  # a full board's moves and 16 passes or other events
        self.events = _room_list(room)
        self.moves = _room_list(room)  # ``color << 10 | point`` (or PASS) of every move
        self.overlines = _room_list(4)  # ``ply << 10 | point`` of black overlines (claim mode)
        self._log = new_array("I", _INCIDENT_ROOM)  # the incidents, packed
        self._claim = array("H", (0, 0, 0))  # what ``claimable`` shows: (ply, point, kind)
        self._reset(offers)

    def _reset(self, offers):
        # Back to the empty board; the lists are emptied in place, so they keep their room.
        self.board.clear()
        self.offers = offers  # N of 五手N打, announced with a designated opening
        del self.events[:]
        del self.moves[:]
        del self.overlines[:]
        self.to_move = BLACK
        self.winner = 0
        self.reason = 0
        self.foul = 0  # the forbidden kind when the game was won by a foul
        self._nlog = 0  # incidents in ``_log``
        self._offers_detail = ()  # the detail of the I_OFFERS incident
        self.swapped = False  # the players have exchanged colours (三手可交换)
        self.opening_index = -1  # which of the 26 openings, once Black 3 is down
        self.offered = []  # the fifth-move offers awaiting White's choice
        self.claimable = None  # (ply, point, kind) of the black foul White may still claim
        self.fives = [0, 0, 0]  # per colour: the ply of an unclaimed five (claim mode), or 0
        self.draw_offer = 0  # the colour whose draw offer is open
        self.draw_offers = [0, 0, 0]  # how many each colour has made (第十条3(4))
        self.setup_stones = 0
        self.note = ""  # the words for the last refusal or opening, when there is more to say

    # ---- the state --------------------------------------------------------------------------

    @property
    def ply(self):
        """Moves made (a pass is a move; 第二条1)."""
        return len(self.moves)

    def over(self):
        """True once the game has a result."""
        return self.winner != 0

    @property
    def incidents(self):
        """``[(kind, ply, point, detail), ...]`` of what an arbiter would want kept, oldest
        first (the ``I_*`` kinds); a new list of the packed log, made when asked."""
        out = []
        for i in range(self._nlog):
            w = self._log[i]
            k = w >> 22
            detail = self._offers_detail if k == _K_OFFERS else w & 3
            out.append((_KINDS[k], (w >> 12) & 1023, (w >> 2) & 1023, detail))
        return out

    @micropython.native
    def legal(self, c, x, y):
        """OK, or why colour ``c`` may not put a stone on ``(x, y)`` now.

        A forbidden point is a legal request: playing it is the foul that loses (第十条1(2)).
        """
        if self.winner:
            return GAME_OVER
        return self._check_stone(c, x, y)

    def wants_offers(self):
        """True when Black's next move is the fifth-move offers of 五手N打 (N > 1)."""
        return (
            self.opening == OPENING_DESIGNATED
            and not self.setup_stones
            and len(self.moves) == 4
            and not self.offered
            and bool(self.offers)
            and self.offers > 1
        )

    def opening_name(self):
        """The designated opening's name once Black 3 is down, e.g. ``花月 (Kagetsu)``; "" if none."""
        return openings.name(self.opening_index) if self.opening_index >= 0 else ""

    def forbidden(self, x, y):
        """The forbidden kind of a black stone on empty ``(x, y)`` here, 0 if none (Renju only)."""
        if self.variant != RENJU or self.board.color_at(x, y) != EMPTY:
            return 0
        return self.board.forbidden(x, y)

    def forbidden_points(self):
        """``[(x, y, kind)]`` of Black's forbidden points in this position (Renju only)."""
        if self.variant != RENJU:
            return []
        return self.board.forbidden_points()

    # ---- requests: each is one event --------------------------------------------------------

    @micropython.native
    def play(self, c, x, y):
        """Colour ``c`` puts a stone on ``(x, y)`` (x None: pass); OK or why not."""
        if x is None:
            return self._apply(_E_PASS << _EV | c << _ARG)
        n = self.size
        if not (0 <= x < n and 0 <= y < n):
            return OFF_BOARD
        return self._apply(_E_PLAY << _EV | c << _ARG | y << 5 | x)

    def swap(self):
        """White takes Black after Black 3 (三手可交换): the players exchange colours, once."""
        return self._apply(_E_SWAP << _EV)

    def offer_fifth(self, points):
        """Black's N offers for move 5 (五手N打): ``[(x, y), ...]``; OK or why not."""
        for x, y in points:
            if not (0 <= x < self.size and 0 <= y < self.size):
                return BAD_OFFERS
        return self._apply((_E_OFFER, tuple(point(x, y) for x, y in points)))

    def choose_fifth(self, x, y):
        """White keeps the offer on ``(x, y)`` as Black 5; the other offers are removed."""
        if not (0 <= x < self.size and 0 <= y < self.size):
            return NOT_OFFERED
        return self._apply(_E_CHOOSE << _EV | point(x, y))

    def claim(self, c):
        """Colour ``c`` claims a win: its own unclaimed five, or (White) Black's forbidden move."""
        return self._apply(_E_CLAIM << _EV | c << _ARG)

    def offer_draw(self, c):
        """Colour ``c`` proposes a draw (提和); recorded, irregular offers flagged."""
        return self._apply(_E_DRAW_OFFER << _EV | c << _ARG)

    def answer_draw(self, accept):
        """The other player accepts (a draw) or declines the open draw offer."""
        return self._apply(_E_DRAW_ANSWER << _EV | (1 if accept else 0) << _ARG)

    def resign(self, c):
        """Colour ``c`` resigns."""
        return self._apply(_E_RESIGN << _EV | c << _ARG)

    def adjudicate(self, winner, note=""):
        """An outside decision (timeout, arbiter): ``winner`` BLACK, WHITE or DRAW."""
        return self._apply((_E_ADJUDICATE, winner, note))

    def undo(self):
        """Take back the last event (a move, a swap, the offers, a claim...); False if none."""
        if not self.events:
            return False
        events = self.events[:-1]
        self._reset(self.offers)
        for e in events:
            self._apply(e)
        return True

    def setup(self, black, white, to_move=BLACK):
        """A position of stones with no history (a loaded diagram): the opening is over."""
        self._reset(self.offers)
        for x, y in black:
            self.board.put(BLACK, x, y)
        for x, y in white:
            self.board.put(WHITE, x, y)
        self.setup_stones = len(black) + len(white)
        self.to_move = to_move
        self.events.append(("setup", tuple(black), tuple(white), to_move))

    # ---- the referee ------------------------------------------------------------------------

    @micropython.native
    def _apply(self, e):
        if isinstance(e, int):
            kind = e >> _EV
        else:
            kind = e[0]
            if kind == "setup":
                self.setup(e[1], e[2], e[3])
                return OK
        if self.winner and kind != _E_ADJUDICATE:
            return GAME_OVER
        handler = _HANDLERS[kind]
        r = handler(self, e)
        if r == OK:
            self.events.append(e)
        return r

    def _move_number(self):
        # The number of the next move counting setup stones, for the opening rules.
        return self.setup_stones + len(self.moves) + 1

    @micropython.native
    def _check_stone(self, c, x, y):
        n = self.size
        if not (0 <= x < n and 0 <= y < n):
            return OFF_BOARD
        if self.board.color_at(x, y) != EMPTY:
            return OCCUPIED
        if self.offered:
            return CHOOSE_FIRST
        if c != self.to_move:
            return WRONG_TURN
        if self.opening == OPENING_DESIGNATED and not self.setup_stones:
            return self._check_opening(x, y)
        return OK

    def _check_opening(self, x, y):
        # 第三条2 and 第六条1: the first three stones are one of the 26 openings; Black
        # announces N with it; move 5 is made of N offers.
        k = len(self.moves)
        if k < 3:
            stones = [xy(m & 1023) for m in self.moves]
            stones.append((x, y))
            verdict, self.note = openings.check_opening(*stones, size=self.size)
            if verdict == openings.NOT_TENGEN:
                return NOT_ON_TENGEN
            if verdict:
                return NOT_AN_OPENING
            return OK
        if k == 3 and not self.offers:
            return NO_OFFER_COUNT
        if k == 4 and self.offers and self.offers > 1:
            return OFFERS_NEEDED
        return OK

    @micropython.native
    def _do_play(self, e):
        c = (e >> _ARG) & 3
        p = e & 1023
        r = self._check_stone(c, p & 31, p >> 5)
        if r:
            return r
        self._stone(c, p)
        if self.opening == OPENING_DESIGNATED and len(self.moves) == 3 and not self.setup_stones:
            b1, w2, b3 = [xy(m & 1023) for m in self.moves]
            self.opening_index = openings.identify(b1, w2, b3, self.size)
        return OK

    @micropython.native
    def _stone(self, c, p):
        # Puts the stone down and judges it: five, foul, full board.
        b = self.board
        x = p & 31
        y = p >> 5
        ply = len(self.moves) + 1
        kind = 0
        if c == BLACK and self.variant == RENJU:
            kind = b.forbidden(x, y)  # judged on the empty point, before the stone goes down
        if c == WHITE and self.claimable is not None:
            # 第十条1(2): White placed a stone instead of claiming; only overlines survive.
            self._lapse()
        self.draw_offer = self._decline_on_move(c)
        b.put(c, x, y)
        self.moves.append((c << 10) | p)
        self.to_move = WHITE if c == BLACK else BLACK
        made = b.lines(c, x, y)
        wins = made & FIVE
        if self.variant == FREESTYLE or (self.variant == RENJU and c == WHITE):
            wins = made & (FIVE | LONG)
        if wins:
            if self.claims == CLAIM_AUTO:
                self._end(c, WIN_FIVE)
                return
            if not self.fives[c]:
                self.fives[c] = ply
                self._incident(_K_FIVE, ply, p, c)
        elif kind:
            self._incident(_K_FOUL, ply, p, kind)
            if self.claims == CLAIM_AUTO:
                self.foul = kind
                self._end(WHITE, WIN_FOUL)
                return
            cl = self._claim
            cl[0] = ply
            cl[1] = p
            cl[2] = kind
            self.claimable = cl
            if kind == OVERLINE:
                self.overlines.append(ply << 10 | p)
        if b.full() and not self.winner:
            self._end(DRAW, DRAW_FULL)

    @micropython.native
    def _incident(self, k, ply, p, detail):
        # Log incident kind ``_K_*`` k; the log doubles when full (a game of many passes or
        # draw offers: the one call that allocates).
        n = self._nlog
        log = self._log
        if n == len(log):
            log = new_array("I", 2 * n)
            for i in range(n):
                log[i] = self._log[i]
            self._log = log
        log[n] = k << 22 | ply << 12 | p << 2 | detail
        self._nlog = n + 1

    def _lapse(self):
        # White moved instead of claiming Black's foul: that claim is lost (logged).
        cl = self.claimable
        self._incident(_K_LAPSED, cl[0], cl[1], cl[2])
        self.claimable = None

    def _decline_on_move(self, c):
        # 第十条3(2): a move by the other side declines an open draw offer.
        if self.draw_offer and self.draw_offer != c:
            self._incident(_K_DRAW_DECLINED, len(self.moves), PASS, c)
            return 0
        return self.draw_offer

    @micropython.native
    def _do_pass(self, e):
        c = (e >> _ARG) & 3
        if c != self.to_move:
            return WRONG_TURN
        if self.offered:
            return CHOOSE_FIRST
        if self._move_number() <= 5:
            return NO_PASS_YET
        if c == WHITE and self.claimable is not None:
            self._lapse()
        self.draw_offer = self._decline_on_move(c)
        both = self.moves and self.moves[-1] & 1023 == PASS
        self.moves.append((c << 10) | PASS)
        self._incident(_K_PASS, len(self.moves), PASS, c)
        self.to_move = WHITE if c == BLACK else BLACK
        if both:  # 第十条2(2): both gave up their move in the same round
            self._end(DRAW, DRAW_PASSES)
        return OK

    def _do_swap(self, e):
        if (
            self.opening != OPENING_DESIGNATED
            or self.setup_stones
            or len(self.moves) != 3
            or self.swapped
        ):
            return NO_SWAP_NOW
        self.swapped = True
        self._incident(_K_SWAP, 3, PASS, 0)
        return OK

    def _do_offer(self, e):
        pts = e[1]
        if self.opening != OPENING_DESIGNATED or self.setup_stones or len(self.moves) != 4:
            return NOT_OFFERED
        if self.offered:
            return CHOOSE_FIRST
        if len(pts) != self.offers:
            return OFFERS_NEEDED
        seen = []
        for p in pts:
            x, y = xy(p)
            if p in seen or self.board.color_at(x, y) != EMPTY:
                return BAD_OFFERS
            seen.append(p)
        black = self._stones(BLACK)
        white = self._stones(WHITE)
        offers = [xy(p) for p in pts]
        if openings.offer_clashes(black, white, offers, size=self.size):
            self.note = openings.check_offers(black, white, offers, size=self.size)[1]
            return SAME_SHAPE
        self.offered = list(pts)
        self._offers_detail = tuple(pts)
        self._incident(_K_OFFERS, 5, PASS, 0)
        if len(pts) == 1:
            return self._do_choose(_E_CHOOSE << _EV | pts[0])
        return OK

    def _do_choose(self, e):
        p = e & 1023
        if p not in self.offered:
            return NOT_OFFERED
        self.offered = []
        self._stone(BLACK, p)
        return OK

    @micropython.native
    def _do_claim(self, e):
        c = (e >> _ARG) & 3
        ply = len(self.moves)
        if self.fives[c]:
            self._incident(_K_CLAIM, ply, PASS, c)
            self._end(c, WIN_FIVE)
            return OK
        if c == WHITE:
            cl = self.claimable
            if cl is not None:
                self._incident(_K_CLAIM, cl[0], cl[1], cl[2])
                self.foul = cl[2]
                self._end(WHITE, WIN_FOUL)
                return OK
            if self.overlines:
                first = self.overlines[0]
                self._incident(_K_CLAIM, first >> 10, first & 1023, OVERLINE)
                self.foul = OVERLINE
                self._end(WHITE, WIN_FOUL)
                return OK
        self._incident(_K_FALSE_CLAIM, ply, PASS, c)
        self.events.append(e)  # recorded although nothing changed: an arbiter wants it
        return NOTHING_TO_CLAIM

    @micropython.native
    def _do_draw_offer(self, e):
        c = (e >> _ARG) & 3
        other = WHITE if c == BLACK else BLACK
        self.draw_offers[c] += 1
        # 第十条3(1): offer right after your own move; 3(4): at most two more than the other.
        irregular = self.to_move == c or self.draw_offers[c] > self.draw_offers[other] + 2
        kind = _K_DRAW_OFFER_IRREGULAR if irregular else _K_DRAW_OFFER
        self._incident(kind, len(self.moves), PASS, c)
        self.draw_offer = c
        return OK

    def _do_draw_answer(self, e):
        if not self.draw_offer:
            return NO_DRAW_OFFER
        answer_by = WHITE if self.draw_offer == BLACK else BLACK
        self.draw_offer = 0
        if (e >> _ARG) & 1:
            self._end(DRAW, DRAW_AGREED)
        else:
            self._incident(_K_DRAW_DECLINED, len(self.moves), PASS, answer_by)
        return OK

    def _do_resign(self, e):
        self._end(WHITE if (e >> _ARG) & 3 == BLACK else BLACK, WIN_RESIGN)
        return OK

    def _do_adjudicate(self, e):
        self.winner = 0
        self._end(e[1], ADJUDICATED)
        return OK

    def _end(self, winner, reason):
        self.winner = winner
        self.reason = reason
        self.claimable = None

    def _stones(self, c):
        b = self.board
        n = self.size
        return [(x, y) for y in range(n) for x in range(n) if b.color_at(x, y) == c]

    # ---- words ------------------------------------------------------------------------------

    def result_text(self):
        """``B+`` / ``W+`` / ``Draw`` with the reason, as SGF's RE and for the faces; "" if on."""
        if not self.winner:
            return ""
        if self.winner == DRAW:
            return "Draw (%s)" % REASONS[self.reason]
        side = "B" if self.winner == BLACK else "W"
        if self.reason == WIN_FOUL:
            return "%s+F (%s)" % (side, FORBIDDEN_NAMES[self.foul])
        if self.reason == WIN_RESIGN:
            return "%s+R" % side
        return "%s+ (%s)" % (side, REASONS[self.reason])


_HANDLERS = (
    Gomoku._do_play,
    Gomoku._do_pass,
    Gomoku._do_swap,
    Gomoku._do_offer,
    Gomoku._do_choose,
    Gomoku._do_claim,
    Gomoku._do_draw_offer,
    Gomoku._do_draw_answer,
    Gomoku._do_resign,
    Gomoku._do_adjudicate,
)

# Names the callers use for the forbidden kinds, re-exported so they need one import.
FORBIDDEN = (DOUBLE_THREE, DOUBLE_FOUR, OVERLINE)
