"""What the players see, hear and press: the two faces, the buzzer, the keys, the menus and
the arbiter mode (DESIGN §1, ``firmware/ui/``).

- ``face.py``: one face interface, ``show(face)`` of the clock's ``Face`` model and
  ``show_text(line)`` for menus, with two drivers: ``HT1621Face`` (the reference design's
  reflective segment LCD, bit-banged) and ``SSD1306Face`` (the OLED alternative).
- ``buzzer.py``: a non-blocking sequencer of the clock's cue patterns on a PWM pin.
- ``buttons.py``: the four keys polled as a bitmask: debounce, long press, repeat, chords.
- ``menus.py``: the settings and their menu, driven by key events.
- ``arbiter.py``: the arbiter mode (a chord and a PIN), which hands the app action tuples.
- ``say.py``: the words for the referee's incidents, the count and the results.
- ``texts.py``: every text the faces can show, in one table, and how a player reads it.

Everything here is pure logic over injected time (ticks of ``firmware/clock/ticks.py``) and
injected hardware objects (pins, a PWM, a frame buffer), so the tests run it with fakes and
nothing touches hardware at import time. The app (``firmware/game/app.py``) executes and journals
what these modules decide.
"""
