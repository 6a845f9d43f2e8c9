"""The block diagram of the board (``hardware/out/blocks.svg``), drawn from the system netlist.

Nothing here is drawn by hand: every block is a group of the netlist's components (by their
``role``, ``Key``, ``index``, ``side`` and ``line`` fields), every edge a set of nets two blocks
share, labelled with the nets' names (``MUX_S0..2``, ``COL0..18``) and the RP2040 GPIOs they
use. Remove a part from the netlist and it leaves the picture. Resistors, capacitors and the
like join the block they connect to; supply rails (+3V3, GND, VSYS...) are left out, or the
picture would be one knot. Graphviz ``dot`` lays it out (``apt-get install graphviz``).

    svg(netlist) -> str    # the SVG text, the same bytes for the same netlist
"""

import html
import re
import shutil
import subprocess
from collections import Counter

from hardware.design.netlist import natural, pin_names

# Supply rails: left out of the edges (they go everywhere). Nets local to a few parts (VBUS,
# VRTC) still fold a capacitor or divider into the block it belongs to; GND and the +rails,
# which touch everything, do not.
_RAIL = re.compile(r"^(\+|GND)|^V[A-Z]+(_SW)?$|AVDD$|VCC$")
_GLOBAL_RAIL = re.compile(r"^(\+|GND)")

# Where each block sits, left to right: power feeds the MCU, the MCU drives the scan chips,
# the scan chips the strip bus, the bus the strips. The clock's parts hang off the MCU.
_TIER = {"power": 0, "mcu": 1, "bus": 3, "strips": 4}
_PERIPHERAL_TIER = 2

# Words for a part in its block's label, by role (or catalogue key when it has no role).
_WORDS = {
    "flash": "{v} flash",
    "xtal": "{v} crystal",
    "xtal32k": "{v} crystal",
    "bootsel": "BOOTSEL key",
    "usb": "{v} connector",
    "charger": "{v} Li-ion charger",
    "ldo": "{v} LDO",
    "battery": "battery connector",
    "power": "power switch",
    "schottky": "{v} diode",
    "rtc cell": "{v} cell",
    "buzzer": "{v} buzzer",
    "buzzer driver": "{v} driver",
    "voice amp": "{v} amplifier",
    "speaker": "speaker plug",
    "swd": "{v}",
    "uart": "{v}",
}


def _block_of(comp):
    """The block a component belongs to, or None (a passive: folded in later)."""
    f = comp.fields
    role, key = f.get("role", ""), f.get("Key", "")
    if role in ("mcu", "bootsel") or key in ("flash", "xtal"):
        return "mcu"
    if role in ("usb", "battery", "power") or key in ("charger", "ldo"):
        return "power"
    if role == "column mux":
        return "mux%s" % f.get("index", "")
    if role == "row decoder":
        return "dec%s" % f.get("index", "")
    if role == "strip bus":
        return "bus"
    if "line" in f:
        return "strips"
    if role == "face":
        return "face_%s" % f.get("side", "")
    if role.startswith("key "):
        return "keys"
    if role == "paddle":
        return "paddles"
    if role.startswith("buzzer"):
        return "buzzer"
    if role.startswith("voice") or role == "speaker":
        return "voice"
    if role.startswith("rtc") or key == "xtal32k":
        return "rtc"
    if role in ("swd", "uart"):
        return "debug"
    if role:
        return re.sub(r"\W+", "_", role)
    return None


def _assign(netlist):
    """``{ref: block}``: each component's block; passives take a neighbour's block."""
    blocks = {}
    for ref in sorted(netlist.comps, key=natural):
        b = _block_of(netlist.comps[ref])
        if b is not None:
            blocks[ref] = b
    pins = {}  # ref -> nets on its pins
    for name, nodes in netlist.nets.items():
        for ref, _ in nodes:
            pins.setdefault(ref, set()).add(name)
    loose = [r for r in sorted(netlist.comps, key=natural) if r not in blocks]

    def neighbours(ref):
        # Signal nets first; a local rail (VBUS, VRTC) only when they give nothing but the MCU.
        found = []
        for rails in (False, True):
            for name in sorted(pins.get(ref, ()), key=natural):
                if _GLOBAL_RAIL.match(name) or bool(_RAIL.match(name)) != rails:
                    continue
                found += [blocks[r] for r, _ in netlist.nets[name] if r in blocks]
            if any(b != "mcu" for b in found):
                break
        return sorted(set(found), key=natural)

    # A series resistor between the MCU and a peripheral belongs to the peripheral: the MCU
    # only takes what nothing else will.
    while loose:
        done = {}
        for ref in loose:
            cands = [b for b in neighbours(ref) if b != "mcu"]
            if cands:
                done[ref] = cands[0]
        if not done:
            done = {r: "mcu" for r in loose if "mcu" in neighbours(r)}
        if not done:
            break  # only on rails (decoupling): not drawn
        blocks.update(done)
        loose = [r for r in loose if r not in done]
    return blocks


