"""A game's stored bytes check themselves (``records.check``): the packed blob's seal, the live
file's CRC chain, blobs packed before the seal, and bad bytes that must never raise.

Runs on both runtimes; on MicroPython the journal is on a real LittleFS (``fresh_root``).
"""

from firmware.store import Journal
from firmware.store import records as R
from tests.support import Rng
from tests.test_journal import HEADER, fresh_root, journal_game, play

# Game 3 (9x9, four moves, an incident, a result) as the firmware before the seal packed it
# (``git show 4cb3f22:firmware/store/records.py``, ``pack``).
OLD_BLOB = bytes.fromhex(
    "033a0600121e00043139383800076669736368657202809f49904e0754472d3030303180e4ad950d137b"
    "22626c61636b223a2022e69fafe6b481227d050d018409e807809f4900809f4900c080bb000707030288"
    "40014600c0813801f80f7d000d0401020004"
)
OLD_HEADER = {
    "game_no": 3,
    "kind": R.GO,
    "size": 9,
    "komi2": 15,
    "handicap": 0,
    "rules": "1988",
    "opening": "",
    "tc": "fischer",
    "tc_figures": (600000, 5000),
    "board_id": "TG-0001",
    "start": 1767225600,
    "extra": '{"black": "\u67ef\u6d01"}',
}
OLD_RECORDS = [
    (R.HEADER, OLD_HEADER),
    (R.MOVE, 1, 1, 4 << 5 | 4, 1000, (600000, 0, 600000, 0)),
    (R.MOVE, 2, 2, 2 << 5 | 6, 4000, (600000, 0, 597000, 0)),
    (R.INCIDENT, 3, 2, 4100, (2 << 5 | 6,), 0),
    (R.MOVE, 3, 1, 6 << 5 | 2, 9000, (595000, 0, 597000, 0)),
    (R.MOVE, 4, 2, R.PASS, 11000, (595000, 0, 595000, 0)),
    (R.RESULT, 1, 2, 0, 4),
]


def _changes(data, p, every=False):
    # The one-byte changes tried at ``p``: every other value, or four that differ in low,
    # high, all and middle bits.
    b = data[p]
    if every:
        return [v for v in range(256) if v != b]
    return sorted(set((b ^ 0x01, b ^ 0x80, b ^ 0xFF, (b + 0x41) & 0xFF)))


def _every_change_caught(data, first):
    # Every one-byte change of ``data`` (every value near both ends, four elsewhere) is
    # DAMAGED from byte ``first`` on, and never SOUND before it. Returns the count tried.
    n = 0
    size = len(data)
    for p in range(size):
        for v in _changes(data, p, p < 8 or p >= size - 8):
            b = bytearray(data)
            b[p] = v
            status, why = R.check(b)
            n += 1
            if p >= first:
                assert status == R.DAMAGED and why, (p, v, status, why)
            else:
                assert status != R.SOUND, (p, v, why)
    return n


def _game_bytes(finish):
    j = Journal(fresh_root(), free=lambda: 10 << 20)
    recs = journal_game(j, Rng(31), 40, finish=finish)
    g = recs[0][1]["game_no"]
    return j, g, bytes(j.read(g)), recs


def test_a_packed_game_ends_with_its_seal():
    j, g, blob, recs = _game_bytes(True)
    assert blob[:4] != R.MAGIC  # what Journal.read serves of a finished game: the blob
    assert blob[-7] == R.CHECK << 1 | 1 and blob[-6] == 5
    assert all(b >= 0x80 for b in blob[-5:])
    assert R.check(blob) == (R.SOUND, "")
    assert R.unpack(blob) == (g, recs)
    assert j.records(g) == recs
    # The seal is all it adds: 7 bytes a game.
    assert len(R.pack(g, recs)) == len(blob)
    unsealed = blob[:-7]
    assert R.unpack(unsealed) == (g, recs)


def test_every_one_byte_change_of_a_packed_game_is_caught():
    _, _, blob, _ = _game_bytes(True)
    n = _every_change_caught(blob, 0)
    assert n > 4 * len(blob)
    for p in range(0, len(blob), 3):  # unpack refuses them too, with Bad alone
        b = bytearray(blob)
        b[p] ^= 0x24
        try:
            R.unpack(b)
            raise AssertionError("a changed blob unpacked: byte %d" % p)
        except R.Bad:
            pass


def test_every_one_byte_change_of_a_live_game_is_caught():
    _, _, live, _ = _game_bytes(False)
    assert live[:4] == R.MAGIC and R.check(live) == (R.SOUND, "")
    # The magic's bytes changed make it a packed blob that does not decode (or, at worst, an
    # unsealed one): never sound.
    _every_change_caught(live, 4)


