"""The Hall-grid scan on the RP2040: PIO + DMA in the background, and a polled fallback.

The matrix (hardware/README.md): 19 rows of 19 TMAG5253 linear Hall sensors. Three 74HC238
decoders enable one row at a time; a disabled TMAG5253 leaves its output high-impedance, so the
19 sensors of a column share one line. Three 74HC4051 muxes (8 inputs each) bring columns 0-7,
8-15 and 16-18 to ADC0, ADC1 and ADC2 (GP26-28).

One *step* puts an address word on the eight scan pins (GP2-GP9, hardware/pinmap.csv) and
samples the three column ADCs. A row takes ``DUMMY`` discarded steps (the sensors' < 25 us
power-on time) and then one step per mux input: ``STEPS_PER_ROW`` = 10, a frame 190 steps.

Start reading at ``DmaScanner``; the pure parts above it (address words, the scan table, frame
reassembly, register values) run anywhere and are tested off the board in
tests/test_hal_rp2040.py. Nothing here touches hardware at import: ``rp2``, ``machine``,
``uctypes`` and ``asyncio`` are imported by the constructors (or passed in: ``parts``, the
tests' fake chip).

The app's scan task drives a scanner through ``poll(frame)``, which never blocks and never
allocates: it returns ``READY`` (-1) once ``frame`` holds a fresh frame, else how many ms to
sleep before asking again (0: just let the other tasks run). An ``async`` call per frame would
allocate its coroutine, and an ``asyncio.wait_for_ms`` around the frame flag a task too, some
190 times a second; polling a counter the frame IRQ bumps costs neither.

A scan never stalls silently: ``DmaScanner.poll`` gives up after ``_TIMEOUT_MS`` with no frame
IRQ (an ``OSError``, as ``scan`` does), and ``ScanGuard`` (what ``make_scanner`` returns) then
takes the frames from ``PolledScanner``, counts the stall (``stalls``, which the app logs and
says on the faces) and restarts the DMA chain every ``RETRY_MS`` until it delivers again. The
polled scan starts a frame every ``POLL_MS`` (its row loop is a viper kernel: 5.5-7.4 ms a
frame estimated on the chip, bench/bench_sensing.py), so both paths see a stone within SPEC §7's
50 ms with the sensing's time-based debounce (firmware/sensing/grid.py).

How the background scan runs, with no CPU work per sample:

- The ADC free-runs round-robin over inputs 0, 1, 2, 3 (input 3 is VSYS/3 on a Pico: a spacer
  slot that measures the battery for free), one conversion every ``SLOT_CYCLES`` ADC clocks
  (4 us), into its FIFO, which raises DREQ_ADC.
- DMA channel A moves the 4 samples of a step from the FIFO into a 2 KiB ring, then chains to
  channel B, which moves the next address word from a 256-word table (a 1 KiB ring) into the
  PIO's TX FIFO and chains back to A. The ADC paces everything, so addresses and samples
  cannot drift apart: each new address lands just after the step's last conversion, ~1.9 us
  before the next one starts.
- The PIO program pulls each word and drives the pins. Bit 8 of the word marks the first step
  after the frame; there the PIO raises its IRQ, whose hard handler stops the ADC (one-shot
  mode: the chain stalls harmlessly) and sets a ``ThreadSafeFlag`` the asyncio task awaits.
  The rings are 256 steps long whatever the board size, so ring position and table position
  stay aligned however late the handler runs.

Register facts: RP2040 datasheet §4.9 (ADC), §2.5 (DMA); the MicroPython rp2 module docs
(``rp2.DMA``, ``rp2.StateMachine``, ``rp2.asm_pio``); research in ../shared/research/hardware.md
§2.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import ticks
from firmware.hal import pins
from firmware.hal.rp2040_dma import Parts, aligned_offset, dma_ctrl

# --- geometry ---------------------------------------------------------------------------------

N = const(19)  # the board: 19 rows x 19 columns of sensors
MUX_WAYS = const(8)  # inputs of one 74HC4051
COLUMN_ADCS = const(3)  # ADC inputs that carry columns (0, 1, 2)
SLOTS = const(4)  # round-robin slots per step: the three columns and the VSYS/3 spacer
SPACER_SLOT = const(3)
DUMMY = const(2)  # discarded steps after a row change: 2 x 16 us > the 25 us power-on time
STEPS_PER_ROW = const(10)  # DUMMY + MUX_WAYS
_TIMEOUT_MS = const(50)  # a frame takes 3 ms; no IRQ after 50 ms means the chain is broken
FRAME_MS = const(3)  # a one-shot DMA frame: 190 steps of 16 us = 3.04 ms
POLL_MS = const(10)  # the polled scan starts a frame this often (100 frames/s, SPEC §7)
READY = const(-1)  # what ``poll`` returns once the frame is there
_SPINS = const(200)  # bound of the register waits in ``_stop`` (each is a few us at most)
RETRY_MS = const(2000)  # while the chain is broken, ScanGuard restarts it this often
RING_STEPS = const(256)  # steps in the DMA rings (a power of two: 1 KiB of words)
RING_SAMPLES = const(1024)  # RING_STEPS * SLOTS halfwords = 2 KiB
MAX_ROWS = const(24)  # three decoders of eight outputs
VOICE_BLOCK = const(512)  # samples of the voice's decoding block (firmware/ui/voice.py BLOCK * 2)

# --- address words (the PIO shifts out bits 0-7 to GP2-GP9, then reads bit 8) ----------------
# bits 0-2: mux select S0-S2; bits 3-5: decoder address A0-A2; bits 6-7: bank (B3, B4) where
# 0 enables decoder 0 (rows 0-7), 1 decoder 1 (rows 8-15), 2 decoder 2 (rows 16-23) and 3 none.
_ROW_SHIFT = const(3)
_BANK_SHIFT = const(6)
BANK_OFF = const(3)
LAST_BIT = const(0x100)
PARK = const(0xC0)  # all rows off, mux input 0: the pins' state between scans and at reset

# --- ADC timing -------------------------------------------------------------------------------
ADC_HZ = const(48_000_000)  # the ADC's own clock (USB PLL)
CONVERSION_CYCLES = const(96)  # one conversion: 2 us
SLOT_CYCLES = const(192)  # one slot every 4 us; a step (4 slots) is 16 us

# --- registers (RP2040 datasheet) -------------------------------------------------------------
_ADC_CS = const(0x4004C000)
_ADC_FCS = const(0x4004C008)
_ADC_FIFO = const(0x4004C00C)
_ADC_DIV = const(0x4004C010)
_DMA_CHAN_ABORT = const(0x50000444)
_SIO_OUT_SET = const(0xD0000014)
_SIO_OUT_CLR = const(0xD0000018)

CS_EN = const(0x1)
CS_START_MANY = const(0x8)
CS_READY = const(0x100)
FCS_EN = const(0x1)
FCS_DREQ_EN = const(0x8)
FCS_UNDER = const(0x400)  # write 1 to clear
FCS_OVER = const(0x800)  # write 1 to clear
FCS_LEVEL_MASK = const(0xF0000)
FIFO_VALUE_MASK = const(0xFFF)  # bit 15 is the conversion-error flag when FCS.ERR is set
DREQ_ADC = const(36)


def address_word(row, mux, last=False):
    """The scan pins' word for sensor ``row`` (-1: every row off) and mux input ``mux``."""
    if row < 0:
        word = BANK_OFF << _BANK_SHIFT | mux
    else:
        word = (row >> 3) << _BANK_SHIFT | (row & 7) << _ROW_SHIFT | mux
    return word | LAST_BIT if last else word


