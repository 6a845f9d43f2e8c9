"""``make voice`` (host_tools/board/voice.py): the real phrases, spoken by espeak-ng, packed and
read back by the firmware's reader; each phrase over before the clock's next cue.

Start reading at ``test_every_phrase_ends_before_the_next_cue``: the seed's schedules
(tests/test_voice.py walks them on both runtimes) against the lengths of the phrases built
here. These tests need espeak-ng (Debian's package; the Makefile's venv step installs it as
root) and skip saying so without it; the format's own tests do not (tests/test_voice.py).
"""

import shutil
import subprocess
from array import array

import pytest

from firmware.clock import control as C
from firmware.clock import cues
from firmware.ui import voice as V
from host_tools.board import voice as B
from host_tools.board import voicefile as VF
from tests.voice_match import correlate, phrase_pcm

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="espeak-ng is not installed (apt-get install espeak-ng; make's venv step does it)",
)

# The bytes a language's file may take on the board's filesystem (measured: ~38 KB each).
BUDGET = 48 * 1024


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("voice")
    lines = []
    sizes = B.build(out, wav=False, log=lines.append)
    return out, sizes, lines


def _voices(out):
    return {lang: V.Voice(str(out / (lang + ".bin")), 0) for lang in ("zh", "en")}


def test_the_files_are_made_and_fit_their_budget(built):
    out, sizes, lines = built
    assert set(sizes) == {"zh", "en"}
    for lang, size in sizes.items():
        assert (out / (lang + ".bin")).stat().st_size == size
        assert size < BUDGET, (lang, size)
        assert any(line.startswith("voice %s: %d bytes" % (lang, size)) for line in lines)
    assert lines[-1].startswith("voice: %d bytes in all" % sum(sizes.values()))


def test_each_clip_is_speech_of_a_word_s_length(built):
    out, _, _ = built
    for lang, v in _voices(out).items():
        assert v.lang == (V.ZH if lang == "zh" else V.EN)
        pcm = array("H", bytes(2 * v.PCM_SAMPLES))
        for c in range(V.CLIPS):
            seconds = v.index[2 * c + 1] / V.RATE
            longest = 2.0 if c == VF.clip_id("time is up, the game is lost") else 1.0
            assert 0.15 < seconds < longest, (lang, VF.WORDS[lang][c][1], seconds)
            v.start(c)
            v.n, v.k = 1, 0
            got = []
            while k := v.read(pcm):
                got.extend(pcm[:k])
            assert len(got) == v.index[2 * c + 1]
            rms = (sum((s - 32768) ** 2 for s in got) / len(got)) ** 0.5
            assert rms > 1000, (lang, VF.WORDS[lang][c][1], rms)  # not silence
        v.close()


def _schedule(tc):
    chinese = tc.kind == C.CHINESE
    out = array("i", [0])
    t = -1
    got = []
    while cue := cues.counting_next(chinese, tc.period_ms, tc.periods, t, out):
        t = out[0]
        got.append((t, cue))
    return got


def test_every_phrase_ends_before_the_next_cue(built):
    # A counted second is spoken inside its second; "五十秒"/"fifty seconds" at 50 s is over
    # before "1" at 51 s (the English is spoken at 200 words a minute for it). Not with
    # periods of 10 s: "还剩1次" (1.2 s) at a period's end is cut by "1" a second later, the
    # later cue winning as it does with the beeps.
    out, _, _ = built
    for lang, v in _voices(out).items():
        for tc in (C.chinese(60 * 60000, 2), C.PRESETS["japanese-5x30"], C.japanese(0, 2, 20000)):
            plan = _schedule(tc)
            for (t, cue), (t2, _) in zip(plan, plan[1:], strict=False):
                ms = v.samples(cue) * 1000 // V.RATE
                assert 0 < ms < t2 - t, (lang, tc, cues.words(cue), ms, t2 - t)
        v.close()


def test_the_mandarin_is_read_as_mandarin():
    # Debian's espeak-ng 1.51 reads characters through its cmn dictionary with the tone digit
    # as an English number (三: "san one"): the clips are given as pinyin, which it reads in
    # Mandarin throughout (no switch to English in its phonemes).
    voice, _ = B.VOICES["zh"]
    for text, shown in VF.WORDS["zh"]:
        r = subprocess.run(
            ["espeak-ng", "-v", voice, "-x", "-q", text], capture_output=True, text=True
        )
        assert r.returncode == 0 and r.stdout.strip(), (text, r.stderr)
        assert "(en)" not in r.stdout, (shown, r.stdout)


def test_the_virtual_speaker_says_a_counted_minute_in_order_and_on_time(built, tmp_path):
    # The last kept minute (000 第十二条): each cue's phrase read block by block as playback
    # will, given to the virtual board's speaker at the cue's time, rendered to a WAV; in
    # the WAV each phrase is found by cross-correlation against its recording, at its time,
    # in order, and nothing sounds between the phrases.
    import wave

    from firmware.hal.virtual import Speaker

    out, _, _ = built
    v = V.Voice(str(out / "zh.bin"), 8)
    pcm = array("H", bytes(2 * v.PCM_SAMPLES))
    speaker = Speaker(V.RATE)
    plan = _schedule(C.chinese(60 * 60000, 1))
    assert [t // 1000 for t, _ in plan] == [30, 40, 50] + list(range(51, 61))
    for t, cue in plan:
        assert v.say(cue)
        speaker.start(t)
        while k := v.read(pcm):
            speaker.record(pcm, k)
    wav = tmp_path / "minute.wav"
    assert B.write_speaker_wav(speaker, wav, 0, 62000) == 0
    with wave.open(str(wav)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (V.RATE, 1, 1)
        track = w.readframes(w.getnframes())
    assert len(track) == 62 * V.RATE
    heard = bytearray([128]) * len(track)
    found = []
    reach = V.RATE // 10  # 100 ms either side
    for t, cue in plan:
        ref = phrase_pcm(v, cue)
        at = t * V.RATE // 1000
        lag, c = correlate(track, ref[: V.RATE // 5], at, reach)  # its first 200 ms
        assert lag == 0 and c > 0.99, (cues.words(cue), lag, c)
        found.append(t + lag * 1000 // V.RATE)
        heard[at : at + len(ref)] = ref
    assert found == [t for t, _ in plan]  # in order, on time
    assert bytes(heard) == track  # and nothing else sounds
    v.close()


def test_the_adpcm_keeps_the_speech():
    # Each clip through the encoder and back: the signal-to-noise ratio of 4-bit IMA ADPCM on
    # speech at 8 kHz (measured 16-21 dB); a broken encoder or decoder falls far below.
    import math

    for lang in ("zh", "en"):
        for text, shown in VF.WORDS[lang][:17]:
            c = B.clip(text, *B.VOICES[lang])
            back = VF.encode(c)[1]
            err = sum((b - 32768 - s) ** 2 for b, s in zip(back, c, strict=True))
            snr = 10 * math.log10(sum(s * s for s in c) / max(err, 1))
            assert snr > 14, (lang, shown, snr)
