"""The hall's door: every MQTT message ``tengen hall`` takes is checked here once, before
either of its views (the live one and the public one, ``--delay`` behind: two
``host_tools/hall/state.py`` models, ``host_tools/hall/server.py``) sees any of it; and the bounds
that keep the hall's memory and files finite whatever is published to its broker.

Start reading at ``check`` (one message in: a clean ``Message`` out, or ``Refused``; ``Hall.
door`` calls ``check_topic``, then holds a registered board to its relay, then
``check_payload``), then ``Limits`` (the numbers) and ``Counts`` (what was refused, by kind,
by relay and by board).

A topic is taken only if it is one of this hall's (``feed.parse_topic_from``: a relay writes
``<board>/{state,events,proof}/relay-<id>`` and ``_relay/relay-<id>``, which the broker's ACL
holds to that relay's user). A payload is taken only if it is exactly what
``host_tools/hall/relay.py`` publishes through ``host_tools/hall/feed.py``: the envelope's keys known
(and no others), every value of its type and within its range, the board's game one of the
board's games with one of its sizes (``firmware/game/settings.py``), every point on that board,
every string short and encodable, every list bounded, a proof's bytes base64 and its HMAC
hex. The board's own ``state`` reply (``firmware/link/server.py`` ``cmd_state``) is copied
key by key from what the hall reads: a key a newer firmware adds is dropped rather than
refused, so it never reaches a page. What is refused is counted once (by the live view),
said in the log at most once a minute per kind, and shown on the arbiter's page; it never
reaches either view, a page, the API, the feed or the public copy on the broker.

The bounds (``Limits``): relays, boards not in the pairings or the register (per relay and
in all), games per board and in all, records per game and in all, bytes kept, bytes per
message, what waits its delay for the public view. ``Hall`` asks its ``_admit_*`` before it
keeps anything new; a refusal is counted as the kind ``bound``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import NamedTuple

from firmware.store import records as R
from host_tools.hall import feed as F

# The board's games and sizes (firmware/game/settings.py GAMES, GO_SIZES, GOMOKU_SIZE; the older
# names of firmware/game/match.py GAMES imply their size).
GO_SIZES = (9, 13, 19)
GOMOKU_SIZE = 15
GAME_SIZES = {
    "go": GO_SIZES,
    "go19": (19,),
    "go13": (13,),
    "go9": (9,),
    "renju": (GOMOKU_SIZE,),
    "standard": (GOMOKU_SIZE,),
    "freestyle": (GOMOKU_SIZE,),
}
KIND_SIZES = {R.GO: GO_SIZES, R.RENJU: (15,), R.STANDARD: (15,), R.FREESTYLE: (15,)}
MAX_SIZE = max(GO_SIZES)
CLOCK_STATES = ("not started", "running", "paused", "flagged", "finished")  # clock.STATES
PHASES = ("play", "dead stones", "counted", "over")  # firmware/game/match.py PHASES

I32 = 2**31 - 1
T_MAX = 2**53  # a calendar time in ms (JavaScript's integers)
TEXT_MAX = 64  # a short string: a result, a rules name, a time control's name
EXTRA_MAX = 3072  # the header's ``extra`` (firmware/game/settings.py MAX_BYTES)
TEXT_SHOWN = 200  # a refusal's words kept for the arbiter's page

# The kinds of refusal, a fixed set (the counts stay bounded whatever is published).
KINDS = ("topic", "state", "events", "proof", "relay", "bound", "conflict", "store", "internal")


class Refused(F.FeedError):
    """A message the hall does not take: ``kind`` one of KINDS, the words say why."""

    def __init__(self, kind: str, text: str):
        super().__init__(text)
        self.kind = kind


class Message(NamedTuple):
    """A message past the door: ``board`` (or ``feed.RELAY`` for a relay's status), ``leaf``
    (or the relay's id), ``relay`` (the id of the relay that wrote it: the topic's last
    level, which the broker's ACL holds to the writer's user; None for a topic without
    one), ``obj`` the clean payload."""

    board: str
    leaf: str
    relay: str | None
    obj: dict


@dataclass
class Limits:
    """The hall's bounds. The defaults hold a tournament of a thousand paired boards (each
    game up to ``records_per_game`` records) with room to spare, and cap what a relay's
    credentials can make the hall keep: at most ``unknown_boards`` boards outside the
    pairings (``unknown_per_relay`` claimed by one relay; a board no relay claims counts for
    the relay ""), ``games_per_board`` games each and ``games`` in all, ``records`` records
    and ``bytes`` of them in the feed folder: so at most ``2 * games`` files and about
    ``bytes`` on disk, and memory in proportion, whatever is published."""

    message_bytes: int = 16384  # a board's state or event
    relay_bytes: int = 65536  # a relay's status (its boards' ids)
    # A finished game's proof: its stored bytes in base64 (``feed.PROOF_MAX`` characters,
    # some 768 KiB; a board's longest game packs to far less: 4,096 records, ~90 KB) and
    # the envelope. The broker's ``max_packet_size`` (host_tools/hall/broker.py) leaves room for
    # it, and refuses anything larger before the hall sees it.
    proof_bytes: int = F.PROOF_MAX + 1024
    relays: int = 64  # relays the hall hears of (by name)
    relay_boards: int = 1024  # ids in one relay's status
    unknown_per_relay: int = 256  # boards not in the pairings, claimed by one relay
    unknown_boards: int = 1024  # boards not in the pairings, in all
    games_per_board: int = 64
    games: int = 8192  # every board together: at most two files each (.jsonl, .sgf)
    records_per_game: int = 4096  # also the plies of a snapshot
    records: int = 500_000  # records kept (and held past a gap), every game together
    record_bytes: int = 8192  # one record's line in its game's .jsonl
    bytes: int = 256 * 2**20  # the .jsonl lines kept, every game together
    # Live records waiting for the board's MAC (host_tools/hall/proof.py's Chain), their
    # bytes, every game together (a chain also bounds its own: HOLD_MAX, HOLD_BYTES).
    held_bytes: int = 64 * 2**20
    # What the live view took and the public one is to take once it is ``--delay`` old
    # (host_tools/hall/server.py): past this, snapshots and relays' statuses wait no more.
    pending_bytes: int = 256 * 2**20
    sources: int = 256  # relays/boards the refusals are counted for, by name
    log_every_s: float = 60.0

    def json(self) -> dict:
        return dict(self.__dict__)


# ---- the checks -----------------------------------------------------------------------------


def _int(v, what: str, lo: int, hi: int) -> int:
    # JSON's integers only: not true/false, not 3.0, not NaN, within [lo, hi].
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ValueError("%s: an integer %d..%d" % (what, lo, hi))
    return v


def _str(v, what: str, most: int = TEXT_MAX) -> str:
    if not isinstance(v, str) or len(v) > most:
        raise ValueError("%s: a string of at most %d characters" % (what, most))
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800"): no page could be written
        raise ValueError("%s: not text" % what) from None
    return v


def _list(v, what: str, most: int) -> list:
    if not isinstance(v, list) or len(v) > most:
        raise ValueError("%s: a list of at most %d" % (what, most))
    return v


def _point(p, what: str, size: int = MAX_SIZE) -> int:
    _int(p, what, 0, R.PASS)
    if p != R.PASS and ((p & 31) >= size or (p >> 5) >= size):
        raise ValueError("%s: %d is not on a %dx%d board" % (what, p, size, size))
    return p


def _keys(obj: dict, known, what: str) -> None:
    extra = [k for k in obj if k not in known]
    if extra:
        raise ValueError("%s: unknown key %.40r" % (what, extra[0]))


def _load(payload: bytes, most: int, what: str) -> dict:
    if len(payload) > most:
        raise ValueError("%s: %d bytes, at most %d" % (what, len(payload), most))
    try:
        obj = json.loads(payload, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError("%s: not JSON (%.80s)" % (what, e)) from None
    if not isinstance(obj, dict):
        raise ValueError("%s: not an object" % what)
    if obj.get("v") != F.VERSION:
        raise ValueError("%s: version %.20r, this reads %d" % (what, obj.get("v"), F.VERSION))
    return obj


def _no_constant(name):
    raise ValueError("%s is not a number" % name)  # NaN, Infinity: never a board's figure


STATE_KEYS = ("v", "board", "relay", "online", "at", "game", "seq", "state")
EVENT_KEYS = ("v", "board", "game", "seq", "at", "rec", "raw", "mac")
RELAY_KEYS = ("v", "relay", "online", "boards", "at")


def check_state(payload: bytes, board: str, limits: Limits) -> dict:
    """A board's snapshot (``feed.state_payload``) on ``board``'s topic, checked; the clean
    dict (its ``state`` only the keys the hall reads). ValueError says why not."""
    obj = _load(payload, limits.message_bytes, "state")
    _keys(obj, STATE_KEYS, "state")
    if obj.get("board") != board:
        raise ValueError("state: board %.40r on %s's topic" % (obj.get("board"), board))
    relay = obj.get("relay", "")
    if relay != "" and not (isinstance(relay, str) and F._NAME.match(relay)):  # noqa: SLF001
        raise ValueError("state: relay %.40r" % (relay,))
    if not isinstance(obj.get("online"), bool):
        raise ValueError("state: online is true or false")
    n = limits.records_per_game
    out = {
        "v": F.VERSION,
        "board": board,
        "relay": relay,
        "online": obj["online"],
        "at": _int(obj.get("at"), "state: at", 0, T_MAX),
        "game": _int(obj.get("game"), "state: game", 0, I32),
        "seq": _int(obj.get("seq"), "state: seq", -1, n - 1),
        "state": None,
    }
    body = obj.get("state")
    if body is not None:
        if not isinstance(body, dict):
            raise ValueError("state: state is an object or null")
        out["state"] = check_body(body, n)
    return out


def check_body(s: dict, most: int) -> dict:
    """The board's ``state`` reply as the hall reads it (``watch.View.load``): the game, its
    size, the moves on that board, the clock, the phase; other keys dropped."""
    game = s.get("game")
    if not isinstance(game, str) or game not in GAME_SIZES:
        raise ValueError("state: game %.20r is not one of the board's" % (game,))
    size = s.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size not in GAME_SIZES[game]:
        raise ValueError("state: size %.20r is not a size of %s" % (size, game))
    moves = [_point(p, "state: a move", size) for p in _list(s.get("moves", []), "moves", most)]
    colours = _list(s.get("colours", []), "state: colours", most)
    if len(colours) != len(moves) or not all(type(c) is int and c in (1, 2) for c in colours):
        raise ValueError("state: colours are 1 or 2, one per move")
    out = {"game": game, "size": size, "moves": moves, "colours": list(colours)}
    ints = {
        "ply": (0, most),
        "to_move": (0, 2),
        "game_no": (0, I32),
        "remote": (0, 255),
        "expect": (-1, R.PASS),
        "count_no": (0, I32),
        "confirmed": (0, I32),
    }
    for k, (lo, hi) in ints.items():
        if k in s:
            out[k] = _int(s[k], "state: " + k, lo, hi)
    if s.get("margin4") is not None:
        out["margin4"] = _int(s["margin4"], "state: margin4", -4 * 1024, 4 * 1024)
    elif "margin4" in s:
        out["margin4"] = None
    if "result" in s:
        out["result"] = _str(s["result"] or "", "state: result")
    if "phase" in s:
        if s["phase"] not in PHASES:
            raise ValueError("state: phase %.20r" % (s["phase"],))
        out["phase"] = s["phase"]
    if "dead" in s:
        out["dead"] = [
            _point(p, "state: a dead stone", size) for p in _list(s["dead"], "dead", size * size)
        ]
    clear = s.get("clear")
    if clear is not None:
        if not isinstance(clear, dict):
            raise ValueError("state: clear is an object or null")
        pts = _list(clear.get("points", []), "state: clear", 2 * size * size)
        out["clear"] = {
            "points": [_point(p, "state: a point to clear", size) for p in pts],
            "outside": _int(clear.get("outside", 0), "state: outside", 0, MAX_SIZE**2),
        }
    elif "clear" in s:
        out["clear"] = None
    if s.get("clock") is not None:
        out["clock"] = check_clock(s["clock"])
    return out


def check_clock(c) -> dict:
    """The board's clock (``firmware/link/server.py`` ``_clock``)."""
    if not isinstance(c, dict):
        raise ValueError("state: clock is an object")
    out = {}
    if "state" in c:
        if c["state"] not in CLOCK_STATES:
            raise ValueError("state: clock state %.20r" % (c["state"],))
        out["state"] = c["state"]
    for k in ("running", "flagged"):
        if k in c:
            out[k] = _int(c[k], "state: clock " + k, 0, 2)
    if "elapsed" in c:
        out["elapsed"] = _int(c["elapsed"], "state: clock elapsed", -I32, I32)
    if "clocks" in c:
        figures = _list(c["clocks"], "state: clocks", 4)
        out["clocks"] = [_int(v, "state: a clock figure", -I32, I32) for v in figures]
    return out


