"""Time that survives the power: cuts at random moments of a think, on the whole board.

Each journey is ``firmware/boot/board.py``'s ``build`` on the virtual hardware (``tests/rig.py``'s
``BoardRig``, from factory settings, set as a PC sets them), its RTC (the real PCF8563 driver
on the emulated chip) running on a wall clock that goes on while the board is off. A think is
cut at a random millisecond between two of the app's passes (the power does not wait for a
pass): the board's objects are dropped (every record and checkpoint already on flash; the
open files only let go, nothing written), the wall clock moves on for the off-time, and a new
board is built on the same flash. What is checked is what the players and the arbiter get:

- the clock after resume is never above its value at the cut, and at most 1 s below it (the
  default: the off-time not charged), main time and byo-yomi (the periods and the period's
  time) alike; with ``off_charged``, exactly the off-time below that, down to 0:00 (the flag
  falls when play goes on);
- the face of the player who was to play says how long the board was off (``3:12  OFF``, the
  glass read back), by turns with its clock, until PAUSE; the record says it (POWER_OFF);
- a second cut cannot undo a charge; no RTC time: ``OFF  ?``, the clock still from its
  checkpoint; a torn checkpoint write leaves the one before (LittleFS), a damaged file is none;
- the flash: one 256-byte program a checkpoint and an erase every 16th, the erases walking
  over the free blocks (the wear budget in firmware/clock/checkpoint.py).

Both runtimes (the flash is LittleFS on a RAM device on MicroPython, a folder on CPython).
"""

from firmware.clock import checkpoint as CK
from firmware.clock.clock import Face, format_time
from firmware.hal import virtual as V
from firmware.referee import incidents as inc
from firmware.store import records as R
from tests.rig import STEP, BoardRig
from tests.support import skip

T0 = 1767225600  # 2026-01-01: the wall clock's start (calendar seconds)
# Black's first turn: 20 s of main time, then 3 periods of 10 s (ms: 20,000 + 30,000).
BYOYOMI = "byoyomi/20/3/10"


class Wall:
    """The world's time (ms): the RTC chip runs on it, the board's passes move it on."""

    def __init__(self):
        self.ms = 0

    def __call__(self):
        return T0 + self.ms / 1000


class CutRig(BoardRig):
    """A board whose passes move the wall clock on with its own time."""

    def __init__(self, wall, root=None):
        self.wall = wall
        BoardRig.__init__(self, root=root, host_time=wall)

    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += STEP
            self.wall.ms += STEP
            self.app.step(self.now)

    def cut(self, d):
        """The power goes ``d`` ms after the last pass: the files let go, nothing written."""
        self.wall.ms += d
        self.app.journal.close()
        self.app.checkpoint.close()


class Rand:
    """The same numbers on both runtimes (an LCG)."""

    def __init__(self, seed):
        self.x = seed * 2654435761 % (1 << 31) or 1

    def below(self, n):
        self.x = (1103515245 * self.x + 12345) % (1 << 31)
        return self.x % n


def _left(clock, side, now=None):
    # The time the side has left in all (ms): its limit minus the turn's use.
    e = clock.elapsed(now) if now is not None else clock.used
    return clock.limit - e if side == clock.running else -1


def _face(clock, side, now):
    f = Face()
    clock.face(side, now, f)
    return f


