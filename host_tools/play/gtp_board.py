"""The board as a GTP engine (``tengen gtp --board``): its player is the human at the board.

Start reading at ``Engine.handle``: one command line in, the whole response text out, framed
as firmware/gtp/ frames it (``=id result`` / ``?id message``, a blank line after).
``Engine.COMMANDS`` maps each command to its ``cmd_*`` method; ``serve`` answers stdin on
stdout; ``run`` opens the board and serves it.

A GTP controller (GoGui's twogtp, Sabaki, a server bridge such as gtp2ogs) sends the
opponent's moves with ``play`` and asks the board's player with ``genmove``. The board's game
starts at the first ``play`` or ``genmove`` after ``clear_board``: ``genmove c`` makes the
player at the board ``c`` and the PC the other side; ``play c v`` first makes the PC ``c``.
``play`` is answered once the stone is on the board, ``genmove`` once the player pressed the
clock. Setup commands (boardsize, komi, handicap, time) become the board's settings, which
apply to the next game. Everything here is Go: the board's settings game becomes "go".
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from firmware.game.settings import TEXT_MAX as NAME_MAX  # a player's name on the board
from firmware.gtp.core import (
    Admin,
    GtpError,
    _color,
    _int,
    _one_line,
    _want,
    diagram,
    split_command,
)
from firmware.gtp.go import format_komi, parse_komi, star_points
from firmware.link.lines import LIMIT, read_line
from firmware.rules.coords import GO_COLUMNS, parse_vertex, vertex
from firmware.rules.go import KO_RULES, Game, fixed_handicap
from firmware.rules.go_board import BLACK, WHITE
from firmware.rules.go_count import result_sgf
from host_tools.play.board_player import PASS, BoardError, BoardPlayer, GameOver, Illegal

NAME = "Tengen board"
DEFAULT_OPPONENT = "GTP opponent"
SIZES = (9, 13, 19)

_COLOR_NAMES = ("", "black", "white")
_NAME_KEYS = ("", "black", "white")  # the settings that hold each side's name


def host_version() -> str:
    """The host tools' version (the installed package's)."""
    try:
        return package_version("tengen")
    except PackageNotFoundError:
        return "source"


def _point_vertex(point: int) -> str:
    # A point code as GTP's vertex (``pass`` for 1023).
    return "pass" if point == PASS else vertex(point & 31, point >> 5)


def _lost_at_board(result: str, colour: int) -> bool:
    # Whether ``colour`` lost the game ``result`` by resigning or by its flag ("W+R", "B+T").
    winner, _, how = result.partition("+")
    loser = "B" if winner == "W" else "W" if winner == "B" else ""
    return loser == "BW"[colour - 1] and how[:1] in ("R", "T")


class Engine(Admin):
    """One GTP session over ``player`` (a BoardPlayer): the settings for the board's next
    game, and whether it has begun. ``opponent``: the remote player's name for the records;
    ``log``: where the waiting is told (stderr in ``run``)."""

    NAME = NAME

    def __init__(self, player: BoardPlayer, opponent: str = DEFAULT_OPPONENT, log=None):
        self.player = player
        self.opponent = (opponent or DEFAULT_OPPONENT)[:NAME_MAX]
        self.log = log or (lambda text: None)
        self.done = False  # set by quit
        shown = player.settings()
        self.size = shown.get("size", 19) if shown.get("game") == "go" else 19
        self.komi2 = int(shown.get("komi2", 0))
        # The settings of the next game as GTP has said them so far; a new GTP game has no
        # handicap until one is asked for.
        self.next = {"game": "go", "size": self.size, "handicap": 0}
        self.started = False  # the board's game of this GTP game has begun
        self.remote = 0  # the PC's side in it (1 Black, 2 White)
        self.handicap = 0  # its handicap (the stones replayed by showboard)
        self.count = None  # the players' count of it, once asked (final_score ...)
        self.times: dict[int, tuple[int, int]] = {}  # time_left said before it began
        self._fw = None

    def handle(self, line) -> str | None:
        """Answer one command line: ``=id result\\n\\n`` or ``?id message\\n\\n``; None if empty."""
        words = split_command(line)
        if words is None:
            return None
        ident = words.pop(0)
        if not words:
            return "?%s syntax error (no command after the id)\n\n" % ident
        method = self.COMMANDS.get(words[0])
        if method is None:
            return "?%s unknown command\n\n" % ident
        try:
            result = method(self, words[1:])
        except GtpError as e:
            return "?%s %s\n\n" % (ident, _one_line(str(e)))
        except GameOver as e:
            return "?%s the game is over: %s\n\n" % (ident, e.result)
        except BoardError as e:
            return "?%s the board: %s\n\n" % (ident, _one_line(str(e)))
        except Exception as e:  # nothing may end the session
            return "?%s internal error (%s: %s)\n\n" % (ident, type(e).__name__, _one_line(str(e)))
        return "=%s %s\n\n" % (ident, result)

    # ---- helpers -------------------------------------------------------------------------

    def _set(self, **changes) -> None:
        """Give the board the next game's settings now (it checks them), and keep them."""
        try:
            self.player.settings(**changes)
        except BoardError as e:
            raise GtpError("the board refuses it: %s" % (e.message or e.code)) from None
        self.next.update(changes)

    def _new_gtp_game(self) -> None:
        # clear_board, boardsize: the next play or genmove starts the board's next game.
        self.started = False
        self.remote = 0
        self.count = None
        self.times = {}
        self.next["handicap"] = 0

    def _start(self, remote: int) -> None:
        """Start the board's game with the PC playing ``remote``: the settings GTP gave, the
        opponent's name on its side (the other side's name cleared if it was ours)."""
        other = _NAME_KEYS[3 - remote]
        names = {_NAME_KEYS[remote]: self.opponent}
        if self.player.settings().get(other) == self.opponent:  # our last game's remote
            names[other] = ""
        self.log(
            "a new %dx%d game: the player at the board is %s, %s is %s (clear the board if "
            "its faces name points to clear: CLR. 23  D4)"
            % (
                self.next["size"],
                self.next["size"],
                _COLOR_NAMES[3 - remote],
                self.opponent,
                _COLOR_NAMES[remote],
            )
        )
        self.player.new_game(remote, **dict(self.next, **names))
        self.started = True
        self.remote = remote
        self.handicap = self.next.get("handicap", 0)
        self.count = None
        for colour, (ms, stones) in sorted(self.times.items()):
            self._time_left(colour, ms, stones)
        self.times = {}

    def _point(self, text: str) -> int:
        """The point code of a vertex on this game's board (1023 for pass)."""
        try:
            xy = parse_vertex(text, 19)
        except ValueError:
            raise GtpError("syntax error (invalid vertex '%s')" % text) from None
        if xy is None:
            return PASS
        x, y = xy
        if x >= self.next["size"] or y >= self.next["size"]:
            raise GtpError("illegal move (%s is off the board)" % text)
        return y << 5 | x

    def _position(self) -> Game:
        """The game as it stands: the board's moves replayed (or the empty board to come)."""
        if not self.started:
            game = Game(self.next["size"])
            handicap = self.next.get("handicap", 0)
            if handicap >= 2:
                game.place_handicap(fixed_handicap(game.size, handicap))
            return game
        st = self.player.state()
        game = Game(st.get("size") or self.next["size"])
        game.set_ko_rule(KO_RULES.index("none"))  # the board judged the ko: replay it all
        if self.handicap >= 2:
            game.place_handicap(fixed_handicap(game.size, self.handicap))
        for c, p in zip(st.get("colours") or [], st.get("moves") or [], strict=True):
            if p == PASS:
                game.play(c, None, None)
            else:
                game.play(c, p & 31, p >> 5)
        return game

    def _stones(self, game: Game, colour: int | None = None) -> list[tuple[int, int]]:
        """(x, y) of the stones (of ``colour``, else of both), row by row from A1."""
        b = game.board
        n = b.size
        return [
            (x, y)
            for y in range(n)
            for x in range(n)
            if (b.color_at(x, y) == colour if colour else b.color_at(x, y))
        ]

    def _count(self) -> dict:
        """The players' count of this game (waited for once); a game ended otherwise counts
        nothing: its result, no stone dead."""
        if not self.started:
            raise GtpError("no game has been played")
        if self.count is None:
            st = self.player.state()
            if st.get("phase") == "play" and not st.get("result"):
                # No count comes before two passes: waiting here would hang the controller.
                raise GtpError("the game is still being played: no count yet")
            self.log("waiting for the count at the board (dead stones lifted, MODE, both confirm)")
            try:
                self.count = self.player.wait_count()
            except GameOver as e:
                self.count = {"result": e.result, "margin4": None, "dead": []}
        return self.count

    def _time_left(self, colour: int, ms: int, stones: int) -> None:
        try:
            self.player.time_left(colour, ms, stones)
        except BoardError as e:
            if e.code not in ("no_game", "not_remote"):
                raise GtpError("the board refuses it: %s" % (e.message or e.code)) from None
            self.log("time_left not given to the board: %s" % e)

    # ---- administrative commands ---------------------------------------------------------

    def cmd_version(self, args):
        """The board's firmware version and the host tools'."""
        _want(args, 0)
        if self._fw is None:
            self._fw = str(self.player.hello().get("fw", "?"))
        return "%s (host %s)" % (self._fw, host_version())

    def cmd_analyze_commands(self, args):
        """GoGui's analyze commands: none."""
        _want(args, 0)
        return ""

    # ---- setup ---------------------------------------------------------------------------

    def cmd_boardsize(self, args):
        """The next game's size: 9, 13 or 19."""
        _want(args, 1)
        n = _int(args[0])
        if n not in SIZES:
            raise GtpError("unacceptable size")
        self._set(game="go", size=n)
        self._new_gtp_game()
        return ""

    def cmd_clear_board(self, args):
        """The next game: it starts on the board at the next play or genmove."""
        _want(args, 0)
        self._new_gtp_game()
        return ""

    def cmd_komi(self, args):
        """The next game's komi (a multiple of 0.5)."""
        _want(args, 1)
        komi2 = parse_komi(args[0])
        self._set(komi2=komi2)
        self.komi2 = komi2
        return ""

    def cmd_get_komi(self, args):
        """The komi (GNU Go extension)."""
        _want(args, 0)
        return format_komi(self.komi2)

    def cmd_fixed_handicap(self, args):
        """The next game's handicap: the board's fixed stones; their vertices (as GNU Go)."""
        _want(args, 1)
        n = _int(args[0])
        if self.started:
            raise GtpError("board not empty")
        try:
            points = fixed_handicap(self.next["size"], n)
        except ValueError:
            raise GtpError("invalid number of stones") from None
        self._set(handicap=n)
        return " ".join(vertex(x, y) for x, y in points)

    cmd_place_free_handicap = cmd_fixed_handicap  # the board's stones go where fixed ones do

    def cmd_set_free_handicap(self, args):
        """Handicap stones on the given vertices: only the fixed pattern (the board's)."""
        if self.started:
            raise GtpError("board not empty")
        size = self.next["size"]
        points = set()
        for text in args:
            try:
                xy = parse_vertex(text, size)
            except ValueError:
                raise GtpError("bad vertex list") from None
            if xy is None or xy in points:
                raise GtpError("bad vertex list")
            points.add(xy)
        try:
            fixed = fixed_handicap(size, len(points))
        except ValueError:
            raise GtpError("invalid number of stones") from None
        if points != set(fixed):
            raise GtpError(
                "the board puts handicap stones only on the fixed points: %s"
                % " ".join(vertex(x, y) for x, y in fixed)
            )
        self._set(handicap=len(points))
        return ""

    # ---- the game ------------------------------------------------------------------------

    def cmd_play(self, args):
        """The opponent's move: answered once the player has put it on the board."""
        _want(args, 2)
        c = _color(args[0])
        point = self._point(args[1])
        if not self.started:
            self._start(c)
        if c != self.remote:
            # The board's player's own move, said back (a controller syncing its record):
            # fine if it is the board's last move.
            moves = self.player.moves()
            if moves and moves[-1] == (c, point):
                return ""
            raise GtpError("%s plays at the board: ask it with genmove" % _COLOR_NAMES[c])
        self.log("%s %s: waiting for the stone on the board" % (_COLOR_NAMES[c], args[1]))
        try:
            self.player.play(c, point)
        except Illegal as e:
            raise GtpError("illegal move (%s)" % (e.message or e.code)) from None
        return ""

    def cmd_genmove(self, args):
        """The move the player at the board makes (answered at the clock press): a vertex,
        ``pass``, or ``resign`` when the player resigned or lost on time."""
        _want(args, 1)
        c = _color(args[0])
        if not self.started:
            self._start(3 - c)
        if c == self.remote:
            raise GtpError(
                "the player at the board is %s: %s's moves come with play"
                % (_COLOR_NAMES[3 - c], _COLOR_NAMES[c])
            )
        self.log("waiting for %s's move at the board" % _COLOR_NAMES[c])
        try:
            point = self.player.wait_move(c)
        except GameOver as e:
            if _lost_at_board(e.result, c):
                return "resign"
            raise
        return _point_vertex(point)

    def cmd_undo(self, args):
        """Take back the last move (the faces tell the player which stone to lift)."""
        _want(args, 0)
        if not self.started:
            raise GtpError("cannot undo")
        try:
            self.player.undo()
        except BoardError as e:
            raise GtpError("cannot undo (%s)" % (e.message or e.code)) from None
        self.count = None
        return ""

    # ---- time ----------------------------------------------------------------------------

    def cmd_time_settings(self, args):
        """GTP's ``main byo_yomi stones``, seconds, as the board's time: Canadian overtime,
        or absolute time; "no time limit" (byo-yomi without stones) leaves the board's."""
        _want(args, 3)
        main, byo, stones = (_int(a) for a in args)
        if min(main, byo, stones) < 0:
            raise GtpError("syntax error (negative time)")
        if byo == 0:
            spec = "absolute/%d" % main if main else None
        else:
            spec = "canadian/%d/%d/%d" % (main, stones, byo) if stones else None
        if spec is not None:
            self._set(time=spec)
        return ""

    def cmd_kgs_time_settings(self, args):
        """KGS's ``none | absolute M | byoyomi M T P | canadian M T S`` as the board's time."""
        if not args:
            raise GtpError("syntax error (wrong number of arguments)")
        kind = args[0].lower()
        want = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}.get(kind)
        if want is None:
            raise GtpError("syntax error (time system must be none absolute byoyomi canadian)")
        _want(args[1:], want)
        n = [_int(a) for a in args[1:]]
        if any(v < 0 for v in n):
            raise GtpError("syntax error (negative time)")
        if kind == "absolute":
            self._set(time="absolute/%d" % n[0])
        elif kind == "byoyomi":  # main, period time, periods
            self._set(time="byoyomi/%d/%d/%d" % (n[0], n[2], n[1]))
        elif kind == "canadian":  # main, period time, stones
            self._set(time="canadian/%d/%d/%d" % (n[0], n[2], n[1]))
        return ""

    def cmd_time_left(self, args):
        """A side's time as the controller counts it, given to the board's clock."""
        _want(args, 3)
        c = _color(args[0])
        try:
            ms = round(float(args[1]) * 1000)
        except ValueError:
            raise GtpError("syntax error (not a time: '%s')" % args[1]) from None
        stones = _int(args[2])
        if ms < 0 or stones < 0:
            raise GtpError("syntax error (negative time)")
        if not self.started:  # said before the first move: given once the game starts
            self.times[c] = (ms, stones)
            return ""
        self._time_left(c, ms, stones)
        return ""

    # ---- the end -------------------------------------------------------------------------

    def cmd_final_score(self, args):
        """The players' count at the board: ``B+3.5``, ``W+2``, ``0`` (or how it ended)."""
        _want(args, 0)
        count = self._count()
        if count["result"] or count["margin4"] is None:
            return count["result"]
        return result_sgf(count["margin4"])

    def cmd_final_status_list(self, args):
        """``dead``: the stones the players lifted at the count; ``alive``: the others;
        ``seki``: none (the board's count does not tell)."""
        _want(args, 1)
        status = args[0].lower()
        if status not in ("dead", "alive", "seki"):
            raise GtpError("syntax error (status must be dead alive seki)")
        if status == "seki":
            return ""
        dead = {(p & 31, p >> 5) for p in self._count()["dead"]}
        if status == "dead":
            points = sorted(dead, key=lambda xy: (xy[1], xy[0]))
        else:
            points = [xy for xy in self._stones(self._position()) if xy not in dead]
        return " ".join(vertex(x, y) for x, y in points)

    # ---- the position --------------------------------------------------------------------

    def cmd_showboard(self, args):
        """ASCII diagram of the board's game: X black, O white, + star points."""
        _want(args, 0)
        g = self._position()
        lines = diagram(g.board, GO_COLUMNS, star_points(g.size))
        lines.append(
            "Captures: black (X) %d, white (O) %d" % (g.captures[BLACK], g.captures[WHITE])
        )
        who = (
            "the player at the board is %s" % _COLOR_NAMES[3 - self.remote]
            if self.started
            else "not started"
        )
        lines.append(
            "Komi %s, move %d, %s to play; %s"
            % (format_komi(self.komi2), g.ply, _COLOR_NAMES[g.to_move], who)
        )
        return "\n" + "\n".join(lines)

    def cmd_list_stones(self, args):
        """Vertices of the stones of a colour."""
        _want(args, 1)
        c = _color(args[0])
        return " ".join(vertex(x, y) for x, y in self._stones(self._position(), c))

    COMMANDS = dict(Admin.COMMANDS)
    COMMANDS.update(
        {
            "version": cmd_version,
            "boardsize": cmd_boardsize,
            "clear_board": cmd_clear_board,
            "komi": cmd_komi,
            "get_komi": cmd_get_komi,
            "fixed_handicap": cmd_fixed_handicap,
            "place_free_handicap": cmd_place_free_handicap,
            "set_free_handicap": cmd_set_free_handicap,
            "play": cmd_play,
            "genmove": cmd_genmove,
            "undo": cmd_undo,
            "time_settings": cmd_time_settings,
            "kgs-time_settings": cmd_kgs_time_settings,
            "time_left": cmd_time_left,
            "final_score": cmd_final_score,
            "final_status_list": cmd_final_status_list,
            "showboard": cmd_showboard,
            "list_stones": cmd_list_stones,
            "gogui-analyze_commands": cmd_analyze_commands,
        }
    )


