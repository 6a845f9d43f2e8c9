"""The link's framing: bytes from the serial line in, bounded lines out; JSON lines back.

Start reading at ``Framer.feed``. A frame is one line ending in ``\\n`` (a ``\\r`` before it
is dropped); a line holding only spaces, tabs or ``\\r`` is ignored (a keep-alive). A line of
more than ``max_line`` bytes (its ``\\n`` not counted) is not kept: its bytes are dropped as
they come, up to the next ``\\n``, and ``TOO_LONG`` stands in the queue for it, so it gets one
error reply like any other line. At most ``max_queue`` lines wait; ``feed`` takes no more
bytes than fit and returns how many it took, so a flood waits in the USB buffers (the host
sees it as a slow board), never in the board's heap.

Replies are ``{"v":1,"id":n,"ok":true,...}`` or ``{"v":1,"id":n,"ok":false,"error":code,
"message":words}``; events ``{"v":1,"event":name,...}``. Each is one line of compact JSON.
"""

import json

VERSION = 1  # the protocol version: "v" of every request, reply and event
MAX_LINE = 512  # bytes of a request line
MAX_QUEUE = 8  # complete lines waiting for ``poll``

TOO_LONG = None  # stands in the queue for a line that was too long


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
        self.dropped = 0  # too-long lines so far (for the arbiter's view)

    def feed(self, data):
        """Take bytes from ``data``; returns how many were taken (all, unless the queue is full:
        the caller keeps the rest and feeds it again after ``poll``)."""
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)  # a memoryview has no find
        n = len(data)
        i = 0
        while i < n and len(self.lines) < self.max_queue:
            j = data.find(b"\n", i)
            end = n if j < 0 else j
            if not self.dropping:
                if len(self.buf) + end - i > self.max_line:
                    self.dropping = True
                    self.buf = bytearray()
                else:
                    self.buf.extend(data[i:end])
            if j < 0:
                return n
            if self.dropping:
                self.lines.append(TOO_LONG)
                self.dropped += 1
                self.dropping = False
            else:
                line = bytes(self.buf)
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not _blank(line):
                    self.lines.append(line)
            self.buf = bytearray()
            i = j + 1
        return i

    def take(self):
        """The oldest complete line (bytes, or TOO_LONG); raises IndexError if none waits."""
        return self.lines.pop(0)

    def waiting(self):
        """How many complete lines wait."""
        return len(self.lines)
