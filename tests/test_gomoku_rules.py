"""Gomoku and Renju rules (firmware/rules/gomoku_board.py, gomoku.py) board by board.

Positions are drawn as in tests/diagrams.py (top row first, ``X`` black, ``O`` white, ``*``
the point Black plays); the verdicts are worked out by hand from seed 002 (中国五子棋竞赛规则
2013) 第二条4-8 and 19 (the shapes), 第十条 (wins, draws, claims), 第三条 and 第十一条 (openings,
passes), never by asking the code. Columns are A–O with no skipped letter.
"""

from firmware.rules.coords import GOMOKU_COLUMNS, parse_vertex
from firmware.rules.gomoku import (
    BAD_OFFERS,
    CHOOSE_FIRST,
    CLAIM,
    DRAW,
    DRAW_AGREED,
    DRAW_FULL,
    DRAW_PASSES,
    FREESTYLE,
    GAME_OVER,
    I_DRAW_DECLINED,
    I_DRAW_OFFER,
    I_DRAW_OFFER_IRREGULAR,
    I_FALSE_CLAIM,
    I_FOUL,
    I_LAPSED,
    I_OFFERS,
    I_PASS,
    I_SWAP,
    NO_OFFER_COUNT,
    NO_PASS_YET,
    NO_SWAP_NOW,
    NOT_AN_OPENING,
    NOT_OFFERED,
    NOT_ON_TENGEN,
    NOTHING_TO_CLAIM,
    OCCUPIED,
    OFF_BOARD,
    OFFERS_NEEDED,
    OK,
    OPENING_DESIGNATED,
    PASS,
    RENJU,
    SAME_SHAPE,
    STANDARD,
    WIN_FIVE,
    WIN_FOUL,
    WIN_RESIGN,
    WRONG_TURN,
    Gomoku,
    name,
    point,
)
from firmware.rules.gomoku_board import (
    BLACK,
    DOUBLE_FOUR,
    DOUBLE_THREE,
    FIVE,
    LONG,
    NOT_FORBIDDEN,
    OVERLINE,
    WHITE,
    GomokuBoard,
)
from tests.diagrams import diagram_of, gomoku_from, marked


def v(text, size=15):
    """``(x, y)`` of a Gomoku vertex such as ``H8``."""
    return parse_vertex(text, size, GOMOKU_COLUMNS)


# ---- forbidden shapes: (why, name, kind, diagram) ---------------------------------------------

