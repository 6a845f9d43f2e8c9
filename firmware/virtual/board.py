"""The virtual board: the whole board on a PC, wired as the device is, its link on a pty.

    micropython -m firmware.virtual.board FLASH_DIR --link-fd N [--seed S]
    micropython -m firmware.virtual.board [FLASH_DIR] --demo | --sgf FILE | --play FILE | --simulated

``FLASH_DIR`` plays the board's flash (settings, calibration, secret, the journal, the
board's id: firmware/boot/board.py); ``N`` an inherited file descriptor, the master side of a
pseudo-terminal, where the PC link is served as on the USB serial; ``S`` the simulated
grid's seed (the same grid at every start). ``host_tools/board/sim.py`` (``make sim``,
``tengen sim``) makes the pty and the folder and starts this; it runs on the MicroPython unix
port, and imports on CPython.

Start reading at ``main``. The board is ``firmware/boot/board.py``'s ``build`` on the virtual
hardware (``firmware/hal/virtual.py``); under asyncio run the app's tasks, the link
(``firmware.link.server.serve``) and the hands: command lines read from stdin without
blocking. Points are the physical grid's, 19×19
with Go's columns (A–T, no I); a smaller game sits in its middle (Go 9×9's E5 is K10).

    put D4 b [dx dy]   put a stone down (dx, dy: off the point, in hundredths of a pitch)
    lift D4            take a stone off
    slide D4 E4        slide a stone from one point to the next
    press b            Black's paddle (w: White's); a press with no new stone is a pass
    key mode [long]    a soft key: pause, mode, plus, minus, or a chord (pause+mode)
    wait 1500          let 1.5 s pass (real time: the board goes on meanwhile)
    skip 60000         let a minute of the board's time pass at once, without waiting
    show               print every line below again
    echo WORDS         print ``echo WORDS`` when the commands before it are done
    quit
    # WORDS            a comment (also after a command): nothing is done

Each command takes as long as a hand would (a stone 0.3 s, a key 0.25 s or 1 s when long),
so a script of commands plays like a person. What comes out on stdout, one line per change
a player could see or hear:

    ready BOARD_ID     the board is up
    face B TEXT        Black's face as its glass shows it (``face W``: White's)
    buzz NAME          a buzzer pattern (KEY, REFUSE, CONFIRM, MARK, TIMEOUT/FLAG, ...)
    say LANG CUE WORDS the speaker begins a phrase of the count: its language (zh, en), its
                       cue (firmware/clock/cues.py, kind << 8 | n) and its words
                       (``say zh 772 还剩4分钟``)
    board ROWS         the stones really on the grid: 361 of ``.XO``, row 19 first, each
                       row from A to T
    game KIND SIZE     the game the board is set for
    marks ROWS         what the board wants done, as ``board``: ``x`` a stone to take off
                       (before a game: stones the new game does not have; in play: the
                       stones the turn's stone captures; a disturbed board's way back),
                       ``b``/``w`` a stone of that colour to put down, ``.`` nothing
    last N C POINT     the game's last move, its number, colour and point in the game's
                       own coordinates (``last 12 B D4``, ``last 3 W pass``; ``last 0``)
    ? WHAT             a command the board could not take (it goes on)
    bye WHY            the end: quit, eof (stdin closed), maintenance (the link's request)

The board stops on ``quit``, at the end of stdin, or on the link's ``maintenance``, with
nothing to save: the journal holds every move. Killed, it starts again on the same folder
with the unfinished game paused and its stones where they were (stones do not move when
the power goes).

Simulated time (``simulated``: the replays, the tests' rigs, the benches) is the same board
on the same hardware, its tick (``hw.ms``) moved by the commands instead of the host's
clock: nothing waits, the app's pass (``App.step``) runs every STEP_MS of the board's time
as ``wait`` lets it pass, and a script of an hour's game plays in seconds. No asyncio and
no link there: ``do(line)`` carries out one command at once and writes what changed,
``play(lines)`` a script. From the command line: ``--demo`` (``DEMO``, a short game),
``--sgf FILE`` (an SGF game stone by stone: ``sgf_commands``, the captures lifted),
``--play FILE`` (a file of commands), ``--simulated`` (commands on stdin); without a
``FLASH_DIR`` a fresh folder is used and removed at the end.
"""

