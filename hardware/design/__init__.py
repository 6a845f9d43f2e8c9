"""The Tengen board's hardware design as code: the schematic (SKiDL, KiCad's libraries), its
netlists, the electrical rules check, the pin-map check against the firmware, the BOM, the
budgets and the block diagram. Host-only (CPython); ``make hardware`` runs ``build.py``."""
