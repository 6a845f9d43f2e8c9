"""The clock's voice: a cue's phrase as clips, and the clips read from the board's voice file.

Start reading at ``phrase`` (a clock cue, ``firmware/clock/cues.py``, to the ids of its clips in
order), then ``Voice`` (one language's file opened and checked; ``say`` a cue, then ``read``
its PCM block by block, nothing allocated per block). The phrases are made at build time
(``host_tools/board/voicefile.py`` writes the format, ``host_tools/board/voice.py`` speaks the
words with espeak-ng: ``make voice``) and put on the board's filesystem as /voice/zh.bin and
/voice/en.bin. Playing the PCM (PWM fed by DMA) is not here: ``read`` is what that task calls.

A phrase is a few small clips joined (numbers, 秒, 还剩, 分钟, 次, 超时判负; their English):
the 36 announcements of 000 第十二条 and 003 第12条 (up to ten minutes or periods left) from 23
clips, 38 KB a language, where whole recordings would take 143 KB (Mandarin), 116 KB
(English). ``read`` puts ``GAP`` of silence between clips, like the pause between words
(stored, it would cost bytes). Chinese says 两 (not 二) before a measure word: "还剩两分钟",
but "二" when counting; at a kept minute's end it says the rule's "一分钟" before "还剩N分钟"
(English: "N minutes left", as ``cues.words``).

The file, all little-endian (``HEADER`` bytes of header, then the body):

    0  magic b"TGV1"
    4  the language, 2 ASCII bytes: b"zh" or b"en"
    6  the sample rate, u16 (8000)
    8  the clips in the index, u16 (``CLIPS``)
   10  0, u16 (reserved)
   12  the body's bytes, u32: the file's length less the header (a torn copy is shorter)
   16  CRC-32 of the body, u32 (the same as ``binascii.crc32``/``zlib.crc32``)
   20  the index, one entry per clip id: [offset u32, from the file's start][samples u32]
       then the clips: 4-bit IMA ADPCM (4,000 bytes a second at 8 kHz), two samples a byte,
       the first in the low nibble, a step's difference ((2 * magnitude + 1) * step) >> 3
       (``decode``); each clip decoded from predictor 0 and step index 0 (clips start in
       silence). Entries may share bytes (two ids, one recording).

A missing, torn or corrupt file raises ``VoiceError`` saying which and why (``load`` turns it
into ``None`` and the message); the clock's beeps never depend on the voice.
"""

from array import array
from binascii import crc32

import micropython
from micropython import const

from firmware.clock import cues

HEADER = const(20)
MAGIC = b"TGV1"
RATE = const(8000)
BLOCK = const(256)  # ADPCM bytes read at a time: 512 samples, 64 ms at 8 kHz
MAX_CLIPS = const(5)  # room for the longest phrase: 一 分钟 还剩 两 分钟
GAP = const(240)  # silence between the clips of a phrase: 30 ms, made by ``read``, not stored
# (at most a block of PCM: ``read`` gives it in one)

# The languages, as ``Voice.lang`` and ``phrase`` name them (the header's 2 bytes).
ZH = const(0)
EN = const(1)
LANGS = (b"zh", b"en")

# Clip ids, the same in every language's file (host_tools/board/voicefile.py's WORDS holds
# their words in this order). The numbers one … ten are 0 … 9 (id n - 1). Private: a const
# the module does not export costs no flash (what else needs an id finds it by its words).
_TEN = const(9)
_TWO_MEASURE = const(10)  # 两 (zh), before a measure word; "two" again in English
_S30 = const(11)  # 三十, 四十, 五十, 五十五, 五十八: the marks, as cues._MARKS
_S40 = const(12)
_S50 = const(13)
_S55 = const(14)
_S58 = const(15)
_SECONDS = const(16)  # 秒
_LEFT = const(17)  # 还剩 / "left"
_MINUTE = const(18)  # 分钟 / "minute"
_MINUTES = const(19)  # 分钟 again / "minutes"
_PERIOD = const(20)  # 次 / "period"
_PERIODS = const(21)  # 次 again / "periods"
_TIME_UP = const(22)  # 超时判负 / "time is up, the game is lost"
CLIPS = const(23)

