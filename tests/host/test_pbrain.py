"""tests/engines/pbrain_tiny.c, the small Gomocup brain the Renju tests play against: built
here with the machine's C compiler and spoken to over pipes in the real Piskvork protocol
(https://plastovicka.github.io/protocl2en.htm), then a whole Renju game against a random
player refereed by the firmware's rules.

Start reading at ``build_brain`` and ``Brain``: the other tests (the journeys) reuse them.
"""

import queue
import random
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from firmware.rules.gomoku import BLACK, OK, RENJU, WHITE, WIN_FIVE, Gomoku

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "engines" / "pbrain_tiny.c"
SIZE = 15
WAIT_S = 60.0  # a generous bound for one reply: the brain answers in milliseconds


def build_brain(folder: Path) -> Path:
    """``cc -O2 -o FOLDER/pbrain-tiny tests/engines/pbrain_tiny.c``; the brain's path.

    Skips the calling test when the machine has no C compiler (``cc``, ``gcc`` or ``clang``).
    """
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) to build tests/engines/pbrain_tiny.c")
    out = Path(folder) / "pbrain-tiny"
    subprocess.run([cc, "-O2", "-o", str(out), str(SOURCE)], check=True, timeout=120)
    return out


class Brain:
    """A Gomocup brain process on pipes: ``send`` a line, ``reply`` the next line it says
    (raw bytes kept, so the tests see the ``\\r\\n`` a Windows-built brain ends lines with)."""

    def __init__(self, path: Path):
        self.proc = subprocess.Popen(
            [str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=Path(path).parent
        )
        self.lines: queue.Queue = queue.Queue()
        # A reader thread, so a brain that says nothing fails the test at the timeout
        # instead of hanging it.
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw)
        self.lines.put(b"")  # end of output

    def send(self, *lines: str) -> None:
        """Write protocol lines (``\\n`` after each, as Piskvork on Unix)."""
        for line in lines:
            self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def raw(self) -> bytes:
        """The next line exactly as the brain wrote it; b"" once its output closed."""
        return self.lines.get(timeout=WAIT_S)

    def reply(self) -> str:
        """The next line without its line end."""
        return self.raw().decode().rstrip("\r\n")

    def ask(self, *lines: str) -> str:
        """``send`` then ``reply``."""
        self.send(*lines)
        return self.reply()

    def close(self) -> None:
        """END, then wait for the process (killed if it will not go) and close its pipes."""
        if self.proc.poll() is None:
            try:
                self.send("END")
                self.proc.wait(timeout=WAIT_S)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.reader.join(timeout=WAIT_S)  # it has read to the end: the pipes can close
        self.proc.stdin.close()
        self.proc.stdout.close()


def xy(reply: str) -> tuple[int, int]:
    """``(x, y)`` of a brain's ``x,y`` answer (Gomocup's: 0-based from the top-left)."""
    x, y = reply.split(",")
    return int(x), int(y)


def board_y(gomocup_y: int, size: int = SIZE) -> int:
    """The rules' y (from the bottom) of a Gomocup y (from the top)."""
    return size - 1 - gomocup_y


@pytest.fixture(scope="module")
def brain_path(tmp_path_factory):
    return build_brain(tmp_path_factory.mktemp("pbrain"))


@pytest.fixture
def brain(brain_path):
    b = Brain(brain_path)
    yield b
    b.close()


def board(brain: Brain, mine, theirs) -> str:
    """Sends BOARD with the brain's stones ``mine`` and the opponent's ``theirs``; its answer."""
    lines = ["BOARD"]
    lines += ["%d,%d,1" % p for p in mine] + ["%d,%d,2" % p for p in theirs]
    return brain.ask(*lines, "DONE")


