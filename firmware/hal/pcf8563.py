"""The NXP PCF8563 real-time clock on I2C: the calendar time that outlives a power cycle.

The board keeps its calendar time (set by the PC's ``tengen time --set`` or on contact) in the
PCF8563 on I2C1 (address 0x51), which a CR1220 coin cell runs while the board is off; at boot
``firmware/boot/board.py`` starts the link server's calendar from it. ``PCF8563(i2c)`` takes any
object with ``machine.I2C``'s ``readfrom_mem_into(addr, reg, buf)`` and
``writeto_mem(addr, reg, buf)``: the board's bus (firmware/hal/rp2040.py) or the virtual
board's emulated chip (firmware/hal/virtual.py). Both runtimes.

Calendar seconds are UTC seconds since 1970-01-01, worked out here (``days_from_civil``,
``civil``) rather than with ``time.mktime``/``gmtime``, whose epoch differs between
MicroPython ports. The chip holds 2000-01-01 00:00:00 .. 2199-12-31 23:59:59.

Datasheet: NXP PCF8563 product data sheet (Rev. 10/11 numbering):

- §8.2, Table 4: registers 00h-0Fh; 02h-08h are the time (BCD), the address auto-increments.
- §8.3.1, Control_status_1 (00h): bit 5 STOP stops the clock (and resets its divider chain),
  bit 7 TEST1 selects the external-clock test mode; 0 in every bit is normal running.
- §8.4.1 / §8.4.1.1, VL_seconds (02h): bit 7 VL is set when VDD dropped below V_low (a flat
  coin cell, a first power-up): the time may be corrupt; only a write clears it.
- §8.4.2-8.4.5, 03h-06h: minutes, hours (24 h), days, weekdays (0 = Sunday, Table 14; the
  chip only counts it on, so its meaning is ours).
- §8.4.6, Century_months (07h), Table 15: bit 7 C, "century x / x + 1", toggled when the years
  register rolls over from 99 to 00 (§8.4.7). Here C = 0 means 20yy and C = 1 means 21yy
  (years 2000-2199): a clock set in 2099 rolls into 2100 with C set, as the chip counts. (An
  older data-sheet revision calls C = 1 "19xx"; the bit is the user's to assign.)
- §8.4.4 footnote: the chip makes February of every year 00 a leap month, so 2100 (not a
  leap year) shows a 29 February the calendar lacks: ``read`` refuses that day (None).
- §8.5: during one I2C access the time registers are frozen, so the time is read and written
  in one transaction each, within a second.
"""

from micropython import const

ADDR = const(0x51)  # the chip's 7-bit I2C address (A2h write, A3h read)

_CS1 = const(0x00)  # Control_status_1
_SECONDS = const(0x02)  # VL_seconds: the first of the 7 time registers
_STOP = const(0x20)  # Control_status_1 bit 5
_TEST1 = const(0x80)  # Control_status_1 bit 7: the external-clock test mode
_VL = const(0x80)  # VL_seconds bit 7
_CENTURY = const(0x80)  # Century_months bit 7: set for 2100-2199
_READ = const(9)  # one read from 00h: Control_status_1, _2 and the 7 time registers

EPOCH_2000 = const(946684800)  # 2000-01-01 00:00:00 UTC: the first second the chip holds
END_2200 = 7258118400  # 2200-01-01 00:00:00 UTC: the first it cannot (a long int on the board)
_DAY = const(86400)


def days_from_civil(year, month, day):
    """Days since 1970-01-01 of the proleptic Gregorian date (H. Hinnant's algorithm: integer
    arithmetic only, so both runtimes agree)."""
    if month <= 2:
        year -= 1
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (9 if month <= 2 else -3)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil(secs):
    """``(year, month, mday, hour, minute, second, weekday)`` of calendar seconds ``secs``
    (UTC since 1970), as ``time.gmtime``'s first seven fields on CPython (weekday 0 = Monday)."""
    days = secs // _DAY
    rem = secs - days * _DAY
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    return (
        year,
        month,
        day,
        rem // 3600,
        rem // 60 % 60,
        rem % 60,
        (days + 3) % 7,  # 1970-01-01 was a Thursday (3)
    )


def seconds(year, month, day, hour=0, minute=0, second=0):
    """Calendar seconds (UTC since 1970) of a date and time: ``civil``'s inverse."""
    return days_from_civil(year, month, day) * _DAY + hour * 3600 + minute * 60 + second


def month_days(year, month):
    """Days in ``month`` of ``year`` (Gregorian: 2100 is not a leap year)."""
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _bcd(b):
    # The value of a BCD byte, -1 if a digit is not 0-9.
    hi = b >> 4
    lo = b & 15
    if hi > 9 or lo > 9:
        return -1
    return hi * 10 + lo


