"""The journal at 1,000 games in a 128 KB heap (MicroPython unix port, ``-X heapsize=128k``).

A journal of 1,000 finished 250-move games (~1.3 MB, 20 packs), none, 500 or all of them
acknowledged, is written on a plain folder by CPython (``Journal.store``, ``Journal.ack``), once
per session, and copied for each test (the PC's sync acks games in it). Then
``micropython -X heapsize=128k`` imports the link's server and the journal, compiled
beforehand as the board's are (``tengen deploy``'s ``build`` with ``-march=host``: no compiler
in the heap), and plays the PC through ``Server.feed``/``poll``, every reply line written out:

1. a cold start: a fresh ``Journal``, whose index the first ``list`` rebuilds inside the
   request (packs, live files, acks file);
2. a whole sync: every ``list`` page (``after`` the last game of the page before), every game
   read whole with ``get`` in 1 KiB chunks, every game not yet acknowledged acked;
3. the boot's path while the link is busy: ``resume()`` (the index rebuilt again, the replay
   cache full), then every page listed again, a game read and acked again, and an ``ack`` of a
   game the board does not keep (the acks file walked).

CPython then reads the reply lines, the oracle being what the PC gets: every game listed once
with its acknowledgement, every game's bytes equal to the record on the folder with the CRC and
the HMAC the board sent, no ``no_memory`` anywhere.

The 128 KB hold the firmware's code too (~67 KB here, printed): on the chip it is frozen in
flash. And the unix port's objects are twice the chip's (8-byte words, 32-byte blocks). So the
journal and the link run here in ~60 KB where the chip has ~130 KB free: stricter than the
chip in every way. Before the index was made at its size and the acks file read through a
window, a cold start with 1,000 games failed in this heap: the index grown an eighth at a time
needed its old and new arrays whole in a heap cut into pieces, and the whole acks file was held
besides it (~9 KB at 1,000 acks); the replay cache held eight list pages (~24 KB).
"""

import base64
import binascii
import hashlib
import hmac
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.board import budgets
from tests.support import Rng
from tests.test_journal import HEADER, play

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")
GAMES = budgets.JOURNAL_GAMES
HEAP = "128k"
SECRET = bytes(32)

# The PC, in the board's heap: it reads the replies with byte searches (no object per game),
# and writes every reply line out for CPython to check.
SCRIPT = """
import gc, sys
sys.path.insert(0, ".")
from firmware.link.server import Server
from firmware.store.journal import Journal

gc.collect()
base = gc.mem_alloc()
print("imports hold", base, "free", gc.mem_free())
put = sys.stdout.buffer.write
last = [b""]

def out(r):
    last[0] = r
    put(r)

class Match:
    settings = {"game": "go19"}

def held(what):
    gc.collect()
    print("held", what, gc.mem_alloc() - base, "free", gc.mem_free())

n = 0

def ask(cmd):
    global n
    n += 1
    srv.feed(b'{"v":1,"id":%d,"cmd":%s}\\n' % (n, cmd))
    while srv.poll():
        pass
    return last[0]

def pages(each):
    after = 0
    while True:
        r = ask(b'"list","after":%d' % after)
        i = r.find(b'"no":')
        while i >= 0:
            after = int(r[i + 5 : r.index(b",", i)])
            each(after, r.find(b'"acked":true', i, r.find(b"}", i)) > 0)
            i = r.find(b'"no":', i + 5)
        if r.find(b'"more":true') < 0:
            return

def get(g):
    offset = 0
    while True:
        r = ask(b'"get","game":%d,"offset":%d' % (g, offset))
        if r.find(b'"eof":false') < 0:
            return
        offset += 1024

def sync(g, acked):
    get(g)
    if not acked:
        ask(b'"ack","game":%d' % g)

j = Journal(sys.argv[1])
srv = Server(Match(), j, bytes(32), out)
held("started")
print("phase sync")
pages(sync)
held("synced")
print("phase resumed")
j.resume()
held("resumed")
pages(lambda g, acked: None)
get(500)
ask(b'"ack","game":500')
ask(b'"ack","game":99999')
held("done")
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """The board's modules compiled for this PC's unix port."""
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    from host_tools.board.deploy import build

    folder = tmp_path_factory.mktemp("board")
    build(folder, ROOT, march="host")
    return folder


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    """The three journals of 1,000 games, made once: {acked: folder}."""
    base = tmp_path_factory.mktemp("journals")
    return {a: journal(base / str(a), a) for a in (0, budgets.JOURNAL_ACKED, GAMES)}


def journal(root, acked):
    """1,000 finished games under ``root``, the first ``acked`` of the odd ones (then the even
    ones) acknowledged; ``root``."""
    Path(root).mkdir(parents=True, exist_ok=True)
    j = Journal(str(root), free=lambda: 1 << 30)
    games = []
    for s in range(4):
        recs = [(R.HEADER, R.full_header(HEADER))] + play(Rng(100 + s), 250)
        games.append(recs + [(R.RESULT, 1, 2, 7, 250)])
    for g in range(1, GAMES + 1):
        recs = games[g % 4]
        recs[0][1]["game_no"] = g
        assert j.store(R.pack(g, recs)) == 0
    order = list(range(1, GAMES + 1, 2)) + list(range(2, GAMES + 1, 2))
    for g in order[:acked]:
        assert j.ack(g) == 0
    return Path(root)


def run(board, root):
    """The script in the 128 KB heap: (exit code, its reply lines as dicts by phase, its
    other lines, everything it printed)."""
    done = subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=" + HEAP, "-c", SCRIPT, str(root)],
        cwd=board,
        capture_output=True,
        timeout=600,
    )
    replies = {"": [], "sync": [], "resumed": []}
    notes = []
    phase = ""
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("{"):
            replies[phase].append(json.loads(line))
        else:
            notes.append(line)
            if line.startswith("phase "):
                phase = line.split()[1]
    return done.returncode, replies, notes, (done.stdout + done.stderr)[-3000:]


def listed(replies):
    """[(game, acked)] from the ``list`` replies, in order."""
    return [(g["no"], g["acked"]) for r in replies if "games" in r for g in r["games"]]


def chunks(replies):
    """{game: (bytes, crc, hmac)} from the ``get`` replies, each game's chunks in order."""
    out = {}
    for r in replies:
        if "data" in r:
            data, crc, mac = out.get(r["game"], (b"", 0, ""))
            assert r["offset"] == len(data), r
            out[r["game"]] = (data + base64.b64decode(r["data"]), r["crc"], r["hmac"])
    return out


