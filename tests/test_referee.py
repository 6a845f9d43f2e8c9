"""The referee (firmware/referee/) against what players do at the board, press by press.

The board the sensors see is drawn as in tests/diagrams.py (top row first, ``X`` black, ``O``
white, ``?`` a point the sensors cannot judge); the game's position is set up from another
diagram. Expectations are worked out from SPEC §3-§4 and the seeds: captured stones off
before the press (000 第二十三条, 004 第22条6), the first point counts (002 第六条1(6)), the
second of two stones is taken back (002 第六条1(4)), 004's void move as a pass.
"""

from firmware.referee import incidents as inc
from firmware.referee.referee import (
    ACCEPTED,
    REFUSED,
    VOID_PASS,
    WARN,
    Referee,
)
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.gomoku import OPENING_DESIGNATED, RENJU, Gomoku
from tests.diagrams import board_from, rows_of

_SEEN = {"X": BLACK, "O": WHITE, "?": 3}


def seen(diagram):
    """The stable states a diagram shows, as the sensing layer hands them over."""
    rows = rows_of(diagram)
    n = len(rows)
    out = bytearray(n * n)
    for i, row in enumerate(rows):
        for x, ch in enumerate(row):
            out[(n - 1 - i) * n + x] = _SEEN.get(ch, 0)
    return out


EMPTY9 = "\n".join([". . . . . . . . ."] * 9)


def go(diagram=EMPTY9, to_move=BLACK, **settings):
    game = board_from(diagram, to_move=to_move)
    return game, Referee(game, **settings)


def idx(text, n=9):
    """Frame index of a Go vertex like ``E5`` (the referee's own indexing)."""
    x = "ABCDEFGHJKLMNOPQRST".index(text[0])
    return (int(text[1:]) - 1) * n + x


def pt(text):
    """The point code of a Go vertex (``y << 5 | x``): how incidents name points."""
    x = "ABCDEFGHJKLMNOPQRST".index(text[0])
    return (int(text[1:]) - 1) << 5 | x


def test_a_stone_and_a_press_make_the_move():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    assert ref.press(BLACK, 1000) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK
    assert game.to_move == WHITE
    assert ref.log.last()[:4] == (inc.MOVE, 1, 1000, (pt("E9"),))


def test_a_press_with_no_stone_is_a_pass_in_go():
    game, ref = go()
    ref.see(seen(EMPTY9))
    assert ref.press(BLACK, 5) == ACCEPTED
    assert game.passes == 1 and ref.log.last()[0] == inc.PASS


def test_two_new_stones_are_refused():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". X . . X . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED
    assert ref.why == inc.TWO_MOVES and len(ref.points) == 2
    assert game.ply == 0


def test_the_wrong_colour_and_the_wrong_paddle():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . O . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.WRONG_COLOUR
    assert ref.press(WHITE, 5) == REFUSED and ref.why == inc.WRONG_COLOUR


CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . X O X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_captures_must_be_off_before_the_press():
    game, ref = go(CAPTURE)
    played = CAPTURE.replace(
        ". . . X O X . . .\n    . . . . . . . . .", ". . . X O X . . .\n    . . . . X . . . ."
    )
    ref.see(seen(played))
    assert ref.press(BLACK, 10) == REFUSED
    assert ref.why == inc.CAPTURES_LEFT and ref.points == (pt("E5"),)
    assert game.ply == 0 and game.board.color_at(4, 4) == WHITE  # nothing was played
    ref.see(seen(played.replace("X O X", "X . X")))
    assert ref.press(BLACK, 20) == ACCEPTED
    assert game.board.color_at(4, 4) == 0 and game.captures[BLACK] == 1


def test_captures_left_only_warned_when_set_so():
    game, ref = go(CAPTURE, captures=WARN)
    played = CAPTURE.replace(
        ". . . X O X . . .\n    . . . . . . . . .", ". . . X O X . . .\n    . . . . X . . . ."
    )
    ref.see(seen(played))
    assert ref.press(BLACK, 10) == ACCEPTED
    assert inc.CAPTURES_LEFT in ref.log.kinds()
    assert [i for i, want in ref.fixes()] == [idx("E5")]  # still to be taken off


