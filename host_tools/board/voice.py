"""``make voice``: the clock's phrases spoken by espeak-ng and packed into the board's voice files.

    python -m host_tools.board.voice [--out build/voice] [--wav]

Start reading at ``build``: for each language (``zh``: Mandarin, espeak-ng's cmn-latn-pinyin
voice; ``en``: English) each clip of ``host_tools/board/voicefile.py``'s ``WORDS`` is spoken
once (``speak``), its silence trimmed (``trim``), resampled from espeak-ng's 22,050 Hz to
8 kHz (``resample``, a windowed-sinc low-pass below 3.6 kHz), faded in and out over 5 ms
(``fade``: no click where it was cut), its peak normalised to -1 dBFS,
then the clips packed into OUT/zh.bin and OUT/en.bin (the format: ``firmware/ui/voice.py``).
It prints the bytes of each. ``--wav`` also writes each clip as OUT/wav/LANG/NN.wav to listen to.
Those files go to the board's /voice/ folder.
"""

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

from firmware.ui import voice as V
from host_tools.board import voicefile as VF

# espeak-ng's voice and speed (words a minute; its default 175) for each language. Mandarin
# from pinyin: see voicefile.WORDS. English at 200: "fifty seconds" at 50 s must end before
# "one" at 51 s (tests/host/board/test_voice_build.py checks every phrase against the next
# cue); at 175 it takes 1.1 s.
VOICES = {"zh": ("cmn-latn-pinyin", 170), "en": ("en", 200)}
PEAK = 0.89  # -1 dBFS: the clips' loudness alike, with room for the ADPCM's overshoot
_PAD_MS = 10  # kept before and after the sound when the silence is trimmed
LANGS = tuple(VOICES)
OUT = Path(__file__).resolve().parents[2] / "build" / "voice"  # make voice's folder


class VoiceBuildError(RuntimeError):
    """The phrases cannot be made here (espeak-ng missing or failing)."""


def espeak():
    """The espeak-ng program's path; ``VoiceBuildError`` saying how to get it if it is missing."""
    path = shutil.which("espeak-ng")
    if not path:
        raise VoiceBuildError(
            "espeak-ng is not installed: apt-get install espeak-ng (make's venv step does it as root)"
        )
    return path


def speak(text, voice, speed=175):
    """``text`` spoken by espeak-ng's ``voice``: ``(samples, rate)``, signed 16-bit mono."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "clip.wav"
        cmd = [espeak(), "-v", voice, "-s", str(speed), "-w", str(out), text]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode or not out.exists():
            raise VoiceBuildError("espeak-ng failed on %r: %s" % (text, r.stderr.strip()))
        with wave.open(str(out)) as w:
            if w.getsampwidth() != 2 or w.getnchannels() != 1:
                raise VoiceBuildError("espeak-ng wrote an unexpected WAV for %r" % text)
            rate = w.getframerate()
            raw = w.readframes(w.getnframes())
    samples = list(memoryview(raw).cast("h"))
    return samples, rate


def trim(samples, rate, pad_ms=_PAD_MS):
    """``samples`` without the silence before and after the sound, ``pad_ms`` kept each side.
    Silence: below 3 % of the clip's peak."""
    if not samples:
        return []
    peak = max(abs(s) for s in samples)
    floor = max(peak * 0.03, 64)
    loud = [i for i, s in enumerate(samples) if abs(s) > floor]
    if not loud:
        return []
    pad = rate * pad_ms // 1000
    return samples[max(0, loud[0] - pad) : loud[-1] + pad + 1]


def resample(samples, src, dst=V.RATE, cutoff=3600, half=24):
    """``samples`` at ``src`` Hz to ``dst`` Hz through a Hann-windowed sinc low-pass at
    ``cutoff`` Hz (``half`` input samples each side). The positions repeat every ``dst /
    gcd`` outputs, so one kernel per phase is made once."""
    g = math.gcd(src, dst)
    up, down = dst // g, src // g  # output n sits at input n * down / up
    fc = cutoff / src  # cycles per input sample
    kernels = []
    for p in range(up):
        frac = (p * down % up) / up
        k = []
        for j in range(-half + 1, half + 1):
            u = j - frac  # distance of input (base + j) from the output's position
            w = 0.5 * (1 + math.cos(math.pi * u / half)) if abs(u) < half else 0.0
            k.append(
                2
                * fc
                * (math.sin(2 * math.pi * fc * u) / (2 * math.pi * fc * u) if u else 1.0)
                * w
            )
        kernels.append(k)
    padded = [0] * half + list(samples) + [0] * (half + 1)
    n_out = len(samples) * up // down
    out = []
    for n in range(n_out):
        base = n * down // up
        k = kernels[n % up]
        seg = padded[base + 1 : base + 1 + 2 * half]
        out.append(sum(map(float.__mul__, k, map(float, seg))))
    return out


