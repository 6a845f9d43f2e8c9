"""The link's framing: bytes from the serial line in, bounded lines out; JSON lines back.

Start reading at ``Framer.feed``. A frame is one line ending in ``\\n`` (a ``\\r`` before it
is dropped); a line holding only spaces, tabs or ``\\r`` is ignored (a keep-alive). A line of
more than ``max_line`` bytes (its ``\\n`` not counted) is not kept: its bytes are dropped as
they come, up to the next ``\\n``, and ``TOO_LONG`` stands in the queue for it, so it gets one
error reply like any other line. At most ``max_queue`` lines wait; ``feed`` takes no more
bytes than fit and returns how many it took, so a flood waits in the USB buffers (the host
sees it as a slow board), never in the board's heap. A ``MemoryError`` inside ``feed`` only
makes it take fewer bytes: the rest is fed again when the heap has room.

Request lines are checked here before the JSON reader sees them (``utf8_error``,
``join_surrogates``): MicroPython's ``bytes.decode()`` does not validate UTF-8 and its JSON
reader turns an escaped surrogate pair into two 3-byte halves (CESU-8), so without these checks
a reply echoing a request's text would not be UTF-8 on the board though it is on CPython.
``find_id``/``id_end`` find a request's id in a line the JSON reader refused (or could not read
for want of memory), without allocating, so that even that error reply carries the id.

Replies are ``{"v":1,"id":n,"ok":true,...}`` or ``{"v":1,"id":n,"ok":false,"error":code,
"message":words}``; events ``{"v":1,"event":name,...}``. Each is one line of compact JSON.
"""

import json

VERSION = 1  # the protocol version: "v" of every request, reply and event
MAX_LINE = 512  # bytes of a request line
MAX_QUEUE = 8  # complete lines waiting for ``poll``

TOO_LONG = None  # stands in the queue for a line that was too long
ID_CHARS = 32  # characters of a string id
_MAX_ID = b"2147483647"  # the largest id, 2**31 - 1 (compared as digits: no long int made)


def dumps(obj):
    """``obj`` as one line of compact JSON, as bytes with its ``\\n``."""
    try:
        text = json.dumps(obj, separators=(",", ":"))
    except TypeError:  # an older MicroPython's json takes no separators
        text = json.dumps(obj)
    return text.encode() + b"\n"


def _blank(line):
    for b in line:
        if b not in (32, 9, 13):
            return False
    return True


class Framer:
    """Bytes in (``feed``), complete lines out (``take``)."""

    def __init__(self, max_line=MAX_LINE, max_queue=MAX_QUEUE):
        self.max_line = max_line
        self.max_queue = max_queue
        self.buf = bytearray()  # the line being received (at most max_line bytes)
        self.dropping = False  # inside a line that was too long: drop up to its newline
        self.lines = []  # complete lines (bytes, without the newline) or TOO_LONG
        self.long_ids = []  # for each TOO_LONG queued: the id its first bytes held, or None
        self.long_id = None  # the id of the line being dropped
        self.last_long_id = None  # the id of the TOO_LONG ``take`` returned last, or None
        self.dropped = 0  # too-long lines so far (for the arbiter's view)

    def feed(self, data):
        """Take bytes from ``data``; returns how many were taken (all, unless the queue is full
        or the heap is: the caller keeps the rest and feeds it again after ``poll``)."""
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)  # a memoryview has no find
        n = len(data)
        i = 0
        # Each step leaves the state whole when an allocation fails: ``i`` counts only the
        # bytes the state already holds, so the rest can be fed again.
        try:
            while i < n and len(self.lines) < self.max_queue:
                j = data.find(b"\n", i)
                end = n if j < 0 else j
                if not self.dropping and end > i:
                    if len(self.buf) + end - i > self.max_line:
                        # The id, from the line's first bytes: its error reply carries it.
                        head = bytes(self.buf) + data[i : i + self.max_line - len(self.buf)]
                        self.long_id = request_id(head)
                        self.dropping = True
                        self.buf = bytearray()
                    else:
                        self.buf.extend(data[i:end])
                i = end
                if j < 0:
                    return n
                if self.dropping:
                    self.long_ids.append(self.long_id)
                    self.lines.append(TOO_LONG)
                    self.dropped += 1
                    self.dropping = False
                    self.long_id = None
                else:
                    line = bytes(self.buf)
                    if line.endswith(b"\r"):
                        line = line[:-1]
                    if not _blank(line):
                        self.lines.append(line)
                self.buf = bytearray()
                i = j + 1
        except MemoryError:
            pass  # what was taken is kept; the rest waits for the next feed
        return i

    def take(self):
        """The oldest complete line (bytes, or TOO_LONG); raises IndexError if none waits."""
        line = self.lines.pop(0)
        if line is TOO_LONG:  # its id, read from its first bytes: last_long_id
            self.last_long_id = self.long_ids.pop(0) if self.long_ids else None
        return line

    def waiting(self):
        """How many complete lines wait."""
        return len(self.lines)


