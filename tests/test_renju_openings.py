"""The 26 designated openings and the fifth-move offers (firmware/rules/renju_openings.py).

Seed 002 第三条 names the openings; 第六条1 says what happens when the opening is not laid out
as required; 第二条10 asks the N fifth-move offers to be 位置不同形. Positions near the centre
are drawn as 7×7 windows E11–K5 (top row first, H8 in the middle): ``X`` black, ``O`` white,
``.`` empty, a letter an offered point. Expectations are worked out by hand in the comments.
"""

from firmware.rules.renju_openings import (
    COUNT,
    DIAGONAL,
    DIRECT,
    NOT_ADJACENT,
    NOT_TENGEN,
    OCCUPIED,
    OFF_BOARD,
    OFFER_COUNT,
    OK,
    OPENINGS,
    OUTSIDE_5X5,
    RELATIONS,
    SAME_SHAPE,
    WHITE,
    check_offers,
    check_opening,
    identify,
    kind,
    name,
    offer_clashes,
    offer_groups,
    opening_stones,
    parse_point,
    point_name,
    position_symmetries,
    relation,
    shape_key,
    transform,
    transform_point,
)

H8 = (7, 7)


def _pts(text):
    return [parse_point(t) for t in text.split()]


def _window(diagram):
    """``(black, white, marks)`` of a 7×7 diagram centred on H8; marks maps letter -> point."""
    rows = ["".join(line.split()) for line in diagram.split("\n")]
    rows = [r for r in rows if r]
    assert len(rows) == 7 and all(len(r) == 7 for r in rows)
    black = []
    white = []
    marks = {}
    for i in range(7):
        for j in range(7):
            p = (4 + j, 10 - i)  # column E is x = 4, row 11 is y = 10
            ch = rows[i][j]
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
            elif ch != ".":
                marks[ch] = p
    return black, white, marks


def _index(chinese):
    for i in range(COUNT):
        if OPENINGS[i][0] == chinese:
            return i
    raise KeyError(chinese)


# ---- the table -------------------------------------------------------------------------------

# 002 第三条, in its order: 13 斜指 openings, then 13 直指.
_SEED_ORDER = (
    "长星 峡月 恒星 水月 流星 云月 浦月 岚月 银月 明星 斜月 名月 彗星 "
    "寒星 溪月 疏星 花月 残月 雨月 金星 松月 丘月 新月 瑞星 山月 游星"
)


def test_table_lists_the_26_openings_of_the_seed_in_its_order():
    assert COUNT == 26 and len(OPENINGS) == 26
    assert " ".join(o[0] for o in OPENINGS) == _SEED_ORDER
    assert [kind(i) for i in range(26)] == [DIAGONAL] * 13 + [DIRECT] * 13
    assert name(16) == "花月 (Kagetsu)"


def test_every_opening_has_white_2_touching_black_1_and_black_3_in_the_central_5x5():
    for i in range(COUNT):
        for t in range(8):
            b1, w2, b3 = opening_stones(i, t)
            assert b1 == H8
            dx, dy = w2[0] - 7, w2[1] - 7
            assert max(abs(dx), abs(dy)) == 1
            # 斜指: White 2 on a diagonal neighbour; 直指: on a straight one.
            assert (abs(dx) + abs(dy) == 2) == (kind(i) == DIAGONAL)
            assert max(abs(b3[0] - 7), abs(b3[1] - 7)) <= 2
            assert b3 != b1 and b3 != w2


def test_identify_gives_the_same_opening_in_all_8_orientations():
    for i in range(COUNT):
        for t in range(8):
            b1, w2, b3 = opening_stones(i, t)
            assert identify(b1, w2, b3) == i
            verdict, message = check_opening(b1, w2, b3)
            assert verdict == OK and message.startswith(OPENINGS[i][0])


