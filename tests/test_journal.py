"""The games journal (firmware/store/): formats, round trips, resume, corruption, eviction.

On MicroPython every test runs on a real LittleFS (``VfsLfs2`` on the RAM block device of
``firmware/store/blockdev.py``, mounted afresh); on CPython on a temporary folder. The
power-cut sweep is in ``test_journal_powercut.py``.
"""

import os

from firmware.store import E_FULL, E_NO_GAME, OK, Journal, read_file, write_atomic
from firmware.store import records as R
from firmware.store.blockdev import FileBlockDevice, RamBlockDevice
from tests.support import IS_MICROPYTHON, Rng, skip

PICO_BLOCKS = 352  # 1,408 KiB of 4,096-byte blocks: the rp2 port's filesystem on a Pico
_mounts = []


def fresh_root(blocks=64, dev=None):
    """An empty folder for a journal: on a new LittleFS (MicroPython) or a temp dir."""
    if IS_MICROPYTHON:
        import vfs

        while _mounts:
            vfs.umount(_mounts.pop())
        dev = dev or RamBlockDevice(4096, blocks)
        vfs.VfsLfs2.mkfs(dev)
        mp = "/jt%d" % len(_mounts)
        vfs.mount(vfs.VfsLfs2(dev, progsize=256), mp)
        _mounts.append(mp)
        return mp + "/games"
    import atexit
    import shutil
    import tempfile

    d = tempfile.mkdtemp(prefix="tengen-journal-")
    atexit.register(shutil.rmtree, d, True)
    return d + "/games"


def used_bytes(root, block=4096):
    """Bytes the files under ``root`` take, each rounded up to whole blocks (as LittleFS)."""
    n = 0
    for name in os.listdir(root):
        n += (os.stat(root + "/" + name)[6] + block - 1) // block * block
    return n


HEADER = {
    "kind": R.GO,
    "size": 19,
    "komi2": 15,
    "handicap": 0,
    "rules": "1988",
    "opening": "",
    "tc": "chinese-byoyomi",
    "tc_figures": (1200000, 3, 30000),
    "board_id": "TG-0001",
    "start": 1767225600,
}


def play(rng, n=250, main=1200000, period=30000, periods=3, tick=1000):
    """A realistic game's move records: 20 min each, then 3 x 30 s byo-yomi periods.

    Points are random (legality does not matter to the journal); a turn takes 1-25 s in main
    time, 1-29 s in byo-yomi with now and then a period used up; now and then a pause adds to
    the time between presses, and a pass.
    """
    clocks = [main, periods, main, periods]
    moves = []
    colour = 1
    for ply in range(1, n + 1):
        m = 0 if colour == 1 else 2
        if clocks[m] > 0:
            used = rng.between(1000, 25000)
            clocks[m] = max(0, clocks[m] - used)
        else:
            used = rng.between(1000, 29000)
            if rng.below(20) == 0 and clocks[m + 1] > 1:
                clocks[m + 1] -= 1
                used += period
        gap = used + (rng.between(1000, 90000) if rng.below(40) == 0 else 0)
        tick = (tick + gap) % (1 << 30)
        point = R.PASS if rng.below(60) == 0 else rng.below(19) << 5 | rng.below(19)
        moves.append((R.MOVE, ply, colour, point, tick, tuple(clocks)))
        colour = 3 - colour
    return moves


def journal_game(j, rng, n=60, finish=True):
    """Play a game into journal ``j``: its header, moves, some incidents, an edit, a result.

    Returns the records as they should read back (the header with its game number).
    """
    assert j.begin(HEADER) == OK
    h = R.full_header(HEADER)
    h["game_no"] = j.game_no
    out = [(R.HEADER, h)]
    for rec in play(rng, n):
        assert j.move(*rec[1:]) == OK
        out.append(rec)
        if rec[1] % 17 == 0:
            inc = (R.INCIDENT, 3, rec[1], 5000 + rec[1], (rec[3], 40, 41), 0)
            assert j.incident(*inc[1:]) == OK
            out.append(inc)
        if rec[1] == 30:
            ed = (R.EDIT, 2, 30, 123456, (1, 60000, -1))
            assert j.edit(*ed[1:]) == OK
            out.append(ed)
            ck = (R.CLOCKS, 30, (60000, 3, rec[5][2], 3))
            assert j.clocks(*ck[1:]) == OK
            out.append(ck)
    if finish:
        res = (R.RESULT, 1, 2, 7, n)
        assert j.result(*res[1:]) == OK
        out.append(res)
    return out


