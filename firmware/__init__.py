"""Tengen firmware: what runs on the board (MicroPython), importable by CPython for tests and tools.

On CPython there is no ``micropython`` module, so the package installs a small stand-in
(``firmware/_mpshim.py``) before any firmware module asks for ``const`` or ``viper``, and the
stand-ins of viper's pointer casts (``ptr8``, ``ptr16``, ``ptr32``) as builtins: inside a viper
function MicroPython's compiler provides them; under CPython the same function runs as plain
Python and finds them there.
"""

import sys

if sys.implementation.name != "micropython":
    from firmware import _mpshim

    sys.modules.setdefault("micropython", _mpshim)
    import builtins

    for _name in ("ptr8", "ptr16", "ptr32"):
        if not hasattr(builtins, _name):
            setattr(builtins, _name, _mpshim.ptr)
