# MicroPython freeze manifest: the Tengen image, MicroPython for the RP2040 with the board's
# modules frozen in (the board definition hardware/micropython/boards/TENGEN_PICO uses it).
#
# Frozen modules run their bytecode from flash: as .mpy files on the filesystem the app's
# modules take 144 KB of the Pico's heap and the app never starts; frozen, they take almost
# none (../shared/research/on-chip.md). Build (not done by `make`; needs the ARM toolchain and
# a MicroPython checkout), every step in hardware/README.md, "The Tengen image":
#
#   make -C mpy-cross
#   make -C ports/rp2 BOARD_DIR=/path/to/tengen/hardware/micropython/boards/TENGEN_PICO submodules
#   make -C ports/rp2 BOARD_DIR=/path/to/tengen/hardware/micropython/boards/TENGEN_PICO
#
# with upstream's tools/mpy-tool.py fixed first (it misaligns frozen Thumb native code: the
# README says how), then `tengen image check ports/rp2/build-TENGEN_PICO/firmware.elf`, and
# only if that says good: hold BOOTSEL, plug in, copy build-TENGEN_PICO/firmware.uf2 to the
# RPI-RP2 drive. boot.py and main.py stay on the board's filesystem (`tengen deploy` copies
# them): a /firmware folder there would shadow the frozen package (sys.path is '', '.frozen',
# '/lib'), so a board running this image must have none (`tengen deploy` removes it).
#
# The list is the one `tengen deploy` builds (host_tools/deploy.py: every firmware/**/*.py
# except its EXCLUDE, the host-only modules); tests/host/test_deploy.py checks they agree.

# The port's own frozen modules (asyncio, which the app's tasks need; rp2, ...).
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821

package(  # noqa: F821
    "firmware",
    files=[
        "__init__.py",
        "app.py",
        "board.py",
        "bootlog.py",
        "clock/__init__.py",
        "clock/clock.py",
        "clock/control.py",
        "clock/cues.py",
        "clock/ticks.py",
        "device.py",
        "hal/__init__.py",
        "hal/pcf8563.py",
        "hal/pins.py",
        "hal/rp2040.py",
        "imagecheck.py",
        "link/__init__.py",
        "link/ending.py",
        "link/hmac.py",
        "link/protocol.py",
        "link/server.py",
        "match.py",
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
        "selfcheck.py",
        "sensing/__init__.py",
        "sensing/calibration.py",
        "sensing/grid.py",
        "sensing/selftest.py",
        "settings.py",
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
    ],
    base_path="..",  # relative to this file: the repository's root
)
