"""``make hardware``: the schematic as code builds, passes its electrical rules check with every
warning explained, agrees with the firmware's pin map, and what it writes is what is committed
in hardware/out/ (CPython only; the design's build runs once per session, conftest.py)."""

import copy
import importlib.util
import re
from pathlib import Path

import pytest

from hardware.design import pinmap
from hardware.design.netlist import read

# The design is made once a run (tests/host/conftest.py hardware_out): its tests share a worker.
pytestmark = pytest.mark.xdist_group("hardware")

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "hardware" / "out"
EXPECTED = {
    f"{kind}-{v}.{ext}"
    for v in "AB"
    for kind, ext in (
        ("system", "net"),
        ("controller", "net"),
        ("strip", "net"),
        ("erc", "txt"),
        ("bom", "csv"),
    )
} | {"blocks.svg", "budgets.md"}


@pytest.mark.slow(60)
def test_make_hardware_writes_everything_and_passes(hardware_out):
    out, done = hardware_out
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ERC clean" in done.stdout
    # Exactly the expected files: SKiDL left no .log or .erc beside them (it ran in ``out``).
    assert {p.name for p in out.iterdir()} == EXPECTED


def test_committed_outputs_are_what_the_design_makes(hardware_out):
    out, _ = hardware_out
    assert {p.name for p in OUT.iterdir()} == EXPECTED
    stale = [
        name for name in sorted(EXPECTED) if (out / name).read_bytes() != (OUT / name).read_bytes()
    ]
    assert not stale, f"hardware/out is stale ({stale}): run make hardware"


def test_erc_has_no_error_and_every_warning_is_explained(hardware_out):
    out, _ = hardware_out
    for v in "AB":
        report = (out / f"erc-{v}.txt").read_text(encoding="utf-8")
        assert "errors: 0\n" in report
        assert "UNEXPLAINED" not in report
        warnings = re.findall(r"^WARNING (.*)$", report, re.M)
        whys = re.findall(r"^  why: (.*)$", report, re.M)
        assert len(warnings) == len(whys) >= 1


def test_the_firmware_pin_map_agrees_with_both_netlists(system_netlists):
    for v, net in system_netlists.items():
        assert pinmap.check(net, variant=v) == []


def _swap_mcu_pins(text, a, b):
    # A test copy of the netlist with two of the RP2040's pins exchanged, as a slip in the
    # schematic would: only the nets' nodes on U1 change.
    def swap(m):
        pin = m.group(2)
        pin = {a: b, b: a}.get(pin, pin)
        return f'{m.group(1)}(pin "{pin}")'

    return re.sub(r'(\(ref "U1"\)\s*)\(pin "(\d+)"\)', swap, text)


def test_a_swapped_scan_pin_in_a_netlist_copy_is_caught(hardware_out, tmp_path):
    out, _ = hardware_out
    copy_ = tmp_path / "system-A.net"
    # RP2040 pins 4 and 5 are GPIO2 and GPIO3: the first two mux select bits.
    copy_.write_text(_swap_mcu_pins((out / "system-A.net").read_text(), "4", "5"))
    problems = pinmap.check(read(copy_.read_text()))
    # Named by the pin map's net names, and shown by the simulated scan: the sample the
    # firmware files as column 1 comes from column 2.
    assert "pinmap.csv names GPIO2's net MUX_S0, the netlist MUX_S1" in problems
    assert any(
        "the firmware files point (x=1, y=0), the netlist puts [(0, 2)]" in p for p in problems
    )


def test_a_swapped_key_pin_in_a_netlist_copy_is_caught(hardware_out):
    out, _ = hardware_out
    # Pins 13 and 14 are GPIO10 and GPIO11: the two paddles, Black's and White's.
    problems = pinmap.check(read(_swap_mcu_pins((out / "system-A.net").read_text(), "13", "14")))
    assert any(p.startswith("PADDLE_L (GPIO10)") for p in problems)
    assert any(p.startswith("PADDLE_R (GPIO11)") for p in problems)


