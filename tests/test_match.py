"""A whole game at the board (firmware/game/match.py): the simulated grid, paddles, the clock.

A corpus game that ended by resignation is played stone by stone on the simulated grid with
realistic timing (5-60 s a move, the paddle stamped a little after the stone settles); the
grid is scanned only while something happens, and the clock is ticked across the quiet
seconds, which is the same for the logic. The result, the moves and the clock totals must
come out exactly.
"""

from firmware.clock.clock import BLACK, PAUSED, WHITE
from firmware.game.match import MOVED, REFUSED, Match
from firmware.rules import sgf
from firmware.rules.go import Game
from firmware.sensing.grid import Sensing
from firmware.store import records as R
from firmware.store.journal import Journal
from firmware.virtual.board import play_taking
from tests.support import Rng, join, require_shared, shared_path
from tests.test_journal import fresh_root
from tests.test_physical_replay import N, calibrated


def _resigned_game():
    root = shared_path("corpus", "go")
    require_shared(join(root, "index.tsv"))
    with open(join(root, "index.tsv")) as f:
        f.readline()
        for line in f:
            cols = line.split("\t")
            if len(cols) > 6 and cols[4][2:3] == "R" and int(cols[6]) <= 160:
                return join(root, cols[0]), cols[4][0]
    raise AssertionError("no resigned game in the corpus")


def test_a_corpus_game_at_the_board():
    path, winner = _resigned_game()
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    moves = sgf.moves(nodes, N)
    grid, frame, cal = calibrated(3)
    journal = Journal(fresh_root(blocks=128))
    match = Match({"game": "go19", "time": "cn-local"}, Sensing(N, cal), journal)
    rng = Rng(77)
    now = 1000
    for _ in range(5):
        now += 50
        match.frame(grid.scan(frame), now)
    match.start(now, board_id="sim-3")
    game_no = journal.game_no
    shadow = Game(N)  # the corpus game, to know which stones each move takes
    used = [0, 0, 0]
    for k, (colour, xy) in enumerate(moves):
        side = BLACK if colour == "B" else WHITE
        think = rng.between(5000, 60000)
        t0 = now
        now += think - 300  # thinking: nothing on the board changes, the clock ticks
        assert not match.tick(now)
        if xy is not None:
            x, y = xy
            taken = play_taking(shadow, side, x, y)  # what the player will take off
            grid.put(x, y, side, dx=rng.between(-8, 8) / 100)
            for _ in range(4):
                now += 50
                match.frame(grid.scan(frame), now)
            game = match.game
            for px, py in taken:
                grid.lift(px, py)
            for _ in range(3):
                now += 50
                match.frame(grid.scan(frame), now)
            assert game.ply == k
        else:
            shadow.play(side, None, None)
        at = now + 100  # the paddle, stamped in its IRQ
        r = match.press(side, at)
        assert r == MOVED, (k, r, match.referee.why)
        if k == 40:  # a power cut here: the journal gives back the game as it stands
            back = Journal(journal.root).resume()
            assert len(back["moves"]) == 41 and back["clocks"] == match.clocks()
            again = Match({"game": "go19", "time": "cn-local"}, Sensing(N, cal))
            again.restore(back)  # the board after the power comes back
            assert bytes(again.game.board.rows) == bytes(match.game.board.rows)
            assert again.clocks() == match.clocks() and again.clock.state == PAUSED
            assert again.clock.running == match.clock.running
        used[side] += at - t0
        now = at
    loser = WHITE if winner == "B" else BLACK
    match.resign(loser, now)
    assert match.result == winner + "+R"
    assert match.game.ply == len(moves)
    assert match.clock.spent[BLACK] == used[BLACK]
    assert match.clock.spent[WHITE] == used[WHITE]
    assert match.clock.state == 4  # finished
    recs = journal.records(game_no)
    kept = [r for r in recs if r[0] == R.MOVE]
    assert len(kept) == len(moves)
    assert [r[3] for r in kept] == [
        1023 if xy is None else (xy[1] << 5) | xy[0] for _, xy in moves
    ]  # every point, in order
    result = [r for r in recs if r[0] == R.RESULT][0]
    assert result[1:3] == (1 if winner == "B" else 2, 1)  # the winner, by resignation
    assert kept[-1][5] == match.clocks()  # the clocks of the last press


def test_a_press_the_referee_refuses_leaves_the_clock_running():
    grid, frame, cal = calibrated(5)
    match = Match({"game": "go19", "time": "fischer-30-30"}, Sensing(N, cal))
    now = 0
    for _ in range(5):
        now += 50
        match.frame(grid.scan(frame), now)
    match.start(now)
    grid.put(3, 3, BLACK)
    grid.put(15, 15, BLACK)  # two stones at once
    for _ in range(4):
        now += 50
        match.frame(grid.scan(frame), now)
    assert match.press(BLACK, now + 10) == REFUSED
    assert match.clock.running == BLACK and match.game.ply == 0
    grid.lift(15, 15)
    for _ in range(4):
        now += 50
        match.frame(grid.scan(frame), now)
    assert match.press(BLACK, now + 10) == MOVED
    assert match.clock.running == WHITE
