"""The board's wiring: the app, its files and its PC link, built from a HAL's hardware.

One function, ``build(hw)``, makes everything the board runs; the device (``device.py``, the
RP2040's pins) and the virtual board (``firmware/virtual/board.py``, a simulated grid with its flash in a
folder) call it with their own ``hw``, so they are wired the same way and only the HAL
differs (DESIGN.md §1). ``hw`` provides:

    root            where the flash's files live: "" on the board, a folder on the PC
    scanner         the Hall grid (``scan(frame)``, ``n``; on the board ``scan_async`` too)
    faces           the two faces (``show(Face)``, ``show_text(line, small, flags)``):
                    Black's, then White's
    buzzer          ``play(pattern, now)``, ``step(now)``, ``set_volume(v)``
    speaker         optional: the voice's playback (``App``'s ``speaker``: ``play(voice, cue,
                    now)``, ``step(now)``, ``stop()``, ``set_volume(v)``), or None: the
                    virtual HAL's records; the RP2040's is None until its PWM + DMA driver
                    exists (the count is beeped there)
    keys            a function giving the soft keys' levels (firmware/ui/buttons.py bits)
    now             the tick in ms
    board_id        the board's id (a string)
    attach_paddles  ``attach_paddles(hit)``: the paddles call ``hit(side, tick)`` when pressed
    set_rtc         ``set_rtc(epoch)`` for the calendar clock, or None
    read_rtc        optional: ``read_rtc()``, the calendar seconds a battery-backed RTC
                    kept while the power was off (the PCF8563), or None; never raises
    rtc_raw         optional: ``rtc_raw(buf)``, its 7 time registers into ``buf`` without
                    allocating, False if it does not answer (the clock's checkpoint)
    link_out        writes one reply line (bytes) to the PC

Files under ``root``: ``settings.json`` (the board's settings, firmware/game/settings.py),
``voice/zh.bin`` and ``voice/en.bin`` (the count's phrases, firmware/ui/voice.py: the
``voice`` setting's is opened once here; missing or bad, a ``note`` in the boot log and the
beeps), ``calibration.json``, ``secret.bin`` (the key of the records' HMAC), ``paired`` (the link
signs its commands), ``pinfails`` (wrong PINs), ``games/`` (the journal), ``clock.ck`` (the
running clock's checkpoint: firmware/clock/checkpoint.py; a game resumed after a cut takes its
running turn from there and says how long the power was off) and ``boot.log``
(firmware/boot/bootlog.py). Whatever these files hold, ``build``
returns a working board: bad settings fall back to their defaults and the faces say so, a
bad calibration to the nominal one.

Before anything else ``build`` runs the known-answer self-checks of the kernels
(firmware/boot/selfcheck.py). If one fails, or anything raises while the board is wired (a
``MemoryError`` too), the error goes to the boot log and onto both faces (``CHECK SEN``,
``BOOT MEM``, ``BOOT ERR``) and is raised again: the app does not start, and main.py returns
to the REPL. On a boot that works, the server's ``boot_error`` is the error the previous boot
stopped with, or None: the link's ``hello`` reports it.
"""

SETTINGS = "/settings.json"
CALIBRATION = "/calibration.json"
SECRET = "/secret.bin"
PIN_FAILS = "/pinfails"  # wrong PINs on the link, kept across power cycles (link/server.py)
PAIRED = "/paired"  # written at the first pairing: the link wants signed commands since
GAMES = "/games"
CHECKPOINT = "/clock.ck"
BOOT_LOG = "/boot.log"
VOICE = "/voice/"


