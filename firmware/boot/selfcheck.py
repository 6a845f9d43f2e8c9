"""Known-answer self-checks of the viper and native kernels, run once at boot.

Start reading at ``verify``. ``firmware/boot/board.py`` calls it before it builds the app: each
check below runs its kernels on fixed inputs and compares what they give, number by number,
with the answer kept in ``KNOWN``. A mismatch raises ``Failed``, naming the check (a tag of
three letters at most, as the faces can show it: ``FAULT SEN``) and the kernels; the boot log
(``firmware/boot/bootlog.py``) writes it down and shows it, and the app does not start.

Why: on-chip.md found that a frozen image can give viper functions the wrong alignment, and
then their literal loads read the wrong word and they answer wrongly without a fault
(``Sensing.frames`` counted 1, 0, 1, 0 from a mask loaded as 0xFFFFE001). A board that plays
on with a broken kernel corrupts games in silence; stopping with a name on the faces does
not. A misaligned *native* function HardFaults on its first call instead: nothing can report
that, but here it happens at boot, at a known place, not in the middle of a game.

The checks (``CHECKS``: tag, what it runs):

    GO   rules/go_board.py Board.play (_toggle, _take, bitboard.flood) and unplay through
         rules/go.py Game.play, _commit, _count_taken, undo: a 5x5 game of 25 moves with a
         ko, a ko refused, a suicide, an occupied and an off-board point, a pass, a capture
         of one stone and of three; the rows, both hash keys, the ko word, the removal log
         and the captures, then three moves undone
    REN  rules/gomoku_board.py forbidden (_judge, _foul on the bit lines: _layer, _edges,
         _mark) on a double three, a double four, an overline, a four-
         three, a single three, an exact five and an empty corner; lines (_lines), has_five
         (_has_run) and the rows after the looks
    SEN  sensing/grid.py Sensing.update (_update, _scan, _first_bad) on 3x3 frames: settling,
         a black and a white stone, the band, an overload, a rail, drift steps, a frame out
         of range and one of the wrong length; each answer, ``frames`` and ``rejected``
         after each frame, then the states and the drifted baselines
    REF  referee/referee.py _expand and _differing
    TIC  clock/ticks.py add and diff across the 2**30 wrap; clock/clock.py Clock (_limit,
         _spend, _commit, _run, _flag, press, tick, face, format_time, _put) and
         clock/cues.py counting_next under Chinese, Japanese, Canadian, penalty, stages
         and Fischer controls, started 2 s before the wrap
    CRC  store/records.py frame (binascii's crc32, chained) and scan: a journal's CRCs
    HAL  hal/rp2040.py reassemble, when that module is loaded (on the board)

Each check answers a flat tuple of ints. ``tests/test_selfcheck.py`` computes them again, on
CPython through the plain-Python paths (``firmware/_mpshim.py`` makes viper and native plain
functions) and on the unix port through the real kernels, and requires both to equal
``KNOWN``: the constants here cannot drift from the code. To refresh them after a deliberate
change of a kernel: ``python3 -m firmware.boot.selfcheck`` prints ``KNOWN`` anew.

Cost (bench/bench_selfcheck.py, the unix port, fastest of 20 runs): all checks take 1.0-1.8 ms
with the calibration loop at 450-650 µs, so the same estimate each time: unix time × 48.8 ms /
calibration ≈ 110-130 ms at boot on the RP2040. On the emulated chip (bench/chip.py) they take
85 ms once the kernels' modules are loaded, and 333 ms the first time after power-up, as the
boot runs them: that run imports the modules. TIC is half of it, and most of the time is the small
objects being made (bytecode), not the kernels.
They run in 4.3 KB of free heap (measured on the 64-bit unix port, so less on the RP2040),
and what they make is garbage afterwards: ``board.build`` collects it before it makes the
app's own objects.
"""

from micropython import const

_B = const(1)
_W = const(2)


class Failed(Exception):
    """A kernel gave another answer than its known one: ``tag`` (``GO``, ``SEN`` ...) and
    ``str()`` the message for the boot log (``CHECK <tag> <what>: ...``)."""

    def __init__(self, tag, message):
        super().__init__(message)
        self.tag = tag


# ---- GO: the Go board and the game's history ---------------------------------------------

