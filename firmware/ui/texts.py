"""Every text the faces can show: the one table of the words on the glass.

Start reading at ``table``. The reference face is seven-segment glass (firmware/ui/face.py):
six big cells (a point after each, colons between them) and three small cells (the move
number's; no points). Every word, label and template a face can draw is here; the modules
that draw (firmware/game/app.py, ui/say.py, ui/menus.py, ui/arbiter.py, ui/calibrate.py,
bootlog.py, match.py) take their texts from these names, and tests/test_glass_texts.py draws
each entry of ``table`` (its fields filled with the worst cases) through the real HT1621
driver onto the emulated glass and reads it back (firmware/hal/virtual.py ``read``): what
the player reads must be what was meant, nothing cut. tests/host/test_glass_stray.py fails
on a string literal that reaches a face without coming from here, the test bench's faces
(tests/rig.py) on a text drawn that is not in ``table``, and the README's table of words
must match this one. The OLED face may say more (the
``more`` words beside each text): only the glass is the constraint.

How a player reads the glass (``read`` models it, and the test holds the words to it):

- a run of lit cells with no blank, symbol or point between them is one word;
- seven segments give some characters one shape: 0/O, 2/Z, 5/S, H/X, C/[. Such a cell reads
  as the cell after it in its word reads (``STON``; ``W252.5``: a letter before a number is
  its prefix), as a digit before a point or a colon (``B180.75``), and at the word's end as
  the nearest cell before it that can be only a letter or only a digit (``GO``); a word
  with no such cell reads as digits (``2 STON``, ``23``);
- the word in the big cells tells what the small cells hold: a point (``Q16``, ``S15``,
  ``O15``: a column letter and a row), a count (``23``, never ``Z3``), or a word;
- X reads as H and V as u: no text has them. K, M and W have shapes of their own (no other
  character lights those segments) but unfamiliar ones: only the game's own words use them
  (``KO``, komi's ``KOM``), ``OK``, and ``W``, White's letter, where the player expects B
  or W.

To add a text: (1) put the word here as a name (or a tuple the code indexes), and draw it
from there (``T.NAME``: no string literal at the call); (2) add its line to ``table``:
``big|small``, each a fixed text or a field mark below (``CLEAR|@``); (3) add it to the
README's table of words ("Playing at the board"); (4) run tests/test_glass_texts.py (both
runtimes) and tests/host/test_glass_stray.py. A word takes at most six big cells ('.' and
':' take none), a small text three cells; a word comes with a point or with a count, never
both; a new kind of field needs a mark here and its predicate and worst cases in
tests/glass.py (``_field``, ``fill_values``).

Field marks in ``table`` (what the drawing code fills in): ``@`` a point of the game
(``say.point_name``; an incident may come without it) · ``#`` a count 0 … 999 · ``$`` the
side's letter (``SIDES``) · ``~`` a signed time ``+m:ss`` (the arbiter's adjustment) · ``^``
komi in points (``menus.komi_text``) · ``&`` a margin in points, ``%`` in stones, ``;`` in
stones from 100 with a fraction (``say.margin_text``) · ``<`` the PIN being entered
(``PIN_*``) · ``>`` a self-check's tag (firmware/boot/selfcheck.py) · ``!`` the clock's time
(clock.format_time, drawn by ``show``) · a backquote: a count 0 … 999 right-aligned in three
cells, blanks before it (``say.count_into``: ``CLR.  2``, ``CLR. 23``) · ``*`` a count
0 … 99 (the fifth-move offers, down/due: ``3/10``) · ``{`` a count 0 … 99 right-aligned in two
cells (``DEAD. 3``).
"""

# ---- the sides and the referee's incidents (ui/say.py) ----------------------------------------
SIDES = ("?", "B", "W")  # by colour: White's W is the one W on the glass

