"""The board speaks the count through its own wiring, on both runtimes (issue 29).

Start reading at ``test_the_board_speaks_its_cues_instead_of_beeping_them``. The virtual board
(``tests/rig.py``'s ``BoardRig``: ``firmware/boot/board.py``'s ``build`` on the virtual HAL,
simulated time) with a small voice file of made-up clips in its flash folder's /voice/ (as
tests/test_voice.py makes them): with the ``voice`` setting the clock's cues go to its
speaker (``firmware/hal/virtual.py``'s ``Speaker``, fed by the app's pass), without it, or
without a usable file, to the buzzer as before; the file is opened once, again only when the
setting changes (the link's ``settings``); the volume is the voice's too. The real phrases,
found in a WAV of what the speaker played: tests/host/board/test_voice_board.py.
"""

import json
import os

from firmware.clock import control as C
from firmware.clock import cues
from firmware.clock.clock import BLACK
from firmware.ui import voice as V
from host_tools.board import voicefile as VF
from tests.rig import BoardRig
from tests.test_journal import fresh_root
from tests.test_voice import _clips

CUE_SOUNDS = ("MARK", "MARK_LATE", "MINUTE_LEFT/PERIOD_LEFT", "COUNT", "TIMEOUT/FLAG")


def _board(settings, langs=("zh",)):
    root = fresh_root(blocks=128)[: -len("/games")]
    if langs:
        os.mkdir(root + "/voice")
    for lang in langs:
        with open(root + "/voice/%s.bin" % lang, "wb") as f:
            f.write(VF.pack(lang, _clips()))
    with open(root + "/settings.json", "w") as f:
        f.write(json.dumps(settings))
    return BoardRig(root=root)


def _into_counting(rig, before=45000, minutes=61000):
    # The game started, two moves, then Black's main time passes at once but ``before`` ms,
    # and ``minutes`` ms of the counting run. The board time the counting began.
    rig.key("pause")
    for v, c in (("Q16", "b"), ("D4", "w")):
        rig.run(2000)
        rig.put(v, c)
        rig.press(c)
    clock = rig.app.match.clock
    assert clock.running == BLACK and clock.control.kind == C.CHINESE
    t0 = clock.seg + clock.main[BLACK] - clock.used
    rig.now = t0 - before
    rig.run(before + minutes)
    return t0


def _cue_sounds(rig):
    return [n for n in rig.heard() if n in CUE_SOUNDS]


def _said(rig):
    return [cue for cue, lang in rig.hw.speaker.take()]


def test_the_board_speaks_its_cues_instead_of_beeping_them():
    rig = _board({"voice": "zh"})
    assert rig.app.voice is not None and rig.app.voice.lang == V.ZH
    t0 = _into_counting(rig)
    want = [cues.MARK << 8 | 30, cues.MARK << 8 | 40, cues.MARK << 8 | 50]
    want += [cues.MARK_LATE << 8 | 55, cues.MARK_LATE << 8 | 58, cues.MINUTE_LEFT << 8 | 4]
    assert _said(rig) == want
    assert _cue_sounds(rig) == []  # the piezo is quiet for them
    streams = rig.hw.speaker.streams
    at = [t0 + s * 1000 for s in (30, 40, 50, 55, 58, 60)]
    assert [a for a, _ in streams] == [t + (-t) % 20 for t in at]  # within a pass of each
    for (_, data), cue in zip(streams, want):
        assert len(data) == rig.app.voice.samples(cue)  # whole, at 8 kHz
    lines = []
    rig.board.out = lines.append
    rig.hw.speaker.said = [(cues.COUNT << 8 | 7, V.ZH), (cues.TIMEOUT << 8 | 10, V.ZH)]
    rig.board.report()
    assert [x for x in lines if x.startswith("say ")] == [
        "say zh 1031 7",
        "say zh 1290 10，超时判负",
    ]


