"""The clock's voice (firmware/ui/voice.py) on both runtimes: cues to phrases, the file read back.

Start reading at ``test_the_seeds_chinese_count_is_said_in_its_own_words``: the cues of
``cues.counting_next`` walked over a counting, as the clock meets them, each turned into its
phrase (clip ids, printed through ``host_tools/board/voicefile.py``'s ``WORDS``) with its time.
Then the format: files built here from a made-up signal (no espeak-ng needed; the real phrases
are tests/host/board/test_voice_build.py's), decoded by the viper and the plain path, the
samples the encoder promised, nothing allocated per block; a torn or corrupt file refused.
"""

import os
from array import array
from binascii import crc32, hexlify

import micropython

from firmware.clock import control as C
from firmware.clock import cues
from firmware.ui import voice as V
from host_tools.board import voicefile as VF
from tests.support import IS_MICROPYTHON, locked, skip

SEC = 1000


def _schedule(tc):
    # Every cue of one move's counting, from the main time's end to the loss: (ms, cue).
    chinese = tc.kind == C.CHINESE
    out = array("i", [0])
    t = -1
    got = []
    while True:
        cue = cues.counting_next(chinese, tc.period_ms, tc.periods, t, out)
        if not cue:
            return got
        t = out[0]
        got.append((t, cue))


