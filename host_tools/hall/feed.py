"""The hall's wire format: what ``tengen relay`` publishes and ``tengen hall`` (or any other
software) reads from the MQTT broker. One module, so that both ends write and read one
encoding; ``tests/host/hall/test_feed.py`` passes real journal records across it.

Topics, under ``tengen/<hall>/``; a hall name and a board id are 1-32 of ``A-Za-z0-9_-`` and
a board id never starts with ``_``::

    <board>/state/<relay user>    retained, QoS 1, by the relay: the board's snapshot
                      (``state_payload``)
    <board>/events/<relay user>   QoS 1, by the relay: one message per journal record
                      (``event_payload``)
    <board>/proof/<relay user>    QoS 1, by the relay, once a game is finished: the board's
                      stored bytes of it and their HMAC (``proof_payload``), which the hall
                      checks with the board's key (``host_tools/hall/boards.py``)
    <board>/pairing   retained, QoS 1, by the hall: who plays at this board (``pairing_payload``);
                      the relay writes the names into the board's settings, so that the next
                      game's header (and so every record of it, synced or broadcast) has them
    <board>/replay    QoS 1, by the hall: "publish game G again from record S" (a gap it saw)
    _relay/<relay user>  retained, QoS 1: a relay's status, its boards (``relay_payload``);
                      its MQTT will says ``{"online": false}`` when the relay goes without a word

What a relay writes ends with its MQTT user, ``relay-<relay id>`` (``relay_user``): the
broker's ACL (``host_tools/hall/broker.py``) lets a relay's user write only topics ending with its
own name, so the hall knows which relay a message came from and takes a board's messages only
from the relay the organiser registered it to.

The event stream is the board's journal itself: event ``seq`` of game ``game`` is the game's
record number ``seq`` (0 is the header) as ``firmware/store/records.py`` decodes it, in the
live file's order, which the packed form keeps. So the stream is the same whichever relay
publishes it and however often: a consumer keeps, per (board, game), the records in order
(``GameRecords``) and drops a repeat by its ``seq``; a ``seq`` past the next one is a gap, to
be asked for on ``replay``. The broadcast SGF is ``host_tools/records/export.py`` of those records:
the very function ``tengen sync`` writes the game's SGF with.

A record in JSON (``record_json``) has ``type`` and the fields of the sync sidecar
(``host_tools/records/sync.py``): ``move`` {ply, colour, point, tick, clocks}, ``incident`` {kind,
move, time_ms, points, detail}, ``edit`` {kind, move, time_ms, args}, ``clocks`` {move,
clocks}, ``result`` {winner, reason, margin2, move}, ``header`` {header}. A point is
``y << 5 | x``, x from the left and y from the bottom (row 1), 1023 a pass (the board's one
encoding, ``firmware/store/records.py``). Clocks are black main ms, black units, white main
ms, white units (``firmware/clock/clock.py``).

Times: ``at`` is the relay's calendar time in ms (UTC) when it read what it publishes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from firmware.store import records as R

VERSION = 1
ROOT = "tengen"
STATE = "state"
EVENTS = "events"
PAIRING = "pairing"
REPLAY = "replay"
PROOF = "proof"
RELAY = "_relay"
LEAVES = (STATE, EVENTS, PAIRING, REPLAY, PROOF)
RELAY_LEAVES = (STATE, EVENTS, PROOF)  # written by a relay: the topic ends with its user
RELAY_PREFIX = "relay-"
QOS = 1

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class FeedError(ValueError):
    """A topic or payload that is not the hall's format (its words say what is wrong)."""


def check_name(name: str, what: str = "name") -> str:
    """``name`` if it is a valid hall name or board id, else FeedError."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise FeedError("%s %r: 1-32 letters, digits, '_' or '-'" % (what, name))
    return name


def board_ok(board: str) -> bool:
    """Whether ``board`` can be a board's topic level (a valid name not starting with _)."""
    return isinstance(board, str) and bool(_NAME.match(board)) and not board.startswith("_")


