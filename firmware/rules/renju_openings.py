"""The 26 designated Renju openings (指定开局, seed 002 第三条) and the fifth-move offers (五手N打).

Designated opening: Black 1 on 天元 (H8), White 2 touching it — diagonally (斜指, 13 openings)
or straight (直指, 13) — and Black 3 inside the central 5×5 (F6–J10). Up to the symmetries of
the square, which keep H8 and may move White 2 to any of its 8 neighbours, those rules allow
exactly 26 positions, the named openings. ``OPENINGS`` lists them in the order of 002 第三条
with White 2 in one canonical place: I9 (up-right) for 斜指, H9 (up) for 直指, as Japanese
diagrams draw them. Start reading at ``identify`` and ``check_opening``; the fifth-move rule
is ``offer_groups`` / ``check_offers``.

Where Black 3 stands in each opening (002 names them, its figures are missing). Sources:
- https://en.wikipedia.org/wiki/Renju_opening_pattern — the 13+13 patterns numbered 1I–13I,
  1D–13D, the names by number in the order of 002 (the positions are only in its figures).
- http://i-alpha.com/renju/shukei.htm and http://odoke.moto-nari.com/index4.html — White 2
  above (直接) or up-right (間接) of 天元; the old naming rule: Black 3 a knight's move (桂) or
  adjacent (連) to Black 1 gives a 月 name, one point apart (間) a 星 name. Every entry below
  obeys it.
- http://www4.tokai.or.jp/hamamatsurenju/renju5.htm — 渓月 and 峡月 are the same shape in a
  different relation to the board edge (true of the entries below).
- https://github.com/AbstractPlay/gameslib (src/games/renju.ts, ``canonicalOpenings``): the
  26 positions h8,h9,h10 … h8,i9,f6 in the numbered order; two further open-source tables
  (a JavaScript renju board and a Python tournament script) give name → Black 3 explicitly,
  and all agree with the table here.
English names are literal translations of the Chinese, not official terms.

Fifth move (五手N打, 002 第二条10): Black offers N stones "位置不同形", no two giving the same
shape; White keeps one as Black 5. Two offers clash when the two five-stone positions (colours
kept) are congruent under rotation and reflection, and by default also translation — as the
PyPI package ``renju`` decides it (``RenjuBoard.find_symmetric_candidates``; checked against
it in tests/host/test_renju_symmetry_reference.py). After any opening and any fourth stone
this pairs exactly the offers that a symmetry of the four stones (a turn or mirror of the
plane, about any centre) maps onto each other. ``shift=False`` keeps to the 8 symmetries of
the board about 天元, which see the edges (渓月 and 峡月 are then different shapes) and pair
fewer offers: 残月 + White J8 turns into itself about I8½, which the board cannot do.

Points are ``(x, y)``: x = 0 is column A, y = 0 is row 1; columns A–O skip no letter.
"""

from micropython import const

from firmware.rules.coords import GOMOKU_COLUMNS, parse_vertex, vertex

BLACK = const(1)
WHITE = const(2)

DIAGONAL = const(0)  # 斜指: White 2 diagonally next to Black 1
DIRECT = const(1)  # 直指: White 2 straight next to Black 1

# Verdicts of check_opening and check_offers; 0 means the stones are in order.
OK = const(0)
NOT_TENGEN = const(1)  # 002 第六条1(1): the first stone is moved to 天元
NOT_ADJACENT = const(2)  # 002 第六条1(2): not one of the 26 openings, start again
OUTSIDE_5X5 = const(3)  # 002 第六条1(2)
OFF_BOARD = const(4)
OCCUPIED = const(5)
OFFER_COUNT = const(6)  # 002 第六条1(3): the announced number of offers must be given
SAME_SHAPE = const(7)  # 002 第二条10: 位置不同形

