"""The voice's playback driver (firmware/hal/rp2040_voice.py) on both runtimes, on a faked chip.

Start reading at ``test_a_phrase_plays_whole_then_silence_then_the_amplifier_is_shut``: a fake
DMA channel plays the ring as the chip's would (a halfword per tick from the read address,
wrapping at the ring's size, the count going down), the clock pass's ``step`` every 20 ms
of it; what reaches the PWM's compare register must be the phrase's samples at the volume's
level, then silence, and the amplifier shut once it is over, though some passes come 40 ms
late. Then: the registers it sets, a pass that comes too late, a phrase cut by the next, the
volume's levels, nothing allocated per pass. The chip itself (rp2040js, the same driver
frozen in the image) is tests/host/board/test_chip_voice.py's.
"""

from array import array

import micropython

from firmware.clock import cues
from firmware.hal import pins
from firmware.hal import rp2040_voice as S
from firmware.ui import voice as V
from tests.support import IS_MICROPYTHON, skip
from tests.test_voice import _file, _remove, _signal

CC0 = 0x4005000C
CSR0 = 0x40050000
TIMER0 = 0x50000420
ABORT = 0x50000444
PASS_MS = 20  # the app's clock pass, which steps the speaker
PER_PASS = 8 * PASS_MS  # samples the channel plays between two passes


class _NS:
    pass


