"""Finding the clock's phrases in what a speaker played: for the voice tests on CPython.

Start reading at ``correlate``: where a phrase's recording (``phrase_pcm``, read by the
firmware's own reader: ``host_tools/board/voice.py``) best matches a track of unsigned 8-bit
samples (the virtual speaker's, ``write_speaker_wav``), by normalised cross-correlation.
tests/host/board/test_voice_build.py (the speaker fed by the test) and
tests/host/board/test_voice_board.py (fed by the board's own app) use it.
"""

from host_tools.board.voice import phrase_pcm  # noqa: F401 (the tests take it from here)


def correlate(track, ref, around, reach):
    """The lag (samples, from ``around``) where ``ref`` best matches ``track`` within
    ``reach`` either side, and its normalised cross-correlation there: ``(lag, c)``, lag
    None if ``ref`` fits nowhere."""
    r = [x - 128 for x in ref]
    rr = sum(x * x for x in r)
    x = [s - 128 for s in track]
    best = (None, -2.0)
    for lag in range(-reach, reach + 1):
        a = around + lag
        if a < 0 or a + len(r) > len(x):
            continue
        seg = x[a : a + len(r)]
        ss = sum(s * s for s in seg)
        c = sum(map(int.__mul__, r, seg)) / ((rr * ss) ** 0.5 or 1)
        if c > best[1]:
            best = (lag, c)
    return best
