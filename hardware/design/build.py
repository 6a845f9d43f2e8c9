"""``make hardware``: the netlists, the electrical rules check, the BOM and the picture.

    python -m hardware.design [--check] [--out DIR]

writes into ``hardware/out/`` (or DIR), for each variant V (A, the design; B, the fallback):

- ``system-V.net``: the whole board, the controller and its 19 strips joined as the ribbons
  join them (what the checks read);
- ``controller-V.net`` and ``strip-V.net``: the two PCBs' netlists, to lay out in KiCad;
- ``erc-V.txt``: the electrical rules check: every warning with its explanation;
- ``bom-V.csv``: the bill of materials (``bom.py``);

``blocks.svg``, the block diagram of the system netlist (``diagram.py``), and ``budgets.md``,
the power, ADC-range and scan-timing budgets computed from the parts' figures (``budgets.py``). It fails (exit 1)
when the ERC finds an error or a warning that ``ERC_EXPLAINED`` does not explain, or when the
pin map disagrees with the netlist (``pinmap.py``), and exits 2 naming what to install when a
tool is missing. ``--check`` writes nothing and fails when a
committed file differs from what the design makes now (tests/host/test_hardware.py runs it).
"""

import argparse
import logging
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "out"
VARIANTS = ("A", "B")

# Warnings SKiDL's ERC gives on this design, and why each is right: a pattern on the message,
# and the explanation written into erc-V.txt beside it. Anything else fails the build.
ERC_EXPLAINED = [
    (
        r"Insufficient drive current on net ADC_AVDD for pin POWER-IN pin 43/ADC_AVDD",
        "ADC_AVDD is fed from +3V3 through the 200 ohm filter resistor (as on the Pico, "
        "Pico datasheet §4.3); the ERC cannot see a supply through a resistor.",
    ),
    (
        r"Insufficient drive current on net VRTC for pin POWER-IN pin 8/VDD of PCF8563T",
        "VRTC is +3V3 or the coin cell through two Schottky diodes (whichever is higher); the "
        "ERC cannot see a supply through a diode.",
    ),
]


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append((record.levelname, record.getMessage().strip()))


def erc(circuit):
    """Run SKiDL's ERC on ``circuit``: ``(errors, warnings)``, each a list of messages."""
    from skidl.logger import erc_logger

    capture = _Capture()
    erc_logger.addHandler(capture)
    try:
        circuit.no_files = True
        circuit.ERC()
    finally:
        erc_logger.removeHandler(capture)
    # Sorted: SKiDL checks the nets in set order, which changes from run to run.
    errors = sorted(m for level, m in capture.messages if level in ("ERROR", "CRITICAL"))
    warnings = sorted(m for level, m in capture.messages if level == "WARNING")
    return errors, warnings


def explain(warnings):
    """``(explained, unexplained)``: ``[(warning, why)]`` and the warnings nobody explained."""
    explained, unexplained = [], []
    for w in warnings:
        for pattern, why in ERC_EXPLAINED:
            if re.search(pattern, w):
                explained.append((w, why))
                break
        else:
            unexplained.append(w)
    return explained, unexplained


def erc_report(variant, errors, explained, unexplained):
    """The text of erc-V.txt."""
    lines = [
        f"# Electrical rules check (SKiDL ERC), variant {variant}: the whole board",
        f"errors: {len(errors)}",
        f"warnings: {len(explained) + len(unexplained)} "
        f"({len(explained)} explained, {len(unexplained)} unexplained)",
        "",
    ]
    lines += [f"ERROR {e}" for e in errors]
    for w, why in explained:
        lines += [f"WARNING {w}", f"  why: {why}"]
    lines += [f"WARNING {w}\n  why: UNEXPLAINED" for w in unexplained]
    return "\n".join(lines) + "\n"


def netlist_text(circuit):
    """The KiCad netlist of ``circuit``, normalised (no date)."""
    from hardware.design.netlist import normalise

    circuit.no_files = True
    return normalise(str(circuit.generate_netlist()))


def generate(variants=VARIANTS):
    """Everything ``make hardware`` writes: ``({file name: text}, [problems])``."""
    from hardware.design import bom, budgets, circuit, diagram, pinmap
    from hardware.design.netlist import read

    files, problems = {}, []
    for v in variants:
        system = circuit.system(v)
        errors, warnings = erc(system)
        explained, unexplained = explain(warnings)
        files[f"erc-{v}.txt"] = erc_report(v, errors, explained, unexplained)
        problems += [f"ERC {v}: {e}" for e in errors]
        problems += [f"ERC {v}: unexplained warning: {w}" for w in unexplained]
        text = netlist_text(system)
        files[f"system-{v}.net"] = text
        files[f"controller-{v}.net"] = netlist_text(circuit.controller_pcb(v))
        files[f"strip-{v}.net"] = netlist_text(circuit.strip_pcb(v))
        net = read(text)
        problems += [f"pin map {v}: {p}" for p in pinmap.check(net, variant=v)]
        files[f"bom-{v}.csv"] = bom.csv_text(net)
        problems += [f"BOM {v}: {p}" for p in bom.footprint_problems(net)]
        if v == "A":
            files["blocks.svg"] = diagram.svg(net)
    files["budgets.md"] = budgets.report()
    for v in variants:  # the design's own budgets must hold (the what-ifs in the report may not)
        for b in (budgets.power(v), budgets.adc_range(v), budgets.timing(v)):
            problems += [f"budget {v}: {name} fails" for name, ok in b.checks.items() if not ok]
    problems += [
        f"budget voice: {name} fails" for name, ok in budgets.voice().checks.items() if not ok
    ]
    return files, problems


def missing_tools():
    """What ``make hardware`` needs and this machine lacks, each with how to get it."""
    import importlib.util
    import shutil

    from hardware.design.bom import FOOTPRINTS, SYMBOLS

    out = []
    if importlib.util.find_spec("skidl") is None:
        out.append("SKiDL: pip install -e '.[dev]' (make does it in .venv)")
    if not (SYMBOLS / "74xx.kicad_sym").exists():
        out.append("KiCad's symbol libraries: apt-get install kicad-symbols")
    if not FOOTPRINTS.is_dir():
        out.append("KiCad's footprint libraries: apt-get install kicad-footprints")
    if shutil.which("dot") is None:
        out.append("Graphviz: apt-get install graphviz")
    return out


def main(argv=None):
    """Write (or ``--check``) the hardware outputs; exit status 1 on any problem."""
    ap = argparse.ArgumentParser(prog="python -m hardware.design", description=__doc__)
    ap.add_argument("--check", action="store_true", help="compare with the committed files")
    ap.add_argument("--out", type=Path, default=OUT, help="output folder (hardware/out)")
    args = ap.parse_args(argv)
    missing = missing_tools()
    if missing:
        print("make hardware needs " + "; ".join(missing), file=sys.stderr)
        return 2
    logging.getLogger().setLevel(logging.ERROR)
    files, problems = generate()
    out = args.out
    for name, text in sorted(files.items()):
        path = out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                problems.append(f"{path} is stale: run make hardware")
        else:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(
            "hardware: ERC clean (warnings explained in erc-*.txt), pin map agrees, every "
            "part orderable with a KiCad footprint, budgets hold"
        )
    return 1 if problems else 0
