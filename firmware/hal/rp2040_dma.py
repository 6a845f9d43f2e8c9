"""DMA on the RP2040, for the scan (firmware/hal/rp2040.py) and the voice (rp2040_voice.py).

Start reading at ``dma_ctrl``: a channel's CTRL word, packed as ``rp2.DMA.pack_ctrl`` packs it
but testable off the board; ``aligned_offset`` finds a ring's start (a DMA ring sits on a
boundary of its own size); ``Parts`` the chip's own modules (the tests pass a fake chip).
Register facts: RP2040 datasheet §2.5.
"""

from micropython import const

TREQ_PERMANENT = const(0x3F)  # no pacing: a transfer as fast as the bus takes it


def dma_ctrl(
    chain_to,
    treq=TREQ_PERMANENT,
    size=2,
    inc_read=True,
    inc_write=True,
    ring_size=0,
    ring_write=False,
    irq_quiet=True,
    high_pri=False,
    enable=True,
):
    """A DMA channel's CTRL word, packed as ``rp2.DMA.pack_ctrl`` packs it (RP2040 layout:
    EN 0, HIGH_PRIORITY 1, DATA_SIZE 2-3, INCR_READ 4, INCR_WRITE 5, RING_SIZE 6-9, RING_SEL
    10, CHAIN_TO 11-14, TREQ_SEL 15-20, IRQ_QUIET 21). ``chain_to`` its own channel = none."""
    if not (0 <= size <= 2 and 0 <= ring_size <= 15 and 0 <= chain_to <= 11 and 0 <= treq <= 63):
        raise ValueError("DMA ctrl field")
    word = size << 2 | ring_size << 6 | chain_to << 11 | treq << 15
    if enable:
        word |= 1
    if high_pri:
        word |= 2
    if inc_read:
        word |= 0x10
    if inc_write:
        word |= 0x20
    if ring_write:
        word |= 0x400
    if irq_quiet:
        word |= 0x200000
    return word


def aligned_offset(address, align, itemsize):
    """Items to skip from ``address`` to reach the next ``align``-byte boundary."""
    return ((align - address % align) % align) // itemsize


class Parts:
    """The board's own modules for ``DmaScanner`` (the tests pass a fake chip instead)."""

    def __init__(self):
        import machine
        import rp2
        import uctypes

        self.machine = machine
        self.rp2 = rp2
        self.uctypes = uctypes
