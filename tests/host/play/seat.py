"""The player at a virtual board facing an engine (issue L): what the journeys' hands do.

Start reading at ``Seat.run``. The seat sees only what a player sees — the faces' glass and
the buzzer (``host_tools.hall.scripted.Hands`` reads the virtual board's lines) — and acts only with
the board's hands: stones put and lifted on the 19x19 grid, the paddles, the keys. When its face
shows the engine's move (``W E5``) it puts that stone down (once, on purpose, first on a wrong
point: the face must say where it belongs) and lifts what it captures; on its own turn it
plays a move of its ``policy`` and presses its paddle. Captures come from the firmware's own
rules on a copy of the game the seat keeps from what it saw. Go's end: after two passes it
lifts the ``dead`` stones (a function of the position), presses MODE and both paddles; with
``dead="engine"`` (``tengen play``: the engine names its dead stones) it reads them off its
face instead (``DEAD. 3`` and a point, one at a time), lifts each, presses MODE and its own
paddle: the engine's confirmation is the PC's.
"""

from __future__ import annotations

import random
import threading
import time

from firmware.hal.virtual import shown
from firmware.referee import incidents as INC
from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS
from firmware.ui import texts as T
from host_tools.hall import scripted as S

BLACK, WHITE = 1, 2
LOOK_MS = 60  # the seat looks at its face this often (board time)


class SeatError(Exception):
    """The board did not do what a player would expect."""


def go_policy(seed: int, moves: int):
    """A weak Go player: random legal points that fill no eye of its own, ``moves`` of them,
    then passes."""
    rng = random.Random(seed)
    played = [0]

    def choose(game, colour):
        if played[0] >= moves:
            return None
        n = game.size
        points = [(x, y) for x in range(n) for y in range(n)]
        rng.shuffle(points)
        for x, y in points:
            if game.legal(colour, x, y) or _own_eye(game, colour, x, y):
                continue
            played[0] += 1
            return x, y
        return None

    return choose


def _own_eye(game, colour, x, y):
    n = game.size
    near = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return all(game.board.color_at(a, b) == colour for a, b in near if 0 <= a < n and 0 <= b < n)


def renju_policy(seed: int):
    """A random Renju player near the stones (Black may play a forbidden point: a foul)."""
    rng = random.Random(seed)

    def choose(game, colour):
        n = game.size
        taken = [(x, y) for x in range(n) for y in range(n) if game.board.color_at(x, y)]
        near = set()
        for x, y in taken:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    a, b = x + dx, y + dy
                    if 0 <= a < n and 0 <= b < n and not game.board.color_at(a, b):
                        near.add((a, b))
        pool = sorted(near) or [(7, 7)]
        return rng.choice(pool)

    return choose