def decode_word(word):
    """``(row, mux, last)`` of an address word; row -1 when every row is off."""
    bank = (word >> _BANK_SHIFT) & 3
    row = -1 if bank == BANK_OFF else bank * 8 + ((word >> _ROW_SHIFT) & 7)
    return row, word & 7, 1 if word & LAST_BIT else 0


def frame_steps(n=N, dummy=DUMMY):
    """Steps in one frame of an ``n``-row board."""
    return n * (dummy + MUX_WAYS)


def step_address(step, n=N, dummy=DUMMY):
    """``(row, mux, sampled)`` for scan step ``step``: the dummy steps and the park steps after
    the frame are not sampled (row -1 is every row off)."""
    if step >= frame_steps(n, dummy):
        return -1, 0, False
    row, k = divmod(step, dummy + MUX_WAYS)
    if k < dummy:
        return row, 0, False
    return row, k - dummy, True


def _check_size(n, dummy, steps):
    if not 0 < n <= MAX_ROWS or n > COLUMN_ADCS * MUX_WAYS:
        raise ValueError("board size")
    if frame_steps(n, dummy) >= steps:
        raise ValueError("frame does not fit the ring")


def scan_table(n=N, dummy=DUMMY, steps=RING_STEPS):
    """The ``steps`` address words DMA channel B feeds the PIO, one per step, in scan order.

    After the frame come park words (every row off); the first of them carries ``LAST_BIT``,
    so the PIO flags the frame when every sampled step of it is in the ring."""
    _check_size(n, dummy, steps)
    table = array("I", bytes(4 * steps))
    end = frame_steps(n, dummy)
    for step in range(steps):
        row, mux, _ = step_address(step, n, dummy)
        table[step] = address_word(row, mux, step == end)
    return table


def sample_point(sample, n=N, dummy=DUMMY):
    """The frame index ``y * n + x`` that ring sample ``sample`` measures, or -1 (a dummy step,
    a park step, the spacer slot, or a spare mux input beyond the last column)."""
    step, slot = divmod(sample, SLOTS)
    row, mux, sampled = step_address(step, n, dummy)
    if not sampled or slot >= COLUMN_ADCS:
        return -1
    x = slot * MUX_WAYS + mux
    return row * n + x if x < n else -1


def point_sample(point, n=N, dummy=DUMMY):
    """The ring sample that measures frame index ``point`` (row y = sensor row, column x on
    mux ``x // 8`` input ``x % 8``)."""
    y, x = divmod(point, n)
    step = y * (dummy + MUX_WAYS) + dummy + (x & 7)
    return step * SLOTS + (x >> 3)


def gather_table(n=N, dummy=DUMMY):
    """``array('H')`` of ``n * n`` ring sample indices, one per frame index: the reassembly's
    map from the DMA's sample order to the frame."""
    return array("H", [point_sample(p, n, dummy) for p in range(n * n)])


def spacer_samples(n=N, dummy=DUMMY):
    """Ring indices of the VSYS/3 spacer samples taken during the frame's sampled steps."""
    out = []
    for step in range(frame_steps(n, dummy)):
        if step_address(step, n, dummy)[2]:
            out.append(step * SLOTS + SPACER_SLOT)
    return array("H", out)


def reference_samples(n=N, dummy=DUMMY):
    """Ring indices of the third mux's spare inputs (tied to the mid-rail reference)."""
    out = []
    for step in range(frame_steps(n, dummy)):
        _, mux, sampled = step_address(step, n, dummy)
        if sampled and 2 * MUX_WAYS + mux >= n:
            out.append(step * SLOTS + 2)
    return array("H", out)


# ptr8/ptr16/ptr32 below: viper's pointer casts (CPython: firmware/__init__.py's stand-ins).


