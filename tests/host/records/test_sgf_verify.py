"""An SGF anyone can verify (issue [O]): `tengen verify game.sgf` with nothing beside it.

Games journaled by the firmware's ``Journal`` (Go with byo-yomi, names, an event, incidents,
arbiter edits, a handicap game; Renju), served by the link's stdio board on the MicroPython
unix port and brought home by ``tengen sync --secret``, as test_sync.py does. Each SGF is
then copied alone and verified through the CLI: the untouched SGF passes with the board's key
(paired or ``--secret``; exit 0), says "HMAC not checked" without one (exit 3). Every edit a
cheater would make is FAILED with what differs named: the result, a move, a time, a name, a
comment; the record inside re-packed with the public checksums and the SGF written afresh from
it (the HMAC kept, removed, made with another key; the board id changed in the proof or in the
record), another game's record swapped in, a byte flipped anywhere. An SGF without its record
cannot be verified alone. Viewers read it as before: sgfmill, @sabaki/sgf and GNU Go (when
they are on this machine) see the same game with the private ``TG`` property as without it.
"""

import base64
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf
from typer.testing import CliRunner

from firmware.clock import control as C
from firmware.link.stdio import SECRET
from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.cli import app
from host_tools.common import keys
from host_tools.records import export as X
from host_tools.records import sgf_check as SC
from host_tools.records import sync as S
from host_tools.records import verify as V
from tests.host.records.test_sync import MICROPYTHON, Board
from tests.host.records.test_verify import _lines

ROOT = Path(__file__).resolve().parents[3]
BOARD = "stdio"  # the stdio board's id, in every header
NOT_PAIRED = "ok, HMAC not checked (board not paired: tengen pair)"
QUICK = (C.JAPANESE, 600000, 30000, 3, 0)  # the "quick" preset: 10 min + 3 x 30 s
NAMES = {"black": "柯洁", "white": "Shin Jinseo", "event": "Tengen Cup", "round": "3"}

pytestmark = pytest.mark.skipif(MICROPYTHON is None, reason="micropython not installed")
run = CliRunner().invoke


@pytest.fixture(autouse=True)
def config(tmp_path, monkeypatch):
    """No user's keys: a fresh config folder for every test."""
    folder = tmp_path / "config"
    monkeypatch.setenv(keys.ENV, str(folder))
    return folder


def _header(kind, k, handicap=0):
    go = kind == R.GO
    return {
        "kind": kind,
        "size": 19 if go else 15,
        "komi2": 13 if go else 0,
        "handicap": handicap,
        "rules": "1988" if go else "2013",
        "opening": "" if go else "D4",
        "tc": "quick",
        "tc_figures": QUICK,
        "board_id": BOARD,
        "start": 1767225600 + 3600 * k,
        "extra": json.dumps(dict(NAMES, table=str(k + 1))),
    }


def _fill(root, seed=26):
    """Five finished games: Go (the third with a 4-stone handicap), Renju the fourth; the
    clocks run into byo-yomi; incidents and arbiter edits on the way (comments in the SGF)."""
    rng = random.Random(seed)
    j = Journal(str(root), free=lambda: 100 << 20)
    for k in range(5):
        kind = R.RENJU if k == 3 else R.GO
        size = 19 if kind == R.GO else 15
        assert j.begin(_header(kind, k, 4 if k == 2 else 0)) == 0
        points = [y << 5 | x for y in range(size) for x in range(size)]
        rng.shuffle(points)
        moves = rng.randrange(40, 120 if kind == R.GO else 50)
        clocks = [600000, 3, 600000, 3]
        tick = 1000
        for ply in range(1, moves + 1):
            colour = 2 - ply % 2 if k != 2 else 1 + ply % 2  # handicap: White first
            m = 2 * (colour - 1)
            used = rng.randrange(3000, 40000)
            tick += used
            clocks[m] = max(0, clocks[m] - used)
            if clocks[m] == 0 and used > 30000 and clocks[m + 1] > 1:
                clocks[m + 1] -= 1
            assert j.move(ply, colour, points[ply], tick, tuple(clocks)) == 0
            if ply % 17 == 5:
                assert j.incident(5, ply + 1, tick + 10, (points[ply],), 0) == 0
            if ply % 29 == 7:
                assert j.edit(8, ply + 1, tick + 20, (1, 60000)) == 0  # Black +1:00
                clocks[0] += 60000
                assert j.clocks(ply + 1, tuple(clocks)) == 0
        assert j.result(1 + k % 2, 1 + k % 2, 0, moves) == 0  # resignation, time
    return j


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    """The board's folder after ``tengen sync --secret``: {game: {"bin", "sgf": bytes,
    "json": the sidecar}}."""
    top = tmp_path_factory.mktemp("sgf_verify")
    _fill(top / "games")
    dest = top / "home"
    board = Board(top / "games")
    try:
        args = ["sync", "--port", board.path, "--dest", str(dest), "--json"]
        r = run(app, args + ["--secret", SECRET.hex()])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout.splitlines()[-1])["written"] == [1, 2, 3, 4, 5]
    finally:
        board.stop()
    out = {}
    for side in sorted((dest / BOARD).glob("*.json")):
        g = json.loads(side.read_text())
        out[g["game"]] = {
            "bin": side.with_suffix(".bin").read_bytes(),
            "sgf": side.with_suffix(".sgf").read_bytes(),
            "json": g,
        }
    assert sorted(out) == [1, 2, 3, 4, 5]
    return dest, out


