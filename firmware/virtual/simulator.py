"""The board on a PC: the real app on the simulated Hall grid, driven by text commands.

    micropython -m firmware.virtual.simulator            # commands on stdin, state lines on stdout
    micropython -m firmware.virtual.simulator --demo     # a short scripted game, then exit

Runs on the MicroPython unix port (``make sim``) and on CPython. Time is simulated: the app's
pass (``App.step``) runs every 50 ms of simulated time, as the board's task does, so a demo of
an hour's game takes seconds. The grid is calibrated first by the real procedure (an empty
board, then the two checkerboard passes), as a maker would.

Commands, one per line (points as Go vertices, ``D4``; colours ``b``/``w``):

    put D4 b [dx dy]   put a stone down (dx, dy: off the point, in hundredths of a pitch)
    lift D4            take a stone off
    slide D4 E4        slide a stone from one point to the next
    key mode [long]    a soft key (pause, mode, plus, minus; pause+mode is the arbiter's
                       chord); a long MODE before the game opens the menu
    press b            the black paddle (or w)
    wait 1500          let simulated time pass (ms)
    start              start the clock (Black's)
    show               print the board, the faces and the last incident
    quit

A host program (``host_tools``' terminal view) speaks the same commands; ``show`` lines are
plain text so a person can also type at it.
"""

import sys

from firmware.clock.clock import BLACK, WHITE
from firmware.game.app import App
from firmware.game.match import Match
from firmware.hal.sim import SimGrid, checkerboard
from firmware.referee import incidents as inc
from firmware.rules.coords import parse_vertex, vertex
from firmware.sensing.calibration import Calibrator
from firmware.sensing.grid import Sensing

N = 19
STEP_MS = 50


def calibrated(seed, reversed=()):
    """A simulated grid calibrated by the real procedure (an empty board, then the two
    checkerboard passes): ``(grid, a frame, the calibration)``."""
    grid = SimGrid(N, seed=seed, reversed=reversed)
    frame = grid.new_frame()
    cal = Calibrator(N)
    for add, phase in ((cal.add_empty, None), (cal.add_pass_a, 0), (cal.add_pass_b, 1)):
        if phase is not None:
            checkerboard(grid, phase)
        for _ in range(6):
            add(grid.scan(frame))
    grid.clear()
    return grid, frame, cal.finish()


def face_text(f):
    """A face as the player sees it: the time, then what the small cells and marks show."""
    from firmware.clock import clock as ck

    out = bytes(f.text[: f.length]).decode()
    if f.count_s >= 0:
        out += " (%ds" % f.count_s + (", %d left)" % f.units if f.units >= 0 else ")")
    elif f.units >= 0:
        out += " (%d used)" % f.units
    if f.moves_left >= 0:
        out += " [%d moves]" % f.moves_left
    for bit, mark in ((ck.F_RUNNING, "*"), (ck.F_PAUSED, " PAUSE"), (ck.F_FLAGGED, " FLAG")):
        if f.flags & bit:
            out += mark
    return out


class Buzzer:
    """The buzzer as text: each cue is printed when it sounds."""

    def __init__(self, out):
        self.out = out

    def play(self, pattern, now):
        self.out("  [buzzer] " + " ".join("%d Hz %d ms" % step for step in pattern))

    def step(self, now):
        pass


