"""Chip driver: the Renju judge's worst cases (``firmware/rules/gomoku_board.py``).

Sent by ``bench/chip.py`` after ``prelude.py``; data ``/bench/renju.bin`` (the position
``bench_renju``'s search finds, then the searched-for positions of
``tests/test_gomoku_alloc.py``, each with the point of its slowest check). Emitted:

- ``renju_check``: ``forbidden()`` at the search's point (its first call, cold, and the best);
- ``renju_fixed``: the slowest of the searched-for positions' worst checks;
- ``renju_scan``: the slowest ``forbidden_points()`` (the full scan) of all of them.
"""

from bench.onchip.prelude import PASSES, Worst, calibrate, data, gc, ticks_diff, ticks_us, u16
from firmware.rules.gomoku_board import GomokuBoard

SIZE = 15
N2 = SIZE * SIZE


def main():
    calibrate()
    buf = data("renju.bin")
    board = GomokuBoard(SIZE)
    count = u16(buf, 0)
    fixed = Worst()
    scan = Worst()
    fixed.first = fixed.best = scan.first = scan.best = 0
    for p in range(count):
        at = 2 + p * (N2 + 2)
        board.clear()
        for i in range(N2):
            if buf[at + i]:
                board.put(buf[at + i], i % SIZE, i // SIZE)
        point = u16(buf, at + N2)
        check = Worst()
        for _ in range(max(3, PASSES)):
            t0 = ticks_us()
            board.forbidden(point % SIZE, point // SIZE)
            check.add(ticks_diff(ticks_us(), t0))
        calls, levels = board.last_check()
        full = Worst()
        for _ in range(max(2, PASSES)):
            gc.collect()  # the scan allocates its result: start each from the same heap
            t0 = ticks_us()
            board.forbidden_points()
            full.add(ticks_diff(ticks_us(), t0))
        if p == 0:
            check.emit("renju_check", "%d_calls_%d_levels" % (calls, levels))
        else:
            fixed.first = max(fixed.first, check.first)
            fixed.best = max(fixed.best, check.best)
        scan.first = max(scan.first, full.first)
        scan.best = max(scan.best, full.best)
    fixed.emit("renju_fixed", "%d_positions" % (count - 1))
    scan.emit("renju_scan", "%d_positions" % count)


main()