# The ranges of a record's fields (firmware/store/records.py: ``u`` unsigned, ``z`` signed).
_REC_INTS = {
    R.MOVE: {"ply": (1, None), "tick": (0, 2**32), "clocks": (-I32, I32)},
    R.INCIDENT: {"kind": (0, 255), "move": (0, None), "time_ms": (-T_MAX, T_MAX)},
    R.EDIT: {"kind": (0, 255), "move": (0, None), "time_ms": (-T_MAX, T_MAX)},
    R.CLOCKS: {"move": (0, None), "clocks": (-I32, I32)},
    R.RESULT: {"winner": (0, 2), "reason": (0, 255), "margin2": (-4096, 4096), "move": (0, None)},
}
_LIST_MOST = {"clocks": 8, "args": 16, "points": 2 * MAX_SIZE * MAX_SIZE}
_HEADER_STR = {"rules": TEXT_MAX, "opening": TEXT_MAX, "tc": TEXT_MAX, "board_id": TEXT_MAX}
_HEADER_INT = {
    "game_no": (0, I32),
    "komi2": (-1000, 1000),
    "handicap": (0, 25),
    "start": (0, 2**40),
}


def check_event(payload: bytes, board: str, limits: Limits) -> dict:
    """A record's event (``feed.event_payload``) on ``board``'s topic, checked: ``{board,
    game, seq, at, rec, raw, mac}`` with ``rec`` decoded (``raw``, ``mac``: its proof, or
    None). ValueError says why not."""
    obj = _load(payload, limits.message_bytes, "event")
    _keys(obj, EVENT_KEYS, "event")
    if obj.get("board") != board:
        raise ValueError("event: board %.40r on %s's topic" % (obj.get("board"), board))
    n = limits.records_per_game
    game = _int(obj.get("game"), "event: game", 1, I32)
    seq = _int(obj.get("seq"), "event: seq", 0, n - 1)
    at = _int(obj.get("at"), "event: at", 0, T_MAX)
    raw = obj.get("rec")
    check_record_json(raw, n)
    rec = F.record_from_json(raw)
    if (seq == 0) != (rec[0] == R.HEADER):
        raise ValueError("event: record 0, and only it, is the header")
    raw, mac = F.event_proof(obj)  # the board's proof of it (host_tools/hall/proof.py)
    return {"board": board, "game": game, "seq": seq, "at": at, "rec": rec, "raw": raw, "mac": mac}


