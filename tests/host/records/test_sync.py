"""`tengen sync` end to end without hardware: the link's server on the MicroPython unix port
(``firmware/link/stdio.py``) behind a pseudo-terminal pair (Python ``os.openpty``: the board
holds the master, the host opens the slave's path with pyserial, as it would /dev/ttyACM0),
and ``host_tools.common.link.Link`` + ``host_tools.records.sync.sync`` talking to it.

A journal on a plain folder is filled on CPython with ``GAMES`` finished games (Go and Renju,
with incidents and arbiter edits) and one game in progress. The tests check: every game
exactly once, byte-identical to ``Journal.read``, SGF read by sgfmill; then the link is cut at
random points (the board process killed, the host killed mid-write, the board killed after a
random delay) and sync run again until done: every game exactly once, none lost, none acked
before its files were written and verified. ``TENGEN_SYNC_GAMES`` sets the count (default 200).
"""

import os
import random
import shutil
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest
from sgfmill import sgf

from firmware.link import protocol as P
from firmware.link.server import Server
from firmware.link.stdio import SECRET
from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.common.link import Link, LinkError, find_boards
from host_tools.records import sync as S

ROOT = Path(__file__).resolve().parents[3]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")
GAMES = int(os.environ.get("TENGEN_SYNC_GAMES", "200"))
BOARD = "stdio"  # the stdio board's id: its games' folder under the sync's root

pytestmark = pytest.mark.skipif(MICROPYTHON is None, reason="micropython not installed")


def _header(kind, k):
    go = kind == R.GO
    return {
        "kind": kind,
        "size": 19 if go else 15,
        "komi2": 15 if go else 0,
        "handicap": 0,
        "rules": "1988" if go else "2013",
        "opening": "",
        "tc": "fischer",
        "tc_figures": (600000, 5000),
        "board_id": "stdio",
        "start": 1767225600 + 3600 * k,
        "extra": "",
    }


def fill(root, n, seed=7):
    """``n`` finished games (every 5th Renju) and one in progress, journaled under ``root``."""
    rng = random.Random(seed)
    j = Journal(str(root), free=lambda: 100 << 20)
    for k in range(n):
        kind = R.RENJU if k % 5 == 4 else R.GO
        size = 19 if kind == R.GO else 15
        assert j.begin(_header(kind, k)) == 0
        points = [y << 5 | x for y in range(size) for x in range(size)]
        rng.shuffle(points)
        moves = rng.randrange(5, 180 if kind == R.GO else 40)
        clocks = [600000, 0, 600000, 0]
        tick = 1000
        for ply in range(1, moves + 1):
            colour = 1 + (ply + 1) % 2
            used = rng.randrange(300, 20000)
            tick += used
            clocks[2 * (colour - 1)] -= used
            assert j.move(ply, colour, points[ply], tick, tuple(clocks)) == 0
            if rng.random() < 0.02:
                assert j.incident(5, ply + 1, tick + 10, (points[ply],), 0) == 0
            if rng.random() < 0.01:
                assert j.edit(6, ply + 1, tick + 20) == 0
                assert j.clocks(ply + 1, tuple(clocks)) == 0
        assert j.result(1 + k % 2, 1, 0, moves) == 0
    assert j.begin(_header(R.GO, n)) == 0  # the game on the board now: never synced
    assert j.move(1, 1, 3 << 5 | 3, 1000, (600000, 0, 600000, 0)) == 0
    return j


class Board:
    """``micropython -m firmware.link.stdio ROOT`` on the master side of a fresh pty pair;
    ``path`` the slave, for pyserial; ``pin`` the arbiter's PIN (default the stand-in's)."""

    def __init__(self, root, pin=None):
        master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo before pyserial sets its own modes
        self.path = os.ttyname(self.slave)
        self.proc = subprocess.Popen(
            [str(MICROPYTHON), "-m", "firmware.link.stdio", str(root)]
            + (["--pin", pin] if pin else []),
            stdin=master,
            stdout=master,
            cwd=ROOT,
        )
        os.close(master)  # the board holds it alone: killing it hangs the line up

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def stop(self):
        self.kill()
        if self.slave is not None:
            os.close(self.slave)
            self.slave = None


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    base = tmp_path_factory.mktemp("template")
    t = time.monotonic()
    j = fill(base / "games", GAMES)
    expected = {g: j.read(g) for g, _, finished, _ in j.games() if finished}
    print("\nfilled %d games in %.1f s" % (len(expected), time.monotonic() - t))
    return base / "games", expected


def _copy(template, tmp_path):
    root = tmp_path / "games"
    shutil.copytree(template, root)
    return root


