"""The voice's playback on the RP2040: PWM on GP1 fed by DMA from a ring, the amplifier on GP23.

Start reading at ``Speaker`` (the app's side: ``play``, ``step``, ``stop``, ``set_volume``, as
firmware/hal/virtual.py's ``Speaker``); ``put`` is the one loop that touches samples. The
hardware (hardware/README.md §5): GP1 (``pins.VOICE_PWM``, PWM slice 0 channel B) through a
two-pole RC low-pass into a PAM8302A class-D amplifier whose shutdown pin is GP23
(``pins.VOICE_EN``, pulled down: silent from reset).

How a phrase plays with no CPU work per sample:

- The PWM carrier free-runs at 125 MHz / 1024 = 122 kHz (TOP = 1023, far above the filter's
  3.6 kHz); its compare level (CC, 0 … 1023, 512 silence) is the sample.
- One DMA channel writes a halfword from a ``RING``-sample ring in RAM to slice 0's CC
  register once per tick of DMA pacing timer 0, set to exactly 8 kHz (X = 1, Y = clk_sys /
  8000: 15,625 at 125 MHz); not the PWM's wrap request, 122.07 kHz being no multiple of
  8 kHz. A halfword written to a peripheral register lands in both halves (RP2040 datasheet
  §2.1.4), so CC_A = CC_B = the sample; channel A's pin, GP0, is the debug UART's, not PWM's.
  The read address wraps at the ring's end (the DMA's read ring: the ring sits on a boundary
  of its own size) and the transfer count is ``_COUNT``: the channel never stops by itself.
- ``step`` (every 20 ms while a phrase plays: a soft ``machine.Timer``'s callback, which
  runs between two bytecodes of whatever the app is doing, and the app's clock pass) reads
  the channel's count to know how far it played and decodes the phrase's next block
  (firmware/ui/voice.py ``Voice.read``: 64 ms of sound at most) into the ring behind it,
  ``put`` scaling it to the volume: one block a pass, so no pass is held up long; the ring
  (128 ms) holds at least 64 ms ahead of the next pass, which may come that late. ``play``
  fills the ring before the channel starts. What the ring holds beyond the phrase's samples
  is made silent each pass (``hush``): a pass that comes too late (but within the ring's
  128 ms) lets the ring play silence where it had played the phrase, a pause rather than a
  garbled word, and is counted in ``late``. After the phrase, silence; once that too is played the channel is aborted, the
  slice stopped and the amplifier shut down.
- The ring and the decoding block live in the scan's sample buffer (firmware/hal/rp2040.py
  ``DmaScanner``: ``voice_ring``, ``voice_pcm``, in what its ring's alignment leaves): 2 KiB
  more than the scan took, where a buffer of the voice's own would cost 4 KiB (the heap in
  play is a budget, host_tools/board/budgets.py). Without them it makes its own.

Nothing here allocates after ``Speaker()``: the ring, the block and the state are made once;
the channel's count reads back as a small int (``_COUNT`` < 2**30). The channel is claimed
after the scan's two (firmware/hal/rp2040.py ``DmaScanner``), at normal priority: the scan's
high-priority channels go first. Its abort names its own channel only.
"""

from array import array

import micropython
from micropython import const

from firmware.hal import pins
from firmware.hal.rp2040_dma import Parts, aligned_offset, dma_ctrl
from firmware.ui.voice import fill

RATE = const(8000)
RING = const(1024)  # samples: 128 ms at 8 kHz (2 KiB), a power of two (the DMA's read ring)
_RING_BITS = const(11)  # log2 of the ring's bytes
_MASK = const(1023)
BLOCK = const(512)  # samples ``Voice.read`` gives at most (firmware/ui/voice.py PCM_SAMPLES)
_COUNT = const(0x3FFFFFFF)  # transfers: 37 hours at 8 kHz, and a small int read back
MID = const(512)  # the silent level: half of TOP + 1
_CARRIER = const(122_070)  # 125 MHz / 1024: TOP = 1023 (machine.PWM works it out)
_CSR0 = const(0x40050000)  # PWM slice 0: CSR (bit 0 EN), CC at + 0xC
_CC0 = const(0x4005000C)
_TIMER0 = const(0x50000420)  # DMA pacing timer 0: X in bits 31:16, Y in 15:0
_TREQ_TIMER0 = const(0x3B)
_ABORT = const(0x50000444)
PASS_MS = const(20)  # the speaker's own pass while a phrase plays (machine.Timer)
_START_BLOCKS = const(2)  # decoded before a phrase starts: the ring full, then one a pass
_SPINS = const(200)  # bound of the abort's wait (a few cycles on the chip)