# The minutes or periods left that are spoken: the clips hold numbers up to ten (the presets
# keep 5 minutes, 5 periods); a count above it is left to the beeps.
_MAX_LEFT = const(10)


class VoiceError(ValueError):
    """A voice file that cannot be used: missing, torn, corrupt, or not a voice file."""


def phrase(cue, lang, out):
    """The clip ids of ``cue``'s phrase in ``lang`` (``ZH``, ``EN``) into ``out`` (a bytearray
    of at least ``MAX_CLIPS``); returns how many, 0 when the cue has no phrase (its beeps
    alone). Allocates nothing: the clock's cue path calls it."""
    k = cue >> 8
    n = cue & 0xFF
    if k == cues.MARK or k == cues.MARK_LATE:
        if n == 55 or n == 58:
            out[0] = _S55 + (n - 55) // 3
        elif n == 30 or n == 40 or n == 50:
            out[0] = _S30 + (n - 30) // 10
        else:
            return 0
        out[1] = _SECONDS
        return 2
    if k == cues.COUNT:
        if not 1 <= n <= 10:
            return 0
        out[0] = n - 1
        return 1
    if k == cues.TIMEOUT:
        out[0] = _TEN
        out[1] = _TIME_UP
        return 2
    if k == cues.FLAG:
        out[0] = _TIME_UP
        return 1
    if k == cues.MINUTE_LEFT or k == cues.PERIOD_LEFT:
        if not 1 <= n <= _MAX_LEFT:
            return 0
        minute = k == cues.MINUTE_LEFT
        if lang == ZH:  # (一分钟) 还剩 N 分钟 / 还剩 N 次
            i = 0
            if minute:  # 000 第十二条: "一分钟" at the full minute, then "还剩×分钟"
                out[0] = 0
                out[1] = _MINUTE
                i = 2
            out[i] = _LEFT
            out[i + 1] = _TWO_MEASURE if n == 2 else n - 1
            out[i + 2] = _MINUTE if minute else _PERIOD
            return i + 3
        out[0] = n - 1  # N minute(s) / period(s) left
        if n == 1:
            out[1] = _MINUTE if minute else _PERIOD
        else:
            out[1] = _MINUTES if minute else _PERIODS
        out[2] = _LEFT
        return 3
    return 0


# ---- IMA ADPCM ------------------------------------------------------------------------------

# The IMA ADPCM step sizes, the standard table of 89 (7, 8, 9, 10, 11 ... 29794, 32767), as
# little-endian u16 bytes: a tuple of ints would cost 284 bytes more of the image's flash.
# host_tools/board/voicefile.py's STEPS is the table in numbers; a test holds them equal.
STEPS = array(
    "H",
    b"\x07\x00\x08\x00\x09\x00\x0a\x00\x0b\x00\x0c\x00\x0d\x00\x0e\x00\x10\x00\x11\x00\x13\x00"
    b"\x15\x00\x17\x00\x19\x00\x1c\x00\x1f\x00\x22\x00\x25\x00\x29\x00\x2d\x00\x32\x00\x37\x00"
    b"\x3c\x00\x42\x00\x49\x00\x50\x00\x58\x00\x61\x00\x6b\x00\x76\x00\x82\x00\x8f\x00\x9d\x00"
    b"\xad\x00\xbe\x00\xd1\x00\xe6\x00\xfd\x00\x17\x01\x33\x01\x51\x01\x73\x01\x98\x01\xc1\x01"
    b"\xee\x01\x20\x02\x56\x02\x92\x02\xd4\x02\x1c\x03\x6c\x03\xc3\x03\x24\x04\x8e\x04\x02\x05"
    b"\x83\x05\x10\x06\xab\x06\x56\x07\x12\x08\xe0\x08\xc3\x09\xbd\x0a\xd0\x0b\xff\x0c\x4c\x0e"
    b"\xba\x0f\x4c\x11\x07\x13\xee\x14\x06\x17\x54\x19\xdc\x1b\xa5\x1e\xb6\x21\x15\x25\xca\x28"
    b"\xdf\x2c\x5b\x31\x4b\x36\xb9\x3b\xb2\x41\x44\x48\x7e\x4f\x71\x57\x2f\x60\xce\x69\x62\x74"
    b"\xff\x7f",
)

