"""The virtual board's voice on the PC's sound: ``make sim`` / ``tengen sim`` play each phrase.

Start reading at ``PcSound.say``: the board's ``say LANG CUE WORDS`` line
(firmware/virtual/board.py: its speaker began a phrase of the count), the cue's phrase read
in that language from the voice file the board's flash holds with the firmware's own reader
(firmware/ui/voice.py), written as a WAV and handed to the PC's player: the command in
``TENGEN_SOUND`` (``off``: none), else the first of PipeWire's ``pw-play``, PulseAudio's
``paplay`` and ALSA's ``aplay`` on the PATH. Where there is none (or the phrase's file is
missing), the view shows the words alone; a player that fails is dropped and the view goes
on. A phrase plays over the one before, as the board's own speaker cuts it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

PLAYERS = ("pw-play", "paplay", "aplay")
ENV = "TENGEN_SOUND"


def player() -> list[str] | None:
    """The PC's sound player as a command (a WAV file's path follows), or None."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        return None if chosen == "off" else shlex.split(chosen)
    for name in PLAYERS:
        path = shutil.which(name)
        if path:
            return [path, "-q"] if name == "aplay" else [path]
    return None


class PcSound:
    """Plays the phrases the virtual board says, from the voice files in ``voice_dir`` (its
    flash's voice/), with ``command`` (default ``player()``); ``say`` returns the WAV played,
    or None."""

    def __init__(self, voice_dir: str | os.PathLike, command: list[str] | None = None):
        self.voice_dir = Path(voice_dir)
        self.command = player() if command is None else command
        self.folder = tempfile.mkdtemp(prefix="tengen-sound-") if self.command else None
        self.playing: subprocess.Popen | None = None
        self.count = 0

    def say(self, lang: str, cue: int) -> Path | None:
        """Play ``cue``'s phrase in ``lang`` ("zh", "en"), as the board said it (cutting one
        still playing); None when there is no player, no such file or no such phrase."""
        if not self.command or lang not in ("zh", "en"):
            return None
        from firmware.ui import voice as V
        from host_tools.board.voice import phrase_pcm

        try:
            v = V.Voice(str(self.voice_dir / ("%s.bin" % lang)))
        except V.VoiceError:
            return None
        try:
            samples = phrase_pcm(v, cue)
        finally:
            v.close()
        if not samples:  # a cue without a phrase (the board beeps it)
            return None
        self.count += 1
        path = Path(self.folder) / ("phrase-%d.wav" % self.count)
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(1)  # unsigned 8-bit, as the voice reads it at shift 8
            w.setframerate(V.RATE)
            w.writeframes(bytes(samples))
        self.stop()
        try:
            self.playing = subprocess.Popen(
                [*self.command, str(path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            self.command = None  # no such player after all: the words alone from now on
            return None
        return path

    def stop(self):
        """Stop the phrase playing, if any."""
        p = self.playing
        self.playing = None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(2)
            except subprocess.TimeoutExpired:
                p.kill()

    def close(self):
        """Stop playing and remove the WAVs written."""
        self.stop()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