# (colour, x, y) on 5x5; x None passes. The comments are what each move meets.
_GO_MOVES = (
    (_B, 1, 2),
    (_W, 2, 2),
    (_B, 0, 1),
    (_W, 3, 1),
    (_B, 1, 0),
    (_W, 2, 0),
    (_W, 1, 1),
    (_B, 2, 1),  # takes (1, 1): a ko
    (_W, 1, 1),  # refused: ko
    (_W, 0, 0),  # refused: suicide
    (_B, 1, 2),  # refused: occupied
    (_W, 5, 0),  # refused: off the board
    (_W, None, None),  # a pass lifts the ko
    (_B, 3, 0),  # takes (2, 0)
    (_W, 3, 2),
    (_B, 4, 0),
    (_W, 4, 4),
    (_B, 4, 1),
    (_W, 0, 4),
    (_B, 4, 2),
    (_W, 1, 4),
    (_B, 3, 3),
    (_W, 0, 3),
    (_B, 2, 3),  # takes three: (2, 2), (3, 2), (3, 1)
    (_W, 0, 2),
)


def _go_state(g, out):
    b = g.board
    for w in b.rows:
        out.append(w)
    h1, h2 = b.hash()
    out.append(h1)
    out.append(h2)
    out.append(b.ko)
    out.append(b.stones)
    out.append(b.nlog)
    out.append(g.captures[1])
    out.append(g.captures[2])
    out.append(g.ply)
    out.append(g.to_move)
    out.append(g.repeat)


def go():
    """GO: Board.play and unplay through Game.play and undo (see the header)."""
    from firmware.rules.go import Game

    g = Game(5, capacity=32)
    out = []
    for c, x, y in _GO_MOVES:
        out.append(g.play(c, x, y))
    _go_state(g, out)
    log = g.board.log
    for i in range(g.board.nlog):
        out.append(log[i])
    for _ in range(3):
        out.append(1 if g.undo() else 0)
    _go_state(g, out)
    return tuple(out)


# ---- REN: the Renju judge ------------------------------------------------------------------

# Black and white stones on 15x15, (x, y), then the points looked at.
_REN_BLACK = (
    (5, 7),
    (6, 7),
    (7, 5),
    (7, 6),  # (7, 7): a double three (a row and a column)
    (9, 2),
    (10, 2),
    (11, 2),
    (12, 3),
    (12, 4),
    (12, 5),  # (12, 2): a double four (a row and a column)
    (0, 12),
    (1, 12),
    (2, 12),
    (4, 12),
    (5, 12),  # (3, 12): an overline
    (9, 12),
    (10, 12),
    (11, 12),
    (12, 12),  # (13, 12): an exact five, allowed whatever else
    (2, 2),
    (2, 3),
    (2, 4),
    (3, 1),
    (4, 1),  # (2, 1): a four and a three
    (9, 9),
    (10, 9),  # (11, 9): one three only
)
_REN_WHITE = ((13, 7), (12, 1), (8, 2), (2, 0), (13, 13))
_REN_LOOK = ((7, 7), (12, 2), (3, 12), (13, 12), (2, 1), (11, 9), (14, 0), (6, 12))


def renju():
    """REN: forbidden, lines and has_five on a fixed position (see the header)."""
    from firmware.rules.gomoku_board import GomokuBoard

    b = GomokuBoard(15)
    for x, y in _REN_BLACK:
        b.put(_B, x, y)
    for x, y in _REN_WHITE:
        b.put(_W, x, y)
    out = []
    for x, y in _REN_LOOK:
        out.append(b.forbidden(x, y))
    out.append(b.lines(_B, 9, 12))
    out.append(1 if b.has_five(_B, False) else 0)
    b.put(_B, 13, 12)
    out.append(b.lines(_B, 13, 12))
    out.append(1 if b.has_five(_B, True) else 0)
    b.put(_B, 3, 12)
    out.append(b.lines(_B, 3, 12))
    out.append(1 if b.has_five(_B, True) else 0)
    out.append(1 if b.has_five(_W, False) else 0)
    for w in b.rows:
        out.append(w)
    out.append(b.shallow)
    return tuple(out)


# ---- SEN: the sensing update -----------------------------------------------------------------