import sys

from firmware.clock import ticks
from firmware.hal import virtual as V
from firmware.rules.coords import GO_COLUMNS, parse_vertex

N = V.N
PUT_MS = 300  # a stone put down, lifted: the hand's time, and the sensing's debounce
PRESS_MS = 150
KEY_MS = 100  # a key held, then released
LONG_MS = 900  # a long press (buttons.py: 800 ms)
GAP_MS = 150  # after a key: the next is another press
SLIDE_STEPS = 4
SLIDE_STEP_MS = 60
SKIP_STEPS = 40  # a skip is taken in at most this many steps, the app running between
REPORT_MS = 40
FIRST_REPORT_MS = 150
STEP_MS = 50  # simulated time: the app's pass every 50 ms of the board's time
START_MS = 300  # simulated time: the board's first moments, before the hands


def _key_bits(name):
    from firmware.ui import buttons as btn

    bits = 0
    for k in name.lower().split("+"):
        b = {"pause": btn.PAUSE, "mode": btn.MODE, "plus": btn.PLUS, "minus": btn.MINUS}.get(k)
        if b is None:
            raise ValueError("keys are pause, mode, plus, minus (a+b for a chord)")
        bits |= b
    return bits


def _side(word):
    w = word.lower()
    if w in ("b", "black"):
        return 1
    if w in ("w", "white"):
        return 2
    raise ValueError("b or w")


