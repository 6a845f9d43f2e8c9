"""pytest setup: the repository root goes on sys.path so tests import ``firmware`` and
``tests.support`` exactly as tests/mp_run.py arranges it on MicroPython."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
