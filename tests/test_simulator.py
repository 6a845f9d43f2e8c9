"""``make sim``'s program (firmware/virtual/simulator.py): the demo and the commands, both runtimes."""

from firmware.virtual.simulator import DEMO, Simulator


def _run(lines):
    out = []
    sim = Simulator(out=out.append)
    for line in lines:
        assert sim.command(line) is True
    return sim, out


def test_the_demo_plays_through_the_whole_stack():
    sim, out = _run(DEMO)
    assert sim.match.game.ply == 4
    assert any("连走二步" in line for line in out)  # the two stones at once were refused
    assert out[-1].startswith("black ") and "move 4" in out[-1]
    assert "X" in out[-18] and "O" in out[-18]  # row 4: D4 white, Q4 black


def test_bad_commands_answer_and_go_on():
    sim, out = _run(["put Z99 b", "frobnicate", "press", "wait x", "start", "put D4 b"])
    assert sum(1 for line in out if line.startswith("?")) == 4
    assert sim.command("quit") is False
    assert sim.grid.color_at(3, 3) == 1


def test_an_sgf_game_played_through_the_stack():
    from firmware.virtual.simulator import sgf_commands
    from tests.support import require_shared
    from tests.test_match import _resigned_game

    path, winner = _resigned_game()
    require_shared(path)
    sim, out = _run(sgf_commands(path, think_ms=500))
    moves = sum(1 for line in sgf_commands(path) if line.startswith("press"))
    assert sim.match.game.ply == moves
    assert not any("[referee]" in line for line in out), [x for x in out if "[referee]" in x]


def test_a_stone_held_in_the_hand_then_put_elsewhere_is_not_the_move():
    # 拔子 (002 第六条1(6), 004 第17条3): D4 stood for half a second, was lifted and held for
    # a scan or more, then put on Q16; the first point counts, so the press is refused.
    from firmware.clock.clock import BLACK
    from firmware.referee import incidents as inc
    from firmware.rules.coords import parse_vertex

    script = "start\nput D4 b\nwait 500\nlift D4\nput Q16 b\npress b\nshow\nquit"
    out = []
    sim = Simulator(out=out.append)
    for line in script.split("\n"):
        assert sim.command(line) is (line != "quit")
    game = sim.match.game
    assert game.ply == 0 and game.board.color_at(15, 15) == 0  # Q16 not committed
    ref = sim.match.referee
    d4, q16 = [y << 5 | x for x, y in (parse_vertex(v, 19) for v in ("D4", "Q16"))]
    last = ref.log.last()
    assert last[0] == inc.MOVED_NEW and last[3] == (d4, q16)
    assert [e[3] for e in ref.log.items if e[0] == inc.MOVED_NEW] == [(d4, q16), (d4, q16)]
    assert any("[referee]" in line and "D4 Q16" in line for line in out), out
    assert sim.match.clock.running == BLACK  # still Black's clock
