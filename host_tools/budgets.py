"""The chip's budgets: the figures the board must meet on its RP2040, each with its reason.

Start reading at ``HEAP_BUILT``. ``tests/host/test_chip_budgets.py`` checks them on the
emulated chip (the image booted, ``tengen deploy``, a few moves, the journal at 1,000 games;
the board reports its heap and its boot time in the link's ``hello``: firmware/link/server.py),
``tests/host/test_journal_heap.py`` checks the journal on the MicroPython unix port with only
``HEAP_PLAYING`` free, and bench/README.md quotes them. The image's size against the flash
layout is ``tengen image check``'s.

What a board needs beyond ``build()`` (figures of 2026-11-28, the chip's from the emulator):

- the journal's index at 1,000 games, 12 bytes a game and up to an eighth more: 13.5 KB
  (``firmware/store/index.py``), built at boot from the flash;
- a link request at its peak: a ``list`` page of 50 games, a ``get`` of 2 KiB (the whole game
  read for its CRC and HMAC): the journal at 1,000 games with 500 acked answers ``list``,
  ``get`` and ``ack`` with ``JOURNAL_NEEDS`` free on the unix port, whose objects are 8-byte
  words and 32-byte blocks (the chip's are 4 and 16: a stricter test than the chip);
- a game in play: 145 KB free after ``build()``, 142 KB while playing (research/on-chip.md);
- room to fragment: the garbage collector does not move objects, and the largest free block
  after ``build()`` was 91 KB of the 145 KB.
"""

KB = 1024

# The free heap after ``build()`` (after a collection) on a board with an empty journal: 144.9 KB
# measured on 2026-11-27, 170.1 KB a week before: it shrank 25 KB in a week as the app grew.
# The floor leaves the journal at 1,000 games (13.5 KB of index) and a link request at its
# peak (JOURNAL_NEEDS) room twice over, with what a game adds in play; it fails the build
# before the board would run short, not after.
HEAP_BUILT = 120 * KB

# The free heap while a game is played (after a collection; the link's ``hello`` takes one): a
# game adds its history and the referee's state (145 -> 142 KB after a few moves). The same
# floor: a board in play must still sync 1,000 games (``tests/host/test_journal_heap.py`` runs
# the journal with only this much free).
HEAP_PLAYING = 120 * KB

# What the journal at 1,000 games (500 acknowledged) takes to start (rebuild its index from the
# flash) and answer every ``list`` page, a whole ``get`` and an ``ack``, measured on the unix
# port with the heap cut until it failed: the least that passed, rounded up.
JOURNAL_NEEDS = 60 * KB

# Power-up to the first face drawn (the app's first pass; the RP2040's ticks count from reset),
# in emulated ms (counted cycles at 125 MHz; the emulator reads 1-9 % fast against real Picos):
# the ROM and MicroPython's start, USB, the known-answer self-check (94 ms), ``build()`` (871
# ms). A player who switches the board on sees it ready within this; it fails when the boot
# grows by half again.
BOOT_MS = 2500

# The journal on the chip (the emulated one): 1,000 finished games, 500 acknowledged.
JOURNAL_GAMES = 1000
JOURNAL_ACKED = 500