SHAPES = (
    (
        # 三三: a live three on the row (C6 D6 *: F6 makes an open four) and on the column
        # (* E7 E8). F3 F4 only matter in the next case.
        "double_three",
        DOUBLE_THREE,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    O . X X * . . . . . .
    . . . . . . . . . . .
    . . . . . X . . . . .
    . . . . . X . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # Not 三三: the row's three can only become an open four at F6 (A6 is White's, so B6
        # gives a closed four), and F6 is itself a double-four (the row's four and F6-F9
        # on the column), so that three is not live: one live three only.
        "false_double_three",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . X . . . . .
    . . . . X X . . . . .
    . . . . X X . . . . .
    O . X X * . . . . . .
    . . . . . . . . . . .
    . . . . . X . . . . .
    . . . . . X . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # A three blocked on one side (White on B6) is not live: with the live column
        # three that is one live three, legal.
        "blocked_three",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . O X X * . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # A three against the edge (A6 B6 *) cannot become an open four: with the column
        # three that is one live three, legal.
        "edge_three",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . X . . . . . . . .
    . . X . . . . . . . .
    X X * . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # The same shape one point in from the edge is live: 三三.
        "edge_three_moved",
        DOUBLE_THREE,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . X . . . . . . .
    . . . X . . . . . . .
    . X X * . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 四四 across: a four on the row (A6 or F6 makes five) and a closed four on the
        # column (E7; E2 is White's).
        "double_four_cross",
        DOUBLE_FOUR,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . X X X * . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . O . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 四四 on one line, X.XXX.X: B6 and F6 each make a different five.
        "four_four_line_a",
        DOUBLE_FOUR,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    X . X * X . X . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 四四 on one line, XX.XX.XX with the stone in the middle pair.
        "four_four_line_b",
        DOUBLE_FOUR,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    X X . X * . X X . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 四四 on one line, XXX.X.XXX: D6 and F6 each make a different five.
        "four_four_line_c",
        DOUBLE_FOUR,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    X X X . * . X X X . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 四三 is Black's winning shape and legal: a closed four on the row, a live three on
        # the column.
        "four_three",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    O X X X * . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # 长连: six in a row.
        "overline",
        OVERLINE,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . X X X * X X . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # Overline along the edge: A1-A6.
        "corner_overline",
        OVERLINE,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    X . . . . . . . . . .
    * . . . . . . . . . .
    X . . . . . . . . . .
    X . . . . . . . . . .
    X . . . . . . . . . .
    X . . . . . . . . . .
""",
    ),
    (
        # A five made together with a double four wins (第十条1(2)末句: 黑方五连与禁手同时形成，禁手失效).
        "five_and_double_four",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . O . .
    . . . . . . . X . . .
    . . . . . . X . . . .
    . . . . . X . . . . .
    X X X X * . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . O . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # A five on the row and six on the column at once: the five wins.
        "five_and_overline",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    X X X X * . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
    . . . . X . . . . . .
""",
    ),
    (
        # Exactly five along the edge (A1-A5) with a three on the diagonal: a five, not
        # forbidden.
        "corner_five",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    * . . . . . . . . . .
    X . . X . . . . . . .
    X . X . . . . . . . .
    X X . . . . . . . . .
    X . . . . . . . . . .
""",
    ),
    (
        # The row three E8 F8 . * can become an open four only at G8, which also completes
        # the five G4-G8. The computer referees (Piskvork's judge, Wenzhe Lu's) do not take a
        # five point as the way to a live four, so this is one live three (the column) and
        # legal; a literal reading of 第二条4 could call it 三三. Black would win at G8 anyway.
        "five_completion",
        NOT_FORBIDDEN,
        """
    . . . . . . . . . . .
    . . . . . . . X . . .
    . . . . . . . X . . .
    . . . . X X . * . . .
    . . . . . . X . . . .
    . . . . . . X . . . .
    . . . . . . X . . . .
    . . . . . . X . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
    (
        # The same without the column G: G8 is an ordinary open-four point, so 三三.
        "five_completion_without_the_five",
        DOUBLE_THREE,
        """
    . . . . . . . . . . .
    . . . . . . . X . . .
    . . . . . . . X . . .
    . . . . X X . * . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
""",
    ),
)


def test_every_forbidden_shape():
    for name_, kind, diagram in SHAPES:
        game = gomoku_from(diagram)
        x, y = marked(diagram)
        got = game.forbidden(x, y)
        assert got == kind, "%s: %d, expected %d" % (name_, got, kind)


def test_the_false_double_three_hinges_on_its_completion_point():
    # In the false double-three the row three's only open-four point F6 is a double-four
    # once E6 is down; without E6 it is not forbidden at all.
    diagram = dict((n, d) for n, k, d in SHAPES)["false_double_three"]
    game = gomoku_from(diagram)
    assert game.forbidden(*v("F6", 11)) == 0
    game.board.put(BLACK, *v("E6", 11))
    assert game.board.forbidden(*v("F6", 11)) == DOUBLE_FOUR


def test_a_check_that_runs_out_of_stack_leaves_the_board_intact():
    # The recursion puts trial stones on the rows; if the stack runs out among them the
    # board must come back exactly, with the verdict of a shallower look or an error.
    diagram = dict((n, d) for n, k, d in SHAPES)["false_double_three"]
    board = gomoku_from(diagram).board
    at = marked(diagram)
    rows = list(board.rows)

    def probe(depth):
        if depth:
            return probe(depth - 1)
        return board.forbidden(*at)

    def fails(depth):
        try:
            probe(depth)
        except RuntimeError:  # CPython's RecursionError is one too
            return True
        finally:
            assert list(board.rows) == rows, "rows changed at depth %d" % depth
        return False

    lo, hi = 1, 2
    while not fails(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # the shallowest recursion that fails
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid
    for depth in range(max(1, lo - 60), hi + 1):
        try:
            assert probe(depth) == NOT_FORBIDDEN
        except RuntimeError:
            pass
        assert list(board.rows) == rows
    assert board.shallow > 0  # the second, shallower look did run
    assert board.forbidden(*at) == NOT_FORBIDDEN


def test_forbidden_shapes_hold_in_every_orientation():
    # The same verdicts after turning and mirroring each diagram: all four lines are judged.
    for name_, kind, diagram in SHAPES:
        rows = ["".join(r.split()) for r in diagram.strip().split("\n")]
        n = len(rows)
        for t in range(8):
            b = GomokuBoard(n)
            mark = None
            for i, row in enumerate(rows):
                for x, ch in enumerate(row):
                    y = n - 1 - i
                    tx, ty = _turn(t, x, y, n)
                    if ch == "X":
                        b.put(BLACK, tx, ty)
                    elif ch == "O":
                        b.put(WHITE, tx, ty)
                    elif ch == "*":
                        mark = (tx, ty)
            assert b.forbidden(*mark) == kind, "%s turned %d" % (name_, t)


def _turn(t, x, y, n):
    if t & 4:
        x, y = y, x
    if t & 1:
        x = n - 1 - x
    if t & 2:
        y = n - 1 - y
    return x, y


def test_forbidden_points_lists_every_point_with_its_kind():
    game = gomoku_from(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X X X . X X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """
    )
    assert game.forbidden_points() == [(v("E5", 9)[0], v("E5", 9)[1], OVERLINE)]
    # Standard and freestyle Gomoku forbid nothing.
    assert gomoku_from(diagram_of(game), variant=STANDARD).forbidden_points() == []


def test_fives_are_seen_on_all_four_lines_by_shifts():
    b = GomokuBoard(15)
    lines = (
        ("A1 B1 C1 D1 E1", FIVE),
        ("K15 L15 M15 N15 O15", FIVE),
        ("O1 O2 O3 O4 O5", FIVE),
        ("A11 B12 C13 D14 E15", FIVE),
        ("O1 N2 M3 L4 K5 J6", LONG),
        ("H4 H5 H6 H7 H8 H9 H10", LONG),
        ("D4 E5 F6 G7", 0),
    )
    for stones, made in lines:
        b.clear()
        pts = [v(s) for s in stones.split()]
        for x, y in pts:
            b.put(WHITE, x, y)
        for x, y in pts:
            assert b.lines(WHITE, x, y) == made, stones
        assert b.has_five(WHITE, True) == (made == FIVE), stones
        assert b.has_five(WHITE, False) == (made != 0), stones
        assert not b.has_five(BLACK, False)


# ---- wins by variant --------------------------------------------------------------------------

ROW_OF_FOUR = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X X * X X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


ROW_OF_SIX = ROW_OF_FOUR.replace("* X X .", "* X X X")


def test_overline_by_variant():
    # D5 joins the row into six: for Black a foul in Renju, no win in standard, a win in
    # freestyle; White's six wins in Renju (第十条1(1): 白棋长连视同五连) and freestyle only.
    at = marked(ROW_OF_SIX)
    for variant, black_result, white_result in (
        (RENJU, (WHITE, WIN_FOUL), (WHITE, WIN_FIVE)),
        (STANDARD, (0, 0), (0, 0)),
        (FREESTYLE, (BLACK, WIN_FIVE), (WHITE, WIN_FIVE)),
    ):
        game = gomoku_from(ROW_OF_SIX, variant)
        assert game.play(BLACK, *at) == OK
        assert (game.winner, game.reason) == black_result, VARIANTS_NAME[variant]
        game = gomoku_from(ROW_OF_SIX.replace("X", "O"), variant, to_move=WHITE)
        assert game.play(WHITE, *at) == OK
        assert (game.winner, game.reason) == white_result, VARIANTS_NAME[variant]


VARIANTS_NAME = ("renju", "standard", "freestyle")


def test_black_overline_foul_names_its_kind():
    game = gomoku_from(ROW_OF_SIX)
    game.play(BLACK, *marked(ROW_OF_FOUR))
    assert game.foul == OVERLINE
    assert game.result_text() == "W+F (overline)"
    assert game.incidents[0][0] == I_FOUL


def test_five_with_a_forbidden_shape_wins_the_game():
    shapes = dict((n, d) for n, k, d in SHAPES)
    for key in ("five_and_double_four", "five_and_overline", "corner_five"):
        game = gomoku_from(shapes[key])
        assert game.play(BLACK, *marked(shapes[key])) == OK
        assert (game.winner, game.reason) == (BLACK, WIN_FIVE), key


def test_exact_five_wins_for_both_in_standard():
    game = gomoku_from(ROW_OF_FOUR, STANDARD)
    assert game.play(BLACK, *marked(ROW_OF_FOUR)) == OK
    assert (game.winner, game.reason) == (BLACK, WIN_FIVE)
    assert game.play(WHITE, 0, 0) == GAME_OVER


# ---- claims (第十条1(2)) ----------------------------------------------------------------------

DOUBLE_THREE_AT_E6 = dict((n, d) for n, k, d in SHAPES)["double_three"]


def test_auto_mode_ends_the_game_at_the_foul():
    game = gomoku_from(DOUBLE_THREE_AT_E6)
    assert game.play(BLACK, *v("E6", 11)) == OK
    assert (game.winner, game.reason, game.foul) == (WHITE, WIN_FOUL, DOUBLE_THREE)


def test_claim_before_whites_next_stone_wins():
    game = gomoku_from(DOUBLE_THREE_AT_E6, claims=CLAIM)
    assert game.play(BLACK, *v("E6", 11)) == OK
    assert not game.over()  # nothing is announced
    assert game.incidents[-1][:3] == (I_FOUL, 1, point(*v("E6", 11)))
    assert game.claim(WHITE) == OK
    assert (game.winner, game.reason, game.foul) == (WHITE, WIN_FOUL, DOUBLE_THREE)


def test_claim_lapses_once_white_plays_on():
    game = gomoku_from(DOUBLE_THREE_AT_E6, claims=CLAIM)
    game.play(BLACK, *v("E6", 11))
    assert game.play(WHITE, *v("K1", 11)) == OK
    assert game.incidents[-1][0] == I_LAPSED
    assert game.claim(WHITE) == NOTHING_TO_CLAIM
    assert game.incidents[-1][0] == I_FALSE_CLAIM
    assert not game.over()


def test_overline_can_be_claimed_until_the_end():
    game = gomoku_from(ROW_OF_SIX, claims=CLAIM)
    game.play(BLACK, *marked(ROW_OF_FOUR))
    game.play(WHITE, 0, 0)
    game.play(BLACK, 8, 8)
    game.play(WHITE, 0, 1)
    assert game.claim(WHITE) == OK
    assert (game.winner, game.foul) == (WHITE, OVERLINE)


def test_a_five_in_claim_mode_wins_when_claimed():
    game = gomoku_from(ROW_OF_FOUR, STANDARD, claims=CLAIM)
    game.play(BLACK, *marked(ROW_OF_FOUR))
    assert not game.over()
    assert game.claim(WHITE) == NOTHING_TO_CLAIM
    assert game.claim(BLACK) == OK
    assert (game.winner, game.reason) == (BLACK, WIN_FIVE)


# ---- passes, draws, resignation (第十条2-3, 第十一条1(1)) ---------------------------------


def _opening(game, moves="H8 H9 I9 G8 J10"):
    for i, m in enumerate(moves.split()):
        assert game.play(BLACK if i % 2 == 0 else WHITE, *v(m)) == OK, m


def test_no_pass_in_the_first_five_moves():
    game = Gomoku()
    for i, m in enumerate("H8 H9 I9 G8 J10".split()):
        c = BLACK if i % 2 == 0 else WHITE
        assert game.play(c, None, None) == NO_PASS_YET
        assert game.play(c, *v(m)) == OK
    assert game.play(WHITE, None, None) == OK  # move 6 may be a pass
    assert game.to_move == BLACK


def test_both_passing_in_one_round_is_a_draw():
    game = Gomoku()
    _opening(game)
    assert game.play(WHITE, None, None) == OK
    assert not game.over()
    assert game.play(BLACK, None, None) == OK
    assert (game.winner, game.reason) == (DRAW, DRAW_PASSES)
    assert game.result_text() == "Draw (both passed)"


def test_a_pass_then_a_move_goes_on():
    game = Gomoku()
    _opening(game)
    game.play(WHITE, None, None)
    game.play(BLACK, *v("A1"))
    game.play(WHITE, None, None)
    assert not game.over()


def test_a_full_board_without_five_is_a_draw():
    # 5x5, filled so that no line holds five of a colour; the last stone fills it.
    diagram = """
        X X O O X
        O O X X O
        X X O O X
        O O X X O
        X X O O *
    """
    game = gomoku_from(diagram, STANDARD, to_move=WHITE)
    assert game.play(WHITE, *marked(diagram)) == OK
    assert (game.winner, game.reason) == (DRAW, DRAW_FULL)


def test_draw_offers_are_recorded_and_answered():
    game = Gomoku()
    _opening(game)
    assert game.answer_draw(True) != OK  # nothing to answer
    assert game.offer_draw(BLACK) == OK  # right after Black 5: regular
    assert game.incidents[-1][0] == I_DRAW_OFFER
    assert game.play(WHITE, *v("A1")) == OK  # a move declines it
    assert game.offer_draw(BLACK) == OK  # not right after Black's own move
    assert game.incidents[-1][0] == I_DRAW_OFFER_IRREGULAR
    assert game.answer_draw(True) == OK
    assert (game.winner, game.reason) == (DRAW, DRAW_AGREED)


def test_resignation():
    game = Gomoku()
    _opening(game)
    assert game.resign(WHITE) == OK
    assert (game.winner, game.reason) == (BLACK, WIN_RESIGN)
    assert game.result_text() == "B+R"


def test_wrong_turn_occupied_and_off_board():
    game = Gomoku()
    assert game.play(WHITE, *v("H8")) == WRONG_TURN  # 第六条1(4)
    assert game.play(BLACK, *v("H8")) == OK
    assert game.play(WHITE, *v("H8")) == OCCUPIED
    assert game.play(WHITE, 15, 3) == OFF_BOARD
    assert game.play(WHITE, -1, 3) == OFF_BOARD


def test_undo_replays_everything_but_the_last_event():
    game = gomoku_from(DOUBLE_THREE_AT_E6, claims=CLAIM)
    game.play(BLACK, *v("E6", 11))
    game.claim(WHITE)
    assert game.over()
    assert game.undo()
    assert not game.over()
    assert game.claimable is not None
    assert game.undo()
    assert game.forbidden(*v("E6", 11)) == DOUBLE_THREE
    assert game.ply == 0


def test_the_incidents_keep_every_detail_in_order():
    # Each kind with its ply, point and detail, as an arbiter reads them; undo takes the
    # last event's incidents back and nothing else.
    game = gomoku_from(DOUBLE_THREE_AT_E6, claims=CLAIM)
    e6 = point(*v("E6", 11))
    game.play(BLACK, *v("E6", 11))
    game.offer_draw(BLACK)
    game.play(WHITE, *v("K1", 11))
    game.play(BLACK, None, None)
    game.claim(WHITE)
    want = [
        (I_FOUL, 1, e6, DOUBLE_THREE),
        (I_DRAW_OFFER, 1, PASS, BLACK),
        (I_LAPSED, 1, e6, DOUBLE_THREE),
        (I_DRAW_DECLINED, 1, PASS, WHITE),
        (I_PASS, 3, PASS, BLACK),
        (I_FALSE_CLAIM, 3, PASS, WHITE),
    ]
    assert game.incidents == want
    game.undo()
    assert game.incidents == want[:5]
    assert game.claimable is None and game.ply == 3


def test_a_game_past_its_rooms_goes_on():
    # The moves, the events and the incident log are made with room for a full board and a
    # few more; a game that needs more (here: a hundred draw offers on a 5x5 board, and every
    # pass the rules allow) grows them and loses nothing.
    game = Gomoku(STANDARD, size=5)
    for i, p in enumerate(((0, 0), (4, 4), (0, 2), (4, 2), (2, 0))):
        assert game.play(BLACK if i % 2 == 0 else WHITE, *p) == OK
    for k in range(100):
        assert game.offer_draw(WHITE if k % 2 else BLACK) == OK
    assert len(game.incidents) == 100
    moves = 5
    for x, y in ((1, 4), (3, 0), (1, 1), (3, 3), (2, 4)):
        assert game.play(game.to_move, None, None) == OK
        assert game.play(game.to_move, x, y) == OK
        moves += 2
    assert game.ply == moves and game.incidents[-1][0] == I_PASS
    kinds = [i[0] for i in game.incidents]
    assert kinds.count(I_PASS) == 5 and kinds.count(I_DRAW_DECLINED) == 1  # Black's stone
    assert len(kinds) == 106 and game.incidents[0] == (I_DRAW_OFFER, 5, PASS, BLACK)
    assert game.undo() and game.ply == moves - 1 and len(game.incidents) == 106
    assert game.offer_draw(BLACK) == OK and len(game.events) == 5 + 100 + 9 + 1


# ---- the designated opening (第三条2, 第二条9-10, 第六条1) ------------------------------


def designated(offers=2):
    return Gomoku(RENJU, opening=OPENING_DESIGNATED, offers=offers)


def test_designated_opening_checks_each_of_the_first_three_stones():
    game = designated()
    assert game.play(BLACK, *v("H7")) == NOT_ON_TENGEN
    assert game.play(BLACK, *v("H8")) == OK
    assert game.play(WHITE, *v("J10")) == NOT_AN_OPENING  # not touching Black 1
    assert game.play(WHITE, *v("I9")) == OK
    assert game.play(BLACK, *v("K8")) == NOT_AN_OPENING  # outside the central 5x5
    assert game.play(BLACK, *v("J8")) == OK
    assert game.opening_name().startswith("恒星")  # 斜指, Black 3 two points beside Black 1


def test_the_offer_count_must_be_announced():
    game = designated(offers=None)
    _opening(game, "H8 H9 I9")
    assert game.play(WHITE, *v("G8")) == NO_OFFER_COUNT


def test_swap_once_after_black_3_before_white_4():
    game = designated()
    _opening(game, "H8 H9")
    assert game.swap() == NO_SWAP_NOW
    game.play(BLACK, *v("I9"))
    assert game.swap() == OK
    assert game.swapped
    assert game.incidents[-1][0] == I_SWAP
    assert game.swap() == NO_SWAP_NOW  # once
    assert game.to_move == WHITE  # colours stay; the players changed seats
    game.play(WHITE, *v("G8"))
    assert game.swap() == NO_SWAP_NOW


def test_fifth_move_offers():
    game = designated(offers=2)
    _opening(game, "H8 H9 I9 G8")
    assert game.play(BLACK, *v("J10")) == OFFERS_NEEDED
    assert game.offer_fifth([v("J10")]) == OFFERS_NEEDED
    assert game.offer_fifth([v("J10"), v("J10")]) == BAD_OFFERS
    assert game.offer_fifth([v("J10"), v("H8")]) == BAD_OFFERS
    assert game.offer_fifth([v("J10"), v("K6")]) == OK
    assert game.play(WHITE, *v("A1")) == CHOOSE_FIRST
    assert game.choose_fifth(*v("A1")) == NOT_OFFERED
    assert game.choose_fifth(*v("K6")) == OK
    assert game.board.color_at(*v("K6")) == BLACK
    assert game.board.color_at(*v("J10")) == 0
    assert game.ply == 5 and game.to_move == WHITE
    offers = (point(*v("J10")), point(*v("K6")))
    assert game.incidents[-1] == (I_OFFERS, 5, PASS, offers)  # the points, as offered


def test_mirror_image_offers_are_refused():
    # H8 H9 (direct) with Black 3 on H10 and White 4 on H7: the column is a mirror line,
    # so G9 and I9 give the same shape.
    game = designated(offers=2)
    _opening(game, "H8 H9 H10 H7")
    assert game.offer_fifth([v("G9"), v("I9")]) == SAME_SHAPE
    assert "G9" in game.note and "I9" in game.note
    assert game.offer_fifth([v("G9"), v("J8")]) == OK


def test_an_opening_of_one_offer_is_an_ordinary_fifth_move():
    game = designated(offers=1)
    _opening(game, "H8 H9 I9 G8 J10")
    assert game.to_move == WHITE and game.ply == 5


def test_vertex_names_use_every_letter():
    assert name(point(*v("H8"))) == "H8"
    assert name(point(8, 0)) == "I1"
    assert name(point(14, 14)) == "O15"
