"""make sim's terminal view (host_tools/board/sim.py): driven headlessly by textual's pilot, the
virtual board on MicroPython behind it; and the view in a real terminal that goes away."""

import asyncio
import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import types
import wave
from pathlib import Path

import pytest

from host_tools.board.sim import Board, SimView
from host_tools.common.link import RUNTIME_ENV

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "micropython").exists(), reason="no MicroPython (make venv)"
)


@pytest.fixture
def board(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNTIME_ENV, str(tmp_path / "run"))
    b = Board(tmp_path / "flash")
    yield b
    b.close()


async def until(pilot, done, timeout=20.0):
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "timed out"
        await pilot.pause(0.05)


def seconds(face):
    """The seconds a face's clock shows (``2:54:48  #3  RUN``)."""
    secs = 0
    for part in face.split()[0].split(":"):
        secs = secs * 60 + int(part)
    return secs


def test_keys_play_moves_on_the_virtual_board(board):
    async def play():
        app = SimView(board)
        async with app.run_test(size=(100, 50)) as pilot:
            await until(pilot, lambda: "#1" in app.faces["B"])
            await pilot.press("p")  # PAUSE: Black's clock starts
            await until(pilot, lambda: "RUN" in app.faces["B"])
            await pilot.press("b")  # a black stone on Q16 (the cursor's start)
            await until(pilot, lambda: app.stone_at(15, 15) == "X")
            await pilot.press("1")  # Black's paddle
            await until(pilot, lambda: app.faces["W"].endswith("#2  RUN"))
            await pilot.press(*["left"] * 7)
            await pilot.press("w", "2")  # a white stone on J16, White's paddle
            await until(pilot, lambda: app.faces["B"].endswith("#3  RUN"))
            await pilot.press("down", "b")  # on J15: put down ...
            await until(pilot, lambda: app.stone_at(8, 14) == "X")
            await pilot.press("x")  # ... and lifted again
            await until(pilot, lambda: app.stone_at(8, 14) == ".")
            before = seconds(app.faces["B"])
            await pilot.press("t")  # ten seconds pass on Black's clock
            await until(pilot, lambda: seconds(app.faces["B"]) <= before - 10)
            return app.stones, app.faces, app.board_text()

    stones, faces, text = asyncio.run(play())
    assert stones.count("X") == 1 and stones.count("O") == 1
    assert stones[(19 - 16) * 19 + 15] == "X" and stones[(19 - 16) * 19 + 8] == "O"
    assert "●" in text and "○" in text


def test_the_boards_keys_a_slide_and_the_status_line(board):
    async def play():
        app = SimView(board)
        async with app.run_test(size=(100, 50)) as pilot:
            await until(pilot, lambda: "#1" in app.faces["B"])
            await pilot.press("M")  # a long MODE before the game: the menu
            await until(pilot, lambda: "#1" not in app.faces["B"])
            menu = app.faces["B"]
            await pilot.press("M")  # done: the game kept
            await until(pilot, lambda: "#1" in app.faces["B"])
            await pilot.press("b", "r")  # a stone on Q16 slid to R16
            await until(pilot, lambda: app.stone_at(16, 15) == "X")
            await pilot.press("a")  # the arbiter's chord: the PIN asked
            await until(pilot, lambda: "ARB" in app.faces["B"])
            return menu, app.stones, app.status_text(), app.sounds

    menu, stones, status, sounds = asyncio.run(play())
    assert menu and "#" not in menu
    assert stones[(19 - 16) * 19 + 15] == "." and stones.count("X") == 1
    assert board.link in status and str(board.flash) in status
    assert "CONFIRM" in sounds  # the menu's choice saved


