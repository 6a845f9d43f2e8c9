"""The board speaks the byo-yomi count through its own wiring (issue 29): the must-show test.

Start reading at ``test_a_counted_minute_is_spoken_in_order_on_time_and_nothing_else``. The
virtual board (``tests/rig.py``'s ``BoardRig``: ``firmware/boot/board.py``'s ``build`` on the
virtual HAL, simulated time) from the factory settings with the voice setting, the Mandarin
phrases made by espeak-ng (``host_tools/board/voice.py``) in its flash folder's /voice/; a
Chinese byo-yomi game (the factory's cn-national: the last five minutes counted) where Black
lets a counted minute run. What its speaker played, rendered to a WAV, holds each phrase the
rule calls for (000 第十二条: 30秒, 40秒, 50秒, 55秒, 58秒, 一分钟 还剩4分钟), found by
cross-correlation against the phrase's own recording (``tests/voice_match.py``), in order, on
time within a pass of the app, and nothing else: the moves before the counting are silent.
The voice off: the same minute is beeped, the speaker silent. Needs espeak-ng (skips saying
so); tests/test_voice_board.py runs the same wiring on both runtimes with made-up clips.
"""

import json
import os
import shutil
import wave

import pytest

from firmware.clock import control as C
from firmware.clock import cues
from firmware.clock.clock import BLACK
from firmware.ui import voice as V
from host_tools.board import voice as B
from tests.rig import STEP, BoardRig
from tests.voice_match import correlate, phrase_pcm

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="espeak-ng is not installed (apt-get install espeak-ng; make's venv step does it)",
)

MOVES = (("Q16", "b"), ("D4", "w"), ("Q4", "b"), ("D16", "w"))


@pytest.fixture(scope="module")
def zh(tmp_path_factory):
    out = tmp_path_factory.mktemp("voice")
    B.build(out, langs=("zh",), log=lambda line: None)
    return out / "zh.bin"


def _board(tmp_path, voice, zh):
    # A new board's flash folder with the voice file deployed and the one setting made.
    root = str(tmp_path / "flash")
    os.makedirs(root + "/voice")
    shutil.copyfile(zh, root + "/voice/zh.bin")
    with open(root + "/settings.json", "w") as f:
        f.write(json.dumps({"voice": voice}))
    return BoardRig(root=root)


def _counted_minute(rig):
    # The game started, four moves with a few seconds each (no counting yet), then Black's
    # main time passes at once (2:55:00 less 45 s) and its first counted minute runs out;
    # Black plays a second after it. The board time the counting began, and when it ended.
    rig.key("pause")
    for v, c in MOVES:
        rig.run(3000)
        rig.put(v, c)
        rig.press(c)
    clock = rig.app.match.clock
    assert clock.running == BLACK and clock.control.kind == C.CHINESE
    t0 = clock.seg + clock.main[BLACK] - clock.used  # Black's main time runs out here
    quiet = rig.now
    rig.now = t0 - 45000  # 2 h 54 min 15 s pass at once: no cue falls in main time
    rig.run(45000 + 61000)
    rig.put("C3", "b")
    rig.press("b")
    rig.run(5000)  # White's main time: silence
    return quiet, t0


def test_a_counted_minute_is_spoken_in_order_on_time_and_nothing_else(tmp_path, zh):
    rig = _board(tmp_path, "zh", zh)
    assert rig.app.voice is not None and rig.app.voice.lang == V.ZH
    sp = rig.hw.speaker
    quiet, t0 = _counted_minute(rig)
    tc = C.PRESETS["cn-national"]
    plan = []
    t = -1
    out = [0]
    while len(plan) < 6:
        cue = cues.counting_next(True, tc.period_ms, tc.periods, t, out)
        t = out[0]
        plan.append((t0 + t, cue))
    assert [cues.words(c)[0] for _, c in plan] == [
        "30秒",
        "40秒",
        "50秒",
        "55秒",
        "58秒",
        "还剩4分钟",
    ]
    # The moves before the counting: the speaker said nothing (the clicks are the piezo's).
    assert sp.streams and sp.streams[0][0] > quiet
    rig.board.report()  # the virtual board's lines: what the sim's view shows
    said = [line[4:] for line in rig.said if line.startswith("say ")]
    assert said == ["zh %d %s" % (c, cues.words(c)[0]) for _, c in plan]
    # No cue beeped: the voice said them.
    beeps = [n for n in rig.heard() if n not in ("KEY", "REFUSE", "CONFIRM")]
    assert beeps == [], beeps

    start = t0 - 1000
    end = rig.now
    wav = tmp_path / "minute.wav"
    assert B.write_speaker_wav(sp, wav, start, end) == start
    with wave.open(str(wav)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (V.RATE, 1, 1)
        track = w.readframes(w.getnframes())
    assert len(track) == (end - start) * V.RATE // 1000

    v = V.Voice(str(zh), 8)
    reach = STEP * V.RATE // 1000  # a pass of the app either side
    heard = bytearray([128]) * len(track)
    found = []
    for at_ms, cue in plan:
        ref = phrase_pcm(v, cue)
        ref = bytearray(128 + (x - 128) * 2 // 3 for x in ref)  # the factory's volume: 2 of 3
        at = (at_ms - start) * V.RATE // 1000
        lag, c = correlate(track, ref[: V.RATE // 5], at, reach)  # its first 200 ms
        assert lag is not None and c > 0.99, (cues.words(cue), lag, c)
        whole = correlate(track, ref, at + lag, 0)[1]
        assert whole > 0.99, (cues.words(cue), whole)  # the whole phrase, not its start
        found.append(at_ms + lag * 1000 // V.RATE)
        heard[at + lag : at + lag + len(ref)] = ref
    assert found == sorted(found)  # in order
    assert all(0 <= f - t < STEP for f, (t, _) in zip(found, plan, strict=True))  # on time
    assert bytes(heard) == track  # and nothing else sounds
    v.close()


def test_the_voice_off_beeps_the_minute_and_the_speaker_is_silent(tmp_path, zh):
    rig = _board(tmp_path, "off", zh)
    assert rig.app.voice is None
    _counted_minute(rig)
    beeps = [n for n in rig.heard() if n not in ("KEY", "REFUSE", "CONFIRM")]
    assert beeps == ["MARK"] * 3 + ["MARK_LATE"] * 2 + ["MINUTE_LEFT/PERIOD_LEFT"], beeps
    assert rig.hw.speaker.streams == []