@pytest.mark.parametrize("acked", [0, budgets.JOURNAL_ACKED, GAMES])
def test_a_thousand_games_sync_in_a_128k_heap(board, journals, tmp_path, acked):
    root = tmp_path / "games"
    shutil.copytree(journals[acked], root)
    before = {g for g, _, _, a in Journal(str(root)).games() if a}
    assert len(before) == acked
    code, replies, notes, tail = run(board, root)
    assert code == 0, tail
    every = [r for phase in replies.values() for r in phase]
    failed = [r for r in every if not r["ok"]]
    # The one refusal asked for: a game the board does not keep (its acks file walked).
    assert [(r["error"], r["id"]) for r in failed] == [("no_game", every[-1]["id"])], failed[:3]

    # The sync: every game listed once, as acked as the folder had it; read whole; acked.
    sync = replies["sync"]
    assert listed(sync) == [(g, g in before) for g in range(1, GAMES + 1)]
    kept = Journal(str(root))
    got = chunks(sync)
    assert sorted(got) == list(range(1, GAMES + 1))
    for g, (data, crc, mac) in got.items():
        assert data == kept.read(g), g
        assert (
            crc == binascii.crc32(data)
            and mac == hmac.new(SECRET, data, hashlib.sha256).hexdigest()
        )
    acks = [r["game"] for r in sync if "acked" in r and "games" not in r]
    assert sorted(acks) == sorted(set(range(1, GAMES + 1)) - before)

    # After the index was rebuilt with the link busy: every game kept, every one acked.
    again = replies["resumed"]
    assert listed(again) == [(g, True) for g in range(1, GAMES + 1)]
    assert chunks(again)[500][0] == kept.read(500)
    assert all(a for _, _, _, a in kept.games())
    # The acks file holds one record an ack (~9 bytes), no more.
    assert (root / "acks.tgj").stat().st_size <= 4 + 10 * GAMES

    held = {n.split()[1]: int(n.split()[2]) for n in notes if n.startswith("held ")}
    # What stays held at 1,000 games: the index (12 bytes a game and 16 slots) and the link's
    # last replies (CACHE_BYTES and the newest: a 1 KiB chunk or a list page, ~3 KB).
    assert held["synced"] < 12 * GAMES + 10 * 1024, notes
    assert held["done"] < 12 * GAMES + 10 * 1024, notes
