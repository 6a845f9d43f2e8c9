"""What the board says: the faces' words for the referee's incidents, the count and results.

Start reading at ``incident``. The reference faces are seven-segment glass (firmware/ui/face.py):
six big cells for a word, three small cells (the move number's) for a point such as ``Q16``.
So each incident kind has a word of at most six cells, chosen to read on segments (K, M, V,
W and X are poor there, so no word leans on them), the first point of the incident in the
small cells, and a longer English line that the OLED face has room for. The buzzer pattern
tells a fault (``buzzer.REFUSE``: the player must act) from news (``buzzer.KEY``: a pass, the
board restored, the count). Chinese words stay in the log (firmware/referee/incidents.py) and
on the PC: the faces have no glyphs for them.

The app says incidents from its pass, which allocates nothing: ``word``, ``more`` and
``small_into`` give constant strings and write the point into a buffer; ``incident`` builds
the whole text for the PC and the tests.
"""

import micropython
from micropython import const

from firmware.referee import incidents as inc
from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS
from firmware.ui import buzzer

# Whose face shows an incident: the player to move, the other one, or both.
MOVER = const(1)
OTHER = const(2)
BOTH = const(3)

# kind: (word for six big cells, whose face, fault?, words for a display with room)
_SAY = {
    inc.MOVE: ("", MOVER, False, ""),
    inc.PASS: ("PASS", BOTH, False, "a pass"),
    inc.CAPTURES_LEFT: ("CAP", MOVER, True, "take the captured stones off"),
    inc.ILLEGAL: ("ILLEGL", MOVER, True, "not a legal point"),
    inc.WRONG_COLOUR: ("COLOR", MOVER, True, "wrong colour"),
    inc.TWO_MOVES: ("2 STON", MOVER, True, "two stones: take one back"),
    inc.MOVED_NEW: ("PUTBAC", MOVER, True, "the first point counts: put it back"),
    inc.MOVED_OLD: ("MOVED", BOTH, True, "a stone was moved: put it back"),
    inc.MISSING: ("GONE", BOTH, True, "stones missing: put them back"),
    inc.EXTRA: ("EXTRA", BOTH, True, "extra stones: take them off"),
    inc.SCATTERED: ("FIX", BOTH, True, "the board is disturbed: restore it"),
    inc.RESTORED: ("OK", BOTH, False, "the board is restored"),
    inc.NO_STONE: ("NO STN", MOVER, True, "no stone: put one down first"),
    inc.UNSEEN: ("CHECK", MOVER, True, "a point the board cannot see"),
    inc.OFFERS: ("OFFERS", BOTH, False, "White: keep one offer"),
    inc.KEPT: ("KEPT", BOTH, False, "the offer White kept"),
    inc.COUNT: ("COUNT", BOTH, False, "the count"),
    inc.UNDO: ("UNDO", BOTH, False, "the arbiter took a move back"),
    inc.PRESS_FIRST: ("LATE", OTHER, True, "pressed before the stone: the arbiter decides"),
    inc.DISPUTE: ("PLAY ON", BOTH, False, "disputed: put the stones back, play on"),
    inc.SWAP: ("SWAP", BOTH, False, "White takes Black (swap)"),
    inc.FOUL: ("FOUL", BOTH, True, "Black's forbidden move: White may claim"),
    inc.CLAIM: ("CLAIM", BOTH, False, "a claim"),
    inc.FALSE_CLAIM: ("NO CLM", BOTH, True, "nothing to claim"),
    inc.NOT_CLEAR: ("CLEAR", BOTH, True, "clear the board to start"),
    # The remote side's move goes to the player at the board (the side not to move): the
    # colour's letter in the big cells, the point in the small ones ("W Q16").
    inc.REMOTE: ("", OTHER, False, "the remote side's move: put its stone there"),
    inc.WRONG_POINT: ("PUT", OTHER, True, "not that point: the stone belongs there"),
    # Go's end against an engine: its dead stones are shown by the DEAD phase itself (the app
    # says LIFT and each point in turn); a count it does not share is said on both faces.
    inc.REMOTE_DEAD: ("LIFT", OTHER, False, "the engine's dead stones: lift them"),
    inc.COUNT_DIFFERS: ("DIFFER", BOTH, True, "the engine's count differs"),
}

_COLOUR_LETTERS = ("?", "B", "W")

_UNKNOWN = ("?", BOTH, True, "an incident")

# Go's reasons for an illegal point (go_board: OFF_BOARD 1, OCCUPIED 2, KO 3, SUICIDE 4,
# SUPERKO 5, FULL 6): the word the player needs instead of "illegal". FULL is a game past
# the 1,024 plies the board records: the arbiter decides (the game is kept up to there).
_GO_ILLEGAL = ("ILLEGL", "OFF", "TAKEN", "KO", "SUICID", "REPEAT", "FULL")
_GO_ILLEGAL_MORE = (
    "not a legal point",
    "off the board",
    "the point is taken",
    "ko: play elsewhere first",
    "suicide is not allowed",
    "the position repeats",
    "the record is full: call the arbiter",
)


def kinds():
    """Every incident kind the board has words for (all of incidents.py's)."""
    return sorted(_SAY)


def is_fault(kind):
    """True when the incident asks the player to act (the refuse pattern sounds)."""
    return _SAY.get(kind, ("", BOTH, True, ""))[2]


def face_of(kind):
    """MOVER, OTHER or BOTH: whose face shows the incident."""
    return _SAY.get(kind, ("", BOTH, True, ""))[1]


