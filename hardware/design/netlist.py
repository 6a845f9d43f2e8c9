"""The KiCad netlists the schematic writes, read back: what the checks and the BOM work from.

The pin-map check, the BOM and the block diagram read the netlist *file*, not SKiDL's objects,
so what they check is what a PCB is laid out from. ``read`` parses a KiCad (version D)
netlist with ``simp_sexp`` (SKiDL's own S-expression reader); ``pin_names`` gives a symbol's
pin names, which KiCad netlists leave out, from the same libraries the schematic used.
"""

import re
from dataclasses import dataclass, field

from simp_sexp import Sexp


@dataclass
class Comp:
    """One component of a netlist."""

    ref: str
    value: str
    footprint: str
    lib: str
    symbol: str
    fields: dict = field(default_factory=dict)


@dataclass
class Netlist:
    """Components by reference, nets by name (``[(ref, pin number), ...]``)."""

    comps: dict
    nets: dict

    def net_of(self, ref, pin):
        """The name of the net on pin ``pin`` (a number, as a string) of ``ref``, or None."""
        pin = str(pin)
        index = self._index()
        return index.get((ref, pin))

    def _index(self):
        index = getattr(self, "_pins", None)
        if index is None:
            index = {node: name for name, nodes in self.nets.items() for node in nodes}
            self._pins = index
        return index

    def with_role(self, role, **fields):
        """The components whose ``role`` field is ``role`` (and whose other fields match)."""
        found = []
        for c in self.comps.values():
            if c.fields.get("role") != role:
                continue
            if all(c.fields.get(k) == v for k, v in fields.items()):
                found.append(c)
        return sorted(found, key=lambda c: natural(c.ref))


def natural(ref):
    """A sort key that puts R2 before R10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", ref)]


def _items(node, name):
    return [x for x in node[1:] if isinstance(x, list) and x and x[0] == name]


def _value(node, name, default=""):
    for x in _items(node, name):
        return str(x[1]) if len(x) > 1 else default
    return default


def read(text):
    """A ``Netlist`` from the text of a KiCad netlist."""
    root = Sexp(text)
    export = root[0] if root and isinstance(root[0], list) else root
    comps = {}
    for block in _items(export, "components"):
        for comp in _items(block, "comp"):
            fields = {}
            for fs in _items(comp, "fields"):
                for f in _items(fs, "field"):
                    fields[_value(f, "name")] = str(f[2]) if len(f) > 2 else ""
            lib = sym = ""
            for src in _items(comp, "libsource"):
                lib, sym = _value(src, "lib"), _value(src, "part")
            ref = _value(comp, "ref")
            comps[ref] = Comp(
                ref, _value(comp, "value"), _value(comp, "footprint"), lib, sym, fields
            )
    nets = {}
    for block in _items(export, "nets"):
        for net in _items(block, "net"):
            nodes = [(_value(n, "ref"), _value(n, "pin")) for n in _items(net, "node")]
            nets[_value(net, "name")] = nodes
    return Netlist(comps, nets)


_PIN_NAMES = {}


def pin_names(comp):
    """``{pin number: pin name}`` of a component's symbol (KiCad's library, or the catalogue's
    own pins for a symbol KiCad lacks)."""
    from hardware.design.parts import PARTS

    spec = PARTS.get(comp.fields.get("Key", ""))
    if spec is not None and spec.lib is None:
        return {str(n): name for n, name, _ in spec.pins}
    key = (comp.lib, comp.symbol)
    names = _PIN_NAMES.get(key)
    if names is None:
        from hardware.design import circuit

        skidl = circuit._skidl()
        tmpl = skidl.Part(comp.lib, comp.symbol, dest=skidl.TEMPLATE)
        names = {str(p.num): p.name for p in tmpl.pins}
        _PIN_NAMES[key] = names
    return names


def normalise(text):
    """The netlist text without what changes from run to run (date, script path), so the
    committed netlist is the generated one byte for byte."""
    text = re.sub(r'\(date "[^"]*"\)', '(date "")', text)
    text = re.sub(r'\(source "[^"]*"\)', '(source "hardware/design")', text)
    return text
