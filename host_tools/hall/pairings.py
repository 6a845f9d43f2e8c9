"""The hall's pairings: who plays whom, at which table and board, in each round, from a CSV
file that a pairing program or a spreadsheet writes.

Start reading at ``read``. The first row names the columns (any order, any case, extra
columns ignored): ``round``, ``table``, ``board`` (the board's id, as its topic has it),
``black``, ``white``, and optionally ``event``. Every bad row is reported at once, each with
its line number, so that the arbiter fixes the file in one go: a missing column, a row with
too many or too few fields, an empty round, table or board, a board id that cannot be a
topic's level, a name longer than the board keeps whole (firmware/game/settings.py: 32
characters, a Chinese character counting as one), one board or one table twice in a round.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from firmware.game.settings import NAMES, check
from host_tools.hall import feed as F

COLUMNS = ("round", "table", "board", "black", "white")
OPTIONAL = ("event",)
LONGEST = 64  # feed.parse_pairing's limit: what a board's settings keep of a name
ERRORS_SHOWN = 20


class PairingError(ValueError):
    """A pairings file that cannot be used; its words list every bad line."""


def read(path) -> list[dict]:
    """The rows of the pairings CSV at ``path`` (see ``parse``); PairingError."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise PairingError("%s: cannot be read: %s" % (path, e)) from None
    return parse(text, str(path))


def parse(text: str, name: str = "pairings") -> list[dict]:
    """The rows of a pairings CSV text: dicts of ``round``, ``table``, ``board``, ``black``,
    ``white``, ``event`` (stripped strings) and ``line`` (its line number). PairingError,
    naming ``name`` and every bad line, when anything is wrong."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    lines = _line_numbers(text)
    errors: list[str] = []
    head = None
    for k, row in enumerate(rows):
        if any(cell.strip() for cell in row):
            head = k
            break
    if head is None:
        raise PairingError("%s: empty: the first row names the columns %s" % (name, _cols()))
    columns = [cell.strip().lower() for cell in rows[head]]
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise PairingError(
            "%s: line %d: no column %s (the first row names the columns %s)"
            % (name, lines[head], ", ".join(missing), _cols())
        )
    twice = sorted({c for c in columns if c and columns.count(c) > 1})
    if twice:
        raise PairingError("%s: line %d: column %s twice" % (name, lines[head], ", ".join(twice)))
    index = {c: columns.index(c) for c in COLUMNS + OPTIONAL if c in columns}
    out: list[dict] = []
    boards: dict[tuple, int] = {}
    tables: dict[tuple, int] = {}
    for k in range(head + 1, len(rows)):
        row, line = rows[k], lines[k]
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            errors.append(
                "line %d: %d fields, the first row has %d" % (line, len(row), len(columns))
            )
            continue
        p = {c: row[i].strip() for c, i in index.items()}
        p.setdefault("event", "")
        bad = _check_row(p)
        if bad:
            errors.append("line %d: %s" % (line, bad))
            continue
        key = (p["round"], p["board"])
        if key in boards:
            errors.append(
                "line %d: board %s twice in round %s (line %d too)"
                % (line, p["board"], p["round"], boards[key])
            )
            continue
        seat = (p["round"], p["table"])
        if seat in tables:
            errors.append(
                "line %d: table %s twice in round %s (line %d too)"
                % (line, p["table"], p["round"], tables[seat])
            )
            continue
        boards[key] = tables[seat] = line
        p["line"] = line
        out.append(p)
    if errors:
        more = len(errors) - ERRORS_SHOWN
        shown = errors[:ERRORS_SHOWN] + (["... and %d more" % more] if more > 0 else [])
        raise PairingError("%s: %s" % (name, "; ".join(shown)))
    return out


def _check_row(p: dict) -> str | None:
    for c in ("round", "table", "board"):
        if not p[c]:
            return "the %s is empty" % c
    if not F.board_ok(p["board"]):
        return "board id %r: 1-32 letters, digits, '_' or '-', not starting with '_'" % (
            p["board"],
        )
    for c in COLUMNS + OPTIONAL:
        if len(p.get(c, "")) > LONGEST:
            return "the %s has more than %d characters" % (c, LONGEST)
    for c in NAMES:  # what the board keeps whole in the game's record, or refuses
        bad = check(c, p.get(c, ""))
        if bad:
            return bad
    return None


def _cols() -> str:
    return ", ".join(COLUMNS) + " (and optionally %s)" % ", ".join(OPTIONAL)


def _line_numbers(text: str) -> list[int]:
    # The line each CSV row starts on (a quoted field may hold line breaks).
    out = []
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    line = 1
    while True:
        out.append(line)
        try:
            next(reader)
        except StopIteration:
            break
        line = reader.line_num + 1
    return out


def round_key(name: str):
    """Sort key of a round's name: numbers by value, before any other names."""
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def rounds(rows: list[dict]) -> list[str]:
    """The rounds the rows name, in order."""
    return sorted({p["round"] for p in rows}, key=round_key)


def for_round(rows: list[dict], round_: str | int | None = None) -> dict[str, dict]:
    """``{board id: pairing}`` of round ``round_`` (None: the highest round in the rows); a
    pairing holds round, table, black, white, event. PairingError if the round has none."""
    names = rounds(rows)
    if not names:
        return {}
    chosen = names[-1] if round_ is None else str(round_).strip()
    picked = {p["board"]: _pairing(p) for p in rows if p["round"] == chosen}
    if not picked:
        raise PairingError(
            "no pairings for round %s (the file has %s)" % (chosen, ", ".join(names))
        )
    return picked


def _pairing(p: dict) -> dict:
    return {k: p.get(k, "") for k in F.PAIRING_KEYS}
