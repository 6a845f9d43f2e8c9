"""``make chip``: the Tengen image built, and let through only if ``tengen image check`` passes.

    python -m host_tools.board.chip [--micropython DIR] [--out DIR] [--variant tengen unfixed stock]
                              [--jobs N] [--clean] [--verbose]

Start reading at ``ensure`` (one variant, up to date; the tests' entry point too), then
``build``. The steps, each printed with its time:

1. **The MicroPython tree** (``find_source``): a checkout the maker names (``--micropython``,
   ``MICROPY_DIR``), else the offline kit ``$TENGEN_SHARED/rp2/micropython-1.28.0-rp2.tar.xz``
   (``TENGEN_SHARED`` defaults to the repository's ``../shared``), else an error saying both
   ways. The kit is unpacked once into ``build/chip/kit/`` (checked against its sha256), its
   picotool 2.2.0 built once exactly as its README says (``PICOTOOL_FETCH_FROM_GIT_PATH``: no
   network); ``mpy-cross`` is made in either tree.
2. **The project's fix** for upstream's alignment defect,
   ``hardware/micropython/mpy-tool-armv6m-align.patch``, applied with ``patch -p1`` unless
   ``patch --dry-run -R`` finds it applied already. The tree is always left patched.
3. **The image**: ``make -C ports/rp2 BOARD_DIR=hardware/micropython/boards/TENGEN_PICO``, with
   ``build-TENGEN_PICO/frozen_content.c`` deleted first: make does not know that frozen code
   depends on tools/mpy-tool.py, and an incremental build would keep the old frozen code.
   After a change to the board definition (mpconfigtrim.h...) the folder is built from clean
   (``make_image``). The kit's build runs with ``GIT_CEILING_DIRECTORIES`` at ``build/chip``: unpacked inside
   this repository, py/makeversionhdr.py would otherwise name the image after this
   repository's ``git describe``; the image must call itself v1.28.0 (``genhdr/mpversion.h``).
4. **The gate** (``gate``): ``host_tools.board.image.check`` on the build's firmware.elf. Only if
   it passes are ``firmware.{uf2,elf,bin}`` copied to ``build/chip/tengen/``; otherwise its
   lines are printed, the folder is emptied and the exit code is 1 ("image: BAD, not written").

Variants: ``tengen`` (the above), ``unfixed`` (the same build with the patch reverted, written
to ``build/chip/unfixed/`` whatever the check says: the tests show that the gate refuses it;
the patch is applied again afterwards), ``stock`` (``BOARD=RPI_PICO``, stock MicroPython, for
the deploy journey on a freshly flashed board; the patch changes nothing in it: the port's
frozen modules have no native code). A variant whose inputs (the firmware, the
board definition, the manifest, the patch, the source, this file) have not changed since its
last build is not built again (``build.json`` in its folder). A file lock on ``build/chip``
keeps two builds of the same clone (two pytest runs) from running at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "chip"  # gitignored (build/)
BOARD_DIR = REPO / "hardware" / "micropython" / "boards" / "TENGEN_PICO"
PATCH = REPO / "hardware" / "micropython" / "mpy-tool-armv6m-align.patch"
MANIFEST = REPO / "hardware" / "manifest.py"

VERSION = "1.28.0"  # the MicroPython release the image is built from (mpy-cross agrees)
KIT = "micropython-%s-rp2" % VERSION
KIT_SHA256 = "0814de48f48190e4dff52a22991b17b31403e8f8f3b327106f0da50c24072261"
CLONE = (
    "git clone --branch v%s --recurse-submodules https://github.com/micropython/micropython"
    % VERSION
)

VARIANTS = ("tengen", "unfixed", "stock")
BOARDS = {"tengen": "TENGEN_PICO", "unfixed": "TENGEN_PICO", "stock": "RPI_PICO"}
OUTPUTS = ("firmware.uf2", "firmware.elf", "firmware.bin")
STAMP = "build.json"  # in a variant's output folder: what it was built from

# What a tool missing here is called in Debian (the kit's README lists the same).
TOOLS = {
    "arm-none-eabi-gcc": "gcc-arm-none-eabi libnewlib-arm-none-eabi "
    "libstdc++-arm-none-eabi-newlib",
    "cmake": "cmake",
    "make": "build-essential",
    "cc": "build-essential",
    "patch": "patch",
    "tar": "tar",
    "xz": "xz-utils",
}

EXIT_OK = 0
EXIT_BAD = 1  # a build failed, or the gate refused the image
EXIT_USAGE = 2  # no MicroPython tree, a tool missing


class ChipError(Exception):
    """The image could not be built (or was refused); the message says why and what to do."""

    def __init__(self, message: str, code: int = EXIT_BAD):
        super().__init__(message)
        self.code = code


@dataclass
class Source:
    kind: str  # "kit" or "checkout"
    micropython: Path  # the MicroPython tree: py/, ports/rp2, tools/mpy-tool.py
    root: Path | None  # the kit's top folder (picotool/ beside micropython/); None: checkout
    origin: str  # the tarball's sha256 or the checkout's path: part of the build's stamp


# ---- where MicroPython comes from ----------------------------------------------------------


def shared_dir() -> Path:
    """``$TENGEN_SHARED``, else the repository's ``../shared`` (as tests/support.py)."""
    return Path(os.environ.get("TENGEN_SHARED") or REPO.parent / "shared")