def test_known_openings_by_name():
    # 花月: White 2 straight above 天元, Black 3 diagonally next to both (I9).
    assert opening_stones(_index("花月")) == tuple(_pts("H8 H9 I9"))
    assert identify(*_pts("H8 H9 I9")) == _index("花月")
    assert identify(*_pts("H8 G8 G9")) == _index("花月")  # a quarter turn anticlockwise
    assert identify(*_pts("H8 H7 G7")) == _index("花月")  # a half turn
    # 浦月: White 2 diagonal (I9), Black 3 on I7 (next to Black 1, two below White 2).
    assert opening_stones(_index("浦月")) == tuple(_pts("H8 I9 I7"))
    assert identify(*_pts("H8 G7 I7")) == _index("浦月")  # mirrored in the diagonal A15–O1
    # Black 3 on the far corner of the 5×5, in line with White 2: 长星 (斜指), 疏星 (直指).
    assert identify(*_pts("H8 I9 J10")) == _index("长星")
    assert identify(*_pts("H8 H9 J10")) == _index("疏星")
    # Black 3 two below Black 1: 明星 (斜指), 瑞星 (直指); a left-right mirror keeps H6.
    assert identify(*_pts("H8 I9 H6")) == _index("明星")
    assert identify(*_pts("H8 G9 H6")) == _index("明星")
    assert identify(*_pts("H8 G9 I6")) == _index("名月")  # mirror of H8 I9 G6
    assert identify(*_pts("H8 H9 H6")) == _index("瑞星")
    # The corner of the 5×5 below-left: 彗星 (斜指, opposite White 2) and 游星 (直指).
    assert identify(*_pts("H8 I9 F6")) == _index("彗星")
    assert identify(*_pts("H8 H9 F6")) == _index("游星")  # mirror of J6


def test_the_26_are_pairwise_different_about_tengen():
    # Keys of the three stones under the board's symmetries about H8 (no translation).
    keys = []
    for i in range(COUNT):
        b1, w2, b3 = opening_stones(i)
        stones = [(b1[0], b1[1], 1), (b3[0], b3[1], 1), (w2[0], w2[1], 2)]
        keys.append(min(shape_key(stones, t, False) for t in range(8)))
    for i in range(COUNT):
        for j in range(i):
            assert keys[i] != keys[j], (OPENINGS[i][0], OPENINGS[j][0])


def test_every_white_2_and_black_3_placement_is_exactly_one_of_the_26():
    # 8 places for White 2, 23 free points of the 5×5 for Black 3: 184 placements.
    seen = {}
    for i in range(COUNT):
        for t in range(8):
            stones = opening_stones(i, t)
            assert seen.get(stones, i) == i  # no placement is two openings
            seen[stones] = i
    assert len(seen) == 8 * 23
    for wx in range(6, 9):
        for wy in range(6, 9):
            w2 = (wx, wy)
            if w2 == H8:
                continue
            diagonal = wx != 7 and wy != 7
            found = set()
            for x in range(5, 10):
                for y in range(5, 10):
                    b3 = (x, y)
                    if b3 == H8 or b3 == w2:
                        continue
                    i = identify(H8, w2, b3)
                    assert seen[(H8, w2, b3)] == i
                    assert kind(i) == (DIAGONAL if diagonal else DIRECT)
                    found.add(i)
            # The 23 points fall into exactly 13 openings (10 mirror pairs + 3 on the axis).
            assert len(found) == 13


def test_two_pairs_of_openings_are_one_shape_in_a_different_place():
    # Translation forgets the board's edges: 峡月 is 溪月's shape, 云月 雨月's (the Japanese
    # 盤端関係違いの同形); all other openings differ in shape too.
    groups = {}
    for i in range(COUNT):
        b1, w2, b3 = opening_stones(i)
        stones = [(b1[0], b1[1], 1), (b3[0], b3[1], 1), (w2[0], w2[1], 2)]
        k = min(shape_key(stones, t) for t in range(8))
        groups.setdefault(k, []).append(OPENINGS[i][0])
    same = sorted(sorted(g) for g in groups.values() if len(g) > 1)
    assert same == sorted([sorted(["峡月", "溪月"]), sorted(["云月", "雨月"])])


def test_transforms_are_the_8_symmetries_of_the_square():
    images = set()
    for t in range(8):
        images.add((transform(t, 1, 0), transform(t, 0, 1)))
        assert transform_point(t, H8) == H8
    assert len(images) == 8
    assert transform(1, 1, 0) == (0, 1)  # a quarter turn anticlockwise takes right to up
    assert transform_point(4, parse_point("J7")) == parse_point("F7")  # left-right mirror
    assert point_name(parse_point("O15")) == "O15" and point_name((0, 0)) == "A1"


