// MicroPython board definition: Tengen, the electronic Go/Renju board's reference design, a
// Raspberry Pi Pico (RP2040, 2 MiB flash) with the board's app frozen in (hardware/README.md,
// "The Tengen image": `make chip` builds it). What the image leaves out of the port is in
// mpconfigtrim.h.
#define MICROPY_HW_BOARD_NAME                   "Tengen (RP2040)"

// What a PC shows for the USB device. Its VID:PID stay the rp2 port's (2E8A:0005): tengen
// finds its boards by those and tells a Tengen board by its app's answer, not by these names.
#define MICROPY_HW_USB_MANUFACTURER_STRING      "Tengen"
#define MICROPY_HW_USB_PRODUCT_FS_STRING        "Tengen Go board"

// No ROMFS partition: the app imported from one takes 148 KB of heap and does not start
// (hardware/README.md, "Why there is no ROMFS variant"); it is frozen in instead.
#define MICROPY_HW_ROMFS_BYTES                  (0)

// The filesystem (LittleFS: boot.py, main.py, settings, the games' journal) fills the flash
// above the firmware's 640 KiB, as on the stock RPI_PICO build, so the files and games on a
// board survive a change between the two. The image must end 128 KiB below it (the flash
// budget: tengen image check).
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)
