"""The Go rules allocate nothing per ordinary move: proven on MicroPython with ``heap_lock``.

On the board a garbage collection pauses everything, the clock path included, so the rules
core must not feed the collector during play (DESIGN §2). ``micropython.heap_lock()`` makes
any allocation raise MemoryError. On CPython the lock is a stand-in that does nothing, so
these tests only prove something on MicroPython, which is where they matter.
"""

import gc

import micropython

from firmware.rules.bitboard import new_array
from firmware.rules.go import KO_POSITIONAL, KO_SITUATIONAL, Game
from firmware.rules.go_board import BLACK, OCCUPIED, SUICIDE, WHITE
from tests.support import IS_MICROPYTHON, locked, skip


def _opening(game):
    # Eight non-capturing moves, alternating colours.
    c = BLACK
    for x, y in ((3, 3), (15, 15), (3, 15), (15, 3), (9, 9), (10, 10), (2, 5), (16, 13)):
        game.play(c, x, y)
        c = 3 - c


def test_moves_passes_and_undo_do_not_allocate():
    game = Game(19)
    game.play(BLACK, 0, 0)  # warm up: the first call may create cached objects
    game.undo()
    results = bytearray(8)

    def play():
        c = BLACK
        for i in range(8):
            x = (3 * i + 3) % 19
            y = (5 * i + 2) % 19
            results[i] = game.play(c, x, y)
            c = 3 - c
        game.play(c, None, None)
        game.play(3 - c, None, None)
        for _ in range(5):
            game.undo()

    assert locked(play) is None
    assert bytes(results) == bytes(8)
    assert game.ply == 5


def test_refused_moves_and_legal_do_not_allocate():
    game = Game(9)
    # A black eye at A1: white may not play there (suicide).
    game.play(BLACK, 1, 0)
    game.play(WHITE, 5, 5)
    game.play(BLACK, 0, 1)
    reasons = bytearray(3)

    def probe():
        reasons[0] = game.play(WHITE, 0, 0)
        reasons[1] = game.play(WHITE, 1, 0)
        reasons[2] = game.legal(WHITE, 4, 4)

    assert locked(probe) is None
    assert reasons[0] == SUICIDE
    assert reasons[1] == OCCUPIED
    assert reasons[2] == 0
    assert game.ply == 3


def test_superko_rules_do_not_allocate_either():
    for rule in (KO_POSITIONAL, KO_SITUATIONAL):
        game = Game(19, rule)
        game.play(BLACK, 0, 0)
        game.undo()
        assert locked(lambda g=game: _opening(g)) is None
        assert game.ply == 8


def test_a_game_fits_the_rp2040_heap():
    # The app has 48 KB in all; a 19x19 game with room for 1,024 moves, allocated at once so
    # that no move allocates, takes about 16 KB of it: 12 bytes a ply of history and 2 a stone
    # of removal log (16,032 B measured; room for 400 plies took 13,088). Measured on the unix
    # port, whose 64-bit objects are larger than the board's, so this bound is conservative.
    if not IS_MICROPYTHON:
        skip("gc.mem_alloc() is MicroPython's measure")
    gc.collect()
    before = gc.mem_alloc()
    game = Game(19)
    gc.collect()
    used = gc.mem_alloc() - before
    assert game.capacity == 1024
    assert used < 17 * 1024, used


def test_moves_do_not_even_borrow_heap_memory():
    # heap_lock() alone is not enough: a locked heap makes MicroPython put a large bytecode
    # frame on the C stack instead, so a function that borrows its frame from the heap on
    # every call passes the lock test. mem_total() counts every byte ever allocated.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    game = Game(19)
    _opening(game)  # warm up: first calls may create cached objects
    for _ in range(8):
        game.undo()
    gc.collect()
    before = micropython.mem_total()
    # Inline, not through _opening(): a helper's own frame would be counted too.
    c = BLACK
    for x, y in ((3, 3), (15, 15), (3, 15), (15, 3), (9, 9), (10, 10), (2, 5), (16, 13)):
        game.play(c, x, y)
        c = 3 - c
    game.play(BLACK, None, None)
    game.play(WHITE, 0, 1)  # a capture: Black's A1 stone ...
    game.play(BLACK, 0, 0)
    game.play(WHITE, 1, 0)  # ... is taken here
    game.legal(WHITE, 0, 0)
    game.legal(WHITE, 3, 3)  # occupied
    taken = game.captures[WHITE]
    for _ in range(12):
        game.undo()
    used = micropython.mem_total() - before
    assert used == 0, used
    assert taken == 1
    assert game.ply == 0


def test_new_array_makes_no_temporary_copy():
    # Bytes first, then the array copied from them, took twice the array for a moment: on a
    # fragmented heap the second block may not be found.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    gc.collect()
    before = micropython.mem_total()
    a = new_array("I", 3000, 0xFF)
    used = micropython.mem_total() - before
    assert used < 12000 + 512, used
    assert len(a) == 3000 and a[0] == a[2999] == 0xFFFFFFFF
