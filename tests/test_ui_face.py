"""The faces (firmware/ui/face.py): the HT1621 bit stream, bit by bit, and the SSD1306 pixels.

The HT1621's wire protocol is its datasheet's: CS low frames a transfer; WR idles high and
DATA is latched on WR's rising edge; a command transfer is ID 100 then 9 bits per command
(8 bits, one don't-care sent as 0); a write is ID 101, the 6-bit address (most significant
bit first), then 4 bits per address, D0 (COM0) first, the address counting up. The fake pins
below record exactly the bits latched while a CS is low, frame by frame. The expected RAM
nibbles are worked out by hand from the reference glass (``default_glass``: cell c at
addresses 2c = a, b, c, point and 2c + 1 = f, g, e, d on COM0 … 3).
"""

from array import array

import micropython

from firmware.clock import control, ticks
from firmware.clock.clock import (
    BLACK,
    F_COUNTING,
    F_LOW,
    F_PAUSED,
    F_RUNNING,
    WHITE,
    Clock,
    Face,
    format_time,
)
from firmware.ui import face as ui_face
from firmware.ui.face import HT1621Face, SSD1306Face
from tests.support import IS_MICROPYTHON, locked, skip


class Bus:
    """The shared WR/DATA lines and the CS lines of an HT1621 pair, recording latched bits."""

    def __init__(self, size=8192):
        self.bits = bytearray(size)
        self.n = 0
        self.ends = array("H", [0] * 256)  # the bit count at the end of each frame
        self.who = bytearray(256)  # which CS framed it
        self.frames = 0
        self.total = 0  # frames ever (the buffers start again when full)
        self.low = 0  # the CS that is low (its id), 0 if none
        self.wr = 1
        self.data = 0
        self.bad = 0  # protocol slips: two CS low at once, WR low when CS rises

    def frame_bits(self):
        """The frames as (cs id, "0101…") pairs (allocates: for the asserts)."""
        out = []
        start = 0
        for k in range(self.frames):
            end = self.ends[k]
            out.append((self.who[k], "".join("1" if b else "0" for b in self.bits[start:end])))
            start = end
        return out

    def clear(self):
        self.n = 0
        self.frames = 0


class Line:
    """A fake ``machine.Pin`` output: ``role`` 0 WR, 1 DATA, else the id of a CS."""

    def __init__(self, bus, role):
        self.bus = bus
        self.role = role

    @micropython.native
    def value(self, v):
        bus = self.bus
        role = self.role
        if role == 0:
            if v and not bus.wr and bus.low:
                if bus.n == len(bus.bits):
                    bus.n = 0
                bus.bits[bus.n] = bus.data
                bus.n += 1
            bus.wr = v
        elif role == 1:
            bus.data = v
        elif v == 0:
            if bus.low:
                bus.bad += 1
            bus.low = role
        else:
            if bus.low == role:
                if not bus.wr:
                    bus.bad += 1
                bus.ends[bus.frames] = bus.n
                bus.who[bus.frames] = role
                bus.frames += 1
                bus.total += 1
                if bus.frames == len(bus.ends):
                    bus.frames = 0
                bus.low = 0


def make_faces():
    bus = Bus()
    wr = Line(bus, 0)
    data = Line(bus, 1)
    left = HT1621Face(Line(bus, 16), wr, data)
    right = HT1621Face(Line(bus, 17), wr, data)
    return bus, left, right


def nibbles(values):
    """RAM nibbles as sent: D0 first."""
    return "".join("".join("1" if v >> i & 1 else "0" for i in range(4)) for v in values)


def a_face(text, move_no=1, flags=0, count_s=-1, units=-1, moves_left=-1):
    f = Face()
    for i in range(len(text)):
        f.text[i] = ord(text[i])
    f.length = len(text)
    f.move_no = move_no
    f.flags = flags
    f.count_s = count_s
    f.units = units
    f.moves_left = moves_left
    return f


def test_the_seven_segment_font():
    assert ui_face.glyph(ord("0")) == 0x3F
    assert ui_face.glyph(ord("4")) == 0x66  # b c f g
    assert ui_face.glyph(ord("8")) == 0x7F
    assert ui_face.glyph(ord("o")) == ui_face.glyph(ord("O"))
    assert ui_face.glyph(ord(" ")) == 0
    assert ui_face.glyph(200) == 0


def test_the_reference_glass_map():
    g = ui_face.GLASS
    assert len(g) == ui_face.N_SEGS
    assert list(g[0:8]) == [0, 1, 2, 7, 6, 4, 5, 3]  # cell 0: a b c d e f g point
    assert g[ui_face.IND_RUN] == 12 << 2 | 3  # where small cell 6 has no point
    assert g[ui_face.SEG_COLON + 3] == 26 << 2 | 3
    codes = [c for c in g if c != ui_face.NONE]
    assert len(codes) == len(set(codes))  # no two segments share a RAM bit
    assert max(codes) >> 2 < ui_face.RAM


