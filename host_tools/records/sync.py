"""Bring the board's games home: every finished game not yet acknowledged becomes files in
the board's own folder, written atomically and verified, and only then acknowledged (``ack``),
after which the board may evict it. Nothing is ever lost: a cut anywhere leaves either nothing
of a game, or whole files that the next ``sync`` checks and completes.

Start reading at ``sync``. The layout under a root folder (``--dest``, else
``<user data folder>/games``; ``TENGEN_DATA_DIR`` replaces the user data folder)::

    ROOT/index.json, ROOT/index.csv     every game synced into ROOT, one entry each
    ROOT/<board id>/                    one folder per board
        <date>_<game:06d>.bin           the game's bytes exactly as the board keeps them
        <date>_<game:06d>.sgf           the SGF (host_tools/records/export.py), carrying the .bin and
                                        its HMAC (``TG``): it verifies alone. Gomoku/Renju
                                        also .psq
        <date>_<game:06d>.json          the sidecar: board, CRC, HMAC, header, each move's
                                        clocks, incidents, edits, result. Written last: a game
                                        is "present" only when its sidecar is there and the
                                        .bin matches the CRC it records.

``<date>`` is the day the game started (``YYYY-MM-DD``, UTC, from the header's ``start``), or
``undated`` when the board's clock was never set; with the board's folder it keeps apart two
boards' game 1, and one board's game 1 before and after its flash was wiped.

Each file goes to a temp name, is fsynced, renamed over its final name and the folder fsynced.
A whole game already here is never rewritten; a file of the same name that differs from the
board's game is kept and the game reported. The index is rewritten (atomically, under a lock
file, so two boards may sync into one root at once) at the end of every sync from the
sidecars of the board's folder; it is rebuilt from every board folder's sidecars if it is
missing or unreadable.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import datetime
import io
import json
import os
import re
import zlib
from pathlib import Path

from firmware.store import records as R
from host_tools.common import words
from host_tools.common.link import LinkError
from host_tools.records import export as X
from host_tools.records import verify as V

CHUNK = 2048  # ``get``'s largest chunk
DATA_ENV = "TENGEN_DATA_DIR"  # replaces the user data folder (tests, scripts)
UNDATED = "undated"
INDEX_JSON = "index.json"
INDEX_CSV = "index.csv"
INDEX_COLUMNS = (
    "board",
    "game",
    "date",
    "start",
    "kind",
    "size",
    "black",
    "white",
    "event",
    "round",
    "table",
    "result",
    "moves",
    "sgf",
    "psq",
    "bin",
    "json",
)
EXTRA_KEYS = ("black", "white", "event", "round", "table")  # read from the header's ``extra``
KINDS = {R.GO: "go", R.RENJU: "renju", R.STANDARD: "standard", R.FREESTYLE: "freestyle"}
_STEM = re.compile(r"^(\d{4}-\d{2}-\d{2}|%s)_(\d{6,})$" % UNDATED)


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
            # the codes for programs, the words for people (host_tools/common/words.py)
            incidents[-1]["words"] = X.incident_text(kind, detail, recs[0][1])
        elif t == R.EDIT:
            _, kind, move_no, time_ms, args = rec
            edits.append({"kind": kind, "move": move_no, "time_ms": time_ms, "args": list(args)})
            edits[-1]["words"] = words.line(*words.action(kind, args))
        elif t == R.CLOCKS:
            clocks.append({"move": rec[1], "clocks": list(rec[2])})
        elif t == R.RESULT:
            result = dict(zip(("winner", "reason", "margin2", "move"), rec[1:], strict=True))
    if result is not None:
        try:
            result["words"] = X.result_reason(X.read_game(recs)) or ""
        except (ValueError, KeyError, IndexError, TypeError):
            result["words"] = ""
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


# ---- where games go -----------------------------------------------------------------------


def data_dir() -> Path:
    """The user's data folder for tengen: ``$TENGEN_DATA_DIR``, else platformdirs'."""
    folder = os.environ.get(DATA_ENV)
    if not folder:
        from platformdirs import user_data_dir

        folder = user_data_dir("tengen", appauthor=False)
    return Path(folder)


def default_root() -> Path:
    """Where ``sync`` puts games without ``--dest``: ``<data folder>/games``."""
    return data_dir() / "games"


def board_folder_name(board: str) -> str:
    """``board``'s id as a folder name: letters, digits, ``.``, ``_``, ``-`` kept, anything
    else ``_``; ``unknown`` if nothing is left."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", board).lstrip(".")
    return name or "unknown"


