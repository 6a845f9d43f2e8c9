"""Speed and memory of the clock's voice (``firmware/ui/voice.py``) on the MicroPython unix port.

    micropython -m bench.bench_voice [--blocks N] [--passes N]

Run from the repository root (``make bench`` runs it so). What it measures:

1. the calibration loop of DESIGN.md §3 (``bench_go``'s), so every RP2040 figure is an
   estimate: unix time x 48.8 ms / calibration time, x ``measured.SENSING`` (the chip /
   estimate ratio measured for a viper loop of the same kind);
2. one block decoded (256 ADPCM bytes, 512 samples: 64 ms of speech at 8 kHz): the board's
   viper ``decode`` against its plain-Python twin (``host_tools/board/voicefile.py``'s
   ``decode``, the same loop as bytecode), the fastest of the passes; ``Voice.read`` (a file
   block read and decoded) over a phrase; the share of a core real-time playback takes;
3. bytes through the allocator per block read (``micropython.mem_total()``).

Information only: the exit status is 0 whatever the figures.
"""

import os
import sys
from array import array

from bench import measured
from bench.bench_go import (
    CALIB_RP2040_MS,
    IS_MICROPYTHON,
    read_options,
    report_calibration,
    section,
    start,
    ticks_diff,
    ticks_us,
)
from firmware.clock import cues
from firmware.ui import voice as V
from host_tools.board import voicefile as VF

# isort: split
import micropython  # noqa: E402  (built in, or firmware/_mpshim.py on CPython)

USAGE = """usage: bench_voice.py [--blocks N] [--passes N]
  --blocks N   blocks decoded per timing (default 20)
  --passes N   timings; the fastest counts (default 5)"""

BLOCK_MS = 2 * V.BLOCK * 1000 // V.RATE  # the speech one block holds


def _best(fn, blocks, passes):
    best = None
    for _ in range(passes):
        t0 = ticks_us()
        for _ in range(blocks):
            fn()
        dt = ticks_diff(ticks_us(), t0) / blocks
        best = dt if best is None or dt < best else best
    return best


def main():
    opts = read_options(sys.argv, USAGE, {"blocks": 20, "passes": 5})
    cal, first, overhead = start("voice", "a few seconds")
    x = 1
    sig = []
    for i in range(4 * V.BLOCK):  # a made-up clip: a saw under noise
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        sig.append(((i * 37) % 2000 - 1000) * 12 + (x >> 20) - 1024)
    src = VF.encode(sig)[0][: V.BLOCK]
    pcm = array("H", bytes(4 * V.BLOCK))
    st = array("i", (32768, 0, 8))

    def viper():
        st[0], st[1] = 32768, 0
        V.decode(src, V.BLOCK, pcm, st)

    def plain():
        st[0], st[1] = 32768, 0
        VF.decode(src, V.BLOCK, pcm, st)

    b, p = opts["blocks"], opts["passes"]
    t_viper = _best(viper, b, p)
    t_plain = _best(plain, b, p)
    path = "%s/tengen-bench-voice-%d.bin" % (os.getenv("TMPDIR") or "/tmp", id(pcm))
    with open(path, "wb") as f:
        f.write(VF.pack("zh", [sig] * V.CLIPS))
    v = V.Voice(path)
    cue = cues.MINUTE_LEFT << 8 | 2  # three clips, two gaps

    def phrase():
        v.say(cue)
        n = 0
        while v.read(pcm):
            n += 1
        return n

    per = phrase()
    t_read = _best(phrase, 1, p) / per
    used = None
    if hasattr(micropython, "mem_total"):
        before = micropython.mem_total()
        phrase()
        used = (micropython.mem_total() - before) / per
    v.close()
    os.remove(path)
    cal.sample(3)

    report_calibration(cal, overhead, first, unit="block")
    scale = cal.scale() * measured.SENSING
    section(
        "2. One block: %d ADPCM bytes, %d samples, %d ms of speech"
        % (V.BLOCK, 2 * V.BLOCK, BLOCK_MS)
    )
    row = "  %-34s %10s %14s %14s"
    print(row % ("", "unix", "RP2040 est.", "of a core"))
    for name, us in (
        ("decode, viper (the board's)", t_viper),
        ("decode, plain Python (bytecode)", t_plain),
        ("Voice.read (file + viper decode)", t_read),
    ):
        ms = us * scale
        print(row % (name, "%.1f µs" % us, "%.2f ms" % ms, "%.1f %%" % (100 * ms / BLOCK_MS)))
    print("  viper against bytecode: x%.1f faster" % (t_plain / t_viper))
    print(
        "  (RP2040 estimate: unix x %.1f ms / calibration, x%.2f measured for viper loops)"
        % (CALIB_RP2040_MS, measured.SENSING)
    )
    section("3. Memory")
    if used is None:
        print("  bytes per block: needs micropython.mem_total() (MicroPython with statistics)")
    else:
        print("  bytes through the allocator per block read: %d" % used)
    if not IS_MICROPYTHON:
        print("(CPython: the decoders are both plain Python here)")


if __name__ == "__main__":
    main()