# -- formats ---------------------------------------------------------------------------------


def test_varints_round_trip():
    for n in (0, 1, 63, 64, 127, 128, 16383, 16384, 2**21, 2**28, 2**30 - 1, 2**35 - 1):
        buf = bytearray()
        R.put_u(buf, n)
        assert R.get_u(buf, 0, len(buf)) == (n, len(buf))
        for v in (n, -n, -n - 1):
            buf = bytearray()
            R.put_z(buf, v)
            assert R.get_z(buf, 0, len(buf)) == (v, len(buf))


def test_every_record_kind_round_trips_live_and_packed():
    recs = [(R.HEADER, R.full_header(dict(HEADER, game_no=7, extra='{"note": "第一局"}')))]
    recs += play(Rng(5), 120)
    recs.insert(10, (R.INCIDENT, 11, 9, -5, (), -3))
    recs.insert(20, (R.EDIT, 1, 18, 999, ()))
    recs.insert(30, (R.CLOCKS, 28, (1, 2, 3, 4)))
    recs.append((R.MOVE, 200, 1, R.PASS, (1 << 30) - 1, (0, 0)))  # a jump: the long form
    recs.append((R.MOVE, 201, 2, 18 << 5 | 18, 5, (0, 0)))
    recs.append((R.RESULT, 2, 4, -1, 201))
    bodies = []
    for rec in recs:
        t, payload = R.encode(rec)
        bodies.append(bytes([len(payload), t]) + payload)
    live = R.build(bodies)
    assert [r for _, _, r in R.scan(live)] == recs
    game_no, back = R.unpack(R.pack(7, recs))
    assert game_no == 7 and back == recs


def test_header_defaults_and_unknown_fields():
    h = R.decode_header(R.encode_header({"size": 15}), 0, len(R.encode_header({"size": 15})))
    assert h["size"] == 15 and h["rules"] == "" and h["tc_figures"] == () and h["start"] == 0
    try:
        R.encode_header({"colour": 1})
        raise AssertionError("unknown field accepted")
    except ValueError:
        pass


def test_move_record_and_game_sizes_meet_the_budget():
    moves = play(Rng(11), 250, main=7200000)
    sizes = [len(R.frame(*R.encode(m), R.MAGIC)) for m in moves]
    assert max(sizes) <= 24, max(sizes)
    assert 20 <= sum(sizes) // len(sizes) <= 24
    recs = [(R.HEADER, dict(HEADER, game_no=999))] + play(Rng(12), 250)
    blob = R.pack(999, recs)
    entry = len(R.pack_entry(blob, R.PACK_MAGIC))
    # ~4 bytes a move (modes 0 and 1); long forms for periods used up and around pauses.
    assert entry <= 1300, entry
    # 1,000 such games in packs of 64 KiB, each pack wasting at most one part-filled block,
    # beside the live game (2 blocks), settings and LittleFS's own (~10 blocks).
    packs = (1000 * entry + 65535) // 65536
    need = 1000 * entry + packs * 4096 + 12 * 4096
    assert need <= PICO_BLOCKS * 4096, need


def test_thousand_games_of_250_moves_fit_in_the_pico_filesystem():
    if not IS_MICROPYTHON:
        skip("needs VfsLfs2 (MicroPython)")
    # On a file: the unix port's default heap has no room for 1,408 KiB in one piece.
    # A name of its own: two test runs on one machine must not share the file.
    import binascii

    tmp = os.getenv("TMPDIR") or "/tmp"
    path = "%s/tengen-pico-flash-%s.bin" % (tmp, binascii.hexlify(os.urandom(6)).decode())
    try:
        os.remove(path)
    except OSError:
        pass
    dev = FileBlockDevice(path, 4096, PICO_BLOCKS)
    try:
        _thousand_games(fresh_root(dev=dev))
    finally:
        import vfs

        vfs.umount(_mounts.pop())
        dev.close()
        os.remove(path)


