"""GTP (Go Text Protocol 2): Tengen's rules driven by GoGui, Sabaki or a script, on the PC.

Start reading at ``firmware/gtp/go.py`` (the engine: ``Engine.handle``). ``core.py`` holds
what both front-ends use, ``gomoku.py`` the Gomoku commands the engine loads when Gomoku is
played; ``python -m firmware.gtp`` (``__main__.py``) answers stdin until ``quit``.
"""