def board_dir(root, board: str) -> Path:
    """The folder of ``board``'s games under ``root``."""
    return Path(root) / board_folder_name(board)


def date_text(start) -> str | None:
    """``start`` (calendar seconds, 0 if the board's clock was never set) as ``YYYY-MM-DD``
    (UTC, as the SGF's DT), or None."""
    if not isinstance(start, int) or start <= 0:
        return None
    try:
        return datetime.datetime.fromtimestamp(start, datetime.UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return None


def game_stem(game_no: int, start) -> str:
    """A game's file name without its extension: ``2026-01-01_000001``, ``undated_000001``."""
    return "%s_%06d" % (date_text(start) or UNDATED, game_no)


def stem_of(game_bytes: bytes, game_no: int | None = None) -> str:
    """The file stem of a stored game: ``game_no`` (the board's number; default the
    header's) and the date from its header."""
    recs = decode(game_bytes)
    if not recs or recs[0][0] != R.HEADER:
        raise SyncError("no header record")
    h = recs[0][1]
    return game_stem(h["game_no"] if game_no is None else game_no, h["start"])


def game_files(folder, stem: str) -> dict[str, Path]:
    """The paths of a game's files (``stem`` from ``game_stem``) in a board's folder."""
    return {ext: Path(folder) / (stem + "." + ext) for ext in ("bin", "sgf", "psq", "json")}


def local_stems(folder) -> dict[int, list[str]]:
    """The games with a sidecar in a board's folder: ``{game number: [stems]}`` (more than
    one when the board's numbers started again on another day)."""
    out: dict[int, list[str]] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if name.endswith(".json"):
            m = _STEM.match(name[:-5])
            if m:
                out.setdefault(int(m.group(2)), []).append(name[:-5])
    return out


def _whole(folder, stem: str) -> int | None:
    """The CRC of the game ``stem`` if its files are whole here: its sidecar reads, its .bin
    has the CRC and size the sidecar records, its SGF is there; else None."""
    files = game_files(folder, stem)
    try:
        side = json.loads(files["json"].read_bytes())
        data = files["bin"].read_bytes()
        if not files["sgf"].exists():
            return None
    except (OSError, ValueError):
        return None
    got = V.crc32(data)
    if not isinstance(side, dict) or got != side.get("crc") or len(data) != side.get("size"):
        return None
    return got


def local_ok(folder, game_no: int, crc: int | None = None) -> bool:
    """True when game ``game_no`` is whole in a board's folder under some date (and has
    ``crc``, the board's, if given)."""
    for stem in local_stems(folder).get(game_no, ()):
        got = _whole(folder, stem)
        if got is not None and crc in (None, got):
            return True
    return False


def read_back_ok(folder, game_no: int, game_bytes: bytes) -> bool:
    """The files of a game just written, read back: the .bin equal to ``game_bytes``, the
    sidecar's CRC, the SGF parsed by sgfmill."""
    from sgfmill import sgf

    try:
        stem = stem_of(game_bytes, game_no)
        files = game_files(folder, stem)
        if files["bin"].read_bytes() != game_bytes or _whole(folder, stem) is None:
            return False
        sgf.Sgf_game.from_bytes(files["sgf"].read_bytes())
    except (OSError, ValueError, SyncError):
        return False
    return True


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


def write_game(
    folder, game_no: int, game_bytes: bytes, board: str, mac: str | None, hook=None
) -> dict[str, Path]:
    """Write a game's files into a board's folder (each atomically, the sidecar last); the
    paths written. ``hook(stage)`` is called between the steps (the tests cut there)."""
    folder = Path(folder)
    recs = decode(game_bytes)
    if not recs or recs[0][0] != R.HEADER:
        raise SyncError("game %d: no header record" % game_no)
    files = game_files(folder, game_stem(game_no, recs[0][1]["start"]))
    out = X.export(recs, proof=(game_bytes, mac))  # the SGF carries the record and its HMAC
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
    _fsync_dir(folder)
    return {ext: files[ext] for ext, _ in contents}


# ---- the index ----------------------------------------------------------------------------


def index_entry(root, folder, stem: str) -> dict | None:
    """The index's entry for the game ``stem`` in a board's folder, from its sidecar (and its
    .bin, for the result as SGF writes it); None if the sidecar does not read."""
    root, folder = Path(root), Path(folder)
    files = game_files(folder, stem)
    try:
        side = json.loads(files["json"].read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(side, dict) or not isinstance(side.get("header"), dict):
        return None
    h = side["header"]
    result = None
    swapped = False
    try:
        game = X.read_game(decode(files["bin"].read_bytes()))
        result = X.result_text(game)
        swapped = game.swapped
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        pass
    extra = X.swap_players(X.header_extra(h), swapped)  # Renju's swap (三手可交换)
    entry = {
        "board": str(side.get("board") or h.get("board_id") or ""),
        "game": side.get("game", h.get("game_no")),
        "date": date_text(h.get("start")) or UNDATED,
        "start": h.get("start") or 0,
        "kind": KINDS.get(h.get("kind"), str(h.get("kind"))),
        "size": h.get("size"),
    }
    for key in EXTRA_KEYS:
        value = extra.get(key)
        entry[key] = value if isinstance(value, (str, int)) and value != "" else None
    entry["result"] = result
    entry["moves"] = len(side.get("moves") or ())
    for ext, path in files.items():
        entry[ext] = path.relative_to(root).as_posix() if path.exists() else None
    return entry


def _folder_entries(root: Path, folder: Path, known: dict) -> list[dict]:
    # Every game with a sidecar in ``folder``: the entries ``known`` has (by sidecar path),
    # the others read from their sidecars.
    out = []
    for stems in local_stems(folder).values():
        for stem in stems:
            rel = (folder / (stem + ".json")).relative_to(root).as_posix()
            entry = known.get(rel) or index_entry(root, folder, stem)
            if entry is not None:
                out.append(entry)
    return out


def read_index(root) -> list[dict] | None:
    """The index's entries, or None if it is missing or unreadable."""
    try:
        data = json.loads((Path(root) / INDEX_JSON).read_bytes())
        games = data["games"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(games, list) or not all(isinstance(g, dict) for g in games):
        return None
    return games


def rebuild_index(root) -> list[dict]:
    """Every game in every board folder under ``root``, from the sidecars."""
    root = Path(root)
    out: list[dict] = []
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return out
    for folder in folders:
        out += _folder_entries(root, folder, {})
    return out


def _index_key(e: dict):
    return (str(e.get("board") or ""), str(e.get("date") or ""), e.get("game") or 0)


def _csv(entries: list[dict]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(INDEX_COLUMNS)
    for e in entries:
        w.writerow(["" if e.get(c) is None else e.get(c) for c in INDEX_COLUMNS])
    return buf.getvalue().encode()


@contextlib.contextmanager
def _locked(root: Path):
    # The index's lock: an exclusive lock on ROOT/.index.lock (fcntl, else msvcrt), so two
    # syncs into one root (two boards at once) do not lose each other's entries.
    with open(root / ".index.lock", "a+b") as f:
        try:
            import fcntl
        except ImportError:
            fcntl = None
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        else:
            try:
                import msvcrt

                msvcrt.locking(f.fileno(), msvcrt.LK_LOCK, 1)
            except (ImportError, OSError):
                pass
        yield  # closing the file releases the lock


def update_index(root, folder=None) -> Path:
    """Bring ``ROOT/index.json`` and ``ROOT/index.csv`` up to date (atomically): the entries
    of ``folder`` (a board's folder under ``root``) become exactly its games; the other
    boards' are kept. A missing or unreadable index is rebuilt from every board folder's
    sidecars. Returns the JSON index's path."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root):
        entries = read_index(root)
        if entries is None:
            entries = rebuild_index(root)
        elif folder is not None:
            folder = Path(folder)
            prefix = folder.relative_to(root).as_posix() + "/"
            mine = {}
            others = []
            for e in entries:
                if str(e.get("json") or "").startswith(prefix):
                    mine[e["json"]] = e
                else:
                    others.append(e)
            entries = others + _folder_entries(root, folder, mine)
        entries.sort(key=_index_key)
        doc = {"format": 1, "games": entries}
        for name, data in (
            (INDEX_JSON, json.dumps(doc, indent=1).encode() + b"\n"),
            (INDEX_CSV, _csv(entries)),
        ):
            try:
                same = (root / name).read_bytes() == data
            except OSError:
                same = False
            if not same:  # a sync with nothing new leaves every file as it was
                write_atomic(root / name, data)
    return root / INDEX_JSON


# ---- the sync -----------------------------------------------------------------------------


def list_games(link, after: int = 0) -> list[dict]:
    """Every game the board keeps numbered above ``after`` (``list``, page by page)."""
    games: list[dict] = []
    while True:
        reply = link.request("list", after=after)
        page = reply.get("games", [])
        games += page
        if not reply.get("more") or not page:
            return games
        after = page[-1]["no"]


def read_from(
    link, game_no: int, offset: int = 0, chunk: int = CHUNK
) -> tuple[bytes, int, str, int]:
    """A game's bytes from ``offset`` to its end (``get``, chunk by chunk), and the CRC, HMAC
    (hex) and size of the whole game as the board sent them; SyncError if a chunk is not
    where it was asked for or the game changed while it was read."""
    data = bytearray()
    crc = mac = None
    while True:
        at = offset + len(data)
        r = link.request("get", game=game_no, offset=at, length=chunk)
        if r.get("offset") != at:
            raise SyncError("game %d: chunk at %r, not %d" % (game_no, r.get("offset"), at))
        if crc is not None and (r["crc"] != crc or r["hmac"] != mac):
            raise SyncError("game %d changed on the board while it was read" % game_no)
        crc, mac = r["crc"], r["hmac"]
        data += base64.b64decode(r["data"])
        if r.get("eof") or offset + len(data) >= r["size"]:
            return bytes(data), crc, mac, r["size"]


def fetch(link, game_no: int, chunk: int = CHUNK) -> tuple[bytes, int, str]:
    """A game's bytes, its CRC and HMAC (hex) as the board sent them; SyncError on a bad CRC."""
    data, crc, mac, size = read_from(link, game_no, 0, chunk)
    if len(data) != size or zlib.crc32(data) & 0xFFFFFFFF != crc:
        raise SyncError("game %d: CRC mismatch (%d bytes received)" % (game_no, len(data)))
    return data, crc, mac


def sync(
    link,
    dest_dir=None,
    progress=None,
    secret: bytes | None = None,
    chunk: int = CHUNK,
    hook=None,
    refetch: bool = False,
):
    """Bring every finished, unacknowledged game home into its board's folder under
    ``dest_dir`` (default: ``default_root()``); then ``ack`` it.

    ``progress(event, game_no, done, total)`` is told "start", "fetched", "written", "acked",
    "skipped" for each game; ``secret`` the board's key (from ``pair``): when given, a game's
    HMAC must match or it is neither written nor acked. With ``refetch``, the games the board
    still keeps that were acknowledged elsewhere (another PC, another folder) are fetched,
    verified and written too (not acknowledged again: they are).

    Returns a summary dict: ``written`` (game numbers written now), ``refetched`` (those of
    them acknowledged before), ``acked`` (acknowledged now), ``present`` (acknowledged and
    already here), ``in_progress``, ``not_here`` (acknowledged, not here and not fetched:
    synced elsewhere), ``failed`` ({game: reason}), ``bytes`` (received), ``board``,
    ``folder`` (the board's), ``index`` (the index's path; ``index_error`` if it could not be
    written).
    """
    root = Path(dest_dir) if dest_dir is not None else default_root()
    hello = link.request("hello")
    board = str(hello.get("board", ""))
    folder = board_dir(root, board)
    folder.mkdir(parents=True, exist_ok=True)
    for stray in folder.glob("*.tmp"):  # a cut mid-write: ours, never a finished file
        stray.unlink()
    games = list_games(link)
    summary = {
        "board": board,
        "folder": str(folder),
        "index": None,
        "games": len(games),
        "written": [],
        "refetched": [],
        "acked": [],
        "present": [],
        "in_progress": [],
        "not_here": [],
        "failed": {},
        "bytes": 0,
    }
    here = local_stems(folder)

    def whole(no):  # {stem: crc} of game ``no``'s whole copies here
        out = {}
        for stem in here.get(no, ()):
            crc = _whole(folder, stem)
            if crc is not None:
                out[stem] = crc
        return out

    todo = []
    for g in games:
        if not g["finished"]:
            summary["in_progress"].append(g["no"])
        elif not g["acked"]:
            todo.append(g)
        elif refetch:
            todo.append(g)  # here or not: its CRC against the board's decides
        else:
            summary["present" if whole(g["no"]) else "not_here"].append(g["no"])

    def tell(event, no, k):
        if progress:
            progress(event, no, k, len(todo))

    try:
        for k, g in enumerate(todo):
            no = g["no"]
            tell("start", no, k)
            try:
                copies = whole(no)
                if copies:
                    # Written before (a cut took the ack, or synced here before): is it the
                    # board's game?
                    r = link.request("get", game=no, offset=g["size"], length=1)
                    if r["crc"] in copies.values():
                        if g["acked"]:
                            summary["present"].append(no)
                            tell("skipped", no, k + 1)
                            continue
                        link.request("ack", game=no)
                        summary["acked"].append(no)
                        tell("acked", no, k + 1)
                        continue
                data, crc, mac = fetch(link, no, chunk)
                summary["bytes"] += len(data)
                problems = V.verify(data, secret, mac if secret is not None else None)
                if problems:
                    raise SyncError("game %d: %s" % (no, "; ".join(problems)))
                tell("fetched", no, k)
                stem = stem_of(data, no)
                if game_files(folder, stem)["json"].exists():
                    # A game of this name is here (its sidecar written last, so it was once
                    # whole) and it is not the board's, or is damaged: kept as it is. Without
                    # a sidecar, files of the name are a cut write's: replaced below.
                    raise SyncError(
                        "game %d: %s here is not the board's game or is damaged: kept, not"
                        " overwritten (move it away and sync again)"
                        % (no, game_files(folder, stem)["json"].with_suffix(".*"))
                    )
                write_game(folder, no, data, board, mac, hook)
                if not read_back_ok(folder, no, data):
                    raise SyncError("game %d: the files read back wrong" % no)
                here.setdefault(no, []).append(stem)
                summary["written"].append(no)
                tell("written", no, k)
                if g["acked"]:
                    summary["refetched"].append(no)  # acknowledged already: not again
                    tell("skipped", no, k + 1)
                    continue
                link.request("ack", game=no)
                summary["acked"].append(no)
                tell("acked", no, k + 1)
            except (SyncError, ValueError, R.Bad) as e:
                summary["failed"][no] = str(e)
                tell("failed", no, k + 1)
            except LinkError as e:
                if e.code in ("no_game", "not_finished", "need_mac", "bad_mac"):
                    # need_mac, bad_mac: paired with another PC (or a stale key here): the
                    # game is copied, not acknowledged; the others are copied still.
                    summary["failed"][no] = str(e)
                    continue
                raise  # the link is gone: the rest waits for the next sync
    finally:
        try:
            summary["index"] = str(update_index(root, folder))
        except OSError as e:
            summary["index_error"] = str(e)
    return summary
