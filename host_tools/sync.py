"""Bring the board's games home: every finished game not yet acknowledged becomes files in
``dest``, written atomically and verified, and only then acknowledged (``ack``), after which the
board may evict it. Nothing is ever lost: a cut anywhere leaves either nothing of a game, or
whole files that the next ``sync`` checks and completes.

Start reading at ``sync``. Per game ``NNNNNN`` (the board's game number):

    NNNNNN.bin    the game's bytes exactly as the board keeps them (``Journal.read``)
    NNNNNN.sgf    the SGF (host_tools/export.py); Gomoku/Renju also NNNNNN.psq
    NNNNNN.json   the sidecar: board, CRC, HMAC, header, each move's clocks, incidents, edits,
                  result. Written last: a game is "present" only when its sidecar is there and
                  the .bin matches the CRC it records.

Each file goes to a temp name, is fsynced, renamed over its final name and the folder fsynced.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from pathlib import Path

from firmware.store import records as R
from host_tools import export as X
from host_tools import verify as V
from host_tools.link import LinkError

CHUNK = 2048  # ``get``'s largest chunk


class SyncError(Exception):
    """A game could not be brought home safely (bad CRC or HMAC, an undecodable record)."""


def decode(game_bytes: bytes) -> list:
    """A stored game's records (the header first), from its live or packed form."""
    if bytes(game_bytes[:4]) == R.MAGIC:
        return [rec for _, _, rec in R.scan(game_bytes, R.MAGIC)]
    return R.unpack(game_bytes)[1]


def _json_safe(v):
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_json_safe(x) for x in v]
    return v


def sidecar(game_no: int, game_bytes: bytes, recs: list, board: str, mac: str | None) -> dict:
    """The JSON sidecar of a game: what the SGF cannot hold, and the checks."""
    moves, incidents, edits, clocks = [], [], [], []
    result = None
    for rec in recs[1:]:
        t = rec[0]
        if t == R.MOVE:
            _, ply, colour, point, tick, cl = rec
            moves.append({"ply": ply, "colour": colour, "point": point, "tick": tick})
            moves[-1]["clocks"] = list(cl)
        elif t == R.INCIDENT:
            _, kind, move_no, time_ms, points, detail = rec
            incidents.append(
                {"kind": kind, "move": move_no, "time_ms": time_ms, "points": list(points)}
            )
            incidents[-1]["detail"] = detail
        elif t == R.EDIT:
            _, kind, move_no, time_ms, args = rec
            edits.append({"kind": kind, "move": move_no, "time_ms": time_ms, "args": list(args)})
        elif t == R.CLOCKS:
            clocks.append({"move": rec[1], "clocks": list(rec[2])})
        elif t == R.RESULT:
            result = dict(zip(("winner", "reason", "margin2", "move"), rec[1:], strict=True))
    return {
        "format": 1,
        "game": game_no,
        "board": board,
        "size": len(game_bytes),
        "crc": V.crc32(game_bytes),
        "hmac": mac,
        "header": _json_safe(recs[0][1]),
        "moves": moves,
        "incidents": incidents,
        "edits": edits,
        "clocks": clocks,
        "result": result,
    }


# ---- files --------------------------------------------------------------------------------


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _stage(path: Path, data: bytes) -> Path:
    """``data`` in ``path``'s temp file, fsynced; the temp path."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return tmp


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``, whole or not at all."""
    os.replace(_stage(path, data), path)
    _fsync_dir(path.parent)


def game_files(dest: Path, game_no: int) -> dict[str, Path]:
    stem = "%06d" % game_no
    return {ext: dest / (stem + "." + ext) for ext in ("bin", "sgf", "psq", "json")}


def local_ok(dest: Path, game_no: int, crc: int | None = None) -> bool:
    """True when game ``game_no`` is in ``dest`` whole: its sidecar reads, its .bin has the
    CRC the sidecar records (and ``crc``, the board's, if given), its SGF is there."""
    files = game_files(dest, game_no)
    try:
        side = json.loads(files["json"].read_bytes())
        data = files["bin"].read_bytes()
        if not files["sgf"].exists():
            return False
    except (OSError, ValueError):
        return False
    got = V.crc32(data)
    return got == side.get("crc") and len(data) == side.get("size") and crc in (None, got)


def read_back_ok(dest: Path, game_no: int, game_bytes: bytes) -> bool:
    """The files of a game just written, read back: the .bin equal to ``game_bytes``, the
    sidecar's CRC, the SGF parsed by sgfmill."""
    from sgfmill import sgf

    files = game_files(dest, game_no)
    try:
        if files["bin"].read_bytes() != game_bytes or not local_ok(dest, game_no):
            return False
        sgf.Sgf_game.from_bytes(files["sgf"].read_bytes())
    except (OSError, ValueError):
        return False
    return True


