"""The journal at 1,000 games in the heap the chip leaves it (MicroPython unix port).

A journal of 1,000 finished 250-move games (~1.3 MB, 20 packs), none, 500 or all of them
acknowledged, is written on a plain folder by CPython (``Journal.store``, ``Journal.ack``).
Then ``micropython -X heapsize=HEAP`` imports the link's server and the journal, compiled
beforehand as the board's are (``tengen deploy``'s ``build`` with ``-march=host``: no compiler
in the heap), starts the journal (its index rebuilt from the files, the acks file read) and
answers every ``list`` page as the PC asks them (``after`` the last game of the page before),
a whole ``get`` and an ``ack``.

The heap: on the chip the modules are frozen in flash and the board has ``HEAP_PLAYING`` free
in play (host_tools/budgets.py); here their bytecode takes ~84 KB of the heap. So a first run
measures what the imports hold after a collection, and ``HEAP`` is that plus
``HEAP_PLAYING``: the journal starts with the chip's floor free, as on a board in play whose
PC asks for its games. The unix port's objects are twice the chip's (8-byte words, 32-byte
blocks), so this is stricter than the chip; the emulated chip runs the same with its own heap
(tests/host/test_chip_budgets.py). Before the acks were read in place, rebuilding the index
made an object per ack (325 KB through the allocator for 500 acks here) and failed with
``MemoryError`` with 145 KB free; 67 KB free is the least that passes now.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools import budgets
from tests.support import Rng
from tests.test_journal import HEADER, play

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")
GAMES = budgets.JOURNAL_GAMES

SCRIPT = """
import gc, sys
sys.path.insert(0, ".")
from firmware.link.server import Server
from firmware.store.journal import Journal

class Match:
    settings = {"game": "go19"}

gc.collect()
print("imports hold", gc.mem_alloc(), "free", gc.mem_free())
if sys.argv[2] == "measure":
    raise SystemExit

def ask(cmd):
    global n
    n += 1
    r = srv.handle(b'{"v":1,"id":%d,"cmd":%s}' % (n, cmd))
    if b'"ok":true' not in r.replace(b" ", b""):
        raise SystemExit("%s failed: %s" % (cmd, r[:120]))
    return r

n = 0
srv = Server(Match(), Journal(sys.argv[1]), bytes(32), lambda data: None)
after = 0
seen = 0
acked = 0
while True:
    r = ask(b'"list","after":%d' % after)
    k = r.count(b'"no":')
    seen += k
    acked += r.replace(b" ", b"").count(b'"acked":true')
    if k == 0 or b'"more":false' in r.replace(b" ", b""):
        break
    i = r.rfind(b'"no":')
    after = int(r[i + 5 : r.index(b",", i)])
offset = 0
while True:
    r = ask(b'"get","game":500,"offset":%d,"length":2048' % offset)
    offset += 2048
    if b'"eof":true' in r.replace(b" ", b""):
        break
ask(b'"ack","game":%d' % int(sys.argv[3]))
gc.collect()
print("listed", seen, "acked", acked, "free", gc.mem_free())
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """The board's modules compiled for this PC's unix port, and the heap the imports hold."""
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    from host_tools.deploy import build

    folder = tmp_path_factory.mktemp("board")
    build(folder, ROOT, march="host")
    done = _run(folder, "1024k", "-", "measure")
    assert done.returncode == 0, done.stdout + done.stderr
    held, free = int(done.stdout.split()[2]), int(done.stdout.split()[4])
    # The heap the floor needs: what the imports hold and the floor, over the part of a heap
    # that is heap (the rest is the collector's tables, ~1 %), and 2 KB spare.
    usable = (held + free) / (1024 * 1024)
    return folder, int((held + budgets.HEAP_PLAYING) / usable) // 1024 + 2


def _run(folder, heap, root, mode, game=0):
    return subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=" + heap, "-c", SCRIPT, str(root), mode, str(game)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def journal(root, acked):
    """1,000 finished games under ``root``, the first ``acked`` of the odd ones (then the even
    ones) acknowledged; the first game not acknowledged (0: none)."""
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
    return order[acked] if acked < GAMES else 0


@pytest.mark.parametrize("acked", [0, budgets.JOURNAL_ACKED, GAMES])
def test_a_thousand_games_answer_in_the_heap_a_board_in_play_has(board, tmp_path, acked):
    folder, heap_k = board
    root = tmp_path / "games"
    fresh = journal(root, acked)
    done = _run(folder, "%dk" % heap_k, root, "run", fresh or 1)
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "listed %d acked %d " % (GAMES, acked) in out, out
    free = int(done.stdout.split()[4])  # the imports' line
    assert budgets.HEAP_PLAYING <= free < budgets.HEAP_PLAYING + 4 * 1024, out
