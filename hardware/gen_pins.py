"""Generate firmware/hal/pins.py from hardware/pinmap.csv, the single source of pin assignments.

    python3 hardware/gen_pins.py          # rewrite firmware/hal/pins.py
    python3 hardware/gen_pins.py --check  # exit 1 if the file is not what the CSV gives

Host-only (CPython). tests/host/test_pinmap.py calls ``render()`` and compares it with the
committed file, so a pin change in the CSV that was not regenerated fails the tests.
"""

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CSV = HERE / "pinmap.csv"
OUT = HERE.parent / "firmware" / "hal" / "pins.py"
COLUMNS = ["gpio", "function", "direction", "pull", "net", "notes"]

HEADER = '''"""GPIO numbers of the Tengen board (Raspberry Pi Pico): generated, do not edit.

Generated from hardware/pinmap.csv by hardware/gen_pins.py; change the CSV and run
``python3 hardware/gen_pins.py``. tests/host/test_pinmap.py fails when this file is stale.
Names starting with PICO_ are the Pico board's own functions (GP24, GP25, GP29), not ours.
"""

from micropython import const
'''


def read_rows(path=CSV):
    """The CSV rows as dicts, in file order (``gpio`` still a string)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def scan_out_pins(rows):
    """GPIOs the scan PIO drives (direction ``pio-out``), sorted."""
    return sorted(int(r["gpio"]) for r in rows if r["direction"] == "pio-out")


def render(rows=None):
    """The text of firmware/hal/pins.py for ``rows`` (default: the CSV)."""
    rows = read_rows() if rows is None else rows
    lines = [HEADER]
    for r in sorted(rows, key=lambda r: int(r["gpio"])):
        name = r["function"]
        lines.append(f"{name} = const({int(r['gpio'])})  # {r['direction']}: {r['net']}")
    scan = scan_out_pins(rows)
    if scan != list(range(scan[0], scan[0] + len(scan))):
        raise ValueError(f"PIO output pins are not contiguous: {scan}")
    adc = sorted(int(r["gpio"]) for r in rows if r["function"].startswith("HALL_ADC"))
    lines += [
        "",
        "# Derived: the PIO steps SCAN_OUT_COUNT consecutive pins from SCAN_OUT_BASE (mux bits,",
        "# then row address bits, then the two bank bits); the Hall columns are read on ADC",
        "# inputs HALL_ADC_FIRST .. HALL_ADC_FIRST + HALL_ADC_COUNT - 1 (GPIO 26 + channel).",
        f"SCAN_OUT_BASE = const({scan[0]})",
        f"SCAN_OUT_COUNT = const({len(scan)})",
        f"HALL_ADC_FIRST = const({adc[0] - 26})",
        f"HALL_ADC_COUNT = const({len(adc)})",
        "",
    ]
    return "\n".join(lines)


def main(argv):
    text = render()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run python3 hardware/gen_pins.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