# Viper: measured on the unix port 27.3 -> 0.97 us per 19x19 frame against the same loop as
# bytecode (28x); with DESIGN §3's calibration that is an estimated 3.5 -> 0.12 ms on the RP2040.
@micropython.viper
def reassemble(frame, ring, base: int, gather, count: int):
    """Copy ``count`` samples into ``frame`` (``array('H')``, index y * n + x) from the DMA
    ring that starts at ``ring[base]``, keeping the 12-bit value. Allocates nothing."""
    f = ptr16(frame)
    r = ptr16(ring)
    g = ptr16(gather)
    i = 0
    while i < count:
        f[i] = r[base + g[i]] & 0xFFF
        i += 1


def mean_samples(ring, base, idx):
    """Mean (integer) of ``ring[base + i]`` over the indices ``idx``, 12-bit values."""
    total = 0
    for i in idx:
        total += ring[base + i] & FIFO_VALUE_MASK
    return total // len(idx) if len(idx) else 0


def vsys_mv(counts, vref_mv=3300):
    """VSYS in millivolts from an ADC3 reading (a Pico divides VSYS by 3 before ADC3)."""
    return counts * 3 * vref_mv // 4096


# --- register values --------------------------------------------------------------------------


def adc_div(period_cycles=SLOT_CYCLES):
    """ADC DIV value that starts a conversion every ``period_cycles`` ADC clocks in START_MANY
    mode (the period is 1 + INT + FRAC/256 cycles; a conversion itself takes 96)."""
    if not CONVERSION_CYCLES <= period_cycles <= 0x10000:
        raise ValueError("ADC period")
    return (period_cycles - 1) << 8


def adc_cs(start_many, rrobin=0b1111, ainsel=0):
    """ADC CS: enabled, round-robin over the inputs in ``rrobin``, starting at ``ainsel``."""
    cs = CS_EN | (ainsel & 7) << 12 | (rrobin & 0x1F) << 16
    return cs | CS_START_MANY if start_many else cs


def adc_fcs(thresh=1):
    """ADC FCS: FIFO on, DREQ when ``thresh`` results wait, 12-bit results (no SHIFT, no ERR
    bit), and the sticky over/underflow flags cleared (they are write-1-to-clear)."""
    return FCS_EN | FCS_DREQ_EN | FCS_UNDER | FCS_OVER | (thresh & 0xF) << 24


def sample_ctrl(this, other):
    """CTRL of channel A (``this``): ADC FIFO -> sample ring, halfwords, paced by DREQ_ADC,
    the write address wrapping at 2 KiB, chaining to B (``other``)."""
    return dma_ctrl(
        other, DREQ_ADC, 1, inc_read=False, ring_size=11, ring_write=True, high_pri=True
    )


def address_ctrl(this, other, sm_id):
    """CTRL of channel B (``this``): address table -> PIO TX FIFO, words, paced by that FIFO's
    DREQ, the read address wrapping at 1 KiB, chaining to A (``other``)."""
    return dma_ctrl(other, pio_tx_dreq(sm_id), 2, inc_write=False, ring_size=10, high_pri=True)


def pio_tx_dreq(sm_id):
    """DREQ number of state machine ``sm_id``'s TX FIFO (0-7: PIO0 SM0-3, PIO1 SM0-3)."""
    return (sm_id >> 2) * 8 + (sm_id & 3)


def pio_txf(sm_id):
    """Address of state machine ``sm_id``'s TX FIFO register (PIOx base + 0x10 + 4 * sm)."""
    return (0x50300000 if sm_id >> 2 else 0x50200000) + 0x10 + 4 * (sm_id & 3)


def frame_us(n=N, dummy=DUMMY, period_cycles=SLOT_CYCLES):
    """Duration of one one-shot frame in microseconds (steps x slots x slot period)."""
    return frame_steps(n, dummy) * SLOTS * period_cycles * 1_000_000 // ADC_HZ


def settle_ns(period_cycles=SLOT_CYCLES):
    """Time from an address change (the end of a step's last conversion) to the start of the
    next conversion, in ns: what the muxes and column lines have to settle."""
    return (period_cycles - CONVERSION_CYCLES) * 1_000_000_000 // ADC_HZ


# --- the background scanner -------------------------------------------------------------------


def _scan_program(rp2):
    """The PIO program, assembled on first use (``rp2.asm_pio`` exists only on the board)."""
    low, high = rp2.PIO.OUT_LOW, rp2.PIO.OUT_HIGH

    # Initial levels are PARK: mux 0, row address 0, both bank bits high (every row off).
    @rp2.asm_pio(out_init=(low,) * 6 + (high,) * 2, out_shiftdir=rp2.PIO.SHIFT_RIGHT)
    def scan_steps():
        label("top")  # noqa: F821
        pull()  # noqa: F821  (block until DMA channel B delivers the next word)
        out(pins, 8)  # noqa: F821  (bits 0-7 -> GP2-GP9)
        out(x, 1)  # noqa: F821  (bit 8: the first step after the frame)
        jmp(not_x, "top")  # noqa: F821
        irq(rel(0))  # noqa: F821  (frame complete -> this state machine's IRQ)

    return scan_steps


async def until_ready(scanner, frame):
    """Poll ``scanner`` until ``frame`` holds a fresh frame, sleeping as it asks (the
    ``scan_async`` of every scanner here; the app's scan task polls directly)."""
    w = scanner.poll(frame)
    while w != READY:
        await ticks.sleep_ms(w)
        w = scanner.poll(frame)


