"""The virtual board's hardware: a HAL beside ``rp2040.py`` with the same attributes, for
``firmware/boot/board.py`` on the MicroPython unix port (``make sim``, firmware/virtual/board.py) and
CPython.

Start reading at ``Hardware``. What each part is:

- the scanner: the simulated Hall grid (``firmware/hal/virtual_grid.py``'s ``SimGrid``, always
  the same one for a seed), calibrated on the first start by the real procedure (an empty board,
  then the two checkerboard passes) into ``calibration.json``, as the app's own calibration
  step writes it; ``dead`` sensors (default: the environment's ``TENGEN_SIM_DEAD``, e.g.
  ``"D4 K10:low"``) give the sensor self-test something to find;
- the faces: the REAL HT1621 drivers (``firmware/ui/face.py``) on an emulated HT1621 pair
  (``Ht1621``: the 3-wire protocol decoded into each chip's 32-nibble RAM), and a reader
  that turns a RAM image back into what the glass shows (``read``, ``Glass``);
- the buzzer: the REAL ``firmware.ui.buzzer.Buzzer`` on a fake PWM, keeping the name of
  each pattern it plays (``pattern_name``: a sound two cues share, the app's
  ``play(cues.pattern(cue))``, is named by both, ``TIMEOUT/FLAG``; ``cue(cue)`` by its kind);
- the speaker (``Speaker``): the voice's playback behind the app's small interface
  (``play(voice, cue, now)``, ``step(now)``: the blocks due read from the voice file into one
  preallocated PCM buffer, as the chip's PWM + DMA driver will), the PCM recorded with the
  board time each phrase began, laid on one track for a WAV, and the cues spoken (``take``);
- the keys, held for a while and released (``Keys``); the paddles (``press``); the time:
  the tick plus an offset that ``skip`` moves on (time passing without waiting), the tick
  the host's (real time) or, ``simulated``, ``ms``, moved on by the script that drives the
  board (firmware/virtual/board.py's simulated mode: replays, tests, benches);
- the calendar clock: the REAL PCF8563 driver (``firmware/hal/pcf8563.py``) on an emulated
  chip (``Pcf8563Chip``) on a fake I2C bus (``I2cBus``), its time running on with the host's
  and its registers kept in the flash folder (``rtc.bin``, with the host time they were
  written at), so a board stopped and started again still knows the time (``read_rtc``);
  ``set_rtc`` writes it; a missing or damaged rtc.bin is a chip with no time; ``skip`` moves
  it on with the tick (the board's time passing at once passes for the chip too);
- the board id, made once and kept in the flash folder (``unique_id``), as the chip's
  unique id would be; the PC link's output, written to a stream (the pty) without ever
  blocking: a line that does not fit is dropped, as USB CDC drops what no one reads.

Seven-segment glyphs are ambiguous (0/O, 2/Z, 5/S, C/[, H/X share their segments). ``read``
reads as a player does (the rule is firmware/ui/texts.py's, the table of every text the faces
show): such a cell reads as the cell after it in its word reads, as a digit before a point
or a colon, and at the word's end as the nearest cell before it that is only a letter or
only a digit (``STON``, not ``5T0N``; ``GO``, ``W252.5``), a word of such cells alone as
digits (``59:00``);
the word in the big cells says what the small cells hold (``small_mode``): a count under
``DEAD`` (``23``, never ``Z3``), else a point first (``Q16``, ``S15``, ``O15``); the move
number and the small pairs are digits. tests/test_glass_texts.py holds every text of the
table to reading back as meant; ``shown(text)`` gives what ``text`` reads as once drawn.
"""

import os

from firmware.clock import ticks
from firmware.ui import face as F

N = 19
ID_FILE = "/unique_id"
CALIBRATION = "/calibration.json"  # firmware/boot/board.py's CALIBRATION
SIM_EPOCH = 1767225600.0  # 2026-01-01 00:00 UTC: where simulated time starts the RTC chip
DEAD_ENV = "TENGEN_SIM_DEAD"  # the dead sensors of a board made for a test (``dead_sensors``)

# ---- the HT1621 pair -------------------------------------------------------------------------

_ID_CMD = 4  # 100
_ID_WRITE = 5  # 101