# ---- the opening procedure (002 第六条1) -----------------------------------------------------


def test_first_stone_off_tengen_is_refused():
    verdict, message = check_opening(parse_point("H9"))
    assert verdict == NOT_TENGEN
    assert message == "Black 1 must be on H8 (天元), not H9"
    assert identify(*_pts("H9 H10 I10")) == -1


def test_white_2_not_touching_black_1_is_not_one_of_the_26():
    verdict, message = check_opening(H8, parse_point("H10"))
    assert verdict == NOT_ADJACENT
    assert message.endswith("not one of the 26 openings, start the opening again")
    assert identify(*_pts("H8 J10 I9")) == -1


def test_black_3_outside_the_5x5_is_not_one_of_the_26():
    verdict, message = check_opening(H8, parse_point("H9"), parse_point("K8"))
    assert verdict == OUTSIDE_5X5
    assert "F6–J10" in message and "start the opening again" in message
    assert identify(*_pts("H8 H9 K8")) == -1


def test_stones_placed_so_far_and_misplaced_stones():
    assert check_opening(H8) == (OK, "")
    assert check_opening(H8, parse_point("I9")) == (OK, "")
    assert check_opening(H8, parse_point("I9"), parse_point("I7")) == (OK, "浦月 (Hogetsu), 斜指")
    assert check_opening(H8, H8)[0] == OCCUPIED
    assert check_opening(H8, parse_point("H9"), parse_point("H9"))[0] == OCCUPIED
    assert check_opening((15, 7))[0] == OFF_BOARD


# ---- the fifth move: N offers, 位置不同形 (002 第二条10) -----------------------------------


def test_two_mirror_image_offers_are_refused():
    # 寒星 with White 4 on H7: the position is its own mirror image in column H, so I7 and
    # G7 give the same shape; J8 does not (black triangle H8 H10 J8 has sides 2, 2, 2√2;
    # H8 H10 I7 has 2, √2, √10).
    black, white, m = _window(
        """
        . . . . . . .
        . . . X . . .
        . . . O . . .
        . . . X . c .
        . . b O a . .
        . . . . . . .
        . . . . . . .
        """
    )
    offers = [m["a"], m["b"], m["c"]]
    assert position_symmetries(black, white) == [4]
    assert offer_groups(black, white, offers) == [[0, 1], [2]]
    assert offer_clashes(black, white, offers) == [[0, 1]]
    assert relation(black, white, m["a"], m["b"]) == 4
    verdict, message = check_offers(black, white, offers[:2], 2)
    assert verdict == SAME_SHAPE
    assert message == "I7 and G7 are the same shape (mirror images): choose another"


def test_distinct_offers_are_accepted():
    black, white, m = _window(
        """
        . . . . . . .
        . . . X . . .
        . . . O . . .
        . . . X . c .
        . . . O a . .
        . . . . . . .
        . . . . . . .
        """
    )
    assert check_offers(black, white, [m["a"], m["c"]], 2) == (OK, "")
    assert offer_clashes(black, white, [m["a"], m["c"]]) == []


def test_a_position_without_symmetry_accepts_any_offers():
    # 花月 with White 4 on I7: blacks H8 I9 a diagonal pair, whites H9 I7 a knight's move apart.
    # Only four symmetries keep the black pair (identity, the half turn about its middle, the
    # mirror along it, the mirror across its middle) and none of the last three keeps the
    # whites. Offering all 221 empty points finds no two of the same shape.
    black, white, m = _window(
        """
        . . . . . . .
        . . . . . . .
        . . . O X . .
        . . . X . . .
        . . . . O . .
        . . . . . . .
        . . . . . . .
        """
    )
    assert position_symmetries(black, white) == []
    taken = black + white
    offers = [(x, y) for x in range(15) for y in range(15) if (x, y) not in taken]
    assert len(offers) == 221
    assert offer_clashes(black, white, offers) == []
    assert check_offers(black, white, offers[:10], 10) == (OK, "")