def _thousand_games(root):
    j = Journal(root)
    blobs = []
    for s in range(8):
        recs = [(R.HEADER, R.full_header(HEADER))] + play(Rng(100 + s), 250)
        blobs.append(recs)
    for g in range(1, 1001):
        recs = blobs[g % 8]
        recs[0][1]["game_no"] = g
        assert j.store(R.pack(g, recs)) == OK, g
    listed = j.games()
    assert len(listed) == 1000 and listed[-1][0] == 1000
    free = j.free()
    # Room is left for the game being played and for settings.
    assert free >= 24 * 1024, free
    assert j.records(1000) == blobs[0]
    # And a new game can begin (its number follows) and be journaled.
    assert j.begin(HEADER) == OK and j.game_no == 1001
    assert j.move(1, 1, 3 << 5 | 3, 5, (100, 0, 100, 0)) == OK


# -- the journal -----------------------------------------------------------------------------


def test_round_trip_through_live_file_and_pack():
    root = fresh_root()
    j = Journal(root)
    expected = journal_game(j, Rng(1), 80, finish=False)
    g = j.game_no
    assert g == 1
    assert j.records(g) == expected
    assert j.games() == [(g, len(j.read(g)), False, False)]
    assert j.result(2, 1, 0, 80) == OK
    expected.append((R.RESULT, 2, 1, 0, 80))
    assert j.game_no == 0
    assert not [n for n in os.listdir(root) if n.endswith(".tgj")]  # packed
    assert j.records(g) == expected
    (listed,) = j.games()
    assert listed[0] == g and listed[2] is True and listed[3] is False
    assert R.unpack(j.read(g)) == (g, expected)
    # A second game takes the next number and a fresh journal sees both.
    expected2 = journal_game(j, Rng(2), 10)
    assert j.game_no == 0 and expected2[0][1]["game_no"] == 2
    j2 = Journal(root)
    assert [x[0] for x in j2.games()] == [1, 2]
    assert j2.records(2) == expected2
    assert j2.resume() is None


def test_no_game_no_write():
    j = Journal(fresh_root())
    assert j.move(1, 1, 0, 0, (1, 2, 3, 4)) == E_NO_GAME
    assert j.result(1, 1) == E_NO_GAME


def test_resume_returns_the_unfinished_game_and_appends_to_it():
    root = fresh_root()
    j = Journal(root)
    journal_game(j, Rng(3), 12)  # finished
    expected = journal_game(j, Rng(4), 45, finish=False)
    logs = []
    j2 = Journal(root, log=logs.append)  # reboot
    state = j2.resume()
    assert state is not None and not logs
    assert state["game_no"] == 2 == j2.game_no
    assert state["header"] == expected[0][1]
    moves = [r[1:] for r in expected if r[0] == R.MOVE]
    assert state["moves"] == moves
    assert state["clocks"] == moves[-1][4]
    assert state["incidents"] == [r[1:] for r in expected if r[0] == R.INCIDENT]
    assert state["edits"] == [r[1:] for r in expected if r[0] == R.EDIT]
    assert state["records"] == expected
    assert j2.move(46, 2, 4 << 5 | 4, 77, (1, 2, 3, 4)) == OK
    assert j2.records(2)[-1] == (R.MOVE, 46, 2, 4 << 5 | 4, 77, (1, 2, 3, 4))
    assert j2.clocks(46, (5, 6, 7, 8)) == OK
    assert Journal(root).resume()["clocks"] == (5, 6, 7, 8)


