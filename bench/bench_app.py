"""The device app's memory and its longest pass, on the MicroPython unix port.

    micropython -m bench.bench_app [--games N]

Run from the repository root (``make bench`` runs it so). A corpus game is played through the
whole app (``firmware/game/app.py``: paddles, scan, sensing, referee, rules, clock, cues) on the
simulated grid, as ``tests/test_match.py`` plays it. Measured:

1. the heap the app's own objects take once built (``gc.mem_alloc()`` after a collection,
   before and after building them; the simulated grid and the loaded code are not counted);
2. the peak live heap during the game beyond that (collected every 100 passes), so the sum is
   what the board needs beyond its code: target ≤ 48 KB (DESIGN.md §7);
3. the longest pass (``App.step``: presses, sensing, referee, clock, cues), which is the longest
   gap between two clock ticks, with the RP2040 estimate (unix time x 48.8 ms / calibration).
Information only: the exit status is 0 whatever the figures.
"""

import gc
import sys

from bench.bench_go import (
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
)
from firmware.clock.clock import BLACK, WHITE
from firmware.game.app import App
from firmware.game.match import Match
from firmware.rules import sgf
from firmware.rules.go import Game
from firmware.sensing.grid import Sensing
from firmware.virtual.board import play_taking
from tests.go_corpus import corpus_games
from tests.support import join, shared_path
from tests.test_physical_replay import N, calibrated

TARGET_KB = 48

USAGE = """usage: bench_app.py [--games N]
  --games N   corpus games played through the app (default 2)"""


class Prescanned:
    """The scanner the app sees: the frame is already taken (by the grid, before the pass)."""

    n = N

    def scan(self, frame):
        pass


def mem_total():
    """Bytes through the allocator so far (0 where the build does not count them)."""
    import micropython

    return micropython.mem_total() if hasattr(micropython, "mem_total") else 0


def live():
    gc.collect()
    return gc.mem_alloc()


def play(path, seed, report):
    """One game through the app; updates ``report`` (peak live bytes, longest pass µs)."""
    with open(path, "rb") as f:
        nodes = sgf.parse(f.read())
    moves = sgf.moves(nodes, N)
    nodes = None
    grid, frame, cal = calibrated(seed)
    shadow = Game(N)  # the bench's own copy of the game (to lift captures): not counted
    gc.collect()
    before = live()
    sensing = Sensing(N, cal)
    match = Match({"game": "go19", "time": "cn-national"}, sensing)
    app = App(Prescanned(), match)
    built = live() - before
    report["built"] = max(report["built"], built)
    now = 0
    passes = 0
    sim = [0]  # bytes the simulated grid holds for its stones: not the board's memory

    def grid_do(fn, *args):
        b = live()
        fn(*args)
        sim[0] += live() - b

    def step():
        nonlocal now, passes
        now += 50
        if passes % 10 == 0:
            gc.collect()  # the simulated grid's garbage is the PC's, not the board's
        grid.scan(app.frame)  # on the board the scan runs in PIO + DMA: not timed here
        m0 = mem_total()
        t0 = ticks_us()
        app.step(now)
        us = ticks_diff(ticks_us(), t0)
        b = mem_total() - m0
        if match.clock.state:  # from the start: the settling frames before it are set-up
            report["bytes"] += b
            report["counted"] += 1
            report["most_bytes"] = max(report["most_bytes"], b)
        if report["first"] and us > report["first_longest"]:
            report["first_longest"] = us
        if us > report["longest"]:
            report["longest"] = us
        hist = report["hist"]
        hist[us // 10 if us < 5000 else 500] += 1
        report["total"] += us
        passes += 1
        if passes % 100 == 0:
            report["peak"] = max(report["peak"], live() - before - built - sim[0])

    for _ in range(5):
        step()
    match.start(now)
    for colour, xy in moves:
        side = BLACK if colour == "B" else WHITE
        for _ in range(20):  # a second of thinking, scanned
            step()
        if xy is not None:
            x, y = xy
            taken = play_taking(shadow, side, x, y)
            grid_do(grid.put, x, y, side)
            for _ in range(4):
                step()
            for px, py in taken:
                grid_do(grid.lift, px, py)
            taken = None
        else:
            shadow.play(side, None, None)
        for _ in range(4):
            step()
        app.paddles.hit(side, now + 10)
        step()
    shadow = None
    report["moves"] += len(moves)
    report["passes"] += passes
    assert match.game.ply == len(moves)


def main():
    opts = read_options(sys.argv, USAGE, {"games": 2})
    cal, start_us, overhead = start("app memory and pass", "a few seconds a game")
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
    report = {
        "built": 0,
        "peak": 0,
        "longest": 0,
        "moves": 0,
        "passes": 0,
        "hist": [0] * 501,
        "total": 0,
        "bytes": 0,
        "counted": 0,
        "most_bytes": 0,
        "first": True,
        "first_longest": 0,
    }
    for g, path in enumerate(paths):
        play(path, 21 + g, report)
        report["first"] = False
        cal.sample(3)
    report_calibration(cal, overhead, start_us, "pass")
    scale = cal.scale()
    section("2. Memory (heap beyond the loaded code and the simulated grid)")
    total = (report["built"] + report["peak"]) / 1024
    print("  the app's objects, built:     %6.1f KB" % (report["built"] / 1024))
    print("  peak live beyond them, play:  %6.1f KB" % (report["peak"] / 1024))
    print(
        "  together:                     %6.1f KB   target <= %d KB   %s"
        % (total, TARGET_KB, "ok" if total <= TARGET_KB else "over")
    )
    section("3. The longest pass (the longest gap between clock ticks)")
    us = report["longest"]
    hist = report["hist"]
    seen = 0
    p999 = 0
    for b in range(501):
        seen += hist[b]
        if seen * 1000 >= report["passes"] * 999:
            p999 = b * 10 + 10
            break
    print(
        "  %d passes over %d moves: mean pass %.1f µs"
        % (report["passes"], report["moves"], report["total"] / max(1, report["passes"]))
    )
    print(
        "  99.9th percentile %d µs = %.1f ms, longest %d µs = %.1f ms (RP2040 estimates)"
        % (p999, p999 * scale, us, us * scale)
    )
    print("  (the longest includes the host's own pauses: a single pass, not a pattern)")
    f = report["first_longest"]
    print("  first game's longest pass (nothing warmed up): %d µs = %.1f ms" % (f, f * scale))
    if report["counted"] and IS_MICROPYTHON:
        print(
            "  bytes through the allocator per pass, from the start: %.2f (most %d, %d passes)"
            % (report["bytes"] / report["counted"], report["most_bytes"], report["counted"])
        )
    print("  The targets are information: this benchmark never fails the build.")


if __name__ == "__main__":
    main()