def relay_user(relay: str) -> str:
    """The MQTT user of relay ``relay`` (its id): ``relay-<id>``."""
    return RELAY_PREFIX + check_name(relay, "relay id")


def relay_of_user(user: str) -> str | None:
    """The relay id of an MQTT user ``relay-<id>``; None if ``user`` is not a relay's."""
    if not isinstance(user, str) or not user.startswith(RELAY_PREFIX):
        return None
    rest = user[len(RELAY_PREFIX) :]
    return rest if _NAME.match(rest) and len(user) <= 64 else None


def topic(hall: str, board: str, leaf: str, relay: str | None = None) -> str:
    """The topic of ``leaf`` (STATE, EVENTS, PROOF, PAIRING, REPLAY) of ``board`` in ``hall``;
    for what a relay writes, ``relay`` (its id) puts its user at the end."""
    check_name(hall, "hall")
    if not board_ok(board):
        raise FeedError("board id %r is not usable in a topic" % (board,))
    if leaf not in LEAVES:
        raise FeedError("topic leaf %r" % (leaf,))
    base = "%s/%s/%s/%s" % (ROOT, hall, board, leaf)
    return base if relay is None else "%s/%s" % (base, relay_user(relay))


def relay_topic(hall: str, relay: str) -> str:
    """The topic of a relay's status (``relay`` its id)."""
    return "%s/%s/%s/%s" % (ROOT, check_name(hall, "hall"), RELAY, relay_user(relay))


def subscription(hall: str, leaf: str = "+") -> str:
    """The filter for ``leaf`` of every board in ``hall`` (``+``: every leaf); for a leaf a
    relay writes, from every relay."""
    base = "%s/%s/+/%s" % (ROOT, check_name(hall, "hall"), leaf)
    return base + "/+" if leaf in RELAY_LEAVES else base


def parse_topic(name: str) -> tuple[str, str, str] | None:
    """``(hall, board, leaf)`` of a board's topic; ``(hall, "_relay", relay id)`` of a
    relay's; None for anything else (``parse_topic_from`` also says which relay wrote it)."""
    where = parse_topic_from(name)
    return where[:3] if where is not None else None


def parse_topic_from(name: str) -> tuple[str, str, str, str | None] | None:
    """``(hall, board, leaf, relay id)`` of a board's topic (the relay None for the hall's
    leaves, and for a relay's leaf without its user); ``(hall, "_relay", relay id, relay
    id)`` of a relay's status; None for anything else."""
    parts = name.split("/")
    if len(parts) not in (4, 5) or parts[0] != ROOT or not _NAME.match(parts[1]):
        return None
    if parts[2] == RELAY:
        relay = relay_of_user(parts[3])
        return (parts[1], RELAY, relay, relay) if relay and len(parts) == 4 else None
    if not board_ok(parts[2]) or parts[3] not in LEAVES:
        return None
    if len(parts) == 4:
        return parts[1], parts[2], parts[3], None
    relay = relay_of_user(parts[4])
    if relay is None or parts[3] not in RELAY_LEAVES:
        return None
    return parts[1], parts[2], parts[3], relay


# ---- records ------------------------------------------------------------------------------

_FIELDS = {
    R.MOVE: ("move", ("ply", "colour", "point", "tick", "clocks")),
    R.INCIDENT: ("incident", ("kind", "move", "time_ms", "points", "detail")),
    R.EDIT: ("edit", ("kind", "move", "time_ms", "args")),
    R.CLOCKS: ("clocks", ("move", "clocks")),
    R.RESULT: ("result", ("winner", "reason", "margin2", "move")),
}
_TUPLES = ("clocks", "points", "args")
_TYPES = {name: (t, fields) for t, (name, fields) in _FIELDS.items()}


