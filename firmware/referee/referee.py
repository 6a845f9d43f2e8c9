"""The referee: the board the sensors see against the game's position, judged at each press.

Start reading at ``Referee.press``. The sensing layer hands over stable point states
(``see``); a clock press (with the paddle's own timestamp) asks the referee to commit the
move, and the answer says whether the clock may switch: ACCEPTED, or REFUSED with the
incident that explains it (``why``, ``points``). Every incident goes to the log with the
move number and the time, for the arbiter. The rules stay in the game object (Go's ``Game``
or ``Gomoku``): the referee only finds the move on the board and asks them.

Rules the board enforces because it sees the stones (SPEC §3, §4):
- captured stones must be off the board before the press (000 第二十三条, 004 第22条6):
  ``captures`` REFUSE (the press is refused), WARN (accepted, logged) or ALLOW;
- an illegal point: the press is refused, or under 004 the move is void and counts as a
  pass with a warning (``illegal`` VOID_PASS);
- a stone lifted and put down elsewhere before the press: the first point counts (002 第六条
  1(6), 004 第17条3), however long the stone was in the hand (``see`` keeps ``first`` for
  the turn); two new stones: the second is taken back (002 第六条1(4));
- a press with no new stone is a pass where the rules allow one, else refused; but once this
  turn's stone was seen, a press without it is refused (put it back), not a pass.
"""

from array import array

import micropython
from micropython import const

from firmware.referee import incidents as inc
from firmware.rules.bitboard import ptr8, ptr16, ptr32

EMPTY = const(0)
BLACK = const(1)
WHITE = const(2)
UNSURE = const(3)  # the sensing layer's UNCERTAIN

ACCEPTED = const(0)
REFUSED = const(1)

REFUSE = const(0)
WARN = const(1)
ALLOW = const(2)
VOID_PASS = const(3)  # 004: an illegal move is void, a pass with a warning

_SCATTER = const(4)  # this many stray differences at once is a disturbed board (散乱)


@micropython.viper
def _expand(rows, n: int, out_buf):
    # The two row-bitboard layers (black rows, then white) as one byte per point, y * n + x.
    r = ptr32(rows)
    out = ptr8(out_buf)
    y = 0
    while y < n:
        b = r[y]
        w = r[n + y]
        x = 0
        while x < n:
            out[y * n + x] = ((b >> x) & 1) | (((w >> x) & 1) << 1)
            x += 1
        y += 1


@micropython.viper
def _differing(e_buf, s_buf, n2: int, out_buf) -> int:
    # The indices where the two boards differ, into out; how many.
    e = ptr8(e_buf)
    s = ptr8(s_buf)
    out = ptr16(out_buf)
    k = 0
    i = 0
    while i < n2:
        if e[i] != s[i]:
            out[k] = i
            k += 1
        i += 1
    return k


