# MicroPython board definition: Tengen, the electronic Go/Renju board's reference design (a
# Raspberry Pi Pico, RP2040, 2 MiB flash) with the board's app frozen into the image.
# `make chip` builds it (host_tools/board/chip.py; hardware/README.md, "The Tengen image") from
# MicroPython v1.28.0 with the project's mpy-tool.py patch, as
#   make -C ports/rp2 BOARD_DIR=/path/to/tengen/hardware/micropython/boards/TENGEN_PICO
# and lets the image through only if `tengen image check` passes it.
set(PICO_BOARD "pico")
set(PICO_PLATFORM "rp2040")

# The modules frozen in: hardware/manifest.py, three folders up from this one (it includes
# the port's own manifest, then the firmware package). A copy of this folder elsewhere (in
# ports/rp2/boards/) is given the manifest on the command line: FROZEN_MANIFEST=..., which
# MicroPython's CMakeLists prefers to this setting anyway.
get_filename_component(TENGEN_HARDWARE_DIR ${MICROPY_BOARD_DIR}/../../.. ABSOLUTE)
if(EXISTS ${TENGEN_HARDWARE_DIR}/manifest.py AND EXISTS ${TENGEN_HARDWARE_DIR}/pinmap.csv)
    set(MICROPY_FROZEN_MANIFEST ${TENGEN_HARDWARE_DIR}/manifest.py)
elseif(NOT MICROPY_USER_FROZEN_MANIFEST)
    message(FATAL_ERROR
        "TENGEN_PICO: hardware/manifest.py is not three folders above ${MICROPY_BOARD_DIR}: "
        "build with BOARD_DIR=<tengen>/hardware/micropython/boards/TENGEN_PICO, or give "
        "FROZEN_MANIFEST=<tengen>/hardware/manifest.py")
endif()

# What the image leaves out of the port to keep within its flash budget: mpconfigtrim.h, the
# build's configuration file (py/mpconfig.h includes it; it includes the port's own).
list(APPEND MICROPY_DEF_BOARD
    MP_CONFIGFILE=\"mpconfigtrim.h\"
)

# The frozen modules' integer constants as the image holds long ints: 64-bit (mpconfigtrim.h).
set(MICROPY_MPY_TOOL_FLAGS -mlongint-impl=longlong)