class DmaScanner:
    """The background scan: PIO steps the address lines, DMA moves samples and addresses.

    ``poll(frame)`` starts a one-shot frame (3.0 ms) and returns the ms to wait; called again,
    it returns ``READY`` once the PIO's frame IRQ has come, the samples reassembled into
    ``frame``: ``array('H')`` of ``n * n`` 12-bit counts, index ``y * n + x``. ``scan(frame)``
    does the same blocking, ``scan_async`` awaiting. With ``continuous=True`` the chain never
    stops (a frame every 4.1 ms); a scan then waits for the next frame mark and gathers from
    the live ring, so a point may come from the scan before or after its neighbours, each a
    complete reading.

    No frame IRQ within ``timeout_ms`` (the chain is broken) is an ``OSError`` from all three,
    and counts in ``stalls``: ``ScanGuard`` then scans polled (``release`` hands it the pins
    and the ADC) and later ``rearm``s this one (the pins back to the PIO, the chain
    restarted).

    While it runs, it owns the ADC: nothing else may call ``ADC.read_u16`` (that reselects the
    input and breaks the round-robin); read the battery with ``vsys_mv()`` instead.
    """

    def __init__(self, n=N, sm_id=0, continuous=False, timeout_ms=_TIMEOUT_MS, parts=None):
        parts = parts or Parts()
        machine = parts.machine
        uctypes = parts.uctypes
        if hasattr(micropython, "alloc_emergency_exception_buf"):
            micropython.alloc_emergency_exception_buf(100)
        self.n = n
        self.continuous = continuous
        self.timeout_ms = timeout_ms
        self.frames = 0  # frame IRQs: the only thing the handler changes
        self.stalls = 0  # frames the IRQ never came for
        self._waiting = False  # a frame asked for by ``poll``, not delivered yet
        self._seen = 0  # ``frames`` when it was asked for, and the tick then
        self._asked_at = 0
        self._machine = machine
        self._mem = machine.mem32
        # The pads of GP26-29 as analog inputs (digital input off); the objects are kept only
        # so the pads stay configured.
        self._adcs = tuple(machine.ADC(machine.Pin(pins.HALL_ADC0 + i)) for i in range(3)) + (
            machine.ADC(pins.PICO_VSYS_ADC - 26),
        )
        # Rings must sit on a boundary of their own size: allocate more and skip ahead. The
        # heap never moves objects, so the addresses stay valid. The samples' buffer holds a
        # second ring, the voice's (``voice_ring``, firmware/hal/rp2040_voice.py: one more ring
        # of the same size), and its decoding block (``voice_pcm``) in what the rings leave:
        # 6 KiB for what would take 9 KiB apart (the heap in play is a budget,
        # host_tools/board/budgets.py).
        self._ring_buf = array("H", bytes(6 * RING_SAMPLES))
        self.ring_base = base = aligned_offset(
            uctypes.addressof(self._ring_buf), 2 * RING_SAMPLES, 2
        )
        mv = memoryview(self._ring_buf)
        self.voice_ring = mv[base + RING_SAMPLES : base + 2 * RING_SAMPLES]
        pcm = 0 if base >= VOICE_BLOCK else base + 2 * RING_SAMPLES  # the larger leftover
        self.voice_pcm = mv[pcm : pcm + VOICE_BLOCK]
        self._table_buf = array("I", bytes(8 * RING_STEPS))
        tbase = aligned_offset(uctypes.addressof(self._table_buf), 4 * RING_STEPS, 4)
        table = scan_table(n)
        for i in range(RING_STEPS):
            self._table_buf[tbase + i] = table[i]
        self._ring_addr = uctypes.addressof(self._ring_buf) + 2 * self.ring_base
        self.voice_ring_addr = self._ring_addr + 2 * RING_SAMPLES
        self._table_addr = uctypes.addressof(self._table_buf) + 4 * tbase
        self.gather = gather_table(n)
        self._spacers = spacer_samples(n)
        self._cs_idle = adc_cs(False)
        self._cs_run = adc_cs(True)
        self._fcs = adc_fcs(1)

        rp2 = parts.rp2
        self._program = _scan_program(rp2)
        self.sm = rp2.StateMachine(sm_id, self._program, out_base=machine.Pin(pins.SCAN_OUT_BASE))
        self.sm.irq(self._frame_done, hard=True)
        self.sm.active(1)

        self._a = rp2.DMA()
        self._b = rp2.DMA()
        a, b = self._a.channel, self._b.channel
        self._ctrl_a = sample_ctrl(a, b)
        self._ctrl_b = address_ctrl(b, a, sm_id)
        self._abort_mask = 1 << a | 1 << b
        self._a.config(read=_ADC_FIFO, write=self._ring_addr, count=SLOTS, ctrl=self._ctrl_a)
        self._b.config(read=self._table_addr, write=pio_txf(sm_id), count=1, ctrl=self._ctrl_b)
        self._adc_setup()

    def _adc_setup(self):
        mem = self._mem
        mem[_ADC_CS] = self._cs_idle
        mem[_ADC_DIV] = adc_div(SLOT_CYCLES)
        mem[_ADC_FCS] = self._fcs

    def _frame_done(self, sm):
        # Hard IRQ: no allocation. Stopping the ADC starves channel A, so the chain halts
        # within a step; the ring's frame part is complete and stays untouched. ``poll`` sees
        # the count move (the counter wraps long before it could leave the small ints).
        if not self.continuous:
            self._mem[_ADC_CS] = self._cs_idle
        self.frames = (self.frames + 1) & 0x3FFFFFFF

    def _stop(self):
        # Every wait is bounded: hardware that never answers is an OSError (ScanGuard goes on
        # polled), not a board hung in a loop with the clock stopped.
        mem = self._mem
        mem[_ADC_CS] = self._cs_idle
        spins = 0
        while not mem[_ADC_CS] & CS_READY:  # let a conversion in flight finish (< 2 us)
            spins += 1
            if spins > _SPINS:
                raise OSError("scan: ADC never ready")
        mem[_ADC_CS] = self._cs_idle  # round-robin moved AINSEL on: back to input 0
        # Clear EN first, so neither channel can re-trigger the other while the abort runs.
        self._a.ctrl = self._ctrl_a & ~1
        self._b.ctrl = self._ctrl_b & ~1
        mem[_DMA_CHAN_ABORT] = self._abort_mask
        while mem[_DMA_CHAN_ABORT]:
            spins += 1
            if spins > _SPINS:
                raise OSError("scan: DMA abort never finished")
        while mem[_ADC_FCS] & FCS_LEVEL_MASK:
            mem[_ADC_FIFO]
            spins += 1
            if spins > _SPINS:
                raise OSError("scan: ADC FIFO never empties")
        mem[_ADC_FCS] = self._fcs

    def start(self):
        """Start a frame (or, with ``continuous``, the endless scan). Allocates nothing."""
        self._stop()
        a, b = self._a, self._b
        a.write = self._ring_addr
        a.count = SLOTS
        a.ctrl = self._ctrl_a
        b.read = self._table_addr
        b.count = 1
        b.ctrl = self._ctrl_b
        b.active(1)  # B pushes the first word and chains A, which waits for the ADC
        self._mem[_ADC_CS] = self._cs_run

    def stop(self):
        """Stop the scan and leave every row off."""
        self._stop()
        self.sm.put(PARK)

    def release(self):
        """Stop the chain and leave the ADC as ``ADC.read_u16`` expects it (one input, no
        round-robin, FIFO off): the polled scan takes over (it claims the scan pins itself).
        The ADC is handed over even if the chain would not stop (the ``OSError`` follows)."""
        self._waiting = False
        try:
            self._stop()
        finally:
            mem = self._mem
            mem[_ADC_CS] = CS_EN
            mem[_ADC_FCS] = 0

    def rearm(self):
        """After a stall: the state machine made anew (its FIFOs emptied, the scan pins given
        back to the PIO, which ``Pin(OUT)`` of the polled scan took) and the ADC set up for the
        chain; the next ``poll``/``scan`` starts it."""
        self._waiting = False
        self._stop()
        self.sm.active(0)
        self.sm.init(self._program, out_base=self._machine.Pin(pins.SCAN_OUT_BASE))
        self.sm.irq(self._frame_done, hard=True)
        self.sm.active(1)
        self._adc_setup()

    def read(self, frame):
        """Reassemble the last frame into ``frame``. Allocates nothing."""
        reassemble(frame, self._ring_buf, self.ring_base, self.gather, self.n * self.n)

    def poll(self, frame):
        """Ask for a frame, or see whether it came: ``READY`` once ``frame`` holds it, else the
        ms to sleep before asking again. An ``OSError`` after ``timeout_ms`` without the frame
        IRQ (counted in ``stalls``). Allocates nothing (but the ``OSError``)."""
        now = ticks.now_ms()
        if not self._waiting:
            if not self.continuous or not self._a.active():
                self.start()
            self._seen = self.frames
            self._asked_at = now
            self._waiting = True
            return FRAME_MS
        if self.frames != self._seen:
            self._waiting = False
            self.read(frame)
            return READY
        if ticks.diff(now, self._asked_at) > self.timeout_ms:
            self._waiting = False
            self.stalls += 1
            raise OSError("scan: no frame IRQ")
        return 1

    async def scan_async(self, frame):
        """``poll`` until the frame is there, other tasks running meanwhile."""
        await until_ready(self, frame)

    def scan(self, frame):
        """One fresh frame into ``frame``, blocking for its 3.0 ms (the simulated grid's
        ``scan``); the app's scan task uses ``poll``."""
        self._waiting = False
        seen = self.frames
        if not self.continuous or not self._a.active():
            self.start()
        t0 = ticks.now_ms()
        while self.frames == seen:
            if ticks.diff(ticks.now_ms(), t0) > self.timeout_ms:
                self.stalls += 1
                raise OSError("scan: no frame IRQ")
        self.read(frame)

    def vsys_mv(self):
        """Battery/VSYS voltage from the last frame's spacer samples (ADC3 = VSYS/3)."""
        return vsys_mv(mean_samples(self._ring_buf, self.ring_base, self._spacers))

    def close(self):
        self.stop()
        self.sm.active(0)
        self.sm.irq(None)
        self._a.close()
        self._b.close()