def _members(netlist, blocks):
    """``{block: [Comp, ...]}`` in reference order."""
    out = {}
    for ref in sorted(blocks, key=natural):
        out.setdefault(blocks[ref], []).append(netlist.comps[ref])
    return out


def _parts_line(comps):
    """``value word`` of the block's real parts (not R, C), identical ones counted."""
    seen = Counter()
    order = []
    for c in comps:
        if re.match(r"^(R|C)\d", c.ref):
            continue
        f = c.fields
        word = _WORDS.get(f.get("role")) or _WORDS.get(f.get("Key", ""), "{v}")
        text = word.format(v=c.value)
        if text not in seen:
            order.append(text)
        seen[text] += 1
    return ["%s x %s" % (seen[t], t) if seen[t] > 1 else t for t in order]


def _label(block, comps):
    """``(title, [detail lines])`` of a block, from its components."""
    by_role = {}
    for c in comps:
        by_role.setdefault(c.fields.get("role", ""), []).append(c)
    if block == "mcu":
        mcu = by_role["mcu"][0] if "mcu" in by_role else comps[0]
        rest = [c for c in comps if c is not mcu]
        return "%s (%s)" % (mcu.value, mcu.ref), ["+ " + t for t in _parts_line(rest)]
    if block == "power":
        comps = sorted(comps, key=lambda c: (not c.fields.get("role"), natural(c.ref)))
        return "power (USB, battery)", _parts_line(comps)
    if block.startswith(("mux", "dec")):
        c = next(c for c in comps if c.fields.get("role"))
        return "%s #%s" % (c.value, c.fields.get("index", "")), [c.fields.get("role", "")]
    if block == "bus":
        c = by_role["strip bus"][0]
        return "strip bus header", ["%s, ribbon to the strips" % c.ref]
    if block == "strips":
        sensors = by_role.get("sensor", [])
        lines = {c.fields["line"] for c in comps if "line" in c.fields}
        values = sorted({c.value for c in sensors})
        per = len(sensors) // len(lines) if lines else 0
        details = ["x %d %s" % (per, "/".join(values)), "= %d sensors" % len(sensors)]
        for role in sorted(by_role):
            if role and role not in ("sensor", "strip in", "strip out"):
                each = len(by_role[role]) // len(lines) if lines else 0
                value = "/".join(sorted({c.value for c in by_role[role]}))
                details.append("+ %d %s %s each" % (each, value, role))
        return "%d sensor strips" % len(lines), details
    if block.startswith("face_"):
        c = by_role["face"][0]
        return "face %s" % c.fields.get("side", ""), ["%s LCD module (%s)" % (c.value, c.ref)]
    if block == "keys":
        names = [
            c.fields["role"][4:] for c in comps if c.fields.get("role", "").startswith("key ")
        ]
        return "keys", [", ".join(names)]
    if block == "paddles":
        sides = [c.fields.get("side", "") for c in comps if c.fields.get("role") == "paddle"]
        return "paddles", [", ".join(sides)]
    if block == "buzzer":
        return "buzzer", _parts_line(comps)
    if block == "voice":
        return "voice", _parts_line(comps) + ["+ PWM low-pass (RC)"]
    if block == "rtc":
        if "rtc" not in by_role:
            return "RTC parts", _parts_line(comps)
        rtc = by_role["rtc"][0]
        rest = [c for c in comps if c is not rtc]
        return "RTC %s" % rtc.value, ["+ " + t for t in _parts_line(rest)]
    if block == "debug":
        return "debug headers", _parts_line(comps)
    if block == "status_led":
        return "status LED", _parts_line(comps)
    return block.replace("_", " "), _parts_line(comps)


