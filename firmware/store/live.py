"""A live record built in a buffer made once: the journal's per-move write allocates nothing.

Start reading at ``seal``. ``Journal.move``, ``clocks`` and ``incident`` run while the clock
runs (one of each per press at most), so they must not feed the garbage collector. The
formats are ``records.py``'s; these functions write the same bytes as ``records.frame(*
records.encode(rec), seed)`` (``tests/test_journal_index.py`` compares them) into
``buf`` (a bytearray of ``ROOM``): the payload at ``buf[2:]``, then ``seal`` adds the length,
the type and the chained CRC, and ``write`` hands the ``n`` bytes to the open file.

Why not ``binascii.crc32``: it takes the chain's seed and returns the CRC as an int, and on the
RP2040 an int holds 31 bits: three CRCs in four would be a long int, allocated. ``seal``
computes CRC-32 (the same as ``binascii.crc32``) in 16-bit halves, from a 16-entry nibble
table, so every value stays a small int on the chip, in viper and in the plain-Python
fallback (CPython) alike. A record is 20-30 bytes: the table costs 64 bytes of RAM and the
loop ~2 µs on the unix port (bench/bench_journal.py).
"""

import sys
from array import array

import micropython
from micropython import const

ROOM = const(262)  # the longest record: 255 bytes of payload, its length, type and CRC
_CLOCKS_MAX = const(8)  # longer clock tuples (none in use) go the general way
_POINTS_MAX = const(40)  # an incident with more points goes the general way (records.encode)
_MP = sys.implementation.name == "micropython"

# ptr8/ptr16/ptr32 below: viper's pointer casts (CPython: firmware/__init__.py's stand-ins).


def _nibble_tables():
    # CRC-32 (reflected, polynomial 0xEDB88320) for one 4-bit step, split into 16-bit halves.
    lo = array("H", [0] * 16)
    hi = array("H", [0] * 16)
    for i in range(16):
        c = i
        for _ in range(4):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        lo[i] = c & 0xFFFF
        hi[i] = c >> 16
    return lo, hi


_TLO, _THI = _nibble_tables()


@micropython.viper
def _crc(buf, end: int, seed, out: int):
    # CRC-32 of buf[0:end] chained on the 4 bytes ``seed`` (as binascii.crc32(data, seed)),
    # written little-endian to buf[out:out+4]. Halves of 16 bits: small ints everywhere.
    b = ptr8(buf)
    s = ptr8(seed)
    tl = ptr16(_TLO)
    th = ptr16(_THI)
    lo = (int(s[0]) | int(s[1]) << 8) ^ 0xFFFF
    hi = (int(s[2]) | int(s[3]) << 8) ^ 0xFFFF
    i = 0
    while i < end:
        lo = lo ^ int(b[i])
        k = lo & 15
        lo = ((lo >> 4) | (hi & 15) << 12) ^ int(tl[k])
        hi = (hi >> 4) ^ int(th[k])
        k = lo & 15
        lo = ((lo >> 4) | (hi & 15) << 12) ^ int(tl[k])
        hi = (hi >> 4) ^ int(th[k])
        i += 1
    lo = lo ^ 0xFFFF
    hi = hi ^ 0xFFFF
    b[out] = lo & 0xFF
    b[out + 1] = lo >> 8
    b[out + 2] = hi & 0xFF
    b[out + 3] = hi >> 8


def seal(buf, t, n, seed):
    """Frame the payload ``buf[2:2+n]`` as a record of type ``t`` chained on ``seed`` (the 4
    bytes before it in the file); the record's length in bytes (``n + 6``)."""
    buf[0] = n
    buf[1] = t
    _crc(buf, n + 2, seed, n + 2)
    return n + 6


def keep(buf, k, seed):
    """The record ``buf[:k]`` is on flash: its CRC is the next record's seed."""
    seed[0] = buf[k - 4]
    seed[1] = buf[k - 3]
    seed[2] = buf[k - 2]
    seed[3] = buf[k - 1]


