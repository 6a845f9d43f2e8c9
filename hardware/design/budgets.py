"""The board's budgets computed from the parts' figures: power, ADC range, scan timing.

Every quantity comes from ``parts.PARTS[key].figures`` (datasheet figures with their sources),
from the firmware's own constants (``firmware/hal/rp2040.py``: the scan schedule the board
actually runs), from ``circuit.py``'s resistor values (named below), or from ``MAGNET`` and
``ASSUMED`` here: the two small tables of figures that are not a part's datasheet (the research
model of the stone's field; the allowances this budget states). A line whose figure is marked
``verify`` says so (a dagger in ``report()``), so the README can tell a cited figure from a
placeholder.

- ``power(variant, scan)``: line items on the 3V3 rail and from the battery, average and peak,
  battery life on the kit's cell; checks: the LDO's rating with margin, the 300 mA rule, the
  row drive (A: decoders drive EN inputs only; B: the FET's drop keeps the 49E above v_min).
- ``adc_range(variant, supply)``: the sensor's output at 0 and +-B for the fields in ``MAGNET``,
  clipped by its swing, with sensitivity tolerance, against the ADC's 0..3.3 V and the pin's
  absolute maximum; the signal in 12-bit codes against the calibration's 150-code minimum.
- ``timing(variant)``: mux and row settling against the DMA schedule's windows (and the polled
  scanner's), the frame time from the firmware constants.
- ``voice()``: the voice's PWM low-pass (corner, the PWM carrier's attenuation), the level a
  full-scale phrase reaches the speaker with (watts, dB SPL at 0.5 m), the amplifier's current
  shut down, speaking and at its peak, and what a counted minute costs the battery (its
  phrases from the clock's own cue schedule, ``firmware/clock/cues.py``).

``report()`` renders them all as Markdown for hardware/README.md. Pure functions, CPython only.
"""

import math
import re
from dataclasses import dataclass, field

from firmware.hal import rp2040 as fw
from hardware.design import circuit as C
from hardware.design.parts import PARTS, Figure, kit, ohms

N = fw.N
CODES = 4096  # 12-bit ADC
CAL_MIN_CODES = 150  # hardware/README.md §6 step 4: |delta| >= max(8 sigma, 150 codes)
SETTLE_TAU = math.log(2**13)  # time constants to settle to 1/2 LSB of 12 bits (9.01)
LDO_MARGIN = 0.5  # the peak 3V3 load may use half the LDO's rating (heat, dropout, inrush)
RAIL_LIMIT = 0.300  # Pico datasheet: keep the 3V3 load below 300 mA (as quoted, research §5)

# The stone's magnet (6x3 mm N35) on axis at the die: research §1.2's model (on-axis cylinder
# formula, Br 1.21 T), not a measurement. ``off_centre`` is the fraction left 5 mm off-centre.
MAGNET = {
    "b_z4": Figure(72e-3, "T", "research §1.2 model: 6x3 N35 on axis at z = 4 mm", True),
    "b_z5": Figure(48e-3, "T", "research §1.2 model: 6x3 N35 on axis at z = 5 mm (design)", True),
    "b_z6": Figure(33e-3, "T", "research §1.2 model: 6x3 N35 on axis at z = 6 mm", True),
    "off_centre": Figure(0.29, "", "research §1.2 model: field left 5 mm off-centre, z = 5", True),
}

# What this budget assumes where no datasheet figure was found: each is stated, none is cited.
ASSUMED = {
    "c_trace": Figure(
        150e-12,
        "F",
        "allowance: a column's wiring, 18 ribbon links of 60 mm (~1.1 m at ~50 pF/m"
        " = 55 pF) + 19 strip traces and the controller's run (~5 pF each = 95 pF)",
        True,
    ),
    "c_sensor_out": Figure(
        5e-12,
        "F",
        "allowance: one sensor output pin on a column (TMAG5253 Hi-Z capacitance not found)",
        True,
    ),
    "c_node": Figure(
        10e-12,
        "F",
        "allowance: the controller's trace from a mux's common to its ADC pin and the pin's pad",
        True,
    ),
    "handoff": Figure(
        100e-9,
        "s",
        "the DMA hand-off from a step's last conversion to the new address on the "
        "pins: a few system clocks (hardware/README.md §3.2, est.)",
        True,
    ),
    "i_en": Figure(
        1e-6,
        "A",
        "a CMOS enable input's leakage, assumed (the TMAG5253 EN input current not found)",
        True,
    ),
    "v_battery": Figure(3.7, "V", "the kit's cell: 1S LiPo 3.7 V nominal (parts.kit())"),
    "dma_rate": Figure(
        190.0,
        "1/s",
        "DMA frames as the app runs them, back to back: ~190 frames/s measured on "
        "a genuine RP2040 (shared/research/on-chip.md, real main.py boot)",
        True,
    ),
    "pwm_carrier": Figure(
        125e6 / 1024,
        "Hz",
        "the voice's PWM carrier as the playback is meant to run it: 125 MHz / 1024 (10 bits "
        "a sample); a faster carrier is filtered better",
        True,
    ),
    "speech_crest": Figure(
        9.0,
        "dB",
        "a phrase's average power below a full-scale sine's, est. (speech normalised to its "
        "peak: a crest factor of ~12 dB against a sine's 3 dB)",
        True,
    ),
    "phrase_s": Figure(
        0.6,
        "s",
        "one phrase ('30 秒', '5', '还剩2分钟'), est.: the recordings (issue 29) decide",
        True,
    ),
    "amp_hold_s": Figure(
        0.1,
        "s",
        "the amplifier on around each phrase beyond its sound (waking, no pop), est.",
        True,
    ),
    "v_cell_min": Figure(
        3.0, "V", "the 1S LiPo's cut-off (the cell's protection), the lowest VSYS + 0.3 V", True
    ),
    "polled_frame": Figure(
        7.4e-3,
        "s",
        "a polled frame at row_us 40, mux_us 4: 5.5-7.4 ms estimated on the chip "
        "(firmware/hal/rp2040.py, bench/bench_sensing.py); the upper figure",
        True,
    ),
}