def pattern(kind):
    """The buzzer pattern of an incident kind."""
    return buzzer.REFUSE if is_fault(kind) else buzzer.KEY


def point_name(p, gomoku):
    """A point of the game (``y << 5 | x``, as every record has it) as the players name it:
    Go's columns skip I, Gomoku's do not (002 第一条1)."""
    columns = GOMOKU_COLUMNS if gomoku else GO_COLUMNS
    return columns[p & 31] + str((p >> 5) + 1)


def _go_reason(kind, detail, gomoku):
    # The Go rules' reason an illegal point carries (0: none, or not Go's).
    if kind == inc.ILLEGAL and not gomoku and isinstance(detail, int):
        return detail if 0 < detail < len(_GO_ILLEGAL) else 0
    return 0


def word(kind, detail, gomoku):
    """The word in the big cells for an incident: Go's illegal points say why (KO ...)."""
    reason = _go_reason(kind, detail, gomoku)
    if kind == inc.REMOTE:  # detail: the remote side's colour
        return _COLOUR_LETTERS[detail if detail == 1 or detail == 2 else 0]
    return _GO_ILLEGAL[reason] if reason else _SAY.get(kind, _UNKNOWN)[0]


def more(kind, detail, gomoku):
    """The longer line for a display with room, without what the points add (``incident``)."""
    reason = _go_reason(kind, detail, gomoku)
    return _GO_ILLEGAL_MORE[reason] if reason else _SAY.get(kind, _UNKNOWN)[3]


@micropython.native
def small_into(buf, kind, npoints, first, gomoku):
    """The small cells' text of an incident with ``npoints`` points, the first ``first``
    (a point code), as ASCII into ``buf`` (3 bytes); its length. Allocates nothing: the app
    says incidents from its pass."""
    if kind == inc.OFFERS or kind == inc.NOT_CLEAR:
        return digits_into(buf, npoints) if npoints else 0
    if not npoints:
        return 0
    columns = GOMOKU_COLUMNS if gomoku else GO_COLUMNS
    buf[0] = ord(columns[first & 31])
    return 1 + digits_into(buf, (first >> 5) + 1, 1)


@micropython.native
def digits_into(buf, v, at=0):
    """``v`` in decimal (999 at most: three cells) as ASCII into ``buf`` from ``at``; how
    many digits."""
    if v > 999:
        v = 999
    k = 3 if v >= 100 else 2 if v >= 10 else 1
    i = at + k - 1
    while i >= at:
        buf[i] = 48 + v % 10
        v //= 10
        i -= 1
    return k


def incident(kind, points, detail, gomoku):
    """``(word, small, more)`` for the faces: the word in the big cells, the first point (or
    a count) in the small ones, a longer line for a display with room (what the points add
    included: builds strings, for the PC and the tests; the app uses ``word``, ``more`` and
    ``small_into``)."""
    w = word(kind, detail, gomoku)
    m = more(kind, detail, gomoku) if kind in _SAY else "incident %d" % kind
    buf = bytearray(3)
    small = bytes(buf[: small_into(buf, kind, len(points), points[0] if points else 0, gomoku)])
    small = small.decode()
    if points and kind != inc.OFFERS and kind != inc.NOT_CLEAR:
        if len(points) > 1 and kind != inc.WRONG_POINT:
            m += " (%d points)" % len(points)
        if kind == inc.MOVED_NEW:  # the first point, where the stone must go back
            m = "put it back on " + small
        elif kind == inc.REMOTE or kind == inc.WRONG_POINT:  # where the stone belongs
            m = m.replace("there", small)
    return w, small, m


def margin_text(margin4):
    """The count's result both ways (000 第九条): ``("B+3.5", "B 1.75")`` — SGF style in
    points, then Chinese style in stones (黑胜1¾子 = ``B 1.75``); ("0", "0") for a draw."""
    if margin4 == 0:
        return "DRAW", "DRAW"
    side = "B" if margin4 > 0 else "W"
    q = margin4 if margin4 > 0 else -margin4  # quarter stones = half points
    points = "%s+%d" % (side, q // 2) + (".5" if q % 2 else "")
    stones = "%s %d" % (side, q // 4) + ("", ".25", ".5", ".75")[q % 4]
    return points, stones


def stones_words(margin4):
    """黑胜1¾子 in words for a display with room: "B wins by 1 3/4 stones"."""
    if margin4 == 0:
        return "a draw"
    side = "B" if margin4 > 0 else "W"
    q = margin4 if margin4 > 0 else -margin4
    frac = ("", " 1/4", " 1/2", " 3/4")[q % 4]
    return "%s wins by %d%s stones" % (side, q // 4, frac)


def result_word(result):
    """A result as the big cells show it: "B+R", "W+T", "B+3.5", "DRAW"; Gomoku's words
    (``B+ (five)``, ``W+F (double-three)``) shortened to ``B+5``, ``W+F``."""
    if not result:
        return ""
    if result.startswith("Draw") or result == "0":
        return "DRAW"
    if result.startswith("Void"):
        return "VOID"
    head = result.split(" ")[0]
    if "(five)" in result:
        return head + "5"
    return head[:6]


_FOUL_SMALL = {"double-three": "33", "double-four": "44", "overline": "6"}


def result_small(result):
    """The small cells under a result: Gomoku's foul ("33", "44", "6" for an overline)."""
    return _FOUL_SMALL.get(result_more(result), "")


def result_more(result):
    """The rest of a result for a display with room ("double-three", "five")."""
    i = result.find("(")
    return result[i + 1 : -1] if i >= 0 else ""
