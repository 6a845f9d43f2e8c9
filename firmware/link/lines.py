"""Bounded line reading for the stdin servers run on the PC (not on the board: not frozen).

Start reading at ``read_line``. GTP (``firmware/gtp/``, ``host_tools/play/gtp_board.py``), the virtual
board's hands in simulated time (``firmware/virtual/board.py --simulated``) and in real time
(``host_tools/board/sim.py``) read a line at a time as the board's link does (``protocol.Framer``):
never more than ``LIMIT`` bytes held, a longer line read and dropped in pieces and answered
as an error, and the next line served (one 32 KB line used to be read whole into the heap:
``MemoryError`` on the unix port in a small heap).
"""

LIMIT = 4096  # bytes (characters on a text stream) of a command line, its newline not counted


def read_line(stream, limit=LIMIT):
    """The next line of ``stream`` (bytes or text, its newline kept; empty at the end), or None
    when it held more than ``limit``: then it was read to its end and dropped."""
    line = stream.readline(limit + 1)
    nl = b"\n" if isinstance(line, bytes) else "\n"
    if len(line) <= limit or line[-1:] == nl:
        return line
    while line and line[-1:] != nl:
        line = stream.readline(limit + 1)
    return None
