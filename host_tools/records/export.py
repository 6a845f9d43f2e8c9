"""A journaled game as files for the PC: SGF for Go (``GM[1]``), SGF and Piskvork ``.psq`` for
Gomoku/Renju (``GM[4]``).

Start reading at ``export``. The input is a game's decoded records, as
``firmware.store.journal.Journal.records(game_no)`` returns them (the header first); see
``firmware/store/records.py`` for their fields. ``read_game`` turns them into one ``Game``
(the moves that stand, after arbiter undos and timeouts turned into passes); the writers work
from that. SGF is built with sgfmill (``sgf.Sgf_game``), so values are escaped and
coordinates written by the library, not by hand.

The SGF of a synced game carries its proof (``proof_values``): the board's record itself and its
HMAC in the private root property ``TG`` (SGF FF[4] §2.2.4: two capital letters, no standard
property's; §2.2.3: viewers keep or skip a property they do not know). Everything else in the
SGF is derived from that record, so ``tengen verify`` (host_tools/records/sgf_check.py) can write the
SGF again from the record and compare it byte for byte.

Clocks (a MOVE's ``clocks``: black main ms, black units, white main ms, white units; the
units are what ``firmware/clock/clock.py`` keeps in ``over``) become SGF FF[4] ``BL``/``WL``
(seconds left: the main time, or in overtime the period's time) and ``OB``/``OW`` (periods
or kept minutes left in byo-yomi, stones left in a Canadian block), on the mover's node.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
from dataclasses import dataclass, field

from sgfmill import sgf, sgf_grammar

from firmware.clock import control as C
from firmware.referee import incidents as INC
from firmware.rules.go import fixed_handicap
from firmware.store import records as R
from firmware.ui import arbiter as A
from host_tools.common import words as W

# Why a game ended (the RESULT record's ``reason``): firmware/game/match.py END_*, and 5 the
# arbiter's decision (firmware/game/app.py, arbiter RESULT).
END_RESIGN = 1
END_TIME = 2
END_COUNT = 3
END_RULES = 4
END_ARBITER = 5

_TICK_MOD = 1 << 30
_GO_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP: no I
_GOMOKU_COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the Renju board's A-O, nothing skipped
_RULES_NAMES = {R.RENJU: "Renju", R.STANDARD: "Gomoku (standard)", R.FREESTYLE: "Gomoku"}
PISKVORK_TIMEOUT = 15  # Piskvork's errCode for a timeout (game.cpp: finishGame(15))
# The SGF's proof: ``TG[format][board id][HMAC hex, or empty][base64 of the record]`` on the
# root. ``SGF_FORMAT`` names the text this module writes: bump it with any change to what an
# SGF holds or how it is written, so that ``verify`` never compares a file with the output of
# another writer (it says which format it met instead). tests/host/records/test_sgf_verify.py pins it.
PROOF = "TG"
SGF_FORMAT = 1
_HEX = re.compile(r"[0-9a-f]+")


@dataclass
class Move:
    """One move that stands: ``point`` y<<5|x (x from the left, y from the bottom) or
    ``records.PASS``; ``clocks`` as journaled, or None (a timeout turned into a pass)."""

    ply: int
    colour: int  # 1 black, 2 white
    point: int
    tick: int | None
    clocks: tuple | None
    notes: list = field(default_factory=list)  # comment lines for this move's node

    @property
    def is_pass(self) -> bool:
        return self.point == R.PASS

    @property
    def xy(self) -> tuple[int, int] | None:
        return None if self.is_pass else (self.point & 31, self.point >> 5)


@dataclass
class Game:
    """A journaled game, ready to write. ``result`` is ``(winner, reason, margin2, move_no)``
    or None for a game that has not ended; ``voided`` is set when the arbiter's result was
    "both lose" (journaled as winner 0, like a draw)."""

    header: dict
    moves: list[Move]
    result: tuple | None
    voided: bool = False
    root_notes: list = field(default_factory=list)
    swapped: bool = False  # Renju: White took Black after move 3 (三手可交换): names swap
    decided: int = -1  # the arbiter's result (its RESULT action's argument), -1 none


def read_game(records) -> Game:
    """The ``Game`` of decoded records (header first). ValueError if there is no header.

    A MOVE of ply p replaces every move from ply p on (what an arbiter undo leaves); an undo
    edit at move_no n drops moves from ply n; a timeout turned into a pass (no MOVE record is
    written for it) becomes a pass of the side to move, with no clocks.
    """
    if not records or records[0][0] != R.HEADER:
        raise ValueError("the records do not start with a header")
    header = R.full_header(records[0][1])
    moves: list[Move] = []
    result = None
    voided = False
    root_notes: list[str] = []
    swapped = False
    swap_at = -1  # the moves standing when the swap was made
    decided = -1
    size = header["size"] or (19 if header["kind"] == R.GO else 15)
    header["size"] = size

    def to_move():
        if moves:
            return 3 - moves[-1].colour
        return 2 if header["kind"] == R.GO and header["handicap"] >= 2 else 1

    notes = []  # (move_no, text): placed once the moves that stand are known

    def note(move_no, text):
        notes.append((move_no, text))

    for rec in records[1:]:
        t = rec[0]
        if t == R.MOVE:
            _, ply, colour, point, tick, clocks = rec
            moves[:] = [m for m in moves if m.ply < ply]
            moves.append(Move(ply, colour, point, tick, tuple(clocks)))
        elif t == R.INCIDENT:
            _, kind, move_no, time_ms, points, detail = rec
            if kind in (INC.MOVE, INC.PASS):  # every move logs one: the moves say it already
                continue
            if kind == INC.SWAP:
                swapped = not swapped
                swap_at = len(moves)
            text = "incident: " + incident_text(kind, detail, header)
            text += W.where(kind, [_label(q, header) for q in points])
            note(move_no, text)
        elif t == R.EDIT:
            _, kind, move_no, time_ms, args = rec
            side = 0
            if kind == A.UNDO:
                before = len(moves)
                moves[:] = [m for m in moves if m.ply < move_no]
                if swapped and len(moves) == before == swap_at:
                    swapped = False  # no move taken back: the swap itself was (gomoku.undo)
            elif kind == A.TIMEOUT_PASS:
                side = to_move()
                moves.append(Move(move_no - 1, side, R.PASS, None, None))
                move_no -= 1  # the note belongs to the pass itself
            elif kind == A.RESULT and args:
                voided = args[0] == A.BOTH_LOSE  # the app writes "Void"
                decided = args[0]
            note(move_no, "arbiter: " + W.line(*W.action(kind, args, side)))
        elif t == R.RESULT:
            result = tuple(rec[1:])
    for move_no, text in notes:
        # On move ``move_no`` (1-based) if it stands, else the last move before it, else the
        # root (an incident's move_no is the move being played when it happened).
        for m in reversed(moves):
            if m.ply <= move_no:
                m.notes.append(text)
                break
        else:
            root_notes.append(text)
    return Game(header, moves, result, voided, root_notes, swapped, decided)


def incident_text(kind, detail, header) -> str:
    """An incident in words (host_tools/common/words.py), its detail said, not numbered."""
    return W.line(*W.incident(kind, detail, header.get("kind", R.GO) != R.GO))


def _label(point, header):
    if point == R.PASS:
        return "pass"
    cols = _GO_COLUMNS if header["kind"] == R.GO else _GOMOKU_COLUMNS
    x, y = point & 31, point >> 5
    return (cols[x] if x < len(cols) else "?%d" % x) + str(y + 1)


# -- result and time control ---------------------------------------------------------------


def result_text(game: Game) -> str | None:
    """SGF ``RE`` of the game: ``B+R``, ``W+T``, ``B+3.5``, ``0`` (draw), ``Void``, ``B+F``
    (Go: a second warning), ``B+`` / ``W+`` (Gomoku, or the arbiter's decision); None if the
    game has no result. A count's ``margin2`` is Black's margin in half points."""
    if game.result is None:
        return None
    winner, reason, margin2, _ = game.result
    side = {1: "B", 2: "W"}.get(winner)
    if reason == END_ARBITER:
        if side:
            return side + "+"
        return "Void" if game.voided else "0"
    if side is None:
        return "0"
    if reason == END_RESIGN:
        return side + "+R"
    if reason == END_TIME:
        return side + "+T"
    if reason == END_COUNT:
        if margin2 == 0:
            return "0"
        m = abs(margin2)
        return "%s+%d%s" % (side, m // 2, ".5" if m % 2 else "")
    if reason == END_RULES and game.header["kind"] == R.GO:
        return side + "+F"  # Go ends by the rules only through a second warning (forfeit)
    if reason == END_RULES and margin2 >> 2 == _GOMOKU_WIN_FOUL:
        return side + "+F"  # Black's forbidden move loses (002 第十条1(2)): a forfeit in SGF
    return side + "+"


# Gomoku's result by the rules, as firmware/game/match.py's ``gomoku_how`` keeps it in the
# result's margin: ``reason << 2 | foul`` (firmware/rules/gomoku.py's reasons and kinds).
_GOMOKU_WIN_FOUL = 2
_GOMOKU_HOW = {
    1: "five in a row (五连, 002 第十条1(1))",
    2: "Black's forbidden move: %s (禁手, 002 第十条1(2))",
    3: "a draw: both passed (002 第十条2)",
    4: "a draw: the board is full (002 第十条2)",
    5: "a draw agreed (002 第十条3)",
    6: "resigned",
    7: "adjudicated",
}


def result_reason(game: Game) -> str | None:
    """The words for how the game ended (an SGF comment on the root): the count's margin in
    stones too for Go (黑胜1¾子), Gomoku's five, foul (with its kind and 002's article) or
    draw, a resignation, a time out, a forfeit, the arbiter's decision; None without a
    result."""
    if game.result is None:
        return None
    winner, reason, margin2, _ = game.result
    loser = 3 - winner if winner in W.SIDES else 0
    if reason == END_ARBITER:
        who = game.decided
        if who < 0:  # no RESULT action kept: the result record says who won
            who = winner if winner in W.SIDES else (3 if game.voided else 0)
        return "result: " + W.line(*W.decision(who))
    if reason == END_RESIGN and loser:
        return "result: %s resigned (%s认输)" % (W.side(loser), W.side(loser, True))
    if reason == END_TIME and loser:
        return "result: %s's time ran out (%s超时判负)" % (W.side(loser), W.side(loser, True))
    if reason == END_RULES and game.header["kind"] == R.GO and loser:
        return "result: %s forfeits after a second warning (%s第二次警告判负, 004 第24条)" % (
            W.side(loser),
            W.side(loser, True),
        )
    if reason == END_COUNT and game.header["kind"] == R.GO and margin2:
        q = abs(margin2)  # quarter stones = half points
        side = "黑" if margin2 > 0 else "白"
        frac = ("", "¼", "½", "¾")[q % 4]
        return "result: %s胜%d%s子 (area count, 000 第九条)" % (side, q // 4, frac)
    if reason == END_RULES and game.header["kind"] != R.GO:
        how = _GOMOKU_HOW.get(margin2 >> 2)
        if how is None:
            return None
        if "%s" in how:
            foul = W.FOULS.get(margin2 & 3)
            how = how % ("%s %s" % (foul[1], foul[0]) if foul else "")
        return "result: " + how
    if reason == END_COUNT and not margin2:
        return "result: a draw by the count (和棋, 000 第九条)"
    return None


def time_control(header) -> C.TimeControl | None:
    """The header's time control: its preset of ``firmware/clock/control.py`` when ``tc``
    names one whose figures agree, else one rebuilt from ``tc_figures`` (kind, main ms,
    period ms, periods, moves: no increments or stages); None without figures."""
    figs = tuple(header.get("tc_figures") or ())
    preset = C.PRESETS.get(header.get("tc") or "")
    if preset is not None and (
        not figs
        or figs[:5]
        == (preset.kind, preset.main_ms, preset.period_ms, preset.periods, preset.moves)
    ):
        return preset
    if len(figs) < 5:
        return None
    tc = C.TimeControl(figs[0], figs[1], header.get("tc") or "")
    tc.period_ms, tc.periods, tc.moves = figs[2], figs[3], figs[4]
    return tc


def _secs(ms):
    s = ms / 1000
    return "%d" % s if s == int(s) else "%g" % s


def _minutes(ms):
    if ms % 60000 == 0:
        n = ms // 60000
        return "%d minute%s" % (n, "" if n == 1 else "s")
    return _secs(ms) + " s"


def overtime_text(tc: C.TimeControl | None) -> str | None:
    """SGF ``OT``: ``5x30 byo-yomi``, ``1 minute counted (读秒)``, ``25/600 Canadian``,
    ``30 s Fischer increment`` ...; None when there is no overtime to describe."""
    if tc is None:
        return None
    k = tc.kind
    if k == C.JAPANESE:
        return "%dx%s byo-yomi" % (tc.periods, _secs(tc.period_ms))
    if k == C.CHINESE:
        return "%s counted (读秒)" % _minutes(tc.periods * tc.period_ms)
    if k == C.CANADIAN:
        return "%d/%s Canadian" % (tc.moves, _secs(tc.period_ms))
    if k == C.PENALTY:
        text = "%dx%s penalty periods" % (tc.periods, _minutes(tc.period_ms))
        return text + (" at %d points each" % tc.points if tc.points else "")
    if k == C.FISCHER:
        return "%s s Fischer increment" % _secs(tc.increment_ms) if tc.increment_ms else "Fischer"
    if k == C.BRONSTEIN:
        return "%s s Bronstein delay" % _secs(tc.increment_ms) if tc.increment_ms else "Bronstein"
    if k == C.DELAY:
        return "%s s delay" % _secs(tc.increment_ms) if tc.increment_ms else "delay"
    if k == C.STAGES:
        if len(tc.stages) > 1:
            return "stages: " + ", then ".join(
                ("%d moves in %s" % (n, _minutes(ms))) if n else _minutes(ms)
                for ms, n in tc.stages
            )
        return None
    if k == C.SHARED:
        return "shared time (共用时限)"
    return None


def clock_properties(tc: C.TimeControl | None, game: Game) -> list[dict]:
    """Per move (aligned with ``game.moves``): the SGF time properties of the mover's node,
    e.g. ``{"BL": 3540.0}`` or ``{"WL": 30.0, "OW": 4}``; {} for a move without clocks.

    Canadian stones left are not journaled: they are counted here from the moves each side
    made since its main time ran out (a block renews after ``moves`` moves, as the clock does).
    """
    out = []
    in_block = {1: None, 2: None}  # Canadian: moves left in the current block, None: main time
    for m in game.moves:
        props: dict = {}
        if m.clocks is None or len(m.clocks) < 4 or m.colour not in (1, 2) or tc is None:
            out.append(props)
            continue
        k = 2 * (m.colour - 1)
        main_ms, units = m.clocks[k], m.clocks[k + 1]
        left_key, over_key = ("BL", "OB") if m.colour == 1 else ("WL", "OW")
        kind = tc.kind
        if kind in (C.JAPANESE, C.CHINESE):
            if main_ms > 0:
                props[left_key] = main_ms / 1000
            else:
                props[left_key] = tc.period_ms / 1000
                props[over_key] = units
        elif kind == C.CANADIAN:
            if main_ms > 0:
                in_block[m.colour] = None
                props[left_key] = main_ms / 1000
            else:
                n = in_block[m.colour]
                n = (tc.moves if n is None else n) - 1
                if n <= 0:
                    n = tc.moves
                in_block[m.colour] = n
                props[left_key] = units / 1000
                props[over_key] = n
        elif kind == C.PENALTY:
            props[left_key] = (main_ms if main_ms > 0 else units) / 1000
        else:
            props[left_key] = main_ms / 1000
        out.append(props)
    return out


def header_extra(header: dict) -> dict:
    """The header's ``extra`` (the players, event, round, table: firmware/game/match.py) as a dict;
    {} if it is missing or not a JSON object. The one reader of it (``sync``, ``hall_state``
    too)."""
    try:
        extra = json.loads(header.get("extra") or "{}")
    except (TypeError, ValueError):
        return {}
    return extra if isinstance(extra, dict) else {}


def swap_players(names: dict, swapped: bool) -> dict:
    """``names`` (a copy) as they played: after a Renju swap (三手可交换) the one who set up as
    White plays Black, so "black" and "white" change places. The one place the swap is made
    (``players`` here, ``sync.index_entry``, ``hall.state.Hall``)."""
    if not swapped:
        return dict(names)
    return dict(names, black=names.get("white"), white=names.get("black"))


def players(header, swapped=False) -> dict:
    """The header's names (``extra`` JSON: black, white, event, round, table) as strings,
    "" for none; after a Renju swap (三手可交换) the one who set up as White plays Black."""
    extra = header_extra(header)
    out = {}
    for key in ("black", "white", "event", "round", "table"):
        v = extra.get(key)
        out[key] = v if isinstance(v, str) else str(v) if isinstance(v, int) else ""
    return swap_players(out, swapped)


def _players(header, black, white, swapped=False):
    names = {}
    extra = players(header, swapped)
    for key, sgf_key in (("black", "PB"), ("white", "PW"), ("event", "EV"), ("round", "RO")):
        if extra[key]:
            names[sgf_key] = extra[key]
    if extra["table"]:
        names["GC"] = "table " + extra["table"]  # SGF has no table: the game's comment
    if black:
        names["PB"] = black
    if white:
        names["PW"] = white
    return names


def _date(start):
    # ``start``: calendar seconds since 1970-01-01 UTC (0: the board's clock was never set).
    if not start:
        return None
    return datetime.datetime.fromtimestamp(start, datetime.UTC).strftime("%Y-%m-%d")


# -- SGF -------------------------------------------------------------------------------------


def proof_values(game_bytes: bytes, board_id: str, mac_hex: str | None) -> list[bytes]:
    """The raw values of the ``TG`` property: ``SGF_FORMAT``, the record's own board id, the
    board's HMAC of ``game_bytes`` (lowercase hex; empty if there is none) and
    ``game_bytes`` (the .bin, as the board serves it) in base64. An HMAC that is not hex is
    no HMAC: it is left out rather than written where it could break the SGF."""
    mac = mac_hex.lower() if isinstance(mac_hex, str) else ""
    if not _HEX.fullmatch(mac):
        mac = ""
    return [
        str(SGF_FORMAT).encode(),
        sgf_grammar.escape_text(board_id.encode()),
        mac.encode(),
        base64.b64encode(game_bytes),
    ]


def _sgf_game(game: Game, gm: int, black, white, proof=None) -> sgf.Sgf_game:
    h = game.header
    g = sgf.Sgf_game(h["size"])
    root = g.get_root()
    if gm != 1:
        root.set_raw("GM", str(gm).encode())  # sgfmill keeps GM[1] semantics: same coordinates
    root.set("AP", ("Tengen", "0.1.0"))
    for key, value in _players(h, black, white, game.swapped).items():
        root.set(key, value)
    date = _date(h["start"])
    if date:
        root.set("DT", date)
    if h["game_no"]:
        root.set("GN", "Tengen game %d" % h["game_no"])
    if h["board_id"]:
        root.set("PC", "Tengen board " + h["board_id"])
    tc = time_control(h)
    if tc is not None:
        root.set("TM", (tc.main_ms if tc.kind != C.STAGES else tc.stages[0][0]) / 1000)
        ot = overtime_text(tc)
        if ot:
            root.set("OT", ot)
    re = result_text(game)
    if re is not None:
        root.set("RE", re)
    if proof is not None:
        root.set_raw_list(PROOF, proof_values(proof[0], h["board_id"] or "", proof[1]))
    notes = list(game.root_notes)
    why = result_reason(game)
    if why:
        notes.insert(0, why)
    if notes:
        root.set("C", "\n".join(notes))
    props = clock_properties(tc, game)
    for m, p in zip(game.moves, props, strict=True):
        node = g.extend_main_sequence()
        node.set_move("b" if m.colour == 1 else "w", None if m.is_pass else (m.xy[1], m.xy[0]))
        for key, value in p.items():
            node.set(key, value)
        if m.notes:
            node.set("C", "\n".join(m.notes))
    return g


def go_sgf(records, black=None, white=None, proof=None) -> bytes:
    """SGF FF[4] GM[1] (UTF-8) of a Go game's records: SZ, RU[Chinese], KM (komi2 / 2), HA
    and AB (the fixed handicap points), PB/PW (arguments, else ``extra`` JSON's "black" /
    "white"), DT, TM, OT, RE, per-move BL/WL/OB/OW, incidents and arbiter edits as C; with
    ``proof`` (the record's bytes, the board's HMAC hex or None) the ``TG`` property."""
    game = read_game(records)
    h = game.header
    if h["kind"] != R.GO:
        raise ValueError("not a Go game (kind %d)" % h["kind"])
    g = _sgf_game(game, 1, black, white, proof)
    root = g.get_root()
    root.set("RU", "Chinese")
    root.set("KM", h["komi2"] / 2)
    if h["handicap"] >= 2:
        root.set("HA", h["handicap"])
        stones = fixed_handicap(h["size"], h["handicap"])
        root.set_setup_stones([(y, x) for x, y in stones], [])
        root.set("PL", "w")
    return g.serialise()


def gomoku_sgf(records, black=None, white=None, proof=None) -> bytes:
    """SGF FF[4] GM[4] (UTF-8) of a Renju/Gomoku game: SZ, RU (Renju, Gomoku (standard),
    Gomoku), PB/PW, DT, TM, OT, RE, per-move BL/WL/OB/OW, comments as for Go. Coordinates are
    SGF's (column letter, row letter from the top); a pass is sgfmill's ``tt`` (off a 15x15 board)."""
    game = read_game(records)
    h = game.header
    if h["kind"] not in _RULES_NAMES:
        raise ValueError("not a Gomoku/Renju game (kind %d)" % h["kind"])
    g = _sgf_game(game, 4, black, white, proof)
    root = g.get_root()
    rules = _RULES_NAMES[h["kind"]]
    if h["rules"]:
        rules += " " + h["rules"]
    root.set("RU", rules)
    return g.serialise()


# -- Piskvork --------------------------------------------------------------------------------


def psq(records) -> str:
    """Piskvork's ``.psq`` of a Gomoku/Renju game (lines end in ``\\n``).

    The format as Piskvork itself writes and reads it (plastovicka/Piskvork,
    source/game.cpp ``savePsq`` / ``openPsq``): a first line
    ``Piskvorky <width>x<height>, <level 1>:<level 2>, <h>`` (levels 0 for human players, h 0:
    player 1 began), then ``x,y,time`` per move (1-based column and row, the row counted from
    the top as on Piskvork's screen; time the milliseconds the move took), then one line per
    player (``homo-1`` / ``homo-2``: what Piskvork writes for human players, whom it then reads
    back as humans) and the error code (0, or 15 for a loss on time).

    Times are the ticks between presses (the first move: 0). ValueError for a pass, which the
    format cannot hold.
    """
    game = read_game(records)
    h = game.header
    if h["kind"] not in _RULES_NAMES:
        raise ValueError("not a Gomoku/Renju game (kind %d)" % h["kind"])
    n = h["size"]
    lines = ["Piskvorky %dx%d, 0:0, 0" % (n, n)]
    prev_tick = None
    for m in game.moves:
        if m.is_pass:
            raise ValueError("move %d is a pass: a .psq file cannot hold it" % m.ply)
        x, y = m.xy
        used = 0
        if prev_tick is not None and m.tick is not None:
            used = (m.tick - prev_tick) % _TICK_MOD
        if m.tick is not None:
            prev_tick = m.tick
        lines.append("%d,%d,%d" % (x + 1, n - y, used))
    lines.append("homo-1")
    lines.append("homo-2")
    timeout = game.result is not None and game.result[1] == END_TIME
    lines.append(str(PISKVORK_TIMEOUT if timeout else 0))
    return "\n".join(lines) + "\n"


def read_psq(text: str) -> tuple[int, list[tuple[int, int, int]]]:
    """``(size, [(x, y, ms), ...])`` of a ``.psq`` text, in the board's coordinates (x from
    the left, y from the bottom, 0-based): the inverse of ``psq`` for the tests and tools."""
    lines = text.splitlines()
    head = lines[0]
    if not head.startswith("Piskvorky "):
        raise ValueError("not a Piskvork file")
    size = int(head.split()[1].split("x")[0].rstrip(","))
    moves = []
    for line in lines[1:]:
        parts = line.split(",")
        if len(parts) != 3 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            break
        x, y, t = (int(p) for p in parts)
        moves.append((x - 1, size - y, t))
    return size, moves


# -- all together ----------------------------------------------------------------------------


def export(records, black=None, white=None, proof=None) -> dict[str, bytes]:
    """The files of a game: ``{"sgf": bytes}`` for Go; ``{"sgf": bytes, "psq": bytes}`` for
    Gomoku/Renju (no ``psq`` if the game has a pass). ``proof``: ``(game_bytes, HMAC hex or
    None)``, the record the ``records`` were decoded from and its HMAC, carried in the SGF
    (``TG``) so that the SGF can be verified alone; the names must then be the record's (no
    ``black``/``white``): whatever the record does not hold, the MAC cannot vouch for."""
    if not records or records[0][0] != R.HEADER:
        raise ValueError("the records do not start with a header")
    if proof is not None and (black or white):
        raise ValueError("an SGF with its proof holds only what the record holds: no names")
    if records[0][1].get("kind", R.GO) == R.GO:
        return {"sgf": go_sgf(records, black, white, proof)}
    out = {"sgf": gomoku_sgf(records, black, white, proof)}
    try:
        out["psq"] = psq(records).encode()
    except ValueError:
        pass
    return out
