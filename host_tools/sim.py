"""``make sim``'s terminal view: the firmware app on the MicroPython unix port, played by keys.

The board runs as it would on the RP2040 — ``micropython -m firmware.simulator``, the real app
on a simulated Hall grid — in a child process; this view (textual) sends it the simulator's
commands and draws what it answers: the board as the rules hold it, both clock faces, and the
referee's and the buzzer's messages.

Keys: arrows move the cursor; ``b``/``w`` put a black/white stone there; ``x`` lifts it;
``r`` slides it one point right; ``1``/``2`` press Black's/White's paddle; ``s`` starts the
clock; ``t`` lets 10 s pass; the board's own keys: ``p`` pause, ``m`` mode (``M`` held long:
the menu before a game), ``+``/``-``, ``a`` the arbiter's chord; ``q`` quits.
"""

import os
import subprocess
import sys

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def micropython():
    """The unix port in this checkout's venv, else ``micropython`` on the PATH."""
    local = os.path.join(REPO, ".venv", "bin", "micropython")
    return local if os.path.exists(local) else "micropython"


class Board:
    """The simulator child process: ``ask(command)`` → (board rows, status, messages)."""

    def __init__(self, command=None):
        self.proc = subprocess.Popen(
            command or [micropython(), "-m", "firmware.simulator"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.banner = self.proc.stdout.readline().strip()

    def ask(self, command):
        """Send a command and then ``show``; the board rows, the status line, the messages."""
        self.proc.stdin.write(command + "\nshow\n")
        self.proc.stdin.flush()
        rows = []
        messages = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the simulator stopped")
            line = line.rstrip("\n")
            if line.startswith("black "):
                return rows, line, messages
            if len(line) > 3 and line[:2].strip().isdigit() and line[2] == " ":
                rows.append(line)
            elif line.strip() and not line.startswith("   A B"):
                messages.append(line.strip())

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()


class SimView(App):
    """The terminal view of the simulated board."""

    CSS = "#board { padding: 1 2; } #status { padding: 0 2; } #log { padding: 0 2; color: $warning; }"
    BINDINGS = [
        Binding("up", "move(0, 1)", "up", show=False),
        Binding("down", "move(0, -1)", "down", show=False),
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("b", "put('b')", "black stone"),
        Binding("w", "put('w')", "white stone"),
        Binding("x", "lift", "lift"),
        Binding("1", "press('b')", "Black's paddle"),
        Binding("2", "press('w')", "White's paddle"),
        Binding("s", "send('start')", "start clock"),
        Binding("r", "slide", "slide right"),
        Binding("p", "send('key pause')", "pause key"),
        Binding("m", "send('key mode')", "mode key"),
        Binding("M", "send('key mode long')", "menu"),
        Binding("plus,equals_sign", "send('key plus')", "+", show=False),
        Binding("minus", "send('key minus')", "-", show=False),
        Binding("a", "send('key pause+mode')", "arbiter"),
        Binding("t", "send('wait 10000')", "10 s pass"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, board=None):
        super().__init__()
        self.board = board
        self.cursor = [15, 15]  # Q16
        self.rows = []
        self.status = ""
        self.messages = []

    def compose(self) -> ComposeResult:
        yield Static(id="board")
        yield Static(id="status")
        yield Static(id="log")
        yield Footer()

    def on_mount(self):
        if self.board is None:
            self.board = Board()
        self.action_send("wait 0")

    def on_unmount(self):
        if self.board is not None:
            self.board.close()

    def vertex(self):
        x, y = self.cursor
        return "%s%d" % (COLUMNS[x], y + 1)

    def action_move(self, dx, dy):
        self.cursor[0] = min(18, max(0, self.cursor[0] + dx))
        self.cursor[1] = min(18, max(0, self.cursor[1] + dy))
        self.draw(self.status)

    def action_put(self, colour):
        self.action_send("put %s %s" % (self.vertex(), colour))

    def action_slide(self):
        x, y = self.cursor
        if x < 18:
            self.action_send("slide %s %s%d" % (self.vertex(), COLUMNS[x + 1], y + 1))
            self.cursor[0] = x + 1
            self.draw(self.status)

    def action_lift(self):
        self.action_send("lift %s" % self.vertex())

    def action_press(self, colour):
        self.action_send("press %s" % colour)

    def action_send(self, command):
        self.rows, self.status, messages = self.board.ask(command)
        self.messages = (self.messages + messages)[-6:]
        self.draw(self.status)

    def draw(self, status):
        x, y = self.cursor
        lines = []
        for row in self.rows:
            ry = int(row[:2]) - 1
            cells = row[3:].split(" ")
            if ry == y and x < len(cells):
                cells[x] = "[reverse]%s[/reverse]" % cells[x]
            lines.append(row[:3] + " ".join(cells))
        lines.append("   " + " ".join(COLUMNS))
        self.query_one("#board", Static).update("\n".join(lines))
        self.query_one("#status", Static).update("%s   cursor %s" % (status, self.vertex()))
        self.query_one("#log", Static).update("\n".join(self.messages))


def main():
    """Run the terminal view."""
    SimView().run()


if __name__ == "__main__":
    sys.exit(main())