def test_a_cut_inside_begin_leaves_no_phantom_game():
    # The power cut after begin() made the live file (empty, or its magic alone) and before
    # the header was written: the next boot lists no such game, and numbering goes on.
    for stub in (b"", R.MAGIC, R.MAGIC + b"\x05\x01"):
        root = fresh_root()
        j = Journal(root)
        journal_game(j, Rng(3), 12)  # game 1, finished
        with open(_live_file(root, 2), "wb") as f:
            f.write(stub)
        write_atomic(root + "/next", b"3")
        logs = []
        j2 = Journal(root, log=logs.append)  # reboot
        assert j2.resume() is None
        assert [g[0] for g in j2.games()] == [1]
        assert j2.state(2) is None
        assert "g000002.tgj" not in os.listdir(root)
        assert any("game 2 has no record" in line for line in logs), logs
        assert j2.begin(HEADER) == OK and j2.game_no == 3
        assert [g[0] for g in Journal(root).games()] == [1, 3]


def _live_file(root, g):
    return "%s/g%06d.tgj" % (root, g)


def _damaged(edit):
    # A journal of 30 moves whose live file is changed by edit(data, offsets); resumed.
    root = fresh_root()
    j = Journal(root)
    expected = journal_game(j, Rng(9), 30, finish=False)
    path = _live_file(root, j.game_no)
    data = bytearray(read_file(path))
    offsets = [p for p, _, _ in R.scan(data)]
    data = edit(data, offsets)
    with open(path, "wb") as f:
        f.write(data)
    logs = []
    j2 = Journal(root, log=logs.append)
    state = j2.resume()
    return expected, state, logs, j2


def test_bad_crc_in_last_record_drops_it_with_a_log_line():
    def edit(data, offsets):
        data[offsets[-1] + 3] ^= 0x40
        return data

    expected, state, logs, j2 = _damaged(edit)
    assert state["records"] == expected[:-1]
    assert logs and "tail" in logs[0]
    # The file was repaired: the next record chains on and a fresh boot reads it cleanly.
    assert j2.move(31, 1, 5, 9, (1, 1, 1, 1)) == OK
    logs2 = []
    again = Journal(j2.root, log=logs2.append).resume()
    assert not logs2 and again["records"] == expected[:-1] + [(R.MOVE, 31, 1, 5, 9, (1, 1, 1, 1))]


def test_truncated_tail_is_dropped():
    for cut in (1, 3, 6, 10):

        def edit(data, offsets, cut=cut):
            return data[: len(data) - cut]

        expected, state, logs, _ = _damaged(edit)
        assert state["records"] == expected[:-1], cut
        assert len(logs) >= 1


def test_bad_middle_record_is_skipped_and_the_rest_kept():
    def edit(data, offsets):
        data[offsets[10] + 4] ^= 0xFF  # inside the payload of record 10
        return data

    expected, state, logs, _ = _damaged(edit)
    assert state["records"] == expected[:10] + expected[11:]
    assert any("skipped" in m for m in logs), logs


def test_garbage_length_in_a_middle_record():
    def edit(data, offsets):
        data[offsets[5]] = 250  # a length past the record: framing lost until the next one
        return data

    expected, state, logs, _ = _damaged(edit)
    assert state["records"] == expected[:5] + expected[6:]
    assert logs


def test_garbage_appended_and_header_destroyed_do_not_crash():
    def edit(data, offsets):
        return data + bytes(range(200))

    expected, state, logs, _ = _damaged(edit)
    assert state["records"] == expected and logs

    def edit2(data, offsets):
        data[offsets[0] + 2] ^= 1
        return data

    expected, state, logs, j2 = _damaged(edit2)
    assert state is None and any("no header" in m for m in logs)
    assert j2.games()  # still listed for the PC to fetch


