"""Physical replay: real games played stone by stone on the simulated Hall grid, end to end.

The whole chain of the board runs here on every frame: ``firmware/hal/virtual_grid.py`` (the
grid, with its noise, offsets, crosstalk and faults) → ``firmware/sensing`` (calibrated on the grid as a
maker would: an empty board, then the two checkerboard passes) → ``firmware/referee`` → the
rules. Players are nuisances: stones put down off-centre, lowered from a hovering hand, slid
in from the next point, captures taken off one at a time in random order, and sometimes the
clock pressed before the captures are gone. The referee's game must equal the corpus game
exactly, with no phantom move, and every injected incident must be logged as what it was.
"""

from firmware.hal import virtual
from firmware.referee import incidents as inc
from firmware.referee.referee import ACCEPTED, REFUSED, Referee
from firmware.rules import sgf
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.gomoku import RENJU, Gomoku
from firmware.sensing.grid import DEBOUNCE_MS, Sensing, board_sensing
from firmware.virtual.board import play_taking
from tests.go_corpus import corpus_games
from tests.support import Rng, join, require_shared, shared_path

N = 19
STEP_MS = 50  # 20 scans/s, as the research's one-shot scan
ACT_MS = 250  # what a player leaves between actions: 5 scans (the debounce needs 3)
GAMES = 6
# The board's two scan paths with its time-debounced sensing (firmware/hal/rp2040.py): the
# DMA scan's ~190 frames/s (a frame every 5 ms here) and the polled one's 100; the players
# are quick there, 50 ms between actions (the debounce needs DEBOUNCE_MS).
BOARD_RATES_MS = (5, 10)
QUICK_MS = 50


def calibrated(seed):
    """A simulated grid calibrated by the real procedure: ``(grid, a frame, calibration)``."""
    return virtual.calibrated(seed, reversed=((3, 15),))


class Table:
    """The board on the table: the simulated grid, its sensing, the referee, one game."""

    def __init__(self, seed, game=None, step_ms=STEP_MS, board=False):
        self.grid, self.frame, cal = calibrated(seed)
        self.sensing = board_sensing(N, cal) if board else Sensing(N, cal)
        self.game = game or Game(N)
        self.referee = Referee(self.game, grid=N, log_limit=1000)  # every incident, to count
        self.now = 0
        self.step = step_ms
        self.wait(400)

    def frames(self, k):
        """``k`` scans, ``step`` ms apart, each through sensing and, on a change, the
        referee."""
        s = self.sensing
        for _ in range(k):
            self.now += self.step
            if s.update(self.grid.scan(self.frame), self.now) > 0:
                self.referee.see(s.states, self.now)

    def wait(self, ms):
        """The scans of ``ms`` of time (at least one)."""
        self.frames(max(1, -(-ms // self.step)))

    def press(self, side):
        return self.referee.press(side, self.now)


def play_game(path, seed, step_ms=STEP_MS, act_ms=ACT_MS, board=False):
    """Play one corpus game on the table (scans ``step_ms`` apart, ``act_ms`` between the
    player's actions; the board's sensing if ``board``); ``(moves, early presses, moved
    stones, the table, the corpus game)``."""
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    info = sgf.game_info(nodes[0])
    assert info["size"] == N and not info["ab"] and not info["aw"]
    moves = sgf.moves(nodes, N)
    nodes = None
    rng = Rng(seed)
    table = Table(seed, step_ms=step_ms, board=board)
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
        taken = play_taking(shadow, c, x, y)
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
        table.wait(act_ms)
        if rng.below(8) == 0:  # a hand hovers over the board, then goes away
            grid.hover(x + 0.5, y + 0.5, 0.2)
            table.wait(3 * act_ms // 5)
            grid.unhover()
            table.wait(act_ms)
        nx = x + 1 if x + 1 < N else x - 1
        if rng.below(12) == 0 and not grid.color_at(nx, y) and not shadow.board.color_at(nx, y):
            # lifted and put down next door: the first point counts, the press is refused
            # until the stone is back (002 第六条1(6))
            grid.lift(x, y)
            grid.put(nx, y, c)
            table.wait(act_ms)
            assert table.press(c) == REFUSED, "move %d: the stone was moved" % (k + 1)
            assert table.referee.why == inc.MOVED_NEW
            grid.lift(nx, y)
            grid.put(x, y, c)
            table.wait(act_ms)
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
            table.wait(2 * act_ms // 5)
        table.wait(act_ms)
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


def test_a_corpus_game_on_the_boards_sensing_at_both_scan_rates():
    # The board's time-debounced sensing at the DMA scan's rate and at the polled one's, the
    # players quick (QUICK_MS between actions): the same game, no phantom move, every stone
    # seen. Captures are lifted QUICK_MS * 2 / 5 = 20 ms apart, above the debounce.
    assert 2 * QUICK_MS // 5 > DEBOUNCE_MS
    path = _games(1)[0]
    for step in BOARD_RATES_MS:
        moves, early, moved, table, shadow = play_game(path, 41, step, QUICK_MS, board=True)
        game = table.game
        assert game.ply == moves, step
        assert bytes(game.board.rows) == bytes(shadow.board.rows), step
        kinds = table.referee.log.kinds()
        assert kinds.count(inc.MOVE) + kinds.count(inc.PASS) == moves
        assert kinds.count(inc.CAPTURES_LEFT) == early
        assert kinds.count(inc.MOVED_NEW) == 2 * moved
        known = (inc.MOVE, inc.PASS, inc.CAPTURES_LEFT, inc.MOVED_NEW)
        assert [k for k in kinds if k not in known] == [], step


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
            table.wait(ACT_MS)
            assert table.press(c) == ACCEPTED, "game %d move %d" % (g, k + 1)
        game = table.game
        assert game.moves == shadow.moves
        assert (game.winner, game.reason, game.foul) == (shadow.winner, shadow.reason, shadow.foul)
        kinds = table.referee.log.kinds()
        assert kinds.count(inc.MOVE) == len(moves) and len(kinds) == len(moves), kinds
        ends.add(game.reason)
    assert len(ends) >= 2, ends  # fives and fouls both met
