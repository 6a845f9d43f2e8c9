"""The firmware's pin map checked against the netlist: one source of truth, checked both ways.

``firmware/hal/pins.py`` (generated from hardware/pinmap.csv) is what the firmware drives;
the netlist is what a PCB is made from. ``check(netlist)`` fails on any GPIO wired to
something other than what the firmware thinks it is:

- **The scan, simulated.** Every address word the firmware's DMA feeds the PIO
  (``firmware.hal.rp2040.scan_table``) is put on the GPIOs from ``SCAN_OUT_BASE`` as the PIO
  does; the row decoders and the column muxes of the netlist are evaluated from their pins'
  nets (enables, address, selects); and for every ADC slot the check finds which sensor the
  netlist puts on that ADC input, compared with the point the firmware files the sample under
  (``sample_point``: line y, column x) or the mid-rail reference it expects on the spare mux
  inputs. Park words and the pins' reset state (the bank bits' pull-ups) must enable no line.
- **Every other pin** by the part it must reach: the paddles and keys (by side), the faces'
  CS/WR/DATA, the buzzer's driver, the voice's amplifier (its input through the low-pass, its
  shutdown pin and that pin's pull-down), the RTC's I2C, the UART header, and the
  Pico-compatible pins (VBUS sense, LED, VSYS/3).

A pin the firmware names with no rule here is itself a failure, so a new pin cannot slip by.
"""

import re

from hardware.design.netlist import pin_names

# The parts a GPIO must reach: firmware pin name -> (role, fields, pin name on that part).
# Pins passing through series parts say which, in order, with a fourth item: ``"R"`` one
# resistor, ``"RRC"`` a resistor, a resistor, then a capacitor (each a two-pin part).
ROLE_RULES = {
    "PADDLE_L": [("paddle", {"side": "left"}, "1")],
    "PADDLE_R": [("paddle", {"side": "right"}, "1")],
    "BTN_PAUSE": [("key pause", {}, "1")],
    "BTN_MODE": [("key mode", {}, "1")],
    "BTN_PLUS": [("key plus", {}, "1")],
    "BTN_MINUS": [("key minus", {}, "1")],
    "LCD_CS_L": [("face", {"side": "left"}, "Pin_1")],
    "LCD_CS_R": [("face", {"side": "right"}, "Pin_1")],
    "LCD_WR": [("face", {"side": "left"}, "Pin_2"), ("face", {"side": "right"}, "Pin_2")],
    "LCD_DATA": [("face", {"side": "left"}, "Pin_3"), ("face", {"side": "right"}, "Pin_3")],
    "I2C1_SDA": [("rtc", {}, "SDA")],
    "I2C1_SCL": [("rtc", {}, "SCL")],
    "UART0_TX": [("uart", {}, "Pin_1")],
    "BUZZER": [("buzzer driver", {}, "B", "R")],
    "PICO_LED": [("status led", {}, "A", "R")],
    # The voice: the PWM reaches the amplifier's IN+ through the low-pass's two resistors and
    # the coupling capacitor; the enable is the amplifier's shutdown pin itself.
    "VOICE_PWM": [("voice amp", {}, "IN+", "RRC")],
    "VOICE_EN": [("voice amp", {}, "~{SD}")],
}
# Pins whose net must hold a resistor to this supply net (a divider's top).
DIVIDER_RULES = {"PICO_VBUS_SENSE": "VBUS", "PICO_VSYS_ADC": "VSYS"}
# Pins whose net must hold a resistor to this rail: the level it rests at from reset.
PULL_RULES = {"VOICE_EN": "GND"}
# Pins the board leaves open (none since GPIO23, a Pico's SMPS pin, became the voice's enable).
OPEN = set()
SCAN = ("MUX_S0", "MUX_S1", "MUX_S2", "ROW_A0", "ROW_A1", "ROW_A2", "ROW_B3", "ROW_B4")
ADC = ("HALL_ADC0", "HALL_ADC1", "HALL_ADC2")
RAILS = {"+3V3": 1, "GND": 0}
MIDREF = "MIDREF"


def firmware_pins():
    """``{name: gpio}`` of firmware/hal/pins.py (what the firmware drives)."""
    from firmware.hal import pins

    return {k: v for k, v in vars(pins).items() if k.isupper() and isinstance(v, int)}


