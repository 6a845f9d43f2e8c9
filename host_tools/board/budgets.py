"""The chip's budgets: the figures the board must meet on its RP2040, each with its reason.

Start reading at ``HEAP_BUILT``. ``tests/host/board/test_chip_budgets.py`` checks them on the
emulated chip (the image booted, ``tengen deploy``, four moves by stones and paddles; a flash
holding 1,000 games synced by the PC), where the board reports its heap and its boot time in
the link's ``hello`` (firmware/link/server.py); ``tests/host/test_journal_heap.py`` syncs the
journal at 1,000 games on the MicroPython unix port in a 128 KB heap, code included; bench/
README.md quotes them. The image's size against the flash layout is ``tengen image check``'s.

Heap figures are bytes free after a collection. Measured on the emulated chip on 2026-11-28
(the TENGEN_PICO image, MicroPython v1.28.0; the figures the tests print):

    fresh flash     after build() 142,144   in play (4 moves) 134,496   first face 1,141 ms
    1,000 games     after build() 130,112   synced 108,480               first face 2,609 ms
    (500 acked)     list 20 pages, get, ack: none answered no_memory

What a board holds beyond ``build()``: the journal's index at 1,000 games (12 bytes a game and
up to an eighth more: 12 KB measured), the link's replay cache (the last 8 replies, kept for a
request sent again, at most 2 KB of them besides the newest: ~5 KB), a game's history. What it
needs free on top, at its peak: the journal at 1,000 games (0, 500 or 1,000 acked) rebuilds
its index, answers every ``list`` page, reads every game whole with ``get`` and acks it in a
116 KB heap of the unix port that holds the code's 70 KB (46 KB for the rest), whose objects
are twice the chip's (8-byte words, 32-byte blocks): less on the chip.
"""

KB = 1024

# The free heap after ``build()`` on a fresh board: 132 KB measured with the voice's player
# (its ring in the scan's buffer, firmware/hal/rp2040_voice.py); 142 KB before it, 170 KB on
# 2026-11-20 and 145 KB on 2026-11-27 (research/on-chip.md): it shrank as the app grew. The
# floor keeps what a full journal and a sync hold (below) and the journal's peak (46 KB on the unix
# port) free; it fails a change that eats the margin before a board runs short.
HEAP_BUILT = 120 * KB

# The free heap while a game is played (the link's ``hello`` collects first): a game adds its
# history and the referee's state, the PC's requests their replies (124 KB after four moves
# with ``state`` asked between them, the voice's player made; 134 KB before it). The same floor: a board in play must still sync 1,000
# games (``tests/host/test_journal_heap.py`` runs it in far less).
HEAP_PLAYING = 120 * KB

# What a board holding 1,000 games holds on top, by design: the journal's index (12 bytes a
# game and up to an eighth more: 14 KB at most), and once the PC has synced them the link's
# replay cache (~24 KB when it kept 8 list pages; ~5 KB since it keeps 2 KB besides the newest).
INDEX = 14 * KB
REPLAY_CACHE = 24 * KB

# So on a board holding 1,000 games: after ``build()``, and once the PC has synced them.
HEAP_BUILT_JOURNAL = HEAP_BUILT - INDEX
HEAP_SYNCED = HEAP_PLAYING - INDEX - REPLAY_CACHE

# Power-up to the first face drawn (the app's first pass; the RP2040's ticks count from reset),
# in emulated ms (counted cycles at 125 MHz; the emulator reads 1-9 % fast against real Picos):
# the ROM and MicroPython's start, the known-answer self-check (94 ms), ``build()``. A fresh
# board: 1,141 ms measured; the budget leaves the app room to grow by 3/4.
BOOT_MS = 2000

# The same with 1,000 games kept: 2,609 ms measured, 1.5 s of it the journal's index rebuilt
# from the flash (every pack entry read and CRC-checked: ``Journal.rebuild``). A player who
# switches a full board on waits at most this.
BOOT_JOURNAL_MS = 3500

# The journal on the chip (the emulated one): 1,000 finished games, 500 acknowledged.
JOURNAL_GAMES = 1000
JOURNAL_ACKED = 500
