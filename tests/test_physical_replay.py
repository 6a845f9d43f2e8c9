"""Physical replay: real games played stone by stone on the simulated Hall grid, end to end.

The whole chain of the board runs here on every frame: ``firmware/hal/sim.py`` (the grid, with
its noise, offsets, crosstalk and faults) → ``firmware/sensing`` (calibrated on the grid as a
maker would: an empty board, then the two checkerboard passes) → ``firmware/referee`` → the
rules. Players are nuisances: stones put down off-centre, lowered from a hovering hand, slid
in from the next point, captures taken off one at a time in random order, and sometimes the
clock pressed before the captures are gone. The referee's game must equal the corpus game
exactly, with no phantom move, and every injected incident must be logged as what it was.
"""

from firmware import sgf, simulator
from firmware.referee import incidents as inc
from firmware.referee.referee import ACCEPTED, REFUSED, Referee
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.gomoku import RENJU, Gomoku
from firmware.sensing.grid import Sensing
from tests.go_corpus import corpus_games
from tests.support import Rng, join, require_shared, shared_path

N = 19
FRAMES = 5  # frames a player leaves between actions (the debounce needs 3)
GAMES = 6


def calibrated(seed):
    """A simulated grid calibrated by the real procedure: ``(grid, a frame, calibration)``."""
    return simulator.calibrated(seed, reversed=((3, 15),))


class Table:
    """The board on the table: the simulated grid, its sensing, the referee, one game."""

    def __init__(self, seed, game=None):
        self.grid, self.frame, cal = calibrated(seed)
        self.sensing = Sensing(N, cal)
        self.game = game or Game(N)
        self.referee = Referee(self.game, grid=N, log_limit=1000)  # every incident, to count
        self.now = 0
        self.frames(8)

    def frames(self, k):
        """``k`` scans, each through sensing and, on a change, the referee."""
        s = self.sensing
        for _ in range(k):
            self.now += 50
            if s.update(self.grid.scan(self.frame), self.now) > 0:
                self.referee.see(s.states, self.now)

    def press(self, side):
        return self.referee.press(side, self.now)


def play_game(path, seed):
    """Play one corpus game on the table; ``(moves, early presses, the table)``."""
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    info = sgf.game_info(nodes[0])
    assert info["size"] == N and not info["ab"] and not info["aw"]
    moves = sgf.moves(nodes, N)
    nodes = None
    rng = Rng(seed)
    table = Table(seed)
    grid = table.grid
    shadow = Game(N)  # the corpus game, to know which stones each move takes
    early = 0
    moved = 0
    for k, (colour, xy) in enumerate(moves):
        c = BLACK if colour == "B" else WHITE
        if xy is None:
            shadow.play(c, None, None)
            assert table.press(c) == ACCEPTED, "move %d: a pass" % (k + 1)
            continue
        x, y = xy
        taken = simulator.play_taking(shadow, c, x, y)
        style = rng.below(4)
        if style == 0:  # lowered from a hovering hand
            for _ in grid.descend(x, y, c, 4, dx=0.04, dy=-0.03):
                table.frames(1)
        elif style == 1 and 0 < x < N - 1:  # slid in from the next point, if that is empty
            side = x - 1 if not grid.color_at(x - 1, y) else x + 1
            if not grid.color_at(side, y) and not shadow.board.color_at(side, y):
                for _ in grid.slide(((side, y), (x, y)), 4, color=c):
                    table.frames(1)
            else:
                grid.put(x, y, c, dx=0.08, dy=0.05)
        else:  # put down a little off the point
            grid.put(x, y, c, dx=(rng.below(21) - 10) / 100, dy=(rng.below(21) - 10) / 100)
        table.frames(FRAMES)
        if rng.below(8) == 0:  # a hand hovers over the board, then goes away
            grid.hover(x + 0.5, y + 0.5, 0.2)
            table.frames(3)
            grid.unhover()
            table.frames(FRAMES)
        nx = x + 1 if x + 1 < N else x - 1
        if rng.below(12) == 0 and not grid.color_at(nx, y) and not shadow.board.color_at(nx, y):
            # lifted and put down next door: the first point counts, the press is refused
            # until the stone is back (002 第六条1(6))
            grid.lift(x, y)
            grid.put(nx, y, c)
            table.frames(FRAMES)
            assert table.press(c) == REFUSED, "move %d: the stone was moved" % (k + 1)
            assert table.referee.why == inc.MOVED_NEW
            grid.lift(nx, y)
            grid.put(x, y, c)
            table.frames(FRAMES)
            moved += 1
        if taken and rng.below(3) == 0:  # the clock pressed before the captures are off
            assert table.press(c) == REFUSED, "move %d: pressed with captures left" % (k + 1)
            assert table.referee.why == inc.CAPTURES_LEFT
            early += 1
        order = list(taken)
        for i in range(len(order) - 1, 0, -1):  # taken off one at a time, in random order
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        for px, py in order:
            grid.lift(px, py)
            table.frames(2)
        table.frames(FRAMES)
        r = table.press(c)
        assert r == ACCEPTED, "move %d %s: refused (%s %r)" % (
            k + 1,
            colour,
            inc.words(table.referee.why)[1],
            table.referee.points,
        )
    return len(moves), early, moved, table, shadow