KO = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
    . . X O . O . . .
    . . . X O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def _ko_taken(**settings):
    # Black takes the ko at E5; White may not take back at D5 at once.
    game, ref = go(KO, **settings)
    after = KO.replace(". . X O . O . . .", ". . X . X O . . .")
    ref.see(seen(after))
    assert ref.press(BLACK, 10) == ACCEPTED
    retake = after.replace(". . X . X O . . .", ". . X O . O . . .")
    ref.see(seen(retake))
    return game, ref


def test_an_illegal_point_is_refused():
    game, ref = _ko_taken()
    assert ref.press(WHITE, 20) == REFUSED
    assert ref.why == inc.ILLEGAL and ref.points == (pt("D5"),)
    assert game.to_move == WHITE


def test_under_004_an_illegal_move_is_void_and_a_pass():
    game, ref = _ko_taken(illegal=VOID_PASS)
    assert ref.press(WHITE, 20) == ACCEPTED
    assert game.to_move == BLACK and game.passes == 1
    assert ref.log.kinds()[-2:] == [inc.ILLEGAL, inc.PASS]


def test_the_first_point_counts():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . . X . . .", 1)))
    assert inc.MOVED_NEW in ref.log.kinds()
    assert ref.press(BLACK, 5) == REFUSED
    assert ref.why == inc.MOVED_NEW and ref.points == (pt("E9"), pt("F9"))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    assert ref.press(BLACK, 6) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK


def test_a_scattered_board_is_guided_back():
    stones = """
        . . . . . . . . .
        . . X . . . O . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . O . . . .
        . . . . . . . . .
        . . O . . . X . .
        . . . . . . . . .
        . . . . . . . . .
    """
    game, ref = go(stones)
    ref.see(seen(stones))
    assert not ref.scattered
    knocked = stones.replace("X", ".").replace("O", ".")
    ref.see(seen(knocked))
    assert ref.scattered and inc.SCATTERED in ref.log.kinds()
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.SCATTERED
    assert len(ref.fixes()) == 6
    assert sorted(w for i, w in ref.fixes()) == [1, 1, 1, 2, 2, 2]
    ref.see(seen(stones))
    assert not ref.scattered and ref.log.last()[0] == inc.RESTORED
    assert ref.fixes() == []


def test_an_unseen_point_is_not_a_pass():
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . ? . . . .", 1)))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.UNSEEN
    assert game.ply == 0


def test_arbiter_undo_and_the_way_back():
    game, ref = go()
    board = EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)
    ref.see(seen(board))
    ref.press(BLACK, 5)
    assert ref.undo()
    assert ref.fixes() == [(idx("E9"), 0)]  # take the stone off
    assert ref.log.last()[0] == inc.UNDO


def test_go_end_lifted_stones_are_dead():
    stones = """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X X X X
        O O O O O O O O O
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
    """
    game, ref = go(stones)
    ref.see(seen(stones.replace(". . . . . . X . .", ". . . . . . . . .")))
    assert ref.dead_stones() == [(6, 2)]
    result = ref.count()
    assert result.black_area2 == 2 * 36 and result.white_area2 == 2 * 45
    assert ref.log.last()[0] == inc.COUNT


# ---- Renju -------------------------------------------------------------------------------------

EMPTY15 = "\n".join([". " * 14 + "."] * 15)


def renju_seen(stones):
    """15x15 states from ``{(x, y): colour}``."""
    out = bytearray(225)
    for (x, y), c in stones.items():
        out[y * 15 + x] = c
    return out


def test_renju_no_pass_in_the_first_five_moves():
    game = Gomoku(RENJU)
    ref = Referee(game)
    ref.see(renju_seen({}))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.NO_STONE