def check_record_json(obj, most: int) -> None:
    """A record's JSON (``feed.record_json``) within the ranges the board writes (the kinds
    and fields themselves are ``feed.record_from_json``'s to check)."""
    if not isinstance(obj, dict):
        raise ValueError("event: a record is an object")
    name = obj.get("type")
    if name == "header":
        _keys(obj, ("type", "header"), "header")
        h = obj.get("header")
        if not isinstance(h, dict):
            raise ValueError("header: an object")
        _keys(h, [k for k, _ in R.HEADER_FIELDS], "header")
        kind = _int(h.get("kind", R.GO), "header: kind", 0, 3)
        size = h.get("size", 19)
        if not isinstance(size, int) or isinstance(size, bool) or size not in KIND_SIZES[kind]:
            raise ValueError("header: size %.20r is not a size of this game" % (size,))
        for k, most_chars in _HEADER_STR.items():
            if k in h:
                _str(h[k], "header: " + k, most_chars)
        if "extra" in h:
            _extra(_str(h["extra"], "header: extra", EXTRA_MAX))
        for k, (lo, hi) in _HEADER_INT.items():
            if k in h:
                _int(h[k], "header: " + k, lo, hi)
        if "tc_figures" in h:
            for v in _list(h["tc_figures"], "header: tc_figures", 16):
                _int(v, "header: a time control figure", -I32, I32)
        return
    t = {"move": R.MOVE, "incident": R.INCIDENT, "edit": R.EDIT, "clocks": R.CLOCKS}.get(name)
    t = R.RESULT if name == "result" else t
    if t is None:
        raise ValueError("event: record type %.20r" % (name,))
    _keys(obj, ("type",) + F._FIELDS[t][1], name)  # noqa: SLF001 - the one list of fields
    for k, v in obj.items():
        if k == "type":
            continue
        if k in _LIST_MOST:
            _list(v, "%s: %s" % (name, k), _LIST_MOST[k])
        lo, hi = _REC_INTS[t].get(k, (-I32, I32))
        hi = most if hi is None else hi
        for x in v if isinstance(v, list) else (v,):
            _int(x, "%s: %s" % (name, k), lo, hi)
    if t == R.MOVE:
        _point(obj["point"], "move: point")
    for p in obj.get("points", []) if t == R.INCIDENT else ():
        _point(p, "incident: a point")


