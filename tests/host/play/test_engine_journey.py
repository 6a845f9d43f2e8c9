"""An engine against the player at a virtual board, through the installed commands (issue L).

Nothing here is fake but the player's hands (tests/host/play/seat.py): the virtual board (the
firmware on the MicroPython unix port, its link on a pseudo-terminal), GNU Go from Debian, a
Gomocup brain built from C, the installed ``tengen play`` and ``tengen gtp --board`` started
from another folder, and for the second journey ``@sabaki/gtp`` — the controller library
Sabaki itself uses — running GNU Go against the board as two engines. What is compared: the
board's record as ``tengen sync`` brings it home against what the engine played.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.hal.virtual import shown
from firmware.rules.go import Game
from firmware.rules.gomoku import RENJU, Gomoku
from firmware.ui import texts as T
from host_tools.common.link import RUNTIME_ENV, Link
from tests.host.play import seat as SEAT
from tests.host.test_gtp_match import find_gnugo, node_and_gtp, run_match
from tests.host.test_pbrain import build_brain

ROOT = Path(__file__).resolve().parents[3]
TENGEN = Path(sys.executable).parent / "tengen"
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"

needs_board = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)


@pytest.fixture
def env(tmp_path, monkeypatch):
    e = dict(os.environ)
    for key, sub in ((RUNTIME_ENV, "run"), ("TENGEN_CONFIG_DIR", "config")):
        e[key] = str(tmp_path / sub)
        monkeypatch.setenv(key, e[key])
    e["TENGEN_DATA_DIR"] = str(tmp_path / "data")
    return e


def gnugo_or_skip() -> str:
    g = find_gnugo()
    if g is None:
        pytest.skip("GNU Go is not installed (make venv installs Debian's gnugo as root)")
    return g


def gnugo(path: str, seed: int) -> str:
    # Chinese (area) rules as the board counts; never resigning: the game ends in a count.
    return "%s --mode gtp --level 1 --seed %d --chinese-rules --never-resign" % (
        shlex.quote(path),
        seed,
    )


def configure(port: str, **settings) -> None:
    with Link(port) as link:
        link.request("settings", set=settings)


def sync_home(port: str, dest: Path, env: dict) -> list[Path]:
    r = subprocess.run(
        [str(TENGEN), "sync", "--port", port, "--dest", str(dest)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return sorted(dest.glob("*/*.sgf"))


def sgf_moves(path: Path, size: int) -> list[tuple[int, int]]:
    """(colour, point code) of an SGF's main line: the one encoding, y from the bottom."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    out = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is None:
            continue
        c = 1 if colour == "b" else 2
        out.append((c, 1023 if move is None else move[0] << 5 | move[1]))
    return out


