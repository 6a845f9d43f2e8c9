"""GTP (Go Text Protocol 2) front-end: Tengen's Go rules driven by GoGui, Sabaki or a script.

Start reading at ``Engine.handle``: one command line in, the whole response text out.
``Engine.COMMANDS`` maps each command name to its ``cmd_*`` method, one method per command;
``main()`` answers stdin on stdout until ``quit`` (``firmware/gtp/__main__.py`` runs it). The
same file runs on CPython (``python -m firmware.gtp``), the MicroPython unix port
(``micropython -m firmware.gtp``) and the board. What the Gomoku commands share with it is in
``firmware/gtp/core.py``.

Protocol: GTP version 2 (draft 2, https://www.lysator.liu.se/~gunnar/gtp/). Extensions
follow GNU Go (``list_stones``, ``is_legal``, ``all_legal``, ``captures``, ``get_komi``);
Tengen's own commands start with ``tengen-``. Komi is kept in half points (``komi2``), as in
``firmware/rules/go_count.py``, so no float ever enters the rules.
"""

import gc
import sys

from firmware.gtp.core import (
    _COLOR_NAMES,
    Admin,
    GtpError,
    _color,
    _digits,
    _int,
    _one_line,
    _want,
    diagram,
    split_command,
)
from firmware.link.server import FIRMWARE as VERSION  # the firmware's one version
from firmware.rules.coords import GO_COLUMNS, parse_vertex, vertex
from firmware.rules.go import KO_RULES, Game, fixed_handicap
from firmware.rules.go_board import BLACK, REASONS, WHITE
from firmware.rules.go_count import count, result_sgf

# Commands that mean the same in every game; the rest go to firmware/gtp/gomoku.py while
# Gomoku is played.
_SHARED = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "loadsgf",
    "tengen-game",
)


# ---- argument parsing ------------------------------------------------------------------------


def _vertex(text):
    """``(x, y)`` of a vertex, or None for ``pass``; points off this board are the rules' business."""
    try:
        return parse_vertex(text, 19)
    except ValueError:
        raise GtpError("syntax error (invalid vertex '%s')" % text)


def parse_komi(text):
    """Komi text (``6.5``, ``-3``, ``7.50``) in half points; GtpError unless a multiple of 0.5.

    Decimal digits are read exactly, without floats, so ``7.50000001`` is refused, not rounded.
    """
    body = text[1:] if text[:1] in ("+", "-") else text
    k = body.find(".")
    whole = body if k < 0 else body[:k]
    frac = "" if k < 0 else body[k + 1 :]
    if not (whole or frac) or not _digits(whole or "0") or not _digits(frac or "0"):
        raise GtpError("syntax error (komi must be a number, not '%s')" % text)
    half = 2 * int(whole or "0")
    frac = frac.rstrip("0")
    if frac == "5":
        half += 1
    elif frac:
        raise GtpError("komi must be a multiple of 0.5")
    return -half if text[:1] == "-" else half


