"""The referee allocates nothing per frame (``see``) and per press (``press``): proven on
MicroPython with ``heap_lock`` and ``micropython.mem_total()``.

A collection pauses everything on the board, the clock included, and the referee runs in the
scan loop: its look at the board, the trial move of a capture, refusals and every incident it
logs go through buffers made once. On CPython the lock is a stand-in that does nothing and
there is no ``mem_total``: the same scripts run there and check what the referee decided.
"""

import micropython

from firmware.referee import incidents as inc
from firmware.referee.referee import ACCEPTED, REFUSED, Referee
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.gomoku import RENJU, Gomoku
from tests.support import locked, require_shared, skip
from tests.test_referee import KO, go, pt, seen

_KO_AFTER = KO.replace(". . X O . O . . .", ". . X . X O . . .")  # Black took at E5


def _allocated(fn):
    # Bytes through the allocator while fn runs; 0 where the runtime cannot tell (CPython).
    if not hasattr(micropython, "mem_total"):
        fn()
        return 0
    before = micropython.mem_total()
    fn()
    return micropython.mem_total() - before


def _with(state, i, v):
    # A copy of a seen board with point i set to v (made before the script runs).
    out = bytearray(state)
    out[i] = v
    return out


def _scripted():
    # A 9x9 game in which every kind of look and press the referee makes happens once: the
    # boards it will see, prepared; the script; the press results, in place.
    game, ref = go(KO)
    s = {"ko": seen(KO), "left": seen(KO.replace(". . X O . O", ". . X O X O"))}
    s["took"] = seen(_KO_AFTER)  # D5 lifted: the capture is off
    s["retake"] = seen(_KO_AFTER.replace(". . X . X O", ". . X O . O"))  # White at D5, E5 off
    took = s["took"]
    s["two"] = _with(_with(took, 0, WHITE), 80, WHITE)
    s["a9"] = _with(took, 72, BLACK)
    s["b9"] = _with(took, 73, BLACK)
    a9 = s["a9"]
    s["empty"] = bytearray(81)
    s["slid"] = _with(_with(a9, 4 * 9 + 2, 0), 4 * 9 + 1, BLACK)  # C5 slid to B5
    s["unsure"] = _with(a9, 40 + 9 * 2, 3)
    s["wrong"] = _with(a9, 7, BLACK)
    s["late"] = _with(a9, 8, WHITE)
    results = bytearray(16)

    @micropython.native  # as bytecode the script's own frame would be borrowed from the heap
    def script():
        k = 0
        ref.see(s["left"], 1)
        results[k] = ref.press(BLACK, 2)  # captures left: refused
        k += 1
        ref.see(s["took"], 3)
        results[k] = ref.press(BLACK, 4)  # the capture
        k += 1
        ref.see(s["retake"], 5)
        results[k] = ref.press(WHITE, 6)  # ko: refused
        k += 1
        ref.see(s["two"], 7)
        results[k] = ref.press(WHITE, 8)  # two stones: refused
        k += 1
        ref.see(s["took"], 9)
        results[k] = ref.press(WHITE, 10)  # a pass
        k += 1
        ref.see(s["a9"], 11)
        ref.see(s["b9"], 12)  # lifted, put down elsewhere: logged
        results[k] = ref.press(BLACK, 13)  # the first point counts: refused
        k += 1
        ref.see(s["a9"], 14)
        results[k] = ref.press(BLACK, 15)  # the move
        k += 1
        ref.see(s["empty"], 16)  # the board knocked over
        results[k] = ref.press(WHITE, 17)  # refused while disturbed
        k += 1
        ref.see(s["a9"], 18)  # restored
        ref.see(s["slid"], 19)  # a stone of the position moved
        results[k] = ref.press(WHITE, 20)
        k += 1
        ref.see(s["unsure"], 21)
        results[k] = ref.press(WHITE, 22)  # a point the sensors cannot judge
        k += 1
        ref.see(s["wrong"], 23)
        results[k] = ref.press(WHITE, 24)  # Black's stone on White's turn
        k += 1
        ref.see(s["a9"], 25)
        results[k] = ref.press(WHITE, 26)  # a pass
        k += 1
        ref.see(s["late"], 27)  # the passer puts a stone down after all
        ref.see(s["a9"], 28)

    return game, ref, script, results


_WANT = (REFUSED, ACCEPTED, REFUSED, REFUSED, ACCEPTED, REFUSED, ACCEPTED, REFUSED, REFUSED)
_WANT += (REFUSED, REFUSED, ACCEPTED)
_KINDS = (inc.CAPTURES_LEFT, inc.MOVE, inc.ILLEGAL, inc.TWO_MOVES, inc.PASS, inc.MOVED_NEW)
_KINDS += (inc.MOVE, inc.SCATTERED, inc.RESTORED, inc.MOVED_OLD, inc.UNSEEN, inc.WRONG_COLOUR)
_KINDS += (inc.PRESS_FIRST,)


