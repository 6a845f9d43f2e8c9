"""`tengen verify` means what it says: 100 finished games (and three left unfinished) journaled
by the firmware's ``Journal`` in a temporary folder, their bytes as the board serves them
(``Journal.read``), each with the sidecar sync writes; then one byte changed anywhere (every
record of every game, the header and the seal byte by byte) and every such file reported
FAILED, with no sidecar and no key, with the sidecar alone, with both: never ok, never a
traceback. Unpaired, a whole game is "ok, HMAC not checked" with exit 3; with the key, ok and
0; bad input of every kind is a FAILED line and the files after it are still checked.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.cli import app
from host_tools.common import keys
from host_tools.records import verify as V
from tests.test_records_check import OLD_BLOB

GAMES = 100
LIVE = 3
BOARD = "TG-0042"
SECRET = bytes(range(1, 33))
NOT_PAIRED = "ok, HMAC not checked (board not paired: tengen pair)"

run = CliRunner().invoke


@pytest.fixture(autouse=True)
def config(tmp_path, monkeypatch):
    """No user's keys: a fresh config folder for every test."""
    folder = tmp_path / "config"
    monkeypatch.setenv(keys.ENV, str(folder))
    return folder


def _header(kind, k, byoyomi):
    go = kind == R.GO
    return {
        "kind": kind,
        "size": 19 if go else 15,
        "komi2": 15 if go else 0,
        "handicap": 2 if go and k % 7 == 3 else 0,
        "rules": "1988" if go else "2013",
        "opening": "" if go else "D4",
        "tc": "byoyomi" if byoyomi else "fischer",
        "tc_figures": (1200000, 3, 30000) if byoyomi else (600000, 5000),
        "board_id": BOARD,
        "start": 1767225600 + 3600 * k,
        "extra": json.dumps({"black": "柯洁", "white": "Shin Jinseo", "round": str(k)})
        if k % 2
        else "",
    }


def _journal(root, seed=11):
    """GAMES finished games then LIVE unfinished ones, journaled by the firmware's Journal:
    Go (19x19, some with handicap), Renju and Gomoku (15x15); Fischer and byo-yomi with periods
    used up; pauses (an edit and a clocks snapshot); incidents; passes; every kind of result.
    Returns the journal and the game numbers, finished first."""
    rng = random.Random(seed)
    j = Journal(str(root), free=lambda: 100 << 20)
    numbers = []
    for k in range(GAMES + LIVE):
        kind = (R.GO, R.GO, R.RENJU, R.GO, R.STANDARD)[k % 5]
        size = 19 if kind == R.GO else 15
        byoyomi = k % 3 == 0
        assert j.begin(_header(kind, k, byoyomi)) == 0
        numbers.append(j.game_no)
        main = 1200000 if byoyomi else 600000
        clocks = [main, 3 if byoyomi else 0, main, 3 if byoyomi else 0]
        tick = rng.randrange(1 << 30)  # wraps round in some games
        moves = rng.randrange(1, 250 if kind == R.GO else 60)
        for ply in range(1, moves + 1):
            colour = 1 + (ply + 1) % 2
            m = 0 if colour == 1 else 2
            used = rng.randrange(200, 40000)
            if not byoyomi:
                clocks[m] += 5000 - used
            elif clocks[m] > used:
                clocks[m] -= used
            else:
                clocks[m] = 0
                if used > 30000 and clocks[m + 1] > 1:
                    clocks[m + 1] -= 1
            gap = used + (rng.randrange(1000, 90000) if rng.random() < 0.03 else 0)
            tick = (tick + gap) % (1 << 30)
            if rng.random() < 0.03:
                point = R.PASS
            else:
                point = rng.randrange(size) << 5 | rng.randrange(size)
            assert j.move(ply, colour, point, tick, tuple(clocks)) == 0
            if rng.random() < 0.04:
                assert j.incident(rng.randrange(1, 12), ply, tick % 100000, (point,), 0) == 0
            if rng.random() < 0.02:
                assert j.edit(6, ply + 1, tick % 100000 + 20, (1, -60000)) == 0
                assert j.clocks(ply + 1, tuple(clocks)) == 0
        if k < GAMES:
            margin2 = rng.randrange(-20, 200) if kind == R.GO else 0
            assert j.result(k % 3, 1 + k % 6, margin2, moves) == 0
    return j, numbers


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """{game number: the bytes the board serves} (finished games packed, the others live)."""
    j, numbers = _journal(tmp_path_factory.mktemp("board") / "games")
    out = {g: bytes(j.read(g)) for g in numbers}
    live = [g for g in numbers if out[g][:4] == R.MAGIC]
    assert len(out) == GAMES + LIVE and len(live) == LIVE
    for g, data in out.items():
        assert R.check(data) == (R.SOUND, ""), g
    return out


