"""The tournament hall, for its organiser, arbiters and public: the wire format (``feed.py``),
the broker (``broker.py``), the relay beside the boards (``relay.py``), the hall's server
(``server.py``; start reading at ``serve``) with its state (``state.py``), its door
(``door.py``), the games' proofs (``proof.py``), logins (``auth.py``), the register of boards
(``boards.py``), the pairings (``pairings.py``) and its pages (``web/``); the demo
(``demo.py``) with its scripted games (``scripted.py``). Uses ``host_tools.records``,
``host_tools.live``, ``host_tools.board`` (the demo's virtual boards) and ``host_tools.common``.
"""
