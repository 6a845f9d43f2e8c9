"""The link's server on stdin/stdout, for the MicroPython unix port and the host's tests.

    micropython -m firmware.link.stdio ROOT

serves the games journaled under the folder ``ROOT`` (a ``Journal``) with the fixed test
secret ``SECRET``, reading request lines from stdin and writing replies to stdout, until
stdin ends. There is no game on this board: a stand-in match answers ``hello`` and
``settings`` (``state``, ``adjust`` get an error reply). ``tests/host/test_sync.py`` runs it
behind a pseudo-terminal, as the host tools see a board on USB serial.
"""

import sys

from firmware.link.server import Server
from firmware.store.journal import Journal

SECRET = bytes(range(100, 132))  # the test secret; tests/host/test_sync.py knows it too
PIN = "4821"


class _NoMatch:
    # What the server reads of a match when no game is on the board.
    def __init__(self):
        self.settings = {"game": "go19", "pin": PIN}


def main(root):
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout
    inp = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin

    def write(data):
        out.write(data)
        if hasattr(out, "flush"):
            out.flush()

    srv = Server(_NoMatch(), Journal(root), SECRET, write, board="stdio")
    while True:
        line = inp.readline()
        if not line:
            return
        while line:
            line = line[srv.feed(line) :]
            while srv.poll():
                pass


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "games")