def serve(engine: Engine, inp=None, out=None) -> None:
    """Answer GTP commands from ``inp`` (default stdin) on ``out`` (default stdout), each
    response flushed, until ``quit`` or the end of the input."""
    inp = inp if inp is not None else getattr(sys.stdin, "buffer", sys.stdin)
    out = out if out is not None else getattr(sys.stdout, "buffer", sys.stdout)
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
        # Bytes to a binary stream (stdout's buffer: no ASCII-only stdout can fail), else text.
        out.write(reply if hasattr(out, "encoding") else reply.encode())
        out.flush()


def _stderr_log(text: str) -> None:
    print("tengen gtp: %s" % text, file=sys.stderr, flush=True)


def run(port: str, opponent: str = DEFAULT_OPPONENT, log=_stderr_log) -> None:
    """The board at ``port`` as a GTP engine on stdin/stdout until ``quit`` or the end of
    the input; the board's events off again at the end. Raises LinkError if the port cannot
    be used, BoardError if the board will not play."""
    from host_tools.common.link import Link, set_clock, stop_watching

    link = Link(port)
    try:
        set_clock(link)  # the record's date
        player = BoardPlayer(link)
        engine = Engine(player, opponent, log)
        log("the board at %s plays GTP; its opponent is %s" % (port, engine.opponent))
        serve(engine)
    finally:
        stop_watching(link)
