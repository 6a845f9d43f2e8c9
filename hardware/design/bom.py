"""The bill of materials of a whole 19x19 board, generated from the system netlist.

``csv_text(netlist)`` reads a *system* netlist (``netlist.read``: the controller and its 19
strips) and ``parts.kit()`` (what no schematic shows) and writes one distributor-neutral CSV:

    line,assembly,refs,qty_per_assembly,assemblies,qty,value,description,manufacturer,mpn,
    footprint,datasheet

- ``assembly`` is ``controller`` (the controller PCB), ``strip`` (a sensor strip PCB: the
  parts whose netlist field ``line`` is set) or ``kit`` (``parts.kit()``: PCBs, ribbons, IDC
  sockets, face modules, cells, magnets, stones).
- A row is one kind of part on one assembly: the parts with the same catalogue ``Key`` and
  the same value, footprint, manufacturer and part number.
- ``qty = qty_per_assembly * assemblies``. A strip row counts the part on one strip and
  ``assemblies`` is the number of strips (every strip must carry the same parts, or
  ``csv_text`` raises ``ValueError``). Controller rows have ``assemblies`` 1. Kit rows give
  the whole board's quantity with ``assemblies`` 1 and no refs or footprint.
- ``refs`` lists reference designators compactly in natural order (``C1-C6 C9 C12``: three
  or more consecutive numbers make a range). **A strip row lists the references of one strip
  only, the lowest board line (line 0), as the system netlist numbers them**; the other
  strips' references follow the same pattern, and the strip PCB's own references are in
  ``strip-V.net``. Listing all 361 sensors would hide the row.
- Manufacturer and part number come from the netlist fields (what the PCB is laid out
  from); description and datasheet from the catalogue (``parts.PARTS``, by ``Key``).
- Rows are ordered controller, strip, kit; inside an assembly by reference prefix (U, J, Q,
  D, Y, H, SW, BZ, BT, R, C, then any other alphabetically), then by first reference. Kit
  rows keep ``parts.kit()``'s order. The same netlist always gives the same bytes: the
  committed ``hardware/out/bom-V.csv`` is compared with the regenerated one.

The checks beside it: ``footprint_problems(netlist)`` (every footprint and catalogue symbol
exists in Debian's KiCad 6 libraries, and every component has a manufacturer and a part
number, via ``missing_mpn``) and ``newer_footprints(netlist)`` (footprints only KiCad 7+
has, ``parts.NEWER_FOOTPRINTS``, reported apart rather than as problems).
"""

import csv
import io
import re
from pathlib import Path

from hardware.design import circuit as C
from hardware.design.netlist import natural
from hardware.design.parts import NEWER_FOOTPRINTS, PARTS, STRIPS, kit

COLUMNS = (
    "line", "assembly", "refs", "qty_per_assembly", "assemblies", "qty", "value",
    "description", "manufacturer", "mpn", "footprint", "datasheet",
)  # fmt: skip
PREFIX_ORDER = ("U", "J", "Q", "D", "Y", "H", "SW", "BZ", "BT", "R", "C")
ASSEMBLIES = ("controller", "strip", "kit")
FOOTPRINTS = Path("/usr/share/kicad/footprints")  # Debian's kicad-footprints (KiCad 6)
SYMBOLS = Path(C.SYMBOLS)  # Debian's kicad-symbols, where the schematic reads them


def prefix(ref):
    """The letters of a reference designator: ``SW`` of ``SW3``."""
    m = re.match(r"[A-Za-z_#]*", ref)
    return m.group(0)


def _prefix_rank(ref):
    p = prefix(ref)
    if p in PREFIX_ORDER:
        return (PREFIX_ORDER.index(p), "")
    return (len(PREFIX_ORDER), p)


def compact(refs):
    """References in natural order with runs of three or more as ranges:
    ``['C3', 'C1', 'C2', 'C9']`` -> ``'C1-C3 C9'``."""
    out = []
    run = []  # (prefix, number, ref) of consecutive refs

    def flush():
        if len(run) >= 3:
            out.append(f"{run[0][2]}-{run[-1][2]}")
        else:
            out.extend(r for _, _, r in run)
        run.clear()

    for ref in sorted(refs, key=natural):
        m = re.fullmatch(r"(\D*)(\d+)", ref)
        if m is None:
            flush()
            out.append(ref)
            continue
        p, n = m.group(1), int(m.group(2))
        if run and not (run[-1][0] == p and run[-1][1] + 1 == n):
            flush()
        run.append((p, n, ref))
    flush()
    return " ".join(out)


def _group_key(comp):
    f = comp.fields
    return (f.get("Key", ""), comp.value, comp.footprint, f.get("Manufacturer", ""),
            f.get("MPN", ""))  # fmt: skip


def _strip_lines(net):
    return sorted({c.fields["line"] for c in net.comps.values() if c.fields.get("line")}, key=int)