class VirtualBoard:
    """The board built on ``hw`` (``firmware/hal/virtual.py``), its hands (``command``) and
    what it shows (``report``), written by ``out(line)``."""

    def __init__(self, hw, out):
        from firmware.boot import board

        self.hw = hw
        self.out = out
        self.simulated = getattr(hw, "ms", None) is not None  # hw's tick is ours to move
        self.app, self.server = board.build(hw)
        self.grid = hw.scanner
        self.seen = {}  # what each line last said
        self._restore_stones()

    def _restore_stones(self):
        # A game resumed after the power went: its stones are still on the board.
        m = self.app.match
        b = m.game.board
        n = b.size
        off = (N - n) // 2
        for y in range(n):
            for x in range(n):
                c = b.color_at(x, y)
                if c:
                    self.grid.put(x + off, y + off, c)

    # ---- what the board shows ----------------------------------------------------------------

    def lines(self):
        """``(key, line)`` of everything a player sees now."""
        hw = self.hw
        out = [
            ("face B", ("face B " + hw.glass(0).line()).rstrip()),
            ("face W", ("face W " + hw.glass(1).line()).rstrip()),
        ]
        m = self.app.match
        out.append(("game", "game %s %d" % (m.settings.get("game", "go"), m.game.board.size)))
        truth = self.grid.truth()
        rows = []
        for y in range(N - 1, -1, -1):
            for x in range(N):
                rows.append(".XO"[truth[y * N + x]])
        out.append(("board", "board " + "".join(rows)))
        marks = self.app.to_clear()
        rows = []
        for y in range(N - 1, -1, -1):
            for x in range(N):
                rows.append(marks.get(y * N + x, "."))
        out.append(("marks", "marks " + "".join(rows)))
        out.append(("last", self._last(m)))
        return out

    def _last(self, m):
        # The game's last move in its own coordinates: "last 12 B D4", "last 3 W pass",
        # "last 0" before the first.
        from firmware.link.server import _move
        from firmware.ui.say import point_name

        g = m.game
        if not g.ply:
            return "last 0"
        colour, p = _move(g, g.ply - 1)
        where = "pass" if p == 1023 else point_name(p, not m.referee.go)
        return "last %d %s %s" % (g.ply, "?BW"[colour if colour in (1, 2) else 0], where)

    def report(self, force=False):
        """Write the lines that changed (all with ``force``), then what the buzzer played
        and the speaker said."""
        for key, line in self.lines():
            if force or self.seen.get(key) != line:
                self.seen[key] = line
                self.out(line)
        for name in self.hw.buzzer.take():
            self.out("buzz " + name)
        sp = getattr(self.hw, "speaker", None)
        if sp is not None:
            from firmware.clock.cues import words
            from firmware.ui.voice import LANGS

            for cue, lang in sp.take():
                self.out("say %s %d %s" % (LANGS[lang].decode(), cue, words(cue)[lang]))

    async def observe(self):
        await ticks.sleep_ms(FIRST_REPORT_MS)  # the app's first pass has drawn the faces
        while True:
            try:
                self.report()
            except Exception as e:  # the view must never stop the board
                self.out("? report: %r" % e)
            await ticks.sleep_ms(REPORT_MS)

    # ---- the time ---------------------------------------------------------------------------

    async def sleep(self, ms):
        """The hands' time: real (the board's tasks run meanwhile) or, simulated, ``wait``."""
        if self.simulated:
            self.wait(ms)
        else:
            await ticks.sleep_ms(ms)

    def wait(self, ms):
        """Simulated time: let ``ms`` of the board's time pass at once, the app's pass
        (``App.step``, guarded as the board's tasks are) every STEP_MS of it."""
        hw = self.hw
        end = hw.ms + ms
        while hw.ms < end:
            hw.ms += STEP_MS
            self.app.guarded_step(hw.now())

    def do(self, line):
        """Simulated time: carry out one command line at once (its time simulated), then
        write the lines that changed; False after ``quit``."""
        c = self.command(line)
        try:
            c.send(None)  # never suspends: every sleep is simulated (``sleep``)
        except StopIteration as e:
            going = e.value
        else:
            raise RuntimeError("a command waited for real time")
        self.report()
        return going

    def play(self, script, echo=True):
        """Simulated time: every command line of ``script`` (an iterable of lines), each
        written first as ``> LINE`` with ``echo``, until ``quit``: False if it quit."""
        for line in script:
            line = line.strip()
            if line:
                if echo:
                    self.out("> " + line)
                if not self.do(line):
                    return False
        return True

    # ---- the hands --------------------------------------------------------------------------

    async def command(self, line):
        """Carry out one command line, taking the time it takes; False after ``quit``. A ``#``
        starts a comment (a script's notes: README.md's walk quotes the faces so)."""
        cut = line.find("#")
        if cut >= 0:
            line = line[:cut]
        words = line.split()
        if not words:
            return True
        cmd = words[0].lower()
        try:
            return await self._command(cmd, words)
        except IndexError:
            self.out("? %s: a word is missing" % line.strip())
        except (ValueError, KeyError) as e:
            self.out("? %s: %s" % (line.strip(), e))
        except Exception as e:  # a bad command never stops the board
            self.out("? %s: %r" % (line.strip(), e))
        return True

    async def _command(self, cmd, words):
        hw = self.hw
        grid = self.grid
        if cmd == "quit":
            return False
        if cmd == "put":
            x, y = parse_vertex(words[1], N, GO_COLUMNS)
            c = _side(words[2])
            dx = int(words[3]) / 100 if len(words) > 3 else 0.0
            dy = int(words[4]) / 100 if len(words) > 4 else 0.0
            grid.put(x, y, c, dx=dx, dy=dy)
            await self.sleep(PUT_MS)
        elif cmd == "lift":
            x, y = parse_vertex(words[1], N, GO_COLUMNS)
            grid.lift(x, y)
            await self.sleep(PUT_MS)
        elif cmd == "slide":
            a = parse_vertex(words[1], N, GO_COLUMNS)
            b = parse_vertex(words[2], N, GO_COLUMNS)
            for _ in grid.slide((a, b), SLIDE_STEPS):
                await self.sleep(SLIDE_STEP_MS)
            await self.sleep(PUT_MS)
        elif cmd == "press":
            hw.press(_side(words[1]))
            await self.sleep(PRESS_MS)
        elif cmd == "key":
            bits = _key_bits(words[1])
            ms = LONG_MS if len(words) > 2 and words[2].lower() == "long" else KEY_MS
            hw.keys.hold(bits, ms)
            await self.sleep(ms + GAP_MS)
        elif cmd == "wait":
            await self.sleep(int(words[1]))
        elif cmd == "skip":
            ms = int(words[1])
            if ms < 0:
                raise ValueError("time does not go back")
            step = max(1000, ms // SKIP_STEPS)
            while ms > 0:  # in steps, so the app sees the time go by (and each cue due)
                d = min(step, ms)
                hw.skip(d)
                ms -= d
                await self.sleep(25)
        elif cmd == "show":
            self.report(force=True)
        elif cmd == "echo":
            self.report()
            self.out(" ".join(words))
        else:
            self.out(
                "? unknown command: %s (put lift slide press key wait skip show echo quit)" % cmd
            )
        return True

    async def control(self, inp):
        """Command lines from ``inp`` (stdin), read without blocking the board, until
        ``quit``, the end of ``inp`` or the link's ``maintenance``: the reason."""
        import select

        stream = getattr(inp, "buffer", inp)
        poller = select.poll()
        poller.register(inp, select.POLLIN)
        from firmware.link.lines import LIMIT

        buf = b""
        long = False  # inside a line longer than LIMIT
        await ticks.sleep_ms(FIRST_REPORT_MS)  # the hands wait for the faces to light up
        while not self.server.maintenance:
            eof = False
            k = 0
            b = b""
            while k < 512:
                ready = poller.poll(0)
                if not ready or not ready[0][1] & (select.POLLIN | select.POLLHUP):
                    break
                b = stream.read(1)
                if not b:
                    eof = b is not None  # None: nothing after all (non-blocking)
                    break
                k += 1
                if long and b != b"\n":
                    continue  # the rest of a line too long, dropped to its newline
                buf += b
                if b == b"\n":
                    break
                if len(buf) > LIMIT:  # bounded as the link's lines are (firmware/link/lines.py)
                    buf = b""
                    long = True
            if long and b == b"\n":
                long = False
                buf = b""
                self.out("? line too long (at most %d bytes)" % LIMIT)
            while b"\n" in buf:
                i = buf.index(b"\n")
                try:
                    line = buf[:i].decode()
                except UnicodeError:
                    line = "\ufffd"  # not UTF-8: an unknown command, answered as one
                buf = buf[i + 1 :]
                if not await self.command(line):
                    return "quit"
                if self.server.maintenance:
                    return "maintenance"
            if eof:
                if buf.strip() and not await self.command(buf.decode()):
                    return "quit"
                return "eof"
            await ticks.sleep_ms(20)
        return "maintenance"


async def run(vb, link, inp):
    """The board's tasks (the app, the link, the report) and the hands, until the hands
    stop: the reason (``VirtualBoard.control``)."""
    import asyncio

    from firmware.link.server import serve

    tasks = [asyncio.create_task(vb.app.run()), asyncio.create_task(vb.observe())]
    if link is not None:  # without one: the hands alone (a quick look, the tests)
        tasks.append(asyncio.create_task(serve(vb.server, link)))
    try:
        why = await vb.control(inp)
    finally:
        for t in tasks:
            t.cancel()
    vb.report()
    return why


def _write_line(line):
    out = sys.stdout
    out.write(line + "\n")
    try:
        out.flush()
    except AttributeError:
        pass


def simulated(root, out, seed=1, settings=None, dead=None):
    """The virtual board in simulated time, its flash in the folder ``root`` (made if
    missing), its lines written by ``out``, started (its first START_MS passed): the board
    the scripts, the replays, the tests and the benches drive with ``do``/``play``/``wait``.
    ``settings`` (a dict): written to the flash's settings file first, as the menu would;
    ``seed``, ``dead``: the grid's (``make_hardware``)."""
    if settings is not None:
        import json
        import os

        from firmware.boot import board
        from firmware.store.journal import write_atomic

        try:
            os.mkdir(root)
        except OSError:
            pass  # there already
        write_atomic(root + board.SETTINGS, json.dumps(settings).encode())
    hw = V.make_hardware(root, None, seed, dead=dead, simulated=True)
    vb = VirtualBoard(hw, out)
    vb.wait(START_MS)
    return vb


# ---- replays: scripts of commands --------------------------------------------------------------

DEMO = (  # a short game: two stones at once refused (连走二步), then taken back
    "key pause",
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
    """The commands that play a 19x19 SGF game at the board, stone by stone: the clock
    started, then each stone put down after ``think_ms``, the stones it captures taken off,
    the paddle pressed; a pass is a press with no stone."""
    from firmware.rules import sgf
    from firmware.rules.coords import vertex
    from firmware.rules.go import Game

    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    moves = sgf.moves(nodes, N)
    nodes = None
    shadow = Game(N)
    yield "key pause"
    for colour, xy in moves:
        c = 1 if colour == "B" else 2
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


# ---- the command line ----------------------------------------------------------------------------

USAGE = (
    "usage: micropython -m firmware.virtual.board FLASH_DIR --link-fd N [--seed S]\n"
    "       micropython -m firmware.virtual.board [FLASH_DIR] --simulated|--demo|--play FILE|"
    "--sgf FILE [--seed S]"
)


def _args(argv):
    # FLASH_DIR --link-fd N [--seed S], or simulated time: [FLASH_DIR] and one of
    # --simulated (stdin), --demo, --play FILE, --sgf FILE.
    root = None
    fd = None
    seed = 1
    script = None  # simulated time: None (real time), "stdin", "demo", ("play"|"sgf", FILE)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--link-fd":
            fd = int(argv[i + 1])
            i += 1
        elif a == "--seed":
            seed = int(argv[i + 1])
            i += 1
        elif a == "--simulated":
            script = "stdin"
        elif a == "--demo":
            script = "demo"
        elif a in ("--play", "--sgf"):
            script = (a[2:], argv[i + 1])
            i += 1
        elif root is None and not a.startswith("-"):
            root = a
        else:
            raise ValueError("unknown argument: " + a)
        i += 1
    if script is not None and fd is not None:
        raise ValueError("simulated time has no link (--link-fd)\n" + USAGE)
    if root is None and script is None:
        raise ValueError(USAGE)
    while root is not None and len(root) > 1 and root.endswith("/"):
        root = root[:-1]
    return root, fd, seed, script


def _temp_root():
    # A flash folder for one simulated run with none given, removed at its end.
    import binascii
    import os

    base = os.getenv("TMPDIR") or "/tmp"
    root = base.rstrip("/") + "/tengen-virtual-" + binascii.hexlify(os.urandom(6)).decode()
    os.mkdir(root)
    return root


def _remove(path):
    import os

    if not os.stat(path)[0] & 0x4000:  # S_IFDIR
        os.remove(path)
        return
    for name in os.listdir(path):
        _remove(path + "/" + name)
    os.rmdir(path)


def _simulate(root, seed, script):
    # Simulated time: a script, or stdin's lines read one at a time (nothing waits for
    # them: the board's time stands still between commands). The exit status.
    temp = root is None
    if temp:
        root = _temp_root()
    try:
        vb = simulated(root, _write_line, seed)
        _write_line("ready " + vb.hw.board_id)
        vb.report()
        if script == "stdin":
            from firmware.link.lines import LIMIT, read_line

            why = "eof"
            while True:
                line = read_line(sys.stdin)  # bounded: a longer line is answered, not held
                if line is None:
                    _write_line("? line too long (at most %d bytes)" % LIMIT)
                elif not line:
                    break
                elif not vb.do(line):
                    why = "quit"
                    break
        else:
            if script == "demo":
                lines = DEMO
            elif script[0] == "sgf":
                lines = sgf_commands(script[1])
            else:
                lines = open(script[1])
            try:
                why = "eof" if vb.play(lines) else "quit"
            finally:
                if hasattr(lines, "close"):
                    lines.close()
        _write_line("bye " + why)
    finally:
        if temp:
            _remove(root)
    return 0


def main(argv):
    import asyncio

    try:
        root, fd, seed, script = _args(argv)
    except (ValueError, IndexError) as e:
        _write_line("? %s" % e)
        return 2
    if script is not None:
        return _simulate(root, seed, script)
    link = open(fd, "r+b") if fd is not None else None
    hw = V.make_hardware(root, link, seed)
    vb = VirtualBoard(hw, _write_line)
    _write_line("ready " + hw.board_id)
    why = asyncio.run(run(vb, link, sys.stdin))
    _write_line("bye " + why)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