def test_renju_fifth_move_offers_on_the_real_board():
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=2)
    ref = Referee(game)
    stones = {}
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 8), (6, 7))):  # 花月 + White 4
        c = BLACK if k % 2 == 0 else WHITE
        stones[(x, y)] = c
        ref.see(renju_seen(stones))
        assert ref.press(c, 10 * k) == ACCEPTED, k
    stones[(9, 9)] = BLACK  # the two offers
    stones[(5, 5)] = BLACK
    ref.see(renju_seen(stones))
    assert ref.press(BLACK, 100) == ACCEPTED
    assert ref.log.last()[0] == inc.OFFERS and game.offered
    ref.see(renju_seen(stones))
    assert not ref.scattered  # the offers are expected on the board
    del stones[(5, 5)]  # White keeps J10 and plays move 6
    stones[(10, 10)] = WHITE
    ref.see(renju_seen(stones))
    assert ref.press(WHITE, 110) == ACCEPTED
    assert game.board.color_at(9, 9) == BLACK and game.board.color_at(5, 5) == 0
    assert game.board.color_at(10, 10) == WHITE and game.to_move == BLACK
    assert inc.KEPT in ref.log.kinds()


def test_renju_offers_must_be_cut_to_one():
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=2)
    ref = Referee(game)
    stones = {}
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 8), (6, 7))):
        stones[(x, y)] = BLACK if k % 2 == 0 else WHITE
        ref.see(renju_seen(stones))
        ref.press(BLACK if k % 2 == 0 else WHITE, k)
    stones[(9, 9)] = BLACK
    stones[(5, 5)] = BLACK
    ref.see(renju_seen(stones))
    ref.press(BLACK, 100)
    stones[(10, 10)] = WHITE  # White plays without removing an offer
    ref.see(renju_seen(stones))
    assert ref.press(WHITE, 110) == REFUSED and ref.why == inc.OFFERS


def test_a_moved_stone_of_the_position():
    stones = EMPTY9.replace(". . . . . . . . .", ". . X . . . . . .", 1)
    game, ref = go(stones, to_move=WHITE)
    ref.see(seen(stones))
    slid = EMPTY9.replace(". . . . . . . . .", ". . . X . . . . .", 1)  # C9 to D9 (移子)
    ref.see(seen(slid))
    assert ref.log.last()[:4] == (inc.MOVED_OLD, 1, 0, (pt("C9"), pt("D9")))
    assert ref.press(WHITE, 5) == REFUSED and ref.why == inc.MOVED_OLD
    game, ref = go(stones, to_move=BLACK)  # the mover's own stone moved: not a move
    ref.see(seen(slid))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.MOVED_OLD
    assert game.ply == 0


def test_pressed_first_then_the_stone():
    game, ref = go()
    ref.see(seen(EMPTY9))
    assert ref.press(BLACK, 5) == ACCEPTED  # a pass
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)), 6)
    assert ref.log.last()[0] == inc.PRESS_FIRST


BIG_CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X X X X X . . .
    X O O O O O X . .
    . X X X X X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_a_big_capture_taken_off_is_not_a_scattered_board():
    # Black A5 takes the five white stones; the player lifts them before pressing, which the
    # referee must not mistake for a disturbed board.
    start = BIG_CAPTURE.replace("X O O O O O X", ". O O O O O X")
    game, ref = go(start)
    ref.see(seen(start))
    ref.see(seen(BIG_CAPTURE))  # A5 down
    ref.see(seen(BIG_CAPTURE.replace("X O O O O O X", "X . . . . . X")))  # the five lifted
    assert not ref.scattered
    assert ref.press(BLACK, 10) == ACCEPTED
    assert game.captures[BLACK] == 5
    assert inc.SCATTERED not in ref.log.kinds()


