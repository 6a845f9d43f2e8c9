"""Runs after boot.py: the board's app (firmware/device.py). Holding BOOTSEL or the PAUSE key
at power-up is safe mode: the app is skipped and the REPL stays free for mpremote.
"""

import sys


def _safe_mode():
    # BOOTSEL held, or the board's PAUSE key held, at power-up.
    try:
        import rp2
    except ImportError:  # unix port: no BOOTSEL button
        return False
    if rp2.bootsel_button():
        return True
    from machine import Pin

    from firmware.hal import pins

    return Pin(pins.BTN_PAUSE, Pin.IN, Pin.PULL_UP).value() == 0


def _boot_error():
    # boot.py stores it in builtins; MicroPython shows such names to lookup, not as attributes.
    try:
        return BOOT_ERROR  # noqa: F821
    except NameError:  # boot.py did not run (unix port, tests)
        return None


try:
    if _boot_error() is not None:
        print("tengen: boot.py failed:", repr(_boot_error()))
    if _safe_mode():
        print("tengen: safe mode (BOOTSEL or PAUSE held), app not started")
    elif sys.implementation.name == "micropython" and sys.platform == "rp2":
        from firmware import device

        device.run()
    else:  # the unix port: the board is simulated (make sim)
        print("tengen: not a board; run `make sim` for the simulated one")
except Exception as e:
    # Every committed move is already on flash (the journal writes each one durably before
    # the press returns), so the game is saved; report, and leave the REPL to mpremote.
    print("tengen: fatal:", repr(e))
    sys.print_exception(e)