def kit_tarball() -> Path:
    return shared_dir() / "rp2" / (KIT + ".tar.xz")


def no_source_message() -> str:
    return (
        "no MicroPython v%s to build from. Either put the offline kit at %s (set "
        "TENGEN_SHARED to the folder that holds rp2/%s.tar.xz), or name a MicroPython "
        "v%s checkout: make chip MICROPY_DIR=/path/to/micropython (python -m host_tools.board.chip "
        "--micropython DIR). With internet: %s, then make chip MICROPY_DIR=$PWD/micropython"
        % (VERSION, kit_tarball(), KIT, VERSION, CLONE)
    )


def find_source(micropython: str | os.PathLike | None = None) -> Source:
    """The MicroPython tree to build from: the checkout ``micropython`` (default
    ``$MICROPY_DIR``) when one is named, else the offline kit; ``ChipError`` (exit 2) when
    neither is there. Nothing is unpacked or built here."""
    named = micropython or os.environ.get("MICROPY_DIR")
    if named:
        mp = Path(named).expanduser().resolve()
        if not (mp / "py" / "mpconfig.h").is_file() or not (mp / "ports" / "rp2").is_dir():
            raise ChipError(
                "%s is not a MicroPython checkout (no py/mpconfig.h or ports/rp2). %s"
                % (mp, no_source_message()),
                EXIT_USAGE,
            )
        return Source("checkout", mp, None, str(mp))
    tarball = kit_tarball()
    if tarball.is_file():
        return Source("kit", BUILD / "kit" / KIT / "micropython", BUILD / "kit" / KIT, KIT_SHA256)
    raise ChipError(no_source_message(), EXIT_USAGE)


def tree_version(mp: Path) -> str:
    """The MicroPython tree's version, from py/mpconfig.h (``1.28.0``)."""
    text = (mp / "py" / "mpconfig.h").read_text()
    parts = [
        re.search(r"#define MICROPY_VERSION_%s \(?(\d+)\)?\s" % p, text)
        for p in ("MAJOR", "MINOR", "MICRO")
    ]
    if None in parts:
        return "?"
    return ".".join(m.group(1) for m in parts)


def missing_tools() -> list[str]:
    """The build tools not on PATH, with their Debian packages."""
    return ["%s (%s)" % (t, pkg) for t, pkg in TOOLS.items() if shutil.which(t) is None]


# ---- running things ---------------------------------------------------------------------------


def say(text: str) -> None:
    print("chip: " + text, flush=True)


@contextlib.contextmanager
def step(name: str):
    """Prints the step, then its time."""
    say(name + " ...")
    t0 = time.monotonic()
    yield
    say("%s: %.1f s" % (name, time.monotonic() - t0))


