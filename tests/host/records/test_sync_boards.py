"""`tengen sync` across boards and folders: each board's games in its own folder under one
root (the user data folder's ``games/`` by default, ``TENGEN_DATA_DIR`` here), files named by
date and game number, an index of every game, and ``--refetch`` for a fresh folder.

The first test plays two games on each of TWO virtual boards (``python -m host_tools.board.sim``
headless, a temporary ``--flash`` and its own ``--seed`` each, as test_virtual_board.py starts
one) and syncs both with the installed ``tengen`` command into one default folder: both have
a game 1 and a game 2, nothing collides. The others drive ``host_tools.records.sync`` against the
link's server on the MicroPython unix port (test_sync.py's ``Board``) with journals made here:
a game of the same name that is not the board's is kept and reported, the board's numbers
starting again on another day live side by side, the index carries the players from the
header's ``extra`` and is rebuilt from the sidecars when it is gone.

Everything a test writes is under its own temporary folder (flash, runtime notes, keys, the
data folder), so runs sharing a machine do not meet.
"""

import csv
import io
import json
import os
import random
import shutil
import sys
import threading
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.link.stdio import SECRET
from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.common.link import RUNTIME_ENV, Link
from host_tools.records import sync as S
from tests.host.board.test_virtual_board import Sim

ROOT = Path(__file__).resolve().parents[3]
TENGEN = Path(sys.executable).parent / "tengen"
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"

needs_tools = pytest.mark.skipif(
    not MICROPYTHON.exists() or not TENGEN.exists(),
    reason="the MicroPython unix port and the installed tengen command are needed (make venv)",
)

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def grid(vertex, off=5):
    """The grid's point of a 9x9 game's vertex (it sits in the middle of the 19x19 grid)."""
    return "%s%d" % (COLUMNS[COLUMNS.index(vertex[0]) + off], int(vertex[1:]) + off)


def play_two_games(sim):
    """Game 1: Black E5, then White resigns (B+R); game 2: Black resigns at once (W+R)."""
    sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
    sim.do("key pause", "put %s b" % grid("E5"), "press b")  # White's clock runs
    sim.do("key plus+minus", "key mode", "wait 300")  # "RESIGN ?" to White; MODE: yes
    sim.do("lift %s" % grid("E5"))  # the board cleared for the next game
    sim.do("key pause", "wait 300", "key pause")  # the next game; Black's clock starts
    sim.do("key plus+minus", "key mode", "wait 300")
    games = sim.games()
    assert [(g["no"], g["finished"], g["acked"]) for g in games] == [
        (1, True, False),
        (2, True, False),
    ], games


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e[RUNTIME_ENV] = str(tmp_path / "run")  # our own boards only
    e["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")  # no paired keys of the user's
    e[S.DATA_ENV] = str(tmp_path / "data")  # the default folder: never the user's
    return e


def _sgfs(root):
    return sorted(p.relative_to(root).as_posix() for p in Path(root).rglob("*.sgf"))


