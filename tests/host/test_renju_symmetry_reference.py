"""Fifth-move offer grouping (五手N打, 位置不同形) against the PyPI package ``renju`` 0.1.0.

``renju.RenjuBoard.find_symmetric_candidates`` groups candidate moves whose resulting
positions are congruent under rotation, reflection and translation, colours kept; its
``all_groups`` must equal ``offer_groups`` (as sets of sets) on every position here: the 26
openings with a fourth stone, random positions of 4 to 14 stones, and positions built to be
symmetric so that clashes are common. ``renju`` is an independent implementation (it
canonicalises by sorting the stones of all 8 images); CPython only.

Coordinates: ours are ``(x, y)`` with row 1 at the bottom; ``renju`` prints row 1 at the top
(its y is the row index from the top). The grouping is invariant under that reflection, but
the conversion is made explicitly: ours ``(x, y)`` is renju's ``(x, 14 - y)``. Stone colours
in ``renju`` follow move parity, so positions are fed as alternating moves with passes
(``(-1, -1)``, which it skips when collecting stones) wherever one colour runs ahead.
"""

import random

import pytest
from renju import RenjuBoard

from firmware.rules.renju_openings import (
    BLACK,
    TRANSFORMS,
    WHITE,
    offer_groups,
    opening_stones,
    transform_point,
)

SIZE = 15
PASS = [-1, -1]


def to_renju(p):
    return (p[0], SIZE - 1 - p[1])


def renju_board(black, white, colour):
    """A ``RenjuBoard`` holding the stones, with ``colour`` to play next."""
    moves = []
    b = [list(to_renju(p)) for p in black]
    w = [list(to_renju(p)) for p in white]
    while b or w:
        moves.append(b.pop() if b else PASS)
        if b or w:
            moves.append(w.pop() if w else PASS)
    to_play = BLACK if len(moves) % 2 == 0 else WHITE
    if to_play != colour:
        moves.append(PASS)
    # Freestyle: renju's Renju rule would end the game at a forbidden shape, and no move may
    # follow the end; a random position that ends it (a five) is skipped by the caller.
    return RenjuBoard(moves=moves, board_size=SIZE, rule="freestyle")


def reference_groups(black, white, offers, colour):
    board = renju_board(black, white, colour)
    _, all_groups = board.find_symmetric_candidates([to_renju(p) for p in offers])
    back = {to_renju(p): p for p in offers}  # to_renju is its own inverse; keep it explicit
    return {frozenset(back[q] for q in g) for g in all_groups}


def our_groups(black, white, offers, colour):
    return {frozenset(offers[i] for i in g) for g in offer_groups(black, white, offers, colour)}


def check(black, white, offers, colour=BLACK):
    """Compare one case; returns the number of offers that clash with another, or None."""
    try:
        expected = reference_groups(black, white, offers, colour)
    except ValueError:  # renju refused the position (a five ended its game)
        return None
    got = our_groups(black, white, offers, colour)
    assert got == expected, (black, white, offers, colour)
    return sum(len(g) for g in got if len(g) > 1)


def empty_points(taken, lo=0, hi=SIZE - 1):
    return [(x, y) for x in range(lo, hi + 1) for y in range(lo, hi + 1) if (x, y) not in taken]


def test_openings_with_a_fourth_stone_all_offers_in_the_centre():
    # Every opening, every fourth stone in the central 5×5, every empty point of the 7×7
    # centre offered at once (so the grouping of every pair of them is compared).
    clashing = 0
    for index in range(26):
        b1, w2, b3 = opening_stones(index)
        for w4 in empty_points({b1, w2, b3}, 5, 9):
            black = [b1, b3]
            white = [w2, w4]
            offers = empty_points({b1, w2, b3, w4}, 4, 10)
            n = check(black, white, offers)
            assert n is not None
            clashing += n > 0
    assert clashing > 40  # symmetric positions are common enough to exercise the grouping