def _check(game, ref, results):
    assert tuple(results[: len(_WANT)]) == _WANT
    kinds = ref.log.kinds()
    for kind in _KINDS:
        assert kind in kinds, kind
    assert game.ply == 4 and game.captures[BLACK] == 1
    assert ref.log.items[0][:4] == (inc.CAPTURES_LEFT, 1, 2, (pt("D5"),))
    ko = [e for e in ref.log.items if e[0] == inc.ILLEGAL][0]
    assert ko[3] == (pt("D5"),) and ko[4] == 3  # go_board.KO
    assert [e[3] for e in ref.log.items if e[0] == inc.MOVED_NEW][0] == (pt("A9"), pt("B9"))
    assert [e[3] for e in ref.log.items if e[0] == inc.MOVED_OLD][0] == (pt("C5"), pt("B5"))


def test_a_scripted_game_allocates_nothing_under_the_heap_lock():
    game, ref, script, results = _scripted()
    assert locked(script) is None
    _check(game, ref, results)


def test_a_scripted_game_moves_no_byte_through_the_allocator():
    game, ref, script, results = _scripted()
    assert _allocated(script) == 0
    _check(game, ref, results)


def test_the_refusal_points_and_the_log_stay_as_they_were():
    # What the referee hands on is unchanged by its buffers: tuples of point codes.
    game, ref, script, results = _scripted()
    script()
    assert ref.why == 0 and ref.points == ()  # the last press was accepted
    ref.see(_with(_with(seen(_KO_AFTER), 72, BLACK), 45, WHITE))  # a white stone at A6
    assert ref.press(BLACK, 30) == REFUSED and ref.why == inc.WRONG_COLOUR
    assert ref.points == (pt("A6"),)
    assert ref.log.last() == (inc.WRONG_COLOUR, 5, 30, (pt("A6"),), 0)


def test_the_log_drops_the_oldest_by_count_and_by_points():
    log = inc.Log(4, 10)
    for k in range(6):
        log.add(inc.MOVE, k + 1, k, (k,))
    assert log.kinds() == [inc.MOVE] * 4 and log.dropped == 2 and log.total == 6
    assert [e[3] for e in log.items] == [(2,), (3,), (4,), (5,)]
    log.add(inc.SCATTERED, 7, 9, tuple(range(100, 109)))  # 9 points: room for one more only
    assert [e[0] for e in log.items] == [inc.MOVE, inc.SCATTERED]
    assert log.items[-1][3] == tuple(range(100, 109)) and log.items[0][3] == (5,)
    assert log.first_new(6) == 1 and log.first_new(0) == 0
    assert log.point(1, 8) == 108 and log.npoints(1) == 9


def test_a_renju_game_seen_in_its_window_allocates_nothing():
    # Renju's 15x15 in the middle of the 19x19 grid: the window's crop and its look, each
    # press (the rules' legal() and play() and the forbidden-move judge included), a stray
    # stone outside the window.
    game = Gomoku(RENJU)
    ref = Referee(game, grid=19)
    ref.see(bytearray(361), 0)
    state = bytearray(361)
    stray = bytearray(361)
    stray[0] = BLACK
    colour = BLACK
    looked = 0
    pressed = 0
    got = bytearray(1)

    def press():
        got[0] = ref.press(colour, 2)

    for x, y in ((9, 9), (10, 9), (9, 10), (10, 10), (8, 8), (11, 11)):
        state[y * 19 + x] = colour
        looked += _allocated(lambda: ref.see(state, 1))
        pressed += _allocated(press)
        assert got[0] == ACCEPTED
        colour = 3 - colour
    for k in range(361):
        stray[k] = state[k] or stray[k]
    looked += _allocated(lambda: ref.see(stray, 3))
    assert looked == 0 and pressed == 0 and game.ply == 6 and ref.outside == 1


def _renju(claims, moves):
    # A Renju game through the referee on the 19x19 grid: for each (colour, game x, game y)
    # (x None: a press with no new stone, a pass) the boards it will see, prepared; the
    # script sees each and presses; its results, in place.
    game = Gomoku(RENJU, claims=claims)
    ref = Referee(game, grid=19)
    m = ref.margin
    ref.see(bytearray(361), 0)
    boards = []
    state = bytearray(361)
    for _, x, y in moves:
        if x is not None:
            state[(y + m) * 19 + x + m] = BLACK if len(boards) % 2 == 0 else WHITE
        boards.append(bytearray(state))
    sides = bytes(c for c, _, _ in moves)
    results = bytearray(len(moves))

    @micropython.native  # as bytecode the script's own frame would be borrowed from the heap
    def script():
        k = 0
        while k < len(sides):
            ref.see(boards[k], 10 * k + 1)
            results[k] = ref.press(sides[k], 10 * k + 2)
            k += 1

    return game, ref, script, results


