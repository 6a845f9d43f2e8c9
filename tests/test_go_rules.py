"""The Go rules core (firmware/rules/go.py, go_board.py) against the rule texts, board by board.

Each case is a position drawn as in tests/diagrams.py (top row first, ``X`` black, ``O`` white,
``*`` the point to play) and the position or verdict expected after it; every expectation is
worked out by hand from seed 000 (1988 Chinese rules) 第三条–第五条 and 第二十条, 003 第6条
(situational repetition) and GTP 2 §4.1.1 (fixed handicap), never by asking the code.
Coordinates are ``(x, y)``, x from the left, y from the bottom (row 1 is y = 0).
"""

import gc

from firmware.rules.coords import parse_vertex, vertex
from firmware.rules.go import (
    KO_CHINESE,
    KO_NONE,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    Game,
    fixed_handicap,
)
from firmware.rules.go_board import (
    BLACK,
    EMPTY,
    KO,
    OCCUPIED,
    OFF_BOARD,
    OK,
    REASONS,
    SUICIDE,
    SUICIDE_ALLOW,
    SUICIDE_ALLOW_ALL,
    SUICIDE_FORBID,
    SUPERKO,
    WHITE,
)
from tests.diagrams import board_from, diagram_of, marked, normal, rows_of


def _raises(exc, fn, *args):
    """Whether ``fn(*args)`` raises ``exc`` (no pytest.raises: this also runs on MicroPython)."""
    try:
        fn(*args)
    except exc:
        return True
    return False


def _state(game):
    """Everything a move or an undo must restore: position, hash, ko, captures, turn."""
    b = game.board
    return (
        tuple(b.rows),  # the stones; diagram_of(game) shows the same, in more memory
        b.hash(),
        b.ko,
        b.stones,
        tuple(game.captures),
        game.ply,
        game.to_move,
        game.passes,
    )


# ---- the diagram helpers ---------------------------------------------------------------------


def test_diagram_helpers_read_and_print_boards():
    d = """
        . X O .
        X O * O
        . X O .
        . . . +
    """
    g = board_from(d)
    assert g.size == 4 and g.ply == 0 and g.to_move == BLACK
    assert g.board.color_at(1, 3) == BLACK  # top row, second column
    assert g.board.color_at(2, 3) == WHITE
    assert g.board.color_at(0, 2) == BLACK
    assert g.board.color_at(1, 2) == WHITE
    assert g.board.color_at(2, 2) == EMPTY  # the mark is an empty point
    assert g.board.color_at(3, 0) == EMPTY
    assert g.board.stones == 7
    assert marked(d) == (2, 2)
    assert diagram_of(g) == ". X O .\nX O . O\n. X O .\n. . . ."
    assert normal(d) == diagram_of(g)
    assert normal(".XO.\nXO*O\n.XO.\n...+") == diagram_of(g)  # spacing is free
    assert board_from(d, to_move=WHITE).to_move == WHITE
    assert rows_of(d) == [".XO.", "XO*O", ".XO.", "...+"]
    assert _raises(ValueError, rows_of, "X .\n. . .")  # not square
    assert _raises(ValueError, marked, d, "a")  # no such mark


def test_coordinates_gtp_names():
    # x from the left, y from the bottom; GTP columns skip I.
    assert vertex(0, 0) == "A1"
    assert vertex(3, 3) == "D4"
    assert vertex(8, 0) == "J1"
    assert vertex(18, 18) == "T19"
    assert parse_vertex("q16", 19) == (15, 15)
    assert parse_vertex("pass", 19) is None
    assert _raises(ValueError, parse_vertex, "K10", 9)


# ---- captures (000 第三条, 第四条) -------------------------------------------------------------


def test_single_stone_captured():
    d = """
        . . . . .
        . . X . .
        . X O * .
        . . X . .
        . . . . .
    """
    g = board_from(d)
    assert g.play(BLACK, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
        """
    )
    assert g.captures[BLACK] == 1 and g.captures[WHITE] == 0
    assert g.board.stones == 4
    assert g.ply == 1 and g.to_move == WHITE


def test_two_stone_group_captured_by_white():
    d = """
        . . . . . .
        . . O O . .
        . O X X * .
        . . O O . .
        . . . . . .
        . . . . . .
    """
    g = board_from(d, to_move=WHITE)
    assert g.play(WHITE, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        . . . . . .
        . . O O . .
        . O . . O .
        . . O O . .
        . . . . . .
        . . . . . .
        """
    )
    assert g.captures[WHITE] == 2 and g.captures[BLACK] == 0


