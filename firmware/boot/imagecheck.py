"""Is the image's frozen machine code where the chip can run it? Checked at power-up, before
any native or viper function is called.

Start reading at ``verify``. Upstream's freezing tool (tools/mpy-tool.py) gives frozen Thumb
code only 2-byte alignment; on the RP2040 a misaligned ``@micropython.native`` function
HardFaults at its first call and a misaligned viper function reads wrong literals and answers
wrongly without a fault (../shared/research/on-chip.md). ``tengen image check`` finds that in
the build's ELF file before it is flashed; this module finds it on the board itself, whatever
was flashed, so a board built from a bad image says so instead of dying in the middle of the
boot or playing silently wrong. firmware/boot/device.py runs it first thing (the boot log's
``image`` stage: ``error image: 80 of 169 ...``, the Pico's LED blinking, the REPL left free),
and ``tengen deploy``'s probe runs it at the REPL to refuse such a board.

How, without calling any of them: every function object reachable from ``MODULES`` (their
globals, their classes' dicts, staticmethod, classmethod and property wrappers) whose type is
that of ``_native`` or ``_viper`` (both are called ``function``, but they are two types:
mp_type_fun_native, mp_type_fun_viper) is one. In MicroPython 1.28 such an object is an
``mp_obj_fun_bc_t`` (py/objfun.h), four machine words:

    type, context (-> the module: its base, its globals dict), child_table, fun_data

and ``fun_data`` is the code's address: the word at ``id(f) + 3 words`` must be a multiple of
4. A staticmethod or classmethod holds its function in its second word, a property its
getter, setter and deleter in words 2-4. The functions nested in a native function (its list
comprehensions, lambdas, closures) are not objects until it runs; they are found through its
child table: a native function's code begins with a word that counts its children (the
"prelude index", py/emitnative.c), and each child is an ``mp_raw_code_t`` (py/emitglue.h:
two zero bytes, the kind, is_generator, then fun_data and children, a word each). The
children of viper and bytecode functions are not counted anywhere on the chip, so they are
not walked; the board's sources have no machine code there
(tests/host/board/test_image_alignment.py). Every read is one ``peek`` (``reader``), so the tests
can give a fake one; a misaligned word (the first of misaligned code) is read byte by byte,
never loaded as a word.

Cost, on the emulated RP2040 (tests/host/board/test_chip_gate.py prints it): 49 ms of boot (38-40 ms
when run again) for 169 functions in some 1,200 values; the walk over the values is three
quarters of it (it is bytecode: the check cannot use native code). The modules are imported here rather than
in ``board.build``, which imports all but firmware/rules/gomoku.py anyway (13 ms, 5 KB of
heap, otherwise loaded with the first Gomoku or Renju game). On a good image ``verify``
makes nothing but the walk's two lists.
"""

import sys

import micropython
from micropython import const

NATIVE = "native"
VIPER = "viper"

# The board's modules that have @micropython.native or @micropython.viper functions, and this
# one; tests/host/board/test_image_alignment.py checks the list against the sources.
MODULES = (
    "firmware.boot.imagecheck",
    "firmware.clock.checkpoint",
    "firmware.clock.clock",
    "firmware.clock.cues",
    "firmware.game.app",
    "firmware.game.match",
    "firmware.hal.rp2040",
    "firmware.hal.rp2040_voice",
    "firmware.referee.incidents",
    "firmware.referee.referee",
    "firmware.rules.bitboard",
    "firmware.rules.go",
    "firmware.rules.go_board",
    "firmware.rules.gomoku",
    "firmware.rules.gomoku_board",
    "firmware.sensing.grid",
    "firmware.store.journal",
    "firmware.store.live",
    "firmware.ui.buttons",
    "firmware.ui.buzzer",
    "firmware.ui.face",
    "firmware.ui.say",
    "firmware.ui.voice",
)

WORD = 8 if sys.maxsize > 0x7FFFFFFF else 4  # bytes in a pointer: 4 on the RP2040
FUN_DATA = const(3)  # mp_obj_fun_bc_t's word holding the code's address
_KIND_NATIVE = const(3)  # MP_CODE_NATIVE_PY (py/emitglue.h)
_KIND_VIPER = const(4)  # MP_CODE_NATIVE_VIPER
_MAX_CHILDREN = const(64)  # more is not a prelude index: the walk stops there
_DEPTH = const(4)  # nested classes, nested children
SHOWN = 3  # names in the exception's message (the boot log keeps a line of 200 characters)
REMEDY = "rebuild the image (make chip)"


