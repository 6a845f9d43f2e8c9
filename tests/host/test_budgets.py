"""The board's budgets (hardware/design/budgets.py): the design meets each, and each check
catches a design that does not (a 5 V 49E, a slow mux, one dummy step, a small regulator).

All figures are computed from the parts' datasheet figures and the firmware's constants: no
timing is measured here.
"""

import math

import pytest

from firmware.hal import rp2040 as fw
from hardware.design import budgets
from hardware.design.parts import PARTS, Figure

# The design is made once a run (tests/host/conftest.py hardware_out): its tests share a worker.
pytestmark = pytest.mark.xdist_group("hardware")


def failing(result):
    return [name for name, ok in result.checks.items() if not ok]


# --- power ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scan", list(budgets.SCANS))
def test_every_scan_mode_meets_the_power_budget(scan):
    variant = budgets.SCANS[scan][0]
    p = budgets.power(variant, scan)
    assert p.ok, failing(p)
    assert p.peak_3v3 <= 0.300
    assert p.peak_3v3 <= budgets.LDO_MARGIN * PARTS["ldo"].figures["i_max"].value
    assert 0 < p.avg_3v3 <= p.peak_3v3
    assert p.avg_battery > p.avg_3v3  # the LDO's quiescent and the VSYS divider on top
    assert p.hours == pytest.approx(p.battery_mah / (p.avg_battery * 1e3))
    assert all(line.source for line in p.lines)


def test_power_follows_the_firmware_schedule():
    on, period = budgets.scan_duty("dma")
    assert on == pytest.approx(fw.frame_us() * 1e-6) == pytest.approx(3.04e-3)
    assert period == pytest.approx(1 / 190)
    _, period = budgets.scan_duty("dma-max")
    assert period == pytest.approx(4e-3)  # FRAME_MS, then 1 ms polls until the IRQ
    on, period = budgets.scan_duty("polled")
    assert period == pytest.approx(fw.POLL_MS * 1e-3)
    a = budgets.power("A")
    row = fw.N * PARTS["tmag5253"].figures["i_on"].value
    sensors = [x for x in a.lines if x.name.startswith("sensors: a row")][0]
    assert sensors.avg == pytest.approx(row * 3.04e-3 * 190)
    assert sensors.peak == pytest.approx(fw.N * PARTS["tmag5253"].figures["i_on_max"].value)
    assert budgets.battery_mah() == 2000


def test_variant_b_powers_a_line_all_the_time():
    b = budgets.power("B")
    assert b.duty == 1.0  # a 1 ms settle per row makes the polled frames longer than POLL_MS
    assert b.avg_3v3 > budgets.power("A").avg_3v3
    assert b.hours < budgets.power("A").hours


def test_a_row_on_a_small_regulator_fails():
    p = budgets.power("A", sensor_i=6e-3, ldo_i_max=0.100)
    assert not p.ok
    assert any("LDO" in name for name in failing(p))
    assert budgets.power("A", sensor_i=6e-3).ok  # the design's 600 mA LDO carries it


def test_the_row_decoder_drives_enable_inputs_only():
    d = budgets.row_drive("A")
    assert d.checks and all(d.checks.values())
    assert d.driver_current < 1e-3 < d.driver_limit < d.row_current  # it could not power a row


def test_the_fet_drop_keeps_the_49e_above_its_minimum():
    d = budgets.row_drive("B")
    assert all(d.checks.values())
    assert d.fet_drop < 0.05 and d.sensor_v >= PARTS["ss39et"].figures["v_min"].value
    bad = budgets.row_drive("B", fet_r_on=0.4 / (19 * 6e-3) * 2)  # a 0.8 V drop
    assert not all(bad.checks.values())


# --- ADC range --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["A", "B"])
def test_the_design_stays_in_the_adc_range(variant):
    a = budgets.adc_range(variant)
    assert a.ok, failing(a)
    assert a.in_range
    assert a.v_zero == pytest.approx(a.sensor_v / 2)
    design = a.fields[1]
    assert design.b == pytest.approx(48e-3)
    assert design.signal_min_codes >= budgets.CAL_MIN_CODES
    strongest = a.fields[0]
    assert 0 <= strongest.v_low < a.v_zero < strongest.v_high <= 3.3