def point(i, n):
    """The rules' point code (``y << 5 | x``) of frame index ``i`` (``y * n + x``)."""
    return ((i // n) << 5) | (i % n)


class Referee:
    """Judges one game (Go ``Game`` or ``Gomoku``) against what the board sees."""

    def __init__(
        self, game, captures=REFUSE, illegal=REFUSE, scatter=_SCATTER, grid=0, log_limit=64
    ):
        self.game = game
        self.go = hasattr(game, "captures")  # Go's Game counts captures; Gomoku has none
        self.n = game.board.size
        # A smaller game sits in the middle of the grid (Renju's 15x15 on the 19x19 board):
        # ``see`` takes the grid's states and keeps that window; stones outside it are extra.
        self.grid = grid or self.n
        self.margin = (self.grid - self.n) // 2
        self.outside = 0  # stones seen outside the window
        self._taken_key = None
        self._taken = ()
        self._diffs = array("H", [0] * (self.n * self.n))
        self._after = bytearray(self.n * self.n)  # the board after a trial move
        self.declared = bytearray(self.n * self.n)  # colour + 1 the players gave, 0 none
        self.ndeclared = 0
        self.captures = captures
        self.illegal = illegal
        self.scatter = scatter
        self.expected = bytearray(self.n * self.n)  # the game's position, point by point
        self.seen = bytearray(self.n * self.n)  # the sensors' latest stable states
        self.first = -1  # where this turn's new stone was first seen: the turn's move (落子无悔)
        self.moved = -1  # where it was put down instead (logged once)
        self.turn_ply = game.ply  # the game's ply this turn began at: a new ply, a new turn
        self.fresh = True  # seen this turn with no new stone of the colour to play (then
        # the next one that comes is the turn's first point; one already there is not)
        self.ending = (
            False  # set by the match outside play: before the start, the dead stones, a result
        )
        self.moved_old = ()  # a stone of the position moved (logged once)
        self.passed = False  # the last press was a pass (a stone may follow: 先按钟后落子)
        self.late_logged = False
        self.scattered = False
        self.log = inc.Log(log_limit)  # the latest incidents; the journal keeps them all
        self.why = 0  # the incident kind of the last refusal
        self.points = ()  # and its points, as point codes (y << 5 | x)
        self.now = 0
        self.no = 1  # the move number incidents are logged under
        self.sync()

    # ---- the two boards ------------------------------------------------------------------

    def sync(self):
        """Take the expected board from the game (after a move, an undo, a setup); a game at
        another ply than this turn's (a move, a pass, an undo, a restore) begins a new turn."""
        _expand(self.game.board.rows, self.n, self.expected)
        if self.game.ply != self.turn_ply:
            self.new_turn()

    def new_turn(self):
        """Forget this turn's stone: the next stone of the colour to play is the move. Called
        by ``sync`` when the game moved on; for the match to call when the clock starts (a
        stone put down and lifted before it was no move) or when the arbiter lets a stone
        dropped by accident be taken back (002 第六条1(7))."""
        self.turn_ply = self.game.ply
        self.first = -1
        self.moved = -1
        # A stone of the colour to play already there (the undone move, captures left on
        # the board under WARN) is not this turn's first point: the turn's stone is watched
        # for once the board has been seen without one.
        self.fresh = not self.diff()[0]

    def _move_no(self):
        g = self.game
        return g.ply + 1

    def diff(self):
        """``(mine, other, missing, unsure)``: frame indices of new stones of the colour to
        play and of the other colour, of position stones not seen (or seen as the other
        colour), and of points the sensors cannot judge."""
        c = self.game.to_move
        mine = []
        other = []
        missing = []
        unsure = []
        e = self.expected
        s = self.seen
        offered = self._offered()
        d = self._diffs
        for k in range(_differing(e, s, len(e), d)):
            i = d[k]
            want = e[i]
            got = s[i]
            if got == BLACK and i in offered:
                continue
            if got == UNSURE:
                unsure.append(i)
            elif want == EMPTY:
                (mine if got == c else other).append(i)
            else:
                missing.append(i)
                if got != EMPTY:
                    other.append(i)
        return mine, other, missing, unsure

    def _offered(self):
        # Frame indices of the fifth-move offers awaiting White's choice: black stones the
        # position does not have yet, but expected.
        if self.go or not self.game.offered:
            return ()
        n = self.n
        return [(p >> 5) * n + (p & 31) for p in self.game.offered]

    def see(self, states, now=0):
        """The sensing layer's stable states changed: track this turn's stone, notice a
        disturbed board and its restoration."""
        self.now = now
        self.no = self._move_no()
        self._crop(states)
        mine, other, missing, unsure = self.diff()
        if missing and len(mine) == 1 and self.go:
            # Stones the new stone captures are being taken off: not a disturbed board.
            taken = self._takes(mine[0])
            missing = [i for i in missing if i not in taken]
        if not self.ending:  # past play (the dead stones lifted, a result) nothing is amiss
            self._judge_board(mine, other, missing, unsure)
        self._track_first(mine, missing)

    def _judge_board(self, mine, other, missing, unsure):
        # What the board shows besides this turn's stone: a moved stone of the position, a
        # stone after a pass, a disturbed board and its restoration.
        moved = self._moved_old(mine, other, missing)
        if moved and moved != self.moved_old:
            self._log(inc.MOVED_OLD, moved)
        self.moved_old = moved
        if self.passed and len(other) == 1 and not mine and not missing and not self.late_logged:
            # The player who just passed puts a stone down: pressed first, placed after
            # (先按钟后落子, 002 第六条1(8)); the arbiter decides, the stone is off for now.
            self.late_logged = True
            self._log(inc.PRESS_FIRST, other)
        stray = len(other) + len(missing) + max(0, len(mine) - 1) + self.outside
        if stray >= self.scatter and not self.scattered:
            self.scattered = True
            self._log(inc.SCATTERED, missing + other)
        elif self.scattered and not stray and not unsure:
            self.scattered = False
            self._log(inc.RESTORED, ())

    def _turn(self):
        # This turn's first point (frame index), or -1. A game changed without ``sync`` (at
        # another ply) ended that turn too.
        if self.turn_ply != self.game.ply:
            self.turn_ply = self.game.ply
            self.first = -1
            self.moved = -1
            self.fresh = False
        return self.first

    def _track_first(self, mine, missing):
        # The first stable sighting of a new stone of the colour to play on an empty point is
        # this turn's move until a press commits it (落子无悔: 002 第六条1(6), 004 第17条3):
        # lifting it does not undo it, however long it stays in the hand, and a stone put down
        # elsewhere is logged once (拔子) and refused at the press. ``missing`` leaves out the
        # stones the new one captures.
        g = self.game
        first = self._turn()
        if self.ending or (not self.go and (g.offered or g.wants_offers())):
            # Past play nothing is a move; Black's fifth-move offers are judged as a set at
            # the press, and while they wait for White the turn is White's choice.
            self.first = -1
            self.moved = -1
            self.fresh = False
            return
        if not mine:
            self.fresh = True
        elif len(mine) > 1:
            self.fresh = False  # stones being cleared off (the last game's): none is a move
        if first < 0:
            if len(mine) == 1 and self.fresh and not missing and not self.scattered:
                # Only a stone put down on the whole position: one of the position slid onto
                # the point (移子) or knocked there (散乱) is not a new stone.
                self.first = mine[0]
                self.moved = -1
        elif self.seen[first] != g.to_move:
            if len(mine) == 1 and mine[0] != self.moved:  # lifted, put down elsewhere (拔子)
                self.moved = mine[0]
                self._log(inc.MOVED_NEW, (first, mine[0]))

    def _moved_old(self, mine, other, missing):
        # (from, to) when a stone of the position left its point for an empty one (移子):
        # one stone of a colour missing, one of the same colour new, and the new one is not a
        # move that would capture the missing one.
        if len(missing) != 1:
            return ()
        p = missing[0]
        c = self.expected[p]
        if self.seen[p] != EMPTY:
            return ()
        news = mine if c == self.game.to_move else other
        if len(news) != 1 or self.seen[news[0]] != c:
            return ()
        if self.go and c == self.game.to_move and p in self._takes(news[0]):
            return ()
        return (p, news[0])

    def _takes(self, i):
        # The points a move of the colour to play at frame index i would capture (cached
        # for the position it was asked in): the move is tried on the game and taken back.
        g = self.game
        key = (g.ply, i)
        if self._taken_key != key:
            self._taken_key = key
            self._taken = ()
            n = self.n
            c = g.to_move
            if not g.play(c, i % n, i // n):
                after = self._after
                _expand(g.board.rows, n, after)
                g.undo()
                d = self._diffs
                k = _differing(self.expected, after, n * n, d)
                self._taken = [d[j] for j in range(k) if self.expected[d[j]]]
        return self._taken

    def declare(self, i, colour):
        """The players say what is on point ``i`` the sensors cannot judge (a bad sensor):
        EMPTY, BLACK or WHITE, used while the point reads UNCERTAIN; -1 forgets it."""
        self.declared[i] = colour + 1
        self.ndeclared = sum(1 for v in self.declared if v)
        if self.seen[i] == UNSURE or colour < 0:
            self.seen[i] = colour if colour >= 0 else UNSURE

    def _crop(self, states):
        if self.grid == self.n:
            self.seen[:] = states
            self._apply_declared()
            return
        g = self.grid
        n = self.n
        m = self.margin
        outside = 0
        for i in range(g * g):
            y = i // g - m
            x = i % g - m
            if 0 <= x < n and 0 <= y < n:
                self.seen[y * n + x] = states[i]
            elif states[i] == BLACK or states[i] == WHITE:
                outside += 1
        self.outside = outside
        self._apply_declared()

    def _apply_declared(self):
        # What the players declared stands in for points that read UNCERTAIN.
        if not self.ndeclared:
            return
        d = self.declared
        s = self.seen
        for i in range(len(s)):
            if d[i] and s[i] == UNSURE:
                s[i] = d[i] - 1

    def fixes(self):
        """The guided way back: ``[(frame index, colour wanted), ...]`` for every point where
        the board differs from the position (a new stone of the colour to play excepted)."""
        out = []
        c = self.game.to_move
        first = self._turn()
        for i in range(len(self.expected)):
            want = self.expected[i]
            got = self.seen[i]
            if got != want and not (want == EMPTY and got == c and i == first):
                out.append((i, want))
        return out

    # ---- the press ---------------------------------------------------------------------------

    def press(self, side, at):
        """``side`` pressed its paddle at tick ``at``: ACCEPTED (the clock may switch, the move
        is in the game) or REFUSED (``why`` and ``points`` say what to do)."""
        self.now = at
        self.no = self._move_no()
        g = self.game
        if self.scattered:
            return self._refuse(inc.SCATTERED, [i for i, _ in self.fixes()])
        if not self.go:
            r = self._gomoku_steps(side)
            if r is not None:
                return r
        c = g.to_move
        if side != c:
            return self._refuse(inc.WRONG_COLOUR, ())
        mine, other, missing, unsure = self.diff()
        moved = self._moved_old(mine, other, missing)
        if moved:
            return self._refuse(inc.MOVED_OLD, moved)
        if other and not mine:
            return self._refuse(inc.WRONG_COLOUR, other)
        if len(mine) > 1:
            return self._refuse(inc.TWO_MOVES, mine)
        if not mine:
            if unsure:
                return self._refuse(inc.UNSEEN, unsure)
            if self._turn() >= 0:  # this turn's stone was lifted: put it back, not a pass
                return self._refuse(inc.MOVED_NEW, (self.first,))
            if g.play(c, None, None):
                return self._refuse(inc.NO_STONE, ())
            self._log(inc.PASS, ())
            self._accept()
            self.passed = True
            return ACCEPTED
        i = mine[0]
        first = self._turn()
        if first >= 0 and i != first:
            return self._refuse(inc.MOVED_NEW, (first, i))
        n = self.n
        x = i % n
        y = i // n
        r = g.legal(c, x, y)
        if r:
            if self.illegal == VOID_PASS and not g.play(c, None, None):
                self._log(inc.ILLEGAL, (i,), r)
                self._log(inc.PASS, (i,))
                return self._accept()
            # A point the rules refuse is no move: the stone comes off and the player
            # chooses again; the turn's stone is watched for once it is off.
            self.first = -1
            self.moved = -1
            self.fresh = False
            return self._refuse(inc.ILLEGAL, (i,), r)  # with the rules' reason: ko, suicide
        before = bytes(self.expected)
        g.play(c, x, y)
        _expand(g.board.rows, n, self.expected)  # not sync: the turn is not over yet
        d = self._diffs
        left = []  # the stones the move took that are still seen
        for k in range(_differing(before, self.expected, len(before), d)):
            j = d[k]
            if before[j] and (self.seen[j] == BLACK or self.seen[j] == WHITE):
                left.append(j)
        if left and self.captures != ALLOW:
            if self.captures == REFUSE:
                g.undo()
                _expand(g.board.rows, n, self.expected)
                return self._refuse(inc.CAPTURES_LEFT, left)
            self._log(inc.CAPTURES_LEFT, left)
        self._log(inc.MOVE, (i,))
        after = self.diff()  # after the move: its captures are expected off the board
        other = after[1]
        missing = after[2]
        if (missing or other) and not left:
            self._log(inc.MISSING if missing else inc.EXTRA, missing + other)
        return self._accept()

    def _gomoku_steps(self, c):
        # Renju's fifth move: Black's N offers at its press, White's kept one at its press
        # (五手N打, 002 第二条10). None when the press is an ordinary move.
        g = self.game
        n = self.n
        if g.offered and c == WHITE:  # White kept one offer and plays move 6 with this press
            kept = [p for p in g.offered if self.seen[(p >> 5) * n + (p & 31)] == BLACK]
            if len(kept) != 1:
                return self._refuse(inc.OFFERS, [(p >> 5) * n + (p & 31) for p in g.offered])
            g.choose_fifth(kept[0] & 31, kept[0] >> 5)
            self.sync()  # Black 5 is in: White's turn begins
            self._log(inc.KEPT, ((kept[0] >> 5) * n + (kept[0] & 31),))
            return None
        if c == BLACK and g.wants_offers():
            mine = self.diff()[0]
            r = g.offer_fifth([(i % n, i // n) for i in mine])
            if r:
                return self._refuse(inc.OFFERS, mine)
            self._log(inc.OFFERS, mine)
            self.first = -1
            return ACCEPTED
        return None

    def _accept(self):
        _expand(self.game.board.rows, self.n, self.expected)
        self.new_turn()
        self.passed = False
        self.late_logged = False
        self.moved_old = ()
        self.why = 0
        self.points = ()
        return ACCEPTED

    def _refuse(self, kind, indices, detail=""):
        self.why = kind
        self.points = self._codes(indices)
        self.log.add(kind, self.no, self.now, self.points, detail)
        return REFUSED

    def _log(self, kind, indices, detail=""):
        self.log.add(kind, self.no, self.now, self._codes(indices), detail)

    def _codes(self, indices):
        # Frame indices (the referee's own, y * n + x) as the point codes every record, the
        # link and the PC use (y << 5 | x): one encoding of a point off the referee.
        n = self.n
        return tuple(((i // n) << 5) | (i % n) for i in indices)

    def code(self, i):
        """The point code (``y << 5 | x``, as everywhere off the referee) of frame index ``i``
        of the game's board (``y * n + x``)."""
        return ((i // self.n) << 5) | (i % self.n)

    # ---- the arbiter and the end -------------------------------------------------------------

    def undo(self):
        """The arbiter takes back the last move; ``fixes()`` then guides the board back."""
        if not self.game.undo():
            return False
        self.no = self._move_no()
        self.sync()  # a new turn: the undone stone still on the board is not its move
        self._log(inc.UNDO, ())
        return True

    def dead_stones(self):
        """Go's end: the stones of the position the players have lifted, as ``(x, y)``."""
        n = self.n
        return [
            (i % n, i // n)
            for i in range(len(self.expected))
            if self.expected[i] and self.seen[i] == EMPTY
        ]

    def count(self):
        """Go's end (两遍虚着后): count with the lifted stones dead ([A]'s area count)."""
        from firmware.rules.go_count import count

        dead = self.dead_stones()
        result = count(self.game.board, dead)
        self._log(inc.COUNT, [y * self.n + x for x, y in dead])
        return result
