"""Seeing the stones: raw Hall frames → per-point states (SPEC §4, DESIGN §1).

- ``grid.py``: ``Sensing``, the per-frame path (thresholds with hysteresis, debounce, drift
  tracking); start there. Zero allocation per frame.
- ``calibration.py``: the calibration procedure (empty board, two checkerboard passes), the
  per-point validation, the versioned JSON file.
- ``selftest.py``: names the faulty points (dead, stuck, noisy, wrong sign) from a series of
  frames.

Pure logic: the frames come in as arrays, nothing here touches the hardware.
"""