# (Chinese name, Japanese name romanised, English, White 2 offset, Black 3 offset) from
# Black 1 (天元), in the order of 002 第三条; the first 13 are 斜指, the others 直指.
OPENINGS = (
    ("长星", "Chosei", "Long Star", (1, 1), (2, 2)),  # J10
    ("峡月", "Kyogetsu", "Gorge Moon", (1, 1), (2, 1)),  # J9
    ("恒星", "Kosei", "Fixed Star", (1, 1), (2, 0)),  # J8
    ("水月", "Suigetsu", "Water Moon", (1, 1), (2, -1)),  # J7
    ("流星", "Ryusei", "Shooting Star", (1, 1), (2, -2)),  # J6
    ("云月", "Ungetsu", "Cloud Moon", (1, 1), (1, 0)),  # I8
    ("浦月", "Hogetsu", "Bay Moon", (1, 1), (1, -1)),  # I7
    ("岚月", "Rangetsu", "Storm Moon", (1, 1), (1, -2)),  # I6
    ("银月", "Gingetsu", "Silver Moon", (1, 1), (0, -1)),  # H7
    ("明星", "Myojo", "Morning Star", (1, 1), (0, -2)),  # H6
    ("斜月", "Shagetsu", "Slanting Moon", (1, 1), (-1, -1)),  # G7
    ("名月", "Meigetsu", "Harvest Moon", (1, 1), (-1, -2)),  # G6
    ("彗星", "Suisei", "Comet", (1, 1), (-2, -2)),  # F6
    ("寒星", "Kansei", "Cold Star", (0, 1), (0, 2)),  # H10
    ("溪月", "Keigetsu", "Stream Moon", (0, 1), (1, 2)),  # I10
    ("疏星", "Sosei", "Sparse Star", (0, 1), (2, 2)),  # J10
    ("花月", "Kagetsu", "Flower Moon", (0, 1), (1, 1)),  # I9
    ("残月", "Zangetsu", "Waning Moon", (0, 1), (2, 1)),  # J9
    ("雨月", "Ugetsu", "Rain Moon", (0, 1), (1, 0)),  # I8
    ("金星", "Kinsei", "Golden Star", (0, 1), (2, 0)),  # J8
    ("松月", "Shogetsu", "Pine Moon", (0, 1), (0, -1)),  # H7
    ("丘月", "Kyugetsu", "Hill Moon", (0, 1), (1, -1)),  # I7
    ("新月", "Shingetsu", "New Moon", (0, 1), (2, -1)),  # J7
    ("瑞星", "Zuisei", "Lucky Star", (0, 1), (0, -2)),  # H6
    ("山月", "Sangetsu", "Mountain Moon", (0, 1), (1, -2)),  # I6
    ("游星", "Yusei", "Wandering Star", (0, 1), (2, -2)),  # J6
)
COUNT = const(26)

# The 8 symmetries of the square as matrices (a, b, c, d): (dx, dy) -> (a dx + b dy, c dx + d dy).
TRANSFORMS = (
    (1, 0, 0, 1),  # 0 identity
    (0, -1, 1, 0),  # 1 rotation 90° anticlockwise
    (-1, 0, 0, -1),  # 2 rotation 180°
    (0, 1, -1, 0),  # 3 rotation 90° clockwise
    (-1, 0, 0, 1),  # 4 mirror left-right
    (1, 0, 0, -1),  # 5 mirror top-bottom
    (0, 1, 1, 0),  # 6 mirror in the diagonal A1–O15
    (0, -1, -1, 0),  # 7 mirror in the diagonal A15–O1
)
# How the UI words the relation of two clashing offers, by transform.
RELATIONS = (
    "shifted",
    "rotated 90°",
    "rotated 180°",
    "rotated 90°",
    "mirror images",
    "mirror images",
    "mirror images",
    "mirror images",
)
# The order in which a relation is looked for: the plainest wording first.
_PREFERRED = (0, 4, 5, 6, 7, 2, 1, 3)


def transform(t, dx, dy):
    """Offset ``(dx, dy)`` under symmetry ``t`` (0–7, see ``TRANSFORMS``)."""
    a, b, c, d = TRANSFORMS[t]
    return (a * dx + b * dy, c * dx + d * dy)


def transform_point(t, p, size=15):
    """Point ``p`` under symmetry ``t`` of the board about its centre (天元 on 15×15)."""
    m = size // 2
    dx, dy = transform(t, p[0] - m, p[1] - m)
    return (m + dx, m + dy)


def point_name(p):
    """``(7, 7)`` → ``"H8"``: column A–O, no letter skipped, row from 1 at the bottom."""
    x, y = p
    if 0 <= x < len(GOMOKU_COLUMNS) and y >= 0:
        return vertex(x, y, GOMOKU_COLUMNS)
    return "(%d, %d)" % (x, y)


def parse_point(text, size=15):
    """``"H8"`` → ``(7, 7)``; ValueError if it is not a point of the board."""
    p = parse_vertex(text, size, GOMOKU_COLUMNS)
    if p is None:
        raise ValueError("not a point: %r" % text)
    return p