class _Board:
    """The netlist seen from the MCU: GPIO nets, parts by role, pins by name."""

    def __init__(self, net):
        self.net = net
        mcus = net.with_role("mcu")
        if len(mcus) != 1:
            raise ValueError("the netlist has %d parts with role mcu" % len(mcus))
        self.mcu = mcus[0]
        self.gpio_pin = {}
        for num, name in pin_names(self.mcu).items():
            if name.startswith("GPIO"):
                self.gpio_pin[int(name[4:].split("_")[0])] = num

    def gpio_net(self, gpio):
        num = self.gpio_pin.get(gpio)
        return None if num is None else self.net.net_of(self.mcu.ref, num)

    def pin_net(self, comp, name):
        for num, n in pin_names(comp).items():
            if n == name:
                return self.net.net_of(comp.ref, num)
        raise KeyError("%s has no pin %s" % (comp.ref, name))

    def resistor_peers(self, net_name):
        """Nets at the other end of the resistors on ``net_name``."""
        return self.peers(net_name, "R")

    def peers(self, net_name, kind):
        """Nets at the other end of the two-pin parts whose reference starts with ``kind``
        (``R``, ``C``) on ``net_name``."""
        out = []
        for ref, pin in self.net.nets.get(net_name, ()):
            if re.fullmatch(kind + r"\d+", ref):
                other = "2" if pin == "1" else "1"
                out.append(self.net.net_of(ref, other))
        return out

    def reach(self, net_name, via):
        """The nets reached from ``net_name`` through series parts of the kinds ``via``
        (``"RRC"``), one hop each, never stepping onto a rail."""
        nets = {net_name}
        for kind in via:
            nets = {n for x in nets for n in self.peers(x, kind) if n and n not in RAILS}
        return nets


def csv_rows():
    """hardware/pinmap.csv's rows (the documented pin map, with each GPIO's net name)."""
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "pinmap.csv"
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def check(net, variant="A", pins=None, rp2040=None, rows=None):
    """Disagreements between the firmware's pins (``pins``: ``{name: gpio}``, default
    firmware/hal/pins.py) and the netlist ``net``: a list of messages, empty when they agree.
    ``rp2040`` is the scan driver module (default firmware.hal.rp2040); ``rows`` the pin map
    CSV's rows (default hardware/pinmap.csv), whose net names must be the netlist's."""
    if pins is None:
        pins = firmware_pins()
    if rows is None:
        rows = csv_rows()
    if rp2040 is None:
        from firmware.hal import rp2040
    board = _Board(net)
    problems = []
    names = {k for k in pins if not k.startswith(("SCAN_", "HALL_ADC_"))}
    covered = set(ROLE_RULES) | set(DIVIDER_RULES) | set(PULL_RULES) | OPEN | set(SCAN) | set(ADC)
    problems += [
        f"{k}: the firmware drives GPIO{pins[k]}, no wiring rule" for k in names - covered
    ]

    for name, rules in ROLE_RULES.items():
        if name not in pins:
            problems.append(f"{name}: not in the firmware's pins")
            continue
        gnet = board.gpio_net(pins[name])
        for rule in rules:
            role, fields, pin = rule[:3]
            parts = net.with_role(role, **fields)
            if len(parts) != 1:
                problems.append(f"{name}: {len(parts)} parts with role {role!r} {fields}")
                continue
            target = board.pin_net(parts[0], pin)
            reach = {gnet} if len(rule) == 3 else board.reach(gnet, rule[3])
            if target is None or target not in reach:
                problems.append(
                    f"{name} (GPIO{pins[name]}) is on net {gnet}, not on {role} "
                    f"{parts[0].ref} pin {pin} (net {target})"
                )
    for name, supply in DIVIDER_RULES.items():
        gnet = board.gpio_net(pins[name])
        if supply not in board.resistor_peers(gnet):
            problems.append(
                f"{name} (GPIO{pins[name]}) is on net {gnet}: no divider from {supply}"
            )
    for name, rail in PULL_RULES.items():
        gnet = board.gpio_net(pins[name])
        if rail not in board.resistor_peers(gnet):
            problems.append(f"{name} (GPIO{pins[name]}) is on net {gnet}: no pull to {rail}")
    for name in OPEN:
        gnet = board.gpio_net(pins[name])
        if gnet is not None and len(net.nets.get(gnet, ())) > 1:
            problems.append(f"{name} (GPIO{pins[name]}) should be open, is on net {gnet}")
    for row in rows:
        if row["function"] in OPEN:
            continue
        gnet = board.gpio_net(int(row["gpio"]))
        if gnet != row["net"]:
            problems.append(
                f"pinmap.csv names GPIO{row['gpio']}'s net {row['net']}, the netlist {gnet}"
            )
    problems += _check_scan(board, variant, pins, rp2040)
    return problems


# --- the scan, simulated -------------------------------------------------------------------------


def _decoders(board, variant):
    # (comp, enable pins (active-low, active-low, active-high), outputs by index, active level)
    out = []
    for dec in board.net.with_role("row decoder"):
        if variant == "A":
            enables, fmt, active = ("~{E1}", "~{E2}", "E3"), "Y%d", 1
        else:
            enables, fmt, active = ("E1", "E2", "E3"), "O%d", 0
        out.append((dec, enables, fmt, active))
    return out


