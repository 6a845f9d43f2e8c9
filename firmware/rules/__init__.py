"""The games' rules: Go (``go_board.py``, ``go.py``, ``go_count.py``,
``bitboard.py``), Gomoku and Renju (``gomoku_board.py``, ``gomoku.py``, ``renju_openings.py``),
the points' names (``coords.py``).

``sgf.py``, the SGF reader, is here beside the rules whose moves it yields, below both its
users (GTP's ``loadsgf``, the virtual board's replays) and the tests; on the PC only (not frozen).
"""