def test_a_bad_point_is_declared_by_the_players():
    # A dead sensor on E9 reads UNCERTAIN for ever: the players say what is there.
    game, ref = go()
    bad = EMPTY9.replace(". . . . . . . . .", ". . . . ? . . . .", 1)
    ref.see(seen(bad))
    assert ref.press(BLACK, 5) == REFUSED and ref.why == inc.UNSEEN
    ref.declare(idx("E9"), BLACK)  # Black put its stone there
    assert ref.press(BLACK, 6) == ACCEPTED
    assert game.board.color_at(4, 8) == BLACK
    ref.see(seen(bad))  # still unseen, still declared
    ref.see(seen(bad.replace("? . . . .", "? O . . .")))
    assert ref.press(WHITE, 7) == ACCEPTED and game.board.color_at(5, 8) == WHITE


# ---- the first point counts, however long the stone is in the hand (拔子) ------------------------
#
# On the simulated Hall grid through the real sensing, as at the board: the referee sees the
# stable states the debounce hands over, so a stone held in the hand for a few scans is seen
# gone from its point before it is seen elsewhere.

_GRID = []  # one calibrated grid for these tests: calibrating takes a while on MicroPython


class Table:
    """The 19x19 grid, its sensing and a referee for ``game`` (Renju's 15x15 in the middle)."""

    def __init__(self, game, **settings):
        from firmware.hal import virtual
        from firmware.sensing.grid import Sensing

        if not _GRID:
            _GRID.append(virtual.calibrated(7))
        self.grid, self.frame, cal = _GRID[0]
        self.grid.clear()
        self.sensing = Sensing(19, cal)
        self.game = game
        self.referee = Referee(game, grid=19, **settings)
        self.m = self.referee.margin
        self.now = 0
        self.scans(8)

    def scans(self, k):
        """``k`` scans, each through sensing and, on a change, the referee."""
        for _ in range(k):
            self.now += 50
            if self.sensing.update(self.grid.scan(self.frame), self.now) > 0:
                self.referee.see(self.sensing.states, self.now)

    def put(self, x, y, c, scans=5):
        self.grid.put(x + self.m, y + self.m, c)
        self.scans(scans)

    def lift(self, x, y, scans=5):
        self.grid.lift(x + self.m, y + self.m)
        self.scans(scans)

    def press(self, side):
        return self.referee.press(side, self.now)

    def at(self, x, y):
        """The referee's frame index of the game's point (x, y)."""
        return y * self.game.board.size + x

    def code(self, x, y):
        """The point code of (x, y), as incidents carry it."""
        return y << 5 | x

    def moved_new(self):
        return [e[3] for e in self.referee.log.items if e[0] == inc.MOVED_NEW]


def _held_and_put_elsewhere(table, c, first, elsewhere, held):
    # The stone of colour c put down on ``first``, lifted, held ``held`` scans, put down on
    # ``elsewhere``: the press is refused until it is back on ``first``, which is then the move.
    t = table
    ref = t.referee
    ply = t.game.ply
    logged = len(t.moved_new())
    t.put(first[0], first[1], c)
    assert ref.first == t.at(*first)
    t.lift(first[0], first[1], scans=held)
    if held >= 5:
        assert ref.seen[t.at(*first)] == 0  # seen gone: the old referee forgot it here
    t.put(elsewhere[0], elsewhere[1], c)
    points = (t.code(*first), t.code(*elsewhere))
    assert t.moved_new()[logged:] == [points], (held, t.moved_new())  # logged when seen
    t.scans(20)
    assert t.moved_new()[logged:] == [points]  # once
    assert t.press(c) == REFUSED, held
    assert ref.why == inc.MOVED_NEW and ref.points == points
    assert t.game.ply == ply
    t.lift(elsewhere[0], elsewhere[1], scans=held)
    t.put(first[0], first[1], c)
    assert t.press(c) == ACCEPTED, held
    assert t.game.ply == ply + 1
    assert t.game.board.color_at(first[0], first[1]) == c
    assert t.game.board.color_at(elsewhere[0], elsewhere[1]) == 0
    assert len(t.moved_new()) == logged + 2  # seen, then the refused press


