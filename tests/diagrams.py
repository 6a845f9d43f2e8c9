"""Go positions as ASCII diagrams, so that rule tests read like boards (as KataGo's tests do).

A diagram is the board as it is printed: the top row first (y = size - 1), each row from the
left (x = 0). The size is the number of rows. Spaces and blank lines are ignored, so a diagram
may sit indented in a triple-quoted string and either spacing works::

    . X O .        .XO.
    X O * O        XO*O
    . X O .        .XO.
    . . . .        ....

``X`` is a black stone, ``O`` a white one, ``.`` or ``+`` an empty point. Any other character
(``*``, ``a``, ``b`` ...) is an empty point with a name: ``marked(diagram)`` gives the ``(x, y)``
of ``*``, ``marked(diagram, "a")`` that of ``a``. In the diagram above ``*`` is ``(2, 2)``.

``diagram_of(game)`` prints a position in the spaced layout, one line per row, and
``normal(diagram)`` brings any diagram to that layout (names become ``.``), so a test checks
a position with ``diagram_of(game) == normal(expected)``.
"""

from firmware.rules.go import KO_CHINESE, Game
from firmware.rules.go_board import BLACK, EMPTY, SUICIDE_FORBID, WHITE

_STONES = {"X": BLACK, "O": WHITE, ".": EMPTY, "+": EMPTY}
_CHARS = {BLACK: "X", WHITE: "O", EMPTY: "."}


def rows_of(diagram):
    """The diagram's rows, top first, without spaces; ValueError unless it is square."""
    rows = []
    for line in diagram.split("\n"):
        row = "".join(line.split())
        if row:
            rows.append(row)
    for row in rows:
        if len(row) != len(rows):
            raise ValueError(
                "a %d-row diagram needs %d points a row: %r" % (len(rows), len(rows), row)
            )
    return rows


def board_from(diagram, ko_rule=KO_CHINESE, suicide=SUICIDE_FORBID, to_move=BLACK):
    """A new ``Game`` whose start position (ply 0) is ``diagram``, ``to_move`` to play."""
    rows = rows_of(diagram)
    n = len(rows)
    game = Game(n, ko_rule=ko_rule, suicide=suicide)
    for i, row in enumerate(rows):
        for x, ch in enumerate(row):
            c = _STONES.get(ch, EMPTY)
            if c:
                game.setup(c, x, n - 1 - i)
    game.set_to_move(to_move)
    return game


def diagram_of(game):
    """The position of a ``Game`` (or a bare board) in the spaced layout, top row first."""
    board = getattr(game, "board", game)
    n = board.size
    lines = []
    for y in range(n - 1, -1, -1):
        lines.append(" ".join(_CHARS[board.color_at(x, y)] for x in range(n)))
    return "\n".join(lines)


def normal(diagram):
    """``diagram`` in the layout ``diagram_of`` prints, named points shown as ``.``."""
    rows = rows_of(diagram)
    return "\n".join(" ".join(_CHARS[_STONES.get(ch, EMPTY)] for ch in row) for row in rows)


def marked(diagram, mark="*"):
    """``(x, y)`` of the one point named ``mark``; ValueError if there is none or several."""
    rows = rows_of(diagram)
    n = len(rows)
    found = [
        (x, n - 1 - i) for i, row in enumerate(rows) for x, ch in enumerate(row) if ch == mark
    ]
    if len(found) != 1:
        raise ValueError("%d points marked %r" % (len(found), mark))
    return found[0]


def gomoku_from(diagram, variant=0, claims=0, to_move=BLACK):
    """A new ``Gomoku`` (Renju by default) set up with ``diagram``, ``to_move`` to play."""
    from firmware.rules.gomoku import Gomoku

    rows = rows_of(diagram)
    n = len(rows)
    black = []
    white = []
    for i, row in enumerate(rows):
        for x, ch in enumerate(row):
            c = _STONES.get(ch, EMPTY)
            if c == BLACK:
                black.append((x, n - 1 - i))
            elif c == WHITE:
                white.append((x, n - 1 - i))
    game = Gomoku(variant, size=n, claims=claims)
    game.setup(black, white, to_move)
    return game