def _gen_pins():
    spec = importlib.util.spec_from_file_location("gen_pins", ROOT / "hardware" / "gen_pins.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_swapped_pin_in_a_pin_map_copy_is_caught(system_netlists):
    gen = _gen_pins()
    rows = copy.deepcopy(gen.read_rows())
    by = {r["function"]: r for r in rows}
    # The copy gives the left face's chip select the right face's pin, and the other way.
    by["LCD_CS_L"]["gpio"], by["LCD_CS_R"]["gpio"] = by["LCD_CS_R"]["gpio"], by["LCD_CS_L"]["gpio"]
    scope = {}
    exec(gen.render(rows), scope)  # the pins.py the generator would make of the copy
    pins = {k: v for k, v in scope.items() if k.isupper() and isinstance(v, int)}
    problems = pinmap.check(system_netlists["A"], pins=pins, rows=rows)
    assert any(p.startswith("LCD_CS_L (GPIO17)") for p in problems)
    assert any(p.startswith("LCD_CS_R (GPIO16)") for p in problems)
    # Unchanged, the same path agrees.
    scope = {}
    exec(gen.render(gen.read_rows()), scope)
    pins = {k: v for k, v in scope.items() if k.isupper() and isinstance(v, int)}
    assert pinmap.check(system_netlists["A"], pins=pins) == []


def test_a_firmware_pin_without_a_wiring_rule_fails(system_netlists):
    pins = dict(pinmap.firmware_pins(), SENSOR_RAIL_EN=1)
    problems = pinmap.check(system_netlists["A"], pins=pins)
    assert problems == ["SENSOR_RAIL_EN: the firmware drives GPIO1, no wiring rule"]


def test_the_bank_bits_pull_ups_keep_every_line_off_at_reset(system_netlists):
    net = copy.deepcopy(system_netlists["A"])
    net._pins = None
    # Remove ROW_B3's pull-up: at reset its decoder enables float.
    pulls = [ref for ref, _ in net.nets["ROW_B3"] if ref.startswith("R")]
    assert len(pulls) == 1
    net.nets["ROW_B3"] = [n for n in net.nets["ROW_B3"] if n[0] != pulls[0]]
    problems = pinmap.check(net)
    assert problems and problems[0].startswith("at reset a decoder enable floats")


def test_the_readme_quotes_the_computed_budgets(hardware_out):
    # hardware/README.md §3.2 and §4 quote figures of out/budgets.md: when a part's figure
    # changes, the budget is recomputed and the README must follow.
    out, _ = hardware_out
    budgets = (out / "budgets.md").read_text(encoding="utf-8")
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    for figure in ("54.6 / 135", "28.9 / 135", "62.7 / 135", "140 / 154"):
        assert figure in readme and figure in budgets, figure
    for figure in ("1.83 us <= 1.90 us", "27.0 us <= 2 dummy x 16 us + 1.9 us = 33.9 us"):
        assert figure in budgets, figure
        assert figure.split(" <= ")[0].replace("us", "µs") in readme, figure
    # §5's voice: the watts, the loudness and the currents of out/budgets.md, "Voice".
    for figure in ("103 mW", "71.1 dB", "8.0 mA", "36 mA", "0.020 mAh"):
        assert figure in readme and figure in budgets, figure


def test_a_missing_tool_is_named_with_how_to_get_it(monkeypatch, capsys):
    from hardware.design import build

    monkeypatch.setattr("shutil.which", lambda name: None)
    assert build.main(["--check"]) == 2
    assert "Graphviz: apt-get install graphviz" in capsys.readouterr().err


# --- the voice (issue 29): its two pins checked as every other pin is ------------------------


def _mcu_pin(net, gpio):
    # The RP2040's package pin of GPIO ``gpio`` in a netlist (U1), as a string.
    from hardware.design.netlist import pin_names

    mcu = net.with_role("mcu")[0]
    return next(n for n, name in pin_names(mcu).items() if re.match(rf"GPIO{gpio}(_|$)", name))


def test_the_voice_pins_agree_with_the_netlist(system_netlists):
    net = system_netlists["A"]
    amp = net.with_role("voice amp")
    assert len(amp) == 1 and amp[0].value == "PAM8302A"
    assert "VOICE_PWM" in pinmap.ROLE_RULES and "VOICE_EN" in pinmap.ROLE_RULES
    assert pinmap.PULL_RULES["VOICE_EN"] == "GND"
    assert net.net_of("U1", _mcu_pin(net, 1)) == "VOICE_PWM"
    assert net.net_of("U1", _mcu_pin(net, 23)) == "VOICE_EN"


def test_a_swapped_voice_pin_in_a_netlist_copy_is_caught(hardware_out):
    out, _ = hardware_out
    text = (out / "system-A.net").read_text()
    net = read(text)
    # The voice's PWM exchanged with the UART's TX (GPIO1 and GPIO0), as a slip would.
    problems = pinmap.check(read(_swap_mcu_pins(text, _mcu_pin(net, 1), _mcu_pin(net, 0))))
    assert any(
        p.startswith("VOICE_PWM (GPIO1) is on net DBG_TX, not on voice amp") for p in problems
    )
    assert any(p.startswith("UART0_TX (GPIO0)") for p in problems)
    # The amplifier's enable exchanged with the buzzer's PWM (GPIO23 and GPIO22).
    problems = pinmap.check(read(_swap_mcu_pins(text, _mcu_pin(net, 23), _mcu_pin(net, 22))))
    assert any(p.startswith("VOICE_EN (GPIO23) is on net BUZZER") for p in problems)
    assert any(p.startswith("BUZZER (GPIO22)") for p in problems)


def test_a_moved_voice_pin_in_a_pin_map_copy_is_caught(system_netlists):
    gen = _gen_pins()
    rows = copy.deepcopy(gen.read_rows())
    by = {r["function"]: r for r in rows}
    # The copy puts the voice on GPIO0 and the UART's TX on GPIO1.
    by["VOICE_PWM"]["gpio"], by["UART0_TX"]["gpio"] = "0", "1"
    scope = {}
    exec(gen.render(rows), scope)
    pins = {k: v for k, v in scope.items() if k.isupper() and isinstance(v, int)}
    problems = pinmap.check(system_netlists["A"], pins=pins, rows=rows)
    assert any(p.startswith("VOICE_PWM (GPIO0)") for p in problems)
    assert "pinmap.csv names GPIO0's net VOICE_PWM, the netlist DBG_TX" in problems


def test_the_voice_enable_needs_its_pull_down(system_netlists):
    # Without the pull-down the amplifier's shutdown pin floats from reset until the firmware
    # drives it: the check says so.
    net = copy.deepcopy(system_netlists["A"])
    net._pins = None
    pulls = [ref for ref, _ in net.nets["VOICE_EN"] if ref.startswith("R")]
    assert len(pulls) == 1
    net.nets["VOICE_EN"] = [n for n in net.nets["VOICE_EN"] if n[0] != pulls[0]]
    assert pinmap.check(net) == ["VOICE_EN (GPIO23) is on net VOICE_EN: no pull to GND"]


def test_a_voice_filter_without_its_coupling_capacitor_is_caught(system_netlists):
    # The PWM must reach IN+ through R, R, then C: a netlist whose IN+ sits on the filter's
    # node straight (no DC block) fails the rule.
    from hardware.design.netlist import pin_names

    net = copy.deepcopy(system_netlists["A"])
    net._pins = None
    amp = net.with_role("voice amp")[0]
    inp = next(n for n, name in pin_names(amp).items() if name == "IN+")
    net.nets["VOICE_INP"] = [n for n in net.nets["VOICE_INP"] if n != (amp.ref, inp)]
    net.nets["VOICE_LP2"].append((amp.ref, inp))
    problems = pinmap.check(net)
    assert len(problems) == 1 and problems[0].startswith("VOICE_PWM (GPIO1) is on net VOICE_PWM")


def test_the_voice_runs_from_vsys_to_the_speaker_plug(system_netlists):
    from hardware.design.netlist import pin_names

    for net in system_netlists.values():
        amp = net.with_role("voice amp")[0]
        on = {name: net.net_of(amp.ref, n) for n, name in pin_names(amp).items()}
        # VSYS, not the 3V3 rail the ADC measures against; the bridged outputs to the plug.
        assert on["VDD"] == "VSYS" and on["GND"] == "GND"
        plug = net.with_role("speaker")[0]
        assert {net.net_of(plug.ref, "1"), net.net_of(plug.ref, "2")} == {on["OUT+"], on["OUT-"]}
        assert on["OUT+"] != on["OUT-"]
        # IN- through its capacitor to GND: the filter's single-ended output on IN+.
        c = [ref for ref, _ in net.nets[on["IN-"]] if ref.startswith("C")]
        assert len(c) == 1 and "GND" in {net.net_of(c[0], "1"), net.net_of(c[0], "2")}
