"""The board on a PC, the MicroPython unix port or CPython (``firmware/virtual/``): not frozen.

``board.py`` is the one virtual board: ``firmware/boot/board.py``'s ``build`` on the virtual
hardware (``firmware/hal/virtual.py``, its simulated Hall grid ``firmware/hal/virtual_grid.py``).
In real time it is what ``make sim`` runs, its link on a pty; in simulated time (the script
moves the board's clock) it plays the scripted replays, the demo, the benches and the tests'
rigs. Start reading at ``board.py``.
"""