# ptr8/ptr16/ptr32 below: viper's pointer casts (CPython: firmware/__init__.py's stand-ins).


# Viper: measured on the unix port against the same loop as bytecode, bench/bench_voice.py. The
# plain-Python twin (the reference the tests hold it to) is host_tools/board/voicefile.py's
# ``decode``: the board carries only this one. The predictor is kept as sample + 32768 (0 …
# 65535), in the loop and in the state: no negative number (viper reads array('i') through
# ptr32 as unsigned on a 64-bit PC) and no offset to add per sample.
@micropython.viper
def decode(src, n: int, dst, state):
    """Decode ``n`` bytes of ``src`` (IMA ADPCM, low nibble first) into ``2 * n`` samples of
    ``dst`` (``array('H')``): each the signed 16-bit sample + 32768, shifted right by
    ``state[2]`` (8: unsigned 8-bit values, 0 … 255; 0: unsigned 16-bit). ``state``
    (``array('i', 3)``) carries the predictor + 32768 and the step index from block to
    block. A step's difference is ((2 * magnitude + 1) * step) >> 3, the same as the encoder's
    (``host_tools/board/voicefile.py``). Allocates nothing."""
    s = ptr8(src)
    d = ptr16(dst)
    st = ptr32(state)
    steps = ptr16(STEPS)
    pred = int(st[0])
    idx = int(st[1])
    shift = int(st[2])
    o = 0
    end = n << 1
    while o < end:
        code = (int(s[o >> 1]) >> ((o & 1) << 2)) & 15
        diff = ((((code & 7) << 1) + 1) * int(steps[idx])) >> 3
        if code & 8:
            pred -= diff
            if pred < 0:
                pred = 0
        else:
            pred += diff
            if pred > 65535:
                pred = 65535
        if code & 4:
            idx += ((code & 3) + 1) << 1  # 2, 4, 6, 8
            if idx > 88:
                idx = 88
        elif idx > 0:
            idx -= 1
        d[o] = pred >> shift
        o += 1
    st[0] = pred
    st[1] = idx


@micropython.viper
def fill(dst, n: int, v: int):
    """``n`` samples of ``v`` into ``dst`` (``array('H')``): silence. Allocates nothing."""
    d = ptr16(dst)
    i = 0
    while i < n:
        d[i] = v
        i += 1


# ---- the file -------------------------------------------------------------------------------


def _u32(b, p):
    return b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24


