"""The journal's byte formats: live records (one per event, checksummed) and packed games.

Start reading at ``frame``. Two forms of the same records:

Live form (the game being played, ``/games/g000123.tgj``): the file starts with ``MAGIC``;
then records ``[len u8][type u8][payload: len bytes][crc32 u32 LE]``. The CRC covers
``len``, ``type`` and the payload and is seeded with the 4 bytes just before the record (the
previous record's CRC, or the magic for the first): a checksum chain, so a record cannot be
dropped, repeated or moved without the next one failing, and a reader can resynchronise at any
offset without other state. A payload over 255 bytes (only a header: the players' names, up
to 32 characters each, may not fit in 255) takes the long form ``[len & 255][type | LONG]
[len >> 8][payload][crc32]``, the CRC covering the three bytes before the payload. Payloads
are unsigned LEB128 varints (``u``) or zigzag varints (``z``, for figures that may be
negative):

    HEADER   the game's fixed fields, in HEADER_FIELDS order (ints ``z``, strings len+utf-8,
             tuples count+``z`` each)
    MOVE     ply u, colour<<10|point u, tick u, clocks z...   (clocks: the rest of the payload)
    INCIDENT kind u, move_no u, time_ms z, n u, points u..., detail z
    EDIT     kind u, move_no u, time_ms z, n u, args z...     (arbiter edits)
    CLOCKS   move_no u, clocks z...                           (a snapshot: pause, adjust)
    RESULT   winner u, reason u, margin2 z, move_no u
    ACK      game_no u                                        (the acks file)

A move with clocks ``(b_main_ms, b_units, w_main_ms, w_units)`` of a two-hour game at move
200 and a tick below 2**28 is 1+1 + 2+2+4 + 4+1+4+1 + 4 = 24 bytes; early moves and short
games 20-23.

Packed form (finished games, appended to ``/games/p0001.tgp``): the pack starts with
``PACK_MAGIC``; then entries ``[len u32 LE][blob][crc32 u32 LE]``, chained like records. A
blob is ``game_no u, header length u, header payload``, then the records and last its seal
(below); a record is either

    compact move, 4 bytes u32 LE (bit 0 clear):
        bit 1 mode, bit 2 colour flip, bits 3-11 point index, bits 12-31 x (20 bits)
        mode 0: only the mover's main figure changed, by -x ms; the press came x + r ms
                after the previous one (r: the previous move's tick minus time used: pauses,
                increments), unchanged
        mode 1: no figure changed (byo-yomi within a period); the press came x ms later
    or any record in its live payload: ``(type << 1 | 1) u8, payload length u, payload``.

The point index is ``y * size + x`` (511: pass); "flip" means the colour is not the one that
alternation predicts. A move that fits neither mode (a period used up, an increment bigger
than the move, the first move, a jump in ply) takes the long form.

The blob ends with its seal, the finished game's own checksum (the pack entry's CRC stays on
the board; what the link's ``get`` serves, and the PC keeps as the game's ``.bin``, is the
blob alone): 7 bytes,

    CHECK    0x11 (CHECK << 1 | 1), 0x05, then the CRC32 of every byte of the blob before it
             (the 0x11 and 0x05 included) in five bytes of 7 bits, least significant first,
             each with bit 7 set

The five bytes never end a varint, so no one-byte change makes a sealed blob read as an
unsealed one: changed, the 0x11 turns the seal into a record (or a compact move) whose
varints run off the end, the 0x05 leaves a CHECK record that is not a seal, and any other
byte fails the CRC (CRC32 catches every change within 32 bits). ``unpack`` and ``check``
verify it. Blobs packed before the seal existed (no CHECK record; their last record is the
RESULT, whose last byte is below 0x80, so they never look sealed) still unpack as before;
``check`` says "no checksum (old format)" of them, never that they are sound. Live files
need no seal: their records are chained (above). ``check(data)`` takes either form.

Budget (SPEC §5: >= 1,000 games of 250 moves in the Pico's 1,408 KiB = 1,441,792 bytes).
Live records cannot meet it: 250 x 24 = 6,000 bytes a game, and LittleFS gives every file
at least one 4,096-byte block, so one file per game caps the board at ~350 games. Packed,
a move is 4 bytes (modes 0 and 1; the long form for a period used up or around a pause):
a 250-move game with 20 min + 3 x 30 s byo-yomi and a few pauses is ~1,240 bytes with its
header, its seal (7 bytes) and entry framing. ``tests/test_journal.py`` packs 1,000 such
games into a VfsLfs2 of 1,408 KiB: 19 packs, ~100 KiB left free for the live game (~6 KB),
settings and calibration.
"""

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - CPython's binascii has crc32 too; kept for clarity
    from zlib import crc32

