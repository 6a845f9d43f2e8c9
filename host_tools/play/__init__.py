"""Play, for the player at the board and their engines: the board as one side of a game the PC
drives (``board_player.py``; start reading at ``BoardPlayer``), the board as a GTP engine
(``gtp_board.py``), an engine against the board (``play.py``) and the engines' clients
(``engines.py``). Uses ``host_tools.common``, and ``host_tools.board``'s ``board_root``
(where the firmware is, for ``tengen gtp --micropython``).
"""
