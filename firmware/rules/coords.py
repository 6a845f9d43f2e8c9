"""Names of points: vertices (``D4``; Go's columns skip ``I``, Gomoku's do not), SGF letters.

Internally a point is ``(x, y)`` with x from the left and y from the bottom (row 1).
"""

GO_COLUMNS = "ABCDEFGHJKLMNOPQRST"
# Seed 002 第一条1: the 15 columns are A–O from the left, no letter skipped (H8 is 天元).
GOMOKU_COLUMNS = "ABCDEFGHIJKLMNOPQRS"


def vertex(x, y, columns=GO_COLUMNS):
    """The name of ``(x, y)``, e.g. ``(3, 3)`` → ``D4``; pass GOMOKU_COLUMNS for Gomoku."""
    return columns[x] + str(y + 1)


def parse_vertex(text, size, columns=GO_COLUMNS):
    """``(x, y)`` of a vertex, or ``None`` for ``pass``; ValueError if not on the board."""
    t = text.strip().upper()
    if t == "PASS":
        return None
    if len(t) < 2 or t[0] not in columns:
        raise ValueError("not a vertex: %r" % text)
    x = columns.index(t[0])
    digits = t[1:]
    for ch in digits:
        if ch not in "0123456789":
            raise ValueError("not a vertex: %r" % text)
    y = int(digits) - 1
    if x >= size or not 0 <= y < size:
        raise ValueError("vertex off the %dx%d board: %s" % (size, size, t))
    return (x, y)


def sgf_point(x, y, size):
    """SGF's two letters for ``(x, y)``: columns from the left, rows from the top."""
    return "abcdefghijklmnopqrs"[x] + "abcdefghijklmnopqrs"[size - 1 - y]