def _level(board, levels, net_name, where):
    if net_name in levels:
        return levels[net_name]
    if net_name in RAILS:
        return RAILS[net_name]
    raise _Floating(f"{where} is on net {net_name}, which neither the scan pins nor a rail drive")


class _Floating(Exception):
    pass


def _active_lines(board, variant, levels):
    """The sensors' board lines that ``levels`` (net -> 0/1) enable, and the nets driven."""
    active_nets = {}
    for dec, enables, fmt, active in _decoders(board, variant):
        e1, e2, e3 = (
            _level(board, levels, board.pin_net(dec, p), f"{dec.ref} {p}") for p in enables
        )
        if e1 == 0 and e2 == 0 and e3 == 1:
            a = sum(
                _level(board, levels, board.pin_net(dec, "A%d" % i), f"{dec.ref} A{i}") << i
                for i in range(3)
            )
            active_nets[board.pin_net(dec, fmt % a)] = active
    lines = set()
    if variant == "A":
        for h in board.net.with_role("sensor"):
            if active_nets.get(board.pin_net(h, "EN")) == 1:
                lines.add(int(h.fields["line"]))
    else:
        powered = set()
        for q in board.net.with_role("line power"):
            if active_nets.get(board.pin_net(q, "G")) == 0:
                powered.add(board.pin_net(q, "D"))
        for h in board.net.with_role("sensor"):
            if board.pin_net(h, "VS") in powered:
                lines.add(int(h.fields["line"]))
    return lines


def _check_scan(board, variant, pins, rp2040):
    problems = []
    base = pins.get("SCAN_OUT_BASE", min(pins[k] for k in SCAN))
    count = pins.get("SCAN_OUT_COUNT", len(SCAN))
    scan_nets = [board.gpio_net(base + k) for k in range(count)]
    muxes = board.net.with_role("column mux")
    by_common = {board.pin_net(m, "A"): m for m in muxes}
    sensors = {}
    for h in board.net.with_role("sensor"):
        sensors.setdefault(board.pin_net(h, "OUT"), []).append(h)
    adc_nets = [board.gpio_net(pins["HALL_ADC%d" % c]) for c in range(rp2040.COLUMN_ADCS)]
    n = rp2040.N

    # Reset: the scan pins float; pull-ups and pull-downs decide. No line may be on.
    reset = {}
    for gnet in scan_nets:
        peers = board.resistor_peers(gnet)
        if "+3V3" in peers:
            reset[gnet] = 1
        elif "GND" in peers:
            reset[gnet] = 0
    try:
        on = _active_lines(board, variant, reset)
        if on:
            problems.append(f"at reset (scan pins undriven) lines {sorted(on)} are enabled")
    except _Floating as e:
        problems.append(f"at reset a decoder enable floats: {e}")

    table = rp2040.scan_table(n)
    seen = set()
    for step, word in enumerate(table):
        levels = {scan_nets[k]: (word >> k) & 1 for k in range(count)}
        try:
            lines = _active_lines(board, variant, levels)
        except _Floating as e:
            problems.append(f"step {step}: {e}")
            break
        row, mux, sampled = rp2040.step_address(step, n)
        want = set() if row < 0 else {row}
        if lines != want:
            problems.append(
                f"step {step} (word 0x{word:03x}): the firmware enables line {row}, "
                f"the netlist enables lines {sorted(lines)}"
            )
            if len(problems) > 20:
                break
            continue
        if not sampled:
            continue
        for slot in range(rp2040.COLUMN_ADCS):
            point = rp2040.sample_point(step * rp2040.SLOTS + slot, n)
            m = by_common.get(adc_nets[slot])
            if m is None:
                problems.append(f"ADC input {slot} (net {adc_nets[slot]}) reaches no column mux")
                return problems
            sel = sum(
                _level(board, levels, board.pin_net(m, "S%d" % i), f"{m.ref} S{i}") << i
                for i in range(3)
            )
            if _level(board, levels, board.pin_net(m, "~{E}"), f"{m.ref} ~E") != 0:
                problems.append(f"{m.ref} is disabled")
                return problems
            column = board.pin_net(m, "A%d" % sel)
            if point < 0:
                if column != MIDREF:
                    problems.append(
                        f"step {step} slot {slot}: the firmware reads the mid-rail reference, "
                        f"the netlist gives net {column}"
                    )
                continue
            y, x = divmod(point, n)
            on = [h for h in sensors.get(column, ()) if int(h.fields["line"]) in lines]
            got = [(int(h.fields["line"]), int(h.fields["column"])) for h in on]
            if got != [(y, x)]:
                problems.append(
                    f"step {step} slot {slot}: the firmware files point (x={x}, y={y}), "
                    f"the netlist puts {got or 'no sensor'} on ADC input {slot}"
                )
                if len(problems) > 20:
                    return problems
            seen.add(point)
    if not problems and len(seen) != n * n:
        problems.append(f"the scan reads {len(seen)} of the {n * n} points")
    return problems
