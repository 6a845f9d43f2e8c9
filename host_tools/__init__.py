"""Tengen host tools: the ``tengen`` command that talks to a board over USB serial.

Start with ``cli.py``. The Go/Renju rules come from ``firmware.rules`` (one implementation for
the board and the PC), so the host tools never carry a copy of their own.
"""
