"""The virtual board in simulated time (firmware/virtual/board.py's ``simulated``): the demo, the
commands and an SGF game stone by stone through the whole board, both runtimes."""

from firmware.referee import incidents as inc
from firmware.virtual.board import DEMO, simulated
from tests.test_journal import fresh_root

SETTINGS = {"game": "go", "size": 19, "time": "cn-local"}


def _board(out):
    return simulated(fresh_root(blocks=128)[: -len("/games")], out.append, settings=SETTINGS)


def _run(lines):
    out = []
    vb = _board(out)
    for line in lines:
        assert vb.do(line) is True
    return vb, out


def _row(out, y):
    # Row ``y`` (1 … 19) of the last ``board`` line: row 19 comes first.
    rows = [line[6:] for line in out if line.startswith("board ")][-1]
    return rows[(19 - y) * 19 : (20 - y) * 19]


def test_the_demo_plays_through_the_whole_stack():
    vb, out = _run(DEMO)
    assert vb.app.match.game.ply == 4
    assert inc.TWO_MOVES in vb.app.match.referee.log.kinds()  # two stones at once: refused
    assert "buzz REFUSE" in out
    assert out[-1] == "last 4 W D16"
    assert "X" in _row(out, 4) and "O" in _row(out, 4)  # row 4: D4 white, Q4 black


def test_bad_commands_answer_and_go_on():
    vb, out = _run(["put Z99 b", "frobnicate", "press", "wait x", "key pause", "put D4 b"])
    assert sum(1 for line in out if line.startswith("?")) == 4
    assert vb.do("quit") is False
    assert vb.grid.color_at(3, 3) == 1


def test_an_sgf_game_played_through_the_stack():
    from firmware.virtual.board import sgf_commands
    from tests.support import require_shared
    from tests.test_match import _resigned_game

    path, winner = _resigned_game()
    require_shared(path)
    vb, out = _run(sgf_commands(path, think_ms=500))
    moves = sum(1 for line in sgf_commands(path) if line.startswith("press"))
    assert vb.app.match.game.ply == moves
    kinds = vb.app.match.referee.log.kinds()
    assert [k for k in kinds if k not in (inc.MOVE, inc.PASS)] == [], kinds  # nothing said
    assert "buzz REFUSE" not in out


def test_a_stone_held_in_the_hand_then_put_elsewhere_is_not_the_move():
    # 拔子 (002 第六条1(6), 004 第17条3): D4 stood for half a second, was lifted and held for
    # a scan or more, then put on Q16; the first point counts, so the press is refused.
    from firmware.clock.clock import BLACK
    from firmware.rules.coords import parse_vertex

    script = "key pause\nput D4 b\nwait 500\nlift D4\nput Q16 b\npress b\nshow\nquit"
    out = []
    vb = _board(out)
    for line in script.split("\n"):
        assert vb.do(line) is (line != "quit")
    match = vb.app.match
    game = match.game
    assert game.ply == 0 and game.board.color_at(15, 15) == 0  # Q16 not committed
    ref = match.referee
    d4, q16 = [y << 5 | x for x, y in (parse_vertex(v, 19) for v in ("D4", "Q16"))]
    last = ref.log.last()
    assert last[0] == inc.MOVED_NEW and last[3] == (d4, q16)
    assert [e[3] for e in ref.log.items if e[0] == inc.MOVED_NEW] == [(d4, q16), (d4, q16)]
    said = [line for line in out if line.startswith("face B ") and "D4" in line]
    assert said, out  # Black's face names the point the stone must go back to
    assert match.clock.running == BLACK  # still Black's clock
