"""The two-sided game clock: a state machine over exact integer milliseconds.

Start reading at ``Clock.press``. The clock never reads time: every call takes ``now`` (a
tick of ``firmware/clock/ticks.py``) or the paddle's own timestamp, so tests drive it to the
millisecond. A side's state is kept as it was when its turn began (``main``, ``over``,
``left``, ``stage``), and the running turn is one number, the milliseconds it has used
(``elapsed``); ``_spend`` derives everything else from those two, exactly, at any moment. So
a tick only compares the turn's time with its limit, nothing is accumulated per tick, and no
rounding can drift over a game.

States (000 第十四条: paused time is never counted):

    NOT_STARTED --start--> RUNNING(side) <--pause/resume--> PAUSED
    RUNNING --limit reached (tick, press, pause)--> FLAGGED --timeout_to_pass--> RUNNING
    any --finish--> FINISHED

Sides are BLACK (1) and WHITE (2), as in the rules; the per-side arrays keep index 0 unused.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import cues, ticks
from firmware.clock.control import (
    ABSOLUTE,
    BRONSTEIN,
    CANADIAN,
    CHINESE,
    DELAY,
    FISCHER,
    JAPANESE,
    PENALTY,
    SHARED,
    STAGES,
)

BLACK = const(1)
WHITE = const(2)
BOTH = const(3)  # both players absent at the start

NOT_STARTED = const(0)
RUNNING = const(1)
PAUSED = const(2)
FLAGGED = const(3)
FINISHED = const(4)
STATES = ("not started", "running", "paused", "flagged", "finished")

# What a request did: 0 done, else why not.
OK = const(0)
NOT_RUNNING = const(1)  # the clock is not running: not started, paused, flagged, finished
WRONG_SIDE = const(2)  # that paddle's clock is not the one running
LATE = const(3)  # the limit had passed at the press: the side is flagged
NOT_NOW = const(4)  # the request does not fit the state (e.g. timeout_to_pass when not flagged)
FORFEIT = const(5)  # the player arrived after the lateness limit (004 第22条1, 002 第八条5)

# Bits of a face's flags (what the face shows besides the time).
F_RUNNING = const(1)
F_PAUSED = const(2)
F_FLAGGED = const(4)
F_ARBITER = const(8)
F_LOW = const(16)  # the last counted minute or period, or under a minute of plain time
F_COUNTING = const(32)  # byo-yomi, a Canadian block or a penalty period is running

_MINUTE = const(60000)
_LOW_MS = const(60000)
_NEVER = const(1 << 29)  # beyond every limit: ticks compare only within half a period


class Face:
    """What one face shows, independent of the display part (``firmware/ui`` draws it)."""

    def __init__(self):
        self.main_ms = 0  # the time the face counts down: main time, or the current period's
        self.count_s = -1  # counting: seconds used of the current minute/period, else -1
        self.units = -1  # kept minutes or periods left (penalty: periods used), else -1
        self.moves_left = -1  # moves left in a Canadian block or a stage, else -1
        self.move_no = 0  # the number of the move being played
        self.flags = 0
        self.text = bytearray(12)  # the time as shown: h:mm:ss, m:ss, or m:ss.t
        self.length = 0  # bytes of ``text`` in use


def _ints(n):
    return array("i", [0] * n)


class Clock:
    """A game clock for two players under one ``TimeControl``."""

    def __init__(self, control, free_captures=False):
        self.control = control
        self.free_captures = free_captures  # 1988: removing captures in byo-yomi is free
        self.main = _ints(3)  # per side, as its turn began: main time left (ms)
        self.over = _ints(3)  # kept minutes / periods left, or ms left in a block / period
        self.left = _ints(3)  # moves left in a block or stage; penalty periods used
        self.stage = _ints(3)  # 0 main time, 1 overtime; STAGES: the stage index
        self.moves = _ints(3)  # moves committed
        self.spent = _ints(3)  # ms used in committed turns (totals, to the millisecond)
        self.cur = _ints(4)  # _spend's answer: main, over, left, stage
        self.out = _ints(1)  # the moment of a cue, from cues.counting_next
        self.reset()

    def reset(self):
        """Back to the start of the game, the clock not started."""
        tc = self.control
        self.kind = tc.kind
        for s in (BLACK, WHITE):
            self.main[s] = tc.main_ms
            self.over[s] = 0
            self.left[s] = 0
            self.stage[s] = 0
            self.moves[s] = 0
            self.spent[s] = 0
            if self.kind == CHINESE or self.kind == JAPANESE:
                self.over[s] = tc.periods
            elif self.kind == CANADIAN:
                self.over[s] = tc.period_ms
                self.left[s] = tc.moves
            elif self.kind == STAGES:
                self.left[s] = tc.stages[0][1]
        self.state = NOT_STARTED
        self.running = 0  # the side whose time runs
        self.seg = 0  # the tick the current run of that turn started
        self.used = 0  # ms of the turn counted before ``seg`` (runs before a pause)
        self.limit = 0  # the turn's elapsed ms at which the running side flags
        self.flagged = 0
        self.flag_tick = 0
        self.start_tick = 0
        self.absent = 0  # the players not yet at the board (BLACK, WHITE or BOTH bits)
        self.forfeit = 0
        self.arbiter = False
        self.version = 0  # changes with every change of state: the buzzer's cue is stale
        self.cue_tick = 0  # when the cue next_cue returned falls

    # ---- the exact arithmetic -------------------------------------------------------------

    @micropython.native
    def _limit(self, s):
        # The elapsed ms of s's turn at which s flags, from the state its turn began with.
        tc = self.control
        k = self.kind
        m = self.main[s]
        if k == CHINESE or k == JAPANESE:
            return m + self.over[s] * tc.period_ms
        if k == DELAY:
            return m + tc.increment_ms
        if k == CANADIAN:
            return m + tc.period_ms if self.stage[s] == 0 else self.over[s]
        if k == PENALTY:
            if self.stage[s] == 0:
                return m + tc.periods * tc.period_ms
            return self.over[s] + (tc.periods - self.left[s]) * tc.period_ms
        if k == STAGES:
            i = self.stage[s]
            parts = tc.stages
            while parts[i][1] == 0 and i + 1 < len(parts):  # no requirement: flows on
                i += 1
                m += parts[i][0]
        return m

    @micropython.native
    def _spend(self, s, e):
        # self.cur = s's main, over, left, stage after e ms of its turn (e within the limit).
        tc = self.control
        k = self.kind
        m = self.main[s]
        o = self.over[s]
        n = self.left[s]
        st = self.stage[s]
        if k == CHINESE or k == JAPANESE:
            if e < m:
                m -= e
            else:
                o -= (e - m) // tc.period_ms
                m = 0
                st = 1
        elif k == CANADIAN:
            if st:
                o -= e
            elif e < m:
                m -= e
            else:
                o = tc.period_ms - (e - m)
                n = tc.moves
                m = 0
                st = 1
        elif k == PENALTY:
            p = tc.period_ms
            if st == 0 and e < m:
                m -= e
            else:
                if st == 0:  # the first extra period starts as the main time ends
                    e -= m
                    m = 0
                    st = 1
                    o = p
                    n = 1
                if e < o:
                    o -= e
                else:
                    x = e - o
                    n += 1 + x // p
                    o = p - x % p
        elif k == DELAY:
            x = e - tc.increment_ms
            if x > 0:
                m = m - x if x < m else 0
        elif k == STAGES:
            parts = tc.stages
            while e >= m and parts[st][1] == 0 and st + 1 < len(parts):
                e -= m
                st += 1
                m = parts[st][0]
                n = parts[st][1]
            m = m - e if e < m else 0
        else:  # ABSOLUTE, FISCHER, BRONSTEIN, SHARED: one block of time
            m = m - e if e < m else 0
        cur = self.cur
        cur[0] = m
        cur[1] = o if o > 0 else 0
        cur[2] = n
        cur[3] = st

    @micropython.native
    def _commit(self, s, e, move):
        # Ends s's turn after e ms: its new turn-start state, with the per-move rules.
        tc = self.control
        k = self.kind
        self._spend(s, e)
        cur = self.cur
        m = cur[0]
        o = cur[1]
        n = cur[2]
        st = cur[3]
        if move:
            self.moves[s] += 1
            if k == FISCHER:
                m += tc.increment_ms
            elif k == BRONSTEIN:
                m += e if e < tc.increment_ms else tc.increment_ms
            elif k == CANADIAN and st:
                n -= 1
                if n <= 0:  # K committed moves: the block is renewed
                    o = tc.period_ms
                    n = tc.moves
            elif k == STAGES and n > 0:
                n -= 1
                if n == 0 and st + 1 < len(tc.stages):
                    st += 1
                    m += tc.stages[st][0]  # what is left carries on
                    n = tc.stages[st][1]
        self.main[s] = m
        self.over[s] = o
        self.left[s] = n
        self.stage[s] = st
        self.spent[s] += e
        if k == SHARED:
            self.main[3 - s] = m

    @micropython.native
    def elapsed(self, now):
        """Ms the running turn has used at ``now`` (paused time not counted)."""
        if self.state == RUNNING:
            return self.used + ticks.diff(now, self.seg)
        return self.used

    @micropython.native
    def _run(self, s, now):
        # s's turn starts at now.
        self.running = s
        self.seg = now
        self.used = 0
        self.limit = self._limit(s)
        self.version += 1

    @micropython.native
    def _flag(self):
        s = self.running
        self.state = FLAGGED
        self.flagged = s
        self.flag_tick = ticks.add(self.seg, self.limit - self.used)
        self.used = self.limit
        self.version += 1

    # ---- requests ---------------------------------------------------------------------------

    def start(self, now, absent=0):
        """Start the game at ``now``: Black's clock, or the clock of the absent player.

        002 第八条5: if a player is not there, that player's clock is the one that runs, even
        if the other does not move; with both away the arbiter starts Black's.
        """
        if self.state != NOT_STARTED:
            return NOT_NOW
        self.state = RUNNING
        self.start_tick = now
        self.absent = absent
        self._run(WHITE if absent == WHITE else BLACK, now)
        return OK

    @micropython.native
    def press(self, side, at, move=True, free_ms=0):
        """``side`` presses its paddle at tick ``at`` (the paddle's own timestamp).

        ``move`` is False for a press the referee does not count as a move (a press with no
        new stone): the clock still switches, but Canadian blocks and stages count moves.
        ``free_ms`` is time spent removing captures, free in byo-yomi under 1988 rules.
        A press at the instant the limit ends is late (003 第12条): LATE, and the side is flagged.
        """
        if self.state != RUNNING:
            return NOT_RUNNING
        if side != self.running:
            return WRONG_SIDE
        e = self.used + ticks.diff(at, self.seg)
        if e < self.used:  # stamped before the clock last ran (a pause): as at that moment,
            e = self.used
            at = self.seg  # and the other clock starts then too: the pause is nobody's time
        if e >= self.limit:
            self._flag()
            return LATE
        m = self.main[side]
        if free_ms and self.free_captures and e > m:
            k = self.kind
            if k == CHINESE or k == JAPANESE:
                # Only the removal inside byo-yomi is free; removal begun in the main time
                # costs main time up to its end.
                e = e - free_ms if e - free_ms > m else m
        self._commit(side, e, move)
        self._run(3 - side, at)
        return OK

    @micropython.native
    def tick(self, now):
        """Check the running side's limit at ``now``: LATE when its flag just fell, else OK."""
        if self.state == RUNNING and self.used + ticks.diff(now, self.seg) >= self.limit:
            self._flag()
            return LATE
        return OK

    def pause(self, now):
        """Stop the clock (暂停, 000 第十四条); LATE if the limit had already passed."""
        if self.state != RUNNING:
            return NOT_RUNNING
        if self.tick(now):
            return LATE
        self.used += ticks.diff(now, self.seg)
        self.state = PAUSED
        self.version += 1
        return OK

    def resume(self, now):
        """Start the paused clock again at ``now``."""
        if self.state != PAUSED:
            return NOT_NOW
        self.state = RUNNING
        self.seg = now
        self.version += 1
        return OK

    def finish(self, now):
        """The game is over: the running turn's time is kept, the clock stops for good."""
        if self.state == RUNNING:
            self.used += ticks.diff(now, self.seg)
        self.state = FINISHED
        self.version += 1

    def timeout_to_pass(self, now):
        """004 第22条5: a timeout in the last counted minute becomes a pass, at the player's
        request; the same counting goes on (one minute or period kept), the other side runs."""
        k = self.kind
        if self.state != FLAGGED or not (k == CHINESE or k == JAPANESE):
            return NOT_NOW
        s = self.flagged
        self.spent[s] += self.used
        self.main[s] = 0
        self.over[s] = 1
        self.stage[s] = 1
        self.moves[s] += 1  # a pass is a move
        self.flagged = 0
        self.state = RUNNING
        self._run(3 - s, now)
        return OK

    def adjust(self, side, main_ms=-1, units=-1, moves_left=-1, moves=-1, period_ms=-1):
        """The arbiter sets a side's figures; -1 leaves one as it is.

        ``main_ms`` main time; ``units`` kept minutes or Japanese periods left, or penalty
        periods used; ``period_ms`` what is left of a Canadian block or a penalty period;
        ``moves_left`` in a block or stage; ``moves`` the side's move count.

        Only while the clock is not running. The side's current turn is settled first (its
        time so far becomes the turn-start state), so the figures set are what the face shows.
        A flagged side given time is no longer flagged: the clock is then paused.
        """
        if self.state == RUNNING:
            return NOT_NOW
        if side == self.running and self.used:
            self._commit(side, self.used if self.used < self.limit else self.limit, False)
            self.used = 0
        if main_ms >= 0:
            self.main[side] = main_ms
            k = self.kind
            if k == SHARED:
                self.main[3 - side] = main_ms
            elif main_ms > 0 and (k == CHINESE or k == JAPANESE or k == CANADIAN):
                # Main time given back: the side is out of overtime until it runs out again
                # (the face would otherwise show byo-yomi, and a Canadian limit ignore it).
                self.stage[side] = 0
        if units >= 0:
            if self.kind == PENALTY:
                self.left[side] = units
            else:
                self.over[side] = units
        if period_ms >= 0:
            self.over[side] = period_ms
        if moves_left >= 0:
            self.left[side] = moves_left
        if moves >= 0:
            self.moves[side] = moves
        if side == self.running:
            self.limit = self._limit(side)
        if self.state == FLAGGED and side == self.flagged and self.limit > 0:
            self.state = PAUSED
            self.flagged = 0
        self.version += 1
        return OK

    def restore(self, clocks, running, moves=(0, 0)):
        """After a power cut: the clocks as the journal kept them at the last press,
        ``(black main, units, white main, units)``; ``running`` the side to play. The clock
        comes back PAUSED (the players restart it: ``resume``)."""
        self.reset()
        for s in (BLACK, WHITE):
            k = 2 * (s - 1)
            self.main[s] = clocks[k]
            self.over[s] = clocks[k + 1]
            self.moves[s] = moves[s - 1]
            if clocks[k] == 0 and self.kind in (CHINESE, JAPANESE, CANADIAN, PENALTY):
                self.stage[s] = 1  # the main time was gone: in overtime
        self.state = PAUSED
        self.running = running
        self.used = 0
        self.limit = self._limit(running)
        self.version += 1

    def split(self, now):
        """Shared time (共用时限, 002 第八条1): what is left of the pool becomes two halves."""
        if self.kind != SHARED or self.state in (NOT_STARTED, FINISHED, FLAGGED):
            return NOT_NOW
        if self.state == RUNNING and self.tick(now):
            return LATE
        s = self.running
        e = self.elapsed(now)
        half = (self.main[s] - e) // 2
        self.spent[s] += e
        self.main[BLACK] = half
        self.main[WHITE] = half
        self.kind = ABSOLUTE  # from now on
        self._run(s, now)
        return OK

    def arrive(self, side, now, factor=1, limit_ms=0):
        """A late player sits down at ``now`` (002 第八条5, 004 第22条1-3).

        The lateness is taken from the player's time ``factor`` times in all (004: twice);
        what the player's own running clock already took counts. Over ``limit_ms`` (0: no
        limit) the player forfeits: FORFEIT, and the clock is finished.
        """
        if not self.absent & side or self.state == NOT_STARTED:
            return NOT_NOW
        self.absent &= ~side
        late = ticks.diff(now, self.start_tick)
        if limit_ms and late > limit_ms:
            self.forfeit = side
            self.finish(now)
            return FORFEIT
        taken = self.spent[side] + (self.elapsed(now) if self.running == side else 0)
        extra = factor * late - taken
        if extra > 0:
            m = self.main[side] - extra
            self.main[side] = m if m > 0 else 0
            if self.kind == SHARED:
                self.main[3 - side] = self.main[side]
        if side == WHITE and self.running == WHITE and self.moves[BLACK] == 0:
            # White's clock ran for White's absence; Black has the first move.
            self._commit(WHITE, self.elapsed(now), False)
            self._run(BLACK, now)
        elif side == BLACK and self.absent & WHITE and self.moves[BLACK] == 0:
            # Both were away and Black came first: now the absent White's clock runs
            # (002 第八条5: 有一方到场后，则打开对方的表).
            self._commit(BLACK, self.elapsed(now), False)
            self._run(WHITE, now)
        elif side == self.running:
            self.limit = self._limit(side)
        self.version += 1
        return OK

    def penalty_points(self, side):
        """Points ``side`` has lost to penalty periods so far (延時罰點制), at turn start."""
        if self.kind != PENALTY:
            return 0
        return self.left[side] * self.control.points

    # ---- what the buzzer and the faces need ---------------------------------------------

    @micropython.native
    def next_cue(self, now):
        """The next announcement of the running side after ``now`` (0: none); its tick is
        left in ``cue_tick``. Call it again with ``cue_tick`` once the cue has played."""
        if self.state != RUNNING:
            return 0
        s = self.running
        e = self.elapsed(now)
        k = self.kind
        m = self.main[s]
        if k == CHINESE or k == JAPANESE:
            cue = cues.counting_next(
                k == CHINESE, self.control.period_ms, self.over[s], e - m, self.out
            )
            if cue:
                self.cue_tick = ticks.add(self.seg, m + self.out[0] - self.used)
            return cue
        if self.limit > e:
            self.cue_tick = ticks.add(self.seg, self.limit - self.used)
            return cues.FLAG << 8
        return 0

    @micropython.native
    def face(self, side, now, f):
        """Fill the Face ``f`` with what ``side``'s face shows at ``now``."""
        e = self.elapsed(now) if side == self.running else 0
        if self.kind == SHARED:  # one pool: the waiting face shows it running down too
            e = self.elapsed(now)
        if side == self.flagged:
            e = self.used
        self._spend(side, e)
        cur = self.cur
        tc = self.control
        k = self.kind
        m0 = self.main[side]
        flags = 0
        if self.state == RUNNING and side == self.running:
            flags |= F_RUNNING
        if self.state == PAUSED:
            flags |= F_PAUSED
        if side == self.flagged:
            flags |= F_FLAGGED
        if self.arbiter:
            flags |= F_ARBITER
        f.count_s = -1
        f.units = -1
        f.moves_left = -1
        shown = cur[0]
        if cur[3] and (k == CHINESE or k == JAPANESE):
            t = e - m0 if e > m0 else 0
            r = t % tc.period_ms if side != self.flagged else tc.period_ms
            shown = tc.period_ms - r
            f.count_s = r // 1000
            f.units = cur[1]
            flags |= F_COUNTING
            if cur[1] <= 1:
                flags |= F_LOW
        elif cur[3] and k == CANADIAN:
            shown = cur[1]
            f.moves_left = cur[2]
            flags |= F_COUNTING
        elif cur[3] and k == PENALTY:
            shown = cur[1]
            f.units = cur[2]
            flags |= F_COUNTING
        elif k == STAGES and cur[2]:
            f.moves_left = cur[2]
        if shown < _LOW_MS and not flags & F_COUNTING and k != CHINESE and k != JAPANESE:
            if k != CANADIAN and k != PENALTY:  # no overtime follows this time
                flags |= F_LOW
        if side == self.flagged:
            shown = 0
        f.main_ms = shown
        f.flags = flags
        f.move_no = self.moves[BLACK] + self.moves[WHITE] + 1
        f.length = format_time(shown, f.text)


@micropython.native
def format_time(ms, buf):
    """Write ``ms`` as a face shows it into ``buf``; the length. Rounded up, so 0 means the
    time is gone: h:mm:ss from an hour, m:ss below, m:ss.t in the last ten seconds."""
    if ms <= 9900:  # 9.901 … 9.999 s would round up to "0:10.0": those show "0:10"
        t = (ms + 99) // 100
        s = t // 10
        i = _put(buf, 0, 0, 1)
        buf[i] = 58  # ':'
        i = _put(buf, i + 1, s, 2)
        buf[i] = 46  # '.'
        return _put(buf, i + 1, t % 10, 1)
    s = (ms + 999) // 1000
    h = s // 3600
    i = 0
    if h:
        i = _put(buf, 0, h, 1)
        buf[i] = 58
        i = _put(buf, i + 1, (s // 60) % 60, 2)
    else:
        i = _put(buf, 0, s // 60, 1)
    buf[i] = 58
    return _put(buf, i + 1, s % 60, 2)


@micropython.native
def _put(buf, i, v, width):
    # Decimal digits of v, at least ``width`` of them, at buf[i]; the index after them.
    n = 1
    d = 10
    while v >= d:
        n += 1
        d *= 10
    if n < width:
        n = width
    j = i + n - 1
    while j >= i:
        buf[j] = 48 + v % 10
        v //= 10
        j -= 1
    return i + n
