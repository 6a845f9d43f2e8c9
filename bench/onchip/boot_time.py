"""Chip driver: the boot, from power-up to the first faces (sent as ``main.py``).

``bench/chip.py`` writes this, after ``prelude.py``, as the chip's ``main.py`` and resets the
chip: what the project's ``main.py`` does on a board (``device.build()``: the HAL, the
self-checks, the journal's index, the app, the link; then the faces' first pass) is timed,
and ``ticks_ms()`` at the first faces is the time since power-up (the boot ROM, MicroPython,
the filesystem's mount, compiling this script included). The lines go to
``/bench/boot.txt`` (nobody reads the USB port while it runs). Emitted: ``boot_import``,
``boot_build`` (``device.build()``), ``boot_face`` (the first ``_show``), ``boot_power``
(power-up to the first faces, ms on the chip), ``boot_heap`` (free bytes after build).

On the unix port there is no RP2040 HAL: the same steps run on ``firmware/hal/virtual.py``'s
board (made before the timing, its flash the mounted image), which differs in its drivers:
the estimate is of the rest (self-checks, journal, app, link).
"""

from bench.onchip.prelude import ON_CHIP, ROOT, calibrate, emit, gc, ticks_diff, ticks_us

_out = []


def note(key, value):
    _out.append("= %s %s %s\n" % (key, value, value))


def main():
    import time

    hw = None
    if not ON_CHIP:
        from firmware.hal import virtual

        hw = virtual.Hardware(ROOT)
    t0 = ticks_us()
    if ON_CHIP:
        from firmware.boot import device
    else:
        from firmware.boot import board
    t1 = ticks_us()
    app, srv = device.build() if ON_CHIP else board.build(hw)
    t2 = ticks_us()
    app._show(app.now())
    t3 = ticks_us()
    power = time.ticks_ms()
    gc.collect()
    note("boot_import", ticks_diff(t1, t0))
    note("boot_build", ticks_diff(t2, t1))
    note("boot_face", ticks_diff(t3, t2))
    note("boot_heap", gc.mem_free())
    if ON_CHIP:
        note("boot_power", power * 1000)
    with open(ROOT + "/bench/boot.txt", "w") as f:
        for line in _out:
            f.write(line)
    for line in _out:
        print(line, end="")
    calibrate()
    emit("boot_done", 0, 0)


main()
