"""The clock allocates nothing on its running path: proven on MicroPython with ``heap_lock`` and
``mem_total``, for every time control.

A garbage collection on the board stops everything, the clock's timeout included (DESIGN §2:
no allocation in the clock tick), so ``tick``, ``press`` (every kind: a move, a press with no
new stone, one with free capture time, a refused one, a late one), ``next_cue``, ``face``,
``pause`` and ``resume`` must not feed the collector. Each control's calls are first made on a
twin clock, which records them with their ticks (chosen from the twin's own limits: the
latest press in time, overtime, the flag), then replayed on fresh clocks under the lock. The
ticks start 20 s before the 2**30 wrap, so the wrap branches of ``ticks`` run too.

On CPython the lock is a stand-in, so these tests only prove something on MicroPython, except
the last one: the unix port is 64-bit, where every tick is a small int, but on the RP2040 only
-2**30 .. 2**30-1 are; arithmetic with anything larger allocates there.
"""

import gc

import micropython

from firmware.clock import clock as clock_module
from firmware.clock import control, cues, ticks
from firmware.clock.clock import BLACK, LATE, OK, WHITE, Clock, Face
from firmware.clock.control import CHINESE, JAPANESE, PRESETS, absolute
from tests.support import locked, skip

T0 = ticks.PERIOD - 20000  # the first tick: the wrap comes 20 s in

# What a recorded call is.
TICK = 0
PRESS = 1
CUE = 2
FACE = 3
PAUSE = 4
RESUME = 5
TO_PASS = 6
NAMES = ("tick", "press", "next_cue", "face", "pause", "resume", "timeout_to_pass")


def controls():
    """Every preset, and an absolute limit (the one kind without a preset)."""
    out = [PRESETS[name] for name in sorted(PRESETS)]
    out.append(absolute(30 * 60000, "absolute 30 min"))
    return out


@micropython.native  # its frame on the C stack: as bytecode it would be borrowed from the heap
def call(clocks, face, op, k, side, at, move, free):
    """One recorded call on ``clocks[k]``; its result as a small int."""
    c = clocks[k]
    if op == TICK:
        return c.tick(at)
    if op == PRESS:
        return c.press(side, at, move, free)
    if op == CUE:
        return c.next_cue(at) & 0xFF  # (kind << 8 | n): the n is enough to compare
    if op == FACE:
        c.face(side, at, face)
        return face.length
    if op == PAUSE:
        return c.pause(at)
    if op == RESUME:
        return c.resume(at)
    return c.timeout_to_pass(at)


