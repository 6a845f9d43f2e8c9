"""The records, for whoever keeps the games: the board's games brought home (``sync.py``;
start reading there), written as SGF and .psq (``export.py``), and checked (``verify.py``,
``sgf_check.py`` for an SGF alone). Uses ``host_tools.common``.
"""