def _board(wall, charged=False, rtc=True):
    rig = CutRig(wall)
    if rtc:  # as `tengen time --set` does: the chip gets the calendar time
        assert rig.ask("time", epoch=T0 + wall.ms // 1000)["ok"]
    new = {"game": "go", "size": 9, "time": BYOYOMI, "off_charged": charged}
    assert rig.ask("settings", set=new)["ok"]
    rig.run(100)
    return rig


def _think(rig, white, ms):
    # Black's clock starts; with ``white`` Black plays first and White thinks.
    rig.key("pause")
    if white:
        rig.put("E5", "b")
        rig.press("b")
    rig.run(ms - rig.match.clock.elapsed(rig.now))


def _power_off(rig, r, off_ms):
    """Cut at a random ms between passes, the board off ``off_ms``: (what the cut left: the
    side, its time left and face at the cut, the checkpoint), the new board."""
    c = rig.match.clock
    side = c.running
    d = r.below(STEP)
    at = rig.now + d
    left = _left(c, side, at)
    face = _face(c, side, at)
    assert c.state == 1 and left > 0
    rig.cut(d)
    ck = CK.load(rig.root + "/clock.ck")
    rig.wall.ms += off_ms
    again = CutRig(rig.wall, root=rig.root)
    return (side, left, face, ck), again


def _off_said(rig, side):
    # The off-time's words on the face of the side to play, read off the glass: (face, other).
    k = "b" if side == 1 else "w"
    seen = rig.seen_over(k, 4000)
    return [t for t in seen if t.endswith("  OFF") or t == V.shown("OFF", "?")], seen


def _power_incident(rig):
    recs = rig.journal.records(rig.journal.game_no)
    found = [r for r in recs if r[0] == R.INCIDENT and r[1] == inc.POWER_OFF]
    assert found, recs[-3:]
    return found[-1][5]


def _journey(seed, byoyomi, charged):
    r = Rand(seed)
    wall = Wall()
    rig = _board(wall, charged)
    white = seed % 2 == 1
    think = 20500 + r.below(28000) if byoyomi else 300 + r.below(19000)
    _think(rig, white, think)
    off = 1000 + r.below(4000) * 1000 + r.below(1000)
    (side, left, face, ck), again = _power_off(rig, r, off)
    c = again.match.clock
    assert c.state == 2 and c.running == side and ck is not None and ck[2] == side
    shown_off = again.app.off_side == side and _power_incident(again) >> 4
    # The off-time as the RTC measured it: from the last checkpoint (at most 1 s before the
    # cut) to the boot, in whole seconds of the chip.
    assert off // 1000 - 1 <= shown_off <= off // 1000 + 2, (off, shown_off)
    after = _left(c, side)
    if charged:
        want = c.limit - ck[6] - shown_off * 1000
        assert after == (want if want > 0 else 0), (after, want)
    else:
        assert left - 1000 <= after <= left, (seed, byoyomi, left, after)
    assert after <= left
    f = _face(c, side, again.now)
    if byoyomi and not charged:  # the periods, and the period's time within them
        assert face.units >= 0 and f.units >= 0 and f.units <= face.units
        if f.units == face.units:
            assert f.main_ms <= face.main_ms
    detail = _power_incident(again)
    assert detail & 3 == side and detail & 8, detail
    assert bool(detail & 4) == (charged and shown_off > 0)
    # The faces: the side to play says how long, by turns with its clock; PAUSE goes on.
    said, seen = _off_said(again, side)
    text = bytearray(12)
    want = V.shown(bytes(text[: format_time(shown_off * 1000, text)]), "OFF")
    assert said == [want], (said, seen)
    assert any("PAUSE" in t for t in seen), seen  # its clock, by turns
    other = again.seen("w" if side == 1 else "b")
    assert other.endswith("PAUSE") and "OFF" not in other, other
    if after > 0:
        again.key("pause")
        assert c.state == 1
        again.run(4000)
        k = "b" if side == 1 else "w"
        assert " RUN" in again.seen(k) and again.app.off_side == 0
    else:  # charged past the limit: the flag falls as play goes on
        again.key("pause")
        assert again.match.result in ("W+T", "B+T"), again.match.result
    return shown_off


def test_cuts_in_main_time_give_no_time_back_and_cost_at_most_a_second():
    for seed in (1, 2, 3, 4):
        _journey(seed, False, False)


def test_cuts_in_byoyomi_keep_the_periods_and_the_period_s_time():
    for seed in (5, 6, 7, 8):
        _journey(seed, True, False)


def test_charged_the_off_time_is_taken_exactly_down_to_the_flag():
    offs = [_journey(seed, seed > 10, True) for seed in (9, 10, 11, 12)]
    assert max(offs) > 20  # some of these are flagged by the charge: 0:00, then W+T/B+T


def test_a_second_cut_cannot_undo_the_charge_and_a_paused_clock_is_not_charged():
    wall = Wall()
    rig = _board(wall, charged=True)
    _think(rig, False, 8000)
    r = Rand(3)
    (side, left, _, ck), again = _power_off(rig, r, 5000)
    c = again.match.clock
    first = _left(c, side)
    assert first == c.limit - ck[6] - 1000 * (_power_incident(again) >> 4)
    # Cut again while it is paused (the players have not pressed PAUSE), off a minute more.
    again.cut(7)
    ck2 = CK.load(again.root + "/clock.ck")
    assert ck2[3] == 0 and ck2[6] == c.used  # paused: the exact figure, the charge in it
    wall.ms += 60000
    third = CutRig(wall, root=again.root)
    assert _left(third.match.clock, side) == first  # the same: nothing back, nothing more
    assert _power_incident(third) & 12 == 8  # from the checkpoint, not charged (paused)
    assert _power_incident(third) >> 4 >= 60


def test_no_rtc_time_says_off_unknown_and_still_resumes_from_the_checkpoint():
    wall = Wall()
    rig = _board(wall, rtc=False)  # the chip never set: VL, no time
    _think(rig, True, 12345)
    (side, left, _, ck), again = _power_off(rig, Rand(4), 90000)
    after = _left(again.match.clock, side)
    assert left - 1000 <= after <= left
    detail = _power_incident(again)
    assert detail >> 4 == -1 and detail & 8 and detail & 3 == side
    said, seen = _off_said(again, side)
    assert said == [V.shown("OFF", "?")], seen


def test_a_damaged_checkpoint_is_none_and_the_turn_resumes_from_its_start():
    wall = Wall()
    rig = _board(wall)
    _think(rig, False, 9000)
    rig.cut(3)
    path = rig.root + "/clock.ck"
    data = bytearray(open(path, "rb").read())
    data[5] ^= 0x40
    with open(path, "wb") as f:
        f.write(data)
    assert CK.load(path) is None
    again = CutRig(wall, root=rig.root)
    c = again.match.clock
    assert c.used == 0 and _power_incident(again) & 12 == 0  # said in the record


# ---- the flash ------------------------------------------------------------------------------


def _lfs(blocks=96):
    try:
        import vfs
    except ImportError:
        skip("LittleFS (vfs.VfsLfs2) is MicroPython's")
    from firmware.store.blockdev import RamBlockDevice

    class Counted(RamBlockDevice):
        def __init__(self, *a):
            RamBlockDevice.__init__(self, *a)
            self.erases = [0] * self.count
            self.progs = 0

        def ioctl(self, op, arg):
            if op == 6 and not (self.cut and self.ops + 1 >= self.cut):
                self.erases[arg] += 1
            return RamBlockDevice.ioctl(self, op, arg)

        def writeblocks(self, block, buf, offset=None):
            self.progs += 1
            return RamBlockDevice.writeblocks(self, block, buf, offset)

    dev = Counted(4096, blocks)
    vfs.VfsLfs2.mkfs(dev)
    return dev, vfs


def _mount(dev, vfs, mp):
    vfs.mount(vfs.VfsLfs2(dev, progsize=256), mp)


class _Clock:
    """What ``Checkpoint.write`` reads of a clock."""

    def __init__(self):
        self.running = 1
        self.state = 1
        self.main = [0, 600000, 600000]
        self.over = [0, 3, 3]


def test_a_checkpoint_costs_one_page_and_a_fifteenth_of_an_erase_spread_by_littlefs():
    dev, vfs = _lfs()
    mp = "/ckw"
    _mount(dev, vfs, mp)
    ck = CK.Checkpoint(mp + "/clock.ck")
    try:
        clock = _Clock()
        ck.write(1, 1, clock, 0)
        p0 = dev.progs
        e0 = sum(dev.erases)
        n = 20000
        for i in range(n):
            ck.write(1, 1 + i // 100, clock, i * 800)
        progs = dev.progs - p0
        erases = sum(dev.erases) - e0
        # One 256-byte page each (the file stays inline in its directory's metadata), a few
        # more when a full metadata block is compacted into its twin: a 4 KiB block holds ~15.
        assert n <= progs <= n + n // 100, progs
        assert erases <= n // 14, erases
        # block_cycles (100): the pair moves on, the erases walk over the free blocks.
        assert max(dev.erases) <= 110, max(dev.erases)
        assert sum(1 for e in dev.erases if e) >= erases // 110
        assert CK.load(mp + "/clock.ck")[6] == (n - 1) * 800
    finally:
        ck.close()
        vfs.umount(mp)


def test_a_write_cut_at_any_flash_operation_leaves_the_checkpoint_before_it():
    # Forty rounds (a metadata block fills and is compacted on the way: a write that erases),
    # each cut at the first, second or third flash operation of a write: after the power
    # comes back the file holds the checkpoint before it, or (the cut after its commit) it.
    dev, vfs = _lfs(32)
    clock = _Clock()
    mp = "/ckc"
    for i in range(40):
        _mount(dev, vfs, mp)
        ck = CK.Checkpoint(mp + "/clock.ck")
        assert ck.write(7, 3, clock, 1000 * i)
        before = CK.load(mp + "/clock.ck")
        f = ck.f
        dev.cut = dev.ops + 1 + i % 3  # that flash operation of the next write fails
        got = ck.write(7, 3, clock, 99999)
        ck.close()
        dev.silent = True  # the power is gone: the file let go, whatever it writes is lost
        try:
            f.close()
        except OSError:
            pass
        dev.silent = False
        dev.cut = 0
        vfs.umount(mp)
        _mount(dev, vfs, mp)  # the power back: what the flash holds
        now = CK.load(mp + "/clock.ck")
        assert now is not None and before[6] == 1000 * i, (i, now)
        assert now == before or (got and now[6] == 99999), (i, now)
        vfs.umount(mp)
