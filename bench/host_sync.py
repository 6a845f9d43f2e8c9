"""Sync throughput over a pseudo-terminal (CPython host tools <-> the MicroPython unix port).

    .venv/bin/python -m bench.host_sync [--games N]

Run from the repository root. Not named ``bench_*.py``: ``make bench`` runs those on
MicroPython, and this one is the host side (pyserial). It journals N finished games (default
200) on a temp folder, serves them with ``micropython -m firmware.link.stdio`` behind a pty,
and times ``host_tools.sync.sync`` (with the HMAC checked) for 2,048- and 256-byte chunks:
games/s and KB/s of stored game bytes. Information only: the exit status is 0 whatever the
figures. The pty has no baud-rate limit: on the board USB CDC and flash reads will set it.
"""

import argparse
import tempfile
import time
from pathlib import Path

from firmware.link.stdio import SECRET
from host_tools import sync as S
from host_tools.link import Link
from tests.host.test_sync import Board, fill


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    for chunk in (2048, 256):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "games"
            j = fill(root, args.games)
            size = sum(len(j.read(g)) for g, _, fin, _ in j.games() if fin)
            board = Board(root)
            try:
                with Link(board.path) as link:
                    t = time.monotonic()
                    s = S.sync(link, Path(tmp) / "home", secret=SECRET, chunk=chunk)
                    dt = time.monotonic() - t
            finally:
                board.stop()
            n = len(s["acked"])
            print(
                "chunk %4d: %d games, %.1f KB in %.2f s: %.0f games/s, %.1f KB/s"
                % (chunk, n, size / 1024, dt, n / dt, size / 1024 / dt)
            )


if __name__ == "__main__":
    main()
