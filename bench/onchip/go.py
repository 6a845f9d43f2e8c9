"""Chip driver: ``Game.play`` over corpus games and the built worst cases, ``go_count.count``.

Sent by ``bench/chip.py`` after ``prelude.py`` (read it first); data ``/bench/go.bin``
(``bench/chip_data.py``). Every call is timed alone, as ``bench_go`` times it:

- ``go_mean`` / ``go_worst``: the corpus games' mean move and slowest move;
- ``go_count``: ``go_count.count`` of each game's final position, the slowest;
- ``long_mean`` / ``long_worst`` / ``long_scan``: the 1,024-ply game of ``tests/go_worst.py``,
  its mean and slowest move, and a new position at its last ply (the repetition scan reads
  all 1,023 earlier plies);
- ``snakeB_play`` / ``_legal`` / ``_capture`` / ``_undo``: the comb snake of B bands.

The corpus and the long game as ``prelude.py`` says (each move's fastest over ``PASSES``);
the new position at ply 1,024 and the snakes' steps are timed ``ARGS["runs"]`` times, BEST
their trimmed mean (``Steps``).
"""

from array import array

from bench.onchip.prelude import (
    ARGS,
    PASSES,
    Worst,
    calibrate,
    data,
    emit,
    gc,
    ticks_diff,
    ticks_us,
    u16,
)
from firmware.rules import go_count
from firmware.rules.go import Game

_PASS = 1023
RUNS = ARGS.get("runs", 3)  # timings of each step of a built worst case


class Steps:
    """A step timed ``RUNS`` times: FIRST its first timing, BEST the mean of the fastest
    four fifths (the unix port's timer reads whole µs and these steps take a few: a mean
    of many is closer than the fastest; the slowest fifth is the host's interruptions)."""

    def __init__(self):
        self.us = []

    def add(self, us):
        self.us.append(us)

    def emit(self, key, *words):
        kept = sorted(self.us)[: max(1, len(self.us) * 4 // 5)]
        emit(key, self.us[0], sum(kept) / len(kept), *words)


def replay(game, buf, at, n, times, total):
    """Play ``n`` codes from ``buf[at:]`` on ``game`` (cleared), each timed alone; per move
    the fastest into ``times`` (from ``total``). Returns (sum µs, slowest µs, its index)."""
    game.clear(19)
    s = 0
    worst = 0
    where = 0
    for k in range(n):
        m = u16(buf, at + 2 * k)
        p = m & 1023
        c = m >> 10
        x = p & 31
        y = p >> 5
        if p == _PASS:
            x = None
            y = None
        t0 = ticks_us()
        r = game.play(c, x, y)
        dt = ticks_diff(ticks_us(), t0)
        if r:
            raise ValueError("move %d refused: %d" % (k + 1, r))
        s += dt
        if dt > worst:
            worst = dt
            where = k
        i = total + k
        if times is not None and dt < times[i]:
            times[i] = dt
    return s, worst, where


def corpus(game, buf):
    ngames = u16(buf, 0)
    at = 2
    spans = []
    for _ in range(ngames):
        n = u16(buf, at)
        spans.append((at + 2, n))
        at += 2 + 2 * n
    moves = 0
    for _, n in spans:
        moves += n
    times = array("H", b"\xff" * (2 * moves)) if PASSES > 1 else None
    counts = [Worst() for _ in spans]
    first_sum = 0
    first_worst = 0
    for p in range(PASSES):
        total = 0
        for g in range(len(spans)):
            a, n = spans[g]
            gc.collect()
            s, w, k = replay(game, buf, a, n, times, total)
            total += n
            if p == 0:
                first_sum += s
                if w > first_worst:
                    first_worst = w
                    first_where = (g, k)
            gc.collect()
            t0 = ticks_us()
            go_count.count(game.board)
            counts[g].add(ticks_diff(ticks_us(), t0))
    if moves:
        best_sum = first_sum
        best_worst = first_worst
        if times is not None:
            best_sum = sum(times)
            best_worst = max(times)
        emit("go_mean", first_sum / moves, best_sum / moves, "%d_games_%d_moves" % (ngames, moves))
        emit("go_worst", first_worst, best_worst, "game_%d_move_%d" % first_where)
        emit("go_count", max([c.first for c in counts]), max([c.best for c in counts]))
    else:
        emit("go_none", 0, 0, "no_corpus")
    return at


def long_game(game, buf, at):
    n = u16(buf, at)
    times = array("H", b"\xff" * (2 * n)) if PASSES > 1 else None
    for p in range(PASSES):
        gc.collect()
        s, w, k = replay(game, buf, at + 2, n, times, 0)
        if p == 0:
            first = (s, w, k)
    best = first if times is None else (sum(times), max(times), 0)
    emit("long_mean", first[0] / n, best[0] / n)
    emit("long_worst", first[1], best[1], "ply_%d" % (first[2] + 1))
    scan = Steps()
    game.undo()
    for _ in range(RUNS):
        c = game.to_move
        t0 = ticks_us()
        game.play(c, 3, 9)
        scan.add(ticks_diff(ticks_us(), t0))
        game.undo()
    scan.emit("long_scan")
    return at + 2 + 2 * n


def snake(buf, at, bands):
    n = u16(buf, at)
    game = Game(19)
    for k in range(n):
        m = u16(buf, at + 2 + 2 * k)
        game.setup(m >> 10, m & 31, (m & 1023) >> 5)
    at += 2 + 2 * n
    f = u16(buf, at)
    last = u16(buf, at + 2)
    fx, fy, lx, ly = f & 31, f >> 5, last & 31, last >> 5
    w = [Steps() for _ in range(4)]
    for _ in range(RUNS):
        gc.collect()
        t0 = ticks_us()
        game.play(2, fx, fy)  # White: the second-to-last liberty
        w[0].add(ticks_diff(ticks_us(), t0))
        game.undo()
        t0 = ticks_us()
        game.legal(2, fx, fy)
        w[1].add(ticks_diff(ticks_us(), t0))
        game.play(2, fx, fy)
        game.play(1, None, None)
        t0 = ticks_us()
        game.play(2, lx, ly)  # the last: the whole snake is taken
        w[2].add(ticks_diff(ticks_us(), t0))
        taken = game.captures[2]
        t0 = ticks_us()
        game.undo()
        w[3].add(ticks_diff(ticks_us(), t0))
        game.undo()
        game.undo()
    for k, name in enumerate(("play", "legal", "capture", "undo")):
        w[k].emit("snake%d_%s" % (bands, name), "%d_stones_taken" % taken)
    return at + 4


def main():
    calibrate()
    buf = data("go.bin")
    game = Game(19)
    at = corpus(game, buf)
    at = long_game(game, buf, at)
    for bands in (1, 2, 3):
        at = snake(buf, at, bands)


main()