# A free opening, White's pass (a press with no new stone), Black's pass, then Black's
# diagonal H8-L12 made a five.
_TO_A_FIVE = ((BLACK, 7, 7), (WHITE, 7, 8), (BLACK, 8, 8), (WHITE, 6, 7), (BLACK, 9, 9))
_TO_A_FIVE += ((WHITE, None, None), (BLACK, 10, 10), (WHITE, 0, 0), (BLACK, None, None))
_TO_A_FIVE += ((WHITE, 0, 1), (BLACK, 11, 11))
# Black's double-three at H8 (G8 and I8, H7 and H9 down), White playing on in claim mode,
# then White's claim lapsed and the game going on.
_TO_A_FOUL = ((BLACK, 6, 7), (WHITE, 0, 0), (BLACK, 8, 7), (WHITE, 0, 2), (BLACK, 7, 6))
_TO_A_FOUL += ((WHITE, 0, 4), (BLACK, 7, 8), (WHITE, 14, 14), (BLACK, 7, 7), (WHITE, 14, 0))
_TO_A_FOUL += ((BLACK, 3, 3),)


def test_a_renju_game_through_the_referee_allocates_nothing_per_press():
    # Every see and press of two Renju games, passes, a five and a forbidden move in them.
    from firmware.rules.gomoku import DOUBLE_THREE, I_FOUL, I_LAPSED, WIN_FIVE

    for claims, moves in ((0, _TO_A_FIVE), (1, _TO_A_FOUL)):
        game, ref, script, results = _renju(claims, moves)
        assert locked(script) is None
        assert bytes(results) == bytes([ACCEPTED] * len(moves)), (claims, list(results))
        game, ref, script, results = _renju(claims, moves)
        assert _allocated(script) == 0, claims
        assert bytes(results) == bytes([ACCEPTED] * len(moves)), (claims, list(results))
        if claims:
            kinds = [i[0] for i in game.incidents]
            assert kinds == [I_FOUL, I_LAPSED] and not game.over()
            assert game.incidents[0][1:] == (9, 7 << 5 | 7, DOUBLE_THREE)
        else:
            assert (game.winner, game.reason, game.ply) == (BLACK, WIN_FIVE, 11)


def test_a_corpus_game_on_the_simulated_grid_allocates_nothing_per_call():
    # Every see and press of a real game, stone by stone through the calibrated grid and the
    # sensing: the bytes of each call (the grid's scan is the PC's, outside the count).
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    from firmware.rules.go import Game
    from firmware.virtual.board import play_taking
    from tests.go_corpus import game_moves
    from tests.test_physical_replay import N, Table

    moves = game_moves(require_shared("corpus", "go"), 150, 250)
    table = Table(5)
    ref = table.referee
    s = table.sensing
    shadow = Game(N)
    worst = [0, 0]  # see, press
    calls = [0, 0]
    captures = 0

    def frames(k):
        for _ in range(k):
            table.now += 50
            if s.update(table.grid.scan(table.frame), table.now) > 0:
                b = micropython.mem_total()
                ref.see(s.states, table.now)
                worst[0] = max(worst[0], micropython.mem_total() - b)
                calls[0] += 1

    for colour, xy in moves:
        c = BLACK if colour == "B" else WHITE
        if xy is None:
            shadow.play(c, None, None)
        else:
            taken = play_taking(shadow, c, xy[0], xy[1])
            captures += len(taken)
            table.grid.put(xy[0], xy[1], c)
            frames(4)
            for x, y in taken:
                table.grid.lift(x, y)
            frames(4)
        b = micropython.mem_total()
        r = ref.press(c, table.now)
        worst[1] = max(worst[1], micropython.mem_total() - b)
        calls[1] += 1
        assert r == ACCEPTED, (ref.why, ref.points)
    assert captures > 0 and calls[0] > len(moves) and calls[1] == len(moves)
    assert worst == [0, 0]


def test_the_fifth_move_offers_are_watched_without_allocating():
    # Ten offers going down and White lifting nine: each look (``see``) and the count the
    # faces ask for (``offers_down``) allocate nothing; the presses of the offers and of
    # White's choice may (once a game).
    from tests.test_referee import _TEN_OFFERS, _to_the_offers, renju_seen

    game, ref, stones = _to_the_offers(10)
    down = _TEN_OFFERS
    placed = []
    for k in range(len(down)):
        stones[down[k]] = BLACK
        placed.append(renju_seen(stones))
    lifted = []
    for k in range(len(down) - 1):
        del stones[down[k]]
        lifted.append(renju_seen(stones))
    counts = bytearray(20)

    @micropython.native
    def offers(boards, at):
        k = 0
        while k < len(boards):
            ref.see(boards[k], k)
            counts[at + k] = ref.offers_down()
            k += 1

    assert locked(lambda: offers(placed, 0)) is None and not ref.scattered
    assert ref.press(BLACK, 100) == ACCEPTED
    assert locked(lambda: offers(lifted, 10)) is None and not ref.scattered
    assert list(counts[:10]) == list(range(1, 11)) and list(counts[10:19]) == [
        9 - k for k in range(9)
    ]
