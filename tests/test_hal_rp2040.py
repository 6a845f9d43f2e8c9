"""The RP2040 scan driver's pure parts, checked off the board (CPython and the unix port).

The hardware half of firmware/hal/rp2040.py needs ``rp2`` and ``machine``; everything it
computes (address words, the scan table, the sample order, frame reassembly, register values,
timing) is checked here. ``_emulate`` replays the ADC/DMA/PIO chain slot by slot with the
sensors' power-on time, so the timing claims of hardware/README.md are tested, not assumed.
"""

from array import array

from firmware.hal import pins
from firmware.hal import rp2040 as hal
from tests.support import Rng, locked, skip

N = 19
POWER_ON_US = 25  # TMAG5253 power-on time (TI SLYA068A)
MUX_SETTLE_US = 1  # 74HC4051 switching plus column settling, generous (hardware/README.md)
GARBAGE = 0x0ABC  # what the emulated ADC reads from a line that has not settled


def _board(seed, n=N):
    """A random raw frame: empty ~2048, black below, white above, 12-bit."""
    rng = Rng(seed)
    out = array("H", bytes(2 * n * n))
    for p in range(n * n):
        kind = rng.below(3)
        if kind == 0:
            out[p] = 2048 + rng.between(-20, 20)
        elif kind == 1:
            out[p] = 2048 - rng.between(300, 1100)
        else:
            out[p] = 2048 + rng.between(300, 1100)
    return out


