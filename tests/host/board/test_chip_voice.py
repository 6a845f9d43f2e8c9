"""The voice's driver on the emulated chip: the Tengen image's frozen ``rp2040_voice`` playing a
phrase through PWM and DMA, recorded at the PWM's compare register.

Start reading at ``test_a_phrase_plays_on_the_chip_at_8_khz_allocating_nothing``: a fresh
flash (the image boots to its REPL), the real Mandarin phrases copied to it, then at the REPL
(mpremote) the driver says "一分钟 还剩四分钟" (the longest phrase) twice: with the clock pass's
rhythm (a ``step`` every 20 ms), then with the REPL busy in a loop and the driver's own timer
alone keeping its ring filled; the heap's allocations counted over every pass with the
collector off. The emulator records each write to slice 0's compare register and GP23, the
amplifier's enable (host_tools/board/emulator_speaker.js): the writes must come every 125 µs
(8 kHz, paced by DMA timer 0, the CPU doing nothing per sample), none missing while the
amplifier is on, and what they play must be the phrase (cross-correlation against the
phrase as the firmware's reader decodes it). The app's side (a phrase playing while stones
are put and paddles pressed, the timings unchanged) is tests/host/board/test_chip_journeys.py's.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from firmware.clock import cues
from firmware.ui import voice as V
from host_tools.board import emulator as E
from host_tools.board import voice as B
from tests.voice_match import correlate, phrase_pcm

MPREMOTE = [sys.executable, "-m", "mpremote"]
CUE = cues.MINUTE_LEFT << 8 | 4  # 一分钟 还剩四分钟: five clips, four gaps, ~2.5 s

pytestmark = pytest.mark.xdist_group("chip")

# At the board's REPL: the frozen driver and reader, a phrase said twice: first with a step
# every 20 ms as the app's clock pass gives, then with the REPL busy in a loop of bytecode (the
# app held up answering a PC) and the driver's own timer alone to fill the ring.
# gc.mem_alloc() counts every byte allocated while the collector is off.
SAY = """
import gc, time
from firmware.hal.rp2040_voice import Speaker
from firmware.ui.voice import Voice
sp = Speaker()
sp.set_volume(3)
v = Voice('/zh.bin')
def run(cue, steps):
    sp.play(v, cue, time.ticks_ms())
    passes = 0
    worst = 0
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    while sp.on:
        if steps:
            time.sleep_ms(20)
            t = time.ticks_us()
            sp.step(time.ticks_ms())
            t = time.ticks_diff(time.ticks_us(), t)
            if t > worst:
                worst = t
        passes += 1
    used = gc.mem_alloc() - before
    gc.enable()
    return passes, used, worst
t = time.ticks_us()
sp.play(v, %d, 0)
t = time.ticks_diff(time.ticks_us(), t)
sp.stop()
print('PLAY', t)
for steps in (1, 0):
    p, used, worst = run(%d, steps)
    print('VOICE', p, used, sp.late, sp.written, worst)
