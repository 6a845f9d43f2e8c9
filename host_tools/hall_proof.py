"""Is a finished game the hall broadcasts the game the board recorded? The check of a game's
proof (``feed.parse_proof``: the board's stored bytes of the game and their HMAC, which the
relay forwards once the game is finished) with the board's key from the organiser's register
(``host_tools/hall_boards.py``). Pure: ``host_tools/hall_state.py`` calls it.

Start reading at ``check``. A game is:

    verified    its proof's HMAC holds under the board's key and the bytes are sound: its
                records are the board's own, whatever the relay published before
    unverified  the board has no registered key: nothing can be checked
    pending     the board has a key and its game has no proof yet (it is being played)
    failed      a proof came whose HMAC does not hold (or whose bytes are damaged): kept
                apart, never in the feed, until a proof that holds comes

The hall compares the verified records with those the events brought: any difference (a
forged, dropped or reordered record) is a conflict the verified records win.
"""

from __future__ import annotations

from host_tools import feed as F
from host_tools import sync as S
from host_tools import verify as V

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
