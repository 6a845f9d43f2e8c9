"""Tengen host tools: the ``tengen`` command that talks to a board over USB serial.

Start with ``cli.py`` (every command, and the package holding it). The packages, by the user
they serve: ``records`` (the games home, SGF, verification), ``live`` (tengen watch),
``hall`` (the tournament hall, its web pages in ``hall/web/``), ``play`` (engines and GTP),
``board`` (the virtual board, deploy, the image, the emulated chip), and ``common`` (the USB
link, the keys, the records in words), which every other uses. The flow is one way: ``hall``
uses ``records``, ``live`` and ``board``; ``play`` uses ``board``; ``board`` uses ``live``;
all use ``common``, and ``common`` none. The Go/Renju rules come from ``firmware.rules`` (one implementation for the
board and the PC), so the host tools never carry a copy of their own.
"""