def test_go_the_first_point_counts_however_long_the_stone_is_held():
    from firmware.rules.go import Game

    for held in (0, 1, 5, 40):
        t = Table(Game(19))
        _held_and_put_elsewhere(t, BLACK, (3, 3), (15, 15), held)  # D4, then Q16
        _held_and_put_elsewhere(t, WHITE, (16, 3), (2, 14), held)  # R4, then C15
        assert t.referee.log.kinds().count(inc.MOVE) == 2


def test_renju_the_first_point_counts_however_long_the_stone_is_held():
    # Renju's 15x15 sits in the middle of the grid: the game's (x, y) is the grid's (x+2, y+2)
    for held in (0, 1, 5, 40):
        t = Table(Gomoku(RENJU))
        assert t.m == 2
        _held_and_put_elsewhere(t, BLACK, (7, 7), (3, 11), held)
        _held_and_put_elsewhere(t, WHITE, (8, 8), (12, 1), held)
        assert t.game.moves == [(BLACK << 10) | (7 << 5) | 7, (WHITE << 10) | (8 << 5) | 8]


def test_a_lifted_stone_and_a_press_is_not_a_pass():
    from firmware.rules.go import Game

    for game in (Game(19), Gomoku(RENJU)):
        t = Table(game)
        t.put(7, 7, BLACK)
        t.lift(7, 7, scans=30)  # still in the hand at the press
        assert t.press(BLACK) == REFUSED
        assert t.referee.why == inc.MOVED_NEW and t.referee.points == (t.code(7, 7),)
        assert game.ply == 0 and getattr(game, "passes", 0) == 0
        t.put(7, 7, BLACK)  # put back: the move
        assert t.press(BLACK) == ACCEPTED
        assert game.board.color_at(7, 7) == BLACK and game.to_move == WHITE


def test_a_capture_taken_off_stone_by_stone_still_commits():
    # White A1 and B1 with Black C1 and A2: Black B2 takes both. The new stone goes down, the
    # press comes early (refused: captures left), the two are lifted over several scans.
    from firmware.rules.go import Game

    t = Table(Game(19))
    for c, (x, y) in ((BLACK, (2, 0)), (WHITE, (0, 0)), (BLACK, (0, 1)), (WHITE, (1, 0))):
        t.put(x, y, c)
        assert t.press(c) == ACCEPTED
    t.put(1, 1, BLACK)
    assert t.referee.first == t.at(1, 1)
    assert t.press(BLACK) == REFUSED and t.referee.why == inc.CAPTURES_LEFT
    assert t.referee.first == t.at(1, 1)  # the refused press keeps the turn's stone
    t.lift(0, 0, scans=7)
    assert t.press(BLACK) == REFUSED and t.referee.why == inc.CAPTURES_LEFT
    t.lift(1, 0, scans=12)
    assert t.press(BLACK) == ACCEPTED
    assert t.game.captures[BLACK] == 2 and t.game.board.color_at(1, 1) == BLACK
    assert inc.MOVED_NEW not in t.referee.log.kinds()
    assert inc.SCATTERED not in t.referee.log.kinds()
    t.put(10, 10, WHITE)  # White's turn watches White's stone, not the lifted ones
    assert t.press(WHITE) == ACCEPTED and t.game.board.color_at(10, 10) == WHITE


def test_an_arbiter_undo_clears_the_turn():
    from firmware.rules.go import Game

    t = Table(Game(19))
    ref = t.referee
    t.put(3, 3, BLACK)  # D4
    assert t.press(BLACK) == ACCEPTED
    t.put(15, 15, WHITE)  # Q16 down, then lifted and held
    t.lift(15, 15, scans=10)
    assert ref.first == t.at(15, 15)
    assert ref.undo()  # the arbiter takes D4 back: Black to play again
    assert ref.first == -1 and t.game.to_move == BLACK
    assert ref.fixes() == [(t.at(3, 3), 0)]
    t.lift(3, 3)  # D4 off, as shown
    t.put(2, 16, BLACK)  # C17: the undone stone was not this turn's first point
    assert t.press(BLACK) == ACCEPTED and t.game.board.color_at(2, 16) == BLACK
    t.put(16, 2, WHITE)  # R3: Q16 is long forgotten
    assert t.press(WHITE) == ACCEPTED and t.game.board.color_at(16, 2) == WHITE
    assert inc.MOVED_NEW not in ref.log.kinds()