def _games(count):
    root = shared_path("corpus", "go")
    require_shared(join(root, "index.tsv"))
    out = []
    for name, moves in corpus_games(root):
        if moves <= 140:  # short games keep the run quick on both runtimes
            out.append(join(root, name))
        if len(out) == count:
            break
    return out


def test_corpus_games_replayed_stone_by_stone():
    totals = [0, 0]
    for g, path in enumerate(_games(GAMES)):
        moves, early, moved, table, shadow = play_game(path, 11 + g)
        game = table.game
        assert game.ply == moves  # no phantom move, none lost
        assert bytes(game.board.rows) == bytes(shadow.board.rows), path
        kinds = table.referee.log.kinds()
        assert kinds.count(inc.MOVE) + kinds.count(inc.PASS) == moves
        assert kinds.count(inc.CAPTURES_LEFT) == early
        assert kinds.count(inc.MOVED_NEW) == 2 * moved  # seen, then the refused press
        totals[0] += early
        totals[1] += moved
        known = (inc.MOVE, inc.PASS, inc.CAPTURES_LEFT, inc.MOVED_NEW)
        strays = [k for k in kinds if k not in known]
        assert strays == [], (path, strays)
    assert totals[0] >= 3 and totals[1] >= 3, totals  # the nuisances did happen


def _renju_moves(rng, most=70):
    """A random Renju game near the centre, to its end or ``most`` moves: ``(moves, game)``."""
    game = Gomoku(RENJU)
    moves = []
    while not game.winner and len(moves) < most:
        if not moves:
            x, y = 7, 7
        else:
            bx, by = moves[rng.below(len(moves))]
            x = bx + rng.below(5) - 2
            y = by + rng.below(5) - 2
            if not (0 <= x < 15 and 0 <= y < 15) or game.board.color_at(x, y):
                continue
        assert game.play(game.to_move, x, y) == 0
        moves.append((x, y))
    return moves, game


def test_generated_renju_games_on_the_go_board():
    # Renju's 15x15 is the middle of the 19x19 board: a stone at the game's (x, y) sits on
    # the grid's (x + 2, y + 2).
    ends = set()
    for g in range(4):
        rng = Rng(500 + g)
        moves, shadow = _renju_moves(rng)
        table = Table(31 + g, Gomoku(RENJU))
        grid = table.grid
        for k, (x, y) in enumerate(moves):
            c = BLACK if k % 2 == 0 else WHITE
            if rng.below(3) == 0:
                for _ in grid.descend(x + 2, y + 2, c, 4, dx=0.05):
                    table.frames(1)
            else:
                grid.put(x + 2, y + 2, c, dx=(rng.below(21) - 10) / 100)
            table.frames(FRAMES)
            assert table.press(c) == ACCEPTED, "game %d move %d" % (g, k + 1)
        game = table.game
        assert game.moves == shadow.moves
        assert (game.winner, game.reason, game.foul) == (shadow.winner, shadow.reason, shadow.foul)
        kinds = table.referee.log.kinds()
        assert kinds.count(inc.MOVE) == len(moves) and len(kinds) == len(moves), kinds
        ends.add(game.reason)
    assert len(ends) >= 2, ends  # fives and fouls both met
