"""The hall's register of boards: which relay each board is plugged into and the board's key,
written by the organiser (``tengen hall-keys``) beside the pairings and read by ``tengen hall
--boards``.

Start reading at ``read``. A CSV file, its first row naming the columns ``board``, ``relay``,
``key`` (any order, any case; other columns ignored): ``relay`` the relay id the board's
messages must come from (empty: any relay), ``key`` the board's records' HMAC secret in hex,
as ``tengen pair`` got it from the board (empty: the board's games are shown unverified).
Every bad line is reported at once. The key is a secret: ``write`` makes the file readable by
its owner alone.

With a key, the hall checks each finished game's proof (the board's stored bytes of it and
their HMAC, which the relay forwards) and the game is verified or FAILED; with a relay, the
hall takes the board's snapshots, records and proofs only from that relay (the broker's ACL
lets each relay write only under its own name: ``host_tools/hall/broker.py``).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from host_tools.hall import feed as F

COLUMNS = ("board", "relay", "key")


class BoardsError(ValueError):
    """A boards file that cannot be used; its words list every bad line."""


def read(path) -> dict[str, dict]:
    """``{board id: {"relay": relay id or None, "key": bytes or None}}`` from the file at
    ``path``; BoardsError."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise BoardsError("%s: cannot be read: %s" % (path, e)) from None
    return parse(text, str(path))


def parse(text: str, name: str = "boards") -> dict[str, dict]:
    """The register in a boards CSV text (see ``read``)."""
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if not rows:
        raise BoardsError("%s: empty: the first row names the columns %s" % (name, COLUMNS))
    columns = [c.strip().lower() for c in rows[0]]
    if "board" not in columns:
        raise BoardsError("%s: no column board (the columns are %s)" % (name, ", ".join(COLUMNS)))
    out: dict[str, dict] = {}
    errors = []
    for k, row in enumerate(rows[1:], 2):
        cell = {c: (row[i].strip() if i < len(row) else "") for i, c in enumerate(columns)}
        board, relay, key = cell.get("board", ""), cell.get("relay", ""), cell.get("key", "")
        if not F.board_ok(board):
            errors.append("row %d: board id %r" % (k, board))
            continue
        if board in out:
            errors.append("row %d: board %s twice" % (k, board))
            continue
        if relay:
            try:
                F.relay_user(relay)
            except F.FeedError as e:
                errors.append("row %d: %s" % (k, e))
                continue
        secret = None
        if key:
            try:
                secret = bytes.fromhex(key)
            except ValueError:
                errors.append("row %d: board %s: the key is not hex" % (k, board))
                continue
        out[board] = {"relay": relay or None, "key": secret}
    if errors:
        raise BoardsError("%s: %s" % (name, "; ".join(errors[:20])))
    return out


def text(register: dict[str, dict]) -> str:
    """The CSV of a register (boards sorted)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for board in sorted(register):
        r = register[board]
        w.writerow([board, r.get("relay") or "", (r.get("key") or b"").hex()])
    return buf.getvalue()


def write(path, register: dict[str, dict]) -> Path:
    """Write the register to ``path`` (readable by its owner alone; atomically)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text(register).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, p)
    return p