def _extra(text: str) -> None:
    # The header's ``extra`` as firmware/game/match.py ``_fit_extra`` writes it: "" or a flat JSON
    # object (the settings without a field, the players' names), which the pages read.
    if not text:
        return
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise ValueError("header: extra is not JSON") from None
    if not isinstance(obj, dict):
        raise ValueError("header: extra is an object")
    for k, v in obj.items():
        _str(k, "header: extra's key")
        if isinstance(v, str):
            _str(v, "header: extra " + k)
        elif v is not None and not isinstance(v, (bool, int)):
            raise ValueError("header: extra %s is a string or a number" % k)
        elif isinstance(v, int) and not -I32 <= v <= I32:
            raise ValueError("header: extra %s is too large" % k)


def check_relay(payload: bytes, relay: str, limits: Limits) -> dict:
    """A relay's status (``feed.relay_payload``) on its topic, checked: ``{online, boards,
    at}``. Its MQTT will says ``{"v": 1, "relay": .., "online": false, ...}`` too."""
    obj = _load(payload, limits.relay_bytes, "relay")
    _keys(obj, RELAY_KEYS, "relay")
    if obj.get("relay", relay) != relay:
        raise ValueError("relay: %.40r on %s's topic" % (obj.get("relay"), relay))
    if not isinstance(obj.get("online"), bool):
        raise ValueError("relay: online is true or false")
    boards = _list(obj.get("boards", []), "relay: boards", limits.relay_boards)
    if not all(F.board_ok(b) for b in boards):
        raise ValueError("relay: a board id that is not one")
    return {
        "relay": relay,
        "online": obj["online"],
        "boards": list(dict.fromkeys(boards)),
        "at": _int(obj.get("at", 0), "relay: at", 0, T_MAX),
    }


