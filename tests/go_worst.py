"""Built worst cases of the Go rules, shared by the tests and ``bench/bench_go.py``.

- ``comb_snake(bands)``: a 19x19 position where one black group winds through the board like
  a comb, up and down through ten teeth per band, with exactly two liberties, one at each end.
  Finding a liberty of it, or capturing it, takes the flood fill through every tooth, and
  every tooth turns the fill's direction.
- ``long_game()``: a game of ``LONG_PLIES`` (1,024) plies, legal under the default rules:
  walls, then four rounds in which Black fills the bottom of the board and White the top,
  and each side takes the other's 112 stones; then a ko fought over by passing until the
  history is full. The ko's retakes recreate earlier positions (reported under the chinese
  rule, refused under superko); the big captures' positions are all new, so they scan the
  whole history.
"""

EMPTY = 0
BLACK = 1
WHITE = 2
N = 19
LONG_PLIES = 1024
# The ko of long_game(), in the middle band: Black's stone at KO_B is taken at KO_W.
KO_B = (10, 9)
KO_W = (9, 9)


def comb_snake(bands=2):
    """``(grid, first, last)``: ``grid[y][x]`` of the position, the snake's two liberties.

    Each band of teeth has a white corridor below and above it that holds White's fingers
    between the teeth and has empty points of its own (White's liberties): one band fills the
    board's height with the longest teeth, two or three turn the snake more often. The snake
    starts at the bottom of column A, ends at the last band's far tooth.
    """
    h = (N - 4 - 3 * (bands - 1)) // bands  # rows per tooth
    g = [[WHITE] * N for _ in range(N)]
    g[0] = [EMPTY] * N
    g[N - 1] = [EMPTY] * N
    lows = [2 + b * (h + 3) for b in range(bands)]
    for b in range(1, bands):
        g[lows[b] - 2] = [EMPTY] * N  # White's liberties between two bands
    for b in range(bands):
        lo = lows[b]
        hi = lo + h - 1
        cols = [2 * t for t in range(10)]
        if b % 2:
            cols.reverse()
        for x in cols:
            for y in range(lo, hi + 1):
                g[y][x] = BLACK
        for k in range(9):  # teeth joined at the top, the bottom, the top ...
            g[hi if k % 2 == 0 else lo][(cols[k] + cols[k + 1]) // 2] = BLACK
        if b + 1 < bands:  # up to the next band at this band's last tooth
            x = cols[9]
            for y in range(hi + 1, lows[b + 1]):
                g[y][x] = BLACK
            g[hi + 2][x - 1 if x else 1] = WHITE  # else an empty point there is a liberty
    first = (0, 1)
    last = (0 if bands % 2 == 0 else N - 1, lows[bands - 1] - 1)
    for x, y in (first, last):
        g[y][x] = EMPTY
    return g, first, last


def set_up(game, grid):
    """Put the stones of ``grid`` on ``game``'s empty board as setup stones."""
    for y in range(len(grid)):
        for x in range(len(grid)):
            if grid[y][x]:
                game.setup(grid[y][x], x, y)


def _fill_order(pair, pair_before):
    # The points of the bottom region (rows 0-5) in the order Black fills them: first the
    # liberties of White's pair left there by the last round (the last of them takes it),
    # then the rest, all but this round's pair of empty points.
    first = []
    if pair_before is not None:
        a = pair_before
        for p in ((a - 1, 0), (a + 2, 0), (a, 1), (a + 1, 1)):
            if 0 <= p[0] < N:
                first.append(p)
    skip = set(first) | {(pair, 0), (pair + 1, 0)}
    rest = [(x, y) for y in range(6) for x in range(N) if (x, y) not in skip]
    return first + rest


def long_game():
    """The moves ``[(colour, x, y)]`` of the long game (x None: a pass); see the module."""
    moves = []
    for x in range(N):  # Black's wall on row 13, White's on row 7: they live on the middle
        moves.append((BLACK, x, 12))
        moves.append((WHITE, x, 6))
    before = None
    for pair in (0, 4, 8, 12):  # four rounds, each leaving its pair of points elsewhere
        order = _fill_order(pair, before)
        for x, y in order:  # Black fills the bottom, White the top, mirrored
            moves.append((BLACK, x, y))
            moves.append((WHITE, x, N - 1 - y))
        moves.append((WHITE, pair, 0))  # atari on Black's 112 stones ...
        moves.append((BLACK, pair, N - 1))  # ... and on White's
        moves.append((WHITE, pair + 1, 0))  # White takes 112
        moves.append((BLACK, pair + 1, N - 1))  # Black takes 112
        before = pair
    # A ko in the middle band: Black's stone at KO_B, White's at KO_W taking it, then the
    # two retake in turn, each after a pass by both (the ko threat that is no threat).
    (bx, by), (wx, wy) = KO_B, KO_W
    shape = (
        (BLACK, wx - 1, wy), (WHITE, bx + 1, by), (BLACK, wx, wy - 1), (WHITE, bx, by - 1),
        (BLACK, wx, wy + 1), (WHITE, bx, by + 1), (BLACK, bx, by), (WHITE, wx, wy),
    )  # fmt: skip
    moves.extend(shape)
    c = BLACK  # to move, after White's take
    while len(moves) < LONG_PLIES:
        moves.append((c, None, None))
        if len(moves) < LONG_PLIES:
            moves.append((3 - c, None, None))
        if len(moves) < LONG_PLIES:
            moves.append((c,) + (KO_B if c == BLACK else KO_W))
            c = 3 - c
    return moves