def test_start_sends_the_commands_then_a_blank_ram():
    bus, left, right = make_faces()
    left.start()
    frames = bus.frame_bits()
    assert frames[0] == (
        16,
        "100" + "001010010" + "000110000" + "000000010" + "000000110",
    )  # BIAS 1/3 4 COM, RC 256K, SYS EN, LCD ON: each 8 bits and a 0
    assert frames[1] == (16, "101" + "000000" + "0000" * 32)
    assert len(frames) == 2 and bus.bad == 0
    bus.clear()
    left.off()
    assert bus.frame_bits() == [(16, "100" + "000000100" + "000000000")]  # LCD OFF, SYS DIS


def test_a_known_face_bit_by_bit_then_only_what_changed():
    bus, left, right = make_faces()
    left.start()
    bus.clear()
    # "4:05": '4' in cell 3, '0' in cell 4, '5' in cell 5, the colon after cell 3; move 12
    # ('1' cell 7, '2' cell 8), the MOVE word, the RUN indicator.
    assert left.show(a_face("4:05", move_no=12, flags=F_RUNNING))
    ram = {
        6: 0b0110,  # '4': b c
        7: 0b0011,  # f g
        8: 0b0111,  # '0': a b c
        9: 0b1101,  # f e d
        10: 0b0101,  # '5': a c
        11: 0b1011,  # f g d
        12: 0b1000,  # RUN (in cell 6's point place)
        14: 0b0110,  # '1': b c
        16: 0b0011,  # '2': a b
        17: 0b1110,  # g e d
        24: 0b1000,  # MOVE (cell 12's point place)
        26: 0b1000,  # the colon after cell 3
    }
    for a in range(32):
        assert left.ram[a] == ram.get(a, 0), a
    # Two frames: 6 … 17 (13 and 15 unchanged but cheaper sent than a new frame) and 24 … 26.
    assert bus.frame_bits() == [
        (16, "101" + "000110" + nibbles([6, 3, 7, 13, 5, 11, 8, 0, 6, 0, 3, 14])),
        (16, "101" + "011000" + "0001" + "0000" + "0001"),
    ]
    # A second later "4:04": only cell 5's two addresses change, one frame of 17 bits.
    bus.clear()
    assert left.show(a_face("4:04", move_no=12, flags=F_RUNNING))
    assert bus.frame_bits() == [(16, "101" + "001010" + "0110" + "1100")]
    # The same face again: nothing on the wire.
    bus.clear()
    assert not left.show(a_face("4:04", move_no=12, flags=F_RUNNING))
    assert bus.n == 0 and bus.frames == 0
    assert bus.bad == 0