def test_a_half_turn_symmetry_pairs_offers_across_its_centre():
    # 残月 with White 4 on J8: Black H8 J9, White H9 J8 turn into themselves by a half turn
    # about the middle of the four (between I8 and I9); no mirror keeps them (a mirror would
    # swap a black and a white stone). G7 and K10 are then one shape turned 180°.
    black, white, m = _window(
        """
        . . . . . . b
        . . . . . . .
        . . . O . X .
        . . . X . O .
        . . a . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    offers = [m["a"], m["b"]]
    assert point_name(m["a"]) == "G7" and point_name(m["b"]) == "K11"
    assert position_symmetries(black, white) == [2]
    k10 = parse_point("K10")
    assert offer_clashes(black, white, [m["a"], k10]) == [[0, 1]]
    assert RELATIONS[relation(black, white, m["a"], k10)] == "rotated 180°"
    verdict, message = check_offers(black, white, [m["a"], k10], 2)
    assert message == "G7 and K10 are the same shape (rotated 180°): choose another"
    assert verdict == SAME_SHAPE
    assert offer_clashes(black, white, offers) == []  # K11 is not G7's partner
    # The board itself cannot turn about I8½: with shift=False the two are different.
    assert position_symmetries(black, white, shift=False) == []
    assert offer_clashes(black, white, [m["a"], k10], shift=False) == []


def test_a_quarter_turn_symmetry_groups_four_offers():
    # A pinwheel of black stones around H8: a plus sign (H9 G8 I8 H7) with arms I10 F9 G6 J7,
    # each a quarter turn of the last. Quarter turns keep it; a mirror would turn the arms
    # the other way. I11 (one right, three up) turns into E9, G5 and K7: one group of four.
    black, white, m = _window(
        """
        . . . e a . .
        . . . . X . .
        b X . X . . .
        . . X . X . .
        . . . X . X d
        . . X . . . .
        . . c . . . .
        """
    )
    assert white == []
    assert sorted(position_symmetries(black, white)) == [1, 2, 3]
    offers = [m["a"], m["b"], m["c"], m["d"], m["e"]]
    assert [point_name(p) for p in offers] == ["I11", "E9", "G5", "K7", "H11"]
    assert offer_groups(black, white, offers) == [[0, 1, 2, 3], [4]]
    # I11 to E9 is a quarter turn anticlockwise (right-up becomes up-left), no mirror.
    assert relation(black, white, m["a"], m["b"]) == 1
    verdict, message = check_offers(black, white, offers)
    assert verdict == SAME_SHAPE
    assert message == "I11, E9, G5 and K7 are the same shape (rotated 90°): choose another"


def test_offers_must_be_on_empty_points_and_as_many_as_announced():
    black = _pts("H8 I9")
    white = _pts("H9 J7")
    assert check_offers(black, white, _pts("G7 I9"), 2) == (OCCUPIED, "I9 is not an empty point")
    assert check_offers(black, white, _pts("G7 G7"), 2) == (OCCUPIED, "G7 is offered twice")
    assert check_offers(black, white, [(15, 3)], 1)[0] == OFF_BOARD
    verdict, message = check_offers(black, white, _pts("G7"), 2)
    assert verdict == OFFER_COUNT
    assert message == "Black must offer 2 stones for move 5 (五手2打), not 1"
    assert check_offers(black, white, [], 0)[0] == OFFER_COUNT
    assert check_offers(black, white, _pts("G7"))[0] == OK  # still placing: no count yet


def test_colours_are_kept():
    # 寒星 + White 4 on H7 is a column H7 O, H8 X, H9 O, H10 X. Without colours it would be
    # its own mirror in the line between rows 8 and 9, which takes J7 to J10; with colours that
    # mirror swaps black and white, so J7 and J10 are different offers.
    black = _pts("H8 H10")
    white = _pts("H9 H7")
    offers = _pts("J7 J10")
    assert offer_clashes(black, white, offers) == []
    assert offer_clashes(black + white, [], offers) == [[0, 1]]  # all four black: one shape
    # Offered as white stones the mirror in column H still pairs I7 with G7.
    assert offer_clashes(black, white, _pts("I7 G7"), WHITE) == [[0, 1]]