MAGIC = b"TGJ1"
PACK_MAGIC = b"TGP1"

HEADER = 1
MOVE = 2
INCIDENT = 3
EDIT = 4
CLOCKS = 5
RESULT = 6
ACK = 7
CHECK = 8  # packed form only: the seal, a blob's last record
LONG = 0x80  # live form: set in the type byte of a record over 255 bytes (``frame``)
NAMES = ("", "header", "move", "incident", "edit", "clocks", "result", "ack", "check")

# What ``check`` finds: the bytes are whole; a blob packed before the seal (it decodes, but
# nothing shows it is whole); damaged.
SOUND = 0
UNSEALED = 1
DAMAGED = 2
NO_CHECKSUM = "no checksum (old format)"

PASS = 1023  # the point code of a pass (points are y << 5 | x)
_PASS_INDEX = 511
_TICK_MOD = 1 << 30  # the RP2040's ticks_ms period
_X_MAX = 1 << 20

# Game kinds (header "kind").
GO = 0
RENJU = 1
STANDARD = 2
FREESTYLE = 3

# (name, type): "i" int, "s" str, "t" tuple of ints. Order is the format: only append.
HEADER_FIELDS = (
    ("game_no", "i"),
    ("kind", "i"),  # GO, RENJU, STANDARD, FREESTYLE
    ("size", "i"),
    ("komi2", "i"),  # komi in half points
    ("handicap", "i"),
    ("rules", "s"),  # rules preset, e.g. "1988", "2013"
    ("opening", "s"),  # opening rule (Renju), "" for none
    ("tc", "s"),  # time-control name
    ("tc_figures", "t"),  # its figures (ms, counts), as the clock's control takes them
    ("board_id", "s"),
    ("start", "i"),  # calendar time (seconds) or 0 if the clock was never set
    ("extra", "s"),  # anything else the app wants kept (e.g. JSON), "" by default
)
_DEFAULTS = {"i": 0, "s": "", "t": ()}


class Bad(ValueError):
    """A payload that does not decode."""


# -- varints -----------------------------------------------------------------------------


def put_u(buf, n):
    """Append the unsigned LEB128 varint of ``n`` (>= 0) to bytearray ``buf``."""
    if n < 0:
        raise ValueError("negative")
    while n > 0x7F:
        buf.append((n & 0x7F) | 0x80)
        n >>= 7
    buf.append(n)


def put_z(buf, n):
    """Append the zigzag varint of ``n`` (any sign)."""
    put_u(buf, n << 1 if n >= 0 else ((-n) << 1) - 1)


def get_u(data, p, end):
    """``(value, next offset)`` of the varint at ``p``; Bad past ``end`` or over 35 bits."""
    n = 0
    shift = 0
    while True:
        if p >= end or shift > 35:
            raise Bad("varint")
        b = data[p]
        p += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, p
        shift += 7


def get_z(data, p, end):
    n, p = get_u(data, p, end)
    return (n >> 1) if not n & 1 else -((n + 1) >> 1), p


def _u32(data, p):
    return data[p] | data[p + 1] << 8 | data[p + 2] << 16 | data[p + 3] << 24


def _put_u32(buf, n):
    buf.append(n & 0xFF)
    buf.append((n >> 8) & 0xFF)
    buf.append((n >> 16) & 0xFF)
    buf.append((n >> 24) & 0xFF)


# -- payloads ----------------------------------------------------------------------------


def _put_str(buf, s):
    b = s.encode() if isinstance(s, str) else bytes(s)
    put_u(buf, len(b))
    buf.extend(b)


