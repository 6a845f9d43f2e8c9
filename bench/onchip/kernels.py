"""Chip driver: the Go rules' viper kernels alone, and three loops that tell them apart.

Sent by ``bench/chip.py`` after ``prelude.py``; data ``/bench/go.bin``. Where the chip runs
the Go worst cases at twice the estimate, this says which piece does (bench/README.md):

- ``k_flood``: ``bitboard.flood`` filling the 2-band comb snake (stop 0: the whole group);
- ``k_call``: a viper function of ``flood``'s seven arguments that does nothing, called;
- ``k_take``: ``go_board._take`` lifting it (the board set up again between timings);
- ``k_seen``: ``go._seen`` reading a full history of 1,023 plies for a position not in it;
- ``k_viper`` / ``k_native`` / ``k_calib``: the calibration loop's 10,000 additions as
  viper, as native code and as bytecode (``calib``, the benches' rule): the rule scales
  bytecode; these say how the chip compares for machine code.

Each figure is a batch's µs over its calls, the fastest of ``BATCHES`` batches (the unix
port's calls take 1-3 µs, and its timer reads whole µs): ``_take`` is timed with the board
put back after each call, less the same batch that only puts it back.
"""

from array import array

import micropython

from bench.onchip.prelude import calib, calibrate, data, emit, gc, ticks_diff, ticks_us, u16
from firmware.rules.bitboard import flood
from firmware.rules.go import Game, _seen
from firmware.rules.go_board import _take


@micropython.viper
def vloop(n: int) -> int:
    x = 0
    i = 0
    while i < n:
        x += i
        i += 1
    return x


@micropython.viper
def call7(rows, off: int, n: int, gbuf, x: int, y: int, stop: int) -> int:
    # flood's signature, nothing done: what a call from Python costs (arguments converted)
    return stop


@micropython.native
def nloop():
    x = 0
    for i in range(10000):
        x += i


CALLS = 20  # calls in a batch
BATCHES = 5


@micropython.viper
def copy32(dst, src, n: int):
    d = ptr32(dst)
    s = ptr32(src)
    i = 0
    while i < n:
        d[i] = s[i]
        i += 1


def batch(fn, a, calls=CALLS):
    """µs a call of ``fn(*a)``: the fastest of ``BATCHES`` batches of ``calls`` calls."""
    best = None
    for _ in range(BATCHES):
        gc.collect()
        t0 = ticks_us()
        for _ in range(calls):
            fn(*a)
        dt = ticks_diff(ticks_us(), t0)
        if best is None or dt < best:
            best = dt
    return best / calls


def take_and_back(b, rows, st, take):
    if take:
        _take(b.rows, b.g, b.log, b.st, 19, 1)
    copy32(b.rows, rows, 38)
    copy32(b.st, st, 5)


def snake_game(buf, at):
    n = u16(buf, at)
    game = Game(19)
    seed = None
    for k in range(n):
        m = u16(buf, at + 2 + 2 * k)
        x, y = m & 31, (m & 1023) >> 5
        game.setup(m >> 10, x, y)
        if seed is None and m >> 10 == 1:
            seed = (x, y)
    return game, seed


def main():
    calibrate()
    buf = data("go.bin")
    at = 2
    for _ in range(u16(buf, 0)):  # the corpus games
        at += 2 + 2 * u16(buf, at)
    long_at = at
    at += 2 + 2 * u16(buf, at)
    at += 2 + 2 * u16(buf, at) + 4  # past the 1-band snake: the 2-band one
    game, (x, y) = snake_game(buf, at)
    b = game.board
    f = batch(flood, (b.rows, 0, 19, b.g, x, y, 0))
    emit("k_flood", f, f)
    c = batch(call7, (b.rows, 0, 19, b.g, x, y, 0))
    emit("k_call", c, c)
    rows = array("I", b.rows)
    st = array("I", b.st)
    t = batch(take_and_back, (b, rows, st, 1)) - batch(take_and_back, (b, rows, st, 0))
    emit("k_take", t, t, "%d_setup_stones" % u16(buf, at))
    game = b = None
    game = Game(19)
    n = u16(buf, long_at)
    for k in range(n - 1):
        m = u16(buf, long_at + 2 + 2 * k)
        p = m & 1023
        if p == 1023:
            game.play(m >> 10, None, None)
        else:
            game.play(m >> 10, p & 31, p >> 5)
    h = game.hist
    if _seen(h, 0, h[0], h[1], 0, 2) == 0:  # from word q (the last ply's record: ply * 3)
        k = batch(_seen, (h, game.ply * 3, 1, 1, 0, 2))
        emit("k_seen", k, k, "%d_plies" % game.ply)
    else:  # an image older than _seen's reordering: (hist, j = plies + 1, ...)
        k = batch(_seen, (h, game.ply + 1, 1, 1, 0, 2))
        emit("k_seen", k, k, "%d_plies_(old_arguments)" % game.ply)
    v = batch(vloop, (100000,), 1) / 10
    emit("k_viper", v, v)
    k = batch(nloop, (), 1)
    emit("k_native", k, k)
    k = batch(calib, (), 1)
    emit("k_calib", k, k)


main()