# Resistors on the rails, as circuit.py places them (in ohms): the always-on static loads.
R_MIDREF = sum(ohms(v) for v in C.MIDREF_DIV)
R_BANK_PULLUP = ohms(C.BANK_PULLUP)
R_VSYS_DIV = sum(ohms(v) for v in C.VSYS_DIV)
R_MUX_PULLDOWN = ohms(C.MUX_PULLDOWN)
R_LINE_PULLUP = ohms(C.LINE_PULLUP)

SENSOR = {"A": "tmag5253", "B": "ss39et"}
DECODER = {"A": "dec238", "B": "dec138"}


def fig(key, name):
    """The figure ``name`` of part ``key`` (a ``Figure``)."""
    return PARTS[key].figures[name]


def val(key, name):
    """The value of part ``key``'s figure ``name``."""
    return PARTS[key].figures[name].value


def battery_mah():
    """The kit's battery capacity in mAh, read from ``parts.kit()``'s description."""
    for item, _qty, _maker, _mpn, what in kit():
        if item == "battery":
            return float(re.search(r"(\d+)\s*mAh", what).group(1))
    raise ValueError("no battery in the kit")


def polled_row_on(row_us=None, mux_us=None):
    """Seconds a row is on in one polled row read (``_poll_row``): the row settle, the mux
    settles, and the reads and code (from the frame estimate at the firmware's defaults)."""
    d_row, d_mux = _polled_defaults()
    row_us = d_row if row_us is None else row_us
    mux_us = d_mux if mux_us is None else mux_us
    base = ASSUMED["polled_frame"].value / N  # one row at the defaults
    return base + (row_us - d_row) * 1e-6 + (fw.MUX_WAYS - 1) * (mux_us - d_mux) * 1e-6


def _polled_defaults():
    """``(row_us, mux_us)``: ``PolledScanner``'s defaults, read from its signature."""
    import inspect

    sig = inspect.signature(fw.PolledScanner.__init__).parameters
    return sig["row_us"].default, sig["mux_us"].default


# --- 1. power ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One load: average and peak current (A), where it comes from, and whether to verify."""

    name: str
    avg: float
    peak: float
    source: str
    verify: bool = False
    rail: str = "3V3"  # or "VSYS": drawn before the LDO


@dataclass(frozen=True)
class Power:
    """A power budget: the lines, the totals, the battery life and the checks (name -> ok)."""

    variant: str
    scan: str
    frame_s: float  # sensors on per frame
    period_s: float  # one frame every
    duty: float
    lines: tuple
    avg_3v3: float
    peak_3v3: float
    avg_battery: float
    peak_battery: float
    battery_mah: float
    hours: float
    limit_3v3: float
    checks: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def ok(self):
        return all(self.checks.values())


SCANS = {
    # name: (variant, what) -- how the firmware runs the scan for that variant
    "dma": ("A", "DMA one-shot frames back to back as the app polls them"),
    "dma-max": ("A", "DMA one-shot, the fastest the app's poll allows (a frame every 4 ms)"),
    "dma-20": ("A", "DMA one-shot throttled to 20 frames/s (the research's plan; not what the "
               "firmware does)"),
    "polled": ("A", "polled fallback, a frame every POLL_MS"),
    "polled-b": ("B", "polled driver, row settle = the 49E's t_on; frames back to back"),
}  # fmt: skip


def scan_duty(scan, row_us=None):
    """``(on_s, period_s)``: how long a row is on per frame, and the frame period, for a scan
    mode of ``SCANS`` (for the polled ones ``row_us`` overrides the row settle)."""
    dma_frame = fw.frame_us() * 1e-6
    if scan == "dma":
        return dma_frame, 1.0 / ASSUMED["dma_rate"].value
    if scan == "dma-max":
        # poll(): FRAME_MS first, then 1 ms steps until the frame IRQ: ceil to whole ms.
        return dma_frame, math.ceil(dma_frame * 1e3) * 1e-3
    if scan == "dma-20":
        return dma_frame, 1 / 20
    if scan == "polled":
        on = N * polled_row_on(row_us)
        return on, max(fw.POLL_MS * 1e-3, on)
    if scan == "polled-b":
        if row_us is None:
            row_us = b_row_us()
        on = N * polled_row_on(row_us)
        return on, max(fw.POLL_MS * 1e-3, on)
    raise ValueError("scan: one of %s" % ", ".join(SCANS))


