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

# What a point where the two boards differ is (``_classify``), as bits: a new stone of the
# colour to play, a stone of the other colour where the position has none or another, a
# stone of the position not seen, a point the sensors cannot judge.
_MINE = const(1)
_OTHER = const(2)
_MISSING = const(4)
_UNSURE = const(8)
# Their counts in ``Referee._nc``.
_N_MINE = const(0)
_N_OTHER = const(1)
_N_MISSING = const(2)
_N_UNSURE = const(3)


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


# Viper, both: the whole board's comparison is the referee's look at every frame with a change.
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


@micropython.viper
def _classify(e_buf, s_buf, d_buf, nd: int, c: int, cls_buf, counts_buf):
    # What each of the nd differing points d holds is (_MINE ... for the colour to play c),
    # into cls; the count of each class into counts.
    e = ptr8(e_buf)
    s = ptr8(s_buf)
    d = ptr16(d_buf)
    cls = ptr8(cls_buf)
    counts = ptr16(counts_buf)
    mine = 0
    other = 0
    missing = 0
    unsure = 0
    k = 0
    while k < nd:
        i = d[k]
        want = e[i]
        got = s[i]
        if got == UNSURE:
            bits = _UNSURE
            unsure += 1
        elif want == EMPTY:
            if got == c:
                bits = _MINE
                mine += 1
            else:
                bits = _OTHER
                other += 1
        elif got == EMPTY:
            bits = _MISSING
            missing += 1
        else:
            bits = _MISSING | _OTHER
            missing += 1
            other += 1
        cls[k] = bits
        k += 1
    counts[_N_MINE] = mine
    counts[_N_OTHER] = other
    counts[_N_MISSING] = missing
    counts[_N_UNSURE] = unsure


@micropython.viper
def _lost(before_buf, after_buf, n2: int, out_buf) -> int:
    # The indices of the stones ``before`` has and ``after`` has not (a move's captures),
    # into out; how many.
    b = ptr8(before_buf)
    a = ptr8(after_buf)
    out = ptr16(out_buf)
    k = 0
    i = 0
    while i < n2:
        if b[i] != 0 and a[i] == 0:
            out[k] = i
            k += 1
        i += 1
    return k


@micropython.viper
def _window(states_buf, g: int, seen_buf, n: int, m: int) -> int:
    # The n x n window at (m, m) of the g x g grid's states into seen; the stones outside it.
    st = ptr8(states_buf)
    seen = ptr8(seen_buf)
    outside = 0
    y = 0
    while y < g:
        x = 0
        while x < g:
            v = st[y * g + x]
            if x >= m and x < m + n and y >= m and y < m + n:
                seen[(y - m) * n + x - m] = v
            elif v == BLACK or v == WHITE:
                outside += 1
            x += 1
        y += 1
    return outside


@micropython.viper
def _copy(src_buf, dst_buf, n: int):
    # n bytes from src to dst (a slice assignment in native code allocates its slice).
    src = ptr8(src_buf)
    dst = ptr8(dst_buf)
    i = 0
    while i < n:
        dst[i] = src[i]
        i += 1


