"""``tengen watch``: the game at the board, live. Start reading at ``View``.

The view begins from the board's ``state`` (size, moves as point codes ``y << 5 | x`` with
1023 a pass, their colours, the clock) and follows the events ``watch`` sends: ``move``,
``undo``, ``clock``, ``incident``, ``result``, and ``game`` (a new game: ``state`` again).
Go stones are replayed with the firmware's own board (``firmware/rules/go_board.py``) so
captured stones leave; Gomoku/Renju stones never leave.
"""

from __future__ import annotations

import time
from collections import deque

from rich.console import Group
from rich.table import Table
from rich.text import Text

PASS = 1023
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # no I, as on a Go board
STONE = {1: "●", 2: "○"}
SIDE = {1: "Black", 2: "White"}
INCIDENTS = 8  # the last ones shown


def point_name(point: int, size: int) -> str:
    """``y << 5 | x`` as a board coordinate ("D16"; row 1 at the bottom), or "pass"."""
    if point == PASS:
        return "pass"
    x, y = point & 31, point >> 5
    return "%s%d" % (COLUMNS[x] if x < len(COLUMNS) else "?", size - y)


def clock_text(ms: int) -> str:
    ms = max(0, int(ms))
    s = ms // 1000
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


class View:
    """What the watch shows; ``load(state)`` then ``apply(event)`` for each event."""

    def __init__(self):
        self.state: dict = {}
        self.moves: list[int] = []
        self.colours: list[int] = []
        self.clock: dict = {}
        self.result = ""
        self.incidents: deque = deque(maxlen=INCIDENTS)
        self.at = time.monotonic()  # when the clock figures were true
        self.need_state = False  # a new game: ask for ``state`` again

    def load(self, state: dict) -> None:
        self.state = state
        self.moves = list(state.get("moves", []))
        self.colours = list(state.get("colours", []))
        self.clock = dict(state.get("clock") or {})
        self.result = state.get("result", "")
        self.at = time.monotonic()
        self.need_state = False

    def apply(self, ev: dict) -> None:
        name = ev.get("event")
        if name == "move":
            ply = int(ev.get("ply", len(self.moves) + 1))
            del self.moves[ply - 1 :]
            del self.colours[ply - 1 :]
            self.moves.append(int(ev.get("point", PASS)))
            self.colours.append(int(ev.get("colour", 1)))
            if "clocks" in ev:
                self.clock["clocks"] = ev["clocks"]
                self.clock["running"] = 3 - self.colours[-1]
                self.clock["elapsed"] = 0
                self.at = time.monotonic()
        elif name == "undo":
            ply = int(ev.get("ply", 0))
            del self.moves[ply:]
            del self.colours[ply:]
        elif name == "clock":
            self.clock.update({k: v for k, v in ev.items() if k not in ("v", "event")})
            self.at = time.monotonic()
        elif name == "incident":
            self.incidents.append(ev)
        elif name == "result":
            self.result = ev.get("result", "")
        elif name == "game":
            self.need_state = True

    # ---- what is shown ------------------------------------------------------------------------

    def size(self) -> int:
        return int(self.state.get("size", 19))

    def stones(self) -> dict[tuple[int, int], int]:
        """``{(x, y): colour}`` after the moves."""
        if str(self.state.get("game", "go")).startswith("go"):
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

    def board_text(self) -> Text:
        size = self.size()
        stones = self.stones()
        last = None
        if self.moves and self.moves[-1] != PASS:
            last = (self.moves[-1] & 31, self.moves[-1] >> 5)
        t = Text()
        head = "    " + " ".join(COLUMNS[x] if x < len(COLUMNS) else "?" for x in range(size))
        t.append(head + "\n", style="dim")
        for y in range(size):
            t.append("%3d " % (size - y), style="dim")
            for x in range(size):
                c = stones.get((x, y))
                if c:
                    t.append(STONE[c], style="bold red" if (x, y) == last else "")
                else:
                    t.append("·", style="dim")
                if x < size - 1:
                    t.append(" ")
            t.append(" %d\n" % (size - y), style="dim")
        t.append(head, style="dim")
        return t

    def clock_lines(self, live: bool = True) -> list[str]:
        c = self.clock
        figures = list(c.get("clocks") or [0, 0, 0, 0])
        state = c.get("state", "?")
        running = c.get("running", 0)
        lines = []
        for side in (1, 2):
            main = figures[2 * (side - 1)]
            units = figures[2 * (side - 1) + 1]
            if live and state == "running" and running == side:
                main -= (time.monotonic() - self.at) * 1000
            mark = "▶" if running == side and state == "running" else " "
            lines.append(
                "%s %s %s %s  (%s)" % (mark, STONE[side], SIDE[side], clock_text(main), units)
            )
        lines.append("clock: %s" % state)
        return lines

    def summary(self) -> list[str]:
        size = self.size()
        lines = [
            "%s %dx%d, move %d%s"
            % (
                self.state.get("game", "?"),
                size,
                size,
                len(self.moves),
                (", last %s" % point_name(self.moves[-1], size)) if self.moves else "",
            )
        ]
        if self.result:
            lines.append("result: %s" % self.result)
        return lines

    def incident_lines(self) -> list[str]:
        size = self.size()
        out = []
        for ev in self.incidents:
            points = " ".join(point_name(p, size) for p in ev.get("points", []))
            out.append(
                "move %s: incident %s %s" % (ev.get("move", "?"), ev.get("kind", "?"), points)
            )
        return out

    def text(self) -> str:
        """The snapshot as plain text (``--once``)."""
        parts = self.summary() + [self.board_text().plain] + self.clock_lines(live=False)
        inc = self.incident_lines()
        if inc:
            parts += ["incidents:"] + inc
        return "\n".join(parts)

    def render(self):
        """The live view (a rich renderable)."""
        side = Table.grid(padding=(0, 1))
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


def follow(link, view: View, live, poll: float = 0.2) -> None:
    """Read events and redraw until interrupted (Ctrl-C) or the link fails (``LinkError``)."""
    while True:
        ev = link.read_event(poll)
        while ev is not None:
            view.apply(ev)
            ev = link.read_event(0)
        if view.need_state:
            view.load(link.request("state"))
        live.update(view.render())