"""


def _mpremote(chip, *args, timeout=600):
    done = subprocess.run(
        MPREMOTE + ["connect", chip.port, *args], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr, chip.log()[-2000:])
    return done.stdout


@pytest.fixture(scope="module")
def zh(tmp_path_factory):
    out = tmp_path_factory.mktemp("voice")
    try:
        B.build(out, langs=("zh",), log=lambda line: None)
    except B.VoiceBuildError as e:
        pytest.skip("the phrases cannot be made here: %s" % e)
    return out / "zh.bin"


@pytest.mark.slow(60)
def test_a_phrase_plays_on_the_chip_at_8_khz_allocating_nothing(chip_images, emu, tmp_path, zh):
    uf2 = chip_images["tengen"] / "firmware.uf2"
    chip = E.Chip(uf2, tmp_path / "emu", emu=emu, speaker=True)
    with chip:
        _mpremote(chip, "fs", "cp", str(zh), ":zh.bin")
        out = _mpremote(chip, "exec", SAY % (CUE, CUE))
        runs = [list(map(int, x.split()[1:])) for x in out.splitlines() if x.startswith("VOICE ")]
        play_us = next(int(x.split()[1]) for x in out.splitlines() if x.startswith("PLAY "))
        sp = chip.speaker()
    assert chip.hardfaults() == 0, chip.log()[-2000:]
    # The chip's own figures (its ticks_us: counted cycles), information, not thresholds:
    # play() decodes two blocks before the channel starts; a pass decodes one at most.
    print(
        "\nchip voice: play() %d us; [passes, bytes allocated, late, samples, worst pass us] "
        "%s; %s" % (play_us, runs, sp.summary())
    )
    assert len(runs) == 2, out
    spans_before = 1  # the play() timed above: a phrase cut at once, the amplifier on then off
    for passes, used, late, _written, _worst in runs:
        assert used == 0, "bytes allocated over %d passes: %d" % (passes, used)
        assert late == 0 and passes > 100

    v = V.Voice(str(zh))
    ref = phrase_pcm(v, CUE)
    v.close()
    # The amplifier on around each phrase, off between (the first, timed, cut at once).
    assert len(sp.spans) == spans_before + 2, sp.spans
    assert sp.underruns == 0, sp.summary()
    assert abs(sp.spacing_us() - 125.0) < 0.2, sp.summary()  # 8 kHz, paced by the DMA timer
    for on, off in sp.spans[spans_before:]:
        start, track = sp.timeline(on, off)
        lag, c = correlate(track, ref, 0, 8 * 200)  # within 200 ms of the amplifier waking
        assert c > 0.99, (on, lag, c)
        assert (off - on) * 8 >= len(ref)  # on until the phrase's end, then shut


# The emulator's own model, apart from the firmware: at the REPL, a ramp put to slice 0's CC by
# one DMA channel paced by timer 0 (the voice's recipe by hand, GP23 high around it), then 16
# samples paced by the PWM's wrap. What the recording says must be what was written, when.
RAMP = 1600
RAMP_SCRIPT = """
import machine, rp2, time
from array import array
from machine import Pin, PWM, mem32
buf = array('H', ((i * 1024 // %d) for i in range(%d)))
pwm = PWM(Pin(1), freq=122_070, duty_u16=32768)
en = Pin(23, Pin.OUT, value=0)
d = rp2.DMA()
mem32[0x50000420] = 1 << 16 | machine.freq() // 8000
en.value(1)
ctrl = d.pack_ctrl(size=1, inc_read=True, inc_write=False, treq_sel=0x3B)
d.config(read=buf, write=0x4005000C, count=len(buf), ctrl=ctrl, trigger=True)
while d.active():
    time.sleep_ms(5)
en.value(0)
wrap = array('H', range(2000, 2016))
ctrl = d.pack_ctrl(size=1, inc_read=True, inc_write=False, treq_sel=24)
d.config(read=wrap, write=0x4005000C, count=16, ctrl=ctrl, trigger=True)
while d.active():
    time.sleep_ms(1)
pwm.deinit()
d.close()
print('RAMP done')
""" % (RAMP, RAMP)


@pytest.mark.slow(15)
def test_the_emulators_record_is_what_dma_wrote_and_when(chip_images, emu, tmp_path):
    chip = E.Chip(chip_images["tengen"] / "firmware.uf2", tmp_path / "emu", emu=emu, speaker=True)
    with chip:
        assert "RAMP done" in _mpremote(chip, "exec", RAMP_SCRIPT)
    sp = chip.speaker()  # all of it: the runner writes what is left when it stops
    ramp = [i * 1024 // RAMP for i in range(RAMP)]
    [(on, off)] = sp.spans
    assert [v for _t, v in sp.writes] == ramp  # every sample, in order, while GP23 was high
    assert sp.underruns == 0 and abs(sp.spacing_us() - 125.0) < 0.125, sp.summary()
    assert (off - on) * 8 >= RAMP
    start, track = sp.timeline()
    assert bytes(track) == bytes(sp.level(v) for v in ramp)  # on the 8 kHz grid, held
    # Paced by the PWM's wrap: one a carrier period apart (TOP + 1 = 1,024 cycles: 8.192 µs).
    wrap = [t for t, v, kind in sp.records if kind == 0 and 2000 <= v < 2016]
    assert len(wrap) == 16 and abs((wrap[-1] - wrap[0]) / 15 - 8.192) < 0.01, wrap


# The power pulled while a phrase plays: the amplifier is off from reset (GP23's pull-down,
# then the driver's own first write), nothing of the phrase is left running, the voice file
# still reads, and the next phrase plays.
SAY_AND_LEAVE = """
from firmware.hal.rp2040_voice import Speaker
from firmware.ui.voice import Voice
import time
sp = Speaker()
v = Voice('/zh.bin')
sp.play(v, %d, 0)
time.sleep_ms(300)
print('PLAYING', sp.on)
"""
AFTER = """
from firmware.hal.rp2040_voice import Speaker
from firmware.ui.voice import Voice
sp = Speaker()
print('SILENT', sp.on)
v = Voice('/zh.bin')
sp.play(v, %d, 0)
while sp.on:
    pass
print('SAID', sp.late)
"""


@pytest.mark.slow(25)
def test_the_power_pulled_mid_phrase_leaves_the_amplifier_off(chip_images, emu, tmp_path, zh):
    chip = E.Chip(chip_images["tengen"] / "firmware.uf2", tmp_path / "emu", emu=emu, speaker=True)
    with chip:
        _mpremote(chip, "fs", "cp", str(zh), ":zh.bin")
        assert "PLAYING True" in _mpremote(chip, "exec", SAY_AND_LEAVE % CUE)
        chip.cut()  # mid-phrase: the amplifier on, the channel running
        [(_on, off)] = chip.speaker().spans
        assert off is None  # it was still speaking when the power went
        chip.start()  # a new run: a new recording
        assert chip.speaker().spans == []  # silent from power-up
        out = _mpremote(chip, "exec", AFTER % (cues.COUNT << 8 | 3))
        assert "SILENT False" in out and "SAID 0" in out, out
    [(on, off)] = chip.speaker().spans
    assert off is not None and chip.hardfaults() == 0