class Seat(threading.Thread):
    """The player of ``human`` (BLACK or WHITE) at ``board`` (``host_tools.board.sim.Board``) in a
    game the seat keeps as ``game`` (a fresh ``firmware.rules`` game object of the board's
    kind and size); ``policy(game, colour)`` its moves ((x, y) or None: a pass). ``wrong``:
    the engine's move number at which the stone goes first on a wrong point. ``dead(game)``:
    the points to lift after two passes. ``error`` says what went wrong, ``seen_wrong`` the
    face that said where the stone belongs."""

    def __init__(self, board, game, human, policy, wrong=2, dead=None, timeout=600):
        super().__init__(daemon=True)
        self.hands = S.Hands(board)
        self.game = game
        self.go = hasattr(game, "captures")
        self.size = game.board.size
        self.human = human
        self.policy = policy
        self.wrong = wrong
        self.dead = dead
        self.timeout = timeout
        self.error: str | None = None
        self.seen_wrong = ""
        self.faces_said: list[str] = []  # the engine's moves as the human's face said them
        self.moves: list[tuple[int, int]] = []  # (colour, point) as played at the board
        self.passes = 0
        self.ended = False
        self.stopping = False
        columns = GO_COLUMNS if self.go else GOMOKU_COLUMNS
        letter = "W" if human == BLACK else "B"
        self.names = {}
        for x in range(self.size):
            for y in range(self.size):
                self.names[shown(letter, "%s%d" % (columns[x], y + 1)).rstrip()] = (x, y)
        self.mine = "B" if human == BLACK else "W"
        # The small cells' read-back of each point, as DEAD. shows them (tests/host glass).
        self.lift_names = {}
        for x in range(self.size):
            for y in range(self.size):
                text = shown(T.LIFT_DEAD + " 1", "%s%d" % (columns[x], y + 1))
                self.lift_names[text.split()[-1]] = (x, y)
        self.lift_faces: list[str] = []  # every DEAD. face read, in order
        self.lifted: list[tuple[int, int]] = []  # the stones lifted as the engine's dead
        self.differ_face = ""  # the face that said the engine's count differs

    # ---- what the seat sees ---------------------------------------------------------------

    def face(self) -> str:
        return self.hands.face(self.mine)

    def look(self, ms: int = LOOK_MS) -> list[str]:
        return self.hands.do("wait %d" % ms)

    def until(self, done, what: str, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end or self.stopping:
                raise SeatError("%s: not seen (face %r)" % (what, self.face()))
            self.look()

    # ---- the game -------------------------------------------------------------------------

    def run(self) -> None:
        try:
            self._play()
        except Exception as e:  # the test reads it
            self.error = "%s: %s" % (type(e).__name__, e)

    def _play(self) -> None:
        # The PC starts the game: Black's clock runs (its face says RUN).
        self.until(lambda: "RUN" in self.hands.face("B"), "the game's start", self.timeout)
        deadline = time.monotonic() + self.timeout
        while not self.ended and not self.stopping:
            if time.monotonic() > deadline:
                raise SeatError("the game took too long")
            if self.game.to_move == self.human:
                self._my_move()
            else:
                self._engine_move()

    def _engine_move(self) -> None:
        # Wait for the engine's move on my face: a stone to put down, a pass, or the end. My
        # own pass said PASS already: the engine's pass after it shows as DEAD (two passes).
        i_passed = bool(self.moves) and self.moves[-1][1] == 1023
        # Two passes: DEAD, or at once the engine's dead stones (DEAD. and how many) if quick.
        ends = (shown(T.DEAD).rstrip()[:4], shown(T.LIFT_DEAD).rstrip())
        while not self.stopping:
            lines = self.look()
            for line in lines:
                text = line[len("face B ") :].rstrip() if line.startswith("face ") else ""
                if not i_passed and text == shown("PASS").rstrip():
                    self._played(None)
                    return
                if self.go and i_passed and text.startswith(ends):
                    self._played(None)
                    return
            f = self.face()
            if self.go and i_passed and f.startswith(ends):
                self._played(None)
                return
            if f in self.names:
                self._put_engine_stone(f, self.names[f])
                return
        self.ended = True

    def _put_engine_stone(self, face: str, xy) -> None:
        self.faces_said.append(face)
        colour = 3 - self.human
        c = "b" if colour == BLACK else "w"
        x, y = xy
        if self.wrong == len(self.faces_said):
            wrong = self._empty_near(x, y)
            self.hands.do("put %s %s" % (S.grid_point(*wrong, self.size), c))
            belongs = shown("PUT", face.split()[-1]).rstrip()
            self.until(lambda: self.face() == belongs, "PUT on the face", 30)
            self.seen_wrong = self.face()
            if "buzz REFUSE" not in self.hands.said:
                raise SeatError("no refusal sound for the wrong point")
            self.hands.do("lift %s" % S.grid_point(*wrong, self.size))
        taken = self._played((x, y))
        self.hands.do(
            "put %s %s" % (S.grid_point(x, y, self.size), c),
            *["lift %s" % S.grid_point(a, b, self.size) for a, b in taken],
        )
        # Committed by the board: my face shows my clock again, not the engine's move.
        self.until(lambda: self.face() not in self.names, "the engine's stone taken", 30)

    def _empty_near(self, x, y):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)):
            a, b = x + dx, y + dy
            if 0 <= a < self.size and 0 <= b < self.size and not self.game.board.color_at(a, b):
                return a, b
        raise SeatError("no empty point near %d,%d" % (x, y))

    def _my_move(self) -> None:
        xy = self.policy(self.game, self.human)
        c = "b" if self.human == BLACK else "w"
        if xy is None:
            self._played(None)
            self.hands.do("press %s" % c, "wait 400")  # the PASS said: not the engine's
        else:
            taken = self._played(xy)
            self.hands.do(
                "put %s %s" % (S.grid_point(*xy, self.size), c),
                *["lift %s" % S.grid_point(a, b, self.size) for a, b in taken],
                "press %s" % c,
            )
        if self.go and self.passes >= 2:
            self._count()
        elif not self.go and self.game.winner:
            self.ended = True

    def _played(self, xy):
        # The move on the seat's own game; the stones it took.
        g = self.game
        colour = g.to_move
        before = _stones(g)
        if xy is None:
            if self.go:
                g.play(colour, None, None)
            self.passes += 1
            self.moves.append((colour, 1023))
        else:
            r = g.play(colour, *xy)
            if self.go and r:
                raise SeatError("the move %r is not legal here (%d)" % (xy, r))
            self.passes = 0
            self.moves.append((colour, xy[1] << 5 | xy[0]))
        if self.go and self.passes >= 2 and colour != self.human:
            self._count()
        if not self.go and g.winner:
            self.ended = True
        return sorted(before - _stones(g) - ({xy} if xy else set()))

    def _count(self) -> None:
        # Two passes: the dead stones lifted, MODE counts, both paddles confirm.
        if self.dead in ("engine", "engine-differ"):
            self._lift_the_engines_dead()
            return
        self.until(lambda: self.face().startswith(shown("DEAD").rstrip()[:4]), "DEAD", 30)
        lifts = [
            S.grid_point(x, y, self.size) for x, y in (self.dead(self.game) if self.dead else [])
        ]
        self.hands.do(
            *["lift %s" % p for p in lifts], "key mode", "wait 300", "press b", "press w"
        )
        self.ended = True

    def _lift_the_engines_dead(self) -> None:
        # The engine's dead stones come on my face (after the PASS): DEAD., how many, the next
        # point; each lifted, the face names the next, until DEAD (all lifted). Then MODE
        # counts and my paddle confirms.
        # With dead="engine-differ" the last one is left on at first: MODE, the engine does
        # not share that count (DIFFER and the stone, read in ``differ_face``), then the
        # stone is lifted and MODE counts again.
        lift = shown(T.LIFT_DEAD).rstrip()
        self.until(lambda: self.face().startswith(lift), "the dead stones", 60)
        paddle = "press %s" % ("b" if self.human == BLACK else "w")
        while self.face().startswith(lift):
            face = self.face()
            self.lift_faces.append(face)
            xy = self.lift_names.get(face.split()[-1])
            if xy is None:
                raise SeatError("a point not read on the face: %r" % face)
            if self.dead == "engine-differ" and face.startswith(
                shown(T.LIFT_DEAD + " 1").rstrip() + " "
            ):
                differ = shown(T.INCIDENT[INC.COUNT_DIFFERS]).rstrip()
                self.hands.do("key mode")
                self.until(lambda d=differ: self.face().startswith(d), "DIFFER", 60)
                self.differ_face = self.face()
                self.hands.do(paddle)  # confirming alone ends nothing
                self.until(lambda d=differ: not self.face().startswith(d), "counted", 30)
            self.hands.do("lift %s" % S.grid_point(*xy, self.size))
            self.lifted.append(xy)
            self.until(lambda f=face: self.face() != f, "the next dead stone", 30)
        self.hands.do("key mode", "wait 300", paddle)
        self.ended = True

    def stop(self) -> None:
        """The game ended elsewhere (the engine resigned, the PC's side stopped)."""
        self.stopping = True
        self.join(30)


def _stones(game) -> set:
    n = game.board.size
    return {(x, y) for x in range(n) for y in range(n) if game.board.color_at(x, y)}
