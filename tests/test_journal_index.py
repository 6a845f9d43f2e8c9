"""The journal's index (firmware/store/index.py) and its allocation-free write path (live.py).

The index is checked against a full scan written here from ``records.py`` alone (every pack
entry with its CRC, every live file, the acks file: what ``Journal.games()`` read before there
was an index), after every kind of write; the PC link's ``list``/``get``/``ack`` replies against
the same scan; damaged files at boot. On MicroPython ``move``/``clocks``/``incident`` are shown
to allocate nothing (``micropython.mem_total()``) on a real LittleFS.
"""

import binascii
import os

import micropython

from firmware.link.hmac import hmac_sha256
from firmware.link.server import Server
from firmware.store import OK, Journal, read_file
from firmware.store import live as L
from firmware.store import records as R
from firmware.store.blockdev import RamBlockDevice
from firmware.store.index import Index
from tests.support import IS_MICROPYTHON, Rng, skip
from tests.test_journal import HEADER, fresh_root, journal_game, play

SECRET = bytes(range(32))


def full_scan(root):
    """``[(game_no, size, finished, acked)]`` read from the files alone, as the journal listed
    games before it had an index (a damaged pack entry ends its pack)."""
    acked = set()
    data = read_file(root + "/acks.tgj")
    if data:
        acked = set(rec[1] for _, _, rec in R.scan(data) if rec[0] == R.ACK)
    out = {}
    for name in sorted(os.listdir(root)):
        path = root + "/" + name
        if name.startswith("p") and name.endswith(".tgp"):
            data = read_file(path)
            p = 4
            while data[:4] == R.PACK_MAGIC and p + 8 <= len(data):
                n = R.u32(data, p)
                if p + n + 8 > len(data) or not R.entry_ok(data, p, n):
                    break
                g = R.get_u(data, p + 4, p + 4 + n)[0]
                out[g] = (g, n, True, g in acked)
                p += n + 8
    for name in sorted(os.listdir(root)):
        if name.startswith("g") and name.endswith(".tgj"):
            g = int(name[1:-4])
            data = read_file(root + "/" + name)
            recs = R.scan(data)
            done = bool(recs) and recs[-1][2][0] == R.RESULT
            if g not in out:
                out[g] = (g, len(data), done, g in acked)
    return [out[g] for g in sorted(out)]


class _Match:
    settings = {"game": "go19"}


def _ask(srv, cmd, **fields):
    import json

    req = {"v": 1, "id": srv.requests + 1, "cmd": cmd}
    req.update(fields)
    return json.loads(srv.handle(json.dumps(req).encode()))


# -- the write path ----------------------------------------------------------------------------


def test_live_encoding_is_the_records_format():
    rng = Rng(8)
    seed = bytearray(b"\x00\xff\x7f\x80")
    buf = bytearray(L.ROOM)
    recs = [r for r in play(rng, 40)]
    recs.append((R.MOVE, 2**33, 2, R.PASS, (1 << 30) - 1, (-5, 0, -(2**29), 2**31)))
    recs.append((R.MOVE, 1, 1, 0, 0, ()))
    for rec in recs:
        n = L.move(buf, *rec[1:])
        k = L.seal(buf, R.MOVE, n, seed)
        assert bytes(buf[:k]) == bytes(R.frame(*R.encode(rec), seed)), rec
        L.keep(buf, k, seed)
    for rec in ((R.CLOCKS, 30, (60000, 3, -1, 0)), (R.CLOCKS, 0, ())):
        k = L.seal(buf, R.CLOCKS, L.clocks(buf, *rec[1:]), seed)
        assert bytes(buf[:k]) == bytes(R.frame(*R.encode(rec), seed))
    for rec in ((R.INCIDENT, 3, 17, -4, (40, 41, 600), -9), (R.INCIDENT, 0, 0, 0, (), 0)):
        k = L.seal(buf, R.INCIDENT, L.incident(buf, *rec[1:]), seed)
        assert bytes(buf[:k]) == bytes(R.frame(*R.encode(rec), seed))
    assert L.move(buf, 1, 1, 0, 0, tuple(range(9))) == -1  # the general way then


