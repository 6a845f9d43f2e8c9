"""One game in progress at the board: the rules, the clock, the referee and the sensing, joined.

Start reading at ``Match.press``. Everything here is pure: frames, presses and ticks come in
with their own times, so the app (``firmware/app.py``) and the tests drive it the same way.
The data flows one way (DESIGN.md): frame → sensing → referee (the seen board) → on a press,
referee → rules → clock → journal. A press the referee refuses leaves the clock running, and
the refusal's incident is what the faces and the buzzer report.
"""

from micropython import const

from firmware.clock import control
from firmware.clock.clock import LATE, OK, Clock
from firmware.referee.referee import ACCEPTED, REFUSE, Referee
from firmware.rules.go_board import BLACK, WHITE

# What a press did (``Match.press``).
MOVED = const(0)  # a move (or a pass) committed, the clock switched
REFUSED = const(1)  # the referee refused it: ``match.referee.why`` / ``points`` say why
IGNORED = const(2)  # the clock is not running for that side (paused, over, the other side)
TIMEOUT = const(3)  # the side's time had run out before the press

GAMES = ("go19", "go13", "go9", "renju", "standard", "freestyle")  # or "go" with "size"

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
        opening=gomoku.OPENINGS.index(settings.get("opening", "free")),
        offers=settings.get("offers"),
    )