def test_the_two_faces_share_the_wires_with_their_own_cs():
    bus, left, right = make_faces()
    left.show(a_face("0:30.0"))
    right.show(a_face("0:30.0"))
    frames = bus.frame_bits()
    assert [cs for cs, _ in frames] == [16] * (len(frames) // 2) + [17] * (len(frames) // 2)
    assert [b for _, b in frames[: len(frames) // 2]] == [b for _, b in frames[len(frames) // 2 :]]
    assert left.ram == right.ram and bus.bad == 0


def _lit(f, seg):
    code = ui_face.GLASS[seg]
    return bool(f.ram[code >> 2] >> (code & 3) & 1)


def test_points_colons_small_digits_and_indicators():
    bus, left, _ = make_faces()
    left.show(a_face("0:09.3", move_no=215, flags=F_COUNTING | F_LOW, count_s=51, units=1))
    # '3' cell 5, '9' cell 4 with its point, '0' cell 3, the colon after cell 2, '0' cell 2.
    assert _lit(left, 4 * 8 + 7) and not _lit(left, 3 * 8 + 7) and not _lit(left, 5 * 8 + 7)
    colons = [_lit(left, ui_face.SEG_COLON + c) for c in range(5)]
    assert colons == [False, False, True, False, False]
    assert not any(_lit(left, s) for s in range(0, 16))  # cells 0 and 1 blank
    # 215 in cells 6 … 8, 51 in cells 9 … 10, 1 left in cell 12 (cell 11 blank).
    for cell, ch in ((6, "2"), (7, "1"), (8, "5"), (9, "5"), (10, "1"), (12, "1"), (11, " ")):
        bits = ui_face.glyph(ord(ch))
        got = sum(1 << s for s in range(7) if _lit(left, cell * 8 + s))
        assert got == bits, (cell, ch, got)
    lit = [_lit(left, ui_face.IND_RUN + k) for k in range(9)]
    # RUN PAUSE FLAG ARB LOW COUNT MOVE SEC LEFT
    assert lit == [False, False, False, False, True, True, True, True, True]
    # h:mm:ss: colons after cells 1 and 3; count 5 seconds shows "05".
    left.show(a_face("1:23:45", flags=F_PAUSED, count_s=5))
    colons = [_lit(left, ui_face.SEG_COLON + c) for c in range(5)]
    assert colons == [False, True, False, True, False]
    assert _lit(left, ui_face.IND_PAUSE) and not _lit(left, ui_face.IND_RUN)
    assert sum(1 << s for s in range(7) if _lit(left, 9 * 8 + s)) == ui_face.glyph(ord("0"))
    assert not _lit(left, ui_face.IND_LEFT)


def test_menu_text_on_the_segments():
    bus, left, _ = make_faces()
    left.show(a_face("4:05", move_no=3))
    left.show_text("KOMI 7.5")  # the space and the point fold: K O M I ' ' 7. 5 → 6 cells
    cells = []
    for cell in range(6):
        cells.append(sum(1 << s for s in range(7) if _lit(left, cell * 8 + s)))
    want = [ui_face.glyph(ord(c)) for c in "OMI 75"]  # the K falls off the left
    assert cells == want
    assert _lit(left, 4 * 8 + 7)  # the point after the 7
    assert not _lit(left, ui_face.IND_MOVE)  # the small cells are blank
    left.show_text(b"GO 19")
    cells = [sum(1 << s for s in range(7) if _lit(left, c * 8 + s)) for c in range(6)]
    assert cells == [ui_face.glyph(ord(c)) for c in " GO 19"]


@micropython.native
def _run_faces(job):
    # job = (clock, face, hts, times, out): each time, both sides' faces shown.
    c, f, hts, times, out = job
    i = 0
    n = len(times)
    while i < n:
        c.face(BLACK, times[i], f)
        hts[0].show(f)
        c.face(WHITE, times[i], f)
        hts[1].show(f)
        out[i] = f.length
        i += 1


def _faces_job():
    tc = control.PRESETS["cn-local"]
    c = Clock(tc)
    t0 = ticks.PERIOD - 5000
    c.start(t0)
    # A second at a time through the main time's end, the counting and the last ten seconds.
    times = array("i", [ticks.add(t0, tc.main_ms - 65000 + 100 * k) for k in range(0, 1300)])
    bus, left, right = make_faces()
    return bus, (c, Face(), (left, right), times, bytearray(len(times)))


def test_ht1621_show_allocates_nothing():
    bus, job = _faces_job()
    _run_faces(job)  # warm up
    bus, job = _faces_job()
    err = locked(lambda: _run_faces(job))
    assert err is None, err
    assert bus.total > 300 and bus.bad == 0  # every second, every tenth at the end
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    # heap_lock alone lets a bytecode frame move to the C stack: count every byte instead.
    bus, job = _faces_job()
    c, f, hts, times, out = job
    left = hts[0]
    before = micropython.mem_total()
    i = 0
    while i < len(times):
        c.face(BLACK, times[i], f)
        left.show(f)
        i += 1
    assert micropython.mem_total() - before == 0
    assert bus.total > 150  # it wrote: every second, every tenth at the end


# ---- SSD1306 ------------------------------------------------------------------------------


if IS_MICROPYTHON:
    import framebuf

    class Oled(framebuf.FrameBuffer):
        """A 128×64 MONO_VLSB frame buffer with ``show()``, as micropython-lib's ssd1306."""

        def __init__(self):
            self.buf = bytearray(128 * 64 // 8)
            super().__init__(self.buf, 128, 64, framebuf.MONO_VLSB)
            self.shows = 0
            self.texts = []

        def text(self, s, x, y, c=1):
            self.texts.append((s, x, y))
            super().text(s, x, y, c)

        def show(self):
            self.shows += 1

else:

    class Oled:
        """CPython stand-in: the MONO_VLSB layout of framebuf; text is recorded, not drawn."""

        def __init__(self):
            self.buf = bytearray(128 * 64 // 8)
            self.shows = 0
            self.texts = []

        def pixel(self, x, y, c=None):
            i = (y >> 3) * 128 + x
            if c is None:
                return self.buf[i] >> (y & 7) & 1
            if c:
                self.buf[i] |= 1 << (y & 7)
            else:
                self.buf[i] &= ~(1 << (y & 7))

        def fill(self, c):
            for i in range(len(self.buf)):
                self.buf[i] = 0xFF if c else 0

        def fill_rect(self, x, y, w, h, c):
            for yy in range(max(y, 0), min(y + h, 64)):
                for xx in range(max(x, 0), min(x + w, 128)):
                    self.pixel(xx, yy, c)

        def text(self, s, x, y, c=1):
            self.texts.append((s, x, y))

        def show(self):
            self.shows += 1


def test_ssd1306_big_digits_pixel_by_pixel():
    oled = Oled()
    face = SSD1306Face(oled)
    assert face.show(a_face("4:05", move_no=12, flags=F_RUNNING))
    assert oled.shows == 1
    # "4:05" is 3 digits of 22 px and a colon of 8: 74 px, the last digit's 4 px gap not
    # counted: x0 = (128 - 74 + 4) // 2 = 29. Digits are 18×40 from y = 6, strokes 4 px.
    px = oled.pixel
    assert px(30, 10) == 1  # '4' f (x 29 … 32, y 6 … 25)
    assert px(38, 7) == 0  # '4' has no a
    assert px(38, 25) == 1  # '4' g (y 24 … 27)
    assert px(38, 44) == 0  # '4' has no d
    assert px(54, 17) == 1 and px(54, 25) == 0  # the colon's upper dot at x 53 … 56
    assert px(68, 7) == 1 and px(68, 25) == 0 and px(68, 44) == 1  # '0' at x 59: a, no g, d
    assert px(96, 10) == 0 and px(82, 10) == 1 and px(96, 30) == 1  # '5' at 81: no b; f; c
    # The '0''s top stroke in framebuf's own bytes: column 68, rows 6-9 → bits 6, 7 of page 0
    # and bits 0, 1 of page 1.
    assert oled.buf[68] == 0xC0 and oled.buf[128 + 68] == 0x03
    assert px(2, 2) == 1  # the running block
    assert ("#", 0, 56) in oled.texts and ("2", 24, 56) in oled.texts
    assert ("1", 16, 56) in oled.texts
    # The same face again: nothing drawn, nothing sent.
    oled.texts = []
    assert not face.show(a_face("4:05", move_no=12, flags=F_RUNNING))
    assert oled.shows == 1 and oled.texts == []
    # Paused: the block goes, the word comes.
    assert face.show(a_face("4:05", move_no=12, flags=F_PAUSED, units=3))
    assert px(2, 2) == 0 and ("PAUS", 96, 56) in oled.texts
    assert ("3", 48, 56) in oled.texts and ("x", 56, 56) in oled.texts
    assert oled.shows == 2


def test_ssd1306_text_line():
    oled = Oled()
    face = SSD1306Face(oled)
    face.show(a_face("4:05"))
    face.show_text("KOMI 7.5")
    assert oled.texts[-1] == ("KOMI 7.5", 32, 28)
    assert oled.pixel(68, 7) == 0  # the digits are gone
    assert face.show(a_face("4:05"))  # and come back: the text invalidated the cache
    assert oled.shows == 3


def test_faces_show_every_clock_format():
    # The clock's own formats, through both drivers, never raise and always fit.
    buf = bytearray(12)
    bus, left, _ = make_faces()
    face = SSD1306Face(Oled())
    for ms in (0, 100, 9900, 9901, 59999, 60000, 3599999, 3600000, 36000000 - 1):
        n = format_time(ms, buf)
        f = a_face(bytes(buf[:n]).decode())
        left.show(f)
        face.show(f)


def test_ssd1306_show_allocates_nothing():
    # Not required of the OLED variant (the segment LCD is the reference design), but true.
    if not IS_MICROPYTHON:
        skip("framebuf is MicroPython's")

    class Quiet(framebuf.FrameBuffer):
        def __init__(self):
            self.buf = bytearray(128 * 64 // 8)
            super().__init__(self.buf, 128, 64, framebuf.MONO_VLSB)
            self.shows = 0

        @micropython.native
        def show(self):
            self.shows += 1

    bus, job = _faces_job()
    c, f, hts, times, out = job
    oled = SSD1306Face(Quiet())
    job = (c, f, (oled, oled), times, out)
    _run_faces(job)
    bus, job = _faces_job()
    c, f, hts, times, out = job
    job = (c, f, (oled, oled), times, out)
    err = locked(lambda: _run_faces(job))
    assert err is None, err
    assert oled.fb.shows > 2000
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    bus, job = _faces_job()
    c, f, hts, times, out = job
    shows = oled.fb.shows
    before = micropython.mem_total()
    i = 0
    while i < len(times):
        c.face(BLACK, times[i], f)
        oled.show(f)
        i += 1
    assert micropython.mem_total() - before == 0
    assert oled.fb.shows - shows > 300  # it drew: every second, every tenth at the end
