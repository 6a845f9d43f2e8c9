"""Row-bitboard kernels shared by the rules: flood fill and neighbour tests.

A board layer is ``n`` consecutive words of an ``array('I')``: word ``off + y`` holds row ``y``
(row 0 at the bottom), bit ``x`` is column ``x`` (0 at the left). Rows stay below 2**19, so on
the RP2040 every value here is a small int and nothing allocates.

Start with ``flood``: it grows a region row by row, and is what captures, suicide checks and
counting all stand on.
"""

import sys
from array import array

import micropython
from micropython import const

_MAXN = const(19)
_MICROPYTHON = sys.implementation.name == "micropython"
_ITEM_SIZE = {"B": 1, "H": 2, "h": 2, "I": 4, "i": 4}

# ptr8/ptr16/ptr32 below: viper's pointer casts (CPython: firmware/__init__.py's stand-ins).


# Viper: measured on the unix port 0.8 -> 0.1 µs for a liberty found at once, 4.3 -> 0.3 µs
# for a full fill of a small group, against the same code as bytecode.
@micropython.viper
def flood(rows, off: int, n: int, gbuf, x: int, y: int, stop: int) -> int:
    """Fill ``g`` with the connected part of layer ``rows[off:off+n]`` that holds ``(x, y)``.

    Sweeps the spanned rows up and down until nothing changes; within a row a run is closed
    upward in one step with the carry trick ``((m + s) ^ m) & m`` (the carry runs through the
    run of ones above the seed) and downward bit by bit. Only rows next to a row that grew
    are looked at again (the ``dirty`` mask): a group that winds up and down through the
    board turns the sweep once per turn, and each turn costs the rows it fills, not the
    whole span (a 19x19 comb of two bands: 7.6 -> 4.1 µs). With ``stop`` set it returns 1 as
    soon as the region touches an empty point (a liberty: not in the first two layers of
    ``rows``, black and white) and ``g`` is then partial; otherwise it returns 0 with ``g``
    complete. The span of rows used is left in ``g[n]``..``g[n + 1]``; every row outside it is
    zero, so the next call clears only that span.
    """
    r = ptr32(rows)
    g = ptr32(gbuf)
    full = (1 << n) - 1
    i = g[n]
    while i <= g[n + 1]:
        g[i] = 0
        i += 1
    g[y] = 1 << x
    lo = y
    hi = y
    last = n - 1
    dirty = (7 << y >> 1) & full  # the seed's row and its neighbours
    while dirty:
        # An upward sweep, then a downward one: a change spreads the whole way in one pass.
        step = 1
        while step >= -1:
            yy = lo - 1 if step == 1 else hi + 1
            if yy < 0:
                yy = 0
            if yy > last:
                yy = last
            while yy >= 0 and yy <= last and yy >= lo - 1 and yy <= hi + 1:
                bit = 1 << yy
                if dirty & bit:
                    dirty ^= bit
                    cur = g[yy]
                    nb = cur | (cur << 1) | (cur >> 1)
                    if yy > 0:
                        nb |= g[yy - 1]
                    if yy < last:
                        nb |= g[yy + 1]
                    nb &= full
                    free = ~(r[yy] | r[n + yy]) & full
                    if stop and nb & free:
                        g[n] = lo
                        g[n + 1] = hi
                        return 1
                    m = r[off + yy]
                    new = nb & m
                    if new & ~cur:
                        new |= cur
                        new |= ((m + new) ^ m) & m
                        down = (new >> 1) & m & ~new
                        while down:
                            new |= down
                            down = (down >> 1) & m & ~new
                        g[yy] = new
                        if yy < lo:
                            lo = yy
                        if yy > hi:
                            hi = yy
                        # The run's own ends; its rows above and below are looked at next.
                        if stop and ((new << 1) | (new >> 1)) & free:
                            g[n] = lo
                            g[n + 1] = hi
                            return 1
                        dirty |= ((bit << 1) | (bit >> 1)) & full
                yy += step
            step -= 2
    g[n] = lo
    g[n + 1] = hi
    return 0


def touches(g, lo, hi, rows, off, n):
    """Return 1 if the region in ``g`` (rows ``lo``..``hi``) is next to a bit of layer ``off``."""
    full = (1 << n) - 1
    a = lo - 1 if lo > 0 else 0
    b = hi + 1 if hi < n - 1 else n - 1
    for yy in range(a, b + 1):
        cur = g[yy]
        nb = cur | (cur << 1) | (cur >> 1)
        if yy > 0:
            nb |= g[yy - 1]
        if yy < n - 1:
            nb |= g[yy + 1]
        if nb & full & ~cur & rows[off + yy]:
            return 1
    return 0


def color_at(rows, n, x, y):
    """0 (empty), 1 (black) or 2 (white) at ``(x, y)`` of the two layers ``rows[0:2n]``."""
    bit = 1 << x
    if rows[y] & bit:
        return 1
    if rows[n + y] & bit:
        return 2
    return 0


def popcount(v):
    """Number of set bits in a row word."""
    c = 0
    while v:
        v &= v - 1
        c += 1
    return c


@micropython.viper
def _fill(buf, nbytes: int, byte: int):
    b = ptr8(buf)
    i = 0
    while i < nbytes:
        b[i] = byte
        i += 1


def new_array(code, n, byte=0):
    """An ``array(code)`` of ``n`` items, every byte ``byte``, made without a temporary copy.

    A list of ``n`` ints first would cost several times the array on the board's heap, and
    bytes first would double it for a moment: MicroPython sizes an array built from a
    ``range`` by its length and fills it item by item, so only the array is allocated. CPython
    reads bytes as one item each.
    """
    if _MICROPYTHON:
        a = array(code, range(n))
        _fill(a, n * _ITEM_SIZE[code], byte)
        return a
    a = array(code)
    a.frombytes(bytes((byte,)) * (n * _ITEM_SIZE[code]))
    return a


def scratch(n=_MAXN):
    """A region buffer for ``flood``: ``n`` rows plus the two words of its row span."""
    return new_array("I", n + 2)
