# MicroPython freeze manifest: the Tengen image, MicroPython for the RP2040 with the board's
# modules frozen in (the board definition hardware/micropython/boards/TENGEN_PICO uses it).
#
# Frozen modules run their bytecode from flash: as .mpy files on the filesystem the app's
# modules take 144 KB of the Pico's heap and the app never starts; frozen, they take almost
# none (../shared/research/on-chip.md). `make chip` builds the image (host_tools/board/chip.py;
# hardware/README.md, "The Tengen image"): MicroPython v1.28.0 from the offline kit or a
# checkout (MICROPY_DIR), upstream's tools/mpy-tool.py patched first
# (hardware/micropython/mpy-tool-armv6m-align.patch: it misaligns frozen Thumb native code),
# then `make -C ports/rp2 BOARD_DIR=<this repository>/hardware/micropython/boards/TENGEN_PICO`,
# and the image goes to build/chip/tengen/ only if `tengen image check` passes it. boot.py and
# main.py stay on the board's filesystem (`tengen deploy` copies them): a /firmware folder
# there would shadow the frozen package (sys.path is '', '.frozen', '/lib'), so a board
# running this image must have none (`tengen deploy` removes it).
#
# The list is the one `tengen deploy` builds (host_tools/board/deploy.py: every firmware/**/*.py
# except its EXCLUDE, the host-only modules); tests/host/board/test_deploy.py checks they agree.

# Of the port's own modules (ports/rp2/boards/manifest.py freezes more) only what the board
# runs: _boot.py mounts the filesystem, rp2.py has asm_pio (the scan's PIO program). Not the
# drivers for OneWire, DS18x20, DHT and NeoPixel, nor _boot_fat.py: flash for the budget
# (hardware/README.md, "The flash budget").
freeze("$(PORT_DIR)/modules", ("_boot.py", "rp2.py"))  # noqa: F821

# asyncio, as upstream freezes it (opt=3) but for what the firmware never uses: Event, Lock and
# the streams (event.py, lock.py, stream.py) are left out; asyncio's lazy loader would raise
# ImportError for them.
package(  # noqa: F821
    "asyncio", ("__init__.py", "core.py", "funcs.py"), base_path="$(MPY_DIR)/extmod", opt=3
)

# The firmware at opt=3, as asyncio: no line-number tables in its bytecode (10 KiB of the flash
# budget; a traceback names the function, not the line; hardware/README.md, "The flash budget").
package(  # noqa: F821
    "firmware",
    files=[
        "__init__.py",
        "boot/__init__.py",
        "boot/board.py",
        "boot/bootlog.py",
        "boot/device.py",
        "boot/imagecheck.py",
        "boot/selfcheck.py",
        "clock/__init__.py",
        "clock/checkpoint.py",
        "clock/clock.py",
        "clock/control.py",
        "clock/cues.py",
        "clock/ticks.py",
        "game/__init__.py",
        "game/app.py",
        "game/match.py",
        "game/settings.py",
        "hal/__init__.py",
        "hal/pcf8563.py",
        "hal/pins.py",
        "hal/rp2040.py",
        "hal/rp2040_dma.py",
        "hal/rp2040_voice.py",
        "link/__init__.py",
        "link/ending.py",
        "link/hmac.py",
        "link/protocol.py",
        "link/server.py",
        "referee/__init__.py",
        "referee/incidents.py",
        "referee/referee.py",
        "rules/__init__.py",
        "rules/bitboard.py",
        "rules/coords.py",
        "rules/go.py",
        "rules/go_board.py",
        "rules/go_count.py",
        "rules/gomoku.py",
        "rules/gomoku_board.py",
        "rules/renju_openings.py",
        "sensing/__init__.py",
        "sensing/calibration.py",
        "sensing/grid.py",
        "sensing/selftest.py",
        "store/__init__.py",
        "store/blockdev.py",
        "store/index.py",
        "store/journal.py",
        "store/live.py",
        "store/records.py",
        "ui/__init__.py",
        "ui/arbiter.py",
        "ui/buttons.py",
        "ui/buzzer.py",
        "ui/calibrate.py",
        "ui/face.py",
        "ui/menus.py",
        "ui/say.py",
        "ui/texts.py",
        "ui/voice.py",
    ],
    base_path="..",  # relative to this file: the repository's root
    opt=3,
)