def test_the_undone_stone_left_on_the_board_is_not_the_first_point():
    game, ref = go()
    e9 = EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)
    ref.see(seen(e9))
    assert ref.press(BLACK, 5) == ACCEPTED
    assert ref.undo()
    ref.see(seen(e9), 6)  # still there
    ref.see(seen(EMPTY9), 7)  # taken off
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . . . . X .", 1)), 8)
    assert ref.press(BLACK, 9) == ACCEPTED and game.board.color_at(7, 8) == BLACK


def test_clearing_the_last_game_off_makes_no_first_point():
    # A new game's referee sees the last game's stones; while they are taken off, the last
    # black one alone on the board is no move of Black's.
    game, ref = go()
    rows = [". X . . O . . . .", ". . . X . . . O .", "X . . . . . O . ."]
    left = EMPTY9
    for r in rows:
        left = left.replace(". . . . . . . . .", r, 1)
    ref.see(seen(left))
    ref.see(seen(left.replace("O", ".")))
    ref.see(seen(left.replace("O", ".").replace(". X . .", ". . . .", 1)))
    ref.see(seen(left.replace("O", ".").replace("X", ".", 2)))  # one black stone left
    assert ref.first == -1
    ref.see(seen(EMPTY9))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . . X . . .", 1)))
    assert ref.first == idx("F9")
    assert ref.press(BLACK, 5) == ACCEPTED and game.board.color_at(5, 8) == BLACK


def test_a_stone_of_the_position_slid_is_not_the_first_point():
    stones = EMPTY9.replace(". . . . . . . . .", ". . X . . . . . .", 1)
    game, ref = go(stones, to_move=BLACK)
    ref.see(seen(stones))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . X . . . . .", 1)))  # C9 to D9
    assert ref.first == -1 and ref.log.last()[0] == inc.MOVED_OLD
    ref.see(seen(stones))  # put back
    played = stones.replace(". . . . . . . . .", ". . . . . . X . .", 1)
    ref.see(seen(played))
    assert ref.press(BLACK, 5) == ACCEPTED and game.board.color_at(6, 7) == BLACK


def test_renju_offers_may_be_moved_before_the_press():
    # Black's fifth-move offers are judged as a set at the press: moving one is no 拔子.
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=2)
    ref = Referee(game)
    stones = {}
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 8), (6, 7))):
        c = BLACK if k % 2 == 0 else WHITE
        stones[(x, y)] = c
        ref.see(renju_seen(stones))
        assert ref.press(c, k) == ACCEPTED
    stones[(9, 9)] = BLACK
    ref.see(renju_seen(stones))
    del stones[(9, 9)]
    ref.see(renju_seen(stones))  # lifted, held
    stones[(10, 4)] = BLACK
    ref.see(renju_seen(stones))
    stones[(5, 5)] = BLACK
    ref.see(renju_seen(stones))
    assert ref.press(BLACK, 100) == ACCEPTED and ref.log.last()[0] == inc.OFFERS
    assert inc.MOVED_NEW not in ref.log.kinds()
    del stones[(5, 5)]  # White keeps (10, 4) and plays move 6
    stones[(11, 11)] = WHITE
    ref.see(renju_seen(stones))
    assert ref.press(WHITE, 110) == ACCEPTED
    assert game.board.color_at(10, 4) == BLACK and game.board.color_at(11, 11) == WHITE