def write_game(
    dest: Path, game_no: int, game_bytes: bytes, board: str, mac: str | None, hook=None
) -> dict[str, Path]:
    """Write a game's files (each atomically, the sidecar last); the paths written.
    ``hook(stage)`` is called between the steps (the tests cut there)."""
    recs = decode(game_bytes)
    if not recs or recs[0][0] != R.HEADER:
        raise SyncError("game %d: no header record" % game_no)
    files = game_files(dest, game_no)
    out = X.export(recs)
    side = sidecar(game_no, game_bytes, recs, board, mac)
    contents = [("bin", game_bytes)]
    contents += [(ext, out[ext]) for ext in ("sgf", "psq") if ext in out]
    contents.append(("json", json.dumps(side, indent=1).encode() + b"\n"))
    staged = [(_stage(files[ext], data), files[ext]) for ext, data in contents]
    if hook:
        hook("staged")
    for tmp, final in staged:
        os.replace(tmp, final)
        if hook:
            hook("renamed")
    _fsync_dir(dest)
    return {ext: files[ext] for ext, _ in contents}


# ---- the sync -----------------------------------------------------------------------------


def list_games(link) -> list[dict]:
    """Every game the board keeps (``list``, page by page)."""
    games: list[dict] = []
    after = 0
    while True:
        reply = link.request("list", after=after)
        page = reply.get("games", [])
        games += page
        if not reply.get("more") or not page:
            return games
        after = page[-1]["no"]


def fetch(link, game_no: int, chunk: int = CHUNK) -> tuple[bytes, int, str]:
    """A game's bytes, its CRC and HMAC (hex) as the board sent them; SyncError on a bad CRC."""
    data = bytearray()
    crc = mac = None
    while True:
        r = link.request("get", game=game_no, offset=len(data), length=chunk)
        if r.get("offset") != len(data):
            raise SyncError("game %d: chunk at %r, not %d" % (game_no, r.get("offset"), len(data)))
        if crc is not None and (r["crc"] != crc or r["hmac"] != mac):
            raise SyncError("game %d changed on the board while it was read" % game_no)
        crc, mac = r["crc"], r["hmac"]
        data += base64.b64decode(r["data"])
        if r.get("eof") or len(data) >= r["size"]:
            break
    data = bytes(data)
    if len(data) != r["size"] or zlib.crc32(data) & 0xFFFFFFFF != crc:
        raise SyncError("game %d: CRC mismatch (%d bytes received)" % (game_no, len(data)))
    return data, crc, mac


def sync(
    link, dest_dir, progress=None, secret: bytes | None = None, chunk: int = CHUNK, hook=None
):
    """Bring every finished, unacknowledged game home into ``dest_dir``; then ``ack`` it.

    ``progress(event, game_no, done, total)`` is told "start", "fetched", "written", "acked",
    "skipped" for each game; ``secret`` the board's key (from ``pair``): when given, a game's
    HMAC must match or it is neither written nor acked. Returns a summary dict:
    ``written`` (game numbers written now), ``acked`` (acknowledged now), ``present`` (already
    here and acked), ``in_progress``, ``not_here`` (acked but not in ``dest``: synced elsewhere),
    ``failed`` ({game: reason}), ``bytes`` (received), ``board``.
    """
    dest = Path(dest_dir)
    dest.mkdir(parents=True, exist_ok=True)
    for stray in dest.glob("*.tmp"):  # a cut mid-write: ours, never a finished file
        stray.unlink()
    hello = link.request("hello")
    board = str(hello.get("board", ""))
    games = list_games(link)
    summary = {
        "board": board,
        "games": len(games),
        "written": [],
        "acked": [],
        "present": [],
        "in_progress": [],
        "not_here": [],
        "failed": {},
        "bytes": 0,
    }
    todo = [g for g in games if g["finished"] and not g["acked"]]
    for g in games:
        if not g["finished"]:
            summary["in_progress"].append(g["no"])
        elif g["acked"]:
            key = "present" if local_ok(dest, g["no"]) else "not_here"
            summary[key].append(g["no"])

    def tell(event, no, k):
        if progress:
            progress(event, no, k, len(todo))

    for k, g in enumerate(todo):
        no = g["no"]
        tell("start", no, k)
        try:
            if local_ok(dest, no):
                # Written before a cut took the ack: make sure it is the board's game.
                r = link.request("get", game=no, offset=g["size"], length=1)
                if not local_ok(dest, no, r["crc"]):
                    raise SyncError("game %d: the file here differs from the board's" % no)
            else:
                data, crc, mac = fetch(link, no, chunk)
                summary["bytes"] += len(data)
                problems = V.verify(data, secret, mac if secret is not None else None)
                if problems:
                    raise SyncError("game %d: %s" % (no, "; ".join(problems)))
                tell("fetched", no, k)
                write_game(dest, no, data, board, mac, hook)
                if not read_back_ok(dest, no, data):
                    raise SyncError("game %d: the files read back wrong" % no)
                summary["written"].append(no)
                tell("written", no, k)
            link.request("ack", game=no)
            summary["acked"].append(no)
            tell("acked", no, k + 1)
        except (SyncError, ValueError, R.Bad) as e:
            summary["failed"][no] = str(e)
            tell("failed", no, k + 1)
        except LinkError as e:
            if e.code in ("no_game", "not_finished"):
                summary["failed"][no] = str(e)
                continue
            raise  # the link is gone: the rest waits for the next sync
    return summary
