"""Runs after boot.py. Holding BOOTSEL at power-up is safe mode: the app is skipped and the REPL
stays free for mpremote. The app itself arrives with a later issue.
"""

import sys


def _safe_mode():
    try:
        import rp2
    except ImportError:  # unix port: no BOOTSEL button
        return False
    return bool(rp2.bootsel_button())


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
        print("tengen: safe mode (BOOTSEL held), app not started")
    else:
        print("tengen: no app yet; it arrives with a later issue")
except Exception as e:
    # Once the app exists, the game is saved here before anything else.
    print("tengen: fatal:", repr(e))
    sys.print_exception(e)