def test_a_refused_illegal_point_is_not_the_first_point():
    # White's immediate retake of the ko is refused; the stone comes off and White plays
    # elsewhere: that is the move (the refused point was never one).
    game, ref = go(KO)
    after = KO.replace(". . X O . O . . .", ". . X . X O . . .")
    ref.see(seen(after))
    assert ref.press(BLACK, 10) == ACCEPTED  # Black takes the ko at E5
    ref.see(seen(after.replace(". . X . X O", ". . X O X O")), 19)  # D5 down, E5 still on
    assert ref.first == idx("D5")
    assert ref.press(WHITE, 20) == REFUSED and ref.why == inc.ILLEGAL
    ref.see(seen(after), 21)  # D5 off
    ref.see(seen(after.replace(". . . . . . . . .", "O . . . . . . . .", 1)), 22)  # A9
    assert ref.press(WHITE, 23) == ACCEPTED and game.board.color_at(0, 8) == WHITE
    assert inc.MOVED_NEW not in ref.log.kinds()


def test_past_play_no_stone_is_a_move():
    # The match sets ``ending`` once both passed (the dead stones are lifted) or the game is
    # over: nothing put down then is this turn's first point.
    game, ref = go()
    ref.ending = True
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    assert ref.first == -1
    ref.see(seen(EMPTY9))
    ref.ending = False  # play goes on (a disputed count)
    ref.see(seen(EMPTY9))
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". X . . . . . . .", 1)))
    assert ref.first == idx("B9")
    assert ref.press(BLACK, 5) == ACCEPTED and game.board.color_at(1, 8) == BLACK


def test_new_turn_forgets_a_stone_put_down_before_the_clock_started():
    # Before the start nothing is a move: ``new_turn`` (for the match to call at the start)
    # forgets the stone somebody put down and lifted while the board waited.
    game, ref = go()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . X . . . .", 1)))
    ref.see(seen(EMPTY9))
    assert ref.first == idx("E9")
    ref.new_turn()
    ref.see(seen(EMPTY9.replace(". . . . . . . . .", ". . . . . . . . X", 1)))
    assert ref.press(BLACK, 5) == ACCEPTED and game.board.color_at(8, 8) == BLACK
    assert inc.MOVED_NEW not in ref.log.kinds()


# Renju's fifth move with many offers (五手N打, 002 第三条2): 雨月 (H8, H9, I8), White 4 on
# G8, then N offers at once. Ten points of ten shapes in that position (checked below).
_UGETSU = ((7, 7), (7, 8), (8, 7), (6, 7))
_TEN_OFFERS = ((4, 4), (5, 11), (9, 3), (10, 10), (2, 8), (11, 7), (3, 2), (12, 12), (6, 2))
_TEN_OFFERS += ((8, 12),)


# 花月 (H8, H9, I9) and White 4 on G10: a position symmetric about the diagonal G10-I8.
_KAGETSU = ((7, 7), (7, 8), (8, 8), (6, 9))


def _to_the_offers(offers, opening=_UGETSU):
    game = Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=offers)
    ref = Referee(game)
    stones = {}
    for k, p in enumerate(opening):
        c = BLACK if k % 2 == 0 else WHITE
        stones[p] = c
        ref.see(renju_seen(stones))
        assert ref.press(c, 10 * k) == ACCEPTED, k
    return game, ref, stones