# ---- strict UTF-8 and the request's id, on bytes ----------------------------------------------


def utf8_error(data, start=0, end=-1):
    """The index of the first byte of ``data[start:end]`` (``end`` -1: to the end) that is not
    strict UTF-8 (RFC 3629), or -1 when all of it is: no overlong forms, no surrogates
    (U+D800-DFFF), nothing above U+10FFFF, no stray continuation byte, no sequence cut short
    (one cut by ``end`` too). CPython's ``bytes.decode()`` refuses the same bytes; MicroPython's
    takes most of them. Allocates nothing."""
    if end < 0:
        end = len(data)
        if start == 0 and (end == 0 or max(data) < 0x80):
            return -1  # ASCII: the usual request, at C speed
    i = start
    while i < end:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:  # C0, C1: overlong forms of ASCII
            n, lo, hi = 1, 0x80, 0xBF
        elif 0xE0 <= b <= 0xEF:  # E0 80-9F: overlong; ED A0-BF: surrogates
            n, lo, hi = 2, 0xA0 if b == 0xE0 else 0x80, 0x9F if b == 0xED else 0xBF
        elif 0xF0 <= b <= 0xF4:  # F0 80-8F: overlong; F4 90-BF, F5-FF: above U+10FFFF
            n, lo, hi = 3, 0x90 if b == 0xF0 else 0x80, 0x8F if b == 0xF4 else 0xBF
        else:  # 80-BF: a continuation byte with no lead; C0, C1, F5-FF: never in UTF-8
            return i
        if i + n >= end:
            return i
        c = data[i + 1]
        if c < lo or c > hi:
            return i
        k = i + 2
        while k <= i + n:
            if data[k] & 0xC0 != 0x80:
                return i
            k += 1
        i += n + 1
    return -1


def _hex4(line, i):
    # The value of the 4 hex digits at line[i:i+4], or -1.
    if i + 4 > len(line):
        return -1
    v = 0
    for k in range(i, i + 4):
        c = line[k] | 0x20  # A-F as a-f
        if 0x30 <= c <= 0x39:
            v = v * 16 + c - 0x30
        elif 0x61 <= c <= 0x66:
            v = v * 16 + c - 0x61 + 10
        else:
            return -1
    return v


def join_surrogates(line):
    """``line`` (JSON text as bytes) with each escaped surrogate pair (``\\ud83d\\ude00``)
    written as the UTF-8 of its character, as CPython's JSON reader reads it (MicroPython's
    reads each half alone and makes text that is not UTF-8). ``line`` itself when it holds
    none. Raises ValueError for a lone surrogate escape (``"surrogate"``: it is no character
    at all) and for a ``\\u`` without four hex digits (``"escape"``: not JSON, though
    MicroPython's reader would make some character of it)."""
    i = line.find(b"\\")
    if i < 0:
        return line
    n = len(line)
    out = None
    done = 0
    while i >= 0:
        if i + 1 < n and line[i + 1] == 0x75:  # \u
            hi = _hex4(line, i + 2)
            if hi < 0:
                raise ValueError("escape")
            if 0xD800 <= hi <= 0xDFFF:
                lo = -1
                if hi <= 0xDBFF and line[i + 6 : i + 8] == b"\\u":
                    lo = _hex4(line, i + 8)
                    if lo < 0:
                        raise ValueError("escape")
                if not 0xDC00 <= lo <= 0xDFFF:
                    raise ValueError("surrogate")
                cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                if out is None:
                    out = bytearray()
                out.extend(line[done:i])
                out.extend(chr(cp).encode())
                done = i + 12
                i = line.find(b"\\", done)
                continue
        i = line.find(b"\\", i + 2)  # past the escaped character (a backslash too)
    if out is None:
        return line
    out.extend(line[done:])
    return bytes(out)