def test_the_protocol(brain):
    assert brain.ask("START 15") == "OK"
    brain.send("INFO timeout_turn 5000", "INFO rule 4", "INFO some_future_key 7")
    about = brain.ask("ABOUT")
    assert 'name="pbrain-tiny"' in about and 'version="1.0"' in about
    assert "author=" in about and "country=" in about
    brain.send("BEGIN")
    first = brain.raw()
    assert first == b"7,7\r\n"  # the centre, and the line end of a brain built for Windows
    answer = xy(brain.ask("TURN 8,8"))
    assert answer not in ((7, 7), (8, 8)) and all(0 <= v < SIZE for v in answer)
    assert brain.ask("TURN 8,8").startswith("ERROR")  # an occupied point is no move
    assert brain.ask("FLY ME TO THE MOON").startswith("UNKNOWN")
    assert brain.ask("TAKEBACK %d,%d" % answer) == "OK"
    assert brain.ask("RESTART") == "OK"
    assert brain.ask("START 3").startswith("ERROR")
    brain.send("END")
    assert brain.proc.wait(timeout=WAIT_S) == 0
    assert brain.raw() == b""


def test_it_completes_its_four(brain):
    assert brain.ask("START 15") == "OK"
    brain.send("INFO rule 4")
    mine = [(3, 7), (4, 7), (5, 7), (6, 7)]
    theirs = [(3, 9), (4, 9), (5, 9), (6, 9)]  # the opponent has a four too: winning comes first
    assert xy(board(brain, mine, theirs)) in ((2, 7), (7, 7))


def test_it_blocks_the_opponents_four(brain):
    assert brain.ask("START 15") == "OK"
    mine = [(2, 7), (10, 12), (12, 2)]
    theirs = [(3, 7), (4, 7), (5, 7), (6, 7)]
    assert xy(board(brain, mine, theirs)) == (7, 7)
    # An open three on a diagonal: it takes one of the points that would make it a straight
    # four (which no block could stop).
    assert brain.ask("RESTART") == "OK"
    mine = [(9, 3), (3, 11), (11, 11)]
    theirs = [(5, 5), (6, 6), (7, 7)]
    assert xy(board(brain, mine, theirs)) in ((4, 4), (8, 8))


def random_move(game: Gomoku, rng: random.Random, colour: int) -> tuple[int, int]:
    """A random empty point near the stones (anywhere on an empty board) that is not a foul."""
    b = game.board
    stones = [(x, y) for y in range(SIZE) for x in range(SIZE) if b.color_at(x, y)]
    near = set()
    for sx, sy in stones:
        for dx in (-2, -1, 0, 1, 2):
            for dy in (-2, -1, 0, 1, 2):
                near.add((sx + dx, sy + dy))
    points = sorted(
        (x, y)
        for (x, y) in (near if stones else {(7, 7)})
        if 0 <= x < SIZE and 0 <= y < SIZE and game.legal(colour, x, y) == OK
    )
    if colour == BLACK:
        points = [p for p in points if not game.forbidden(*p)] or points
    return rng.choice(points)


@pytest.mark.parametrize("brain_colour, seed", [(BLACK, 1), (WHITE, 2), (BLACK, 3), (WHITE, 4)])
def test_a_renju_game_against_a_random_player(brain, brain_colour, seed):
    rng = random.Random(seed)
    game = Gomoku(RENJU, SIZE)
    assert brain.ask("START %d" % SIZE) == "OK"
    brain.send("INFO rule 4")
    other = WHITE if brain_colour == BLACK else BLACK
    if brain_colour == BLACK:
        answer = brain.ask("BEGIN")
    else:
        x, y = random_move(game, rng, other)
        assert game.play(other, x, y) == OK
        answer = brain.ask("TURN %d,%d" % (x, board_y(y)))
    while True:
        gx, gy = xy(answer)
        x, y = gx, board_y(gy)
        assert game.legal(brain_colour, x, y) == OK, (answer, game.moves)
        if brain_colour == BLACK:
            assert not game.forbidden(x, y), ("the brain fouled", answer)
        assert game.play(brain_colour, x, y) == OK
        if game.over():
            break
        x, y = random_move(game, rng, other)
        assert game.play(other, x, y) == OK
        if game.over():
            break
        answer = brain.ask("TURN %d,%d" % (x, board_y(y)))
    assert game.winner == brain_colour and game.reason == WIN_FIVE, game.result_text()