def check_dest(dest, expected, root, complete):
    """Every file in ``dest``'s board folder whole and named by its game's date and number;
    every game acked on the board written and verified here; with ``complete``, every
    finished game here exactly once and acked, and in the index."""
    folder = Path(dest) / BOARD
    names = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    stems = {}
    for name in names:
        assert not name.endswith(".tmp") or not complete, name
        if name.endswith(".tmp"):
            continue
        stem, ext = name.split(".")
        date, no = stem.split("_")
        h = S.decode(expected[int(no)])[0][1]
        assert date == S.date_text(h["start"]) and no == "%06d" % h["game_no"], name
        stems.setdefault(int(no), set()).add(ext)
        path = folder / name
        if ext == "bin":
            assert path.read_bytes() == expected[int(no)], name  # whole or absent
        elif ext == "sgf":
            sgf.Sgf_game.from_bytes(path.read_bytes())
    acked = Journal(str(root), free=lambda: 100 << 20).acked()
    for g in acked:
        assert S.local_ok(folder, g), "game %d acked before it was written" % g
        assert S.read_back_ok(folder, g, expected[g])
    if complete:
        assert set(stems) == set(expected)
        for g, exts in stems.items():
            kind = S.decode(expected[g])[0][1]["kind"]
            assert exts == ({"bin", "sgf", "json"} | ({"psq"} if kind else set())), (g, exts)
        assert acked == set(expected)
        j = Journal(str(root), free=lambda: 100 << 20)
        assert [g for g, _, fin, a in j.games() if not fin and not a] == [max(expected) + 1]
        index = S.read_index(dest)
        assert sorted(e["game"] for e in index) == sorted(expected)
        assert {e["board"] for e in index} == {BOARD}