def _skip_ws(line, i):
    n = len(line)
    while i < n and line[i] in (32, 9, 10, 13):
        i += 1
    return i


def id_end(line, i):
    """Where the id value starting at ``line[i]`` ends (the index after it), or -1 when it is
    not an id a reply can carry: digits of an integer from 0 to 2**31 - 1 (no sign, fraction,
    exponent or leading zero), or a string of at most ID_CHARS characters, strict UTF-8, with
    no escape or control character; followed by a space, a comma or the closing brace (a
    line cut short in the id has none). Allocates nothing."""
    n = len(line)
    if i >= n:
        return -1
    b = line[i]
    if 0x30 <= b <= 0x39:
        j = i
        while j < n and 0x30 <= line[j] <= 0x39:
            j += 1
        k = j - i
        if (k > 1 and b == 0x30) or k > 10:
            return -1
        if k == 10:  # compare with 2147483647 digit by digit
            for d in range(10):
                if line[i + d] != _MAX_ID[d]:
                    if line[i + d] > _MAX_ID[d]:
                        return -1
                    break
    elif b == 0x22:
        j = i + 1
        chars = 0
        while j < n and line[j] != 0x22:
            c = line[j]
            if c == 0x5C or c < 0x20:
                return -1
            if c & 0xC0 != 0x80:
                chars += 1
            j += 1
        if j >= n or chars > ID_CHARS or utf8_error(line, i + 1, j) >= 0:
            return -1
        j += 1
    else:
        return -1
    k = _skip_ws(line, j)
    if k < n and line[k] in (0x2C, 0x7D):  # , }
        return j
    return -1


def find_id(line):
    """Where the value of the request's top-level ``"id"`` starts in ``line`` (bytes, which
    may be anything: invalid UTF-8, cut short, not JSON), or -1 when there is none that
    ``id_end`` takes. The last one counts, as in a JSON reader. Allocates nothing: the reply
    to a request the heap had no room for uses it."""
    n = len(line)
    i = _skip_ws(line, 0)
    if i >= n or line[i] != 0x7B:  # {
        return -1
    depth = 0
    found = -1
    while i < n:
        b = line[i]
        if b == 0x22:  # a string: to its closing quote
            j = i + 1
            while j < n and line[j] != 0x22:
                j += 2 if line[j] == 0x5C else 1
            if j >= n:
                return found  # cut short inside a string
            if depth == 1 and j == i + 3 and line[i + 1] == 0x69 and line[i + 2] == 0x64:
                k = _skip_ws(line, j + 1)
                if k < n and line[k] == 0x3A:  # "id": the key
                    v = _skip_ws(line, k + 1)
                    found = v if id_end(line, v) >= 0 else -1
            i = j + 1
            continue
        if b == 0x7B or b == 0x5B:
            depth += 1
        elif b == 0x7D or b == 0x5D:
            depth -= 1
        i += 1
    return found


def request_id(line):
    """The id of the request ``line`` (bytes) as ``find_id`` finds it: an int, a str or None."""
    i = find_id(line)
    if i < 0:
        return None
    j = id_end(line, i)
    if line[i] == 0x22:
        return bytes(line[i + 1 : j - 1]).decode()
    return int(bytes(line[i:j]))


# ---- a request's fields ------------------------------------------------------------------------
# Here rather than in server.py, which uses them, so that the server's commands kept in modules
# of their own (ending.py) take them without importing the server back.


class Reject(Exception):
    """A request refused: ``args`` are (error code, message)."""


_REQUIRED = object()


def _field(req, key, kind, default=_REQUIRED):
    # The request's ``key``, checked to be of ``kind`` (bool is not an int here).
    if key not in req:
        if default is _REQUIRED:
            raise Reject("missing", "%s: missing" % key)
        return default
    v = req[key]
    if kind is int and (v is True or v is False):
        ok = False
    else:
        ok = isinstance(v, kind)
    if not ok:
        raise Reject("bad_type", "%s: must be %s" % (key, _KIND_WORDS.get(kind, "?")))
    return v


_KIND_WORDS = {int: "an integer", str: "a string", bool: "true or false", dict: "an object"}


def _int(req, key, lo, hi, default=_REQUIRED):
    v = _field(req, key, int, default)
    if v is not default and not lo <= v <= hi:
        raise Reject("bad_value", "%s: must be from %d to %d" % (key, lo, hi))
    return v