def _to_bcd(v):
    return (v // 10) << 4 | v % 10


def time_of(regs, at):
    """Calendar seconds of the 7 time registers ``regs[at:at + 7]`` (02h-08h as read), or
    None if they hold what no time does (a bad BCD digit, month 13, 31 April, 29 February
    2100). VL and the control registers are not looked at: ``PCF8563.read`` does that."""
    second = _bcd(regs[at] & 0x7F)  # the unused bits masked off (Tables 8-17: "unused")
    minute = _bcd(regs[at + 1] & 0x7F)
    hour = _bcd(regs[at + 2] & 0x3F)
    day = _bcd(regs[at + 3] & 0x3F)
    weekday = regs[at + 4] & 0x07
    cm = regs[at + 5]
    month = _bcd(cm & 0x1F)
    yy = _bcd(regs[at + 6])
    if second < 0 or minute < 0 or hour < 0 or day < 0 or month < 0 or yy < 0:
        return None
    year = (2100 if cm & _CENTURY else 2000) + yy
    if second > 59 or minute > 59 or hour > 23 or weekday > 6 or not 1 <= month <= 12:
        return None
    if not 1 <= day <= month_days(year, month):
        return None
    return seconds(year, month, day, hour, minute, second)


def put_time(secs, regs, at):
    """Encode calendar seconds ``secs`` (2000-2199) into the 7 time registers
    ``regs[at:at + 7]``: BCD, VL clear, weekday 0 = Sunday, C set for 2100-2199."""
    year, month, day, hour, minute, second, wd = civil(secs)
    regs[at] = _to_bcd(second)  # VL (bit 7) 0: cleared
    regs[at + 1] = _to_bcd(minute)
    regs[at + 2] = _to_bcd(hour)
    regs[at + 3] = _to_bcd(day)
    regs[at + 4] = (wd + 1) % 7  # Table 14: 0 = Sunday; ``civil``'s 0 is Monday
    if year >= 2100:
        regs[at + 5] = _CENTURY | _to_bcd(month)
        regs[at + 6] = _to_bcd(year - 2100)
    else:
        regs[at + 5] = _to_bcd(month)
        regs[at + 6] = _to_bcd(year - 2000)


class PCF8563:
    """The PCF8563 on ``i2c`` (``machine.I2C`` or alike) at ``addr``: ``read()`` the calendar
    seconds or None, ``write(secs)`` set them. The buffers are made once, here."""

    def __init__(self, i2c, addr=ADDR):
        self.i2c = i2c
        self.addr = addr
        self._buf = bytearray(_READ)
        mv = memoryview(self._buf)
        self._ctl = mv[0:1]  # Control_status_1, written alone
        self._time = mv[_SECONDS:_READ]  # the 7 time registers, 02h-08h

    def read(self):
        """Calendar seconds (UTC since 1970) the chip holds, or None when they cannot be
        trusted: the chip does not answer (``OSError``), VL is set (the coin cell ran flat, or
        it was never set), the clock is stopped or in test mode, or a register holds what no
        time does (a bad BCD digit, month 13, 31 April, 29 February 2100)."""
        b = self._buf
        try:
            self.i2c.readfrom_mem_into(self.addr, _CS1, b)  # one access: §8.5
        except OSError:
            return None
        if b[0] & (_STOP | _TEST1) or b[2] & _VL:
            return None
        return time_of(b, _SECONDS)

    def raw(self, out):
        """The 7 time registers (02h-08h, VL included) into ``out`` as the chip holds them,
        in one access; False if it does not answer. Allocates nothing: the clock's checkpoint
        (firmware/clock/checkpoint.py) keeps them raw and ``time_of`` reads them at boot."""
        try:
            self.i2c.readfrom_mem_into(self.addr, _SECONDS, out)
        except OSError:
            return False
        return True

    def write(self, secs):
        """Set the chip to calendar seconds ``secs`` (2000-01-01 .. 2199-12-31; else
        ``ValueError``), clearing VL and leaving the clock running. Three accesses: STOP set
        (the divider chain reset, §8.3.1), the 7 time registers in one (§8.5), then
        Control_status_1 = 0 (running, normal mode), so the next second ticks a full second
        after this call. A bus error (``OSError``) propagates: the caller decides (the
        board's ``set_rtc`` ignores it). Cut after the first access, the chip is left stopped,
        which ``read`` takes as no time."""
        if not EPOCH_2000 <= secs < END_2200:
            raise ValueError("PCF8563 holds 2000-2199")
        t = self._time
        put_time(secs, t, 0)
        ctl = self._ctl
        ctl[0] = _STOP
        self.i2c.writeto_mem(self.addr, _CS1, ctl)
        self.i2c.writeto_mem(self.addr, _SECONDS, t)
        ctl[0] = 0
        self.i2c.writeto_mem(self.addr, _CS1, ctl)
