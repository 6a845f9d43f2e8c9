"""The running clock kept through a power cut: a checkpoint on flash, timed by the RTC.

Start reading at ``Checkpoint.step``. The journal keeps the clocks as each turn began (a
press, a pause); what the running turn has used lives only in the clock (``Clock.used`` and
its segment). So while a clock runs, ``step`` (the app's clock tick) rewrites one small file
with that turn's time, one second AHEAD: the checkpoint says "by the next checkpoint this turn
has used at most ``used`` ms", and the next one is written ``_MARGIN_MS`` before that second
is spent. A cut at any moment finds a checkpoint that charges the player at least the time
used at the cut and at most one second more: never a second given back (the issue's attack:
pulling the plug gave the whole think back), at most one lost. A pause, an adjustment, a
press rewrite it at once (the clock's ``version`` changed), the paused figure exact.

The record is the journal's live form (``live.seal``: length, type, payload, CRC-32 chained
on ``_SEED``), always at offset 0 of the file, in a buffer made once: game number, move
number, side << 1 | running, the side's main and units as its turn began (the key: a
checkpoint of another turn, game or adjustment is ignored), the turn's ms, then the PCF8563's
seven time registers as read (raw: decoding them to calendar seconds would make long ints on
the chip). Nothing on this path allocates (tests/test_app_alloc.py).

Flash wear (measured on VfsLfs2 over the RAM device, progsize 256 as the rp2 port mounts it:
tests/test_powercut_clock.py): the file stays inline in its directory's metadata, so a
rewrite is one 256-byte program and about every 15th also erases one 4 KiB block (a full
metadata block compacted into its twin); LittleFS moves the pair to a fresh block every 100
erases (block_cycles), so the erases walk over the free blocks (20,000 writes: none erased
more than 101 times). While a clock runs: about 1.3 writes a second (every 800 ms, and at
each press). The budget: 2,000 hours of running clock a year for 10 years is ~9.4e7 writes,
~6.2e6 erases: ~62,000 per block over 100 free blocks (400 KiB), 62% of the 100,000 cycles
the flash is rated for; more free space, less (the journal's own records cost an erase a
move: the same order).

On resume (``power_back``, at boot) the off-time is the RTC's now minus the checkpoint's
RTC time; the running turn resumes paused from the checkpoint (at most one second below the
cut), and with the arbiter's ``off_charged`` setting the off-time is added to it too. The
faces and the journal (an incident, ``POWER_OFF``) say how long and who was to play.
"""

import micropython
from micropython import const

from firmware.store import live as L

AHEAD_MS = const(1000)  # what a cut may cost the running player at most
_MARGIN_MS = const(200)  # rewritten this long before the second held is spent
_TYPE = const(9)  # the record's type (the journal's go to 8)
_SEED = b"TGCK"
_VL = const(0x80)  # VL_seconds bit 7: the RTC's time cannot be trusted (firmware/hal/pcf8563.py)
_ROOM = const(48)  # a record: 2 + 6 varints (5 bytes at most) + 7 registers + the CRC