def test_a_49e_from_5_v_overdrives_the_adc_pin():
    a = budgets.adc_range("B", supply=5.0)
    assert not a.ok and not a.in_range
    assert a.swing[1] == pytest.approx(4.0, abs=0.05)  # "up to ~4 V" on an RP2040 pin
    assert a.swing[1] > a.v_pin_max
    assert a.fields[0].v_high > 3.3
    assert budgets.adc_range("B", supply=3.3).ok


def test_the_49e_supply_after_the_fet_is_checked():
    a = budgets.adc_range("B")
    assert any("49E supply" in name for name in a.checks)
    low = budgets.adc_range("B", supply=2.6)
    assert any("49E supply" in name for name in failing(low))


def test_a_weak_sensor_is_flagged_under_the_calibration_minimum(monkeypatch):
    figures = PARTS["tmag5253"].figures
    monkeypatch.setitem(figures, "sensitivity", Figure(2.0, "V/T", "what-if"))
    a = budgets.adc_range("A")
    assert a.fields[1].signal_min_codes < budgets.CAL_MIN_CODES
    assert any("signal" in name for name in failing(a))


def test_signal_in_codes():
    a = budgets.adc_range("A")
    s_min = PARTS["tmag5253"].figures["sensitivity"].value * (1 - 0.15)
    assert a.fields[1].signal_min_codes == pytest.approx(s_min * 48e-3 / 3.3 * 4096)


# --- scan timing ------------------------------------------------------------------------------


def test_variant_a_timing_fits_the_dma_schedule():
    t = budgets.timing("A")
    assert t.ok, failing(t)
    assert t.frame == pytest.approx(3.04e-3)
    assert t.mux_window == pytest.approx(2e-6 - budgets.ASSUMED["handoff"].value)
    assert t.row_window == pytest.approx(fw.DUMMY * 16e-6 + t.mux_window)
    assert t.mux_settle > PARTS["mux"].figures["t_select"].value
    assert t.r_on_tolerated >= PARTS["mux"].figures["r_on"].value
    tau = t.r_on * t.c_column
    assert t.mux_settle == pytest.approx(
        PARTS["mux"].figures["t_select"].value + math.log(2**13) * tau
    )


def test_a_slower_mux_or_one_dummy_step_fails():
    assert not budgets.timing("A", t_select=1e-6).ok
    assert not budgets.timing("A", r_on=1000.0).ok
    one = budgets.timing("A", dummy=1)
    assert not one.ok
    assert any(name.startswith("row") for name in failing(one))
    assert not budgets.timing("A", t_on=40e-6).ok  # a sensor slower than 2 dummy steps


def test_variant_b_needs_a_longer_row_settle_than_the_firmware_default():
    t = budgets.timing("B")
    assert t.ok, failing(t)
    assert t.row_window >= PARTS["ss39et"].figures["t_on"].value
    assert any("row_us = 40" in f for f in t.findings)
    assert any("DMA" in f for f in t.findings)
    assert 0.020 < t.frame < 0.030  # ~26 ms a frame at a 1 ms row settle
    assert not budgets.timing("B", row_us=40).ok


def test_every_figure_has_a_source():
    for key, spec in PARTS.items():
        for name, f in spec.figures.items():
            assert f.source, (key, name)
    for f in list(budgets.ASSUMED.values()) + list(budgets.MAGNET.values()):
        assert f.source


def test_report_tables():
    text = budgets.report()
    for heading in ("### Power", "### ADC range, variant A", "### ADC range, variant B",
                    "### Scan timing, variant A", "### Scan timing, variant B"):  # fmt: skip
        assert heading in text
    assert "**FAILS**" in text  # the 5 V what-ifs are shown failing
    assert "| --- |" in text and "†" in text
    assert budgets.table(budgets.power("A")).startswith("| load |")
    with pytest.raises(TypeError):
        budgets.table(None)


def test_row_lines_drive_enables_and_gates_only(system_netlists):
    # The schematic as built: a '238 output reaches only TMAG5253 EN pins (A); a '138 output
    # only the line FET's gate and its pull-up (B). No sensor supply pin on a row line.
    assert budgets.row_loads(system_netlists["A"]) == {("tmag5253", "EN")}
    assert budgets.row_loads(system_netlists["B"]) == {("pfet", "G"), ("r100k", "~")}