@micropython.viper
def put(ring, pcm, n: int, st):
    """``n`` samples of ``pcm`` (``Voice.read``'s unsigned 16-bit) into ``ring`` (``RING``
    halfwords) from position ``st[0]``, each ``(v >> st[1]) + st[2]`` (the volume: a shift
    and the bias that keeps silence at ``MID``), wrapping at the ring's end. ``st[0]`` moves
    on. Allocates nothing."""
    r = ptr16(ring)
    s = ptr16(pcm)
    p = ptr32(st)
    pos = int(p[0])
    shift = int(p[1])
    bias = int(p[2])
    i = 0
    while i < n:
        r[pos] = (int(s[i]) >> shift) + bias
        pos = (pos + 1) & _MASK
        i += 1
    p[0] = pos


@micropython.viper
def hush(ring, n: int, st):
    """``n`` samples of silence (``MID``) into ``ring`` from position ``st[0]``, which stays
    where it is: what lies ahead of the phrase's samples is silence, not what the ring played
    before, should a pass come too late. Allocates nothing."""
    r = ptr16(ring)
    pos = int(ptr32(st)[0])
    i = 0
    while i < n:
        r[pos] = MID
        pos = (pos + 1) & _MASK
        i += 1


class Speaker:
    """The voice on the board's speaker, as the app uses it (``firmware/game/app.py``):
    ``play(voice, cue, now)`` starts a cue's phrase (False: it has none, or the volume is 0:
    the app beeps), ``step(now)`` keeps the ring filled (each clock pass), ``stop()`` cuts it,
    ``set_volume(v)`` 0 (silent) … 3. ``parts``: the chip's modules (``machine``, ``rp2``,
    ``uctypes``), a fake one in the tests; ``ring`` (``RING`` halfwords on a boundary of their
    size, at ``ring_addr``) and ``pcm`` (``BLOCK`` halfwords): buffers to use, else it makes
    its own."""

    def __init__(self, parts=None, ring=None, ring_addr=0, pcm=None):
        parts = parts or Parts()
        machine = parts.machine
        Pin = machine.Pin
        self._mem = machine.mem32
        self._en = Pin(pins.VOICE_EN, Pin.OUT, value=0)
        # The carrier's TOP (1023) and divider set once; the slice runs only while a phrase
        # plays (a free-running carrier is 122 k edges a second for nothing).
        self._pwm = machine.PWM(Pin(pins.VOICE_PWM), freq=_CARRIER, duty_u16=32768)
        self._mem[_CSR0] = 0
        self._mem[_TIMER0] = 1 << 16 | machine.freq() // RATE
        if ring is None:  # its own: the ring on a boundary of its size, the block beside it
            buf = array("H", bytes(4 * RING))
            base = aligned_offset(parts.uctypes.addressof(buf), 2 * RING, 2)
            mv = memoryview(buf)
            ring = mv[base : base + RING]
            ring_addr = parts.uctypes.addressof(buf) + 2 * base
            pcm = mv[0:BLOCK] if base >= BLOCK else mv[base + RING : base + RING + BLOCK]
        self._ring = ring
        self._addr = ring_addr
        self._pcm = pcm
        self._st = array("i", (0, 6, 0))  # put's position, shift, bias
        self._ch = parts.rp2.DMA()
        c = self._ch.channel
        self._ctrl = dma_ctrl(c, _TREQ_TIMER0, 1, inc_write=False, ring_size=_RING_BITS)
        self._mask = 1 << c
        self.voice = None  # the voice being read, None once its phrase is all in the ring
        self.on = False  # the channel plays (the phrase, or the silence after it)
        self.written = 0  # samples put since ``play``
        self.end = 0  # where the silence after the phrase ends: the channel stops there
        self.late = 0  # passes that came after the ring had played out
        # Its own pass every PASS_MS while a phrase plays: a soft timer, whose callback runs
        # between two bytecodes of whatever the app is doing (answering a PC's request can
        # hold the app's tasks 170 ms, longer than the ring); the app's clock pass steps too,
        # ``_busy`` keeping the two from crossing (a callback cannot interrupt itself).
        timer = getattr(machine, "Timer", None)
        self._timer = timer() if timer is not None else None
        self._periodic = getattr(timer, "PERIODIC", 1)
        self._pass = self._tick  # made once: a bound method is an object
        self._busy = False
        self.set_volume(2)

    def set_volume(self, v):
        """The voice's level: 3 full scale, 2 and 1 each 6 dB less, 0 silent (the beeps)."""
        self.volume = v
        if v > 0:
            shift = 9 - v  # 16-bit samples to 10 (v = 3), 9, 8 bits about the middle
            self._st[1] = shift
            self._st[2] = MID - (32768 >> shift)

    def play(self, voice, cue, now):
        """Say ``cue`` with ``voice`` (an open ``firmware.ui.voice.Voice``), cutting a phrase
        being said: the ring filled, then the channel, the slice and the amplifier started."""
        if not self.volume or not voice.say(cue):
            return False
        self._busy = True
        self._halt()
        voice.state[2] = 0  # unsigned 16-bit: ``put`` scales to the volume
        self.voice = voice
        self._st[0] = 0
        self.written = 0
        self.end = _COUNT
        self._fill(RING, _START_BLOCKS)
        ch = self._ch
        ch.read = self._addr
        ch.write = _CC0
        ch.count = _COUNT
        ch.ctrl = self._ctrl
        self._mem[_CSR0] = 1
        self._en.value(1)
        ch.active(1)
        self.on = True
        self._busy = False
        if self._timer is not None:
            self._timer.init(mode=self._periodic, period=PASS_MS, callback=self._pass)
        return True

    def _tick(self, timer):
        self.step(0)

    @micropython.native  # as bytecode, its try/finally would put its frame on the heap
    def step(self, now):
        """Put the phrase's next samples in the ring behind what the channel played; stop
        once the silence after it is played. Allocates nothing."""
        if not self.on or self._busy:
            return
        self._busy = True
        try:
            played = _COUNT - self._ch.count
            if played >= self.end:
                self.stop()
                return
            if played > self.written:  # the pass came late: the ring played round again
                self.late += 1
                self.written = played
                self._st[0] = played & _MASK
            self._fill(played + RING - self.written, 1)
        finally:
            self._busy = False

    def stop(self):
        """Cut the phrase: the channel aborted, the slice stopped, the amplifier shut down."""
        self.voice = None
        if self.on:
            was = self._busy
            self._busy = True
            if self._timer is not None:
                self._timer.deinit()
            self._halt()
            self._en.value(0)
            self.on = False
            self._busy = was

    def _halt(self):
        # EN off first, then abort this channel alone (the scan's are left running); the wait
        # is bounded: the voice may fall silent, the board may not hang.
        mem = self._mem
        self._ch.ctrl = self._ctrl & ~1
        mem[_ABORT] = self._mask
        spins = 0
        while mem[_ABORT] & self._mask and spins < _SPINS:
            spins += 1
        mem[_CSR0] = 0
        mem[_CC0] = MID << 16 | MID

    def _fill(self, room, blocks):
        # Up to ``blocks`` blocks while a block fits (``read`` gives up to BLOCK samples): one a
        # pass keeps each pass short. Once the phrase is over, silence into all the room there
        # is, and the end set where it stops.
        v = self.voice
        pcm = self._pcm
        while v is not None and room >= BLOCK and blocks > 0:
            blocks -= 1
            n = v.read(pcm)
            if not n:
                self.voice = v = None
                self.end = self.written + BLOCK  # a block of silence after the last word
                fill(pcm, BLOCK, 32768)
                break
            put(self._ring, pcm, n, self._st)
            self.written += n
            room -= n
        if v is not None and room > 0:  # the rest of the ring silent until the next pass
            hush(self._ring, room, self._st)
        while v is None and room > 0:  # the block holds silence once the phrase is over
            n = room if room < BLOCK else BLOCK
            put(self._ring, pcm, n, self._st)
            self.written += n
            room -= n