def _ranges(numbers):
    """``[6, 7, 8, 12]`` -> ``"6..8, 12"``: runs of three or more shortened."""
    numbers = sorted(set(numbers))
    out, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        if j - i >= 2:
            out.append("%d..%d" % (numbers[i], numbers[j]))
        else:
            out += [str(n) for n in numbers[i : j + 1]]
        i = j + 1
    return ", ".join(out)


def _compact(names):
    """Net names grouped: ``MUX_S0..2`` (runs of three or more), ``I2C1_SCL/SDA`` and
    ``ROW_B3/B4`` (one stem, several tails)."""
    numbered, plain = {}, []
    for n in names:
        m = re.match(r"^(.*?[A-Za-z_])(\d+)$", n)
        if m:
            numbered.setdefault(m.group(1), []).append(int(m.group(2)))
        else:
            plain.append(n)
    groups = []
    for prefix, nums in numbered.items():
        if len(nums) >= 3:
            groups += [prefix + r for r in _ranges(nums).split(", ")]
        else:
            plain += [prefix + str(n) for n in nums]
    stems = {}
    for n in plain:
        stem, _, tail = n.rpartition("_")
        stems.setdefault(stem if stem else n, []).append(tail if stem else n)
    for stem, tails in stems.items():
        if len(tails) > 1 and stem:
            groups.append("%s_%s" % (stem, "/".join(sorted(tails))))
        else:
            groups += ["%s_%s" % (stem, t) if stem != t else t for t in tails]
    return sorted(groups, key=natural)


def _edges(netlist, blocks):
    """``{(a, b): {net name: [gpio numbers]}}``: what each pair of blocks shares."""
    mcu_refs = [r for r, b in blocks.items() if netlist.comps[r].fields.get("role") == "mcu"]
    gpio, mcu_pin = {}, {}  # (ref, pin) -> GPIO number, pin name: the MCU's pins
    for ref in mcu_refs:
        for num, name in pin_names(netlist.comps[ref]).items():
            mcu_pin[(ref, num)] = name
            m = re.match(r"^GPIO(\d+)", name)
            if m:
                gpio[(ref, num)] = int(m.group(1))
    pins = {}
    for name, nodes in netlist.nets.items():
        for ref, _ in nodes:
            pins.setdefault(ref, []).append(name)
    edges = {}
    for name in sorted(netlist.nets, key=natural):
        if _RAIL.match(name):
            continue
        nodes = netlist.nets[name]
        here = sorted({blocks[r] for r, _ in nodes if r in blocks}, key=_order)
        if len(here) < 2:
            continue
        gps = sorted(gpio[n] for n in nodes if n in gpio)
        # An unnamed net (N$12) is called after what is beyond its resistor (USB_DP), or
        # after the MCU's pin (GPIO12, SWCLK).
        label = name
        if name.startswith("N$"):
            beyond = [
                other
                for r, _ in nodes
                if r in blocks and re.match(r"^R\d", r)
                for other in pins[r]
                if other != name and not other.startswith("N$") and not _RAIL.match(other)
            ]
            if beyond:
                label = sorted(beyond, key=natural)[0]
            else:
                named = sorted(mcu_pin[n] for n in nodes if n in mcu_pin)
                if named:
                    label = named[0]
                    gps = [] if label.startswith("GPIO") else gps
        # The strip bus, then the MCU, is the hub of a net it is on: the scan chips reach
        # the strips through the bus header, not straight.
        hub = next((h for h in ("bus", "mcu") if h in here), None)
        pairs = (
            [(hub, b) for b in here if b != hub]
            if hub
            else [(a, b) for i, a in enumerate(here) for b in here[i + 1 :]]
        )
        for a, b in pairs:
            key = tuple(sorted((a, b), key=_order))
            edges.setdefault(key, {}).setdefault(label, []).extend(gps)
    return edges


