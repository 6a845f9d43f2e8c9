"""The voice file written: each clip's words, the IMA ADPCM encoder, and the file packed.

Start reading at ``pack`` (a language's clips, as 16-bit samples at 8 kHz, into the bytes of
/voice/zh.bin or /voice/en.bin: the format is stated in ``firmware/ui/voice.py``, which reads
it), then ``encode`` and ``decode`` (the plain-Python reference of the board's viper decoder). ``WORDS`` says what each clip id says, for the builder
(``host_tools/board/voice.py``: espeak-ng) and for the tests that print a phrase.

Plain Python with nothing CPython-only, so the tests build small files on the MicroPython unix
port as well (``tests/test_voice.py``).
"""

import struct
from binascii import crc32

from firmware.ui import voice as V

# What each clip id says: (what espeak-ng is given, what it says, as a reader writes it). The
# Mandarin is given as tone-numbered pinyin (espeak-ng's voice cmn-latn-pinyin): Debian's
# espeak-ng 1.51 reads many characters through its cmn dictionary with the tone digit spoken
# as an English number (三 comes out "san one"), while pinyin it reads right.
_ZH_NUMBERS = (
    ("yi1", "一"),
    ("er4", "二"),
    ("san1", "三"),
    ("si4", "四"),
    ("wu3", "五"),
    ("liu4", "六"),
    ("qi1", "七"),
    ("ba1", "八"),
    ("jiu3", "九"),
    ("shi2", "十"),
)
_EN_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

WORDS = {
    "zh": _ZH_NUMBERS
    + (
        ("liang3", "两"),
        ("san1 shi2", "三十"),
        ("si4 shi2", "四十"),
        ("wu3 shi2", "五十"),
        ("wu3 shi2 wu3", "五十五"),
        ("wu3 shi2 ba1", "五十八"),
        ("miao3", "秒"),
        ("hai2 sheng4", "还剩"),
        ("fen1 zhong1", "分钟"),
        ("fen1 zhong1", "分钟"),
        ("ci4", "次"),
        ("ci4", "次"),
        ("chao1 shi2 pan4 fu4", "超时判负"),
    ),
    "en": tuple((w, w) for w in _EN_NUMBERS)
    + (
        ("two", "two"),
        ("thirty", "thirty"),
        ("forty", "forty"),
        ("fifty", "fifty"),
        ("fifty-five", "fifty-five"),
        ("fifty-eight", "fifty-eight"),
        ("seconds", "seconds"),
        ("left", "left"),
        ("minute", "minute"),
        ("minutes", "minutes"),
        ("period", "period"),
        ("periods", "periods"),
        ("time is up, the game is lost", "time is up, the game is lost"),
    ),
}


# The IMA ADPCM step sizes (the standard table); the firmware keeps them as bytes (V.STEPS).
STEPS = (
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
    73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
    449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878,
    2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845,
    8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086,
    29794, 32767,
)  # fmt: skip


def clip_id(words, lang="en"):
    """The clip id that says ``words`` in ``lang`` (the first, where two say the same)."""
    return [w for _, w in WORDS[lang]].index(words)


def said(lang, ids, n=None):
    """The words of clips ``ids[:n]`` in ``lang`` ("zh", "en"), joined as they are heard."""
    n = len(ids) if n is None else n
    sep = "" if lang == "zh" else " "
    return sep.join(WORDS[lang][ids[i]][1] for i in range(n))


def _step(pred, idx, code):
    # One nibble decoded, as the board's viper ``decode``: (predictor + 32768, step index).
    step = STEPS[idx]
    d = (((code & 7) * 2 + 1) * step) >> 3
    pred = max(0, pred - d) if code & 8 else min(65535, pred + d)
    idx = min(88, idx + (((code & 3) + 1) << 1)) if code & 4 else max(0, idx - 1)
    return pred, idx


def encode(samples):
    """IMA ADPCM of ``samples`` (signed 16-bit ints), from predictor 0 and step index 0, two
    samples a byte, the first in the low nibble: ``(bytes, decoded)``, where ``decoded`` is
    what the decoder will give back (sample + 32768, as ``decode`` with shift 0), tracked as
    the encoder goes: each sample is coded against what the decoder will have."""
    pred = 32768
    idx = 0
    out = bytearray((len(samples) + 1) // 2)
    back = []
    for i in range(len(samples)):
        diff = samples[i] + 32768 - pred
        code = 0
        if diff < 0:
            code = 8
            diff = -diff
        code |= min(7, (diff << 2) // STEPS[idx])  # the magnitude nearest below
        pred, idx = _step(pred, idx, code)
        back.append(pred)
        out[i >> 1] |= code << 4 if i & 1 else code
    return bytes(out), back


def decode(src, n, dst, state):
    """The plain-Python decoder: ``firmware.ui.voice.decode``'s arguments and samples (the
    board's is viper; the tests hold it to this one on both runtimes). ``n`` bytes of ``src``
    into ``2 * n`` samples of ``dst``, each sample + 32768 shifted right by ``state[2]``;
    ``state`` carries the predictor + 32768 and the step index."""
    pred = state[0]
    idx = state[1]
    shift = state[2]
    o = 0
    for i in range(n):
        b = src[i]
        for code in (b & 15, b >> 4):
            pred, idx = _step(pred, idx, code)
            dst[o] = pred >> shift
            o += 1
    state[0] = pred
    state[1] = idx


def pack(lang, clips, rate=V.RATE):
    """The bytes of a voice file: ``lang`` ("zh", "en"), ``clips`` one list of signed 16-bit
    samples per clip id (``firmware.ui.voice.CLIPS`` of them). Clips that encode alike are
    stored once."""
    if len(clips) != V.CLIPS:
        raise ValueError("%d clips, the format has %d" % (len(clips), V.CLIPS))
    base = V.HEADER + 8 * V.CLIPS
    data = bytearray()
    index = bytearray()
    seen = {}
    for samples in clips:
        enc = encode(samples)[0]
        off = seen.get(enc)
        if off is None:
            off = base + len(data)
            seen[enc] = off
            data += enc
        index += struct.pack("<II", off, len(samples))
    body = bytes(index + data)
    head = V.MAGIC + lang.encode() + struct.pack("<HHHII", rate, V.CLIPS, 0, len(body), 0)
    crc = crc32(body) & 0xFFFFFFFF
    return head[:16] + struct.pack("<I", crc) + body
