"""The board itself, for whoever builds, flashes and runs it: the virtual board (``sim.py``;
start reading at ``Board``; ``sound.py`` its phrases on the PC's player), the firmware put on a board (``deploy.py``), the Tengen image
built (``chip.py``) and checked (``image.py``), the emulated RP2040 (``emulator.py`` with its
models ``emulator_board.js``, ``emulator_glass.js``, ``emulator_speaker.js``, and
``chip_speaker.py``) and the chip's budgets (``budgets.py``). Uses ``host_tools.live`` (the
virtual board's view) and ``host_tools.common``.
"""
