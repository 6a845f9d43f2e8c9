"""Whole games on the clock, checked to the millisecond against the rules computed from the
move times alone.

Each game is planned first: seeded move times (a xorshift generator, so CPython and
MicroPython play the same games), drawn by a profile that sends the slow player into byo-yomi,
blocks or penalty periods and now and then picks the awkward times on purpose (a move that
ends exactly as the main time does, exactly one counted minute, a millisecond before the
limit, exactly at it). Then the game is driven as the app would drive it: the clock is ticked
every 150-849 ms, each press carries the paddle's own timestamp from between two ticks, and the
arbiter pauses once. ``Model`` below is the rules of each control written out from the move
times (what SPEC §3 and the seeds say), sharing nothing with ``firmware/clock``; after every
press the clock's per-side figures, its ``spent`` totals and the face must match it exactly,
the flag must fall at the first tick (or press) at or after the moment the model gives, and
``flag_tick`` must be that moment. At the end the figures are checked once more against
closed forms (total used = sum of the move times, main time left = initial - used +
increments, kept minutes left = initial - full minutes of the counted moves, ...).

The wraparound tests replay games with a tick source that starts just before 2**30 (every
tick made with ``ticks.add``), so the game, and a pause, cross the wrap: nothing may change.
"""

import gc
from array import array

from firmware.clock import cues, ticks
from firmware.clock.clock import (
    BLACK,
    F_COUNTING,
    F_FLAGGED,
    F_PAUSED,
    F_RUNNING,
    FLAGGED,
    LATE,
    OK,
    PAUSED,
    RUNNING,
    WHITE,
    Clock,
    Face,
)
from firmware.clock.control import (
    ABSOLUTE,
    BRONSTEIN,
    CANADIAN,
    CHINESE,
    DELAY,
    FISCHER,
    JAPANESE,
    MINUTE,
    PENALTY,
    PRESETS,
    SHARED,
    STAGES,
    absolute,
)
from tests.support import Rng

SECOND = 1000
COUNTING = (CHINESE, JAPANESE)
OVERTIME = (CHINESE, JAPANESE, CANADIAN, PENALTY)  # the controls with a main time, then more


# ---- the rules, from the move times ----------------------------------------------------------


