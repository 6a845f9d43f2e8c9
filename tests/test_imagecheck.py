"""The boot's alignment check of the frozen machine code (firmware/boot/imagecheck.py).

On the unix port the functions below are real native and viper code, compiled at import: the
check must find each of them, by every way a class holds a function, read the address of
its machine code (and not another word of the object: the layout tests fail for any other
word), walk into a native function's list comprehension, name each where it is defined, and
name the misaligned ones when a fake reader moves their code. On CPython there is no machine
code: the check finds nothing and passes. tests/host/test_imagecheck.py compares what it
finds in the firmware with the sources; tests/host/board/test_chip_gate.py with the image's ELF.
"""

import micropython

from firmware.boot import imagecheck as IC
from firmware.ui.say import digits_into  # noqa: F401  (found here, named in say.py)
from tests.support import IS_MICROPYTHON, skip

W = IC.WORD


@micropython.native
def plain_native(x):
    return x + 1


@micropython.native
def native_with_child(n):
    return [i * 2 for i in range(n)]


@micropython.viper
def plain_viper(x: int) -> int:
    return x + 2


def bytecode(x):
    return x


def _make_viper():
    # Each call makes a new function object of one and the same code.
    @micropython.viper
    def f(x: int) -> int:
        return x * 3

    return f


class Holder:
    @micropython.native
    def method(self):
        return 1

    @staticmethod
    @micropython.viper
    def static(x: int) -> int:
        return x

    @classmethod
    @micropython.native
    def klass(cls):
        return cls

    @property
    @micropython.native
    def prop(self):
        return 2

    def slow(self):
        return 3

    class Inner:
        @micropython.viper
        def deep(self) -> int:
            return 4


HERE = __name__  # tests.test_imagecheck (mp_run.py and pytest import it so)
SAMPLE = {  # what the check must find here: name -> kind
    "plain_native": IC.NATIVE,
    "native_with_child": IC.NATIVE,
    "native_with_child.<nested 1>": IC.NATIVE,
    "plain_viper": IC.VIPER,
    "Holder.method": IC.NATIVE,
    "Holder.static": IC.VIPER,
    "Holder.klass": IC.NATIVE,
    "Holder.prop": IC.NATIVE,
    "Holder.Inner.deep": IC.VIPER,
}


def _need_machine_code():
    if not IS_MICROPYTHON:
        skip("machine code only on MicroPython (CPython runs the decorators as plain Python)")


def _here(entries, modules):
    prefix = HERE.replace(".", "/") + ".py "
    named = IC.names(entries, modules)
    out = {}
    for e in entries:
        n = named[e[0]]
        if n.startswith(prefix):
            out[n[len(prefix) :]] = e[1]
    return out


def test_the_code_address_is_the_functions_machine_code():
    _need_machine_code()
    peek = IC.reader()
    f1, f2, g = _make_viper(), _make_viper(), plain_viper
    code = peek(id(f1) + IC.FUN_DATA * W)
    # Two objects of one code read one address; another function another one; none is an
    # object's own address. The type (word 0), the module (1) and the child table (2, NULL
    # here) are alike for f and g, so reading any of them would fail the second assert.
    assert id(f1) != id(f2) and peek(id(f2) + IC.FUN_DATA * W) == code
    assert peek(id(g) + IC.FUN_DATA * W) != code
    assert code not in (id(f1), id(f2), id(g))
    # A native function's code starts with its children's count, and the child table's entry
    # after them is its prelude, which lies in its code's data, after the machine code.
    for fn, n in ((plain_native, 0), (native_with_child, 1)):
        start, table = peek(id(fn) + IC.FUN_DATA * W), peek(id(fn) + 2 * W)
        assert peek(start) == n, (fn, peek(start))
        prelude = table if n == 0 else peek(table + n * W)
        assert 0 < prelude - start < 4096, (fn, hex(start), hex(prelude))


def test_the_wrappers_hold_their_function_in_their_second_word():
    _need_machine_code()
    peek = IC.reader()
    d = Holder.__dict__
    assert peek(id(d["static"]) + W) == id(Holder.static)  # the class gives the function
    bound = Holder.klass  # a bound method: type, function, self
    assert peek(id(d["klass"]) + W) == peek(id(bound) + W)
    p = property(plain_native)
    assert peek(id(p) + W) == id(plain_native)