@pytest.mark.slow(17)
@needs_tools
def test_two_boards_sync_into_one_default_folder_then_a_fresh_one_refetches(tmp_path, env):
    a = Sim(tmp_path / "flash-a", env, seed=3)
    b = Sim(tmp_path / "flash-b", env, seed=7)
    try:
        assert a.board_id != b.board_id
        a.tengen("time", "--port", a.link, "--set")  # B's clock is set by its first command
        a.tengen("settings", "pin=4821", "--pin", "0000", "--port", a.link)  # not the factory's
        assert a.board_id in a.pair("--pin", "4821", "--port", a.link)  # HMAC checked, signed
        play_two_games(a)
        play_two_games(b)

        # Both synced with no --dest: into $TENGEN_DATA_DIR/games/<board id>/.
        root = Path(env[S.DATA_ENV]) / "games"
        out = a.tengen("sync", "--port", a.link)
        assert out.startswith("2 written, 2 acknowledged, 0 already here, 0 failed"), out
        summary = json.loads(b.tengen("sync", "--port", b.link, "--json"))
        assert summary["written"] == summary["acked"] == [1, 2] and summary["failed"] == {}
        assert summary["folder"] == str(root / b.board_id)
        assert summary["index"] == str(root / "index.json")

        day = {}
        for sim in (a, b):
            side = json.loads(next((root / sim.board_id).glob("*_000001.json")).read_text())
            day[sim] = S.date_text(side["header"]["start"]) or "undated"
        assert day[b] != "undated" and day[a] != "undated"  # every tengen connect sets it
        names = [
            "%s/%s_%06d.sgf" % (sim.board_id, day[sim], no) for sim in (a, b) for no in (1, 2)
        ]
        assert _sgfs(root) == sorted(names)  # four games, two folders, nothing collided
        for sim in (a, b):
            assert all(g["acked"] for g in sim.games())
            results = []
            for no in (1, 2):
                game = sgf.Sgf_game.from_bytes(
                    (root / sim.board_id / ("%s_%06d.sgf" % (day[sim], no))).read_bytes()
                )
                assert game.get_size() == 9
                results.append(game.get_root().get("RE"))
            assert results == ["B+R", "W+R"]
            files = sorted(p.name for p in (root / sim.board_id).iterdir())
            assert files == sorted(
                "%s_%06d.%s" % (day[sim], no, ext)
                for no in (1, 2)
                for ext in ("bin", "json", "sgf")
            )

        index = json.loads((root / "index.json").read_text())["games"]
        assert sorted((e["board"], e["game"]) for e in index) == sorted(
            (sim.board_id, no) for sim in (a, b) for no in (1, 2)
        )
        for e in index:
            assert e["kind"] == "go" and e["size"] == 9
            assert e["result"] == ("B+R" if e["game"] == 1 else "W+R")
            assert (root / e["sgf"]).exists() and (root / e["bin"]).exists()
            assert e["date"] == day[a if e["board"] == a.board_id else b]
        rows = list(csv.DictReader(io.StringIO((root / "index.csv").read_text())))
        assert sorted((r["board"], r["game"], r["sgf"]) for r in rows) == sorted(
            (e["board"], str(e["game"]), e["sgf"]) for e in index
        )

        # Again: nothing to do, nothing rewritten.
        before = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
        out = a.tengen("sync", "--port", a.link)
        assert out.startswith("0 written, 0 acknowledged, 2 already here, 0 failed"), out
        assert {p: p.stat().st_mtime_ns for p in root.rglob("*")} == before

        # A fresh folder (another PC): everything is acknowledged, so a plain sync gets
        # nothing; --refetch gets every game the boards still keep, byte for byte.
        fresh = dict(env)
        fresh[S.DATA_ENV] = str(tmp_path / "data2")
        root2 = tmp_path / "data2" / "games"
        for sim in (a, b):
            summary = json.loads(sim.tengen("sync", "--port", sim.link, "--json", env=fresh))
            assert summary["written"] == [] and summary["acked"] == []
            assert summary["not_here"] == [1, 2]
        assert _sgfs(root2) == []
        assert json.loads((root2 / "index.json").read_text())["games"] == []
        out = a.tengen("sync", "--port", a.link, "--refetch", env=fresh)
        assert out.startswith("2 written, 0 acknowledged"), out
        assert "2 of them acknowledged elsewhere before" in out
        summary = json.loads(b.tengen("sync", "--port", b.link, "--refetch", "--json", env=fresh))
        assert summary["written"] == summary["refetched"] == [1, 2]
        assert summary["failed"] == {}
        assert _sgfs(root2) == _sgfs(root)
        for p in root.rglob("*_*.*"):
            assert (root2 / p.relative_to(root)).read_bytes() == p.read_bytes(), p
        index2 = json.loads((root2 / "index.json").read_text())["games"]
        assert index2 == index
        summary = json.loads(a.tengen("sync", "--port", a.link, "--refetch", "--json", env=fresh))
        assert summary["written"] == [] and summary["present"] == [1, 2]  # idempotent

        # --dest DIR: the board's folder under DIR.
        out = a.tengen("sync", "--port", a.link, "--refetch", "--dest", str(tmp_path / "usb"))
        assert out.startswith("2 written"), out
        assert _sgfs(tmp_path / "usb") == [n for n in names if n.startswith(a.board_id)]
        assert len(S.read_index(tmp_path / "usb")) == 2
    finally:
        assert a.close() == 0
        assert b.close() == 0


