"""The games journal (``firmware/store``) and the PC link's view of it, at 10, 100 and 1,000
stored games, on the MicroPython unix port.

    micropython -m bench.bench_journal [--games N] [--passes N]

Run from the repository root (``make bench`` runs it so). A VfsLfs2 on a RAM block device of
the Pico's 352 blocks of 4 KiB is filled with finished games of 250 moves with their clocks
(four realistic games, ~1,240 bytes packed each, stored under new numbers with
``Journal.store``), and at 10, 100 and ``--games`` games kept it measures, through the link's
``Server`` as the PC asks:

1. the calibration loop (``bench_go``'s): every RP2040 figure is unix time x 48.8 ms /
   calibration, an estimate;
2. per call: the boot's index rebuild (``Journal.rebuild``), ``list`` (a page of 50, from the
   middle), ``get`` (a whole game in 2,048-byte chunks, as ``tengen sync`` asks), ``ack`` (a
   game not acked yet); then ``Journal.move`` (one move record written and flushed). Each
   figure: the first call's time (cold: the worst a PC waits), the fastest of ``--passes``, the
   RP2040 estimate of both, and the bytes the call allocates (``micropython.mem_total()``);
   for ``list``, that is the free heap it needs at most (collections held off);
3. the index's own RAM, and how much of each time was the RAM block device's Python code: on
   the board the flash driver is C and reads are memory-mapped, so the estimate of calls that
   read much (the rebuild) errs on the slow side by about that share.
Information only: the exit status is 0 whatever the figures.
"""

import gc
import sys

import micropython
import vfs

from bench.bench_go import read_options, report_calibration, section, start, ticks_diff, ticks_us
from tests.test_journal_index import QuietRam

USAGE = """usage: bench_journal.py [--games N] [--passes N]
  --games N    games kept at the last step (default 1000; steps 10, 100, N)
  --passes N   calls of each kind; the fastest counts, the first is shown too (default 5)"""

BLOCKS = 352  # the rp2 port's filesystem on a Pico: 1,408 KiB
_device_us = [0]  # µs of the block device's own Python code
_device_calls = [0]  # its calls, since the last reset


class TimedRam(QuietRam):
    """The tests' RAM block device that allocates nothing (on the board the flash driver is
    C), adding the µs of its own Python code to ``_device_us``."""

    # Native: a bytecode frame this big would be allocated on the heap and counted as the
    # journal's bytes.
    @micropython.native
    def readblocks(self, block, buf, offset=0):
        t0 = ticks_us()
        QuietRam.readblocks(self, block, buf, offset)
        _device_us[0] += ticks_diff(ticks_us(), t0)
        _device_calls[0] += 1

    @micropython.native
    def writeblocks(self, block, buf, offset=None):
        t0 = ticks_us()
        QuietRam.writeblocks(self, block, buf, offset)
        _device_us[0] += ticks_diff(ticks_us(), t0)
        _device_calls[0] += 1

    @micropython.native
    def ioctl(self, op, arg):
        t0 = ticks_us()
        r = QuietRam.ioctl(self, op, arg)
        _device_us[0] += ticks_diff(ticks_us(), t0)
        _device_calls[0] += 1
        return r


# The flash first, while the heap is empty: 1.4 MB in one piece.
_DEV = TimedRam(4096, BLOCKS)

from firmware.link.server import Server  # noqa: E402
from firmware.store import records as R  # noqa: E402
from firmware.store.journal import Journal  # noqa: E402
from tests.support import Rng  # noqa: E402
from tests.test_journal import HEADER, play  # noqa: E402

SECRET = bytes(range(32))
MOUNT = "/bj"


class _Match:
    settings = {"game": "go19"}


def templates():
    """Four finished 250-move games (records, the header first)."""
    out = []
    for s in range(4):
        recs = [(R.HEADER, R.full_header(HEADER))] + play(Rng(100 + s), 250)
        recs.append((R.RESULT, 1, 2, 7, 250))
        out.append(recs)
    return out


def fill(j, games, upto, have):
    """Store games ``have+1 .. upto``."""
    for g in range(have + 1, upto + 1):
        recs = games[g % 4]
        recs[0][1]["game_no"] = g
        blob = R.pack(g, recs)
        if j.store(blob):
            raise RuntimeError("journal full at game %d" % g)


def measure(fn, passes, hold=False):
    """``(first µs, fastest µs, most bytes allocated, device µs of the fastest)`` of ``fn(i)``
    for i in range(passes), a collection before each; with ``hold``, collections held off
    during each (then the bytes are the free heap the call needs at most). The block device's
    own time is not the journal's: its share is shown."""
    first = best = None
    most = 0
    dev_best = 0
    calls_best = 0
    for i in range(passes):
        gc.collect()
        if hold:
            gc.disable()
        _device_us[0] = 0
        _device_calls[0] = 0
        m0 = micropython.mem_total()
        t0 = ticks_us()
        fn(i)
        us = ticks_diff(ticks_us(), t0)
        b = micropython.mem_total() - m0
        gc.enable()
        if first is None:
            first = us
        if best is None or us < best:
            best = us
            dev_best = _device_us[0]
            calls_best = _device_calls[0]
        most = max(most, b)
    _device_calls[0] = calls_best  # for a caller that shows them: the fastest call's
    return first, best, most, dev_best