def test_sync_all_games_over_a_pty(template, tmp_path):
    source, expected = template
    root = _copy(source, tmp_path)
    dest = tmp_path / "home"
    board = Board(root)
    try:
        assert [b["board"] for b in find_boards([board.path])] == ["stdio"]
        with Link(board.path, timeout=2.0) as link:
            t = time.monotonic()
            summary = S.sync(link, dest, secret=SECRET)
            dt = time.monotonic() - t
            size = sum(len(v) for v in expected.values())
            print(
                "\nsynced %d games (%d KB) in %.2f s: %.0f games/s, %.0f KB/s"
                % (len(expected), size // 1024, dt, len(expected) / dt, size / 1024 / dt)
            )
            assert summary["failed"] == {}
            assert sorted(summary["written"]) == sorted(expected)
            assert sorted(summary["acked"]) == sorted(expected)
            assert summary["in_progress"] == [max(expected) + 1]
            assert summary["bytes"] == size
            check_dest(dest, expected, root, complete=True)
            # idempotent: nothing more to do, nothing rewritten
            before = {p: p.stat().st_mtime_ns for p in dest.rglob("*")}
            again = S.sync(link, dest, secret=SECRET)
            assert again["written"] == again["acked"] == [] and again["failed"] == {}
            assert sorted(again["present"]) == sorted(expected)
            assert {p: p.stat().st_mtime_ns for p in dest.rglob("*")} == before
    finally:
        board.stop()


class HostKilled(BaseException):
    pass


@pytest.mark.slow(6)
def test_sync_resumes_after_cuts_at_random_points(template, tmp_path):
    source, expected = template
    root = _copy(source, tmp_path)
    dest = tmp_path / "home"
    rng = random.Random(int(os.environ.get("TENGEN_SYNC_SEED", "1")))
    cuts = {"board": 0, "host": 0, "timer": 0}
    for _round in range(40):
        board = Board(root)
        mode = ("board", "host", "timer")[_round % 3]
        budget = [rng.randrange(1, 4 * len(expected) // 3)]

        def step(*_args, board=board, mode=mode, budget=budget):
            budget[0] -= 1
            if budget[0] == 0:
                if mode == "host":
                    raise HostKilled
                board.kill()

        timer = None
        if mode == "timer":
            timer = threading.Timer(rng.uniform(0.0, 0.3), board.kill)
            timer.start()
        try:
            with Link(board.path, timeout=0.5, retries=2, backoff=0.02) as link:
                hook = step if mode != "timer" else None
                summary = S.sync(link, dest, progress=hook, secret=SECRET, chunk=256, hook=hook)
            assert summary["failed"] == {}
            if not summary["written"] and not summary["acked"]:
                board.stop()
                break  # a whole sync with nothing left to do
        except (LinkError, HostKilled):
            cuts[mode] += 1
        finally:
            if timer:
                timer.cancel()
            board.stop()
        check_dest(dest, expected, root, complete=False)
    else:
        pytest.fail("sync never completed")
    print("\ncuts: %r" % cuts)
    assert sum(cuts.values()) >= 6
    check_dest(dest, expected, root, complete=True)


# ---- the client against the server in-process: \r\n, events, a lost reply ----------------


class FakeSerial:
    """The firmware's ``Server`` (CPython) as a serial port that writes ``\\r\\n``, sends an
    event before each reply, and loses the first reply to every ``drop``-th request."""

    def __init__(self, journal, drop=2):
        self.server = Server(
            type("M", (), {"settings": {"game": "go19"}})(), journal, SECRET, self._out
        )
        self.rx = bytearray()
        self.drop = drop
        self.count = 0
        self.timeout = 0.01
        self.port = "fake"

    def _out(self, data):
        self.rx += b'{"v":1,"event":"clock"}\r\n'
        self.rx += data.replace(b"\n", b"\r\n")

    def write(self, data):
        self.count += 1
        n = len(self.rx)
        self.server.feed(data)
        while self.server.poll():
            pass
        if self.count % self.drop == 1:
            del self.rx[n:]  # USB CDC dropped it: no one was listening
        return len(data)

    def flush(self):
        pass

    @property
    def in_waiting(self):
        return len(self.rx)

    def read(self, n):
        out = bytes(self.rx[:n])
        del self.rx[:n]
        return out

    def close(self):
        pass


def test_link_retries_lost_replies_and_skips_events(tmp_path):
    root = tmp_path / "games"
    j = fill(root, 6, seed=3)
    fake = FakeSerial(j)
    link = Link(fake, timeout=0.05, retries=3, backoff=0.001)
    summary = S.sync(link, tmp_path / "home")
    assert sorted(summary["acked"]) == [1, 2, 3, 4, 5, 6]
    assert link.resent > 0 and link.events
    acks = R.scan((root / "acks.tgj").read_bytes(), R.MAGIC)
    assert [rec[1] for _, _, rec in acks] == [1, 2, 3, 4, 5, 6]  # once each, despite resends
    with pytest.raises(LinkError) as e:
        link.request("get", game=999)
    assert e.value.code == "no_game"
    assert P.VERSION == 1


def test_cli_sync_verify_export(tmp_path):
    import json

    from typer.testing import CliRunner

    from host_tools.cli import app

    root = tmp_path / "games"
    fill(root, 5, seed=5)
    dest = tmp_path / "home"
    run = CliRunner().invoke
    board = Board(root)
    try:
        args = ["sync", "--port", board.path, "--dest", str(dest), "--json"]
        r = run(app, args + ["--secret", SECRET.hex()])
        assert r.exit_code == 0, r.output
        summary = json.loads(r.stdout.splitlines()[-1])
        assert summary["written"] == [1, 2, 3, 4, 5] and summary["failed"] == {}
        r = run(app, args + ["--secret", bytes(32).hex()])  # nothing left: the key is unused
        assert r.exit_code == 0, r.output
    finally:
        board.stop()
    r = run(app, ["sync", "--port", str(tmp_path / "nope"), "--dest", str(dest)])
    assert r.exit_code == 2
    bins = sorted(str(p) for p in (dest / BOARD).glob("*.bin"))
    assert len(bins) == 5
    r = run(app, ["verify", "--secret", SECRET.hex()] + bins)
    assert r.exit_code == 0, r.output
    data = bytearray(Path(bins[2]).read_bytes())
    data[-3] ^= 1  # an edited record
    Path(bins[2]).write_bytes(bytes(data))
    r = run(app, ["verify", "--secret", SECRET.hex()] + bins)
    assert r.exit_code == 1 and "003.bin: FAILED" in r.output, r.output
    r = run(app, ["verify", "--secret", bytes(32).hex(), bins[0]])  # another board's key
    assert r.exit_code == 1 and "HMAC" in r.output
    r = run(app, ["export", bins[4], "--out", str(tmp_path / "x")])  # game 5: Renju
    assert r.exit_code == 0, r.output
    stem = "2026-01-01_000005"  # the header's start: 2026-01-01 04:00 UTC
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == [stem + ".psq", stem + ".sgf"]
    sgf_file = dest / BOARD / (stem + ".sgf")
    assert (tmp_path / "x" / (stem + ".sgf")).read_bytes() == sgf_file.read_bytes()


def test_the_host_process_killed_mid_sync_then_resumed(template, tmp_path):
    # `tengen sync` as its own process, SIGKILLed at random moments (no clean-up runs, the
    # port just closes under it); the board keeps serving. Then a full sync: every game
    # exactly once, whole, none acked before it was written.
    import random
    import signal
    import sys

    source, expected = template
    root = _copy(source, tmp_path)
    dest = tmp_path / "home"
    board = Board(root)
    rng = random.Random(11)
    cmd = [sys.executable, "-m", "host_tools", "sync", "--port", board.path]
    cmd += ["--dest", str(dest), "--secret", SECRET.hex(), "--json"]
    try:
        killed = 0
        for _ in range(6):
            host = subprocess.Popen(
                cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            # Killed after a random number of further games has arrived (not after a
            # time: on any machine the cut falls inside the sync), or mid-game at once.
            folder = dest / BOARD
            target = len(list(folder.glob("*.json"))) if folder.exists() else 0
            target += rng.randint(0, 25)
            while host.poll() is None and (
                not folder.exists() or len(list(folder.glob("*.json"))) < target
            ):
                time.sleep(0.005)
            if host.poll() is None:
                host.send_signal(signal.SIGKILL)
                killed += 1
            host.wait()
            check_dest(dest, expected, root, complete=False)
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        check_dest(dest, expected, root, complete=True)
        assert killed >= 3, killed
    finally:
        board.stop()