def encode_header(header):
    """Payload of a header dict (keys of HEADER_FIELDS; a missing key takes its default)."""
    for k in header:
        if not any(k == name for name, _ in HEADER_FIELDS):
            raise ValueError("unknown header field: " + str(k))
    buf = bytearray()
    for name, t in HEADER_FIELDS:
        v = header.get(name, _DEFAULTS[t])
        if t == "i":
            put_z(buf, v)
        elif t == "s":
            _put_str(buf, v)
        else:
            put_u(buf, len(v))
            for x in v:
                put_z(buf, x)
    return bytes(buf)


def full_header(header):
    """``header`` with every field of HEADER_FIELDS (missing ones at their defaults)."""
    h = {}
    for name, t in HEADER_FIELDS:
        h[name] = header.get(name, _DEFAULTS[t])
    return h


def decode_header(data, p, end):
    h = {}
    for name, t in HEADER_FIELDS:
        if p >= end:  # written by an older firmware: later fields take their defaults
            h[name] = _DEFAULTS[t]
            continue
        if t == "i":
            h[name], p = get_z(data, p, end)
        elif t == "s":
            n, p = get_u(data, p, end)
            if p + n > end:
                raise Bad("string")
            try:
                h[name] = str(bytes(data[p : p + n]), "utf-8")
            except UnicodeError:  # CPython's UnicodeDecodeError is one
                raise Bad("utf-8 in " + name) from None
            p += n
        else:
            n, p = get_u(data, p, end)
            items = []
            for _ in range(n):
                v, p = get_z(data, p, end)
                items.append(v)
            h[name] = tuple(items)
    return h


def encode(rec):
    """Live payload of a decoded record ``(type, fields...)``: ``(type, payload bytes)``."""
    t = rec[0]
    buf = bytearray()
    if t == HEADER:
        return t, encode_header(rec[1])
    if t == MOVE:
        _, ply, colour, point, tick, clocks = rec
        put_u(buf, ply)
        put_u(buf, colour << 10 | point)
        put_u(buf, tick)
        for c in clocks:
            put_z(buf, c)
    elif t == INCIDENT:
        _, kind, move_no, time_ms, points, detail = rec
        put_u(buf, kind)
        put_u(buf, move_no)
        put_z(buf, time_ms)
        put_u(buf, len(points))
        for q in points:
            put_u(buf, q)
        put_z(buf, detail)
    elif t == EDIT:
        _, kind, move_no, time_ms, args = rec
        put_u(buf, kind)
        put_u(buf, move_no)
        put_z(buf, time_ms)
        put_u(buf, len(args))
        for a in args:
            put_z(buf, a)
    elif t == CLOCKS:
        _, move_no, clocks = rec
        put_u(buf, move_no)
        for c in clocks:
            put_z(buf, c)
    elif t == RESULT:
        _, winner, reason, margin2, move_no = rec
        put_u(buf, winner)
        put_u(buf, reason)
        put_z(buf, margin2)
        put_u(buf, move_no)
    elif t == ACK:
        put_u(buf, rec[1])
    else:
        raise ValueError("record type")
    if len(buf) > 255:
        raise ValueError("record too long")
    return t, bytes(buf)


def _zs(data, p, end):
    items = []
    while p < end:
        v, p = get_z(data, p, end)
        items.append(v)
    return tuple(items), p