# 3x3 frames (nominal calibration: base 2048, black -800, white +800). A frame of fewer
# values is one of the wrong length; 4096 is out of range.
_E = const(2048)
_SEN_FRAMES = (
    (_E, _E, _E, _E, _E, _E, _E, _E, _E),
    (_E, _E, _E, _E, _E, _E, _E, _E, _E),  # settled: EMPTY everywhere
    (_E, _E, _E, _E, 1248, _E, _E, _E, 2848),  # a black stone at 4, a white one at 8
    (_E, _E, _E, _E, 1248, _E, _E, _E, 2848),  # they settle
    (2248, _E, _E, _E, 1798, _E, _E, _E, 2848),  # 0 in the band; 4 in its band: stays
    (2248, 3800, _E, _E, 1798, _E, _E, 10, 2848),  # 1 overloaded, 7 at a rail
    (2248, 3800, _E, _E, 1798, _E, _E, 10, 2848),  # 0 UNCERTAIN after the gap; 1 and 7 too
    (2060, _E, _E, _E, 1248, _E, 4096, _E, 2848),  # out of range: refused
    (2060, _E, _E, _E, 1248, _E, _E, _E),  # the wrong length: refused
    (2060, _E, 2040, _E, 1248, _E, _E, _E, 2848),  # quiet offsets: drift steps
    (2060, _E, 2040, _E, 1248, _E, _E, _E, 2848),
    (2060, _E, 2040, _E, 1248, _E, _E, _E, 2848),
)


def sensing():
    """SEN: Sensing.update on fixed 3x3 frames (see the header)."""
    from array import array

    from firmware.sensing.calibration import Calibration
    from firmware.sensing.grid import Sensing

    s = Sensing(3, Calibration.nominal(3), debounce=2, gap_frames=2, drift_ms=1, quiet_steps=1)
    frame = array("H", bytes(18))
    short = array("H", bytes(16))
    out = []
    now = 0
    for values in _SEN_FRAMES:
        f = frame if len(values) == 9 else short
        for i in range(len(values)):
            f[i] = values[i]
        out.append(s.update(f, now))
        out.append(s.frames)
        out.append(s.rejected)
        out.append(s.unsettled)
        now += 10
    for v in s.states:
        out.append(v)
    for v in s.base:
        out.append(v)
    out.append(s.error_index)
    return tuple(out)


# ---- REF: the referee's kernels ----------------------------------------------------------------


def referee():
    """REF: _expand (row words to a byte per point) and _differing (where two boards differ)."""
    from array import array

    from firmware.referee.referee import _differing, _expand

    n = 5
    rows = array("I", (0b10001, 0b00110, 0, 0b01000, 0b10000, 0b00100, 0b00001, 0, 0b10000, 1))
    a = bytearray(n * n)
    b = bytearray(n * n)
    _expand(rows, n, a)
    rows[0] = 0b00001
    rows[n + 2] = 0b11111
    _expand(rows, n, b)
    idx = array("H", bytes(2 * n * n))
    k = _differing(a, b, n * n, idx)
    out = list(a)
    out.append(k)
    for i in range(k):
        out.append(idx[i])
    return tuple(out)


# ---- TIC: the clock's arithmetic ----------------------------------------------------------------

_T0 = const((1 << 30) - 2000)  # the clocks start 2 s before the tick wrap
_MIN = const(60000)
# Press after these ms of each turn, alternately Black's and White's.
_CLK_TURNS = (1500, 59000, 61000, 30000, 95000, 12345, 3000, 70000)


def _controls():
    from firmware.clock import control as C

    return (
        C.chinese(2 * _MIN, 1),
        C.japanese(_MIN, 3, 30000),
        C.canadian(_MIN, 2, 100000),
        C.penalty(_MIN, 45000, 2, 3),
        C.stages(((90000, 2), (_MIN, 0))),
        C.fischer(_MIN, 5000),
    )


def clock():
    """TIC: ticks at the wrap, and Clock under six controls (see the header)."""
    from firmware.clock import ticks
    from firmware.clock.clock import Clock, Face

    out = [
        ticks.add(_T0, 5000),
        ticks.add(3000, -5000),
        ticks.diff(3000, _T0),
        ticks.diff(_T0, 3000),
        ticks.diff(ticks.add(_T0, (1 << 29) - 1), _T0),
    ]
    f = Face()
    for tc in _controls():
        c = Clock(tc, free_captures=True)
        out.append(c.start(_T0))
        at = _T0
        side = _B
        for ms in _CLK_TURNS:
            at = ticks.add(at, ms)
            out.append(c.tick(at))
            out.append(c.press(side, at, True, 800))
            out.append(c.limit)
            out.append(c.next_cue(ticks.add(at, 100)))
            c.face(side, ticks.add(at, 200), f)
            out.append(f.main_ms)
            out.append(f.flags)
            out.append(f.count_s)
            out.append(f.units)
            out.append(f.moves_left)
            for i in range(f.length):
                out.append(f.text[i])
            side = 3 - side
        for s in (_B, _W):
            out.append(c.main[s])
            out.append(c.over[s])
            out.append(c.left[s])
            out.append(c.stage[s])
            out.append(c.spent[s])
        out.append(c.state)
    return tuple(out)