# ---- host_tools.records.sync against the stdio board, with journals made here ---------------------

MICROPYTHON_ANY = MICROPYTHON.exists()


def journal(root, starts, seed=1, extra=""):
    """A journal under ``root`` with a finished Go game per calendar start in ``starts``
    (Black wins the first by resignation, White the second, ...)."""
    rng = random.Random(seed)
    j = Journal(str(root), free=lambda: 100 << 20)
    for k, start in enumerate(starts):
        header = {
            "kind": R.GO,
            "size": 9,
            "komi2": 15,
            "handicap": 0,
            "rules": "1988",
            "opening": "",
            "tc": "quick",
            "tc_figures": (),
            "board_id": "stdio",
            "start": start,
            "extra": extra,
        }
        assert j.begin(header) == 0
        points = [y << 5 | x for y in range(9) for x in range(9)]
        rng.shuffle(points)
        for ply in range(1, rng.randrange(3, 20)):
            clocks = (600000 - 500 * ply, 0, 600000 - 500 * ply, 0)
            assert j.move(ply, 1 + (ply + 1) % 2, points[ply], 1000 * ply, clocks) == 0
        assert j.result(1 + k % 2, 1, 0, 0) == 0
    return j


def _sync(jroot, dest, **kw):
    from tests.host.records.test_sync import Board

    board = Board(jroot)
    try:
        with Link(board.path, timeout=2.0) as link:
            return S.sync(link, dest, secret=SECRET, **kw)
    finally:
        board.stop()


JAN1 = 1767225600  # 2026-01-01 00:00 UTC
FEB2 = JAN1 + 32 * 86400


@pytest.mark.skipif(not MICROPYTHON_ANY, reason="micropython not installed")
def test_a_file_of_the_same_name_that_is_not_the_boards_is_kept(tmp_path):
    dest = tmp_path / "games"
    journal(tmp_path / "j1", [JAN1, JAN1 + 60], seed=1)
    first = _sync(tmp_path / "j1", dest)
    assert first["written"] == [1, 2] and first["failed"] == {}
    folder = dest / "stdio"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    # The board's flash wiped, its numbers start again, the same day: other games, same names.
    jroot = tmp_path / "j2"
    journal(jroot, [JAN1, JAN1 + 60], seed=2)
    again = _sync(jroot, dest)
    assert again["written"] == again["acked"] == [] and sorted(again["failed"]) == [1, 2]
    assert "2026-01-01_000001.*" in again["failed"][1] and "kept" in again["failed"][1]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing overwritten
    assert Journal(str(jroot), free=lambda: 100 << 20).acked() == set()  # the board keeps them

    # ... on another day: both games 1 and 2 live side by side.
    jroot = tmp_path / "j3"
    journal(jroot, [FEB2, 0], seed=3)
    third = _sync(jroot, dest)
    assert third["written"] == third["acked"] == [1, 2] and third["failed"] == {}
    assert sorted(p.name for p in folder.glob("*.bin")) == [
        "2026-01-01_000001.bin",
        "2026-01-01_000002.bin",
        "2026-02-02_000001.bin",
        "undated_000002.bin",
    ]
    index = S.read_index(dest)
    assert [(e["date"], e["game"]) for e in index] == [
        ("2026-01-01", 1),
        ("2026-01-01", 2),
        ("2026-02-02", 1),
        ("undated", 2),
    ]