# One function of each kind: only their types are used (never call them: on a bad image the
# first would HardFault). They are frozen machine code too, so they are checked as well.
@micropython.native
def _native():
    pass


@micropython.viper
def _viper():
    pass


class Misaligned(Exception):
    """Frozen machine code at addresses the chip cannot run: ``functions`` (names, by
    address), ``total`` (how many were checked); ``str()`` the boot log's line. ``tag`` makes
    the boot log take the message as it is (firmware/boot/bootlog.py ``summary``)."""

    tag = "IMG"

    def __init__(self, functions, total):
        shown = ", ".join(functions[:SHOWN])
        if len(functions) > SHOWN:
            shown += " and %d more" % (len(functions) - SHOWN)
        super().__init__(
            "%d of %d frozen native/viper functions misaligned, %s: %s"
            % (len(functions), total, REMEDY, shown)
        )
        self.functions = functions
        self.total = total


def reader():
    """``peek(address)``: the machine word at ``address``; a misaligned one (the first word of
    misaligned code) read byte by byte, where a word load would HardFault."""
    import uctypes

    n = WORD

    def peek(address):
        return int.from_bytes(uctypes.bytearray_at(address, n), "little")

    if sys.platform != "rp2":  # the unix port's machine.mem32 reads /dev/mem, not itself
        return peek
    import machine

    mem = machine.mem32

    def peek32(address):  # 4 times faster: most reads are of aligned words
        return peek(address) if address & 3 else mem[address]

    return peek32


def scan(modules=MODULES, peek=None, every=True):
    """The native and viper functions reachable from ``modules`` (imported here), none
    called: ``(n, entries)``, ``n`` how many there are and ``entries`` each of them, or with
    ``every`` false only the misaligned ones (what the boot needs: less to make).

    An entry is ``(key, kind, slot, code, top, nest)``: ``code`` the address of its machine
    code, read at ``slot``; ``key`` its object's address, or a nested function's raw code's;
    ``top`` the key of the module-level or class-level function it is in (its own for one of
    those) and ``nest`` the child numbers down to it (``()`` for one of those). ``(0, [])`` on
    CPython: no machine code there. Names cost a second walk: ``names``."""
    if sys.implementation.name != "micropython":
        return 0, []
    if peek is None:
        peek = reader()
    natives, vipers = _functions(modules, peek)
    out = []
    n = 0
    w = WORD
    for kind, addrs in ((NATIVE, natives), (VIPER, vipers)):
        addrs.sort()  # a function seen in two modules is there twice, side by side
        last = 0
        for addr in addrs:
            if addr == last:
                continue
            last = addr
            n += 1
            slot = addr + FUN_DATA * w
            code = peek(slot)
            if every or code & 3:
                out.append((addr, kind, slot, code, addr, ()))
            if kind is NATIVE and peek(code):  # it has children: its code's first word
                n += _children(out, addr, (), code, peek(addr + 2 * w), peek, every)
    return n, out


def misaligned(entries):
    """The entries (``scan``) whose code is not 4-byte aligned, by address."""
    bad = [e for e in entries if e[3] % 4]
    bad.sort(key=lambda e: e[3])
    return bad


def names(entries, modules=MODULES, peek=None):
    """``{key: name}`` for the entries (``scan``), as a person reads them:
    ``firmware/ui/say.py digits_into``, a method ``... Class.name``, a function nested in a
    native one ``... Class.name.<nested 1>``. A function reachable from two modules is named
    where it is defined (its context's globals are that module's)."""
    if peek is None:
        peek = reader()
    where = {}  # key: (where, at home)
    for addr, prefix, key, home in _named(modules, peek):
        old = where.get(addr)
        if old is not None and old[1]:
            continue
        at_home = peek(peek(addr + WORD) + WORD) == home  # context -> its module's globals
        if old is None or at_home:
            where[addr] = (prefix + (key,), at_home)
    out = {}
    for e in entries:
        w = where[e[4]][0]
        text = w[0].replace(".", "/") + ".py " + ".".join(w[1:])
        for i in e[5]:
            text += ".<nested %d>" % i
        out[e[0]] = text
    return out


def verify(modules=MODULES, peek=None):
    """Raise ``Misaligned`` if any native or viper function of ``modules`` is misaligned;
    else how many there are."""
    n, bad = scan(modules, peek, False)
    if bad:
        bad = misaligned(bad)
        named = names(bad, modules, peek)
        raise Misaligned([named[e[0]] for e in bad], n)
    return n


