"""The PC link (SPEC §5-§6, DESIGN.md §4): newline-delimited JSON over the USB serial.

- ``protocol.py``: framing: bytes in, bounded lines out; replies and events as JSON lines; a
  request's fields checked (``Reject``).
- ``server.py``: the commands (``Server.feed``/``Server.poll``), the per-board secret, and the
  asyncio task that reads the USB serial on the board; start reading there.
- ``ending.py``: Go's end against an engine (``dead``, ``confirm``), loaded when first used.
- ``hmac.py``: HMAC-SHA256 from ``hashlib.sha256`` (MicroPython has no ``hmac`` module).

On the PC only (not frozen): ``stdio.py``, the server on stdin/stdout; ``lines.py``, bounded
line reading for the PC's stdin servers (GTP, the virtual boards) as the link's framing reads.
"""
