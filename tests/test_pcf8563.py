"""The PCF8563 real-time clock driver (firmware/hal/pcf8563.py), both runtimes.

The driver talks to a register file: ``Regs`` here (16 bytes, every access logged), or the
virtual board's emulated chip (firmware/hal/virtual.py's ``Pcf8563Chip``, whose time runs on
with a host clock the test holds). Dates and their registers are written out by hand below;
on runtimes whose ``time.gmtime`` counts from 1970 (CPython, the unix port) the date
arithmetic is also checked against it over many seconds. The board's wiring of the chip
(firmware/hal/rp2040.py's ``rtc_read``, ``rtc_setter``) is checked with stand-ins for the
chip and ``machine.RTC``.
"""

import time

from firmware.hal import pcf8563 as P
from firmware.hal import virtual as V
from tests.support import Rng
from tests.test_journal import fresh_root


class Regs:
    """A PCF8563's 16 registers behind ``machine.I2C``'s two calls; ``log`` holds every
    access: ``("r", reg, n)`` or ``("w", reg, bytes)``. ``present`` False: no acknowledge."""

    def __init__(self):
        self.regs = bytearray(16)
        self.log = []
        self.present = True

    def _check(self, addr):
        if not self.present or addr != P.ADDR:
            raise OSError(5)

    def readfrom_mem_into(self, addr, reg, buf):
        self._check(addr)
        self.log.append(("r", reg, len(buf)))
        for i in range(len(buf)):
            buf[i] = self.regs[(reg + i) & 15]

    def writeto_mem(self, addr, reg, buf):
        self._check(addr)
        self.log.append(("w", reg, bytes(buf)))
        for i in range(len(buf)):
            self.regs[(reg + i) & 15] = buf[i]


def _chip():
    bus = Regs()
    return bus, P.PCF8563(bus)


# (year, month, day, hour, minute, second), its calendar seconds, registers 02h-08h in hex.
DATES = (
    ((2000, 1, 1, 0, 0, 0), 946684800, "00000001060100"),  # the first second; a Saturday
    ((2000, 2, 29, 12, 34, 56), 951827696, "56341229020200"),  # 2000 is a leap year (÷400)
    ((2024, 2, 29, 23, 59, 59), 1709251199, "59592329040224"),
    ((2099, 12, 31, 23, 59, 59), 4102444799, "59592331041299"),
    ((2100, 1, 1, 0, 0, 0), 4102444800, "00000001058100"),  # C set: 21yy
    ((2100, 3, 1, 0, 0, 0), 4107542400, "00000001018300"),  # 2100: no 29 February
    ((2199, 12, 31, 23, 59, 59), 7258118399, "59592331029299"),  # the last second
)


def _hex(b):
    return "".join("%02x" % x for x in b)


def _unhex(text):
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


def test_dates_and_their_registers_round_trip():
    for fields, secs, regs in DATES:
        assert P.seconds(*fields) == secs, fields
        assert P.civil(secs)[:6] == fields, secs
        bus, rtc = _chip()
        rtc.write(secs)
        assert _hex(bus.regs[2:9]) == regs, (fields, _hex(bus.regs[2:9]))
        assert rtc.read() == secs, fields


def test_boundaries_of_months_and_years_round_trip():
    bus, rtc = _chip()
    for y in (2000, 2001, 2023, 2024, 2099, 2100, 2104, 2198):
        for m in range(1, 13):
            first = P.seconds(y, m, 1)
            last = P.seconds(y, m, P.month_days(y, m), 23, 59, 59)
            for secs in (first, last):
                rtc.write(secs)
                assert rtc.read() == secs, P.civil(secs)
            following = (y + 1, 1, 1) if m == 12 else (y, m + 1, 1)
            assert P.civil(last + 1)[:6] == following + (0, 0, 0), (y, m)
    assert P.month_days(2000, 2) == 29 and P.month_days(2100, 2) == 28
    assert P.month_days(2024, 2) == 29 and P.month_days(2023, 2) == 28