# By incident kind (firmware/referee/incidents.py: MOVE 1 … WRONG_POINT 27); the small cells
# take the first point (a count for OFFERS and NOT_CLEAR); REMOTE shows the side's letter.
INCIDENT = (
    "?",  # an unknown kind
    "",  # MOVE: the clock shows it
    "PASS",
    "CAP",  # CAPTURES_LEFT
    "ILLEGL",  # ILLEGAL without a reason (the reasons: GO_ILLEGAL, GOMOKU_ILLEGAL)
    "COLOR",  # WRONG_COLOUR
    "2 STON",  # TWO_MOVES
    "PUTBAC",  # MOVED_NEW: put it back on the first point
    "SHIFT",  # MOVED_OLD: a stone of the position moved
    "GONE",  # MISSING
    "LIFT",  # EXTRA: stones the position does not have
    "RESTOR",  # SCATTERED: the board disturbed, restore it
    "OK",  # RESTORED
    "NO STN",  # NO_STONE
    "UNSEEN",  # UNSEEN
    "OFFERS",  # OFFERS (a count)
    "CHOSEN",  # KEPT: the offer White kept
    "COUNT",
    "UNDO",
    "LATE",  # PRESS_FIRST
    "GO ON",  # DISPUTE: play goes on (以实战解决)
    "CHANGE",  # SWAP: White takes Black (三手可交换)
    "FOUL",
    "CALL",  # CLAIM
    "FALSE",  # FALSE_CLAIM
    "CLEAR",  # NOT_CLEAR (a count)
    "",  # REMOTE: the side's letter (SIDES)
    "PUT",  # WRONG_POINT
    "",  # REMOTE_DEAD: the engine's dead stones, said by LIFT_DEAD on the DEAD face
    "DIFFER",  # COUNT_DIFFERS: the engine's count is not the board's (the first point in doubt)
)
# An OFFERS incident by its detail (incidents.py: 0 taken, OFFERS_SHORT 1 … OFFERS_KEEP 4):
# the offers taken, or why the press was refused: too few, too many ("OVER" has a V, which
# reads as u), two of one shape (with the offer to move), White not keeping exactly one.
OFFERS_SAY = ("OFFERS", "SHORT", "SPARE", "DOUBLE", "SELECT")
# Renju's fifth move (五手N打) at the board: while Black puts the offers down, how many are
# down of how many are due in the big cells ("3/10") and this label in the small ones; while
# White chooses, SELECT with how many offered stones are still down.
SELECT = "SELECT"
# Before a game, the board cleared for it (app.py): the word with how many are left in the
# big cells ("CLR. 23", the point keeping the count apart from the word), the next point in
# the small ones, or OUTSIDE for a stone outside a smaller game's area (it has no name).
CLEAR_WORD = "CLR."  # a stone to take off
PUT_WORD = "PUT."  # a handicap stone to put down
OUTSIDE = "OUT"

# Go's reasons for an illegal point (go_board: OFF_BOARD 1 … FULL 6).
GO_ILLEGAL = ("ILLEGL", "OFF", "FILLED", "KO", "SUICID", "REPEAT", "FULL")
# Gomoku's (rules/gomoku.py: OFF_BOARD 1 … CHOOSE_FIRST 14); "ILLEGL" where none applies.
GOMOKU_ILLEGAL = (
    "ILLEGL",
    "OFF",
    "FILLED",
    "ENDED",  # GAME_OVER
    "TURN",  # WRONG_TURN
    "ILLEGL",
    "CENTER",  # NOT_ON_TENGEN: the first stone on the centre
    "OPENNG",  # NOT_AN_OPENING: the third stone makes one of the 26 openings
    "OFFER?",  # NO_OFFER_COUNT
    "ILLEGL",
    "OFFER?",  # OFFERS_NEEDED
    "OFFER?",
    "OFFER?",
    "OFFER?",
    "CHOOSE",  # CHOOSE_FIRST: White chooses an offer first
)

# ---- Go's end and results (say.py, app.py) -------------------------------------------------
DEAD = "DEAD"  # lift the dead stones (with how many)
# Against an engine: how many of the stones it calls dead are still down (two cells, 99 at
# most, the point keeping the count apart from the word) and the next of them in the small
# cells: "DEAD. 3  C3"; then DEAD with how many were lifted.
LIFT_DEAD = "DEAD."
NO = "NO"  # under the count on the engine's face: its count differs
OK = "OK"  # a count confirmed (the small cells under the count)
ASK = "OK?"
TIE = "TIE"  # a draw
NULL = "NULL"  # a void game, both lose
MARGIN = "%s+%s"  # side, points: B+3.5
STONES = "%s %s"  # side, stones: B 1.75 (黑胜1¾子)
STONES_LONG = "%s%s"  # B180.75: no room for the space (B 200 has)
HALF = ".5"
QUARTERS = ("", ".25", ".5", ".75")
RESULT_FIVE = "5"  # Gomoku's five: B+5
FOULS = (("double-three", "33"), ("double-four", "44"), ("overline", "6"))