def test_one_stone_captures_two_groups():
    # The white stone and the white pair each have their last liberty at *.
    d = """
        . X . . .
        X O * . .
        . X O X .
        . X O X .
        . . X . .
    """
    g = board_from(d)
    assert g.play(BLACK, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        . X . . .
        X . X . .
        . X . X .
        . X . X .
        . . X . .
        """
    )
    assert g.captures[BLACK] == 3


def test_one_stone_captures_three_groups():
    d = """
        . . . . . . .
        . . . X . . .
        . . X O X . .
        . X O * O X .
        . . X . X . .
        . . . X . . .
        . . . . . . .
    """
    g = board_from(d)
    assert g.play(BLACK, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . X . X . X .
        . . X . X . .
        . . . X . . .
        . . . . . . .
        """
    )
    assert g.captures[BLACK] == 3


def test_one_stone_without_liberties_captures_four_groups():
    # * has no empty neighbour: the move is legal only because it takes all four stones.
    d = """
        . . . . . . .
        . . . X . . .
        . . X O X . .
        . X O * O X .
        . . X O X . .
        . . . X . . .
        . . . . . . .
    """
    g = board_from(d)
    assert g.play(BLACK, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . X . X . X .
        . . X . X . .
        . . . X . . .
        . . . . . . .
        """
    )
    assert g.captures[BLACK] == 4


def test_edge_and_corner_captures():
    d = """
        . . . X O
        . . . . *
        X . . . .
        O a . . .
        O X . . .
    """
    g = board_from(d)
    # Top right corner: one white stone, its last liberty below it.
    assert g.play(BLACK, *marked(d)) == OK
    assert g.captures[BLACK] == 1
    assert g.play(WHITE, None, None) == OK
    # Left edge and bottom left corner: a white pair, last liberty at a.
    assert g.play(BLACK, *marked(d, "a")) == OK
    assert g.captures[BLACK] == 3
    assert diagram_of(g) == normal(
        """
        . . . X .
        . . . . X
        X . . . .
        . X . . .
        . X . . .
        """
    )


def test_bottom_edge_and_right_edge_captures_by_white():
    d = """
        . . . . .
        . . . . O
        . . . O X
        . . O . a
        . O X * .
    """
    g = board_from(d, to_move=WHITE)
    assert g.play(WHITE, *marked(d)) == OK  # the black stone on the bottom edge
    assert g.play(BLACK, None, None) == OK
    assert g.play(WHITE, *marked(d, "a")) == OK  # the black stone on the right edge
    assert g.captures[WHITE] == 2
    assert diagram_of(g) == normal(
        """
        . . . . .
        . . . . O
        . . . O .
        . . O . O
        . O . O .
        """
    )


def test_snapback():
    # White throws in at a; Black takes it at b and is left with one liberty, a; White plays
    # a again and takes five stones. Not a ko: more than one stone is taken.
    d = """
        . . . . .
        . . . . .
        O O O . .
        X X X O .
        b a X O .
    """
    g = board_from(d, to_move=WHITE)
    a = marked(d, "a")
    b = marked(d, "b")
    assert g.play(WHITE, *a) == OK
    assert g.captures[WHITE] == 0 and g.board.color_at(*a) == WHITE
    assert g.play(BLACK, *b) == OK
    assert g.captures[BLACK] == 1 and g.board.color_at(*a) == EMPTY
    assert g.play(WHITE, *a) == OK
    assert diagram_of(g) == normal(
        """
        . . . . .
        . . . . .
        O O O . .
        . . . O .
        . O . O .
        """
    )
    assert g.captures[WHITE] == 5 and g.captures[BLACK] == 1


def test_both_sides_without_liberties_only_the_opponent_is_captured():
    # 000 第四条二: after Black's * the black pair and the white stone right of it both have no
    # liberty; only the white stone is removed, and the black pair lives on.
    d = """
        . . . . .
        . O O X .
        O X * O X
        . O O X .
        . . . . .
    """
    expected = normal(
        """
        . . . . .
        . O O X .
        O X X . X
        . O O X .
        . . . . .
        """
    )
    for suicide in (SUICIDE_FORBID, SUICIDE_ALLOW, SUICIDE_ALLOW_ALL):
        g = board_from(d, suicide=suicide)
        assert g.play(BLACK, *marked(d)) == OK
        assert diagram_of(g) == expected
        assert g.captures[BLACK] == 1 and g.captures[WHITE] == 0


def test_corner_stone_without_liberties_takes_two_stones():
    d = """
        * O X . .
        O X . . .
        X . . . .
        . . . . .
        . . . . .
    """
    g = board_from(d)
    assert g.play(BLACK, *marked(d)) == OK
    assert diagram_of(g) == normal(
        """
        X . X . .
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        """
    )
    assert g.captures[BLACK] == 2


# ---- suicide (000 第五条) ----------------------------------------------------------------------

_SUICIDE_ONE = """
    . . . . .
    . . O . .
    . O * O .
    . . O . .
    . . . . .
"""

_SUICIDE_GROUP = """
    . . . . .
    O O O . .
    X X * O .
    O O O . .
    . . . . .
"""


def test_single_stone_suicide_refused():
    for suicide in (SUICIDE_FORBID, SUICIDE_ALLOW):
        g = board_from(_SUICIDE_ONE, suicide=suicide)
        before = _state(g)
        assert g.play(BLACK, *marked(_SUICIDE_ONE)) == SUICIDE
        assert _state(g) == before  # a refused move changes nothing
        assert g.legal(BLACK, *marked(_SUICIDE_ONE)) == SUICIDE
    assert REASONS[SUICIDE] == "suicide"


def test_group_suicide_refused():
    g = board_from(_SUICIDE_GROUP)
    before = _state(g)
    assert g.play(BLACK, *marked(_SUICIDE_GROUP)) == SUICIDE
    assert _state(g) == before


def test_group_suicide_allowed_removes_the_group():
    for suicide in (SUICIDE_ALLOW, SUICIDE_ALLOW_ALL):
        g = board_from(_SUICIDE_GROUP, suicide=suicide)
        before = _state(g)
        assert g.play(BLACK, *marked(_SUICIDE_GROUP)) == OK
        assert diagram_of(g) == normal(
            """
            . . . . .
            O O O . .
            . . . O .
            O O O . .
            . . . . .
            """
        )
        # The three black stones are off the board; they count as taken by White.
        assert g.captures[WHITE] == 3 and g.captures[BLACK] == 0
        assert g.ply == 1 and g.to_move == WHITE
        assert g.undo()
        assert _state(g) == before


def test_single_stone_suicide_allowed_all():
    g = board_from(_SUICIDE_ONE, suicide=SUICIDE_ALLOW_ALL)
    start = diagram_of(g)
    assert g.play(BLACK, *marked(_SUICIDE_ONE)) == OK
    assert diagram_of(g) == start  # the stone went down and came off
    assert g.captures[WHITE] == 1
    assert g.ply == 1 and g.to_move == WHITE
    assert g.repeat == 0  # the board of ply 0 again (chinese rule: reported)


# ---- ko (000 第二十条一) ------------------------------------------------------------------------

_KO = """
    . . . . .
    . X O . .
    X O * O .
    . X O . .
    . . . . .
"""
_KO_BACK = (1, 2)  # where White would retake


def test_simple_ko_immediate_recapture_refused():
    g = board_from(_KO)
    assert g.play(BLACK, *marked(_KO)) == OK
    taken = normal(
        """
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        """
    )
    assert diagram_of(g) == taken
    before = _state(g)
    assert g.play(WHITE, *_KO_BACK) == KO
    assert g.legal(WHITE, *_KO_BACK) == KO
    assert _state(g) == before
    assert REASONS[KO] == "ko"


def test_ko_retaken_after_moves_elsewhere():
    g = board_from(_KO)
    assert g.play(BLACK, *marked(_KO)) == OK
    assert g.play(WHITE, 4, 4) == OK  # a ko threat
    assert g.play(BLACK, 4, 0) == OK  # answered
    assert g.play(WHITE, *_KO_BACK) == OK
    assert diagram_of(g) == normal(
        """
        . . . . O
        . X O . .
        X O . O .
        . X O . .
        . . . . X
        """
    )
    assert g.captures[BLACK] == 1 and g.captures[WHITE] == 1
    # Now Black may not retake at once.
    assert g.play(BLACK, *marked(_KO)) == KO


def test_ko_without_a_ko_rule_allows_the_recapture():
    g = board_from(_KO, ko_rule=KO_NONE)
    assert g.play(BLACK, *marked(_KO)) == OK
    assert g.play(WHITE, *_KO_BACK) == OK
    assert diagram_of(g) == normal(_KO)


def test_pass_clears_the_ko():
    # Simple ko: after a pass by each side the retake is just a move.
    g = board_from(_KO, ko_rule=KO_SIMPLE)
    assert g.play(BLACK, *marked(_KO)) == OK
    assert g.play(WHITE, None, None) == OK
    assert g.play(BLACK, None, None) == OK
    assert g.play(WHITE, *_KO_BACK) == OK
    assert diagram_of(g) == normal(_KO)
    assert g.repeat == -1  # the simple rule reports nothing
    # Chinese rule: allowed too, and the return of the position of ply 0 is reported.
    g = board_from(_KO)
    assert g.play(BLACK, *marked(_KO)) == OK
    assert g.play(WHITE, None, None) == OK
    assert g.play(BLACK, None, None) == OK
    assert g.play(WHITE, *_KO_BACK) == OK
    assert g.repeat == 0
    # Superko rules: the position of ply 0 (Black to move) would come back: refused.
    for rule in (KO_POSITIONAL, KO_SITUATIONAL):
        g = board_from(_KO, ko_rule=rule)
        assert g.play(BLACK, *marked(_KO)) == OK
        assert g.play(WHITE, None, None) == OK
        assert g.play(BLACK, None, None) == OK
        assert g.play(WHITE, *_KO_BACK) == SUPERKO


def test_undo_restores_the_ko_ban():
    g = board_from(_KO)
    assert g.play(BLACK, *marked(_KO)) == OK
    banned = _state(g)
    assert g.play(WHITE, None, None) == OK  # a pass lifts the ban...
    assert g.undo()
    assert _state(g) == banned  # ...and its undo puts it back
    assert g.play(WHITE, *_KO_BACK) == KO
    assert g.play(WHITE, 4, 4) == OK
    assert g.undo()
    assert g.play(WHITE, *_KO_BACK) == KO


# ---- long cycles: triple ko (000 第二十条三), superko (003 第6条) --------------------------------

# Three kos on 9x9. In each, Black retakes at R = (2, m) and White at L = (1, m), m the middle
# row of the ko (1, 4, 7). From this board (kos: bottom black, middle white, top white) the six
# captures below, each legal under simple ko, bring back the same board with Black to move.
_TRIPLE_KO = """
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . X O . . . . . .
    X . X O . . . . .
    . X O . . . . . .
"""
_CYCLE = (
    (BLACK, 2, 4),  # takes the middle ko
    (WHITE, 1, 1),  # takes the bottom ko
    (BLACK, 2, 7),  # takes the top ko
    (WHITE, 1, 4),  # middle
    (BLACK, 2, 1),  # bottom
    (WHITE, 1, 7),  # top: the board of ply 0, Black to move
)


def test_triple_ko_cycle_chinese_reports_the_repeat():
    g = board_from(_TRIPLE_KO)
    start = diagram_of(g)
    for i in range(5):
        assert g.play(*_CYCLE[i]) == OK
        assert g.repeat == -1
        assert g.captures[BLACK] + g.captures[WHITE] == i + 1  # one stone a move
    assert g.play(*_CYCLE[5]) == OK
    assert diagram_of(g) == start
    assert g.repeat == 0
    # Round again: each move now repeats the position six plies back (the latest one).
    for i in range(6):
        assert g.play(*_CYCLE[i]) == OK
        assert g.repeat == i + 1
    assert g.ply == 12 and g.repeat == 6
    assert g.captures[BLACK] == 6 and g.captures[WHITE] == 6


def test_triple_ko_cycle_positional_refuses_the_sixth_move():
    g = board_from(_TRIPLE_KO, ko_rule=KO_POSITIONAL)
    for i in range(5):
        assert g.play(*_CYCLE[i]) == OK
    before = _state(g)
    assert g.play(*_CYCLE[5]) == SUPERKO
    assert g.legal(*_CYCLE[5]) == SUPERKO
    assert _state(g) == before
    assert g.play(WHITE, 8, 8) == OK  # White must play elsewhere
    assert REASONS[SUPERKO] == "superko"


def test_triple_ko_cycle_situational_refuses_the_sixth_move():
    # The board of ply 0 with Black to move again: the same situation.
    g = board_from(_TRIPLE_KO, ko_rule=KO_SITUATIONAL)
    for i in range(5):
        assert g.play(*_CYCLE[i]) == OK
    assert g.play(*_CYCLE[5]) == SUPERKO


def test_triple_ko_cycle_simple_allows_everything_and_reports_nothing():
    g = board_from(_TRIPLE_KO, ko_rule=KO_SIMPLE)
    start = diagram_of(g)
    for _ in range(2):
        for move in _CYCLE:
            assert g.play(*move) == OK
            assert g.repeat == -1
    assert diagram_of(g) == start and g.ply == 12


def test_ko_rule_changed_mid_game_checks_earlier_positions():
    g = board_from(_TRIPLE_KO)
    for i in range(5):
        assert g.play(*_CYCLE[i]) == OK
    g.set_ko_rule(KO_POSITIONAL)
    assert g.play(*_CYCLE[5]) == SUPERKO
    g.set_ko_rule(KO_CHINESE)
    assert g.play(*_CYCLE[5]) == OK and g.repeat == 0
    assert _raises(ValueError, g.set_ko_rule, 7)


# Two kos (the bottom and middle ones of the board above, the top one idle), set so that Black
# can bring back the board of ply 0 but with White to move: (bottom, middle) go
# white-black -> black-black -> black-white -> (pass) -> white-white -> white-black.
_DOUBLE_KO = """
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . X O . . . . . .
    X . X O . . . . .
    . X O . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
"""
_DOUBLE_KO_MOVES = (
    (BLACK, 2, 1),  # takes the bottom ko
    (WHITE, 1, 4),  # takes the middle ko
    (BLACK, None, None),  # pass
    (WHITE, 1, 1),  # retakes the bottom ko (the pass lifted the ban)
)
_DOUBLE_KO_LAST = (BLACK, 2, 4)  # retakes the middle ko: the board of ply 0, White to move


def _double_ko(rule):
    g = board_from(_DOUBLE_KO, ko_rule=rule)
    for move in _DOUBLE_KO_MOVES:
        assert g.play(*move) == OK
    return g


def test_positional_and_situational_superko_differ():
    # Positional superko forbids any earlier board; situational (003 第6条) only the same
    # board with the same player to move, and ply 0 had Black to move, not White.
    start = normal(_DOUBLE_KO)
    g = _double_ko(KO_POSITIONAL)
    assert g.play(*_DOUBLE_KO_LAST) == SUPERKO
    g = _double_ko(KO_SITUATIONAL)
    assert g.play(*_DOUBLE_KO_LAST) == OK
    assert diagram_of(g) == start and g.to_move == WHITE
    g = _double_ko(KO_CHINESE)
    assert g.play(*_DOUBLE_KO_LAST) == OK
    assert g.repeat == 0
    g = _double_ko(KO_SIMPLE)
    assert g.play(*_DOUBLE_KO_LAST) == OK
    assert g.repeat == -1


def test_single_stone_suicide_under_superko():
    # With every suicide allowed, a lone stone's suicide leaves the board as it was: an earlier
    # board (positional: refused) but with the other player to move (situational: allowed).
    g = board_from(_SUICIDE_ONE, ko_rule=KO_POSITIONAL, suicide=SUICIDE_ALLOW_ALL)
    assert g.play(BLACK, *marked(_SUICIDE_ONE)) == SUPERKO
    g = board_from(_SUICIDE_ONE, ko_rule=KO_SITUATIONAL, suicide=SUICIDE_ALLOW_ALL)
    assert g.play(BLACK, *marked(_SUICIDE_ONE)) == OK


# ---- legality checks leave the game alone -------------------------------------------------


def test_off_board_and_occupied():
    g = Game(9)
    assert g.play(BLACK, 4, 4) == OK
    before = _state(g)
    for x, y in ((-1, 0), (0, -1), (9, 0), (0, 9), (9, 9), (31, 31)):
        assert g.play(WHITE, x, y) == OFF_BOARD
        assert g.legal(WHITE, x, y) == OFF_BOARD
    assert g.play(WHITE, 4, 4) == OCCUPIED
    assert g.play(BLACK, 4, 4) == OCCUPIED
    assert g.legal(WHITE, 4, 4) == OCCUPIED
    assert _state(g) == before
    assert g.play(WHITE, 8, 8) == OK  # the far corner is on the board
    assert REASONS[OK] == "legal"
    assert REASONS[OFF_BOARD] == "off board" and REASONS[OCCUPIED] == "occupied"


def test_legal_never_changes_the_game():
    g = board_from(_KO)
    assert g.play(BLACK, *marked(_KO)) == OK  # White is now under a ko ban
    before = _state(g)
    repeat = g.repeat
    checks = (
        ((WHITE, 1, 2), KO),
        ((WHITE, 2, 2), OCCUPIED),
        ((WHITE, 5, 0), OFF_BOARD),
        ((WHITE, 4, 4), OK),
        ((WHITE, None, None), OK),
        ((BLACK, 1, 2), OK),
    )
    for move, reason in checks:
        assert g.legal(*move) == reason
        assert _state(g) == before
        assert g.repeat == repeat
    # A suicide point and a superko point too.
    g = board_from(_SUICIDE_GROUP)
    before = _state(g)
    assert g.legal(BLACK, *marked(_SUICIDE_GROUP)) == SUICIDE
    assert _state(g) == before
    g = board_from(_TRIPLE_KO, ko_rule=KO_POSITIONAL)
    for i in range(5):
        g.play(*_CYCLE[i])
    before = _state(g)
    assert g.legal(*_CYCLE[5]) == SUPERKO
    assert g.legal(WHITE, 8, 8) == OK
    assert _state(g) == before


def test_legal_keeps_the_repeat_report():
    # After the triple-ko cycle closes under the chinese rule, ``repeat`` tells the arbiter
    # which ply came back (000 第二十条三); asking whether a move is legal must not erase it.
    g = board_from(_TRIPLE_KO)
    for move in _CYCLE:
        assert g.play(*move) == OK
    assert g.repeat == 0
    assert g.legal(BLACK, 8, 8) == OK
    assert g.repeat == 0


# ---- undo over a long game ---------------------------------------------------------------------


class _Lcg:
    """A tiny deterministic PRNG (31-bit LCG), the same numbers on CPython and MicroPython."""

    def __init__(self, seed):
        self.s = seed

    def below(self, n):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.s >> 8) % n


def _neighbours(n, i):
    x = i % n
    out = []
    if x > 0:
        out.append(i - 1)
    if x < n - 1:
        out.append(i + 1)
    if i >= n:
        out.append(i - n)
    if i < n * n - n:
        out.append(i + n)
    return out


def _group(grid, n, i):
    """The stones of the group at ``i`` and its number of liberties (plain flood fill)."""
    c = grid[i]
    stones = [i]
    seen = {i}
    libs = set()
    k = 0
    while k < len(stones):
        for j in _neighbours(n, stones[k]):
            if grid[j] == EMPTY:
                libs.add(j)
            elif grid[j] == c and j not in seen:
                seen.add(j)
                stones.append(j)
        k += 1
    return stones, len(libs)


def _own_eye(grid, n, c, i):
    """Whether ``i`` is empty with every neighbour a stone of colour ``c``."""
    if grid[i] != EMPTY:
        return False
    for j in _neighbours(n, i):
        if grid[j] != c:
            return False
    return True


def _reference_play(grid, n, c, i, ko):
    """An independent statement of 000 第三条–第五条 and simple ko on a list of points
    (index y * n + x). Returns (reason, new grid, new ko as (colour, point) or None)."""
    if grid[i] != EMPTY:
        return OCCUPIED, grid, ko
    if ko == (c, i):
        return KO, grid, ko
    g = list(grid)
    g[i] = c
    taken = []
    for j in _neighbours(n, i):
        if g[j] == 3 - c:
            stones, libs = _group(g, n, j)
            if libs == 0:
                for s in stones:
                    g[s] = EMPTY
                taken += stones
    stones, libs = _group(g, n, i)
    if libs == 0:
        return SUICIDE, grid, ko
    if len(taken) == 1 and len(stones) == 1 and libs == 1:
        return OK, g, (3 - c, taken[0])
    return OK, g, None


def _grid_diagram(grid, n):
    chars = ".XO"
    rows = []
    for y in range(n - 1, -1, -1):
        rows.append(" ".join(chars[grid[y * n + x]] for x in range(n)))
    return "\n".join(rows)


def test_long_random_game_matches_a_reference_and_undoes_exactly():
    gc.collect()  # a 2 MB MicroPython heap: start this long test unfragmented
    n = 9
    plies = 600  # long enough for many kos, repeats and captures (tests/test_go_worst.py: 1,024)
    rng = _Lcg(77)
    g = Game(n)
    empty_hash = Game(n).board.hash()
    grid = [EMPTY] * (n * n)
    ko = None
    seen = {bytes(grid): 0}  # board -> latest ply, for the chinese rule's repeat report
    states = [_state(g)]
    moves = []
    taken = [0, 0, 0]  # stones taken by [_, black, white], as the reference saw it
    repeats = 0
    kos = 0
    c = BLACK
    while g.ply < plies:
        if g.ply % 8 == 0:
            # MicroPython collects only when the heap is full, and by then this test's
            # long-lived records are strewn over all of it. Collecting often keeps the live
            # data packed.
            gc.collect()
        move = None
        tries = 0 if rng.below(40) == 0 else 40  # now and then a pass
        for t in range(tries):
            r = rng.below(n * n)
            if t < 30 and _own_eye(grid, n, c, r):
                continue  # play on like a player: keep eyes, until nothing else is left
            reason, after, new_ko = _reference_play(grid, n, c, r, ko)
            x, y = r % n, r // n
            before = _state(g)
            assert g.legal(c, x, y) == reason
            assert _state(g) == before
            if reason == OK:
                move = (x, y)
                break
            assert g.play(c, x, y) == reason
            assert _state(g) == before
        if move is None:
            assert g.play(c, None, None) == OK
            ko = None
            assert g.repeat == -1
            moves.append((c, None, None))
        else:
            assert g.play(c, move[0], move[1]) == OK
            taken[c] += sum(1 for k in range(n * n) if grid[k] and not after[k])
            grid, ko = after, new_ko
            kos += ko is not None
            assert g.repeat == seen.get(bytes(grid), -1)
            if g.repeat >= 0:
                repeats += 1
            moves.append((c, move[0], move[1]))
        assert diagram_of(g) == _grid_diagram(grid, n)
        assert tuple(g.captures) == tuple(taken)
        seen[bytes(grid)] = g.ply
        states.append(_state(g))
        c = 3 - c
    # The game (as the reference saw it) covered what matters: many captures, ko captures,
    # and positions coming back.
    assert taken[BLACK] + taken[WHITE] > 300 and kos > 10 and repeats >= 1
    # Undo one move at a time: each earlier state comes back exactly.
    for j in range(plies - 1, -1, -1):
        assert g.undo()
        assert _state(g) == states[j]
    assert not g.undo()
    assert g.board.hash() == empty_hash and g.board.stones == 0
    assert diagram_of(g) == _grid_diagram([EMPTY] * (n * n), n)
    assert tuple(g.captures) == (0, 0, 0)
    # And the same moves again reach the same final state.
    for move in moves:
        assert g.play(*move) == OK
    assert _state(g) == states[-1]


# ---- board sizes -----------------------------------------------------------------------------


def test_board_sizes_corner_captures():
    for n in (5, 9, 13, 19):
        g = Game(n)
        assert g.size == n and g.board.stones == 0
        last = n - 1
        # A white stone in each corner with a black stone beside it; Black takes all four.
        corners = (
            ((0, 0), (1, 0), (0, 1)),
            ((last, 0), (last - 1, 0), (last, 1)),
            ((0, last), (1, last), (0, last - 1)),
            ((last, last), (last - 1, last), (last, last - 1)),
        )
        for corner, beside, _ in corners:
            g.setup(WHITE, *corner)
            g.setup(BLACK, *beside)
        for i, (corner, _, take) in enumerate(corners):
            if i:
                assert g.play(WHITE, None, None) == OK
            assert g.play(BLACK, *take) == OK
            assert g.board.color_at(*corner) == EMPTY
        assert g.captures[BLACK] == 4 and g.board.stones == 8
        assert g.play(WHITE, n, 0) == OFF_BOARD
        assert g.play(WHITE, 0, n) == OFF_BOARD
    assert Game().size == 19
    assert _raises(ValueError, Game, 20)


def test_19x19_diagram_corner_capture_at_t19():
    d = """
        . . . . . . . . . . . . . . . . . X O
        . . . . . . . . . . . . . . . . . . *
        . . . . . . . . . . . . . . . . . . .
        . . . + . . . . . + . . . . . + . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . + . . . . . + . . . . . + . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . + . . . . . + . . . . . + . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        X O . . . . . . . . . . . . . . . . .
    """
    g = board_from(d)
    assert g.size == 19 and g.board.stones == 4
    assert vertex(*marked(d)) == "T18"
    assert g.board.color_at(18, 18) == WHITE  # T19, top right
    assert g.board.color_at(17, 18) == BLACK  # S19
    assert g.board.color_at(0, 0) == BLACK  # A1, bottom left
    assert g.board.color_at(1, 0) == WHITE  # B1
    assert g.play(BLACK, *marked(d)) == OK
    assert g.board.color_at(18, 18) == EMPTY and g.captures[BLACK] == 1
    assert g.play(WHITE, *parse_vertex("A2", 19)) == OK  # and A1 goes
    assert g.board.color_at(0, 0) == EMPTY and g.captures[WHITE] == 1
    assert diagram_of(g).split("\n")[0] == ". " * 17 + "X ."


# ---- handicap (GTP 2 §4.1.1 fixed; free handicap for the Chinese rules) --------------------

_FIXED = {
    19: (
        "D4 Q16",
        "D4 Q16 D16",
        "D4 Q16 D16 Q4",
        "D4 Q16 D16 Q4 K10",
        "D4 Q16 D16 Q4 D10 Q10",
        "D4 Q16 D16 Q4 D10 Q10 K10",
        "D4 Q16 D16 Q4 D10 Q10 K4 K16",
        "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
    ),
    13: (
        "D4 K10",
        "D4 K10 D10",
        "D4 K10 D10 K4",
        "D4 K10 D10 K4 G7",
        "D4 K10 D10 K4 D7 K7",
        "D4 K10 D10 K4 D7 K7 G7",
        "D4 K10 D10 K4 D7 K7 G4 G10",
        "D4 K10 D10 K4 D7 K7 G4 G10 G7",
    ),
    9: (
        "C3 G7",
        "C3 G7 C7",
        "C3 G7 C7 G3",
        "C3 G7 C7 G3 E5",
        "C3 G7 C7 G3 C5 G5",
        "C3 G7 C7 G3 C5 G5 E5",
        "C3 G7 C7 G3 C5 G5 E3 E7",
        "C3 G7 C7 G3 C5 G5 E3 E7 E5",
    ),
}


def _names(points):
    return sorted(vertex(x, y) for x, y in points)


def test_fixed_handicap_points():
    for size in (19, 13, 9):
        for count in range(2, 10):
            points = fixed_handicap(size, count)
            assert len(points) == count
            assert _names(points) == sorted(_FIXED[size][count - 2].split())
            g = Game(size)
            g.place_handicap(points)
            assert g.board.stones == count and g.ply == 0 and g.to_move == WHITE
            for x, y in points:
                assert g.board.color_at(x, y) == BLACK


def test_fixed_handicap_even_sizes_and_limits():
    assert _names(fixed_handicap(10, 4)) == sorted("C3 H8 C8 H3".split())
    assert _names(fixed_handicap(14, 4)) == sorted("D4 L11 D11 L4".split())
    assert _names(fixed_handicap(7, 4)) == sorted("C3 E5 C5 E3".split())
    for size, count in (
        (10, 5),
        (14, 5),
        (18, 5),
        (7, 5),
        (19, 10),
        (13, 10),
        (9, 10),
        (19, 1),
        (19, 0),
        (6, 2),
        (5, 2),
    ):
        assert _raises(ValueError, fixed_handicap, size, count), (size, count)


def test_free_handicap():
    g = Game(19)
    points = [(3, 3), (15, 15), (9, 9)]
    g.place_handicap(points)
    assert g.to_move == WHITE and g.ply == 0 and g.board.stones == 3
    for x, y in points:
        assert g.board.color_at(x, y) == BLACK
    assert g.play(WHITE, 3, 3) == OCCUPIED
    assert g.play(WHITE, 15, 3) == OK
    assert g.to_move == BLACK
    assert _raises(ValueError, g.place_handicap, [(0, 0), (1, 1)])  # not before move one
    assert g.undo() and g.to_move == WHITE and g.board.stones == 3


def test_free_handicap_refused_changes_nothing():
    g = Game(19)
    for bad in ([(3, 3), (3, 3)], [(3, 3)], [(3, 3), (15, 15), (3, 3)]):
        assert _raises(ValueError, g.place_handicap, bad), bad
        assert g.board.stones == 0 and g.to_move == BLACK
    g.setup(BLACK, 0, 0)
    assert _raises(ValueError, g.place_handicap, [(3, 3), (15, 15)])  # board not empty


def test_free_handicap_with_an_off_board_point_places_nothing():
    g = Game(19)
    assert _raises(ValueError, g.place_handicap, [(3, 3), (19, 19)])
    assert g.board.stones == 0 and g.to_move == BLACK


# ---- captures, setup -------------------------------------------------------------------------


def test_capture_counts_follow_moves_and_undo():
    d = """
        . . . . . .
        . . . . . .
        . O . . . .
        O X * . X .
        . O . X O .
        . . . . X .
    """
    g = board_from(d, to_move=WHITE)
    assert g.play(WHITE, *marked(d)) == OK  # takes the black stone at (1, 2)
    assert tuple(g.captures) == (0, 0, 1)
    assert g.play(BLACK, 5, 1) == OK  # takes the white stone at (4, 1)
    assert tuple(g.captures) == (0, 1, 1)
    assert g.undo()
    assert tuple(g.captures) == (0, 0, 1)
    assert g.undo()
    assert tuple(g.captures) == (0, 0, 0)
    assert diagram_of(g) == normal(d)


def test_setup_stones_only_before_the_first_move():
    g = Game(9)
    g.setup(BLACK, 2, 2)
    g.setup(WHITE, 6, 6)
    g.setup(BLACK, 6, 6)  # replaces the white stone
    g.setup(EMPTY, 2, 2)  # removes
    assert g.board.stones == 1 and g.board.color_at(6, 6) == BLACK
    assert g.board.color_at(2, 2) == EMPTY
    assert _raises(ValueError, g.setup, BLACK, 9, 0)
    g.set_to_move(WHITE)
    start = _state(g)
    assert g.play(WHITE, 4, 4) == OK
    assert _raises(ValueError, g.setup, BLACK, 0, 0)
    assert g.board.color_at(0, 0) == EMPTY and g.board.stones == 2
    assert g.undo()
    assert _state(g) == start  # the setup position is ply 0
    g.setup(BLACK, 0, 0)  # at ply 0 again: allowed
    assert g.board.color_at(0, 0) == BLACK