def test_many_seconds_round_trip_and_match_gmtime_where_it_counts_from_1970():
    gm = time.gmtime(0)[0] == 1970  # CPython and the unix port; not every port
    bus, rtc = _chip()
    rng = Rng(8563)
    span = P.END_2200 - P.EPOCH_2000
    for _ in range(400):
        secs = P.EPOCH_2000 + (rng.next() * 65537 + rng.next()) % span
        rtc.write(secs)
        assert rtc.read() == secs, secs
        if gm:
            assert P.civil(secs) == tuple(time.gmtime(secs)[:7]), secs
    # before the chip's range the arithmetic is the same (machine.RTC takes those)
    for secs in (0, 86399, 86400, 68169600, 951782399, 1234567890):
        assert P.seconds(*P.civil(secs)[:6]) == secs
        if gm:
            assert P.civil(secs) == tuple(time.gmtime(secs)[:7]), secs


def test_the_time_is_read_and_written_in_single_accesses():
    bus, rtc = _chip()
    rtc.write(1767225600)
    assert bus.log == [
        ("w", 0, b"\x20"),  # STOP: the divider reset
        ("w", 2, _unhex("00000001040126")),  # 2026-01-01 00:00:00, a Thursday (4)
        ("w", 0, b"\x00"),  # running
    ]
    bus.log = []
    assert rtc.read() == 1767225600
    assert bus.log == [("r", 0, 9)]  # control and time registers in one go


def test_vl_stop_or_test_mode_mean_no_time_and_write_clears_them():
    bus, rtc = _chip()
    rtc.write(1767225600)
    for reg, bit in ((2, 0x80), (0, 0x20), (0, 0x80)):  # VL, STOP, TEST1
        bus.regs[reg] |= bit
        assert rtc.read() is None, (reg, bit)
        bus.regs[reg] &= ~bit
        assert rtc.read() == 1767225600
    bus.regs[0] = 0x28  # STOP and TESTC, as after power-up
    bus.regs[2] |= 0x80  # VL: the coin cell went flat
    assert rtc.read() is None
    rtc.write(1767225601)
    assert bus.regs[0] == 0 and not bus.regs[2] & 0x80
    assert rtc.read() == 1767225601
    for reg, unused in ((3, 0x80), (4, 0xC0), (5, 0xC0), (6, 0xF8), (7, 0x60)):
        bus.regs[reg] |= unused  # the unused bits (Tables 10-15) are not looked at
    assert rtc.read() == 1767225601


