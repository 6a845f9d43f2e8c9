"""The Renju board allocates nothing to judge a move: proven on MicroPython with ``heap_lock``
and ``mem_total``.

``forbidden()`` runs on every black move, recursively for double-threes (a three counts only if
its completion point is not forbidden itself), and ``lines()`` / ``has_five()`` on every move, so
none of them may feed the collector during play (DESIGN §2). The positions below are the nasty
ones: the recursive double-three, the deepest recursion the random cross-check with ``renju``
met (tests/host/test_renju_reference.py), double-fours, overlines. ``bench/bench_renju.py``
times them too. On CPython the lock is a stand-in that does nothing, so there these tests only
check the verdicts, which they do on both runtimes.
"""

import gc

import micropython

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
from tests.support import locked, skip

# (name, diagram, kind of the point marked *). A diagram is printed top row first; X black,
# O white, . empty, * the empty point the position is about.
NASTY = (
    (
        "double-three",
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        DOUBLE_THREE,
    ),
    (
        # The row's X X . * is a three only if its gap may be played: with * down, the gap
        # makes a column of six, an overline, so that three is false and * is allowed.
        "false double-three (its gap is an overline)",
        """
        . . . . . . . . .
        . . . X . . . . .
        . . . X X . . . .
        . . . X X . . . .
        . X X . * . . . .
        . . . X . . . . .
        . . . X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        NOT_FORBIDDEN,
    ),
    (
        "double-four",
        """
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        . X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        DOUBLE_FOUR,
    ),
    (
        "double-four on one line",
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X . X X * . X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        DOUBLE_FOUR,
    ),
    (
        "overline",
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X X X * X X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        OVERLINE,
    ),
    (
        "a five with a double-four wins",
        """
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        X X X X * O . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        NOT_FORBIDDEN,
    ),
    (
        # Random position 1940 of the renju cross-check: judging H7 goes 10 calls deep (20
        # calls of the judge in all), the deepest of its 2,400 positions.
        "deepest recursion met",
        """
        . . X . . X . . . X . X . . .
        . . . . X X . . X . . O . . .
        . . . . . X . O . . . X . . .
        . . . . . O . X . . . . . X .
        . . . . . . . . X . X . . X .
        . . . . X X . . . . X . . X .
        . . . X . X . . . . X . . X .
        . . X . . X X X X X X . . X .
        . . . . . X . * . . . . . X .
        X . . . . . . . . . . . . X .
        . . . . . . . X . . . . . . .
        . . . . . . . . . . . . . X X
        . . . . . . . . . X . X . . .
        . . . . X . . . . X . . X . .
        . . . . . . . X . X X . . X .
        """,
        DOUBLE_THREE,
    ),
    (
        # Built by a hill-climbing search for the deepest recursion at H8 (eight minutes of it,
        # on CPython): judging H8 nests the judge 19 calls deep.
        "deepest recursion searched for",
        """
        X . X X O . O . X X . X X . .
        X . O X . . . X . . X X . X O
        X . O . X . O . . . X . X . O
        . . X . . . . . . . . . X X .
        . X . . X X . X . X . X X X .
        X . . X . X . . . . . X X X .
        . . X X . . . . X X . . X . O
        O X . . . . . * X . . . O X .
        X . X . X . X . . . . . X X .
        X . X . O . . . . . . . O X X
        . O . O . . . . . X X . . . .
        . O X . . . X . . . . . X X .
        . X X X X X . X X X . X X X X
        X X X X . X . X X X . . O X .
        O . . . . . O . . O . . X X .
        """,
        DOUBLE_THREE,
    ),
    (
        # The same search for the most calls of the judge: 291 for H8, 17 deep.
        "most recursive calls searched for",
        """
        X X . . O . . X O . . X . . X
        . . X . X . . . X . X X . . O
        . O . X . X . . . . . . . X X
        X X . . . . X . X . . . X . .
        . . X X . . . . X . . X . . X
        . X X . X X X X X X X X X X .
        . X X . . . . . X X . . . O X
        O . . . X . . * . . X . . X .
        X . . X . . . X X . . . . . .
        X O . . . . X . . . . . X X X
        . . X . . X . . X . . X . . X
        X X X X X X X . X X . X O X .
        . X . . O X . X X . X . X . X
        . X . . X X . . . . X X . X X
        . X . O . . . . O . . X X X O
        """,
        NOT_FORBIDDEN,
    ),
    (
        # bench/bench_renju.py's search (seed 7, 208,470 tries) against the judge before bit
        # lines and the shallow first look: C7 took it 60 calls, 9 levels deep. A position
        # that can arise in a game: 55 stones each, no five or overline for either side.
        "most calls of the old judge searched for",
        """
        O O O . O O . . O X . O O O .
        O . . . . O O . . . O . O O X
        X . X . X . . X . . O O . X O
        O . O X X . . X . . X . . O O
        . O . . . . X . X O X X O . .
        . O O O . . X . X . . X O . O
        . . . . . X . . . X O O . X X
        . . X . . . . . . . . . X O O
        O X * . X X X . . . . . O X .
        . . X X . . . . X . X . O . .
        O X . X X . X X X O . . . O O
        . . . . X . X . . . O O O X X
        . X . . X . . X . . O X O X .
        O O X . X X O . X . X X O O .
        . . . O . . . . . O O . . O X
        """,
        DOUBLE_THREE,
    ),
    (
        # The same search against this judge (bench/bench_renju.py as make bench runs it:
        # seed 7, 6,000 tries): G2 takes 49 calls, 6 levels deep; 52 stones each.
        "most calls of this judge searched for",
        """
        . . . O . X O . X O X O . . .
        . . . O X . X X O . X O X . .
        . O . . X O O . . X O . . . .
        O . . X X O O . . . O . . . .
        X X X . O O . . . O . O . O O
        O . . . . . . . . . O . X O O
        O X . O . X X . O X . . . . .
        . X X . X . X . . . . . . . .
        . X . O . X . . X . . . . X O
        . . O . . X . X . . . X O X .
        X O . O . . X X . . . . . . O
        O . . X . . . . X X . O . . .
        O O . . . X X . . . . X O . O
        O . . X . X * . . . . O X . O
        O X X . . . . . . . . . O . .
        """,
        NOT_FORBIDDEN,
    ),
)

# The most calls of the judge any check of a NASTY position may take (see
# test_the_judge_stays_bounded_on_the_searched_positions): the searched-for worst takes 49.
MAX_CALLS = 56


def nasty(name):
    """The diagram of the NASTY position called ``name``."""
    for n, diagram, _ in NASTY:
        if n == name:
            return diagram
    raise KeyError(name)


def parse(diagram):
    """(size, [(x, y, colour)] of the stones, (x, y) of the ``*``) of a diagram."""
    rows = ["".join(line.split()) for line in diagram.split("\n")]
    rows = [r for r in rows if r]
    n = len(rows)
    stones = []
    mark = None
    for i, row in enumerate(rows):
        y = n - 1 - i
        for x, ch in enumerate(row):
            if ch == "X":
                stones.append((x, y, BLACK))
            elif ch == "O":
                stones.append((x, y, WHITE))
            elif ch == "*":
                mark = (x, y)
    return n, stones, mark


def setup(diagram):
    """(board, the marked point, [(x, y)] of the empty points, [(x, y, c)] of the stones)."""
    n, stones, mark = parse(diagram)
    board = GomokuBoard(n)
    for x, y, c in stones:
        board.put(c, x, y)
    empties = [(x, y) for y in range(n) for x in range(n) if not board.color_at(x, y)]
    return board, mark, empties, stones


def test_the_nasty_positions_are_what_they_say():
    for name, diagram, kind in NASTY:
        board, mark, _, _ = setup(diagram)
        assert board.forbidden(mark[0], mark[1]) == kind, name


def test_the_judge_stays_bounded_on_the_searched_positions():
    # Calls of the judge (each one look at a point's four lines), not time: every empty point
    # of every nasty position, the searched-for worst included. The judge before bit lines
    # and the shallow first look took 60 calls, 9 levels, for C7 of the old judge's worst.
    worst = {}
    for name, diagram, _ in NASTY:
        board, _, empties, _ = setup(diagram)
        most = (0, 0)
        for x, y in empties:
            board.forbidden(x, y)
            most = max(most, board.last_check())
        worst[name] = most
        assert most[0] <= MAX_CALLS, (name, most)
    assert worst["most calls of the old judge searched for"] == (44, 7), worst
    assert worst["most calls of this judge searched for"] == (49, 6), worst
    board, (x, y), _, _ = setup(nasty("most calls of the old judge searched for"))
    assert board.forbidden(x, y) == DOUBLE_THREE
    assert board.last_check() == (39, 6)


def test_forbidden_does_not_allocate():
    for name, diagram, kind in NASTY:
        board, mark, empties, _ = setup(diagram)
        board.forbidden(0, 0)  # warm up: the first call may create cached objects
        kinds = bytearray(len(empties))

        def judge(board=board, empties=empties, kinds=kinds):  # bound now, not at call
            k = 0
            for x, y in empties:
                kinds[k] = board.forbidden(x, y)
                k += 1

        assert locked(judge) is None, name
        assert kinds[empties.index(mark)] == kind, name


def test_lines_and_has_five_do_not_allocate():
    # A black five (row 5 once * is played, White closing it) and black overlines (F8-L8 and
    # N6-N12 in the deepest position): every stone of both looked at, with the heap locked.
    five, mark, _, stones5 = setup(nasty("a five with a double-four wins"))
    five.put(BLACK, mark[0], mark[1])
    stones5 = stones5 + [(mark[0], mark[1], BLACK)]
    six, _, _, stones6 = setup(nasty("deepest recursion met"))
    # Built out here, and few: building a tuple allocates, and so does calling a closure over
    # more than five variables (MicroPython's closure_call copies them to the heap then).
    boards = (five, six)
    stones = (stones5, stones6)
    seen = (bytearray(len(stones5)), bytearray(len(stones6)))
    fives = bytearray(8)
    five.lines(BLACK, 0, 0)  # warm up
    five.has_five(BLACK, True)

    def look():
        for i in range(2):
            board = boards[i]
            out = seen[i]
            k = 0
            for x, y, c in stones[i]:
                out[k] = board.lines(c, x, y)
                k += 1
            fives[4 * i] = board.has_five(BLACK, True)
            fives[4 * i + 1] = board.has_five(BLACK, False)
            fives[4 * i + 2] = board.has_five(WHITE, True)
            fives[4 * i + 3] = board.has_five(WHITE, False)

    assert locked(look) is None
    seen5, seen6 = list(seen[0]), list(seen[1])
    assert [seen5[stones5.index((x, 4, BLACK))] for x in range(5)] == [FIVE] * 5
    assert seen6[stones6.index((5, 7, BLACK))] == LONG
    assert seen5.count(FIVE) == 5 and LONG not in seen5
    assert seen6.count(LONG) == 6 + 7 and FIVE not in seen6
    # (black exact, black five or more, white exact, white five or more) on each board
    assert bytes(fives) == bytes((1, 1, 0, 0, 0, 1, 0, 0))


def test_judging_does_not_even_borrow_heap_memory():
    # heap_lock() alone is not enough: a locked heap makes MicroPython put a large bytecode
    # frame on the C stack instead, so a function that borrows its frame from the heap on
    # every call passes the lock test. mem_total() counts every byte ever allocated.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    for name, diagram, kind in NASTY:
        board, mark, empties, stones = setup(diagram)
        kinds = bytearray(len(empties))
        seen = bytearray(len(stones))
        board.forbidden(0, 0)
        board.lines(BLACK, 0, 0)
        expected = (board.has_five(BLACK, True), board.has_five(WHITE, False))
        gc.collect()
        before = micropython.mem_total()
        # Inline, not through a helper: a helper's own frame would be counted too.
        k = 0
        for x, y in empties:
            kinds[k] = board.forbidden(x, y)
            k += 1
        k = 0
        for x, y, c in stones:
            seen[k] = board.lines(c, x, y)
            k += 1
        black = board.has_five(BLACK, True)
        white = board.has_five(WHITE, False)
        used = micropython.mem_total() - before
        assert used == 0, (name, used)
        assert kinds[empties.index(mark)] == kind, name
        assert (black, white) == expected, name


# ---- the game (rules/gomoku.py): a move allocates nothing --------------------------------------


def _bytes(game, c, x, y):
    # (bytes through the allocator while ``game.play`` ran, its result); the legal() asked
    # first must allocate nothing either. Only the two calls are inside the counts.
    before = micropython.mem_total()
    asked = game.legal(c, x, y) if x is not None else 0
    used = micropython.mem_total() - before
    before = micropython.mem_total()
    r = game.play(c, x, y)
    used += micropython.mem_total() - before
    assert asked == r or asked == 0, (asked, r)
    return used, r


def _scripts():
    # (name, game, [(colour, x, y) ...]): every kind of move a game makes, each script from
    # its own position. A five, a foul in auto mode, and the end they bring; passes; a foul
    # in claim mode, its lapse, an overline kept claimable, a five kept for a claim.
    from firmware.rules.gomoku import CLAIM, STANDARD, Gomoku
    from tests.diagrams import gomoku_from, marked
    from tests.test_gomoku_rules import DOUBLE_THREE_AT_E6, ROW_OF_FOUR, ROW_OF_SIX, v

    free = [
        (BLACK if i % 2 == 0 else WHITE,) + v(m) for i, m in enumerate("H8 H9 I9 G8 J10".split())
    ]
    free += [(WHITE, None, None), (BLACK,) + v("K11"), (WHITE,) + v("A1")]
    free += [(BLACK, None, None), (WHITE,) + v("A2"), (BLACK,) + v("L12")]  # the five
    e6 = v("E6", 11)
    return (
        ("a game to a five, passes in it", Gomoku(), free),
        ("a double-three, auto", gomoku_from(DOUBLE_THREE_AT_E6), [(BLACK,) + e6]),
        ("an overline, auto", gomoku_from(ROW_OF_SIX), [(BLACK,) + marked(ROW_OF_FOUR)]),
        (
            "a double-three, claim mode, then White plays on",
            gomoku_from(DOUBLE_THREE_AT_E6, claims=CLAIM),
            [(BLACK,) + e6, (WHITE,) + v("K1", 11), (BLACK,) + v("A1", 11)],
        ),
        (
            "an overline, claim mode",
            gomoku_from(ROW_OF_SIX, claims=CLAIM),
            [(BLACK,) + marked(ROW_OF_FOUR), (WHITE, 0, 0), (BLACK, 8, 8)],
        ),
        (
            "a five, claim mode",
            gomoku_from(ROW_OF_FOUR, STANDARD, claims=CLAIM),
            [(BLACK,) + marked(ROW_OF_FOUR), (WHITE, 0, 0)],
        ),
    )


def test_a_move_of_the_game_allocates_nothing():
    # Gomoku.play and legal, after the game is made: ordinary stones, passes, a five, a
    # forbidden move in auto mode (the game ends) and in claim mode (kept for the claim, then
    # lapsed), the incidents they log; then claims and a draw offer. The result's words
    # (result_text) are made when asked, once a game.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    from firmware.rules.gomoku import DOUBLE_THREE, NOTHING_TO_CLAIM, OK, WIN_FIVE, WIN_FOUL

    scripts = _scripts()
    for name, game, moves in scripts:
        for c, x, y in moves:
            used, r = _bytes(game, c, x, y)
            assert r == OK, (name, c, x, y, r)
            assert used == 0, (name, c, x, y, used)
    games = [g for _, g, _ in scripts]
    # The claims that end the claim-mode games, a false one first, and a draw offer.
    for game, c, want in (
        (games[3], WHITE, NOTHING_TO_CLAIM),
        (games[4], WHITE, OK),
        (games[5], BLACK, OK),
    ):
        before = micropython.mem_total()
        r = game.claim(c)
        used = micropython.mem_total() - before
        assert (r, used) == (want, 0), game.incidents
    before = micropython.mem_total()
    r = games[3].offer_draw(BLACK)  # right after its own move: a regular offer
    assert (r, micropython.mem_total() - before) == (OK, 0)
    assert (games[0].winner, games[0].reason, games[0].ply) == (BLACK, WIN_FIVE, 11)
    assert (games[1].winner, games[1].reason, games[1].foul) == (WHITE, WIN_FOUL, DOUBLE_THREE)
    assert (games[2].winner, games[2].reason, games[2].foul) == (WHITE, WIN_FOUL, OVERLINE)
    kinds = [i[0] for i in games[3].incidents]
    assert kinds == ["foul", "lapsed", "false claim", "draw offer"] and not games[3].over()
    assert (games[4].winner, games[4].foul) == (WHITE, OVERLINE)
    assert (games[5].winner, games[5].reason) == (BLACK, WIN_FIVE)
    assert [i[0] for i in games[0].incidents] == ["pass", "pass"]


def test_a_move_of_the_game_runs_with_the_heap_locked():
    # The same scripts under heap_lock (a MemoryError would mean a move needs the heap); on
    # CPython the lock does nothing and this checks the verdicts only.
    from firmware.rules.gomoku import WIN_FIVE, WIN_FOUL

    scripts = _scripts()
    games = tuple(g for _, g, _ in scripts)
    moves = tuple(tuple(m) for _, _, m in scripts)
    results = bytearray(32)
    count = sum(len(m) for m in moves)

    @micropython.native  # as bytecode the script's own frame would be borrowed from the heap
    def script():
        k = 0
        for i in range(len(games)):
            g = games[i]
            for c, x, y in moves[i]:
                results[k] = g.play(c, x, y)
                k += 1

    assert locked(script) is None
    assert count == 21 and bytes(results) == bytes(32)  # every move OK
    assert (games[0].winner, games[0].reason) == (BLACK, WIN_FIVE)
    assert (games[2].winner, games[2].reason) == (WHITE, WIN_FOUL)