def blink(pin=None, period=100):
    """Blink the Pico's LED (GP25) three times and pause, over and over, from a timer: it goes
    on at the REPL. Bytecode only: on a bad image the faces' drivers (native) cannot be used.
    The timer is kept (``_timer``); a soft reset stops it."""
    global _timer
    from machine import Pin, Timer

    from firmware.hal import pins

    led = Pin(pins.PICO_LED if pin is None else pin, Pin.OUT)
    step = [0]

    def tick(_t):
        i = step[0] = (step[0] + 1) % 16
        led.value(1 if i < 6 and not i & 1 else 0)

    _timer = Timer(period=period, callback=tick)
    return _timer


_timer = None


def _module(m):
    mod = sys.modules.get(m)
    if mod is None:
        __import__(m)
        mod = sys.modules[m]
    return mod.__dict__


def _types(peek):
    # What a function object's first word is, by kind.
    return {peek(id(_native)): NATIVE, peek(id(_viper)): VIPER}


def _wrapped(v, t, peek, types):
    # The functions in a staticmethod's or classmethod's second word, a property's getter,
    # setter and deleter (its words 2-4): [(address, kind)].
    out = []
    for i in range(1, 4 if t is property else 2):
        addr = peek(id(v) + i * WORD)
        if addr and not addr & 3:  # an object's address (None's is one)
            kind = types.get(peek(addr))
            if kind is not None:
                out.append((addr, kind))
    return out


def _functions(modules, peek):
    # ([native], [viper]): the addresses of the native and viper function objects in the
    # modules' globals and their own classes (one may be there twice). It runs at every
    # boot, over some 1,200 values, and bytecode is slow on the RP2040 (15-20 us a value):
    # no allocation but an append, no name looked up but in locals.
    natives, vipers = [], []
    walk = (type(_native), type(_viper), _types(peek), peek, natives.append, vipers.append)
    for m in modules:
        _in(_module(m), m, walk, 0)
    return natives, vipers


def _in(d, m, walk, depth):
    native_t, viper_t, types, peek, native, viper = walk
    typeof, ident, sm, cm, prop = type, id, staticmethod, classmethod, property  # as locals
    for v in d.values():
        t = typeof(v)
        if t is native_t:
            native(ident(v))
        elif t is viper_t:
            viper(ident(v))
        elif t is typeof:
            if depth < _DEPTH:
                c = v.__dict__
                if c.get("__module__") == m:  # a class of this module, not one it imported
                    _in(c, m, walk, depth + 1)
        elif t is sm or t is cm or t is prop:
            for addr, kind in _wrapped(v, t, peek, types):
                (native if kind == NATIVE else viper)(addr)


def _named(modules, peek):
    # [(address, where, key, home)] of the same functions, each time it is seen: ``where +
    # (key,)`` names it, ``home`` is the id of the globals it was seen in. Only for names.
    out = []
    types = _types(peek)
    for m in modules:
        g = _module(m)
        _named_in(g, (m,), m, id(g), peek, types, 0, out)
    return out


def _named_in(d, where, m, home, peek, types, depth, out):
    for key in d:
        v = d[key]
        t = type(v)
        if t is type(_native) or t is type(_viper):
            out.append((id(v), where, key, home))
        elif t is type:
            c = v.__dict__
            if depth < _DEPTH and c.get("__module__") == m:
                _named_in(c, where + (key,), m, home, peek, types, depth + 1, out)
        elif t is staticmethod or t is classmethod or t is property:
            for addr, _kind in _wrapped(v, t, peek, types):
                out.append((addr, where, key, home))


def _children(out, top, nest, code, table, peek, every):
    # A native function's nested functions (appended to ``out`` as ``scan`` does); how many.
    # Its code's first word counts them.
    n = peek(code)
    if not table or n > _MAX_CHILDREN or len(nest) >= _DEPTH:
        return 0
    found = 0
    for i in range(n):
        rc = peek(table + i * WORD)
        head = peek(rc) & 0xFFFFFFFF
        if head & 0xFFFF:  # bytecode itself, not a raw code
            continue
        kind = (head >> 16) & 0xFF
        if kind != _KIND_NATIVE and kind != _KIND_VIPER:
            continue
        found += 1
        slot = rc + WORD
        code = peek(slot)
        inner = nest + (i + 1,)
        if every or code & 3:
            out.append((rc, NATIVE if kind == _KIND_NATIVE else VIPER, slot, code, top, inner))
        if kind == _KIND_NATIVE:
            found += _children(out, top, inner, code, peek(rc + 2 * WORD), peek, every)
    return found