def decode(t, data, p, end):
    """The record ``(type, fields...)`` of the payload ``data[p:end]``; Bad if malformed."""
    if t == HEADER:
        return (HEADER, decode_header(data, p, end))
    if t == MOVE:
        ply, p = get_u(data, p, end)
        cp, p = get_u(data, p, end)
        tick, p = get_u(data, p, end)
        clocks, p = _zs(data, p, end)
        return (MOVE, ply, cp >> 10, cp & 1023, tick, clocks)
    if t == INCIDENT:
        kind, p = get_u(data, p, end)
        move_no, p = get_u(data, p, end)
        time_ms, p = get_z(data, p, end)
        n, p = get_u(data, p, end)
        points = []
        for _ in range(n):
            q, p = get_u(data, p, end)
            points.append(q)
        detail, p = get_z(data, p, end)
        rec = (INCIDENT, kind, move_no, time_ms, tuple(points), detail)
    elif t == EDIT:
        kind, p = get_u(data, p, end)
        move_no, p = get_u(data, p, end)
        time_ms, p = get_z(data, p, end)
        n, p = get_u(data, p, end)
        args = []
        for _ in range(n):
            a, p = get_z(data, p, end)
            args.append(a)
        rec = (EDIT, kind, move_no, time_ms, tuple(args))
    elif t == CLOCKS:
        move_no, p = get_u(data, p, end)
        clocks, p = _zs(data, p, end)
        return (CLOCKS, move_no, clocks)
    elif t == RESULT:
        winner, p = get_u(data, p, end)
        reason, p = get_u(data, p, end)
        margin2, p = get_z(data, p, end)
        move_no, p = get_u(data, p, end)
        rec = (RESULT, winner, reason, margin2, move_no)
    elif t == ACK:
        g, p = get_u(data, p, end)
        rec = (ACK, g)
    else:
        raise Bad("type %d" % t)
    if p != end:
        raise Bad("length")
    return rec


# -- live framing ------------------------------------------------------------------------


def frame(t, payload, seed):
    """The bytes of one live record after a record (or magic) whose last 4 bytes are ``seed``.
    A payload over 255 bytes (a header with long names) takes the long form: ``LONG`` set in
    the type byte and the length's high byte after it."""
    n = len(payload)
    head = 2 if n <= 255 else 3
    buf = bytearray(n + head + 4)
    buf[0] = n & 0xFF
    buf[1] = t
    if head == 3:
        buf[1] = t | LONG
        buf[2] = n >> 8
    buf[head : head + n] = payload
    c = crc32(memoryview(buf)[: n + head], _u32(seed, 0)) & 0xFFFFFFFF
    buf[n + head] = c & 0xFF
    buf[n + head + 1] = (c >> 8) & 0xFF
    buf[n + head + 2] = (c >> 16) & 0xFF
    buf[n + head + 3] = (c >> 24) & 0xFF
    return buf


def _span(data, p, size):
    # (type, payload offset, payload length) of the record at p (p >= 4) if its length fits
    # and its chained CRC matches, else None.
    if p + 6 > size:
        return None
    n = data[p]
    t = data[p + 1]
    head = 2
    if t & LONG:
        t &= ~LONG
        if p + 7 > size:
            return None
        n |= data[p + 2] << 8
        head = 3
        if n <= 255:  # frame writes the long form only when the short one cannot hold it
            return None
    if t < HEADER or t > ACK or p + n + head + 4 > size:
        return None
    c = crc32(memoryview(data)[p : p + n + head], _u32(data, p - 4)) & 0xFFFFFFFF
    if c != _u32(data, p + n + head):
        return None
    return t, p + head, n


def scan(data, magic=MAGIC, log=None):
    """The valid records of a live file's bytes: a list of ``(offset, end, record)``.

    A record with a bad CRC, a length past the end or a payload that does not decode is
    skipped: the scan looks for the next offset where a valid record starts (its chain seed is
    whatever 4 bytes precede it) and carries on from there; an invalid tail is dropped. Each
    problem is reported through ``log(message)``.
    """
    out = []
    size = len(data)
    if size < 4 or bytes(data[:4]) != magic:
        if log:
            log("journal: bad magic, %d bytes ignored" % size)
        return out
    p = 4
    while p < size:
        span = _span(data, p, size)
        if span is not None:
            t, q, n = span
            try:
                rec = decode(t, data, q, q + n)
            except Bad as e:
                rec = None
                why = "undecodable %s (%s)" % (NAMES[t], e)
            if rec is not None:
                out.append((p, q + n + 4, rec))
                p = q + n + 4
                continue
        else:
            why = "bad record"
        q = p + 1
        while q < size and _span(data, q, size) is None:
            q += 1
        if log:
            if q >= size:
                log("journal: %s at byte %d: tail of %d bytes dropped" % (why, p, size - p))
            else:
                log("journal: %s at byte %d: %d bytes skipped" % (why, p, q - p))
        p = q
    return out


