"""Storage on the board's LittleFS: the games journal, and settings files written safely.

``journal.py`` keeps the game in progress power-cut safe and the finished games packed until the
PC has them; ``records.py`` holds the byte formats and the size budget; ``blockdev.py`` a RAM
block device for the virtual board and the power-cut tests. ``write_atomic``/``read_file`` are for
settings and calibration files.
"""

from firmware.store.journal import (
    E_FULL,
    E_IO,
    E_NO_GAME,
    ERRORS,
    OK,
    Journal,
    read_file,
    write_atomic,
)

__all__ = ["E_FULL", "E_IO", "E_NO_GAME", "ERRORS", "OK", "Journal", "read_file", "write_atomic"]
