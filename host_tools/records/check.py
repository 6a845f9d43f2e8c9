"""What ``tengen verify`` runs: every file named, each by its kind. A game's ``.bin`` with the
sidecar beside it (``verify.verify_bin``); an SGF by the record inside it
(``sgf_check.verify_sgf``); a folder of synced games, their ``.bin`` and ``.sgf`` files; a
game's ``.json`` or ``.psq`` stands for its ``.bin``. One report per file (``verify``'s
form), never an exception. Start reading at ``verify_paths``.

Above both ``verify`` and ``sgf_check``: the SGF check is built on verify's reports, so the
choice between them is made here, not in either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from host_tools.records import sgf_check
from host_tools.records.verify import failed, verify_bin

_NOT_THE_BYTES = (".json", ".psq")  # a game's other files: verify its .bin
SGF = ".sgf"  # checked itself: the record inside it (host_tools/records/sgf_check.py)


def _files(names: Iterable[str]) -> list[tuple[str, str | None]]:
    # (file to verify, or a name and why it cannot be): folders give their .bin and .sgf
    # files (recursively); a game's .json or .psq its .bin; each file once.
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()

    def add(name: str, why: str | None = None) -> None:
        if name not in seen:
            seen.add(name)
            out.append((name, why))

    for name in names:
        path = Path(name)
        if not name:
            add(name, "no file named")
        elif path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.suffix.lower() in (".bin", SGF) and p.is_file()
            )
            if not found:
                add(name, "a folder with no .bin or .sgf files")
            for p in found:
                add(str(p))
        elif path.suffix in _NOT_THE_BYTES:
            add(str(path.with_suffix(".bin")))
        else:
            add(name)
    return out


def verify_file(
    name: str,
    secret: bytes | None = None,
    key_for: Callable[[str], bytes | None] | None = None,
) -> dict:
    """The report on the file ``name``: a game's bytes with their sidecar (``verify_bin``), an
    SGF by the record inside it (``sgf_check``); a file that cannot be read is FAILED."""
    path = Path(name)
    try:
        data = path.read_bytes()
    except OSError as e:
        return failed(name, "cannot read: %s" % (e.strerror or e))
    if path.suffix.lower() == SGF:
        return sgf_check.verify_sgf(name, data, secret, key_for, path.with_suffix(".bin"))
    return verify_bin(name, data, secret, key_for)


def verify_paths(
    names: Iterable[str],
    secret: bytes | None = None,
    key_for: Callable[[str], bytes | None] | None = None,
) -> list[dict]:
    """A report (``verify_game``) for every game named: files, or folders of synced games
    (their .bin and .sgf files, recursively); a game's .json or .psq stands for its .bin; an
    SGF is checked by the record it carries (``sgf_check.verify_sgf``).
    ``secret`` the board's key for every game, else ``key_for(board id)`` (the paired keys:
    ``host_tools.common.keys.get``)."""
    reports = []
    for name, why in _files(names):
        if why is not None:
            reports.append(failed(name, why))
            continue
        try:
            reports.append(verify_file(name, secret, key_for))
        except Exception as e:  # whatever it is: a line for this file, then the others
            reports.append(failed(name, "cannot be checked: %r" % (e,)))
    return reports
