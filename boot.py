"""Runs first at power-up, before main.py. Kept minimal so that the board always reaches main.py
and the REPL: a failure here is kept in ``builtins.BOOT_ERROR`` for main.py to report (printed,
and written to /boot.log as the ``boot.py`` stage: firmware/boot/bootlog.py). Read it as the bare
name ``BOOT_ERROR``: MicroPython resolves names added to builtins, but does not show them as
attributes of the ``builtins`` module.
"""

import builtins

builtins.BOOT_ERROR = None
try:
    import micropython

    # Lets an exception raised in an interrupt handler (the clock paddles' hard IRQ) be
    # reported instead of lost. The unix port has no such call, hence the check.
    if hasattr(micropython, "alloc_emergency_exception_buf"):
        micropython.alloc_emergency_exception_buf(100)
except Exception as e:
    builtins.BOOT_ERROR = e