def _sidecar(path, game_no, data, board=BOARD, secret=SECRET, **changes):
    """The sidecar sync writes beside a game's .bin (the fields verify reads)."""
    side = {
        "format": 1,
        "game": game_no,
        "board": board,
        "size": len(data),
        "crc": V.crc32(data),
        "hmac": V.mac(secret, data),
    }
    side.update(changes)
    Path(path).with_suffix(".json").write_text(json.dumps(side))


def _write(folder, served, sidecars=True):
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for g, data in served.items():
        path = folder / ("2026-01-01_%06d.bin" % g)
        path.write_bytes(data)
        if sidecars:
            _sidecar(path, g, data)
        names.append(str(path))
    return names


def _lines(r):
    """{file: its verdict} from verify's output, one line a file; no traceback."""
    assert "Traceback" not in r.output, r.output[-3000:]
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    out = {}
    for line in r.stdout.splitlines():
        name, _, verdict = line.partition(": ")
        assert name not in out, line
        out[name] = verdict
    return out


def _spans(data):
    """(start, end) of every record of a game's bytes: the live records, or the packed
    blob's game number and header, then its records, then the seal."""
    if data[:4] == R.MAGIC:
        spans, p = [(0, 4)], 4
        while p < len(data):
            spans.append((p, p + data[p] + 6))
            p += data[p] + 6
        return spans
    _, p = R.get_u(data, 0, len(data))
    n, p = R.get_u(data, p, len(data))
    spans, p = [(0, p + n)], p + n
    while p < len(data) - 7:
        if not data[p] & 1:
            spans.append((p, p + 4))
            p += 4
        else:
            n, q = R.get_u(data, p + 1, len(data))
            spans.append((p, q + n))
            p = q + n
    assert p == len(data) - 7
    return spans + [(p, len(data))]


MASKS = (0x01, 0x80, 0xFF, 0x40, 0x08, 0x7F, 0x10, 0x33)


