"""Scripted games (host_tools/hall/scripted.py): the demo's games are legal with captures, a
script is checked before a stone goes down, and a 9x9 game with a capture played at a
virtual board's keys, counted and confirmed, is in the board's journal move for move, with
no refusal; brought home by ``tengen sync`` its SGF has exactly the scripted moves.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.rules.coords import GO_COLUMNS
from host_tools.common.link import RUNTIME_ENV, Link
from host_tools.hall import scripted as S

ROOT = Path(__file__).resolve().parents[3]
TENGEN = Path(sys.executable).parent / "tengen"
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"

needs_board = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)


@pytest.mark.parametrize("game", S.DEMO_GAMES, ids=lambda g: g.name)
def test_the_demo_games_are_legal_with_captures_and_an_end(game):
    script = S.steps(game.moves, game.size, game.dead)
    assert 30 <= len(game.moves) <= 60
    assert any(s.taken for s in script), "no capture"
    assert script[-1].move in ("resign", "count")
    # Captured stones go before the press (the referee refuses a press with them on).
    for s in script:
        if s.taken:
            assert s.commands[0].startswith("put ") and s.commands[-1].startswith("press ")
            assert [c.split()[0] for c in s.commands[1:-1]] == ["lift"] * len(s.taken)


def test_a_smaller_game_sits_in_the_middle_of_the_grid():
    assert S.grid_point(4, 4, 9) == "K10"  # 9x9 E5
    assert S.grid_point(0, 0, 13) == "D4"
    assert S.grid_point(18, 18, 19) == "T19"
    first = S.steps(["E5", "pass", "resign"], 9)
    assert first[0].commands == ["put K10 b", "press b"] and first[0].point == 4 << 5 | 4
    assert first[1].commands == ["press w"] and first[1].point == 1023
    assert first[2].commands == ["key plus+minus", "key mode"]


def test_a_bad_script_is_refused_before_play():
    with pytest.raises(S.ScriptError, match="move 2 .E5. is not legal"):
        S.steps(["E5", "E5"], 9)
    with pytest.raises(S.ScriptError, match="not a vertex"):
        S.steps(["Z9"], 9)
    with pytest.raises(S.ScriptError, match="move 3 .*over already"):
        S.steps(["pass", "pass", "D4"], 9)
    with pytest.raises(S.ScriptError, match="Go is played on"):
        S.steps(["D4"], 11)
    with pytest.raises(KeyError, match="nine-count"):
        S.demo_game("nope")


def _moves(game):
    return [node.get_move() for node in game.get_main_sequence()[1:] if node.get_move()[0]]


@pytest.mark.slow(23)
@needs_board
def test_a_scripted_9x9_game_is_the_boards_journal(tmp_path, monkeypatch):
    from host_tools.board.sim import Board

    env = dict(os.environ)
    for key, sub in ((RUNTIME_ENV, "run"), ("TENGEN_CONFIG_DIR", "config")):
        env[key] = str(tmp_path / sub)
        monkeypatch.setenv(key, env[key])
    game = S.demo_game("nine-count")
    board = Board(tmp_path / "flash", seed=3)
    try:
        player = S.Player(board, [game], pace_s=0.05, loop=False)
        player.start()
        player.join(240)
        assert not player.is_alive()
        assert player.error is None, player.error
        [played] = player.played
        assert played.ended and played.refusals == [] and player.hands.refusals == []
        assert "buzz REFUSE" not in player.hands.said
        with Link(board.link) as link:
            state = link.request("state")
        assert state["phase"] == "over" and state["size"] == 9
        assert state["moves"] == S.journal_points(game.moves, 9)
        assert state["colours"] == [1 + i % 2 for i in range(len(game.moves))]

        r = subprocess.run(
            [str(TENGEN), "sync", "--port", board.link, "--dest", str(tmp_path / "home")],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        sgf_file = next((tmp_path / "home").glob("*/*_000001.sgf"))
        home = sgf.Sgf_game.from_bytes(sgf_file.read_bytes())
        assert home.get_size() == 9 and home.get_root().get("RE") == state["result"]
        want = []
        for i, v in enumerate(game.moves):
            colour = "b" if i % 2 == 0 else "w"
            if v == "pass":
                want.append((colour, None))
            else:
                want.append((colour, (int(v[1:]) - 1, GO_COLUMNS.index(v[0]))))
        assert _moves(home) == want
    finally:
        board.close()


@pytest.mark.slow(5)
@needs_board
def test_a_player_stops_between_two_moves(tmp_path, monkeypatch):
    from host_tools.board.sim import Board

    monkeypatch.setenv(RUNTIME_ENV, str(tmp_path / "run"))
    board = Board(tmp_path / "flash", seed=5)
    try:
        player = S.Player(board, [S.demo_game("thirteen-resign")], pace_s=0.3)
        player.start()
        deadline = time.monotonic() + 120
        while player.steps < 3:
            assert time.monotonic() < deadline and player.is_alive(), player.error
            time.sleep(0.05)
        player.stop()
        assert not player.is_alive() and player.error is None
        [played] = player.played
        assert not played.ended and played.done == player.steps
        with Link(board.link) as link:
            state = link.request("state")
        assert state["phase"] == "play" and state["size"] == 13
        assert state["ply"] == player.steps < 48
    finally:
        board.close()
