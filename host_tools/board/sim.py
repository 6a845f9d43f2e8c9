"""``make sim`` / ``tengen sim``: the virtual board, with its PC link on a pseudo-terminal.

The board runs as the device does — ``micropython -m firmware.virtual.board FLASH --link-fd N``:
``firmware/boot/board.py``'s wiring on the virtual hardware (``firmware/hal/virtual.py``), a
journal and the settings, calibration and secret files in a folder that plays its flash —
in a child process on the MicroPython unix port (``make voice``'s phrases copied into its
flash's voice/ first, ``copy_voice``, so it speaks the count as a deployed board). Its link
is served on a pty whose path is printed first (``link: /dev/pts/N``) and noted in the
user's runtime folder while it runs, so ``tengen boards`` finds it and every ``tengen``
command reaches it (``--port``) as a board on USB.

Start reading at ``Board`` (the child process, its pty and its lines), then ``headless`` and
``SimView``. With a terminal, ``SimView`` (textual) shows both faces as their glass shows them,
the buzzer's sounds by name, the speaker's phrase (its words, and its sound on the PC's
where there is a player: host_tools/board/sound.py), the stones on the board and a
cursor, and is played by keys (``KEYS``, listed on its help line): arrows move the cursor;
``b``/``w`` put a black/white stone there; ``x`` lifts it; ``r`` slides it one point right;
``1``/``2`` press Black's/White's paddle; the board's keys: ``p`` PAUSE (it starts the game;
``P`` held long: cancel), ``m`` MODE (``M`` held long: the menu), ``+``/``-``, and its two
chords: ``c`` PLUS+MINUS (resign in play, calibrate before a game), ``a`` PAUSE+MODE (the
arbiter); ``t`` lets 10 s pass; ``q`` quits. Points are named in the game's own coordinates, as
the faces and the records name them (a 9×9 game's D4 sits on the grid's J9): the cursor, the
last move (marked on the board), the points still to clear before a game (marked, with the
stones a move captures still to lift; the board's ``marks`` line). Without a terminal
(``headless``) each line of stdin is a command to the board (``firmware/virtual/board.py``
lists them) and each line the board says is printed; the end of stdin ends it. Closing the
terminal (SIGHUP) or SIGTERM ends the view and stops the board; the board also stops by itself
when its stdin closes (this process gone).
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import tty
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from firmware.link.lines import LIMIT, read_line
from host_tools.board.sound import PcSound

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLUMNS = "ABCDEFGHJKLMNOPQRST"
N = 19


def micropython() -> str:
    """The unix port in this checkout's venv (or beside this Python), else ``micropython`` on
    the PATH."""
    for local in (
        os.path.join(REPO, ".venv", "bin", "micropython"),
        os.path.join(os.path.dirname(sys.executable), "micropython"),
    ):
        if os.path.exists(local):
            return local
    return "micropython"


def default_flash() -> Path:
    """The virtual board's flash when none is chosen: a folder in the user's data folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("tengen", appauthor=False)) / "virtual-board"


def copy_voice(flash: Path, source: Path | None = None) -> list[str]:
    """``make voice``'s files into the flash folder's voice/, as ``tengen deploy`` puts them on
    a board (``host_tools/board/voice.py`` ``install``; none made here): the languages copied.
    None: the virtual board beeps the count, as a board without them does."""
    from host_tools.board import voice

    return voice.install(flash, source, make=False)[0]


class BoardError(Exception):
    """The virtual board could not start (its folder in use, no MicroPython)."""


