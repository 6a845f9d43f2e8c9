"""The RP2040 scan driver's pure parts, checked off the board (CPython and the unix port).

The hardware half of firmware/hal/rp2040.py needs ``rp2`` and ``machine``; everything it
computes (address words, the scan table, the sample order, frame reassembly, register values,
timing) is checked here. ``_emulate`` replays the ADC/DMA/PIO chain slot by slot with the
sensors' power-on time, so the timing claims of hardware/README.md are tested, not assumed.
"""

from array import array

from firmware.hal import pins
from firmware.hal import rp2040 as hal
from tests.support import Rng, locked

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


class _FakeAdc:
    def __init__(self, fake, ch):
        self.fake = fake
        self.ch = ch

    def read_u16(self):
        return self.fake.read(self.ch)


def test_polled_scanner_reads_the_board():
    board = _board(5)
    fake = _FakeBoard(board)
    sc = hal.PolledScanner(N, fake.adcs, fake.write, fake.sleep_us)
    frame = array("H", bytes(2 * N * N))
    sc.scan(frame)
    assert frame == board
    assert fake.reads == N * N and fake.early == 0
    assert fake.word == hal.PARK


def test_polled_scanner_does_not_allocate():
    board = _board(6)
    fake = _FakeBoard(board)
    sc = hal.PolledScanner(N, fake.adcs, fake.write, fake.sleep_us)
    frame = array("H", bytes(2 * N * N))
    sc.scan_row(frame, 0)  # warm up

    def run():
        sc.scan(frame)

    assert locked(run) is None
    assert frame == board