@micropython.viper
def _copy(dst, d: int, src, s: int, n: int):
    a = ptr8(dst)
    b = ptr8(src)
    i = 0
    while i < n:
        a[d + i] = b[s + i]
        i += 1


@micropython.viper
def _blank(dst, d: int, n: int):
    a = ptr8(dst)
    i = 0
    while i < n:
        a[d + i] = 0xFF
        i += 1


class QuietRam(RamBlockDevice):
    """A RAM block device that allocates nothing itself (``RamBlockDevice`` copies slices), so
    that what ``mem_total`` counts is the journal's and LittleFS's: on the board the flash
    driver is C. MicroPython only (viper copies)."""

    def readblocks(self, block, buf, offset=0):
        _copy(buf, 0, self.data, block * self.block_size + offset, len(buf))

    def writeblocks(self, block, buf, offset=None):
        _copy(self.data, block * self.block_size + (offset or 0), buf, 0, len(buf))

    def ioctl(self, op, arg):
        if op == 6:
            _blank(self.data, arg * self.block_size, self.block_size)
            return 0
        return RamBlockDevice.ioctl(self, op, arg)


def test_move_clocks_and_incident_allocate_nothing():
    if not IS_MICROPYTHON:
        skip("counts MicroPython heap bytes (micropython.mem_total) on VfsLfs2")
    root = fresh_root(dev=QuietRam(4096, 64))
    j = Journal(root)
    assert j.begin(HEADER) == OK
    moves = play(Rng(3), 120)
    points = (3, 40, 41)
    figures = (60000, 3, 55000, 3)
    for rec in moves[:2]:  # the first opens nothing new: begin left the file open
        j.move(rec[1], rec[2], rec[3], rec[4], rec[5])
    worst = 0
    total = 0
    for i in range(2, len(moves)):
        rec = moves[i]
        t = micropython.mem_total()
        assert j.move(rec[1], rec[2], rec[3], rec[4], rec[5]) == OK
        assert j.incident(1, rec[1], rec[4], points, 0) == OK
        assert j.clocks(rec[1] + 1, figures) == OK
        d = micropython.mem_total() - t
        total += d
        worst = max(worst, d)
    assert total == 0, (total, worst)
    j.close()


# -- the index against a full scan -----------------------------------------------------------


def _check(j, root):
    want = full_scan(root)
    assert j.games() == want, (j.games(), want)
    assert Journal(root).games() == want  # rebuilt from the files: the same
    for g, size, _, _ in want:
        data = j.read(g)
        assert data is not None and len(data) == size
        assert j.read(g, 3, 10) == data[3:13]


def test_the_index_follows_every_write():
    root = fresh_root(96)
    j = Journal(root, margin=0, reserve=0, pack_max=1)
    for s in range(7):
        journal_game(j, Rng(50 + s), 30 + 10 * s)
        _check(j, root)
    journal_game(j, Rng(60), 12, finish=False)
    _check(j, root)
    for g in (2, 3, 5):
        assert j.ack(g) == OK
        _check(j, root)
    assert j.evict(10**6) > 0  # the pack(s) of acked games only
    _check(j, root)
    assert [x[0] for x in j.games()] == [x[0] for x in full_scan(root)]
    # A reboot resumes the game in progress; it goes on and finishes.
    j = Journal(root, margin=0, reserve=0, pack_max=1)
    assert j.resume()["game_no"] == 8
    assert j.move(13, 1, 0, 5, (1, 2, 3, 4)) == OK and j.result(1, 1) == OK
    _check(j, root)


