"""The board on a PC, the MicroPython unix port or CPython (``firmware/virtual/``): not frozen.

- ``board.py``: the virtual board ``make sim`` runs: ``firmware/boot/board.py``'s ``build`` on
  the virtual hardware (``firmware/hal/virtual.py``), the link on a pty, in real time.
- ``simulator.py``: the older simulator: the app on the simulated grid
  (``firmware/hal/sim.py``) in simulated time, for scripted replays, the benches and the
  tests' rigs.

Two of them for now; one virtual board is to take both uses (issue 28).
"""