class Simulator:
    """The simulated board and its app, at simulated time ``now``."""

    def __init__(self, settings=None, out=print, seed=1):
        self.out = out
        self.grid, frame, cal = calibrated(seed)
        settings = settings or {"game": "go19", "time": "cn-local"}
        self.match = Match(settings, Sensing(N, cal))
        self.now = 0
        self.levels = 0  # the soft keys held (firmware/ui/buttons.py's bits)
        from firmware.ui.arbiter import Arbiter

        self.app = App(
            self.grid,
            self.match,
            buzzer=Buzzer(out),
            now=lambda: self.now,
            keys=lambda: self.levels,
            arbiter=Arbiter(settings.get("pin", "0000")),
        )
        self.wait(300)

    @property
    def match(self):
        return self.app.match if hasattr(self, "app") else self._match

    @match.setter
    def match(self, m):
        self._match = m

    def wait(self, ms):
        """Let ``ms`` of simulated time pass, the app stepping every 50 ms."""
        end = self.now + ms
        while self.now < end:
            self.now += STEP_MS
            self.app.guarded_step(self.now)

    def command(self, line):
        """Run one command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        cmd = words[0].lower()
        try:
            if cmd == "quit":
                return False
            if cmd == "put":
                x, y = parse_vertex(words[1], N)
                c = BLACK if words[2].lower().startswith("b") else WHITE
                dx = int(words[3]) / 100 if len(words) > 3 else 0.0
                dy = int(words[4]) / 100 if len(words) > 4 else 0.0
                self.grid.put(x, y, c, dx=dx, dy=dy)
                self.wait(250)
            elif cmd == "lift":
                x, y = parse_vertex(words[1], N)
                self.grid.lift(x, y)
                self.wait(250)
            elif cmd == "press":
                side = BLACK if words[1].lower().startswith("b") else WHITE
                self.app.paddles.hit(side, self.now + 1)
                self.wait(STEP_MS)
                self.report_press()
            elif cmd == "key":
                from firmware.ui import buttons as btn

                bits = 0
                for name in words[1].lower().split("+"):
                    bits |= {"pause": btn.PAUSE, "mode": btn.MODE, "plus": btn.PLUS}.get(
                        name, btn.MINUS if name == "minus" else 0
                    )
                if not bits:
                    raise ValueError("keys are pause, mode, plus, minus (a+b for a chord)")
                self.levels = bits
                self.wait(900 if len(words) > 2 and words[2] == "long" else 100)
                self.levels = 0
                self.wait(100)
                self.report_ui()
            elif cmd == "slide":
                a = parse_vertex(words[1], N)
                b = parse_vertex(words[2], N)
                for _ in self.grid.slide((a, b), 4):
                    self.wait(STEP_MS)
                self.wait(250)
            elif cmd == "wait":
                self.wait(int(words[1]))
            elif cmd == "start":
                self.match.start(self.now)
            elif cmd == "show":
                self.show()
            else:
                self.out("? unknown command: %s" % cmd)
        except (IndexError, ValueError) as e:
            self.out("? %s: %s" % (line.strip(), e))
        return True

    def report_ui(self):
        app = self.app
        if app.menu is not None:
            self.out("  [menu] %s" % "  ".join(app.menu.text()).strip())
        elif app.arbiter is not None and app.arbiter.state:
            self.out("  [arbiter] %s" % "  ".join(app.arbiter.text(self.now)).strip())

    def report_press(self):
        log = self.match.referee.log.last()
        if log is not None and log[0] != inc.MOVE:
            zh, en = inc.words(log[0])
            m = self.match.referee.margin  # a smaller game sits in the middle of the grid
            pts = " ".join(vertex((p & 31) + m, (p >> 5) + m) for p in log[3])
            self.out("  [referee] %s / %s %s" % (zh, en, pts))

    def show(self):
        """The board as the rules hold it, both faces, whose turn, the result."""
        from firmware.clock.clock import Face

        b = self.match.game.board
        n = b.size
        m = (N - n) // 2  # the game's place on the 19x19 grid (Renju's 15x15 in the middle)
        for y in range(N - 1, -1, -1):
            row = []
            for x in range(N):
                c = 0
                if m <= x < m + n and m <= y < m + n:
                    c = b.color_at(x - m, y - m)
                row.append("X" if c == BLACK else "O" if c == WHITE else ".")
            self.out("%2d %s" % (y + 1, " ".join(row)))
        self.out("   " + " ".join("ABCDEFGHJKLMNOPQRST"))
        f = Face()
        faces = []
        for side in (BLACK, WHITE):
            self.match.clock.face(side, self.now, f)
            faces.append(face_text(f))
        g = self.match.game
        self.out(
            "black %s | white %s | move %d | %s"
            % (faces[0], faces[1], g.ply, self.match.result or ("black", "white")[g.to_move - 1])
        )


DEMO = (
    "start",
    "put Q16 b",
    "wait 4000",
    "press b",
    "put D4 w 6 -4",
    "wait 7000",
    "press w",
    "put Q4 b",
    "put C3 b",
    "press b",  # two stones: refused (连走二步)
    "lift C3",
    "wait 2000",
    "press b",
    "put D16 w",
    "wait 3000",
    "press w",
    "show",
)


def play_taking(game, c, x, y):
    """Play ``c`` at ``(x, y)`` on a Go ``game`` (x None: pass): the points ``(x, y)`` of the
    stones the move took off, which a player lifts before pressing the clock."""
    b = game.board
    n = b.size
    before = bytes(b.color_at(i % n, i // n) for i in range(n * n))
    r = game.play(c, x, y)
    if r:
        raise ValueError("the rules refuse %s at %r (reason %d)" % (c, (x, y), r))
    return [(i % n, i // n) for i in range(n * n) if before[i] and not b.color_at(i % n, i // n)]


def sgf_commands(path, think_ms=3000):
    """The commands that play an SGF game at the board: each stone put down, the stones it
    captures taken off, the paddle pressed; a pass is a press with no stone."""
    from firmware.rules import sgf
    from firmware.rules.go import Game

    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    moves = sgf.moves(nodes, N)
    nodes = None
    shadow = Game(N)
    yield "start"
    for colour, xy in moves:
        c = BLACK if colour == "B" else WHITE
        yield "wait %d" % think_ms
        if xy is not None:
            taken = play_taking(shadow, c, xy[0], xy[1])
            yield "put %s %s" % (vertex(xy[0], xy[1]), colour.lower())
            for x, y in taken:
                yield "lift %s" % vertex(x, y)
        else:
            shadow.play(c, None, None)
        yield "press %s" % colour.lower()
    yield "show"


def main(argv):
    """``--demo`` plays the scripted game, ``--play FILE`` a file of commands, ``--sgf FILE``
    an SGF game stone by stone; otherwise commands come from stdin."""
    sim = Simulator()
    sim.out("tengen simulator: the firmware app on a simulated 19x19 Hall grid")
    script = None
    if "--demo" in argv:
        script = DEMO
    for flag in ("--play", "--sgf"):
        if flag in argv and argv.index(flag) + 1 < len(argv):
            path = argv[argv.index(flag) + 1]
            script = sgf_commands(path) if flag == "--sgf" else open(path)
    if script is not None:
        for line in script:
            line = line.strip()
            if line:
                sim.out("> " + line)
                if not sim.command(line):
                    break
        return
    from firmware.link.lines import LIMIT, read_line

    while True:
        line = read_line(sys.stdin)  # bounded: a longer line is answered, never held whole
        if line is None:
            sim.out("? line too long (at most %d characters)" % LIMIT)
        elif not line or not sim.command(line):
            break


if __name__ == "__main__":
    main(sys.argv)