# --- the polled fallback ----------------------------------------------------------------------


def row_masks(n=N):
    """``array('H')`` of the polled scan's address words as SIO set masks (the word's bits on
    the scan pins), ``row * 8 + mux``; a word's clear mask is the set mask ^ ``PINS_MASK``."""
    out = array("H", bytes(2 * n * MUX_WAYS))
    for row in range(n):
        for mux in range(MUX_WAYS):
            out[row * MUX_WAYS + mux] = address_word(row, mux) << pins.SCAN_OUT_BASE
    return out


PINS_MASK = 0xFF << pins.SCAN_OUT_BASE  # the eight scan pins' bits in the SIO registers
PARK_MASK = PARK << pins.SCAN_OUT_BASE


# Viper: the row loop is calls (``sleep``, ``read_u16``) and register stores; as viper, with
# the address written by two stores of precomputed masks, a 19x19 frame takes ~31 µs on the
# unix port against 126 µs for the former bytecode loop around an address-writing function
# (bench/bench_sensing.py part 4): ~3.5 ms estimated on the chip (5.5 ms with the ADC's
# conversions and the settle waits, 7.4 ms with the x1.55 that sensing's viper measured on the
# emulated chip against its estimate, bench/measured.py), against ~15 ms.
@micropython.viper
def _poll_row(scanner, frame, row: int):
    """Read sensor row ``row`` into ``frame`` and switch the row off. Allocates nothing."""
    f = ptr16(frame)
    w = ptr16(scanner._masks)
    mem = scanner._mem
    set_reg = scanner._set_reg  # the SIO's GPIO_OUT_SET and _CLR, as objects: boxing their
    clr_reg = scanner._clr_reg  # 32-bit addresses here would allocate on the chip
    sleep = scanner._sleep
    adcs = scanner._adcs
    a0 = adcs[0]
    a1 = adcs[1]
    a2 = adcs[2]
    n = int(scanner.n)
    all_pins = int(PINS_MASK)
    base = row * n
    k = row * MUX_WAYS
    mux = 0
    while mux < MUX_WAYS:
        m = int(w[k + mux])
        # Set, then clear: the address is briefly mixed, which the settle time absorbs.
        mem[set_reg] = m
        mem[clr_reg] = m ^ all_pins
        if mux == 0:
            sleep(scanner.row_us)  # the row's sensors power up
        else:
            sleep(scanner.mux_us)  # the muxes and the column lines settle
        if mux < n:
            f[base + mux] = int(a0.read_u16()) >> 4
        if MUX_WAYS + mux < n:
            f[base + MUX_WAYS + mux] = int(a1.read_u16()) >> 4
        if 2 * MUX_WAYS + mux < n:
            f[base + 2 * MUX_WAYS + mux] = int(a2.read_u16()) >> 4
        mux += 1
    park = int(PARK_MASK)
    mem[set_reg] = park
    mem[clr_reg] = park ^ all_pins


