"""CPython stand-in for the parts of the ``micropython`` module the firmware uses.

Only CPython imports this (see ``firmware/__init__.py``); on the board the real module is
built in. Emitter decorators leave the function as plain Python, which is the fallback path
every ``@micropython.viper`` function must keep valid.
"""


def const(value):
    """Return ``value``: on MicroPython ``const()`` folds it at compile time."""
    return value


def native(func):
    """Run ``func`` as plain Python."""
    return func


def viper(func):
    """Run ``func`` as plain Python (viper's 32-bit arithmetic must not be relied on)."""
    return func


def heap_lock():
    """No heap lock on CPython; allocation tests are meaningful on MicroPython only."""
    return 0


def heap_unlock():
    """Counterpart of ``heap_lock``."""
    return 0


def opt_level(level=None):
    """No optimisation levels on CPython."""
    return 0


def ptr(buf):
    """CPython stand-in for viper's pointer casts (``ptr8``, ``ptr16``, ``ptr32``, which the
    MicroPython compiler provides inside ``@micropython.viper`` functions): the buffer itself,
    indexed as the viper code indexes its pointer. ``firmware/__init__.py`` makes them
    builtins, so no module carries its own stand-in."""
    return buf
