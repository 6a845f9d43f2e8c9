"""Is an SGF the game the board recorded? What ``tengen verify game.sgf`` runs.

An SGF that ``sync`` or ``export`` wrote carries its proof in the private root property ``TG``
(``host_tools/records/export.py``, ``proof_values``): the board's record (the .bin, in base64) and the
board's HMAC of it. Everything else in the SGF is derived from that record. So the SGF is
checked in two steps:

1. the record inside: its checksums and seal, and its HMAC with the key of the board the
   record itself names (``verify.verify_game``, as for a .bin: paired keys or ``--secret``;
   with a key at hand a missing HMAC is FAILED; without one, "HMAC not checked");
2. the SGF written again from that record by the same export code, compared with the file
   byte for byte. Any difference (a move, a time, a name, a comment, the result, a byte
   anywhere, even one a viewer would not show) is FAILED; ``differences`` names the first
   differing property or move so a person can see what was changed.

Byte-exact, because nothing in the SGF comes from outside the record (no host clock, no
pairings file, no names given on the command line: ``export`` refuses names with a proof), so
the MAC vouches for every byte; a field the MAC did not cover would be a forgery vector. A
viewer that re-saves the file (other line endings, other property order) breaks the
comparison: keep the SGF as tengen wrote it. An SGF of another export format
(``export.SGF_FORMAT``) is not compared but FAILED, saying which format it is.

An SGF without ``TG`` (exported before it existed, or by another program) cannot be verified
alone: FAILED, unless its game's .bin is beside it; then the .bin is verified as usual (with
its sidecar) and the SGF compared with that .bin's export.

Start reading at ``verify_sgf``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from pathlib import Path

from sgfmill import sgf

from host_tools.records import export as X
from host_tools.records import verify as V

SIDE_NAME = "the SGF"
NO_PROOF = (
    "no record of the board inside (exported before tengen put it there, or by another "
    "program): it cannot be verified alone; verify the game's .bin and sidecar"
)
# ``TG`` and its values in the raw bytes of a file sgfmill cannot read. The property must not
# follow a letter (``ATG[`` is another name).
_PROOF_RE = re.compile(
    rb"(?<![A-Za-z])" + X.PROOF.encode() + rb"((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.S
)
_VALUE_RE = re.compile(rb"\[((?:[^\]\\]|\\.)*)\]", re.S)
_MAC_RE = re.compile(r"[0-9a-f]{64}")
_WHAT = {
    "B": "Black's move",
    "W": "White's move",
    "BL": "Black's time left (BL)",
    "WL": "White's time left (WL)",
    "OB": "Black's overtime (OB)",
    "OW": "White's overtime (OW)",
    "PB": "Black's name (PB)",
    "PW": "White's name (PW)",
    "RE": "the result (RE)",
    "C": "the comment (C)",
    "DT": "the date (DT)",
    "KM": "the komi (KM)",
    X.PROOF: "the record and its HMAC (%s)" % X.PROOF,
}


def read_proof(data: bytes) -> dict | None:
    """The root's ``TG`` values in an SGF's bytes: ``{"format", "board", "hmac", "record"}``
    (raw bytes each, the record still base64); None if there is none. Read by sgfmill, so a
    name or comment that merely contains ``TG[`` is never taken for it; a file sgfmill cannot
    read (it can never equal an export) is searched for the property, for a clearer report."""
    try:
        root = sgf.Sgf_game.from_bytes(data).get_root()
    except ValueError:
        m = _PROOF_RE.search(data)
        if m is None:
            return None
        values = _VALUE_RE.findall(m.group(1))
    else:
        if not root.has_property(X.PROOF):
            return None
        values = root.get_raw_list(X.PROOF)
    values = list(values) + [b""] * 4
    return dict(zip(("format", "board", "hmac", "record"), values[:4], strict=True))


# ---- what differs ---------------------------------------------------------------------------


def _shown(values: list[bytes]) -> str:
    text = "][".join(v.decode("utf-8", "replace") for v in values)
    if len(text) > 40:
        text = text[:37] + "..."
    return '"%s"' % V.printable(text)


def _where(i: int) -> str:
    return "the root" if i == 0 else "move %d" % i


def _first_byte(got: bytes, want: bytes) -> str:
    i = next(
        (k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
        min(len(got), len(want)),
    )
    line = got.count(b"\n", 0, i) + 1
    return "first differing byte at offset %d (line %d): %r where tengen writes %r" % (
        i,
        line,
        got[i : i + 12],
        want[i : i + 12],
    )


def differences(got: bytes, want: bytes) -> list[str]:
    """How the SGF ``got`` differs from ``want`` (the SGF written from the record), the first
    first: each differing property by node (``the root``, ``move N``), nodes missing or added,
    variations; a difference that reads the same (spacing, line endings) by its byte. []
    when they are equal."""
    if got == want:
        return []
    if got.replace(b"\r\n", b"\n") == want:
        return ["its line endings were changed (CRLF): it reads the same but is not the file "
                "tengen wrote; the original verifies"]  # fmt: skip
    try:
        mine = sgf.Sgf_game.from_bytes(got)
    except ValueError as e:
        return ["it is no longer a readable SGF (%s); %s" % (e, _first_byte(got, want))]
    theirs = sgf.Sgf_game.from_bytes(want)
    out = []
    a, b = mine.get_main_sequence(), theirs.get_main_sequence()
    for i, (na, nb) in enumerate(zip(a, b, strict=False)):
        for ident in sorted(set(na.properties()) | set(nb.properties())):
            va = na.get_raw_list(ident) if na.has_property(ident) else None
            vb = nb.get_raw_list(ident) if nb.has_property(ident) else None
            what = _WHAT.get(ident, ident)
            if va == vb:
                continue
            if va is None:
                out.append("%s: no %s, the board recorded %s" % (_where(i), what, _shown(vb)))
            elif vb is None:
                out.append(
                    "%s: %s %s, which the board did not record" % (_where(i), what, _shown(va))
                )
            else:
                out.append(
                    "%s: %s is %s, the board recorded %s"
                    % (_where(i), what, _shown(va), _shown(vb))
                )
        if len(na) > 1:
            out.append("%s: %d variations, the board recorded none" % (_where(i), len(na) - 1))
    if len(a) != len(b):
        out.append("%d moves, the board recorded %d" % (len(a) - 1, len(b) - 1))
    if not out:
        out.append("it reads the same but its text differs: " + _first_byte(got, want))
    return out


def _compare(report: dict, got: bytes, want: bytes) -> None:
    diff = differences(got, want)
    if diff:
        more = " (and %d more differences)" % (len(diff) - 1) if len(diff) > 1 else ""
        report["problems"].append("the SGF is not what the board recorded: %s%s" % (diff[0], more))


def _settle(report: dict) -> dict:
    # The verdict again once the SGF's own problems are added (verify_game's rules).
    if report["problems"]:
        report["status"] = V.FAILED
    return report


# ---- one SGF --------------------------------------------------------------------------------


def verify_sgf(
    name: str,
    data: bytes,
    secret: bytes | None = None,
    key_for: Callable[[str], bytes | None] | None = None,
    bin_beside: Path | None = None,
) -> dict:
    """The report (as ``verify.verify_game``'s) on the SGF ``data`` named ``name``: the record
    inside checked, then the SGF written again from it and compared. ``secret`` the board's
    key, else ``key_for(the record's board id)``. Without ``TG``: checked against
    ``bin_beside`` (the game's .bin, if it is there), else FAILED (``NO_PROOF``)."""
    from host_tools.records import sync as S

    proof = read_proof(data)
    if proof is None:
        if bin_beside is None or not bin_beside.is_file():
            return V.failed(name, "empty file" if not data else NO_PROOF)
        try:
            raw = bin_beside.read_bytes()
        except OSError as e:
            return V.failed(name, "cannot read %s: %s" % (bin_beside.name, e.strerror or e))
        report = V.verify_bin(str(bin_beside), raw, secret, key_for)
        report["file"], report["form"] = name, "sgf without its record"
        report["note"] = "no record inside: compared with %s beside it" % bin_beside.name
        try:
            want = X.export(S.decode(raw))["sgf"]
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            report["problems"].append("%s cannot be written as SGF: %s" % (bin_beside.name, e))
        else:
            _compare(report, data, want)
        return _settle(report)

    fmt = proof["format"]
    if fmt != str(X.SGF_FORMAT).encode():
        return V.failed(
            name,
            "written by SGF format %s; this tengen writes and compares format %d only: verify "
            "it with the tengen that wrote it" % (_shown([fmt]), X.SGF_FORMAT),
        )
    try:
        record = base64.b64decode(proof["record"], validate=True)
    except (binascii.Error, ValueError):
        return V.failed(name, "the record inside (%s) is not base64" % X.PROOF)
    mac = proof["hmac"].decode("ascii", "replace") or None
    board = proof["board"].decode("utf-8", "replace") or None
    report = V.verify_game(
        name, record, {"hmac": mac, "board": board}, secret, key_for, side_name=SIDE_NAME
    )
    report["form"] = "sgf, " + (report["form"] or "?")
    if mac is not None and not _MAC_RE.fullmatch(mac):
        report["problems"].append("the SGF's HMAC is not an HMAC-SHA256 (64 hex digits)")
    if report["game"] is not None:  # the record decodes: write its SGF again and compare
        try:
            want = X.export(S.decode(record), proof=(record, mac))["sgf"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            report["problems"].append("the record inside cannot be written as SGF: %s" % e)
        else:
            _compare(report, data, want)
    return _settle(report)