class Board:
    """The virtual board in a child process: ``link`` its pty's path (for pyserial and
    ``tengen --port``), ``send(command)``, and its output lines on ``lines`` (a queue; None
    when it ended). With ``quiet`` what it writes on stderr comes as lines too (``! ...``),
    for a view that owns the terminal. ``close()`` stops it."""

    def __init__(self, flash: str | os.PathLike | None = None, seed: int = 1, quiet=False):
        self.flash = Path(flash) if flash is not None else default_flash()
        self.flash.mkdir(parents=True, exist_ok=True)
        self._lock = _lock(self.flash)  # one board per flash: two would write one journal
        self.voice = copy_voice(self.flash)
        master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo (the board would read its replies) before pyserial
        self.link = os.ttyname(self.slave)
        # Never block the board on a PC that does not read: a full line is dropped, as USB
        # CDC drops what no one reads (O_NONBLOCK is the open file's: the child shares it).
        os.set_blocking(master, False)
        try:
            self.proc = subprocess.Popen(
                [
                    micropython(),
                    "-m",
                    "firmware.virtual.board",
                    str(self.flash),
                    "--link-fd",
                    str(master),
                    "--seed",
                    str(seed),
                ],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if quiet else None,
                pass_fds=(master,),
                start_new_session=True,  # the terminal's Ctrl-C and hang-up are ours to handle
                text=True,
                bufsize=1,
            )
        except OSError as e:
            os.close(self.slave)
            os.close(self._lock)
            raise BoardError("cannot start MicroPython: %s (make venv?)" % e) from None
        finally:
            os.close(master)  # the child holds it; the slave stays open here, so the master
            # never sees a hang-up between two PC programs
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.note: Path | None = None  # the runtime note: made when the board is ready
        self._closing = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        if quiet:
            threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("ready ") and self.note is None:
                self._register()  # before anyone sees "ready": tengen boards lists it then
            self.lines.put(line)
        self.lines.put(None)

    def _register(self):
        from host_tools.common import link as L

        with self._closing:
            if self.slave < 0:
                return  # closed meanwhile
            try:
                self.note = L.register_virtual(self.link, str(self.flash), self.proc.pid)
            except OSError:
                pass  # no runtime folder: tengen boards will not list it, --port still works

    def _read_errors(self):
        for line in self.proc.stderr:
            self.lines.put("! " + line.rstrip("\n"))

    def send(self, command: str) -> bool:
        """Send one command line; False if the board is gone."""
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, timeout: float = 5.0) -> int | None:
        """Stop the board (the end of its stdin; killed if it does not go); its exit code."""
        from host_tools.common import link as L

        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with self._closing:
            if self.note is not None:
                L.unregister_virtual(self.note)
                self.note = None
            for fd in (self.slave, self._lock):
                if fd >= 0:
                    os.close(fd)
            self.slave = self._lock = -1
        return self.proc.returncode


def _lock(folder: Path) -> int:
    # An exclusive lock on the folder itself (not a file in it: the folder is the flash).
    import fcntl

    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise BoardError("%s is in use by another virtual board" % folder) from None
    return fd


# ---- without a terminal ------------------------------------------------------------------------


def headless(board: Board, inp=None, out=None) -> int:
    """Each line of ``inp`` (stdin) a command, each line of the board printed to ``out``
    (stdout), until the board ends (the end of ``inp`` ends it)."""
    inp = inp or sys.stdin
    out = out or sys.stdout

    def pump():
        while True:
            line = read_line(inp)  # bounded: a longer line is answered, never sent on
            if line is None:
                board.lines.put("? line too long (at most %d characters)" % LIMIT)
                continue
            if not line:
                break
            if not board.send(line.rstrip("\n")):
                return
        try:
            board.proc.stdin.close()  # the end of stdin: the board stops
        except OSError:
            pass

    threading.Thread(target=pump, daemon=True).start()
    while True:
        line = board.lines.get()
        if line is None:
            break
        out.write(line + "\n")
        out.flush()
    board.proc.wait()
    return 0


# ---- the terminal view -------------------------------------------------------------------------


