"""Journeys on the emulated chip: the Tengen image on an emulated RP2040 (host_tools/board/emulator.py),
reached by the installed ``tengen`` over the bridged pty as a board on USB, played by stones on
the emulator's Hall grid and by its paddles and keys, its faces read off their glass.

One board for the module (booting costs time): ``board`` powers it up on a fresh flash, and the
tests take it in turn, each from what the one before left (``ready`` deploys the app and
calibrates the board if the first tests did not run; ``new_game`` ends a game a failed test
left going). The journeys: the fresh flash (the image boots to its REPL, ``tengen boards``
sees a MicroPython board not running the app, ``tengen deploy`` puts it on, the faces say
``NO CAL``, ``boards`` lists the board, its ``hello`` with no ``boot_error``, ``settings``);
the maker's calibration at the keys; a Go game with a capture, dead stones and the count,
synced home and compared with the game played; a power cut mid-game; a Renju game to Black's
foul; the count spoken on the chip's speaker while the players move (its timings against the
same moves with the voice off; what the speaker played recorded by
``host_tools/board/emulator_speaker.js``). What is checked is what the board says over its link (``tengen watch --once``), what
its faces show (the HT1621 writes decoded by ``host_tools/board/emulator_glass.js``, read as the
virtual board reads its glass: README's words), what it stores (``tengen sync``'s SGF), and
that the chip took no HardFault. Waits are for what the board says, never for a time; the
hands take the chip's own time (``Chip.settle``).

Where the emulator cannot run (no ``../shared/rp2``, no node or npm) or there is no image, the
module is skipped saying what is missing. The image: tests/host/conftest.py's ``chip_images``
(``make chip``'s, built from this tree, session-wide).

Start reading at ``Board``, then the tests in order.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.hal.virtual import shown
from host_tools.board import emulator
from host_tools.common.link import RUNTIME_ENV
from host_tools.live import watch

ROOT = Path(__file__).resolve().parents[3]
TENGEN = Path(sys.executable).parent / "tengen"
GO_COLUMNS = "ABCDEFGHJKLMNOPQRST"  # Go's columns skip I; Renju's do not
RENJU_COLUMNS = "ABCDEFGHIJKLMNO"
N = 19  # the Hall grid: a smaller game sits in its middle
BLACK, WHITE = "right", "left"  # the paddles: Black's on the right (002 第八条4)
WAIT = 120.0  # how long the board may take to say something (a bound, not a timing check)

pytestmark = [
    pytest.mark.skipif(
        not TENGEN.exists(), reason="the installed tengen command is needed (make venv)"
    ),
    # One board on the emulated chip all along: a worker of its own (tests/conftest.py).
    pytest.mark.xdist_group("chip-board"),
]


# ---- the board ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board(chip_images, emu, tmp_path_factory):
    """The emulated board on a fresh flash, powered up; cut on every path out."""
    folder = tmp_path_factory.mktemp("chip")
    env = dict(os.environ)
    env.update(
        {
            RUNTIME_ENV: str(folder / "run"),  # the boards noted: this module's own
            "TENGEN_CONFIG_DIR": str(folder / "config"),  # no paired keys of the user's
            "TENGEN_DATA_DIR": str(folder / "data"),
            # The checkout's host tools, as the installed (editable) tengen runs them.
            "PYTHONPATH": str(ROOT),
        }
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(RUNTIME_ENV, env[RUNTIME_ENV])  # where the chip notes its port
        uf2 = Path(chip_images["tengen"]) / "firmware.uf2"
        chip = emulator.Chip(uf2, folder / "emu", emu=emu, glass=True, speaker=True)
        try:
            chip.start()
            yield Board(chip, env, folder)
        finally:
            chip.cut()
    assert chip.hardfaults() == 0, chip.log()[-3000:]


class Board:
    """The emulated board as a test drives it: ``tengen`` against its port, its state as
    ``tengen watch --once --json`` gives it, the players' hands through ``chip``."""

    def __init__(self, chip, env, folder):
        self.chip = chip
        self.env = env
        self.folder = folder
        self.deployed = False
        self.calibrated = False
        self.seen = None  # the last state read

    @property
    def port(self):
        return self.chip.port

    def tengen(self, *args, ok=True):
        done = subprocess.run(
            [str(TENGEN), *args],
            env=self.env,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if ok:
            assert done.returncode == 0, (args, done.stdout, done.stderr, self.chip.log()[-1500:])
        return done

    def state(self):
        """What ``tengen watch --once --json`` says of the game at the board (its code, run
        here: a process for each look would cost more than the look)."""
        self.seen = watch.snapshot(self.port).snapshot()
        return self.seen

    def until(self, what, done, timeout=WAIT):
        """The board's state once ``done(state)`` holds; fails, saying ``what``, if it never
        does."""
        end = time.monotonic() + timeout
        while True:
            s = self.state()
            if done(s):
                return s
            if time.monotonic() > end:
                pytest.fail("the board never said %s: %s" % (what, _brief(s)))
            time.sleep(0.2)

    def faces(self):
        """Both faces as their glass reads, Black's then White's (``10:00  #1  RUN``)."""
        return tuple(str(g) for g in self.chip.faces())

    def shows(self, what, black=None, white=None, timeout=WAIT):
        """The faces once Black's shows ``black`` and White's ``white`` (None: anything);
        fails, saying ``what``, if they never do. A face that shows two things by turns (the
        count) is caught at each."""
        end = time.monotonic() + timeout
        while True:
            b, w = faces = self.faces()
            if black in (None, b) and white in (None, w):
                return faces
            if time.monotonic() > end:
                pytest.fail("the faces never showed %s: %r" % (what, faces))
            time.sleep(0.05)

    def ready(self):
        """The app on the board and the board calibrated (by the first tests, else here)."""
        if not self.deployed:
            self.deploy()
        if not self.calibrated:
            self.calibrate()

    def deploy(self):
        """``tengen deploy`` onto the board: what it printed."""
        # --wait: the emulated chip boots several times slower than a real one on a loaded
        # machine (a bound for a hang, not a measure; the boot's time is test_chip_budgets').
        done = self.tengen("deploy", "--port", self.port, "--wait", "120")
        self.deployed = True
        return done.stdout

    def calibrate(self):
        """The calibration at the board's keys (firmware/ui/calibrate.py): PLUS+MINUS, the
        board empty then MODE, the two checkerboards each then MODE; any key leaves it."""
        self.chip.stones({})
        self.chip.press("plus", "minus")
        self.shows("the calibration's first step", "CLEAR", "CLEAR")
        for step, black_even in (("CAL A", True), ("CAL B", False), ("CAL OK", None)):
            self.chip.press("mode")  # the step's frames: "CLEAR." … while they are taken
            self.shows(step, step, step)
            if black_even is not None:
                self.chip.stones(
                    {
                        (x, y): "b" if ((x + y) % 2 == 0) == black_even else "w"
                        for x in range(N)
                        for y in range(N)
                    }
                )
        self.chip.stones({})
        self.chip.press("mode")  # done
        self.calibrated = True

    # -- the players' hands

    def put(self, vertex, colour, size):
        self.chip.put(*grid(vertex, size), colour[0].lower())

    def lift(self, vertex, size):
        self.chip.lift(*grid(vertex, size))

    def move(self, vertex, colour, size):
        """A stone put down (``vertex`` None: a pass) and its player's paddle pressed; the
        board's state once the move is taken."""
        ply = self.seen["ply"]
        if vertex is not None:
            self.put(vertex, colour, size)
        self.chip.press(BLACK if colour == "b" else WHITE)
        return self.until("move %d" % (ply + 1), lambda s: s["ply"] == ply + 1)

    def new_game(self, *settings):
        """The next game set up with ``settings`` (``key=value``), the grid cleared and PAUSE
        pressed: Black's clock running, move 1 to play. A game still going (a test that
        failed) is resigned first."""
        s = self.state()
        if s["phase"] != "over" and s["clock"]["state"] != "not started":
            if s["clock"]["state"] == "paused":
                self.chip.press("pause")
                self.until("play going on", lambda s: s["clock"]["state"] == "running")
            self.chip.press("plus", "minus")  # RESIGN ?
            self.chip.press("mode")  # resigned
            self.until("a result", lambda s: s["phase"] == "over")
        self.tengen("settings", "--port", self.port, *settings)
        self.chip.stones({})
        if self.state()["phase"] == "over":
            self.chip.press("pause")  # the next game, with the board's settings
        want = dict(kv.split("=", 1) for kv in settings)
        self.until(
            "the new game before its start",
            lambda s: (
                s["clock"]["state"] == "not started"
                and s["game"] == want.get("game", s["game"])
                and str(s["size"]) == want.get("size", str(s["size"]))
            ),
        )
        self.started_at = self.chip.press("pause")  # Black's clock starts (the chip's ms)
        return self.until(
            "Black's clock running",
            lambda s: s["clock"]["state"] == "running" and s["clock"]["running"] == 1,
        )


def grid(vertex, size):
    """The Hall grid's ``(x, y)`` of a game's vertex (Go's columns skip I, Renju's 15x15 do
    not); a smaller game sits in the grid's middle (a 9x9 game's E5 is the grid's K10)."""
    columns = GO_COLUMNS if size != 15 else RENJU_COLUMNS
    off = (N - size) // 2
    return columns.index(vertex[0]) + off, int(vertex[1:]) - 1 + off


def _brief(state):
    return {k: state.get(k) for k in ("game", "size", "ply", "last", "phase", "result", "clock")}


def _moves(sgf_bytes):
    """An SGF's moves as ``[(colour, (row, col) or None)]`` (sgfmill's: row 0 the bottom),
    and its root."""
    game = sgf.Sgf_game.from_bytes(sgf_bytes)
    return [n.get_move() for n in game.get_main_sequence()[1:] if n.get_move()[0]], game.get_root()


def _played(moves, size):
    """The moves played, ``[(colour, vertex or None)]``, as ``_moves`` reads them."""
    columns = GO_COLUMNS if size != 15 else RENJU_COLUMNS
    return [(c, None if v is None else (int(v[1:]) - 1, columns.index(v[0]))) for c, v in moves]


def _settings(table):
    """``tengen settings``'s table as ``{key: value}``."""
    rows = [line.split("│")[1:3] for line in table.splitlines() if line.count("│") == 3]
    return {k.strip(): v.strip() for k, v in rows}


def _synced(board, dest):
    """``tengen sync`` into ``dest``: its SGFs, newest last."""
    done = board.tengen("sync", "--port", board.port, "--dest", str(dest))
    assert "0 failed" in done.stdout, done.stdout
    return sorted(dest.rglob("*.sgf"))


# ---- the journeys ---------------------------------------------------------------------------


@pytest.mark.slow(18)
def test_a_fresh_flash_boots_takes_deploy_and_answers(board):
    # The image booted on a fresh flash (its filesystem formatted) to MicroPython's REPL:
    # tengen boards finds the emulated board's port and says the app is not running there.
    listed = json.loads(board.tengen("boards", "--json", ok=False).stdout)
    assert [(b["port"], b["error"]) for b in listed] == [(board.port, "no_answer")], listed

    said = board.deploy()
    assert "beside the Tengen image" in said and "the board answers" in said, said
    board.shows("the board is not calibrated", "NO CAL", "NO CAL")  # its faces, read back

    # Found without --port, as a board on USB: its hello, no failed boot.
    [hello] = json.loads(board.tengen("boards", "--json").stdout)
    assert hello["port"] == board.port and hello["ok"] and hello["name"] == "tengen", hello
    assert hello["boot_error"] is None, hello
    table = board.tengen("boards").stdout
    assert board.port in table and hello["board"] in table, table

    shown = _settings(board.tengen("settings", "--port", board.port).stdout)
    want = {"game": "go", "size": "19", "rules": "1988", "komi2": "11", "time": "cn-national"}
    assert {k: shown.get(k) for k in want} == want, shown
    assert board.chip.hardfaults() == 0


@pytest.mark.slow(20)
def test_the_maker_calibrates_the_fresh_board_at_its_keys(board):
    # hardware/README.md §0: PLUS+MINUS before a game, the empty board, the two checkerboards
    # (black -800 counts, white +800 on the emulator's Hall model); CAL OK, then the clock.
    if not board.deployed:
        board.deploy()  # the first test did not run
    board.calibrate()
    s = board.state()
    assert (s["game"], s["clock"]["state"]) == ("go", "not started"), _brief(s)
    clock = shown(s["clock"]["faces"][0]["time"]) + "  #1"
    board.shows("the next game's clock", clock, clock)
    assert board.chip.hardfaults() == 0


# README's walk (For players), on the chip: Black's A2 takes White's A1, refused while A1 is
# still on the board; two passes; White's B2 dead; the count W+2.5.
GO_GAME = [
    ("b", "E5"),
    ("w", "A1"),
    ("b", "B1"),
    ("w", "E3"),
    ("b", "A2"),  # takes A1: lifted before the press is taken
    ("w", "B2"),
    ("b", None),
    ("w", None),
]


@pytest.mark.slow(40)
def test_a_go_game_with_a_capture_dead_stones_and_the_count_synced(board):
    board.ready()
    size = 9
    s = board.new_game("game=go", "size=9", "time=quick")
    assert (s["game"], s["size"], s["ply"]) == ("go", 9, 0), _brief(s)
    board.shows("Black's clock running", shown("10:00") + "  #1  RUN")
    for colour, vertex in GO_GAME[:4]:
        s = board.move(vertex, colour, size)
        assert s["last"]["name"] == vertex and s["last"]["colour"] == (1 if colour == "b" else 2)

    # A2 with A1 (captured) still on the board: the press is refused, the move not taken.
    board.put("A2", "b", size)
    board.chip.press(BLACK)
    board.shows("the capture to lift", shown("CAP", "A1"))
    s = board.state()
    assert s["ply"] == 4 and s["clock"]["running"] == 1, _brief(s)
    board.lift("A1", size)
    s = board.move(None, "b", size)  # the stone is down already: the press is the move
    assert s["last"]["name"] == "A2", _brief(s)
    assert s["board"][-1] == ".X.......", s["board"]  # A1 gone from the game's board too

    for colour, vertex in GO_GAME[5:]:
        s = board.move(vertex, colour, size)
    assert s["phase"] == "dead stones", _brief(s)
    board.shows("no dead stone lifted", shown("DEAD", "0"), shown("DEAD", "0"))
    board.lift("B2", size)  # White's B2 is dead
    board.shows("one dead stone lifted", shown("DEAD", "1"), shown("DEAD", "1"))
    board.chip.press("mode")  # the count, in points and in stones by turns (白胜1¼子)
    s = board.until("the count", lambda s: s["phase"] == "counted")
    board.shows("the count in points", shown("W+2.5", "OK?"))
    board.shows("the count in stones", shown("W 1.25", "OK?"))
    board.chip.press(BLACK)  # each player confirms it
    board.shows("Black's confirmation", shown("OK"))
    board.chip.press(WHITE)
    s = board.until("the result", lambda s: s["phase"] == "over")
    assert s["result"] == "W+2.5", _brief(s)
    board.shows("the result", shown("W+2.5"), shown("W+2.5"))

    picture = board.tengen("watch", "--once", "--port", board.port).stdout
    assert "result: W+2.5" in picture and "phase: over" in picture, picture

    sgfs = _synced(board, board.folder / "games")
    moves, root = _moves(sgfs[-1].read_bytes())
    assert moves == _played(GO_GAME, size), moves
    assert root.get("RE") == "W+2.5" and root.get("SZ") == 9 and root.get("KM") == 5.5
    game = sgf.Sgf_game.from_bytes(sgfs[-1].read_bytes())
    a2 = game.get_main_sequence()[5]  # the refused press, noted on A2's move with its point
    assert "captured stones still on the board" in a2.get("C") and "A1" in a2.get("C")
    assert board.chip.hardfaults() == 0


@pytest.mark.slow(22)
def test_a_power_cut_mid_game_resumes_it_paused_with_its_moves_and_clocks(board):
    board.ready()
    size = 9
    board.new_game("game=go", "size=9", "time=quick")
    board.move("E5", "b", size)
    before = board.move("C3", "w", size)  # Black's clock runs from here
    assert before["clock"]["running"] == 1 and before["clock"]["state"] == "running"
    # The chip's time goes on: Black's face runs below its clock at White's press.
    running = board.until(
        "Black's time running", lambda s: s["clock"]["faces"][0]["ms"] < s["clock"]["clocks"][0]
    )

    board.chip.cut()  # the power goes, the flash kept as it was
    assert not Path(board.port).exists()
    board.chip.start()  # and comes back: the stones still on the grid
    s = board.until("the game back", lambda s: s["ply"] == 2)
    # The game paused, the moves as played; Black's clock from the running clock's last
    # checkpoint (firmware/clock/checkpoint.py), not from White's press: below the clock at
    # the press, never above what the face showed before the cut (issue 26).
    assert [m["name"] for m in s["moves"]] == ["E5", "C3"], s["moves"]
    assert s["phase"] == "play" and s["clock"]["state"] == "paused", _brief(s)
    black, white = s["clock"]["faces"]
    assert not black["running"] and not white["running"], s["clock"]
    at_press = before["clock"]["clocks"][0]
    assert black["ms"] < at_press, (s["clock"], before["clock"])
    assert black["ms"] <= running["clock"]["faces"][0]["ms"], (s["clock"], running["clock"])
    assert s["clock"]["clocks"][2] == before["clock"]["clocks"][2], s["clock"]  # White's kept
    assert s["clock"]["running"] == 1  # Black to move
    # Black's face says the power was off, by turns with its clock: the emulated board has
    # no PCF8563, so for how long it cannot say ("OFF  ?"; the record has it as unknown).
    board.shows("the power off on Black's face", "OFF  ?")
    paused = shown(black["time"]) + "  #3  PAUSE"
    board.shows("the game paused", paused)
    picture = board.tengen("watch", "--once", "--port", board.port).stdout
    assert "clock: paused" in picture and "(○)" in picture, picture

    board.chip.press("pause")  # play goes on, Black's clock running
    board.until("Black's clock running", lambda s: s["clock"]["state"] == "running")
    s = board.move("G5", "b", size)
    assert [m["name"] for m in s["moves"]] == ["E5", "C3", "G5"], s["moves"]
    assert board.chip.hardfaults() == 0


# A free opening (no swap, no fifth-move offers); Black's I9 makes two open threes, I8-I9-I10
# and H8-I9-J10: a double-three, a foul (claims auto: the board calls it).
RENJU_GAME = ["H8", "H9", "I8", "G8", "I10", "M3", "J10", "N3"]
FOUL = "I9"


@pytest.mark.slow(25)
def test_a_renju_game_to_a_double_three_foul(board):
    board.ready()
    size = 15
    s = board.new_game("game=renju", "opening=free", "claims=auto", "time=quick")
    assert (s["game"], s["size"]) == ("renju", 15), _brief(s)
    for i, vertex in enumerate(RENJU_GAME):
        s = board.move(vertex, "bw"[i % 2], size)
        assert s["phase"] == "play" and s["last"]["name"] == vertex, _brief(s)
    s = board.move(FOUL, "b", size)
    assert s["last"]["name"] == FOUL and s["phase"] == "over", _brief(s)
    assert s["result"] == "W+F (double-three)", _brief(s)
    board.shows("Black's foul", shown("W+F", "33"))
    picture = board.tengen("watch", "--once", "--port", board.port).stdout
    assert "result: W+F (double-three)" in picture and "(●)" in picture, picture

    sgfs = _synced(board, board.folder / "games")
    moves, root = _moves(sgfs[-1].read_bytes())
    assert moves == _played([("bw"[i % 2], v) for i, v in enumerate(RENJU_GAME + [FOUL])], size)
    assert root.get("RE").startswith("W+F"), root.get("RE")
    assert board.chip.hardfaults() == 0


# Japanese byo-yomi with one 10-second period and no main time (003 第12条): each move's
# counting starts at once and its first second is said, "1" (一). Every move is made then: the
# stone put and the paddle pressed while the phrase plays.
COUNTED = "byoyomi/0/1/10"
SPOKEN_GAME = ["E5", "C3", "G5", "C7", "G3", "G7", "E3", "E7"]
INTO_COUNT_MS = 1100  # after the last press: the "1" began at 1,000 ms (the next UI pass)
ASK_AFTER_MS = 500  # after a press, when the test asks the board for its state
CLOCK_PASS_MS = 20  # the app's clock task runs this often (firmware/game/app.py ``run``)


def _timing(board):
    """The board's timings since it was last asked (its hello's ``timing``: each hello
    starts them over)."""
    from host_tools.board.deploy import wait_for_hello

    hello = wait_for_hello(board.port, timeout=60.0)
    assert hello is not None, board.chip.log()[-1500:]
    return hello["timing"]


def _spoken_moves(board, voice):
    # The game with the voice on or off, each move at its counting's first second: the
    # timings over its moves, and the chip's time each paddle went down.
    size = 9
    board.new_game("game=go", "size=9", "time=" + COUNTED, "voice=" + voice)
    at = board.started_at  # Black's counting starts here
    _timing(board)  # from here
    downs = []
    for i, vertex in enumerate(SPOKEN_GAME):
        colour = "bw"[i % 2]
        ply = board.seen["ply"]
        board.chip.settle(INTO_COUNT_MS, since=at)
        board.put(vertex, colour, size)
        at = board.chip.press(BLACK if colour == "b" else WHITE)
        downs.append(at)
        # Asked once the phrase is over: a PC asking for the state meanwhile holds the board's
        # tasks (its answer, ~150 ms of the chip's time) and would be what is measured.
        board.chip.settle(ASK_AFTER_MS, since=at)
        s = board.until("move %d" % (ply + 1), lambda s, p=ply: s["ply"] == p + 1)
        assert s["phase"] == "play", _brief(s)
    return _timing(board), downs


@pytest.mark.slow(150)
def test_a_phrase_plays_while_stones_are_put_and_paddles_pressed(board):
    # The count spoken on the chip's speaker (firmware/hal/rp2040_voice.py: PWM fed by DMA)
    # while the players move, against the same moves with the voice off (the count beeped):
    # the press-to-commit and the scan's frames the same, no block of the phrase late.
    board.ready()
    off, quiet = _spoken_moves(board, "off")
    heard_before = board.chip.speaker()
    on, spoken = _spoken_moves(board, "zh")
    sp = board.chip.speaker()
    print("\nvoice off: %s\nvoice zh:  %s\nspeaker: %s" % (off, on, sp.summary()))
    # Every paddle edge the IRQ stamped counts (a press can bounce on the emulated pin too).
    assert min(off["presses"], on["presses"]) >= len(SPOKEN_GAME), (off, on)

    # The voice off: the speaker silent (the amplifier never on) while those moves were made.
    silent = [(a, b) for a, b in heard_before.spans if b is None or b >= quiet[0]]
    assert not [x for x in silent if x[0] <= quiet[-1]], silent
    # The voice on: each press after the first made while a phrase played, at 8 kHz, whole.
    for down in spoken[1:]:
        assert any(a <= down <= (b if b is not None else 1e12) for a, b in sp.spans), (
            down,
            sp.spans[-12:],
        )
    assert sp.underruns == 0 and abs(sp.spacing_us() - 125.0) < 0.5, sp.summary()
    # A pass of the voice late: what the board does when a move is taken holds its tasks and
    # the voice's timer up to ~170 ms of the chip's time (``frame_gap_ms`` with the voice off
    # too), longer than the voice's 128 ms ring (firmware/hal/rp2040_voice.py). Seen in one
    # phrase of the eight; each such pass is counted, never silent.
    assert on["voice_late"] <= 2, on

    # The timings unchanged, to within one of the clock's 20 ms passes (the figures are each
    # run's worst, set by the board's own stalls, ~110-170 ms when the journal writes the flash
    # and the same with the voice off; a pass of the voice is 1.4 ms at worst,
    # test_chip_voice.py): press-to-commit (the IRQ's stamp is the time charged: this is how
    # soon the clock takes it) and the gaps between scanned frames.
    assert on["press_ms"] <= max(off["press_ms"], 20) + CLOCK_PASS_MS, (off, on)
    assert on["frame_gap_ms"] <= off["frame_gap_ms"] + CLOCK_PASS_MS, (off, on)
    assert board.chip.hardfaults() == 0