def test_closing_the_terminal_stops_the_view_and_the_board(tmp_path):
    # The view in a real terminal (a pty as its controlling terminal); the terminal closes.
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", **{RUNTIME_ENV: str(tmp_path / "run")})
    for size in ("COLUMNS", "LINES"):  # the terminal's own size, not the test run's
        env.pop(size, None)

    def controlling_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools.board.sim", "--flash", str(tmp_path / "flash")],
        cwd=ROOT,
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=controlling_terminal,  # no threads of ours run yet
    )
    os.close(slave)
    seen = b""
    note = None
    end = time.monotonic() + 30
    try:
        while note is None or b"cursor" not in seen:  # the view is up
            assert time.monotonic() < end, seen[-500:]
            # Never a blocking read: the view may have drawn everything before its note is
            # written, and then nothing more comes.
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 65536)
            notes = list((tmp_path / "run").glob("virtual-*.json"))
            if notes:
                note = json.loads(notes[0].read_text())
        assert b"link: /dev/" in seen
        os.close(master)  # the terminal window closes: a hang-up
        master = -1
        assert proc.wait(timeout=20) is not None
        deadline = time.monotonic() + 10
        while _alive(note["board_pid"]):
            assert time.monotonic() < deadline, "the board outlived its view"
            time.sleep(0.1)
        assert not list((tmp_path / "run").glob("virtual-*.json"))
    finally:
        if master >= 0:
            os.close(master)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is not running: its state is Z in /proc.
    try:
        return Path("/proc/%d/stat" % pid).read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow(6)
def test_a_smaller_game_in_its_own_coordinates_the_points_to_clear_marked_and_the_chords(board):
    # Go 9x9 sits in the middle of the grid: the view names its points as the faces and the
    # records do (its D4 is the grid's J9), marks what the board wants done, and has a key
    # for each chord.
    from firmware.hal.virtual import shown
    from firmware.ui import say
    from host_tools.common.link import Link

    async def play():
        app = SimView(board)
        async with app.run_test(size=(110, 60)) as pilot:
            await until(pilot, lambda: "#1" in app.faces["B"])
            with Link(board.link) as link:
                link.request("settings", set={"game": "go", "size": 9, "time": "quick"})
            await pilot.press("b")  # a black stone on the grid's Q16: off the 9x9 game
            await until(pilot, lambda: app.stone_at(15, 15) == "X")
            board.send("put J9 w")  # the game's D4
            await until(pilot, lambda: app.stone_at(8, 8) == "O")
            await pilot.press("p")  # PAUSE: the 9x9 game, refused (stones on the board)
            await until(pilot, lambda: app.game == ("go", 9) and "CLR" in app.faces["B"])
            seen = {
                "face": app.faces["B"],
                "cursor": app.point_name(),  # moved into the game: its middle, E5
                "todo": app.todo_text(app.to_clear()),
                "marked": app.mark_at(8, 8) + app.mark_at(15, 15),
                "drawn": app.board_text(),
                "status": app.status_text(),
            }
            await pilot.press("left", "down", "x")  # D4 lifted from the keys
            await until(pilot, lambda: "OUT" in app.faces["B"])
            seen["then"] = app.faces["B"]
            board.send("lift Q16")
            await until(pilot, lambda: "#1" in app.faces["B"] and not app.to_clear())
            await pilot.press("up", "right", "p", "b", "1")  # E5, the first move
            await until(pilot, lambda: app.last == "1 B E5")
            seen["status2"] = app.status_text()
            seen["drawn2"] = app.board_text()
            await pilot.press("c")  # PLUS+MINUS in play: resign? on the running side's face
            await until(pilot, lambda: "RESIGN" in app.faces["W"])
            seen["resign"] = app.faces["W"]
            await pilot.press("p")  # no
            await until(pilot, lambda: "RUN" in app.faces["W"])
            seen["help"] = str(app.query_one("#help").render())
            return seen

    seen = asyncio.run(play())
    assert seen["face"] == shown("CLR.  2", "D4") == "CLR.  2  D4"
    assert seen["then"] == shown("CLR.  1", say.OUTSIDE)
    assert seen["cursor"] == "E5"
    assert seen["todo"] == "to take off (2): D4 and 1 outside the game's area"
    assert seen["marked"] == "xx"
    assert seen["drawn"].count("[bold red]×[/bold red]") == 2  # D4 and the grid's Q16
    rows = seen["drawn"].split("\n")
    assert rows[-1].split() == list("ABCDEFGHJ")  # the game's own columns under its area
    assert rows[18 - 8].startswith(" 4 ")  # the grid's row 9 is the game's 4
    assert rows[0].startswith("   ")  # the grid's row 19: no row of the game
    assert "to take off" in seen["status"] and "cursor E5" in seen["status"]
    assert "last move 1 B E5" in seen["status2"] and "to take off" not in seen["status2"]
    assert "(●)" in seen["drawn2"] or "([reverse]●[/reverse])" in seen["drawn2"]  # E5
    assert seen["resign"] == shown("RESIGN", "?")
    for key in ("c PLUS+MINUS", "a PAUSE+MODE", "P long"):
        assert key in seen["help"], key


