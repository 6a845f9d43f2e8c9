"""Is a game as the board stored it? CRC32 checks of the journal's own checksum chain, and the
HMAC-SHA256 with the board's secret (SPEC §6: tamper-evident records).

``game_bytes`` are what ``Journal.read(game_no)`` returns: a packed blob (finished games) or
a live file (``records.MAGIC`` then chained records). The CRCs catch damage; only the HMAC,
keyed with the per-board secret, shows the bytes came unaltered from that board.
"""

from __future__ import annotations

import hashlib
import hmac
import zlib

from firmware.store import records as R


def crc32(data: bytes) -> int:
    """CRC32 (zlib's, as the firmware's ``binascii.crc32``) of ``data``, unsigned."""
    return zlib.crc32(data) & 0xFFFFFFFF


def mac(secret: bytes, game_bytes: bytes) -> str:
    """HMAC-SHA256 of a game's stored bytes under the board's secret, as lowercase hex."""
    return hmac.new(secret, game_bytes, hashlib.sha256).hexdigest()


def verify_mac(secret: bytes, game_bytes: bytes, expected_hex: str) -> bool:
    """True when ``expected_hex`` is the HMAC of ``game_bytes`` (compared in constant time)."""
    try:
        expected = bytes.fromhex(expected_hex)
    except ValueError:
        return False
    return hmac.compare_digest(hmac.new(secret, game_bytes, hashlib.sha256).digest(), expected)


def check_records(game_bytes: bytes) -> list[str]:
    """Problems found in a game's stored bytes ([] if none): for a live file, every record's
    chained CRC must hold and cover the file to its end; a packed blob must decode."""
    problems: list[str] = []
    if bytes(game_bytes[:4]) == R.MAGIC:
        found = R.scan(game_bytes, R.MAGIC, problems.append)
        covered = sum(e - p for p, e, _ in found) + 4
        if covered != len(game_bytes) and not problems:
            problems.append("%d bytes not covered by valid records" % (len(game_bytes) - covered))
        if not found or found[0][2][0] != R.HEADER:
            problems.append("no header record")
        return problems
    try:
        _, recs = R.unpack(game_bytes)
    except (R.Bad, IndexError) as e:
        return ["packed game does not decode: %s" % e]
    if not recs or recs[0][0] != R.HEADER:
        problems.append("no header record")
    return problems


def verify(
    game_bytes: bytes, secret: bytes | None = None, mac_hex: str | None = None
) -> list[str]:
    """Everything wrong with a game ([] if nothing): its records' checksums, and, given the
    board's ``secret`` and the HMAC the board sent, whether they agree."""
    problems = check_records(game_bytes)
    if secret is not None:
        if mac_hex is None:
            problems.append("no HMAC to check")
        elif not verify_mac(secret, game_bytes, mac_hex):
            problems.append("HMAC does not match: the record was altered or is from another board")
    return problems