def ask(srv, line):
    reply = srv.handle(line)
    if b'"ok":true' not in reply.replace(b" ", b""):
        raise RuntimeError(reply[:200])
    return reply


def step(n, j, passes, scale, cal):
    """Every measurement at ``n`` games kept; prints one block."""
    srv = Server(_Match(), j, SECRET, lambda data: None)
    rows = []

    def rebuild(i):
        Journal(MOUNT + "/games").rebuild()

    rows.append(("rebuild (boot)", measure(rebuild, passes)))

    after = max(0, n // 2 - 25)

    def page(i):  # a new id each time: the server answers a request seen again from its cache
        ask(srv, b'{"v":1,"id":%d,"cmd":"list","after":%d}' % (3000 + i, after))

    rows.append(("list (a page of 50)", measure(page, passes, True)))

    def get(i):
        g = 1 + (n // 3 + i) % n
        off = 0
        while True:
            req = b'{"v":1,"id":%d,"cmd":"get","game":%d,"offset":%d,"length":2048}'
            r = ask(srv, req % (1000 + i * 10 + off // 2048, g, off))
            if b'"eof":true' in r:
                break
            off += 2048

    rows.append(("get (a whole game)", measure(get, passes)))

    def ack(i):
        g = 1 + (n // 2 + i) % n
        ask(srv, b'{"v":1,"id":%d,"cmd":"ack","game":%d}' % (2000 + i, g))

    rows.append(("ack", measure(ack, passes)))
    cal.sample(1)

    print("  %d games kept:" % n)
    for name, (first, best, most, dev) in rows:
        print(
            "    %-20s first %7.2f ms (RP2040 ~%6.1f ms)  best %7.2f ms (RP2040 ~%6.1f ms)"
            "  %6d B allocated  block device %2d%%"
            % (
                name,
                first / 1000,
                first * scale,
                best / 1000,
                best * scale,
                most,
                100 * dev // max(1, best),
            )
        )


def bench_move(j, passes, scale):
    """``Journal.move`` on a game begun at the end: time and bytes per move."""
    if j.begin(HEADER):
        print("  (no room to begin a game: move not measured)")
        return
    moves = play(Rng(7), passes + 2)
    for rec in moves[:2]:
        j.move(rec[1], rec[2], rec[3], rec[4], rec[5])

    def move(i):
        rec = moves[i + 2]
        j.move(rec[1], rec[2], rec[3], rec[4], rec[5])

    first, best, most, dev = measure(move, passes)
    print(
        "  Journal.move (one record, flushed): first %.2f ms, best %.2f ms (RP2040 ~%.1f ms of"
        " CPU, and the flash: ~1 sector erase, 45 ms)  %d B allocated"
        % (first / 1000, best / 1000, best * scale, most)
    )
    print(
        "    of which the RAM block device's Python code: %d%% (%d reads and writes): on the"
        " board the flash driver is C" % (100 * dev // max(1, best), _device_calls[0])
    )


def main():
    opts = read_options(sys.argv, USAGE, {"games": 1000, "passes": 5})
    passes = opts["passes"]
    top = max(10, opts["games"])
    cal, start_us, overhead = start("journal", "about 30 s (1,000 games stored, then timed)")
    vfs.VfsLfs2.mkfs(_DEV)
    vfs.mount(vfs.VfsLfs2(_DEV, progsize=256), MOUNT)
    try:
        j = Journal(MOUNT + "/games", margin=0, reserve=0)
        games = templates()
        blob = R.pack(1, games[0])
        have = 0
        scale = cal.scale()
        section("2. The link's calls at 10, 100 and %d games kept (passes: %d)" % (top, passes))
        print("  game: 250 moves with clocks, %d bytes packed" % len(blob))
        for n in (10, 100, top):
            if n <= have or n > top:
                continue
            fill(j, games, n, have)
            have = n
            gc.collect()
            step(n, j, passes, scale, cal)
        section("3. Memory and the write path")
        ix = j._index()
        print(
            "  the index: %d games in %d slots, %d bytes of arrays (12 a slot)"
            % (ix.count, len(ix.no), 12 * len(ix.no))
        )
        bench_move(j, passes, scale)
        j.close()
    finally:
        vfs.umount(MOUNT)
    report_calibration(cal, overhead, start_us, unit="call")


if __name__ == "__main__":
    main()