def power(variant="A", scan=None, ldo_i_max=None, sensor_i=None, row_us=None, with_voice=True):
    """The power budget of ``variant`` under scan mode ``scan`` (default: "dma" for A,
    "polled-b" for B). ``ldo_i_max``, ``sensor_i`` (A per sensor on) override the figures:
    what-ifs for the tests."""
    if scan is None:
        scan = "dma" if variant == "A" else "polled-b"
    sensor = SENSOR[variant]
    dec = DECODER[variant]
    on_s, period_s = scan_duty(scan, row_us)
    duty = min(1.0, on_s / period_s)
    lines = []

    def add(name, avg, peak, f_or_src, rail="3V3"):
        if isinstance(f_or_src, Figure):
            lines.append(Line(name, avg, peak, f_or_src.source, f_or_src.verify, rail))
        else:
            lines.append(Line(name, avg, peak, f_or_src, False, rail))

    mcu = fig("rp2040", "i_run")
    add("RP2040 running (flash XIP included)", mcu.value, mcu.value, mcu)
    fl = fig("flash", "i_standby")
    add("flash, between reads", fl.value, fl.value, fl)
    if variant == "A":
        i_typ = sensor_i if sensor_i is not None else val(sensor, "i_on")
        i_max = sensor_i if sensor_i is not None else val(sensor, "i_on_max")
        f_on = fig(sensor, "i_on")
        add(f"sensors: a row of {N} on, {duty:.1%} of the time (typ.; max {N * i_max * 1e3:.0f}"
            " mA peak)", N * i_typ * duty, N * i_max, f_on)  # fmt: skip
        f_off = fig(sensor, "i_off")
        n_off = N * N - N
        add(f"sensors: {n_off} disabled", n_off * f_off.value, n_off * f_off.value, f_off)
        en = ASSUMED["i_en"]
        add(f"decoder output into {N} EN inputs", N * en.value * duty, N * en.value, en)
    else:
        i_row = N * (sensor_i if sensor_i is not None else val(sensor, "i_on"))
        f_on = fig(sensor, "i_on")
        add(f"sensors: a line of {N} powered, {duty:.1%} of the time (typ. at 5 V; max not "
            "found)", i_row * duty, i_row, f_on)  # fmt: skip
        i_pu = 3.3 / R_LINE_PULLUP
        add(
            f"the on line's {C.LINE_PULLUP} gate pull-up (circuit.py)",
            i_pu * duty,
            i_pu,
            "circuit.py",
        )
    mux_q = fig("mux", "i_q")
    add("3 x 74HC4051", 3 * mux_q.value, 3 * mux_q.value, mux_q)
    dq = fig(dec, "i_q")
    add("3 x 74HC238" if variant == "A" else "3 x 74HC138", 3 * dq.value, 3 * dq.value, dq)
    face = fig("face", "i")
    add("2 faces (HT1621, no backlight)", 2 * face.value, 2 * face.value, face)
    rtc = fig("rtc", "i")
    add("RTC (PCF8563)", rtc.value, rtc.value, rtc)
    led = fig("led", "i")
    add("status LED (off; peak: lit)", 0.0, led.value, led)
    bz = fig("buzzer", "i")
    add("buzzer (silent; peak: sounding)", 0.0, bz.value, bz)
    vo = voice() if with_voice else None
    if vo is not None:
        add("voice amplifier (shut down between phrases; peak: a full-scale phrase, "
            f"{vo.p_full * 1e3:.0f} mW)", vo.i_idle, vo.i_peak, fig("voice_amp", "i_q"),
            rail="VSYS")  # fmt: skip
    add(
        f"MIDREF divider {'/'.join(C.MIDREF_DIV)} (circuit.py)",
        3.3 / R_MIDREF,
        3.3 / R_MIDREF,
        "circuit.py",
    )
    # Bank pull-ups: rows 0-7 drive B3 and B4 low, 8-15 B4, 16-18 B3 (README §1's bank codes).
    lows = sum(2 if r < 8 else 1 for r in range(N)) / N
    i_pu = 3.3 / R_BANK_PULLUP
    add(f"bank pull-ups {C.BANK_PULLUP} while a bank is selected (circuit.py)", lows * i_pu * duty,
        2 * i_pu, "circuit.py")  # fmt: skip
    i_pd = 3 * (3.3 / 2) / R_MUX_PULLDOWN
    add(f"3 mux pull-downs {C.MUX_PULLDOWN} at mid-rail (circuit.py)", i_pd, i_pd, "circuit.py")
    ldo_q = fig("ldo", "i_q")
    add("LDO quiescent", ldo_q.value, ldo_q.value, ldo_q, rail="VSYS")
    vb = ASSUMED["v_battery"].value
    add(f"VSYS/3 divider {' + '.join(C.VSYS_DIV)} (circuit.py)", vb / R_VSYS_DIV, 4.2 / R_VSYS_DIV,
        "circuit.py, at the cell's voltage", rail="VSYS")  # fmt: skip

    avg_3v3 = sum(x.avg for x in lines if x.rail == "3V3")
    peak_3v3 = sum(x.peak for x in lines if x.rail == "3V3")
    vsys_avg = sum(x.avg for x in lines if x.rail == "VSYS")
    vsys_peak = sum(x.peak for x in lines if x.rail == "VSYS")
    avg_bat = avg_3v3 + vsys_avg  # a linear regulator: input current = output + quiescent
    peak_bat = peak_3v3 + vsys_peak
    mah = battery_mah()
    i_max = val("ldo", "i_max") if ldo_i_max is None else ldo_i_max
    limit = min(i_max * LDO_MARGIN, RAIL_LIMIT)
    checks = {
        f"peak 3V3 {peak_3v3 * 1e3:.0f} mA <= {LDO_MARGIN:.0%} of the LDO's "
        f"{i_max * 1e3:.0f} mA": peak_3v3 <= i_max * LDO_MARGIN,
        f"peak 3V3 {peak_3v3 * 1e3:.0f} mA <= {RAIL_LIMIT * 1e3:.0f} mA": peak_3v3 <= RAIL_LIMIT,
    }
    checks.update(row_drive(variant, sensor_i=sensor_i).checks)
    # Where the LDO leaves regulation: 3V3 + its dropout (scaled to the peak load from the
    # rated dropout at i_max) + the battery's Schottky into VSYS.
    # The voice's amplifier draws from VSYS beside the LDO, not through it.
    ldo_load = peak_bat - (vo.i_peak if vo is not None else 0.0)
    drop = val("ldo", "dropout") * ldo_load / val("ldo", "i_max") + val("schottky", "vf")
    v_reg = 3.3 + drop
    notes = (
        f"3V3 stays regulated while the cell is above {v_reg:.2f} V (3.3 V + the LDO's dropout"
        f" at {ldo_load * 1e3:.0f} mA + the Schottky's {val('schottky', 'vf'):.1f} V); below, the"
        " rail follows the cell (sensing is ratiometric to it)",
    )
    return Power(
        variant, scan, on_s, period_s, duty, tuple(lines), avg_3v3, peak_3v3, avg_bat, peak_bat,
        mah, mah / (avg_bat * 1e3), limit, checks, notes,
    )  # fmt: skip


@dataclass(frozen=True)
class Drive:
    """The row drive: what the decoder output (A) or the line's FET (B) has to carry."""

    variant: str
    row_current: float  # A: the sensors' current of one row
    driver_current: float  # what the decoder output sources
    driver_limit: float
    fet_drop: float  # B
    sensor_v: float  # the sensors' supply with the row on
    sensor_v_min: float
    checks: dict


def row_drive(variant="A", supply=3.3, sensor_i=None, fet_r_on=None):
    """A: the '238 output drives only the row's EN inputs (the sensors' supply comes from the
    rail), so it sources N x the EN leakage, not the row's current. B: the P-FET carries the
    line's current; its drop keeps the sensors above their minimum supply."""
    if variant == "A":
        i_s = sensor_i if sensor_i is not None else val("tmag5253", "i_on_max")
        row = N * i_s
        drv = N * ASSUMED["i_en"].value
        lim = val("dec238", "i_oh")
        return Drive(variant, row, drv, lim, 0.0, supply, 0.0, {
            f"'238 output sources {drv * 1e6:.0f} uA (EN inputs only; a row's sensors would "
            f"need {row * 1e3:.0f} mA) <= {lim * 1e3:.1f} mA": drv <= lim,
        })  # fmt: skip
    i_s = sensor_i if sensor_i is not None else val("ss39et", "i_on")
    row = N * i_s
    r_on = val("pfet", "r_on") if fet_r_on is None else fet_r_on
    drop = r_on * row
    v = supply - drop
    v_min = val("ss39et", "v_min")
    vgs = supply  # the '138 pulls the gate to GND; the source is on the rail
    return Drive(variant, row, 0.0, 0.0, drop, v, v_min, {
        f"FET drop {drop * 1e3:.1f} mV at {row * 1e3:.0f} mA: sensors at {v:.3f} V >= "
        f"{v_min} V": v >= v_min,
        f"FET |VGS| {vgs:.1f} V >= {val('pfet', 'vgs_rated')} V (its RDS(on) figure's)":
        vgs >= val("pfet", "vgs_rated"),
    })  # fmt: skip


