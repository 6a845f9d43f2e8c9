"""The link's ``list`` of 1,000 stored games in a small fixed heap (MicroPython unix port).

A journal of 1,000 finished 250-move games (~1.3 MB, 20 packs) is written on a plain folder by
CPython (``Journal.store``); then ``micropython -X heapsize=HEAP`` imports the link's server
and the journal, compiled beforehand as the board's are (``tengen deploy``'s ``build`` with
``-march=host``: no compiler in the heap, whose peak grew with every line of source and made
this test measure the source's length), and lists every page as the PC does (``after`` the
last game of the page before), then reads one game and acks it. ``HEAP`` is the whole heap:
the compiled modules' bytecode takes ~81 KB of it here (on the chip it is frozen in flash),
and what is left must hold the index (12 bytes a game: ~12.5 KB) and one page's reply (~17
KB, ``bench/bench_journal.py``); 160 KB was the least that passed when this was written.
Before the index, ``list`` built every game's tuple and read every pack for every page: it
needed ~185 KB free on top of the imports, and fails in this one.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.store import records as R
from firmware.store.journal import Journal
from tests.support import Rng
from tests.test_journal import HEADER, play

ROOT = Path(__file__).resolve().parents[2]
MICROPYTHON = Path(sys.executable).with_name("micropython")
if not MICROPYTHON.exists():
    MICROPYTHON = shutil.which("micropython")
HEAP = "176k"
GAMES = 1000

SCRIPT = """
import sys
sys.path.insert(0, ".")
from firmware.link.server import Server
from firmware.store.journal import Journal

class Match:
    settings = {"game": "go19"}

srv = Server(Match(), Journal(sys.argv[1]), bytes(32), lambda data: None)
after = 0
seen = 0
n = 0
while True:
    n += 1
    r = srv.handle(b'{"v":1,"id":%d,"cmd":"list","after":%d}' % (n, after))
    if b'"ok":true' not in r.replace(b" ", b""):
        raise SystemExit("list failed: %s" % r[:90])
    k = r.count(b'"no":')
    seen += k
    if k == 0 or b'"more":false' in r.replace(b" ", b""):
        break
    i = r.rfind(b'"no":')
    after = int(r[i + 5 : r.index(b",", i)])
for cmd in (b'"get","game":500,"offset":0,"length":2048', b'"ack","game":500'):
    r = srv.handle(b'{"v":1,"id":9999,"cmd":' + cmd + b"}")
    if b'"ok":true' not in r.replace(b" ", b""):
        raise SystemExit("failed: %s" % r[:90])
print("listed", seen)
"""


def test_list_of_a_thousand_games_in_a_small_heap(tmp_path):
    if MICROPYTHON is None:
        pytest.skip("micropython (unix port) not installed")
    root = tmp_path / "games"
    j = Journal(str(root), free=lambda: 1 << 30)
    games = []
    for s in range(4):
        recs = [(R.HEADER, R.full_header(HEADER))] + play(Rng(100 + s), 250)
        games.append(recs + [(R.RESULT, 1, 2, 7, 250)])
    for g in range(1, GAMES + 1):
        recs = games[g % 4]
        recs[0][1]["game_no"] = g
        assert j.store(R.pack(g, recs)) == 0
    from host_tools.deploy import build

    build(tmp_path / "board", ROOT, march="host")
    done = subprocess.run(
        [str(MICROPYTHON), "-X", "heapsize=" + HEAP, "-c", SCRIPT, str(root)],
        cwd=tmp_path / "board",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "listed %d" % GAMES in done.stdout, done.stdout + done.stderr