def _cluster(block):
    """The box a block is drawn in, ``(name, title)``, or None."""
    if re.match(r"^(mux|dec)\d", block):
        return ("scan", "board scan")
    if block.startswith("face_") or block in ("keys", "paddles", "buzzer", "voice", "rtc"):
        return ("clock", "game clock")
    return None


def _order(block):
    """Sort key: left to right, then the scan chips above the clock's parts."""
    cluster = _cluster(block)
    sub = ("scan", "clock").index(cluster[0]) if cluster else 2
    return (_TIER.get(block, _PERIPHERAL_TIER), sub, natural(block))


def _edge_label(nets, with_gpio):
    """Lines of an edge label: the grouped net names, then the GPIOs they use."""
    names = _compact(nets)
    lines, line = [], ""
    for g in names:
        if line and len(line) + len(g) > 26:
            lines.append(line + ",")
            line = g
        else:
            line = line + ", " + g if line else g
    lines.append(line)
    gps = sorted({g for v in nets.values() for g in v})
    if with_gpio and gps and not all(n.startswith("GPIO") for n in names):
        lines.append("GPIO " + _ranges(gps))
    return lines


def _html(title, details, size=10):
    """A Graphviz HTML label: the title in bold, the details smaller below."""
    parts = ["<b>%s</b>" % html.escape(title)]
    parts += ['<font point-size="%d">%s</font>' % (size, html.escape(d)) for d in details if d]
    return "<%s>" % "<br/>".join(parts)


_FILL = {
    "power": "#fde2c8",
    "mcu": "#cfe3ff",
    "mux": "#d9f2d9",
    "dec": "#d9f2d9",
    "bus": "#eeeeee",
    "strips": "#fff3b0",
}


def dot_source(netlist):
    """The Graphviz ``dot`` text of the block diagram (what ``svg`` lays out)."""
    blocks = _assign(netlist)
    members = _members(netlist, blocks)
    edges = _edges(netlist, blocks)
    out = [
        "digraph blocks {",
        '  graph [rankdir=LR, nodesep=0.25, ranksep=0.9, fontname="Helvetica", '
        'label=<<b>Tengen: block diagram</b><br/><font point-size="10">generated from the '
        "system netlist (hardware/design/diagram.py); supply rails not drawn</font>>, "
        "labelloc=t, fontsize=16];",
        '  node [shape=box, style="rounded,filled", fillcolor="#f6f6f6", '
        'fontname="Helvetica", fontsize=12, margin="0.15,0.06"];',
        '  edge [dir=none, fontname="Helvetica", fontsize=9, color="#555555"];',
    ]
    clusters = {}
    for block in sorted(members, key=_order):
        title, details = _label(block, members[block])
        fill = _FILL.get(re.sub(r"\d+$", "", block), "#f6f6f6")
        node = '"%s" [label=%s, fillcolor="%s"];' % (block, _html(title, details), fill)
        cluster = _cluster(block)
        if cluster is None:
            out.append("  " + node)
        else:
            clusters.setdefault(cluster, []).append(node)
    for (name, title), nodes in sorted(clusters.items()):
        out.append("  subgraph cluster_%s {" % name)
        out.append(
            '    label=<<i>%s</i>>; fontsize=11; style="rounded,dashed"; color="#999999";'
            % html.escape(title)
        )
        out += ["    " + n for n in nodes]
        out.append("  }")
    for (a, b), nets in sorted(edges.items(), key=lambda e: (_order(e[0][0]), _order(e[0][1]))):
        lines = _edge_label(nets, "mcu" in (a, b))
        lab = "<%s>" % "<br/>".join(html.escape(x) for x in lines)
        out.append('  "%s" -> "%s" [label=%s];' % (a, b, lab))
    out.append("}")
    return "\n".join(out) + "\n"


def svg(netlist):
    """The block diagram of ``netlist`` (a ``netlist.Netlist`` of the system) as SVG text.

    Deterministic: the same netlist gives the same bytes (Graphviz's version comment is
    taken out). Raises RuntimeError when Graphviz's ``dot`` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("Graphviz 'dot' not found: apt-get install graphviz")
    result = subprocess.run(
        [dot, "-Tsvg"], input=dot_source(netlist), capture_output=True, text=True, check=True
    )
    return re.sub(r"<!-- Generated by .*?-->\n", "", result.stdout, flags=re.S)
