"""The game's life at the board: the settings it starts from, the match it plays, the app that
runs it (``firmware/game/``).

- ``match.py``: one game at the board, sensing → referee → rules → clock → journal, pure and
  driven by times. Start reading here.
- ``app.py``: the device app, its asyncio tasks (clock and paddles, scan, faces and buzzer)
  around one ``Match``; keys into the menu, the arbiter and the calibration.
- ``settings.py``: the board's settings, each checked, and the game they make.

Below it: ``rules``, ``referee``, ``sensing``, ``clock``, ``store``, ``ui``. Above it: the boot
(``firmware/boot/board.py`` wires it to the hardware) and the link.
"""
