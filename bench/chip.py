"""The benches on the chip: the Tengen image on the emulated RP2040 beside the unix port.

    python -m bench.chip [--image UF2] [--emu DIR] [--only NAMES] [--games N] [--journal N]
                         [--passes N] [--json FILE]

``make bench`` runs it last of the MicroPython benches (CPython, from the repository root).
Start reading at ``main``. It

1. writes the data (``bench/chip_data.py`` on the unix port): a LittleFS image of the Pico's
   filesystem with corpus games, the built worst cases and the journal's 1,000 games;
2. runs each driver of ``bench/onchip/`` (``prelude.py`` says how they are sent) on the
   unix port, the image mounted from RAM: its figure times the benches' rule (unix time x
   48.8 ms / the calibration loop's time) is the benches' RP2040 estimate;
3. boots the image (``build/chip/tengen/firmware.uf2`` from ``make chip``, else the kit's) on
   the emulator (``host_tools/board/emulator.py``: rp2040js counting Cortex-M0+ cycles at 125 MHz,
   so ``time.ticks_us()`` on it is the chip's own time) with that filesystem on its flash,
   and runs the same drivers there with ``mpremote run``: the chip's figure, measured;
4. writes the driver of the boot as the chip's ``main.py`` and resets it: power-up to the
   first faces;
5. prints the table: unix µs, the estimate, the chip, and chip / estimate.

Without the image, node or the unix port it says what is missing and exits 0 (``make bench``
goes on); a driver that fails prints its error and the rest still run. The figures are
information: no threshold fails anything. ``bench/README.md`` has a run's table and what the
ratios mean.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from host_tools.board import emulator

ROOT = Path(__file__).resolve().parents[1]
ONCHIP = ROOT / "bench" / "onchip"
CALIB_RP2040_MS = 48.8  # bench_go's CALIB_RP2040_MS: the benches' rule
FLASH = 2 * 1024 * 1024
FS_OFFSET = 0xA0000  # the Tengen image's filesystem: the last 1,408 KiB of the 2 MiB flash
# The order matters: the self-checks first after power-up (cold, as the boot runs them).
DRIVERS = ("selfcheck", "go", "kernels", "renju", "clock", "referee", "journal", "boot")
MOUNT = "/cd"  # where the unix port mounts the chip's filesystem image

# The table: (driver, key, what). The chip's figure is the first pass's (its slowest call
# for a worst case); the estimate is the unix port's fastest timing of each call (the
# benches' statistic) times the rule.
ROWS = (
    ("go", "go_mean", "Go move, corpus mean"),
    ("go", "go_worst", "Go move, corpus worst"),
    ("go", "go_count", "Go area count, worst"),
    ("go", "long_mean", "1,024-ply game, mean move"),
    ("go", "long_worst", "1,024-ply game, worst move"),
    ("go", "long_scan", "new position at ply 1,024"),
    ("go", "snake1_capture", "comb snake 1 band, capture"),
    ("go", "snake2_capture", "comb snake 2 bands, capture"),
    ("go", "snake3_capture", "comb snake 3 bands, capture"),
    ("go", "snake2_legal", "comb snake 2 bands, legal()"),
    ("kernels", "k_flood", "  flood(), 2-band snake's fill"),
    ("kernels", "k_take", "  _take(), 2-band snake's lift"),
    ("kernels", "k_call", "  a viper call, flood's 7 arguments"),
    ("kernels", "k_seen", "  _seen(), 1,023 plies"),
    ("kernels", "k_viper", "  viper loop, 10,000 adds"),
    ("kernels", "k_native", "  native loop, 10,000 adds"),
    ("kernels", "k_calib", "  bytecode loop (calib)"),
    ("renju", "renju_check", "Renju forbidden(), searched worst"),
    ("renju", "renju_fixed", "Renju forbidden(), test positions"),
    ("renju", "renju_scan", "Renju forbidden_points(), worst"),
    ("referee", "ref_change", "frame with a change, worst"),
    ("referee", "ref_change_mean", "frame with a change, mean"),
    ("referee", "ref_quiet_mean", "frame, no change, mean"),
    ("referee", "ref_press", "Referee.press, worst"),
    ("clock", "clock_tick", "clock tick (slowest case)"),
    ("clock", "clock_press", "clock press (slowest case)"),
    ("clock", "clock_face", "clock face (slowest case)"),
    ("clock", "clock_press_single", "clock press, worst single"),
    ("selfcheck", "selfcheck", "selfcheck.run()"),
    ("journal", "journal_rebuild", "journal index rebuild"),
    ("journal", "journal_list", "journal list, page of 50"),
    ("journal", "journal_get", "journal get, a whole game"),
    ("journal", "journal_ack", "journal ack"),
    ("boot", "boot_build", "boot: device.build()"),
    ("boot", "boot_face", "boot: first faces pass"),
)


class Missing(Exception):
    """Something the chip benches need and this machine lacks, in words."""


# ---- what runs where ------------------------------------------------------------------------


def find_image(given=None) -> Path:
    """The Tengen image: ``given``, ``$TENGEN_CHIP_IMAGE``, else ``make chip``'s (built now if
    need be: host_tools/board/chip.py)."""
    for p in (given, os.getenv("TENGEN_CHIP_IMAGE")):
        if p and Path(p).is_file():
            return Path(p)
    from host_tools.board import chip

    try:
        return chip.ensure("tengen") / "firmware.uf2"
    except (chip.ChipError, OSError) as e:
        raise Missing("no Tengen image: make chip cannot build one here: %s" % e) from e


def find_emu(given=None) -> Path:
    """The emulator's folder (runner.js, node_modules, the boot ROM), set up if need be."""
    if given and (Path(given) / "node_modules").is_dir():
        return Path(given)
    try:
        return emulator.setup()
    except emulator.EmulatorMissing as e:
        raise Missing(str(e)) from e