def test_link_list_get_ack_answer_as_the_full_scan():
    root = fresh_root(96)
    j = Journal(root, margin=0, reserve=0)
    for s in range(12):
        journal_game(j, Rng(70 + s), 25)
    journal_game(j, Rng(90), 5, finish=False)
    srv = Server(_Match(), j, SECRET, lambda data: None)
    want = full_scan(root)
    listed = []
    after = 0
    while True:
        r = _ask(srv, "list", after=after, limit=5)
        listed += [(x["no"], x["size"], x["finished"], x["acked"]) for x in r["games"]]
        if not r["more"]:
            break
        after = r["games"][-1]["no"]
    assert listed == want
    for g, size, finished, _ in want:
        data = j.read(g)
        got = bytearray()
        while True:
            r = _ask(srv, "get", game=g, offset=len(got), length=100)
            assert r["size"] == size and r["crc"] == binascii.crc32(data) & 0xFFFFFFFF
            assert r["hmac"] == binascii.hexlify(hmac_sha256(SECRET, data)).decode()
            got += binascii.a2b_base64(r["data"])
            if r["eof"]:
                break
        assert bytes(got) == data
        r = _ask(srv, "ack", game=g)
        assert r["ok"] is finished and (finished or r["error"] == "not_finished")
    assert _ask(srv, "ack", game=999)["error"] == "no_game"
    assert full_scan(root) == [(g, n, f, f) for g, n, f, _ in want]
    assert _ask(srv, "list")["games"][0]["acked"] is True


# -- bad files at boot -------------------------------------------------------------------------


def test_damaged_files_give_every_good_game_back():
    root = fresh_root(96)
    j = Journal(root, margin=0, reserve=0)
    for s in range(6):
        journal_game(j, Rng(30 + s), 20)
    j.ack(1)
    good = j.games()
    path = root + "/p0001.tgp"
    data = bytearray(read_file(path))
    # A torn append (a cut on a file system without LittleFS's atomic commits): a stray tail.
    with open(path, "wb") as f:
        f.write(data + b"\x40\x00\x00\x00garbage")
    # Garbage acks file: every game still listed, as not acked.
    with open(root + "/acks.tgj", "wb") as f:
        f.write(b"\x00" * 40)
    logs = []
    j2 = Journal(root, log=logs.append)
    assert j2.games() == [(g, n, f, False) for g, n, f, _ in good] and logs
    # A damaged entry in the middle: the games before it are given back.
    fourth = 4 + sum(n + 8 for _, n, _, _ in good[:3])
    data[fourth + 30] ^= 0x55
    with open(path, "wb") as f:
        f.write(data)
    j3 = Journal(root, log=logs.append)
    kept = j3.games()
    assert kept == [x[:3] + (False,) for x in good[:3]]
    assert all(j3.records(g) for g, _, _, _ in kept)
    # And a new game goes to a new pack, found again after a reboot.
    assert journal_game(j3, Rng(99), 10)[0][1]["game_no"] == 7
    assert [x[0] for x in Journal(root).games()][-1] == 7


def test_a_live_copy_of_a_packed_game_is_listed_once_and_removed():
    root = fresh_root()
    j = Journal(root)
    recs = journal_game(j, Rng(5), 20)
    # A cut after packing and before the live file was removed: both are there.
    bodies = []
    for rec in recs:
        t, payload = R.encode(rec)
        bodies.append(bytes([len(payload), t]) + payload)
    with open(root + "/g000001.tgj", "wb") as f:
        f.write(R.build(bodies))
    j2 = Journal(root)
    assert j2.resume() is None
    assert j2.games() == full_scan(root) and len(j2.games()) == 1
    assert "g000001.tgj" not in os.listdir(root)


def test_index_slots_stay_sorted_and_grow():
    ix = Index(2)
    for g in (5, 9, 12):
        ix.put(g, g << 16 | 4, 100 + g, True)
    ix.put(7, 0, 0, False)  # an older game turns up: inserted in order
    assert [ix.no[i] for i in range(ix.count)] == [5, 7, 9, 12]
    assert ix.find(9) == 2 and ix.find(8) == -1 and ix.after(7) == 2 and ix.after(12) == 4
    assert ix.ack(9) and not ix.ack(10)
    ix.put(9, 3 << 16 | 8, 50, True)  # moved: keeps its ack
    assert ix.nf[2] == 50 << 2 | 3
    for g in range(100, 300):
        ix.put(g, 0, 0, False)
    assert ix.count == 204 and ix.find(299) == 203
    ix.drop(lambda i: ix.no[i] < 100)
    ix.trim()
    assert ix.count == 4 and len(ix.no) <= 4 + 16