PROOF_KEYS = ("v", "board", "game", "data", "hmac")
_HEX = re.compile(r"^[0-9a-fA-F]{0,128}$")


def check_proof(payload: bytes, board: str, limits: Limits) -> dict:
    """A finished game's proof (``feed.proof_payload``) on ``board``'s topic, checked: ``{board,
    game, data (bytes), hmac (hex)}``; whether the HMAC holds is ``proof``'s to say.
    ValueError says why not."""
    obj = _load(payload, limits.proof_bytes, "proof")
    _keys(obj, PROOF_KEYS, "proof")
    if obj.get("board") != board:
        raise ValueError("proof: board %.40r on %s's topic" % (obj.get("board"), board))
    game = _int(obj.get("game"), "proof: game", 1, I32)
    data, mac = obj.get("data"), obj.get("hmac")
    if not isinstance(data, str) or len(data) > F.PROOF_MAX:
        raise ValueError("proof: data is base64 of at most %d characters" % F.PROOF_MAX)
    if not isinstance(mac, str) or not _HEX.match(mac):
        raise ValueError("proof: hmac is hex")
    try:
        raw = base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        raise ValueError("proof: data is not base64") from None
    return {"board": board, "game": game, "data": raw, "hmac": mac}


def check_topic(topic, hall: str) -> tuple[str, str, str | None]:
    """``(board or RELAY, leaf or relay id, the writing relay's id or None)`` of a topic of
    ``hall`` (``feed.parse_topic_from``); ``Refused`` if it is not one."""
    where = F.parse_topic_from(topic) if isinstance(topic, str) and len(topic) < 256 else None
    if where is None or where[0] != hall:
        raise Refused("topic", "topic %.100r is not this hall's" % (topic,))
    return where[1], where[2], where[3]


