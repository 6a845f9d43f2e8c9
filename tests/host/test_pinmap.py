"""hardware/pinmap.csv is well-formed, consistent with the RP2040 and the Pico, and
firmware/hal/pins.py is what hardware/gen_pins.py makes of it (CPython only)."""

import csv
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / "hardware" / "pinmap.csv"

DIRECTIONS = {"in", "out", "io", "pio-out", "pwm", "analog"}
PULLS = {"none", "up", "down", "ext-up", "ext-down"}
# VBUS sense, LED, VSYS/3 (Pico datasheet). GPIO23, a Pico's SMPS power-save pin, is ours on
# the Tengen controller (its LDO has no such pin): the voice amplifier's enable.
PICO_BOARD = {24, 25, 29}
ADC_PINS = {26: 0, 27: 1, 28: 2, 29: 3}
# RP2040 datasheet §1.4.3 (GPIO functions): the pins each peripheral signal can use.
I2C1_SDA = {2, 6, 10, 14, 18, 26}
I2C1_SCL = {3, 7, 11, 15, 19, 27}
SPI0_SCK = {2, 6, 18, 22}
SPI0_TX = {3, 7, 19}
UART0_TX = {0, 12, 16, 28}
SCAN_ORDER = ["MUX_S0", "MUX_S1", "MUX_S2", "ROW_A0", "ROW_A1", "ROW_A2", "ROW_B3", "ROW_B4"]


def _gen():
    spec = importlib.util.spec_from_file_location("gen_pins", ROOT / "hardware" / "gen_pins.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rows():
    with open(CSV, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    return header, rows


def _by_function():
    header, rows = _rows()
    return {r[1]: dict(zip(header, r, strict=True)) | {"gpio": int(r[0])} for r in rows}


def test_csv_is_well_formed():
    header, rows = _rows()
    assert header == ["gpio", "function", "direction", "pull", "net", "notes"]
    names = set()
    for r in rows:
        assert len(r) == 6, r
        gpio, function, direction, pull, net, notes = r
        assert gpio.isdigit() and 0 <= int(gpio) <= 29, r
        assert function.isidentifier() and function.isupper(), r
        assert function not in names, f"{function} listed twice"
        names.add(function)
        assert direction in DIRECTIONS, r
        assert pull in PULLS, r
        assert net and notes, r


def test_every_gpio_once():
    _, rows = _rows()
    gpios = [int(r[0]) for r in rows]
    assert len(gpios) == len(set(gpios)), "a GPIO is assigned twice"
    assert sorted(gpios) == list(range(30)), "every GPIO 0-29 is listed, spares included"


def test_pico_board_pins_are_only_the_boards():
    for f, r in _by_function().items():
        assert (r["gpio"] in PICO_BOARD) == f.startswith("PICO_"), f


def test_adc_only_on_gp26_to_28():
    fns = _by_function()
    for f, r in fns.items():
        if r["direction"] == "analog":
            assert r["gpio"] in ADC_PINS, f
    hall = sorted(r["gpio"] for f, r in fns.items() if f.startswith("HALL_ADC"))
    assert hall == [26, 27, 28]
    assert fns["PICO_VSYS_ADC"]["gpio"] == 29  # the scan's spacer slot (ADC3)


def test_pio_outputs_contiguous_and_in_order():
    fns = _by_function()
    pio = sorted((r["gpio"], f) for f, r in fns.items() if r["direction"] == "pio-out")
    gpios = [g for g, _ in pio]
    assert gpios == list(range(gpios[0], gpios[0] + len(gpios)))
    assert [f for _, f in pio] == SCAN_ORDER
    assert all(g not in PICO_BOARD for g in gpios)
    # All rows must stay off until the PIO takes the pins: the bank bits are pulled high.
    assert fns["ROW_B3"]["pull"] == fns["ROW_B4"]["pull"] == "ext-up"


def test_paddles_and_buttons():
    fns = _by_function()
    for f in ("PADDLE_L", "PADDLE_R", "BTN_PAUSE", "BTN_MODE", "BTN_PLUS", "BTN_MINUS"):
        r = fns[f]
        # Any GPIO 0-29 can raise an edge IRQ; the chosen ones must be plain header pins.
        assert 0 <= r["gpio"] <= 22, f
        assert r["direction"] == "in" and r["pull"] == "up", f


def test_peripheral_pins_are_valid_for_their_function():
    fns = _by_function()
    assert fns["I2C1_SDA"]["gpio"] in I2C1_SDA and fns["I2C1_SCL"]["gpio"] in I2C1_SCL
    assert fns["LCD_WR"]["gpio"] in SPI0_SCK and fns["LCD_DATA"]["gpio"] in SPI0_TX
    assert fns["UART0_TX"]["gpio"] in UART0_TX
    for name in ("BUZZER", "VOICE_PWM"):
        gpio = fns[name]["gpio"]
        assert fns[name]["direction"] == "pwm"
        # PWM slice (gpio >> 1) & 7, channel A on even pins; the note names them.
        assert f"slice {(gpio >> 1) & 7} channel {'AB'[gpio & 1]}" in fns[name]["notes"], name


def test_the_voice_has_its_own_pwm_slice_and_starts_silent():
    # The voice's samples must not share the buzzer's PWM slice: a slice has one counter
    # (TOP, divider), and the piezo's pips and the voice's carrier each need their own.
    fns = _by_function()
    slice_of = {name: (fns[name]["gpio"] >> 1) & 7 for name in ("BUZZER", "VOICE_PWM")}
    assert slice_of["BUZZER"] != slice_of["VOICE_PWM"], slice_of
    # No other PWM user on the voice's slice (its other channel, GPIO0, is the UART's TX).
    pwm = [f for f, r in fns.items() if r["direction"] == "pwm"]
    assert sorted(pwm) == ["BUZZER", "VOICE_PWM"]
    # The amplifier's enable rests low from reset (the external pull-down): silent, < 1 uA.
    assert fns["VOICE_EN"]["direction"] == "out" and fns["VOICE_EN"]["pull"] == "ext-down"


def test_generated_pins_are_current():
    gen = _gen()
    assert (ROOT / "firmware" / "hal" / "pins.py").read_text(encoding="utf-8") == gen.render(), (
        "firmware/hal/pins.py is stale: run python3 hardware/gen_pins.py"
    )


def test_pins_module_matches_csv():
    from firmware.hal import pins

    fns = _by_function()
    for f, r in fns.items():
        assert getattr(pins, f) == r["gpio"], f
    assert pins.SCAN_OUT_BASE == fns["MUX_S0"]["gpio"]
    assert pins.SCAN_OUT_COUNT == len(SCAN_ORDER)
