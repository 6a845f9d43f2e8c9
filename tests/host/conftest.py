"""Fixtures shared by the host tests of the hardware design (tests/host/test_hardware.py,
test_bom.py, test_diagram.py, test_budgets.py): ``make hardware``'s entry point runs once per
session into a temporary folder, and the tests read what it wrote."""

import importlib.util
import os
import subprocess
import sys
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