# ---- CRC: the journal's checksums -------------------------------------------------------------


def crc():
    """CRC: chained record CRCs (records.frame) and their scan."""
    from firmware.store import records as R

    recs = (
        (R.MOVE, 1, 1, 3 << 5 | 3, 1234, (60000, 60000)),
        (R.MOVE, 2, 2, 15 << 5 | 15, 98765, (58766, 59000)),
        (R.CLOCKS, 3, (-5, 1 << 20)),
        (R.RESULT, 1, 2, 13, 3),
    )
    buf = bytearray(R.MAGIC)
    out = [R.crc32(b"123456789") & 0xFFFFFFFF]
    for rec in recs:
        t, payload = R.encode(rec)
        fr = R.frame(t, payload, buf[-4:])
        buf.extend(fr)
        n = len(fr)
        out.append(fr[n - 4] | fr[n - 3] << 8 | fr[n - 2] << 16 | fr[n - 1] << 24)
    out.append(len(buf))
    found = R.scan(buf)
    out.append(len(found))
    out.append(1 if [r for _, _, r in found] == list(recs) else 0)
    buf[9] ^= 1  # a bit flipped in the first record: it and only it is lost
    out.append(len(R.scan(buf)))
    return tuple(out)


# ---- HAL: the scan's reassembly ---------------------------------------------------------------


def hal():
    """HAL: rp2040.reassemble from a fixed ring."""
    from array import array

    from firmware.hal.rp2040 import reassemble

    ring = array("H", [(i * 2654435761 >> 7) & 0xFFFF for i in range(64)])
    gather = array("H", [(i * 7 + 3) % 40 for i in range(20)])
    frame = array("H", bytes(40))
    reassemble(frame, ring, 5, gather, 20)
    return tuple(frame)


# ---- running them ----------------------------------------------------------------------------

# (tag, the kernels, the check)
CHECKS = (
    ("GO", "Board.play/Game.play", go),
    ("REN", "forbidden", renju),
    ("SEN", "Sensing.update", sensing),
    ("REF", "referee _expand/_differing", referee),
    ("TIC", "Clock/ticks", clock),
    ("CRC", "records.frame crc32", crc),
    ("HAL", "rp2040.reassemble", hal),
)


def _wanted(tag):
    # HAL only where the board's HAL is loaded: elsewhere it is not the code that runs.
    if tag != "HAL":
        return True
    import sys

    return "firmware.hal.rp2040" in sys.modules


def compute(tag):
    """The answer the check ``tag`` gives now (a tuple of ints)."""
    for t, _, fn in CHECKS:
        if t == tag:
            return fn()
    raise KeyError(tag)


def compare(tag, got):
    """None if ``got`` is the known answer of ``tag``, else what differs (a short text)."""
    want = KNOWN[tag]
    if got == want:
        return None
    i = 0
    while i < len(got) and i < len(want) and got[i] == want[i]:
        i += 1
    if i < len(got) and i < len(want):
        return "item %d is %d, known %d" % (i, got[i], want[i])
    return "%d items, known %d" % (len(got), len(want))


def run(tags=None):
    """Every check (or those in ``tags``): ``[(tag, message), ...]`` of the ones that failed,
    empty when all agree. A check that raises fails with the exception as its message."""
    failed = []
    for tag, what, fn in CHECKS:
        if tags is not None:
            if tag not in tags:
                continue
        elif not _wanted(tag):
            continue
        try:
            why = compare(tag, fn())
        except Exception as e:  # a kernel that raises is as wrong as one that answers wrong
            why = "raised %s: %s" % (type(e).__name__, e)
        if why is not None:
            failed.append((tag, "CHECK %s %s: %s" % (tag, what, why)))
    return failed


