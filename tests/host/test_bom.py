"""The orderable BOM (hardware/design/bom.py), generated from the system netlists of both
variants: exact quantities, every component in exactly one row, every row orderable, and
every footprint and symbol in KiCad's libraries."""

import csv
import io
import re

import pytest

from hardware.design import bom, netlist
from hardware.design.parts import NEWER_FOOTPRINTS, STRIPS

# The design is made once a run (tests/host/conftest.py hardware_out): its tests share a worker.
pytestmark = pytest.mark.xdist_group("hardware")


# The system netlists come from make hardware's own run (conftest.py: once per session).
@pytest.fixture
def net_a(system_netlists):
    return system_netlists["A"]


@pytest.fixture
def net_b(system_netlists):
    return system_netlists["B"]


@pytest.fixture(params=["A", "B"])
def net(request):
    return request.getfixturevalue("net_" + request.param.lower())


def parse(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    for r in rows:
        for k in ("line", "qty_per_assembly", "assemblies", "qty"):
            r[k] = int(r[k])
    return rows


def expand(refs):
    """``'C1-C3 C9'`` -> ``['C1', 'C2', 'C3', 'C9']``."""
    out = []
    for item in refs.split():
        if "-" in item:
            a, b = item.split("-")
            pa, na = re.fullmatch(r"(\D+)(\d+)", a).groups()
            pb, nb = re.fullmatch(r"(\D+)(\d+)", b).groups()
            assert pa == pb and int(na) < int(nb), item
            out += [f"{pa}{n}" for n in range(int(na), int(nb) + 1)]
        else:
            out.append(item)
    return out


def qty(rows, assembly, mpn):
    """The total quantity of ``mpn`` on ``assembly`` (0 when absent)."""
    return sum(r["qty"] for r in rows if r["assembly"] == assembly and r["mpn"] == mpn)


def kit_qty(rows, item):
    return sum(r["qty"] for r in rows if r["assembly"] == "kit" and r["value"] == item)


# --- without a netlist -------------------------------------------------------------------------


def test_compact_refs_natural_order_and_ranges():
    refs = ["C12", "C2", "C1", "C3", "C9", "C4", "C5", "C6", "R10", "R2", "R3"]
    assert bom.compact(refs) == "C1-C6 C9 C12 R2 R3 R10"
    assert bom.compact(["H1"]) == "H1"
    assert bom.compact([]) == ""
    assert expand(bom.compact(refs)) == sorted(refs, key=netlist.natural)


def test_missing_mpn_is_a_problem():
    comps = {
        "R1": netlist.Comp("R1", "1k", "Resistor_SMD:R_0402_1005Metric", "Device", "R",
                           {"Key": "r1k", "Manufacturer": "Yageo", "MPN": "RC0402FR-071KL"}),
        "R2": netlist.Comp("R2", "1k", "Resistor_SMD:R_0402_1005Metric", "Device", "R",
                           {"Key": "r1k", "Manufacturer": "Yageo", "MPN": " "}),
        "U1": netlist.Comp("U1", "x", "Package_SO:SOIC-8_3.9x4.9mm_P1.27mm", "Device", "R",
                           {"Key": "r1k", "MPN": "X"}),
    }  # fmt: skip
    net = netlist.Netlist(comps, {})
    assert bom.missing_mpn(net) == ["R2: no MPN", "U1: no Manufacturer"]


def test_missing_footprint_library_says_what_to_install(tmp_path):
    net = netlist.Netlist({}, {})
    with pytest.raises(FileNotFoundError, match="apt-get install kicad-footprints"):
        bom.footprint_problems(net, footprints=tmp_path / "nothing")


def test_unknown_footprint_and_symbol_are_problems(tmp_path):
    fp = tmp_path / "footprints"
    (fp / "Resistor_SMD.pretty").mkdir(parents=True)
    (fp / "Resistor_SMD.pretty" / "R_0402_1005Metric.kicad_mod").write_text("(footprint)")
    sym = tmp_path / "symbols"
    sym.mkdir()
    (sym / "Device.kicad_sym").write_text('(kicad_symbol_lib (symbol "C" ))')
    f = {"Key": "r1k", "Manufacturer": "Yageo", "MPN": "RC0402FR-071KL"}
    comps = {
        "R1": netlist.Comp("R1", "1k", "Resistor_SMD:R_0402_1005Metric", "Device", "R", f),
        "R2": netlist.Comp("R2", "1k", "Resistor_SMD:R_0603", "Device", "R", f),
    }
    problems = bom.footprint_problems(netlist.Netlist(comps, {}), footprints=fp, symbols=sym)
    assert len(problems) == 2, problems
    assert "Resistor_SMD:R_0603" in problems[0] and "R2" in problems[0]
    assert "Device:R" in problems[1]


# --- the system netlists -----------------------------------------------------------------------


def test_csv_parses_with_the_header_and_numbered_lines(net):
    text = bom.csv_text(net)
    assert "\r" not in text and text.endswith("\n")
    assert text.splitlines()[0] == ",".join(bom.COLUMNS)
    rows = parse(text)
    assert [r["line"] for r in rows] == list(range(1, len(rows) + 1))
    order = [bom.ASSEMBLIES.index(r["assembly"]) for r in rows]
    assert order == sorted(order), "controller, then strip, then kit"
    for r in rows:
        assert r["qty"] == r["qty_per_assembly"] * r["assemblies"], r


def test_csv_is_the_same_on_every_run(net):
    text = bom.csv_text(net)
    assert bom.csv_text(net) == text
    shuffled = netlist.Netlist(dict(sorted(net.comps.items(), reverse=True)), net.nets)
    assert bom.csv_text(shuffled) == text, "the order of the netlist must not matter"


def test_every_row_is_orderable(net):
    for r in parse(bom.csv_text(net)):
        assert r["manufacturer"].strip() and r["mpn"].strip(), r
        if r["assembly"] != "kit":
            assert r["footprint"].strip() and r["refs"].strip(), r
    assert bom.missing_mpn(net) == []


def test_every_component_in_exactly_one_row(net):
    rows = parse(bom.csv_text(net))
    assert sum(r["qty"] for r in rows if r["assembly"] != "kit") == len(net.comps)
    listed = [ref for r in rows if r["assembly"] != "kit" for ref in expand(r["refs"])]
    assert len(listed) == len(set(listed)), "a reference in two rows"
    expected = [
        ref for ref, c in net.comps.items() if c.fields.get("line", "0") == "0"
    ]  # the controller's parts and strip line 0's (strip rows list line 0)
    assert sorted(listed, key=netlist.natural) == sorted(expected, key=netlist.natural)


@pytest.mark.parametrize("variant", ["A", "B"])
def test_quantities_are_exact(variant, request):
    rows = parse(bom.csv_text(request.getfixturevalue("net_" + variant.lower())))
    strip = [r for r in rows if r["assembly"] == "strip"]
    assert {r["assemblies"] for r in strip} == {STRIPS}
    # 361 sensors, one 100 nF beside each, on the strips.
    sensor = "TMAG5253BA3IQDMRR" if variant == "A" else "SS39ET"
    assert qty(rows, "strip", sensor) == 361
    assert qty(rows, "controller", sensor) == 0
    assert qty(rows, "strip", "GRM155R71C104KA88D") == 361
    # The strip bus: an input and an output header per strip, one on the controller.
    assert qty(rows, "strip", "61204021621") == 2 * STRIPS
    assert qty(rows, "controller", "61204021621") == 1
    # The scan drivers.
    assert qty(rows, "controller", "74HC4051D,653") == 3
    decoder = "74HC238D,653" if variant == "A" else "74HC138D,653"
    assert qty(rows, "controller", decoder) == 3
    if variant == "B":
        assert qty(rows, "strip", "AO3401A") == 19
        assert not any(r["mpn"].startswith("TMAG5253") for r in rows)
        assert qty(rows, "strip", "RC0402FR-07100KL") == 19  # the P-FET gate pull-up
    else:
        assert qty(rows, "strip", "AO3401A") == 0
    # The kit.
    assert kit_qty(rows, "PCB strip") == STRIPS
    assert kit_qty(rows, "PCB controller") == 1
    assert kit_qty(rows, "face module") == 2
    assert kit_qty(rows, "IDC socket") == 2 * STRIPS
    stones = kit_qty(rows, "stone black") + kit_qty(rows, "stone white")
    assert kit_qty(rows, "magnet") == stones == 362


def test_footprints_and_symbols_exist(net):
    try:
        problems = bom.footprint_problems(net)
    except FileNotFoundError as e:
        pytest.skip(str(e))
    assert problems == []


def test_newer_footprints_listed_apart(net_a, net_b):
    newer = bom.newer_footprints(net_a)
    assert set(newer) <= set(NEWER_FOOTPRINTS)
    assert sum(len(refs) for refs in newer.values()) == 361  # the TMAG5253s
    assert bom.newer_footprints(net_b) == {}


@pytest.mark.parametrize("variant", ["A", "B"])
def test_the_voice_is_on_the_bom(variant, request):
    # Issue 29: the amplifier, its low-pass and its plug on the controller; the speaker and
    # the plug's housing in the kit, each with a part number.
    rows = parse(bom.csv_text(request.getfixturevalue("net_" + variant.lower())))
    assert qty(rows, "controller", "PAM8302AASCR") == 1
    amp = next(r for r in rows if r["mpn"] == "PAM8302AASCR")
    assert amp["footprint"] == "Package_SO:MSOP-8_3x3mm_P0.65mm" and amp["datasheet"]
    assert qty(rows, "controller", "53047-0210") == 1  # the speaker's PicoBlade header
    assert qty(rows, "controller", "GRM155R71C333KA01D") == 2  # the low-pass's two poles
    assert qty(rows, "controller", "RC0402FR-0715KL") == 1  # the divider's top
    assert kit_qty(rows, "speaker") == 1 and kit_qty(rows, "speaker plug") == 1
    speaker = next(r for r in rows if r["value"] == "speaker")
    assert speaker["manufacturer"] and speaker["mpn"] == "CDMG13008L-02"
    # The UART header lost its receive pin to the voice: two pins now.
    uart = next(r for r in rows if r["value"] == "UART")
    assert uart["mpn"] == "68002-102HLF" and "1x02" in uart["footprint"]