def _alone(folder, name, data):
    """``data`` as ``folder/name.sgf`` with nothing beside it: the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name + ".sgf")
    path.write_bytes(data)
    assert not path.with_suffix(".bin").exists() and not path.with_suffix(".json").exists()
    return str(path)


def _edit(data, where, prop, value):
    """The SGF ``data`` with one property set as a viewer would save it: node ``where`` (0
    the root, n move n), ``prop`` to the raw ``value`` (bytes), the rest as it was."""
    game = sgf.Sgf_game.from_bytes(data)
    assert game.serialise() == data  # sgfmill writes it again as it was: one change only
    node = game.get_main_sequence()[where]
    node.set_raw(prop, value)
    out = game.serialise()
    assert out != data
    return out


def _forge(records_bytes, change):
    """A forger with the public code: the record unpacked, ``change(recs)`` applied, packed
    with fresh checksums and seal; the forged bytes."""
    game_no, recs = R.unpack(records_bytes)
    change(recs)
    forged = bytes(R.pack(game_no, recs))
    assert forged != records_bytes and R.check(forged) == (R.SOUND, "")
    return forged


def _move_moved(recs):
    i = next(k for k, rec in enumerate(recs) if rec[0] == R.MOVE and rec[1] == 5)
    move = list(recs[i])
    move[3] ^= 1  # the fifth stone one point over
    recs[i] = tuple(move)


def _sgf_of(record, mac):
    """The SGF the export code writes for ``record`` with ``mac`` in its proof."""
    return X.export(S.decode(record), proof=(record, mac))["sgf"]


def _proof_span(data, index):
    """(start, end) of the ``index``-th value of the SGF's TG property."""
    at = data.index(b"TG[") + 2
    for _ in range(index):
        at = data.index(b"]", at) + 1
    return at + 1, data.index(b"]", at)


# -- the untouched SGF --------------------------------------------------------------------------


def test_a_synced_sgf_carries_its_record_and_hmac(synced):
    _, games = synced
    for files in games.values():
        root = sgf.Sgf_game.from_bytes(files["sgf"]).get_root()
        fmt, board, mac, record = root.get_raw_list("TG")
        assert (fmt, board, mac) == (b"1", BOARD.encode(), files["json"]["hmac"].encode())
        assert base64.b64decode(record) == files["bin"]
        assert V.verify_mac(SECRET, files["bin"], mac.decode())
        # Nothing else changed: the SGF is the plain export with TG added.
        plain = sgf.Sgf_game.from_bytes(X.export(S.decode(files["bin"]))["sgf"])
        root.unset("TG")
        assert root.get_raw_property_map() == plain.get_root().get_raw_property_map()
        nodes = sgf.Sgf_game.from_bytes(files["sgf"]).get_main_sequence()[1:]
        assert [n.get_raw_property_map() for n in nodes] == [
            n.get_raw_property_map() for n in plain.get_main_sequence()[1:]
        ]
    text = games[1]["sgf"].decode()
    assert "BL[" in text and "OB[" in text and "PB[柯洁]" in text and "C[" in text  # covered