class Voice:
    """One language's voice file, open: ``say(cue)`` then ``read(pcm)`` until it answers 0.

    ``path``: the file (/voice/zh.bin). ``shift``: as ``decode`` (8: PCM values 0 … 255).
    ``decoder``: ``decode`` (the board's) or another with its arguments (the tests give the
    plain-Python reference). Raises ``VoiceError`` if the file is missing, torn, corrupt or
    not a voice file. The buffers are made here, once: ``buf`` the ADPCM block; the caller's
    ``pcm`` holds ``PCM_SAMPLES``.
    """

    PCM_SAMPLES = 2 * BLOCK

    def __init__(self, path, shift=8, decoder=None):
        self.path = path
        self.decoder = decoder or decode
        self.buf = bytearray(BLOCK)
        self.state = array("i", (32768, 0, shift))
        self.index = array("I", bytes(8 * CLIPS))
        self.ids = bytearray(MAX_CLIPS)
        self.n = 0  # clips in the phrase being said
        self.k = 0  # the clip being read
        self.pos = 0  # its next byte in the file
        self.left = 0  # its samples not yet read
        self.gap = 0  # samples of silence to give before the next clip
        try:
            self.f = open(path, "rb")
        except OSError:
            raise VoiceError("voice file missing: " + path)
        try:
            self.lang = self._check()
        except BaseException:
            self.f.close()
            raise

    def _check(self):
        # The header, the body's length (a torn copy) and its CRC, then the index.
        f = self.f
        head = f.read(HEADER)
        p = self.path
        if len(head) < HEADER or head[:4] != MAGIC or head[4:6] not in LANGS:
            raise VoiceError("not a voice file: " + p)
        if head[6:10] != bytes((RATE & 255, RATE >> 8, CLIPS, 0)):
            raise VoiceError("%s: not this firmware's (%d Hz, %d clips)" % (p, RATE, CLIPS))
        size = _u32(head, 12)
        mv = memoryview(self.buf)
        got = 0
        crc = 0
        while True:
            k = f.readinto(self.buf)
            if not k:
                break
            crc = crc32(mv[:k], crc)
            got += k
        if got != size:
            raise VoiceError("%s: torn: %d of %d bytes (copy it again)" % (p, got, size))
        if crc & 0xFFFFFFFF != _u32(head, 16):
            raise VoiceError("%s: corrupt (bad CRC; copy it again)" % p)
        f.seek(HEADER)
        ix = self.index  # array('I'): little-endian u32 on the RP2040 and on a PC
        f.readinto(ix)
        for i in range(CLIPS):
            if (
                ix[2 * i] < HEADER + 8 * CLIPS
                or ix[2 * i] + (ix[2 * i + 1] + 1) // 2 > HEADER + size
            ):
                raise VoiceError("%s: clip %d lies outside the file" % (p, i))
        return LANGS.index(head[4:6])

    def close(self):
        """Close the file; the voice is silent after."""
        self.f.close()
        self.n = self.left = self.gap = 0

    def start(self, clip):
        """Read clip ``clip`` from its start (``read`` then gives its samples)."""
        self.pos = self.index[2 * clip]
        self.left = self.index[2 * clip + 1]
        self.state[0] = 32768
        self.state[1] = 0

    def say(self, cue):
        """Start ``cue``'s phrase in this file's language (any phrase being read is cut);
        False if the cue has none (its beeps alone). Allocates nothing."""
        self.n = phrase(cue, self.lang, self.ids)
        self.k = 0
        self.gap = 0
        self.left = 0
        if self.n:
            self.start(self.ids[0])
        return self.n > 0

    def read(self, pcm):
        """Decode the phrase's next block into ``pcm`` (``array('H')`` of at least
        ``PCM_SAMPLES``); the samples written, 0 when the phrase is done. Crosses from clip
        to clip on its own, ``GAP`` samples of silence between (a block holds one clip's
        samples, or silence). Allocates nothing (few locals: its frame stays on the stack)."""
        while self.left == 0:
            if self.gap:
                n = self.gap
                fill(pcm, n, 32768 >> self.state[2])
                self.gap = 0
                return n
            self.k += 1
            if self.k >= self.n:
                self.n = 0
                return 0
            self.start(self.ids[self.k])
        self.f.seek(self.pos)
        n = min(self.f.readinto(self.buf), (self.left + 1) >> 1)  # the bytes of this clip
        if n <= 0:  # the file ends early (it was checked: it changed since)
            self.n = self.left = 0
            return 0
        self.decoder(self.buf, n, pcm, self.state)
        self.pos += n
        n = min(n << 1, self.left)
        self.left -= n
        if self.left == 0 and self.k + 1 < self.n:
            self.gap = GAP
        return n

    def samples(self, cue):
        """How many samples ``cue``'s phrase lasts, the gaps included (0: it has none). It
        cuts a phrase being read (``ids`` is shared)."""
        n = phrase(cue, self.lang, self.ids)
        total = 0
        for i in range(n):
            total += self.index[2 * self.ids[i] + 1] + (GAP if i else 0)
        self.n = self.left = self.gap = 0
        return total


def load(path, shift=8):
    """``(Voice, "")`` for the file at ``path``, or ``(None, why)`` when it cannot be used:
    the board then goes on with its beeps alone."""
    try:
        return Voice(path, shift), ""
    except VoiceError as e:
        return None, str(e)
