"""Area counting (数子法, seed 000 第九条) and the result in stones and in SGF points.

Each side's area is its living stones plus the empty points that touch only its stones; empty
points touching both (dame, the shared liberties of a seki) are split half and half
(双方活棋之间的空点各得一半). The baseline is half the board (180½ on 19×19). Black's margin
in stones = Black's area − baseline − komi in stones; in SGF points it is twice that. Komi:
2¾ stones (000 第十一条), 3¾ stones (current national rules), 6 points = 3 stones (Taiwan,
003 第11条: 黑184子為勝); a warning costs the warned side one stone (004 第24条).
``margin4`` is in quarter stones, komi ``komi2`` in half points (= quarter stones). Every
expectation below is worked out by hand in the comment beside it.
"""

from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.go_count import (
    KOMI_1988,
    KOMI_NATIONAL,
    KOMI_TAIWAN,
    count,
    result_chinese,
    result_sgf,
)
from tests.diagrams import board_from, diagram_of


def _sorted_regions(result):
    return sorted((owner, sorted(points)) for owner, points in result.regions)


def _sorted_groups(result):
    return sorted((c, sorted(points)) for c, points in result.groups)


# ---- small boards --------------------------------------------------------------------------

_FINISHED = """
    . X O . .
    X X O . .
    . X O O O
    X X X O .
    . . X O .
"""


def test_finished_position_with_territory_for_both():
    c = count(board_from(_FINISHED).board)
    # Black: 8 stones; territory A5, A3, A1+B1 = 4; area 12.
    # White: 7 stones; territory D5 E5 D4 E4 = 4 and E2 E1 = 2; area 13.
    assert c.black_stones == 8 and c.black_territory == 4
    assert c.white_stones == 7 and c.white_territory == 6
    assert c.shared == 0
    assert c.black_area2 == 24 and c.white_area2 == 26
    # 12 - 12½ = -½ stone = -2 quarters: White by half a stone, one point.
    m = c.margin4(0)
    assert m == -2
    assert result_chinese(m) == "白胜½子"
    assert result_sgf(m) == "W+1"


def test_dame_shared_half_and_half():
    d = """
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        . X . O .
    """
    c = count(board_from(d).board)
    # Each side 5 stones + 5 points; the middle column (5 dame) gives each 2½.
    assert c.black_stones == 5 and c.black_territory == 5
    assert c.white_stones == 5 and c.white_territory == 5
    assert c.shared == 5
    assert c.black_area2 == 25 and c.white_area2 == 25  # 12½ points each
    assert c.margin4(0) == 0
    assert result_chinese(0) == "和棋" and result_sgf(0) == "0"


# A seki (公活/双活): the white column C and the black group on D–E share their only two
# liberties a and b; neither has an eye. Black's outer group (B, with A4) has two eyes on the
# A line, White's outer group (F, with G4) two on the G line.
_SEKI = """
    . X O X X O .
    . X O X X O .
    . X O b X O .
    X X O X X O O
    . X O a X O .
    . X O X X O .
    . X O X X O .
"""


def test_seki_both_alive_shared_points_split():
    g = board_from(_SEKI)
    c = count(g.board)
    # Black stones: 1 + 7 + 5 + 7 = 20, eyes 6: area 26 + ½ + ½ = 27.
    # White stones: 7 + 7 + 1 = 15, eyes 6: area 21 + 1 = 22. 27 + 22 = 49.
    assert c.black_stones == 20 and c.black_territory == 6
    assert c.white_stones == 15 and c.white_territory == 6
    assert c.shared == 2
    assert c.black_area2 == 54 and c.white_area2 == 44
    # 27 - 24½ = 2½ stones = 10 quarters = 5 points.
    m = c.margin4(0)
    assert m == 10
    assert result_chinese(m) == "黑胜2½子" and result_sgf(m) == "B+5"
    shared = [points for owner, points in c.regions if owner == 0]
    assert sorted(shared) == [[(3, 2)], [(3, 4)]]
    # It is a seki: whoever fills a shared liberty is captured at the other one.
    a, b = (3, 2), (3, 4)
    assert g.play(BLACK, *a) == 0
    assert g.play(WHITE, *b) == 0
    assert g.captures[WHITE] == 13  # the black group on D-E, with a
    g = board_from(_SEKI, to_move=WHITE)
    assert g.play(WHITE, *a) == 0
    assert g.play(BLACK, *b) == 0
    assert g.captures[BLACK] == 8  # the white column C, with a