class SimView(App):
    """The virtual board in a terminal: faces, sounds, the stones, a cursor."""

    TITLE = "Tengen virtual board"

    CSS = (
        "#faces { padding: 1 2 0 2; } #board { padding: 1 2; } "
        "#log { padding: 0 2; color: $warning; } #status { padding: 0 2; color: $accent; } "
        "#help { padding: 0 2; color: $text-muted; }"
    )
    KEYS_HELP = (
        "arrows cursor  b/w stone  x lift  r slide right  1/2 Black's/White's paddle  "
        "t 10 s pass  q quit\n"
        "p PAUSE (P long)  m MODE (M long: menu)  +/-  c PLUS+MINUS: resign, calibrate\n"
        "a PAUSE+MODE: the arbiter   marks: × a stone to take off, + one to put down, "
        "(●) the last move"
    )
    # The keys, each also on the help line (``KEYS_HELP``): the board's every key, long press
    # and chord (firmware/ui/buttons.py, firmware/game/app.py's ``key``) has one.
    BINDINGS = [
        Binding("up", "move(0, 1)", "up", show=False),
        Binding("down", "move(0, -1)", "down", show=False),
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("b", "put('b')", "black stone"),
        Binding("w", "put('w')", "white stone"),
        Binding("x", "lift", "lift"),
        Binding("r", "slide", "slide right"),
        Binding("1", "send('press b')", "Black's paddle"),
        Binding("2", "send('press w')", "White's paddle"),
        Binding("p", "send('key pause')", "PAUSE"),
        Binding("P", "send('key pause long')", "long PAUSE"),
        Binding("m", "send('key mode')", "MODE"),
        Binding("M", "send('key mode long')", "menu"),
        Binding("plus,equals_sign", "send('key plus')", "+"),
        Binding("minus", "send('key minus')", "-"),
        Binding("c", "send('key plus+minus')", "resign/calibrate"),
        Binding("a", "send('key pause+mode')", "arbiter"),
        Binding("t", "send('skip 10000')", "10 s pass"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, board: Board):
        super().__init__()
        self.board = board
        self.cursor = [15, 15]  # Q16
        self.faces = {"B": "", "W": ""}
        self.stones = "." * (N * N)  # the board line: row 19 first
        self.marks = "." * (N * N)  # the marks line: what the board wants done, row 19 first
        self.last = ""  # the last move as the board says it: "12 B D4", "" before the first
        self.game = ("go", N)
        self.sounds: list[str] = []
        self.spoken = ""  # the speaker's last phrase (the board's ``say`` line)
        # ... played on the PC's sound where it has one (host_tools/board/sound.py)
        self.sound = PcSound(board.flash / "voice") if board is not None else None
        self.messages: list[str] = []
        self.said: list[str] = []  # every line the board said (for the curious, the tests)
        self.gone = False

    def compose(self) -> ComposeResult:
        yield Static(id="faces")
        yield Static(id="board")
        yield Static(id="log")
        yield Static(id="status")
        yield Static(self.KEYS_HELP, id="help")
        yield Footer()

    def on_mount(self):
        import asyncio

        loop = asyncio.get_running_loop()
        for sig, act in ((signal.SIGHUP, self.hang_up), (signal.SIGTERM, self.exit)):
            try:
                loop.add_signal_handler(sig, act)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        self.set_interval(0.05, self._drain)
        self.set_interval(1.0, self._check_terminal)
        self.draw()

    def _drain(self):
        # What the board said since the last look (its reader thread queues the lines).
        said = False
        while not self.gone:
            try:
                line = self.board.lines.get_nowait()
            except queue.Empty:
                break
            self.said_line(line, draw=False)
            said = True
        if said:
            self.draw()

    def _check_terminal(self):
        # The terminal gone without a SIGHUP: textual's input thread would spin on its end.
        fd = sys.__stdin__.fileno() if sys.__stdin__ else -1
        if not self.is_headless and fd >= 0 and not os.isatty(fd):
            self.hang_up()

    def hang_up(self):
        """The terminal is gone: stop the board and leave at once. Nothing is left to draw
        on, and textual's orderly shutdown would wait for ever on writes to the dead
        terminal."""
        self.board.close()
        os._exit(128 + signal.SIGHUP)

    def said_line(self, line: str | None, draw: bool = True) -> None:
        """One line from the board (None: it ended)."""
        if line is None:
            self.gone = True
            self.messages = (self.messages + ["the board stopped"])[-6:]
            if draw:
                self.draw()
            return
        self.said.append(line)
        word, _, rest = line.partition(" ")
        if word == "face":
            side, _, text = rest.partition(" ")
            self.faces[side] = text
        elif word == "board":
            self.stones = rest
        elif word == "marks":
            self.marks = rest
        elif word == "last":
            self.last = "" if rest.strip() in ("", "0") else rest
        elif word == "game":
            kind, _, size = rest.partition(" ")
            game = (kind, int(size) if size.isdigit() else N)
            if game != self.game:
                self.game = game
                if self.point_name() is None:  # off a smaller game: to its middle
                    self.cursor = [N // 2, N // 2]
        elif word == "buzz":
            self.sounds = (self.sounds + [rest])[-8:]
        elif word == "say":  # the speaker's phrase: its words shown until the next, heard
            lang, cue, words = (rest.split(" ", 2) + ["", ""])[:3]
            self.spoken = words
            if self.sound is not None and cue.isdigit():
                self.sound.say(lang, int(cue))
        elif word in ("?", "!", "bye"):
            self.messages = (self.messages + [line])[-6:]
        if draw:
            self.draw()

    # ---- the keys --------------------------------------------------------------------

    def vertex(self, x=None, y=None) -> str:
        """The grid's name of a point (the cursor's by default), as the board's commands
        take it: 19×19 with Go's columns, whatever the game."""
        x = self.cursor[0] if x is None else x
        y = self.cursor[1] if y is None else y
        return "%s%d" % (COLUMNS[x], y + 1)

    def window(self) -> tuple[int, int]:
        """The game's area on the grid: its first row and column, its size (a smaller game
        sits in the middle)."""
        size = self.game[1]
        return (N - size) // 2, size

    def columns(self) -> str:
        """The game's column letters: Go's skip I, Gomoku's and Renju's do not."""
        from host_tools.live import watch

        return watch.columns(self.game[0])

    def point_name(self, x=None, y=None) -> str | None:
        """A grid point (the cursor's by default) named in the game's own coordinates, as
        the faces and the records name it (``D4`` on a 9×9 game is the grid's J9); None off
        the game's area."""
        x = self.cursor[0] if x is None else x
        y = self.cursor[1] if y is None else y
        lo, size = self.window()
        if not (lo <= x < lo + size and lo <= y < lo + size):
            return None
        from host_tools.live import watch

        return watch.point_name((y - lo) << 5 | (x - lo), self.game[0])

    def to_clear(self) -> list[tuple[int, int, str]]:
        """The points the board wants done (its ``marks``): ``(x, y, mark)`` on the grid,
        ``x`` a stone to take off, ``b``/``w`` one to put down; in the order the faces
        name them (row 1 first)."""
        if len(self.marks) != N * N:
            return []
        out = []
        for y in range(N):
            for x in range(N):
                c = self.marks[(N - 1 - y) * N + x]
                if c != ".":
                    out.append((x, y, c))
        return out

    def action_move(self, dx: int, dy: int) -> None:
        self.cursor[0] = min(N - 1, max(0, self.cursor[0] + dx))
        self.cursor[1] = min(N - 1, max(0, self.cursor[1] + dy))
        self.draw()

    def action_put(self, colour: str) -> None:
        self.action_send("put %s %s" % (self.vertex(), colour))

    def action_lift(self) -> None:
        self.action_send("lift %s" % self.vertex())

    def action_slide(self) -> None:
        x, y = self.cursor
        if x < N - 1:
            self.action_send("slide %s %s" % (self.vertex(), self.vertex(x + 1, y)))
            self.cursor[0] = x + 1
            self.draw()

    def action_send(self, command: str) -> None:
        if not self.board.send(command):
            self.messages = (self.messages + ["the board stopped"])[-6:]
            self.draw()

    # ---- drawing ---------------------------------------------------------------------

    def stone_at(self, x: int, y: int) -> str:
        return self.stones[(N - 1 - y) * N + x] if len(self.stones) == N * N else "."

    def mark_at(self, x: int, y: int) -> str:
        """The board's mark on a grid point (``marks``): ``x``, ``b``, ``w`` or ``.``."""
        return self.marks[(N - 1 - y) * N + x] if len(self.marks) == N * N else "."

    def last_point(self) -> tuple[int, int] | None:
        """The grid point of the last move (None: none yet, or a pass)."""
        from firmware.rules.coords import parse_vertex

        parts = self.last.split()
        if len(parts) != 3 or parts[2] == "pass":
            return None
        lo, size = self.window()
        try:
            x, y = parse_vertex(parts[2], size, self.columns())
        except ValueError:
            return None
        return x + lo, y + lo

    def board_text(self) -> str:
        """The board as drawn (rich markup): the stones, the game's area and its own
        coordinates on the edges, the marks (a red ``×``: a stone to take off; a yellow
        ``+``: a stone to put down), the last move between brackets, ``(●)``, as ``tengen
        watch`` draws it, the cursor in reverse. Each mark is a glyph of its own, so it
        reads without colours too."""
        lo, size = self.window()
        hi = lo + size
        columns = self.columns()
        last = self.last_point()
        lines = []
        for y in range(N - 1, -1, -1):
            row = "%2d" % (y - lo + 1) if lo <= y < hi else "  "
            for x in range(N):
                c = self.stone_at(x, y)
                mark = self.mark_at(x, y)
                if mark == "x" and c != ".":
                    c = "[bold red]×[/bold red]"
                elif mark in ("b", "w") and c == ".":
                    c = "[bold yellow]+[/bold yellow]"
                elif c == ".":
                    c = "·" if lo <= x < hi and lo <= y < hi else " "
                else:
                    c = "●" if c == "X" else "○"
                if [x, y] == self.cursor:
                    c = "[reverse]%s[/reverse]" % c
                here = last is not None and last[1] == y
                row += "(" if here and last[0] == x else ")" if here and last[0] == x - 1 else " "
                row += c
            lines.append(row + (")" if last is not None and last == (N - 1, y) else ""))
        lines.append("   " + " ".join(columns[x - lo] if lo <= x < hi else " " for x in range(N)))
        return "\n".join(lines)

    def draw(self) -> None:
        from rich.markup import escape

        faces = "Black  [bold]%s[/bold]\nWhite  [bold]%s[/bold]\nbuzzer %s\nvoice  %s" % (
            escape(self.faces.get("B", "")),
            escape(self.faces.get("W", "")),
            escape(" ".join(self.sounds[-6:]) or "-"),
            escape(self.spoken or "-"),
        )
        self.query_one("#faces", Static).update(faces)
        self.query_one("#board", Static).update(self.board_text())
        self.query_one("#log", Static).update(escape("\n".join(self.messages)))
        self.query_one("#status", Static).update(escape(self.status_text()))

    def status_text(self) -> str:
        """The status lines: the link and the flash; the game, the cursor and the last move
        in the game's coordinates; the points still to clear."""
        text = "link %s   flash %s\ngame %s %d   cursor %s   last move %s%s" % (
            self.board.link,
            self.board.flash,
            self.game[0],
            self.game[1],
            self.point_name() or "off the game (grid %s)" % self.vertex(),
            self.last or "-",
            "   (stopped)" if self.gone else "",
        )
        todo = self.to_clear()
        if todo:
            text += "\n" + self.todo_text(todo)
        return text

    def todo_text(self, todo: list[tuple[int, int, str]], named: int | None = None) -> str:
        """The points the board wants done, named as the faces name them (``watch``'s
        wording): "to take off (3): D4, E5 and 1 outside the game's area; to put down (2):
        D4, Q16"."""
        from host_tools.live import watch

        parts = []
        for what, marks in (("to take off", "x"), ("to put down", "bw")):
            pts = [(x, y) for x, y, m in todo if m in marks]
            if not pts:
                continue
            names = [self.point_name(x, y) for x, y in pts]
            inside = [n for n in names if n]
            where = watch.points_text(inside, len(names) - len(inside), named)
            parts.append("%s (%d): %s" % (what, len(pts), where))
        return "; ".join(parts)


# ---- the entry point ---------------------------------------------------------------------------


def run(flash: str | None = None, seed: int = 1, view: bool | None = None) -> int:
    """Start the virtual board (``flash`` its folder) and play it: the terminal view if
    ``view`` (default: when stdin and stdout are terminals), else headless."""
    if view is None:
        view = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        board = Board(flash, seed, quiet=view)
    except BoardError as e:
        print("tengen sim: %s" % e, file=sys.stderr)
        return 2
    print("link: %s" % board.link, flush=True)
    print("flash: %s" % board.flash, flush=True)

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGHUP, signal.SIGTERM)}
    try:
        if view:
            app = SimView(board)
            try:
                app.run()
            finally:
                app.sound.close()
            return 0
        return headless(board)
    except KeyboardInterrupt:
        return 130
    finally:
        board.close()
        for s, h in previous.items():
            signal.signal(s, h)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m host_tools.board.sim", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--flash", help="the board's flash folder (default: %s)" % default_flash())
    ap.add_argument("--seed", type=int, default=1, help="the simulated grid's seed")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--headless", action="store_true", help="commands on stdin, lines out")
    mode.add_argument("--view", action="store_true", help="the terminal view")
    a = ap.parse_args(argv)
    view = True if a.view else False if a.headless else None
    return run(a.flash, a.seed, view)


if __name__ == "__main__":
    sys.exit(main())