def test_the_sgf_alone_verifies_with_the_key(synced, tmp_path, config):
    _, games = synced
    names = [_alone(tmp_path / "shared", "game%d" % g, f["sgf"]) for g, f in games.items()]
    r = run(app, ["verify", "--secret", SECRET.hex()] + names)
    assert r.exit_code == 0, r.output
    assert _lines(r) == {n: "ok" for n in names}
    r = run(app, ["verify"] + names)  # no key: the record and the SGF checked, not the HMAC
    assert r.exit_code == V.EXIT_UNCHECKED == 3, r.output
    assert _lines(r) == {n: NOT_PAIRED for n in names}
    keys.store(BOARD, SECRET)  # paired: the key of the board the record names
    r = run(app, ["verify", "--json"] + names)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert (doc["ok"], doc["failed"]) == (5, 0)
    assert {f["form"] for f in doc["files"]} == {"sgf, packed"}
    assert [f["game"] for f in doc["files"]] == [1, 2, 3, 4, 5]
    # The command itself, as a user runs it (this worktree's, on its PYTHONPATH).
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{keys.ENV: str(config)})
    p = subprocess.run(
        [sys.executable, "-m", "host_tools", "verify"] + names,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines() == [n + ": ok" for n in names]


def test_the_synced_folder_verifies_each_bin_and_sgf(synced, config):
    dest, games = synced
    keys.store(BOARD, SECRET)
    r = run(app, ["verify", str(dest)])
    assert r.exit_code == 0, r.output
    got = _lines(r)
    assert len(got) == 2 * len(games) and set(got.values()) == {"ok"}
    assert sum(n.endswith(".sgf") for n in got) == len(games)


def test_tengen_export_carries_the_sidecars_hmac(synced, tmp_path):
    dest, games = synced
    src = tmp_path / "src"
    src.mkdir()
    (src / "g.bin").write_bytes(games[2]["bin"])
    (src / "g.json").write_text(json.dumps(games[2]["json"]))
    r = run(app, ["export", str(src / "g.bin"), "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out" / "g.sgf").read_bytes() == games[2]["sgf"]  # as sync wrote it
    # A .bin without its sidecar: the SGF carries the record, no HMAC.
    (src / "g.json").unlink()
    r = run(app, ["export", str(src / "g.bin"), "--out", str(tmp_path / "bare")])
    assert r.exit_code == 0, r.output
    bare = str(tmp_path / "bare" / "g.sgf")
    r = run(app, ["verify", bare])
    assert r.exit_code == 3 and _lines(r) == {bare: "ok, HMAC not checked (no HMAC in the SGF)"}
    r = run(app, ["verify", "--secret", SECRET.hex(), bare])
    assert r.exit_code == 1
    assert _lines(r)[bare].startswith("FAILED: no HMAC in the SGF, though the board's key is here")


# -- edits of the SGF ---------------------------------------------------------------------------


def _move_node(data, colour):
    # The first move node of ``colour`` (b"B" or b"W") with time left: its index.
    c = colour.decode()
    nodes = sgf.Sgf_game.from_bytes(data).get_main_sequence()
    return next(i for i, n in enumerate(nodes) if n.has_property(c) and n.has_property(c + "L"))


EDITS = {
    # name: (node, property, new raw value or a function of the old, what the line names)
    "result": (0, "RE", lambda v: b"W+R" if v != b"W+R" else b"B+R", "the root: the result (RE)"),
    "a move": (7, None, lambda v: b"ss" if v != b"ss" else b"aa", "move 7: "),
    "black's time": ("B", "BL", lambda v: b"599.9", "Black's time left (BL)"),
    "white's time": ("W", "WL", lambda v: b"123.4", "White's time left (WL)"),
    "black's name": (0, "PB", lambda v: b"Lee Sedol", "Black's name (PB)"),
    "white's name": (0, "PW", lambda v: "李世石".encode(), "White's name (PW)"),
    "the comment": (0, "C", lambda v: v.replace(b"resigned", b"lost on time"), "the comment (C)"),
    "the date": (0, "DT", lambda v: b"2025-12-31", "the date (DT)"),
    "the komi": (0, "KM", lambda v: b"0.5", "the komi (KM)"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_every_edit_of_the_sgf_is_failed(synced, tmp_path, config, edit):
    """What a viewer's user could change and save: FAILED with the key (paired or --secret),
    and without one too (the SGF is not what the record inside says); the line names it."""
    _, games = synced
    node, prop, change, said = EDITS[edit]
    data = games[1]["sgf"]
    if isinstance(node, str):
        node = _move_node(data, node.encode())
    if prop is None:  # the move itself: B or W
        prop = sgf.Sgf_game.from_bytes(data).get_main_sequence()[node].get_move()[0].upper()
    old = sgf.Sgf_game.from_bytes(data).get_main_sequence()[node].get_raw(prop)
    name = _alone(tmp_path / "shared", "edited", _edit(data, node, prop, change(old)))
    for args in (["--secret", SECRET.hex()], [], ["paired"]):
        if args == ["paired"]:
            keys.store(BOARD, SECRET)
            args = []
        r = run(app, ["verify"] + args + [name])
        verdict = _lines(r)[name]
        assert r.exit_code == 1, verdict
        assert verdict.startswith("FAILED: the SGF is not what the board recorded: "), verdict
        assert said in verdict, verdict


def test_forgeries_with_the_record_repacked(synced, tmp_path, config):
    """The issue's forgeries carried into the SGF: a move moved, the record re-packed with the
    public checksums and seal, and the SGF written afresh from it by the export code itself,
    so that the SGF and the record inside agree; then the HMAC kept (now stale), removed,
    made with another key, the board id changed in the proof, the record's own board id
    changed, the proof removed; and another game's record of the same board swapped in. With
    the key at hand every one is FAILED; the untouched SGF passes."""
    _, games = synced
    data, mac = games[1]["bin"], games[1]["json"]["hmac"]
    forged = _forge(data, _move_moved)
    elsewhere = _forge(data, lambda recs: recs.__setitem__(0, (R.HEADER, dict(
        recs[0][1], board_id="TG-9999"))))  # fmt: skip
    board_at = _proof_span(_sgf_of(forged, mac), 1)
    swapped = (
        games[1]["sgf"]
        .replace(
            games[1]["sgf"][slice(*_proof_span(games[1]["sgf"], 3))],
            base64.b64encode(games[2]["bin"]),
        )
        .replace(mac.encode(), games[2]["json"]["hmac"].encode())
    )
    variants = {
        "stale-hmac": (_sgf_of(forged, mac), "HMAC does not match"),
        "no-hmac": (_sgf_of(forged, None), "no HMAC in the SGF, though the board's key is here"),
        "other-key": (_sgf_of(forged, V.mac(bytes(32), forged)), "HMAC does not match"),
        "board-in-proof": (
            _sgf_of(forged, mac)[: board_at[0]] + b"TG-0042" + _sgf_of(forged, mac)[board_at[1] :],
            "the SGF names board TG-0042, the record board stdio",
        ),
        "no-proof": (X.export(S.decode(forged))["sgf"], "cannot be verified alone"),
        "another-game": (swapped, "the SGF is not what the board recorded: "),
    }
    folder = tmp_path / "forged"
    names = {_alone(folder, k, v[0]): v[1] for k, v in variants.items()}
    honest = _alone(tmp_path / "honest", "honest", games[1]["sgf"])
    for args in (["--secret", SECRET.hex()], []):
        if not args:
            keys.store(BOARD, SECRET)  # paired: the key chosen by the record's own board id
        r = run(app, ["verify"] + args + list(names))
        got = _lines(r)
        assert r.exit_code == 1, got
        for name, said in names.items():
            assert got[name].startswith("FAILED: ") and said in got[name], (name, got[name])
        r = run(app, ["verify"] + args + [honest])
        assert r.exit_code == 0 and _lines(r) == {honest: "ok"}
    # The record's own board id changed to a board this PC was never paired with: no key to
    # check it by, never "ok" (exit 3, saying so); with --secret the key is at hand: FAILED.
    other = _alone(folder, "record-board", _sgf_of(elsewhere, V.mac(bytes(32), elsewhere)))
    r = run(app, ["verify", other])
    assert r.exit_code == 3 and _lines(r) == {other: NOT_PAIRED}
    assert b"PC[Tengen board TG-9999]" in Path(other).read_bytes()  # what a reader sees
    r = run(app, ["verify", "--secret", SECRET.hex(), other])
    assert r.exit_code == 1 and "HMAC does not match" in _lines(r)[other]


def test_a_name_that_looks_like_the_proof(tmp_path):
    """A player named like the private property is only a name: the root's own TG is read."""
    j = Journal(str(tmp_path / "games"), free=lambda: 10 << 20)
    header = dict(_header(R.GO, 0), extra=json.dumps({"black": "TG[1][stdio][00]", "white": "\\"}))
    assert j.begin(header) == 0
    g = j.game_no
    assert j.move(1, 1, 3 << 5 | 3, 1000, (600000, 3, 600000, 3)) == 0
    assert j.result(2, 1, 0, 1) == 0
    data = bytes(j.read(g))
    text = _sgf_of(data, V.mac(SECRET, data))
    assert b"PB[TG[1\\][stdio\\][00\\]]" in text
    name = _alone(tmp_path, "named", text)
    r = run(app, ["verify", "--secret", SECRET.hex(), name])
    assert r.exit_code == 0 and _lines(r) == {name: "ok"}


def test_without_a_key_a_consistent_forgery_is_not_ok(synced, tmp_path):
    """Unpaired, nothing can tell a forger's own consistent SGF from the board's: it says the
    HMAC was not checked (exit 3), never ok."""
    _, games = synced
    forged = _forge(games[1]["bin"], _move_moved)
    name = _alone(tmp_path, "forged", _sgf_of(forged, None))
    r = run(app, ["verify", name])
    assert r.exit_code == 3 and _lines(r) == {name: "ok, HMAC not checked (no HMAC in the SGF)"}


MASKS = (0x01, 0x80, 0x20, 0xFF, 0x40, 0x08, 0x02, 0x10)


@pytest.mark.slow(24)
def test_a_flipped_byte_anywhere_is_failed(synced, tmp_path, config):
    """Every byte of two SGFs (a handicap Go game and the Renju one) flipped in turn, masks
    in turn: with the key, each one FAILED; without a key none is ok, and only a flip inside
    the HMAC's hex digits (which no one without the key can judge) is "not checked"."""
    _, games = synced
    folder = tmp_path / "flips"
    folder.mkdir()
    names = {}
    k = 0
    for g in (3, 4):
        data = games[g]["sgf"]
        mac_at = _proof_span(data, 2)
        for p in range(len(data)):
            changed = bytearray(data)
            changed[p] ^= MASKS[k % len(MASKS)]
            k += 1
            path = folder / ("g%d_%05d.sgf" % (g, p))
            path.write_bytes(bytes(changed))
            names[str(path)] = mac_at[0] <= p < mac_at[1] and chr(changed[p]) in "0123456789abcdef"
    assert len(names) > 4000
    r = run(app, ["verify", "--secret", SECRET.hex(), str(folder)])
    got = _lines(r)
    assert r.exit_code == 1 and sorted(got) == sorted(names)
    passed = [n for n, v in got.items() if not v.startswith("FAILED: ")]
    assert passed == [], passed[:10]
    r = run(app, ["verify", str(folder)])  # unpaired
    got = _lines(r)
    assert r.exit_code == 1
    for name, verdict in got.items():
        if names[name]:
            assert verdict == NOT_PAIRED, (name, verdict)
        else:
            assert verdict.startswith("FAILED: "), (name, verdict)
    reasons = " ".join(got.values())
    assert "packed game damaged" in reasons and "the SGF is not what the board recorded" in reasons


def test_an_sgf_without_its_record(synced, tmp_path, config):
    """An SGF exported before the record went inside: alone it cannot be verified (FAILED,
    saying so); beside its game's .bin and sidecar it is checked against them."""
    _, games = synced
    keys.store(BOARD, SECRET)
    old = X.export(S.decode(games[1]["bin"]))["sgf"]
    name = _alone(tmp_path / "alone", "old", old)
    r = run(app, ["verify", name])
    assert r.exit_code == 1 and _lines(r) == {name: "FAILED: " + SC.NO_PROOF}
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "old.bin").write_bytes(games[1]["bin"])
    (folder / "old.json").write_text(json.dumps(games[1]["json"]))
    (folder / "old.sgf").write_bytes(old)
    r = run(app, ["verify", str(folder / "old.sgf")])
    assert r.exit_code == 0, r.output
    assert _lines(r) == {str(folder / "old.sgf"): "ok [no record inside: compared with old.bin "
                                                 "beside it]"}  # fmt: skip
    (folder / "old.sgf").write_bytes(_edit(old, 0, "RE", b"W+T"))
    r = run(app, ["verify", str(folder / "old.sgf")])
    assert r.exit_code == 1 and "the result (RE)" in r.stdout, r.output
    (tmp_path / "empty.sgf").write_bytes(b"")
    r = run(app, ["verify", str(tmp_path / "empty.sgf")])
    assert r.exit_code == 1 and "FAILED: empty file" in r.stdout


def test_bad_proofs_are_failed_lines(synced, tmp_path):
    _, games = synced
    data = games[1]["sgf"]
    rec = _proof_span(data, 3)
    fmt = _proof_span(data, 0)
    bad = {
        "not-base64": data[: rec[0]] + b"!!" + data[rec[0] + 2 :],
        "format-2": data[: fmt[0]] + b"2" + data[fmt[1] :],
        "truncated": data[: len(data) // 2],
        "crlf": data.replace(b"\n", b"\r\n"),
    }
    names = {_alone(tmp_path, k, v): k for k, v in bad.items()}
    r = run(app, ["verify", "--secret", SECRET.hex()] + list(names))
    got = {names[n]: v for n, v in _lines(r).items()}
    assert r.exit_code == 1 and all(v.startswith("FAILED: ") for v in got.values()), got
    assert "is not base64" in got["not-base64"]
    assert 'written by SGF format "2"' in got["format-2"]
    assert "no longer a readable SGF" in got["truncated"]
    assert "line endings were changed" in got["crlf"]


# -- viewers ------------------------------------------------------------------------------------


def test_viewers_read_the_same_game(synced, tmp_path):
    """The private property (SGF FF[4] §2.2.4: two capital letters, no standard one's) is
    kept or skipped by readers as §2.2.3 asks: @sabaki/sgf keeps it as an unknown property,
    GNU Go loads the same position with and without it."""
    from tests.host.records.test_export import _SABAKI, _sabaki_module
    from tests.host.test_gtp_match import find_gnugo

    _, games = synced
    data = games[3]["sgf"]  # the handicap game
    plain = X.export(S.decode(games[3]["bin"]))["sgf"]
    ran = []
    found = _sabaki_module()
    if found is not None:
        node, module = found
        seen = []
        for text in (data, plain):
            p = subprocess.run([node, "-e", _SABAKI, module], input=text.decode(),
                               capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
            seen.append(json.loads(p.stdout))
        assert seen[0]["root"].pop("TG")[2] == games[3]["json"]["hmac"]
        assert seen[0] == seen[1]
        ran.append("sabaki")
    gnugo = find_gnugo()
    if gnugo is not None:
        seen = []
        for name, text in (("with.sgf", data), ("plain.sgf", plain)):
            (tmp_path / name).write_bytes(text)
            gtp = "loadsgf %s\nlist_stones black\nlist_stones white\nquit\n" % (tmp_path / name)
            p = subprocess.run([gnugo, "--mode", "gtp"], input=gtp, capture_output=True,
                               text=True, timeout=120)  # fmt: skip
            assert p.returncode == 0, p.stderr
            seen.append(p.stdout)
        assert seen[0] == seen[1] and seen[0].count("=") == 4
        ran.append("gnugo")
    if not ran:
        pytest.skip("neither @sabaki/sgf nor GNU Go is on this machine")


# -- the format ---------------------------------------------------------------------------------

# The SGF of a fixed game as export.py writes it. verify compares an SGF with the export of
# its record byte for byte: if this changes, the writer changed, and SGFs written before no
# longer compare. Bump export.SGF_FORMAT (verify then names the format it meets), then update.
PINNED = (1, "6589e169878d57dec99d6df3f2ef2c64")


def test_the_sgf_format_is_pinned(tmp_path):
    from tests.host.records.test_export import go_events, go_header, journal_game

    recs = journal_game(tmp_path, go_header(extra=json.dumps(NAMES)), go_events())
    digest = hashlib.sha256(X.export(recs, proof=(b"\x00\x01", "ab" * 32))["sgf"]).hexdigest()
    assert (X.SGF_FORMAT, digest[:32]) == PINNED, (
        "the SGF's text changed: bump host_tools/records/export.py SGF_FORMAT and update PINNED"
    )
