"""Scripted games for the virtual board: a list of Go moves played at the board as a person
plays them, in real time, for the hall demo (``host_tools/hall/demo.py``) and the tests.

Start reading at ``play``. A game is GTP vertices (``D4``, ``pass``; a last ``resign``: the
side to move resigns) on 9x9, 13x13 or 19x19. ``steps`` turns it into the virtual board's
command lines (``firmware/virtual/board.py``), move by move: the stone put on its point of the
19x19 grid (a smaller game sits in the grid's middle: a 9x9 game's E5 is the grid's K10), the
stones it captured lifted, then the mover's paddle pressed: the board's referee refuses a
press while captured stones are still on (``captures`` 0, the default), so the hand lifts
them first. Captures come from the firmware's own rules (``firmware/rules/go.py``), never by
hand. The end: a resignation (PLUS+MINUS, MODE) or two passes, the dead stones lifted, MODE
counts and both players confirm with their paddles.

``play`` starts the game first, at the board's keys: any stones lifted (the last game's), the
game kind and size chosen in the board's menu (a long MODE, + until the faces show ``GO 9``,
a long MODE), PAUSE (after a result, PAUSE first makes the next game). So it needs no link:
a relay may hold the board's port meanwhile. ``configure`` sets the other settings over the
link (the time control, the players' names) when a PC may use it.

``play`` reads the board's lines itself (``Hands``): a ``?`` line or a ``REFUSE`` buzz means
the board did not take a step as scripted, and it stops there (``ScriptError``). ``Player``
runs games one after another in a thread, a move every ``pace_s`` seconds, until stopped.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from dataclasses import dataclass, field

from firmware.hal.virtual import shown
from firmware.rules.coords import GO_COLUMNS, parse_vertex
from firmware.rules.go import Game
from firmware.ui import menus, texts

GRID = 19  # the virtual board's grid (firmware/hal/virtual.py N)
SIZES = (9, 13, 19)
STEP_TIMEOUT = 60.0  # seconds a step may take on a loaded machine before the board is deemed stuck
PASS_NOTICE_MS = 1600  # "PASS" stays on the faces 1.5 s (app.py NOTICE_MS // 2): let it go


class ScriptError(Exception):
    """A game that is not legal, or a board that did not take a step as scripted."""


@dataclass(frozen=True)
class ScriptedGame:
    """A game to play: its ``moves`` (GTP vertices, ``pass``, a last ``resign``), its
    ``size`` and, for a game counted after two passes, the ``dead`` stones lifted first."""

    name: str
    size: int
    moves: tuple[str, ...]
    dead: tuple[str, ...] = ()


# Short games of the demo, made up for it (never from a corpus): each legal under the
# firmware's rules, with captures (checked by tests/host/hall/test_scripted.py).
DEMO_GAMES = (
    ScriptedGame(
        "nine-count",
        9,
        tuple(
            "E5 C5 D4 D6 C4 E6 F5 F6 G6 G7 H7 G5 F4 H6 D5 C6 B5 B6 G8 H8 "
            "F7 G4 F3 G3 H5 H4 E7 F8 E8 J5 pass pass".split()
        ),
    ),
    ScriptedGame(
        "nine-resign",
        9,
        tuple(
            "C3 G7 G3 C7 E5 E3 D3 E4 F4 F3 E2 F2 G2 D2 E1 C2 D4 E6 F5 F6 "
            "G6 F7 D6 E7 C6 B6 B5 D7 B7 A6 C8 G5 H5 G4 H4 H6 J6 G5 D5 B8 A7 resign".split()
        ),
    ),
    ScriptedGame(
        "thirteen-resign",
        13,
        tuple(
            "D4 K10 K4 D10 G7 C6 F3 C12 K7 L9 L8 M8 L7 J11 F10 E11 F11 F12 G12 E12 "
            "G11 E9 E8 D8 F9 D9 K12 J12 K13 L12 K11 L11 J10 H11 H10 G10 J9 M11 E7 C8 "
            "C7 B7 C9 B9 D7 C10 B8 A8 resign".split()
        ),
    ),
)


def demo_game(name: str) -> ScriptedGame:
    """The built-in game called ``name``; KeyError naming the others."""
    for g in DEMO_GAMES:
        if g.name == name:
            return g
    raise KeyError("no demo game %r (%s)" % (name, ", ".join(g.name for g in DEMO_GAMES)))


# ---- the script ---------------------------------------------------------------------------


def grid_point(x: int, y: int, size: int) -> str:
    """The grid's name of point ``(x, y)`` of a ``size`` game (the commands take the grid's)."""
    off = (GRID - size) // 2
    return "%s%d" % (GO_COLUMNS[x + off], y + off + 1)


@dataclass
class Step:
    """One move at the board: ``move`` (the vertex, ``pass``, ``resign`` or ``count``), the
    ``colour`` ("b"/"w") of who acts, its ``commands``, and the ``point`` the journal keeps
    (``y << 5 | x``, 1023 a pass; None for the end's steps)."""

    move: str
    colour: str
    commands: list[str]
    point: int | None = None
    taken: list[str] = field(default_factory=list)


def steps(moves, size: int = 9, dead=()) -> list[Step]:
    """The board's commands of ``moves`` (see the module's text); ScriptError if a move is
    not legal, or the game goes on after its end."""
    if size not in SIZES:
        raise ScriptError("Go is played on %s, not %r" % (", ".join(map(str, SIZES)), size))
    game = Game(size)
    out: list[Step] = []
    passes = 0
    ended = False
    for i, text in enumerate(moves):
        colour = "b" if game.to_move == 1 else "w"
        where = "move %d (%s)" % (i + 1, text)
        if ended:
            raise ScriptError("%s: the game is over already" % where)
        if text.strip().lower() == "resign":
            # PLUS+MINUS asks "resign?" for the side whose clock runs (the mover): MODE yes.
            out.append(Step("resign", colour, ["key plus+minus", "key mode"]))
            ended = True
            continue
        try:
            xy = parse_vertex(text, size, GO_COLUMNS)
        except ValueError as e:
            raise ScriptError("%s: %s on %dx%d" % (where, e, size, size)) from None
        before = _stones(game)
        r = game.play(game.to_move, *(xy if xy else (None, None)))
        if r:
            raise ScriptError(
                "%s is not legal (firmware/rules/go_board.py reason %d)" % (where, r)
            )
        if xy is None:
            out.append(Step("pass", colour, ["press %s" % colour], 1023))
            passes += 1
            ended = passes == 2
            continue
        passes = 0
        taken = sorted(before - _stones(game) - {xy})
        lifts = ["lift %s" % grid_point(x, y, size) for x, y in taken]
        put = "put %s %s" % (grid_point(*xy, size), colour)
        step = Step(
            text.upper(), colour, [put] + lifts + ["press %s" % colour], xy[1] << 5 | xy[0]
        )
        step.taken = [GO_COLUMNS[x] + str(y + 1) for x, y in taken]
        out.append(step)
    if passes == 2:
        lifts = []
        for v in dead:
            try:
                xy = parse_vertex(v, size, GO_COLUMNS)
            except ValueError as e:
                raise ScriptError("dead stone %r: %s" % (v, e)) from None
            if xy is None or not game.board.color_at(*xy):
                raise ScriptError("dead stone %r: no stone there" % v)
            lifts.append("lift %s" % grid_point(*xy, size))
        # Both players lift the dead stones, MODE counts, each confirms with the paddle.
        count = ["wait %d" % PASS_NOTICE_MS] + lifts + ["key mode", "wait 300"]
        out.append(Step("count", "b", count + ["press b", "press w"]))
    elif dead:
        raise ScriptError("dead stones are lifted after two passes only")
    return out


def _stones(game) -> set:
    n = game.size
    return {(x, y) for x in range(n) for y in range(n) if game.board.color_at(x, y)}


def journal_points(moves, size: int = 9) -> list[int]:
    """The points (``y << 5 | x``, 1023 a pass) the board's journal keeps for ``moves``."""
    return [s.point for s in steps(moves, size) if s.point is not None]


# ---- the hands ----------------------------------------------------------------------------

_marks = itertools.count(1)


class Hands:
    """The commands sent to a ``host_tools.board.sim.Board`` and what it said back: ``do`` sends
    commands and waits until the board carried them out; ``last`` what each kind of line
    (``face B``, ``board``, ``game``) said last; ``said`` every line (``board`` lines but
    the last left out: they are long); ``refusals`` the ``?`` lines and ``REFUSE`` buzzes."""

    def __init__(self, board, keep: int = 2000):
        self.board = board
        self.last: dict[str, str] = {}
        self.said: list[str] = []
        self.refusals: list[str] = []
        self.keep = keep

    def do(self, *commands: str, timeout: float = STEP_TIMEOUT) -> list[str]:
        """Send ``commands``; the lines the board said until it had done them. ScriptError if
        the board stopped or took longer than ``timeout`` seconds."""
        mark = "echo scripted %d" % next(_marks)
        for c in (*commands, mark):
            if not self.board.send(c):
                raise ScriptError("the board stopped")
        got = []
        end = time.monotonic() + timeout
        while True:
            try:
                line = self.board.lines.get(timeout=max(0.05, end - time.monotonic()))
            except queue.Empty:
                raise ScriptError(
                    "the board did not do %r in %.0f s" % (commands, timeout)
                ) from None
            if line is None:
                raise ScriptError("the board stopped (after %r)" % (got[-3:],))
            if line == mark:
                return got
            self._heard(line)
            got.append(line)

    def _heard(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word in ("face", "board", "game"):
            key = "face " + rest[:1] if word == "face" else word
            self.last[key] = line
        if word != "board":
            self.said.append(line)
            del self.said[: -self.keep]
        if word == "?" or line == "buzz REFUSE":
            self.refusals.append(line)

    def face(self, side: str = "B") -> str:
        """What ``side``'s face shows now (its glass's text)."""
        return self.last.get("face " + side, "")[len("face B ") :].rstrip()

    def stones(self) -> list[str]:
        """The grid points with a stone on them now (from the board's last ``board`` line)."""
        rows = self.last.get("board", "")[len("board ") :]
        out = []
        for i, c in enumerate(rows):
            if c != ".":
                x, y = i % GRID, GRID - 1 - i // GRID
                out.append("%s%d" % (GO_COLUMNS[x], y + 1))
        return out


# ---- playing ------------------------------------------------------------------------------


@dataclass
class Played:
    """What ``play`` did: the steps done (moves and the end), whether the game ``ended``,
    and the board's ``refusals`` meanwhile (none when all went as scripted)."""

    game: ScriptedGame
    done: int = 0
    ended: bool = False
    refusals: list[str] = field(default_factory=list)


def play(
    board,
    moves,
    pace_s: float = 3.0,
    size: int = 9,
    stop: threading.Event | None = None,
    after_result: bool = False,
    dead=(),
    on_step=None,
) -> Played:
    """Play ``moves`` (a list of vertices, or a ``ScriptedGame``) on ``board`` (a
    ``host_tools.board.sim.Board`` or ``Hands``): start the game at the keys (after a result:
    ``after_result``), then a move every ``pace_s`` seconds until the end. ``stop`` (an
    Event) ends it between two moves; ``on_step(step)`` is called after each. ScriptError
    when the board did not take a step as scripted (the game is left as it stands)."""
    game = moves if isinstance(moves, ScriptedGame) else ScriptedGame("", size, tuple(moves))
    if isinstance(moves, ScriptedGame):
        dead = game.dead
    script = steps(game.moves, game.size, dead)  # before a stone goes down: a bad script
    hands = board if isinstance(board, Hands) else Hands(board)
    stop = stop or threading.Event()
    played = Played(game)
    first = len(hands.refusals)
    begin(hands, game.size, after_result)
    start = time.monotonic()
    for i, step in enumerate(script):
        if stop.is_set():
            break
        if i and stop.wait(max(0.0, start + i * pace_s - time.monotonic())):
            break
        hands.do(*step.commands)
        played.refusals = hands.refusals[first:]
        if played.refusals:
            raise ScriptError(
                "%s: the board refused %s %s: %s"
                % (game.name or "game", step.colour, step.move, "; ".join(played.refusals))
            )
        played.done = i + 1
        if on_step is not None:
            on_step(step)
    played.ended = played.done == len(script) and script[-1].move in ("resign", "count")
    return played


def begin(hands: Hands, size: int, after_result: bool = False) -> None:
    """Start a ``size`` game at the board's keys (see the module's text); ScriptError if the
    menu did not open or the clock did not start."""
    hands.do("show")  # every line again: its stones, its faces, whoever read them before
    lifts = ["lift %s" % p for p in hands.stones()]
    hands.do(*lifts, *(["key pause"] if after_result else []))  # the next game, empty board
    hands.do("key mode long")
    # The menu's games as the faces' glass shows them (the name, the size in the small cells).
    labels = [shown(*texts.GAMES[i]).rstrip() for i in range(len(menus.GAMES))]
    want = labels.index(shown(*texts.GAMES[menus.GAMES.index(("go", size))]).rstrip())
    now = hands.face("B")
    if now not in labels:
        raise ScriptError("the board's menu did not open (its face: %r)" % now)
    # + and - go round the menu's games: the shorter way.
    ahead = (want - labels.index(now)) % len(labels)
    turns = (
        ["key plus"] * ahead
        if ahead <= len(labels) // 2
        else ["key minus"] * (len(labels) - ahead)
    )
    if turns:
        hands.do(*turns)
    if hands.face("B") != labels[want]:
        raise ScriptError("the board's menu shows %r, not GO %d" % (hands.face("B"), size))
    hands.do("key mode long")  # done: the board takes the game
    hands.do("key pause")
    if "RUN" not in hands.face("B"):
        raise ScriptError("Black's clock did not start (its face: %r)" % hands.face("B"))


def configure(port: str, **settings) -> dict:
    """Set the board's ``settings`` over its link at ``port`` (its calendar clock too, for
    the records' dates): e.g. ``time="quick", black="Ann", white="Bo"``. The board's settings
    as it now has them; LinkError if it refused."""
    from host_tools.common.link import Link, set_clock

    with Link(port) as link:
        set_clock(link)
        return link.request("settings", set=settings)["settings"]


class Player(threading.Thread):
    """``games`` played on ``board`` one after another (round and round with ``loop``), a move
    every ``pace_s`` seconds, in a thread: ``start()``, ``stop()``. ``after_result``: the board
    shows a result now (its first game needs PAUSE). ``played`` lists the games played,
    ``steps`` counts the steps done (moves and ends); ``error`` the ScriptError that stopped
    it, if one did."""

    def __init__(
        self,
        board,
        games=DEMO_GAMES,
        pace_s: float = 3.0,
        loop: bool = True,
        after_result: bool = False,
        name: str = "",
    ):
        super().__init__(name=name or "scripted", daemon=True)
        self.hands = Hands(board)
        self.games = list(games)
        self.pace_s = pace_s
        self.loop = loop
        self.halt = threading.Event()
        self.played: list[Played] = []
        self.error: Exception | None = None
        self.after_result = after_result
        self.steps = 0

    def run(self) -> None:
        after = self.after_result
        order = itertools.cycle(self.games) if self.loop else iter(self.games)
        try:
            for game in order:
                if self.halt.is_set():
                    break
                p = play(
                    self.hands,
                    game,
                    self.pace_s,
                    stop=self.halt,
                    after_result=after,
                    on_step=self._stepped,
                )
                self.played.append(p)
                if not p.ended:
                    break
                after = True
                if self.halt.wait(self.pace_s):  # the result on the faces a moment
                    break
        except ScriptError as e:
            self.error = e

    def _stepped(self, step) -> None:
        self.steps += 1

    def stop(self, timeout: float = STEP_TIMEOUT) -> None:
        """Stop after the step at hand, and wait for the thread."""
        self.halt.set()
        if self.is_alive():
            self.join(timeout)