def _emulate(board, n=N, vsys=1500, reference=2048, extra_steps=0, err_bit=False):
    """Replay one one-shot frame of the DMA chain; return ``(ring, flag_time, done_time)``.

    ADC slot k converts input k % 4, starting at 4k us (DIV period 4 us) and finishing 2 us
    later; channel A takes the result, and after every fourth one channel B pushes the next
    table word, which the PIO puts on the pins at once. ``extra_steps`` lets the chain run on
    past the frame mark, as it does while the IRQ handler is on its way.
    """
    table = hal.scan_table(n)
    slot_us = hal.SLOT_CYCLES * 1_000_000 // hal.ADC_HZ
    conv_us = hal.CONVERSION_CYCLES * 1_000_000 // hal.ADC_HZ
    ring = array("H", bytes(2 * hal.RING_SAMPLES))
    word, word_t = table[0], -1  # B pushes word 0 before the ADC starts
    row_on_t = word_t
    flag_t = None
    last_row = hal.decode_word(word)[0]
    total = hal.frame_steps(n) + 1 + extra_steps
    done_t = 0
    for k in range(total * hal.SLOTS):
        start = k * slot_us
        slot = k % hal.SLOTS
        row, mux, _ = hal.decode_word(word)
        if slot == hal.SPACER_SLOT:
            value = vsys
        elif row < 0 or start - row_on_t < POWER_ON_US or start - word_t < MUX_SETTLE_US:
            value = GARBAGE
        else:
            x = slot * 8 + mux
            value = board[row * n + x] if x < n else reference
        if err_bit and k % 7 == 0:
            value |= 0x8000
        ring[k % hal.RING_SAMPLES] = value
        done = start + conv_us
        if hal.sample_point(k % hal.RING_SAMPLES, n) >= 0:
            done_t = max(done_t, done)
        if slot == hal.SLOTS - 1:  # A's fourth transfer: chain to B, next word to the PIO
            word = table[(k // hal.SLOTS + 1) % hal.RING_STEPS]
            word_t = done
            row = hal.decode_word(word)[0]
            if row != last_row:
                row_on_t = done
                last_row = row
            if word & hal.LAST_BIT and flag_t is None:
                flag_t = done
    return ring, flag_t, done_t


def test_address_words_round_trip():
    for row in range(-1, hal.MAX_ROWS):
        for mux in range(8):
            for last in (False, True):
                word = hal.address_word(row, mux, last)
                assert 0 <= word < 0x200
                assert hal.decode_word(word) == (row, mux, 1 if last else 0)
    assert hal.address_word(-1, 0) == hal.PARK


def test_bank_bits_enable_exactly_one_decoder():
    # Decoder 0: /E1 = B3, /E2 = B4; decoder 1: E3 = B3, /E1 = B4; decoder 2: E3 = B4, /E1 = B3
    # (hardware/README.md). The enabled row is the decoder's output A2..A0 in its bank.
    for row in range(-1, hal.MAX_ROWS):
        word = hal.address_word(row, 5)
        b3 = (word >> (pins.ROW_B3 - pins.SCAN_OUT_BASE)) & 1
        b4 = (word >> (pins.ROW_B4 - pins.SCAN_OUT_BASE)) & 1
        a = (word >> (pins.ROW_A0 - pins.SCAN_OUT_BASE)) & 7
        enabled = [b3 == 0 and b4 == 0, b3 == 1 and b4 == 0, b4 == 1 and b3 == 0]
        on = [8 * d + a for d in range(3) if enabled[d]]
        assert on == ([] if row < 0 else [row])
        assert (word >> (pins.MUX_S0 - pins.SCAN_OUT_BASE)) & 7 == 5


def test_scan_pins_are_the_pio_out_window():
    assert pins.SCAN_OUT_BASE == pins.MUX_S0
    assert [pins.MUX_S0, pins.MUX_S1, pins.MUX_S2] == [2, 3, 4]
    assert pins.ROW_A0 == pins.MUX_S2 + 1 and pins.ROW_A2 == pins.ROW_A0 + 2
    assert pins.ROW_B3 == pins.ROW_A2 + 1 and pins.ROW_B4 == pins.ROW_B3 + 1
    assert pins.SCAN_OUT_COUNT == 8 and hal.PARK < 1 << pins.SCAN_OUT_COUNT
    assert [pins.HALL_ADC0, pins.HALL_ADC1, pins.HALL_ADC2] == [26, 27, 28]
    assert pins.HALL_ADC_FIRST == 0 and pins.HALL_ADC_COUNT == hal.COLUMN_ADCS


def test_scan_table_order():
    table = hal.scan_table()
    assert len(table) == hal.RING_STEPS
    end = hal.frame_steps()
    assert end == 190
    marks = [i for i in range(len(table)) if table[i] & hal.LAST_BIT]
    assert marks == [end]
    for step in range(end):
        row, mux, last = hal.decode_word(table[step])
        k = step % hal.STEPS_PER_ROW
        assert row == step // hal.STEPS_PER_ROW and not last
        assert mux == (0 if k < hal.DUMMY else k - hal.DUMMY)
    for step in range(end, hal.RING_STEPS):
        assert table[step] & 0xFF == hal.PARK


def test_sample_order_and_points_are_inverse():
    seen = {}
    for i in range(hal.RING_SAMPLES):
        p = hal.sample_point(i)
        if p >= 0:
            assert p not in seen
            seen[p] = i
    assert len(seen) == N * N
    gather = hal.gather_table()
    for p in range(N * N):
        assert hal.point_sample(p) == seen[p] == gather[p]
        # Row y of the board is sensor row y; column x is on mux x // 8, input x % 8.
        y, x = divmod(p, N)
        step, slot = divmod(gather[p], hal.SLOTS)
        assert hal.step_address(step) == (y, x % 8, True) and slot == x // 8
    assert hal.sample_point(3) == -1  # spacer slot
    assert hal.sample_point(0) == -1  # dummy step


def test_spacer_and_reference_samples():
    sp = hal.spacer_samples()
    ref = hal.reference_samples()
    assert len(sp) == N * 8 and len(ref) == N * 5
    assert all(i % hal.SLOTS == hal.SPACER_SLOT for i in sp)
    assert all(hal.sample_point(i) == -1 and i % hal.SLOTS == 2 for i in ref)


def test_emulated_frame_reassembles_to_the_board():
    board = _board(7)
    ring, flag_t, done_t = _emulate(board, err_bit=True)
    # Put the ring at an odd offset of a larger buffer, as the aligned ring sits on the board.
    base = 37
    buf = array("H", bytes(2 * (hal.RING_SAMPLES + 64)))
    for i in range(hal.RING_SAMPLES):
        buf[base + i] = ring[i]
    frame = array("H", bytes(2 * N * N))
    hal.reassemble(frame, buf, base, hal.gather_table(), N * N)
    assert frame == board
    # The frame mark comes when every sampled step is in the ring, not before.
    assert flag_t is not None and flag_t >= done_t
    assert flag_t == hal.frame_us() - 2
    assert hal.mean_samples(buf, base, hal.spacer_samples()) == 1500
    assert hal.mean_samples(buf, base, hal.reference_samples()) == 2048
    assert hal.vsys_mv(1500) == 3625


def test_late_frame_irq_leaves_the_frame_intact():
    # The handler may arrive up to 65 park steps (~1 ms) late before the ring wraps.
    board = _board(11)
    slack = hal.RING_STEPS - hal.frame_steps() - 1
    ring, _, _ = _emulate(board, extra_steps=slack)
    frame = array("H", bytes(2 * N * N))
    hal.reassemble(frame, ring, 0, hal.gather_table(), N * N)
    assert frame == board


def test_other_board_sizes():
    for n in (9, 13, 15, 24):
        board = _board(n, n)
        ring, flag_t, done_t = _emulate(board, n=n)
        frame = array("H", bytes(2 * n * n))
        hal.reassemble(frame, ring, 0, hal.gather_table(n), n * n)
        assert frame == board and flag_t >= done_t
    for n in (0, 25):
        try:
            hal.scan_table(n)
        except ValueError:
            continue
        raise AssertionError("accepted board size %d" % n)


def test_reassembly_does_not_allocate():
    board = _board(3)
    ring, _, _ = _emulate(board)
    gather = hal.gather_table()
    frame = array("H", bytes(2 * N * N))
    hal.reassemble(frame, ring, 0, gather, N * N)  # warm up

    def run():
        for _ in range(3):
            hal.reassemble(frame, ring, 0, gather, N * N)

    assert locked(run) is None
    assert frame == board


def test_register_values():
    assert hal.adc_div(192) == 191 << 8 == 0xBF00  # 4 us at 48 MHz
    assert hal.adc_div(96) == 0x5F00  # back-to-back: 2 us
    for bad in (95, 0x10001):
        try:
            hal.adc_div(bad)
        except ValueError:
            continue
        raise AssertionError("accepted ADC period %d" % bad)
    # CS: EN (bit 0), START_MANY (bit 3), AINSEL (12-14), RROBIN (16-20).
    assert hal.adc_cs(True) == 0x000F0009
    assert hal.adc_cs(False) == 0x000F0001
    assert hal.adc_cs(False, rrobin=0b0111, ainsel=2) == 0x00072001
    # FCS: EN, DREQ_EN, UNDER and OVER cleared, THRESH 1 (bits 24-27); SHIFT and ERR off.
    assert hal.adc_fcs(1) == 0x01000C09
    assert hal.frame_us() == 3040
    assert hal.settle_ns() == 2000


def test_dma_ctrl_matches_micropython_packing():
    # rp2_dma.c: DEFAULT_DMA_CONFIG = quiet | PERMANENT treq | inc write | inc read | word |
    # enable, chained to the channel itself (no chaining).
    for ch in range(12):
        default = (1 << 21) | (0x3F << 15) | (1 << 5) | (1 << 4) | (2 << 2) | 1 | (ch << 11)
        assert hal.dma_ctrl(ch) == default
    a = hal.sample_ctrl(4, 5)
    assert a & 1 and a & 2  # enabled, high priority
    assert (a >> 2) & 3 == 1 and not a & 0x10 and a & 0x20  # halfwords, FIFO -> ring
    assert (a >> 6) & 15 == 11 and a & 0x400  # write ring of 2 KiB
    assert (a >> 11) & 15 == 5 and (a >> 15) & 63 == hal.DREQ_ADC and a & (1 << 21)
    b = hal.address_ctrl(5, 4, 1)
    assert (b >> 2) & 3 == 2 and b & 0x10 and not b & 0x20  # words, table -> FIFO
    assert (b >> 6) & 15 == 10 and not b & 0x400  # read ring of 1 KiB
    assert (b >> 11) & 15 == 4 and (b >> 15) & 63 == 1
    assert hal.sample_ctrl(0, 1) == 0x320EE7
    assert hal.dma_ctrl(3, enable=False) & 1 == 0
    assert hal.RING_SAMPLES * 2 == 1 << 11 and hal.RING_STEPS * 4 == 1 << 10


def test_pio_addresses_and_alignment():
    assert hal.pio_txf(0) == 0x50200010 and hal.pio_txf(3) == 0x5020001C
    assert hal.pio_txf(4) == 0x50300010 and hal.pio_txf(5) == 0x50300014
    assert [hal.pio_tx_dreq(i) for i in range(8)] == [0, 1, 2, 3, 8, 9, 10, 11]
    assert hal.aligned_offset(0x20001000, 2048, 2) == 0
    assert hal.aligned_offset(0x20001002, 2048, 2) == 1023
    assert hal.aligned_offset(0x20000404, 1024, 4) == 255


class _FakeBoard:
    """The polled scanner's hardware: address lines, three ADCs and a clock, with the same
    power-on and settle model as ``_emulate``."""

    def __init__(self, board, n=N):
        self.board = board
        self.n = n
        self.t = 0
        self.word = hal.PARK
        self.word_t = 0
        self.row_on_t = 0
        self.reads = 0
        self.early = 0
        self.adcs = (_FakeAdc(self, 0), _FakeAdc(self, 1), _FakeAdc(self, 2))
        self.mem = _FakeSio(self)

    def write(self, word):
        if (word >> 6) & 3 != (self.word >> 6) & 3 or (word >> 3) & 7 != (self.word >> 3) & 7:
            self.row_on_t = self.t
        self.word = word
        self.word_t = self.t
        self.t += 1

    def sleep_us(self, us):
        self.t += us

    def read(self, ch):
        self.t += 12  # estimate of one read_u16 call on the board
        self.reads += 1
        bank = (self.word >> 6) & 3  # decoded inline: decode_word's tuple would allocate
        row = -1 if bank == 3 else bank * 8 + ((self.word >> 3) & 7)
        x = ch * 8 + (self.word & 7)
        if row < 0 or x >= self.n:
            self.early += 1
            return 0
        if self.t - self.row_on_t < POWER_ON_US or self.t - self.word_t < MUX_SETTLE_US:
            self.early += 1
        raw = self.board[row * self.n + x]
        return raw << 4 | raw >> 8  # a 16-bit reading of a 12-bit conversion


class _FakeSio:
    """The SIO's GPIO_OUT_SET and _CLR registers, as ``mem32``: the scan pins' word is whole
    again after the clear (the scanner sets, then clears)."""

    def __init__(self, fake):
        self.fake = fake
        self.pins = hal.PARK

    def __setitem__(self, addr, v):
        bits = (v >> pins.SCAN_OUT_BASE) & 0xFF
        if addr == SIO_OUT_SET:
            self.pins |= bits
        elif addr == SIO_OUT_CLR:
            self.pins &= ~bits
            self.fake.write(self.pins)
        else:
            raise AssertionError("a store to %x" % addr)


class _FakeAdc:
    def __init__(self, fake, ch):
        self.fake = fake
        self.ch = ch

    def read_u16(self):
        return self.fake.read(self.ch)


def test_polled_scanner_reads_the_board():
    board = _board(5)
    fake = _FakeBoard(board)
    sc = hal.PolledScanner(N, fake.adcs, fake.mem, fake.sleep_us)
    frame = array("H", bytes(2 * N * N))
    sc.scan(frame)
    assert frame == board
    assert fake.reads == N * N and fake.early == 0
    assert fake.word == hal.PARK


def test_polled_scanner_does_not_allocate():
    board = _board(6)
    fake = _FakeBoard(board)
    sc = hal.PolledScanner(N, fake.adcs, fake.mem, fake.sleep_us)
    frame = array("H", bytes(2 * N * N))
    sc.scan_row(frame, 0)  # warm up

    def run():
        sc.scan(frame)

    assert locked(run) is None
    assert frame == board


# ---- the DMA scan on a fake chip: a stall times out, the polled scan takes over, DMA comes back


# The registers the scanners touch (RP2040 datasheet §4.9.6 ADC, §2.5.7 DMA, §2.3.1.7 SIO);
# MicroPython keeps a module's private constants to itself, so they are written out here.
ADC_CS = 0x4004C000
ADC_FCS = 0x4004C008
ADC_FIFO = 0x4004C00C
DMA_CHAN_ABORT = 0x50000444
SIO_OUT_SET = 0xD0000014
SIO_OUT_CLR = 0xD0000018


class _NS:
    """A namespace standing in for a module of the board (machine, rp2, uctypes)."""


def _flag_class():
    import asyncio

    flag = getattr(asyncio, "ThreadSafeFlag", None)  # MicroPython's own
    if flag is not None:
        return flag

    class Flag(asyncio.Event):  # CPython: the same three calls
        pass

    return Flag


class FakeChip:
    """The RP2040 as ``DmaScanner``/``PolledScanner`` use it, faked: registers (``mem32``),
    pins and their owner ("pio", "out", "analog"), ADCs, DMA channels, PIO state machines,
    ``uctypes.addressof``. ``source(frame)`` fills a raw frame: what the sensors read now.

    A frame is delivered when the ADC is started free-running (``DmaScanner.start``) and
    ``deliver`` is true: the ring (found from channel A's write address) gets the frame, then
    the state machine's IRQ handler runs — at once, or 3 ms later from a task with
    ``async_irq`` (the scan task must yield, as on the board). With ``deliver`` false the chain
    is broken: no IRQ ever. Samples taken while the scan pins are not the PIO's (DMA) or not
    SIO outputs (polled) read as garbage, and ``read_u16`` while the ADC free-runs fails: a
    scanner that forgets to hand the pins or the ADC over gets wrong frames."""

    def __init__(self, source, n=N, async_irq=False):
        self.source = source
        self.n = n
        self.deliver = True
        self.async_irq = async_irq
        self.regs = {}
        self.pins = {}
        self.sms = []
        self.dmas = []
        self.buffers = []  # (address, buffer, bytes)
        self._next = 0x20000104  # 4-aligned, not ring-aligned: the scanner must skip ahead
        self.gpio = 0
        self.starts = 0  # frames started by the DMA scan (free-running ADC)
        self.fired = 0  # frame IRQs delivered
        self.raw = array("H", bytes(2 * n * n))
        self.gather = hal.gather_table(n)
        self.spacers = hal.spacer_samples(n)
        chip = self

        class Mem:
            def __getitem__(self, addr):
                v = chip.regs.get(addr, 0)
                if addr == ADC_CS:
                    return v | hal.CS_READY
                if addr == ADC_FCS:
                    return v & ~hal.FCS_LEVEL_MASK
                if addr == DMA_CHAN_ABORT or addr == ADC_FIFO:
                    return 0
                return v

            def __setitem__(self, addr, v):
                chip.write(addr, v)

        class Pin:
            IN = 0
            OUT = 1
            ALT = 3
            PULL_UP = 1

            def __init__(self, n, mode=None, pull=None, value=None, alt=None):
                self.n = n
                if mode == Pin.OUT:
                    chip.pins[n] = "out"

        class ADC:
            def __init__(self, src):
                ch = src if isinstance(src, int) else src.n - 26
                self.ch = ch
                if ch < 4:
                    chip.pins[26 + ch] = "analog"

            def read_u16(self):
                return chip.adc_read(self.ch) << 4

        class StateMachine:
            def __init__(self, sm_id, prog, out_base=None, **kw):
                self.sm_id = sm_id
                self.handler = None
                self.running = False
                self.inits = 0
                self.words = []
                chip.sms.append(self)
                self.init(prog, out_base)

            def init(self, prog, out_base=None, **kw):
                self.inits += 1
                if out_base is not None:
                    for i in range(pins.SCAN_OUT_COUNT):
                        chip.pins[out_base.n + i] = "pio"

            def irq(self, handler=None, hard=False):
                self.handler = handler

            def active(self, v=None):
                if v is None:
                    return self.running
                self.running = bool(v)

            def put(self, word):
                self.words.append(word)

        class DMA:
            def __init__(self):
                self.channel = len(chip.dmas)
                self.read = self.write = self.count = self.ctrl = 0
                self.running = False
                self.closed = False
                chip.dmas.append(self)

            def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
                self.read, self.write, self.count, self.ctrl = read, write, count, ctrl

            def active(self, v=None):
                if v is None:
                    return self.running
                self.running = bool(v)

            def close(self):
                self.closed = True

        class PIO:
            OUT_LOW = 0
            OUT_HIGH = 1
            SHIFT_RIGHT = 1

        def asm_pio(**kw):
            return lambda program: ("program", program)

        self.machine = _NS()
        self.machine.mem32 = Mem()
        self.machine.Pin = Pin
        self.machine.ADC = ADC
        self.rp2 = _NS()
        self.rp2.StateMachine = StateMachine
        self.rp2.DMA = DMA
        self.rp2.PIO = PIO
        self.rp2.asm_pio = asm_pio
        self.uctypes = _NS()
        self.uctypes.addressof = self.addressof
        self.ThreadSafeFlag = _flag_class()

    def addressof(self, buf):
        for addr, b, _size in self.buffers:
            if b is buf:
                return addr
        size = len(bytes(buf))
        addr = self._next
        self._next += size + 0x1004
        self.buffers.append((addr, buf, size))
        return addr

    def owned(self, owner):
        """Whether the eight scan pins all belong to ``owner`` ("pio" or "out")."""
        base = pins.SCAN_OUT_BASE
        return all(self.pins.get(base + i) == owner for i in range(pins.SCAN_OUT_COUNT))

    def write(self, addr, v):
        self.regs[addr] = v
        if addr == ADC_CS and v & hal.CS_START_MANY:
            self.starts += 1
            if self.deliver:
                if self.async_irq:
                    import asyncio

                    asyncio.create_task(self._later())
                else:
                    self.fire()
        elif addr == DMA_CHAN_ABORT:
            for d in self.dmas:
                if v >> d.channel & 1:
                    d.running = False
        elif addr == SIO_OUT_SET:
            self.gpio |= v
        elif addr == SIO_OUT_CLR:
            self.gpio &= ~v
            if self.word() == hal.address_word(0, 0):  # a polled frame starts: the board now
                self.source(self.raw)

    def word(self):
        return (self.gpio >> pins.SCAN_OUT_BASE) & 0xFF

    async def _later(self):
        from firmware.clock import ticks

        await ticks.sleep_ms(3)
        if self.deliver and self.regs.get(ADC_CS, 0) & hal.CS_START_MANY:
            self.fire()

    def fire(self):
        """One frame into the ring channel A writes, then the frame IRQ."""
        a = self.dmas[0]
        ring, off = None, 0
        for addr, b, size in self.buffers:
            if addr <= a.write < addr + size:
                ring, off = b, (a.write - addr) // 2
        assert ring is not None, "channel A writes nowhere known"
        self.source(self.raw)
        good = self.owned("pio")
        for p in range(self.n * self.n):
            ring[off + self.gather[p]] = self.raw[p] if good else GARBAGE
        for i in self.spacers:
            ring[off + i] = 1500
        self.fired += 1
        for sm in self.sms:
            if sm.running and sm.handler is not None:
                sm.handler(sm)

    def adc_read(self, ch):
        assert not self.regs.get(ADC_CS, 0) & hal.CS_START_MANY, "ADC read while DMA runs"
        if not self.owned("out"):
            return GARBAGE
        row, mux, _ = hal.decode_word(self.word())
        x = ch * 8 + mux
        if row < 0 or x >= self.n:
            return 0
        return self.raw[row * self.n + x]


def _source(board):
    def fill(frame):
        for i in range(len(board)):
            frame[i] = board[i]

    return fill


def _no_sleep(us):
    pass


def test_dma_scanner_on_a_fake_chip_reads_the_board():
    board = _board(21)
    chip = FakeChip(_source(board))
    sc = hal.DmaScanner(N, parts=chip)
    assert chip.owned("pio") and chip.sms[0].running
    assert (chip.addressof(sc._ring_buf) + 2 * sc.ring_base) % (2 * hal.RING_SAMPLES) == 0
    frame = array("H", bytes(2 * N * N))
    sc.scan(frame)
    assert frame == board and sc.frames == 1 and sc.stalls == 0
    assert sc.vsys_mv() == hal.vsys_mv(1500)
    sc.close()
    assert chip.dmas[0].closed and chip.sms[0].words[-1] == hal.PARK


def test_the_voices_ring_and_block_share_the_scans_buffer_wherever_it_lands():
    # firmware/hal/rp2040_voice.py plays from a second ring in the scan's sample buffer: on a
    # boundary of its size, clear of the scan's ring, its decoding block in what is left,
    # wherever the heap puts the buffer (every 16-byte position of a 2 KiB boundary's cycle).
    ring = 2 * hal.RING_SAMPLES
    for start in range(0x20000000, 0x20000000 + ring, 16):
        chip = FakeChip(_source(_board(3)))
        chip._next = start
        sc = hal.DmaScanner(N, parts=chip)
        addr = chip.addressof(sc._ring_buf)
        size = len(sc._ring_buf) * 2
        scan = (addr + 2 * sc.ring_base, addr + 2 * sc.ring_base + ring)
        voice = (sc.voice_ring_addr, sc.voice_ring_addr + ring)
        assert voice[0] % ring == 0 and scan[1] <= voice[0] and voice[1] <= addr + size
        assert len(sc.voice_ring) == hal.RING_SAMPLES and len(sc.voice_pcm) == hal.VOICE_BLOCK
        # The block: inside the buffer, clear of both rings (its index in the buffer's samples).
        sc.voice_pcm[0] = 0xBEEF
        i = list(sc._ring_buf).index(0xBEEF)
        lo, hi = addr + 2 * i, addr + 2 * (i + hal.VOICE_BLOCK)
        assert hi <= addr + size and (hi <= scan[0] or lo >= voice[1]), (hex(start), i)
        sc.voice_ring[0] = 0xCAFE
        assert sc._ring_buf[(voice[0] - addr) // 2] == 0xCAFE
        sc.close()


def _run(coro):
    import asyncio

    return asyncio.run(coro)


def test_a_stalled_dma_chain_times_out():
    from firmware.clock import ticks

    board = _board(22)
    chip = FakeChip(_source(board), async_irq=True)
    sc = hal.DmaScanner(N, timeout_ms=30, parts=chip)
    frame = array("H", bytes(2 * N * N))

    async def go():
        await sc.scan_async(frame)
        assert frame == board
        chip.deliver = False  # the chain stalls: no frame IRQ ever again
        t0 = ticks.now_ms()
        try:
            await sc.scan_async(frame)
        except OSError as e:
            waited = ticks.diff(ticks.now_ms(), t0)
            assert "no frame IRQ" in str(e)
            assert waited >= 30, waited  # not before its timeout (no upper bound: host time)
        else:
            raise AssertionError("a stalled scan_async returned")
        assert sc.stalls == 1

    _run(go())
    chip.async_irq = False
    try:
        sc.scan(frame)  # the blocking scan says the same
    except OSError:
        pass
    else:
        raise AssertionError("a stalled scan returned")
    assert sc.stalls == 2


def _guard(chip, t, timeout_ms=20, retry_ms=1000):
    dma = hal.DmaScanner(N, timeout_ms=timeout_ms, parts=chip)
    return hal.ScanGuard(
        dma,
        lambda: hal.PolledScanner(N, sleep_us=_no_sleep, machine=chip.machine),
        retry_ms=retry_ms,
        now=lambda: t[0],
    )


def test_the_guard_scans_polled_while_the_dma_is_stalled_and_goes_back():
    board = _board(23)
    chip = FakeChip(_source(board), async_irq=True)
    t = [1000]
    g = _guard(chip, t)
    frame = array("H", bytes(2 * N * N))

    async def go():
        await g.scan_async(frame)
        assert frame == board and g.path == "dma" and g.stalls == 0

        chip.deliver = False  # the chain stalls...
        board[5 * N + 7] = 900  # ...and a stone is put down
        await g.scan_async(frame)  # the same call: the polled frame
        assert frame == board, "no frame after the stall"
        assert g.path == "polled" and g.stalls == 1 and g.error == "scan: no frame IRQ"
        assert chip.owned("out")  # the polled scan has the pins; the ADC is no longer DMA's
        starts = chip.starts
        for _ in range(3):  # before the retry is due: polled, the DMA left alone
            t[0] += 300
            board[6 * N + 7] = 3000
            await g.scan_async(frame)
            assert frame == board
        assert chip.starts == starts and g.stalls == 1 and g.retries == 0

        t[0] += 200  # a retry: rearmed (pins back to the PIO), still stalled
        await g.scan_async(frame)
        assert frame == board and g.path == "polled"
        assert g.retries == 1 and g.stalls == 1 and chip.sms[0].inits == 2
        assert chip.owned("out") and chip.starts == starts + 1

        chip.deliver = True  # the chain works again: at the next retry, back to DMA
        await g.scan_async(frame)
        assert g.path == "polled"  # not yet due
        t[0] += 1000
        board[5 * N + 7] = 2048
        await g.scan_async(frame)
        assert frame == board and g.path == "dma" and g.recoveries == 1 and g.retries == 2
        assert chip.owned("pio") and g.vsys_mv() == hal.vsys_mv(1500)
        fired = chip.fired
        await g.scan_async(frame)
        assert chip.fired == fired + 1 and g.stalls == 1

    _run(go())


def test_the_guard_blocking_scan_falls_back_too():
    board = _board(24)
    chip = FakeChip(_source(board))
    t = [0]
    g = _guard(chip, t)
    frame = array("H", bytes(2 * N * N))
    g.scan(frame)
    assert frame == board and g.path == "dma"
    chip.deliver = False
    board[0] = 111
    g.scan(frame)
    assert frame == board and g.path == "polled" and g.stalls == 1
    chip.deliver = True
    t[0] += 1000
    g.scan(frame)
    assert frame == board and g.path == "dma" and g.recoveries == 1


def test_make_scanner_guards_the_dma_scan():
    board = _board(25)
    chip = FakeChip(_source(board))
    sc = hal.make_scanner(parts=chip)
    assert isinstance(sc, hal.ScanGuard) and isinstance(sc.primary, hal.DmaScanner)
    assert sc.n == N and sc.fallback is None  # made only when needed: it takes the pins
    assert isinstance(hal.make_scanner(polled=True, parts=chip), hal.PolledScanner)
    del chip.rp2.DMA  # firmware without rp2.DMA: the polled scan alone
    assert isinstance(hal.make_scanner(parts=chip), hal.PolledScanner)


class _Regs:
    """``mem32`` that allocates nothing: the ADC always ready, the DMA abort done, stores
    dropped (the fake chip's bookkeeping would count in ``mem_total``)."""

    def __getitem__(self, addr):
        return hal.CS_READY if addr == ADC_CS else 0

    def __setitem__(self, addr, v):
        pass


def test_the_scan_wait_allocates_nothing_per_frame():
    # The app's scan task polls the guard; the DMA scanner's frame IRQ only bumps a counter.
    # 190 frames a second through the scan wait must leave the allocator alone (the former
    # asyncio.wait_for_ms made a task for each).
    import gc

    import micropython

    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    chip = FakeChip(_source(_board(26)))
    chip.deliver = False  # the frame IRQ comes when the test says so: a fake flag
    sc = hal.DmaScanner(N, parts=chip)
    sc._mem = _Regs()
    g = hal.ScanGuard(sc, lambda: None)
    frame = array("H", bytes(2 * N * N))
    irq = sc._frame_done  # bound once, as the board's IRQ holds its handler
    ready = hal.READY
    polls = 0
    for k in range(110):
        if k == 10:  # warmed up
            gc.collect()
            before = micropython.mem_total()
            polls = 0
        while g.poll(frame) != ready:
            polls += 1
            irq(None)
    used = micropython.mem_total() - before
    assert used == 0, used
    assert polls == 100 and g.frames == 110 and sc.frames == 110 and g.path == "dma"


def test_a_poll_that_waits_too_long_is_a_stall_and_the_polled_scan_takes_over():
    board = _board(27)
    chip = FakeChip(_source(board))
    chip.deliver = False  # no frame IRQ ever
    t = [0]
    g = _guard(chip, t)
    g.primary.timeout_ms = -1  # every wait is already too long: no real time needed
    frame = array("H", bytes(2 * N * N))
    assert g.poll(frame) == hal.FRAME_MS  # the frame asked for
    w = g.poll(frame)  # no IRQ: the stall, and the first row of the polled frame
    assert g.stalls == 1 and g.path == "polled" and chip.owned("out")
    rows = 1
    while w != hal.READY:
        assert w == 0  # between rows: just let the other tasks run
        w = g.poll(frame)
        rows += 1
    assert rows == N and frame == board and g.frames == 1
    w = g.poll(frame)  # the next polled frame waits for its period
    assert 0 < w <= hal.POLL_MS


def test_the_dma_stop_waits_are_bounded():
    chip = FakeChip(_source(_board(28)))
    sc = hal.DmaScanner(N, parts=chip)

    class Stuck(_Regs):
        def __getitem__(self, addr):
            return 1 if addr == DMA_CHAN_ABORT else hal.CS_READY

    sc._mem = Stuck()
    try:
        sc.start()
    except OSError as e:
        assert "DMA abort" in str(e)
    else:
        raise AssertionError("a DMA abort that never finishes hung or passed")
    # Under the guard: a stall like any other, the polled scan takes over.
    g = hal.ScanGuard(sc, lambda: hal.PolledScanner(N, sleep_us=_no_sleep, machine=chip.machine))
    frame = array("H", bytes(2 * N * N))
    g.poll(frame)
    assert g.stalls == 1 and g.path == "polled" and "DMA abort" in g.error
