"""Chip driver: the games journal at 1,000 stored games as the PC link asks it.

Sent by ``bench/chip.py`` after ``prelude.py``; the journal is ``/games`` of the chip's
filesystem (``bench/chip_data.py`` stored the games there: on the chip LittleFS on its
flash, on the unix port the same image on a RAM block device, whose Python code the unix
time includes as ``bench_journal``'s does). Measured through the link's ``Server`` as
``bench_journal`` does: ``journal_rebuild`` (the boot's index rebuild), ``journal_list`` (a
page of 50 from the middle), ``journal_get`` (a whole game in 2,048-byte chunks),
``journal_ack`` (a game not acked yet), and ``journal_heap``: the free heap (bytes) with the
index built, as both fields.
"""

from bench.onchip.prelude import PASSES, ROOT, Worst, calibrate, emit, gc, ticks_diff, ticks_us
from firmware.link.server import Server
from firmware.store.journal import Journal

SECRET = bytes(range(32))


class _Match:
    settings = {"game": "go19"}


def ask(srv, line):
    reply = srv.handle(line)
    if b'"ok":true' not in reply.replace(b" ", b""):
        raise RuntimeError(reply[:200])
    return reply


def timed(fn, passes):
    w = Worst()
    for i in range(passes):
        gc.collect()
        t0 = ticks_us()
        fn(i)
        w.add(ticks_diff(ticks_us(), t0))
    return w


def main():
    calibrate()
    j = Journal(ROOT + "/games")
    w = timed(lambda i: j.rebuild(), PASSES)
    n = j._index().count
    w.emit("journal_rebuild", "%d_games" % n)
    gc.collect()
    free = gc.mem_free()
    emit("journal_heap", free, free)
    srv = Server(_Match(), j, SECRET, lambda data: None)
    after = max(0, n // 2 - 25)

    def page(i):  # a new id each time: the server answers a request seen again from its cache
        ask(srv, b'{"v":1,"id":%d,"cmd":"list","after":%d}' % (3000 + i, after))

    timed(page, PASSES).emit("journal_list")

    def get(i):
        g = 1 + (n // 3 + i) % n
        off = 0
        while True:
            req = b'{"v":1,"id":%d,"cmd":"get","game":%d,"offset":%d,"length":2048}'
            r = ask(srv, req % (1000 + i * 10 + off // 2048, g, off))
            if b'"eof":true' in r:
                break
            off += 2048

    timed(get, PASSES).emit("journal_get")

    def ack(i):
        g = 1 + (n // 2 + i) % n
        ask(srv, b'{"v":1,"id":%d,"cmd":"ack","game":%d}' % (2000 + i, g))

    timed(ack, PASSES).emit("journal_ack")
    j.close()


main()
