"""A board built from a misaligned image never plays silently wrong (issue 25): the images on
the emulated RP2040 (host_tools/board/emulator.py), each on a fresh flash.

- At the REPL, firmware/boot/imagecheck.py reads every frozen native and viper function's code
  address from the chip's RAM; they must be exactly the addresses of the ``fun_data_*``
  machine-code symbols ``tengen image check`` reads from the image's ELF file, and the
  misaligned ones exactly the ones it names.
- The image built without the alignment fix, with boot.py and main.py on its flash: the boot
  stops before any native call (no HardFault), ``/boot.log`` says ``error image: ...``, the
  Pico's LED blinks, the REPL answers, and ``tengen deploy`` refuses the board, naming the
  functions and the way to a good image.
- The good image: ``tengen deploy`` puts boot.py and main.py on it and its app answers
  ``hello`` with no boot error (the check passed).

Start reading at ``test_the_misaligned_image_stops_at_boot_and_deploy_refuses_it``. The
emulator runs at a tenth of real time while the board scans: each test waits for what the
board says, never for a time. Skips, saying why, without node or the images.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host_tools.board import image as I

ROOT = Path(__file__).resolve().parents[3]
MPREMOTE = [sys.executable, "-m", "mpremote"]
SCAN = """\
import time, json
from firmware.boot import imagecheck as IC
t0 = time.ticks_us()
for m in IC.MODULES:
    __import__(m)
t1 = time.ticks_us()
n, _ = IC.scan(every=False)
t2 = time.ticks_us()
n, found = IC.scan()
bad = IC.misaligned(found)
named = IC.names(found)
print('IMAGECHECK ' + json.dumps({'import_us': time.ticks_diff(t1, t0),
    'scan_us': time.ticks_diff(t2, t1), 'codes': [[named[e[0]], e[3]] for e in found],
    'misaligned': [named[e[0]] for e in bad]}))
"""


def _image(chip_images, variant) -> Path:
    folder = chip_images.get(variant)
    if folder is None or not (folder / "firmware.uf2").exists():
        pytest.skip("no %s image (firmware.uf2) in %s: make chip" % (variant, folder))
    img = I.Image(folder / "firmware.elf")
    if "firmware/boot/imagecheck.py" not in (I.frozen_names(img) or []):
        pytest.skip(
            "the %s image in %s was built before firmware/boot/imagecheck.py: rebuild it "
            "(make chip)" % (variant, folder)
        )
    return folder


@pytest.fixture
def chip_factory(tmp_path, emu):
    from host_tools.board import emulator

    chips = []

    def make(uf2, name):
        try:
            chip = emulator.Chip(uf2, tmp_path / name, emu=emu, wall=1200)
        except emulator.EmulatorMissing as e:
            pytest.skip(str(e))
        chips.append(chip)
        return chip.start()

    yield make
    for chip in chips:
        chip.cut()


def _mpremote(chip, *args, timeout=300):
    done = subprocess.run(
        MPREMOTE + ["connect", chip.port, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr, chip.log()[-2000:])
    return done.stdout


def _scan(chip) -> dict:
    out = _mpremote(chip, "exec", SCAN)
    line = next(x for x in out.splitlines() if x.startswith("IMAGECHECK "))
    return json.loads(line[len("IMAGECHECK ") :])


def _elf(folder) -> tuple[set, set]:
    """The image's frozen machine code: the ``fun_data_*`` addresses, and the misaligned."""
    img = I.Image(folder / "firmware.elf")
    codes = {
        s.address
        for s in img.symbols
        if s.name.startswith("fun_data_") and img.section_flags(s) & I.SHF_EXECINSTR
    }
    return codes, {a for a in codes if a % 4}


def _out(chip) -> Path:
    return Path(str(chip.link) + ".out.log")  # what the board sent (bridge.py writes it)


def _wait_said(chip, text, mark, timeout=600):
    # Until the board says ``text`` on its USB serial: mpremote would interrupt its boot.
    end = time.monotonic() + timeout
    while True:
        with open(_out(chip), "rb") as f:
            f.seek(mark)
            if text.encode() in f.read():
                return
        assert time.monotonic() < end, chip.log()[-2000:]
        assert chip.proc is not None and chip.proc.poll() is None, chip.log()[-2000:]
        time.sleep(0.2)