def test_dead_stones_lifted_before_counting():
    # A dead white stone in Black's area (A2) and a dead black one in White's (E4).
    d = """
        . X O . .
        . X O . X
        . X O . .
        O X O . .
        . X O . .
    """
    g = board_from(d)
    before = diagram_of(g)
    c = count(g.board, dead=[(0, 1), (4, 3)])
    # Lifted: Black 5 stones + 5 (the A line) = 10; White 5 + 10 (D and E lines) = 15.
    assert c.black_stones == 5 and c.black_territory == 5
    assert c.white_stones == 5 and c.white_territory == 10
    assert c.shared == 0
    # 10 - 12½ = -2½ stones = -10 quarters, 5 points.
    assert c.margin4(0) == -10
    assert result_chinese(c.margin4(0)) == "白胜2½子" and result_sgf(c.margin4(0)) == "W+5"
    # The count does not touch the board: the stones are still there.
    assert diagram_of(g) == before
    # Left on the board, each dead stone touches the other side's area: it all becomes shared
    # (A5 A4 A3: 3, A1: 1, the D and E lines but E4: 9), 6 stones each, a draw.
    c = count(g.board)
    assert c.black_stones == 6 and c.white_stones == 6
    assert c.black_territory == 0 and c.white_territory == 0
    assert c.shared == 13
    assert c.margin4(0) == 0


def test_empty_board():
    c = count(Game(19).board)
    # No stones: the one region touches neither colour and is split like dame, 180½ each.
    assert c.black_stones == 0 and c.white_stones == 0
    assert c.black_territory == 0 and c.white_territory == 0
    assert c.shared == 361
    assert c.black_area2 == 361 and c.white_area2 == 361
    assert len(c.regions) == 1 and c.regions[0][0] == 0 and len(c.regions[0][1]) == 361
    assert c.groups == []
    assert c.margin4(0) == 0
    # With 3¾ stones of komi White wins by exactly the komi: 3¾ stones, 7½ points.
    assert c.margin4(KOMI_NATIONAL) == -15
    assert result_chinese(-15) == "白胜3¾子" and result_sgf(-15) == "W+7.5"


def test_lone_stone_owns_the_board():
    d = """
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        . . . . .
    """
    c = count(board_from(d).board)
    assert c.black_stones == 1 and c.black_territory == 24 and c.shared == 0
    # 25 - 12½ = 12½ stones = 50 quarters = 25 points.
    assert c.margin4(0) == 50
    assert result_chinese(50) == "黑胜12½子" and result_sgf(50) == "B+25"


def test_regions_and_groups_lists():
    d = """
        . X . O .
        X X . O O
        . . . . .
        X X . O O
        . X . O .
    """
    c = count(board_from(d).board)
    middle = [(0, 2), (1, 2), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 2), (4, 2)]
    assert _sorted_regions(c) == [
        (0, middle),  # the cross: touches both colours
        (BLACK, [(0, 0)]),  # A1
        (BLACK, [(0, 4)]),  # A5
        (WHITE, [(4, 0)]),  # E1
        (WHITE, [(4, 4)]),  # E5
    ]
    assert _sorted_groups(c) == [
        (BLACK, [(0, 1), (1, 0), (1, 1)]),
        (BLACK, [(0, 3), (1, 3), (1, 4)]),
        (WHITE, [(3, 0), (3, 1), (4, 1)]),
        (WHITE, [(3, 3), (3, 4), (4, 3)]),
    ]
    assert c.black_stones == 6 and c.white_stones == 6
    assert c.black_territory == 2 and c.white_territory == 2 and c.shared == 9
    # 8 + 4½ = 12½ each: exactly the baseline.
    assert c.black_area2 == 25 and c.white_area2 == 25 and c.margin4(0) == 0


# ---- 19×19 results under every komi -------------------------------------------------------


def _area_board(black_area, dame=False):
    """A 19×19 board on which Black's stones and territory make ``black_area`` points.

    In each row Black holds the columns left of a boundary (a black stone on the last of them,
    territory before it) and White the rest (a white stone next to Black's, territory after
    it). Black holds 9 columns of a row, one more (or one fewer) in the lowest rows, so the
    boundary moves by one column at most from row to row and the territories cannot leak.
    With ``dame`` the top row keeps an empty point between the two stones: it touches both
    colours and is shared (the row below must then hold 9 too).
    """
    extra = black_area - 19 * 9
    assert -19 <= extra <= 19 and not (dame and extra > 17)
    g = Game(19)
    for y in range(19):
        w = 9 + (y < extra) - (y < -extra)
        g.setup(BLACK, w - 1, y)
        g.setup(WHITE, w + 1 if dame and y == 18 else w, y)
    return g.board


def test_area_board_builder():
    c = count(_area_board(185))
    assert c.black_stones == 19 and c.white_stones == 19
    assert c.black_territory == 185 - 19 and c.white_territory == 361 - 185 - 19
    assert c.shared == 0 and c.black_area2 == 370 and c.white_area2 == 352
    c = count(_area_board(183, dame=True))
    assert c.shared == 1 and c.black_area2 == 367 and c.white_area2 == 355  # 183½, 177½
    assert len(c.regions) == 3