class Match:
    """A game at the board. ``settings``: ``game`` (one of GAMES), ``time`` (a preset name of
    ``firmware/clock/control.py``), and optionally ``ko``, ``handicap``, ``komi2``,
    ``claims``, ``opening``, ``offers``, ``captures`` (the referee's setting), ``free_captures``.
    ``sensing`` is a ``firmware.sensing.grid.Sensing`` for the whole grid; ``journal``
    anything with the ``firmware/store`` journal's methods, or None."""

    def __init__(self, settings, sensing, journal=None):
        self.settings = settings
        self.game = new_game(settings)
        self.clock = Clock(
            control.PRESETS[settings.get("time", "cn-local")],
            free_captures=settings.get("free_captures", False),
        )
        self.sensing = sensing
        self.referee = Referee(
            self.game, captures=settings.get("captures", REFUSE), grid=sensing.n
        )
        self.journal = journal
        self.result = ""  # how the game ended, once it has: "B+R", "W+T", "B+3.5" ...
        self.frames = 0
        self.journaled = 0  # referee incidents already in the journal
        self.warnings = [0, 0, 0]  # per side: each costs a stone at the count (004 第24条)

    # ---- the flow -----------------------------------------------------------------------------

    def start(self, now, board_id="", start_time=0):
        """Black's clock starts (002 第八条4, the arbiter's signal); the journal begins."""
        self.clock.start(now)
        if self.journal is not None:
            s = self.settings
            kind = s.get("game", "go19")
            tc = self.clock.control
            self.journal.begin(
                {
                    "kind": 0 if kind.startswith("go") else GAMES.index(kind) - 2,  # records.GO...
                    "size": self.game.board.size,
                    "komi2": s.get("komi2", 0),
                    "handicap": s.get("handicap", 0),
                    "rules": s.get("rules", ""),
                    "opening": s.get("opening", ""),
                    "tc": s.get("time", ""),
                    "tc_figures": (tc.kind, tc.main_ms, tc.period_ms, tc.periods, tc.moves),
                    "board_id": board_id,
                    "start": start_time,
                }
            )

    def restore(self, resumed):
        """Take back the unfinished game the journal kept (``Journal.resume()``): its moves are
        played again, its clocks set as at the last press, paused until the players resume."""
        g = self.game
        for m in resumed["moves"]:  # (ply, colour, point, tick, clocks)
            colour = m[1]
            point = m[2]
            if point == 1023:
                g.play(colour, None, None)
            else:
                g.play(colour, point & 31, point >> 5)
        self.referee.sync()
        black = sum(1 for m in resumed["moves"] if m[1] == BLACK)
        clocks = resumed["clocks"] or self.clocks()
        self.clock.restore(clocks, g.to_move, (black, len(resumed["moves"]) - black))

    def frame(self, frame, now):
        """One scan of the grid; the number of points whose stable state changed (< 0: the
        frame was refused and nothing changed)."""
        self.frames += 1
        changed = self.sensing.update(frame, now)
        if changed > 0:
            self.referee.see(self.sensing.states, now)
        return changed

    def press(self, side, at):
        """``side``'s paddle went down at tick ``at`` (stamped in the IRQ)."""
        clock = self.clock
        if self.result or clock.running != side or clock.state != 1:
            return IGNORED
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
            self.journal.move(self.game.ply, side, self._point(), at, self.clocks())
        self._after_move()
        return MOVED

    def tick(self, now):
        """The clock's look at ``now``: True when a flag just fell."""
        if self.clock.tick(now) == LATE:
            self._time_up()
            return True
        return False

    # ---- results ------------------------------------------------------------------------------

    def _after_move(self):
        g = self.game
        winner = getattr(g, "winner", 0)
        if winner:  # Gomoku: a five, a foul, a draw
            self._end(g.result_text(), winner if winner < 3 else 0, END_RULES)
        elif getattr(g, "passes", 0) >= 2:  # Go: both passed; the count waits for the dead
            self.clock.pause(self.clock.seg)

    def _time_up(self):
        side = self.clock.flagged
        if not self.result and side:
            self._end("W+T" if side == BLACK else "B+T", 3 - side, END_TIME)

    def count(self, now):
        """Go's end: the stones the players lifted are dead; the area count decides."""
        from firmware.rules.go_count import KOMI_NATIONAL, result_sgf

        c = self.referee.count()
        margin4 = c.margin4(
            self.settings.get("komi2", KOMI_NATIONAL), self.warnings[BLACK], self.warnings[WHITE]
        )
        winner = BLACK if margin4 > 0 else WHITE if margin4 < 0 else 0
        self._end(result_sgf(margin4), winner, END_COUNT, margin4)  # quarter stones = half points
        return c

    def warn(self, side):
        """The arbiter warns ``side`` (004 第24条: a stone at the count; a second loses)."""
        self.warnings[side] += 1
        if self.warnings[side] >= 2 and not self.result:
            self._end("W+F" if side == BLACK else "B+F", 3 - side, END_RULES)

    def resign(self, side, now):
        """``side`` resigns."""
        self._end("W+R" if side == BLACK else "B+R", 3 - side, END_RESIGN)

    def _end(self, result, winner, reason, margin2=0):
        self.result = result
        if self.clock.state != 4:
            self.clock.finish(self.clock.seg)
        if self.journal is not None:
            self._journal_incidents()
            self.journal.result(winner, reason, margin2, self.game.ply)

    def _journal_incidents(self):
        # The referee's new incidents since the last look go to the journal.
        log = self.referee.log
        if self.journal is None or log.total == self.journaled:
            return
        new = log.total - self.journaled
        for item in log.items[-new:] if new < len(log.items) else log.items:
            kind, no, at, points, detail = item
            self.journal.incident(kind, no, at, points, detail if isinstance(detail, int) else 0)
        self.journaled = log.total

    def clocks(self):
        """Both clocks as the journal keeps them: (black main, units, white main, units)."""
        c = self.clock
        return (c.main[BLACK], c.over[BLACK], c.main[WHITE], c.over[WHITE])

    def _point(self):
        # The point of the move just committed (1023: a pass).
        g = self.game
        point = 1023
        if isinstance(getattr(g, "moves", None), list):  # Gomoku keeps colour << 10 | point
            point = g.moves[-1] & 1023
        else:
            m = g.move(g.ply - 1)
            if m[1] is not None:
                point = (m[2] << 5) | m[1]
        return point