def _spoken(tc, lang):
    # The schedule as it is heard: (seconds into the counting, the phrase's words).
    ids = bytearray(V.MAX_CLIPS)
    code = V.ZH if lang == "zh" else V.EN
    return [(t // SEC, VF.said(lang, ids, V.phrase(c, code, ids))) for t, c in _schedule(tc)]


_LAST_MINUTE_ZH = [(30, "三十秒"), (40, "四十秒"), (50, "五十秒")] + [
    (50 + n, "一二三四五六七八九"[n - 1]) for n in range(1, 10)
]


def test_the_seeds_chinese_count_is_said_in_its_own_words():
    # 000 第十二条: 2 kept minutes. The first: 30, 40, 50, 55, 58 s, then 一分钟 and 还剩1分钟 at
    # the full minute; the last: 30, 40, 50 s, 1 … 9 each second, "10，超时判负" at its end.
    got = _spoken(C.chinese(10 * 60 * SEC, 2), "zh")
    first = [(30, "三十秒"), (40, "四十秒"), (50, "五十秒"), (55, "五十五秒"), (58, "五十八秒")]
    want = first + [(60, "一分钟还剩一分钟")]  # the minute called, then what is left
    want += [(60 + s, w) for s, w in _LAST_MINUTE_ZH] + [(120, "十超时判负")]
    assert got == want, got


def test_the_national_games_five_kept_minutes_count_down_with_liang():
    # cn-national keeps 5: 还剩4 … 1分钟 at each full minute, 两 (not 二) before 分钟.
    got = [(s, w) for s, w in _spoken(C.PRESETS["cn-national"], "zh") if "还剩" in w]
    assert [w for _, w in got] == ["一分钟还剩" + n + "分钟" for n in "四三两一"]
    assert [s for s, _ in got] == [60, 120, 180, 240]
    assert len(_spoken(C.PRESETS["cn-national"], "zh")) == 4 * 6 + 13


def test_the_chinese_count_in_english():
    got = _spoken(C.chinese(10 * 60 * SEC, 3), "en")
    assert got[:6] == [
        (30, "thirty seconds"),
        (40, "forty seconds"),
        (50, "fifty seconds"),
        (55, "fifty-five seconds"),
        (58, "fifty-eight seconds"),
        (60, "two minutes left"),
    ]
    assert got[11] == (120, "one minute left")
    counts = "one two three four five six seven eight nine".split()
    assert got[-10:-1] == [(170 + n, counts[n - 1]) for n in range(1, 10)]
    assert got[-1] == (180, "ten time is up, the game is lost")


def test_the_seeds_japanese_count():
    # 003 第12条: 3 periods of 30 s; each period used up is told (还剩N次), the last period's
    # last ten seconds are counted 1 … 10, and "10" is the loss.
    tc = C.japanese(60 * SEC, 3, 30 * SEC)
    got = _spoken(tc, "zh")
    want = [(30, "还剩两次"), (60, "还剩一次")]
    want += [(80 + n, "一二三四五六七八九"[n - 1]) for n in range(1, 10)] + [(90, "十超时判负")]
    assert got == want, got
    en = _spoken(tc, "en")
    assert en[:2] == [(30, "two periods left"), (60, "one period left")]
    assert en[2] == (81, "one") and en[-1] == (90, "ten time is up, the game is lost")


_HANZI = "一二三四五六七八九"


def _hanzi(n, measure):
    # 1 … 99 in characters, 两 for 2 before a measure word.
    if n == 2 and measure:
        return "两"
    tens, units = divmod(n, 10)
    return (
        (_HANZI[tens - 1] if tens > 1 else "")
        + ("十" if tens else "")
        + (_HANZI[units - 1] if units else "")
    )


def test_each_phrase_says_the_words_of_its_cue():
    # cues.words()'s Chinese, its numbers in characters, is what the clips say, for every cue
    # the clock can give (FLAG too).
    ids = bytearray(V.MAX_CLIPS)
    every = [
        c for _, c in _schedule(C.PRESETS["cn-national"]) + _schedule(C.japanese(0, 9, 60 * SEC))
    ]
    every.append(cues.FLAG << 8)
    for cue in every:
        zh = cues.words(cue)[0].replace("，", "")
        k = cue >> 8
        measure = k in (cues.MINUTE_LEFT, cues.PERIOD_LEFT)
        digits = "".join(ch for ch in zh if "0" <= ch <= "9")
        if digits:
            zh = zh.replace(digits, _hanzi(int(digits), measure))
        if k == cues.MINUTE_LEFT:
            zh = "一分钟" + zh  # the rule's call of the full minute, before what is left
        assert VF.said("zh", ids, V.phrase(cue, V.ZH, ids)) == zh, cue


def test_phrases_allocate_nothing_and_a_count_beyond_ten_is_left_to_the_beeps():
    ids = bytearray(V.MAX_CLIPS)
    cue = cues.MINUTE_LEFT << 8 | 2
    n = [0]

    def run():
        n[0] = V.phrase(cue, V.ZH, ids)

    assert locked(run) is None and n[0] == 5 == V.MAX_CLIPS
    assert V.phrase(cues.PERIOD_LEFT << 8 | 11, V.EN, ids) == 0
    assert V.phrase(cues.MARK << 8 | 20, V.ZH, ids) == 0
    assert V.phrase(0, V.ZH, ids) == 0


# ---- the file --------------------------------------------------------------------------------


def _signal(n, seed):
    # A made-up clip: a rising saw under noise, loud and quiet stretches (the step index moves
    # both ways), the same integers on both runtimes.
    x = seed
    out = []
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        amp = 16 if (i // 700) % 2 else 1
        out.append(((i * 37) % 2000 - 1000) * amp + ((x >> 20) - 1024) * amp // 4)
    return out


def _clips():
    return [_signal(90 + 61 * i, i + 1) for i in range(V.CLIPS)]


def _path(tag):
    tmp = os.getenv("TMPDIR") or "/tmp"
    return "%s/tengen-voice-%s-%s.bin" % (tmp, tag, hexlify(os.urandom(6)).decode())


def _file(lang="zh", clips=None):
    path = _path(lang)
    with open(path, "wb") as f:
        f.write(VF.pack(lang, clips or _clips()))
    return path


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _read_all(v, pcm):
    out = []
    while True:
        k = v.read(pcm)
        if not k:
            return out
        out.extend(pcm[:k])


def test_the_decoders_give_back_what_the_encoder_promised():
    clips = _clips()
    path = _file("zh", clips)
    try:
        for decoder in (V.decode, VF.decode):
            v = V.Voice(path, 0, decoder)
            pcm = array("H", bytes(2 * v.PCM_SAMPLES))
            assert v.lang == V.ZH
            for c in (0, 7, V.CLIPS - 1):
                v.start(c)
                v.n, v.k = 1, 0
                assert _read_all(v, pcm) == VF.encode(clips[c])[1], (decoder, c)
            v.close()
        # The same samples on both runtimes: their CRC is pinned.
        v = V.Voice(path, 8)
        pcm = array("H", bytes(2 * v.PCM_SAMPLES))
        v.start(V.CLIPS - 1)
        v.n, v.k = 1, 0
        got = _read_all(v, pcm)
        assert got == [s >> 8 for s in VF.encode(clips[-1])[1]]
        assert crc32(bytes(got)) & 0xFFFFFFFF == 0x4462BBDF, hex(crc32(bytes(got)) & 0xFFFFFFFF)
        v.close()
    finally:
        _remove(path)


def test_the_boards_step_table_is_ima_adpcms():
    assert tuple(V.STEPS) == VF.STEPS and len(VF.STEPS) == 89
    # The standard table: each step ~1.1 times the one before, from 7 to 32767.
    assert VF.STEPS[0] == 7 and VF.STEPS[-1] == 32767
    for a, b in zip(VF.STEPS, VF.STEPS[1:]):
        assert a < b <= a * 11 // 10 + 2


def test_the_viper_and_plain_decoders_agree_block_by_block():
    src = bytes((i * 73 + (i >> 3) * 11) & 0xFF for i in range(512))
    for shift in (0, 4, 8):
        a = array("H", bytes(2 * 1024))
        b = array("H", bytes(2 * 1024))
        sa = array("i", (32768, 0, shift))
        sb = array("i", (32768, 0, shift))
        for start in (0, 256):  # the state carried from the first block to the second
            V.decode(memoryview(src)[start:], 256, a, sa)
            VF.decode(memoryview(src)[start:], 256, b, sb)
            assert list(a[:512]) == list(b[:512]) and list(sa) == list(sb), (shift, start)


def test_a_phrase_reads_its_clips_in_order_with_gaps():
    clips = _clips()
    path = _file("en", clips)
    try:
        v = V.Voice(path, 8)
        pcm = array("H", bytes(2 * v.PCM_SAMPLES))
        assert v.lang == V.EN
        cue = cues.MINUTE_LEFT << 8 | 3  # three minutes left
        want = []
        for i, c in enumerate((2, VF.clip_id("minutes"), VF.clip_id("left"))):
            if i:
                want += [128] * V.GAP
            want += [s >> 8 for s in VF.encode(clips[c])[1]]
        assert v.samples(cue) == len(want)
        assert v.say(cue)
        assert _read_all(v, pcm) == want
        assert v.read(pcm) == 0
        assert not v.say(cues.MARK << 8 | 20)  # no clip says it: the beeps alone
        assert v.read(pcm) == 0
        v.close()
    finally:
        _remove(path)


def _say_each(v, pcm, every):
    # Every cue's phrase read to its end: the blocks read. A plain function, not a closure
    # over the loop: the unix port's closure allocates for its ``for``, the firmware does not.
    blocks = 0
    i = 0
    while i < len(every):
        v.say(every[i])
        while v.read(pcm):
            blocks += 1
        i += 1
    return blocks


def test_reading_a_phrase_allocates_nothing_per_block():
    if not IS_MICROPYTHON:
        skip("gc.mem_alloc()/micropython.mem_total() are MicroPython's measures")
    # Clips longer than a block, so the reads cross blocks, clips and gaps.
    clips = [_signal(1500 + 37 * i, i + 3) for i in range(V.CLIPS)]
    path = _file("zh", clips)
    every = (cues.TIMEOUT << 8 | 10, cues.MINUTE_LEFT << 8 | 2, cues.MARK << 8 | 55)
    try:
        for decoder in (V.decode,):  # the board's (the plain reference is host-side)
            v = V.Voice(path, 8, decoder)
            pcm = array("H", bytes(2 * v.PCM_SAMPLES))
            blocks = _say_each(v, pcm, every)  # a first pass: anything made once is made now
            assert blocks > 20
            assert locked(lambda v=v, pcm=pcm: _say_each(v, pcm, every)) is None
            if hasattr(micropython, "mem_total"):
                before = micropython.mem_total()
                _say_each(v, pcm, every)
                used = micropython.mem_total() - before
                assert used == 0, (decoder, used, blocks)
            v.close()
    finally:
        _remove(path)


def _refused(path, words):
    try:
        V.Voice(path)
    except V.VoiceError as e:
        assert words in str(e), str(e)
        v, why = V.load(path)
        assert v is None and why == str(e)
        return
    raise AssertionError("a bad file was let through: " + words)


def test_a_missing_torn_or_corrupt_file_is_refused_saying_why():
    path = _file("zh")
    try:
        with open(path, "rb") as f:
            data = f.read()
        v, why = V.load(path)
        assert v is not None and why == ""
        v.close()
        _refused(path + ".none", "missing")
        with open(path, "wb") as f:
            f.write(data[: len(data) - 100])  # a copy cut short
        _refused(path, "torn: %d of %d bytes" % (len(data) - 120, len(data) - 20))
        bad = bytearray(data)
        bad[len(bad) // 2] ^= 0x10  # one bit of a clip
        with open(path, "wb") as f:
            f.write(bad)
        _refused(path, "corrupt")
        with open(path, "wb") as f:
            f.write(b"TGV0" + data[4:])
        _refused(path, "not a voice file")
        with open(path, "wb") as f:
            f.write(data[:10])
        _refused(path, "not a voice file")
        # A file made to pass the checks (its CRC made anew) whose index points past its end:
        # the board would read beyond the file. Refused.
        bad = bytearray(data)
        at = V.HEADER + 8 * 3 + 4  # clip 3's sample count
        bad[at : at + 4] = b"\xff\xff\xff\x00"
        crc = crc32(bytes(bad[V.HEADER :])) & 0xFFFFFFFF
        bad[16:20] = bytes((crc & 255, crc >> 8 & 255, crc >> 16 & 255, crc >> 24))
        with open(path, "wb") as f:
            f.write(bad)
        _refused(path, "clip 3 lies outside the file")
    finally:
        _remove(path)


def test_the_virtual_speaker_lays_phrases_on_the_boards_time():
    # Two phrases read by the voice, given to the virtual board's speaker at their cues'
    # times (8 samples a ms): each at its time, silence between; a third that begins before
    # the second ends cuts it.
    from firmware.hal.virtual import Speaker

    path = _file("zh")
    try:
        v = V.Voice(path, 8)
        pcm = array("H", bytes(2 * v.PCM_SAMPLES))
        sp = Speaker(V.RATE)
        said = []
        for at, cue in (
            (1000, cues.COUNT << 8 | 1),
            (2000, cues.COUNT << 8 | 2),
            (2010, cues.FLAG << 8),
        ):
            v.say(cue)
            sp.start(at)
            got = _read_all(v, pcm)
            sp.record(array("H", got), len(got))
            said.append(got)
        start, track = sp.timeline(0, 3000)
        assert start == 0 and len(track) == 3 * V.RATE
        want = bytearray(bytes((128,)) * (3 * V.RATE))
        want[8000 : 8000 + len(said[0])] = bytes(said[0])
        want[16000:16080] = bytes(said[1][:80])  # cut 10 ms in by the third
        want[16080 : 16080 + len(said[2])] = bytes(said[2])
        assert track == want
        v.close()
    finally:
        _remove(path)