def row_loads(netlist):
    """What the row lines (nets ``ROW<k>``) drive in a netlist (``netlist.read``): the set of
    ``(part key, pin name)`` on them, connectors and the decoders' own outputs left out. In
    variant A that is the sensors' EN pins only; in B the FETs' gates and their pull-ups; a
    sensor's supply pin there would mean the decoder powers a row."""
    from hardware.design.netlist import pin_names

    names = {}
    loads = set()
    for name, nodes in netlist.nets.items():
        if not re.fullmatch(r"ROW\d+", name):
            continue
        for ref, pin in nodes:
            comp = netlist.comps[ref]
            key = comp.fields.get("Key", "")
            if key in ("strip_header",) or comp.fields.get("role") == "row decoder":
                continue
            if key not in names:
                names[key] = pin_names(comp)
            loads.add((key, names[key].get(pin, pin)))
    return loads


# --- 2. ADC range -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """The output at +-``b`` (T): the extremes over the sensitivity tolerance, and the smallest
    signal (V and 12-bit codes) a stone gives."""

    label: str
    b: float
    v_low: float  # lowest output (North, max sensitivity), clipped
    v_high: float  # highest output (South, max sensitivity), clipped
    signal_min_v: float  # smallest |delta| (min sensitivity), clipped
    signal_min_codes: float


@dataclass(frozen=True)
class AdcRange:
    variant: str
    supply: float  # the rail feeding the sensors (B: before the FET)
    sensor_v: float  # the sensors' own supply
    v_zero: float
    swing: tuple  # (low, high): what the output can reach at all
    sensitivity: tuple  # (min, max) V/T at sensor_v
    fields: tuple
    full_scale: float
    v_pin_max: float
    checks: dict
    notes: tuple = ()

    @property
    def ok(self):
        return all(self.checks.values())

    @property
    def in_range(self):
        return all(0.0 <= f.v_low and f.v_high <= self.full_scale for f in self.fields)


def _sensor_model(variant, v):
    """``(s_min, s_max, (swing_lo, swing_hi), b_range, notes)`` of the sensor at supply ``v``:
    ratiometric, so the sensitivity scales with the supply."""
    if variant == "A":
        s = val("tmag5253", "sensitivity") * v / 3.3
        tol = val("tmag5253", "sensitivity_tol")
        # Output swing limits not found: the rails bound it; the field saturates at the range.
        return (
            s * (1 - tol),
            s * (1 + tol),
            (0.0, v),
            val("tmag5253", "range"),
            (
                "TMAG5253: zero-field output VCC/2 assumed (ratiometric; the figure was not found); "
                "swing limits not found, the rails bound it",
            ),
        )
    s_lo = val("ss39et", "sensitivity_5v_min") * v / 5.0
    s_hi = val("ss39et", "sensitivity_5v") * v / 5.0
    m = val("ss39et", "rail_margin")
    return (
        s_lo,
        s_hi,
        (m, v - m),
        math.inf,
        (
            "49E: zero-field output VCC/2 and ratiometric sensitivity assumed (the SS49E's null and "
            "span rows were not retrieved); swing ~1 V from each rail (VGACorne, unconfirmed)",
        ),
    )


def adc_range(variant="A", supply=3.3):
    """The sensor's output range at ``supply`` (V, the rail feeding the sensors; B drops the
    FET's share) for the fields in ``MAGNET``, against the ADC's 0..ADC_AVDD (the 3V3 rail) and
    the pin's absolute maximum, and the signal in codes against the calibration's minimum."""
    v = supply - (row_drive("B", supply).fet_drop if variant == "B" else 0.0)
    s_lo, s_hi, (lo, hi), b_max, notes = _sensor_model(variant, v)
    v0 = v / 2
    fs = val("rp2040", "adc_full_scale")
    vref = fs  # ADC_VREF is the 3V3 rail (through the Pico's R-C filter)

    def out(b, s):
        b = max(-b_max, min(b_max, b))
        return max(lo, min(hi, v0 + s * b))

    fields = []
    for label, b in (
        ("z = 4 mm (strongest)", MAGNET["b_z4"].value),
        ("z = 5 mm (design)", MAGNET["b_z5"].value),
        ("z = 6 mm", MAGNET["b_z6"].value),
        ("z = 5 mm, 5 mm off-centre", MAGNET["b_z5"].value * MAGNET["off_centre"].value),
    ):
        sig = min(out(b, s_lo) - v0, v0 - out(-b, s_lo))
        fields.append(Field(label, b, out(-b, s_hi), out(b, s_hi), sig, sig / vref * CODES))
    pin = val("rp2040", "v_pin_max")
    v_top = max(f.v_high for f in fields)
    v_bot = min(f.v_low for f in fields)
    design = fields[1]
    checks = {
        f"output {v_bot:.2f}..{v_top:.2f} V within the ADC's 0..{fs} V": v_bot >= 0 and v_top <= fs,
        f"output ceiling {hi:.2f} V (any field) <= the pin's {pin} V": hi <= pin,
        f"design point signal {design.signal_min_codes:.0f} codes >= {CAL_MIN_CODES}":
        design.signal_min_codes >= CAL_MIN_CODES,
    }  # fmt: skip
    if variant == "B":
        vmin = val("ss39et", "v_min")
        checks[f"49E supply {v:.3f} V (after the FET) >= {vmin} V"] = v >= vmin
    off = fields[3]
    if off.signal_min_codes < CAL_MIN_CODES:
        notes += (
            f"a stone 5 mm off-centre gives {off.signal_min_codes:.0f} codes at the minimum "
            f"sensitivity: under the calibration's {CAL_MIN_CODES}",
        )
    return AdcRange(
        variant, supply, v, v0, (lo, hi), (s_lo, s_hi), tuple(fields), fs, pin, checks, notes
    )


# --- 3. scan timing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    variant: str
    mux_settle: float  # s: address change -> column at the ADC within 1/2 LSB
    mux_window: float  # s: what the schedule gives
    row_settle: float
    row_window: float
    frame: float  # s, the frame as scanned
    c_column: float
    r_on: float
    r_on_tolerated: float  # the largest R_ON the mux window allows (lumped model)
    lines: tuple  # (name, seconds, source)
    checks: dict
    findings: tuple = ()

    @property
    def ok(self):
        return all(self.checks.values())


def column_capacitance(c_trace=None):
    """The lumped capacitance a mux switch charges (F): the common node (all switches off,
    max) + the selected input + the column's 19 sensor outputs + the wiring + the ADC side."""
    c_trace = ASSUMED["c_trace"].value if c_trace is None else c_trace
    return (
        val("mux", "c_common") + val("mux", "c_switch") + N * ASSUMED["c_sensor_out"].value
        + c_trace + ASSUMED["c_node"].value + val("rp2040", "adc_input_c")
    )  # fmt: skip


