"""Fixtures shared by the host tests. The hardware design's (tests/host/test_hardware.py,
test_bom.py, test_diagram.py, test_budgets.py): ``make hardware``'s entry point runs once per
session into a temporary folder, and the tests read what it wrote. The chip's
(``chip_images``): the images ``make chip`` builds (host_tools/board/chip.py), for the tests that
check them or run them on the emulated RP2040."""

import importlib.util
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYMBOLS = Path("/usr/share/kicad/symbols")


def need_design_tools():
    """Skip, saying what to install, when SKiDL or KiCad's symbol libraries are missing
    (``make hardware`` installs both)."""
    # Looked up, not imported: hardware.design.circuit sets SKiDL up before its import.
    if importlib.util.find_spec("skidl") is None:
        pytest.skip("SKiDL is not installed: make hardware (pip install -e '.[dev]')")
    if not (SYMBOLS / "74xx.kicad_sym").exists():
        pytest.skip("KiCad's symbol libraries are missing: apt-get install kicad-symbols")


@pytest.fixture(scope="session")
def hardware_out(tmp_path_factory):
    """``python -m hardware.design --out DIR`` run once: ``(DIR, CompletedProcess)``."""
    need_design_tools()
    out = tmp_path_factory.mktemp("hardware-out")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "hardware.design", "--out", str(out)],
        cwd=out,  # SKiDL must write nothing into the working folder
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return out, done


@pytest.fixture(scope="session")
def system_netlists(hardware_out):
    """The system netlists ``make hardware`` wrote, parsed: ``{variant: Netlist}``."""
    from hardware.design.netlist import read

    out, _ = hardware_out
    return {v: read((out / f"system-{v}.net").read_text(encoding="utf-8")) for v in "AB"}


def need_chip_build():
    """Skip, saying what is missing, where ``make chip`` cannot build: no MicroPython v1.28.0
    (the offline kit in $TENGEN_SHARED/rp2, or a checkout as $MICROPY_DIR), or no ARM
    toolchain, CMake, make, patch."""
    from host_tools.board import chip

    try:
        chip.find_source()
    except chip.ChipError as e:
        pytest.skip("make chip cannot build here: %s" % e)
    missing = chip.missing_tools()
    if missing:
        pytest.skip(
            "make chip cannot build here: %s missing (make installs them as root)"
            % ", ".join(missing)
        )


@pytest.fixture(scope="session")
def chip_images():
    """``{variant: folder}`` of every variant ``make chip`` builds, each made when a test
    first asks for it (``tengen``: the image the gate let through; ``unfixed``: the same
    without the project's mpy-tool patch, which the gate refuses; ``stock``: stock MicroPython
    for RPI_PICO), each folder holding ``firmware.uf2``, ``.elf`` and ``.bin``. Built through
    ``host_tools.board.chip.ensure`` (not again while their sources are unchanged: a few seconds
    then, minutes the first time); skips with the reason where the kit or the toolchain is
    missing."""
    need_chip_build()
    return _Images()


class _Images(Mapping):
    """The chip's images, each made (or found up to date) when a test first asks for it: the
    tests of the ``tengen`` image start as soon as it is built, while ``make test`` goes on
    building the other two in the background."""

    def __init__(self):
        self.made = {}

    def __getitem__(self, variant):
        from host_tools.board import chip

        if variant not in chip.VARIANTS:
            raise KeyError(variant)
        if variant not in self.made:
            self.made[variant] = chip.ensure(variant)
        return self.made[variant]

    def __iter__(self):
        from host_tools.board import chip

        return iter(chip.VARIANTS)

    def __len__(self):
        from host_tools.board import chip

        return len(chip.VARIANTS)


@pytest.fixture(scope="session")
def emu():
    """The RP2040 emulator's folder, set up once per clone (``host_tools.board.emulator.setup``);
    skips with what is missing (node, npm, the kit)."""
    from host_tools.board import emulator

    try:
        return emulator.setup()
    except emulator.EmulatorMissing as e:
        pytest.skip(str(e))
