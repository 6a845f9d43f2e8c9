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
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    while sp.on:
        if steps:
            time.sleep_ms(20)
            sp.step(time.ticks_ms())
        passes += 1
    used = gc.mem_alloc() - before
    gc.enable()
    return passes, used
for steps in (1, 0):
    p, used = run(%d, steps)
    print('VOICE', p, used, sp.late, sp.written)
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
        out = _mpremote(chip, "exec", SAY % CUE)
        runs = [list(map(int, x.split()[1:])) for x in out.splitlines() if x.startswith("VOICE ")]
        sp = chip.speaker()
    assert chip.hardfaults() == 0, chip.log()[-2000:]
    print("\nchip voice: [passes, bytes allocated, late, samples] %s; %s" % (runs, sp.summary()))
    assert len(runs) == 2, out
    for passes, used, late, _written in runs:
        assert used == 0, "bytes allocated over %d passes: %d" % (passes, used)
        assert late == 0 and passes > 100

    v = V.Voice(str(zh))
    ref = phrase_pcm(v, CUE)
    v.close()
    assert len(sp.spans) == 2, sp.spans  # the amplifier on around each phrase, off between
    assert sp.underruns == 0, sp.summary()
    assert abs(sp.spacing_us() - 125.0) < 0.2, sp.summary()  # 8 kHz, paced by the DMA timer
    for on, off in sp.spans:
        start, track = sp.timeline(on, off)
        lag, c = correlate(track, ref, 0, 8 * 200)  # within 200 ms of the amplifier waking
        assert c > 0.99, (on, lag, c)
        assert (off - on) * 8 >= len(ref)  # on until the phrase's end, then shut
