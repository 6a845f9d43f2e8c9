"""Engines run by the PC: a GTP engine (GNU Go, KataGo...) or a Gomocup (Piskvork) brain, each
as a small client over its subprocess, speaking in the contract's one encoding of a point.

Start reading at ``GtpEngine`` and ``GomocupBrain``; ``time_control`` turns the board's ``time``
setting into a ``firmware.clock.control.TimeControl`` that either engine can be told.

A point is the rules' code ``y << 5 | x`` (x from the left, y from the bottom, 1023 a pass);
the engines' own coordinates are converted only here: GTP vertices with
``firmware.rules.coords``, Gomocup's ``x,y`` (0-based from the TOP-left) by turning y over.

Each command waits at most ``timeout`` seconds (``move_timeout`` for the commands that make
the engine think); an engine that does not answer in time, answers with an error, or exits is
an ``EngineError``. ``close`` ends the engine politely (``quit`` / ``END``), then by
terminate, then by kill, so no engine outlives the match.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import shlex
import subprocess
import threading

from firmware.clock import control as C
from firmware.gtp.go import format_komi
from firmware.rules.coords import parse_vertex, vertex
from firmware.rules.go import fixed_handicap as board_handicap
from firmware.rules.gomoku import PASS, point, xy

log = logging.getLogger(__name__)

BLACK = 1
WHITE = 2
RESIGN = -1  # genmove's answer when the engine resigns (no point code is negative)

COMMAND_TIMEOUT = 120.0  # seconds for an ordinary command: an engine loading its network
MOVE_TIMEOUT = 3600.0  # seconds for a move: the board's clock is the judge, not this
QUIT_TIMEOUT = 5.0  # seconds the engine gets to exit after quit / END, then after terminate

_MS = 1000


class EngineError(Exception):
    """The engine failed: an error answer, no answer in time, garbage, or it exited."""


# ---- the board's time setting ------------------------------------------------------------


def time_control(setting: str) -> C.TimeControl:
    """The ``TimeControl`` of the board's ``time`` setting (``firmware.clock.control.lookup``:
    a preset name of PRESETS, or a spec in seconds: ``absolute/M``, ``byoyomi/M/P/T``,
    ``canadian/M/S/T``, ``fischer/M/I``). ValueError for anything else."""
    tc = C.lookup(setting)
    if tc is None:
        raise ValueError("%r is not a time preset or spec" % (setting,))
    return tc


def _seconds(ms: int) -> int:
    return ms // _MS


def gtp_time(tc: C.TimeControl) -> tuple[tuple[int, int, int], tuple | None]:
    """How a GTP engine is told ``tc``: the ``time_settings`` arguments (main, byo-yomi time,
    stones; seconds) and the ``kgs-time_settings`` arguments, None where KGS has no kind.

    GTP knows absolute, Canadian and (KGS) Japanese byo-yomi only; the other kinds are told as
    the nearest one that never gives the engine more time than it has."""
    main = _seconds(tc.main_ms)
    if tc.kind in (C.JAPANESE, C.CHINESE):
        # 读秒 counts whole minutes of the kept ones: periods of a minute, as byo-yomi.
        t = _seconds(tc.period_ms)
        return (main, t, 1), ("byoyomi", main, t, tc.periods)
    if tc.kind == C.CANADIAN:
        t = _seconds(tc.period_ms)
        return (main, t, tc.moves), ("canadian", main, t, tc.moves)
    if tc.kind in (C.FISCHER, C.BRONSTEIN, C.DELAY):
        # No increment in GTP: after the main time, the increment for each move (one stone
        # per period) is what the engine can always count on.
        return (main, _seconds(tc.increment_ms), 1), None
    if tc.kind == C.SHARED:
        main //= 2  # half the pool each, as when the arbiter splits it
    # ABSOLUTE; STAGES and PENALTY as their first limit (later stages, penalty periods: extra)
    return (main, 0, 0), ("absolute", main)


def gomocup_time(tc: C.TimeControl) -> dict[str, int]:
    """The Gomocup ``INFO`` figures (ms) for ``tc``: ``timeout_match`` (the whole game's time)
    and, when the control has a per-move figure, ``timeout_turn``."""
    info = {"timeout_match": tc.main_ms}
    if tc.kind == C.STAGES:
        info["timeout_match"] = sum(ms for ms, _ in tc.stages)
    elif tc.kind == C.SHARED:
        info["timeout_match"] = tc.main_ms // 2
    if tc.kind in (C.JAPANESE, C.CHINESE):
        info["timeout_turn"] = tc.period_ms
    elif tc.kind == C.CANADIAN:
        info["timeout_turn"] = tc.period_ms // max(1, tc.moves)
    elif tc.kind in (C.FISCHER, C.BRONSTEIN, C.DELAY) and tc.increment_ms:
        info["timeout_turn"] = tc.increment_ms
    return info


# ---- coordinates: the engines' own, converted here only --------------------------------


def gtp_vertex(p: int) -> str:
    """A point code as a GTP vertex: ``Q16``, ``pass`` (y from the bottom in both)."""
    return "pass" if p == PASS else vertex(*xy(p))


def gtp_point(text: str, size: int) -> int:
    """A GTP vertex (``Q16``, ``pass``) as a point code; EngineError if not on the board."""
    try:
        v = parse_vertex(text, size)
    except ValueError:
        raise EngineError("not a vertex: %r" % text) from None
    return PASS if v is None else point(*v)


# Gomocup's "x,y" counts rows from the TOP (Piskvork's screen order), the point codes from
# the bottom (GTP's and the rules'), so y turns over here and only here: on 15x15 the
# Gomocup move 7,0 is the top row's middle, point (7, 14).


def gomocup_xy(p: int, size: int) -> str:
    """A point code as Gomocup's ``x,y`` (0-based from the top-left)."""
    x, y = xy(p)
    return "%d,%d" % (x, size - 1 - y)


def gomocup_point(text: str, size: int) -> int:
    """Gomocup's ``x,y`` (0-based from the top-left) as a point code; EngineError if it is
    not a move on the board."""
    m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", text)
    if m is None:
        raise EngineError("not a move: %r" % text)
    x, y = int(m.group(1)), int(m.group(2))
    if not (0 <= x < size and 0 <= y < size):
        raise EngineError("move off the %dx%d board: %r" % (size, size, text))
    return point(x, size - 1 - y)


# ---- the process -------------------------------------------------------------------------


class _Process:
    """An engine's subprocess: lines to its stdin, lines from its stdout within a timeout
    (a thread reads them into a queue, so a silent engine cannot block the match)."""

    def __init__(self, cmd: str, stderr=None):
        argv = shlex.split(cmd)
        if not argv:
            raise EngineError("no engine command")
        self.program = os.path.basename(argv[0])
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL if stderr is None else stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as e:
            raise EngineError("cannot start %r: %s" % (cmd, e)) from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # end of output: the engine exited

    def write(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineError("the engine is gone (%s)" % e) from None

    def readline(self, timeout: float | None) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineError("no answer within %g s" % timeout) from None
        if line is None:
            self.lines.put(None)  # stays ended for the next reader
            raise EngineError("the engine exited (code %s)" % self.proc.poll())
        return line

    def close(self) -> None:
        """Wait for the exit asked for, then terminate, then kill."""
        p = self.proc
        for stop in (None, p.terminate, p.kill):
            if stop is not None:
                stop()
            try:
                p.wait(QUIT_TIMEOUT)
                break
            except subprocess.TimeoutExpired:
                continue
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass


# ---- GTP -----------------------------------------------------------------------------------


def _gtp_colour(colour: int) -> str:
    return "b" if colour == BLACK else "w"


class _Engine:
    """What both protocols' clients share: the process (``p``), and its end: the protocol's
    goodbye (``_goodbye``: GTP ``quit``, Gomocup ``END``), then terminate, then kill."""

    size = 19  # until the game's is told

    def __init__(
        self,
        cmd: str,
        timeout: float = COMMAND_TIMEOUT,
        move_timeout: float = MOVE_TIMEOUT,
        stderr=None,
    ):
        self.timeout = timeout  # seconds for a command's answer
        self.move_timeout = move_timeout  # seconds for a move's
        self.p = _Process(cmd, stderr)

    def _goodbye(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """The protocol's goodbye, then terminate, then kill."""
        if self.p.proc.poll() is None:
            try:
                self._goodbye()
            except EngineError:
                pass
        self.p.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class GtpEngine(_Engine):
    """A GTP engine (GTP 2) over its subprocess: ``GtpEngine("gnugo --mode gtp")``."""

    size = 19

    def __init__(self, cmd: str, *args, **kwargs):
        super().__init__(cmd, *args, **kwargs)
        self._known: set[str] | None = None

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; the answer's text (lines joined by newlines). EngineError on a
        ``?`` answer, on no answer within the timeout, or if the engine exited."""
        wait = self.timeout if timeout is None else timeout
        log.debug("gtp> %s", command)
        self.p.write(command)
        lines: list[str] = []
        while True:
            line = self.p.readline(wait)
            if not lines:
                if not line.strip():
                    continue  # blank lines before an answer: tolerated
                if line[0] not in "=?":
                    raise EngineError("not a GTP answer to %r: %r" % (command, line))
            elif not line.strip():
                break  # the empty line ends the answer
            lines.append(line)
        log.debug("gtp< %s", "\\n".join(lines))
        # "=[id] text": the text after the status and the optional id
        head = re.sub(r"^[=?]\d*\s?", "", lines[0])
        text = "\n".join([head] + lines[1:]).strip()
        if lines[0][0] == "?":
            raise EngineError("%s: %s" % (command.split()[0], text or "failed"))
        return text

    # -- who it is
    def name(self) -> str:
        return self.send("name")

    def version(self) -> str:
        return self.send("version")

    def full_name(self) -> str:
        """Name and version as a player's name: ``GNU Go 3.8`` (the program's file name if
        the engine will not say)."""
        try:
            name = self.name()
        except EngineError:
            return self.p.program
        try:
            version = self.version()
        except EngineError:
            version = ""
        return (name + " " + version).strip() if version else name

    def known_command(self, command: str) -> bool:
        if self._known is None:
            try:
                self._known = set(self.send("list_commands").split())
            except EngineError:
                self._known = set()
        return command in self._known

    # -- the game
    def boardsize(self, size: int) -> None:
        self.send("boardsize %d" % size)
        self.size = size

    def clear_board(self) -> None:
        self.send("clear_board")

    def komi(self, komi2: int) -> None:
        """Komi in half points: 13 -> ``komi 6.5``."""
        self.send("komi " + format_komi(komi2))

    def fixed_handicap(self, n: int) -> list[int]:
        """Black's ``n`` handicap stones where the engine puts them: their point codes."""
        text = self.send("fixed_handicap %d" % n)
        return [self._point(v) for v in text.split()]

    def set_free_handicap(self, points: list[int]) -> None:
        self.send("set_free_handicap " + " ".join(self._vertex(p) for p in points))

    def handicap(self, n: int) -> list[int]:
        """Black's ``n`` handicap stones as the board places them (GTP's fixed points, from
        ``firmware.rules.go``): ``fixed_handicap``, or ``set_free_handicap`` where the engine
        put them elsewhere. Their point codes."""
        want = [point(x, y) for x, y in board_handicap(self.size, n)]
        got = self.fixed_handicap(n)
        if sorted(got) != sorted(want):
            self.clear_board()
            self.set_free_handicap(want)
        return want

    def time_settings(self, tc: C.TimeControl) -> None:
        """Tell the engine ``tc`` (``kgs-time_settings`` when it knows it and the kind, else
        ``time_settings``)."""
        plain, kgs = gtp_time(tc)
        if kgs is not None and self.known_command("kgs-time_settings"):
            self.send("kgs-time_settings " + " ".join(str(a) for a in kgs))
        else:
            self.send("time_settings %d %d %d" % plain)

    def time_left(self, colour: int, ms: int, stones: int = 0) -> None:
        self.send("time_left %s %d %d" % (_gtp_colour(colour), _seconds(ms), stones))

    def play(self, colour: int, p: int) -> None:
        self.send("play %s %s" % (_gtp_colour(colour), self._vertex(p)))

    def genmove(self, colour: int) -> int:
        """The engine's move for ``colour``: a point code, PASS (1023) or RESIGN."""
        text = self.send("genmove " + _gtp_colour(colour), self.move_timeout)
        if text.lower() == "resign":
            return RESIGN
        return self._point(text)

    def final_score(self) -> str:
        return self.send("final_score")

    def final_status_list(self, status: str = "dead") -> list[int]:
        """The stones the engine judges ``status`` (``dead``, ``alive``, ``seki``) at the
        end: their point codes (GTP answers them on one or more lines)."""
        return [self._point(v) for v in self.send("final_status_list " + status).split()]

    def _goodbye(self) -> None:
        self.send("quit", QUIT_TIMEOUT)

    def _vertex(self, p: int) -> str:
        return gtp_vertex(p)

    def _point(self, text: str) -> int:
        return gtp_point(text, self.size)


# ---- Gomocup -------------------------------------------------------------------------------

# INFO rule, a bit set: 1 exactly five wins, 4 Renju; 0 freestyle.
GOMOCUP_RULES = {"freestyle": 0, "standard": 1, "renju": 4}
_NOTES = ("MESSAGE", "DEBUG", "SUGGEST")  # lines a brain may write besides its answer


class GomocupBrain(_Engine):
    """A Gomocup (Piskvork) brain over its subprocess, the manager's side of the protocol:
    ``START``, ``INFO``, ``BEGIN``, ``TURN``, ``BOARD``, ``ABOUT``, ``END``."""

    size = 15

    def __init__(self, cmd: str, *args, **kwargs):
        super().__init__(cmd, *args, **kwargs)
        self.messages: list[str] = []  # the brain's MESSAGE lines, for the curious

    def _answer(self, command: str, timeout: float) -> str:
        # The brain's answer line, past its MESSAGE/DEBUG/SUGGEST lines.
        while True:
            line = self.p.readline(timeout).strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            if word in _NOTES:
                log.info("brain %s: %s", word, rest)
                if word == "MESSAGE":
                    self.messages.append(rest)
                continue
            if word in ("ERROR", "UNKNOWN"):
                # UNKNOWN too: the brain will send nothing else for this command.
                log.warning("brain %s: %s", word, rest)
                raise EngineError("%s: %s %s" % (command.split()[0], word, rest))
            log.debug("brain< %s", line)
            return line

    def send(self, command: str, timeout: float | None = None, answer: bool = True) -> str:
        """Send one command; the brain's answer line (none for ``INFO`` / ``END``)."""
        log.debug("brain> %s", command)
        self.p.write(command)
        if not answer:
            return ""
        return self._answer(command, self.timeout if timeout is None else timeout)

    # -- who it is
    def about(self) -> dict[str, str]:
        """ABOUT's fields: ``name="pbrain", version="1.0"`` -> {"name": ..., "version": ...}."""
        return dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', self.send("ABOUT")))

    def full_name(self) -> str:
        """Name and version as a player's name (the program's file name if it will not say)."""
        try:
            fields = self.about()
        except EngineError:
            fields = {}
        name = fields.get("name") or self.p.program
        version = fields.get("version", "")
        return (name + " " + version).strip()

    # -- the game
    def start(self, size: int) -> None:
        if self.send("START %d" % size).upper() != "OK":
            raise EngineError("START %d refused" % size)
        self.size = size

    def info(self, key: str, value) -> None:
        self.send("INFO %s %s" % (key, value), answer=False)

    def rule(self, game: str) -> None:
        """INFO rule for the board's game: ``freestyle``, ``standard`` or ``renju``."""
        self.info("rule", GOMOCUP_RULES[game])

    def time_settings(self, tc: C.TimeControl) -> None:
        for key, ms in gomocup_time(tc).items():
            self.info(key, ms)

    def time_left(self, ms: int) -> None:
        self.info("time_left", max(0, ms))

    def begin(self) -> int:
        """The brain's first move (it plays Black): a point code."""
        return self._point(self.send("BEGIN", self.move_timeout))

    def turn(self, p: int) -> int:
        """Tell the opponent's move ``p``; the brain's answer, a point code."""
        return self._point(self.send("TURN " + self._xy(p), self.move_timeout))

    def board(self, moves: list[tuple[int, int]], colour: int) -> int:
        """The whole position (``(colour, point)`` in the order played, passes left out) for
        the brain playing ``colour`` to move next (after a pass it cannot be told of)."""
        self.p.write("BOARD")
        for c, p in moves:
            if p != PASS:
                self.p.write("%s,%d" % (self._xy(p), 1 if c == colour else 2))
        return self._point(self.send("DONE", self.move_timeout))

    def _goodbye(self) -> None:
        self.send("END", answer=False)

    def _xy(self, p: int) -> str:
        return gomocup_xy(p, self.size)

    def _point(self, text: str) -> int:
        return gomocup_point(text, self.size)