def timing(variant="A", r_on=None, t_select=None, dummy=None, t_on=None, c_trace=None,
           row_us=None):  # fmt: skip
    """Scan timing of ``variant`` from the muxes' and decoders' figures against the firmware's
    schedule. The keyword arguments override a figure or constant (what-ifs for the tests):
    ``dummy`` the DMA's dummy steps, ``row_us`` the polled row settle (B; default: the
    firmware's ``PolledScanner`` default)."""
    r_on = val("mux", "r_on") if r_on is None else r_on
    t_sel = val("mux", "t_select") if t_select is None else t_select
    dummy = fw.DUMMY if dummy is None else dummy
    c = column_capacitance(c_trace)
    tau = r_on * c
    mux_settle = t_sel + SETTLE_TAU * tau
    handoff = ASSUMED["handoff"].value
    gap = fw.settle_ns() * 1e-9  # slot minus conversion: address change -> next sampling
    step = fw.SLOTS * fw.SLOT_CYCLES / fw.ADC_HZ
    dec = DECODER[variant]
    t_pd = val(dec, "t_pd")
    sensor = SENSOR[variant]
    t_on = val(sensor, "t_on") if t_on is None else t_on
    lines = [
        ("mux select to output (max)", t_sel, _src(fig("mux", "t_select"))),
        (f"R_ON x C: {r_on:.0f} ohm x {c * 1e12:.0f} pF", tau, _src(fig("mux", "r_on"))),
        (f"settle to 1/2 LSB: ln(2^13) = {SETTLE_TAU:.2f} tau", SETTLE_TAU * tau, "12-bit ADC"),
        ("decoder address to output (max)", t_pd, _src(fig(dec, "t_pd"))),
        ("sensor power-on", t_on, _src(fig(sensor, "t_on"))),
        ("ADC slot minus conversion (firmware settle_ns)", gap, "firmware/hal/rp2040.py"),
        ("DMA hand-off", handoff, _src(ASSUMED["handoff"])),
    ]
    findings = []
    checks = {}
    d_row, d_mux = _polled_defaults()
    if variant == "A":
        mux_window = gap - handoff
        row_settle = t_pd + t_on + mux_settle
        row_window = dummy * step + gap - handoff
        frame = fw.frame_steps(fw.N, dummy) * step
        checks[f"mux: {mux_settle * 1e6:.2f} us <= {mux_window * 1e6:.2f} us (DMA)"] = (
            mux_settle <= mux_window
        )
        checks[
            f"row: {row_settle * 1e6:.1f} us <= {dummy} dummy x {step * 1e6:.0f} us + "
            f"{(gap - handoff) * 1e6:.1f} us = {row_window * 1e6:.1f} us"
        ] = row_settle <= row_window
        checks[f"polled mux: {mux_settle * 1e6:.2f} us <= mux_us {d_mux} us"] = (
            mux_settle <= d_mux * 1e-6
        )
        checks[f"polled row: {row_settle * 1e6:.1f} us <= row_us {d_row} us"] = (
            row_settle <= d_row * 1e-6
        )
        c_load = c  # the enabled sensor drives the whole column and the mux side
        checks[
            f"sensor load {c_load * 1e12:.0f} pF <= {val('tmag5253', 'c_load_max') * 1e9:.0f} nF"
        ] = c_load <= val("tmag5253", "c_load_max")
        lines.append(("frame: %d steps x %.0f us" % (fw.frame_steps(fw.N, dummy), step * 1e6),
                      frame, "firmware/hal/rp2040.py frame_us()"))  # fmt: skip
    else:
        # The polled driver: row_us before the first read of a row, mux_us before the others.
        # Default: the row settle variant B needs (the firmware's default is a finding below).
        explicit = row_us is not None
        mux_window = d_mux * 1e-6
        # A 49E sinks weakly: charge the mux's common node dumped on the column must go out
        # through the sensor's pull-down (swing x C_node / I_sink; the column's size cancels).
        a = adc_range("B")
        c_z = val("mux", "c_common") + ASSUMED["c_node"].value + val("rp2040", "adc_input_c")
        i_sink = val("ss39et", "i_sink")
        t_sink = (a.swing[1] - a.swing[0]) * c_z / i_sink
        lines.append(("49E sink recovery: swing x C_common / I_sink", t_sink,
                      _src(fig("ss39et", "i_sink"))))  # fmt: skip
        mux_settle = t_sel + max(SETTLE_TAU * tau, t_sink)
        row_settle = t_pd + t_on + mux_settle
        if not explicit:
            row_us = math.ceil(row_settle * 1e6)
        row_window = row_us * 1e-6
        frame = N * polled_row_on(row_us)
        lines.append(
            (f"polled frame at row_us {row_us:.0f}", frame, _src(ASSUMED["polled_frame"]))
        )
        checks[f"polled mux: {mux_settle * 1e6:.2f} us <= mux_us {d_mux} us"] = (
            mux_settle <= mux_window
        )
        checks[f"polled row: {row_settle * 1e6:.0f} us <= row_us {row_us:.0f} us"] = (
            row_settle <= row_window
        )
        if d_row * 1e-6 < row_settle:
            findings.append(
                f"PolledScanner's default row_us = {d_row} us is shorter than variant B needs "
                f"({row_settle * 1e6:.0f} us: the 49E's t_on {t_on * 1e3:.1f} ms): B must pass "
                f"row_us >= {math.ceil(row_settle * 1e6)}"
            )
        need = math.ceil((row_settle - (gap - handoff)) / step)
        steps = N * (need + fw.MUX_WAYS)
        findings.append(
            f"B cannot use the DMA schedule: {need} dummy steps per row, {steps} steps a frame "
            f"> the {fw.RING_STEPS}-step ring"
        )
        if frame > fw.POLL_MS * 1e-3:
            findings.append(
                f"B's polled frame at row_us {row_us:.0f}: {frame * 1e3:.1f} ms "
                f"({1 / frame:.0f} frames/s), longer than POLL_MS = {fw.POLL_MS} ms: frames run "
                "back to back and the sensors are on all the time"
            )
    r_tol = (mux_window - t_sel) / (SETTLE_TAU * c)
    return Timing(
        variant, mux_settle, mux_window, row_settle, row_window, frame, c, r_on, r_tol,
        tuple(lines), checks, tuple(findings),
    )  # fmt: skip