class Ht1621:
    """One emulated HT1621 controller: ``ram`` its 32 nibbles (bit k of ``ram[a]`` is COM k
    of SEG a), ``on`` whether the LCD and its oscillator are on, ``frames`` the CS frames it
    took, ``bad`` those it could not make sense of (a wrong ID, a frame cut mid-nibble)."""

    def __init__(self):
        self.ram = bytearray(F.RAM)
        self.sys = False
        self.lcd = False
        self.commands = []  # every command byte, in order (the last 32)
        self.frames = 0
        self.bad = 0
        self._n = -1  # bits of the frame so far; -1: CS high

    @property
    def on(self):
        return self.sys and self.lcd

    def begin(self):
        """CS fell: a frame starts."""
        self._n = 0
        self._id = 0
        self._acc = 0
        self._k = 0

    def clock(self, bit):
        """WR rose with CS low: ``bit`` is latched."""
        n = self._n
        if n < 0:
            return
        self._n = n + 1
        if n < 3:
            self._id = self._id << 1 | bit
            return
        if self._id == _ID_CMD:
            self._acc = self._acc << 1 | bit
            self._k += 1
            if self._k == 9:  # 8 bits of command and a don't-care bit
                self._command(self._acc >> 1)
                self._acc = 0
                self._k = 0
        elif self._id == _ID_WRITE:
            if n < 9:  # the 6-bit address, most significant bit first
                self._addr = (self._addr << 1 | bit) if n > 3 else bit
                return
            self._acc |= bit << self._k  # D0 (COM0) first
            self._k += 1
            if self._k == 4:
                self.ram[self._addr] = self._acc
                self._addr = (self._addr + 1) % F.RAM
                self._acc = 0
                self._k = 0

    def end(self):
        """CS rose: the frame ends (an unfinished nibble or command is lost)."""
        if self._n >= 0:
            self.frames += 1
            if self._id not in (_ID_CMD, _ID_WRITE) or self._k:
                self.bad += 1
        self._n = -1

    def _command(self, c):
        self.commands.append(c)
        if len(self.commands) > 32:
            self.commands.pop(0)
        if c == F.CMD_SYS_EN:
            self.sys = True
        elif c == F.CMD_SYS_DIS:
            self.sys = False
            self.lcd = False
        elif c == F.CMD_LCD_ON:
            self.lcd = True
        elif c == F.CMD_LCD_OFF:
            self.lcd = False


class Bus:
    """The lines of an HT1621 pair: WR and DATA shared, one CS per chip (``pin(role)``)."""

    def __init__(self, chips):
        self.chips = chips
        self.cs = bytearray(b"\x01" * len(chips))
        self.wr = 1
        self.data = 0
        self.slips = 0  # two CS low at once, or CS raised with WR low

    def pin(self, role):
        """A fake ``machine.Pin``: ``"wr"``, ``"data"`` or the index of a chip's CS."""
        return Line(self, role)


class Line:
    """A fake output ``machine.Pin`` on a ``Bus``."""

    def __init__(self, bus, role):
        self.bus = bus
        self.role = role
        self.level = 1

    def value(self, v=None):
        if v is None:
            return self.level
        v = 1 if v else 0
        self.level = v
        bus = self.bus
        role = self.role
        if role == "wr":
            if v and not bus.wr:  # the rising edge latches DATA
                for i in range(len(bus.chips)):
                    if not bus.cs[i]:
                        bus.chips[i].clock(bus.data)
            bus.wr = v
        elif role == "data":
            bus.data = v
        else:
            was = bus.cs[role]
            bus.cs[role] = v
            if was and not v:
                for i in range(len(bus.cs)):
                    if i != role and not bus.cs[i]:
                        bus.slips += 1
                bus.chips[role].begin()
            elif v and not was:
                if not bus.wr:
                    bus.slips += 1
                bus.chips[role].end()

    def __call__(self, v=None):
        return self.value(v)


def make_faces(count=2, glass=F.GLASS):
    """``count`` real ``HT1621Face`` drivers on one emulated bus: ``(bus, chips, faces)``."""
    chips = [Ht1621() for _ in range(count)]
    bus = Bus(chips)
    wr = bus.pin("wr")
    data = bus.pin("data")
    faces = tuple(F.HT1621Face(bus.pin(i), wr, data, glass) for i in range(count))
    return bus, chips, faces


# ---- the glass, read back --------------------------------------------------------------------

INDICATORS = ("RUN", "PAUSE", "FLAG", "ARB", "LOW", "COUNT")
_BLANK = " "
_UNKNOWN = "%"  # segments no character of the font lights


def _readings():
    # Segment bits -> (as a digit, as a letter): the font's characters, digits and letters
    # preferred over symbols; H over X (X is the font's poor approximation), C over [.
    digit = {}
    letter = {}
    for ch in "0123456789":
        digit[F.FONT[ord(ch) - 32]] = ch
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWYZX":
        bits = F.FONT[ord(ch) - 32]
        if bits not in letter:
            letter[bits] = ch
    other = {}
    for i in range(len(F.FONT)):
        bits = F.FONT[i]
        if bits and bits not in digit and bits not in letter and bits not in other:
            other[bits] = chr(i + 32)
    return digit, letter, other


