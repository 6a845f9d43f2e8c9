"""Sensing + referee per frame, and stone-down-to-judged latency, on the MicroPython unix port.

    micropython -m bench.bench_referee [--games N] [--passes N]

Run from the repository root (``make bench`` runs it so). A corpus game is played stone by
stone on the simulated grid (``firmware/hal/virtual_grid.py``, calibrated by the real procedure) and
every frame goes through ``Sensing.update`` and, when a stable state changed, ``Referee.see``;
each press through ``Referee.press``. Timed: the frame step (sensing, plus the referee when
called), quiet frames and frames with a change apart, and the press. Counted: scans from a
stone touching the board to the referee seeing it. The simulated scan itself is not timed
(on the board it runs in PIO + DMA). RP2040 figures are estimates: unix time x 48.8 ms /
calibration time (DESIGN.md §3, bench_go's loop). Information only: exit status 0.
"""

import gc
from array import array

from bench import measured
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
from firmware.referee.referee import ACCEPTED
from firmware.rules import sgf
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.virtual.board import play_taking
from tests.go_corpus import corpus_games
from tests.support import join, shared_path
from tests.test_physical_replay import Table

N = 19
TARGET_FRAME_MS = 5.0

USAGE = """usage: bench_referee.py [--games N] [--passes N]
  --games N    corpus games played on the simulated board (default 3)
  --passes N   times each game is replayed (the same frames: the simulated grid is seeded);
               each frame's and press's fastest timing counts (default 3)"""


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


class Replays:
    """One game's timings in play order, ``(kind, µs)``: the first replay's, and each one's
    fastest over the replays (the grid is seeded, so every replay brings the same frames).
    The slowest of the fastest timings is a frame that is slow every time, not a moment when
    the host was busy; the first replay's maximum is printed beside it, noise and all."""

    def __init__(self):
        self.kinds = bytearray()
        self.first = array("I")
        self.best = array("I")
        self.i = -1  # -1: the first replay, appending

    def again(self):
        """Start another replay of the same game."""
        self.i = 0

    def put(self, kind, us):
        if self.i < 0:
            self.kinds.append(kind)
            self.first.append(us)
            self.best.append(us)
            return
        assert self.kinds[self.i] == kind, "a replay brought other frames"
        if us < self.best[self.i]:
            self.best[self.i] = us
        self.i += 1


def mem_total():
    """Bytes through the allocator so far (0 where the build does not count them)."""
    import micropython

    return micropython.mem_total() if hasattr(micropython, "mem_total") else 0


def add_bytes(alloc, k, b):
    # Per kind of call (0 a frame with a change, 1 a press): calls, bytes, the most at once.
    alloc[3 * k] += 1
    alloc[3 * k + 1] += b
    if b > alloc[3 * k + 2]:
        alloc[3 * k + 2] = b


def play(path, seed, rec, latencies, alloc, firsts, first_game):
    """Play one game; frame and press times (µs) into ``rec`` (a ``Replays``: kind 0 a frame
    with no change, 1 with one, 2 a press), scans into ``latencies``, bytes through the
    allocator per frame with a change and per press into ``alloc``, and on the first game's
    first replay (nothing warmed up) the longest of each into ``firsts``; ``latencies`` and
    ``alloc`` are counted on the first replay only."""
    counting = rec.i < 0
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
        m0 = mem_total()
        t0 = ticks_us()
        changed = s.update(fr, table.now)
        if changed > 0:
            ref.see(s.states, table.now)
        us = ticks_diff(ticks_us(), t0)
        rec.put(1 if changed > 0 else 0, us)
        if changed > 0 and counting:
            add_bytes(alloc, 0, mem_total() - m0)
            if first_game and us > firsts[0]:
                firsts[0] = us
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
            if counting:
                add(latencies, k)
            for px, py in taken:
                grid.lift(px, py)
            for _ in range(4):
                frame()
        m0 = mem_total()
        t0 = ticks_us()
        r = ref.press(c, table.now)
        us = ticks_diff(ticks_us(), t0)
        if counting:
            add_bytes(alloc, 1, mem_total() - m0)
        rec.put(2, us)
        if first_game and us > firsts[1]:
            firsts[1] = us
        assert r == ACCEPTED, (ref.why, ref.points, len(latencies) and latencies[0])


def stats(acc):
    """``(mean, worst)`` of a running accumulator."""
    return (acc[1] / acc[0] if acc[0] else 0), acc[2]


