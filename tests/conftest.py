"""pytest setup: the repository root goes on sys.path so tests import ``firmware`` and
``tests.support`` exactly as tests/mp_run.py arranges it on MicroPython."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Importing the firmware package installs its CPython stand-in for the ``micropython`` module,
# so test files may ``import micropython`` (heap_lock, const) as they do on the board.
import firmware  # noqa: E402, F401