def verify(tags=None):
    """Run the checks; raise ``Failed`` for the first that fails (its message names every
    check that failed)."""
    failed = run(tags)
    if failed:
        msg = failed[0][1]
        if len(failed) > 1:
            msg += " (and %s)" % " ".join([t for t, _ in failed[1:]])
        raise Failed(failed[0][0], msg)


# The known answers: ``python3 -m firmware.boot.selfcheck`` prints this table from the code.
# fmt: off
KNOWN = {
    "GO": (0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 21, 18,
        12, 0, 0, 0, 1, 1, 19, 349202557, 916923059, 0, 15, 5, 5, 0, 21, 1, -1, 2081, 2050, 2083,
        2114, 2115, 1, 1, 1, 26, 21, 18, 8, 0, 0, 8, 12, 0, 19, 833548252, 241413675, 0, 15, 2, 2,
        0, 18, 2, -1),
    "REN": (1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 1, 0, 0, 24, 3588, 4100, 4100, 4224, 128, 96,
        0, 1536, 0, 0, 15935, 0, 0, 4, 4096, 256, 0, 0, 0, 0, 8192, 0, 0, 0, 0, 0, 8192, 0, 0),
    "SEN": (0, 1, 0, 9, 9, 2, 0, 0, 0, 3, 0, 2, 2, 4, 0, 0, 0, 5, 0, 1, 1, 6, 0, 2, 2, 7, 0, 0,
        -3, 7, 1, 0, -1, 7, 2, 0, 0, 8, 2, 3, 3, 9, 2, 0, 0, 10, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2,
        32768, 32768, 32765, 32768, 32768, 32768, 32768, 32768, 32768, -1),
    "REF": (1, 0, 2, 0, 1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 6, 4, 10,
        11, 12, 13, 14),
    "TIC": (3000, 1073739824, 5000, -5000, 536870911, 0, 0, 0, 120000, 286, 58500, 0, -1, -1, -1,
        48, 58, 53, 57, 0, 0, 118500, 286, 1000, 0, -1, -1, -1, 48, 58, 48, 49, 46, 48, 0, 0,
        61000, 286, 60000, 48, 0, 1, -1, 49, 58, 48, 48, 0, 0, 60000, 286, 60000, 48, 0, 1, -1,
        49, 58, 48, 48, 3, 1, 60000, 0, 0, 52, 60, 0, -1, 48, 58, 48, 48, 46, 48, 0, 1, 60000, 0,
        60000, 48, 0, 1, -1, 49, 58, 48, 48, 0, 1, 60000, 0, 0, 52, 60, 0, -1, 48, 58, 48, 48, 46,
        48, 0, 1, 60000, 0, 60000, 48, 0, 1, -1, 49, 58, 48, 48, 0, 1, 0, 1, 61700, 0, 1, 0, 1,
        88200, 3, 0, 0, 0, 150000, 1538, 58500, 0, -1, -1, -1, 48, 58, 53, 57, 0, 0, 148500, 1538,
        1000, 0, -1, -1, -1, 48, 58, 48, 49, 46, 48, 0, 0, 91000, 1538, 30000, 32, 0, 3, -1, 48,
        58, 51, 48, 0, 0, 90000, 1538, 30000, 32, 0, 3, -1, 48, 58, 51, 48, 3, 1, 90000, 0, 0, 52,
        30, 0, -1, 48, 58, 48, 48, 46, 48, 0, 1, 90000, 0, 30000, 32, 0, 3, -1, 48, 58, 51, 48, 0,
        1, 90000, 0, 0, 52, 30, 0, -1, 48, 58, 48, 48, 46, 48, 0, 1, 90000, 0, 30000, 32, 0, 3,
        -1, 48, 58, 51, 48, 0, 3, 0, 1, 61700, 0, 3, 0, 1, 88200, 3, 0, 0, 0, 160000, 1792, 58500,
        0, -1, -1, -1, 48, 58, 53, 57, 0, 0, 158500, 1792, 1000, 0, -1, -1, -1, 48, 58, 48, 49,
        46, 48, 0, 0, 101000, 1792, 97500, 32, -1, -1, 1, 49, 58, 51, 56, 0, 0, 97500, 1792,
        71000, 32, -1, -1, 1, 49, 58, 49, 49, 0, 0, 71000, 1792, 100000, 32, -1, -1, 2, 49, 58,
        52, 48, 0, 0, 100000, 1792, 100000, 32, -1, -1, 2, 49, 58, 52, 48, 0, 0, 100000, 1792,
        97000, 32, -1, -1, 1, 49, 58, 51, 55, 0, 0, 97000, 1792, 30000, 32, -1, -1, 1, 48, 58, 51,
        48, 0, 97000, 1, 1, 160500, 0, 30000, 1, 1, 171345, 1, 0, 0, 0, 195000, 1792, 58500, 0,
        -1, -1, -1, 48, 58, 53, 57, 0, 0, 193500, 1792, 1000, 0, -1, -1, -1, 48, 58, 48, 49, 46,
        48, 0, 0, 136000, 1792, 42500, 32, -1, 1, -1, 48, 58, 52, 51, 0, 0, 132500, 1792, 16000,
        32, -1, 1, -1, 48, 58, 49, 54, 0, 0, 106000, 1792, 37500, 32, -1, 3, -1, 48, 58, 51, 56,
        0, 0, 37500, 1792, 3655, 32, -1, 1, -1, 48, 58, 48, 51, 46, 55, 0, 0, 93655, 1792, 34500,
        32, -1, 3, -1, 48, 58, 51, 53, 0, 0, 34500, 1792, 23655, 32, -1, 3, -1, 48, 58, 50, 52, 0,
        34500, 3, 1, 160500, 0, 23655, 3, 1, 171345, 1, 0, 0, 0, 90000, 1792, 88500, 0, -1, -1, 1,
        49, 58, 50, 57, 0, 0, 88500, 1792, 31000, 16, -1, -1, 1, 48, 58, 51, 49, 0, 0, 31000,
        1792, 87500, 0, -1, -1, -1, 49, 58, 50, 56, 0, 0, 87500, 1792, 61000, 0, -1, -1, -1, 49,
        58, 48, 49, 3, 1, 87500, 0, 0, 20, -1, -1, -1, 48, 58, 48, 48, 46, 48, 0, 1, 87500, 0,
        61000, 0, -1, -1, -1, 49, 58, 48, 49, 0, 1, 87500, 0, 0, 20, -1, -1, -1, 48, 58, 48, 48,
        46, 48, 0, 1, 87500, 0, 61000, 0, -1, -1, -1, 49, 58, 48, 49, 87500, 0, 0, 1, 62500,
        61000, 0, 0, 1, 89000, 3, 0, 0, 0, 60000, 1792, 63500, 0, -1, -1, -1, 49, 58, 48, 52, 0,
        0, 63500, 1792, 6000, 16, -1, -1, -1, 48, 58, 48, 54, 46, 48, 0, 0, 6000, 1792, 7500, 16,
        -1, -1, -1, 48, 58, 48, 55, 46, 53, 3, 1, 6000, 0, 0, 20, -1, -1, -1, 48, 58, 48, 48, 46,
        48, 0, 1, 6000, 0, 7500, 16, -1, -1, -1, 48, 58, 48, 55, 46, 53, 0, 1, 6000, 0, 0, 20, -1,
        -1, -1, 48, 58, 48, 48, 46, 48, 0, 1, 6000, 0, 7500, 16, -1, -1, -1, 48, 58, 48, 55, 46,
        53, 0, 1, 6000, 0, 0, 20, -1, -1, -1, 48, 58, 48, 48, 46, 48, 7500, 0, 0, 0, 62500, 6000,
        0, 0, 0, 59000, 3),
    "CRC": (3421780262, 3434999034, 343748746, 1918762989, 967027438, 61, 4, 1, 3),
    "HAL": (1947, 66, 2282, 402, 2617, 737, 1409, 3625, 1745, 3960, 2080, 2752, 872, 3088, 1207,
        3423, 1543, 2215, 335, 2551),
}
# fmt: on


def _table():
    # KNOWN as this file writes it: the answers now, wrapped at 99 columns.
    lines = ["# fmt: off", "KNOWN = {"]
    for tag, _, fn in CHECKS:
        line = '    "%s": (' % tag
        for v in fn():
            item = "%d, " % v
            if len(line) + len(item) > 99:
                lines.append(line.rstrip())
                line = "        "
            line += item
        lines.append(line.rstrip().rstrip(",") + "),")
    lines.append("}")
    lines.append("# fmt: on")
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table())