def kind(index):
    """``DIAGONAL`` (斜指) or ``DIRECT`` (直指)."""
    return DIAGONAL if index < 13 else DIRECT


def name(index):
    """The opening's name as the UI shows it, e.g. ``"花月 (Kagetsu)"``."""
    o = OPENINGS[index]
    return "%s (%s)" % (o[0], o[1])


def opening_stones(index, orientation=0, size=15):
    """``(black1, white2, black3)`` of opening ``index`` turned by symmetry ``orientation``."""
    o = OPENINGS[index]
    m = size // 2
    w = transform(orientation, o[3][0], o[3][1])
    b = transform(orientation, o[4][0], o[4][1])
    return ((m, m), (m + w[0], m + w[1]), (m + b[0], m + b[1]))


def identify(b1, w2, b3, size=15):
    """Index (0–25) of the opening these three stones make, in any orientation, else -1."""
    m = size // 2
    if (b1[0], b1[1]) != (m, m):
        return -1
    w = (w2[0] - m, w2[1] - m)
    b = (b3[0] - m, b3[1] - m)
    for i in range(COUNT):
        o = OPENINGS[i]
        for t in range(8):
            if transform(t, o[3][0], o[3][1]) == w and transform(t, o[4][0], o[4][1]) == b:
                return i
    return -1


def _on_board(p, size):
    return 0 <= p[0] < size and 0 <= p[1] < size


def check_opening(b1, w2=None, b3=None, size=15):
    """``(verdict, message)`` on the opening stones placed so far (None: not yet placed).

    The verdicts follow 002 第六条1: a first stone off 天元 is moved there (``NOT_TENGEN``);
    stones that cannot make one of the 26 openings mean the opening is started again
    (``NOT_ADJACENT``, ``OUTSIDE_5X5``). With all three in order the message names the opening.
    """
    m = size // 2
    stones = (("Black 1", b1), ("White 2", w2), ("Black 3", b3))
    for i in range(3):
        label, p = stones[i]
        if p is None:
            continue
        if not _on_board(p, size):
            return OFF_BOARD, "%s is off the board" % label
        for j in range(i):
            if stones[j][1] is not None and tuple(stones[j][1]) == tuple(p):
                return OCCUPIED, "%s is on %s's point" % (label, stones[j][0])
    centre = point_name((m, m))
    if tuple(b1) != (m, m):
        return NOT_TENGEN, "Black 1 must be on %s (天元), not %s" % (centre, point_name(b1))
    again = ": not one of the 26 openings, start the opening again"
    if w2 is not None and max(abs(w2[0] - m), abs(w2[1] - m)) != 1:
        return NOT_ADJACENT, "White 2 must touch Black 1 (直指 or 斜指)" + again
    if b3 is not None and max(abs(b3[0] - m), abs(b3[1] - m)) > 2:
        low = point_name((m - 2, m - 2))
        high = point_name((m + 2, m + 2))
        return OUTSIDE_5X5, "Black 3 must be inside the central 5×5 (%s–%s)%s" % (low, high, again)
    if w2 is None or b3 is None:
        return OK, ""
    i = identify(b1, w2, b3, size)
    return OK, "%s, %s" % (name(i), "斜指" if kind(i) == DIAGONAL else "直指")


# ---- the fifth move: N offers, no two the same shape ----------------------------------------


def _key(stones, t, shift, m, out):
    # Fills ``out`` (a list as long as ``stones``) with the stones under symmetry t, sorted,
    # each as (x << 5 | y) << 2 | colour; with shift, moved so that the smallest x and y are 0,
    # so that congruent sets give equal keys. Allocates nothing: keys are compared as lists.
    a, b, c, d = TRANSFORMS[t]
    ox = oy = -m
    if shift:
        ox = oy = 1 << 20
        for s in stones:
            dx = s[0] - m
            dy = s[1] - m
            x = a * dx + b * dy
            y = c * dx + d * dy
            if x < ox:
                ox = x
            if y < oy:
                oy = y
    for i in range(len(stones)):
        s = stones[i]
        dx = s[0] - m
        dy = s[1] - m
        out[i] = ((a * dx + b * dy - ox) << 5 | (c * dx + d * dy - oy)) << 2 | s[2]
    out.sort()
    return out


def _position(black, white):
    stones = [(p[0], p[1], BLACK) for p in black]
    for p in white:
        stones.append((p[0], p[1], WHITE))
    return stones


