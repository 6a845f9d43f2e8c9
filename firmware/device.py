"""The board itself: the RP2040's hardware (``firmware/hal/rp2040.py``) wired by
``firmware/board.py``, with the PC link on the USB serial.

``main.py`` calls ``run()``. Nothing touches ``machine`` or ``rp2`` until ``build()`` runs,
so this module imports on the unix port too.
"""


def build():
    """Everything the board runs, wired to its pins: ``(app, server)``."""
    from firmware import board
    from firmware.hal import rp2040

    return board.build(rp2040.make_hardware())


def run():
    """Build the board and run its app with the PC link (firmware/link/) until the link's
    ``maintenance`` request, which returns to the REPL for mpremote."""
    import asyncio
    import sys

    from firmware.link import server as link

    app, srv = build()
    asyncio.run(link.run(app, srv, sys.stdin))