def find_micropython() -> str:
    mp = os.getenv("MICROPYTHON") or str(ROOT / ".venv" / "bin" / "micropython")
    if not Path(mp).exists() and shutil.which(mp) is None:
        raise Missing("no MicroPython unix port at %s (make venv)" % mp)
    return mp


def script(name: str, settings: str) -> str:
    """A driver as sent: the prelude, the run's settings, the driver less its prelude import."""
    prelude = (ONCHIP / "prelude.py").read_text()
    text = (ONCHIP / ("boot_time.py" if name == "boot" else name + ".py")).read_text()
    text = re.sub(r"from bench\.onchip\.prelude import (\([^)]*\)|[^\n]*)\n", "", text)
    return prelude + "\n" + settings + "\n" + text


def parse(out: str) -> dict:
    """The ``= KEY FIRST BEST [words]`` lines: ``{key: [first, best, words]}``."""
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "=" and parts[1] != "data":
            try:
                res[parts[1]] = [float(parts[2]), float(parts[3]), " ".join(parts[4:])]
            except ValueError:
                pass
    return res


def errors(out: str) -> str:
    """What a failed run said: its traceback's last lines."""
    lines = [s for s in out.splitlines() if s.strip() and not s.startswith("=")]
    return "\n".join(lines[-6:])


# ---- the data, the unix port ------------------------------------------------------------------