def build(hw):
    """The app and its link server for the hardware ``hw``: ``(app, server)``. Raises what
    stopped it, written to the boot log and shown on the faces first (see the header)."""
    import gc

    from firmware.boot import bootlog

    bootlog.attach(hw.root + BOOT_LOG, getattr(hw, "faces", None))
    try:
        bootlog.stage("selfcheck")
        from firmware.boot import selfcheck

        selfcheck.verify()
        gc.collect()  # the checks' objects: the heap is the app's now
        bootlog.stage("build")
        app, server = _wire(hw)
    except Exception as e:
        bootlog.fail(e)
        raise
    server.boot_error = bootlog.started()
    app.voice_setup()  # after ``started``: its note (no voice file) is no boot error
    server.heap_built = server.heap_free()  # the link's hello reports it
    return app, server


def _wire(hw):
    # The app and the server; what it made is garbage if it raises (build's handler runs
    # after this frame is gone, so a MemoryError's report has the heap back).
    import json

    from firmware.clock.checkpoint import Checkpoint
    from firmware.game import settings as S
    from firmware.game.app import App
    from firmware.game.match import Match
    from firmware.link import server as link
    from firmware.sensing import calibration
    from firmware.sensing.grid import board_sensing
    from firmware.store.journal import Journal, read_file, write_atomic
    from firmware.ui.arbiter import Arbiter

    root = hw.root
    settings, problems = S.load(read_file(root + SETTINGS))
    n = hw.scanner.n
    uncalibrated = False
    try:
        cal = calibration.load(root + CALIBRATION, n)
    except (OSError, calibration.CalibrationError):
        cal = calibration.Calibration.nominal(n)  # uncalibrated: the faces say so
        uncalibrated = True
    sensing = board_sensing(n, cal)  # debounced by time: the same delay at any frame rate
    journal = Journal(root + GAMES)
    resumed = journal.resume()
    if resumed is not None:  # the game the power cut interrupted, with its own settings
        match = Match.resume(resumed, sensing, journal)
    else:
        match = Match(settings, sensing, journal)

    def save(chosen):
        return write_atomic(root + SETTINGS, json.dumps(chosen).encode())

    app = App(
        hw.scanner,
        match,
        hw.faces,
        hw.buzzer,
        journal,
        now=hw.now,
        keys=hw.keys,
        arbiter=Arbiter(settings["pin"]),
        save=save,
        settings=settings,
        board_id=hw.board_id,
        speaker=getattr(hw, "speaker", None),
    )
    app.voice_dir = root + VOICE
    app.save_calibration = lambda c: write_atomic(
        root + CALIBRATION, json.dumps(c.to_dict()).encode()
    )
    if problems:
        app.problem("settings", problems)
    if uncalibrated:
        app.problem("calibration", ["the board is not calibrated: PLUS+MINUS before a game"])
    app.checkpoint = Checkpoint(root + CHECKPOINT, getattr(hw, "rtc_raw", None))
    hw.attach_paddles(app.paddles.hit)
    server = link.Server(
        app,
        journal,
        link.load_secret(root + SECRET),
        out=hw.link_out,
        now=hw.now,
        board=hw.board_id,
        settings=settings,
        save=save,
        set_rtc=hw.set_rtc,
        pin_file=root + PIN_FAILS,
        paired_file=root + PAIRED,
    )
    app.server = server  # the calendar time the PC set, for the records' start time
    secs = _calendar_from_rtc(hw, server)
    if resumed is not None:  # the power was off: for how long, and the running turn back
        from firmware.clock.checkpoint import power_back

        try:
            power_back(app, secs, settings["off_charged"], hw.now())
        except Exception as e:  # the game still resumes (from its last press): never a dead boot
            app.errors.append(("checkpoint", repr(e)))
    return app, server


def _calendar_from_rtc(hw, server):
    # After a power cycle the calendar comes from the RTC chip, with no PC: the server's
    # calendar() and the records' start time run from it until the PC sets the time again.
    # Nothing the chip does may stop the boot. The seconds read, or None.
    read = getattr(hw, "read_rtc", None)
    if read is None:
        return None
    try:
        secs = read()
    except Exception:
        secs = None
    if secs is not None:
        server.epoch = (secs, hw.now())
    return secs
