"""Is a game as the board stored it? The checksums in the game's own bytes, the CRC its sidecar
recorded at sync, and the HMAC-SHA256 with the board's secret (SPEC §6: tamper-evident
records).

``game_bytes`` are what ``Journal.read(game_no)`` returns and ``tengen sync`` keeps as the
game's ``.bin``: a packed blob (finished games; it ends with its seal, a CRC32 of the rest:
``firmware/store/records.py``) or a live file (``records.MAGIC`` then records in a CRC chain).
The CRCs catch damage; only the HMAC, keyed with the per-board secret, shows the bytes came
unaltered from that board: anyone can rewrite a game and its checksums.

An SGF that ``sync`` or ``export`` wrote carries the game's bytes and HMAC inside it: it is
checked alone, the record inside as here and the SGF against that record
(``host_tools/records/sgf_check.py``). What ``tengen verify`` runs, each file named by its
kind, is ``host_tools/records/check.py``.

Start reading at ``verify_game``: one report per game, each
``ok`` (checksums and HMAC checked), ``ok, HMAC not checked (why)`` or ``FAILED: why``; bad
input (garbage, truncated, bad UTF-8, empty files, folders, missing sidecars) is a FAILED
line, never an exception. ``exit_code`` gives the worst: ``EXIT_OK`` 0, ``EXIT_UNCHECKED`` 3
(nothing failed, some HMACs not checked), ``EXIT_FAILED`` 1.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zlib
from collections.abc import Callable
from pathlib import Path

from firmware.store import records as R

OK = "ok"
UNCHECKED = "hmac_not_checked"
FAILED = "failed"
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNCHECKED = 3
NOT_PAIRED = "board not paired: tengen pair"


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
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(hmac.new(secret, game_bytes, hashlib.sha256).digest(), expected)


def check_records(game_bytes: bytes) -> list[str]:
    """Damage found in a game's stored bytes ([] if none): the live records' CRC chain must
    hold to the file's end, a packed blob's seal must hold, and the records must decode, the
    header first (``records.check``). A blob packed before the seal existed is not damage
    here (it has nothing to check): ``verify_game`` asks for another check of it."""
    status, why = R.check(game_bytes)
    return [why] if status == R.DAMAGED else []


def verify(
    game_bytes: bytes, secret: bytes | None = None, mac_hex: str | None = None
) -> list[str]:
    """Everything wrong with a game ([] if nothing): its records' checksums, and, given the
    board's ``secret`` and the HMAC the board sent, whether they agree (what ``sync`` asks
    of a game it fetched)."""
    problems = check_records(game_bytes)
    if secret is not None:
        if mac_hex is None:
            problems.append("no HMAC to check")
        elif not verify_mac(secret, game_bytes, mac_hex):
            problems.append("HMAC does not match: the record was altered or is from another board")
    return problems


# ---- tengen verify --------------------------------------------------------------------------


def _header(game_bytes: bytes) -> dict | None:
    # The game's header, if its records decode (None if not).
    try:
        if bytes(game_bytes[:4]) == R.MAGIC:
            recs = [rec for _, _, rec in R.scan(game_bytes, R.MAGIC)]
        else:
            recs = R.unpack(game_bytes)[1]
    except R.Bad:
        return None
    if recs and recs[0][0] == R.HEADER:
        return recs[0][1]
    return None


def verify_game(
    name: str,
    game_bytes: bytes,
    side: dict | None,
    secret: bytes | None = None,
    key_for: Callable[[str], bytes | None] | None = None,
    side_name: str = "the sidecar",
) -> dict:
    """The report on one game: its bytes ``game_bytes``, its sidecar ``side`` (the .json that
    ``sync`` wrote, parsed; None if there is none), the board's key ``secret`` (else
    ``key_for(board id)``, the paired one).

    Returns ``{"file", "status", "problems", "hmac", "note", "game", "board", "form"}``:
    ``status`` OK (every checksum and the HMAC checked), UNCHECKED (nothing wrong, the HMAC not
    checked: ``hmac`` says why) or FAILED (``problems`` says why); ``form`` "live", "packed" or
    "packed, old format"; ``note`` anything else worth saying (or None)."""
    problems: list[str] = []
    note = None
    status, why = R.check(game_bytes)
    live = bytes(game_bytes[:4]) == R.MAGIC
    form = "live" if live else "packed" if status != R.UNSEALED else "packed, old format"
    if not game_bytes:
        problems.append("empty file")
    elif status == R.DAMAGED:
        what = "live records" if live else "packed game"
        problems.append("%s damaged: %s" % (what, why))
    header = _header(game_bytes) if status != R.DAMAGED else None
    game_no = header["game_no"] if header else None
    board = None

    crc_checked = False
    mac_hex = None
    if side is not None:
        crc = side.get("crc")
        if crc is not None:
            if not isinstance(crc, int) or isinstance(crc, bool):
                problems.append("%s's CRC is not a number" % side_name)
            elif crc != crc32(game_bytes):
                problems.append("CRC differs from %s's: the bytes changed since sync" % side_name)
            else:
                crc_checked = True
        size = side.get("size")
        if size is not None and size != len(game_bytes):
            problems.append("%d bytes, %s says %r" % (len(game_bytes), side_name, size))
        no = side.get("game")
        if no is not None and game_no is not None and no != game_no:
            problems.append("game %d, %s says %r" % (game_no, side_name, no))
        said = side.get("board")
        if isinstance(said, str) and said:
            board = said
        mac_hex = side.get("hmac")
    # The key is chosen by the board the record itself names, never by the sidecar's word:
    # anyone can edit a sidecar to name a board whose key the PC does not hold.
    own = header.get("board_id") if header else None
    if own:
        if board is not None and board != own:
            problems.append("%s names board %s, the record board %s" % (side_name, board, own))
        board = own
    elif header:
        problems.append("the record names no board: nothing says whose key would vouch for it")
    # A record too damaged to name its board is FAILED already; the sidecar's board then only
    # picks the key that tells whether the HMAC would have held.
    whose = own or (board if status == R.DAMAGED else None)
    key = secret
    if key is None and whose and key_for is not None:
        key = key_for(whose)

    # The HMAC: the only check a rewritten game cannot pass. With the board's key at hand
    # (paired, or --secret), a game without one is not shown to be the board's: FAILED.
    hmac_checked = False
    not_checked = None
    if mac_hex is None:
        not_checked = "no sidecar" if side is None else "no HMAC in %s" % side_name
        if key is not None:
            problems.append(
                "%s, though the board's key is here: nothing shows the record is the "
                "board's" % not_checked
            )
    elif not isinstance(mac_hex, str):
        problems.append("%s's HMAC is not text" % side_name)
    else:
        if key is None:
            not_checked = NOT_PAIRED
        elif verify_mac(key, game_bytes, mac_hex):
            hmac_checked = True
        else:
            problems.append("HMAC does not match: the record was altered or is from another board")

    if status == R.UNSEALED and not problems:
        # Packed before the seal: only the sidecar's CRC or the HMAC can show it is whole.
        if hmac_checked:
            note = "old format: no checksum of its own; the HMAC checked"
        elif crc_checked:
            note = "old format: no checksum of its own; %s's CRC checked" % side_name
        else:
            problems.append(R.NO_CHECKSUM + " and no sidecar CRC or HMAC: nothing to check")
    if problems:
        verdict = FAILED
    elif hmac_checked:
        verdict = OK
    else:
        verdict = UNCHECKED
    return {
        "file": name,
        "status": verdict,
        "problems": problems,
        "hmac": "checked" if hmac_checked else not_checked if not problems else None,
        "note": note,
        "game": game_no,
        "board": board,
        "form": form,
    }


def failed(name: str, why: str) -> dict:
    return {
        "file": name,
        "status": FAILED,
        "problems": [why],
        "hmac": None,
        "note": None,
        "game": None,
        "board": None,
        "form": None,
    }


def read_side(path: Path) -> tuple[dict | None, str | None]:
    # The sidecar beside ``path`` (None if there is none), or why it cannot be used.
    side_path = path.with_suffix(".json")
    try:
        text = side_path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, "sidecar %s unreadable: %s" % (side_path.name, e.strerror or e)
    try:
        side = json.loads(text)
    except ValueError as e:  # bad JSON, bad UTF-8
        return None, "sidecar %s is not JSON: %s" % (side_path.name, e)
    if not isinstance(side, dict):
        return None, "sidecar %s is not a game's sidecar" % side_path.name
    return side, None


def verify_bin(
    name: str,
    data: bytes,
    secret: bytes | None = None,
    key_for: Callable[[str], bytes | None] | None = None,
) -> dict:
    """The report (``verify_game``) on a game's stored bytes ``data`` read from the file
    ``name``, with the sidecar beside it (``NAME.json``) if there is one."""
    path = Path(name)
    side, bad_side = read_side(path)
    if bad_side:
        report = verify_game(name, data, None, secret, key_for)
        report["status"] = FAILED
        report["problems"].append(bad_side)
        report["hmac"] = None
        return report
    return verify_game(name, data, side, secret, key_for, side_name=path.with_suffix(".json").name)


def line(report: dict) -> str:
    """A report as ``tengen verify`` prints it: ``NAME: ok``, ``NAME: ok, HMAC not checked
    (why)`` or ``NAME: FAILED: why; why``, and a note in brackets."""
    if report["status"] == FAILED:
        text = "FAILED: " + "; ".join(report["problems"])
    elif report["status"] == OK:
        text = "ok"
    else:
        text = "ok, HMAC not checked (%s)" % report["hmac"]
    if report.get("note"):
        text += " [%s]" % report["note"]
    return "%s: %s" % (report["file"], printable(text))


def printable(text: str) -> str:
    """``text`` on one line: characters that are not printable (line breaks, controls) as
    escapes, so a value quoted from a damaged file cannot break the one line a file."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def exit_code(reports: list[dict]) -> int:
    """The worst of the reports: EXIT_FAILED, else EXIT_UNCHECKED, else EXIT_OK."""
    statuses = {r["status"] for r in reports}
    if FAILED in statuses:
        return EXIT_FAILED
    if UNCHECKED in statuses:
        return EXIT_UNCHECKED
    return EXIT_OK


def summary(reports: list[dict]) -> dict:
    """``{"files": reports, "ok": n, "hmac_not_checked": n, "failed": n, "exit": code}``:
    what ``tengen verify --json`` prints."""
    count = {s: sum(r["status"] == s for r in reports) for s in (OK, UNCHECKED, FAILED)}
    return {
        "files": reports,
        "ok": count[OK],
        "hmac_not_checked": count[UNCHECKED],
        "failed": count[FAILED],
        "exit": exit_code(reports),
    }