if _MP:

    def write(f, buf, k):
        """Write ``buf[:k]`` to the file ``f``: MicroPython's streams take a length (no slice)."""
        return f.write(buf, k)

else:

    def write(f, buf, k):
        """Write ``buf[:k]`` to the file ``f``."""
        return f.write(memoryview(buf)[:k])


# Native, not bytecode: a bytecode frame of more than 11 words is allocated on the heap on every
# call, and these take five or six arguments. Native frames are on the C stack.


@micropython.native
def _put_u(buf, p, n):
    # The unsigned varint of n at buf[p]; the offset after it.
    if n < 0:
        raise ValueError("negative")
    while n > 0x7F:
        buf[p] = (n & 0x7F) | 0x80
        n >>= 7
        p += 1
    buf[p] = n
    return p + 1


@micropython.native
def _put_z(buf, p, n):
    # The zigzag varint of n (any sign) at buf[p]; the offset after it.
    return _put_u(buf, p, n << 1 if n >= 0 else ((-n) << 1) - 1)


@micropython.native
def _put_zs(buf, p, items):
    # Every item of ``items`` as a zigzag varint.
    i = 0
    n = len(items)
    while i < n:
        p = _put_z(buf, p, items[i])
        i += 1
    return p


def ack(buf, game_no):
    """The ACK payload at ``buf[2:]``; its length."""
    return _put_u(buf, 2, game_no) - 2


def ack_of(buf, k, seed):
    """The game number of the ACK record ``buf[:k]`` (read back: ``k`` is its length byte plus
    6; ``buf`` has 4 bytes spare after it) if its CRC chains on ``seed`` (the 4 bytes before it
    in the file), else -1. What ``records.scan`` would accept of an ACK, for game numbers
    below 2**28. Allocates nothing: the journal reads its acks with no object per ack
    (``Journal._walk_acks``)."""
    if k < 7 or k > 10 or buf[1] != 7:  # 7: records.ACK, a varint of 1-4 bytes
        return -1
    _crc(buf, k - 4, seed, k)
    i = 0
    while i < 4:
        if buf[k + i] != buf[k - 4 + i]:
            return -1
        i += 1
    g = 0
    i = 2
    while i < k - 4:
        c = buf[i]
        g |= (c & 0x7F) << (7 * i - 14)
        i += 1
        if c < 0x80:
            return g if i == k - 4 else -1  # the varint ends where the payload does
    return -1


@micropython.native
def move(buf, ply, colour, point, tick, clocks):
    """The MOVE payload at ``buf[2:]`` (``records.encode``'s); its length, or -1 when the clocks
    are too many for the buffer (then ``records.encode`` is the way)."""
    if len(clocks) > _CLOCKS_MAX:
        return -1
    p = _put_u(buf, 2, ply)
    p = _put_u(buf, p, colour << 10 | point)
    p = _put_u(buf, p, tick)
    return _put_zs(buf, p, clocks) - 2


@micropython.native
def clocks(buf, move_no, figures):
    """The CLOCKS payload at ``buf[2:]``; its length, or -1 (see ``move``)."""
    if len(figures) > _CLOCKS_MAX:
        return -1
    return _put_zs(buf, _put_u(buf, 2, move_no), figures) - 2


@micropython.native
def incident(buf, kind, move_no, time_ms, points, detail, n=-1):
    """The INCIDENT payload at ``buf[2:]`` with the first ``n`` of ``points`` (all of them if
    ``n`` < 0); its length, or -1 when the points are too many for the fast way
    (``records.encode`` then says whether they fit a record at all)."""
    if n < 0:
        n = len(points)
    if n > _POINTS_MAX:
        return -1
    p = _put_u(buf, 2, kind)
    p = _put_u(buf, p, move_no)
    p = _put_z(buf, p, time_ms)
    p = _put_u(buf, p, n)
    i = 0
    while i < n:
        p = _put_u(buf, p, points[i])
        i += 1
    return _put_z(buf, p, detail) - 2