def make_data(mp: str, tmp: Path, opts) -> tuple[Path, str]:
    cmd = [mp, "-X", "heapsize=16M", "-m", "bench.chip_data", str(tmp)]
    cmd += ["--games", str(opts.games), "--journal", str(opts.journal)]
    cmd += ["--tries", str(opts.tries), "--referee-moves", str(opts.referee_moves)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if done.returncode or not (tmp / "fs.bin").exists():
        raise RuntimeError("bench/chip_data.py failed:\n" + (done.stdout + done.stderr)[-2000:])
    return tmp / "fs.bin", done.stdout


def run_unix(mp: str, name: str, fs: Path, tmp: Path, passes: int, args: dict) -> tuple:
    settings = "ROOT = %r\nPASSES = %d\nARGS = %r\nmount(%r, ROOT)\n" % (
        MOUNT,
        passes,
        args,
        str(fs),
    )
    path = tmp / ("unix_%s.py" % name)
    path.write_text(script(name, settings))
    env = dict(os.environ, MICROPYPATH=str(ROOT))
    done = subprocess.run(
        [mp, "-X", "heapsize=16M", str(path)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = done.stdout + done.stderr
    return parse(out), (errors(out) if done.returncode else "")


# ---- the chip -------------------------------------------------------------------------------


def flash_state(uf2: Path, fs: Path, out: Path):
    """The chip's whole flash as the emulator keeps it: the image, and the filesystem."""
    flash = bytearray(b"\xff" * FLASH)
    data = uf2.read_bytes()
    for off in range(0, len(data) - 511, 512):
        block = data[off : off + 512]
        if block[:8] != b"UF2\n\x57\x51\x5d\x9e":
            continue
        addr = int.from_bytes(block[12:16], "little") - 0x10000000
        size = int.from_bytes(block[16:20], "little")
        if 0 <= addr < FLASH:
            flash[addr : addr + size] = block[32 : 32 + size]
    img = fs.read_bytes()
    flash[FS_OFFSET : FS_OFFSET + len(img)] = img
    out.write_bytes(bytes(flash))


class OnChip:
    """The emulated board the drivers run on, over mpremote."""

    def __init__(self, uf2: Path, emu: Path, fs: Path, folder: Path, wall: int):
        folder.mkdir(parents=True, exist_ok=True)
        self.chip = emulator.Chip(uf2, folder, emu=emu, wall=wall)
        flash_state(uf2, fs, self.chip.flash)
        self.folder = folder
        self.mpremote = str(ROOT / ".venv" / "bin" / "mpremote")
        if not Path(self.mpremote).exists():
            self.mpremote = shutil.which("mpremote") or "mpremote"

    def start(self):
        self.chip.start()

    def stop(self):
        self.chip.stop()

    def _mp(self, *args, timeout=900):
        cmd = [self.mpremote, "connect", self.chip.port, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)

    def run(self, name: str, passes: int, args: dict) -> tuple:
        settings = "ROOT = ''\nPASSES = %d\nARGS = %r\n" % (passes, args)
        path = self.folder / ("chip_%s.py" % name)
        path.write_text(script(name, settings))
        done = self._mp("run", str(path))  # mpremote soft-resets first: a clean heap
        out = done.stdout + done.stderr
        res = parse(out)
        bad = errors(out) if done.returncode or "Traceback" in out else ""
        return res, bad

    def boot(self, timeout=600) -> tuple:
        """The boot driver as ``main.py``, the chip reset: its lines from ``/bench/boot.txt``."""
        path = self.folder / "main.py"
        path.write_text(script("boot", "ROOT = ''\nPASSES = 1\nARGS = {}\n"))
        done = self._mp("fs", "cp", str(path), ":main.py")
        if done.returncode:
            return {}, errors(done.stdout + done.stderr)
        outlog = Path(str(self.chip.link) + ".out.log")
        mark = outlog.stat().st_size if outlog.exists() else 0
        self._mp("reset", timeout=60)  # machine.reset(): the emulator powers it up again
        end = time.monotonic() + timeout
        said = b""
        while time.monotonic() < end and b"= boot_done" not in said and b"Error" not in said:
            time.sleep(1)
            with open(outlog, "rb") as f:
                f.seek(mark)
                said = f.read()
        time.sleep(1)  # main.py returns: the REPL is free
        done = self._mp("fs", "cat", ":bench/boot.txt", timeout=120)
        res = parse(done.stdout)
        if not res:
            return {}, errors(said.decode("utf-8", "replace") + done.stdout + done.stderr)
        return res, ""


# ---- the table ------------------------------------------------------------------------------


def table(unix: dict, chip: dict) -> list[str]:
    """The report's lines: per row the unix port's µs and the estimate from it, the chip's
    first pass and its fastest, and chip / estimate (fastest against fastest)."""
    lines = []
    head = "  %-36s %9s %9s %9s %9s %8s"
    lines.append(head % ("", "unix µs", "est. ms", "chip 1st", "chip ms", "chip/est"))
    for driver, key, what in ROWS:
        u = unix.get(driver, {}).get(key)
        c = chip.get(driver, {}).get(key)
        cal = unix.get(driver, {}).get("calib")
        if u is None and c is None:
            continue
        est = u[1] * CALIB_RP2040_MS / cal[1] if u and cal else None
        lines.append(
            head
            % (
                what,
                "%.1f" % u[1] if u else "-",
                "%.3f" % est if est is not None else "-",
                "%.3f" % (c[0] / 1000) if c else "-",
                "%.3f" % (c[1] / 1000) if c else "-",
                "%.2f" % (c[1] / 1000 / est) if est and c else "-",
            )
        )
    return lines


def facts(unix: dict, chip: dict) -> list[str]:
    out = []
    cal = [chip.get(d, {}).get("calib") for d in DRIVERS if chip.get(d, {}).get("calib")]
    if cal:
        best = min(c[1] for c in cal)
        out.append(
            "  the calibration loop on the chip: %.2f ms (the rule assumes %.1f ms)"
            % (best / 1000, CALIB_RP2040_MS)
        )
    ucal = [unix.get(d, {}).get("calib") for d in DRIVERS if unix.get(d, {}).get("calib")]
    if ucal:
        out.append(
            "  on the unix port: %d-%d µs (the fastest of each driver's samples)"
            % (min(c[1] for c in ucal), max(c[1] for c in ucal))
        )
    for side, res in (("unix port", unix), ("chip", chip)):
        bad = res.get("selfcheck", {}).get("selfcheck_failed")
        if bad:
            out.append("  SELF-CHECK FAILED on the %s: %s" % (side, bad[2].replace("_", " ")))
    sc = chip.get("selfcheck", {})
    if "selfcheck_cold" in sc:
        out.append(
            "  self-checks: the first selfcheck.run() after power-up, cold (it imports the"
            " kernels' modules), %.0f ms on the chip; importing selfcheck and the HAL %.0f ms"
            % (sc["selfcheck_cold"][0] / 1000, sc.get("selfcheck_import", [0])[0] / 1000)
        )
    boot = chip.get("boot", {})
    if "boot_power" in boot:
        out.append(
            "  boot: power-up to the first faces %.0f ms on the chip; free heap after build"
            " %d B" % (boot["boot_power"][0] / 1000, boot.get("boot_heap", [0])[0])
        )
    j = chip.get("journal", {})
    if "journal_heap" in j:
        out.append(
            "  journal: %s indexed, %d B of heap free with the index built"
            % (j["journal_rebuild"][2].replace("_", " "), j["journal_heap"][0])
        )
    for driver, key, words in (
        ("go", "go_mean", "corpus"),
        ("go", "go_worst", "corpus worst"),
        ("go", "long_worst", "1,024-ply worst"),
        ("renju", "renju_check", "Renju search"),
        ("referee", "ref_change", "referee replay"),
    ):
        r = chip.get(driver, {}).get(key)
        if r and r[2]:
            out.append("  %s: %s" % (words, r[2].replace("_", " ")))
    return out


# ---- main -----------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench.chip", description=__doc__.split("\n\n")[0])
    p.add_argument("--image", help="the Tengen image (.uf2)")
    p.add_argument("--emu", help="the emulator's folder (runner.js, node_modules)")
    p.add_argument("--only", help="drivers, comma-separated: " + ",".join(DRIVERS))
    p.add_argument("--games", type=int, default=24, help="corpus games for the Go replay")
    p.add_argument("--journal", type=int, default=1000, help="games stored in the journal")
    p.add_argument("--tries", type=int, default=6000, help="the Renju search's tries")
    p.add_argument("--referee-moves", type=int, default=120, help="moves through the referee")
    p.add_argument("--calls", type=int, default=100, help="calls in a clock batch")
    p.add_argument("--passes", type=int, default=5, help="passes on the unix port")
    p.add_argument("--chip-passes", type=int, default=1, help="passes on the chip")
    p.add_argument("--json", help="write the figures here (JSON)")
    p.add_argument("--keep", help="work in this folder and keep it (logs, flash)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    names = DRIVERS if not opts.only else tuple(n for n in DRIVERS if n in opts.only.split(","))
    try:
        uf2 = find_image(opts.image)
        emu = find_emu(opts.emu)
        mp = find_micropython()
    except Missing as e:
        print("chip benches skipped: %s" % e)
        return 0
    tmp = Path(opts.keep or tempfile.mkdtemp(prefix="tengen-chip-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    print("image:     %s" % uf2)
    print("emulator:  %s (rp2040js; Cortex-M0+ cycles counted at 125 MHz)" % emu)
    t0 = time.monotonic()
    try:
        fs, said = make_data(mp, tmp, opts)
        d = said.split()
        print(
            "data:      %s corpus games, %s Renju positions, %s referee moves, %s journal"
            " games; %s KiB of the filesystem free" % tuple(d[2:7])
        )
        args = {"calls": opts.calls, "runs": 3}
        unix, chip, failed = {}, {}, []
        for name in names:
            res, bad = run_unix(mp, name, fs, tmp, opts.passes, dict(args, runs=20))
            unix[name] = res
            if bad:
                failed.append("unix %s: %s" % (name, bad))
        board = OnChip(uf2, emu, fs, tmp / "chip", wall=3600)
        board.start()
        try:
            for name in names:
                t = time.monotonic()
                if name == "boot":
                    res, bad = board.boot()
                else:
                    res, bad = board.run(name, opts.chip_passes, args)
                chip[name] = res
                print("chip:      %-10s %5.0f s wall" % (name, time.monotonic() - t))
                if bad:
                    failed.append("chip %s: %s" % (name, bad))
        finally:
            board.stop()
            faults = board.chip.hardfaults()
        print()
        print("\n".join(table(unix, chip)))
        print("\n".join(facts(unix, chip)))
        print(
            "  (est.: the unix port's fastest timing x %.1f ms / its calibration loop; chip 1st:"
            " the first pass; chip ms: the fastest; %d HardFaults; %.0f s in all)"
            % (CALIB_RP2040_MS, faults, time.monotonic() - t0)
        )
        for f in failed:
            print("failed: " + f)
        if opts.json:
            Path(opts.json).write_text(json.dumps({"unix": unix, "chip": chip}, indent=1))
        return 1 if failed else 0
    finally:
        if not opts.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