# --- the voice (issue 29) ---------------------------------------------------------------------


def test_the_voice_meets_its_budget():
    v = budgets.voice()
    assert v.ok, failing(v)
    spk = PARTS["speaker"].figures
    # Full scale: loud enough at a player's ear, within the speaker's nominal rating.
    assert v.spl_full >= budgets.TARGET_SPL
    assert v.p_full <= spk["p_nom"].value
    assert v.spl_full == pytest.approx(
        spk["spl_1w_1m"].value + 10 * math.log10(v.p_full) + 20 * math.log10(1 / 0.5)
    )
    # The low-pass passes telephone speech and buries the PWM carrier.
    assert 3400 <= v.f_high <= 8000 and v.f_low < 100
    assert v.carrier_db <= -budgets.CARRIER_MIN_DB
    # Shut down between phrases: a microamp; speaking: the quiescent current and the watts.
    amp = PARTS["voice_amp"].figures
    assert v.i_idle == amp["i_sd"].value <= 1e-6
    assert amp["i_q"].value < v.i_speaking < v.i_peak < 0.1


def test_the_voice_filter_is_computed_from_the_schematic_values():
    # At DC (the coupling capacitor aside) the low-pass is the divider R3 / (R1 + R2 + R3)
    # loaded by the amplifier's input; at 1 kHz it is within a fraction of a dB of that.
    from hardware.design import circuit as C
    from hardware.design.parts import ohms

    f = C.VOICE_FILTER
    r1, r2, r3 = (ohms(f[k]) for k in ("R1", "R2", "R3"))
    r_in = PARTS["voice_amp"].figures["r_in"].value
    r3_loaded = r3 * r_in / (r3 + r_in)
    divider = r3_loaded / (r1 + r2 + r3_loaded)
    assert abs(budgets.voice_filter(1e3)) == pytest.approx(divider, rel=0.05)
    assert budgets.farads("33nF") == pytest.approx(33e-9)
    # Two poles: beyond the corner it falls at 40 dB a decade.
    h = [abs(budgets.voice_filter(f)) for f in (100e3, 1e6)]
    assert 20 * math.log10(h[0] / h[1]) == pytest.approx(40, abs=1.5)


def test_a_louder_amplifier_or_a_lighter_divider_overdrives_the_speaker():
    assert budgets.voice(gain_db=30).p_full > PARTS["speaker"].figures["p_nom"].value
    assert not budgets.voice(gain_db=30).ok
    assert not budgets.voice(filter_={"R2": "4k7"}).ok
    # Whatever the amplifier's input resistance (a secondary source), full scale stays in bounds.
    assert budgets.voice(r_in=1e6).ok
    # A single small capacitor leaves the carrier too strong.
    assert not budgets.voice(filter_={"C1": "1nF", "C2": "1nF"}).ok


def test_a_counted_minute_is_spoken_from_the_clock_s_own_cues():
    from firmware.clock import cues

    found = budgets.counted_minute_cues()
    kinds = [cues.kind(c) for c, _ in found]
    # 30, 40, 50 s, then 1 ... 9, then "10, 超时判负": 13 phrases in the last minute.
    assert kinds == [cues.MARK] * 3 + [cues.COUNT] * 9 + [cues.TIMEOUT]
    assert [t for _, t in found][:3] == [30_000, 40_000, 50_000]
    v = budgets.voice()
    assert v.phrases == 13
    # What it costs: a few percent of what the board itself takes in that minute.
    assert 0 < v.minute_mas < 0.05 * v.board_minute_mas


def test_the_power_budget_counts_the_voice_on_vsys():
    p = budgets.power("A")
    line = next(x for x in p.lines if x.name.startswith("voice amplifier"))
    assert line.rail == "VSYS"
    assert line.avg == PARTS["voice_amp"].figures["i_sd"].value  # shut down between phrases
    assert line.peak == pytest.approx(budgets.voice().i_peak)
    assert "### Voice" in budgets.report()