def shape_key(stones, t=0, shift=True, size=15):
    """The key of ``(x, y, colour)`` stones under symmetry ``t``, as a tuple.

    Two sets are congruent (by ``t``) exactly when ``shape_key(a, t) == shape_key(b)``; the
    smallest key over the 8 symmetries names the shape.
    """
    return tuple(_key(stones, t, shift, size // 2, [0] * len(stones)))


def position_symmetries(black, white, shift=True, size=15):
    """The symmetries ``t`` (1–7) that map the position onto itself: ``[]`` if it has none."""
    m = size // 2
    stones = _position(black, white)
    k = _key(stones, 0, shift, m, [0] * len(stones))
    buf = [0] * len(stones)
    return [t for t in range(1, 8) if _key(stones, t, shift, m, buf) == k]


def offer_groups(black, white, offers, colour=BLACK, shift=True, size=15):
    """The offers grouped by shape: lists of indices into ``offers``, in order of first offer.

    Offers ``i`` and ``j`` share a group when the position (``black``, ``white`` stones) plus a
    ``colour`` stone on ``offers[i]`` is congruent to the position plus one on ``offers[j]``.
    """
    # Every buffer is sized up front: the board's heap does not move blocks, and lists grown
    # one item at a time among live keys fragment it (221 offers failed in 200 kB that way).
    m = size // 2
    n = len(offers)
    stones = _position(black, white)
    stones.append(None)
    k = len(stones)
    cur = [0] * k
    best = [0] * k
    shapes = [None] * n  # the key of each distinct shape so far (N is small: no dict)
    group = bytearray(n) if n < 256 else [0] * n
    count = 0
    for i in range(n):
        p = offers[i]
        stones[-1] = (p[0], p[1], colour)
        _key(stones, 0, shift, m, best)
        for t in range(1, 8):
            if _key(stones, t, shift, m, cur) < best:
                cur, best = best, cur
        g = 0
        while g < count and shapes[g] != best:
            g += 1
        if g == count:
            shapes[g] = best
            best = [0] * k
            count += 1
        group[i] = g
    groups = [[] for _ in range(count)]
    for i in range(n):
        groups[group[i]].append(i)
    return groups


def offer_clashes(black, white, offers, colour=BLACK, shift=True, size=15):
    """The groups of ``offer_groups`` with two or more offers: ``[]`` when all are fine."""
    return [g for g in offer_groups(black, white, offers, colour, shift, size) if len(g) > 1]


def relation(black, white, p, q, colour=BLACK, shift=True, size=15):
    """A symmetry ``t`` taking the position plus ``p`` onto the position plus ``q``, else -1.

    Looked for in the order of ``_PREFERRED`` so that ``RELATIONS[t]`` words it plainly.
    """
    m = size // 2
    stones = _position(black, white)
    stones.append((q[0], q[1], colour))
    target = _key(stones, 0, shift, m, [0] * len(stones))
    stones[-1] = (p[0], p[1], colour)
    buf = [0] * len(stones)
    for t in _PREFERRED:
        if _key(stones, t, shift, m, buf) == target:
            return t
    return -1


def check_offers(black, white, offers, n=None, colour=BLACK, shift=True, size=15):
    """``(verdict, message)`` on the fifth-move offers placed so far.

    ``n`` is the announced number (None while Black is still placing them). Checked in turn:
    each offer on an empty point of the board, then the count, then 位置不同形 (002 第二条10).
    """
    taken = _position(black, white)
    for i in range(len(offers)):
        p = offers[i]
        if not _on_board(p, size):
            return OFF_BOARD, "%s is off the board" % point_name(p)
        for s in taken:
            if s[0] == p[0] and s[1] == p[1]:
                return OCCUPIED, "%s is not an empty point" % point_name(p)
        for j in range(i):
            if tuple(offers[j]) == tuple(p):
                return OCCUPIED, "%s is offered twice" % point_name(p)
    if n is not None:
        if n < 1:
            return OFFER_COUNT, "the number of fifth-move offers (五手N打) must be at least 1"
        if len(offers) != n:
            return OFFER_COUNT, "Black must offer %d stones for move 5 (五手%d打), not %d" % (
                n,
                n,
                len(offers),
            )
    clashes = offer_clashes(black, white, offers, colour, shift, size)
    if not clashes:
        return OK, ""
    g = clashes[0]
    names = [point_name(offers[i]) for i in g]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    t = relation(black, white, offers[g[0]], offers[g[1]], colour, shift, size)
    return SAME_SHAPE, "%s are the same shape (%s): choose another" % (listed, RELATIONS[t])