def build(bodies):
    """A live file from record bodies (``[len][type][payload]`` each, or the long form's
    ``[len & 255][type | LONG][len >> 8][payload]``), chained afresh."""
    buf = bytearray(MAGIC)
    for body in bodies:
        if body[1] & LONG:
            buf.extend(frame(body[1] & ~LONG, body[3:], buf[-4:]))
        else:
            buf.extend(frame(body[1], body[2:], buf[-4:]))
    return buf


# -- packed form -------------------------------------------------------------------------


def _pidx(point, size):
    if point == PASS:
        return _PASS_INDEX
    x = point & 31
    y = point >> 5
    if x >= size or y >= size:
        return -1
    return y * size + x


def _point(idx, size):
    if idx == _PASS_INDEX:
        return PASS
    return (idx // size) << 5 | idx % size


def pack(game_no, records):
    """The packed blob of a game's decoded records (the header first)."""
    buf = bytearray()
    put_u(buf, game_no)
    first = 1 if records and records[0][0] == HEADER else 0
    header = records[0][1] if first else {}
    hp = encode_header(header)
    put_u(buf, len(hp))
    buf.extend(hp)
    size = header.get("size", 19) or 19
    prev = None  # the previous move: (ply, colour, tick, clocks)
    r = 0  # the previous move's tick minus the time it used
    for rec in records[first:]:
        t = rec[0]
        if t == MOVE:
            _, ply, colour, point, tick, clocks = rec
            word = -1
            if prev is not None:
                pply, pcol, ptick, pclocks = prev
                d = (tick - ptick) % _TICK_MOD
                idx = _pidx(point, size)
                half = len(clocks) // 2
                m = 0 if colour == 1 else half
                ok = (
                    ply == pply + 1
                    and 0 <= tick < _TICK_MOD
                    and idx >= 0
                    and colour in (1, 2)
                    and pcol in (1, 2)
                    and half > 0
                    and len(clocks) == len(pclocks)
                )
                if ok:
                    used = pclocks[m] - clocks[m]
                    same = all(clocks[i] == pclocks[i] for i in range(len(clocks)) if i != m)
                    flip = 1 if colour == pcol else 0
                    if same and used == 0 and d < _X_MAX:
                        word = 2 | flip << 2 | idx << 3 | d << 12
                    elif same and 0 <= used < _X_MAX and d - used == r:
                        word = flip << 2 | idx << 3 | used << 12
            if word >= 0:
                _put_u32(buf, word)
            else:
                tt, payload = encode(rec)
                buf.append(tt << 1 | 1)
                put_u(buf, len(payload))
                buf.extend(payload)
            r = _next_r(prev, rec, r)
            prev = (rec[1], rec[2], rec[4], rec[5])
        else:
            tt, payload = encode(rec)
            buf.append(tt << 1 | 1)
            put_u(buf, len(payload))
            buf.extend(payload)
    return seal(buf)


def seal(buf):
    """Append the seal to the blob being packed in ``buf`` (a bytearray); returns ``buf``."""
    buf.append(CHECK << 1 | 1)
    buf.append(5)
    c = crc32(buf) & 0xFFFFFFFF
    for _ in range(5):
        buf.append(0x80 | (c & 0x7F))
        c >>= 7
    return buf


def _sealed(blob, end):
    # Whether the blob's last 7 bytes have the seal's shape (its CRC not yet checked).
    if end < 7 or blob[end - 7] != CHECK << 1 | 1 or blob[end - 6] != 5:
        return False
    for i in range(end - 5, end):
        if blob[i] < 0x80:
            return False
    return True


def _seal_holds(blob, end):
    # Whether the seal that ends the blob (its shape checked) holds the CRC of what precedes it.
    c = 0
    for i in range(5):
        c |= (blob[end - 5 + i] & 0x7F) << (7 * i)
    return c == crc32(memoryview(blob)[: end - 5]) & 0xFFFFFFFF


def _next_r(prev, rec, r):
    # The tick-minus-used carried to the next move; unchanged by a move that used no time.
    if prev is None:
        return 0
    _, ply, colour, point, tick, clocks = rec
    pclocks = prev[3]
    if len(clocks) != len(pclocks) or len(clocks) < 2 or colour not in (1, 2):
        return 0
    m = 0 if colour == 1 else len(clocks) // 2
    used = pclocks[m] - clocks[m]
    if used == 0:
        return r
    return (tick - prev[2]) % _TICK_MOD - used


def unpack(blob):
    """``(game_no, records)`` of a packed blob; Bad if it does not decode or its seal does
    not hold. A blob packed before the seal existed (it has none) reads as well: ``check``
    tells them apart."""
    end = len(blob)
    if _sealed(blob, end):
        if not _seal_holds(blob, end):
            raise Bad("checksum")
        end -= 7
    return _unpack(blob, end)


def _unpack(blob, end):
    # The records of blob[:end], the seal taken off.
    game_no, p = get_u(blob, 0, end)
    n, p = get_u(blob, p, end)
    if p + n > end:
        raise Bad("header")
    header = decode_header(blob, p, p + n)
    p += n
    records = [(HEADER, header)]
    size = header.get("size", 19) or 19
    prev = None
    r = 0
    while p < end:
        b = blob[p]
        if not b & 1:
            if prev is None or p + 4 > end:
                raise Bad("compact move")
            word = _u32(blob, p)
            p += 4
            pply, pcol, ptick, pclocks = prev
            flip = (word >> 2) & 1
            colour = pcol if flip else 3 - pcol
            idx = (word >> 3) & 511
            x = word >> 12
            clocks = list(pclocks)
            if word & 2:
                tick = (ptick + x) % _TICK_MOD
            else:
                m = 0 if colour == 1 else len(clocks) // 2
                if m >= len(clocks):
                    raise Bad("compact move")
                clocks[m] -= x
                tick = (ptick + x + r) % _TICK_MOD
            rec = (MOVE, pply + 1, colour, _point(idx, size), tick, tuple(clocks))
        else:
            if b >> 1 == CHECK:
                raise Bad("check record not a seal")
            n, p = get_u(blob, p + 1, end)
            if p + n > end:
                raise Bad("record")
            rec = decode(b >> 1, blob, p, p + n)
            p += n
        if rec[0] == MOVE:
            r = _next_r(prev, rec, r)
            prev = (rec[1], rec[2], rec[4], rec[5])
        records.append(rec)
    return game_no, records


def check(data):
    """What a game's stored bytes say of themselves: a live file (``MAGIC`` first) or a packed
    blob, as the link's ``get`` serves them (``Journal.read``). ``(SOUND, "")`` when every
    checksum holds and the records decode, the header first: the live records' CRC chain
    covers the file to its last byte, or the blob's seal holds; ``(UNSEALED, NO_CHECKSUM)``
    for a blob packed before the seal existed, which decodes but shows nothing of being whole;
    ``(DAMAGED, why)`` otherwise. Never raises for bad bytes."""
    size = len(data)
    if size >= 4 and bytes(data[:4]) == MAGIC:
        problems = []
        found = scan(data, MAGIC, problems.append)
        if problems:
            why = problems[0]
            return DAMAGED, why[9:] if why.startswith("journal: ") else why
        if not found or found[0][2][0] != HEADER:
            return DAMAGED, "no header record"
        return SOUND, ""
    sealed = _sealed(data, size)
    if sealed and not _seal_holds(data, size):
        return DAMAGED, "checksum does not match"
    try:
        _unpack(data, size - 7 if sealed else size)
    except Bad as e:
        return DAMAGED, "does not decode (%s)" % e
    if not sealed:
        return UNSEALED, NO_CHECKSUM
    return SOUND, ""


def pack_entry(blob, seed):
    """The bytes of one pack entry after the 4 bytes ``seed``."""
    buf = bytearray()
    _put_u32(buf, len(blob))
    buf.extend(blob)
    c = crc32(buf, _u32(seed, 0)) & 0xFFFFFFFF
    _put_u32(buf, c)
    return buf


def entry_ok(data, p, n):
    """Whether the pack entry at ``p`` with blob length ``n`` checks out (``data`` holds it)."""
    c = crc32(memoryview(data)[p : p + 4 + n], _u32(data, p - 4)) & 0xFFFFFFFF
    return c == _u32(data, p + 4 + n)


u32 = _u32