def format_komi(komi2):
    """Half points as GTP text: 15 → ``7.5``, 12 → ``6``, -1 → ``-0.5``."""
    text = "-" if komi2 < 0 else ""
    half = abs(komi2)
    text += str(half // 2)
    return text + ".5" if half % 2 else text


def _play(game, c, xy):
    """Play ``c`` at ``xy`` (None: pass) on ``game``; OK or the reason code."""
    if xy is None:
        return game.play(c, None, None)
    return game.play(c, xy[0], xy[1])


def star_points(n):
    """The points drawn ``+`` on an n×n board: 3-3/4-4 corners, the centre, side stars from 15×15."""
    points = []
    if n >= 7:
        e = 2 if n < 13 else 3
        for x in (e, n - 1 - e):
            for y in (e, n - 1 - e):
                points.append((x, y))
    if n % 2 and n >= 5:
        m = n // 2
        points.append((m, m))
        if n >= 15:
            e = 3
            points.extend(((e, m), (n - 1 - e, m), (m, e), (m, n - 1 - e)))
    return points


# ---- the engine ------------------------------------------------------------------------------


class Engine(Admin):
    """One GTP session: a game of Go, its komi and the arbiter's last repetition report."""

    def __init__(self, size=None, komi2=None):
        # The board's factory settings (firmware/game/settings.py) unless told otherwise: a game
        # here starts as a new board's would (19x19, komi 5.5, the chinese ko rule).
        from firmware.game.settings import DEFAULTS

        self.game = Game(
            DEFAULTS["size"] if size is None else size, KO_RULES.index(DEFAULTS["ko"])
        )
        self.komi2 = DEFAULTS["komi2"] if komi2 is None else komi2
        # The ply whose position the last move recreated (chinese ko rule), -1 if none. Kept
        # here, not read from game.repeat later: is_legal's trial moves reset that.
        self.repetition = -1
        self.done = False  # set by quit
        self.gomoku = None  # the Gomoku game while ``tengen-game`` chose a Gomoku variant

    def handle(self, line):
        """Answer one command line: ``=id result\\n\\n`` or ``?id message\\n\\n``; None if empty."""
        words = split_command(line)
        if words is None:
            return None
        ident = words.pop(0)
        if not words:
            return "?%s syntax error (no command after the id)\n\n" % ident
        name = words[0]
        if name not in self.COMMANDS:
            return "?%s unknown command\n\n" % ident
        method = self.COMMANDS[name]
        if self.gomoku is not None and name not in _SHARED:
            from firmware.gtp import gomoku as gtp_gomoku  # loaded only when Gomoku is played

            method = gtp_gomoku.COMMANDS.get(name)
            if method is None:
                return "?%s %s is for Go (tengen-game go)\n\n" % (ident, name)
        elif method is None:
            return "?%s %s is for Gomoku (tengen-game renju)\n\n" % (ident, name)
        try:
            result = method(self, words[1:])
        except GtpError as e:
            return "?%s %s\n\n" % (ident, _one_line(str(e)))
        except Exception as e:  # nothing may end the session
            return "?%s internal error (%s: %s)\n\n" % (ident, type(e).__name__, _one_line(str(e)))
        return "=%s %s\n\n" % (ident, result)

    # ---- helpers -------------------------------------------------------------------------

    def _need_empty(self):
        """GtpError unless the game has no stones and no moves (handicap placement)."""
        if self.game.ply or self.game.board.stones:
            raise GtpError("board not empty")

    def _stones(self, c):
        """Vertices of colour ``c``, row by row from A1."""
        b = self.game.board
        n = b.size
        return [vertex(x, y) for y in range(n) for x in range(n) if b.color_at(x, y) == c]

    # ---- administrative commands (GTP 6.3.1) ---------------------------------------------

    def cmd_version(self, args):
        """The engine's version."""
        _want(args, 0)
        return VERSION

    # ---- setup commands (GTP 6.3.2, 6.3.3) -----------------------------------------------

    def cmd_boardsize(self, args):
        """New empty board of size 2..19."""
        _want(args, 1)
        n = _int(args[0])
        if not 2 <= n <= 19:
            raise GtpError("unacceptable size")
        self.game.clear(n)
        self.repetition = -1
        return ""

    def cmd_clear_board(self, args):
        """Empty the board, forget moves and captures."""
        _want(args, 0)
        self.game.clear()
        self.repetition = -1
        return ""

    def cmd_komi(self, args):
        """Set komi (a multiple of 0.5)."""
        _want(args, 1)
        self.komi2 = parse_komi(args[0])
        return ""

    def cmd_get_komi(self, args):
        """Current komi (GNU Go extension)."""
        _want(args, 0)
        return format_komi(self.komi2)

    def cmd_fixed_handicap(self, args):
        """Put the GTP fixed handicap stones on the empty board; answer their vertices."""
        _want(args, 1)
        n = _int(args[0])
        self._need_empty()
        try:
            points = fixed_handicap(self.game.size, n)
        except ValueError:
            raise GtpError("invalid number of stones")
        self.game.place_handicap(points)
        return " ".join([vertex(x, y) for x, y in points])

    def cmd_set_free_handicap(self, args):
        """Put handicap stones on the given vertices of the empty board."""
        self._need_empty()
        n = self.game.size
        if not 2 <= len(args) < n * n:
            raise GtpError("invalid number of stones")
        points = []
        for text in args:
            try:
                xy = parse_vertex(text, n)
            except ValueError:
                raise GtpError("bad vertex list")
            if xy is None or xy in points:
                raise GtpError("bad vertex list")
            points.append(xy)
        self.game.place_handicap(points)
        return ""

    def cmd_loadsgf(self, args):
        """Load an SGF game up to (not including) a move number; answer the colour to move."""
        if not 1 <= len(args) <= 2:
            raise GtpError("syntax error (wrong number of arguments)")
        stop = None
        if len(args) == 2:
            stop = _int(args[1])
            if stop < 1:
                raise GtpError("syntax error (move numbers start at 1)")
        from firmware.rules import sgf  # only now: the reader's RAM is spent only if it is used

        try:
            with open(args[0], "rb") as f:
                data = f.read()
        except OSError:
            raise GtpError("cannot load file")
        try:
            nodes = sgf.parse(data)
            data = None
            info = sgf.game_info(nodes[0])
            if self.gomoku is not None:
                if info["gm"] != 4:
                    raise sgf.SgfError("GM[%d] is not Gomoku (tengen-game go for Go)" % info["gm"])
                from firmware.gtp import gomoku as gtp_gomoku

                # Only a fully loaded game replaces the current one (it is small: no gc dance).
                self.gomoku = gtp_gomoku.load(self.gomoku.variant, sgf, nodes, info, stop)
                return _COLOR_NAMES[self.gomoku.to_move]
            if info["gm"] == 4:
                raise sgf.SgfError("GM[4] is Gomoku: choose it first with tengen-game renju")
            game, komi2 = self._replay(sgf, nodes, info, stop)
        except sgf.SgfError as e:
            raise GtpError("cannot load file (%s)" % e)
        self.game = game  # only a fully loaded game replaces the current one
        self.komi2 = komi2
        self.repetition = game.repeat
        return _COLOR_NAMES[game.to_move]

    def _replay(self, sgf, nodes, info, stop):
        """A new Game and komi from a parsed SGF file, replayed up to move ``stop``; SgfError if not.

        The nodes are dropped before the new Game is allocated: on the board the old game, the
        parsed file and the new game would not fit in RAM together.
        """
        if info["gm"] != 1:
            raise sgf.SgfError("GM[%d] is not a game of Go" % info["gm"])
        size = info["size"]
        if not 2 <= size <= 19:
            raise sgf.SgfError("unacceptable size %d" % size)
        komi2 = self.komi2
        if info["komi"] is not None:
            try:
                komi2 = parse_komi(info["komi"].strip())
            except GtpError as e:
                raise sgf.SgfError("KM[%s]: %s" % (info["komi"], e))
        moves = sgf.moves(nodes, size)
        nodes = None
        gc.collect()
        game = Game(size, self.game.ko_rule, self.game.suicide)
        for x, y in info["ab"]:
            game.setup(BLACK, x, y)
        for x, y in info["aw"]:
            game.setup(WHITE, x, y)
        if info["pl"]:
            game.set_to_move(BLACK if info["pl"] == "B" else WHITE)
        elif info["ab"] and info["handicap"] >= 2:
            game.set_to_move(WHITE)
        last = len(moves) if stop is None else min(len(moves), stop - 1)
        for i in range(last):
            c = BLACK if moves[i][0] == "B" else WHITE
            xy = moves[i][1]
            r = _play(game, c, xy)
            if r:
                where = "pass" if xy is None else vertex(xy[0], xy[1])
                raise sgf.SgfError(
                    "move %d %s %s is illegal: %s" % (i + 1, moves[i][0], where, REASONS[r])
                )
        if last < len(moves):  # the file says who plays next
            game.set_to_move(BLACK if moves[last][0] == "B" else WHITE)
        return game, komi2

    # ---- play (GTP 6.3.4) ----------------------------------------------------------------

    def cmd_play(self, args):
        """Play a move (or pass) of either colour."""
        _want(args, 2)
        c = _color(args[0])
        r = _play(self.game, c, _vertex(args[1]))
        if r:
            raise GtpError("illegal move (%s)" % REASONS[r])
        self.repetition = self.game.repeat
        return ""

    def cmd_undo(self, args):
        """Take back the last move."""
        _want(args, 0)
        if not self.game.undo():
            raise GtpError("cannot undo")
        self.repetition = -1
        return ""

    # ---- the position (GTP 6.3.6 and GNU Go extensions) ----------------------------------

    def cmd_showboard(self, args):
        """ASCII diagram: X black, O white, + star points, captures below."""
        _want(args, 0)
        g = self.game
        lines = diagram(g.board, GO_COLUMNS, star_points(g.size))
        lines.append(
            "Captures: black (X) %d, white (O) %d" % (g.captures[BLACK], g.captures[WHITE])
        )
        lines.append(
            "Komi %s, ko rule %s, move %d, %s to play"
            % (format_komi(self.komi2), KO_RULES[g.ko_rule], g.ply, _COLOR_NAMES[g.to_move])
        )
        return "\n" + "\n".join(lines)

    def cmd_list_stones(self, args):
        """Vertices of the stones of a colour."""
        _want(args, 1)
        return " ".join(self._stones(_color(args[0])))

    def cmd_is_legal(self, args):
        """``1`` if the colour may play the vertex now, else ``0``."""
        _want(args, 2)
        c = _color(args[0])
        xy = _vertex(args[1])
        if xy is None:
            return "1"
        return "0" if self.game.legal(c, xy[0], xy[1]) else "1"

    def cmd_all_legal(self, args):
        """Every vertex the colour may play now."""
        _want(args, 1)
        c = _color(args[0])
        g = self.game
        n = g.size
        return " ".join([vertex(x, y) for y in range(n) for x in range(n) if not g.legal(c, x, y)])

    def cmd_captures(self, args):
        """Number of stones captured BY the colour."""
        _want(args, 1)
        return str(self.game.captures[_color(args[0])])

    def cmd_final_score(self, args):
        """Area count of the position as it stands (every stone alive), with komi."""
        _want(args, 0)
        return result_sgf(count(self.game.board).margin4(self.komi2))

    # ---- Tengen's own commands -----------------------------------------------------------

    def cmd_tengen_ko_rule(self, args):
        """Set the ko rule (chinese positional situational simple none) or, bare, report it."""
        if not args:
            return KO_RULES[self.game.ko_rule]
        _want(args, 1)
        name = args[0].lower()
        if name not in KO_RULES:
            raise GtpError("syntax error (ko rule must be one of %s)" % " ".join(KO_RULES))
        self.game.set_ko_rule(KO_RULES.index(name))
        return ""

    def cmd_tengen_game(self, args):
        """Choose the game: ``go`` (19x19) or a Gomoku variant (15x15); bare, report it."""
        if not args:
            if self.gomoku is None:
                return "go"
            from firmware.rules.gomoku import VARIANTS

            return VARIANTS[self.gomoku.variant]
        _want(args, 1)
        name = args[0].lower()
        if name == "go":
            self.gomoku = None
            self.game = Game(19, self.game.ko_rule, self.game.suicide)
            self.repetition = -1
            return ""
        from firmware.rules.gomoku import VARIANTS

        if name not in VARIANTS:
            raise GtpError("syntax error (game must be go %s)" % " ".join(VARIANTS))
        from firmware.gtp import gomoku as gtp_gomoku

        self.gomoku = None
        gc.collect()
        gtp_gomoku.new_game(self, VARIANTS.index(name))
        return ""

    def cmd_tengen_repetition(self, args):
        """After a move that recreated an earlier position (chinese rule): that position's ply."""
        _want(args, 0)
        return "" if self.repetition < 0 else str(self.repetition)

    COMMANDS = dict(Admin.COMMANDS)
    COMMANDS.update(
        {
            "version": cmd_version,
            "boardsize": cmd_boardsize,
            "clear_board": cmd_clear_board,
            "komi": cmd_komi,
            "get_komi": cmd_get_komi,
            "fixed_handicap": cmd_fixed_handicap,
            "set_free_handicap": cmd_set_free_handicap,
            "loadsgf": cmd_loadsgf,
            "play": cmd_play,
            "undo": cmd_undo,
            "showboard": cmd_showboard,
            "list_stones": cmd_list_stones,
            "is_legal": cmd_is_legal,
            "all_legal": cmd_all_legal,
            "captures": cmd_captures,
            "final_score": cmd_final_score,
            "tengen-ko_rule": cmd_tengen_ko_rule,
            "tengen-repetition": cmd_tengen_repetition,
            "tengen-game": cmd_tengen_game,
            "tengen-forbidden": None,  # Gomoku only: firmware/gtp/gomoku.py answers it
        }
    )


def main():
    """Answer GTP commands from stdin on stdout until ``quit`` or the end of the input."""
    engine = Engine()
    # Bytes in, so that invalid UTF-8 cannot raise inside readline; bytes out, so that a
    # message quoting non-ASCII text cannot fail on an ASCII-only stdout.
    from firmware.link.lines import LIMIT, read_line

    inp = getattr(sys.stdin, "buffer", sys.stdin)
    out = getattr(sys.stdout, "buffer", None)
    while not engine.done:
        line = read_line(inp)  # bounded: a longer line is answered, never held whole
        if line is None:
            reply = "? line too long (at most %d bytes)\n\n" % LIMIT
        elif not line:
            break
        else:
            reply = engine.handle(line)
        if reply is None:
            continue
        if out is not None:
            out.write(reply.encode())
            if hasattr(out, "flush"):
                out.flush()
        else:
            sys.stdout.write(reply)
        if hasattr(sys.stdout, "flush"):
            sys.stdout.flush()


if __name__ == "__main__":
    main()