def test_a_blob_packed_before_the_seal_reads_but_is_not_called_sound():
    assert R.unpack(OLD_BLOB) == (3, OLD_RECORDS)
    assert R.check(OLD_BLOB) == (R.UNSEALED, R.NO_CHECKSUM)
    assert R.NO_CHECKSUM == "no checksum (old format)"
    # Packed today, the same game is the old bytes and the seal.
    sealed = R.pack(3, OLD_RECORDS)
    assert bytes(sealed[:-7]) == OLD_BLOB and R.check(sealed) == (R.SOUND, "")
    # A change the old bytes still decode with is not caught by them: only "no checksum".
    changed = bytearray(OLD_BLOB)
    changed[-2] ^= 1  # the result's margin
    assert R.check(changed) == (R.UNSEALED, R.NO_CHECKSUM)
    # A seal cut off leaves an old-format blob: not sound either.
    assert R.check(sealed[:-7]) == (R.UNSEALED, R.NO_CHECKSUM)


def test_a_check_record_that_is_not_the_seal_is_refused():
    sealed = R.pack(3, OLD_RECORDS)
    twice = R.seal(bytearray(sealed))  # a seal, then another: the first is not last
    assert R.check(twice) == (R.DAMAGED, "does not decode (check record not a seal)")
    try:
        R.unpack(twice)
        raise AssertionError("two seals unpacked")
    except R.Bad:
        pass


def _bad_utf8_header():
    payload = bytearray(R.encode_header(dict(HEADER, game_no=5, rules="1988")))
    at = bytes(payload).find(b"1988")
    payload[at] = 0xFF  # a string that is not UTF-8
    return bytes(payload)


def test_bad_utf8_in_a_header_string_is_damage_not_a_crash():
    payload = _bad_utf8_header()
    try:
        R.decode_header(payload, 0, len(payload))
        raise AssertionError("bad UTF-8 decoded")
    except R.Bad as e:
        assert "utf-8" in str(e)
    # Live: the record's CRC holds (written so), its payload does not decode.
    live = R.build([bytes([len(payload), R.HEADER]) + payload])
    status, why = R.check(live)
    assert status == R.DAMAGED and "utf-8" in why, why
    # Packed and sealed afresh: the seal holds, the header does not decode.
    blob = bytearray()
    R.put_u(blob, 5)
    R.put_u(blob, len(payload))
    blob.extend(payload)
    R.seal(blob)
    status, why = R.check(blob)
    assert status == R.DAMAGED and "utf-8" in why, why
    # The board's journal keeps going past such a file.
    root = fresh_root()
    logs = []
    j = Journal(root, log=logs.append, free=lambda: 10 << 20)
    with open(root + "/g000005.tgj", "wb") as f:
        f.write(live)
    assert j.records(5) == [] and j.resume() is None
    assert any("utf-8" in m for m in logs), logs


def test_check_never_raises_on_bad_bytes():
    recs = [(R.HEADER, R.full_header(dict(HEADER, game_no=9)))] + play(Rng(41), 30)
    recs.append((R.RESULT, 2, 1, 0, 30))
    blob = bytes(R.pack(9, recs))
    bodies = []
    for rec in recs:
        t, payload = R.encode(rec)
        bodies.append(bytes([len(payload), t]) + payload)
    live = bytes(R.build(bodies))
    assert R.check(live) == (R.SOUND, "")
    for data in (b"", b"\x00", R.MAGIC, R.PACK_MAGIC, b"\xff" * 40, b"\x11\x05" + b"\x80" * 5):
        assert R.check(data)[0] == R.DAMAGED, data
    assert R.check(R.MAGIC)[1] == "no header record"
    rng = Rng(7)
    for _ in range(300):
        data = bytearray(blob if rng.below(2) else live)
        k = rng.below(3)
        if k == 0:
            data = data[: rng.below(len(data))]  # cut short
        elif k == 1:
            for _ in range(1 + rng.below(6)):
                data[rng.below(len(data))] = rng.below(256)
        else:
            data = bytearray(rng.below(256) for _ in range(rng.below(80)))
        status, why = R.check(data)
        assert status in (R.SOUND, R.UNSEALED, R.DAMAGED)
        if status == R.SOUND:  # only a live file cut after a whole record
            assert live.startswith(bytes(data)), data
        try:
            R.unpack(data)
        except R.Bad:
            pass