def play_beside(seat, argv, env: dict, cwd: Path, timeout: float = 900):
    """``tengen play`` (argv) run while the seat plays; stopped at once if the seat fails (it
    would wait for ever for a player who is gone). Its CompletedProcess."""
    import time

    proc = subprocess.Popen(
        [str(a) for a in argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )
    end = time.monotonic() + timeout
    while proc.poll() is None:
        if (not seat.is_alive() and seat.error) or time.monotonic() > end:
            proc.kill()
            break
        time.sleep(0.5)
    out, err = proc.communicate()
    seat.join(120)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def dead_by_gnugo(path: str):
    """The dead stones as GNU Go judges them: what the player lifts before the count."""

    def dead(game: Game):
        cmds = ["boardsize %d" % game.size, "clear_board"]
        from firmware.rules.coords import vertex

        for i in range(game.ply):
            c, x, y = game.move(i)
            cmds.append(
                "play %s %s" % ("b" if c == 1 else "w", "pass" if x is None else vertex(x, y))
            )
        cmds += ["final_status_list dead", "quit"]
        r = subprocess.run(
            shlex.split(gnugo(path, 1)),
            input="\n".join(cmds) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        answers = [a for a in r.stdout.split("\n\n") if a.strip()]
        from firmware.rules.coords import parse_vertex

        return [parse_vertex(v, game.size) for v in answers[-2].lstrip("= ").split()]

    return dead


@contextmanager
def gnu_go_plays_white(tmp_path, env, dead, wrong=0, cwd=None):
    """A 9×9 game on a fresh virtual board: the seat plays Black (14 moves of a weak random
    player, then passes; ``dead``: how it treats GNU Go's dead stones), ``tengen play`` runs
    GNU Go as White from ``cwd``. Yields ``(board, seat, run, summary)`` once tengen play has
    ended well; stops the seat and the board whatever happens."""
    from host_tools.board.sim import Board

    path = gnugo_or_skip()
    board = Board(tmp_path / "flash", seed=4)
    seat = None
    try:
        configure(board.link, game="go", size=9, komi2=11, time="absolute/3600")
        policy = SEAT.go_policy(seed=7, moves=14)
        seat = SEAT.Seat(board, Game(9), SEAT.BLACK, policy, wrong=wrong, dead=dead)
        seat.start()
        r = play_beside(
            seat,
            [TENGEN, "play", "--engine", gnugo(path, 3), "--port", board.link, "--json"],
            env,
            cwd or tmp_path,
        )
        assert r.returncode == 0, (r.stdout, r.stderr[-3000:], seat.error)
        assert seat.error is None, seat.error
        yield board, seat, r, json.loads(r.stdout)
    finally:
        if seat is not None:
            seat.stop()
        board.close()


@pytest.mark.slow(69)
@needs_board
def test_gnu_go_against_the_player_through_tengen_play(tmp_path, env):
    # The player (Black, a weak random player) plays 14 moves and passes; GNU Go plays on
    # until it passes. It calls some of Black's stones dead: the player's face names them
    # (DEAD., how many, each point, read off the glass), the player lifts them, MODE counts,
    # the player's paddle confirms and GNU Go's agreement (its final_score is the board's
    # count) is the other confirmation. tengen play reports that confirmed result.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with gnu_go_plays_white(tmp_path, env, "engine", wrong=2, cwd=elsewhere) as game:
        board, seat, r, summary = game
        assert summary["engine"].startswith("GNU Go") and summary["colour"] in (2, "white")
        # The stone put on the wrong point for the engine's second move was refused, said.
        assert seat.seen_wrong.startswith("PUT") and seat.faces_said[1].startswith("W")
        moves = [tuple(m) for m in summary["moves"]]
        assert moves == seat.moves
        # GNU Go saw dead stones; the player's face named each, counting down, and they
        # are the stones the player lifted.
        dead = summary["engine_dead"]
        assert dead, summary
        assert sorted(y << 5 | x for x, y in seat.lifted) == sorted(dead)
        assert len(seat.lift_faces) == len(dead)
        for face, left in zip(seat.lift_faces, range(len(dead), 0, -1), strict=True):
            assert face.startswith(shown("%s%2d" % (T.LIFT_DEAD, left)).rstrip()), seat.lift_faces
        # The board's count after the lift is GNU Go's score: both confirmed, reported.
        assert summary["count"]["agreed"] is True and summary["count"]["dead"]
        assert summary["engine_score"] == summary["result"], summary
        assert "engine agrees" in r.stderr and ("result: %s" % summary["result"]) in r.stderr
        [home] = sync_home(board.link, tmp_path / "home", env)
        assert sgf_moves(home, 9) == moves
        root = sgf.Sgf_game.from_bytes(home.read_bytes()).get_root()
        assert root.get("PW").startswith("GNU Go")  # who the opponent was
        assert root.get("RE") == summary["result"]
        assert "the stones the remote side calls dead" in home.read_text()


@pytest.mark.slow(71)
@needs_board
def test_a_count_gnu_go_does_not_share_is_said_and_recorded(tmp_path, env):
    # The same game, but the player presses MODE with one of GNU Go's dead stones still on
    # the board: GNU Go's count differs, both faces say DIFFER and that stone (read off the
    # glass), tengen play says so; the stone lifted, MODE again, and the counts agree. The
    # record keeps the disagreement in words, with GNU Go's count.
    with gnu_go_plays_white(tmp_path, env, "engine-differ") as game:
        board, seat, r, summary = game
        last = seat.lift_faces[-1].split()[-1]  # the stone left on, as DEAD. 1 named it
        assert seat.differ_face == shown("DIFFER", last).rstrip(), seat.differ_face
        score = summary["engine_score"]
        assert "engine disagrees: it counts %s" % score in r.stderr
        assert summary["result"] == score and summary["count"]["agreed"] is True
        [home] = sync_home(board.link, tmp_path / "home", env)
        text = home.read_text()
        assert "the remote side's count differs" in text and "it counts %s" % score in text


@pytest.mark.slow(61)
@needs_board
def test_sabaki_gtp_runs_gnu_go_against_tengen_gtp_board(tmp_path, env):
    from host_tools.board.sim import Board

    path = gnugo_or_skip()
    tools = node_and_gtp()
    if tools is None:
        pytest.skip("node or @sabaki/gtp is missing (make venv installs it with npm)")
    node, modules = tools
    board = Board(tmp_path / "flash", seed=6)
    seat = None
    try:
        seat = SEAT.Seat(
            board,
            Game(9),
            SEAT.WHITE,
            SEAT.go_policy(seed=11, moves=12),
            wrong=3,
            dead=dead_by_gnugo(path),
        )
        seat.start()
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        tengen = "%s gtp --board %s --opponent 'GNU Go 3.8'" % (
            shlex.quote(str(TENGEN)),
            shlex.quote(board.link),
        )
        os.environ.update({k: env[k] for k in (RUNTIME_ENV, "TENGEN_CONFIG_DIR")})
        match = run_match(
            node,
            modules,
            gnugo(path, 5),
            tengen,
            "--size",
            "9",
            "--komi",
            "5.5",
            cwd=str(elsewhere),
            timeout=900,
        )
        seat.join(120)
        assert seat.error is None, seat.error
        assert match["errors"] == [], match
        assert match["end"] == "passes", match
        moves = [(1 if c == "B" else 2, _code(v)) for c, v in match["moves"]]
        assert moves == seat.moves
        [home] = sync_home(board.link, tmp_path / "home", env)
        assert sgf_moves(home, 9) == moves
        root = sgf.Sgf_game.from_bytes(home.read_bytes()).get_root()
        assert root.get("PB") == "GNU Go 3.8"
        # Both engines' final_score: GNU Go's own and the board's count agree.
        assert match["scores"]["white"] == root.get("RE")
        assert match["scores"]["black"] == match["scores"]["white"], match
    finally:
        if seat is not None:
            seat.stop()
        board.close()


def _code(v: str) -> int:
    from firmware.rules.coords import parse_vertex

    xy = parse_vertex(v, 9)
    return 1023 if xy is None else xy[1] << 5 | xy[0]


@pytest.mark.slow(25)
@needs_board
def test_a_renju_game_against_a_gomocup_brain_to_a_five_or_a_foul(tmp_path, env):
    from host_tools.board.sim import Board

    brain = build_brain(tmp_path)
    board = Board(tmp_path / "flash", seed=8)
    seat = None
    try:
        configure(board.link, game="renju", opening="free", time="fischer/600/10")
        seat = SEAT.Seat(board, Gomoku(RENJU, 15), SEAT.BLACK, SEAT.renju_policy(seed=3), wrong=2)
        seat.start()
        r = subprocess.run(
            [str(TENGEN), "play", "--engine", str(brain), "--port", board.link, "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=900,
        )
        seat.join(120)
        assert r.returncode == 0, (r.stdout, r.stderr[-3000:], seat.error)
        assert seat.error is None, seat.error
        summary = json.loads(r.stdout)
        assert summary["engine"].startswith("pbrain-tiny")
        assert seat.seen_wrong.startswith("PUT")
        result = summary["result"]
        assert result.startswith("W+") or result.startswith("B+"), summary
        assert seat.game.winner, "the game did not end by the rules"
        moves = [tuple(m) for m in summary["moves"]]
        assert moves == seat.moves
        [home] = sync_home(board.link, tmp_path / "home", env)
        text = home.read_text()
        assert "GM[4]" in text and "PW[pbrain-tiny" in text
        assert sgf_moves(home, 15) == moves or _gomoku_moves(text) == moves
    finally:
        if seat is not None:
            seat.stop()
        board.close()


def _gomoku_moves(text: str) -> list[tuple[int, int]]:
    # GM[4] SGF: ;B[hh] with 'a' the top row, as Go's SGF.
    import re

    out = []
    for colour, where in re.findall(r";([BW])\[([a-o]{2})\]", text):
        x, row = ord(where[0]) - 97, ord(where[1]) - 97
        out.append((1 if colour == "B" else 2, (14 - row) << 5 | x))
    return out