def record_json(rec) -> dict:
    """A decoded journal record as JSON (see the module's text)."""
    t = rec[0]
    if t == R.HEADER:
        return {"type": "header", "header": {k: _plain(v) for k, v in rec[1].items()}}
    name, fields = _FIELDS[t]
    out = {"type": name}
    for k, v in zip(fields, rec[1:], strict=True):
        out[k] = _plain(v)
    return out


def _plain(v):
    return list(v) if isinstance(v, (tuple, list)) else v


def record_from_json(obj) -> tuple:
    """The decoded record of ``record_json``'s dict; FeedError if it is not one. The record
    must encode (``records.encode``): what the journal could not have written is refused."""
    if not isinstance(obj, dict):
        raise FeedError("a record is an object")
    name = obj.get("type")
    try:
        if name == "header":
            h = obj.get("header")
            if not isinstance(h, dict):
                raise FeedError("header: an object")
            header = {}
            for key, kind in R.HEADER_FIELDS:
                if key in h:
                    v = h[key]
                    header[key] = tuple(v) if kind == "t" and isinstance(v, list) else v
            rec = (R.HEADER, header)
        elif name in _TYPES:
            t, fields = _TYPES[name]
            values = []
            for k in fields:
                v = obj.get(k)
                if k in _TUPLES:
                    if not isinstance(v, list):
                        raise FeedError("%s: %s is a list" % (name, k))
                    v = tuple(v)
                for x in v if isinstance(v, tuple) else (v,):
                    if not isinstance(x, int) or isinstance(x, bool):
                        raise FeedError("%s: %s holds integers" % (name, k))
                values.append(v)
            rec = (t,) + tuple(values)
            if t == R.MOVE and (rec[2] not in (1, 2) or not 0 <= rec[3] <= R.PASS):
                raise FeedError("move: colour is 1 or 2, point 0-1023")
        else:
            raise FeedError("record type %r" % (name,))
        R.encode(rec)
    except FeedError:
        raise
    except (ValueError, TypeError, KeyError, OverflowError) as e:
        raise FeedError("%s record does not encode: %s" % (name, e)) from None
    return rec


# ---- payloads -----------------------------------------------------------------------------