def run(cmd: list[str], log: Path, cwd=None, env=None, verbose: bool = False) -> None:
    """Run ``cmd``, its output into ``log`` (and to stdout if ``verbose``); ``ChipError``
    with the log's last lines when it fails."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        f.write("$ %s\n" % " ".join(str(c) for c in cmd))
        f.flush()
        try:
            proc = subprocess.Popen(
                [str(c) for c in cmd],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
        except OSError as e:
            raise ChipError("cannot run %s: %s" % (cmd[0], e)) from None
        for line in proc.stdout:
            f.write(line)
            if verbose:
                sys.stdout.write(line)
        code = proc.wait()
    if code:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise ChipError(
            "%s failed (exit %d); its last lines (all of it in %s):\n%s"
            % (" ".join(str(c) for c in cmd[:4]), code, log, "\n".join(tail))
        )


@contextlib.contextmanager
def locked(folder: Path = BUILD):
    """An exclusive lock on ``folder`` (``.lock`` in it): one build of a clone at a time."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("waiting for another build of this clone (%s) ..." % folder)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- preparing the tree -----------------------------------------------------------------------


def unpack_kit(source: Source) -> None:
    """The kit unpacked into ``build/chip/kit/`` once (a stamp holds the tarball's sha256)."""
    kit = source.root.parent
    stamp = kit / ".unpacked"
    if stamp.is_file() and stamp.read_text().strip() == KIT_SHA256 and source.root.is_dir():
        return
    tarball = kit_tarball()
    with step("unpack %s" % tarball.name):
        digest = sha256_file(tarball)
        if digest != KIT_SHA256:
            raise ChipError(
                "%s is not the kit this project builds from (sha256 %s, expected %s): "
                "replace it, or build from a checkout (MICROPY_DIR; %s)"
                % (tarball, digest, KIT_SHA256, CLONE)
            )
        if kit.exists():
            shutil.rmtree(kit)
        kit.mkdir(parents=True)
        run(["tar", "-xJf", tarball, "-C", kit], BUILD / "logs" / "unpack.log")
        stamp.write_text(KIT_SHA256 + "\n")


def picotool_dir(source: Source) -> Path:
    return source.root / "picotool-install"


def build_picotool(source: Source, jobs: int, verbose: bool) -> None:
    """picotool 2.2.0 from the kit, once, with the kit README's commands: pico-sdk 2.x makes
    the .uf2 with it, and would ``git clone`` it without ``PICOTOOL_FETCH_FROM_GIT_PATH``."""
    root = source.root
    done = root / ".picotool-built"
    if done.is_file() and (picotool_dir(source) / "picotool" / "picotool").is_file():
        return
    with step("picotool 2.2.0 (once)"):
        log = BUILD / "logs" / "picotool.log"
        shutil.rmtree(root / "picotool-build", ignore_errors=True)
        configure = [
            "cmake",
            "-S",
            "picotool",
            "-B",
            "picotool-build",
            "-DPICO_SDK_PATH=%s" % (root / "micropython" / "lib" / "pico-sdk"),
            "-DPICOTOOL_NO_LIBUSB=1",
            "-DPICOTOOL_FLAT_INSTALL=1",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_INSTALL_PREFIX=%s" % picotool_dir(source),
        ]
        run(configure, log, cwd=root, env=build_env(source), verbose=verbose)
        install = ["cmake", "--build", "picotool-build", "-j%d" % jobs, "--target", "install"]
        run(install, log.with_name("picotool-install.log"), root, build_env(source), verbose)
        done.write_text("picotool 2.2.0\n")


def build_mpy_cross(source: Source, jobs: int, verbose: bool) -> None:
    mp = source.micropython
    if (mp / "mpy-cross" / "build" / "mpy-cross").is_file():
        return
    with step("mpy-cross (once)"):
        cmd = ["make", "-C", mp / "mpy-cross", "-j%d" % jobs]
        run(cmd, BUILD / "logs" / "mpy-cross.log", env=build_env(source), verbose=verbose)