# ---- the app's own words (app.py) ----------------------------------------------------------
RESIGN = "RESIGN"
QUESTION = "?"
CLOSED = "CLOSED"  # the arbiter's mode locked after wrong PINs (with the seconds left)
NO_PIN = "NO PIN"  # a wrong PIN
SCAN = "SCAN"  # the scan stalled
RESET = "RESET"  # the settings reset to the defaults ...
SETTINGS = "SET"  # ... (its small cells)
NO_CAL = "NO CAL"  # no calibration
DONE = "DONE"  # an arbiter action without a word of its own
PAIR = "PAIR"  # the PC asks for the board's key: MODE confirms (link/server.py, with QUESTION)
# After a power cut, on the face of the player who was to play, by turns with its clock until
# the game goes on: how long the board was off (the RTC's count, as the clock writes a time)
# with OFF in the small cells ("3:12  OFF"); "OFF  ?" when the RTC could not say.
OFF = "OFF"

# ---- the arbiter (ui/arbiter.py) -----------------------------------------------------------
# By action (arbiter.py: EXIT 5, PAUSE 6 … LATE 14): the list's labels, then the word said
# once the action is done.
ARB_LIST = ("", "", "", "", "", "QUIT", "PAUSE", "PLAY", "ADJUST", "UNDO", "ALERT")
ARB_LIST += ("RESULT", "T.PASS", "SEAL", "LATE")
ARB_DONE = ("", "", "", "", "", "", "PAUSED", "PLAY", "ADJUST", "UNDO", "ALERT")
ARB_DONE += ("RESULT", "T.PASS", "SEALED", "LATE")
ARB_RESULTS = (TIE, SIDES[1] + "+", SIDES[2] + "+", NULL)  # by result: DRAW 0, B, W, BOTH_LOSE
ARB_RESULT = "RES"  # the small cells while a result is chosen
PIN = "PIN"  # the small cells while the PIN is entered; the big ones: ...
PIN_TAKEN = "-"  # ... a digit taken (hidden),
PIN_TO_COME = "_"  # ... one still to come
ADJ_TIME = "%s%d:%02d"  # sign, minutes, seconds: +1:30
SIGNS = ("+", "-")

# ---- the settings menu (ui/menus.py): the value in the big cells, a label in the small ------
GAMES = (("GO", "19"), ("GO", "13"), ("GO", "9"), ("RENJU", "15"), ("STD", "15"))
GAMES += (("FREE", "15"),)  # the order of menus.GAMES
RULES = ("1988", "1979", "TAI", "NATION")  # menus.RULES: 1988, 1979, taiwan, national
RULES_LABEL = "RUL"
KO = ("BASIC", "CN", "POS", "SIT")  # settings.KO_RULES: simple, chinese, positional, situ…
KO_LABEL = "KO"
KOMI_LABEL = "KOM"
HANDICAP_LABEL = "HCP"
OPENINGS = ("FREE", "DESIG")  # free, designated
OPENING_LABEL = "OPN"
OFFERS_LABEL = "OFR"  # the menu's offers, and the offers' count at the board
CLAIMS = ("AUTO", "CALL")  # the board announces; the players claim
CLAIMS_LABEL = "CLA"
# Time presets (clock/control.py PRESETS): (big, small); a spec from the PC shows OTHER.
TIMES = {
    "cn-national": ("3:00", "CN"),
    "cn-local": ("1:00", "CN"),
    "japanese-5x30": ("5-30", "JP"),
    "canadian-25-10": ("25-10", "CA"),
    "fischer-30-30": ("30+30", "FI"),
    "renju-rif": ("60+30", "RIF"),
    "renju-stages": ("STAGES", "RJ"),
    "ing-penalty": ("3H PEN", "ING"),
    "quick": ("RAPID", ""),
    "blitz-delay": ("BLITZ", "5"),
    "bronstein-15-10": ("15+10", "BR"),
    "shared-2h": ("2:00", "SHR"),
}
OTHER_TIME = ("OTHER", "")
VOLUME_OFF = "OFF"
VOLUME_LABEL = "SND"
VOICES = ("CN", "EN", VOLUME_OFF)  # settings.VOICES: zh, en, off (the count spoken)
VOICE_LABEL = "SAY"