def test_registers_no_time_is_mean_no_time():
    bus, rtc = _chip()
    for reg, value in (
        (2, 0x5A),  # seconds: not a BCD digit
        (2, 0x60),  # 60 s
        (3, 0x60),  # 60 min
        (4, 0x24),  # 24 h
        (5, 0x32),  # day 32
        (5, 0x00),  # day 0
        (6, 0x07),  # weekday 7
        (7, 0x13),  # month 13
        (7, 0x00),  # month 0
        (7, 0x0A),  # month: not BCD
        (8, 0xA0),  # year: not BCD
    ):
        rtc.write(1767225600)
        bus.regs[reg] = value
        assert rtc.read() is None, (reg, value)
    for fields in ((2026, 4, 31), (2023, 2, 29), (2100, 2, 29)):  # days a month lacks
        rtc.write(P.seconds(fields[0], fields[1], 1))
        bus.regs[5] = (fields[2] // 10) << 4 | fields[2] % 10
        assert rtc.read() is None, fields
    rtc.write(P.seconds(2024, 2, 1))
    bus.regs[5] = 0x29
    assert rtc.read() == P.seconds(2024, 2, 29)


def test_an_absent_chip_is_no_time_and_a_write_raises_oserror():
    bus, rtc = _chip()
    bus.present = False
    assert rtc.read() is None
    try:
        rtc.write(1767225600)
    except OSError:
        pass
    else:
        raise AssertionError("a write to no chip raised nothing")
    assert P.PCF8563(Regs(), addr=0x52).read() is None  # nobody at that address


def test_times_the_chip_cannot_hold_are_refused():
    bus, rtc = _chip()
    for secs in (0, P.EPOCH_2000 - 1, P.END_2200, 1 << 40):
        try:
            rtc.write(secs)
        except ValueError:
            pass
        else:
            raise AssertionError("wrote %d" % secs)
    assert bus.log == []  # refused before the bus


# ---- the emulated chip (the virtual board's) -------------------------------------------------


class HostClock:
    """The host's time, as the test says: seconds since 1970."""

    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def _flash():
    return fresh_root(blocks=64)[: -len("/games")]


def test_the_emulated_chip_runs_on_with_the_host_and_is_kept_in_its_file():
    root = _flash()
    host = HostClock(1767225600.75)
    bus, chip, rtc = V.make_rtc(root + V.RTC_FILE, host)
    assert rtc.read() is None  # fresh from power-up: VL set
    rtc.write(1767225600)
    host.t += 59.9
    assert rtc.read() == 1767225659
    host.t += 0.2  # the fraction is the chip's divider: a second ticks 1 s after the write
    assert rtc.read() == 1767225660
    # Stopped and started again: the file holds the registers and the host time.
    host.t += 86400 * 3 + 3600
    bus2, chip2, rtc2 = V.make_rtc(root + V.RTC_FILE, host)
    assert rtc2.read() == 1767225660 + 86400 * 3 + 3600
    assert chip2.regs[6] == (4 + 3) % 7  # Thursday + 3 days: Sunday, the chip's 0
    # STOP holds the time; releasing it starts a full second.
    chip2.write(0, b"\x20")
    host.t += 100
    assert rtc2.read() is None
    chip2.write(0, b"\x00")
    assert rtc2.read() == 1767225660 + 86400 * 3 + 3600


def test_the_emulated_chip_rolls_into_2100_with_the_century_bit():
    host = HostClock(1000.0)
    bus, chip, rtc = V.make_rtc(None, host)
    rtc.write(4102444799)  # 2099-12-31 23:59:59
    assert not chip.regs[7] & 0x80
    host.t += 1
    assert rtc.read() == 4102444800 and chip.regs[7] == 0x81 and chip.regs[8] == 0


def test_a_missing_or_damaged_file_is_a_chip_with_no_time():
    from firmware.store.journal import write_atomic

    root = _flash()
    path = root + V.RTC_FILE
    host = HostClock(1767225600.0)
    assert V.make_rtc(path, host)[2].read() is None  # no file
    V.make_rtc(path, host)[2].write(1767225600)
    good = open(path, "rb").read()
    assert V.make_rtc(path, host)[2].read() == 1767225600
    for bad in (b"", good[:-1], good + b"\x00", b"x" * len(good), good[:20] + b"\xff" + good[21:]):
        write_atomic(path, bad)
        bus, chip, rtc = V.make_rtc(path, host)
        assert rtc.read() is None, bad
        assert chip.regs[2] & 0x80  # VL, as at power-up
    write_atomic(path, good)
    assert V.make_rtc(path, host)[2].read() == 1767225600


# ---- the board's wiring (firmware/hal/rp2040.py) ---------------------------------------------


class FakeRTC:
    """``machine.RTC``: what ``datetime`` was given."""

    set_to = []

    def datetime(self, t):
        FakeRTC.set_to.append(t)


def test_the_board_sets_machine_rtc_and_the_chip_and_a_missing_chip_stops_nothing():
    from firmware.hal.rp2040 import rtc_read, rtc_setter

    bus, rtc = _chip()
    FakeRTC.set_to = []
    set_rtc = rtc_setter(lambda: rtc, FakeRTC)
    set_rtc(1767225600)
    assert FakeRTC.set_to == [(2026, 1, 1, 3, 0, 0, 0, 0)]  # weekday 3: Thursday (0 Monday)
    assert rtc_read(lambda: rtc) == 1767225600
    bus.present = False  # the chip gone (or never fitted)
    set_rtc(1767225700)
    assert FakeRTC.set_to[-1] == (2026, 1, 1, 3, 0, 1, 40, 0)
    assert rtc_read(lambda: rtc) is None

    def no_bus():
        raise ValueError("bad I2C pins")

    rtc_setter(no_bus, FakeRTC)(1767225600)  # the bus cannot be made: machine.RTC all the same
    assert len(FakeRTC.set_to) == 3 and rtc_read(no_bus) is None
    rtc_setter(lambda: rtc, FakeRTC)(5)  # 1970: machine.RTC takes it, the chip cannot
    assert FakeRTC.set_to[-1] == (1970, 1, 1, 3, 0, 0, 5, 0)
    rtc_setter(None, FakeRTC)(1767225600)  # no chip at all
    assert len(FakeRTC.set_to) == 5