def report_latency(latencies, cal, times):
    """Part 3: stone down -> the referee sees it. Counted here in scans (the table's Sensing,
    frame-debounced at 20 scans/s); in ms for the board's two scan paths, its time-debounced
    Sensing fed frames at their simulated times (bench_sensing's model), the frame that
    changes taking what part 2 measured for it (p99, RP2040 estimate)."""
    from bench import bench_sensing as BS

    mean, worst = stats(latencies)
    m, BS.CAL[0] = BS.setup()  # the model and its sensing calibration; ``cal`` is the timer's
    frames = times[0][0] + times[1][0]
    quiet_us = (times[0][1] + times[1][1]) / max(1, frames)
    judge = p99(times[1]) * cal.scale()
    rows, polled = BS.latency_rows(m, cal, quiet_us, judge)
    BS.report_latency(rows, polled, judge, "3. Latency")
    print(
        "  This table's own replay (Sensing's defaults, 3 scans, a scan every 50 ms): mean %.2f,"
        % mean
    )
    print("  worst %d scans (%d stones)" % (worst, latencies[0]))
    return rows


def main():
    import sys

    opts = read_options(sys.argv, USAGE, {"games": 3, "passes": 3})
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
    alloc = [0] * 6
    firsts = [0, 0]
    first_pass = [new_acc(), new_acc(), new_acc()]
    for g, path in enumerate(paths):
        rec = Replays()
        for p in range(max(1, opts["passes"])):
            gc.collect()
            play(path, 7 + g, rec, latencies, alloc, firsts, g == 0 and p == 0)
            rec.again()
            cal.sample(3)
        for i in range(len(rec.kinds)):
            add(times[rec.kinds[i]], rec.best[i])
            add(first_pass[rec.kinds[i]], rec.first[i])
        rec = None
    report_calibration(cal, overhead, start_us, "frame")
    scale = cal.scale()
    section(
        "2. Per frame on the unix port (%d games, %d frames; each its fastest of %d replays)"
        % (len(paths), times[0][0] + times[1][0], max(1, opts["passes"]))
    )
    names = ("frame, no state changed", "frame with a change (+ see)", "press")
    for name, acc in zip(names, times):
        mean, worst = stats(acc)
        print(
            "  %-28s mean %6.1f µs = %5.2f ms   p99 %4d µs = %5.2f ms   worst %4d µs = %5.2f ms"
            % (name, mean, mean * scale, p99(acc), p99(acc) * scale, worst, worst * scale)
        )
    print("  (ms: RP2040 estimates; worst: the slowest frame in its fastest timing)")
    print(
        "  the first replay's worst (the host's scheduling included): frame %d µs = %.2f ms,"
        " with a change %d µs = %.2f ms, press %d µs = %.2f ms"
        % (
            first_pass[0][2],
            first_pass[0][2] * scale,
            first_pass[1][2],
            first_pass[1][2] * scale,
            first_pass[2][2],
            first_pass[2][2] * scale,
        )
    )
    print(
        "  first game's longest (nothing warmed up): frame with a change %d µs = %.2f ms,"
        " press %d µs = %.2f ms" % (firsts[0], firsts[0] * scale, firsts[1], firsts[1] * scale)
    )
    k = measured.REFEREE
    print("  on the emulated chip a frame with a change ran x%.2f the estimate at most" % k)
    print(
        "  (bench/measured.py): p99 of a frame with a change x%.2f = %.2f ms"
        % (k, p99(times[1]) * scale * k)
    )
    if IS_MICROPYTHON and alloc[0]:
        print(
            "  bytes through the allocator: per frame with a change (sensing + see) %.2f"
            " (most %d), per press %.2f (most %d)"
            % (alloc[1] / alloc[0], alloc[2], alloc[4] / max(1, alloc[3]), alloc[5])
        )
    latency = report_latency(latencies, cal, times)
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
    for name, _, _, _, _, late in latency:
        print(
            "  %-28s %7.2f ms   target <= %.0f ms    %s"
            % ("stone -> judged, " + name, late, 50, verdict(late, 50))
        )
    if not IS_MICROPYTHON:
        print("  (CPython run: the RP2040 column applies the unix-port rule and means little)")
    print("  The targets are information: this benchmark never fails the build.")


if __name__ == "__main__":
    main()
