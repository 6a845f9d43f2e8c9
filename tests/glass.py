"""The glass text table (firmware/ui/texts.py) for the tests: which texts it allows
(``allowed``), its templates filled with their worst cases (``filled``), and a text drawn
through the real HT1621 driver onto the emulated glass and read back (``read_back``).

A template is ``big|small`` with field marks (texts.py's opening says each); ``allowed(big,
small)`` is the entry it matches, or None: a text drawn that is not in the table.
"""

from firmware.boot import selfcheck as SC
from firmware.hal import virtual as V
from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS
from firmware.ui import texts as T

MARKS = "@#$~^&%;<>!`*{"
TAGS = tuple(c[0] for c in SC.CHECKS)  # the self-checks' tags (firmware/boot/selfcheck.py)


def _digits(s):
    if not s:
        return False
    for c in s:
        if not "0" <= c <= "9":
            return False
    return True


def _number(s):
    # A whole number as the faces write it: no leading zero.
    return _digits(s) and (s == "0" or s[0] != "0")


def _decimal(s, fractions):
    i = s.find(".")
    if i < 0:
        return _number(s)
    return _number(s[:i]) and s[i:] in fractions


def _time(s):
    # m:ss (the arbiter's adjustment, after its sign)
    i = s.find(":")
    return i > 0 and _number(s[:i]) and len(s) == i + 3 and _digits(s[i + 1 :])


def _field(mark, s):
    # Whether ``s`` is a value of the field ``mark``.
    if mark == "@":
        if len(s) < 2 or s[0] not in GO_COLUMNS + "I" or not _number(s[1:]):
            return False
        return 1 <= int(s[1:]) <= 19
    if mark == "#":
        return _number(s) and int(s) <= 999
    if mark == "$":
        return s in (T.SIDES[1], T.SIDES[2])
    if mark == "~":
        return len(s) > 1 and s[0] in T.SIGNS and _time(s[1:])
    if mark == "^":
        return _decimal(s[1:] if s[:1] == "-" else s, (T.HALF,))
    if mark == "&":
        return _decimal(s, (T.HALF,))
    if mark == "%" or mark == ";":  # stones: with a space before, or 100 and a fraction
        tight = len(s.split(".")[0]) >= 3 and "." in s
        return _decimal(s, T.QUARTERS[1:]) and tight == (mark == ";")
    if mark == "<":
        k = s.find(T.PIN_TO_COME)
        head = s if k < 0 else s[:k]
        return (
            len(s) == 4
            and len(head) >= 1
            and _digits(head[-1])
            and head[:-1] == T.PIN_TAKEN * (len(head) - 1)
            and s[len(head) :] == T.PIN_TO_COME * (4 - len(head))
        )
    if mark == ">":
        return s in TAGS
    if mark == "{":  # a count right-aligned in two cells
        return len(s) == 2 and _number(s.lstrip(" "))
    if mark == "*":  # a small count: 0 … 99
        return _number(s) and int(s) <= 99
    if mark == "`":  # a count right-aligned in three cells
        return len(s) == 3 and _number(s.lstrip(" "))
    if mark == "!":
        for c in s:
            if c not in "0123456789:.":
                return False
        return len(s) > 0
    return False


def _match(template, text):
    # Whether ``text`` is ``template`` with its fields filled (fields are tried at every
    # length: the templates are short).
    if not template:
        return not text
    c = template[0]
    if c not in MARKS:
        return text[:1] == c and _match(template[1:], text[1:])
    for n in range(1, len(text) + 1):
        if _field(c, text[:n]) and _match(template[1:], text[n:]):
            return True
    return False


_TABLE = None


def table():
    """texts.table() as ``[(big template, small template)]`` (made once)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = [tuple(e.split("|")) for e in T.table()]
    return _TABLE


def allowed(big, small=""):
    """The table's entry ``(big, small)`` matches, or None. str or bytes alike."""
    big = big if isinstance(big, str) else bytes(big).decode()
    small = small if isinstance(small, str) else bytes(small).decode()
    for b, s in table():
        if _match(b, big) and (_match(s, small) or (not small and s in ("@", "#"))):
            return (b, s)  # an incident may come without its point or count
    return None