_DIGIT, _LETTER, _OTHER = _readings()


COLUMNS = "ABCDEFGHIJKLMNOPQRST"  # a point's column: Go's (no I) and Gomoku's (A … O)
WORDS = 0  # how a run of cells is read: words and numbers (the big cells)
POINT = 1  # ... a point if it can be one ("Q16", "S15"), else as WORDS (the move cells' text)
NUMBER = 2  # ... digits wherever a digit reads (the move number, the seconds, a count)


def _word(cells, mode, marked=False):
    # A run of lit cells (segment bits) as text, read as a player reads it (texts.py): a cell
    # of one shape for a letter and a digit (0/O, 2/Z, 5/S) reads as the cell after it in the
    # run reads, as a digit with a point or colon after it (``marked``: the run's last cell
    # has one), and at the run's end as the nearest cell before it that is only a letter or
    # only a digit (STON, GO, W252.5, B180), a run of such cells alone as digits; in POINT
    # mode a column letter and a row of 1 … 19 first (S15, not 515); in NUMBER mode digits
    # wherever they read.
    n = len(cells)
    if mode == POINT and 2 <= n <= 3 and _LETTER.get(cells[0], "?") in COLUMNS:
        row = ""
        for b in cells[1:]:
            row += _DIGIT.get(b, "x")
        if row.isdigit() and row[0] != "0" and int(row) <= 19:
            return _LETTER[cells[0]] + row
    kind = []  # per cell: "L" only a letter, "D" only a digit, "?" either, "" neither
    for b in cells:
        d = b in _DIGIT
        x = b in _LETTER
        kind.append("?" if d and x else "D" if d else "L" if x else "")
    for i in range(n - 1, -1, -1):
        if kind[i] != "?":
            continue
        if mode == NUMBER or (i == n - 1 and marked):
            kind[i] = "D"
        elif i < n - 1:
            kind[i] = "L" if kind[i + 1] == "L" else "D"
        else:
            kind[i] = "D"
            for j in range(i - 1, -1, -1):
                if kind[j] == "L" or kind[j] == "D":
                    kind[i] = kind[j]
                    break
    out = ""
    for i in range(n):
        b = cells[i]
        if kind[i] == "L":
            out += _LETTER[b]
        elif kind[i] == "D":
            out += _DIGIT[b]
        else:
            out += _UNKNOWN
    return out


def _cells(bits, marks=None, mode=WORDS):
    # Cells (segment bits, 0 blank) as text, each followed by its mark ('.' or ':'); words
    # are runs of alphanumeric cells with no blank, symbol or mark between them.
    out = ""
    run = []
    for i in range(len(bits)):
        b = bits[i]
        mark = marks[i] if marks is not None else ""
        if b and b not in _OTHER:
            run.append(b)
            if not mark:
                continue
        if run:
            out += _word(run, mode, bool(mark) and b and b not in _OTHER)
            run = []
        if not b:
            out += _BLANK
        elif b in _OTHER:
            out += _OTHER[b]
        out += mark
    if run:
        out += _word(run, mode)
    return out


class Glass:
    """What one face shows: ``big`` (the six big cells with their points and colons),
    ``small`` (the three move cells), ``sec`` and ``left`` (the two small pairs), ``marks``
    (the indicators lit: RUN … COUNT, and the words MOVE, SEC, LEFT), ``on``."""

    def __init__(self, big="", small="", sec="", left="", marks=(), on=True):
        self.big = big
        self.small = small
        self.sec = sec
        self.left = left
        self.marks = tuple(marks)
        self.on = on

    def line(self):
        """One line of text, its parts two spaces apart: ``59:00  #1  RUN``, ``CAP  D4``,
        ``0:30  #12  25s  3 left  RUN COUNT``."""
        if not self.on:
            return "(off)"
        parts = []
        if self.big:
            parts.append(self.big)
        if self.small:
            parts.append("#" + self.small if "MOVE" in self.marks else self.small)
        if self.sec:
            parts.append(self.sec + ("s" if "SEC" in self.marks else ""))
        if self.left:
            parts.append(self.left + (" left" if "LEFT" in self.marks else ""))
        lit = " ".join(m for m in INDICATORS if m in self.marks)
        if lit:
            parts.append(lit)
        return "  ".join(parts)

    def __str__(self):
        return self.line()