def _dumps(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _loads(payload, what: str) -> dict:
    try:
        obj = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as e:
        raise FeedError("%s: not JSON (%s)" % (what, e)) from None
    if not isinstance(obj, dict):
        raise FeedError("%s: not an object" % what)
    if obj.get("v") != VERSION:
        raise FeedError("%s: version %r, this reads %d" % (what, obj.get("v"), VERSION))
    return obj


def _int(obj, key, what, lo=0):
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo:
        raise FeedError("%s: %s is an integer >= %d" % (what, key, lo))
    return v


def event_payload(
    board: str, game: int, seq: int, rec, at_ms: int, raw: bytes | None = None, mac=None
) -> bytes:
    """The ``events`` message of record ``seq`` of game ``game``; with ``raw`` the record's
    stored bytes (a live game's, from the end of the record before: record 0's begin with the
    file's magic) and, on the last record of a read, ``mac`` the board's HMAC (hex) of the
    game's bytes through it (``host_tools/hall/proof.py``'s ``Chain`` proves them)."""
    obj = {"v": VERSION, "board": board, "game": game, "seq": seq, "at": at_ms}
    obj["rec"] = record_json(rec)
    if raw is not None:
        obj["raw"] = base64.b64encode(bytes(raw)).decode()
        if mac:
            obj["mac"] = mac
    return _dumps(obj)


RAW_MAX = 1 << 17  # base64 of one record's bytes: a record is at most 64 KiB
_MAC = re.compile(r"^[0-9a-f]{64}$")


def event_proof(obj: dict) -> tuple[bytes | None, str | None]:
    """An event's ``raw`` (the record's stored bytes, decoded) and ``mac`` (hex), each None
    when absent; FeedError if they are not what ``event_payload`` writes."""
    raw, mac = obj.get("raw"), obj.get("mac")
    if raw is not None:
        if not isinstance(raw, str) or len(raw) > RAW_MAX:
            raise FeedError("event: raw is the record's bytes in base64")
        try:
            raw = base64.b64decode(raw, validate=True)
        except (ValueError, binascii.Error):
            raise FeedError("event: raw is not base64") from None
    if mac is not None and (raw is None or not isinstance(mac, str) or not _MAC.match(mac)):
        raise FeedError("event: mac is 64 hex digits, beside raw")
    return raw, mac


def parse_event(payload) -> dict:
    """An ``events`` message as ``{board, game, seq, at, rec, raw, mac}`` (``rec`` decoded,
    ``raw`` bytes or None, ``mac`` hex or None); FeedError."""
    obj = _loads(payload, "event")
    if not board_ok(obj.get("board")):
        raise FeedError("event: board id %r" % (obj.get("board"),))
    game = _int(obj, "game", "event", 1)
    seq = _int(obj, "seq", "event")
    at = _int(obj, "at", "event")
    rec = record_from_json(obj.get("rec"))
    if (seq == 0) != (rec[0] == R.HEADER):
        raise FeedError("event: record 0, and only it, is the header")
    raw, mac = event_proof(obj)
    return {
        "board": obj["board"],
        "game": game,
        "seq": seq,
        "at": at,
        "rec": rec,
        "raw": raw,
        "mac": mac,
    }


def proof_payload(board: str, game: int, data: bytes, mac_hex: str | None) -> bytes:
    """The ``proof`` message of a finished game: the board's stored bytes of it (base64) and
    the HMAC the board gave with them (hex; None if the board gave none)."""
    return _dumps(
        {
            "v": VERSION,
            "board": board,
            "game": game,
            "data": base64.b64encode(bytes(data)).decode(),
            "hmac": mac_hex or "",
        }
    )


PROOF_MAX = 1 << 20  # a game's bytes: far more than a board keeps of one


def parse_proof(payload) -> dict:
    """A ``proof`` message as ``{board, game, data (bytes), hmac (hex str)}``; FeedError."""
    obj = _loads(payload, "proof")
    if not board_ok(obj.get("board")):
        raise FeedError("proof: board id %r" % (obj.get("board"),))
    game = _int(obj, "game", "proof", 1)
    data, mac = obj.get("data"), obj.get("hmac")
    if not isinstance(data, str) or len(data) > PROOF_MAX or not isinstance(mac, str):
        raise FeedError("proof: data is base64, hmac hex")
    if len(mac) > 128:
        raise FeedError("proof: hmac is hex")
    try:
        raw = base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        raise FeedError("proof: data is not base64") from None
    return {"board": obj["board"], "game": game, "data": raw, "hmac": mac}


def state_payload(board: str, relay: str, online: bool, at_ms: int, game: int, seq: int, state):
    """The retained snapshot: ``state`` the board's ``state`` reply (position, clock, phase,
    result) or None when offline; ``game``/``seq`` the last record published (0, -1: none)."""
    body = None
    if state is not None:
        body = {k: v for k, v in state.items() if k not in ("v", "id", "ok")}
    return _dumps(
        {
            "v": VERSION,
            "board": board,
            "relay": relay,
            "online": bool(online),
            "at": at_ms,
            "game": game,
            "seq": seq,
            "state": body,
        }
    )


def parse_state(payload) -> dict:
    """A snapshot as a dict (``state`` may be None); FeedError."""
    obj = _loads(payload, "state")
    if not board_ok(obj.get("board")):
        raise FeedError("state: board id %r" % (obj.get("board"),))
    _int(obj, "game", "state")
    _int(obj, "seq", "state", -1)
    _int(obj, "at", "state")
    if obj.get("state") is not None and not isinstance(obj["state"], dict):
        raise FeedError("state: state is an object or null")
    return obj


PAIRING_KEYS = ("round", "table", "black", "white", "event")


def pairing_payload(pairing: dict) -> bytes:
    """The retained ``pairing`` message: round, table, black, white, event (strings)."""
    return _dumps({"v": VERSION, **{k: str(pairing.get(k, "")) for k in PAIRING_KEYS}})


def parse_pairing(payload) -> dict:
    """A pairing as ``{round, table, black, white, event}`` (strings); FeedError."""
    obj = _loads(payload, "pairing")
    out = {}
    for k in PAIRING_KEYS:
        v = obj.get(k, "")
        if not isinstance(v, str) or len(v) > 64:
            raise FeedError("pairing: %s is a string of at most 64 characters" % k)
        out[k] = v
    return out


def replay_payload(game: int, start: int) -> bytes:
    """The ``replay`` request: game ``game`` again from record ``start``."""
    return _dumps({"v": VERSION, "game": game, "from": start})


def parse_replay(payload) -> tuple[int, int]:
    """``(game, from)`` of a replay request; FeedError."""
    obj = _loads(payload, "replay")
    return _int(obj, "game", "replay", 1), _int(obj, "from", "replay")


def relay_payload(relay: str, online: bool, boards=(), at_ms: int = 0) -> bytes:
    """A relay's status: online, the boards it follows."""
    return _dumps(
        {"v": VERSION, "relay": relay, "online": bool(online), "boards": list(boards), "at": at_ms}
    )


def parse_relay(payload) -> dict:
    """A relay's status as a dict (``online``, ``boards``); FeedError."""
    obj = _loads(payload, "relay")
    if not isinstance(obj.get("online"), bool) or not isinstance(obj.get("boards", []), list):
        raise FeedError("relay: online is true/false, boards a list")
    obj.setdefault("boards", [])
    return obj


# ---- a consumer's view of one game --------------------------------------------------------

NEW = "new"
DUPLICATE = "duplicate"
GAP = "gap"
CONFLICT = "conflict"


class GameRecords:
    """The records of one game in ``seq`` order, as events bring them: ``add`` keeps the next
    one, drops a repeat and holds back (at most ``hold``) those past a gap until the gap is
    filled. ``records`` the records in order; ``times`` when each arrived (the caller's
    clock, for the broadcast delay)."""

    def __init__(self, hold: int = 4096):
        self.records: list = []
        self.times: list = []
        self.ahead: dict = {}  # seq -> (rec, at) past a gap
        self.hold = hold
        self.conflicts = 0

    def add(self, seq: int, rec, at) -> str:
        """Take record ``seq``: NEW (it and any held back that follow are kept), DUPLICATE
        (had it: dropped), CONFLICT (had a different record there: dropped, counted), GAP
        (held back: ask for ``missing()`` again)."""
        n = len(self.records)
        if seq < n:
            return DUPLICATE if self.records[seq] == rec else self._conflict()
        if seq > n:
            if seq in self.ahead:
                return DUPLICATE if self.ahead[seq][0] == rec else self._conflict()
            if len(self.ahead) < self.hold:
                self.ahead[seq] = (rec, at)
            return GAP
        self.records.append(rec)
        self.times.append(at)
        while len(self.records) in self.ahead:
            r, t = self.ahead.pop(len(self.records))
            self.records.append(r)
            self.times.append(t)
        return NEW

    def _conflict(self) -> str:
        self.conflicts += 1
        return CONFLICT

    def missing(self) -> int | None:
        """The first ``seq`` not had while a later one is held back; None if no gap."""
        return len(self.records) if self.ahead else None

    def upto(self, when) -> list:
        """The records that arrived at or before ``when`` (the broadcast delay's cut)."""
        k = 0
        while k < len(self.times) and self.times[k] <= when:
            k += 1
        return self.records[:k]