def b_row_us():
    """The polled row settle (us) variant B needs: decoder, the 49E's t_on, the mux settle."""
    return math.ceil(timing("B").row_settle * 1e6)


# --- 4. the voice -------------------------------------------------------------------------------

TARGET_SPL = 70.0  # dB SPL at 0.5 m: a full-scale phrase's peaks (hardware/README.md §5)
TARGET_DISTANCE = 0.5  # m: a player's ear from the clock
CARRIER_MIN_DB = 40.0  # the PWM carrier at least this far below the voice band at the amp


def voice_filter(f, r_in=None, values=None):
    """The complex gain from the PWM pin to the amplifier's input (across its input resistance
    ``r_in``, default the PAM8302A's figure) at ``f`` Hz: R1 into C1, R2 into R3 with C2,
    then the coupling capacitor into ``r_in`` (``values``, default circuit.py's
    ``VOICE_FILTER``)."""
    r_in = val("voice_amp", "r_in") if r_in is None else r_in
    v = C.VOICE_FILTER if values is None else values
    r1, r2, r3 = ohms(v["R1"]), ohms(v["R2"]), ohms(v["R3"])
    c1, c2, cc = farads(v["C1"]), farads(v["C2"]), farads(C.VOICE_COUPLING)
    w = 2j * math.pi * f
    z_load = 1 / (w * cc) + r_in
    z2 = 1 / (1 / r3 + w * c2 + 1 / z_load)
    z1 = 1 / (w * c1 + 1 / (r2 + z2))
    v1 = z1 / (r1 + z1)
    v2 = v1 * z2 / (r2 + z2)
    return v2 * r_in / z_load