# ---- calibration and the sensor self-test (ui/calibrate.py) --------------------------------
CAL_STEPS = ("CLEAR", "CAL A", "CAL B")  # the board empty, then the two checkerboards
BUSY = "."  # after a step's word while its frames are taken
CAL_OK = "CAL OK"
CAL = "CAL"
ERR = "ERR"
BAD = "BAD"  # with how many points
TEST_BUSY = "TEST."
TEST = "TEST"
TEST_OK = "TEST.OK"
# By calibration.FAULT_NAMES: dead, stuck, noisy, sign, weak, offset (with the point).
FAULTS = ("PINNED", "STILL", "NOISY", "SIGN", "FAINT", "OFFSET")

# ---- the boot (bootlog.py) -----------------------------------------------------------------
BOOT = "BOOT"
HEAP = "HEAP"  # a MemoryError (with ERR)
FAULT = "FAULT"  # a self-check failed (with its tag)


def table():
    """Every text the faces show, ``big|small`` with the field marks of the module's
    opening: for the tests and the docs (built when called: nothing is kept in RAM)."""
    t = []
    for w in INCIDENT:
        if w:
            t.append(w + ("|#" if w in ("OFFERS", "CLEAR") else "|@"))
    for w in GO_ILLEGAL + GOMOKU_ILLEGAL:
        t.append(w + "|@")
    for w in OFFERS_SAY:
        t.append(w + ("|@" if w == OFFERS_SAY[3] else "|#"))
    t.append("*/*|" + OFFERS_LABEL)  # Black's offers: down/due
    for w in (CLEAR_WORD, PUT_WORD):  # before a game: how many are left, the next point
        t += [w + "`|@", w + "`|" + OUTSIDE]
    t.append("$|@")  # the remote side's move: W E5
    t.append(DEAD + "|#")
    t += [LIFT_DEAD + "{|@"]  # the engine's dead stones still down, the next one
    for big in (MARGIN % ("$", "&"), STONES % ("$", "%"), STONES_LONG % ("$", ";"), TIE):
        t.append(big + "|" + OK)
        t.append(big + "|" + ASK)
        t.append(big + "|" + NO)
    for big in ("$+R", "$+T", "$+F", "$+", "$+" + RESULT_FIVE, MARGIN % ("$", "&")):
        t.append(big + "|")
    for _, small in FOULS:
        t.append("$+F|" + small)
    t += [TIE + "|", NULL + "|", RESIGN + "|" + QUESTION, CLOSED + "|", CLOSED + "|#"]
    t += [NO_PIN + "|", SCAN + "|", RESET + "|" + SETTINGS, NO_CAL + "|", OK + "|"]
    t += [DONE + "|", PAIR + "|" + QUESTION, "!|" + OFF, OFF + "|" + QUESTION]
    for w in ARB_LIST + ARB_DONE:
        if w:
            t.append(w + "|")
    t += ["<|" + PIN, ARB_LIST[8] + "|$", ARB_LIST[10] + "|$", ARB_LIST[14] + "|$", "~|$"]
    for w in (TIE, "$+", NULL):
        t.append(w + "|" + ARB_RESULT)
    for big, small in GAMES + tuple(TIMES.values()) + (OTHER_TIME,):
        t.append(big + "|" + small)
    for words, label in ((RULES, RULES_LABEL), (KO, KO_LABEL), (OPENINGS, OPENING_LABEL)):
        for w in words:
            t.append(w + "|" + label)
    for w in CLAIMS:
        t.append(w + "|" + CLAIMS_LABEL)
    t += ["^|" + KOMI_LABEL, "#|" + HANDICAP_LABEL, "#|" + OFFERS_LABEL]
    t += ["#|" + VOLUME_LABEL, VOLUME_OFF + "|" + VOLUME_LABEL]
    for w in VOICES:
        t.append(w + "|" + VOICE_LABEL)
    for w in CAL_STEPS:
        t += [w + "|", w + BUSY + "|"]
    t += [CAL_OK + "|", CAL + "|" + ERR, BAD + "|#", TEST_BUSY + "|", TEST + "|" + ERR]
    t.append(TEST_OK + "|")
    for w in FAULTS:
        t.append(w + "|@")
    t += [BOOT + "|" + ERR, HEAP + "|" + ERR, FAULT + "|>", "!|"]
    return t
