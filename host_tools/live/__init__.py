"""The live view, for whoever watches the game at the board: ``tengen watch`` (``watch.py``;
start reading at ``View``). Uses ``host_tools.common``.
"""
