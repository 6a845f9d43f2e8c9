"""Runs after boot.py: the board's app (firmware/boot/device.py). Holding the PAUSE key while the board
powers up (or pressing BOOTSEL just after: held during power-up it starts the RP2040's ROM
bootloader instead) is safe mode: the app is skipped and the REPL stays free for mpremote.

Whatever stops the boot (boot.py's error, loading the firmware, an image whose frozen machine
code is misaligned, the self-checks, building the board, the app itself; a MemoryError too)
is printed, written to ``/boot.log`` and shown on the faces once they exist
(firmware/boot/bootlog.py), and main.py returns: the REPL stays reachable. The next boot that
starts the app reports it in the link's ``hello``.
"""

import sys


def _safe_mode():
    # The board's PAUSE key held at power-up, or BOOTSEL pressed as main.py starts.
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


def _bootlog(out):
    # The boot log's module, or None when even it cannot be loaded (then printing is all).
    try:
        from firmware.boot import bootlog

        return bootlog
    except Exception as e:
        out("tengen: no boot log: " + repr(e))
        return None


def _run_board():
    if sys.implementation.name == "micropython" and sys.platform == "rp2":
        from firmware.boot import device

        device.run()
    else:  # the unix port: the board is simulated (make sim)
        print("tengen: not a board; run `make sim` for the simulated one")


def main(run=_run_board, out=print):
    """Start the board (``run``: the tests give their own); report what stops it, a line at a
    time through ``out`` (the REPL's console; the tests keep the lines to check them).
    Returns."""
    log = None
    try:
        log = _bootlog(out)
        err = _boot_error()
        if err is not None:
            out("tengen: boot.py failed: " + repr(err))
            if log is not None:
                log.fail(err, "boot.py")
        if _safe_mode():
            out("tengen: safe mode (BOOTSEL or PAUSE held), app not started")
        else:
            if log is not None:
                log.stage("start")
            run()
    except Exception as e:
        # Every committed move is already on flash (the journal writes each one durably before
        # the press returns), so the game is saved; report, and leave the REPL to mpremote.
        import gc

        gc.collect()  # a MemoryError: what the failed step held is garbage now
        try:
            out("tengen: fatal: " + repr(e))
            if log is not None:
                log.fail(e)  # nothing if board.build wrote it already
                out(log.trace(e).rstrip("\n"))
        except Exception:  # out of memory even now: the REPL all the same
            pass


if __name__ == "__main__":
    main()