def _with_boot_files(chip):
    # boot.py and main.py on the flash (tengen deploy's part), then a power-up with them.
    _mpremote(
        chip,
        "fs", "cp", str(ROOT / "boot.py"), ":boot.py", "+",
        "fs", "cp", str(ROOT / "main.py"), ":main.py",
    )  # fmt: skip
    mark = chip.log_path.stat().st_size
    said = _out(chip).stat().st_size
    subprocess.run(MPREMOTE + ["connect", chip.port, "reset"], capture_output=True, timeout=60)
    return mark, said


def _tengen_deploy(chip, *args):
    # The installed tengen (make venv: this checkout, editable), as a maker runs it.
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="400", NO_COLOR="1")
    return subprocess.run(
        [str(Path(sys.executable).parent / "tengen"), "deploy", "--port", chip.port, *args],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
        cwd=ROOT,
    )


def _edges(log: str, pin: int) -> int:
    # The runner's last ``stop:`` line counts each output pin's edges.
    stops = re.findall(r"stop: .*gpio edges (\{[^}]*\})", log)
    return json.loads(stops[-1]).get(str(pin), 0) if stops else 0


@pytest.mark.slow(12)
def test_the_misaligned_image_stops_at_boot_and_deploy_refuses_it(chip_images, chip_factory):
    folder = _image(chip_images, "unfixed")
    codes, bad = _elf(folder)
    assert bad, "the unfixed image has no misaligned code: is it the fixed one?"
    chip = chip_factory(folder / "firmware.uf2", "unfixed")

    # At the REPL: the addresses read on the chip are the ELF's.
    seen = _scan(chip)
    assert {c for _, c in seen["codes"]} == codes and len(seen["codes"]) == len(codes)
    by_name = dict(seen["codes"])
    assert sorted(by_name[n] for n in seen["misaligned"]) == sorted(bad)

    # Powered up with main.py: stopped in the image stage, before any native call.
    mark, said = _with_boot_files(chip)
    _wait_said(chip, "tengen: fatal: Misaligned(", said)  # main.py's report: then the REPL
    log = _mpremote(chip, "exec", "print(open('/boot.log').read())")
    head = log.splitlines()[0]
    want = "error image: %d of %d frozen native/viper functions misaligned, " % (
        len(bad),
        len(codes),
    )
    assert head.startswith(want + "rebuild the image (make chip): " + seen["misaligned"][0])
    assert chip.hardfaults() == 0

    # tengen deploy asks the board, and refuses it, naming the functions and what to do.
    done = _tengen_deploy(chip, "--wait", "0")
    said = " ".join((done.stderr + done.stdout).split())
    assert done.returncode != 0, said
    assert (
        "%d of %d functions are misaligned (%s, "
        % (
            len(bad),
            len(codes),
            seen["misaligned"][0],
        )
        in said
    )
    assert "`make chip`" in said and "Nothing was copied" in said
    assert chip.hardfaults() == 0
    chip.cut()
    assert _edges(chip.log(mark), 25) > 0  # the LED blinked (until mpremote's soft reset)


@pytest.mark.slow(18)
def test_the_good_image_passes_the_check_and_its_app_starts(chip_images, chip_factory):
    folder = _image(chip_images, "tengen")
    codes, bad = _elf(folder)
    assert not bad
    chip = chip_factory(folder / "firmware.uf2", "tengen")
    seen = _scan(chip)
    assert {c for _, c in seen["codes"]} == codes and len(seen["codes"]) == len(codes)
    assert seen["misaligned"] == []
    print(
        "imagecheck on the chip: %d functions, modules imported in %d us, scanned in %d us"
        % (len(codes), seen["import_us"], seen["scan_us"])
    )
    done = _tengen_deploy(chip, "--wait", "900")
    said = done.stderr + done.stdout
    assert done.returncode == 0, said
    assert "done: the board answers" in said
    assert "previous boot failed" not in said  # no boot error: the check passed
    assert chip.hardfaults() == 0