# ---- the worst cases of each field ---------------------------------------------------------


def _points():
    # Every column of both games at the rows that read worst (1, a row of 5 next to S, 10 …).
    out = []
    for gomoku in (False, True):
        columns = GOMOKU_COLUMNS[:15] if gomoku else GO_COLUMNS[:19]
        for x in range(len(columns)):
            for row in (1, 5, 10, 15, 16, 19):
                if row <= len(columns):
                    out.append(columns[x] + str(row))
    return out


def fill_values(mark):
    """The values a test fills the field ``mark`` with: its worst cases."""
    if mark == "@":
        return ("A1", "Q16", "O15", "S15", "S5", "T19", "I9", "J10", "E5", "B8", "G6")
    if mark == "#":
        return ("0", "9", "23", "55", "99", "515", "999")
    if mark == "{":
        return (" 0", " 1", " 2", " 5", " 9", "10", "14", "23", "55", "99")
    if mark == "*":
        return ("0", "1", "5", "9", "10", "23", "55", "99")
    if mark == "`":
        return ("  0", "  2", "  9", " 23", " 55", "205", "361", "999")
    if mark == "$":
        return (T.SIDES[1], T.SIDES[2])
    if mark == "~":
        out = []
        for sign in T.SIGNS:
            for t in (0, 1, 59, 90, 5999):
                out.append(T.ADJ_TIME % (sign, t // 60, t % 60))
        return out
    if mark == "^":
        from firmware.ui.menus import komi_text

        return [komi_text(k) for k in range(-30, 61)]
    if mark in "&%;":
        from firmware.ui.say import margin_text

        out = []
        for m4 in (1, 2, 3, 4, 5, 11, 22, 40, 101, 399, 400, 401, 722, 723, 1444):
            text = margin_text(m4)[0 if mark == "&" else 1]
            if mark == "&":
                out.append(text[2:])
            elif (mark == "%") == (text[1] == " "):
                out.append(text[2:] if mark == "%" else text[1:])
        return out
    if mark == "<":
        out = []
        for pos in range(4):
            for d in (0, 2, 5, 8, 9):
                out.append(T.PIN_TAKEN * pos + str(d) + T.PIN_TO_COME * (3 - pos))
        return out
    if mark == ">":
        return TAGS
    if mark == "!":
        from firmware.clock.clock import format_time

        out = []
        for ms in (0, 1, 100, 5500, 9900, 9901, 10000, 59000, 60000, 599999, 3599000):
            buf = bytearray(12)
            out.append(bytes(buf[: format_time(ms, buf)]).decode())
        for ms in (3600000, 35999000):
            buf = bytearray(12)
            out.append(bytes(buf[: format_time(ms, buf)]).decode())
        return out
    return ()


def filled(template):
    """Every text ``template`` gives with its fields filled by ``fill_values``."""
    for i in range(len(template)):
        if template[i] in MARKS:
            out = []
            for v in fill_values(template[i]):
                for rest in filled(template[i + 1 :]):
                    out.append(template[:i] + v + rest)
            return out
    return [template]


def all_points():
    """Every column of both games at the rows that read worst: for one entry in full."""
    return _points()


# ---- drawn and read back -------------------------------------------------------------------

_FACE = None


def read_back(big, small=""):
    """``(big, small)`` as the player reads them off the glass, drawn by the real HT1621
    driver (``show_text``) on the emulated chip."""
    global _FACE
    if _FACE is None:
        _FACE = V.make_faces(1)
    chip = _FACE[1][0]
    _FACE[2][0].show_text(big, small)
    g = V.read(chip.ram)
    return g.big, g.small


def cells(text):
    """How many big cells ``text`` takes ('.' and ':' light a mark after a cell)."""
    n = 0
    for c in text:
        if c != "." and c != ":":
            n += 1
    return n
