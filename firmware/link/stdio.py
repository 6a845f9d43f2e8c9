"""The link's server on stdin/stdout, for the MicroPython unix port and the host's tests.

    micropython -m firmware.link.stdio ROOT [--game] [--pin PIN]

serves the games journaled under the folder ``ROOT`` (a ``Journal``) with the fixed test
secret ``SECRET``, reading request lines from stdin and writing replies to stdout, until
stdin ends. There is no game on this board: a stand-in match answers ``hello`` and
``settings`` (``state``, ``adjust`` get an error reply). With ``--game``, a real Go match
(``firmware.game.match.Match``) with ``MOVES`` played serves ``state`` and ``watch`` instead.
``--pin`` sets the arbiter's PIN (default ``PIN``; ``0000`` is a board as it leaves the
factory).
``tests/host/records/test_sync.py`` runs it behind a pseudo-terminal, as the host tools see a board on
USB serial. Its arbiter stands by the board: the key press a ``pair`` asks for (``PAIR ?``)
comes as it is asked, so that ``pair`` has the key at once; paired, it wants signed commands until
it stops (the pairing is kept in RAM: each start is a board never paired).
"""

import sys

from firmware.link import protocol as P
from firmware.link.server import Server
from firmware.store.journal import Journal

SECRET = bytes(range(100, 132))  # the test secret; tests/host/records/test_sync.py knows it too
PIN = "4821"
MOVES = (
    (1, 3 << 5 | 3),
    (2, 15 << 5 | 15),
    (1, 3 << 5 | 15),
    (2, 15 << 5 | 3),
)  # (colour, y<<5|x)


class _NoMatch:
    # What the server reads of a match when no game is on the board.
    def __init__(self, pin=PIN):
        self.settings = {"game": "go19", "pin": pin}


class _NoSensing:
    n = 19  # the grid's size is all the match reads of it here


def _game():
    # A Go match on 19x19 with MOVES played, its clock paused as after a restart.
    from firmware.game.match import Match

    m = Match({"game": "go19", "time": "cn-local", "pin": PIN}, _NoSensing())
    m.clock.start(0)
    m.restore(
        {"moves": [(i + 1, c, p, 0, None) for i, (c, p) in enumerate(MOVES)], "clocks": None}
    )
    return m


def main(root, game=False, pin=PIN):
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout
    inp = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin

    def write(data):
        out.write(data)
        if hasattr(out, "flush"):
            out.flush()

    holder = _game() if game else _NoMatch(pin)
    holder.settings["pin"] = pin
    srv = Server(holder, Journal(root), SECRET, write, board="stdio")
    holder.note = lambda *a: srv.press(a[4])  # the faces' PAIR ?: the arbiter presses MODE
    while True:
        # A bounded read, as the board's ``serve`` reads: a line of any length arrives in
        # pieces the framer answers ``too_long``, never as one object the heap cannot hold.
        line = inp.readline(P.MAX_LINE + 1)
        if not line:
            return
        while line:
            line = line[srv.feed(line) :]
            while srv.poll():
                pass


if __name__ == "__main__":
    argv = sys.argv[1:]
    pin = PIN
    if "--pin" in argv:
        i = argv.index("--pin")
        pin = argv[i + 1]
        argv = argv[:i] + argv[i + 2 :]
    args = [a for a in argv if a != "--game"]
    main(args[0] if args else "games", "--game" in argv, pin)
