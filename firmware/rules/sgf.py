"""SGF (FF[4]) reader: the main line of the first game in a file, for `loadsgf` and corpus tests.

Start with ``parse`` (bytes or str -> list of nodes, each a dict ``{'B': ['pd'], ...}`` of
unescaped text values). ``game_info`` reads the root (size, komi, handicap, setup stones, ...),
``moves`` turns the nodes into ``(colour, (x, y))`` and ``point`` converts one SGF point to the
Go/GTP orientation: x from the left, y from the BOTTOM, both from 0 (SGF's ``aa`` is top-left).
Runs unchanged on MicroPython and CPython: no ``re``, scanning with ``bytes.find``.
Spec: https://www.red-bean.com/sgf/sgf4.html (grammar), /go.html (points, pass).
"""

MAX_BYTES = 1 << 20  # parse()'s default cap: no real game record comes near 1 MiB
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # SGF coordinate 0..51
_UPPER = tuple(_LETTERS[26:])  # one-letter identifiers, indexed by byte - 65


class SgfError(ValueError):
    """Malformed or unsupported SGF data; the message says what and, when known, at which byte."""


def _err(msg, pos):
    """SgfError with the byte offset appended."""
    return SgfError("%s at byte %d" % (msg, pos))


def _show(c):
    """Printable form of the byte ``c`` for error messages."""
    return "'%s'" % chr(c) if 32 < c < 127 else "0x%02x" % c


def _skip(data, i, n):
    """Index of the first non-whitespace byte at or after ``i`` (``n`` if none)."""
    while i < n:
        c = data[i]
        if c != 32 and not 9 <= c <= 13:
            break
        i += 1
    return i


def _text(raw):
    """Decode a value as UTF-8; invalid UTF-8 falls back to latin-1 (one char per byte)."""
    try:
        return str(raw, "utf-8")
    except UnicodeError:
        return "".join([chr(c) for c in raw])


def _unescape(data, start, end, n):
    """Resolve escapes in the value from ``start``; returns (bytes, index of its closing ']')."""
    parts = []
    opening = start - 1
    k = data.find(b"\\", start, end)
    while k >= 0:
        parts.append(data[start:k])
        c = data[k + 1]  # exists: k < end
        start = k + 2
        if c == 10 or c == 13:  # soft line break: backslash + \n, \r, \r\n or \n\r vanishes
            if start < n and data[start] == (10 if c == 13 else 13):
                start += 1
        else:
            parts.append(data[k + 1 : start])
        if start > end:  # the escaped byte was the ']' we took for the end
            end = data.find(b"]", start)
            if end < 0:
                raise _err("unterminated value (its last ']' is escaped)", opening)
        k = data.find(b"\\", start, end)
    parts.append(data[start:end])
    return b"".join(parts), end


def _ident(raw, pos):
    """Property identifier from its letters: lowercase letters (old FF[3] 'AddBlack') dropped."""
    up = bytes([c for c in raw if c <= 90])
    if not up:
        raise _err("property identifier '%s' has no uppercase letter" % str(raw, "utf-8"), pos)
    return str(up, "utf-8")


def _start(data, n):
    """Index just after the first '(' ';' (leading non-SGF text is ignored, as sgfmill does)."""
    i = data.find(b"(")
    if i < 0:
        raise SgfError("not SGF: no '(' found")
    first = i
    while i >= 0:
        j = _skip(data, i + 1, n)
        if j < n and data[j] == 59:
            return j + 1
        i = data.find(b"(", i + 1)
    raise _err("missing ';' after '('", first)


def parse(data, max_bytes=MAX_BYTES):
    """Main-line nodes of the first game tree in ``data`` (bytes or str) as [{ident: [str]}]."""
    if isinstance(data, str):
        data = data.encode()
    elif not isinstance(data, bytes):
        data = bytes(data)  # bytearray, memoryview: slices must be hashable bytes
    n = len(data)
    if max_bytes is not None and n > max_bytes:
        raise SgfError("SGF data too large: %d bytes (limit %d)" % (n, max_bytes))
    if _skip(data, 0, n) >= n:
        raise SgfError("empty SGF data")
    i = _start(data, n)
    node = {}
    nodes = [node]
    keep = True  # on the main line: the first variation at every branch, i.e. until the first ')'
    depth = 1
    names = {}  # identifier bytes -> str, so that all nodes share one 'B' string
    while i < n:
        c = data[i]
        if 65 <= c <= 90 or 97 <= c <= 122:  # PropIdent
            if node is None:
                raise _err("property outside a node (after ')')", i)
            j = i + 1
            while j < n:
                c = data[j]
                if not (65 <= c <= 90 or 97 <= c <= 122):
                    break
                j += 1
            if j == i + 1 and data[i] <= 90:  # B, W, C: no slice, no dict look-up
                name = _UPPER[data[i] - 65]
            else:
                raw = data[i:j]
                name = names.get(raw)
                if name is None:
                    name = names[raw] = _ident(raw, i)
            values = None
            if keep:
                values = node.get(name)  # a repeated property adds values, as in sgfmill
                if values is None:
                    values = node[name] = []
            count = 0
            i = j
            while i < n:
                c = data[i]
                if c == 91:  # '[' PropValue ']'
                    end = data.find(b"]", i + 1)
                    if end < 0:
                        raise _err("unterminated value of %s" % name, i)
                    if data.find(b"\\", i + 1, end) < 0:
                        raw = data[i + 1 : end]
                    else:
                        raw, end = _unescape(data, i + 1, end, n)
                    if keep:
                        values.append(_text(raw))
                    count += 1
                    i = end + 1
                elif c == 32 or 9 <= c <= 13:
                    i += 1
                else:
                    break
            if not count:
                raise _err("property %s has no value" % name, i)
        elif c == 59:  # ';' Node
            if node is None:
                raise _err("node ';' after a variation's ')'", i)
            node = {}
            if keep:
                nodes.append(node)
            i += 1
        elif c == 41:  # ')'
            keep = False
            depth -= 1
            if not depth:
                return nodes  # the rest (further games of a collection) is ignored
            node = None
            i += 1
        elif c == 40:  # '(' GameTree: must start with a node
            j = _skip(data, i + 1, n)
            if j >= n or data[j] != 59:
                raise _err("missing ';' after '('", i)
            depth += 1
            node = {}
            if keep:
                nodes.append(node)
            i = j + 1
        elif c == 32 or 9 <= c <= 13:
            i += 1
        else:
            raise _err("unexpected %s" % _show(c), i)
    raise _err("unterminated game tree: missing ')'", n)