def check_payload(where: tuple, payload: bytes, limits: Limits) -> Message:
    """The payload of a message on ``where`` (``check_topic``'s), checked: the ``Message``;
    ``Refused`` (the kind its leaf's) if the hall does not take it. The hall's own leaves
    (pairing, replay) come back with an empty payload: nothing there to learn."""
    board, leaf, relay = where
    try:
        if board == F.RELAY:
            return Message(board, leaf, relay, check_relay(payload, leaf, limits))
        if leaf == F.STATE:
            return Message(board, leaf, relay, check_state(payload, board, limits))
        if leaf == F.EVENTS:
            return Message(board, leaf, relay, check_event(payload, board, limits))
        if leaf == F.PROOF:
            return Message(board, leaf, relay, check_proof(payload, board, limits))
    except (ValueError, TypeError) as e:  # FeedError too
        kind = "relay" if board == F.RELAY else leaf
        raise Refused(kind, "%s %s: %s" % (board, leaf, e)) from None
    return Message(board, leaf, relay, {})


def check(topic: str, payload: bytes, hall: str, limits: Limits) -> Message:
    """One MQTT message of ``hall``, its topic and payload checked: the ``Message``;
    ``Refused`` (kind, words) if the hall does not take it. (``Hall.door`` checks the
    register's relay between the two.)"""
    return check_payload(check_topic(topic, hall), payload, limits)


def sources(board: str, leaf: str, relay: str | None) -> list[str]:
    """Whom a message is counted against: ``relay <id>`` for a relay's status; for a
    board's message, its board and the relay that wrote it (the topic's, which the broker
    holds to the writer: a relay that forges another board's messages is named)."""
    if board == F.RELAY:
        return ["relay " + leaf]
    return (["relay " + relay] if relay else []) + ["board " + board]


# ---- the counts -----------------------------------------------------------------------------


class Counts:
    """What the door refused: by kind (KINDS) and by source (``source``: at most
    ``limits.sources`` names, the rest together as "others"), the last words of each kind;
    ``log_now`` says whether a refusal of this kind is to be logged (at most once per
    ``limits.log_every_s``, the number since with it)."""

    OTHERS = "others"

    def __init__(self, limits: Limits):
        self.limits = limits
        self.kinds: dict[str, int] = {}
        self.last: dict[str, str] = {}
        self.by: dict[str, int] = {}
        self._logged: dict[str, tuple[float, int]] = {}  # kind -> (when, count then)

    def add(self, kind: str, text: str, who=None) -> None:
        """One refusal of ``kind``, counted against each of ``who`` (a name or a list)."""
        kind = kind if kind in KINDS else "internal"
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.last[kind] = short(text)
        for name in [who] if isinstance(who, str) else who or ():
            if name not in self.by and len(self.by) >= self.limits.sources:
                name = self.OTHERS
            self.by[name] = self.by.get(name, 0) + 1

    def log_now(self, kind: str, now: float) -> int:
        """0: not now; else the refusals of ``kind`` since it was last logged."""
        kind = kind if kind in KINDS else "internal"
        when, then = self._logged.get(kind, (None, 0))
        n = self.kinds.get(kind, 0)
        if when is not None and now - when < self.limits.log_every_s:
            return 0
        self._logged[kind] = (now, n)
        return n - then

    def total(self) -> int:
        return sum(self.kinds.values())


def short(text: str) -> str:
    """``text`` cut to what the arbiter's page shows of a refusal."""
    text = str(text)
    return text if len(text) <= TEXT_SHOWN else text[: TEXT_SHOWN - 1] + "…"