def test_the_voice_off_or_its_file_missing_beeps_and_the_boot_log_says_why():
    rig = _board({"voice": "off"}, langs=())
    assert rig.app.voice is None
    _into_counting(rig)
    assert _cue_sounds(rig) == ["MARK"] * 3 + ["MARK_LATE"] * 2 + ["MINUTE_LEFT/PERIOD_LEFT"]
    assert rig.hw.speaker.streams == []
    assert not _exists(rig.root + "/boot.log")  # off: nothing to say
    rig = _board({"voice": "en"}, langs=("zh",))  # no en.bin
    assert rig.app.voice is None and not rig.app.errors  # the board works: it beeps
    log = open(rig.root + "/boot.log").read()
    assert log == "note voice: voice file missing: %s/voice/en.bin: the count is beeped\n" % (
        rig.root
    )
    assert rig.ask("hello")["boot_error"] is None  # a note is no boot error
    rig = BoardRig(root=rig.root)  # the next boot: the same note is not written again
    assert open(rig.root + "/boot.log").read() == log
    _into_counting(rig, minutes=31000)
    assert _cue_sounds(rig) == ["MARK"] and rig.hw.speaker.streams == []


def test_a_torn_file_beeps_too():
    rig = _board({"voice": "zh"}, langs=("zh",))
    path = rig.root + "/voice/zh.bin"
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:-7])
    rig = BoardRig(root=rig.root)
    assert rig.app.voice is None
    assert "torn" in open(rig.root + "/boot.log").read().split("\n")[-2]


def test_the_setting_reopens_the_file_and_the_volume_is_the_voices():
    rig = _board({"voice": "zh"}, langs=("zh", "en"))
    zh = rig.app.voice
    r = rig.ask("settings", set={"volume": 3})
    assert r["ok"] and rig.app.voice is zh  # not opened again for another setting
    assert rig.hw.speaker.volume == 3
    r = rig.ask("settings", set={"voice": "en"})
    assert r["ok"] and rig.app.voice.lang == V.EN and rig.app.voice is not zh
    r = rig.ask("settings", set={"voice": "fr"})
    assert not r["ok"] and "voice: fr is not one of zh, en, off" in json.dumps(r)
    _into_counting(rig, minutes=31000)
    assert _said(rig) == [cues.MARK << 8 | 30] and _cue_sounds(rig) == []
    rig.ask("settings", set={"volume": 0})  # silent: neither the voice nor the beeps
    rig.run(10000)
    assert _said(rig) == [] and _cue_sounds(rig) == []
    assert rig.hw.speaker.volume == 0
    rig.ask("settings", set={"voice": "off", "volume": 2})
    assert rig.app.voice is None
    rig.run(10000)
    assert _said(rig) == [] and _cue_sounds(rig) == ["MARK"]


def test_the_last_minute_ends_in_words_not_a_tone_over_them():
    # cn-local keeps one minute: 1 … 9, then "10，超时判负" at its end; the flag's long tone
    # would sound over the words: the voice says it alone.
    rig = _board({"voice": "zh", "time": "cn-local"})
    _into_counting(rig, minutes=62000)
    said = _said(rig)
    assert said[-1] == cues.TIMEOUT << 8 | 10 and said[3:12] == [
        cues.COUNT << 8 | n for n in range(1, 10)
    ]
    assert rig.app.match.clock.flagged == BLACK
    assert _cue_sounds(rig) == []


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def test_the_menu_sets_the_voice():
    # MODE to the last item (Go: game, rules, ko, komi, handicap, time, volume, voice), the
    # glass reads CN SAY; PLUS: EN; a long MODE keeps it, and the English file is open.
    rig = _board({}, langs=("zh", "en"))
    assert rig.app.voice.lang == V.ZH  # the factory's: Chinese
    rig.key("mode", long=True)
    for _ in range(7):
        rig.key("mode")
    assert rig.seen("b") == "CN  SAY", rig.seen("b")
    rig.key("plus")
    assert rig.seen("b") == "EN  SAY", rig.seen("b")
    rig.key("mode", long=True)
    assert rig.app.settings["voice"] == "en" and rig.app.voice.lang == V.EN
    with open(rig.root + "/settings.json") as f:
        assert json.loads(f.read())["voice"] == "en"