def read(ram, glass=F.GLASS, on=True):
    """The ``Glass`` a RAM image (32 nibbles) shows through ``glass`` (face.py's map)."""

    def lit(s):
        code = glass[s]
        return code != F.NONE and (ram[code >> 2] >> (code & 3)) & 1

    def cell(c):
        bits = 0
        for k in range(7):
            if lit(c * 8 + k):
                bits |= 1 << k
        return bits

    bits = [cell(c) for c in range(F.MAIN_CELLS)]
    marks = []
    for c in range(F.MAIN_CELLS):
        m = ""
        if lit(c * 8 + 7):
            m += "."
        if c < F.MAIN_CELLS - 1 and lit(F.SEG_COLON + c):
            m += ":"
        marks.append(m)
    big = _cells(bits, marks).strip()
    names = INDICATORS + ("MOVE", "SEC", "LEFT")
    shown = [names[k] for k in range(len(names)) if lit(F.IND_RUN + k)]
    mode = NUMBER if "MOVE" in shown else small_mode(big)
    small = _cells([cell(F.CELL_MOVE + k) for k in range(3)], None, mode).strip()
    sec = _cells([cell(F.CELL_SEC + k) for k in range(2)], None, NUMBER).strip()
    left = _cells([cell(F.CELL_LEFT + k) for k in range(2)], None, NUMBER).strip()
    return Glass(big, small, sec, left, shown, on)


_MODES = None


def small_mode(big):
    """How a player reads the small cells under the word ``big`` (texts.py's table says
    what each word comes with): NUMBER under a word that comes with a count (``DEAD 23``),
    else POINT (a point if it can be one, else a word)."""
    global _MODES
    if _MODES is None:
        from firmware.ui.texts import table

        _MODES = {}
        for entry in table():
            word, small = entry.split("|")
            if small == "#":
                _MODES[word] = NUMBER
    return _MODES.get(big, POINT)


_scratch = None


def shown(text, small="", flags=0):
    """What ``text`` (with ``small`` and ``flags`` as ``show_text`` takes them) reads as on
    the glass, as ``read(...).line()`` gives it; ``text`` may also be a clock ``Face``."""
    global _scratch
    if _scratch is None:
        _scratch = make_faces(1)
    chip = _scratch[1][0]
    drv = _scratch[2][0]
    if hasattr(text, "length"):
        drv.show(text)
    else:
        drv.show_text(text, small, flags)
    return read(chip.ram).line()


# ---- the buzzer ------------------------------------------------------------------------------

CUE_KINDS = ("MARK", "MARK_LATE", "MINUTE_LEFT", "COUNT", "TIMEOUT", "PERIOD_LEFT", "FLAG")


def _pattern_names():
    # (pattern, name): the buzzer's own patterns (its module-level tuples of (hz, ms) steps),
    # then the clock's cues by kind; one sound several kinds share is named by all of them.
    from firmware.clock import cues
    from firmware.ui import buzzer as bz

    found = []
    for name in dir(bz):
        v = getattr(bz, name)
        if name.startswith("_") or not isinstance(v, tuple) or not v:
            continue
        ok = True
        for step in v:
            if not (isinstance(step, tuple) and len(step) == 2):
                ok = False
        if ok:
            found.append((v, name))
    for name in CUE_KINDS:
        found.append((cues.pattern(getattr(cues, name) << 8), name))
    out = []
    for pattern, name in found:
        for i in range(len(out)):
            if out[i][0] == pattern:
                out[i] = (pattern, out[i][1] + "/" + name)
                break
        else:
            out.append((pattern, name))
    return out


_NAMES = None


def pattern_name(pattern):
    """The name of a buzzer pattern: ``REFUSE``, ``MARK``, ``TIMEOUT/FLAG`` (one sound), or
    ``?`` and its steps for one nobody named."""
    global _NAMES
    if _NAMES is None:
        _NAMES = _pattern_names()
    for p, name in _NAMES:
        if p == pattern:
            return name
    return "?" + ",".join("%dx%d" % step for step in pattern)


class Pwm:
    """A fake ``machine.PWM``: the tone now (``hz``, ``duty``; duty 0 is silence)."""

    def __init__(self):
        self.hz = 0
        self.duty = 0

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.hz = hz

    def duty_u16(self, d=None):
        if d is None:
            return self.duty
        self.duty = d