class PolledScanner:
    """The same scan driven from Python: address pins written through the SIO, one
    ``ADC.read_u16`` per sample (12-bit value = ``read_u16() >> 4``). An estimated 5.5-7.4 ms
    per frame on the board (bench/bench_sensing.py), against 3.0 ms for ``DmaScanner``; it
    needs neither PIO nor DMA.

    ``poll(frame)`` reads one row per call, so the other tasks run between rows (each row is
    switched off again first), and starts a frame at most every ``period_ms``: ~100 frames/s.

    ``adcs``, ``mem`` (``mem32``: the scan pins are written through the SIO's set and clear
    registers) and ``sleep_us`` default to the board's (``machine``: the board's module, or
    the tests' fake chip, whose scan pins are then made SIO outputs); tests pass fakes.
    """

    def __init__(
        self,
        n=N,
        adcs=None,
        mem=None,
        sleep_us=None,
        row_us=40,
        mux_us=4,
        machine=None,
        period_ms=POLL_MS,
    ):
        if n > MAX_ROWS or n > COLUMN_ADCS * MUX_WAYS:
            raise ValueError("board size")
        self.n = n
        self.row_us = row_us
        self.mux_us = mux_us
        self.period_ms = period_ms
        if machine is None and (adcs is None or mem is None):
            import machine
        self._machine = machine
        if adcs is None:
            adcs = tuple(machine.ADC(machine.Pin(pins.HALL_ADC0 + i)) for i in range(3))
        self._own_pins = mem is None
        if mem is None:
            mem = machine.mem32
        if sleep_us is None:
            import time

            sleep_us = getattr(time, "sleep_us", None) or (lambda us: time.sleep(us / 1e6))
        self._adcs = adcs
        self._mem = mem
        self._set_reg = _SIO_OUT_SET
        self._clr_reg = _SIO_OUT_CLR
        self._sleep = sleep_us
        self._masks = row_masks(n)
        self._row = 0  # the next row ``poll`` reads; 0: a frame is due to start
        self._due = ticks.now_ms()  # when the next frame may start
        self.claim()

    def _park(self):
        self._mem[_SIO_OUT_SET] = PARK_MASK
        self._mem[_SIO_OUT_CLR] = PARK_MASK ^ PINS_MASK

    def claim(self):
        """Take the scan pins as SIO outputs (again: the DMA scan's PIO had them since)."""
        if self._own_pins:
            machine = self._machine
            for i in range(pins.SCAN_OUT_COUNT):
                machine.Pin(pins.SCAN_OUT_BASE + i, machine.Pin.OUT, value=(PARK >> i) & 1)
        self._park()
        self._row = 0

    def scan_row(self, frame, row):
        """Read sensor row ``row`` into ``frame`` and switch the row off. Allocates nothing."""
        _poll_row(self, frame, row)

    def poll(self, frame):
        """One row of the frame: ``READY`` after the last, else the ms to sleep first (0
        between rows; until the frame's start is due before the first). Allocates nothing."""
        row = self._row
        if row == 0:
            now = ticks.now_ms()
            wait = ticks.diff(self._due, now)
            if wait > 0:
                return wait
            self._due = ticks.add(now, self.period_ms)
        self.scan_row(frame, row)
        row += 1
        if row < self.n:
            self._row = row
            return 0
        self._row = 0
        return READY

    def scan(self, frame):
        """One whole frame now, blocking (est. 5.5-7.4 ms). Allocates nothing."""
        for row in range(self.n):
            self.scan_row(frame, row)
        self._row = 0

    async def scan_async(self, frame):
        """``poll`` until the frame is there, other tasks running between rows."""
        await until_ready(self, frame)

    def close(self):
        self._park()


# --- the guard: the DMA scan, and the polled one when it stalls -------------------------------


