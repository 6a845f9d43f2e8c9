"""The Go rules on their built worst cases (``tests/go_worst.py``): a 1,024-ply game of big
captures and ko retakes, the history's room running out, and the comb-shaped snake."""

import gc

import micropython

from firmware.rules.bitboard import flood, new_array, scratch
from firmware.rules.go import KO_CHINESE, KO_POSITIONAL, KO_SITUATIONAL, Game
from firmware.rules.go_board import BLACK, FULL, KO, OK, REASONS, SUPERKO, WHITE
from tests.go_worst import KO_B, KO_W, LONG_PLIES, comb_snake, long_game, set_up
from tests.support import IS_MICROPYTHON, Rng, locked, skip


def _state(game):
    b = game.board
    return (
        bytes(b.rows),
        b.hash(),
        b.ko,
        b.stones,
        b.nlog,
        tuple(game.captures),
        game.ply,
        game.to_move,
        game.passes,
    )


def _encoded(moves):
    # The moves as one array of colour << 10 | y << 5 | x (1023: a pass), so that a loop over
    # them allocates nothing itself.
    out = new_array("H", len(moves))
    for i in range(len(moves)):
        c, x, y = moves[i]
        out[i] = (c << 10) | (1023 if x is None else (y << 5) | x)
    return out


def test_the_long_game_is_legal_and_as_long_as_the_history():
    moves = long_game()
    assert len(moves) == LONG_PLIES
    game = Game(19)
    assert game.capacity == LONG_PLIES
    for c, x, y in moves:
        assert game.play(c, x, y) == OK
    # Four rounds: each side takes 112 stones, and from the second on first the other's pair
    # of two; then the ko: White's take and 22 retakes, 11 by each side.
    assert tuple(game.captures) == (0, 4 * 112 + 3 * 2 + 11, 4 * 112 + 3 * 2 + 12)


def test_the_long_game_allocates_nothing():
    game = Game(19)
    moves = _encoded(long_game())
    hist = game.hist
    log = game.board.log
    gc.collect()
    if hasattr(micropython, "mem_total"):
        before = micropython.mem_total()
    # Inline, not through a helper: a helper's own frame would be counted too.
    for i in range(len(moves)):
        m = moves[i]
        p = m & 1023
        if p == 1023:
            game.play(m >> 10, None, None)
        else:
            game.play(m >> 10, p & 31, p >> 5)
    if hasattr(micropython, "mem_total"):
        assert micropython.mem_total() - before == 0
    assert game.ply == LONG_PLIES
    # On either runtime: the history and the removal log are the arrays made with the game.
    assert game.hist is hist and game.board.log is log
    assert len(game.hist) == 3 * (LONG_PLIES + 1)

    def undo_all():
        while game.undo():
            pass

    assert locked(undo_all) is None
    assert game.ply == 0 and game.board.stones == 0

    def replay():
        for i in range(len(moves)):
            m = moves[i]
            p = m & 1023
            if p == 1023:
                game.play(m >> 10, None, None)
            else:
                game.play(m >> 10, p & 31, p >> 5)

    assert locked(replay) is None
    assert game.ply == LONG_PLIES


def test_the_long_game_repeats_undoes_and_judges_like_a_plain_reference():
    # The reference: the board's rows as bytes, the latest ply each position stood at, with
    # and without the side to move. Every move is also asked under the two superko rules.
    gc.collect()
    moves = long_game()
    game = Game(19)
    latest = {bytes(game.board.rows): 0}
    latest_to_move = {bytes(game.board.rows) + bytes((BLACK,)): 0}
    states = [_state(game)]
    repeats = 0
    for c, x, y in moves:
        if x is not None:
            before = _state(game)
            assert game.play(c, x, y) == OK  # under chinese, to see the position it makes
            rows = bytes(game.board.rows)
            game.undo()
            for rule, table, key in (
                (KO_POSITIONAL, latest, rows),
                (KO_SITUATIONAL, latest_to_move, rows + bytes((3 - c,))),
            ):
                game.set_ko_rule(rule)
                assert game.legal(c, x, y) == (SUPERKO if key in table else OK), (game.ply, rule)
                assert _state(game) == before
            game.set_ko_rule(KO_CHINESE)
        assert game.play(c, x, y) == OK
        rows = bytes(game.board.rows)
        assert game.repeat == (-1 if x is None else latest.get(rows, -1))
        repeats += game.repeat >= 0
        latest[rows] = game.ply
        latest_to_move[rows + bytes((game.to_move,))] = game.ply
        states.append(_state(game))
    assert repeats == 22  # the ko's retakes, each after two passes
    # Past the room: refused, a pass too, and nothing changes.
    full = _state(game)
    assert game.play(BLACK, 3, 9) == FULL
    assert game.play(BLACK, None, None) == FULL
    assert game.legal(WHITE, 3, 9) == FULL
    assert _state(game) == full
    assert REASONS[FULL] == "history full"
    while game.ply:
        assert game.undo()
        assert _state(game) == states[game.ply]
    assert not game.undo()