def test_corrupt_pack_entry_is_skipped():
    root = fresh_root()
    logs = []
    j = Journal(root, log=logs.append)
    journal_game(j, Rng(21), 20)
    second = journal_game(j, Rng(22), 20)
    path = root + "/p0001.tgp"
    data = bytearray(read_file(path))
    data[-3] ^= 0x10  # the last entry's CRC
    with open(path, "wb") as f:
        f.write(data)
    # The running journal checks an entry before serving it; a reboot rebuilds the index from
    # the packs, and the damaged entry is not listed.
    assert j.read(2) is None and j.records(2) == [] and second
    assert logs and "damaged" in logs[-1]
    j = Journal(root, log=logs.append)
    assert [x[0] for x in j.games()] == [1]
    assert "bad entry" in logs[-1]
    # The journal goes on: the next game goes to a new pack (the damaged one is kept for the
    # PC to save what it can) and is found again.
    third = journal_game(j, Rng(23), 15)
    assert third[0][1]["game_no"] == 3
    assert [x[0] for x in j.games()] == [1, 3]
    assert j.records(3) == third
    assert sorted(n for n in os.listdir(root) if n.endswith(".tgp")) == ["p0001.tgp", "p0002.tgp"]


def test_write_atomic_replaces_whole():
    root = fresh_root()
    Journal(root)
    path = root + "/settings.json"
    assert write_atomic(path, b'{"volume": 3}')
    assert read_file(path) == b'{"volume": 3}'
    with open(path + ".tmp", "wb") as f:  # a cut after the temp file was half written
        f.write(b'{"vol')
    assert read_file(path) == b'{"volume": 3}'
    assert write_atomic(path, b'{"volume": 5}')
    assert read_file(path) == b'{"volume": 5}'
    assert read_file(root + "/missing") is None


# -- acks and eviction -----------------------------------------------------------------------


def test_only_acked_games_are_evicted():
    root = fresh_root(96)
    state = {"capacity": 10**9}

    def free():
        return state["capacity"] - used_bytes(root)

    logs = []
    j = Journal(root, log=logs.append, free=free, margin=12 * 1024, reserve=8 * 1024, pack_max=1)
    for s in range(6):
        journal_game(j, Rng(30 + s), 20)
    assert [x[0] for x in j.games()] == [1, 2, 3, 4, 5, 6]
    assert j.ack(2) == OK and j.ack(5) == OK and j.ack(5) == OK
    assert j.acked() == {2, 5}
    assert [x[3] for x in j.games()] == [False, True, False, False, True, False]
    # Space runs low: begin evicts the acked games (one pack each here) and no other.
    state["capacity"] = used_bytes(root) + 6 * 1024
    assert j.begin(HEADER) == OK
    assert [x[0] for x in j.games() if x[2]] == [1, 3, 4, 6]
    assert any("evicted" in m for m in logs)
    assert j.result(0, 0) == OK
    # Nothing acked left: a full disk is an error code, and nothing is deleted.
    state["capacity"] = used_bytes(root) + 4 * 1024
    assert j.begin(HEADER) == E_FULL
    assert [x[0] for x in j.games()] == [1, 3, 4, 6, 7]
    assert j.evict(10**6) == 0


def test_full_flash_of_unacked_games_gives_e_full_not_a_crash():
    if not IS_MICROPYTHON:
        skip("needs VfsLfs2 (MicroPython) to run out of blocks")
    root = fresh_root(24)
    j = Journal(root, margin=0, reserve=0, pack_max=1)
    rng = Rng(40)
    errors = []
    for _ in range(40):  # far more games than 24 blocks hold
        err = j.begin(HEADER)
        if err:
            errors.append(err)
            break
        for rec in play(rng, 40):
            err = j.move(*rec[1:])
            if err:
                break
        if err:
            errors.append(err)
            break
        err = j.result(1, 1)
        if err:
            errors.append(err)
            break
    assert errors == [E_FULL], errors
    kept = j.games()
    assert kept and all(not acked for _, _, _, acked in kept)
    # The PC acks the finished games: space comes back and journaling goes on.
    for g, _, done, _ in kept:
        if done:
            assert j.ack(g) in (OK, E_FULL)
    j2 = Journal(root, margin=16 * 1024, reserve=8 * 1024, pack_max=1)
    j2.resume()
    assert j2.begin(HEADER) == OK
    assert j2.move(1, 1, 0, 0, (1, 0, 1, 0)) == OK
