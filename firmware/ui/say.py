"""What the board says: the faces' words for the referee's incidents, the count and results.

Start reading at ``incident``. The reference faces are seven-segment glass (firmware/ui/face.py):
six big cells for a word, three small cells (the move number's) for a point such as ``Q16``.
So each incident kind has a word of at most six cells (firmware/ui/texts.py, the table of
every text the glass shows and of how a player reads it), the first point of the incident in
the small cells, and a longer English line that the OLED face has room for. The buzzer pattern
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
from firmware.ui import texts as T

# Whose face shows an incident: the player to move, the other one, or both.
MOVER = const(1)
OTHER = const(2)
BOTH = const(3)

# kind: (whose face, fault?, words for a display with room); the word for the big cells is
# firmware/ui/texts.py's INCIDENT[kind]
_SAY = {
    inc.MOVE: (MOVER, False, ""),
    inc.PASS: (BOTH, False, "a pass"),
    inc.CAPTURES_LEFT: (MOVER, True, "take the captured stones off"),
    inc.ILLEGAL: (MOVER, True, "not a legal point"),
    inc.WRONG_COLOUR: (MOVER, True, "wrong colour"),
    inc.TWO_MOVES: (MOVER, True, "two stones: take one back"),
    inc.MOVED_NEW: (MOVER, True, "the first point counts: put it back"),
    inc.MOVED_OLD: (BOTH, True, "a stone was moved: put it back"),
    inc.MISSING: (BOTH, True, "stones missing: put them back"),
    inc.EXTRA: (BOTH, True, "extra stones: take them off"),
    inc.SCATTERED: (BOTH, True, "the board is disturbed: restore it"),
    inc.RESTORED: (BOTH, False, "the board is restored"),
    inc.NO_STONE: (MOVER, True, "no stone: put one down first"),
    inc.UNSEEN: (MOVER, True, "a point the board cannot see"),
    inc.OFFERS: (BOTH, False, "White: keep one offer"),
    inc.KEPT: (BOTH, False, "the offer White kept"),
    inc.COUNT: (BOTH, False, "the count"),
    inc.UNDO: (BOTH, False, "the arbiter took a move back"),
    inc.PRESS_FIRST: (OTHER, True, "pressed before the stone: the arbiter decides"),
    inc.DISPUTE: (BOTH, False, "disputed: put the stones back, play on"),
    inc.SWAP: (BOTH, False, "White takes Black (swap)"),
    inc.FOUL: (BOTH, True, "Black's forbidden move: White may claim"),
    inc.CLAIM: (BOTH, False, "a claim"),
    inc.FALSE_CLAIM: (BOTH, True, "nothing to claim"),
    inc.NOT_CLEAR: (BOTH, True, "clear the board to start"),
    # The remote side's move goes to the player at the board (the side not to move): the
    # colour's letter in the big cells, the point in the small ones ("W Q16").
    inc.REMOTE: (OTHER, False, "the remote side's move: put its stone there"),
    inc.WRONG_POINT: (OTHER, True, "not that point: the stone belongs there"),
    # Go's end against an engine: its dead stones are shown by the DEAD phase itself (the app
    # says DEAD. and each point in turn); a count it does not share is said on both faces.
    inc.REMOTE_DEAD: (OTHER, False, "the engine's dead stones: lift them"),
    inc.COUNT_DIFFERS: (BOTH, True, "the engine's count differs"),
}

_UNKNOWN = (BOTH, True, "an incident")

# Go's reasons for an illegal point (go_board: OFF_BOARD 1, OCCUPIED 2, KO 3, SUICIDE 4,
# SUPERKO 5, FULL 6) and Gomoku's (rules/gomoku.py: OFF_BOARD 1 … CHOOSE_FIRST 14): the word
# the player needs instead of "illegal" is texts.GO_ILLEGAL / GOMOKU_ILLEGAL[reason]. FULL is
# a game past the 1,024 plies the board records: the arbiter decides (the game is kept).
_GO_ILLEGAL_MORE = (
    "not a legal point",
    "off the board",
    "the point is taken",
    "ko: play elsewhere first",
    "suicide is not allowed",
    "the position repeats",
    "the record is full: call the arbiter",
)
_GOMOKU_ILLEGAL_MORE = {
    1: "off the board",
    2: "the point is taken",
    3: "the game is over",
    4: "not this colour's turn",
    6: "the first stone goes on the centre",
    7: "the third stone must make one of the 26 openings",
    8: "the fifth-move offers first",
    10: "the fifth-move offers first",
    11: "not offers the rules allow",
    12: "two offers of the same shape",
    13: "not one of the offers",
    14: "White chooses an offer first",
}


def kinds():
    """Every incident kind the board has words for (all of incidents.py's)."""
    return sorted(_SAY)


# An OFFERS incident by its detail (incidents.py's OFFERS_SHORT ...): the offers taken, or
# why Black's or White's press was refused: (fault?, words for a display with room); the word
# is texts.OFFERS_SAY[detail]. The small cells show how many stones (the refusal's points),
# or for a shape twice the offer to move.
_OFFERS_SAY = (
    (False, "White: keep one offer"),
    (True, "fewer offers than announced: put them all down"),
    (True, "more offers than announced: take some off"),
    (True, "two offers of the same shape: move this one"),
    (True, "White: keep exactly one offer, lift the others"),
)


def _offers(kind, detail):
    # The OFFERS incident's detail when it has words of its own (_OFFERS_SAY), else -1.
    if kind == inc.OFFERS and isinstance(detail, int) and 0 <= detail < len(_OFFERS_SAY):
        return detail
    return -1


def is_fault(kind, detail=0):
    """True when the incident asks the player to act (the refuse pattern sounds): an OFFERS
    incident by its ``detail`` (a refused press)."""
    o = _offers(kind, detail)
    if o >= 0:
        return _OFFERS_SAY[o][0]
    return _SAY.get(kind, _UNKNOWN)[1]


def face_of(kind):
    """MOVER, OTHER or BOTH: whose face shows the incident."""
    return _SAY.get(kind, _UNKNOWN)[0]


def pattern(kind, detail=0):
    """The buzzer pattern of an incident kind (and detail, see ``is_fault``)."""
    return buzzer.REFUSE if is_fault(kind, detail) else buzzer.KEY


def point_name(p, gomoku):
    """A point of the game (``y << 5 | x``, as every record has it) as the players name it:
    Go's columns skip I, Gomoku's do not (002 第一条1)."""
    columns = GOMOKU_COLUMNS if gomoku else GO_COLUMNS
    return columns[p & 31] + str((p >> 5) + 1)


def _reason(kind, detail, gomoku):
    # The rules' reason an illegal point carries (0: none, or one without a word).
    if kind == inc.ILLEGAL and isinstance(detail, int) and detail > 0:
        words = T.GOMOKU_ILLEGAL if gomoku else T.GO_ILLEGAL
        return detail if detail < len(words) else 0
    return 0


def word(kind, detail, gomoku):
    """The word in the big cells for an incident: an illegal point says why (KO, CENTER ...)."""
    reason = _reason(kind, detail, gomoku)
    if reason:
        return (T.GOMOKU_ILLEGAL if gomoku else T.GO_ILLEGAL)[reason]
    if kind == inc.REMOTE:  # detail: the remote side's colour
        return T.SIDES[detail if detail == 1 or detail == 2 else 0]
    o = _offers(kind, detail)
    if o >= 0:
        return T.OFFERS_SAY[o]
    return T.INCIDENT[kind] if 0 < kind < len(T.INCIDENT) else T.INCIDENT[0]


def more(kind, detail, gomoku):
    """The longer line for a display with room, without what the points add (``incident``)."""
    reason = _reason(kind, detail, gomoku)
    o = _offers(kind, detail)
    if o >= 0:
        return _OFFERS_SAY[o][1]
    if reason and not gomoku:
        return _GO_ILLEGAL_MORE[reason]
    if reason and reason in _GOMOKU_ILLEGAL_MORE:
        return _GOMOKU_ILLEGAL_MORE[reason]
    return _SAY.get(kind, _UNKNOWN)[2]


# Before a game, while the board is cleared for it (firmware/game/app.py's ``clearing``, after
# PAUSE was refused): the word and how many are left in the big cells, the next point in the
# small ones, one at a time as the stones come off: ``CLR. 23  D4`` (23 stones to take off,
# the next on D4), ``PUT.  2  D4`` (handicap stones to put down). The words: texts.py.
CLEAR_WORD = T.CLEAR_WORD
PUT_WORD = T.PUT_WORD
OUTSIDE = T.OUTSIDE
CLEARED = T.OK  # the board is ready: PAUSE starts the game
# The OLED's text line: the small cells' text and these, 16 characters at most ("Q16 take it
# off", "OUT of the game").
CLEAR_MORE = "take it off"
PUT_MORE = "put a stone"
OUTSIDE_MORE = "of the game"
CLEARED_MORE = "PAUSE starts"

# Renju's fifth move (五手N打, 002 第三条2): Black puts N offers down at once, White keeps one
# and lifts the others. While Black puts them down the faces show how many are down of how
# many are due, ``3/10`` in the big cells (``offers_into``) and OFFERS_WORD in the small
# ones; while White chooses, CHOOSE_WORD and how many offered stones are still down.
OFFERS_WORD = T.OFFERS_LABEL
OFFERS_MORE = "Black: put down the fifth-move offers (down/due), then press"
CHOOSE_WORD = T.SELECT
CHOOSE_MORE = "White: keep one offer, lift the others, play 6, press"


@micropython.native
def count_into(buf, at, v, width=3):
    """``v`` right-aligned in the ``width`` (2 or 3) characters of ``buf`` from ``at`` (99 or
    999 at most), blanks before it. Allocates nothing (the faces redraw a count on every
    pass)."""
    top = 99 if width == 2 else 999
    if v > top:
        v = top
    i = at
    while i < at + width:
        buf[i] = 32
        i += 1
    i = at + width - 1
    while True:
        buf[i] = 48 + v % 10
        v //= 10
        i -= 1
        if v == 0 or i < at:
            break


@micropython.native
def point_into(buf, p, gomoku):
    """The name of point ``p`` (``y << 5 | x``) as ASCII into ``buf`` (3 bytes), as
    ``point_name`` says it; its length. Allocates nothing."""
    columns = GOMOKU_COLUMNS if gomoku else GO_COLUMNS
    buf[0] = ord(columns[p & 31])
    return 1 + digits_into(buf, (p >> 5) + 1, 1)


@micropython.native
def small_into(buf, kind, npoints, first, gomoku, detail=0):
    """The small cells' text of an incident with ``npoints`` points, the first ``first``
    (a point code), as ASCII into ``buf`` (3 bytes); its length. Allocates nothing: the app
    says incidents from its pass."""
    if (kind == inc.OFFERS and detail != inc.OFFERS_SAME) or kind == inc.NOT_CLEAR:
        return digits_into(buf, npoints) if npoints else 0
    if not npoints:
        return 0
    return point_into(buf, first, gomoku)


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


@micropython.native
def offers_into(buf, down, due):
    """The fifth-move offers' count, ``down/due`` (``3/10``), as ASCII into ``buf`` (5
    bytes: each side 99 at most); its length. Allocates nothing."""
    k = digits_into(buf, down if down < 99 else 99)
    buf[k] = 47  # '/'
    return k + 1 + digits_into(buf, due if due < 99 else 99, k + 1)


def offers_text(down, due):
    """``(big, small, more)`` while Black puts the fifth-move offers down: ``("3/10",
    "OFR", ...)``. Builds strings: for the PC and the tests (the app uses ``offers_into``)."""
    buf = bytearray(5)
    return bytes(buf[: offers_into(buf, down, due)]).decode(), OFFERS_WORD, OFFERS_MORE


def incident(kind, points, detail, gomoku):
    """``(word, small, more)`` for the faces: the word in the big cells, the first point (or
    a count) in the small ones, a longer line for a display with room (what the points add
    included: builds strings, for the PC and the tests; the app uses ``word``, ``more`` and
    ``small_into``)."""
    w = word(kind, detail, gomoku)
    m = more(kind, detail, gomoku) if kind in _SAY else "incident %d" % kind
    buf = bytearray(3)
    first = points[0] if points else 0
    small = bytes(buf[: small_into(buf, kind, len(points), first, gomoku, detail)]).decode()
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
    points, then Chinese style in stones (黑胜1¾子 = ``B 1.75``; ``B180.75`` where the space
    has no room); ``TIE`` both ways for a draw."""
    if margin4 == 0:
        return T.TIE, T.TIE
    side = T.SIDES[1 if margin4 > 0 else 2]
    q = margin4 if margin4 > 0 else -margin4  # quarter stones = half points
    points = T.MARGIN % (side, str(q // 2) + (T.HALF if q % 2 else ""))
    whole = q // 4
    tight = whole >= 100 and q % 4  # 7 cells with the space: B180.75
    stones = (T.STONES_LONG if tight else T.STONES) % (side, str(whole) + T.QUARTERS[q % 4])
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
    """A result as the big cells show it: "B+R", "W+T", "B+3.5", "TIE", "NULL" (void);
    Gomoku's words (``B+ (five)``, ``W+F (double-three)``) shortened to ``B+5``, ``W+F``."""
    if not result:
        return ""
    if result.startswith("Draw") or result == "0":
        return T.TIE
    if result.startswith("Void"):
        return T.NULL
    head = result.split(" ")[0]
    if "(five)" in result:
        return head + T.RESULT_FIVE
    return head


def result_small(result):
    """The small cells under a result: Gomoku's foul ("33", "44", "6" for an overline)."""
    more = result_more(result)
    for name, small in T.FOULS:
        if name == more:
            return small
    return ""


def result_more(result):
    """The rest of a result for a display with room ("double-three", "five")."""
    i = result.find("(")
    return result[i + 1 : -1] if i >= 0 else ""