class Script:
    """Calls on two clocks under one control, made on twins and recorded with their ticks.

    Clock 0 ends flagged by a tick exactly at its limit (then, for counting controls, the
    timeout becomes a pass and White's press at its limit is late); clock 1 ends flagged by a
    press at its limit.
    """

    def __init__(self, tc):
        self.tc = tc
        self.twins = (Clock(tc, free_captures=True), Clock(tc, free_captures=True))
        self.face = Face()
        self.ops = []  # (op, clock, side, tick, move, free)
        self.results = bytearray()
        self.t = [0, 0]  # ms since T0, per clock
        for c in self.twins:
            c.start(T0)
        for k in (0, 1):
            self._game(k)

    def do(self, op, k, side=0, dt=0, move=True, free=0):
        self.t[k] += dt
        at = ticks.add(T0, self.t[k])
        self.ops.append((op, k, side, at, move, free))
        r = call(self.twins, self.face, op, k, side, at, move, free)
        self.results.append(r)
        return r

    def left(self, k):
        """Ms until the running side of clock k flags."""
        c = self.twins[k]
        return c.limit - c.elapsed(ticks.add(T0, self.t[k]))

    def _game(self, k):
        do = self.do
        do(TICK, k, dt=1000)
        do(FACE, k, BLACK, dt=200)
        do(FACE, k, WHITE)
        do(CUE, k, dt=300)
        assert do(PRESS, k, BLACK, dt=500) == OK  # a move
        do(PRESS, k, BLACK, dt=100)  # the wrong paddle: refused
        do(PAUSE, k, dt=900)
        do(TICK, k, dt=1000)
        do(PRESS, k, WHITE, dt=500)  # while paused: refused
        do(FACE, k, WHITE)
        do(RESUME, k, dt=500)
        do(CUE, k)
        assert do(PRESS, k, WHITE, dt=3000, move=False) == OK  # no new stone
        assert do(PRESS, k, BLACK, dt=4000, free=2500) == OK  # captures removed
        # Black's next turn takes it to its last millisecond: overtime for the controls with
        # one, then a quick reply and a turn in the overtime (or what is left of the time).
        assert do(PRESS, k, WHITE, dt=2000) == OK
        do(TICK, k, dt=self.left(k) // 2)
        do(FACE, k, BLACK)
        do(CUE, k)
        assert do(PRESS, k, BLACK, dt=self.left(k) - 1, free=1000) == OK
        assert do(PRESS, k, WHITE, dt=min(1500, self.left(k) // 2)) == OK
        do(TICK, k, dt=self.left(k) // 3)
        do(FACE, k, BLACK)
        do(FACE, k, WHITE)
        do(CUE, k)
        if k == 0:
            assert do(TICK, k, dt=self.left(k)) == LATE  # exactly at the limit
            do(FACE, k, BLACK)
            do(CUE, k, dt=10)
            if self.tc.kind in (CHINESE, JAPANESE):
                assert do(TO_PASS, k, dt=5000) == OK
                assert do(PRESS, k, WHITE, dt=self.left(k)) == LATE
        else:
            assert do(PRESS, k, BLACK, dt=self.left(k)) == LATE  # exactly at the limit

    def fresh(self):
        """Two new clocks started as the twins were, and a Face."""
        clocks = (Clock(self.tc, free_captures=True), Clock(self.tc, free_captures=True))
        for c in clocks:
            c.start(T0)
        return clocks, Face()


@micropython.native
def replay(run):
    """Make the recorded calls of ``run`` = (clocks, face, ops, out); the results into
    ``out`` (a bytearray)."""
    clocks, face, ops, out = run
    j = 0
    n = len(ops)
    while j < n:  # an index, not ``for``: nothing here may allocate
        op, k, side, at, move, free = ops[j]
        out[j] = call(clocks, face, op, k, side, at, move, free)
        j += 1


def _warm(script):
    # The first calls may create cached objects (a native function's constants, say).
    clocks, face = script.fresh()
    replay((clocks, face, script.ops, bytearray(len(script.ops))))


def test_every_call_on_every_control_under_heap_lock():
    for tc in controls():
        script = Script(tc)
        _warm(script)
        clocks, face = script.fresh()
        out = bytearray(len(script.ops))
        run = (clocks, face, script.ops, out)
        err = locked(lambda run=run: replay(run))
        assert err is None, (tc.name, err)
        assert out == script.results, (tc.name, list(out), list(script.results))
        assert clocks[0].flagged or clocks[0].state == clock_module.RUNNING, tc.name
        assert clocks[1].flagged == BLACK, tc.name


def test_the_script_reaches_what_it_means_to():
    # Every kind of call is in every script, with presses that are in time, refused and late.
    for tc in controls():
        script = Script(tc)
        ops = [op for op, _, _, _, _, _ in script.ops]
        for op in (TICK, PRESS, CUE, FACE, PAUSE, RESUME):
            assert op in ops, (tc.name, NAMES[op])
        presses = [script.results[j] for j in range(len(ops)) if ops[j] == PRESS]
        assert OK in presses and LATE in presses, tc.name
        assert clock_module.WRONG_SIDE in presses and clock_module.NOT_RUNNING in presses
        ticked = [script.results[j] for j in range(len(ops)) if ops[j] == TICK]
        assert LATE in ticked, tc.name
        if tc.kind in (CHINESE, JAPANESE):
            assert TO_PASS in ops, tc.name
            assert script.twins[0].stage[BLACK] == 1, tc.name  # the counting was reached
        # The ticks crossed the wrap.
        assert script.ops[0][3] > ticks.PERIOD // 2 and script.ops[-1][3] < ticks.PERIOD // 2
        cue = [script.results[j] for j in range(len(ops)) if ops[j] == CUE]
        assert len(cue) >= 4, tc.name


def test_every_call_does_not_even_borrow_heap_memory():
    # heap_lock() alone is not enough: a locked heap makes MicroPython put a large bytecode
    # frame on the C stack instead, so a function that borrows its frame from the heap on
    # every call passes the lock test. mem_total() counts every byte ever allocated.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    for tc in controls():
        script = Script(tc)
        _warm(script)
        clocks, face = script.fresh()
        ops = script.ops
        n = len(ops)
        out = bytearray(n)
        gc.collect()
        before = micropython.mem_total()
        # Inline, not through replay(): a helper's own frame would be counted too. The calls
        # go through call(), a native function: its frame is on the C stack (the empty call
        # below shows that it costs nothing itself).
        j = 0
        while j < n:
            op, k, side, at, move, free = ops[j]
            out[j] = call(clocks, face, op, k, side, at, move, free)
            j += 1
        used = micropython.mem_total() - before
        assert used == 0, (tc.name, used)
        assert out == script.results, tc.name
    before = micropython.mem_total()
    out[0] = call(clocks, face, 99, 0, 0, 0, True, 0)
    assert micropython.mem_total() - before == 0


def test_each_kind_of_call_alone_borrows_nothing():
    # The same, call by call, so that a failure names the call.
    if not hasattr(micropython, "mem_total"):
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    for tc in controls():
        script = Script(tc)
        _warm(script)
        clocks, face = script.fresh()
        for j in range(len(script.ops)):
            op, k, side, at, move, free = script.ops[j]
            before = micropython.mem_total()
            r = call(clocks, face, op, k, side, at, move, free)
            used = micropython.mem_total() - before
            assert used == 0, (tc.name, j, NAMES[op], used)
            assert r == script.results[j], (tc.name, j, NAMES[op])


class _Boxed(int):
    """An int that the RP2040 would box (outside -2**30 .. 2**30-1): each arithmetic operation
    with it is recorded, because there it makes a new int object on the heap."""

    uses = []

    def _use(self, how):
        _Boxed.uses.append("%s %d" % (how, int(self)))

    def __add__(self, other):
        self._use("+")
        return int(self) + other

    def __radd__(self, other):
        self._use("+")
        return other + int(self)

    def __sub__(self, other):
        self._use("-")
        return int(self) - other

    def __rsub__(self, other):
        self._use("-")
        return other - int(self)

    def __mul__(self, other):
        self._use("*")
        return int(self) * other

    __rmul__ = __mul__

    def __floordiv__(self, other):
        self._use("//")
        return int(self) // other

    def __mod__(self, other):
        self._use("%")
        return int(self) % other

    def __and__(self, other):
        self._use("&")
        return int(self) & other

    __rand__ = __and__


_SMALL_MIN = -(1 << 30)  # the RP2040's small ints (31-bit, MICROPY_OBJ_REPR_A)
_SMALL_MAX = (1 << 30) - 1


def test_tick_arithmetic_uses_only_rp2040_small_ints():
    # The RP2040's MicroPython keeps ints from -2**30 to 2**30-1 unboxed; any arithmetic with a
    # larger one (say 2**30 itself, ticks.PERIOD) makes a heap object for its result, and the
    # result stays boxed even when it is small. So on the board a clock call that computes with
    # such a number allocates, although the 64-bit unix port shows nothing.
    #
    # Here every int constant of the clock modules outside that range is replaced by a _Boxed
    # int that records its uses, and the whole script of every control is replayed, the wrap
    # included. That works where module constants are looked up by name (CPython); on
    # MicroPython const() compiles them into the code, and only the range of the results is
    # checked.
    modules = (ticks, cues, control, clock_module)
    saved = []
    for m in modules:
        for name in dir(m):
            v = getattr(m, name)
            if type(v) is int and not _SMALL_MIN <= v <= _SMALL_MAX:
                saved.append((m, name, v))
                setattr(m, name, _Boxed(v))
    del _Boxed.uses[:]
    try:
        for tc in controls():
            script = Script(tc)
            for _, _, _, at, _, _ in script.ops:
                assert _SMALL_MIN <= at <= _SMALL_MAX
            for c in script.twins:
                for v in (c.seg, c.flag_tick, c.cue_tick, c.limit, c.used):
                    assert _SMALL_MIN <= v <= _SMALL_MAX, (tc.name, v)
        for a in (0, 1, ticks.MASK - 1, ticks.MASK):
            for d in (0, 1, -1, 1000, -1000, (1 << 29) - 1, -(1 << 29)):
                r = ticks.add(a, d)
                assert 0 <= r <= ticks.MASK and ticks.diff(r, a) == d, (a, d, r)
    finally:
        for m, name, v in saved:
            setattr(m, name, v)
    uses = sorted(set(_Boxed.uses))
    assert not uses, "arithmetic on ints the RP2040 boxes (each allocates there): %s" % uses
