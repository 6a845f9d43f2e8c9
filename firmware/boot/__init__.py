"""The board's start, from main.py to a running app (``firmware/boot/``).

- ``device.py``: the entry main.py calls on the RP2040. Start reading here.
- ``imagecheck.py``: before anything else, whether the image's frozen machine code can run.
- ``selfcheck.py``: the known-answer self-checks of the kernels the game relies on.
- ``board.py``: ``build``, the board wired from its parts (the app, keys, faces, buzzer,
  sensing, journal, link), the same on the device and the virtual board.
- ``bootlog.py``: whatever stops the boot, printed, written to /boot.log and shown.
"""
