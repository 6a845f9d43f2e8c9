"""What the emulated chip's voice played: the records of ``emulator_speaker.js``, as a speaker.

Start reading at ``Recording``: the writes to PWM slice 0's compare register (a sample each,
the voice's DMA channel writing them, firmware/hal/rp2040_voice.py), GP23's level (the
amplifier's enable) and the slice's TOP, with the chip's time; ``spans`` are the phrases (the
amplifier on), ``timeline`` lays the samples on an 8 kHz track as the virtual board's speaker
does (firmware/hal/virtual.py ``Speaker.timeline``: unsigned 8-bit, 128 silence), so
``host_tools/board/voice.py``'s ``write_speaker_wav`` and the tests' cross-correlation take
either. ``underruns`` counts gaps of more than two sample periods between writes while the
amplifier is on, ``spacing_us`` the mean period between them: 125 µs at 8 kHz.
"""

from __future__ import annotations

import struct
from pathlib import Path

RATE = 8000
_RECORD = struct.Struct("<dHH")  # µs (chip time), value, kind
CC, EN, TOP, SLICE = 0, 1, 2, 3
SILENCE = 128
_PERIOD_US = 1e6 / RATE


class Recording:
    """The records in ``path`` (``Chip.speaker()`` reads its run's)."""

    rate = RATE

    def __init__(self, path: str | Path):
        data = Path(path).read_bytes()
        data = data[: len(data) - len(data) % _RECORD.size]  # a batch being appended
        self.records = [r for r in _RECORD.iter_unpack(data)]
        self.top = 0xFFFF
        self.writes = []  # (µs, level 0 … top) while the amplifier is on
        self.spans = []  # (on ms, off ms): the amplifier on (off: None while still on)
        on = None
        for us, value, kind in self.records:
            if kind == TOP:
                self.top = value
            elif kind == EN:
                if value and on is None:
                    on = us
                elif not value and on is not None:
                    self.spans.append((on / 1000, us / 1000))
                    on = None
            elif kind == CC and on is not None:
                self.writes.append((us, value))
        if on is not None:
            self.spans.append((on / 1000, None))
        self.underruns = 0
        self._gaps = []  # per span: (first write µs, last write µs, writes)
        for a, b in self.spans:
            ws = [w for w in self.writes if a * 1000 <= w[0] and (b is None or w[0] <= b * 1000)]
            if ws:
                self._gaps.append((ws[0][0], ws[-1][0], len(ws)))
                self.underruns += sum(
                    1 for p, q in zip(ws, ws[1:], strict=False) if q[0] - p[0] > 2 * _PERIOD_US
                )

    def level(self, value: int) -> int:
        """A compare level as an unsigned 8-bit sample (TOP + 1 is full scale)."""
        return min(255, value * 256 // (self.top + 1))

    def spacing_us(self) -> float:
        """The mean time between two writes within a phrase (0: none)."""
        n = sum(k - 1 for _a, _b, k in self._gaps)
        return sum(b - a for a, b, _k in self._gaps) / n if n else 0.0

    def timeline(self, start=None, end=None):
        """``(start ms, samples)``: what was played from ``start`` (default: the first
        write) to ``end`` (default: the last), 8 kHz unsigned 8-bit, each level held until
        the next write (the PWM holds it), silence where the amplifier is off."""
        if not self.writes:
            return (start or 0), bytearray()
        if start is None:
            start = self.writes[0][0] / 1000
        if end is None:
            end = self.writes[-1][0] / 1000 + 1000 / RATE
        n = max(0, int(round((end - start) * RATE / 1000)))
        track = bytearray([SILENCE]) * n
        spans = [(a * 1000, (b * 1000 if b is not None else float("inf"))) for a, b in self.spans]
        i = 0
        held = None
        for k in range(n):
            t = start * 1000 + k * _PERIOD_US
            while i < len(self.writes) and self.writes[i][0] <= t + _PERIOD_US / 2:
                held = self.writes[i][1]
                i += 1
            if held is not None and any(a <= t <= b for a, b in spans):
                track[k] = self.level(held)
        return start, track

    def summary(self) -> str:
        """One line: phrases, writes, the mean period, underruns."""
        return "%d phrase%s, %d writes, %.3f us apart, %d underruns, TOP %d" % (
            len(self.spans),
            "" if len(self.spans) == 1 else "s",
            len(self.writes),
            self.spacing_us(),
            self.underruns,
            self.top,
        )