def make_buzzer():
    """The real ``Buzzer`` on a fake PWM, keeping in ``heard`` the name of each pattern it
    plays (nothing at volume 0: the board plays nothing then)."""
    from firmware.ui.buzzer import Buzzer

    class Heard(Buzzer):
        def __init__(self, pwm):
            Buzzer.__init__(self, pwm)
            self.heard = []

        def play(self, pattern, now):
            ms = Buzzer.play(self, pattern, now)
            if ms >= 0:
                self._heard(pattern_name(pattern))
            return ms

        def cue(self, cue, now):
            # A clock cue by its kind: named exactly, where its sound alone may be shared.
            from firmware.clock import cues

            ms = Buzzer.play(self, cues.pattern(cue), now)
            k = cues.kind(cue)
            if ms >= 0:
                self._heard(CUE_KINDS[k - 1] if 0 < k <= len(CUE_KINDS) else "?")
            return ms

        def _heard(self, name):
            self.heard.append(name)
            if len(self.heard) > 100:  # nobody listening: keep the last ones
                self.heard.pop(0)

        def take(self):
            """The names heard since the last call."""
            out = self.heard
            self.heard = []
            return out

    return Heard(Pwm())


# ---- the speaker ----------------------------------------------------------------------------


class Speaker:
    """The virtual board's speaker: the app's voice playback, and the PCM it played, kept with
    the board's time each phrase began.

    The app's side (``firmware/game/app.py``): ``play(voice, cue, now)`` starts a cue's phrase
    (False: none, or the volume is 0: the app beeps), ``step(now)`` each UI pass reads the
    blocks due by ``now`` and one ahead (what DMA's second buffer would hold) from the voice
    into ``pcm``, made once, and hands each to ``record`` (or ``sink``, a test's): nothing is
    allocated there but what ``record`` keeps. ``stop()`` cuts a phrase, ``set_volume(v)``
    scales what is recorded (3 full, 0 silent, as the PWM's level would).

    The recording: ``record`` (unsigned 8-bit samples, 128 silence, at ``rate``); ``start(at)``
    begins a stream at board time ``at`` (ms), and the blocks after it follow each other
    without a gap, as DMA plays them. ``timeline`` lays every stream on one track for a WAV
    (``host_tools/board/voice.py``'s ``write_speaker_wav``); ``take()`` the cues spoken since
    the last call, with their language (the virtual board's ``say`` lines). On the PC only.
    """

    SILENCE = 128

    def __init__(self, rate=8000):
        from array import array

        self.rate = rate
        self.streams = []  # [(board ms, bytearray of samples)]
        self.pcm = array("H", bytes(2 * 512))  # a block of read's PCM (Voice.PCM_SAMPLES)
        self.voice = None  # the voice being read, None when silent
        self.cue = 0  # the cue it says
        self.at = 0  # the board time its phrase began
        self.done = 0  # samples of it given
        self.volume = 3  # full: the app sets the setting's
        self.sink = None  # a function(pcm, n) given each block instead of ``record``
        self.said = []  # (cue, lang) spoken, for ``take``

    def set_volume(self, v):
        """The voice's level, 0 (silent) … 3."""
        self.volume = v

    def play(self, voice, cue, now):
        """Say ``cue`` with ``voice`` (an open ``firmware.ui.voice.Voice``) from board time
        ``now``, cutting a phrase being said: False if the cue has no phrase, or the volume
        is 0 (the app beeps then)."""
        if not self.volume or not voice.say(cue):
            return False
        self.voice = voice
        self.cue = cue
        self.at = now
        self.done = 0
        if self.sink is None:
            self.start(now)
            self.said.append((cue, voice.lang))
        return True

    def step(self, now):
        """Give the sink the phrase's samples due by ``now`` and a block ahead."""
        v = self.voice
        if v is None:
            return
        due = ticks.diff(now, self.at) * (self.rate // 1000) + len(self.pcm)
        while self.done < due:
            n = v.read(self.pcm)
            if not n:
                self.voice = None
                return
            if self.sink is None:
                self.record(self.pcm, n)
            else:
                self.sink(self.pcm, n)
            self.done += n

    def stop(self):
        """Cut the phrase being said."""
        self.voice = None

    def take(self):
        """The ``(cue, lang)`` spoken since the last call (lang: voice.ZH or EN)."""
        said = self.said
        self.said = []
        return said

    def start(self, at):
        """A new stream from board time ``at`` (ms): a phrase begins."""
        self.streams.append((at, bytearray()))

    def record(self, pcm, n):
        """``n`` samples of ``pcm`` (0 … 255) after what the stream played so far, at the
        volume's level."""
        if not self.streams:
            self.start(0)
        out = self.streams[-1][1]
        vol = self.volume
        for i in range(n):
            v = pcm[i]
            if vol != 3:
                v = 128 + (v - 128) * vol // 3
            out.append(v if v < 256 else 255)

    def timeline(self, start=None, end=None):
        """``(start ms, samples)``: every stream at its time on one track from ``start`` (the
        first stream's) to ``end`` (the last sample's), silence between; a stream that
        begins before another ends cuts it, as a new phrase does on the board."""
        if not self.streams:
            return (start or 0), bytearray()
        if start is None:
            start = self.streams[0][0]
        spans = [((at - start) * self.rate // 1000, data) for at, data in self.streams]
        stop = max(a + len(d) for a, d in spans)
        if end is not None:
            stop = (end - start) * self.rate // 1000
        track = bytearray(
            bytes((self.SILENCE,)) * max(0, stop)
        )  # (no bytearray * n on MicroPython)
        for i, (a, data) in enumerate(spans):
            b = a + len(data)
            if i + 1 < len(spans) and spans[i + 1][0] < b:
                b = spans[i + 1][0]  # cut by the next phrase
            lo = max(a, 0)
            hi = min(b, stop)
            if hi > lo:
                track[lo:hi] = data[lo - a : hi - a]
        return start, track


# ---- the calendar clock: an emulated PCF8563 on a fake I2C bus -------------------------------

RTC_FILE = "/rtc.bin"
_RTC_MAGIC = b"PCF8563\x01"  # rtc.bin: this, the 16 registers, the host ms, a CRC-32
_RTC_SIZE = 8 + 16 + 8 + 4
_STOP = 0x20  # Control_status_1 bit 5 (firmware/hal/pcf8563.py)
_VL = 0x80  # VL_seconds bit 7


class Pcf8563Chip:
    """One emulated PCF8563 (firmware/hal/pcf8563.py has the data sheet's facts): ``regs``
    its 16 registers as they read at host time ``at`` (seconds since 1970, ``host_time()``,
    default ``time.time``). Its time runs on with the host's, a whole second at a time (the
    fraction stays in ``at``, as in the chip's divider), unless STOP is set; releasing STOP
    starts a full second. Every write is kept, with the host time, in ``path`` (the flash
    folder's rtc.bin), so a virtual board stopped and started again finds the time it would
    have run on to, as the coin cell keeps the chip going. No file, or one this did not write
    whole: a chip fresh from power-up, VL set (no time). ``writes`` counts write accesses."""

    def __init__(self, path=None, host_time=None):
        if host_time is None:
            import time

            host_time = time.time
        self.path = path
        self.host_time = host_time
        self.regs = bytearray(16)
        self.at = host_time()
        self.writes = 0
        if not self._load():
            self.regs[0] = 0x08  # the start-up values: TESTC set, running; VL set
            self.regs[2] = _VL

    def _load(self):
        import binascii
        import struct

        from firmware.store.journal import read_file

        data = read_file(self.path) if self.path else None
        if data is None or len(data) != _RTC_SIZE or data[:8] != _RTC_MAGIC:
            return False
        if binascii.crc32(data[:-4]) & 0xFFFFFFFF != struct.unpack(">I", data[-4:])[0]:
            return False
        self.regs[:] = data[8:24]
        self.at = struct.unpack(">Q", data[24:32])[0] / 1000
        return True

    def _save(self):
        import binascii
        import struct

        from firmware.store.journal import write_atomic

        if not self.path:
            return
        data = _RTC_MAGIC + bytes(self.regs) + struct.pack(">Q", int(self.at * 1000))
        write_atomic(self.path, data + struct.pack(">I", binascii.crc32(data) & 0xFFFFFFFF))

    def _advance(self):
        # The registers brought up to the host's time: whole seconds since ``at``. A host
        # clock set back holds the chip still until it catches up.
        from firmware.hal import pcf8563 as P

        n = int(self.host_time() - self.at)
        if n <= 0:
            return
        self.at += n
        r = self.regs
        if r[0] & _STOP:
            return
        then = P.time_of(r, 2)
        if then is None:
            return  # registers no time is: the chip's counters would garble them; kept
        now = then + n
        if now >= P.END_2200:
            now = P.EPOCH_2000 + (now - P.EPOCH_2000) % (P.END_2200 - P.EPOCH_2000)
        vl = r[2] & _VL
        wd = r[6]
        P.put_time(now, r, 2)
        r[2] |= vl  # VL stays until written
        r[6] = (wd + now // 86400 - then // 86400) % 7  # the weekday counts on from its own

    def skip(self, ms):
        """``ms`` of time passed at once (the board's ``skip``, or the power off for a
        while: a test moves a folder's chip on while no board runs): kept in ``path``."""
        self.at -= ms / 1000
        self._save()

    def read_into(self, reg, buf):
        """One read access from register ``reg`` on (the address wraps after 0Fh)."""
        self._advance()
        for i in range(len(buf)):
            buf[i] = self.regs[(reg + i) & 15]

    def write(self, reg, data):
        """One write access from register ``reg`` on; kept in ``path``."""
        self._advance()
        r = self.regs
        stopped = r[0] & _STOP
        for i in range(len(data)):
            r[(reg + i) & 15] = data[i]
        if stopped and not r[0] & _STOP:
            self.at = self.host_time()  # the divider starts from 0: a full second to the next
        self.writes += 1
        self._save()


class I2cBus:
    """A fake ``machine.I2C``: ``devices`` by 7-bit address, each with ``read_into(reg, buf)``
    and ``write(reg, data)``; an address nobody answers raises ``OSError`` (EIO), as the
    board's I2C does on a NACK."""

    def __init__(self, devices=None):
        self.devices = devices if devices is not None else {}

    def _device(self, addr):
        dev = self.devices.get(addr)
        if dev is None:
            raise OSError(5)  # EIO: no acknowledge
        return dev

    def scan(self):
        return sorted(self.devices)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        self._device(addr).read_into(memaddr, buf)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._device(addr).write(memaddr, buf)


def make_rtc(path=None, host_time=None):
    """The REAL ``PCF8563`` driver on an emulated chip on a fake bus: ``(bus, chip, rtc)``,
    the chip's registers kept in ``path``."""
    from firmware.hal.pcf8563 import ADDR, PCF8563

    chip = Pcf8563Chip(path, host_time)
    bus = I2cBus({ADDR: chip})
    return bus, chip, PCF8563(bus)


# ---- keys, flash, the board ------------------------------------------------------------------


class Keys:
    """The soft keys' levels (firmware/ui/buttons.py's bits): ``hold(bits, ms)`` presses them
    for ``ms`` of the board's time, then they are released."""

    def __init__(self, now):
        self.now = now
        self.levels = 0
        self.until = 0

    def hold(self, bits, ms):
        self.levels = bits
        self.until = ticks.add(self.now(), ms)

    def __call__(self):
        # Still held at ``until`` itself: a key held 100 ms is seen twice by passes 50 ms
        # apart (simulated time), enough for the buttons' debounce.
        if self.levels and ticks.diff(self.now(), self.until) > 0:
            self.levels = 0
        return self.levels


def _exists(path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def calibrate(grid, passes=6):
    """Calibrate ``grid`` by the real procedure (firmware/sensing/calibration.py): scans of
    the empty board, then of the two checkerboard passes; the grid is left empty. Returns
    the ``Calibration``."""
    from firmware.hal.virtual_grid import checkerboard
    from firmware.sensing.calibration import Calibrator

    frame = grid.new_frame()
    cal = Calibrator(grid.n)
    for add, phase in ((cal.add_empty, None), (cal.add_pass_a, 0), (cal.add_pass_b, 1)):
        if phase is not None:
            checkerboard(grid, phase)
        for _ in range(passes):
            add(grid.scan(frame))
    grid.clear()
    return cal.finish()


def calibrated(seed, reversed=()):
    """A simulated grid calibrated by the real procedure (``calibrate``), for the rigs that
    drive the sensing and the referee on the grid alone (tests, benches):
    ``(grid, a frame, the calibration)``; ``reversed``: sensors mounted upside down."""
    from firmware.hal.virtual_grid import SimGrid

    grid = SimGrid(N, seed=seed, reversed=reversed)
    frame = grid.new_frame()
    return grid, frame, calibrate(grid)


def board_id(root):
    """The board's id, made once (random) and kept in ``root/unique_id``: ``v`` and 15 hex
    digits, as the chip's unique id would be."""
    import binascii

    from firmware.store.journal import read_file, write_atomic

    path = root + ID_FILE
    data = read_file(path)
    if data:
        text = data.decode().strip()
        if text:
            return text
    text = "v" + binascii.hexlify(os.urandom(8)).decode()[:15]
    write_atomic(path, text.encode())
    return text


def dead_sensors(text):
    """``[(x, y, mode)]`` for SimGrid's ``dead`` from ``"D4 K10:low"``: points of the 19x19
    grid (Go's columns), each with virtual_grid.py's mode (``high``: pinned at 4095, the default;
    ``low``; ``flat``: blind to stones). For tests and makers' drills (``DEAD_ENV``)."""
    from firmware.rules.coords import GO_COLUMNS, parse_vertex

    out = []
    for word in (text or "").split():
        point, _, mode = word.partition(":")
        x, y = parse_vertex(point.upper(), N, GO_COLUMNS)
        out.append((x, y, mode or "high"))
    return out


class Hardware:
    """The virtual board's parts, as ``firmware/boot/board.py`` takes them (see there), and the
    hands that work them: ``press(side)``, ``keys.hold(bits, ms)``, ``skip(ms)``,
    ``scanner.put``/``lift``/``slide``; and the eyes and ears: ``glass(k)``,
    ``buzzer.take()``."""

    def __init__(self, root, link=None, seed=1, host_time=None, dead=None, simulated=False):
        import json

        from firmware.hal.virtual_grid import SimGrid
        from firmware.store.journal import write_atomic

        if not _exists(root):
            os.mkdir(root)
        self.root = root
        self.offset = 0  # ms that ``skip`` let pass
        # Simulated time: the tick is ``ms``, moved on by whoever drives the board
        # (firmware/virtual/board.py's ``VirtualBoard.wait``), never by the host's clock; the RTC
        # chip runs on from SIM_EPOCH with it. None: the host's tick, real time.
        self.ms = 0 if simulated else None
        if simulated and host_time is None:
            host_time = self._sim_time
        self.now = self._now
        if dead is None:
            dead = dead_sensors(os.getenv(DEAD_ENV))
        self.scanner = SimGrid(N, seed=seed, dead=dead)
        self.calibrated = False  # True when this start calibrated the grid
        if not _exists(root + CALIBRATION):
            cal = calibrate(self.scanner)
            write_atomic(root + CALIBRATION, json.dumps(cal.to_dict()).encode())
            self.calibrated = True
        self.bus, self.chips, self.faces = make_faces(2)  # Black's face, then White's
        for f in self.faces:
            f.start()
        self.buzzer = make_buzzer()
        self.speaker = Speaker()  # the voice's PCM, once the board plays it (issue 29)
        self.keys = Keys(self.now)
        self.board_id = board_id(root)
        # The calendar clock: the real PCF8563 driver on the emulated chip, kept in rtc.bin.
        self.i2c, self.rtc_chip, self.rtc = make_rtc(root + RTC_FILE, host_time)
        self.set_rtc = self._set_rtc
        self.link = link
        self.link_out = self._link_out
        self.dropped = 0  # reply bytes the link could not take
        self._cut = False  # a line went out in part: the next one starts on a new line
        self.hit = None

    def _now(self):
        return ticks.add(ticks.now_ms() if self.ms is None else self.ms & ticks.MASK, self.offset)

    def _sim_time(self):
        return SIM_EPOCH + self.ms / 1000

    def read_rtc(self):
        """The calendar seconds the RTC chip holds, or None (no time, no chip)."""
        return self.rtc.read()

    def rtc_raw(self, buf):
        """The RTC chip's 7 time registers into ``buf`` (the clock's checkpoint)."""
        return self.rtc.raw(buf)

    def _set_rtc(self, secs):
        # As the board's: a chip that fails, or a time it cannot hold, does not fail the set.
        try:
            self.rtc.write(secs)
        except (OSError, ValueError):
            pass

    def skip(self, ms):
        """Let ``ms`` of the board's time pass at once: the tick's and the RTC chip's."""
        self.offset = (self.offset + ms) & ticks.MASK  # ticks wrap: so may the offset
        self.rtc_chip.skip(ms)

    def attach_paddles(self, hit):
        self.hit = hit

    def press(self, side):
        """A paddle pressed (1 Black's, 2 White's): as its IRQ, the tick into the app."""
        if self.hit is not None:
            self.hit(side, self.now())

    def glass(self, k):
        """What face ``k`` (0 Black's, 1 White's) shows: a ``Glass``."""
        chip = self.chips[k]
        return read(chip.ram, self.faces[k].glass, chip.on)

    def _link_out(self, data):
        # Never blocks (the link is non-blocking): what does not fit is dropped, and a line
        # cut short is ended before the next, so the host reads one bad line, not two.
        link = self.link
        if link is None:
            return
        if self._cut:
            data = b"\n" + data
        try:
            n = link.write(data)
        except OSError:
            n = 0
        if n is None:
            n = 0
        if n < len(data):
            self.dropped += len(data) - n
            self._cut = n > 0 or self._cut
        else:
            self._cut = False
        try:
            link.flush()
        except (AttributeError, OSError):
            pass


def make_hardware(root, link=None, seed=1, host_time=None, dead=None, simulated=False):
    """The virtual board's hardware (``Hardware``) with its flash in the folder ``root`` and
    its PC link written to ``link``: the one factory of this HAL. ``host_time``: the host's
    clock the RTC chip runs on (default ``time.time``, or with ``simulated`` the board's own
    time from SIM_EPOCH; tests pass their own); ``dead``: the dead sensors (``dead_sensors``;
    default the environment's ``TENGEN_SIM_DEAD``); ``simulated``: the tick is ``hw.ms``,
    simulated time (firmware/virtual/board.py's simulated mode), not the host's."""
    return Hardware(root, link, seed, host_time, dead, simulated)
