"""The board itself: the RP2040's hardware (``firmware/hal/rp2040.py``) wired by
``firmware/boot/board.py``, with the PC link on the USB serial.

``main.py`` calls ``run()``. Nothing touches ``machine`` or ``rp2`` until ``build()`` runs,
so this module imports on the unix port too.

Before anything can call a native or viper function, ``check_image`` makes sure the image's
frozen machine code can run at all (firmware/boot/imagecheck.py): on an image built without the
alignment fix the first native call HardFaults and the viper kernels answer wrongly, so the
boot stops there instead, written to /boot.log as the ``image`` stage, with the Pico's LED
blinking (the faces' drivers are native code themselves), and the REPL left free.
"""


def check_image():
    """Raise ``imagecheck.Misaligned`` (the boot log's ``image`` stage) if the image's frozen
    native or viper code is misaligned; the LED blinks then. Calls no native function."""
    from firmware.boot import bootlog, imagecheck

    bootlog.stage("image")
    try:
        imagecheck.verify()
    except imagecheck.Misaligned:
        try:
            imagecheck.blink()
        except Exception as e:  # the log says what matters; the LED is a help
            print("tengen: no LED:", repr(e))
        raise
    bootlog.stage("start")


def build():
    """Everything the board runs, wired to its pins: ``(app, server)``."""
    check_image()
    from firmware.boot import board
    from firmware.hal import rp2040

    return board.build(rp2040.make_hardware())


def run():
    """Build the board and run its app with the PC link (firmware/link/) until the link's
    ``maintenance`` request, which returns to the REPL for mpremote."""
    import asyncio
    import sys

    app, srv = build()  # first: it checks the image before any of the app is loaded
    from firmware.link import server as link

    asyncio.run(link.run(app, srv, sys.stdin))