def fade(samples, rate=V.RATE, ms=5):
    """``samples`` faded in and out over ``ms`` at each end, so a clip cut out of its silence
    starts and stops without a click."""
    n = min(len(samples) // 2, rate * ms // 1000)
    out = list(samples)
    for i in range(n):
        g = i / n
        out[i] = out[i] * g
        out[-1 - i] = out[-1 - i] * g
    return out


def normalise(samples, peak=PEAK):
    """Scaled so the loudest sample is ``peak`` of full scale: signed 16-bit ints."""
    top = max((abs(s) for s in samples), default=0)
    if not top:
        return [0] * len(samples)
    g = peak * 32767 / top
    return [max(-32768, min(32767, round(s * g))) for s in samples]


def clip(text, voice, speed=175):
    """One clip: ``text`` spoken, trimmed, at 8 kHz, normalised (signed 16-bit ints)."""
    samples, rate = speak(text, voice, speed)
    return normalise(fade(resample(trim(samples, rate), rate)))


def build(out_dir, langs=("zh", "en"), wav=False, log=print):
    """Make OUT/LANG.bin for each language; ``{lang: bytes of its file}``. ``wav``: also each
    clip as OUT/wav/LANG/NN.wav."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for lang in langs:
        made = {}  # the same words once
        clips = []
        for text, _ in VF.WORDS[lang]:
            if text not in made:
                made[text] = clip(text, *VOICES[lang])
            clips.append(made[text])
        data = VF.pack(lang, clips)
        (out_dir / (lang + ".bin")).write_bytes(data)
        sizes[lang] = len(data)
        seconds = sum(len(c) for c in made.values()) / V.RATE
        log(
            "voice %s: %d bytes (%d clips, %.1f s of speech, IMA ADPCM at %d Hz) -> %s"
            % (lang, len(data), len(made), seconds, V.RATE, out_dir / (lang + ".bin"))
        )
        if wav:
            folder = out_dir / "wav" / lang
            folder.mkdir(parents=True, exist_ok=True)
            for i, c in enumerate(clips):
                write_wav(folder / ("%02d.wav" % i), c)
    log("voice: %d bytes in all, for the board's /voice/" % sum(sizes.values()))
    return sizes


def install(dest, source=None, make=None):
    """``make voice``'s files into DEST/voice/, as a board keeps them in its /voice/:
    ``(languages copied, note)``. From ``source`` (default build/voice/); a file missing or
    not usable there (torn, of another format) is made first by ``make`` (default ``build``,
    espeak-ng; ``False``: none is made, the usable ones are copied). If they cannot be made:
    ``([], why)``, and the board beeps the count. A file already in DEST and the same is left.
    ``tengen deploy`` (host_tools/board/deploy.py) and the virtual board (sim.py) use it."""
    src = Path(source) if source is not None else OUT

    def usable(path):
        try:
            V.Voice(str(path)).close()
            return True
        except V.VoiceError:
            return False

    unusable = tuple(lang for lang in LANGS if not usable(src / (lang + ".bin")))
    if unusable and make is not False:
        try:
            (make or build)(src, langs=unusable, log=lambda line: None)
        except (VoiceBuildError, OSError) as e:
            return [], "no voice files (%s): the board will beep the count, not speak it" % e
        unusable = ()
    done = []
    for lang in LANGS:
        if lang in unusable:
            continue
        f, dst = src / (lang + ".bin"), Path(dest) / "voice" / (lang + ".bin")
        if not (dst.is_file() and dst.read_bytes() == f.read_bytes()):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
        done.append(lang)
    return done, ""


def write_wav(path, samples, rate=V.RATE):
    """Signed 16-bit mono ``samples`` as a WAV file at ``path``."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(int(s).to_bytes(2, "little", signed=True) for s in samples))


def phrase_pcm(v, cue):
    """``cue``'s phrase as the voice ``v`` (an open ``firmware.ui.voice.Voice``, shift 8: the
    board's own reader) reads it: unsigned 8-bit samples (a bytearray), what a speaker plays."""
    from array import array

    pcm = array("H", bytes(2 * v.PCM_SAMPLES))
    out = bytearray()
    v.say(cue)
    while k := v.read(pcm):
        out.extend(pcm[:k].tolist())  # the values (extending by the array would take its bytes)
    return out


def write_speaker_wav(speaker, path, start=None, end=None):
    """What the virtual board's speaker (``firmware/hal/virtual.py``'s ``Speaker``) played,
    from board time ``start`` to ``end`` (ms; default: its first and last sound), as an 8-bit
    WAV at its rate (WAV's 8-bit samples are unsigned, as the speaker's). Returns the start."""
    at, track = speaker.timeline(start, end)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(speaker.rate)
        w.writeframes(bytes(track))
    return at


def main(argv=None):
    """``make voice``'s entry: exit 0 with the files written, 1 if they cannot be made here."""
    ap = argparse.ArgumentParser(prog="python -m host_tools.board.voice", description=__doc__)
    ap.add_argument("--out", default="build/voice", help="the folder for zh.bin and en.bin")
    ap.add_argument("--wav", action="store_true", help="also each clip as a WAV to listen to")
    args = ap.parse_args(argv)
    try:
        build(args.out, wav=args.wav)
    except VoiceBuildError as e:
        print("voice: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