# -- the acks file -----------------------------------------------------------------------------


def _acks_file(root, games):
    # An acks file acking ``games`` in this order, written from records.py alone.
    bodies = []
    for g in games:
        t, payload = R.encode((R.ACK, g))
        bodies.append(bytes([len(payload), t]) + payload)
    data = R.build(bodies)
    with open(root + "/acks.tgj", "wb") as f:
        f.write(data)
    return data


def test_the_acks_are_read_as_records_scan_reads_them_however_damaged():
    # Journal._walk_acks checks each ACK in its record buffer (live.ack_of): the same acks as the
    # full scan of records.py finds, in a clean file and with bytes changed, cut or added.
    root = fresh_root()
    Journal(root)  # makes the folder
    rng = Rng(11)
    for trial in range(40):
        data = bytearray(_acks_file(root, [rng.between(1, 1 << 20) for _ in range(30)]))
        for _ in range(trial % 4):
            data[rng.below(len(data))] ^= 1 << rng.below(8)
        if trial % 5 == 4:
            data = data[: rng.between(3, len(data))] + b"\x01\x07"
        with open(root + "/acks.tgj", "wb") as f:
            f.write(data)
        want = set(rec[1] for _, _, rec in R.scan(bytes(data)) if rec[0] == R.ACK)
        assert Journal(root).acked() == want, trial


def test_the_acks_are_read_without_an_object_per_ack():
    if not IS_MICROPYTHON:
        skip("counts MicroPython heap bytes (micropython.mem_total) on VfsLfs2")
    import gc

    root = fresh_root(dev=QuietRam(4096, 64))
    j = Journal(root, margin=0, reserve=0)
    for s in range(3):
        journal_game(j, Rng(40 + s), 10)

    def rebuild():
        j = Journal(root)
        gc.collect()
        t = micropython.mem_total()
        j.rebuild()
        return micropython.mem_total() - t, j

    size = len(_acks_file(root, range(1, 501)))  # 500 acks, all but 3 of games not kept
    with_acks, j = rebuild()
    assert [x[3] for x in j.games()] == [True, True, True]
    os.remove(root + "/acks.tgj")
    without, _ = rebuild()
    # One buffer the file's size and a few objects; an object per ack would be 8 KB or more.
    assert with_acks - without <= size + 1024, (with_acks, without, size)


def test_the_acks_file_keeps_the_games_kept_and_few_more():
    root = fresh_root(96)
    j = Journal(root, margin=0, reserve=0)
    for s in range(5):
        journal_game(j, Rng(40 + s), 10)
    path = root + "/acks.tgj"
    # Acks of games 1-3 and of 50 games not kept: an ack appends one record.
    _acks_file(root, [1, 2, 3] + list(range(100, 150)))
    j = Journal(root, margin=0, reserve=0)
    size = len(read_file(path))
    assert j.ack(4) == OK and len(read_file(path)) == size + 7
    assert j.ack(4) == OK and len(read_file(path)) == size + 7  # acked already: not again
    # Past _ACKS_STALE acks of games not kept, the next ack rewrites it with the kept ones.
    _acks_file(root, [1, 2, 3] + list(range(100, 200)))
    j = Journal(root, margin=0, reserve=0)
    assert j.ack(4) == OK
    assert j.acked() == {1, 2, 3, 4} and len(read_file(path)) == 4 + 4 * 7
    # A damaged record: its ack is lost (said in the log); the next ack rewrites the file.
    data = bytearray(read_file(path))
    data[4 + 7 + 2] ^= 0x40  # game 2's number: its CRC fails (the next is chained on the CRC)
    with open(path, "wb") as f:
        f.write(data)
    logs = []
    j = Journal(root, log=logs.append, margin=0, reserve=0)
    assert [x[3] for x in j.games()] == [True, False, True, True, False] and logs
    assert j.ack(5) == OK and j.ack(2) == OK
    assert j.acked() == {1, 2, 3, 4, 5} and len(read_file(path)) == 4 + 5 * 7
    assert [x[3] for x in Journal(root).games()] == [True] * 5