def farads(value):
    """A capacitor value as the catalogue writes it ("33nF", "1uF", "15pF") in farads."""
    for unit, scale in (("pF", 1e-12), ("nF", 1e-9), ("uF", 1e-6)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * scale
    raise ValueError(value)


def _corner(h, h_ref, lo, hi):
    # The frequency between lo and hi where |h(f)| falls to h_ref / sqrt 2 (bisection, log f).
    target = h_ref / math.sqrt(2)
    f_lo, f_hi = lo, hi
    rising = abs(h(hi)) > abs(h(lo))
    for _ in range(60):
        mid = math.sqrt(f_lo * f_hi)
        above = abs(h(mid)) > target
        if above == rising:
            f_hi = mid
        else:
            f_lo = mid
    return math.sqrt(f_lo * f_hi)


def _db(x):
    return 20 * math.log10(x)


@dataclass(frozen=True)
class Voice:
    """The voice budget: the filter, the level, the currents, a counted minute's cost."""

    gain_1k: float  # |H| at 1 kHz: PWM pin to amplifier input
    f_high: float  # Hz: the low-pass's -3 dB corner
    f_low: float  # Hz: the coupling's high-pass corner
    at_4k_db: float  # dB re 1 kHz at 4 kHz (the 8 kHz phrases' Nyquist frequency)
    carrier_db: float  # dB re 1 kHz at the PWM carrier
    carrier_mv: float  # the carrier's residue at the speaker, mV peak (a 50 % duty)
    v_in_rms: float  # a full-scale sine at the amplifier's input
    v_out_peak: float  # ... and across the speaker
    p_full: float  # W into the speaker, a full-scale sine
    spl_full: float  # dB SPL at TARGET_DISTANCE
    p_speech: float  # W: a phrase's average
    i_idle: float  # A from VSYS, shut down
    i_speaking: float  # A from VSYS while a phrase plays (average)
    i_peak: float  # A from VSYS at a full-scale sine
    i_pulldown: float  # A from the GPIO into the enable's pull-down while on
    phrases: int  # in the last counted minute of Chinese byo-yomi (the most spoken)
    minute_mas: float  # mA*s the voice takes from the battery in that minute
    board_minute_mas: float  # mA*s the board takes in a minute (variant A, as the app runs)
    lines: tuple  # (name, value text, source)
    checks: dict

    @property
    def ok(self):
        return all(self.checks.values())


def counted_minute_cues(chinese=True, minutes=1):
    """The cues of the last counted minute (``minutes`` kept minutes left, 1 = the last),
    as the clock computes them (``firmware.clock.cues.counting_next``): ``[(cue, ms)]``."""
    import firmware  # noqa: F401  (the CPython stand-in for ``micropython``)
    from firmware.clock import cues

    period = 60_000
    out, found, t = [0], [], -1
    while True:
        cue = cues.counting_next(chinese, period, minutes, t, out)
        if not cue or out[0] > period:
            return found
        found.append((cue, out[0]))
        t = out[0]


def voice(r_in=None, v_supply=None, gain_db=None, filter_=None):
    """The voice budget. ``r_in`` (the amplifier's input resistance), ``v_supply`` (VSYS,
    default the cell's nominal), ``gain_db`` and ``filter_`` (a ``VOICE_FILTER``-like dict)
    override the figures: what-ifs for the tests."""
    amp, spk = "voice_amp", "speaker"
    r_in = val("voice_amp", "r_in") if r_in is None else r_in
    v = dict(C.VOICE_FILTER, **(filter_ or {}))

    def h(f):
        return voice_filter(f, r_in, v)

    vb = ASSUMED["v_battery"].value if v_supply is None else v_supply
    gain_db = val(amp, "gain") if gain_db is None else gain_db
    gain = 10 ** (gain_db / 20)
    h1k = abs(h(1e3))
    f_high = _corner(h, h1k, 1e3, 1e6)
    f_low = _corner(h, h1k, 0.1, 1e3)
    at_4k = _db(abs(h(4e3)) / h1k)
    carrier = ASSUMED["pwm_carrier"].value
    h_c = abs(h(carrier))
    carrier_db = _db(h_c / h1k)
    carrier_mv = 4 / math.pi * 3.3 / 2 * h_c * gain * 1e3  # a square's fundamental
    v_pin_rms = 3.3 / 2 / math.sqrt(2)  # a full-scale sine of duty, 0..100 %
    v_in = v_pin_rms * h1k
    r_spk = val(spk, "r")
    v_out = v_in * gain
    p_full = v_out**2 / r_spk
    v_out_peak = v_out * math.sqrt(2)
    spl = val(spk, "spl_1w_1m") + 10 * math.log10(p_full) - _db(TARGET_DISTANCE)
    p_speech = p_full * 10 ** (-ASSUMED["speech_crest"].value / 10)
    eff = val(amp, "efficiency")
    i_q = val(amp, "i_q")
    i_idle = val(amp, "i_sd")
    i_speaking = i_q + p_speech / (eff * vb)
    i_peak = i_q + p_full / (eff * vb)
    i_pd = 3.3 / ohms(C.VOICE_EN_PULLDOWN)
    cues_ = counted_minute_cues()
    n = len(cues_)
    t_sound = n * ASSUMED["phrase_s"].value
    t_on = t_sound + n * ASSUMED["amp_hold_s"].value
    mas = ((i_q + i_pd) * t_on + (i_speaking - i_q) * t_sound) * 1e3
    board = power("A", with_voice=False).avg_battery * 60 * 1e3
    v_low = ASSUMED["v_cell_min"].value - val("schottky", "vf")
    lines = (
        ("low-pass", f"R1 {v['R1']}, C1 {v['C1']}, R2 {v['R2']}, R3 {v['R3']}, C2 {v['C2']}; "
         f"coupling {C.VOICE_COUPLING} into the amplifier's {r_in / 1e3:.0f} kohm", "circuit.py"),
        ("pass band: PWM pin to amplifier input at 1 kHz", f"{h1k:.4f} ({_db(h1k):.1f} dB)",
         "computed"),
        ("-3 dB corners", f"{f_low:.0f} Hz .. {f_high:.0f} Hz", "computed"),
        ("at 4 kHz (the 8 kHz phrases' Nyquist)", f"{at_4k:.1f} dB", "computed"),
        (f"at the PWM carrier {carrier / 1e3:.0f} kHz", f"{carrier_db:.0f} dB: "
         f"{carrier_mv:.1f} mV peak at the speaker", _src(ASSUMED["pwm_carrier"])),
        ("a full-scale sine at the amplifier's input", f"{v_in * 1e3:.0f} mV rms", "computed"),
        ("amplifier gain", f"{gain_db:.1f} dB", _src(fig(amp, "gain"))),
        ("into the speaker (full scale)", f"{v_out_peak:.2f} V peak, {p_full * 1e3:.0f} mW",
         _src(fig(spk, "r"))),
        (f"loudness at {TARGET_DISTANCE} m (full scale)", f"{spl:.1f} dB SPL",
         _src(fig(spk, "spl_1w_1m"))),
        ("a phrase's average power", f"{p_speech * 1e3:.0f} mW", _src(ASSUMED["speech_crest"])),
        ("VSYS current: shut down", f"{i_idle * 1e6:.1f} uA", _src(fig(amp, "i_sd"))),
        (f"VSYS current: speaking, at {vb:.1f} V", f"{i_speaking * 1e3:.1f} mA average, "
         f"{i_peak * 1e3:.0f} mA at a full-scale sine", _src(fig(amp, "i_q"))),
        ("enable pull-down while speaking (3V3, the GPIO)", f"{i_pd * 1e3:.2f} mA", "circuit.py"),
        ("phrases in the last counted minute (Chinese byo-yomi)", f"{n}: amplifier on "
         f"{t_on:.1f} s, sounding {t_sound:.1f} s", "firmware/clock/cues.py; "
         + _src(ASSUMED["phrase_s"])),
        ("a counted minute from the battery", f"{mas:.0f} mA·s = {mas / 3600:.3f} mAh: "
         f"{mas / board:.1%} of the board's minute ({board / 3600:.2f} mAh)", "computed"),
    )  # fmt: skip
    checks = {
        f"full scale {p_full * 1e3:.0f} mW <= the speaker's nominal "
        f"{val(spk, 'p_nom') * 1e3:.0f} mW": p_full <= val(spk, "p_nom"),
        f"full scale {spl:.1f} dB SPL at {TARGET_DISTANCE} m >= {TARGET_SPL:.0f} dB":
        spl >= TARGET_SPL,
        f"no clipping on a flat cell: {v_out_peak:.2f} V peak <= VSYS {v_low:.1f} V":
        v_out_peak <= v_low,
        f"VSYS {v_low:.1f}..{5.0 - val('schottky', 'vf'):.1f} V within the amplifier's "
        f"{val(amp, 'v_min'):.1f}..{val(amp, 'v_max'):.1f} V":
        val(amp, "v_min") <= v_low and 5.0 - val("schottky", "vf") <= val(amp, "v_max"),
        f"carrier {carrier_db:.0f} dB <= -{CARRIER_MIN_DB:.0f} dB": carrier_db <= -CARRIER_MIN_DB,
        f"voice band: -3 dB at {f_high:.0f} Hz >= 3400 Hz (telephone speech)": f_high >= 3400,
    }  # fmt: skip
    return Voice(
        h1k, f_high, f_low, at_4k, carrier_db, carrier_mv, v_in, v_out_peak, p_full, spl,
        p_speech, i_idle, i_speaking, i_peak, i_pd, n, mas, board, lines, checks,
    )  # fmt: skip


# --- the report -------------------------------------------------------------------------------


def _src(f):
    """A figure's source with the verify mark."""
    return f.source + _mark(f.verify)


def _ma(a):
    return "%.3g" % (a * 1e3)


def _mark(verify):
    return " †" if verify else ""


def table(result):
    """Markdown table of a budget (``Power``, ``AdcRange``, ``Timing`` or ``Voice``)."""
    if isinstance(result, Power):
        rows = [
            "| load | rail | average mA | peak mA | source |",
            "| --- | --- | --- | --- | --- |",
        ]
        for x in result.lines:
            rows.append(f"| {x.name} | {x.rail} | {_ma(x.avg)} | {_ma(x.peak)} | "
                        f"{x.source}{_mark(x.verify)} |")  # fmt: skip
        rows.append(f"| **3V3 total** | 3V3 | **{_ma(result.avg_3v3)}** | "
                    f"**{_ma(result.peak_3v3)}** | |")  # fmt: skip
        rows.append(f"| **from the battery** | VSYS | **{_ma(result.avg_battery)}** | "
                    f"**{_ma(result.peak_battery)}** | → **{result.hours:.0f} h** on "
                    f"{result.battery_mah:.0f} mAh |")  # fmt: skip
        return "\n".join(rows)
    if isinstance(result, AdcRange):
        rows = [
            "| field | B (mT) | output min..max (V) | smallest signal (V) | codes |",
            "| --- | --- | --- | --- | --- |",
            f"| none | 0 | {result.v_zero:.2f} | | |",
        ]
        for f in result.fields:
            rows.append(f"| {f.label} | ±{f.b * 1e3:.1f} | {f.v_low:.2f}..{f.v_high:.2f} | "
                        f"{f.signal_min_v:.3f} | {f.signal_min_codes:.0f} |")  # fmt: skip
        return "\n".join(rows)
    if isinstance(result, Timing):
        rows = ["| quantity | µs | source |", "| --- | --- | --- |"]
        for name, s, src in result.lines:
            rows.append(f"| {name} | {s * 1e6:.3g} | {src} |")
        return "\n".join(rows)
    if isinstance(result, Voice):
        rows = ["| quantity | value | source |", "| --- | --- | --- |"]
        rows += [f"| {name} | {value} | {src} |" for name, value, src in result.lines]
        return "\n".join(rows)
    raise TypeError("not a budget")


def _checks(result):
    out = [f"- {'ok' if ok else '**FAILS**'}: {name}" for name, ok in result.checks.items()]
    out += [f"- note: {n}" for n in getattr(result, "notes", ())]
    out += [f"- **finding**: {n}" for n in getattr(result, "findings", ())]
    return "\n".join(out)


def report():
    """All the budgets as Markdown (for hardware/README.md §3.2, §4 and §5)."""
    out = ["## Budgets (computed by hardware/design/budgets.py)", "",
           "† = a figure to verify (secondary source, estimate or stated allowance); every "
           "other figure is from the part's datasheet (parts.py).", ""]  # fmt: skip
    out += [
        "### Power",
        "",
        "| variant | scan | sensors on | duty | 3V3 avg / peak mA | "
        "battery avg mA | hours (2000 mAh) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for scan, (variant, what) in SCANS.items():
        p = power(variant, scan)
        out.append(f"| {variant} | {what} | {p.frame_s * 1e3:.2f} ms every "
                   f"{p.period_s * 1e3:.1f} ms | {p.duty:.0%} | {_ma(p.avg_3v3)} / "
                   f"{_ma(p.peak_3v3)} | {_ma(p.avg_battery)} | {p.hours:.0f} |")  # fmt: skip
    for variant in ("A", "B"):
        p = power(variant)
        out += ["", f"Variant {variant}, {SCANS[p.scan][1]}:", "", table(p), "", _checks(p)]
    for variant, supply in (("A", 3.3), ("B", 3.3), ("B", 5.0), ("A", 5.0)):
        a = adc_range(variant, supply)
        s_lo, s_hi = a.sensitivity
        out += ["", f"### ADC range, variant {variant}, sensors from {supply} V"
            + ("" if supply == 3.3 else " (what-if, not the design)"), "",
                f"Sensors at {a.sensor_v:.3f} V, {s_lo * 1e3 / 1e3:.1f}..{s_hi:.1f} mV/mT, "
                f"output swing {a.swing[0]:.2f}..{a.swing[1]:.2f} V; ADC 0..{a.full_scale} V "
                f"(reference: the 3V3 rail), pin limit {a.v_pin_max} V.", "", table(a), "",
                _checks(a)]  # fmt: skip
    for variant in ("A", "B"):
        t = timing(variant)
        out += ["", f"### Scan timing, variant {variant}", "", table(t), "",
                f"Column: {t.c_column * 1e12:.0f} pF lumped (mux common {val('mux', 'c_common') * 1e12:.0f}"
                f" + switch {val('mux', 'c_switch') * 1e12:.0f} + {N} sensor outputs + wiring "
                f"{ASSUMED['c_trace'].value * 1e12:.0f} + ADC side); the mux window tolerates "
                f"R_ON up to {t.r_on_tolerated:.0f} ohm. Frame {t.frame * 1e3:.2f} ms.", "",
                _checks(t)]  # fmt: skip
    vo = voice()
    out += ["", "### Voice (PWM, RC low-pass, PAM8302A, 8 ohm speaker)", "",
            "The loudest phrase the firmware can play: a full-scale sine of duty (0..100 %) "
            "on the PWM pin, through the low-pass into the amplifier; a phrase is normalised "
            "to that peak, and the voice's volume setting scales down from it. The amplifier "
            "is shut down between phrases.", "", table(vo), "", _checks(vo)]  # fmt: skip
    out += ["", "Allowances and model figures used:", ""]
    for name, f in list(ASSUMED.items()) + list(MAGNET.items()):
        out.append(f"- `{name}` = {f.value:g} {f.unit}: {f.source}{_mark(f.verify)}")
    return "\n".join(out) + "\n"


__all__ = [
    "ASSUMED", "MAGNET", "SCANS", "AdcRange", "Drive", "Field", "Line", "Power", "Timing",
    "adc_range", "battery_mah", "column_capacitance", "power", "report", "row_drive", "b_row_us", "row_loads",
    "scan_duty", "table", "timing", "TARGET_SPL", "Voice", "counted_minute_cues", "farads",
    "voice", "voice_filter",
]  # fmt: skip
