"""Sensing + referee per frame, and stone-down-to-judged latency, on the MicroPython unix port.

    micropython -m bench.bench_referee [--games N] [--passes N]

Run from the repository root (``make bench`` runs it so). A corpus game is played stone by
stone on the simulated grid (``firmware/hal/sim.py``, calibrated by the real procedure) and
every frame goes through ``Sensing.update`` and, when a stable state changed, ``Referee.see``;
each press through ``Referee.press``. Timed: the frame step (sensing, plus the referee when
called), quiet frames and frames with a change apart, and the press. Counted: scans from a
stone touching the board to the referee seeing it. The simulated scan itself is not timed
(on the board it runs in PIO + DMA). RP2040 figures are estimates: unix time x 48.8 ms /
calibration time (DESIGN.md §3, bench_go's loop). Information only: exit status 0.
"""

import gc
from array import array

from bench.bench_go import (
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
    verdict,
)
from firmware import sgf
from firmware.referee.referee import ACCEPTED
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.simulator import play_taking
from tests.go_corpus import corpus_games
from tests.support import join, shared_path
from tests.test_physical_replay import Table

N = 19
TARGET_FRAME_MS = 5.0

USAGE = """usage: bench_referee.py [--games N] [--passes N]
  --games N    corpus games played on the simulated board (default 3)
  --passes N   (kept for the common options; each game is played once)"""


_BUCKETS = 2000  # µs: a histogram for the 99th percentile


def new_acc():
    """A running count, sum, worst and histogram (a list of every figure would not fit)."""
    return [0, 0, 0, array("I", bytes(4 * (_BUCKETS + 1)))]


def add(acc, v):
    acc[0] += 1
    acc[1] += v
    if v > acc[2]:
        acc[2] = v
    acc[3][v if v < _BUCKETS else _BUCKETS] += 1


def p99(acc):
    """The 99th percentile of an accumulator: the worst is mostly the host's own noise."""
    want = acc[0] * 99 // 100
    seen = 0
    for v in range(_BUCKETS + 1):
        seen += acc[3][v]
        if seen >= want:
            return v
    return acc[2]


def play(path, seed, times, latencies):
    """Play one game; frame and press times (µs) into ``times``, scans into ``latencies``."""
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    moves = sgf.moves(nodes, N)
    nodes = None
    table = Table(seed)
    grid = table.grid
    shadow = Game(N)
    s = table.sensing
    ref = table.referee

    def frame():
        table.now += 50
        fr = grid.scan(table.frame)
        t0 = ticks_us()
        changed = s.update(fr, table.now)
        if changed > 0:
            ref.see(s.states, table.now)
        add(times[1 if changed > 0 else 0], ticks_diff(ticks_us(), t0))
        return changed

    for colour, xy in moves:
        c = BLACK if colour == "B" else WHITE
        if xy is None:
            shadow.play(c, None, None)
        else:
            x, y = xy
            taken = play_taking(shadow, c, x, y)
            grid.put(x, y, c)
            k = 0
            i = y * N + x
            while ref.seen[i] != c and k < 50:
                frame()
                k += 1
            add(latencies, k)
            for px, py in taken:
                grid.lift(px, py)
            for _ in range(4):
                frame()
        t0 = ticks_us()
        r = ref.press(c, table.now)
        add(times[2], ticks_diff(ticks_us(), t0))
        assert r == ACCEPTED, (ref.why, ref.points, len(latencies) and latencies[0])


def stats(acc):
    """``(mean, worst)`` of a running accumulator."""
    return (acc[1] / acc[0] if acc[0] else 0), acc[2]


def main():
    import sys

    opts = read_options(sys.argv, USAGE, {"games": 3, "passes": 1})
    cal, start_us, overhead = start("sensing + referee", "a few seconds a game")
    root = shared_path("corpus", "go")
    paths = []
    try:
        for name, moves in corpus_games(root):
            if moves <= 200:
                paths.append(join(root, name))
            if len(paths) == opts["games"]:
                break
    except OSError:
        print("no corpus at %s: nothing to play (set TENGEN_SHARED)" % root)
        return
    times = [new_acc(), new_acc(), new_acc()]
    latencies = new_acc()
    for g, path in enumerate(paths):
        gc.collect()
        play(path, 7 + g, times, latencies)
        cal.sample(3)
    report_calibration(cal, overhead, start_us, "frame")
    scale = cal.scale()
    section(
        "2. Per frame on the unix port (%d games, %d frames)"
        % (len(paths), times[0][0] + times[1][0])
    )
    names = ("frame, no state changed", "frame with a change (+ see)", "press")
    for name, acc in zip(names, times):
        mean, worst = stats(acc)
        print(
            "  %-28s mean %6.1f µs = %5.2f ms   p99 %4d µs = %5.2f ms   worst %4d µs = %5.2f ms"
            % (name, mean, mean * scale, p99(acc), p99(acc) * scale, worst, worst * scale)
        )
    print("  (ms: RP2040 estimates; the worst includes the host's scheduling and GC pauses)")
    section("3. Latency: scans from a stone put down to the referee seeing it")
    mean, worst = stats(latencies)
    print("  mean %.2f, worst %d scans (%d stones)" % (mean, worst, latencies[0]))
    print("  at 20 scans/s one scan is 50 ms; the debounce is 3 scans")
    section("4. Summary (RP2040 = unix time x 48.8 ms / calibration: an ESTIMATE)")
    for label, us in (
        ("frame, mean", (times[0][1] + times[1][1]) / max(1, times[0][0] + times[1][0])),
        ("frame with a change, p99", p99(times[1])),
        ("frame with a change, worst", times[1][2]),
    ):
        ms = us * scale
        print(
            "  %-28s %7.2f ms   target <= %.1f ms   %s"
            % (label, ms, TARGET_FRAME_MS, verdict(ms, TARGET_FRAME_MS))
        )
    if not IS_MICROPYTHON:
        print("  (CPython run: the RP2040 column applies the unix-port rule and means little)")
    print("  The targets are information: this benchmark never fails the build.")


if __name__ == "__main__":
    main()
