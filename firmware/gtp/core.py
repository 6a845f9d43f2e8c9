"""GTP's shared core: what both front-ends use, the Go engine (``firmware/gtp/go.py``) and
the Gomoku commands (``firmware/gtp/gomoku.py``).

Start reading at ``split_command``: a command line as GTP's preprocessing leaves it (spec 3.1,
``clean``). Then the argument parsing every command uses (``_want``, ``_int``, ``_color``),
``GtpError`` (its message is the ``?`` response), the colour names, ``diagram`` (the board as
``showboard`` draws it) and ``Admin``, the administrative commands every engine answers the
same way. Nothing here knows a game's rules; both front-ends import it, neither the other's
module (the Go engine loads ``gomoku`` only when Gomoku is played).
"""

from firmware.rules.go_board import BLACK, WHITE

NAME = "Tengen"

_COLORS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
_COLOR_NAMES = ("", "black", "white")


class GtpError(Exception):
    """A command failed; its message becomes the ``?`` response."""


# ---- argument parsing ------------------------------------------------------------------------


def clean(line):
    """GTP preprocessing (spec 3.1): drop control characters, cut the ``#`` comment, HT → space."""
    if not isinstance(line, str):
        line = _decode(line)
    k = line.find("#")
    if k >= 0:
        line = line[:k]
    out = []
    for ch in line:
        o = ord(ch)
        if o == 9:
            out.append(" ")
        elif o >= 32 and o != 127:
            out.append(ch)
        # else: CR, LF (one line is handled at a time), the other control characters, DEL
    return "".join(out).strip()


def _decode(raw):
    """Bytes as text: UTF-8, or byte by byte (latin-1) for garbage, so no input can raise."""
    try:
        return str(bytes(raw), "utf-8")
    except UnicodeError:
        return "".join([chr(b) for b in raw])


def _digits(text):
    """Whether ``text`` is one or more ASCII digits (``str.isdigit`` also takes other scripts)."""
    if not text:
        return False
    for ch in text:
        if ch not in "0123456789":
            return False
    return True


def _int(text):
    """A GTP int argument; GtpError ``syntax error`` if it is not one."""
    body = text[1:] if text[0] in "+-" else text
    if not _digits(body):
        raise GtpError("syntax error (not an integer: '%s')" % text)
    return int(text)


def _want(args, n):
    """Check that a command got exactly ``n`` arguments."""
    if len(args) != n:
        raise GtpError("syntax error (wrong number of arguments)")


def _color(text):
    """BLACK or WHITE from ``b``, ``black``, ``w``, ``white`` in any case."""
    c = _COLORS.get(text.lower())
    if c is None:
        raise GtpError("syntax error (invalid color '%s')" % text)
    return c


def _one_line(text):
    """An error message fit for one response line: newlines would end the response early."""
    return text.replace("\r", " ").replace("\n", " ")


def diagram(board, columns, stars):
    """The board as text lines: column letters, rows from the top (X, O, + star, .), letters."""
    n = board.size
    letters = "   " + " ".join(columns[:n])
    lines = [letters]
    for y in range(n - 1, -1, -1):
        row = []
        for x in range(n):
            c = board.color_at(x, y)
            row.append(
                "X" if c == BLACK else "O" if c == WHITE else "+" if (x, y) in stars else "."
            )
        lines.append("%2d %s %d" % (y + 1, " ".join(row), y + 1))
    lines.append(letters)
    return lines


# ---- what every engine shares ------------------------------------------------------------------


def split_command(line):
    """A command line's words after GTP's preprocessing, its id first ("" if none); None for
    an empty line. Shared by every GTP engine here (this one and ``tengen gtp --board``)."""
    text = clean(line)
    if not text:
        return None
    words = text.split()
    if _digits(words[0]):
        return words
    return [""] + words


class Admin:
    """The administrative commands every engine answers the same way (GTP 6.3.1), over the
    engine's ``COMMANDS`` and ``NAME``."""

    NAME = NAME

    def cmd_protocol_version(self, args):
        """GTP version: 2."""
        _want(args, 0)
        return "2"

    def cmd_name(self, args):
        """The engine's name."""
        _want(args, 0)
        return self.NAME

    def cmd_known_command(self, args):
        """``true`` if the command exists, else ``false``."""
        _want(args, 1)
        return "true" if args[0] in self.COMMANDS else "false"

    def cmd_list_commands(self, args):
        """All commands, one per line."""
        _want(args, 0)
        return "\n".join(sorted(self.COMMANDS))

    def cmd_quit(self, args):
        """End the session (after answering)."""
        _want(args, 0)
        self.done = True
        return ""

    # The administrative commands every engine answers; each engine's COMMANDS extends a copy.
    COMMANDS = {
        "protocol_version": cmd_protocol_version,
        "name": cmd_name,
        "known_command": cmd_known_command,
        "list_commands": cmd_list_commands,
        "quit": cmd_quit,
    }