class ScanGuard:
    """The board's scanner: frames from ``primary`` (a ``DmaScanner``) while it delivers; when
    it fails (no frame IRQ within its timeout: the chain is broken, an ``OSError``), the same
    call takes its frame from the polled fallback, made by ``make_fallback()`` on first use, so
    the game keeps seeing the stones. Every ``retry_ms`` the primary is ``rearm``ed and tried
    again; the first frame it delivers puts the frames back on it.

    For the app and the PC: ``stalls`` (times the primary stopped delivering: the app logs each
    and says it on the faces), ``recoveries`` (times it came back), ``retries`` (restarts
    tried), ``path`` ("dma" or "polled"), ``error`` (the last stall's message), ``frames``.
    """

    def __init__(self, primary, make_fallback, retry_ms=RETRY_MS, now=None):
        if now is None:
            now = ticks.now_ms
        self.n = primary.n
        self.primary = primary
        self.fallback = None
        self._make_fallback = make_fallback
        self.retry_ms = retry_ms
        self.now = now
        self.dma = True  # the primary gives the frames
        self.stalls = 0
        self.recoveries = 0
        self.retries = 0
        self.frames = 0
        self.error = ""
        self._retry_at = 0
        self._polled = False  # the fallback holds the pins and the ADC
        self._current = None  # the scanner ``poll`` is taking a frame from, None between frames

    @property
    def path(self):
        return "dma" if self.dma else "polled"

    def _try_primary(self):
        # The primary's turn: always while it delivers, else when a retry is due (rearmed).
        if self.dma:
            return True
        if ticks.diff(self.now(), self._retry_at) < 0:
            return False
        self.retries += 1
        self._polled = False
        rearm = getattr(self.primary, "rearm", None)
        if rearm is not None:
            rearm()
        return True

    def _failed(self, e):
        if self.dma:
            self.dma = False
            self.stalls += 1
            self.error = str(e) or type(e).__name__
        self._retry_at = ticks.add(self.now(), self.retry_ms)

    def _delivered(self):
        if not self.dma:
            self.dma = True
            self.recoveries += 1
        self.frames += 1

    def _to_polled(self):
        if self._polled:
            return self.fallback
        release = getattr(self.primary, "release", None)
        if release is not None:
            try:
                release()
            except OSError:
                pass  # the ADC is handed over all the same; the chain is dead already
        if self.fallback is None:
            self.fallback = self._make_fallback()
        else:
            self.fallback.claim()
        self._polled = True
        return self.fallback

    # Native, not for speed: as bytecode its frame (a try block, six locals) would be
    # borrowed from the heap on every call, ~350 bytes a frame on the unix port.
    @micropython.native
    def poll(self, frame):
        """``READY`` once ``frame`` holds a frame, the primary's or, when it fails, the
        fallback's; else the ms to sleep before asking again. Allocates nothing while the
        path stays the same."""
        cur = self._current
        if cur is None:  # a new frame: the primary's, if it is its turn
            if self._try_primary():
                cur = self.primary
            else:
                cur = self._to_polled()
            self._current = cur
        if cur is self.primary:
            try:
                w = cur.poll(frame)
            except Exception as e:
                self._failed(e)
                cur = self._current = self._to_polled()
            else:
                if w == READY:
                    self._current = None
                    self._delivered()
                return w
        w = cur.poll(frame)
        if w == READY:
            self._current = None
            self.frames += 1
        return w

    async def scan_async(self, frame):
        """One frame into ``frame`` (``poll`` until it is there), other tasks running."""
        await until_ready(self, frame)

    def scan(self, frame):
        """The same, blocking."""
        self._current = None
        if self._try_primary():
            try:
                self.primary.scan(frame)
            except Exception as e:
                self._failed(e)
            else:
                self._delivered()
                return
        self._to_polled().scan(frame)
        self.frames += 1

    def vsys_mv(self):
        """The primary's battery reading (None while the frames are polled)."""
        return self.primary.vsys_mv() if self.dma else None

    def close(self):
        self.primary.close()
        if self.fallback is not None:
            self.fallback.close()


def make_scanner(polled=False, n=N, parts=None):
    """The board's scanner: ``ScanGuard`` over ``DmaScanner`` with ``PolledScanner`` as its
    fallback; ``PolledScanner`` alone if ``polled`` (or the DMA path fails to start, e.g. on
    firmware older than v1.22 without ``rp2.DMA``). ``parts``: a fake chip (tests)."""
    machine = parts.machine if parts is not None else None
    if not polled:
        try:
            dma = DmaScanner(n, parts=parts)
        except (ImportError, AttributeError):
            pass
        else:
            return ScanGuard(dma, lambda: PolledScanner(n, machine=machine))
    return PolledScanner(n, machine=machine)


