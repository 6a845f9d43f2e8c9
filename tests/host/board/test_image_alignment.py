"""The boot's alignment check (firmware/boot/imagecheck.py) against the sources, and ``tengen
deploy`` refusing a board whose image has misaligned frozen machine code (the probe's
``image``, host_tools/board/deploy.py ``image_fault``), with tests/host/board/test_deploy.py's fakes.

What the check finds on the unix port is compared name by name with what the sources say
is machine code (host_tools/board/image.py ``native_functions``, the AST) and the scopes nested in
native functions, which it reaches through their child tables; tests/host/board/test_chip_gate.py
compares it with the image's ELF on the emulated chip.
"""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.boot import imagecheck as IC
from host_tools.board import deploy as D
from host_tools.board import image as I
from tests.host.board.test_deploy import FakeBoard, _go, _mp_commands

ROOT = Path(__file__).resolve().parents[3]
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp)
NESTED += (ast.DictComp, ast.GeneratorExp)


def _micropython():
    mp = Path(sys.executable).parent / "micropython"
    if not mp.exists():
        pytest.skip("no MicroPython unix port in the venv")
    return mp


def _dotted(module):
    return module[: -len(".py")].replace("/", ".")


def _expected():
    """``{name: kind}`` of every machine-code function of the board's modules as
    imagecheck names them: the AST's, and the scopes nested in native ones."""
    out = {}
    for candidates in (v for k, v in I.native_functions().items() if k is not None):
        for module, qual, kind in candidates:
            out["%s %s" % (module, qual)] = kind
    for module in I.expected_modules():
        tree = ast.parse((ROOT / module).read_text())

        def visit(node, qual, native, module=module):
            n = 0  # the children of a scope, in the compiler's order (source order)
            for child in _scopes_in(node):
                n += 1
                if isinstance(child, ast.ClassDef):
                    visit(child, qual + [child.name], False)
                    continue
                # In a native function every scope is native, named by its place.
                name = getattr(child, "name", None)
                here = qual + [name if name and not native else "<nested %d>" % n]
                if native:
                    out["%s %s" % (module, ".".join(here))] = "native"
                kind = I._machine_code_kind(child) if name else None
                visit(child, here, native or kind == "native")

        visit(tree, [], False)
    return out


def _scopes_in(node):
    # The scopes directly inside ``node`` (not inside them), in source order.
    for child in ast.iter_child_nodes(node):
        if isinstance(child, NESTED + (ast.ClassDef,)):
            yield child
        else:
            yield from _scopes_in(child)


def test_modules_is_every_board_module_with_machine_code():
    have = {m for k, v in I.native_functions().items() if k is not None for m, _, _ in v}
    assert set(IC.MODULES) == {_dotted(m) for m in have}
    assert "firmware/boot/imagecheck.py" in have  # its own two, whose types it compares with


def test_no_machine_code_hides_where_the_check_cannot_reach():
    # Native and viper functions are found in module globals and class bodies, the scopes in
    # a native function through its child table; a machine-code scope in a bytecode or viper
    # function would be missed (their children are not counted on the chip).
    for module in I.expected_modules():
        tree = ast.parse((ROOT / module).read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            kind = I._machine_code_kind(fn)
            if kind == "native":
                continue
            for inner in ast.walk(fn):
                if inner is fn or not isinstance(inner, NESTED):
                    continue
                assert kind != "viper", (module, fn.name, "a scope in a viper function")
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    assert not I._machine_code_kind(inner), (module, fn.name, inner.name)


def test_the_unix_port_finds_what_the_sources_say(tmp_path):
    mp = _micropython()
    script = (
        "import sys\nsys.path.insert(0, %r)\n"
        "import json\nfrom firmware.boot import imagecheck as IC\n"
        "n, found = IC.scan()\n"
        "named = IC.names(found)\n"
        "print(json.dumps({named[e[0]]: e[1] for e in found}))\n"
        "print(n, len(IC.misaligned(found)))\n" % str(ROOT)
    )
    proc = subprocess.run([str(mp), "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    found = json.loads(lines[0])
    want = _expected()
    assert found == want
    assert lines[1] == "%d 0" % len(want)
    assert sum(1 for n in want if "<nested" in n) == 3  # Referee._fifth's two, _do_play's


def test_the_probe_checks_the_frozen_modules_alignment(tmp_path):
    # The probe on the unix port, with a copy of the firmware standing in for the frozen
    # modules: it runs the check and reports how many it checked.
    mp = _micropython()
    image = tmp_path / "frozen"
    shutil.copytree(ROOT / "firmware", image / "firmware")
    script = D.PROBE.replace("['.frozen']", repr([str(image)]))
    script += "import sys\nprint('left', [k for k in sys.modules if 'firmware' in k])\n"
    proc = subprocess.run([str(mp), "-c", script], cwd=tmp_path, capture_output=True, text=True)
    info = D.parse_probe(proc.stdout)
    assert info is not None, proc.stdout + proc.stderr
    assert info["image"] == {"checked": len(_expected()), "misaligned": 0, "names": []}
    assert "left []" in proc.stdout
    assert D.image_fault(info) == ""


class MisalignedBoard(FakeBoard):
    """A Tengen image whose probe reports ``image``."""

    image = None

    def _exec(self, script):
        out = super()._exec(script)
        if script != D.PROBE:
            return out
        info = json.loads(out[len(D.PROBE_MARK) :])
        info["image"] = self.image
        return D.PROBE_MARK + json.dumps(info) + "\n"


BAD = {
    "checked": 169,
    "misaligned": 87,
    "names": [
        "firmware/ui/say.py offers_into",
        "firmware/ui/say.py digits_into",
        "firmware/ui/face.py SSD1306Face.show",
    ],
}


def test_deploy_refuses_a_board_whose_frozen_code_is_misaligned(tmp_path):
    board = MisalignedBoard(frozen="0.1.0", fs={"/main.py", "/boot.py"})
    board.image = BAD
    before = set(board.fs)
    with pytest.raises(D.DeployError) as e:
        _go(tmp_path, board, pin=None)
    msg = str(e.value)
    assert "87 of 169 functions are misaligned (firmware/ui/say.py offers_into, " in msg
    assert "firmware/ui/face.py SSD1306Face.show and 84 more)" in msg
    assert "HardFaults" in msg and "wrong values" in msg
    assert "`make chip`" in msg and "hardware/README.md" in msg and "tengen image check" in msg
    assert "Nothing was copied" in msg
    assert _mp_commands(board) == [["exec", D.PROBE]] and board.fs == before


def test_the_decision_on_the_probes_image():
    rp2 = {"impl": "micropython", "platform": "rp2", "version": "1.28.0", "mpy": 6 | 3 << 8}
    tengen = dict(rp2, frozen=True, frozen_fw="0.1.0")
    ok = {"checked": 169, "misaligned": 0, "names": []}
    assert D.decide(dict(tengen, image=ok), version="0.1.0") == (D.FROZEN, [])
    assert D.decide(dict(tengen, image=None), version="0.1.0") == (D.FROZEN, [])  # older
    with pytest.raises(D.DeployError, match="87 of 169 functions are misaligned"):
        D.decide(dict(tengen, image=BAD), version="0.1.0")
    kind, warnings = D.decide(dict(tengen, image={"error": "OSError(5)"}), version="0.1.0")
    assert kind == D.FROZEN and "could not check" in warnings[0] and "OSError(5)" in warnings[0]
    # Names left off by the probe are counted, not listed.
    assert D.image_fault({"image": {"checked": 9, "misaligned": 2, "names": []}}).count("(2 more)")
