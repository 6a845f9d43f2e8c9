"""firmware/gtp/go.py as a real process: ``micropython -m firmware.gtp`` and ``python -m firmware.gtp``
fed a command script over stdin (CPython only: pytest drives the subprocesses).

The corpus test loads the first real game of ../shared/corpus/go/ where it lies (read-only) and
checks the stones against sgfmill's replay of the same file.
"""

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import shared_path

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"
CORPUS = Path(shared_path("corpus", "go"))
COLUMNS = "ABCDEFGHJKLMNOPQRST"


@pytest.fixture(params=["micropython", "cpython"])
def runtime(request):
    """The interpreter command for one runtime; the unix port is skipped when not installed."""
    if request.param == "micropython":
        if not MICROPYTHON.exists():
            pytest.skip("MicroPython unix port not found at " + str(MICROPYTHON))
        return [str(MICROPYTHON)]
    return [sys.executable]


def run_gtp(runtime, script):
    """Run the GTP engine on ``script`` (bytes or str); return (responses, completed process)."""
    if isinstance(script, str):
        script = script.encode()
    done = subprocess.run(
        [*runtime, "-m", "firmware.gtp"],
        cwd=ROOT,
        input=script,
        capture_output=True,
        timeout=120,
    )
    out = done.stdout.decode()
    assert out.endswith("\n\n") or out == "", out
    responses = out[:-2].split("\n\n") if out else []
    return responses, done


SCRIPT = b"""\
# a comment line, then an empty one

1 protocol_version
2 name
boardsize 9
komi 6.5
play b D5
play w E5
play b F5
\tplay w A1   # tab and trailing comment
play b E6
play w A2\r
play b E4
captures black
list_stones white
\xff\xfe garbage \x00 bytes
play w E5
play b Z99
frobnicate
40 showboard
final_score
99 quit
name
"""


