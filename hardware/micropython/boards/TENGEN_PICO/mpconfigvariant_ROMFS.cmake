# Variant ROMFS (BOARD_VARIANT=ROMFS): the app is not frozen in but goes into a 256 KiB ROMFS
# partition, where its .mpy files run in place from flash and `tengen deploy` can replace them
# without reflashing (MicroPython 1.25 or later). The filesystem shrinks by as much (1152 KiB,
# starting 256 KiB higher: flashing this variant over the other loses the files and games on
# the board; sync them first). Not yet measured on the chip: the frozen image is the one known
# to run the app (hardware/README.md).
set(MICROPY_FROZEN_MANIFEST ${MICROPY_PORT_DIR}/boards/manifest.py)
list(APPEND MICROPY_DEF_BOARD
    MICROPY_HW_ROMFS_BYTES=262144
)