class Hardware:
    """The reference board's parts, as ``firmware/boot/board.py`` takes them (see there)."""

    root = ""  # the flash's files are at the top of the board's filesystem

    def __init__(self):
        import time

        from machine import PWM, Pin

        from firmware.ui import buttons as btn
        from firmware.ui.buzzer import Buzzer
        from firmware.ui.face import HT1621Face

        self.now = ticks.now_ms
        self._ticks_ms = time.ticks_ms
        self.scanner = make_scanner()
        wr = Pin(pins.LCD_WR, Pin.OUT)
        data = Pin(pins.LCD_DATA, Pin.OUT)
        # 002 第八条4: the clock stands at Black's right: the right face and paddle are Black's.
        self.faces = (
            HT1621Face(Pin(pins.LCD_CS_R, Pin.OUT, value=1), wr, data),
            HT1621Face(Pin(pins.LCD_CS_L, Pin.OUT, value=1), wr, data),
        )
        for f in self.faces:
            f.start()
        self.buzzer = Buzzer(PWM(Pin(pins.BUZZER)))
        # The voice (firmware/hal/rp2040_voice.py), its DMA channel claimed after the scan's.
        # A chip where it cannot be made (no rp2.DMA, no free channel) beeps the count.
        try:
            from firmware.hal.rp2040_voice import Speaker

            dma = getattr(self.scanner, "primary", None)  # its buffer holds the voice's ring
            if hasattr(dma, "voice_ring"):
                self.speaker = Speaker(
                    ring=dma.voice_ring, ring_addr=dma.voice_ring_addr, pcm=dma.voice_pcm
                )
            else:
                self.speaker = Speaker()
        except Exception as e:
            from firmware.boot import bootlog

            bootlog.note("voice: no speaker (%r): the count is beeped" % (e,))
            self.speaker = None
        self.keys = key_reader(
            [
                (Pin(pins.BTN_PAUSE, Pin.IN, Pin.PULL_UP), btn.PAUSE),
                (Pin(pins.BTN_MODE, Pin.IN, Pin.PULL_UP), btn.MODE),
                (Pin(pins.BTN_PLUS, Pin.IN, Pin.PULL_UP), btn.PLUS),
                (Pin(pins.BTN_MINUS, Pin.IN, Pin.PULL_UP), btn.MINUS),
            ]
        )
        self.board_id = board_id()
        self._pcf = None  # the PCF8563, made on first use (``_rtc_chip``)
        self.set_rtc = rtc_setter(self._rtc_chip)
        import sys

        self.link_out = getattr(sys.stdout, "buffer", sys.stdout).write
        self.link_in = sys.stdin

    def _rtc_chip(self):
        # The PCF8563 on I2C1 (hardware/pinmap.csv), its bus made on first use; raises what
        # making it raises, which rtc_read and set_rtc swallow.
        if self._pcf is None:
            from machine import I2C, Pin

            from firmware.hal.pcf8563 import PCF8563

            i2c = I2C(1, sda=Pin(pins.I2C1_SDA), scl=Pin(pins.I2C1_SCL), freq=100_000)
            self._pcf = PCF8563(i2c)
        return self._pcf

    def read_rtc(self):
        """The calendar seconds the PCF8563 kept through the power cut, or None (no chip,
        a flat coin cell, a time never set). Never raises."""
        return rtc_read(self._rtc_chip)

    def rtc_raw(self, buf):
        """The PCF8563's 7 time registers into ``buf`` (the clock's checkpoint, every
        second while a clock runs); False if there is no chip. Allocates nothing once made."""
        try:
            return self._rtc_chip().raw(buf)
        except Exception:
            return False

    def attach_paddles(self, hit):
        """The paddles' hard IRQs stamp ``ticks_ms`` into the app's ring (``hit``)."""
        from machine import Pin

        black = Pin(pins.PADDLE_R, Pin.IN, Pin.PULL_UP)
        white = Pin(pins.PADDLE_L, Pin.IN, Pin.PULL_UP)
        black.irq(paddle_handler(hit, 1, self._ticks_ms), Pin.IRQ_FALLING, hard=True)
        white.irq(paddle_handler(hit, 2, self._ticks_ms), Pin.IRQ_FALLING, hard=True)
        self._paddles = (black, white)  # kept: a collected Pin would lose its IRQ


def make_hardware():
    """The reference board's hardware (``Hardware``): the one factory of this HAL."""
    return Hardware()


def paddle_handler(hit, side, ticks_ms):
    """A hard-IRQ handler for one paddle: stamps the tick into the app's ring, allocating
    nothing (``hit`` is the ring's bound method, taken once here, not in the interrupt)."""

    def handler(pin):
        hit(side, ticks_ms())

    return handler


def key_reader(pins_bits):
    """A function giving the soft keys' levels as firmware/ui/buttons.py's bits:
    ``pins_bits`` is ``[(Pin, bit), ...]``, active low (pulled up, the key shorts to ground)."""
    n = len(pins_bits)

    def levels():
        v = 0
        i = 0
        while i < n:
            pin, bit = pins_bits[i]
            if not pin.value():
                v |= bit
            i += 1
        return v

    return levels


def board_id(uid=None, root=""):
    """The board's id: its flash chip's unique id (``uid``, default ``machine.unique_id()``)
    in hex. Where that reads all zeros or all ones (on-chip.md: a flash can answer
    0000000000000000), "s" and 15 hex digits of a hash of the board's secret instead: the
    secret is made on first boot and kept (``root`` + /secret.bin, link/server.py's
    ``load_secret``, the one ``board.build`` loads), so the id stays the same at every boot,
    and a hash of it gives nothing of the key away."""
    import binascii

    if uid is None:
        import machine

        uid = machine.unique_id()
    uid = bytes(uid)
    if uid and uid != bytes(len(uid)) and uid != b"\xff" * len(uid):
        return binascii.hexlify(uid).decode()
    import hashlib

    from firmware.link.server import SECRET_PATH, load_secret

    secret = load_secret(root + SECRET_PATH)
    digest = hashlib.sha256(b"tengen board id\n" + secret).digest()
    return "s" + binascii.hexlify(digest).decode()[:15]


def rtc_read(chip):
    """Calendar seconds from the PCF8563 that ``chip()`` gives (firmware/hal/pcf8563.py),
    or None: never raises, so an absent chip or a bus that cannot be made is no time."""
    try:
        return chip().read()
    except Exception:
        return None


def rtc_setter(chip=None, rtc=None):
    """``set_rtc`` for the board: the calendar seconds into the PCF8563 that ``chip()``
    gives (None: no chip), then into ``machine.RTC`` (``rtc``: a stand-in class, tests). The
    chip's failure (absent, a bus error, a time it cannot hold: before 2000) is swallowed:
    the RTC is still set and the board goes on; ``machine.RTC``'s own errors reach the
    caller (the link server reports them). The date is worked out by ``pcf8563.civil``:
    ``time.gmtime``'s epoch is not the same on every port."""
    from firmware.hal.pcf8563 import civil

    if rtc is None:
        from machine import RTC as rtc

    def set_rtc(secs):
        if chip is not None:
            try:
                chip().write(secs)
            except Exception:
                pass  # the calendar clock is a convenience: nothing may stop the board
        y, mo, d, h, mi, s, wd = civil(secs)
        rtc().datetime((y, mo, d, wd, h, mi, s, 0))  # weekday 0 = Monday, as civil's

    return set_rtc