def test_undo_makes_room_again():
    game = Game(9, capacity=4)
    for c, x, y in ((BLACK, 2, 2), (WHITE, 6, 6), (BLACK, None, None), (WHITE, 6, 2)):
        assert game.play(c, x, y) == OK
    assert game.play(BLACK, 2, 6) == FULL
    assert game.undo()
    assert game.play(WHITE, 2, 6) == OK
    assert game.move(3) == (WHITE, 2, 6)


def test_the_ko_of_the_long_game_is_refused_at_once_and_allowed_after_two_passes():
    moves = long_game()
    game = Game(19)
    k = moves.index((WHITE,) + KO_W)  # White's first take
    for c, x, y in moves[: k + 1]:
        assert game.play(c, x, y) == OK
    assert game.legal(BLACK, *KO_B) == KO  # the immediate retake
    game.play(BLACK, None, None)
    game.play(WHITE, None, None)
    assert game.play(BLACK, *KO_B) == OK
    assert game.repeat == k  # the position after Black's stone went down, before the take
    assert game.undo()
    assert game.legal(BLACK, *KO_B) == OK  # undo brought the passes' lifted ban back


def test_the_comb_snakes_verdicts():
    for bands, stones in ((1, 159), (2, 141), (3, 123)):
        grid, first, last = comb_snake(bands)
        game = Game(19)
        set_up(game, grid)
        black = sum([row.count(BLACK) for row in grid])
        assert black == stones
        start = _state(game)
        assert game.legal(WHITE, *first) == OK
        assert _state(game) == start
        assert game.play(WHITE, *first) == OK
        assert game.captures[WHITE] == 0 and game.board.stones == start[3] + 1
        assert game.legal(BLACK, *last) == OK  # Black may still run out to the first line
        atari = _state(game)
        assert game.legal(WHITE, *last) == OK
        assert _state(game) == atari
        assert game.play(WHITE, *last) == OK  # the whole snake
        assert game.captures[WHITE] == stones
        assert game.board.stones == start[3] + 2 - stones
        for y in range(19):
            assert game.board.rows[y] == 0, (bands, y)  # no black stone left
        assert game.undo()
        assert _state(game) == atari
        assert game.undo()
        assert _state(game) == start


def test_the_comb_snake_allocates_nothing():
    grid, first, last = comb_snake(2)
    game = Game(19)
    set_up(game, grid)
    results = bytearray(4)

    def fight():
        results[0] = game.legal(WHITE, first[0], first[1])
        results[1] = game.play(WHITE, first[0], first[1])
        results[2] = game.legal(WHITE, last[0], last[1])
        results[3] = game.play(WHITE, last[0], last[1])
        game.undo()
        game.undo()

    fight()  # warm up: first calls may create cached objects
    assert locked(fight) is None
    assert bytes(results) == bytes(4)
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    gc.collect()
    before = micropython.mem_total()
    game.legal(WHITE, first[0], first[1])
    game.play(WHITE, first[0], first[1])
    game.play(WHITE, last[0], last[1])
    game.undo()
    game.undo()
    assert micropython.mem_total() - before == 0


def _plain_fill(rows, off, n, x, y):
    # The region of layer ``off`` holding (x, y), and whether it touches an empty point.
    seen = {(x, y)}
    todo = [(x, y)]
    free = False
    while todo:
        a, b = todo.pop()
        for p, q in ((a - 1, b), (a + 1, b), (a, b - 1), (a, b + 1)):
            if 0 <= p < n and 0 <= q < n and (p, q) not in seen:
                if rows[off + q] >> p & 1:
                    seen.add((p, q))
                    todo.append((p, q))
                elif not (rows[q] | rows[n + q]) >> p & 1:
                    free = True
    region = [0] * n
    for a, b in seen:
        region[b] |= 1 << a
    return region, free


def test_flood_agrees_with_a_plain_fill_when_its_buffer_is_reused():
    # The flood skips rows no neighbour of which grew; its buffer carries the last call's span,
    # partial after a liberty was found: random boards, one buffer per size, both modes.
    rng = Rng(5)
    bufs = {}
    for trial in range(400 if IS_MICROPYTHON else 1500):
        n = (19, 9, 13)[trial % 3]
        rows = new_array("I", 3 * n)
        density = 30 + rng.below(70)
        for y in range(n):
            for x in range(n):
                v = rng.below(100)
                if v < density // 2:
                    rows[y] |= 1 << x
                elif v < density:
                    rows[n + y] |= 1 << x
        off = n * rng.below(2)
        points = [(x, y) for y in range(n) for x in range(n) if rows[off + y] >> x & 1]
        if not points:
            continue
        x, y = points[rng.below(len(points))]
        region, free = _plain_fill(rows, off, n, x, y)
        g = bufs.setdefault(n, scratch(n))
        assert flood(rows, off, n, g, x, y, 1) == (1 if free else 0), (trial, n, x, y)
        assert flood(rows, off, n, g, x, y, 0) == 0
        assert list(g[:n]) == region, (trial, n, x, y)