def patch_state(mp: Path) -> str:
    """``applied``, ``unapplied`` or ``conflict``: the project's patch in the tree ``mp``."""
    for args, state in ((["-R"], "applied"), ([], "unapplied")):
        done = subprocess.run(
            ["patch", "-p1", "--dry-run", "-f", "-s", "-i", str(PATCH)] + args,
            cwd=mp,
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            return state
    return "conflict"


def set_patch(mp: Path, applied: bool = True) -> bool:
    """The project's patch applied (or reverted, ``applied=False``) in the tree ``mp``;
    whether anything changed. ``ChipError`` if the tree's mpy-tool.py is neither."""
    state = patch_state(mp)
    if state == "conflict":
        raise ChipError(
            "%s does not apply to %s/tools/mpy-tool.py, and is not applied there either: is it "
            "MicroPython v%s, unmodified?" % (PATCH.name, mp, VERSION)
        )
    if (state == "applied") == applied:
        return False
    args = [] if applied else ["-R"]
    done = subprocess.run(
        ["patch", "-p1", "-f", "-s", "-i", str(PATCH)] + args,
        cwd=mp,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise ChipError("patch -p1 %s failed in %s:\n%s" % (" ".join(args), mp, done.stdout))
    return True


def build_env(source: Source) -> dict:
    env = dict(os.environ)
    if source.kind == "kit":
        # Unpacked inside this repository: git must not find it, or py/makeversionhdr.py
        # names the image after this repository's `git describe` (the kit's README).
        env["GIT_CEILING_DIRECTORIES"] = str(BUILD.resolve())
        env["PICOTOOL_FETCH_FROM_GIT_PATH"] = str(picotool_dir(source))
    return env


def prepare(source: Source, jobs: int, verbose: bool = False) -> None:
    """The tree ready to build: unpacked, picotool and mpy-cross made, the patch applied."""
    missing = missing_tools()
    if missing:
        raise ChipError(
            "missing to build the image: %s (make installs them as root with apt-get; or "
            "apt-get install them)" % ", ".join(missing),
            EXIT_USAGE,
        )
    if source.kind == "kit":
        unpack_kit(source)
        build_picotool(source, jobs, verbose)
    else:
        sdk = source.micropython / "lib" / "pico-sdk" / "pico_sdk_init.cmake"
        if not sdk.is_file():
            raise ChipError(
                "%s has no lib/pico-sdk: its submodules are not there. Run make -C %s/ports/rp2 "
                "submodules (needs internet), or clone with --recurse-submodules (%s)"
                % (source.micropython, source.micropython, CLONE),
                EXIT_USAGE,
            )
    have = tree_version(source.micropython)
    if have != VERSION:
        raise ChipError(
            "%s is MicroPython %s; the Tengen image is built from v%s (the project's mpy-cross "
            "and the patch are for it): git -C %s checkout v%s && git -C %s submodule update "
            "--init --recursive"
            % (source.micropython, have, VERSION, source.micropython, VERSION, source.micropython),
            EXIT_USAGE,
        )
    build_mpy_cross(source, jobs, verbose)
    if set_patch(source.micropython, True):
        say("applied %s to %s" % (PATCH.name, source.micropython / "tools" / "mpy-tool.py"))


# ---- the build ---------------------------------------------------------------------------------


def build_dir(source: Source, variant: str) -> Path:
    return source.micropython / "ports" / "rp2" / ("build-" + BOARDS[variant])


def image_version(folder: Path) -> str:
    """The version the built image calls itself (``MICROPY_GIT_TAG`` of genhdr/mpversion.h)."""
    try:
        text = (folder / "genhdr" / "mpversion.h").read_text()
    except OSError:
        return "?"
    m = re.search(r'#define MICROPY_GIT_TAG "([^"]*)"', text)
    return m.group(1) if m else "?"


def board_digest() -> str:
    """The board definition's files, hashed: what the build folder was configured from."""
    h = hashlib.sha256()
    for f in sorted(p for p in BOARD_DIR.iterdir() if p.is_file()):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def make_image(source: Source, variant: str, jobs: int, verbose: bool, clean: bool) -> Path:
    """``make -C ports/rp2`` for ``variant``; the build folder. Frozen code is always
    regenerated (see the module's doc); after a change to the board definition the folder is
    built from clean: MicroPython's qstr extraction looks only at changed sources, not at a
    changed configuration header (a feature taken out or back would leave stale names)."""
    folder = build_dir(source, variant)
    mark = folder / "tengen-board.sha256"
    if variant != "stock" and folder.exists() and not clean:
        try:
            clean = mark.read_text().strip() != board_digest()
        except OSError:
            clean = True
        if clean:
            say("the board definition changed since %s was built: building it from clean" % folder)
    if clean and folder.exists():
        shutil.rmtree(folder)
    board = ["BOARD=RPI_PICO"] if variant == "stock" else ["BOARD_DIR=%s" % BOARD_DIR]
    (folder / "frozen_content.c").unlink(missing_ok=True)
    # makemanifest recompiles a .py only when it is newer than its cached .mpy: a manifest's
    # changed options (opt=3) would be ignored. The cache is cheap to rebuild; never trusted.
    shutil.rmtree(folder / "frozen_mpy", ignore_errors=True)
    cmd = ["make", "-C", source.micropython / "ports" / "rp2", "-j%d" % jobs] + board
    log = BUILD / "logs" / ("%s.log" % variant)
    with step("image %s (%s)" % (variant, board[0].split("/")[-1])):
        try:
            run(cmd, log, env=build_env(source), verbose=verbose)
        except ChipError as e:
            raise ChipError(
                "%s\nIf it failed while configuring, the folder is left half-configured: run "
                "again with --clean (make chip CHIP_ARGS=--clean) to start %s afresh."
                % (e, folder)
            ) from None
    if variant != "stock":
        mark.write_text(board_digest() + "\n")
    tag = image_version(folder)
    want = "v" + VERSION
    if (source.kind == "kit" and tag != want) or not tag.startswith(want):
        raise ChipError(
            "the image calls itself %s, not %s (%s/genhdr/mpversion.h): git's describe of "
            "another repository leaked into the build" % (tag, want, folder)
        )
    return folder


def check_lines(report: dict) -> list[str]:
    from host_tools.board import image as I

    return [c.line() for c in report["checks"]] + [I.summary_line(report)]


def gate(elf: Path, out: Path, refuse: bool = True) -> dict:
    """``tengen image check`` on ``elf``; its files (``firmware.{uf2,elf,bin}`` beside it)
    copied to ``out`` only if it passes. ``refuse``: a failed check raises ``ChipError`` and
    leaves ``out`` without an image; else (the ``unfixed`` variant) they are copied anyway.
    Returns the check's report."""
    from host_tools.board import image as I

    report = I.check(elf)
    lines = check_lines(report)
    for line in lines:
        print("  " + line, flush=True)
    good = report["exit"] == I.EXIT_GOOD
    if out.exists():
        shutil.rmtree(out)  # never an older image beside this check's verdict
    if not good and refuse:
        raise ChipError("image: BAD, not written (%s)" % elf)
    out.mkdir(parents=True)
    for name in OUTPUTS:
        shutil.copyfile(elf.parent / name, out / name)
    (out / "check.txt").write_text("\n".join(lines) + "\n")
    return report


def inputs_digest(variant: str, source: Source) -> str:
    """What a variant's image is made from: the source, this file, and (for the Tengen
    image) the patch, the board definition, the manifest and the firmware's sources."""
    h = hashlib.sha256()
    h.update(("%s\n%s\n%s\n" % (variant, source.kind, source.origin)).encode())
    files = [Path(__file__)]
    if variant != "stock":
        files += [PATCH, MANIFEST] + sorted(p for p in BOARD_DIR.iterdir() if p.is_file())
        files += sorted((REPO / "firmware").rglob("*.py"))
    for f in files:
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def up_to_date(out: Path, digest: str) -> bool:
    try:
        stamp = json.loads((out / STAMP).read_text())
    except (OSError, ValueError):
        return False
    return stamp.get("inputs") == digest and all((out / n).is_file() for n in OUTPUTS)


def build(
    variant: str,
    source: Source,
    out: Path,
    jobs: int,
    verbose: bool = False,
    clean: bool = False,
    digest: str = "",
) -> dict:
    """Build ``variant`` from the prepared ``source`` into ``out`` (see the module's doc);
    returns what ``build.json`` records."""
    t0 = time.monotonic()
    mp = source.micropython
    report = None
    if variant == "unfixed":
        set_patch(mp, False)
        say("reverted %s for the unfixed image" % PATCH.name)
        try:
            folder = make_image(source, variant, jobs, verbose, clean)
        finally:
            set_patch(mp, True)
            say("applied %s again" % PATCH.name)
        report = gate(folder / "firmware.elf", out, refuse=False)
    elif variant == "tengen":
        folder = make_image(source, variant, jobs, verbose, clean)
        with step("image check (the gate)"):
            report = gate(folder / "firmware.elf", out)
    else:
        folder = make_image(source, variant, jobs, verbose, clean)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for name in OUTPUTS:
            shutil.copyfile(folder / name, out / name)
    record = {
        "variant": variant,
        "inputs": digest,
        "source": str(source.root or source.micropython),
        "micropython": image_version(folder),
        "build": str(folder),
        "seconds": round(time.monotonic() - t0, 1),
        "check_exit": None if report is None else report["exit"],
    }
    (out / STAMP).write_text(json.dumps(record, indent=1) + "\n")
    say("%s image in %s (MicroPython %s)" % (variant, out, record["micropython"]))
    return record


def ensure(
    variant: str = "tengen",
    micropython: str | os.PathLike | None = None,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    verbose: bool = False,
    clean: bool = False,
) -> Path:
    """The folder holding ``variant``'s ``firmware.uf2``/``.elf``/``.bin`` (``out``/variant,
    default ``build/chip/<variant>``), built unless it is up to date. ``ChipError`` when it
    cannot be built or (``tengen``) the image check refuses it."""
    if variant not in VARIANTS:
        raise ChipError("no variant %r: one of %s" % (variant, ", ".join(VARIANTS)), EXIT_USAGE)
    if not BOARD_DIR.is_dir():
        raise ChipError(
            "no board definition at %s: make chip builds from the repository's checkout"
            % BOARD_DIR,
            EXIT_USAGE,
        )
    folder = Path(out or BUILD) / variant
    jobs = jobs or os.cpu_count() or 2
    source = find_source(micropython)
    digest = inputs_digest(variant, source)
    with locked():
        if not clean and up_to_date(folder, digest):
            say("%s image up to date in %s" % (variant, folder))
            return folder
        prepare(source, jobs, verbose)
        build(variant, source, folder, jobs, verbose, clean, digest)
    return folder


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m host_tools.board.chip",
        description="Build the Tengen image (MicroPython v%s with the board's modules frozen "
        "in) from the offline kit or a MicroPython checkout; the image check is the gate."
        % VERSION,
    )
    ap.add_argument(
        "--micropython",
        metavar="DIR",
        help="a MicroPython v%s checkout to build from (default $MICROPY_DIR; else the "
        "offline kit in $TENGEN_SHARED/rp2)" % VERSION,
    )
    ap.add_argument(
        "--out", metavar="DIR", help="where the images go, one folder a variant (build/chip)"
    )
    ap.add_argument(
        "--variant",
        nargs="+",
        choices=VARIANTS,
        default=["tengen"],
        help="tengen: the image (refused unless the image check passes); unfixed: without "
        "the project's patch (for the gate's test); stock: stock MicroPython (RPI_PICO)",
    )
    ap.add_argument("--jobs", "-j", type=int, help="parallel jobs (default: the CPUs)")
    ap.add_argument("--clean", action="store_true", help="delete the build folder first")
    ap.add_argument("--verbose", "-v", action="store_true", help="show the build's output")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        for variant in args.variant:
            ensure(variant, args.micropython, args.out, args.jobs, args.verbose, args.clean)
    except ChipError as e:
        print("chip: %s" % e, file=sys.stderr, flush=True)
        return e.code
    say("done in %.1f s" % (time.monotonic() - t0))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
