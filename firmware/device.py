"""The board itself: its pins made into drivers, the saved settings and calibration, the app.

``main.py`` calls ``run()``. Nothing touches ``machine`` or ``rp2`` until ``build()`` runs,
so this module imports on the unix port too (tests check the parts that need no hardware).
Pins come from ``firmware/hal/pins.py`` (generated from hardware/pinmap.csv).
"""

from firmware.clock import ticks

SETTINGS = "/settings.json"
CALIBRATION = "/calibration.json"
DEFAULTS = {"game": "go", "size": 19, "time": "cn-national", "volume": 2, "pin": "0000"}


def load_settings(read):
    """The saved settings over the defaults; ``read(path)`` gives bytes or None."""
    import json

    out = dict(DEFAULTS)
    data = read(SETTINGS)
    if data:
        try:
            saved = json.loads(data)
            if isinstance(saved, dict):
                out.update(saved)
        except ValueError:
            pass  # a damaged file: the defaults, and the menu will write a good one
    return out


def paddle_handler(hit, side, ticks_ms):
    """A hard-IRQ handler for one paddle: stamps the tick into the app's ring, allocating
    nothing (``hit`` is the ring's bound method, taken once here, not in the interrupt)."""

    def handler(pin):
        hit(side, ticks_ms())

    return handler


def key_reader(pins):
    """A function giving the soft keys' levels as firmware/ui/buttons.py's bits:
    ``pins`` is ``[(Pin, bit), ...]``, active low (pulled up, the key shorts to ground)."""
    n = len(pins)

    def levels():
        v = 0
        i = 0
        while i < n:
            pin, bit = pins[i]
            if not pin.value():
                v |= bit
            i += 1
        return v

    return levels


def build():
    """Everything the board runs, wired to its pins; the App."""
    import json
    import time

    from machine import PWM, Pin

    from firmware.app import App
    from firmware.hal import pins, rp2040
    from firmware.match import Match
    from firmware.sensing import calibration
    from firmware.sensing.grid import Sensing
    from firmware.store.journal import Journal, read_file, write_atomic
    from firmware.ui import buttons as btn
    from firmware.ui.arbiter import Arbiter
    from firmware.ui.buzzer import Buzzer
    from firmware.ui.face import HT1621Face

    settings = load_settings(read_file)
    scanner = rp2040.make_scanner()
    try:
        cal = calibration.load(CALIBRATION, scanner.n)
    except (OSError, calibration.CalibrationError):
        cal = calibration.Calibration.nominal(scanner.n)  # uncalibrated: the faces say so
        settings["uncalibrated"] = True
    journal = Journal("/games")
    match = Match(settings, Sensing(scanner.n, cal), journal)
    resumed = journal.resume()
    if resumed is not None:
        match.restore(resumed)  # paused: the players restart the clock
    wr = Pin(pins.LCD_WR, Pin.OUT)
    data = Pin(pins.LCD_DATA, Pin.OUT)
    faces = (
        HT1621Face(Pin(pins.LCD_CS_L, Pin.OUT, value=1), wr, data),
        HT1621Face(Pin(pins.LCD_CS_R, Pin.OUT, value=1), wr, data),
    )
    for f in faces:
        f.start()
    buzzer = Buzzer(PWM(Pin(pins.BUZZER)), volume=settings.get("volume", 2))
    keys = key_reader(
        [
            (Pin(pins.BTN_PAUSE, Pin.IN, Pin.PULL_UP), btn.PAUSE),
            (Pin(pins.BTN_MODE, Pin.IN, Pin.PULL_UP), btn.MODE),
            (Pin(pins.BTN_PLUS, Pin.IN, Pin.PULL_UP), btn.PLUS),
            (Pin(pins.BTN_MINUS, Pin.IN, Pin.PULL_UP), btn.MINUS),
        ]
    )
    app = App(
        scanner,
        match,
        faces,
        buzzer,
        journal,
        now=ticks.now_ms,
        keys=keys,
        arbiter=Arbiter(settings.get("pin", "0000")),
        save=lambda chosen: write_atomic(SETTINGS, json.dumps(chosen).encode()),
    )
    app.save_calibration = lambda cal: write_atomic(
        CALIBRATION, json.dumps(cal.to_dict()).encode()
    )
    # 002 第八条4: the clock stands at Black's right, so Black presses the right paddle.
    hit = app.paddles.hit
    black = Pin(pins.PADDLE_R, Pin.IN, Pin.PULL_UP)
    white = Pin(pins.PADDLE_L, Pin.IN, Pin.PULL_UP)
    black.irq(paddle_handler(hit, 1, time.ticks_ms), Pin.IRQ_FALLING, hard=True)
    white.irq(paddle_handler(hit, 2, time.ticks_ms), Pin.IRQ_FALLING, hard=True)
    return app


def run():
    """Build the board and run its app with the PC link (firmware/link/) until the link's
    ``maintenance`` request, which returns to the REPL for mpremote."""
    import asyncio
    import json
    import sys

    from firmware.link import server as link
    from firmware.store.journal import write_atomic

    app = build()
    srv = link.Server(
        app,
        app.journal,
        link.load_secret(),
        out=getattr(sys.stdout, "buffer", sys.stdout).write,
        board=link.board_id(),
        settings=app.match.settings,
        save=lambda s: write_atomic(SETTINGS, json.dumps(s).encode()),
        set_rtc=link.rtc_setter(),
    )
    asyncio.run(link.run(app, srv))
