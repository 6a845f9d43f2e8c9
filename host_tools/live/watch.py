"""``tengen watch``: the game at the board, live. Start reading at ``View``, then ``Watcher``.

The view begins from the board's ``state`` (the game: "go" or "go9"/"go13"/"go19", "renju",
"standard", "freestyle"; its size; the moves as point codes ``y << 5 | x``, x from the left
and y from the bottom, 1023 a pass; their colours; the clock; the phase and the result) and
follows the events ``watch`` sends: ``move``, ``undo``, ``clock``, ``incident``, ``result``,
``clear`` (before a game, once PAUSE was refused: the points still to clear, as the faces
name them one at a time; ``state`` has them as ``clear``), and ``game`` (a new game:
``state`` again). Go stones are replayed with the firmware's own
board (``firmware/rules/go_board.py``) so captured stones leave; Gomoku/Renju stones never
leave.

The board is drawn as printed boards and SGF viewers draw it: row ``size`` at the top, row 1 at
the bottom, columns from the left, Go's skipping I (``GO_COLUMNS``), Gomoku's not
(``GOMOKU_COLUMNS``: Renju's centre is H8); the last stone between brackets, ``(●)``.
Incidents are said in words (``firmware/referee/incidents.py``), their points named in the
game's coordinates. The clocks are shown as the faces show them: when the board's time
control is known (its ``settings``), the firmware's own clock model (``firmware/clock``)
draws each face, byo-yomi periods included; else the main time in the faces' format.

``Watcher`` keeps the view fed: it subscribes, reads the events, asks for ``state`` again when
a new game starts, when the phase may have changed and now and then when nothing happens;
when the link fails (the board unplugged: the port vanishes or its pty hangs up) it waits
for the board to come back, on the same port or wherever the board with the same id shows
up, with a growing pause between looks, then resyncs and goes on. What is shown goes to a
screen: ``LiveScreen`` (a terminal, redrawn in place), ``TextScreen`` (a pipe: a picture each
time the game changes) or ``JsonScreen`` (``--json``: one JSON line per change).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import deque

from rich.console import Group
from rich.table import Table
from rich.text import Text

from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS

PASS = 1023
STONE = {1: "●", 2: "○"}
SIDE = {1: "Black", 2: "White"}
INCIDENTS = 8  # the last ones shown
NAMED_POINTS = 6  # points named in an incident line; more are counted
WAITING = "waiting for the board…"
HEARTBEAT_S = 10.0  # ask for ``state`` after this long without an event
BACKOFF_S = (0.25, 2.0)  # the first and the longest pause between looks for the board


# ---- names ------------------------------------------------------------------------------------


def is_gomoku(game: str) -> bool:
    """Gomoku/Renju ("renju", "standard", "freestyle") rather than Go ("go", "go19"...)."""
    return not str(game or "go").startswith("go")


def game_name(game: str) -> str:
    """The game's word: "go" (whatever size it carries), "renju", "standard", "freestyle"."""
    return "go" if not is_gomoku(game) else str(game)


def columns(game: str) -> str:
    return GOMOKU_COLUMNS if is_gomoku(game) else GO_COLUMNS


def point_name(point: int, game: str = "go") -> str:
    """``y << 5 | x`` as the players name it ("Q16": row 1 at the bottom; Go skips I,
    Gomoku does not), or "pass"."""
    if point == PASS:
        return "pass"
    x, y = point & 31, point >> 5
    cols = columns(game)
    return "%s%d" % (cols[x] if x < len(cols) else "?", y + 1)


def points_text(names: list[str], outside: int = 0, named: int | None = None) -> str:
    """Points to clear as the faces name them, the first ``named`` (``NAMED_POINTS``) and a
    count of the rest: "D4, K10 +2 more and 1 outside the game's area". The one wording of
    ``View.clear_line`` here and the sim's ``SimView.todo_text``."""
    named = NAMED_POINTS if named is None else named
    where = ", ".join(names[:named])
    if len(names) > named:
        where += " +%d more" % (len(names) - named)
    if outside:
        where += "%s%d outside the game's area" % (" and " if names else "", outside)
    return where


def clock_text(ms: int) -> str:
    """``ms`` as a face shows it (``firmware/clock/clock.py`` ``format_time``): h:mm:ss from
    an hour, m:ss below, m:ss.t in the last ten seconds; rounded up."""
    from firmware.clock.clock import format_time

    buf = bytearray(16)
    n = format_time(max(0, int(ms)), buf)
    return bytes(buf[:n]).decode()


