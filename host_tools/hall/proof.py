"""Is a finished game the hall broadcasts the game the board recorded? The check of a game's
proof (``feed.parse_proof``: the board's stored bytes of the game and their HMAC, which the
relay forwards once the game is finished) with the board's key from the organiser's register
(``host_tools/hall/boards.py``). Pure: ``host_tools/hall/state.py`` calls it.

Start reading at ``check``. A game is:

    verified    its proof's HMAC holds under the board's key and the bytes are sound: its
                records are the board's own, whatever the relay published before
    unverified  the board has no registered key: nothing can be checked
    pending     the board has a key and its game has no proof yet (it is being played)
    failed      a proof came whose HMAC does not hold (or whose bytes are damaged): kept
                apart, never in the feed, until a proof that holds comes

The hall compares the verified records with those the events brought: any difference (a
forged, dropped or reordered record) is a conflict the verified records win.

While a game is played, ``Chain`` proves its records one read at a time: the relay sends each
record with its stored bytes (the live file's, from the end of the record before), and the
last record of each read of the board with the board's HMAC of the game's bytes through it
(``get`` gives it). A MAC over every byte from the file's start proves the whole prefix: no
record in it can be dropped, replaced or reordered without the MAC failing, and a relay can
hold records back (a delay) but never alter them. Records wait in the chain until a MAC
covers them; only proven ones reach the hall's records.
"""

from __future__ import annotations

import hashlib
import hmac

from firmware.store import records as R
from host_tools.hall import feed as F
from host_tools.records import sync as S
from host_tools.records import verify as V

VERIFIED = "verified"
UNVERIFIED = "unverified"
PENDING = "pending"
FAILED = "failed"


def records(data: bytes) -> list:
    """The records of a game's stored bytes as the hall keeps records (``feed``'s JSON form
    read back, so that they compare equal with the events'); ValueError if they do not
    decode."""
    try:
        return [F.record_from_json(F.record_json(r)) for r in S.decode(data)]
    except Exception as e:  # noqa: BLE001 - whatever bytes a relay sent: they do not read
        raise ValueError("the record does not decode: %r" % (e,)) from None


def check(key: bytes | None, board: str, game: int, data: bytes, mac_hex: str):
    """``(status, records or None, why)`` of a proof of ``board``'s game ``game``: VERIFIED
    with the board's records, FAILED with why, or UNVERIFIED (no key) with the records if
    they read."""
    damage = V.check_records(data)
    recs = None
    if not damage:
        try:
            recs = records(data)
        except ValueError as e:
            damage = [str(e)]
    if recs is not None:
        h = recs[0][1] if recs and isinstance(recs[0][1], dict) else {}
        if str(h.get("board_id", board)) != board:
            damage.append("the record is board %s's" % h.get("board_id"))
        if int(h.get("game_no", game) or game) != game:
            damage.append("the record is game %s" % h.get("game_no"))
    if key is None:
        return UNVERIFIED, (recs if not damage else None), "; ".join(damage) or "no key"
    if not mac_hex:
        return FAILED, None, "no HMAC came with the record"
    if not V.verify_mac(key, data, mac_hex):
        return FAILED, None, "the HMAC does not match the board's key"
    if damage:
        return FAILED, None, "; ".join(damage)
    return VERIFIED, recs, ""


def differences(had: list, recs: list) -> int:
    """How many records differ between those the events brought and the verified ones."""
    n = max(len(had), len(recs))
    return sum(1 for s in range(n) if s >= len(had) or s >= len(recs) or had[s] != recs[s])


PROVEN = "proven"  # records now proven (and those the chain had proven before)
HELD = "held"  # kept until a MAC covers it (or the gap before it is filled)
FORGED = "forged"  # a MAC that does not hold, or bytes that are not the records: dropped
HOLD_MAX = 4096  # records a chain holds unproven
HOLD_BYTES = 1 << 16  # and their bytes: a read brings a few records (a game's all: ~90 KB)


