"""One game in progress at the board: the rules, the clock, the referee and the sensing, joined.

Start reading at ``Match.press``. Everything here is pure: frames, presses and ticks come in
with their own times, so the app (``firmware/game/app.py``) and the tests drive it the same way.
The data flows one way (DESIGN.md): frame → sensing → referee (the seen board) → on a press,
referee → rules → clock → journal. A press the referee refuses leaves the clock running, and
the refusal's incident is what the faces and the buzzer report.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import control
from firmware.clock.clock import LATE, OK, Clock
from firmware.game.settings import NAMES
from firmware.referee import incidents as inc
from firmware.referee.referee import ACCEPTED, REFUSE, Referee
from firmware.rules.go_board import BLACK, WHITE

# What a press did (``Match.press``).
MOVED = const(0)  # a move (or a pass) committed, the clock switched
REFUSED = const(1)  # the referee refused it: ``match.referee.why`` / ``points`` say why
IGNORED = const(2)  # the clock is not running for that side (paused, over, the other side)
TIMEOUT = const(3)  # the side's time had run out before the press
CONFIRMED = const(4)  # Go's count on the faces: the press confirmed it for that side

# Where the game is in its life (``Match.phase``).
PLAY = const(0)  # before the start (the clock says NOT_STARTED) and during play
DEAD = const(1)  # Go: both passed; the players lift the dead stones (000 第九条)
COUNTED = const(2)  # Go: the count is on the faces until both players confirm it
OVER = const(3)  # a result: it stays on the faces until the next game
PHASES = ("play", "dead stones", "counted", "over")

GAMES = ("go19", "go13", "go9", "renju", "standard", "freestyle")  # or "go" with "size"
# The settings of a game besides what the journal's header has fields for: kept in its
# ``extra`` so that a game resumed after a power cut is played on by its own rules.
_EXTRA = ("ko", "claims", "offers", "free_captures", "captures", "late_factor", "remote")
# Who plays, and where (set from the PC before the game: ``tengen game``, a hall's pairing):
# kept whole in the header's ``extra`` (``_fit_extra``), and given back to a game resumed
# after a power cut (``settings_of``). They belong to that one game: the board's settings
# drop them once it starts (firmware/game/app.py ``start``).
NAME_KEYS = NAMES  # firmware/game/settings.py's list

_JOURNAL_POINTS = const(40)  # an incident's points passed without a tuple (live.py's limit)

# Why a game ended, as the journal keeps it (``journal.result``'s ``reason``).
END_RESIGN = const(1)
END_TIME = const(2)
END_COUNT = const(3)  # Go's area count: margin in half points
END_RULES = const(4)  # Gomoku: a five, a foul, a draw by the rules; Go: a second warning
END_ARBITER = const(5)  # the arbiter declared it


def new_game(settings):
    """The rules object for ``settings`` (see ``Match``)."""
    kind = settings.get("game", "go19")
    if kind.startswith("go"):
        from firmware.rules.go import KO_RULES, Game

        size = int(kind[2:]) if len(kind) > 2 else settings.get("size", 19)  # "go19" or "go"
        game = Game(size, ko_rule=KO_RULES.index(settings.get("ko", "chinese")))
        handicap = settings.get("handicap", 0)
        if handicap >= 2:
            from firmware.rules.go import fixed_handicap

            game.place_handicap(fixed_handicap(game.size, handicap))
        return game
    from firmware.rules import gomoku

    return gomoku.Gomoku(
        gomoku.VARIANTS.index(kind),
        claims=gomoku.CLAIM_MODES.index(settings.get("claims", "auto")),
        opening=gomoku.OPENINGS.index(opening_of(settings)),
        offers=settings.get("offers"),
    )


def opening_of(settings):
    """The opening a Gomoku game is played with: the ``opening`` setting for Renju; always
    "free" for standard and freestyle Gomoku, because the designated opening brings the swap,
    the fifth-move offers and the forbidden moves with it (002 第四条1: "在采用指定开局时 …
    应执行三手交换和五手 N 打及禁手规则"), which those games do not have."""
    if settings.get("game") != "renju":
        return "free"
    return settings.get("opening", "free")


class Match:
    """A game at the board. ``settings``: ``game`` (one of GAMES), ``time`` (a preset name of
    ``firmware/clock/control.py``), and optionally ``ko``, ``handicap``, ``komi2``,
    ``claims``, ``opening``, ``offers``, ``captures`` (the referee's setting), ``free_captures``.
    ``sensing`` is a ``firmware.sensing.grid.Sensing`` for the whole grid; ``journal``
    anything with the ``firmware/store`` journal's methods, or None."""

    def __init__(self, settings, sensing, journal=None):
        self.settings = dict(settings)  # the game's own: a later change of the board's is not
        settings = self.settings
        self.game = new_game(settings)
        self.clock = Clock(
            control.lookup(settings.get("time", "cn-local")) or control.PRESETS["cn-local"],
            free_captures=settings.get("free_captures", False),
        )
        self.sensing = sensing
        self.referee = Referee(
            self.game, captures=settings.get("captures", REFUSE), grid=sensing.n
        )
        self.referee.ending = True  # not in play before the start: the last game's stones
        self.journal = journal
        self.result = ""  # how the game ended, once it has: "B+R", "W+T", "B+3.5" ...
        self.phase = PLAY
        self.counted = None  # Go's count on the faces: (margin in quarter stones, Count)
        self.dead = []  # the stones counted dead (point codes), once counted
        self.confirmed = 0  # the sides (bits 1, 2) that confirmed the count
        self.frames = 0
        self.journaled = 0  # referee incidents already in the journal
        # What the journal is given per move and per incident, filled in place: the press's
        # pass allocates nothing (tests/test_app_alloc.py, with the journal on LittleFS).
        self._clocks = array("i", (0, 0, 0, 0))
        self._points = array("H", bytes(2 * _JOURNAL_POINTS))
        self.warnings = [0, 0, 0]  # per side: each costs a stone at the count (004 第24条)
        # The side a PC plays (an engine, a remote opponent: ``remote_move``), 0 none; its
        # move waiting to be put down (a point code, -1 none), as the faces say it.
        self.remote = settings.get("remote", 0)
        self.expect = -1
        self.expect_text = ("", "", "")  # word, small cells, the longer line
        self.wrong = -1  # the point a stone for it was put on instead (logged once)
        self.why = ""  # why the last remote move was not taken, in words
        self.committing = False  # the board itself presses for the remote side
        # Go's end against a remote side that counts (an engine, ``remote_dead``): the stones
        # it calls dead (referee indices, None until it said), the counts made so far (each
        # MODE makes one: the remote answers a numbered count, ``remote_verdict``) and the
        # number of the count it did not share (0 none).
        self.proposed = None
        self.proposed_first = -1
        self.counts = 0
        self.differs = 0

    @classmethod
    def resume(cls, resumed, sensing, journal):
        """The unfinished game the journal kept (``Journal.resume()``), with the settings it
        was started with (not the board's current ones), restored paused (``restore``)."""
        m = cls(settings_of(resumed["header"]), sensing, journal)
        m.restore(resumed)
        return m

    def komi2(self):
        """The komi in half points: the one setting the count, the journal and the faces use
        (a handicap game has none, 001)."""
        s = self.settings
        if "komi2" in s:
            return s["komi2"]
        if s.get("handicap", 0):
            return 0
        from firmware.rules.go_count import KOMI_1988

        return KOMI_1988  # the 1988 rules', as firmware/game/settings.py's defaults

    # ---- the flow -----------------------------------------------------------------------------

    def start(self, now, board_id="", start_time=0):
        """Black's clock starts (002 第八条4, the arbiter's signal); the journal begins, its
        header holding every setting the game is played by."""
        self.clock.start(now)
        self.referee.ending = False
        self.referee.new_turn()  # a stone put down and lifted before the start was no move
        if self.journal is not None:
            self.journal.begin(self.header(board_id, start_time))

    def header(self, board_id="", start_time=0):
        """The journal header of this game: every setting it is played by, the board, the
        calendar start (0 if the PC never set the time), the players."""
        s = self.settings
        tc = self.clock.control
        go = _is_go(s)
        h = {
            "kind": 0 if go else GAMES.index(s["game"]) - 2,  # records.GO, RENJU ...
            "size": self.game.board.size,
            "komi2": self.komi2() if go else 0,
            "handicap": s.get("handicap", 0) if go else 0,
            "rules": s.get("rules", "") if go else "2013",  # Gomoku: 002, the 2013 rules
            "opening": "" if go else opening_of(s),
            "tc": s.get("time", ""),
            "tc_figures": (tc.kind, tc.main_ms, tc.period_ms, tc.periods, tc.moves),
            "board_id": board_id,
            "start": start_time,
        }
        _fit_extra(h, s)
        return h

    def restore(self, resumed):
        """Take back the unfinished game the journal kept (``Journal.resume()``): its moves are
        played again, its clocks set as at the last press, paused until the players resume."""
        g = self.game
        moves = standing(resumed)
        for m in moves:  # (ply, colour, point, tick, clocks)
            colour = m[1]
            point = m[2]
            if point == 1023:
                g.play(colour, None, None)
            else:
                g.play(colour, point & 31, point >> 5)
        self.referee.sync()
        black = sum(1 for m in moves if m[1] == BLACK)
        clocks = resumed["clocks"] or self.clocks()
        self.clock.restore(clocks, g.to_move, (black, len(moves) - black))
        for e in resumed.get("edits", ()):  # (kind, move_no, time_ms, args)
            if e[0] == 10 and e[3]:  # the arbiter's warnings (arbiter.WARNING) still count
                self.warnings[e[3][0]] += 1
        self.referee.ending = getattr(g, "passes", 0) >= 2
        if self.referee.ending:  # cut while the dead stones were being lifted
            self.phase = DEAD

    def frame(self, frame, now):
        """One scan of the grid; the number of points whose stable state changed (< 0: the
        frame was refused and nothing changed)."""
        self.frames += 1
        changed = self.sensing.update(frame, now)
        if changed > 0:
            self.referee.see(self.sensing.states, now)
            if self.expect >= 0:
                self._remote_look(now)
        return changed

    @micropython.native  # the app's pass: as bytecode its frame would be borrowed from the heap
    def press(self, side, at):
        """``side``'s paddle went down at tick ``at`` (stamped in the IRQ). While Go's count
        is on the faces, the press is that player's confirmation of it (CONFIRMED)."""
        clock = self.clock
        if self.phase == COUNTED:
            if side == self.remote and self.proposed is not None:
                return IGNORED  # a remote side that counts confirms from the PC
            self.confirm(side, at)
            return CONFIRMED
        if self.result or clock.running != side or clock.state != 1:
            return IGNORED
        if side == self.remote and not self.committing:
            return IGNORED  # the remote's paddle is the board's: its stone decides
        if clock.tick(at) == LATE:
            self._time_up()
            return TIMEOUT
        verdict = self.referee.press(side, at)
        self._journal_incidents()
        if verdict != ACCEPTED:
            return REFUSED
        r = clock.press(side, at)
        if r != OK:  # cannot happen after the tick above; kept as the clock's word
            self._time_up()
            return TIMEOUT
        if self.journal is not None:
            self.journal.move(self.game.ply, side, self._point(), at, self.clocks_now())
        self._after_move(at)
        return MOVED

    def tick(self, now):
        """The clock's look at ``now``: True when a flag just fell."""
        if self.clock.tick(now) == LATE:
            self._time_up()
            return True
        return False

    # ---- a remote side: an engine or an opponent elsewhere (link ``move``) ---------------------

    def remote_move(self, point, now):
        """The remote side's move: a point code (``y << 5 | x``) or 1023 for a pass. A pass is
        made at once; a stone goes on the faces and is committed, as if its paddle were
        pressed, once the player has put it on that point and lifted what it captures
        (``_remote_look``): the remote side's clock runs until then. "" if taken, else why not:
        "not_remote", "not_your_turn", "unsupported", "illegal" (``why`` says more)."""
        g = self.game
        side = self.remote
        self.why = ""
        if not side:
            return "not_remote"
        if self.result or self.phase != PLAY or self.clock.state != 1 or g.to_move != side:
            return "not_your_turn"
        go = self.referee.go
        if not go and (g.offered or g.wants_offers()):
            self.why = "the fifth-move offers are chosen at the board: play a free opening"
            return "unsupported"
        if point == 1023:
            self.committing = True
            try:
                done = self.press(side, now)
            finally:
                self.committing = False
            if done != MOVED:
                self.why = self._refusal()
                return "refused"
            return ""
        x = point & 31
        y = point >> 5
        n = g.board.size
        r = g.legal(side, x, y) if x < n and y < n else 1
        if r:
            from firmware.ui import say

            self.why = say.more(inc.ILLEGAL, r, not go)
            return "illegal"
        self.expect = point
        self.wrong = -1
        from firmware.ui import say

        name = say.point_name(point, not go)
        self.expect_text = (
            say.word(inc.REMOTE, side, not go),  # the side's letter (texts.SIDES)
            name,
            "%s %s: put it there" % ("Black" if side == BLACK else "White", name),
        )
        # The player may have put a stone down already (for this move or by mistake): its
        # first sighting was this turn's, which the remote's move does not keep.
        self.referee.new_turn()
        self._log(inc.REMOTE, (point,), side, now)
        self._remote_look(now)
        return ""

    def _remote_look(self, now):
        # The board after a change, while the remote's stone waits: committed once it is on
        # its point with its captures off; a stone on another point said once, where it
        # belongs with it.
        r = self.referee
        p = self.expect
        i = (p >> 5) * r.n + (p & 31)
        got = r.placed(i)
        if got == 1:
            self.committing = True
            try:
                if self.press(self.remote, now) == MOVED:
                    self.expect = -1
            finally:
                self.committing = False
            return
        if got < 0:
            j = -1 - got
            if j != self.wrong:
                self.wrong = j
                self._log(inc.WRONG_POINT, (p, r.code(j)), self.remote, now)
            r.forget_first()  # lifted again, the stone is watched for afresh
        else:
            self.wrong = -1

    def _refusal(self):
        from firmware.ui import say

        r = self.referee
        return say.more(r.why, 0, not r.go)

    def remote_undo(self, now):
        """Take back the last move in a game with a remote side (a GTP ``undo``): the clock
        goes back to the side whose move it was, the faces show the stone to lift, the
        journal keeps it as an arbiter's undo would be kept. False if there is no move to
        take back or the game is over."""
        if not self.remote or self.result or self.phase != PLAY or not self.game.ply:
            return False
        self.expect = -1
        if not self.referee.undo():
            return False
        c = self.clock
        if c.state == 1:  # the turn goes back: the clock switches, no move counted
            c.press(c.running, now, False)
        if self.journal is not None:
            from firmware.ui.arbiter import UNDO

            self.journal.edit(UNDO, self.game.ply + 1, now, ())
            self.journal.clocks(self.game.ply + 1, self.clocks_now())
        self._journal_incidents()
        return True

    def remote_clock(self, side, ms, stones, now):
        """A side's time as the remote side's controller tells it (GTP ``time_left``): with
        ``stones`` 0 its main time left, else its overtime (a Canadian block: ``ms`` for
        ``stones`` moves). Journaled as the arbiter's adjustment is. False without a remote
        side or a game in progress."""
        c = self.clock
        if not self.remote or self.result or c.state == 0 or c.state == 4:
            return False
        running = c.state == 1
        if running:
            c.pause(now)
        before = c.main[side]
        from firmware.clock.control import CANADIAN

        if stones and c.kind == CANADIAN:
            c.adjust(side, main_ms=0, period_ms=ms, moves_left=stones)
        elif stones:
            c.adjust(side, main_ms=0)
        else:
            c.adjust(side, main_ms=ms)
        if running:
            c.resume(now)
        if self.journal is not None:
            from firmware.ui.arbiter import ADJUST

            self.journal.edit(ADJUST, self.game.ply + 1, now, (side, c.main[side] - before))
            self.journal.clocks(self.game.ply + 1, self.clocks_now())
        return True

    # ---- results ------------------------------------------------------------------------------

    def _after_move(self, now):
        g = self.game
        winner = getattr(g, "winner", 0)
        if winner:  # Gomoku: a five, a foul, a draw
            self._gomoku_end()
        elif getattr(g, "passes", 0) >= 2:  # Go: both passed; the count waits for the dead
            self.clock.pause(self.clock.seg)
            self.phase = DEAD
            self.referee.ending = True  # lifting the dead stones is not a disturbed board
            self.snapshot()
        elif getattr(g, "claimable", None) is not None and g.claimable[0] == g.ply:
            # Renju claim mode: the board signals the foul; White's claim decides (002 第十条1)
            self._log(inc.FOUL, (g.claimable[1],), g.claimable[2], now)

    def _time_up(self):
        side = self.clock.flagged
        if not self.result and side:
            self._end("W+T" if side == BLACK else "B+T", 3 - side, END_TIME)

    def count(self, now):
        """Go's end, once both passed (phase DEAD): the stones the players lifted are dead;
        the area count goes on the faces (phase COUNTED) until both confirm it (``confirm``)
        or one disputes it (``dispute``). The Count, or None when it is not the time."""
        if self.phase != DEAD:
            return None
        c = self.referee.count()
        margin4 = c.margin4(self.komi2(), self.warnings[BLACK], self.warnings[WHITE])
        self.counted = (margin4, c)
        self.dead = [y << 5 | x for x, y in self.referee.dead_stones()]  # as counted
        self.confirmed = 0
        self.counts += 1
        self.phase = COUNTED
        self._journal_incidents()
        return c

    def confirm(self, side, now):
        """``side`` agrees with the count on the faces; when both have, the game ends with it
        (000 第九条). True when that made the result."""
        if self.phase != COUNTED:
            return False
        self.confirmed |= side
        if self.confirmed != BLACK | WHITE:
            return False
        from firmware.rules.go_count import result_sgf

        margin4 = self.counted[0]
        winner = BLACK if margin4 > 0 else WHITE if margin4 < 0 else 0
        self._end(result_sgf(margin4), winner, END_COUNT, margin4)  # quarter stones = half pts
        return True

    def dispute(self, now):
        """The players disagree about the dead stones: the game goes on (以实战解决, SPEC §1).
        The lifted stones go back (the referee refuses presses until they are), the player
        to move plays, and two more passes end it again. True if there was a count to dispute."""
        if self.phase != DEAD and self.phase != COUNTED:
            return False
        self.phase = PLAY
        self.counted = None
        self.confirmed = 0
        self.proposed = None  # nothing agreed: the next two passes bring a new proposal
        self.differs = 0
        self.game.passes = 0
        self.referee.ending = False
        self._log(inc.DISPUTE, (), 0, now)
        self.referee.see(self.sensing.states, now)  # the lifted stones are missing now
        self.clock.resume(now)
        self.snapshot()
        return True

    def remote_dead(self, points, now):
        """The stones the remote side (an engine: GTP ``final_status_list dead``) calls dead,
        once both passed (phase DEAD or COUNTED): the player's face names them one at a time
        until they are lifted (firmware/game/app.py), the journal keeps them, and from now on the
        remote side's confirmation of the count comes from the PC (``remote_verdict``), not
        from its paddle. "" if taken, else why not: "not_remote", "not_now", "not_a_stone"
        (``why`` says which point)."""
        from firmware.ui import say

        self.why = ""
        if not self.remote:
            return "not_remote"
        if self.phase != DEAD and self.phase != COUNTED:
            return "not_now"
        r = self.referee
        n = r.n
        board = self.game.board
        idx = array("H")
        for p in points:
            x = p & 31
            y = p >> 5
            if x >= board.size or y >= board.size or not board.color_at(x, y):
                self.why = "%s: no stone there" % say.point_name(p, False)
                return "not_a_stone"
            idx.append(y * n + x)
        self.proposed = idx
        self.differs = 0
        self._log(inc.REMOTE_DEAD, points, 0, now)
        return ""

    @micropython.native
    def proposed_left(self):
        """How many of the remote side's dead stones are still on the board; the referee
        index of the first of them in ``proposed_first`` (-1 none): what the player's face
        names. Allocates nothing (the faces ask on every pass)."""
        idx = self.proposed
        k = 0
        first = -1
        if idx is not None:
            seen = self.referee.seen
            i = 0
            while i < len(idx):
                j = idx[i]
                if seen[j] != 0:  # not EMPTY: still there
                    if first < 0:
                        first = j
                    k += 1
                i += 1
        self.proposed_first = first
        return k

    def remote_verdict(self, count_no, agree, margin4, now):
        """The remote side's answer to the count ``count_no`` on the faces: ``agree`` confirms
        it for that side (both confirmed: the result); else its own count ``margin4`` (quarter
        stones, Black positive) differs: said on both faces and journaled (COUNT_DIFFERS, with
        the stones in question: its dead stones still on the board, the lifted ones it does
        not call dead), and the count waits for the players (lift, put back and MODE again, or
        dispute with PAUSE). "" if taken, else "not_remote", "not_now" or "stale" (another
        count is on the faces now)."""
        if not self.remote or self.proposed is None:
            return "not_remote"
        if self.phase != COUNTED:
            return "not_now" if count_no != self.counts or not self.result else ""
        if count_no != self.counts:
            return "stale"
        if agree:
            self.confirm(self.remote, now)
            return ""
        if self.differs != count_no:
            self.differs = count_no
            lifted = self.dead
            said = [self.referee.code(i) for i in self.proposed]
            points = [p for p in said if p not in lifted] + [p for p in lifted if p not in said]
            m4 = margin4 if -32768 <= margin4 < 32768 else 0
            self._log(inc.COUNT_DIFFERS, points[:_JOURNAL_POINTS], m4, now)
        return ""

    def claim(self, now):
        """Gomoku in claim mode: the claim key. The player who can claim does (a five not yet
        claimed, or White for Black's forbidden move, 002 第十条1); with nothing to claim the
        player to move made a false claim, which is recorded. True if it decided the game."""
        g = self.game
        if self.result or _is_go(self.settings) or self.clock.state == 0:
            return False
        last = 3 - g.to_move
        c = last if g.fives[last] else WHITE if g.claimable or g.overlines else g.to_move
        g.claim(c)
        if g.winner:
            self._log(inc.CLAIM, (), c, now)
            self._gomoku_end()
            return True
        self._log(inc.FALSE_CLAIM, (), c, now)
        return False

    def _gomoku_end(self):
        # Gomoku's result by the rules: the journal keeps how (``gomoku_how``) in the
        # result's margin field, which only Go's count uses otherwise.
        g = self.game
        self._end(g.result_text(), g.winner if g.winner < 3 else 0, END_RULES, gomoku_how(g))

    def swap(self, now):
        """Renju's designated opening: White takes Black after move 3 (三手可交换). The
        paddles and faces keep their colours: the players change seats. True if done."""
        g = self.game
        if self.result or _is_go(self.settings) or g.swap():
            return False
        self._log(inc.SWAP, (), 0, now)
        return True

    def warn(self, side):
        """The arbiter warns ``side`` (004 第24条: a stone at the count; a second loses)."""
        self.warnings[side] += 1
        if self.warnings[side] >= 2 and not self.result:
            self._end("W+F" if side == BLACK else "B+F", 3 - side, END_RULES)

    def void(self):
        """The game ends without a winner, kept as Void: a game begun and not played that the
        PC starts again with other settings (link ``start``)."""
        if not self.result:
            self._end("Void", 0, END_ARBITER)

    def resign(self, side, now):
        """``side`` resigns."""
        if not self.result:
            self._end("W+R" if side == BLACK else "B+R", 3 - side, END_RESIGN)

    def _end(self, result, winner, reason, margin2=0):
        self.result = result
        self.phase = OVER
        self.referee.ending = True
        if self.clock.state != 4:
            self.clock.finish(self.clock.seg)
        if self.journal is not None:
            self._journal_incidents()
            self.journal.result(winner, reason, margin2, self.game.ply)

    def _log(self, kind, points, detail, now):
        # An incident of the match itself (not the referee's look at the board) into the
        # same log, so the faces, the link and the journal see it like any other.
        self.referee.log.add(kind, self.game.ply + 1, now, points, detail)
        self._journal_incidents()

    def snapshot(self):
        """Journal the clocks as they stand (a pause, a resume): what a power cut gives back."""
        if self.journal is not None:
            self.journal.clocks(self.game.ply + 1, self.clocks_now())

    @micropython.native
    def _journal_incidents(self):
        # The referee's new incidents since the last look go to the journal (their points as
        # a tuple: the journal's to store; the log itself allocates nothing).
        log = self.referee.log
        if self.journal is None or log.total == self.journaled:
            return
        j = log.first_new(self.journaled)
        buf = self._points
        while j < log.size:
            n = log.npoints(j)
            if n <= _JOURNAL_POINTS:
                k = 0
                while k < n:
                    buf[k] = log.point(j, k)
                    k += 1
                points = buf
            else:  # a scattered board: a rare, long list, as a tuple
                points = log.points(j)
            self.journal.incident(
                log.kind(j), log.move_no(j), log.time_ms(j), points, log.detail(j), n
            )
            j += 1
        self.journaled = log.total

    def clocks(self):
        """Both clocks as the journal keeps them: (black main, units, white main, units)."""
        c = self.clock
        return (c.main[BLACK], c.over[BLACK], c.main[WHITE], c.over[WHITE])

    @micropython.native
    def clocks_now(self):
        """``clocks()`` in a buffer reused at every call, for the journal to encode at once
        (no tuple on the press's path)."""
        c = self.clock
        out = self._clocks
        out[0] = c.main[BLACK]
        out[1] = c.over[BLACK]
        out[2] = c.main[WHITE]
        out[3] = c.over[WHITE]
        return out

    def _point(self):
        # The point of the move just committed (1023: a pass).
        g = self.game
        if isinstance(getattr(g, "moves", None), list):  # Gomoku keeps colour << 10 | point
            return g.moves[-1] & 1023
        return g.point(g.ply - 1)


def _is_go(settings):
    return settings.get("game", "go19").startswith("go")


def _fit_extra(header, settings):
    # The header's ``extra``: the game's settings it has no field for and the players, as
    # compact JSON. The names are kept whole (firmware/game/settings.py bounds each to TEXT_MAX
    # characters): a header over 255 bytes takes the journal's long record form.
    import json

    keep = {}
    for k in _EXTRA:
        if k in settings and (k != "remote" or settings[k]):  # no remote side: nothing said
            keep[k] = settings[k]
    for k in NAME_KEYS:
        if settings.get(k):
            keep[k] = settings[k]
    header["extra"] = json.dumps(keep, separators=(",", ":"))


def same_game(game, board):
    """True when a game begun with the settings ``game`` is the one the board's settings
    ``board`` make: the same but for the players' names, which the board drops once a game
    has started (firmware/game/app.py ``names_used``) unless new ones were set since."""
    rest = [k for k in game if k not in NAME_KEYS] + [k for k in board if k not in NAME_KEYS]
    if any(game.get(k) != board.get(k) for k in rest):
        return False
    named = any(board.get(k) for k in NAME_KEYS)
    return not named or all(board.get(k, "") == game.get(k, "") for k in NAME_KEYS)


def standing(resumed):
    """The moves that stand in a journaled game (``Journal.resume()``), in its record order: a
    MOVE of ply p replaces the moves from ply p on, an undo (an arbiter's, a remote side's)
    at move number n drops the moves from ply n, as ``host_tools/records/export.py`` reads them."""
    recs = resumed.get("records")
    if not recs:
        return resumed["moves"]
    from firmware.store import records as R

    moves = []
    for rec in recs:
        if rec[0] == R.MOVE:
            ply = rec[1]
            while moves and moves[-1][0] >= ply:
                moves.pop()
            moves.append(rec[1:])
        elif rec[0] == R.EDIT and rec[1] == 9:  # arbiter.UNDO
            while moves and moves[-1][0] >= rec[2]:
                moves.pop()
    return moves


def settings_of(header):
    """The settings a journaled game was started with, from its header (``Match.start``)."""
    import json

    kinds = ("go", "renju", "standard", "freestyle")
    k = header.get("kind", 0)
    s = {"game": kinds[k] if 0 <= k < len(kinds) else "go", "size": header.get("size", 19)}
    for key in ("komi2", "handicap"):
        s[key] = header.get(key, 0)
    if k == 0 and header.get("rules"):
        s["rules"] = header["rules"]
    if k and header.get("opening"):
        s["opening"] = header["opening"]
    if header.get("tc"):
        s["time"] = header["tc"]
    try:
        extra = json.loads(header.get("extra") or "{}")
    except ValueError:
        extra = {}
    if isinstance(extra, dict):
        for key in _EXTRA + NAME_KEYS:
            if key in extra:
                s[key] = extra[key]
    return s


def gomoku_how(game):
    """How a Gomoku game ended, as the journal's result keeps it: ``reason << 2 | foul`` with
    gomoku.py's reason (five, forbidden move, both passed, full board, ...) and foul kind
    (double-three 1, double-four 2, overline 3)."""
    return game.reason << 2 | game.foul