def test_command_script(runtime):
    responses, done = run_gtp(runtime, SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert responses[:2] == ["=1 2", "=2 Tengen"]
    assert responses[2:11] == ["= "] * 9  # boardsize, komi, seven moves
    assert responses[11:13] == ["= 1", "= A1 A2"]
    assert responses[13] == "? unknown command"
    assert responses[14] == "? illegal move (suicide)"
    assert responses[15].startswith("? syntax error")
    assert responses[16] == "? unknown command"
    board = responses[17].split("\n")
    assert board[0] == "=40 "
    assert board[1] == "   A B C D E F G H J"
    assert board[6] == " 5 . . . X + X . . . 5"
    assert board[-2] == "Captures: black (X) 1, white (O) 0"
    # Black 4 stones + E5, White 2 stones, the other 74 points shared: 42 - 39 - 6.5.
    assert responses[18] == "= W+3.5"
    assert responses[19] == "=99 "
    assert len(responses) == 20  # nothing is answered after quit


def test_end_of_input_without_quit(runtime):
    responses, done = run_gtp(runtime, "name\nplay b D4\nlist_stones black")  # no final LF
    assert done.returncode == 0, done.stderr
    assert responses == ["= Tengen", "= ", "= D4"]


def first_corpus_game():
    """The first Go game of the shared corpus (sorted by path), or skip."""
    games = sorted(CORPUS.rglob("*.sgf")) if CORPUS.is_dir() else []
    if not games:
        pytest.skip("shared Go corpus not found at " + str(CORPUS))
    return games[0]


def sgfmill_stones(path, moves=None):
    """Black and white vertices after replaying ``moves`` moves (all if None) with sgfmill."""
    from sgfmill import sgf, sgf_moves

    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    board, plays = sgf_moves.get_setup_and_moves(game)
    for colour, move in plays[:moves]:
        if move is not None:
            board.play(move[0], move[1], colour)
    stones = {"b": [], "w": []}
    for colour, (row, col) in board.list_occupied_points():
        stones[colour].append(COLUMNS[col] + str(row + 1))
    return len(plays), sorted(stones["b"]), sorted(stones["w"])


def test_loadsgf_of_the_first_corpus_game(runtime):
    path = first_corpus_game()
    total, black, white = sgfmill_stones(path)
    script = (
        f"loadsgf {path}\nlist_stones black\nlist_stones white\nfinal_score\n"
        f"loadsgf {path} 50\nlist_stones black\nlist_stones white\nfinal_score\nquit\n"
    )
    responses, done = run_gtp(runtime, script)
    assert done.returncode == 0, done.stderr
    assert len(responses) == 9, responses
    assert responses[0] == "= " + ("white" if total % 2 else "black"), responses[0]
    assert sorted(responses[1][2:].split()) == black
    assert sorted(responses[2][2:].split()) == white
    assert re.fullmatch(r"= ([BW]\+\d+(\.5)?|0)", responses[3]), responses[3]
    # Move 50 is White's in a game without handicap: 49 moves are replayed.
    _, black49, white49 = sgfmill_stones(path, 49)
    assert responses[4] == "= white"
    assert sorted(responses[5][2:].split()) == black49
    assert sorted(responses[6][2:].split()) == white49
    assert re.fullmatch(r"= ([BW]\+\d+(\.5)?|0)", responses[7]), responses[7]


def read_response(stream, timeout):
    """Read one GTP response (up to its empty line) from a pipe, failing after ``timeout`` s."""
    fd = stream.fileno()
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n\n"):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0))
        assert ready, "no complete response within %s s: %r" % (timeout, data)
        chunk = os.read(fd, 4096)
        assert chunk, "engine closed its output: %r" % data
        data += chunk
    return data.decode()


def test_answers_each_command_before_the_next_arrives(runtime):
    """A controller (GoGui, Sabaki) waits for every answer: output must be flushed per command."""
    proc = subprocess.Popen(
        [*runtime, "-m", "firmware.gtp"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for command, expected in (
            ("1 name", "=1 Tengen\n\n"),
            ("2 play b D4", "=2 \n\n"),
            ("3 play w D4", "?3 illegal move (occupied)\n\n"),
            ("4 list_stones b", "=4 D4\n\n"),
        ):
            proc.stdin.write(command.encode() + b"\n")
            proc.stdin.flush()
            assert read_response(proc.stdout, timeout=30) == expected
        _quit(proc)
    finally:
        _reap(proc)


# ---- tengen gtp, from any folder ---------------------------------------------------------------

TENGEN_SCRIPT = b"""\
1 name
boardsize 9
play black E5
play white D5
genmove black
list_commands
showboard
tengen-game renju
play b H8
list_stones black
quit
"""


def _tengen():
    # The tengen command of this environment (the dev install's console script), else the
    # package run as a module: either way not tied to the checkout's folder.
    script = Path(sys.executable).with_name("tengen")
    return [str(script)] if script.exists() else [sys.executable, "-m", "host_tools"]


@pytest.mark.parametrize("where", ["cpython", "micropython"])
def test_tengen_gtp_runs_from_any_folder(where, tmp_path):
    args = _tengen() + ["gtp"]
    if where == "micropython":
        if not MICROPYTHON.exists():
            pytest.skip("MicroPython unix port not found at " + str(MICROPYTHON))
        args.append("--micropython")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MICROPYPATH")}
    done = subprocess.run(
        args, cwd=elsewhere, input=TENGEN_SCRIPT, capture_output=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.endswith("\n\n"), out
    responses = out[:-2].split("\n\n")
    assert responses[0] == "=1 Tengen"
    assert responses[1:4] == ["= ", "= ", "= "]
    assert responses[4] == "? unknown command"  # the engine judges, it does not play
    commands = responses[5][2:].split("\n")
    assert "showboard" in commands and "genmove" not in commands
    board = responses[6].split("\n")
    assert board[1] == "   A B C D E F G H J"
    assert board[6] == " 5 . . . O X . . . . 5"
    assert responses[7:10] == ["= ", "= ", "= H8"]  # renju on 15x15, from any folder too
    assert responses[10] == "= "
    assert len(responses) == 11
    assert not (elsewhere / "firmware").exists()  # nothing was borrowed from the folder


def _descendants(pid):
    # The processes under ``pid`` (Linux /proc), depth first.
    out = []
    for task in Path("/proc/%d/task" % pid).iterdir():
        for kid in (task / "children").read_text().split():
            out.append(int(kid))
            out += _descendants(int(kid))
    return out


def test_tengen_gtp_micropython_runs_the_unix_port(tmp_path):
    # The engine that answers is the unix port's: a process under tengen runs micropython -m
    # firmware.gtp (the venv's micropython is a Python script running the port in-process, so
    # its command line names it, not its executable).
    if not MICROPYTHON.exists():
        pytest.skip("MicroPython unix port not found at " + str(MICROPYTHON))
    if not Path("/proc/self/task").is_dir():
        pytest.skip("no /proc to look at the processes")
    proc = subprocess.Popen(
        _tengen() + ["gtp", "--micropython"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(b"name\n")
        proc.stdin.flush()
        assert read_response(proc.stdout, timeout=30) == "= Tengen\n\n"
        engines = []
        for pid in _descendants(proc.pid):
            try:
                cmdline = Path("/proc/%d/cmdline" % pid).read_bytes().split(b"\0")
            except OSError:
                continue
            mp = [a for a in cmdline[:2] if Path(os.fsdecode(a)).name == "micropython"]
            if mp and b"firmware.gtp" in cmdline:
                engines.append(pid)
        assert len(engines) == 1, _descendants(proc.pid)
        _quit(proc)
    finally:
        _reap(proc)


def _quit(proc):
    # GTP's quit: answered, then the engine exits cleanly.
    proc.stdin.write(b"quit\n")
    proc.stdin.flush()
    assert read_response(proc.stdout, timeout=30) == "= \n\n"
    assert proc.wait(timeout=30) == 0


def _reap(proc):
    # Whatever happened: no engine left running, no pipe left open.
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()


def test_a_32k_line_in_a_small_heap_is_answered_and_the_next_one_served(runtime):
    # firmware/gtp/go.py reads its lines bounded (firmware/link/lines.py), as the board's link does:
    # the unix port in a 400 KB heap held a 32 KB line whole before (MemoryError).
    heap = ["-X", "heapsize=400k"] if runtime[0] == str(MICROPYTHON) else []
    script = b"1 name\n2 play b " + b"D4" * 16384 + b"\n3 protocol_version\n"
    responses, done = run_gtp(runtime + heap, script)
    assert done.returncode == 0, done.stderr
    assert responses == ["=1 Tengen", "? line too long (at most 4096 bytes)", "=3 2"]