def test_random_positions_and_offers():
    rng = random.Random(2002)
    clashing = 0
    cases = 0
    for _ in range(400):
        nb = rng.randrange(1, 8)
        nw = nb - rng.randrange(0, 2)  # Black or White to play, colour chosen to match
        colour = BLACK if nb == nw else WHITE
        lo = rng.choice((0, 3, 4))
        pts = rng.sample(empty_points(set(), lo, SIZE - 1 - lo), nb + nw + 12)
        black, white, offers = pts[:nb], pts[nb : nb + nw], pts[nb + nw :]
        n = check(black, white, offers, colour)
        if n is not None:
            cases += 1
            clashing += n > 0
    assert cases > 350
    # Clashes come mostly from the smallest positions (one or two stones), where an offer
    # easily stands in for a stone already there.
    assert clashing > 10


def _symmetric_position(rng):
    # A random set and its image under a random symmetry about a random centre (which may
    # be a half point), so that the whole position is symmetric; colours kept.
    t = rng.randrange(1, 8)
    cx2, cy2 = rng.randrange(10, 19), rng.randrange(10, 19)  # twice the centre
    a, b, c, d = TRANSFORMS[t]
    black, white = set(), set()
    for _ in range(rng.randrange(2, 5)):
        x, y = rng.randrange(3, 12), rng.randrange(3, 12)
        dx2, dy2 = 2 * x - cx2, 2 * y - cy2
        tx2, ty2 = a * dx2 + b * dy2 + cx2, c * dx2 + d * dy2 + cy2
        if tx2 % 2 or ty2 % 2 or not (0 <= tx2 // 2 < SIZE and 0 <= ty2 // 2 < SIZE):
            continue
        side = black if rng.random() < 0.5 else white
        side.add((x, y))
        side.add((tx2 // 2, ty2 // 2))
    if not black or black & white:
        return None
    return sorted(black), sorted(white)


def test_symmetric_positions_group_their_mirror_offers():
    rng = random.Random(5)
    clashing = 0
    for _ in range(300):
        made = _symmetric_position(rng)
        if made is None:
            continue
        black, white = made
        colour = BLACK if len(black) == len(white) else rng.choice((BLACK, WHITE))
        offers = rng.sample(empty_points(set(black) | set(white), 2, 12), 30)
        n = check(black, white, offers, colour)
        if n:
            clashing += 1
    assert clashing > 100  # 125 of the 164 positions made


@pytest.mark.parametrize(
    "black, white, offers",
    [
        # The examples of tests/test_renju_openings.py.
        ([(7, 7), (7, 9)], [(7, 8), (7, 6)], [(8, 6), (6, 6), (9, 7)]),
        ([(7, 7), (9, 8)], [(7, 8), (9, 7)], [(6, 6), (10, 9), (10, 10)]),
        (
            [(7, 8), (6, 7), (8, 7), (7, 6), (8, 9), (5, 8), (6, 5), (9, 6)],
            [],
            [(8, 10), (4, 8), (6, 4), (10, 6), (7, 10)],
        ),
    ],
)
def test_worked_examples(black, white, offers):
    assert check(black, white, offers, BLACK if len(black) == len(white) else WHITE) is not None


def test_board_symmetries_without_shift_match_a_brute_force():
    # shift=False (symmetries of the board about H8, edges seen) has no counterpart in renju:
    # compare it with the definition itself, T(position + p) == position + q for some T.
    rng = random.Random(8)
    for index in range(26):
        b1, w2, b3 = opening_stones(index)
        for _ in range(3):
            w4 = rng.choice(empty_points({b1, w2, b3}, 4, 10))
            black, white = [b1, b3], [w2, w4]
            offers = empty_points({b1, w2, b3, w4}, 4, 10)
            stones = {(p, BLACK) for p in black} | {(p, WHITE) for p in white}

            def same(p, q, stones=stones):
                a = stones | {(p, BLACK)}
                b = stones | {(q, BLACK)}
                return any({(transform_point(t, s), c) for s, c in a} == b for t in range(8))

            groups = offer_groups(black, white, offers, shift=False)
            for g in groups:
                for i in g:
                    assert same(offers[g[0]], offers[i])
            for i in range(len(groups)):
                for j in range(i):
                    assert not same(offers[groups[i][0]], offers[groups[j][0]])