def test_up_to_the_most_offers_the_settings_allow_none_is_a_disturbed_board():
    # Every N the settings take: the offers go down one by one, none of them a stray (the
    # board was called disturbed from the fifth on), the count down said as they go.
    from firmware.game.settings import _KINDS
    from firmware.ui.menus import OFFERS_MAX

    most = _KINDS["offers"][2]
    assert most == OFFERS_MAX == len(_TEN_OFFERS)
    for n in range(2, most + 1):
        game, ref, stones = _to_the_offers(n)
        assert ref.offers_down() == 0
        for k in range(n):
            stones[_TEN_OFFERS[k]] = BLACK
            ref.see(renju_seen(stones), 100 + k)
            assert not ref.scattered and ref.offers_down() == k + 1, (n, k)
        assert ref.press(BLACK, 200) == ACCEPTED, (n, game.note)
        assert ref.log.last()[0] == inc.OFFERS and len(game.offered) == n
        assert inc.SCATTERED not in ref.log.kinds()
        # White lifts all but the last, puts move 6 down and presses: Black 7 follows.
        for k in range(n - 1):
            del stones[_TEN_OFFERS[k]]
            ref.see(renju_seen(stones), 300 + k)
            assert not ref.scattered and ref.offers_down() == n - 1 - k, (n, k)
        stones[(13, 1)] = WHITE
        ref.see(renju_seen(stones), 400)
        assert ref.press(WHITE, 410) == ACCEPTED and ref.offers_down() == -1
        stones[(1, 13)] = BLACK
        ref.see(renju_seen(stones), 420)
        assert ref.press(BLACK, 430) == ACCEPTED and game.ply == 7, n
        assert game.board.color_at(*_TEN_OFFERS[n - 1]) == BLACK


def test_a_disturbed_board_during_the_offers_is_still_caught():
    # Stones of the position knocked off, or more black stones than the offers and three:
    # the board is disturbed (散乱) and the press refused until it is restored.
    game, ref, stones = _to_the_offers(10)
    for p in _TEN_OFFERS[:6]:
        stones[p] = BLACK
    ref.see(renju_seen(stones), 100)
    assert not ref.scattered
    knocked = dict(stones)
    for p in _UGETSU[:3]:
        del knocked[p]
    knocked[(0, 0)] = WHITE
    ref.see(renju_seen(knocked), 110)
    assert ref.scattered and ref.log.last()[0] == inc.SCATTERED
    assert ref.press(BLACK, 120) == REFUSED and ref.why == inc.SCATTERED
    ref.see(renju_seen(stones), 130)  # put back
    assert not ref.scattered and ref.log.last()[0] == inc.RESTORED
    spilled = dict(stones)
    for p in _TEN_OFFERS[6:]:
        spilled[p] = BLACK
    for p in ((0, 14), (14, 0), (14, 14)):
        spilled[p] = BLACK
    ref.see(renju_seen(spilled), 140)  # 13 black stones for 10 offers: 3 strays
    assert not ref.scattered
    spilled[(0, 7)] = BLACK
    ref.see(renju_seen(spilled), 150)  # a fourth
    assert ref.scattered and ref.offers_down() == 14


def test_offers_refused_say_why():
    # Too few, too many, two of the same shape (its offers, one to move first), and White's
    # press without keeping exactly one; each a refusal with its reason in the detail.
    game, ref, stones = _to_the_offers(3, _KAGETSU)
    stones[(4, 4)] = BLACK
    stones[(5, 12)] = BLACK
    ref.see(renju_seen(stones), 100)
    assert ref.press(BLACK, 110) == REFUSED and ref.why == inc.OFFERS
    assert ref.log.last()[4] == inc.OFFERS_SHORT and len(ref.points) == 2
    stones[(11, 11)] = BLACK  # E5's mirror image across the diagonal
    stones[(12, 2)] = BLACK
    ref.see(renju_seen(stones), 120)
    assert ref.press(BLACK, 130) == REFUSED and ref.log.last()[4] == inc.OFFERS_OVER
    del stones[(12, 2)]
    ref.see(renju_seen(stones), 140)
    assert ref.press(BLACK, 150) == REFUSED and ref.log.last()[4] == inc.OFFERS_SAME
    assert ref.points == ((11 << 5) | 11, (4 << 5) | 4)  # L12 to move, E5 may stay
    del stones[(11, 11)]
    stones[(12, 2)] = BLACK
    ref.see(renju_seen(stones), 160)
    assert ref.press(BLACK, 170) == ACCEPTED, game.note
    stones[(13, 1)] = WHITE  # White plays with all three offers still down
    ref.see(renju_seen(stones), 180)
    assert ref.press(WHITE, 190) == REFUSED and ref.log.last()[4] == inc.OFFERS_KEEP
    assert len(ref.points) == 3 and ref.offers_down() == 3