def _flips(served, per_game=None):
    """[(game, position, changed bytes)]: in every game, the header and the seal (or the
    live magic and first record) byte by byte, and in every other record one byte, its first,
    second, middle or last in turn; masks in turn."""
    out = []
    k = 0
    for g, data in served.items():
        spans = _spans(data)
        positions = set()
        for i, (a, b) in enumerate(spans):
            if i in (0, 1) or i == len(spans) - 1:
                positions.update(range(a, b))
            else:
                positions.add((a, a + 1, (a + b) // 2, b - 1)[(i + g) % 4])
        for p in sorted(positions):
            changed = bytearray(data)
            changed[p] ^= MASKS[k % len(MASKS)]
            k += 1
            out.append((g, p, bytes(changed)))
    return out


# -- whole games ----------------------------------------------------------------------------


def test_whole_games_with_the_key_are_ok_and_exit_0(served, tmp_path, config):
    names = _write(tmp_path / "home" / BOARD, served)
    keys.store(BOARD, SECRET)
    r = run(app, ["verify", str(tmp_path / "home")])  # a folder: its .bin files
    assert r.exit_code == 0, r.output[-2000:]
    got = _lines(r)
    assert sorted(got) == sorted(names) and set(got.values()) == {"ok"}
    r = run(app, ["verify", "--secret", SECRET.hex()] + names[:5])
    assert r.exit_code == 0 and set(_lines(r).values()) == {"ok"}
    # A game's other files stand for its .bin: each game once (an SGF is checked itself:
    # test_sgf_verify.py).
    r = run(app, ["verify", names[0], names[0][:-4] + ".json", names[0][:-4] + ".psq"])
    assert r.exit_code == 0 and _lines(r) == {names[0]: "ok"}


def test_unpaired_whole_games_say_hmac_not_checked_and_exit_3(served, tmp_path):
    names = _write(tmp_path / "home", served)
    r = run(app, ["verify"] + names)
    assert r.exit_code == V.EXIT_UNCHECKED == 3, r.output[-2000:]
    assert set(_lines(r).values()) == {NOT_PAIRED}
    r = run(app, ["verify", "--json"] + names)
    assert r.exit_code == 3
    doc = json.loads(r.stdout)
    assert (doc["ok"], doc["hmac_not_checked"], doc["failed"], doc["exit"]) == (0, 103, 0, 3)
    first = doc["files"][0]
    assert first["status"] == "hmac_not_checked" and first["hmac"] == V.NOT_PAIRED
    assert first["board"] == BOARD and first["game"] == 1 and first["form"] == "packed"
    assert doc["files"][-1]["form"] == "live"
    # Without sidecars there is no HMAC to check: unpaired, not checked; with the board's key
    # at hand (paired), nothing shows the record is the board's: FAILED (issue [O]).
    bare = _write(tmp_path / "bare", served, sidecars=False)
    r = run(app, ["verify"] + bare[:3])
    assert r.exit_code == 3
    assert set(_lines(r).values()) == {"ok, HMAC not checked (no sidecar)"}
    keys.store(BOARD, SECRET)
    r = run(app, ["verify"] + bare[:3])
    assert r.exit_code == 1
    assert all(v.startswith("FAILED: no sidecar, though the board's key is here") for v in
               _lines(r).values())  # fmt: skip
    r = run(app, ["verify", "--secret", SECRET.hex(), "--json"] + names[:2] + bare[:1])
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and (doc["ok"], doc["failed"]) == (2, 1)


def test_the_installed_command(served, tmp_path, config):
    tengen = Path(sys.executable).with_name("tengen")
    if not tengen.exists():
        pytest.skip("tengen is not installed in this environment")
    names = _write(tmp_path / "home", dict(list(served.items())[:3]))
    env = {"PATH": str(tengen.parent), keys.ENV: str(config)}
    p = subprocess.run([tengen, "verify"] + names, capture_output=True, text=True, env=env)
    assert p.returncode == 3 and p.stdout.count(NOT_PAIRED) == 3, p.stdout + p.stderr
    keys.store(BOARD, SECRET)
    p = subprocess.run([tengen, "verify"] + names, capture_output=True, text=True, env=env)
    assert p.returncode == 0 and p.stdout.splitlines() == [n + ": ok" for n in names]
    Path(names[1]).write_bytes(b"\x00garbage")
    p = subprocess.run([tengen, "verify"] + names, capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert [line.split(": ")[1] for line in p.stdout.splitlines()] == ["ok", "FAILED", "ok"]


# -- one byte changed -------------------------------------------------------------------------


def test_one_byte_changed_anywhere_fails_without_sidecar_or_key(served, tmp_path):
    """What the brief found: a packed game's .bin alone, unpaired. Now its seal tells."""
    flips = _flips(served)
    assert len(flips) > 10000
    folder = tmp_path / "flips"
    folder.mkdir()
    names = {}
    for g, p, data in flips:
        path = folder / ("g%03d_%05d.bin" % (g, p))
        path.write_bytes(data)
        names[str(path)] = (g, p)
    r = run(app, ["verify", str(folder)])
    assert r.exit_code == 1
    got = _lines(r)
    assert sorted(got) == sorted(names)
    passed = [names[n] for n, v in got.items() if not v.startswith("FAILED: ")]
    assert passed == [], passed[:20]
    # The reasons name the damage, not a crash.
    reasons = " ".join(got.values())
    assert "packed game damaged: checksum does not match" in reasons
    assert "live records damaged" in reasons


def test_one_byte_changed_fails_with_the_sidecar_and_with_the_key(served, tmp_path, config):
    flips = _flips(served)[::7]
    folder = tmp_path / "flips"
    folder.mkdir()
    names = []
    for i, (g, p, data) in enumerate(flips):
        path = folder / ("g%03d_%05d.bin" % (g, p))
        path.write_bytes(data)
        if i % 2:  # the sidecar rewritten to match the changed bytes: the seal still tells
            _sidecar(path, g, data, hmac=V.mac(SECRET, served[g]))
        else:
            _sidecar(path, g, served[g])
        names.append(str(path))
    for args in ([], ["--secret", SECRET.hex()]):
        r = run(app, ["verify", str(folder)] + args)
        assert r.exit_code == 1
        got = _lines(r)
        assert sorted(got) == sorted(names)
        assert all(v.startswith("FAILED: ") for v in got.values())
    keys.store(BOARD, SECRET)
    r = run(app, ["verify", str(folder)])
    got = _lines(r)
    assert r.exit_code == 1 and all(v.startswith("FAILED: ") for v in got.values())
    assert all("HMAC does not match" in v for v in got.values())


def test_a_rewritten_game_passes_its_checksums_but_not_the_hmac(served, tmp_path, config):
    """Checksums catch damage; a game rewritten with care (sealed afresh, the sidecar's CRC
    and size updated) is caught only by the HMAC: unpaired, verify says it did not check it."""
    g, data = next((g, d) for g, d in served.items() if d[:4] != R.MAGIC)
    game_no, recs = R.unpack(data)
    result = recs[-1]
    assert result[0] == R.RESULT
    recs[-1] = (R.RESULT, 3 - result[1] if result[1] else 1) + result[2:]  # the winner
    forged = bytes(R.pack(game_no, recs))
    assert forged != data and R.check(forged) == (R.SOUND, "")
    path = tmp_path / "forged.bin"
    path.write_bytes(forged)
    _sidecar(path, g, forged, hmac=V.mac(SECRET, data))
    r = run(app, ["verify", str(path)])
    assert r.exit_code == 3 and _lines(r) == {str(path): NOT_PAIRED}
    keys.store(BOARD, SECRET)
    r = run(app, ["verify", str(path)])
    assert r.exit_code == 1
    assert "HMAC does not match" in _lines(r)[str(path)]


def test_a_forgery_never_verifies_while_the_key_is_at_hand(served, tmp_path, config):
    """As a cheater would (issue [O]): a move moved and the game re-packed with the public
    checksums, then the sidecar's HMAC removed, the sidecar deleted, or its board id changed
    to one whose key this PC does not hold. With the board paired, or --secret given, every
    one is FAILED; the untouched game passes."""
    g, data = next((g, d) for g, d in served.items() if d[:4] != R.MAGIC)
    game_no, recs = R.unpack(data)
    i = next(k for k, rec in enumerate(recs) if rec[0] == R.MOVE)
    move = list(recs[i])
    move[3] = (move[3] + 1) % (19 * 32)  # the stone one point over
    recs[i] = tuple(move)
    forged = bytes(R.pack(game_no, recs))
    assert forged != data and R.check(forged) == (R.SOUND, "")
    folder = tmp_path / "forged"
    folder.mkdir()
    variants = {
        "no-hmac": {"hmac": None},
        "no-sidecar": None,
        "other-board": {"board": "TG-9999", "hmac": V.mac(bytes(32), forged)},
        "sidecar-made-anew": {"hmac": V.mac(bytes(32), forged)},
    }
    names = []
    for name, change in variants.items():
        path = folder / (name + ".bin")
        path.write_bytes(forged)
        if change is not None:
            _sidecar(path, g, forged, **change)
            if change.get("hmac", 0) is None:
                side = json.loads(path.with_suffix(".json").read_text())
                del side["hmac"]
                path.with_suffix(".json").write_text(json.dumps(side))
        names.append(str(path))
    honest = tmp_path / "honest.bin"
    honest.write_bytes(data)
    _sidecar(honest, g, data)
    for args in (["--secret", SECRET.hex()], []):
        if not args:
            keys.store(BOARD, SECRET)  # paired: the key chosen by the record's own board id
        r = run(app, ["verify"] + args + names)
        got = _lines(r)
        assert r.exit_code == 1, got
        assert all(v.startswith("FAILED: ") for v in got.values()), got
        r = run(app, ["verify"] + args + [str(honest)])
        assert r.exit_code == 0 and _lines(r) == {str(honest): "ok"}


# -- bad input ------------------------------------------------------------------------------


def _bad_utf8(served):
    # A packed game whose header string is not UTF-8, sealed afresh (its checksum holds), and
    # a live file with the same header (its CRCs hold).
    g, data = next((g, d) for g, d in served.items() if d[:4] != R.MAGIC)
    at = data.find(b"1988")
    assert at > 0
    blob = bytearray(data[:-7])
    blob[at] = 0xFF
    packed = bytes(R.seal(blob))
    payload = bytearray(R.encode_header(R.unpack(data)[1][0][1]))
    payload[payload.find(b"1988")] = 0xFE
    live = bytes(R.build([bytes([len(payload), R.HEADER]) + payload]))
    return packed, live


def test_bad_input_is_a_failed_line_and_the_rest_are_checked(served, tmp_path, config):
    keys.store(BOARD, SECRET)
    folder = tmp_path / "bad"
    folder.mkdir()
    good = _write(tmp_path / "good", dict(list(served.items())[:2]))
    g, data = next((g, d) for g, d in served.items() if d[:4] != R.MAGIC)
    packed_utf8, live_utf8 = _bad_utf8(served)
    files = {
        "garbage.bin": bytes(random.Random(3).randbytes(300)),
        "empty.bin": b"",
        "truncated.bin": data[: len(data) // 2],
        "cut-seal.bin": data[:-3],
        "utf8-packed.bin": packed_utf8,
        "utf8-live.bin": live_utf8,
        "magic-only.bin": R.MAGIC,
        "pack-file.bin": R.PACK_MAGIC + data,
    }
    for name, content in files.items():
        (folder / name).write_bytes(content)
    # Sidecars that are no use: not JSON, bad UTF-8, not an object, fields of the wrong type.
    sides = {
        "side-not-json": b"{not json",
        "side-bad-utf8": b'{"board": "\xff"}',
        "side-a-list": b"[1, 2]",
        "side-crc-text": json.dumps({"board": BOARD, "crc": "123", "hmac": "00"}).encode(),
        "side-hmac-number": json.dumps({"board": BOARD, "hmac": 7}).encode(),
        "side-hmac-not-hex": json.dumps({"board": BOARD, "hmac": "zz"}).encode(),
        "side-wrong-game": json.dumps({"game": 999, "board": BOARD}).encode(),
        "side-wrong-size": json.dumps({"size": 1, "board": BOARD}).encode(),
    }
    for stem, side in sides.items():
        (folder / (stem + ".bin")).write_bytes(data)
        (folder / (stem + ".json")).write_bytes(side)
    (tmp_path / "empty-folder").mkdir()
    (folder / "a-folder.bin").mkdir()  # a folder named like a game
    args = (
        [good[0]]
        + [str(folder / n) for n in files]
        + [str(folder / (s + ".bin")) for s in sides]
        + [
            str(tmp_path / "missing.bin"),
            str(tmp_path / "missing.json"),  # a sidecar without its .bin
            str(tmp_path / "empty-folder"),
            str(folder / "a-folder.bin"),
            "",
            good[1],
        ]
    )
    r = run(app, ["verify"] + args)
    assert r.exit_code == 1
    got = _lines(r)
    assert got.pop(good[0]) == "ok" and got.pop(good[1]) == "ok"  # the last one checked too
    # missing.json stands for missing.bin: one line; a-folder.bin has no .bin inside.
    assert len(got) == len(files) + len(sides) + 4, got
    for name, verdict in got.items():
        assert verdict.startswith("FAILED: "), (name, verdict)
    bad = {Path(n).name: v for n, v in got.items()}
    assert bad["empty.bin"] == "FAILED: empty file"
    assert "utf-8" in bad["utf8-packed.bin"] and "utf-8" in bad["utf8-live.bin"]
    assert bad["magic-only.bin"] == "FAILED: live records damaged: no header record"
    assert "not JSON" in bad["side-not-json.bin"] and "not JSON" in bad["side-bad-utf8.bin"]
    assert "not a game's sidecar" in bad["side-a-list.bin"]
    assert "CRC is not a number" in bad["side-crc-text.bin"]
    assert "HMAC is not text" in bad["side-hmac-number.bin"]
    assert "HMAC does not match" in bad["side-hmac-not-hex.bin"]
    assert "side-wrong-game.json says 999" in bad["side-wrong-game.bin"]
    assert "says 1" in bad["side-wrong-size.bin"]
    assert "cannot read" in bad["missing.bin"]
    assert bad["empty-folder"] == "FAILED: a folder with no .bin or .sgf files"
    # --json: the same, one document.
    r = run(app, ["verify", "--json"] + args)
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and doc["exit"] == 1 and doc["ok"] == 2
    assert doc["failed"] == len(got)


def test_a_game_packed_before_the_seal(tmp_path, config):
    """Old firmware's blobs have no checksum of their own: the sidecar's CRC or the HMAC must
    vouch for them, and the line says so; alone they cannot be checked: FAILED."""
    path = tmp_path / "old.bin"
    path.write_bytes(OLD_BLOB)
    r = run(app, ["verify", str(path)])
    assert r.exit_code == 1
    assert _lines(r)[str(path)].startswith("FAILED: no checksum (old format)")
    _sidecar(path, 3, OLD_BLOB, board="TG-0001")
    r = run(app, ["verify", str(path)])
    assert r.exit_code == 3
    assert _lines(r)[str(path)] == (
        NOT_PAIRED + " [old format: no checksum of its own; old.json's CRC checked]"
    )
    keys.store("TG-0001", SECRET)  # the board the old record names
    r = run(app, ["verify", str(path), "--json"])
    assert r.exit_code == 0
    (report,) = json.loads(r.stdout)["files"]
    assert report["status"] == "ok" and report["form"] == "packed, old format"
    assert report["note"] == "old format: no checksum of its own; the HMAC checked"
    changed = bytearray(OLD_BLOB)
    changed[-2] ^= 1  # the old bytes decode still: the sidecar's CRC and the HMAC tell
    path.write_bytes(changed)
    r = run(app, ["verify", str(path)])
    assert r.exit_code == 1 and "CRC differs" in r.stdout and "HMAC does not match" in r.stdout
