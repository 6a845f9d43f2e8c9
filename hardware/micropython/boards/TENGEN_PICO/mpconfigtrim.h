// What the Tengen image leaves out of MicroPython's rp2 port: features the board's firmware never
// uses, 89 KB of flash, so that the image ends more than the flash budget (128 KiB,
// FLASH_MARGIN in host_tools/board/image.py) below the filesystem, which stays where the stock
// RPI_PICO build has it (a board keeps its games). hardware/README.md §8, "The flash budget".
//
// mpconfigboard.cmake makes this file the build's MP_CONFIGFILE: py/mpconfig.h includes it
// instead of the port's mpconfigport.h. It sets what the port and py/mpconfig.h leave to a
// board (#ifndef there), includes the port's header, then takes back what the port switches on
// with a plain #define (which mpconfigboard.h, included first, cannot override).
//
// Kept, because the firmware (firmware/, boot.py, main.py, the port's _boot.py and rp2.py,
// asyncio) or tengen's tools (mpremote, the deploy probe) use them: machine Pin, ADC, PWM, I2C
// (SoftI2C too: the port's I2C uses it for empty writes), RTC, mem32, unique_id, WDT; rp2 PIO,
// StateMachine, DMA, Flash; os and vfs with LittleFS; hashlib.sha256 (firmware/link/hmac.py,
// the board id); binascii with crc32 (the journal's records: it needs deflate); json, struct,
// array, select.poll, uctypes.addressof, math, io; the compiler (the REPL, mpremote) and the
// native emitter (the frozen @native/@viper functions run through its runtime). machine.SPI
// stays: the port's SPI does not build without it. A board built with the SSD1306 OLED faces
// (hardware/README.md §5) needs framebuf back.

// Left to a board by the port (#ifndef in mpconfigport.h): set before it is included.
#define MICROPY_PY_MACHINE_I2C_TARGET           (0)
#define MICROPY_HW_ENABLE_USB_RUNTIME_DEVICE    (0)     // machine.USBDevice; the REPL's CDC stays
#define MICROPY_PY_OS_DUPTERM                   (0)

// Given by py/mpconfig.h at the port's ROM level (extra features), #ifndef there.
#define MICROPY_PY_BUILTINS_COMPLEX             (0)
#define MICROPY_PY_CMATH                        (0)
#define MICROPY_PY_MATH_SPECIAL_FUNCTIONS       (0)     // erf, gamma...: 5 KB of libm
#define MICROPY_PY_MATH_FACTORIAL               (0)
#define MICROPY_PY_MATH_ISCLOSE                 (0)
#define MICROPY_PY_RE                           (0)
#define MICROPY_PY_HEAPQ                        (0)
#define MICROPY_PY_RANDOM                       (0)     // os.urandom stays
#define MICROPY_PY_COLLECTIONS_DEQUE            (0)
#define MICROPY_PY_COLLECTIONS_ORDEREDDICT      (0)
#define MICROPY_PY_PLATFORM                     (0)
#define MICROPY_PY_BUILTINS_HELP                (0)
#define MICROPY_PY_BUILTINS_EXECFILE            (0)
#define MICROPY_PY_BUILTINS_STR_CENTER          (0)
#define MICROPY_PY_BUILTINS_STR_PARTITION       (0)
#define MICROPY_PY_BUILTINS_STR_SPLITLINES      (0)
#define MICROPY_PY_BUILTINS_SLICE_INDICES       (0)
#define MICROPY_PY_FRAMEBUF                     (0)
#define MICROPY_PY_SELECT_SELECT                (0)     // select.poll stays (asyncio, the link)
#define MICROPY_PY_MACHINE_SIGNAL               (0)
#define MICROPY_PY_MICROPYTHON_RINGIO           (0)
#define MICROPY_PY_SYS_PS1_PS2                  (0)
#define MICROPY_PY_THREAD                       (0)     // _thread: the app runs on core 0 only

#include <mpconfigport.h>

// Switched on by the port with a plain #define: taken back.
#undef MICROPY_VFS_FAT
#define MICROPY_VFS_FAT                         (0)     // the board's filesystem is LittleFS
#undef MICROPY_PY_HASHLIB_MD5
#define MICROPY_PY_HASHLIB_MD5                  (0)
#undef MICROPY_PY_HASHLIB_SHA1
#define MICROPY_PY_HASHLIB_SHA1                 (0)
#undef MICROPY_PY_CRYPTOLIB
#define MICROPY_PY_CRYPTOLIB                    (0)     // AES: 12 KB of Mbed TLS
#undef MICROPY_EMIT_INLINE_THUMB
#define MICROPY_EMIT_INLINE_THUMB               (0)     // @micropython.asm_thumb: none here
#undef MICROPY_PY_MACHINE_I2S
#define MICROPY_PY_MACHINE_I2S                  (0)
#undef MICROPY_PY_MACHINE_UART
#define MICROPY_PY_MACHINE_UART                 (0)     // the link and the REPL are USB
#undef MICROPY_PY_MACHINE_SOFTSPI
#define MICROPY_PY_MACHINE_SOFTSPI              (0)
#undef MICROPY_PY_MACHINE_BITSTREAM
#define MICROPY_PY_MACHINE_BITSTREAM            (0)
#undef MICROPY_PY_MACHINE_DHT_READINTO
#define MICROPY_PY_MACHINE_DHT_READINTO         (0)
#undef MICROPY_PY_MACHINE_PULSE
#define MICROPY_PY_MACHINE_PULSE                (0)
#undef MICROPY_PY_ONEWIRE
#define MICROPY_PY_ONEWIRE                      (0)
// Long ints in 64 bits, not arbitrary precision (mpz: 7 KB). The firmware's integers are 32-bit
// masks and addresses, CRC-32s, ticks, milliseconds and calendar seconds: 64 bits hold them all.
// A number past 64 bits (a request's JSON, a file) raises OverflowError where it would have been
// parsed: the link and the settings' reader turn any exception into a clear refusal.
// mpconfigboard.cmake tells mpy-tool (the frozen modules' constants) the same.
#undef MICROPY_LONGINT_IMPL
#define MICROPY_LONGINT_IMPL                    (MICROPY_LONGINT_IMPL_LONGLONG)