class Chain:
    """A live game's records proven by the board's MACs of its bytes (the module's text).
    ``count`` records proven; ``data`` their bytes (kept by the hall, so that a restarted hall
    goes on from them); ``held`` what waits for a MAC."""

    def __init__(self, key: bytes, data: bytes = b""):
        self._mac = hmac.new(key, digestmod=hashlib.sha256)
        self.data = bytearray()
        self.ends: list = []  # where each proven record's bytes end in ``data``
        self.count = 0
        self.held: dict = {}  # seq -> (rec, raw bytes or None, mac hex or None)
        self.held_bytes = 0
        self.why = ""  # why the last offer was FORGED
        if data:  # proven before (the hall's own copy): ValueError if it does not read
            self._take(bytes(data), decode_from(b"", bytes(data)))

    def _take(self, raw: bytes, spans: list) -> None:
        self._mac.update(raw)
        self.ends.extend(len(self.data) + end for end, _ in spans)
        self.data += raw
        self.count += len(spans)

    @property
    def records(self) -> list:
        """The records proven, in order."""
        return [r for _, r in decode_from(b"", bytes(self.data))] if self.data else []

    def event(self, seq: int) -> tuple[bytes, str | None]:
        """``(raw, mac)`` of proven record ``seq`` as the relay sent them (the MAC, made again
        with the key, on the last proven): for a view that proves them again."""
        raw = bytes(self.data[self.ends[seq - 1] if seq else 0 : self.ends[seq]])
        if seq != self.count - 1:
            return raw, None
        return raw, self._mac.hexdigest()

    def _drop(self, seq: int) -> tuple:
        entry = self.held.pop(seq)
        self.held_bytes -= len(entry[1] or b"")
        return entry

    def missing(self) -> int | None:
        """The first record to ask the relay for again: records are held past it (a gap, or
        records no MAC came for); None if nothing waits."""
        return self.count if self.held else None

    def offer(self, seq: int, rec, raw: bytes | None, mac: str | None) -> tuple[str, list]:
        """Record ``seq`` (``seq`` >= ``count``) as an event brought it: ``(PROVEN, [(seq,
        rec), ...])`` the records it proved, in order; ``(HELD, [])``; ``(FORGED, [])`` with
        ``why`` (the records it would have proved are dropped: the caller asks again)."""
        size = len(raw or b"")
        if seq in self.held:
            self.held_bytes -= len(self.held[seq][1] or b"")
        elif len(self.held) >= HOLD_MAX:
            return HELD, []  # dropped: asked again once the records before are proven
        if self.held_bytes + size > HOLD_BYTES:
            self.held.pop(seq, None)
            return HELD, []
        self.held[seq] = (rec, raw, mac)
        self.held_bytes += size
        out: list = []
        s, buf, first = self.count, bytearray(), self.count
        while s in self.held:
            _, raw, m = self.held[s]
            if raw is None:
                break  # no bytes (a packed game's record): only the game's proof tells
            buf += raw
            if m:
                c = self._mac.copy()
                c.update(buf)
                want = [self.held[k][0] for k in range(first, s + 1)]
                why = ""
                if not hmac.compare_digest(c.hexdigest(), m.lower()):
                    why = "records %d-%d: the board's MAC does not hold" % (first, s)
                else:
                    try:
                        spans = decode_from(bytes(self.data[-4:]), bytes(buf))
                    except ValueError as e:
                        spans, why = None, "records %d-%d: %s" % (first, s, e)
                    if spans is not None and [r for _, r in spans] != want:
                        why = "records %d-%d differ from the board's bytes" % (first, s)
                if why:
                    for k in range(first, s + 1):
                        self._drop(k)
                    self.why = why
                    return FORGED, out
                self._take(bytes(buf), spans)
                out.extend((k, self._drop(k)[0]) for k in range(first, s + 1))
                buf, first = bytearray(), s + 1
            s += 1
        return (PROVEN if out else HELD), out


def decode_from(before: bytes, raw: bytes) -> list:
    """The records of ``raw`` as ``[(end, record)]`` (``end`` where its bytes end in ``raw``):
    a live file's bytes that follow ``before`` (its last 4 bytes seed the first record's
    chained CRC; empty: ``raw`` is the file's start, its magic first), each record whole,
    nothing between them; ValueError otherwise. The records as the hall keeps them (``feed``'s
    JSON form read back)."""
    if before:
        data, p, at = before[-4:] + raw, 4, 4
    elif raw[:4] == R.MAGIC:
        data, p, at = raw, 4, 0
    else:
        raise ValueError("the game's first bytes are not a journal's")
    out = []
    while p < len(data):
        span = R._span(data, p, len(data))
        if span is None:
            raise ValueError("bytes at %d are not a whole record" % (p - at))
        t, q, n = span
        try:
            rec = R.decode(t, data, q, q + n)
        except R.Bad as e:
            raise ValueError("a record does not decode: %s" % e) from None
        p = q + n + 4
        out.append((p - at, F.record_from_json(F.record_json(rec))))
    return out