class Model:
    """What each player has left under one control, by the rules, move by move.

    ``e`` is a turn's time on the clock (paused time not included). Figures are kept as the
    rules speak of them (kept minutes left, ms left in a block, ms used in penalty time, ...)
    and translated into the clock's per-side arrays only by ``figures``.
    """

    def __init__(self, tc):
        self.tc = tc
        self.kind = tc.kind
        m = tc.main_ms
        self.main = [0, m, m]  # main time left (STAGES: see granted)
        self.units = [0, tc.periods, tc.periods]  # kept minutes / periods left
        self.block = [0, tc.period_ms, tc.period_ms]  # Canadian: ms left in the block
        self.block_moves = [0, tc.moves, tc.moves]  # Canadian: moves left in the block
        self.extra = [0, 0, 0]  # penalty: ms used after the main time
        self.stage = [0, 0, 0]  # 1 once the main time is gone; STAGES: the stage
        self.stage_moves = [0, 0, 0]  # STAGES: moves made in the current stage
        self.granted = [0, m, m]  # STAGES: the time of every stage reached
        self.moves = [0, 0, 0]
        self.spent = [0, 0, 0]
        self.pool = m  # SHARED

    def clone(self):
        c = Model(self.tc)
        for name in (
            "main",
            "units",
            "block",
            "block_moves",
            "extra",
            "stage",
            "stage_moves",
            "granted",
            "moves",
            "spent",
        ):
            setattr(c, name, list(getattr(self, name)))
        c.pool = self.pool
        return c

    def in_main(self, s):
        return self.stage[s] == 0

    def limit(self, s):
        """Ms of s's next turn at which s's time is up: a press then is already late."""
        tc = self.tc
        k = self.kind
        if k in COUNTING:
            return self.main[s] + self.units[s] * tc.period_ms
        if k == CANADIAN:
            return self.main[s] + tc.period_ms if self.stage[s] == 0 else self.block[s]
        if k == PENALTY:
            return self.main[s] + tc.periods * tc.period_ms - self.extra[s]
        if k == DELAY:
            return self.main[s] + tc.increment_ms  # the delay runs before the main time
        if k == SHARED:
            return self.pool
        if k == STAGES:
            return self.granted[s] - self.spent[s]
        return self.main[s]

    def commit(self, s, e, move=True, free=0):
        """s pressed after ``e`` ms of its turn (under the limit); ``free`` ms of it, at its end,
        were spent removing captures in byo-yomi (free under the 1988 rules)."""
        tc = self.tc
        k = self.kind
        charged = e
        if k in COUNTING:
            p = tc.period_ms
            if self.stage[s] == 0 and e < self.main[s]:
                self.main[s] -= e
            else:
                counted = e  # what of the turn is counted
                if self.stage[s] == 0:  # the counting starts when the main time ends
                    counted -= self.main[s]
                    self.main[s] = 0
                    self.stage[s] = 1
                free = min(free, counted)  # only the removal inside the counting is free
                counted -= free
                charged -= free
                self.units[s] -= counted // p  # each full minute / period used costs one
        elif k == CANADIAN:
            if self.stage[s] == 0 and e < self.main[s]:
                self.main[s] -= e
            else:
                if self.stage[s] == 0:  # the first block starts when the main time ends
                    self.block[s] = tc.period_ms - (e - self.main[s])
                    self.block_moves[s] = tc.moves
                    self.main[s] = 0
                    self.stage[s] = 1
                else:
                    self.block[s] -= e
                if move:
                    self.block_moves[s] -= 1
                    if self.block_moves[s] == 0:  # K moves made: a new block
                        self.block[s] = tc.period_ms
                        self.block_moves[s] = tc.moves
        elif k == PENALTY:
            if self.stage[s] == 0 and e < self.main[s]:
                self.main[s] -= e
            elif self.stage[s] == 0:
                self.extra[s] = e - self.main[s]
                self.main[s] = 0
                self.stage[s] = 1
            else:
                self.extra[s] += e
        elif k == STAGES:
            parts = tc.stages
            st = self.stage[s]
            if move and parts[st][1]:
                self.stage_moves[s] += 1
                if self.stage_moves[s] == parts[st][1] and st + 1 < len(parts):
                    self.stage[s] = st + 1  # the requirement met: the next stage's time
                    self.granted[s] += parts[st + 1][0]
                    self.stage_moves[s] = 0
        elif k == SHARED:
            self.pool -= e
        elif k == DELAY:
            self.main[s] -= max(0, e - tc.increment_ms)
        else:
            self.main[s] -= e
            if move and k == FISCHER:
                self.main[s] += tc.increment_ms
            elif move and k == BRONSTEIN:
                self.main[s] += min(e, tc.increment_ms)
        if move:
            self.moves[s] += 1
        self.spent[s] += charged

    def timeout_to_pass(self, s, limit):
        """004 第22条5: the timeout becomes a pass; one minute / period is kept."""
        self.spent[s] += limit
        self.moves[s] += 1
        self.main[s] = 0
        self.units[s] = 1
        self.stage[s] = 1

    def figures(self, s):
        """s's (main, over, left, stage) as the clock keeps them (see clock.py)."""
        tc = self.tc
        k = self.kind
        if k in COUNTING:
            return (self.main[s], self.units[s], 0, self.stage[s])
        if k == CANADIAN:
            return (self.main[s], self.block[s], self.block_moves[s], self.stage[s])
        if k == PENALTY:
            if self.stage[s] == 0:
                return (self.main[s], 0, 0, 0)
            p = tc.period_ms
            return (0, p - self.extra[s] % p, self.extra[s] // p + 1, 1)
        if k == STAGES:
            req = tc.stages[self.stage[s]][1]
            left = req - self.stage_moves[s] if req else 0
            return (self.granted[s] - self.spent[s], 0, left, self.stage[s])
        if k == SHARED:
            return (self.pool, 0, 0, 0)
        return (self.main[s], 0, 0, 0)

    def face(self, s, e):
        """(main_ms, count_s, units, moves_left, counting) of s's face after e ms of its turn."""
        tc = self.tc
        k = self.kind
        main0 = self.main[s]
        now = self.clone()
        now.commit(s, e, move=False)
        main, over, left, stage = now.figures(s)
        if k in COUNTING and stage:
            t = e - main0 if e > main0 else 0  # of this turn, in counting
            r = t % tc.period_ms
            return (tc.period_ms - r, r // SECOND, over, -1, True)
        if k == CANADIAN and stage:
            return (over, -1, -1, left, True)
        if k == PENALTY and stage:
            return (over, -1, left, -1, True)
        if k == STAGES and left:
            return (main, -1, -1, left, False)
        return (main, -1, -1, -1, False)


# ---- the games ------------------------------------------------------------------------------

# name, control, seed, most plies, times (s) drawn uniformly per phase:
# ((black lo, hi), (white lo, hi)) in the main time, then the same in overtime
# (byo-yomi, blocks, penalty periods, the last stage), and options:
#   "free": capture removal in byo-yomi is free (1988) and some turns end with some;
#   "nomove": per cent of presses with no new stone (move=False);
#   "passes": timeouts turned into passes (004 第22条5) before a timeout loses;
#   "buzzer": the app also ticks at every cue's moment (``next_cue``), as its buzzer task
#   wakes then: the flag then falls on a tick exactly at the limit.
B = {"buzzer": True}
NONE = ((0, 0), (0, 0))
GAMES = (
    ("cn-national", "cn-national", 11, 300, (((40, 170), (10, 50)), ((5, 75), (5, 55))), {}),
    (
        "cn-national, captures free",
        "cn-national",
        12,
        300,
        (((40, 170), (10, 50)), ((5, 75), (5, 55))),
        {"free": True, "nomove": 2, "buzzer": True},
    ),
    ("cn-local", "cn-local", 13, 300, (((10, 60), (10, 50)), ((5, 65), (5, 62))), {"passes": 3}),
    (
        "cn-local, captures free",
        "cn-local",
        24,
        300,
        (((10, 60), (10, 50)), ((5, 65), (5, 62))),
        {"passes": 2, "free": True, "buzzer": True},
    ),
    ("japanese-5x30", "japanese-5x30", 14, 300, (((20, 60), (10, 50)), ((3, 40), (3, 33))), B),
    ("quick", "quick", 15, 300, (((2, 20), (2, 18)), ((2, 34), (2, 31))), {}),
    ("canadian-25-10", "canadian-25-10", 16, 300, (((20, 70), (10, 40)), ((5, 35), (5, 30))), B),
    ("fischer-30-30", "fischer-30-30", 17, 300, (((10, 80), (5, 60)), NONE), {}),
    ("renju-rif", "renju-rif", 18, 160, (((10, 120), (5, 70)), NONE), B),
    (
        "renju-stages",
        "renju-stages",
        19,
        200,
        (((60, 240), (30, 200)), ((30, 200), (20, 100))),
        {"nomove": 4},
    ),
    ("ing-penalty", "ing-penalty", 20, 300, (((100, 260), (10, 60)), ((60, 200), (10, 60))), B),
    ("shared-2h", "shared-2h", 21, 400, (((5, 60), (5, 60)), NONE), {}),
    ("blitz-delay", "blitz-delay", 22, 400, (((1, 12), (1, 11)), NONE), B),
    ("bronstein-15-10", "bronstein-15-10", 23, 400, (((2, 25), (2, 22)), NONE), {}),
    ("absolute 90 min", None, 24, 400, (((5, 60), (5, 55)), NONE), B),
)


def control(game):
    name = game[1]
    return PRESETS[name] if name else absolute(90 * MINUTE, "absolute 90 min")


def _think(rng, model, s, times, opts):
    """(e, move, free) of s's next turn: the profile's time, or now and then an awkward one."""
    tc = model.tc
    k = model.kind
    over = not model.in_main(s) and (k in COUNTING or k in (CANADIAN, PENALTY, STAGES))
    lo, hi = times[1 if over else 0][s - 1]
    e = rng.between(lo * SECOND, hi * SECOND)
    free = 0
    roll = rng.below(100)
    limit = model.limit(s)
    main = model.main[s]
    if not over and k in OVERTIME and main < 2 * hi * SECOND:
        # The turn that is likely to end the main time.
        if roll < 30:
            e = main  # the main time ends exactly with the press: overtime starts
        elif roll < 80 and opts.get("free"):
            # The stone is placed with a little main time left and the removal of its
            # captures runs on into the counting.
            free = rng.between(1, 80 * SECOND)
            e = main - rng.between(0, min(main, 20 * SECOND)) + free
    elif over and k in COUNTING and roll < 12:
        e = tc.period_ms - (roll & 1)  # one full minute / period (costs one), or 1 ms less
    elif limit <= 2 * MINUTE and roll < 6:
        e = limit - 1  # the latest press that is in time
    elif limit <= 2 * MINUTE and roll < 7:
        e = limit  # exactly at the limit: already late (003 第12条)
    elif over and opts.get("free") and roll < 40:
        free = rng.between(1, 80 * SECOND)  # removing captures, at the end of the turn
        e += free
    move = rng.below(100) >= opts.get("nomove", 0)
    return e, move, free


def plan(game):
    """The game's turns [(side, e, move, free)], and its pause (ply, ms into it, length)."""
    _, _, seed, most, times, opts = game
    rng = Rng(seed)
    model = Model(control(game))
    plies = []
    flagged = []
    passes = opts.get("passes", 0)
    s = BLACK
    while len(plies) < most:
        e, move, free = _think(rng, model, s, times, opts)
        plies.append((s, e, move, free))
        limit = model.limit(s)
        if e >= limit:
            flagged.append(len(plies) - 1)
            if passes and model.kind in COUNTING:
                passes -= 1
                model.timeout_to_pass(s, limit)
            else:
                break  # the flag falls: the game is lost on time
        else:
            model.commit(s, e, move, free)
        s = 3 - s
    # The arbiter's pause: in the second half, in a turn of 5 s or more that is in time.
    ply = len(plies) // 2 + rng.below(len(plies) // 3)
    while plies[ply][1] < 5 * SECOND or ply in flagged:
        ply += 1
    assert ply < len(plies) - 1, (game[0], "no turn for the pause")
    pause = (ply, plies[ply][1] // 2, rng.between(30 * SECOND, 20 * MINUTE))
    return plies, pause


def check_face(clock, model, s, now, e, face, what, running=False):
    clock.face(s, now, face)
    want = model.face(s, e)
    got = (face.main_ms, face.count_s, face.units, face.moves_left, bool(face.flags & F_COUNTING))
    assert got == want, (what, "face", s, got, want)
    assert face.move_no == model.moves[BLACK] + model.moves[WHITE] + 1, (what, face.move_no)
    assert bool(face.flags & F_RUNNING) == running, (what, face.flags)


# What happened in a game, for the trace.
PRESS = 0
FLAG_AT_PRESS = 1  # the press came at or after the limit: LATE
FLAG_AT_TICK = 2  # the first tick after the limit
FLAG_ON_TICK = 3  # a tick exactly at the limit (the buzzer's, at the cue)
PASS = 4  # timeout_to_pass
PAUSE = 5
RESUME = 6


class Trace:
    """The events of a driven game, compact (the unix port's default heap is 2 MB): the real
    ms since the start of each, and what it was."""

    def __init__(self):
        self.t = array("i")
        self.what = bytearray()

    def add(self, t, what):
        self.t.append(t)
        self.what.append(what)

    def count(self, what):
        return len([1 for w in self.what if w == what])

    def first(self, what):
        """The real time of the first event ``what``."""
        for j in range(len(self.what)):
            if self.what[j] == what:
                return self.t[j]
        raise KeyError(what)

    def end(self):
        return self.t[len(self.t) - 1]

    def key(self):
        return (bytes(self.t), bytes(self.what))


def drive(game, base, plies, pause, trace):
    """Play the planned game on a Clock from tick ``base``, checking it against the Model all
    the way; the events go to the Trace ``trace``."""
    name, _, seed, _, _, opts = game
    tc = control(game)
    clock = Clock(tc, free_captures=bool(opts.get("free")))
    model = Model(tc)
    face = Face()
    gaps = Rng(seed * 7919 + 1)
    t = 0  # real ms since the start
    now = base  # the tick source: only ticks.add
    assert clock.start(now) == OK
    i = 0  # the ply being played
    used = 0  # ms of that turn on the clock
    pause_ply, pause_after, pause_len = pause
    resume_at = -1  # real time of the resumption while paused
    flag_real = -1  # real time the current flag fell
    buzzer = opts.get("buzzer")  # the app also wakes at every cue (the buzzer task does)
    cue_real = wake(clock, now, t) if buzzer else -1
    while True:
        last_tick = t
        t_tick = t + gaps.between(150, 849)
        if last_tick < cue_real < t_tick:
            t_tick = cue_real
        # The presses stamped before the next tick, in order (the app handles them first).
        while resume_at < 0 and flag_real < 0 and i < len(plies):
            s, e, move, free = plies[i]
            if t + e - used > t_tick:
                break
            now = ticks.add(now, e - used)
            t += e - used
            limit = model.limit(s)
            r = clock.press(s, now, move, free)
            what = (name, "ply", i, "t", t)
            if e >= limit:
                assert r == LATE, (what, r, e, limit)
                flag_real = t - (e - limit)
                trace.add(flag_real, FLAG_AT_PRESS)
                break
            assert r == OK, (what, r, e, limit)
            trace.add(t, PRESS)
            model.commit(s, e, move, free)
            assert clock.state == RUNNING and clock.running == 3 - s, what
            for side in (BLACK, WHITE):
                assert clock.spent[side] == model.spent[side], (what, side, clock.spent)
                assert clock.moves[side] == model.moves[side], (what, side, clock.moves)
            fig = (clock.main[s], clock.over[s], clock.left[s], clock.stage[s])
            assert fig == model.figures(s), (what, "figures", fig, model.figures(s))
            if model.kind == SHARED:
                assert clock.main[3 - s] == model.pool, what
            check_face(clock, model, s, now, 0, face, what)
            check_cues(clock, now, model.limit(3 - s), what)
            if buzzer:
                cue_real = wake(clock, now, t)
            used = 0
            i += 1
        # The tick.
        if resume_at < 0 and flag_real < 0:
            used += t_tick - t
        now = ticks.add(now, t_tick - t)
        t = t_tick
        assert 0 <= now <= ticks.MASK and now == ticks.add(base, t), (name, "the ticks", t)
        assert ticks.diff(now, base) == t and ticks.diff(base, now) == -t, (name, "ticks", t)
        r = clock.tick(now)
        if flag_real < 0 and resume_at < 0 and i < len(plies):
            s = plies[i][0]
            limit = model.limit(s)
            if used >= limit:  # the first tick at or after the limit
                assert r == LATE, (name, "ply", i, "no flag at", t, used, limit)
                flag_real = t - (used - limit)
                assert last_tick < flag_real <= t, (name, i, "flag late")
                trace.add(flag_real, FLAG_AT_TICK if flag_real < t else FLAG_ON_TICK)
            else:
                assert r == OK, (name, "ply", i, "flag too early at", t, used, limit)
        else:
            assert r == OK, (name, "ply", i, "tick while stopped", r)
        if flag_real >= 0:
            s = plies[i][0]
            assert clock.state == FLAGGED and clock.flagged == s, (name, i, clock.state)
            assert clock.flag_tick == ticks.add(base, flag_real), (name, i, "flag_tick")
            assert clock.elapsed(now) == model.limit(s), (name, i)
            clock.face(s, now, face)
            assert face.main_ms == 0 and face.flags & F_FLAGGED, (name, i, face.main_ms)
            if opts.get("passes") and model.kind in COUNTING and i + 1 < len(plies):
                assert clock.timeout_to_pass(now) == OK, (name, i)
                trace.add(t, PASS)
                model.timeout_to_pass(s, model.limit(s))
                assert clock.spent[s] == model.spent[s], (name, i)
                fig = (clock.main[s], clock.over[s], clock.left[s], clock.stage[s])
                assert fig == model.figures(s), (name, i, "pass", fig, model.figures(s))
                flag_real = -1
                used = 0
                i += 1
                if buzzer:
                    cue_real = wake(clock, now, t)
                continue
            return clock, model, flag_real
        # The arbiter's pause, once, and the resumption.
        if i == pause_ply and resume_at < 0 and used >= pause_after:
            assert clock.pause(now) == OK, (name, "pause", i)
            assert clock.state == PAUSED and clock.elapsed(now) == used, (name, "pause")
            clock.face(plies[i][0], now, face)
            assert face.flags & F_PAUSED, (name, "paused face")
            trace.add(t, PAUSE)
            resume_at = t + pause_len
            pause_ply = -1
        elif resume_at >= 0 and t >= resume_at:
            assert clock.resume(now) == OK, (name, "resume", i)
            trace.add(t, RESUME)
            resume_at = -1
            check_cues(clock, now, model.limit(plies[i][0]) - used, (name, "resume"))
            if buzzer:
                cue_real = wake(clock, now, t)
        elif buzzer and t == cue_real:
            cue_real = wake(clock, now, t)  # the cue played: sleep until the next one
        if resume_at < 0 and i < len(plies) and (t == cue_real or gaps.below(16) == 0):
            # What the faces show now and then, and at every cue (the app redraws them then).
            s = plies[i][0]
            what = (name, "ply", i, "tick", t)
            check_face(clock, model, s, now, used, face, what, running=True)
            check_face(clock, model, 3 - s, now, used if model.kind == SHARED else 0, face, what)
        if i == len(plies) and used > 0:  # the game ended without a flag: look once more
            s = 3 - plies[-1][0]
            check_face(clock, model, s, now, used, face, (name, "end"), running=True)
            idle = used if model.kind == SHARED else 0  # one pool: both faces run down
            check_face(clock, model, 3 - s, now, idle, face, (name, "end"))
            assert clock.elapsed(now) == used, (name, "end")
            return clock, model, -1


def wake(clock, now, t):
    """The real time of the clock's next cue after ``now`` (real ``t``), or -1: when the buzzer
    task would wake and tick the clock."""
    if clock.next_cue(now):
        at = clock.cue_tick
        assert 0 <= at <= ticks.MASK
        return t + ticks.diff(at, now)
    return -1


def check_cues(clock, now, limit, what):
    """The running turn's announcements end exactly at its limit: the TIMEOUT / FLAG cue is
    ``limit`` ms after ``now``, and each cue comes after the one before."""
    at = now
    n = 0
    while True:
        cue = clock.next_cue(at)
        assert cue, (what, "no cue left before the limit")
        assert ticks.diff(clock.cue_tick, at) > 0, (what, "a cue not after the last", n)
        at = clock.cue_tick
        n += 1
        if cues.kind(cue) in (cues.TIMEOUT, cues.FLAG):
            break
        assert n < 200, what
    assert at == ticks.add(now, limit), (what, "the last cue", ticks.diff(at, now), limit)


def closed_form(game, plies, flagged_ply, model):
    """The final figures again, each side's from its own committed move times in one formula."""
    tc = control(game)
    k = tc.kind
    opts = game[5]
    done = plies[:flagged_ply] if flagged_ply >= 0 else plies
    pool_used = 0
    for s in (BLACK, WHITE):
        mine = [(e, move) for side, e, move, _ in done if side == s]
        used = sum([e for e, _ in mine])
        n = len([1 for _, move in mine if move])
        pool_used += used
        if k == CHINESE and opts.get("passes"):
            continue  # a pass resets the kept minutes: the model covers it
        if k in COUNTING:
            # The turn that crosses the end of the main time counts only its part after it,
            # and capture removal inside the counting is free (when the setting says so).
            total = 0
            lost = 0
            free_in = 0
            for side, e, _, free in done:
                if side != s:
                    continue
                if total + e < tc.main_ms:
                    total += e
                    continue
                counted = e - max(0, tc.main_ms - total)
                total = tc.main_ms
                free = min(free, counted)
                free_in += free
                lost += (counted - free) // tc.period_ms
            used -= free_in
        assert model.spent[s] == used, (game[0], s, model.spent[s], used)
        assert model.moves[s] == n, (game[0], s)
        m = tc.main_ms
        main, over, left, stage = model.figures(s)
        if k == ABSOLUTE:
            assert main == m - used
        elif k == FISCHER:
            assert main == m - used + n * tc.increment_ms
        elif k == BRONSTEIN:
            back = sum([min(e, tc.increment_ms) for e, move in mine if move])
            assert main == m - used + back
        elif k == DELAY:
            assert main == m - sum([max(0, e - tc.increment_ms) for e, _ in mine])
        elif k == PENALTY:
            if used < m:
                assert (main, stage) == (m - used, 0)
            else:
                x = used - m
                assert (over, left) == (tc.period_ms - x % tc.period_ms, x // tc.period_ms + 1)
        elif k in COUNTING:
            assert main == max(0, m - used), (game[0], s)
            assert over == tc.periods - lost, (game[0], s, over, tc.periods - lost)
        elif k == STAGES:
            reached = tc.stages[0][0]
            count = 0
            for j in range(1, len(tc.stages)):
                count += tc.stages[j - 1][1]
                if tc.stages[j - 1][1] and n >= count:
                    reached += tc.stages[j][0]
            assert main == reached - used, (game[0], s)
    if k == SHARED:
        assert model.pool == tc.main_ms - pool_used


BASE = 12345  # the tick the unwrapped games start at
_played = {}  # game name -> play(game) at BASE: each test that needs it plays it once


def play(game, base=BASE):
    """Plan and drive ``game`` from tick ``base``: (trace, final figures, plies, pause)."""
    if base == BASE and game[0] in _played:
        return _played[game[0]]
    plies, pause = plan(game)
    trace = Trace()
    clock, model, flag_real = drive(game, base, plies, pause, trace)
    flagged_ply = len(plies) - 1 if flag_real >= 0 else -1
    for s in (BLACK, WHITE):
        assert clock.spent[s] == model.spent[s], (game[0], s, clock.spent[s], model.spent[s])
        assert clock.moves[s] == model.moves[s], (game[0], s)
        fig = (clock.main[s], clock.over[s], clock.left[s], clock.stage[s])
        assert fig == model.figures(s), (game[0], s, fig, model.figures(s))
    closed_form(game, plies, flagged_ply, model)
    final = [clock.state, clock.flagged, clock.flag_tick if flag_real >= 0 else -1]
    for s in (BLACK, WHITE):
        final.append((clock.main[s], clock.over[s], clock.left[s], clock.stage[s]))
        final.append((clock.moves[s], clock.spent[s]))
    if base == BASE:
        _played[game[0]] = (trace, list(final), plies, pause)
        gc.collect()
    return trace, final, plies, pause


# ---- the tests ------------------------------------------------------------------------------


def _game(name):
    for g in GAMES:
        if g[0] == name:
            return g
    raise KeyError(name)


def test_every_control_over_a_whole_game():
    flags = 0
    overtime = 0
    how = {}
    for game in GAMES:
        trace, final, plies, _ = play(game)
        tc = control(game)
        assert trace.count(PAUSE) == trace.count(RESUME) == 1, (game[0], "no pause")
        for w in (FLAG_AT_PRESS, FLAG_AT_TICK, FLAG_ON_TICK):
            how[w] = how.get(w, 0) + trace.count(w)
        if final[0] == FLAGGED:
            flags += 1
        if tc.kind in OVERTIME and final[3][3] + final[5][3]:
            overtime += 1
        assert trace.count(PASS) == game[5].get("passes", 0), game[0]
        hours = trace.end() / 3600000
        assert len(plies) > 60 and hours > 0.25, (game[0], len(plies), hours)
    # The profiles are meant to flag most games and take every overtime control into it.
    assert flags >= 10, flags
    # A flag caught by a press, by a tick after the limit, and by a tick on it (the buzzer's).
    assert how[FLAG_AT_PRESS] >= 3 and how[FLAG_AT_TICK] >= 3 and how[FLAG_ON_TICK] >= 3, how
    assert overtime == len([g for g in GAMES if control(g).kind in OVERTIME]) == 8, overtime


def test_the_awkward_times_are_played():
    # The plans really contain the boundary cases the model and the clock must agree on.
    seen = {}
    for game in GAMES:
        plies, _ = plan(game)
        model = Model(control(game))
        p = model.tc.period_ms
        for s, e, move, free in plies:
            limit = model.limit(s)
            main = model.main[s]
            counting = model.kind in COUNTING and not model.in_main(s)
            ends_main = model.kind in OVERTIME and model.in_main(s) and e == main
            for what, yes in (
                ("the main time ends with the press", ends_main),
                ("one full counted minute or period", counting and e == p),
                ("a millisecond less", counting and e == p - 1),
                ("the latest press in time", e == limit - 1),
                ("a press exactly at the limit", e == limit),
                ("free removal in the counting", counting and free),
                ("free removal begun in the main time", not counting and free and e > main),
                ("... taking over a minute of it", not counting and free and e - main >= p),
                ("a press with no new stone", not move),
            ):
                if yes:
                    seen[what] = seen.get(what, 0) + 1
            if e >= limit:
                if game[5].get("passes"):
                    model.timeout_to_pass(s, limit)
                    continue
                break
            model.commit(s, e, move, free)
    least = {
        "the main time ends with the press": 5,
        "one full counted minute or period": 5,
        "a millisecond less": 5,
        "the latest press in time": 3,
        "a press exactly at the limit": 3,
        "free removal in the counting": 5,
        "free removal begun in the main time": 1,
        "... taking over a minute of it": 1,
        "a press with no new stone": 10,
    }
    for what in least:
        assert seen.get(what, 0) >= least[what], (what, seen.get(what, 0))


def test_a_four_hour_national_game():
    # The headline game: 3 h with the last 5 minutes counted; Black thinks long and counts.
    trace, final, plies, _ = play(_game("cn-national"))
    assert trace.end() > 4 * 3600000, trace.end()
    assert final[3][3] == 1  # Black reached the counting


def test_the_same_games_across_the_tick_wrap():
    # Every tick made with ticks.add from just before 2**30: the game crosses the wrap 5 s
    # in, or deep into the game (overtime for most) with a press exactly on the wrap, or with
    # the arbiter's pause exactly on it; every event and figure must be the same.
    for name in ("cn-national", "canadian-25-10", "ing-penalty", "shared-2h"):
        game = _game(name)
        trace, final, _, _ = play(game)
        j = len(trace.t) * 3 // 4
        assert trace.what[j] == PRESS
        late = trace.t[j]
        paused = trace.first(PAUSE)
        bases = [ticks.add(0, -late), ticks.add(0, -paused)]
        if name == "cn-national":
            bases.append(ticks.PERIOD - 5000)
        for base in bases:
            trace2, final2, _, _ = play(game, base)
            assert trace2.key() == trace.key(), (name, base)
            if final[0] == FLAGGED:  # the flag's tick is the same moment, wrapped
                assert final2[2] == ticks.add(base, ticks.diff(final[2], BASE)), name
                final2[2] = final[2]
            assert final2 == final, (name, base, final2, final)


def test_a_pause_across_the_tick_wrap():
    # The arbiter stops the clock before the wrap and starts it after: no time is lost or won.
    for name in ("japanese-5x30", "fischer-30-30", "cn-local"):
        game = _game(name)
        trace, final, _, _ = play(game)
        start = trace.first(PAUSE)
        end = trace.first(RESUME)
        base = ticks.add(0, -(start + end) // 2)  # the wrap in the middle of the pause
        assert ticks.diff(ticks.add(base, start), 0) < 0 <= ticks.diff(ticks.add(base, end), 0)
        trace2, final2, _, _ = play(game, base)
        assert trace2.key() == trace.key(), name
        if final[0] == FLAGGED:
            final2[2] = final[2]
        assert final2 == final, name


def test_shared_pool_both_faces_show_what_is_left():
    # 共用时限: one pool for both players, so both faces show what is left of it, the idle
    # face too, while the running player uses it.
    clock = Clock(PRESETS["shared-2h"])
    face = Face()
    clock.start(0)
    assert clock.press(BLACK, 40 * SECOND) == OK
    now = 40 * SECOND + 25 * SECOND  # White has used 25 s of the pool
    pool = 2 * 3600000 - 65 * SECOND
    clock.face(WHITE, now, face)
    assert face.main_ms == pool, face.main_ms
    clock.face(BLACK, now, face)
    assert face.main_ms == pool, ("the idle face", face.main_ms, pool)


def test_capture_removal_that_starts_in_main_time_is_free_from_the_counting_on():
    # 1988 rules (a setting): time spent removing captures in byo-yomi is free. Black places a
    # stone with 10 s of main time left and removes a large group for 75 s: the last 65 s of
    # the removal fall in the counting and cost nothing, so no kept minute is lost.
    tc = PRESETS["cn-national"]
    clock = Clock(tc, free_captures=True)
    clock.start(0)
    main = tc.main_ms
    assert clock.press(BLACK, main - 30 * SECOND) == OK  # Black: 30 s of main time left
    t = main - 30 * SECOND + 5 * SECOND
    assert clock.press(WHITE, t) == OK
    e = 95 * SECOND  # 20 s of thought, 75 s of removal: the counting starts 30 s in
    assert clock.press(BLACK, t + e, True, 75 * SECOND) == OK
    assert (clock.main[BLACK], clock.stage[BLACK]) == (0, 1)
    assert clock.over[BLACK] == 5, ("kept minutes", clock.over[BLACK])
    # The same when the removal starts exactly as the counting does.
    clock = Clock(tc, free_captures=True)
    clock.start(0)
    assert clock.press(BLACK, main - 30 * SECOND) == OK
    assert clock.press(WHITE, t) == OK
    assert clock.press(BLACK, t + e, True, 65 * SECOND) == OK  # removal from 30 s to 95 s
    assert clock.over[BLACK] == 5, ("kept minutes", clock.over[BLACK])