def _result(black_area, komi2, dame=False, bw=0, ww=0):
    m = count(_area_board(black_area, dame)).margin4(komi2, bw, ww)
    return m, result_chinese(m), result_sgf(m)


def test_komi_constants():
    assert KOMI_1988 == 11  # 2¾ stones = 5½ points = 11 half points
    assert KOMI_NATIONAL == 15  # 3¾ stones = 7½ points
    assert KOMI_TAIWAN == 12  # 6 points


def test_komi_three_and_three_quarter_stones():
    # 185 - 180½ - 3¾ = ¾ stone: Black wins; in points 185 - 176 - 7½ = 1½.
    assert _result(185, KOMI_NATIONAL) == (3, "黑胜¾子", "B+1.5")
    # 184 - 180½ - 3¾ = -¼: White wins by a quarter stone, half a point.
    assert _result(184, KOMI_NATIONAL) == (-1, "白胜¼子", "W+0.5")
    # 190 - 184¼ = 5¾ stones, 11½ points.
    assert _result(190, KOMI_NATIONAL) == (23, "黑胜5¾子", "B+11.5")
    # 170 - 184¼ = -14¼ stones; points 191 - 170 + 7½ = 28½.
    assert _result(170, KOMI_NATIONAL) == (-57, "白胜14¼子", "W+28.5")


def test_komi_two_and_three_quarter_stones():
    # 184 - 180½ - 2¾ = ¾; points 184 - 177 - 5½ = 1½.
    assert _result(184, KOMI_1988) == (3, "黑胜¾子", "B+1.5")
    # 185 - 183¼ = 1¾; 185 - 176 - 5½ = 3½.
    assert _result(185, KOMI_1988) == (7, "黑胜1¾子", "B+3.5")
    # 183 - 183¼ = -¼; 178 + 5½ - 183 = ½.
    assert _result(183, KOMI_1988) == (-1, "白胜¼子", "W+0.5")


def test_komi_taiwan_six_points():
    # 003 第11条: with six points Black needs 184. 184 - 180½ - 3 = ½ stone = 1 point.
    assert _result(184, KOMI_TAIWAN) == (2, "黑胜½子", "B+1")
    # 183½ (a shared point) - 183½ = 0: a draw.
    assert _result(183, KOMI_TAIWAN, dame=True) == (0, "和棋", "0")
    # 183 - 183½ = -½ stone: White by one point (178 - 183 + 6 = 1).
    assert _result(183, KOMI_TAIWAN) == (-2, "白胜½子", "W+1")


def test_no_komi_handicap_games():
    # 000 第九条: more than 180½ wins, exactly 180½ draws.
    assert _result(181, 0) == (2, "黑胜½子", "B+1")
    assert _result(180, 0, dame=True) == (0, "和棋", "0")
    assert _result(180, 0) == (-2, "白胜½子", "W+1")


def test_warnings_cost_one_stone_each():
    # 004 第24条: 被警告方罚出一子. From Black +¾ (185, komi 3¾):
    assert _result(185, KOMI_NATIONAL, bw=1) == (-1, "白胜¼子", "W+0.5")  # ¾ - 1
    assert _result(185, KOMI_NATIONAL, ww=1) == (7, "黑胜1¾子", "B+3.5")  # ¾ + 1
    assert _result(185, KOMI_NATIONAL, bw=1, ww=1) == (3, "黑胜¾子", "B+1.5")
    assert _result(185, KOMI_NATIONAL, bw=2) == (-5, "白胜1¼子", "W+2.5")  # ¾ - 2
    # The margin moves by exactly one stone (4 quarters) per warning, either side.
    c = count(_area_board(182))
    base = c.margin4(KOMI_NATIONAL)
    assert base == 364 * 2 - 722 - 15  # 182 - 180½ - 3¾ = -2¼ stones
    for k in range(3):
        assert c.margin4(KOMI_NATIONAL, k, 0) == base - 4 * k
        assert c.margin4(KOMI_NATIONAL, 0, k) == base + 4 * k


def test_result_texts():
    # Quarter stones to text: 1 = ¼ stone = ½ point, 4 = 1 stone = 2 points.
    cases = (
        (1, "黑胜¼子", "B+0.5"),
        (2, "黑胜½子", "B+1"),
        (4, "黑胜1子", "B+2"),
        (5, "黑胜1¼子", "B+2.5"),
        (-6, "白胜1½子", "W+3"),
        (-7, "白胜1¾子", "W+3.5"),
        (-44, "白胜11子", "W+22"),
        (0, "和棋", "0"),
    )
    for m, chinese, sgf in cases:
        assert result_chinese(m) == chinese, m
        assert result_sgf(m) == sgf, m