def rows(net):
    """The BOM as a list of dicts keyed by ``COLUMNS`` (``line`` numbered), in CSV order."""
    groups = {}  # (assembly, group key) -> [comp]
    for comp in net.comps.values():
        assembly = "strip" if comp.fields.get("line") else "controller"
        groups.setdefault((assembly, _group_key(comp)), []).append(comp)
    lines = _strip_lines(net)
    out = []
    for (assembly, gkey), comps in groups.items():
        key, value, footprint, maker, mpn = gkey
        spec = PARTS.get(key)
        if assembly == "strip":
            per_line = {}
            for c in comps:
                per_line.setdefault(c.fields["line"], []).append(c)
            counts = {len(per_line.get(n, ())) for n in lines}
            if len(counts) != 1:
                raise ValueError(
                    f"strips differ: {key} {mpn} appears "
                    f"{sorted(counts)} times on different strips; a strip row needs them equal"
                )
            shown = per_line[lines[0]]
            per, n = len(shown), len(lines)
        else:
            shown, per, n = comps, len(comps), 1
        refs = [c.ref for c in shown]
        first = min(refs, key=natural)
        out.append(
            {
                "assembly": assembly,
                "refs": compact(refs),
                "qty_per_assembly": per,
                "assemblies": n,
                "qty": per * n,
                "value": value,
                "description": spec.description
                if spec
                else comps[0].fields.get("Description", ""),
                "manufacturer": maker,
                "mpn": mpn,
                "footprint": footprint,
                "datasheet": spec.datasheet if spec else "",
                "_sort": (ASSEMBLIES.index(assembly), _prefix_rank(first), natural(first)),
            }
        )
    out.sort(key=lambda r: r.pop("_sort"))
    for item, qty, maker, mpn, what in kit(len(lines) or STRIPS):
        out.append(
            {
                "assembly": "kit",
                "refs": "",
                "qty_per_assembly": qty,
                "assemblies": 1,
                "qty": qty,
                "value": item,
                "description": what,
                "manufacturer": maker,
                "mpn": mpn,
                "footprint": "",
                "datasheet": "",
            }
        )
    for i, r in enumerate(out, 1):
        r["line"] = i
    return out


def csv_text(net):
    """The BOM of the system netlist ``net`` as CSV text (``\\n`` line endings)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows(net))
    return buf.getvalue()


def missing_mpn(net):
    """The components without a manufacturer or a part number in their netlist fields."""
    found = []
    for ref in sorted(net.comps, key=natural):
        f = net.comps[ref].fields
        for name in ("Manufacturer", "MPN"):
            if not f.get(name, "").strip():
                found.append(f"{ref}: no {name}")
    return found


def newer_footprints(net):
    """``{footprint: [refs]}`` of the footprints only KiCad 7 and later has
    (``parts.NEWER_FOOTPRINTS``): listed apart, since Debian's KiCad 6 library lacks them."""
    found = {}
    for ref in sorted(net.comps, key=natural):
        fp = net.comps[ref].footprint
        if fp in NEWER_FOOTPRINTS:
            found.setdefault(fp, []).append(ref)
    return found


def footprint_problems(net, footprints=FOOTPRINTS, symbols=SYMBOLS):
    """What an order or a layout would trip on, one message each: a footprint
    ``Lib:Name`` that is not ``footprints/Lib.pretty/Name.kicad_mod`` (bar
    ``NEWER_FOOTPRINTS``), a catalogue symbol missing from ``symbols/<lib>.kicad_sym``, and
    ``missing_mpn``'s components. Raises ``FileNotFoundError`` when the footprint library is
    not installed (``apt-get install kicad-footprints``)."""
    footprints, symbols = Path(footprints), Path(symbols)
    if not footprints.is_dir():
        raise FileNotFoundError(
            f"{footprints} is missing: apt-get install kicad-footprints (KiCad 6 footprints)"
        )
    problems = []
    by_fp = {}
    for ref in sorted(net.comps, key=natural):
        by_fp.setdefault(net.comps[ref].footprint, []).append(ref)
    for fp, refs in sorted(by_fp.items()):
        if fp in NEWER_FOOTPRINTS:
            continue
        lib, sep, name = fp.partition(":")
        if not sep or not (footprints / f"{lib}.pretty" / f"{name}.kicad_mod").is_file():
            problems.append(f"footprint {fp!r} not in {footprints} ({compact(refs)})")
    texts = {}
    keys = sorted({c.fields.get("Key", "") for c in net.comps.values()})
    for key in keys:
        spec = PARTS.get(key)
        if spec is None:
            problems.append(f"component Key {key!r} is not in the catalogue")
            continue
        if spec.lib is None:
            continue  # drawn from the catalogue's own pins
        if spec.lib not in texts:
            path = symbols / f"{spec.lib}.kicad_sym"
            texts[spec.lib] = path.read_text(encoding="utf-8") if path.is_file() else None
        text = texts[spec.lib]
        if text is None:
            problems.append(f"symbol library {spec.lib}.kicad_sym not in {symbols} ({key})")
        elif f'(symbol "{spec.symbol}"' not in text:
            problems.append(f"symbol {spec.lib}:{spec.symbol} not in {symbols} ({key})")
    return problems + missing_mpn(net)
