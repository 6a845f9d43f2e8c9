"""The clock faces: one interface, two drivers.

Every driver has the same three calls:

- ``show(face)``: draw a ``firmware.clock.clock.Face`` (the time as the clock formatted it in
  ``face.text[:face.length]``, the move number, what is left, the flags). Only what changed
  since the last call reaches the display. True if anything was sent.
- ``show_text(line, small)``: a word (``str`` or bytes, up to six cells: '.' and ':' take
  none) and up to three characters for the small cells, for the menus, the arbiter mode and
  what the referee says; every one is in firmware/ui/texts.py's table. The next ``show``
  redraws the time.
- ``start()``: put the display in its working state (once at boot, and after a power glitch).

``HT1621Face`` is the reference design's reflective segment LCD (hardware/README.md §5): an
HT1621 controller bit-banged over three pins (CS of the face, WR and DATA shared by both
faces). ``show`` computes the 32 nibbles of display RAM into a scratch buffer, compares them
with what the glass holds and sends only the addresses that differ, so a tick of the seconds
is one or two addresses (13 or 17 bits); it allocates nothing (tests/test_ui_face.py). Each
bit is WR low, DATA, WR high: at MicroPython's pin speed on the RP2040 that is near the
HT1621's 3.34 µs minimum WR pulse at 3 V, to be checked on the first board.

``SSD1306Face`` is the OLED alternative: big seven-segment digits drawn with ``fill_rect``
into a 128×64 ``framebuf.FrameBuffer`` (the micropython-lib ``ssd1306`` driver is one, with
``show()``), and a line of small text under them.
"""

import micropython
from micropython import const

# ---- the seven-segment font ------------------------------------------------------------------
# Segment bits: a (top) 0, b (top right) 1, c (bottom right) 2, d (bottom) 3, e (bottom left) 4,
# f (top left) 5, g (middle) 6. Letters are the usual approximations; K, M, V, W, X are poor
# on any seven-segment glass, so the words avoid them (firmware/ui/texts.py says how a player
# reads the glass, and which words may use them). I is lit on the left (e, f) so that
# Gomoku's column I (no letter is skipped there) does not read as a 1.
SEG_A = const(1)
SEG_B = const(2)
SEG_C = const(4)
SEG_D = const(8)
SEG_E = const(16)
SEG_F = const(32)
SEG_G = const(64)

_GLYPHS = (
    "0\x3f1\x062\x5b3\x4f4\x665\x6d6\x7d7\x078\x7f9\x6f"
    "A\x77B\x7cC\x39D\x5eE\x79F\x71G\x3dH\x76I\x30J\x1eK\x75L\x38M\x37"
    "N\x54O\x3fP\x73Q\x67R\x50S\x6dT\x78U\x3eV\x1cW\x2aX\x76Y\x6eZ\x5b"
    "-\x40_\x08=\x48?\x53'\x20\"\x22/\x52*\x63[\x39]\x0f+\x46"
)


def _font():
    # Glyphs of ASCII 32 … 95; lower case is folded onto upper case by the caller.
    f = bytearray(64)
    i = 0
    while i < len(_GLYPHS):
        f[ord(_GLYPHS[i]) - 32] = ord(_GLYPHS[i + 1])
        i += 2
    return bytes(f)


FONT = _font()


@micropython.native
def glyph(c):
    """The segment bits of the character code ``c`` (0 for a blank or an unknown one)."""
    if c >= 97 and c <= 122:
        c -= 32
    if c < 32 or c > 95:
        return 0
    return FONT[c - 32]


# ---- the HT1621 glass ------------------------------------------------------------------------
# Logical segments of the reference face: six big cells for the time (0 … 5, left to right,
# each a … g and a point after it), seven small cells (6 … 8 the move number, 9 … 10 the
# seconds of the counted minute, 11 … 12 what is left), the colons between big cells, and the
# indicators. A glass map (``default_glass``) says where each sits in the controller's RAM;
# another module needs only another map.
CELLS = const(13)
MAIN_CELLS = const(6)
CELL_MOVE = const(6)  # 3 cells
CELL_SEC = const(9)  # 2 cells
CELL_LEFT = const(11)  # 2 cells
SEG_COLON = const(104)  # + c: the colon between big cells c and c + 1 (c = 0 … 4)
IND_RUN = const(109)  # the indicators in the order of the Face flag bits:
IND_PAUSE = const(110)  # F_RUNNING, F_PAUSED, F_FLAGGED, F_ARBITER, F_LOW, F_COUNTING
IND_FLAG = const(111)
IND_ARB = const(112)
IND_LOW = const(113)
IND_COUNT = const(114)
IND_MOVE = const(115)  # the words printed by the small digits: "MOVE", "SEC", "LEFT"
IND_SEC = const(116)
IND_LEFT = const(117)
N_SEGS = const(118)
NONE = const(0xFF)  # a segment this glass does not have