class FakeChip:
    """What the driver touches: ``mem32``, pins, a PWM, one DMA channel that plays (``run``)
    and ``uctypes.addressof`` (addresses not on a ring boundary: the driver must skip)."""

    def __init__(self):
        self.regs = {}
        self.pins = {}
        self.aborts = 0
        self.buffers = []  # (address, buffer)
        self.played = []  # what reached CC, a sample per tick while the channel ran
        chip = self

        class Mem:
            def __getitem__(self, addr):
                return 0 if addr == ABORT else chip.regs.get(addr, 0)

            def __setitem__(self, addr, v):
                if addr == ABORT:
                    chip.aborts += 1
                    chip.dma.running = False
                chip.regs[addr] = v

        class Pin:
            OUT = 1

            def __init__(self, n, mode=None, value=None):
                self.n = n
                if value is not None:
                    chip.pins[n] = value

            def value(self, v):
                chip.pins[self.n] = v

        class PWM:
            def __init__(self, pin, freq=0, duty_u16=0):
                chip.pwm = (pin.n, freq, duty_u16)

        class DMA:
            def __init__(self):
                self.channel = 2  # after the scan's two
                self.read = self.write = self.count = self.ctrl = 0
                self.running = False
                chip.dma = self

            def active(self, v=None):
                if v is None:
                    return self.running
                self.running = bool(v) and bool(self.ctrl & 1)

        class Timer:
            PERIODIC = 1

            def __init__(self):
                chip.timer = self
                self.callback = None

            def init(self, mode=None, period=0, callback=None):
                assert mode == Timer.PERIODIC and period == S.PASS_MS
                self.callback = callback

            def deinit(self):
                self.callback = None

        machine = _NS()
        machine.Timer = Timer
        machine.mem32 = Mem()
        machine.Pin = Pin
        machine.PWM = PWM
        machine.freq = lambda: 125_000_000
        self.machine = machine
        self.rp2 = _NS()
        self.rp2.DMA = DMA
        self.uctypes = _NS()
        self.uctypes.addressof = self.addressof

    def addressof(self, buf):
        for addr, b in self.buffers:
            if b is buf:
                return addr
        addr = 0x20000104 + 0x5000 * len(self.buffers)
        self.buffers.append((addr, buf))
        return addr

    def run(self, ticks):
        """The channel's next ``ticks`` transfers: each sample read from the ring at its
        read address (wrapping at the ring's bytes, as RING_SIZE makes it) into ``played``."""
        d = self.dma
        ring_bytes = 1 << ((d.ctrl >> 6) & 15)
        addr, buf = self.buffers[0]
        for _ in range(ticks):
            if not d.running or d.count == 0:
                return
            self.played.append(buf[(d.read - addr) // 2])
            d.read = (d.read & ~(ring_bytes - 1)) | ((d.read + 2) & (ring_bytes - 1))
            d.count -= 1


def _clips():
    # Clips longer than the ring and shorter than a block, so the phrase crosses both.
    return [_signal(300 + 700 * (i % 4), i + 5) for i in range(V.CLIPS)]


def _rig(volume=2, clips=None):
    # A voice file of made-up clips, a faked chip, the driver on it and the file opened: each
    # test's start; ``_done`` its end.
    path = _file("zh", clips or _clips())
    chip = FakeChip()
    sp = S.Speaker(chip)
    sp.set_volume(volume)
    return path, chip, sp, V.Voice(path)


def _done(path, v):
    v.close()
    _remove(path)


def _phrase(path, cue, shift, bias):
    # The phrase as the driver must play it: the reader's PCM (unsigned 16-bit) at the level.
    v = V.Voice(path, 0)
    pcm = array("H", bytes(2 * v.PCM_SAMPLES))
    out = []
    v.say(cue)
    while True:
        n = v.read(pcm)
        if not n:
            break
        for i in range(n):
            out.append((pcm[i] >> shift) + bias)
    v.close()
    return out


def _speak(chip, sp, v, cue, passes=1000, stall=0):
    # The cue played to its end: the channel runs a pass's samples, then the clock pass steps;
    # with ``stall``, every 12th pass comes that many ms late (a journal write, a collection).
    assert sp.play(v, cue, 0)
    t = 0
    k = 0
    while sp.on and passes:
        k += 1
        ms = PASS_MS + (stall if stall and k % 12 == 0 else 0)
        chip.run(8 * ms)
        t += ms
        sp.step(t)
        passes -= 1
    assert not sp.on, "the phrase never ended"


def test_a_phrase_plays_whole_then_silence_then_the_amplifier_is_shut():
    cue = cues.MINUTE_LEFT << 8 | 2  # 一分钟 还剩 两 分钟: five clips, four gaps
    path, chip, sp, v = _rig(3)
    try:
        assert chip.pins[pins.VOICE_EN] == 0  # silent from power-up
        _speak(chip, sp, v, cue, stall=40)  # the ring holds 64 ms ahead of the next pass
        want = _phrase(path, cue, 6, 0)
        got = chip.played
        assert len(want) > 2 * S.RING
        assert got[: len(want)] == want
        tail = got[len(want) :]
        assert tail and all(x == S.MID for x in tail), tail[:8]
        assert chip.pins[pins.VOICE_EN] == 0 and chip.regs[CSR0] == 0  # shut, the slice off
        assert chip.regs[CC0] == S.MID << 16 | S.MID
        assert sp.late == 0
    finally:
        _done(path, v)


def test_the_registers_it_sets():
    path, chip, sp, v = _rig()
    try:
        assert chip.pwm == (pins.VOICE_PWM, 122_070, 32768)  # TOP 1023
        assert chip.regs[CSR0] == 0  # the carrier stopped until a phrase plays
        assert chip.regs[TIMER0] == 1 << 16 | 15625  # 125 MHz / 15625: 8 kHz exactly
        assert sp.play(v, cues.COUNT << 8 | 3, 0)
        d = chip.dma
        assert d.running and chip.regs[CSR0] == 1 and chip.pins[pins.VOICE_EN] == 1
        assert d.write == CC0 and d.count == 0x3FFFFFFF
        assert d.read % (2 * S.RING) == 0  # the ring on a boundary of its own size
        ctrl = d.ctrl
        assert ctrl & 1 and (ctrl >> 2) & 3 == 1  # enabled, halfwords
        assert ctrl & 0x10 and not ctrl & 0x20  # the read moves, the write stays on CC
        assert (ctrl >> 6) & 15 == 11 and not ctrl & 0x400  # a 2 KiB read ring
        assert (ctrl >> 11) & 15 == d.channel  # chained to itself: no chain
        assert (ctrl >> 15) & 63 == 0x3B  # paced by DMA timer 0
        assert not ctrl & 2  # normal priority: the scan's channels first
    finally:
        _done(path, v)


def test_its_own_timer_keeps_the_ring_filled_while_the_app_is_busy():
    # The app's tasks held (a PC's request answered at length): the soft timer's passes alone
    # play the phrase whole; one that comes while a pass runs leaves it alone; the timer is
    # stopped with the phrase.
    cue = cues.MINUTE_LEFT << 8 | 2
    path, chip, sp, v = _rig(3)
    try:
        assert sp.play(v, cue, 0)
        while chip.timer.callback is not None:
            chip.run(8 * S.PASS_MS)
            sp._busy = True  # a callback between two bytecodes of the app's own step
            chip.timer.callback(chip.timer)
            sp._busy = False
            chip.timer.callback(chip.timer)
        want = _phrase(path, cue, 6, 0)
        assert chip.played[: len(want)] == want and sp.late == 0 and not sp.on
        assert chip.pins[pins.VOICE_EN] == 0
    finally:
        _done(path, v)


def test_a_late_pass_is_counted_and_the_phrase_goes_on():
    cue = cues.MINUTE_LEFT << 8 | 2
    path, chip, sp, v = _rig()
    try:
        assert sp.play(v, cue, 0)
        chip.run(PER_PASS)
        sp.step(20)
        # The next pass held up past the phrase's samples in the ring, not past the ring:
        # what it then plays is silence, not what it had played.
        chip.run(S.RING - 50)
        heard = chip.played[:]
        want = _phrase(path, cue, 9 - 2, S.MID - (32768 >> 7))
        fresh = sp.written  # the phrase's samples put by then
        assert heard[:fresh] == want[:fresh]
        assert set(heard[fresh:]) == {S.MID}, heard[fresh : fresh + 8]
        sp.step(300)
        assert sp.late == 1 and sp.on
        t = 300
        while sp.on:
            chip.run(PER_PASS)
            t += PASS_MS
            sp.step(t)
            assert t < 60000
        assert chip.pins[pins.VOICE_EN] == 0
    finally:
        _done(path, v)


def test_a_phrase_is_cut_by_the_next_and_volume_zero_is_the_beeps():
    path, chip, sp, v = _rig(3)
    try:
        assert sp.play(v, cues.MINUTE_LEFT << 8 | 2, 0)
        chip.run(PER_PASS)
        sp.step(100)
        chip.played = []
        _speak(chip, sp, v, cues.COUNT << 8 | 7)  # cuts it: the new one from its start
        want = _phrase(path, cues.COUNT << 8 | 7, 6, 0)
        assert chip.played[: len(want)] == want
        sp.set_volume(0)
        assert not sp.play(v, cues.COUNT << 8 | 7, 0)
        assert not sp.play(v, cues.MARK << 8 | 45, 0)  # no phrase: beeped
    finally:
        _done(path, v)


def test_each_volume_keeps_silence_in_the_middle():
    cue = cues.COUNT << 8 | 1
    for vol, lo, hi in ((3, 0, 1023), (2, 256, 767), (1, 384, 639)):
        path, chip, sp, v = _rig(vol)
        try:
            _speak(chip, sp, v, cue)
            want = _phrase(path, cue, 9 - vol, S.MID - (32768 >> (9 - vol)))
            assert chip.played[: len(want)] == want
            assert min(chip.played) >= lo and max(chip.played) <= hi, (vol, min(chip.played))
            assert chip.played[-1] == S.MID
        finally:
            _done(path, v)


def _passes(chip, sp, n):
    t = 0
    i = 0
    while i < n:
        chip.run(PER_PASS)
        t += PASS_MS
        sp.step(t)
        i += 1


def test_a_pass_allocates_nothing():
    if not IS_MICROPYTHON:
        skip("micropython.mem_total() is MicroPython's measure")
    if not hasattr(micropython, "mem_total"):
        skip("this unix port has no micropython.mem_total()")
    # A long phrase: clips of two seconds, so every pass decodes and puts.
    path, chip, sp, v = _rig(clips=[_signal(16000, i + 1) for i in range(V.CLIPS)])
    try:
        assert sp.play(v, cues.MINUTE_LEFT << 8 | 2, 0)
        _passes(chip, sp, 2)
        # The fake channel appends to a list: from here it only moves the count on, so the
        # passes measured are the driver's alone.
        chip.run = lambda ticks, d=chip.dma: _advance(d, ticks)
        before = micropython.mem_total()
        _passes(chip, sp, 100)
        used = micropython.mem_total() - before
        assert sp.on and used == 0, used
    finally:
        _done(path, v)


def _advance(d, ticks):
    d.count -= ticks
