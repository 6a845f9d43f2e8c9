"""Sync over a pseudo-terminal (CPython host tools <-> the MicroPython unix port), by games kept.

    .venv/bin/python -m bench.host_sync [--games 10,100,1000] [--chunk 2048]

Run from the repository root. Not named ``bench_*.py``: ``make bench`` runs those on
MicroPython, and this one is the host side (pyserial). For each count N it stores N finished
250-move games with their clocks (~1,290 bytes packed each, written straight into packs with
``Journal.store``) and one game in progress on a temp folder, serves them with ``micropython
-m firmware.link.stdio`` behind a pty, and times a full ``host_tools.records.sync.sync`` (the HMAC
checked): time per game, games/s and KB/s of stored game bytes, and the board process's CPU
time per game (what the board's side costs: it must not grow with N). Information only: the
exit status is 0 whatever the figures. The pty has no baud-rate limit: on the board USB CDC
and flash reads will set it.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from firmware.link.stdio import SECRET
from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.common.link import Link
from host_tools.records import sync as S
from tests.host.records.test_sync import Board
from tests.support import Rng
from tests.test_journal import HEADER, play


def store(root, n):
    """``n`` finished games and one in progress under ``root``; the stored bytes."""
    j = Journal(str(root), free=lambda: 1 << 30)
    games = []
    for s in range(4):
        recs = [(R.HEADER, R.full_header(HEADER))] + play(Rng(100 + s), 250)
        games.append(recs + [(R.RESULT, 1, 2, 7, 250)])
    size = 0
    for g in range(1, n + 1):
        recs = games[g % 4]
        recs[0][1]["game_no"] = g
        blob = R.pack(g, recs)
        assert j.store(blob) == 0
        size += len(blob)
    assert j.begin(HEADER) == 0  # the game on the board now: never synced
    assert j.move(1, 1, 3 << 5 | 3, 1000, (600000, 0, 600000, 0)) == 0
    j.close()
    return size


def board_cpu(pid):
    """CPU seconds (user + system) the process ``pid`` has used (Linux /proc)."""
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", default="10,100,1000", help="counts of games kept, comma-separated")
    ap.add_argument("--chunk", type=int, default=S.CHUNK)
    args = ap.parse_args()
    print("tengen sync over a pty, chunk %d bytes, the HMAC checked" % args.chunk)
    for n in [int(x) for x in args.games.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "games"
            size = store(root, n)
            board = Board(root)
            try:
                with Link(board.path) as link:
                    link.request("hello")  # the board is up: its start is not timed
                    cpu0 = board_cpu(board.proc.pid)
                    t = time.monotonic()
                    s = S.sync(link, Path(tmp) / "home", secret=SECRET, chunk=args.chunk)
                    dt = time.monotonic() - t
                    cpu = board_cpu(board.proc.pid) - cpu0
            finally:
                board.stop()
            k = len(s["acked"])
            print(
                "  %5d games kept: %d synced, %.1f KB in %.2f s: %.1f ms a game (board CPU %.1f"
                " ms a game), %.0f games/s, %.1f KB/s"
                % (n, k, size / 1024, dt, 1000 * dt / k, 1000 * cpu / k, k / dt, size / 1024 / dt)
            )


if __name__ == "__main__":
    main()