RAM = const(32)  # the HT1621's 32 addresses of 4 bits (SEG0 … 31 × COM0 … 3)

# Commands (sent after the 3-bit ID 100 as 8 bits and one don't-care bit).
CMD_SYS_DIS = const(0x00)
CMD_SYS_EN = const(0x01)
CMD_LCD_OFF = const(0x02)
CMD_LCD_ON = const(0x03)
CMD_RC256K = const(0x18)
CMD_BIAS_13_4COM = const(0x29)  # 0010 1001: bias 1/3, 4 commons
ID_CMD = const(0b100)
ID_WRITE = const(0b101)
START = (CMD_BIAS_13_4COM, CMD_RC256K, CMD_SYS_EN, CMD_LCD_ON)


def default_glass():
    """The reference face's map: ``glass[segment] = address << 2 | com`` (NONE if absent).

    Cell c drives addresses 2c (COM0 … 3 = a, b, c, point) and 2c + 1 (COM0 … 3 = f, g, e,
    d), the usual wiring of 7-segment HT1621 modules. The small cells have no point: in its
    place are the indicators RUN … MOVE. Address 26 holds the four first colons, address 27
    the last colon and the SEC and LEFT words.
    """
    g = bytearray(N_SEGS)
    for i in range(N_SEGS):
        g[i] = NONE
    order = (0, 1, 2, 7, 5, 6, 4, 3)  # COM0..3 at 2c, then at 2c + 1: a b c point, f g e d
    for c in range(CELLS):
        for k in range(8):
            seg = order[k]
            if seg == 7 and c >= MAIN_CELLS:
                continue
            g[c * 8 + seg] = (2 * c + k // 4) << 2 | (k & 3)
    for k in range(7):  # RUN, PAUSE, FLAG, ARB, LOW, COUNT, MOVE
        g[IND_RUN + k] = (2 * (MAIN_CELLS + k)) << 2 | 3
    for k in range(5):
        g[SEG_COLON + k] = (26 + k // 4) << 2 | (k & 3)
    g[IND_SEC] = 27 << 2 | 1
    g[IND_LEFT] = 27 << 2 | 2
    return bytes(g)


GLASS = default_glass()


class HT1621Face:
    """One face on an HT1621 segment LCD.

    ``cs``, ``wr`` and ``data`` are output pins with ``value(v)`` (``machine.Pin``); the two
    faces share ``wr`` and ``data``. WR idles high, the HT1621 latches DATA on its rising
    edge, CS (active low) frames each command or write. ``glass`` maps logical segments to
    RAM bits (``default_glass``).
    """

    def __init__(self, cs, wr, data, glass=GLASS):
        self.cs = cs
        self.wr = wr
        self.data = data
        self.glass = glass
        self.ram = bytearray(RAM)  # what the glass shows
        self.want = bytearray(RAM)  # what it should show: built by each show
        self.writes = 0  # write frames sent (for tests and the bench)

    # ---- the wire ------------------------------------------------------------------------

    @micropython.native
    def _bits(self, v, n):
        # The n low bits of v, most significant first.
        wr = self.wr
        data = self.data
        while n > 0:
            n -= 1
            wr.value(0)
            data.value((v >> n) & 1)
            wr.value(1)

    @micropython.native
    def _nibble(self, v):
        # A RAM nibble goes D0 first (HT1621 datasheet, WRITE mode: 101 A5 … A0 D0 … D3).
        wr = self.wr
        data = self.data
        i = 0
        while i < 4:
            wr.value(0)
            data.value((v >> i) & 1)
            wr.value(1)
            i += 1

    def command(self, cmds):
        """Send commands (each 8 bits + a don't-care bit) in one CS frame."""
        self.cs.value(0)
        self._bits(ID_CMD, 3)
        for c in cmds:
            self._bits(c << 1, 9)
        self.cs.value(1)

    @micropython.native
    def _write(self, first, last):
        # One successive-address write of want[first … last]; the glass then holds them.
        cs = self.cs
        want = self.want
        ram = self.ram
        cs.value(0)
        self._bits(ID_WRITE, 3)
        self._bits(first, 6)
        a = first
        while a <= last:
            v = want[a]
            self._nibble(v)
            ram[a] = v
            a += 1
        cs.value(1)
        self.writes += 1

    @micropython.native
    def _flush(self):
        # Every run of changed addresses, as few frames as pays: a frame costs 9 bits of
        # header, a nibble 4, so gaps of up to two unchanged addresses are sent along.
        want = self.want
        ram = self.ram
        sent = False
        a = 0
        while a < RAM:
            if want[a] == ram[a]:
                a += 1
                continue
            last = a
            b = a + 1
            while b < RAM and b - last <= 3:
                if want[b] != ram[b]:
                    last = b
                b += 1
            self._write(a, last)
            sent = True
            a = last + 1
        return sent

    def start(self):
        """Bias 1/3 with 4 commons, the internal oscillator, system and LCD on; a blank glass."""
        self.command(START)
        for a in range(RAM):
            self.want[a] = 0
        self._write(0, RAM - 1)

    def off(self):
        """LCD and oscillator off (the lowest power); ``start`` wakes it."""
        self.command((CMD_LCD_OFF, CMD_SYS_DIS))

    # ---- drawing into ``want`` -------------------------------------------------------------

    @micropython.native
    def _seg(self, s):
        code = self.glass[s]
        if code != NONE:
            self.want[code >> 2] |= 1 << (code & 3)

    @micropython.native
    def _cell(self, cell, bits):
        glass = self.glass
        want = self.want
        s = cell * 8
        while bits:
            if bits & 1:
                code = glass[s]
                if code != NONE:
                    want[code >> 2] |= 1 << (code & 3)
            bits >>= 1
            s += 1

    @micropython.native
    def _line(self, buf, n):
        # buf[:n] right-aligned in the big cells; '.' and ':' light the point or the colon
        # after the character before them.
        cell = MAIN_CELLS - 1
        point = False
        colon = False
        i = n - 1
        while i >= 0 and cell >= 0:
            c = _code(buf[i])
            if c == 46:  # '.'
                point = True
            elif c == 58:  # ':'
                colon = True
            else:
                self._cell(cell, glyph(c))
                if point:
                    self._seg(cell * 8 + 7)
                if colon and cell < MAIN_CELLS - 1:
                    self._seg(SEG_COLON + cell)
                point = False
                colon = False
                cell -= 1
            i -= 1

    @micropython.native
    def _number(self, v, first, cells, width):
        # v right-aligned in small cells first … first + cells - 1, at least width digits.
        cell = first + cells - 1
        k = 0
        while cell >= first and (v > 0 or k < width):
            self._cell(cell, FONT[16 + v % 10])  # FONT[16] is '0'
            v //= 10
            k += 1
            cell -= 1

    @micropython.native
    def _clear(self):
        want = self.want
        a = 0
        while a < RAM:
            want[a] = 0
            a += 1

    @micropython.native
    def show(self, face):
        """Show a clock ``Face``; only the changed RAM addresses are written. True if any."""
        self._clear()
        self._line(face.text, face.length)
        self._number(face.move_no % 1000, CELL_MOVE, 3, 1)
        self._seg(IND_MOVE)
        if face.count_s >= 0:
            self._number(face.count_s, CELL_SEC, 2, 2)
            self._seg(IND_SEC)
        left = face.units if face.units >= 0 else face.moves_left
        if left >= 0:
            self._number(left % 100, CELL_LEFT, 2, 1)
            self._seg(IND_LEFT)
        flags = face.flags
        k = 0
        while k < 6:  # F_RUNNING … F_COUNTING light IND_RUN … IND_COUNT
            if flags & (1 << k):
                self._seg(IND_RUN + k)
            k += 1
        return self._flush()

    @micropython.native
    def show_text(self, line, small=b"", flags=0, more=""):
        """A short line (menus, arbiter, what the referee says) in the big cells; ``small``
        (up to 3 characters: a point such as ``Q16``, a count) in the move cells; ``flags``
        (a Face's flag bits) light their indicators, so the arbiter's mark stays on. ``more``
        (words for a display with room) has no place on this glass. ``str`` or bytes alike,
        read in place: nothing is allocated (the app redraws a notice on every pass)."""
        self._clear()
        self._line(line, len(line))
        n = len(small)
        cell = CELL_MOVE + 3 - n if n < 3 else CELL_MOVE
        i = 0
        while i < n and i < 3:
            self._cell(cell + i, glyph(_code(small[i])))
            i += 1
        k = 0
        while k < 6:
            if flags & (1 << k):
                self._seg(IND_RUN + k)
            k += 1
        return self._flush()


@micropython.native
def _code(c):
    # A character of a str (a one-character str) or of bytes (an int) as its code.
    return c if isinstance(c, int) else ord(c)


# ---- the SSD1306 OLED ------------------------------------------------------------------------

WIDTH = const(128)
HEIGHT = const(64)
DIGIT_W = const(18)  # a big digit's box
DIGIT_H = const(40)
STROKE = const(4)
DIGIT_ADV = const(22)  # a digit and its gap
MARK_ADV = const(8)  # ':' or '.'
DIGIT_Y = const(6)
SMALL_Y = const(56)  # the 8×8 text line under the digits

_DIGITS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9")
_SEGS = (SEG_A, SEG_B, SEG_C, SEG_D, SEG_E, SEG_F, SEG_G)


class SSD1306Face:
    """One face on a 128×64 SSD1306 OLED.

    ``display`` is a ``framebuf.FrameBuffer`` of 128×64 with a ``show()`` that sends it (the
    micropython-lib ``ssd1306.SSD1306_I2C``, at 0x3C and 0x3D on I2C1). The time is drawn in
    big seven-segment digits, centred; under it ``#move``, what is left (``5x`` kept minutes
    or periods, ``25m`` moves in a block or stage), the counted seconds (``30s``) and one word
    for the state (FLAG, PAUS, LOW); a block at the top left while the face's clock runs and
    ARB at the top right in arbiter mode. Nothing is drawn or sent when the face is as before:
    an OLED frame takes 23 ms at 400 kHz.
    """

    def __init__(self, display):
        self.fb = display
        self.last = bytearray(12)
        self.last_len = -1
        self.last_nums = [0, 0, 0, 0, 0]  # flags, move_no, units, moves_left, count_s
        self.last_text = None  # what show_text drew last, None after a show

    @micropython.native
    def _same(self, face):
        n = face.length
        if n != self.last_len:
            return False
        t = face.text
        last = self.last
        i = 0
        while i < n:
            if t[i] != last[i]:
                return False
            i += 1
        nums = self.last_nums
        return (
            nums[0] == face.flags
            and nums[1] == face.move_no
            and nums[2] == face.units
            and nums[3] == face.moves_left
            and nums[4] == face.count_s
        )

    @micropython.native
    def _keep(self, face):
        n = face.length
        t = face.text
        last = self.last
        i = 0
        while i < n:
            last[i] = t[i]
            i += 1
        self.last_len = n
        nums = self.last_nums
        nums[0] = face.flags
        nums[1] = face.move_no
        nums[2] = face.units
        nums[3] = face.moves_left
        nums[4] = face.count_s

    @micropython.native
    def _digit(self, x, bits):
        fb = self.fb
        y = DIGIT_Y
        w = DIGIT_W
        h = DIGIT_H
        t = STROKE
        half = h // 2
        if bits & SEG_A:
            fb.fill_rect(x, y, w, t, 1)
        if bits & SEG_B:
            fb.fill_rect(x + w - t, y, t, half, 1)
        if bits & SEG_C:
            fb.fill_rect(x + w - t, y + half, t, h - half, 1)
        if bits & SEG_D:
            fb.fill_rect(x, y + h - t, w, t, 1)
        if bits & SEG_E:
            fb.fill_rect(x, y + half, t, h - half, 1)
        if bits & SEG_F:
            fb.fill_rect(x, y, t, half, 1)
        if bits & SEG_G:
            fb.fill_rect(x, y + (h - t) // 2, w, t, 1)

    @micropython.native
    def _big(self, buf, n):
        # buf[:n] centred: digits (and letters) DIGIT_ADV wide, ':' and '.' MARK_ADV.
        width = 0
        i = 0
        while i < n:
            c = buf[i]
            width += MARK_ADV if c == 58 or c == 46 else DIGIT_ADV
            i += 1
        x = (WIDTH - width + DIGIT_ADV - DIGIT_W) // 2
        if x < 0:
            x = 0
        fb = self.fb
        i = 0
        while i < n:
            c = buf[i]
            if c == 58:  # two dots
                fb.fill_rect(x + 2, DIGIT_Y + 10, STROKE, STROKE, 1)
                fb.fill_rect(x + 2, DIGIT_Y + DIGIT_H - 14, STROKE, STROKE, 1)
                x += MARK_ADV
            elif c == 46:
                fb.fill_rect(x + 2, DIGIT_Y + DIGIT_H - STROKE, STROKE, STROKE, 1)
                x += MARK_ADV
            else:
                self._digit(x, glyph(c))
                x += DIGIT_ADV
            i += 1

    @micropython.native
    def _num(self, v, col, cols):
        # v right-aligned in 8-pixel text columns col … col + cols - 1.
        fb = self.fb
        c = col + cols - 1
        while c >= col:
            fb.text(_DIGITS[v % 10], c * 8, SMALL_Y, 1)
            v //= 10
            if v == 0:
                return
            c -= 1

    @micropython.native
    def show(self, face):
        """Draw a clock ``Face`` and send it, unless it is what the display already shows."""
        if self._same(face):
            return False
        self._keep(face)
        self.last_text = None
        fb = self.fb
        fb.fill(0)
        self._big(face.text, face.length)
        flags = face.flags
        if flags & 1:  # F_RUNNING
            fb.fill_rect(0, 0, 6, 6, 1)
        if flags & 8:  # F_ARBITER
            fb.text("ARB", WIDTH - 24, 0, 1)
        fb.text("#", 0, SMALL_Y, 1)
        self._num(face.move_no % 1000, 1, 3)
        if face.units >= 0:
            self._num(face.units % 100, 5, 2)
            fb.text("x", 7 * 8, SMALL_Y, 1)
        elif face.moves_left >= 0:
            self._num(face.moves_left % 100, 5, 2)
            fb.text("m", 7 * 8, SMALL_Y, 1)
        if face.count_s >= 0:
            self._num(face.count_s % 100, 9, 2)
            fb.text("s", 11 * 8, SMALL_Y, 1)
        if flags & 4:  # F_FLAGGED
            fb.text("FLAG", 12 * 8, SMALL_Y, 1)
        elif flags & 2:  # F_PAUSED
            fb.text("PAUS", 12 * 8, SMALL_Y, 1)
        elif flags & 16:  # F_LOW
            fb.text("LOW", 13 * 8, SMALL_Y, 1)
        fb.show()
        return True

    def show_text(self, line, small=b"", flags=0, more=""):
        """A short line (menus, arbiter, the referee) in big digits if it fits, else in 8×8
        text; ``small`` and ``more`` (the OLED has room for words: "put Q16 back") in the
        text line under it; the ARB mark as ``show``. Nothing is sent when it is what the
        display already shows."""
        if isinstance(line, str):
            line = line.encode()
        if not isinstance(small, str):  # bytes, or the app's text written in place
            small = bytes(small).decode()
        key = (bytes(line), small, flags, more)
        if key == self.last_text:
            return False
        self.last_text = key
        self.last_len = -1  # the next show redraws
        fb = self.fb
        fb.fill(0)
        if len(line) <= 5:
            self._big(line, len(line))
        else:
            s = line.decode()
            fb.text(s, (WIDTH - 8 * len(s)) // 2, 28, 1)
        under = (small + " " + more).strip()[:16]
        if under:
            fb.text(under, 0, SMALL_Y, 1)
        if flags & 8:  # F_ARBITER
            fb.text("ARB", WIDTH - 24, 0, 1)
        fb.show()
        return True