def test_every_native_and_viper_function_here_is_found_with_its_kind():
    _need_machine_code()
    n, found = IC.scan((HERE,))
    here = _here(found, (HERE,))
    assert n == len(found)
    for n in ("bytecode", "_make_viper", "Holder.slow"):
        assert n not in here
    assert {k: v for k, v in here.items() if k != "digits_into"} == SAMPLE
    # say.py's function imported here: named here when say.py is not scanned ...
    assert here.get("digits_into") == IC.NATIVE
    # ... and in say.py when it is, once.
    modules = (HERE, "firmware.ui.say")
    _, both = IC.scan(modules)
    names = list(IC.names(both, modules).values())
    assert names.count("firmware/ui/say.py digits_into") == 1
    assert "digits_into" not in _here(both, modules)


def test_the_firmware_is_aligned_here():
    _need_machine_code()
    n, found = IC.scan()
    assert n == len(found) and len({e[0] for e in found}) == n  # each once
    assert IC.misaligned(found) == []
    assert IC.scan(every=False) == (n, [])  # what the boot makes: nothing when all is well
    assert IC.verify() == n
    kinds = [e[1] for e in found]
    assert kinds.count(IC.NATIVE) and kinds.count(IC.VIPER)
    assert sorted(IC.MODULES) == list(IC.MODULES)
    names = list(IC.names(found).values())
    assert "firmware/boot/imagecheck.py _native" in names
    assert "firmware/sensing/grid.py Sensing._update" in names


def test_misaligned_code_is_named_by_address():
    _need_machine_code()
    real = IC.reader()
    n, found = IC.scan()
    named = IC.names(found)
    picked = sorted(found, key=lambda e: named[e[0]])[::40]  # natives, vipers, nested
    slots = {e[2] for e in picked}
    moved = {e[3] + 2 for e in picked}

    def fake(addr):
        if addr in slots:  # the code's address, 2 bytes off as mpy-tool's defect makes it
            return real(addr) + 2
        if addr in moved:  # what the walk reads there: the code's first word, as it is
            return real(addr - 2)
        return real(addr)

    try:
        IC.verify(peek=fake)
    except IC.Misaligned as e:
        want = [named[x[0]] for x in sorted(picked, key=lambda x: x[3])]
        assert e.functions == want
        assert e.total == n
        assert str(e).startswith("%d of %d frozen native/viper" % (len(picked), n))
        return
    raise AssertionError("not refused")


def test_the_message_names_a_few_and_what_to_do():
    e = IC.Misaligned(["a.py f", "a.py g", "b.py C.h", "b.py C.i"], 10)
    text = str(e)
    assert text == (
        "4 of 10 frozen native/viper functions misaligned, rebuild the image (make chip): "
        "a.py f, a.py g, b.py C.h and 1 more"
    )
    assert "make chip" in text
    assert e.tag == "IMG" and e.total == 10 and len(e.functions) == 4


def test_the_misaligned_among_found_by_address():
    found = [
        (1, IC.NATIVE, 0, 0x1002, 1, ()),
        (2, IC.VIPER, 0, 0x1000, 2, ()),
        (3, IC.NATIVE, 0, 0x0FFE, 1, (2,)),
        (4, IC.NATIVE, 0, 0x0FFA, 4, ()),
    ]
    assert [e[0] for e in IC.misaligned(found)] == [4, 3, 1]


def test_on_cpython_there_is_no_machine_code():
    if IS_MICROPYTHON:
        skip("CPython only")
    assert IC.scan() == (0, [])
    assert IC.verify() == 0


def test_a_misaligned_image_stops_the_boot_in_the_image_stage_and_blinks():
    # firmware/boot/device.py's check as main.py runs it: the log's entry, the LED, the REPL.
    import main
    from firmware.boot import bootlog, device
    from firmware.store.journal import read_file
    from tests.test_journal import fresh_root

    root = fresh_root(blocks=64)[: -len("/games")]
    bootlog.attach(root + "/boot.log")
    names = ["firmware/ui/say.py digits_into", "firmware/rules/go.py Game.play"]
    blinked = []
    old = IC.verify, IC.blink

    def misaligned(modules=IC.MODULES, peek=None):
        raise IC.Misaligned(names, 169)

    IC.verify, IC.blink = misaligned, lambda: blinked.append(1)
    said = []
    try:
        assert main.main(device.build, said.append) is None  # returns: the REPL stays
    finally:
        IC.verify, IC.blink = old
        bootlog.stage("start")
    log = (read_file(root + "/boot.log") or b"").decode()
    head = log.split("\n")[0]
    assert head == "error image: 2 of 169 frozen native/viper functions misaligned, %s: %s" % (
        IC.REMEDY,
        ", ".join(names),
    )
    assert blinked == [1]
    assert said[0].startswith("tengen: fatal: Misaligned(")
    assert bootlog.last_error(root + "/boot.log") == head[len("error ") :]
