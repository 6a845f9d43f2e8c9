"""Power cuts at every flash operation of a whole game: nothing committed is ever lost.

MicroPython only (``VfsLfs2``); ``tests/host/test_journal_powercut_mp.py`` runs this file on
the unix port from pytest. A game of 150 moves (with incidents, an arbiter edit, a clock
snapshot, the result and the packing) is journaled once on a RAM block device that logs every
program and erase. The flash after a cut before operation k is the start image with the first
k-1 operations applied; for every k the test builds that image (and, for every k, also the
image with operation k half done: a torn program or erase), mounts it, and checks that
``resume`` returns every move whose ``move()`` had returned before the cut, with the clocks as
recorded, at most one more (the move in progress), and that the next write works.
"""

import gc

from firmware.store import OK, Journal
from firmware.store import records as R
from firmware.store.blockdev import RamBlockDevice
from tests.support import IS_MICROPYTHON, Rng, skip
from tests.test_journal import HEADER, play

if not IS_MICROPYTHON:
    skip("VfsLfs2 is MicroPython's")

import vfs  # noqa: E402

BLOCKS = 16
MOVES = 150


def _mount(dev, at):
    vfs.mount(vfs.VfsLfs2(dev, progsize=256), at)


def _run_game():
    """Journal a game with logging on; returns (start image, ops log, checkpoints, records).

    A checkpoint ``(ops done, records committed)`` is taken after each call returned.
    """
    dev = RamBlockDevice(4096, BLOCKS)
    vfs.VfsLfs2.mkfs(dev)
    _mount(dev, "/pcrun")
    j = Journal("/pcrun/games", margin=0, reserve=0)
    start = bytearray(dev.data)
    dev.log = []
    dev.ops = 0
    committed = []
    points = [(0, 0)]  # (ops done, number of records committed)
    assert j.begin(HEADER) == OK
    committed.append((R.HEADER, dict(j.header)))
    points.append((dev.ops, len(committed)))
    for rec in play(Rng(77), MOVES):
        assert j.move(*rec[1:]) == OK
        committed.append(rec)
        points.append((dev.ops, len(committed)))
        if rec[1] % 40 == 0:
            inc = (R.INCIDENT, 8, rec[1], 100, (rec[3],), 0)
            assert j.incident(*inc[1:]) == OK
            committed.append(inc)
            points.append((dev.ops, len(committed)))
        if rec[1] == 100:
            ed = (R.EDIT, 1, 100, 5, (2, 30000))
            ck = (R.CLOCKS, 100, (1, 2, 3, 4))
            assert j.edit(*ed[1:]) == OK
            committed.append(ed)
            points.append((dev.ops, len(committed)))
            assert j.clocks(*ck[1:]) == OK
            committed.append(ck)
            points.append((dev.ops, len(committed)))
    res = (R.RESULT, 2, 1, 0, MOVES)
    assert j.result(*res[1:]) == OK
    committed.append(res)
    points.append((dev.ops, len(committed)))
    vfs.umount("/pcrun")
    return start, dev.log, points, committed


_scratch = bytearray(4096 * BLOCKS)


def _check(image, done, committed, label, torn=None):
    # Mount the flash as a cut left it (``torn``: (offset, bytes) half-programmed on top);
    # resume; compare with what was committed. One scratch image: no 64 KiB allocations.
    _scratch[:] = image
    if torn:
        _scratch[torn[0] : torn[0] + len(torn[1])] = torn[1]
    dev = RamBlockDevice(4096, BLOCKS, _scratch)
    _mount(dev, "/pccut")
    try:
        logs = []
        j = Journal("/pccut/games", log=logs.append, margin=0, reserve=0)
        state = j.resume()
        if state is None:
            got = j.records(1)
            if done == len(committed) or got == committed:
                # The result was written (the call may still have been packing): the game is
                # kept whole, finished, once.
                assert got == committed, label
                games = j.games()
                assert len(games) == 1 and games[0][2], (label, games)
            else:
                # No game to resume only before the header was durable.
                assert done <= 1 and got in ([], committed[:1]), (label, done)
        else:
            got = state["records"]
            assert got == committed[: len(got)], label
            assert done <= len(got) <= done + 1, (label, done, len(got))
            moves = [r for r in got if r[0] == R.MOVE]
            if moves:
                last = [r for r in got if r[0] in (R.MOVE, R.CLOCKS)][-1]
                assert state["clocks"] == (last[5] if last[0] == R.MOVE else last[2]), label
            ply = len(moves) + 1
            assert j.move(ply, 1, 3 << 5 | 3, 9, (7, 7, 7, 7)) == OK, label
            j.close()  # the live file stays open between records: closed before unmounting
            again = Journal("/pccut/games", margin=0, reserve=0).resume()
            assert again["records"] == got + [(R.MOVE, ply, 1, 3 << 5 | 3, 9, (7, 7, 7, 7))]
        return logs
    finally:
        vfs.umount("/pccut")


def _committed_before(points, k):
    # Records whose call returned with at most k-1 operations done (op k is the one cut).
    n = 0
    for ops, count in points:
        if ops <= k - 1:
            n = count
    return n


def test_power_cut_at_every_flash_operation_of_a_game():
    start, log, points, committed = _run_game()
    image = bytearray(start)
    total = len(log)
    assert total > 300, total
    checked = 0
    bs = 4096
    for k in range(1, total + 2):
        done = _committed_before(points, k)
        _check(image, done, committed, "cut before op %d" % k)
        checked += 1
        if k % 64 == 0:
            gc.collect()
        if k <= total:
            block, off, data = log[k - 1]
            if data is None:  # an erase
                data = b"\xff" * bs
            a = block * bs + off
            half = len(data) // 2
            if half:
                _check(image, done, committed, "op %d torn" % k, (a, data[:half]))
                checked += 1
            image[a : a + len(data)] = data
    # Every operation was cut once, and some of them torn in two as well.
    assert checked > total and committed, (checked, total)


def test_silent_flash_after_the_cut_loses_nothing_committed():
    # The flash stops taking writes but reports success (lost power to the chip only): every
    # record written before that op is kept; later ones may vanish, and the boot never fails.
    for cut in (3, 40, 200, 777):
        dev = RamBlockDevice(4096, BLOCKS)
        vfs.VfsLfs2.mkfs(dev)
        _mount(dev, "/pcsil")
        j = Journal("/pcsil/games", margin=0, reserve=0)
        dev.ops = 0
        dev.cut = cut
        dev.silent = True
        good = 0
        try:
            if j.begin(HEADER) == OK and dev.ops < cut:
                good = 1
            for rec in play(Rng(5), 60):
                if j.move(*rec[1:]) == OK and dev.ops < cut:
                    good += 1
        except OSError:
            pass
        j.close()
        image = bytearray(dev.data)
        vfs.umount("/pcsil")
        dev2 = RamBlockDevice(4096, BLOCKS, image)
        _mount(dev2, "/pcsil")
        try:
            state = Journal("/pcsil/games", margin=0, reserve=0).resume()
            got = len(state["records"]) if state else 0
            assert got >= good, (cut, got, good)
        finally:
            vfs.umount("/pcsil")