def test_before_a_game_the_chord_calibrates_and_a_long_pause_gives_up(board):
    async def play():
        app = SimView(board)
        async with app.run_test(size=(110, 60)) as pilot:
            await until(pilot, lambda: "#1" in app.faces["B"])
            await pilot.press("c")  # PLUS+MINUS before a game: the calibration's first step
            await until(pilot, lambda: "#1" not in app.faces["B"])
            step = app.faces["B"]
            await pilot.press("P")  # a long PAUSE: given up, the clock again
            await until(pilot, lambda: "#1" in app.faces["B"])
            return step

    step = asyncio.run(play())
    assert step and "RUN" not in step


def test_the_view_shows_the_speakers_phrase():
    # The virtual board's ``say`` line (its speaker began a phrase of the count): the view's
    # voice line shows its words until the next (tests/test_voice_board.py: the lines).
    view = SimView(None)
    assert view.spoken == ""
    view.said_line("say zh 772 还剩4分钟", draw=False)
    view.said_line("buzz KEY", draw=False)
    assert view.spoken == "还剩4分钟" and view.sounds == ["KEY"]


def test_the_voice_files_are_copied_into_the_flash_folder(tmp_path):
    from host_tools.board.sim import copy_voice
    from tests.host.board.test_deploy import _voice_source

    src = _voice_source(tmp_path / "build", ("zh",))
    (src / "en.bin").write_bytes(b"TGV1en")  # not a voice file: not copied
    flash = tmp_path / "flash"
    flash.mkdir()
    assert copy_voice(flash, src) == ["zh"]
    assert (flash / "voice/zh.bin").read_bytes() == (src / "zh.bin").read_bytes()
    assert not (flash / "voice/en.bin").exists()
    assert copy_voice(flash, tmp_path / "none") == []


def test_the_views_phrase_is_heard_on_the_pcs_player(tmp_path, monkeypatch):
    # make sim on a PC with a sound player: the board's ``say`` line becomes the phrase's WAV
    # (read from the flash's voice file by the firmware's reader) handed to the player, here a
    # stand-in that keeps what it was given. Without one (TENGEN_SOUND=off), the words alone.
    from firmware.clock import cues
    from firmware.ui import voice as V
    from host_tools.board import sound
    from host_tools.board.voice import phrase_pcm
    from tests.host.board.test_deploy import _voice_source

    flash = tmp_path / "flash"
    (flash / "voice").mkdir(parents=True)
    src = _voice_source(tmp_path / "src", langs=("zh",))
    (flash / "voice/zh.bin").write_bytes((src / "zh.bin").read_bytes())
    kept = tmp_path / "heard"
    kept.mkdir()
    player = tmp_path / "player"
    player.write_text('#!/bin/sh\ncp "$1" %s/\n' % kept)
    player.chmod(0o755)
    monkeypatch.setenv(sound.ENV, str(player))

    board = types.SimpleNamespace(flash=flash)  # the part of a Board the view's sound reads
    view = SimView(board)
    view.said_line("say zh 772 还剩4分钟", draw=False)
    view.sound.playing.wait(10)
    [wav] = kept.iterdir()
    with wave.open(str(wav)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (V.RATE, 1, 1)
        heard = w.readframes(w.getnframes())
    v = V.Voice(str(flash / "voice/zh.bin"))
    assert heard == bytes(phrase_pcm(v, cues.MINUTE_LEFT << 8 | 4))
    v.close()
    # English "1" (the count: the same words in both languages): no en.bin on this flash, so
    # not heard, never the Chinese file's 一; nor a cue that has no phrase.
    view.said_line("say en 1025 1", draw=False)
    view.said_line("say zh 301 45秒", draw=False)
    assert len(list(kept.iterdir())) == 1 and view.spoken == "45秒"
    view.sound.close()

    monkeypatch.setenv(sound.ENV, "off")
    quiet = SimView(board)
    quiet.said_line("say zh 772 还剩4分钟", draw=False)
    assert quiet.sound.command is None and quiet.spoken == "还剩4分钟"