def star_points(size: int, gomoku: bool) -> set[tuple[int, int]]:
    """The points printed boards mark: Go's hoshi, Renju's centre and four stars."""
    corners = {15: (3, 11)} if gomoku else {19: (3, 15), 13: (3, 9), 9: (2, 6)}
    if size not in corners:
        return set()
    lines = corners[size]
    if size == 19:
        lines = (3, 9, 15)
    return {(x, y) for x in lines for y in lines} | {(size // 2, size // 2)}


def game_key(game: str, size) -> tuple[str, int]:
    """``(game, size)`` whatever the spelling: ("go19", None) and ("go", 19) are ("go", 19)."""
    g = str(game or "go")
    if g.startswith("go"):
        return "go", int(g[2:]) if g[2:].isdigit() else int(size or 19)
    return g, int(size or 15)


def incident_words(ev: dict, game: str) -> tuple[str, str]:
    """``(Chinese, English)`` of an incident event, with what its detail adds (the records'
    words: host_tools/common/words.py, as the SGF comments and the hall say it)."""
    from host_tools.common import words

    detail = ev.get("detail", 0)
    if not isinstance(detail, int) or isinstance(detail, bool):
        detail = 0
    return words.incident(int(ev.get("kind", 0)), detail, is_gomoku(game))


def _clearing(c) -> dict | None:
    # The link's points to clear (``state``'s "clear", the "clear" event), None if none.
    if not isinstance(c, dict) or not (c.get("points") or c.get("outside")):
        return None
    return {"points": list(c.get("points") or []), "outside": int(c.get("outside") or 0)}


def incident_text(ev: dict, game: str) -> str:
    """One incident as a line: "move 5: captured stones still on the board: remove them
    first (J9)"."""
    names = [point_name(int(p), game) for p in ev.get("points", [])]
    where = ""
    if names:
        shown = names[:NAMED_POINTS]
        if len(names) > NAMED_POINTS:
            shown.append("+%d more" % (len(names) - NAMED_POINTS))
        where = " (%s)" % ", ".join(shown)
    return "move %s: %s%s" % (ev.get("move", "?"), incident_words(ev, game)[1], where)


# ---- the view ---------------------------------------------------------------------------------


class View:
    """What the watch shows; ``load(state)`` then ``apply(event)`` for each event.

    ``preset`` the board's time control (a name of ``firmware/clock/control.py`` PRESETS, from
    its ``settings``; None: unknown) for drawing the faces; ``status`` a line about the link
    ("waiting for the board…"), shown above the game; ``version`` changes with every change a
    viewer could see but the clock's ticking.
    """

    def __init__(self):
        self.state: dict = {}
        self.moves: list[int] = []
        self.colours: list[int] = []
        self.clock: dict = {}
        self.result = ""
        self.phase = ""
        self.incidents: deque = deque(maxlen=INCIDENTS)
        self.clear: dict | None = None  # before a game: the points the faces name to clear
        self.at = time.monotonic()  # when the clock figures were true
        self.need_state = False  # a new game: ask for ``state`` again
        self.need_refresh = False  # the phase or the clock may have changed: ``state`` again
        self.preset: str | None = None
        self.preset_for: tuple | None = None  # (game, size) the settings were for
        self.status = ""
        self.version = 0
        self._seen: tuple | None = None

    def load(self, state: dict) -> None:
        """The board's ``state`` reply: the game as it is now. The incidents seen stay, unless
        this is another game."""
        self._seen = self.key()
        if self.state and self._another_game(state):
            self.incidents.clear()
        self.state = dict(state)
        self.moves = [int(p) for p in state.get("moves", [])]
        self.colours = [int(c) for c in state.get("colours", [])]
        self.clock = dict(state.get("clock") or {})
        self.result = state.get("result", "") or ""
        self.phase = state.get("phase", "") or ""
        self.clear = _clearing(state.get("clear"))
        self.at = time.monotonic()
        self.need_state = False
        self.need_refresh = False
        if self._seen != self.key():
            self.version += 1  # (not for the clock's figures alone)

    def _another_game(self, state: dict) -> bool:
        # Is ``state`` another game than the one shown? (A game's number is 0 once it is
        # over, so only two numbers tell.)
        a, b = self.state, state
        if (a.get("game"), a.get("size")) != (b.get("game"), b.get("size")):
            return True
        if a.get("game_no") and b.get("game_no") and a.get("game_no") != b.get("game_no"):
            return True
        started = (a.get("clock") or {}).get("state") not in (None, "not started")
        return started and (b.get("clock") or {}).get("state") == "not started"

    def key(self) -> tuple:
        """What a picture shows but the clock's figures (a new one is worth printing)."""
        c = self.clock
        return (
            self.state.get("game_no"),
            self.game(),
            self.size(),
            tuple(self.moves),
            tuple(self.colours),
            self.phase,
            self.result,
            c.get("state"),
            c.get("running"),
            c.get("flagged"),
            repr(self.clear),
        )

    def set_preset(self, settings: dict) -> None:
        """The board's ``settings``: its time control, trusted for the game while the game
        and size they name are the game's (changed since, they are the next game's)."""
        self.preset = settings.get("time") if isinstance(settings.get("time"), str) else None
        self.preset_for = game_key(settings.get("game", ""), settings.get("size"))

    def apply(self, ev: dict) -> None:
        name = ev.get("event")
        self.version += 1
        if name == "move":
            ply = int(ev.get("ply", len(self.moves) + 1))
            del self.moves[ply - 1 :]
            del self.colours[ply - 1 :]
            point = int(ev.get("point", PASS))
            self.moves.append(point)
            self.colours.append(int(ev.get("colour", 1)))
            if "clocks" in ev:
                self.clock["clocks"] = ev["clocks"]
                self.clock["running"] = 3 - self.colours[-1]
                self.clock["elapsed"] = 0
                self.at = time.monotonic()
            if point == PASS:
                self.need_refresh = True  # two passes: Go's dead stones
        elif name == "undo":
            ply = int(ev.get("ply", 0))
            del self.moves[ply:]
            del self.colours[ply:]
            self.need_refresh = True
        elif name == "clock":
            self.clock.update({k: v for k, v in ev.items() if k not in ("v", "event")})
            self.at = time.monotonic()
            self.need_refresh = True
        elif name == "incident":
            self.incidents.append(ev)
            self.need_refresh = True  # the count, a dispute, a claim
        elif name == "result":
            self.result = ev.get("result", "")
            self.need_refresh = True
        elif name == "clear":
            self.clear = _clearing(ev)
        elif name == "game":
            self.need_state = True
            self.incidents.clear()

    # ---- what is shown ------------------------------------------------------------------------

    def game(self) -> str:
        return str(self.state.get("game", "go"))

    def size(self) -> int:
        return int(self.state.get("size", 19))

    def name(self, point: int) -> str:
        return point_name(point, self.game())

    def stones(self) -> dict[tuple[int, int], int]:
        """``{(x, y): colour}`` after the moves."""
        if not is_gomoku(self.game()):
            try:
                return self._go_stones()
            except Exception:  # the firmware's board cannot run here: stones never leave
                pass
        out: dict[tuple[int, int], int] = {}
        for point, colour in zip(self.moves, self.colours, strict=False):
            if point != PASS:
                out[(point & 31, point >> 5)] = colour
        return out

    def _go_stones(self) -> dict[tuple[int, int], int]:
        from firmware.rules.go_board import Board

        size = self.size()
        board = Board(size, log_capacity=4 * size * size + 64)
        for point, colour in zip(self.moves, self.colours, strict=False):
            if point == PASS:
                continue
            x, y = point & 31, point >> 5
            if board.play(colour, x, y) != 0:
                board.put(colour, x, y)  # refused by the rules here: show it where it stands
        out = {}
        for y in range(size):
            for x in range(size):
                c = board.color_at(x, y)
                if c:
                    out[(x, y)] = c
        return out

    def last(self) -> tuple[int, int] | None:
        """``(point, colour)`` of the last move, or None before the first."""
        if not self.moves:
            return None
        return self.moves[-1], self.colours[-1] if self.colours else 1

    def board_text(self) -> Text:
        """The board, row ``size`` at the top and row 1 at the bottom; ``(●)`` the last
        stone, ``+`` the star points. Stone x of a row sits at column ``4 + 2 * x``."""
        size = self.size()
        cols = columns(self.game())
        stones = self.stones()
        stars = star_points(size, is_gomoku(self.game()))
        last = self.last()
        mark = None
        if last is not None and last[0] != PASS:
            mark = (last[0] & 31, last[0] >> 5)
        t = Text()
        head = "    " + " ".join(cols[x] if x < len(cols) else "?" for x in range(size))
        t.append(head + "\n", style="dim")
        for y in range(size - 1, -1, -1):
            t.append("%2d " % (y + 1), style="dim")
            for x in range(size):
                here = (x, y) == mark
                t.append("(" if here else (")" if (x - 1, y) == mark else " "), style="bold")
                c = stones.get((x, y))
                if c:
                    t.append(STONE[c], style="bold red" if here else "")
                else:
                    t.append("+" if (x, y) in stars else "·", style="dim")
            t.append(")" if (size - 1, y) == mark else " ", style="bold")
            t.append(" %d\n" % (y + 1), style="dim")
        t.append(head, style="dim")
        return t

    def board_rows(self) -> list[str]:
        """The board for scripts: ``size`` strings of ``.XO``, row ``size`` first."""
        stones = self.stones()
        size = self.size()
        return [
            "".join(".XO"[stones.get((x, y), 0)] for x in range(size))
            for y in range(size - 1, -1, -1)
        ]

    def faces(self, live: bool = True) -> list[dict]:
        """Both faces as they show now: ``{"side", "time", "ms", "running", "flagged",
        "overtime"}`` (overtime: byo-yomi periods left, "" if none)."""
        c = self.clock
        figures = [int(v) for v in (c.get("clocks") or [0, 0, 0, 0])][:4]
        figures += [0] * (4 - len(figures))
        state = str(c.get("state", "?"))
        running = int(c.get("running") or 0)
        flagged = int(c.get("flagged") or 0)
        e = int(c.get("elapsed") or 0)
        if live and state == "running":
            e += int((time.monotonic() - self.at) * 1000)
        out = []
        for side in (1, 2):
            face = self._model_face(figures, state, running, flagged, e, side)
            if face is None:
                main = figures[2 * (side - 1)] - (e if side == running else 0)
                units = figures[2 * (side - 1) + 1]
                face = {"time": clock_text(0 if side == flagged else main), "ms": max(0, main)}
                face["overtime"] = "%d left" % units if main <= 0 and units > 0 else ""
            face.update(
                side=SIDE[side],
                running=state == "running" and running == side,
                flagged=side == flagged,
            )
            out.append(face)
        return out

    def _model_face(self, figures, state, running, flagged, e, side) -> dict | None:
        # The firmware's clock restored from the figures, asked what ``side``'s face shows
        # (byo-yomi's period counting down, the periods left); None if the control is unknown.
        if not self.preset or self.preset_for != game_key(self.game(), self.size()):
            return None
        try:
            from firmware.clock import clock as C
            from firmware.clock.control import CANADIAN, CHINESE, JAPANESE, PENALTY, PRESETS

            tc = PRESETS.get(self.preset)
            if tc is None:
                return None
            clk = C.Clock(tc)
            clk.restore(figures, running or 1)
            clk.state = {
                "not started": C.NOT_STARTED,
                "running": C.RUNNING,
                "paused": C.PAUSED,
                "flagged": C.FLAGGED,
                "finished": C.FINISHED,
            }.get(state, C.PAUSED)
            clk.running = running
            clk.flagged = flagged
            clk.seg = 0
            clk.used = min(e, clk.limit) if running and clk.limit > 0 else (e if running else 0)
            f = C.Face()
            clk.face(side, 0, f)
        except Exception:  # figures the model cannot take: the plain main time
            return None
        overtime = ""
        if f.flags & C.F_COUNTING:
            if tc.kind in (CHINESE, JAPANESE):
                overtime = "byo-yomi, %d left" % f.units
            elif tc.kind == CANADIAN:
                overtime = "overtime block"
            elif tc.kind == PENALTY:
                overtime = "penalty period %d" % f.units
        return {"time": bytes(f.text[: f.length]).decode(), "ms": f.main_ms, "overtime": overtime}

    def clock_lines(self, live: bool = True) -> list[str]:
        lines = []
        for side, face in zip((1, 2), self.faces(live), strict=True):
            more = ["RUN"] if face["running"] else []
            if face["overtime"]:
                more.append(face["overtime"])
            if face["flagged"]:
                more.append("FLAG")
            mark = "▶" if face["running"] else " "
            line = "%s %s %-5s %8s  %s" % (
                mark,
                STONE[side],
                SIDE[side],
                face["time"],
                ", ".join(more),
            )
            lines.append(line.rstrip())
        state = str(self.clock.get("state", "?"))
        running = int(self.clock.get("running") or 0)
        if state == "running" and running in SIDE:
            state += " (%s)" % SIDE[running]
        lines.append("clock: %s" % state)
        return lines

    def summary(self) -> list[str]:
        size = self.size()
        head = "%s %dx%d, move %d" % (game_name(self.game()), size, size, len(self.moves))
        last = self.last()
        if last is not None:
            head += ", last %s (%s)" % (self.name(last[0]), SIDE.get(last[1], "?"))
        lines = [head]
        if self.phase:
            lines.append("phase: %s" % self.phase)
        if self.result:
            lines.append("result: %s" % self.result)
        clear = self.clear_line()
        if clear:
            lines.append(clear)
        return lines

    def clear_line(self, named: int = NAMED_POINTS) -> str:
        """Before a game, once PAUSE was refused: the points the faces name to clear, "to
        clear before the game (3): D4, K10 and 1 outside the game's area"; "" if none."""
        c = self.clear
        if not c:
            return ""
        names = [self.name(int(p)) for p in c.get("points", [])]
        outside = int(c.get("outside") or 0)
        where = points_text(names, outside, named)
        return "to clear before the game (%d): %s" % (len(names) + outside, where)

    def incident_lines(self) -> list[str]:
        return [incident_text(ev, self.game()) for ev in self.incidents]

    def text(self) -> str:
        """The snapshot as plain text (``--once``; a pipe)."""
        parts = [self.status] if self.status else []
        parts += self.summary() + [self.board_text().plain] + self.clock_lines(live=False)
        inc = self.incident_lines()
        if inc:
            parts += ["incidents:"] + inc
        return "\n".join(parts)

    def snapshot(self) -> dict:
        """The snapshot for scripts (``--json``)."""
        game = self.game()
        last = self.last()
        return {
            "game": game,
            "size": self.size(),
            "ply": len(self.moves),
            "moves": [
                {"colour": c, "point": p, "name": self.name(p)}
                for p, c in zip(self.moves, self.colours, strict=False)
            ],
            "last": None
            if last is None
            else {"colour": last[1], "point": last[0], "name": self.name(last[0])},
            "board": self.board_rows(),
            "clock": dict(self.clock, faces=self.faces(live=False)),
            "phase": self.phase,
            "result": self.result,
            "incidents": [self.incident_json(ev) for ev in self.incidents],
            "clear": None
            if not self.clear
            else {
                "points": [
                    {"point": int(p), "name": self.name(int(p))} for p in self.clear["points"]
                ],
                "outside": self.clear["outside"],
            },
            "link": self.status or "ok",
        }

    def incident_json(self, ev: dict) -> dict:
        zh, en = incident_words(ev, self.game())
        out = {k: v for k, v in ev.items() if k != "v"}
        out.update(names=[self.name(int(p)) for p in ev.get("points", [])], words=[zh, en])
        return out

    def render(self):
        """The live view (a rich renderable)."""
        side = Table.grid(padding=(0, 1))
        if self.status:
            side.add_row(Text(self.status, style="bold red"))
        for line in self.summary() + [""] + self.clock_lines():
            side.add_row(line)
        inc = self.incident_lines()
        side.add_row("")
        side.add_row(Text("incidents", style="bold"))
        for line in inc or ["none"]:
            side.add_row(line)
        grid = Table.grid(padding=(0, 3))
        grid.add_row(self.board_text(), side)
        return Group(grid)


# ---- screens: where the view goes -------------------------------------------------------------


class LiveScreen:
    """A terminal: the view redrawn in place (rich ``Live``), notices above it."""

    def __init__(self, console=None, err=None):
        from rich.console import Console

        self.console = console or Console()
        self.err = err or Console(stderr=True, soft_wrap=True)
        self.live = None

    def __enter__(self):
        from rich.live import Live

        self.live = Live(console=self.console, auto_refresh=False, screen=False)
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        self.live.__exit__(*exc)

    def show(self, view: View, ev: dict | None = None) -> None:
        if self.live is not None:  # (drawn from the first step on)
            self.live.update(view.render(), refresh=True)

    def notice(self, text: str, view: View, **fields) -> None:
        self.err.print(text)
        self.show(view)


class TextScreen:
    """A pipe or a file: the picture again each time the game changes (not at each tick of
    the clock), a blank line between pictures; notices on stderr."""

    def __init__(self, out=None, err=None):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.shown = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def show(self, view: View, ev: dict | None = None) -> None:
        if view.version == self.shown:
            return
        self.shown = view.version
        self.out.write(view.text() + "\n\n")
        self.out.flush()

    def notice(self, text: str, view: View, **fields) -> None:
        self.err.write(text + "\n")
        self.err.flush()


class JsonScreen:
    """``--json``: one JSON object a line. ``{"event": "state", ...}`` the whole view (at the
    start, after a new game or a resync); the board's events as it sent them, points named
    (``name``; an incident's ``names`` and ``words``); ``{"event": "link", "status":
    "waiting" | "back", "port": ...}`` when the board goes and comes back."""

    def __init__(self, out=None):
        self.out = out or sys.stdout

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def _line(self, obj: dict) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def show(self, view: View, ev: dict | None = None) -> None:
        if ev is None:
            return  # a tick of the clock: nothing new
        name = ev.get("event")
        if name == "state":
            self._line(dict(view.snapshot(), event="state"))
            return
        out = {k: v for k, v in ev.items() if k != "v"}
        if name == "move":
            out["name"] = view.name(int(ev.get("point", PASS)))
        elif name == "incident":
            out = dict(view.incident_json(ev), event="incident")
        self._line(out)

    def notice(self, text: str, view: View, **fields) -> None:
        self._line(dict(fields, event="link", message=text))


# ---- the link: following the board, and finding it again ---------------------------------------


class Watcher:
    """Feeds ``view`` from the board at ``port`` and shows it on ``screen``.

    ``retry_for``: after the link fails, how many seconds to look for the board before giving
    up (None: until Ctrl-C; 0: give up at once). ``open_link(port)`` and ``find_boards()`` are
    ``host_tools.common.link``'s (the tests may pass others). ``run()`` returns on Ctrl-C and raises
    ``LinkError`` when the board is gone for good ("gone") or cannot be reached at the start.
    """

    def __init__(
        self,
        port: str,
        screen,
        view: View | None = None,
        retry_for: float | None = None,
        poll: float = 0.2,
        heartbeat: float = HEARTBEAT_S,
        open_link=None,
        find_boards=None,
    ):
        from host_tools.common import link as L

        self.port = port
        self.screen = screen
        self.view = view or View()
        self.retry_for = retry_for
        self.poll = poll
        self.heartbeat = heartbeat
        self.open_link = open_link or L.Link
        self.find_boards = find_boards or L.find_boards
        self.link = None
        self.board_id = ""
        self.quiet_since = time.monotonic()

    # ---- the parts ----------------------------------------------------------------------------

    def connect(self) -> None:
        """The first contact: the board's id, the view from its ``state``, events on."""
        self.link = self.open_link(self.port)
        try:
            hello = self.link.request("hello")
            self.board_id = str(hello.get("board", "") or "")
            from host_tools.common.link import set_clock

            set_clock(self.link)  # every connect: the records' dates (SPEC §5)
            self._sync()
        except BaseException:
            self.link.close()
            self.link = None
            raise

    def _sync(self) -> None:
        # Events on first, then the state: a move made in between comes as an event too (a
        # move event names its ply: applied twice it is the same move).
        from host_tools.common.link import LinkError

        self.link.request("watch", on=True)
        try:
            self.view.set_preset(self.link.request("settings").get("settings", {}))
        except LinkError as e:
            if e.code in ("io", "timeout"):
                raise
        self._load(self.link.request("state"), always=True)

    def _take(self, ev: dict) -> None:
        # One event from the board.
        self.quiet_since = time.monotonic()
        self.view.apply(ev)
        self.screen.show(self.view, ev)

    def _load(self, state: dict, always: bool = False) -> None:
        # The events the board sent before this reply are older than it: taken first.
        while self.link.events:
            self._take(self.link.events.popleft())
        version = self.view.version
        self.view.load(state)
        if always or self.view.version != version:
            self.screen.show(self.view, {"event": "state"})

    def step(self) -> None:
        """Read what the board sent (waiting up to ``poll`` seconds), then show the view."""
        link = self.link
        ev = link.read_event(self.poll)
        while ev is not None:
            self._take(ev)
            ev = link.read_event(0)
        if self.view.need_state:
            self._sync()  # a new game: its settings too
        elif self.view.need_refresh:
            self._load(link.request("state"))  # the phase, the clock after an incident
        elif time.monotonic() - self.quiet_since > self.heartbeat:
            self.quiet_since = time.monotonic()
            self._heartbeat()
        self.screen.show(self.view)

    def _heartbeat(self) -> None:
        # Nothing for a while: is the board there, and did it keep sending? A state that
        # differs from the view means events were missed (the board restarted its link):
        # subscribe again.
        state = self.link.request("state")
        while self.link.events:
            self._take(self.link.events.popleft())
        moves = [int(p) for p in state.get("moves", [])]
        if moves == self.view.moves and state.get("game_no") == self.view.state.get("game_no"):
            self._load(state)
        else:
            self._sync()

    def reconnect(self) -> None:
        """The link failed: look for the board (the same port, else the board with the same
        id on any port) until it answers, pausing longer each time; then resync. Raises
        ``LinkError("gone")`` after ``retry_for`` seconds."""
        from host_tools.common.link import LinkError

        if self.link is not None:
            self.link.close()
            self.link = None
        self.view.status = WAITING
        self.view.version += 1
        self.screen.notice(WAITING, self.view, status="waiting", port=self.port)
        start = time.monotonic()
        pause = BACKOFF_S[0]
        while True:
            link = self._find()
            if link is not None:
                self.link = link
                self.port = link.port
                self.view.status = ""
                self.screen.notice(
                    "the board is back on %s" % link.port, self.view, status="back", port=link.port
                )
                try:
                    self._sync()
                    self.quiet_since = time.monotonic()
                    return
                except LinkError:  # gone again at once: wait again
                    link.close()
                    self.link = None
                    self.view.status = WAITING
                    self.screen.notice(WAITING, self.view, status="waiting", port=self.port)
            left = None if self.retry_for is None else start + self.retry_for - time.monotonic()
            if left is not None and left <= 0:
                raise LinkError("gone", "the board did not come back within %g s" % self.retry_for)
            time.sleep(pause if left is None else min(pause, left))
            pause = min(pause * 2, BACKOFF_S[1])

    def _find(self):
        # An open link to the board, or None. The same port first (a USB board comes back
        # there); then, if the board said who it is, wherever that board is now (a virtual
        # board restarted on its folder has a new pty).
        link = self._probe(self.port) if os.path.exists(self.port) else None
        if link is not None or not self.board_id:
            return link
        try:
            found = self.find_boards()
        except Exception:  # listing the ports failed: look again later
            return None
        for b in found:
            if b.get("board") == self.board_id and b.get("port") != self.port:
                link = self._probe(b["port"])
                if link is not None:
                    return link
        return None

    def _probe(self, port: str):
        from host_tools.common.link import Link, LinkError

        try:
            link = self.open_link(port)
        except LinkError:
            return None
        if isinstance(link, Link):
            timeout, retries = link.timeout, link.retries
            link.timeout, link.retries = 0.5, 1
        try:
            hello = link.request("hello")
        except LinkError:
            link.close()
            return None
        if isinstance(link, Link):
            link.timeout, link.retries = timeout, retries
        if hello.get("name") != "tengen" or (
            self.board_id and str(hello.get("board", "")) != self.board_id
        ):
            link.close()  # another board on this port now
            return None
        return link

    # ---- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        """Follow the board until Ctrl-C; wait for it when it goes (see ``reconnect``)."""
        from host_tools.common.link import LinkError

        if self.link is None:
            self.connect()
        try:
            while True:
                try:
                    self.step()
                except LinkError as e:
                    if e.code not in ("io", "timeout"):
                        raise
                    self.reconnect()
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    def close(self) -> None:
        """Events off (if the board is there) and the port closed."""
        from host_tools.common.link import stop_watching

        if self.link is None:
            return
        stop_watching(self.link)
        self.link = None


def snapshot(port: str, open_link=None) -> View:
    """The game at the board now (``--once``): its state and time control, no events."""
    from host_tools.common.link import Link, LinkError

    view = View()
    with (open_link or Link)(port) as link:
        try:
            view.set_preset(link.request("settings").get("settings", {}))
        except LinkError as e:
            if e.code in ("io", "timeout"):
                raise
        view.load(link.request("state"))
    return view
