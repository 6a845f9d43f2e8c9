"""Tengen firmware: what runs on the board (MicroPython), importable by CPython for tests and tools.

On CPython there is no ``micropython`` module, so the package installs a small stand-in
(``firmware/_mpshim.py``) before any firmware module asks for ``const`` or ``viper``.
"""

import sys

if sys.implementation.name != "micropython":
    from firmware import _mpshim

    sys.modules.setdefault("micropython", _mpshim)
