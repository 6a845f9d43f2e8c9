# MicroPython freeze manifest: a custom RP2040 firmware image with the Tengen modules frozen.
#
# Frozen modules run their bytecode from flash: the board's modules are ~140 KB as .mpy, too
# much to load into the RP2040's heap; frozen, they take almost no RAM. Build (not done by
# `make`; needs the ARM toolchain and a MicroPython checkout of the version the board runs):
#
#   make -C ports/rp2 submodules
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/tengen/hardware/manifest.py
#
# then hold BOOTSEL, plug in, and copy ports/rp2/build-RPI_PICO/firmware.uf2 to the RPI-RP2
# drive. boot.py and main.py stay on the board's filesystem (`tengen deploy` copies them): a
# /firmware folder there would shadow the frozen package (sys.path is '', '.frozen', '/lib'),
# so a board running this image must have none (`tengen deploy` removes it before copying).
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
        "clock/__init__.py",
        "clock/clock.py",
        "clock/control.py",
        "clock/cues.py",
        "clock/ticks.py",
        "device.py",
        "hal/__init__.py",
        "hal/pins.py",
        "hal/rp2040.py",
        "link/__init__.py",
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
        "sensing/__init__.py",
        "sensing/calibration.py",
        "sensing/grid.py",
        "sensing/selftest.py",
        "settings.py",
        "store/__init__.py",
        "store/blockdev.py",
        "store/journal.py",
        "store/records.py",
        "ui/__init__.py",
        "ui/arbiter.py",
        "ui/buttons.py",
        "ui/buzzer.py",
        "ui/calibrate.py",
        "ui/face.py",
        "ui/menus.py",
        "ui/say.py",
    ],
    base_path="..",  # relative to this file: the repository's root
)