@pytest.mark.skipif(not MICROPYTHON_ANY, reason="micropython not installed")
def test_the_index_has_the_players_and_is_rebuilt_from_the_sidecars(tmp_path):
    dest = tmp_path / "games"
    extra = json.dumps(
        {"black": "Nie Weiping", "white": "Cho Hunhyun", "event": "Ing Cup", "round": "5"},
        separators=(",", ":"),
    )
    journal(tmp_path / "j", [JAN1, FEB2], extra=extra)
    summary = _sync(tmp_path / "j", dest)
    assert summary["written"] == [1, 2]
    index = S.read_index(dest)
    assert [e["black"] for e in index] == ["Nie Weiping"] * 2
    assert [(e["white"], e["event"], e["round"], e["table"]) for e in index] == [
        ("Cho Hunhyun", "Ing Cup", "5", None)
    ] * 2
    assert [e["result"] for e in index] == ["B+R", "W+R"]
    assert [e["sgf"] for e in index] == [
        "stdio/2026-01-01_000001.sgf",
        "stdio/2026-02-02_000002.sgf",
    ]
    rows = list(csv.DictReader(io.StringIO((dest / "index.csv").read_text())))
    assert [r["black"] for r in rows] == ["Nie Weiping"] * 2 and rows[0]["table"] == ""
    assert list(rows[0]) == list(S.INDEX_COLUMNS)
    csv_before = (dest / "index.csv").read_bytes()

    # Gone, or damaged: rebuilt, the same, from the sidecars (another board's folder too).
    other = dest / "v0123456789abcde"
    other.mkdir()
    for p in (dest / "stdio").glob("2026-01-01_000001.*"):
        (other / p.name).write_bytes(p.read_bytes())
    (dest / "index.json").unlink()
    S.update_index(dest)
    rebuilt = S.read_index(dest)
    assert [e for e in rebuilt if e["json"].startswith("stdio/")] == index
    assert [e["json"] for e in rebuilt if not e["json"].startswith("stdio/")] == [
        "v0123456789abcde/2026-01-01_000001.json"
    ]
    (dest / "index.json").write_text("{not json")
    S.update_index(dest, dest / "stdio")
    assert S.read_index(dest) == rebuilt
    shutil.rmtree(other)
    (dest / "index.json").unlink()
    S.update_index(dest)
    assert S.read_index(dest) == index and (dest / "index.csv").read_bytes() == csv_before


def test_two_boards_updating_one_index_at_once_lose_nothing(tmp_path):
    # The index is read, changed and written under a lock: boards synced at the same time
    # into one root each find the other's games in it.
    root = tmp_path / "games"
    jroot = tmp_path / "j"
    j = journal(jroot, [JAN1 + k for k in range(12)])
    boards = ["b%02d" % k for k in range(6)]
    for k, name in enumerate(boards):
        (root / name).mkdir(parents=True)
        for no in (2 * k + 1, 2 * k + 2):
            S.write_game(root / name, no, j.read(no), name, None)
    (root / "index.json").write_text('{"format": 1, "games": []}')
    errors = []

    def run(name):
        try:
            for _ in range(10):
                S.update_index(root, root / name)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(name,)) for name in boards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted((e["board"], e["game"]) for e in S.read_index(root)) == [
        (name, no) for k, name in enumerate(boards) for no in (2 * k + 1, 2 * k + 2)
    ]


def test_the_default_folder_and_board_folder_names(tmp_path, monkeypatch):
    monkeypatch.setenv(S.DATA_ENV, str(tmp_path / "d"))
    assert S.default_root() == tmp_path / "d" / "games"
    monkeypatch.delenv(S.DATA_ENV)
    from platformdirs import user_data_dir

    assert S.default_root() == Path(user_data_dir("tengen", appauthor=False)) / "games"
    assert S.board_folder_name("v0123456789abcde") == "v0123456789abcde"
    assert S.board_folder_name("../x y") == "_x_y"
    assert S.board_folder_name("") == "unknown"
    assert S.game_stem(7, 0) == "undated_000007"
    assert S.game_stem(1234567, JAN1 + 86399) == "2026-01-01_1234567"