class Checkpoint:
    """The checkpoint file at ``path``; ``rtc(buf)`` fills the 7 PCF8563 time registers
    (02h-08h) into ``buf`` without allocating, False if the chip did not answer (None: no
    RTC). ``writes`` counts the records written, ``failed`` the writes that failed."""

    def __init__(self, path, rtc=None):
        self.path = path
        self.rtc = rtc
        self.buf = bytearray(_ROOM)
        self.regs = bytearray(7)
        self.version = -1  # the clock's version last written
        self.due = 0  # the turn's ms from which the next checkpoint is due
        self.f = None
        self.writes = 0
        self.failed = 0

    @micropython.native
    def step(self, game_no, move_no, clock, now):
        """After the clock's tick at ``now``: rewrite the checkpoint if the clock changed or
        its running turn is about to spend the second the last one holds."""
        st = clock.state
        if st == 1:  # RUNNING
            e = clock.elapsed(now)
            if clock.version == self.version and e < self.due:
                return
            used = e + AHEAD_MS
            last = clock.limit - 1  # the flag falls at the limit: held just below it
            if used >= last:
                used = last
                self.due = last + 1  # nothing more to hold: the flag is the clock's
            else:
                self.due = used - _MARGIN_MS
        elif st == 2 and clock.version != self.version:  # PAUSED: the exact figure
            used = clock.used
        else:
            self.version = clock.version
            return
        self.version = clock.version
        self.write(game_no, move_no, clock, used)

    @micropython.native
    def write(self, game_no, move_no, clock, used):
        """The checkpoint of ``clock``'s running side, its turn at ``used`` ms, with the RTC's
        time now; False if the flash failed (tried again at the next change)."""
        b = self.buf
        s = clock.running
        p = L._put_u(b, 2, game_no)
        p = L._put_u(b, p, move_no)
        p = L._put_u(b, p, s << 1 | (1 if clock.state == 1 else 0))
        p = L._put_z(b, p, clock.main[s])
        p = L._put_z(b, p, clock.over[s])
        p = L._put_u(b, p, used)
        regs = self.regs
        if self.rtc is None or not self.rtc(regs):
            regs[0] = _VL  # no time: the off-time is unknown
        i = 0
        while i < 7:
            b[p] = regs[i]
            p += 1
            i += 1
        k = L.seal(b, _TYPE, p - 2, _SEED)
        try:
            f = self.f
            if f is None:
                f = self.f = _open(self.path)
            f.seek(0)
            L.write(f, b, k)
            f.flush()
        except OSError:
            self.close()
            self.failed += 1
            self.version = -1
            return False
        self.writes += 1
        return True

    def close(self):
        """Close the file (the next write opens it again)."""
        f = self.f
        self.f = None
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def _open(path):
    try:
        return open(path, "r+b")
    except OSError:
        return open(path, "w+b")


def load(path):
    """The checkpoint on flash: ``(game_no, move_no, side, running, main, over, used, regs)``
    or None (no file, a record damaged)."""
    from firmware.store import records as R
    from firmware.store.journal import read_file

    data = read_file(path)
    if not data or len(data) < 6:
        return None
    k = data[0] + 6
    if data[1] != _TYPE or k > len(data) or k > _ROOM - 4:
        return None
    buf = bytearray(k + 4)
    buf[:k] = data[:k]
    L._crc(buf, k - 4, _SEED, k)
    if buf[k:] != buf[k - 4 : k]:
        return None
    out = []
    p = 2
    try:
        for z in (0, 0, 0, 1, 1, 0):
            v, p = (R.get_z if z else R.get_u)(buf, p, k - 4)
            out.append(v)
    except R.Bad:
        return None
    if p + 7 != k - 4:
        return None
    g, no, sr, main, over, used = out
    return (g, no, sr >> 1, sr & 1, main, over, used, bytes(buf[p : p + 7]))


def power_back(app, rtc_now, charged, now):
    """At boot, the game the journal resumed (``app.match``, restored paused at its last
    press): its running turn from the checkpoint, if it is that turn's; the off-time from
    ``rtc_now`` (the RTC's calendar seconds, None unknown) and the checkpoint's RTC time; with
    ``charged`` (the ``off_charged`` setting) the off-time added to the turn if its clock was
    running; without a checkpoint of that turn (none, damaged, a cut as the turn began) the
    turn resumes from its start. Said on the faces (``App.off``) and journaled (``POWER_OFF``,
    its detail in incidents.py); the checkpoint is rewritten at once (a second cut cannot undo the charge). The off-time in s, -1 unknown."""
    from firmware.hal.pcf8563 import time_of
    from firmware.referee.incidents import POWER_OFF

    m = app.match
    c = m.clock
    s = c.running
    j = app.journal
    ck = load(app.checkpoint.path)
    key = (j.game_no, m.game.ply + 1, s, c.main[s], c.over[s])
    off = -1
    how = 0  # 8: the turn from the checkpoint, 4: the off-time charged
    if ck is not None and (ck[0], ck[1], ck[2], ck[4], ck[5]) == key:
        used = ck[6]
        how = 8
        regs = ck[7]
        then = None if regs[0] & _VL else time_of(regs, 0)
        if rtc_now is not None and then is not None and rtc_now >= then:
            off = rtc_now - then
        if charged and ck[3] and off > 0:
            used += off * 1000
            how = 12
        c.used = used if used < c.limit else c.limit  # charged past the flag: 0:00 left
    app.off(s, off)
    j.incident(POWER_OFF, m.game.ply + 1, now, (), off * 16 + how + s)
    app.checkpoint.write(j.game_no, m.game.ply + 1, c, c.used)
    app.checkpoint.version = c.version
    return off
