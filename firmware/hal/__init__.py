"""The hardware seam: what the rest of the firmware asks of the board, and nothing else.

- ``pins.py``: GPIO numbers, generated from hardware/pinmap.csv (the single source).
- ``rp2040.py``: the board's drivers. ``DmaScanner`` (PIO + DMA background scan) and
  ``PolledScanner`` (the fallback), built by ``make_scanner()``.
- ``sim.py``: the simulated Hall grid for the unix port and the tests.

A scanner fills a raw frame: ``array('H')`` of ``n * n`` 12-bit ADC counts (0-4095), index
``y * n + x`` (y = 0 the bottom row, x = 0 the left column); an empty point reads about the
sensor's mid-supply baseline (~2048), a black stone (North pole down) below it, a white one
(South pole down) above. Every scanner has ``n`` and ``scan(frame)`` (fill one frame now,
blocking); the board's scanners add ``poll(frame)`` (READY when the frame is in, else the
ms to sleep before asking again: the scan task waits without a task or a coroutine per
frame), ``async scan_async(frame)`` built on it, and ``close()``.

Importing this package or ``pins`` touches no hardware; ``rp2040`` imports ``rp2`` and
``machine`` only when a driver is constructed.
"""
