"""``tengen image check`` (host_tools/board/image.py) on real ARM ELF files.

Each image is assembled and linked here with Debian's binutils-arm-none-eabi (``make``
installs it where it can; these tests skip without it): the frozen functions' data as
mpy-tool lays it out (native and viper code in the executable .text, bytecode in .rodata),
named as it names them from this checkout's sources, the table of frozen module names, the
``sys.implementation`` constant that carries the .mpy version, and the flash objects of the
rp2 port. The good image passes; each defect on its own makes the check fail."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from host_tools.board import image as I
from host_tools.cli import app

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ("arm-none-eabi-as", "arm-none-eabi-ld")
PORT_MODULES = ["_boot.py", "rp2.py", "asyncio/__init__.py", "asyncio/core.py"]
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def binutils():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(
            "%s not found: install Debian's binutils-arm-none-eabi (make does, as root; or "
            "apt-get install binutils-arm-none-eabi)" % " and ".join(missing)
        )


@pytest.fixture(scope="module")
def sources():
    natives = I.native_functions(ROOT)
    return {
        "modules": I.expected_modules(ROOT),
        "natives": {k: v for k, v in natives.items() if k is not None},
        "mpy": I.project_mpy_version()[:2],
    }


def _word_list(words):
    return "    .word " + ", ".join(str(w) for w in words) + "\n"


def _data_symbol(name, misaligned, nbytes=6):
    # A fun_data array: at a multiple of 4, or 2 past one (Thumb code is 2-aligned).
    return (
        "    .balign 4\n"
        + ("    .hword 0xbf00\n" if misaligned else "")
        + "    .type %s, %%object\n%s:\n" % (name, name)
        + "    .byte "
        + ", ".join(["0x00"] * nbytes)
        + "\n"
        + "    .size %s, .-%s\n" % (name, name)
    )


def make_image(
    tmp_path,
    sources,
    misalign=(),
    in_rodata=(),
    extra_text=(),
    natives=True,
    drop=(),
    mpy=None,
    arch=I.ARMV6M,
    flash_end=0x10080000,
    storage=(640 * 1024, 1408 * 1024),
    romfs=None,
    name="firmware.elf",
):
    """An ELF image like a build's: ``misalign`` the fun_data names (less the prefix) to put
    at 2 mod 4, ``in_rodata`` the ones to put in .rodata, ``extra_text`` more machine code
    (name, misaligned), ``drop`` board modules left out of the frozen names, ``mpy`` the
    (version, sub-version) in sys.implementation._mpy, ``storage``/``romfs`` (offset, size) of
    the flash objects, ``flash_end`` the image's end."""
    version, sub = sources["mpy"] if mpy is None else mpy
    text, rodata = [], []
    if natives:
        for base, candidates in sources["natives"].items():
            for i in range(len(candidates)):
                rest = base if i == 0 else base + str(i + 1)
                where = rodata if rest in in_rodata else text
                where.append(_data_symbol("fun_data_" + rest, rest in misalign))
    for rest, bad in extra_text:
        text.append(_data_symbol("fun_data_" + rest, bad))
    # Bytecode, at odd addresses: it needs no alignment.
    for rest in ("firmware_app__lt_module_gt_", "firmware_app_App___init__", "rp2_PIO"):
        rodata.append(
            "    .byte 0\n    .type fun_data_%s, %%object\nfun_data_%s:\n" % (rest, rest)
        )
        rodata.append("    .byte 1, 2, 3\n    .size fun_data_%s, .-fun_data_%s\n" % (rest, rest))
    names = PORT_MODULES + [m for m in sources["modules"] if m not in drop]
    table = "".join('    .asciz "%s"\n' % n for n in names) + "    .byte 0\n"
    header = version | (sub | arch << 2) << 8
    machine = b"Tengen (RP2040) with RP2040"
    asm = (
        "    .syntax unified\n    .cpu cortex-m0plus\n    .thumb\n"
        '    .section .text,"ax",%progbits\n    .balign 4\n    .global _start\n'
        "_start:\n    .hword 0xbf00\n"
        + "".join(text)
        + '    .section .rodata,"a",%progbits\n'
        + "".join(rodata)
        + "    .global mp_frozen_names\n    .type mp_frozen_names, %object\n"
        + "mp_frozen_names:\n"
        + table
        + "    .size mp_frozen_names, .-mp_frozen_names\n    .balign 4\n"
        + "    .type mp_sys_implementation_obj, %object\nmp_sys_implementation_obj:\n"
        + _word_list([0, 4, (5 << 3) | 2])
        + "    .word version_info, machine_obj\n"
        + _word_list([header << 1 | 1, 0])
        + "    .size mp_sys_implementation_obj, .-mp_sys_implementation_obj\n"
        + "version_info:\n"
        + _word_list([0, 4, 1 << 1 | 1, 28 << 1 | 1, 0 << 1 | 1, 2])
        + "machine_obj:\n"
        + _word_list([0, 0, len(machine)])
        + "    .word machine_str\n"
        + 'machine_str:\n    .ascii "%s"\n' % machine.decode()
        + '    .section .data,"aw",%progbits\n    .balign 4\n'
        + "rp2_flash_obj:\n"
        + _word_list([0, storage[0], storage[1]])
        + ("rp2_flash_romfs_obj:\n" + _word_list([0, romfs[0], romfs[1]]) if romfs else "")
    )
    src = tmp_path / (name + ".s")
    obj = tmp_path / (name + ".o")
    elf = tmp_path / name
    src.write_text(asm)
    for cmd in (
        ["arm-none-eabi-as", "-o", str(obj), str(src)],
        [
            "arm-none-eabi-ld",
            "-Ttext=0x10000100",
            "-Tdata=0x20000000",
            "--defsym=__flash_binary_end=0x%x" % flash_end,
            "-o",
            str(elf),
            str(obj),
        ],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return elf


def run(path, *args):
    result = CliRunner().invoke(app, ["image", "check", str(path), *args])
    return result.exit_code, result.output


def checks(report):
    return {c.name: c for c in report["checks"]}


def _first(sources, kind):
    for base, candidates in sources["natives"].items():
        if candidates[0][2] == kind:
            return base, candidates
    raise AssertionError("the firmware has no %s function" % kind)


# ---- a good image -------------------------------------------------------------------------------


def test_the_sources_have_native_and_viper_functions(sources):
    kinds = {c[2] for cs in sources["natives"].values() for c in cs}
    assert {"native", "viper"} <= kinds
    base, _ = _first(sources, "viper")
    assert base.endswith(I.qstr_escape("x/y.py")[-len("_dot_py") :])  # named after the file


def test_a_good_image_passes(tmp_path, binutils, sources):
    elf = make_image(tmp_path, sources)
    report = I.check(elf)
    assert report["exit"] == 0, [c.line() for c in report["checks"]]
    c = checks(report)
    assert {k: v.status for k, v in c.items()} == dict.fromkeys(c, I.OK)
    n = sum(len(v) for v in sources["natives"].values())
    assert c["alignment"].details["machine_code_functions"] == n
    assert c["alignment"].details["from_sources_not_found"] == []
    assert c["alignment"].details["bytecode_functions"] == 3  # at odd addresses, and fine
    assert c["version"].details["micropython"] == "1.28.0"
    assert c["version"].details["machine"] == "Tengen (RP2040) with RP2040"

    code, out = run(elf)
    assert code == 0, out
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines[:4]] == ["ok"] * 4
    assert "all %d board modules are frozen in" % len(sources["modules"]) in out
    assert lines[-1] == "image: good, flash it"

    code, out = run(elf, "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["exit"] == 0
    assert [c["check"] for c in data["checks"]] == ["alignment", "frozen", "version", "layout"]


# ---- each defect ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["native", "viper"])
def test_a_misaligned_native_or_viper_function_fails(tmp_path, binutils, sources, kind):
    base, candidates = _first(sources, kind)
    elf = make_image(tmp_path, sources, misalign={base})
    report = I.check(elf)
    assert report["exit"] == 1
    c = checks(report)["alignment"]
    assert c.status == I.FAILED
    assert [m["symbol"] for m in c.details["misaligned"]] == ["fun_data_" + base]
    assert int(c.details["misaligned"][0]["address"], 16) % 4 == 2
    module, qual, _ = candidates[0]
    assert module in c.verdict and kind in c.verdict
    if len(candidates) == 1:
        assert qual in c.verdict

    code, out = run(elf)
    assert code == 1
    assert out.splitlines()[0].startswith("FAILED  native code alignment: 1 of ")
    assert "image: BAD, do not flash it" in out


def test_machine_code_is_known_by_its_section_whatever_its_name(tmp_path, binutils, sources):
    # A frozen port module's native function (no source here): found because it is in .text.
    elf = make_image(tmp_path, sources, extra_text=[("asyncio_core_Loop_run", True)])
    c = checks(I.check(elf))["alignment"]
    assert c.status == I.FAILED
    assert c.details["misaligned"][0]["symbol"] == "fun_data_asyncio_core_Loop_run"
    assert "asyncio/core.py" in c.verdict


def test_a_board_function_is_known_by_its_name_whatever_its_section(tmp_path, binutils, sources):
    base, _ = _first(sources, "native")
    elf = make_image(tmp_path, sources, misalign={base}, in_rodata={base})
    c = checks(I.check(elf))["alignment"]
    assert c.status == I.FAILED
    assert c.details["outside_executable_sections"] == ["fun_data_" + base]


def test_no_machine_code_at_all_is_not_called_good(tmp_path, binutils, sources):
    report = I.check(make_image(tmp_path, sources, natives=False))
    assert checks(report)["alignment"].status == I.UNKNOWN
    assert report["exit"] == 2


def test_a_module_not_frozen_fails(tmp_path, binutils, sources):
    gone = "firmware/ui/say.py"
    assert gone in sources["modules"]
    elf = make_image(tmp_path, sources, drop={gone})
    report = I.check(elf)
    c = checks(report)["frozen"]
    assert report["exit"] == 1 and c.status == I.FAILED
    assert c.details["missing"] == [gone] and gone in c.verdict
    code, out = run(elf)
    assert code == 1 and "FAILED  frozen modules: 1 of the" in out


def test_another_bytecode_version_fails(tmp_path, binutils, sources):
    version, sub = sources["mpy"]
    elf = make_image(tmp_path, sources, mpy=(version, sub - 1))
    c = checks(I.check(elf))["version"]
    assert c.status == I.FAILED
    assert c.details["image"] == "%d.%d" % (version, sub - 1)
    assert "MicroPython 1.28.0" in c.verdict


def test_another_architecture_fails(tmp_path, binutils, sources):
    elf = make_image(tmp_path, sources, arch=5)  # armv7m: an RP2350's image
    c = checks(I.check(elf))["version"]
    assert c.status == I.FAILED and "armv7m" in c.verdict


def test_the_flash_budget_passes_an_image_with_the_margin_and_fails_one_without(
    tmp_path, binutils, sources
):
    fs = 640 * 1024  # the filesystem's start, as on the stock RPI_PICO build
    at_budget = make_image(tmp_path, sources, flash_end=0x10000000 + fs - I.FLASH_MARGIN)
    c = checks(I.check(at_budget))["layout"]
    assert c.status == I.OK, c.verdict
    assert c.details["free"] == I.FLASH_MARGIN == 128 * 1024
    assert "128.0 KiB below the filesystem" in c.verdict and "0.0 KiB to spare" in c.verdict

    # 4 KiB past the budget, still clear of the filesystem: the check fails, saying by how much.
    end = 0x10000000 + fs - I.FLASH_MARGIN + 4096
    over = make_image(tmp_path, sources, flash_end=end, name="over.elf")
    report = I.check(over)
    c = checks(report)["layout"]
    assert report["exit"] == 1 and c.status == I.FAILED
    assert c.details["free"] == 124 * 1024 and c.details["budget"] == 128 * 1024
    assert "124.0 KiB below the filesystem" in c.verdict
    assert "4.0 KiB short of the 128 KiB flash budget" in c.verdict
    assert "mpconfigtrim.h" in c.verdict
    code, out = run(over)
    assert code == 1 and "FAILED  flash layout: the image ends at 0x%08x" % end in out
    assert "image: BAD, do not flash it" in out


def test_an_image_reaching_into_the_filesystem_fails(tmp_path, binutils, sources):
    elf = make_image(tmp_path, sources, flash_end=0x100A0010)
    c = checks(I.check(elf))["layout"]
    assert c.status == I.FAILED
    assert "16 bytes into the filesystem" in c.verdict and "overwritten" in c.verdict


def test_an_image_with_a_romfs_partition_is_held_to_the_partition(tmp_path, binutils, sources):
    # No Tengen image has one (hardware/README.md: why there is no ROMFS variant), but an
    # image that does must stay clear of it: the partition comes first in flash.
    romfs = (640 * 1024, 256 * 1024)
    storage = (896 * 1024, 1152 * 1024)
    elf = make_image(tmp_path, sources, storage=storage, romfs=romfs, flash_end=0x10090000)
    c = checks(I.check(elf))["layout"]
    assert c.status == I.FAILED and "below the ROMFS partition" in c.verdict


def test_an_image_with_no_board_module_frozen_fails(tmp_path, binutils, sources):
    # What the ROMFS variant was: only the port's modules frozen. It is no Tengen image.
    elf = make_image(tmp_path, sources, natives=False, drop=set(sources["modules"]))
    report = I.check(elf)
    c = checks(report)["frozen"]
    assert report["exit"] == 1 and c.status == I.FAILED
    assert len(c.details["missing"]) == len(sources["modules"])


# ---- what cannot be read ----------------------------------------------------------------------------


def test_a_file_that_is_not_an_elf_image_exits_2(tmp_path):
    text = tmp_path / "firmware.uf2"
    text.write_bytes(b"UF2\n" + bytes(508))
    code, out = run(text)
    assert code == 2 and "not an ELF file" in out and "firmware.elf" in out
    code, out = run(tmp_path / "nothing.elf", "--json")
    assert code == 2 and json.loads(out)["error"].startswith("cannot read")


def test_a_message_is_never_broken_at_the_terminal_width(tmp_path):
    # Whatever the folder's path and the terminal's width, a message is one line, whole:
    # rich must not break "not an ELF file" (nor the path) where it would wrap.
    from host_tools.common import cli  # its err: every command's messages

    width = cli.err.width
    try:
        for columns in (40, 60, 80, 200):
            cli.err.width = columns  # as COLUMNS sets it when the console is made
            for n in range(1, 160, 3):
                folder = tmp_path / ("%d-%s" % (columns, "d" * n))
                folder.mkdir()
                text = folder / "firmware.uf2"
                text.write_bytes(b"UF2\n" + bytes(508))
                code, out = run(text)
                assert code == 2 and "%s is not an ELF file" % text in out, (columns, out)
    finally:
        cli.err.width = width


def test_a_truncated_or_stripped_image_exits_2(tmp_path, binutils, sources):
    elf = make_image(tmp_path, sources)
    cut = tmp_path / "cut.elf"
    cut.write_bytes(elf.read_bytes()[:600])
    code, out = run(cut)
    assert code == 2 and "cannot check" in out
    strip = shutil.which("arm-none-eabi-strip") or shutil.which("arm-none-eabi-objcopy")
    if strip is None:
        return
    stripped = tmp_path / "stripped.elf"
    args = ["-o", str(stripped), str(elf)]
    if strip.endswith("objcopy"):
        args = ["--strip-all", str(elf), str(stripped)]
    subprocess.run([strip] + args, check=True)
    code, out = run(stripped)
    assert code == 2 and "no symbol table" in out


def test_an_elf_for_another_machine_exits_2(tmp_path):
    import sys

    code, out = run(sys.executable if Path(sys.executable).is_file() else "/bin/sh")
    assert code == 2  # an x86-64 (or whatever this is) executable, or a script
