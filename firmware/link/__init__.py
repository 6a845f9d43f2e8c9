"""The PC link (SPEC §5-§6, DESIGN.md §4): newline-delimited JSON over the USB serial.

- ``protocol.py``: framing: bytes in, bounded lines out; replies and events as JSON lines.
- ``server.py``: the commands (``Server.feed``/``Server.poll``), the per-board secret, and the
  asyncio task that reads the USB serial on the board; start reading there.
- ``hmac.py``: HMAC-SHA256 from ``hashlib.sha256`` (MicroPython has no ``hmac`` module).
"""