@micropython.native
def _codes(buf, count, n):
    # Frame indices (the referee's own, y * n + x) to the point codes every record, the link
    # and the PC use (y << 5 | x), in place: one encoding of a point off the referee.
    k = 0
    while k < count:
        i = buf[k]
        buf[k] = ((i // n) << 5) | (i % n)
        k += 1


def point(i, n):
    """The rules' point code (``y << 5 | x``) of frame index ``i`` (``y * n + x``)."""
    return ((i // n) << 5) | (i % n)


class Referee:
    """Judges one game (Go ``Game`` or ``Gomoku``) against what the board sees.

    ``see`` and ``press`` allocate nothing, whatever they find (tests/test_referee_alloc.py):
    the board's differences, the trial move's captures and the points of every incident go
    through buffers made here, and the methods they run are native (as bytecode their frames
    would be borrowed from the heap on every call)."""

    def __init__(
        self, game, captures=REFUSE, illegal=REFUSE, scatter=_SCATTER, grid=0, log_limit=64
    ):
        self.game = game
        self.go = hasattr(game, "captures")  # Go's Game counts captures; Gomoku has none
        self.n = game.board.size
        n2 = self.n * self.n
        # A smaller game sits in the middle of the grid (Renju's 15x15 on the 19x19 board):
        # ``see`` takes the grid's states and keeps that window; stones outside it are extra.
        self.grid = grid or self.n
        self.margin = (self.grid - self.n) // 2
        self.outside = 0  # stones seen outside the window
        # The board's differences (``_diff``): indices, class bits, the count of each class.
        self._diffs = array("H", bytes(2 * n2))
        self._cls = bytearray(n2)
        self._nd = 0
        self._nc = array("H", bytes(8))
        # The captures of a trial move of the colour to play (``_takes``), for one position.
        self._taken = array("H", bytes(2 * n2))
        self._ntaken = 0
        self._taken_ply = -1
        self._taken_at = -1
        self._after = bytearray(n2)  # the board after a trial move, or before the real one
        self._pts = array("H", bytes(2 * n2))  # the points of an incident being logged
        self._why = array("H", bytes(2 * n2))  # the last refusal's points (``points``)
        self.nwhy = 0
        self.declared = bytearray(n2)  # colour + 1 the players gave, 0 none
        self.ndeclared = 0
        self.captures = captures
        self.illegal = illegal
        self.scatter = scatter
        self.expected = bytearray(n2)  # the game's position, point by point
        self.seen = bytearray(n2)  # the sensors' latest stable states
        self.first = -1  # where this turn's new stone was first seen: the turn's move (落子无悔)
        self.moved = -1  # where it was put down instead (logged once)
        self.turn_ply = game.ply  # the game's ply this turn began at: a new ply, a new turn
        self.fresh = True  # seen this turn with no new stone of the colour to play (then
        # the next one that comes is the turn's first point; one already there is not)
        self.ending = (
            False  # set by the match outside play: before the start, the dead stones, a result
        )
        # A stone of the position moved (移子): from, to (frame indices, -1 none), as the last
        # look found it (``_moved_old``) and as last logged (once).
        self._mv_from = -1
        self._mv_to = -1
        self._old_from = -1
        self._old_to = -1
        self.passed = False  # the last press was a pass (a stone may follow: 先按钟后落子)
        self.late_logged = False
        self.scattered = False
        # The latest incidents (the journal keeps them all); room for a full board's points
        # twice beside a few per incident.
        self.log = inc.Log(log_limit, 4 * log_limit + 2 * self.grid * self.grid)
        self.why = 0  # the incident kind of the last refusal (its points: ``points``)
        self.now = 0
        self.no = 1  # the move number incidents are logged under
        self.sync()

    @property
    def points(self):
        """The last refusal's points, as point codes (``y << 5 | x``); () after a move."""
        return tuple(self._why[k] for k in range(self.nwhy))

    # ---- the two boards ------------------------------------------------------------------

    def sync(self):
        """Take the expected board from the game (after a move, an undo, a setup); a game at
        another ply than this turn's (a move, a pass, an undo, a restore) begins a new turn."""
        _expand(self.game.board.rows, self.n, self.expected)
        if self.game.ply != self.turn_ply:
            self.new_turn()

    @micropython.native
    def new_turn(self):
        """Forget this turn's stone: the next stone of the colour to play is the move. Called
        by ``sync`` when the game moved on; for the match to call when the clock starts (a
        stone put down and lifted before it was no move) or when the arbiter lets a stone
        dropped by accident be taken back (002 第六条1(7))."""
        self.turn_ply = self.game.ply
        self.first = -1
        self.moved = -1
        self._taken_ply = -1  # another position may come back at this ply (an undo)
        # A stone of the colour to play already there (the undone move, captures left on
        # the board under WARN) is not this turn's first point: the turn's stone is watched
        # for once the board has been seen without one.
        self._diff()
        self.fresh = not self._nc[_N_MINE]

    def _move_no(self):
        return self.game.ply + 1

    @micropython.native
    def _diff(self):
        # Compare the expected board with the seen one: the differences in ``_diffs`` (their
        # class bits in ``_cls``, the counts per class in ``_nc``).
        g = self.game
        e = self.expected
        s = self.seen
        d = self._diffs
        nd = _differing(e, s, len(e), d)
        _classify(e, s, d, nd, g.to_move, self._cls, self._nc)
        self._nd = nd
        if not self.go and g.offered:
            self._skip_offered()

    @micropython.native
    def _skip_offered(self):
        # Gomoku's fifth-move offers awaiting White's choice are black stones the position
        # does not have yet, but expected: no difference.
        offered = self.game.offered
        d = self._diffs
        cls = self._cls
        nc = self._nc
        n = self.n
        k = 0
        while k < self._nd:
            i = d[k]
            if self.seen[i] == BLACK and ((i // n) << 5 | (i % n)) in offered:
                if cls[k] & _MINE:
                    nc[_N_MINE] -= 1
                if cls[k] & _OTHER:
                    nc[_N_OTHER] -= 1
                cls[k] = 0
            k += 1

    @micropython.native
    def _first_of(self, bit):
        # The first frame index of a class (-1 if none).
        cls = self._cls
        k = 0
        while k < self._nd:
            if cls[k] & bit:
                return self._diffs[k]
            k += 1
        return -1

    @micropython.native
    def _gather(self, bit, skip, out, at):
        # The frame indices of a class (less those also in ``skip``) into out from ``at``;
        # the new length.
        cls = self._cls
        d = self._diffs
        k = 0
        while k < self._nd:
            b = cls[k]
            if b & bit and not b & skip:
                out[at] = d[k]
                at += 1
            k += 1
        return at

    def diff(self):
        """``(mine, other, missing, unsure)``: frame indices of new stones of the colour to
        play and of the other colour, of position stones not seen (or seen as the other
        colour), and of points the sensors cannot judge. Builds lists: not for the scan loop,
        which reads the buffers ``_diff`` fills."""
        self._diff()
        out = []
        for bit in (_MINE, _OTHER, _MISSING, _UNSURE):
            buf = self._pts
            out.append([buf[k] for k in range(self._gather(bit, 0, buf, 0))])
        return tuple(out)

    @micropython.native
    def see(self, states, now=0):
        """The sensing layer's stable states changed: track this turn's stone, notice a
        disturbed board and its restoration."""
        self.now = now
        self.no = self.game.ply + 1
        self._crop(states)
        self._diff()
        nc = self._nc
        if nc[_N_MISSING] and nc[_N_MINE] == 1 and self.go:
            # Stones the new stone captures are being taken off: not a disturbed board.
            self._takes(self._first_of(_MINE))
            self._not_missing_taken()
        if not self.ending:  # past play (the dead stones lifted, a result) nothing is amiss
            self._judge_board()
        self._track_first()

    @micropython.native
    def _not_missing_taken(self):
        # The stones the trial move takes are not missing (``_takes`` just ran).
        cls = self._cls
        d = self._diffs
        k = 0
        while k < self._nd:
            if cls[k] & _MISSING and self._is_taken(d[k]):
                cls[k] &= ~_MISSING
                self._nc[_N_MISSING] -= 1
            k += 1

    @micropython.native
    def _judge_board(self):
        # What the board shows besides this turn's stone: a moved stone of the position, a
        # stone after a pass, a disturbed board and its restoration.
        nc = self._nc
        self._moved_old()
        f = self._mv_from
        t = self._mv_to
        if f >= 0 and (f != self._old_from or t != self._old_to):
            self._log2(inc.MOVED_OLD, f, t)
        self._old_from = f
        self._old_to = t
        mine = nc[_N_MINE]
        other = nc[_N_OTHER]
        missing = nc[_N_MISSING]
        if self.passed and other == 1 and not mine and not missing and not self.late_logged:
            # The player who just passed puts a stone down: pressed first, placed after
            # (先按钟后落子, 002 第六条1(8)); the arbiter decides, the stone is off for now.
            self.late_logged = True
            self._log(inc.PRESS_FIRST, self._pts, self._gather(_OTHER, 0, self._pts, 0))
        stray = other + missing + self._extra_mine(mine) + self.outside
        if stray >= self.scatter and not self.scattered:
            self.scattered = True
            self._log(inc.SCATTERED, self._pts, self._strays(self._pts))
        elif self.scattered and not stray and not nc[_N_UNSURE]:
            self.scattered = False
            self._log(inc.RESTORED, self._pts, 0)

    @micropython.native
    def _extra_mine(self, mine):
        # New stones of the colour to play beyond those the turn brings: one move, or at
        # Renju's fifth move the N offers Black puts down at once (五手N打, 002 第三条2;
        # ``wants_offers``), so ten offers are a move, not a disturbed board (散乱). The
        # stones past N still count: N + 4 black stones is a board to restore.
        due = 1
        if not self.go and mine > 1 and self.game.wants_offers():
            due = self.game.offers
        return mine - due if mine > due else 0

    @micropython.native
    def offers_down(self):
        """Renju's fifth-move offers in play (五手N打): while Black puts them down, how many
        new black stones are on the board (of ``game.offers`` due); while White chooses, how
        many of the offered stones are still down (White lifts all but the one it keeps).
        -1 at any other time. From the last look (``see``); allocates nothing: the faces
        ask on every pass."""
        if self.go or self.ending:
            return -1
        g = self.game
        offered = g.offered
        if offered:
            n = self.n
            seen = self.seen
            k = 0
            j = 0
            while j < len(offered):
                p = offered[j]
                if seen[(p >> 5) * n + (p & 31)] == BLACK:
                    k += 1
                j += 1
            return k
        if g.wants_offers():
            return self._nc[_N_MINE]
        return -1

    @micropython.native
    def _strays(self, out):
        # The stones of the position missing, then those seen that it does not have (a point
        # with a stone of the other colour is both, and listed once); how many.
        return self._gather(_OTHER, _MISSING, out, self._gather(_MISSING, 0, out, 0))

    @micropython.native
    def _turn(self):
        # This turn's first point (frame index), or -1. A game changed without ``sync`` (at
        # another ply) ended that turn too.
        if self.turn_ply != self.game.ply:
            self.turn_ply = self.game.ply
            self.first = -1
            self.moved = -1
            self.fresh = False
            self._taken_ply = -1
        return self.first

    @micropython.native
    def _track_first(self):
        # The first stable sighting of a new stone of the colour to play on an empty point is
        # this turn's move until a press commits it (落子无悔: 002 第六条1(6), 004 第17条3):
        # lifting it does not undo it, however long it stays in the hand, and a stone put down
        # elsewhere is logged once (拔子) and refused at the press. The missing stones leave
        # out those the new one captures.
        g = self.game
        first = self._turn()
        if self.ending or (not self.go and (g.offered or g.wants_offers())):
            # Past play nothing is a move; Black's fifth-move offers are judged as a set at
            # the press, and while they wait for White the turn is White's choice.
            self.first = -1
            self.moved = -1
            self.fresh = False
            return
        mine = self._nc[_N_MINE]
        if not mine:
            self.fresh = True
        elif mine > 1:
            self.fresh = False  # stones being cleared off (the last game's): none is a move
        if first < 0:
            if mine == 1 and self.fresh and not self._nc[_N_MISSING] and not self.scattered:
                # Only a stone put down on the whole position: one of the position slid onto
                # the point (移子) or knocked there (散乱) is not a new stone.
                self.first = self._first_of(_MINE)
                self.moved = -1
        elif self.seen[first] != g.to_move and mine == 1:
            i = self._first_of(_MINE)
            if i != self.moved:  # lifted, put down elsewhere (拔子)
                self.moved = i
                self._log2(inc.MOVED_NEW, first, i)

    @micropython.native
    def _moved_old(self):
        # ``_mv_from``, ``_mv_to`` when a stone of the position left its point for an empty
        # one (移子): one stone of a colour missing, one of the same colour new, and the new
        # one is not a move that would capture the missing one. -1, -1 otherwise.
        self._mv_from = -1
        self._mv_to = -1
        nc = self._nc
        if nc[_N_MISSING] != 1:
            return
        p = self._first_of(_MISSING)
        c = self.expected[p]
        if self.seen[p] != EMPTY:
            return
        mine = c == self.game.to_move
        if nc[_N_MINE if mine else _N_OTHER] != 1:
            return
        q = self._first_of(_MINE if mine else _OTHER)
        if self.seen[q] != c:
            return
        if self.go and mine:
            self._takes(q)
            if self._is_taken(p):
                return
        self._mv_from = p
        self._mv_to = q

    @micropython.native
    def _takes(self, i):
        # The points a move of the colour to play at frame index i would capture, into
        # ``_taken`` (kept for the position it was asked in): the move is tried on the game
        # and taken back.
        g = self.game
        if self._taken_ply == g.ply and self._taken_at == i:
            return
        self._taken_ply = g.ply
        self._taken_at = i
        self._ntaken = 0
        n = self.n
        if not g.play(g.to_move, i % n, i // n):
            after = self._after
            _expand(g.board.rows, n, after)
            g.undo()
            self._ntaken = _lost(self.expected, after, n * n, self._taken)

    @micropython.native
    def _is_taken(self, i):
        t = self._taken
        k = 0
        while k < self._ntaken:
            if t[k] == i:
                return True
            k += 1
        return False

    def declare(self, i, colour):
        """The players say what is on point ``i`` the sensors cannot judge (a bad sensor):
        EMPTY, BLACK or WHITE, used while the point reads UNCERTAIN; -1 forgets it."""
        self.declared[i] = colour + 1
        self.ndeclared = sum(1 for v in self.declared if v)
        if self.seen[i] == UNSURE or colour < 0:
            self.seen[i] = colour if colour >= 0 else UNSURE

    @micropython.native
    def _crop(self, states):
        if self.grid == self.n:
            _copy(states, self.seen, len(self.seen))
        else:
            self.outside = _window(states, self.grid, self.seen, self.n, self.margin)
        if self.ndeclared:
            self._apply_declared()

    @micropython.native
    def _apply_declared(self):
        # What the players declared stands in for points that read UNCERTAIN.
        d = self.declared
        s = self.seen
        i = 0
        while i < len(s):
            if d[i] and s[i] == UNSURE:
                s[i] = d[i] - 1
            i += 1

    def fixes(self):
        """The guided way back: ``[(frame index, colour wanted), ...]`` for every point where
        the board differs from the position (a new stone of the colour to play excepted)."""
        k = self._fix_points(self._pts)
        return [(self._pts[j], self.expected[self._pts[j]]) for j in range(k)]

    @micropython.native
    def _fix_points(self, out):
        # The frame indices of ``fixes`` into out; how many.
        c = self.game.to_move
        first = self._turn()
        e = self.expected
        s = self.seen
        k = 0
        i = 0
        while i < len(e):
            want = e[i]
            got = s[i]
            if got != want and not (want == EMPTY and got == c and i == first):
                out[k] = i
                k += 1
            i += 1
        return k

    # ---- the press ---------------------------------------------------------------------------

    @micropython.native
    def press(self, side, at):
        """``side`` pressed its paddle at tick ``at``: ACCEPTED (the clock may switch, the move
        is in the game) or REFUSED (``why`` and ``points`` say what to do)."""
        self.now = at
        self.no = self.game.ply + 1
        g = self.game
        why = self._why
        if self.scattered:
            return self._refuse(inc.SCATTERED, self._fix_points(why))
        if not self.go:
            r = self._gomoku_steps(side)
            if r is not None:
                return r
        c = g.to_move
        if side != c:
            return self._refuse(inc.WRONG_COLOUR, 0)
        self._diff()
        nc = self._nc
        self._moved_old()
        if self._mv_from >= 0:
            why[0] = self._mv_from
            why[1] = self._mv_to
            return self._refuse(inc.MOVED_OLD, 2)
        mine = nc[_N_MINE]
        if nc[_N_OTHER] and not mine:
            return self._refuse(inc.WRONG_COLOUR, self._gather(_OTHER, 0, why, 0))
        if mine > 1:
            return self._refuse(inc.TWO_MOVES, self._gather(_MINE, 0, why, 0))
        if not mine:
            if nc[_N_UNSURE]:
                return self._refuse(inc.UNSEEN, self._gather(_UNSURE, 0, why, 0))
            if self._turn() >= 0:  # this turn's stone was lifted: put it back, not a pass
                why[0] = self.first
                return self._refuse(inc.MOVED_NEW, 1)
            if g.play(c, None, None):
                return self._refuse(inc.NO_STONE, 0)
            self._log(inc.PASS, self._pts, 0)
            self._accept()
            self.passed = True
            return ACCEPTED
        return self._play(c, self._first_of(_MINE))

    @micropython.native
    def _play(self, c, i):
        # The press's one new stone at frame index i: legal, its captures off, the move made.
        g = self.game
        why = self._why
        first = self._turn()
        if first >= 0 and i != first:
            why[0] = first
            why[1] = i
            return self._refuse(inc.MOVED_NEW, 2)
        n = self.n
        x = i % n
        y = i // n
        r = g.legal(c, x, y)
        if r:
            if self.illegal == VOID_PASS and not g.play(c, None, None):
                self._log1(inc.ILLEGAL, i, r)
                self._log1(inc.PASS, i, 0)
                return self._accept()
            # A point the rules refuse is no move: the stone comes off and the player
            # chooses again; the turn's stone is watched for once it is off.
            self.first = -1
            self.moved = -1
            self.fresh = False
            why[0] = i
            return self._refuse(inc.ILLEGAL, 1, r)  # with the rules' reason: ko, suicide
        before = self._after
        _copy(self.expected, before, n * n)
        g.play(c, x, y)
        _expand(g.board.rows, n, self.expected)  # not sync: the turn is not over yet
        left = self._still_seen(_lost(before, self.expected, n * n, self._pts))
        if left and self.captures != ALLOW:
            if self.captures == REFUSE:
                g.undo()
                _expand(g.board.rows, n, self.expected)
                k = 0
                while k < left:
                    why[k] = self._pts[k]
                    k += 1
                return self._refuse(inc.CAPTURES_LEFT, left)
            self._log(inc.CAPTURES_LEFT, self._pts, left)
        self._log1(inc.MOVE, i, 0)
        self._diff()  # after the move: its captures are expected off the board
        nc = self._nc
        if (nc[_N_MISSING] or nc[_N_OTHER]) and not left:
            kind = inc.MISSING if nc[_N_MISSING] else inc.EXTRA
            self._log(kind, self._pts, self._strays(self._pts))
        return self._accept()

    @micropython.native
    def _still_seen(self, k):
        # Keep the first k points of ``_pts`` (the stones a move took) that are still seen;
        # how many.
        pts = self._pts
        seen = self.seen
        left = 0
        j = 0
        while j < k:
            v = seen[pts[j]]
            if v == BLACK or v == WHITE:
                pts[left] = pts[j]
                left += 1
            j += 1
        return left

    @micropython.native
    def _gomoku_steps(self, c):
        # Renju's fifth move: Black's N offers at its press, White's kept one at its press
        # (五手N打, 002 第二条10). None when the press is an ordinary move: told here, apart
        # from ``_fifth``, whose comprehensions close over its locals and so make their cells
        # on the heap at every call (32 B a press).
        g = self.game
        if (g.offered and c == WHITE) or (c == BLACK and g.wants_offers()):
            return self._fifth(c)
        return None

    @micropython.native
    def _fifth(self, c):
        # The fifth move's press. Once a game: its lists are allowed to allocate.
        g = self.game
        n = self.n
        if g.offered and c == WHITE:  # White kept one offer and plays move 6 with this press
            kept = [p for p in g.offered if self.seen[(p >> 5) * n + (p & 31)] == BLACK]
            if len(kept) != 1:  # the faces say how many are still down
                for k in range(len(kept)):
                    self._why[k] = (kept[k] >> 5) * n + (kept[k] & 31)
                return self._refuse(inc.OFFERS, len(kept), inc.OFFERS_KEEP)
            g.choose_fifth(kept[0] & 31, kept[0] >> 5)
            self.sync()  # Black 5 is in: White's turn begins
            self._log1(inc.KEPT, (kept[0] >> 5) * n + (kept[0] & 31), 0)
            return None
        if c == BLACK and g.wants_offers():
            mine = self.diff()[0]
            r = g.offer_fifth([(i % n, i // n) for i in mine])
            if r:
                return self._offers_refused(mine)
            for k in range(len(mine)):
                self._pts[k] = mine[k]
            self._log(inc.OFFERS, self._pts, len(mine))
            self.first = -1
            return ACCEPTED
        return None

    def _offers_refused(self, mine):
        # Black's offers (frame indices) refused: too few, too many, or two of one shape;
        # the points of the refusal are the offers, or that shape's (one to move first).
        due = self.game.offers
        why = self._why
        if len(mine) != due:
            for k in range(len(mine)):
                why[k] = mine[k]
            detail = inc.OFFERS_SHORT if len(mine) < due else inc.OFFERS_OVER
            return self._refuse(inc.OFFERS, len(mine), detail)
        from firmware.rules.renju_openings import offer_clashes

        g = self.game
        n = self.n
        black = []
        white = []
        for i in range(n * n):
            if self.expected[i] == BLACK:
                black.append((i % n, i // n))
            elif self.expected[i] == WHITE:
                white.append((i % n, i // n))
        clashes = offer_clashes(black, white, [(i % n, i // n) for i in mine], size=g.size)
        # (No clash and the right number: not a refusal the board can see, its offers being
        # new stones on empty points; all of them, then.)
        same = clashes[0] if clashes else list(range(len(mine)))
        k = 0
        for j in same[1:] + same[:1]:
            why[k] = mine[j]
            k += 1
        return self._refuse(inc.OFFERS, k, inc.OFFERS_SAME)

    @micropython.native
    def _accept(self):
        _expand(self.game.board.rows, self.n, self.expected)
        self.new_turn()
        self.passed = False
        self.late_logged = False
        self._old_from = -1
        self._old_to = -1
        self.why = 0
        self.nwhy = 0
        return ACCEPTED

    @micropython.native
    def _refuse(self, kind, count, detail=0):
        # Refused: the first count frame indices of ``_why`` are the points to show.
        self.why = kind
        self.nwhy = count
        why = self._why
        _codes(why, count, self.n)
        self.log.put(kind, self.no, self.now, why, count, detail)
        return REFUSED

    @micropython.native
    def _log(self, kind, buf, count, detail=0):
        # An incident with the first count frame indices of buf (made point codes in place).
        _codes(buf, count, self.n)
        self.log.put(kind, self.no, self.now, buf, count, detail)

    @micropython.native
    def _log1(self, kind, i, detail):
        self._pts[0] = i
        self._log(kind, self._pts, 1, detail)

    @micropython.native
    def _log2(self, kind, i, j):
        pts = self._pts
        pts[0] = i
        pts[1] = j
        self._log(kind, pts, 2)

    def code(self, i):
        """The point code (``y << 5 | x``, as everywhere off the referee) of frame index ``i``
        of the game's board (``y * n + x``)."""
        return ((i // self.n) << 5) | (i % self.n)

    # ---- the arbiter and the end -------------------------------------------------------------

    def undo(self):
        """The arbiter takes back the last move; ``fixes()`` then guides the board back. The
        incident has the point of the stone to lift (none for a pass)."""
        g = self.game
        if not g.ply:
            return False
        moves = getattr(g, "moves", None)
        p = moves[-1] & 1023 if isinstance(moves, list) else g.point(g.ply - 1)
        if not g.undo():
            return False
        self.no = self._move_no()
        self.sync()  # a new turn: the undone stone still on the board is not its move
        k = 0
        if p != 1023:
            self._pts[0] = (p >> 5) * self.n + (p & 31)
            k = 1
        self._log(inc.UNDO, self._pts, k)
        return True

    @micropython.native
    def placed(self, i):
        """A stone the board was told of (a remote side's move) at frame index ``i``: 1 when
        the one new stone of the colour to play is there and every stone it captures is off
        the board, 0 while not yet, ``-1 - j`` when the new stone is on frame index j instead.
        Reads the look ``see`` just took."""
        nc = self._nc
        if nc[_N_MINE] != 1:
            return 0
        j = self._first_of(_MINE)
        if j != i:
            return -1 - j
        if nc[_N_MISSING] or nc[_N_OTHER] or nc[_N_UNSURE]:
            return 0
        if self.go:
            self._takes(i)
            t = self._taken
            k = 0
            while k < self._ntaken:
                if self.seen[t[k]] != EMPTY:
                    return 0
                k += 1
        return 1

    def captures_left(self):
        """Go, in play: the stones this turn's stone captures that are still on the board
        (frame indices; builds a list, for the PC and the terminal view, not the scan)."""
        i = self._turn()
        if not self.go or self.ending or i < 0 or self.seen[i] != self.game.to_move:
            return []
        self._takes(i)
        return [t for t in self._taken[: self._ntaken] if self.seen[t] != EMPTY]

    def forget_first(self):
        """This turn's stone was put down for a move the board was told of, on the wrong
        point: it is no move (the first-point rule is for a player's own stone), and the next
        stone put down after it is lifted is watched for afresh."""
        self.first = -1
        self.moved = -1
        self.fresh = False

    def dead_stones(self):
        """Go's end: the stones of the position the players have lifted, as ``(x, y)``."""
        n = self.n
        return [
            (i % n, i // n)
            for i in range(len(self.expected))
            if self.expected[i] and self.seen[i] == EMPTY
        ]

    @micropython.native
    def ndead(self):
        """How many stones of the position the players have lifted (``dead_stones``, counted
        without building the list: the faces show it on every pass)."""
        e = self.expected
        s = self.seen
        k = 0
        i = 0
        while i < len(e):
            if e[i] and s[i] == EMPTY:
                k += 1
            i += 1
        return k

    def count(self):
        """Go's end (两遍虚着后): count with the lifted stones dead ([A]'s area count)."""
        from firmware.rules.go_count import count

        dead = self.dead_stones()
        result = count(self.game.board, dead)
        pts = self._pts
        for k in range(len(dead)):
            pts[k] = dead[k][1] * self.n + dead[k][0]
        self._log(inc.COUNT, pts, len(dead))
        return result
