"""The boards' keys on this PC: what ``tengen pair`` got from each board (its records' HMAC
secret), kept in ``<user config dir>/tengen/keys.json`` as ``{board id: secret hex}``.

The file is written atomically (a temp file, fsynced, renamed over) and readable by the user
alone (0600). ``TENGEN_CONFIG_DIR`` overrides the folder (the tests use it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

ENV = "TENGEN_CONFIG_DIR"


def path() -> Path:
    """Where the keys are kept."""
    folder = os.environ.get(ENV)
    if not folder:
        from platformdirs import user_config_dir

        folder = user_config_dir("tengen", appauthor=False)
    return Path(folder) / "keys.json"


def load() -> dict[str, str]:
    """Every stored key: ``{board id: secret hex}`` (empty if none, or the file is unreadable)."""
    try:
        data = json.loads(path().read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def get(board: str) -> bytes | None:
    """``board``'s key, or None if it was never paired (or the stored value is not hex)."""
    value = load().get(board)
    if value is None:
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        return None


def store(board: str, secret: bytes) -> Path:
    """Keep ``secret`` as ``board``'s key (replacing any); returns the file's path."""
    p = path()
    p.parent.mkdir(parents=True, exist_ok=True)
    keys = load()
    keys[board] = secret.hex()
    data = (json.dumps(keys, indent=2, sort_keys=True) + "\n").encode()
    tmp = p.with_name(p.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # an old temp file may have had other modes
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, p)
    try:
        dfd = os.open(p.parent, os.O_RDONLY)
    except OSError:
        return p  # no directory fsync here (Windows)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return p
