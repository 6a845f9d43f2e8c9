"""A filesystem image for the emulated chip, made on this PC: the board's LittleFS with files.

Start reading at ``littlefs``. MicroPython's unix port formats a LittleFS2 on a file (the
firmware's own ``FileBlockDevice``, firmware/store/blockdev.py) exactly as the rp2 port's
``_boot.py`` formats its flash (4,096-byte blocks, ``progsize=256``, the other sizes its
defaults) and copies a folder's files into it: the chip mounts it as if it had written it
itself. ``Chip(fs=(path, offset))`` (host_tools/board/emulator.py) loads it at the image's
filesystem offset (``host_tools.board.image.filesystem``). No game needs playing to fill it: the
journal's files are written by the firmware's ``Journal`` (on CPython, the same bytes), then
copied in.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BLOCK = 4096
MICROPYTHON = Path(sys.executable).with_name("micropython")

SCRIPT = """
import os, sys, vfs
sys.path.insert(0, sys.argv[1])
from firmware.store.blockdev import FileBlockDevice

out, blocks, src = sys.argv[2], int(sys.argv[3]), sys.argv[4]
dev = FileBlockDevice(out, 4096, blocks)
vfs.VfsLfs2.mkfs(dev, progsize=256)  # as the rp2 port's _boot.py
vfs.mount(vfs.VfsLfs2(dev, progsize=256), "/flash")

def copy(a, b):
    for name, kind, *_ in os.ilistdir(a):
        if kind == 0x4000:
            os.mkdir(b + "/" + name)
            copy(a + "/" + name, b + "/" + name)
        else:
            with open(a + "/" + name, "rb") as f, open(b + "/" + name, "wb") as g:
                while True:
                    chunk = f.read(4096)
                    if not chunk:
                        break
                    g.write(chunk)

copy(src, "/flash")
st = os.statvfs("/flash")
vfs.umount("/flash")
dev.close()
print("free", st[0] * st[3])
"""


def micropython() -> str | None:
    """The unix port beside this Python (the venv's), or one on the PATH."""
    return str(MICROPYTHON) if MICROPYTHON.exists() else shutil.which("micropython")


def littlefs(src: Path, out: Path, size: int) -> int:
    """A LittleFS image of ``size`` bytes at ``out`` holding the files under ``src``; the
    bytes it leaves free."""
    mp = micropython()
    if mp is None:
        raise RuntimeError("micropython (unix port) not installed")
    out = Path(out)
    if out.exists():
        out.unlink()
    done = subprocess.run(
        [mp, "-X", "heapsize=4M", "-c", SCRIPT, str(ROOT), str(out), str(size // BLOCK),
         str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    if done.returncode or not done.stdout.startswith("free "):
        raise RuntimeError("the filesystem image was not made:\n" + done.stdout + done.stderr)
    return int(done.stdout.split()[1])


def board_files(dest: Path) -> None:
    """What ``tengen deploy`` puts beside a Tengen image (boot.py, main.py), under ``dest``."""
    from host_tools.board.deploy import SOURCE_FILES

    dest.mkdir(parents=True, exist_ok=True)
    for name in SOURCE_FILES:
        shutil.copyfile(ROOT / name, dest / name)