def _colrow(value, size):
    """(column, row) of a point counted from the top-left; SgfError if not on the board."""
    if len(value) == 2:
        x = _LETTERS.find(value[0])
        row = _LETTERS.find(value[1])
        if 0 <= x < size and 0 <= row < size:
            return x, row
    raise SgfError("point '%s' is not on the %dx%d board" % (value, size, size))


def point(value, size):
    """(x, y) of an SGF point: x from the left, y from the bottom; None for a pass ('', 'tt')."""
    if value == "" or (value == "tt" and size <= 19):
        return None
    x, row = _colrow(value, size)
    return x, size - 1 - row


def _points(values, size):
    """Points of a (compressed) point list, rectangles 'aa:cc' expanded, in order, no repeats."""
    out = []
    for v in values:
        k = v.find(":")
        if k < 0:
            x1, r1 = x2, r2 = _colrow(v, size)
        else:
            x1, r1 = _colrow(v[:k], size)
            x2, r2 = _colrow(v[k + 1 :], size)
            if x1 > x2:
                x1, x2 = x2, x1
            if r1 > r2:
                r1, r2 = r2, r1
        for row in range(r1, r2 + 1):
            for x in range(x1, x2 + 1):
                p = (x, size - 1 - row)
                if p not in out:
                    out.append(p)
    return out


def _first(node, name):
    """First value of a property, or None."""
    values = node.get(name)
    return values[0] if values else None


def _int(node, name, default):
    """A property's value as an int (``default`` if absent); SgfError if not a number."""
    v = _first(node, name)
    if v is None:
        return default
    try:
        return int(v)
    except ValueError:
        raise SgfError("%s[%s] is not a number" % (name, v))


def game_info(root):
    """Root facts: size gm handicap (int), komi result rules (str/None), pl, ab aw [(x, y)]."""
    v = _first(root, "SZ")
    if v is not None and ":" in v:
        raise SgfError("rectangular board SZ[%s] is not supported" % v)
    gm = _int(root, "GM", 1)
    size = _int(root, "SZ", 15 if gm == 4 else 19)  # Renju's board is 15x15 (seed 002 第一条)
    if not 1 <= size <= 52:
        raise SgfError("board size SZ[%d] is outside 1..52" % size)
    v = _first(root, "PL")
    pl = None if v is None else v.strip().upper()
    if pl is not None and pl != "B" and pl != "W":
        raise SgfError("PL[%s] is not B or W" % v)
    return {
        "size": size,
        "komi": _first(root, "KM"),
        "handicap": _int(root, "HA", 0),
        "gm": gm,
        "ab": _points(root.get("AB", ()), size),
        "aw": _points(root.get("AW", ()), size),
        "pl": pl,
        "result": _first(root, "RE"),
        "rules": _first(root, "RU"),
    }


def moves(nodes, size):
    """Moves of the nodes as [(colour 'B'/'W', (x, y) or None for a pass)]; no setup after root."""
    out = []
    for k in range(len(nodes)):
        node = nodes[k]
        if k and ("AB" in node or "AW" in node or "AE" in node):
            raise SgfError(
                "setup stones after the root are not supported (AB/AW/AE in node %d)" % k
            )
        colour = "B"
        values = node.get("B")
        if "W" in node:
            if values is not None:
                raise SgfError("node %d has both B and W" % k)
            colour = "W"
            values = node["W"]
        if values is not None:
            if len(values) != 1:
                raise SgfError("node %d: %s has %d values, not 1" % (k, colour, len(values)))
            out.append((colour, point(values[0], size)))
    return out
