"""The games journal on flash: the game in progress, packed finished games, acks, eviction.

Start reading at ``Journal``. Files under ``root`` (``/games`` on the board):

    g000123.tgj   the live journal of game 123: one checksummed record per event
                  (``records.py``), appended as it happens; survives any power cut
    p0001.tgp     a pack of finished games, one compact entry each, oldest pack first
    acks.tgj      the games the PC has confirmed it holds (ACK records, ~8 bytes each)
    next          the next game number (``write_atomic``)

Durability: the live file of the game in progress stays open; each record is one ``write``
then ``flush``. On LittleFS a file's new contents become visible only at a commit (close, or
``flush``, which is ``lfs2_file_sync`` in MicroPython's VfsLfs2), and a commit is atomic:
after a power cut the file is as it was at the last completed commit. So a record whose call
returned is on flash; the one being written is either whole or absent
(``tests/test_journal_powercut.py`` cuts the power at every flash operation of a game).
Measured on the unix port's VfsLfs2 over a RAM device of 4,096-byte blocks (progsize 256, as
the rp2 port mounts it): per move record ~1 erase and ~3.4 programs (~2.4 KB: LittleFS copies
the file's tail block and commits its metadata); reopening the file for every record costs the
same flash work, but allocates. On the RP2040's flash the erase dominates (a 4 KiB sector, ~45
ms typical), once per move; the rp2 port runs flash operations with interrupts held off, so
the app should journal after the press is handled (the paddles' IRQ stamps may wait that long,
not the clock's arithmetic). ``move``, ``clocks`` and ``incident`` encode into a buffer made
once (``live.py``) and allocate nothing (``tests/test_journal_index.py`` counts the bytes).

A finished game (its RESULT written) is packed: its records re-encoded at ~4 bytes a move and
appended to the newest pack (one write, one close), then its live file removed. A cut between
the two leaves both; ``settle`` (run by ``resume`` and ``begin``) removes the live copy of a
game found in a pack, or packs it again.

The index (``index.py``): where each kept game is, in RAM, 12 bytes a game. It is rebuilt from
the files themselves when the journal starts (``rebuild``: every pack entry checked against
its CRC, every live file read, the acks file), never read from a file a cut could leave stale,
and kept current by every write (begin, result, packing, ack, eviction). The PC link pages,
reads and acks games through it (``games``, ``locate``, ``read``, ``state``, ``ack``): the cost
of syncing one game does not grow with the games kept (``bench/bench_journal.py``).

The acks file is read once, at ``rebuild``, through a 256-byte window, each record checked in
the record buffer (``live.ack_of``) and marked in the index: no object per ack, and the index
is made at its size before the packs are read (their entries' heads counted first), so 1,000
games with any number acked rebuild and sync in a 128 KB heap (``tests/host/
test_journal_heap.py``). It holds the acks of
the games kept and at most ``_ACKS_STALE`` more (acks of games gone): past that, or when its
tail is unknown (damaged, a write failed), ``ack`` rewrites it from the index.

Space: only acked games are evicted (whole packs whose games are all acked, oldest first, and
acked live files of abandoned games). When the free space is below ``margin`` at ``begin``, the
journal evicts; if it still cannot keep ``reserve`` bytes free, ``begin`` returns E_FULL, and
a write that fails for space returns E_FULL after one eviction attempt. Errors are returned as
codes (``ERRORS`` has their words), never raised: the app shows them and plays on.
"""

import os

import micropython

from firmware.store import live as L
from firmware.store import records as R
from firmware.store.index import ACKED, FINISHED, Index

OK = 0
E_FULL = 1  # no room left and nothing the PC has confirmed to evict
E_IO = 2  # the flash failed a write
E_NO_GAME = 3  # no game begun, or not kept
E_PACKED = 4  # the game is in a pack: it leaves with its pack
E_IN_PROGRESS = 5  # the game being played
ERRORS = {
    OK: "",
    E_FULL: "storage full: sync the games to the PC",
    E_IO: "storage error",
    E_NO_GAME: "no game in progress",
}

_ENOSPC = 28
_BLOCK = 4096
_PACK_MAX = 64 * 1024  # a new pack starts past this: eviction frees space in 64 KiB steps
_PLACE_MAX = 1 << 16  # the index keeps an entry's offset in 16 bits (index.py)
_ACKS_STALE = 64  # acks of games not kept before ``ack`` compacts the acks file (~512 bytes)


def _nospace(e):
    return e.args and e.args[0] == _ENOSPC


def _size(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return -1


def read_file(path):
    """The bytes of ``path``, or None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def write_atomic(path, data):
    """Replace ``path`` with ``data`` whole or not at all (temp file, then rename over it).

    LittleFS's rename is atomic, so after a power cut ``path`` holds either the old or the new
    contents. A stale ``path + ".tmp"`` from a cut is simply overwritten next time. Returns
    True if the data read back equal.
    """
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)  # replaces ``path`` (LittleFS, POSIX)
    return read_file(path) == bytes(data)


def _statvfs_free(root):
    def free():
        st = os.statvfs(root)
        return st[0] * st[3]

    return free


class Journal:
    """The journal under the folder ``root``.

    ``log(message)`` receives a line for each problem found (corrupt records, repairs);
    ``free()`` returns the free bytes (default: ``os.statvfs``); ``margin`` the free space
    ``begin`` keeps by evicting; ``reserve`` the least it needs to begin a game at all;
    ``pack_max`` the size past which a new pack file starts (at most 64 KiB).
    """

    def __init__(
        self,
        root="/games",
        log=None,
        free=None,
        margin=48 * 1024,
        reserve=16 * 1024,
        pack_max=_PACK_MAX,
    ):
        self.root = root
        self.log = log or (lambda msg: None)
        self.free = free or _statvfs_free(root)
        self.margin = margin
        self.reserve = reserve
        self.pack_max = min(pack_max, _PLACE_MAX)
        self.game_no = 0  # the game being journaled, 0: none
        self._ix = None  # the index (index.py), built by ``rebuild`` when first needed
        self._buf = bytearray(L.ROOM)  # the record being written (live.py)
        self._seed = bytearray(4)  # the live file's last 4 bytes (the CRC chain) ...
        self._tail = False  # ... when this is True; else the file is reread first
        self._f = None  # the live file, open for appending, or None
        self._ack_seed = None  # the acks file's last 4 bytes, None: rewrite it (``ack``)
        self._ack_stale = 0  # records in the acks file that mark no game kept
        try:
            os.mkdir(root)
        except OSError:
            pass

    # -- paths ----------------------------------------------------------------------------

    def _live(self, g):
        return "%s/g%06d.tgj" % (self.root, g)

    def _pack(self, k):
        return "%s/p%04d.tgp" % (self.root, k)

    def _names(self, prefix, suffix):
        out = []
        for name in os.listdir(self.root):
            if name.startswith(prefix) and name.endswith(suffix):
                try:
                    out.append(int(name[len(prefix) : -len(suffix)]))
                except ValueError:
                    pass
        out.sort()
        return out

    # -- the index ------------------------------------------------------------------------

    def _index(self):
        if self._ix is None:
            self.rebuild()
        return self._ix

    def rebuild(self):
        """Build the index from the flash: every entry of every pack (checked against its CRC,
        as ``records.py`` chains them), every live file (read: is it finished?), the acks
        file. ``resume`` runs it at boot; any other call that needs the index runs it first.
        Its cost grows with the bytes kept (``bench/bench_journal.py``). A live file whose
        game is in a pack already (a cut while packing) is left for ``settle``."""
        self._close()
        self._ix = None  # the old index goes before the new one is made
        buf = bytearray(2048)
        packs = self._names("p", ".tgp")
        lives = self._names("g", ".tgj")
        # The index made whole at its size first (grown as the packs are read, it would need
        # its old and its new arrays at once, in a heap the reading has cut into pieces).
        room = len(lives)
        for k in packs:
            room += self._heads(k, buf)
        ix = Index(room + 16)
        for k in packs:
            self._entries(k, buf, ix)
        for g in lives:
            if ix.find(g) >= 0:
                continue  # packed already: settle removes the live copy
            data = read_file(self._live(g))
            recs = R.scan(data or b"", R.MAGIC, self.log)
            if not recs:
                # Not one whole record, not even the header: a cut inside ``begin``, after
                # the file was made and before its header was on flash. No game was played in
                # it, so there is nothing to send, ack or evict: it goes, rather than stay
                # listed for ever as an unfinished game no one can get.
                self.log("journal: game %d has no record (a cut as it began): removed" % g)
                try:
                    os.remove(self._live(g))
                except OSError:
                    pass
                continue
            ix.put(g, 0, 0, recs[-1][2][0] == R.RESULT)
        n, marked = self._walk_acks(ix.ack)
        self._ack_stale = n - marked
        self._ix = ix

    def _heads(self, k, buf):
        # How many entries pack k holds at most: their heads walked, nothing checked.
        n = 0
        size = _size(self._pack(k))
        p = 4
        head = memoryview(buf)[:4]
        try:
            with open(self._pack(k), "rb") as f:
                while p + 8 <= size:
                    f.seek(p)
                    f.readinto(head)
                    p += R.u32(buf, 0) + 8
                    n += 1
        except OSError:
            pass
        return n

    def _walk_acks(self, visit):
        # Each good ACK of the acks file to ``visit(game_no)``: (the records, how many
        # ``visit`` took). The file is read through a window of 256 bytes (it holds ~9 bytes
        # an ack: 9 KB at 1,000 games, which a rebuild need not hold besides the index), each
        # record copied into the record buffer and checked there (live.ack_of): no object per
        # ack. A bad byte is stepped over, as records.scan does; notes the file's tail for
        # ``ack`` if every byte of it is good.
        self._ack_seed = None
        try:
            f = open(self.root + "/acks.tgj", "rb")
        except OSError:
            return 0, 0
        w = bytearray(256)
        mv = memoryview(w)
        buf = self._buf
        seed = bytearray(4)
        n = 0
        taken = 0
        bad = 0
        with f:
            end = f.readinto(w) or 0
            if not end:
                return 0, 0
            if w[:4] != R.MAGIC:
                self.log("journal: acks file: bad magic, ignored")
                return 0, 0
            p = 4
            more = True
            while True:
                if more and end - p < 10:
                    # The window moved on: the 4 bytes before p (the CRC's seed) kept.
                    k = 0
                    for i in range(p - 4, end):
                        w[k] = w[i]
                        k += 1
                    p = 4
                    end = k
                    k = f.readinto(mv[end:]) or 0
                    more = k > 0
                    end += k
                if p >= end:
                    break
                k = w[p] + 6  # the record's length
                g = -1
                if k <= 10 and p + k <= end:  # an ACK's at most; copied, its CRC checked
                    for i in range(4):
                        seed[i] = w[p - 4 + i]
                    for i in range(k):
                        buf[i] = w[p + i]
                    g = L.ack_of(buf, k, seed)
                if g < 0:
                    p += 1
                    bad += 1
                    continue
                n += 1
                if visit(g):
                    taken += 1
                p += k
        if bad:
            self.log("journal: acks file: %d bad bytes skipped" % bad)
        else:
            self._ack_seed = bytearray(w[end - 4 : end])
        return n, taken

    # -- writing --------------------------------------------------------------------------

    @micropython.native
    def _commit(self, t, n, payload=None):
        # Write the record whose payload is in self._buf[2:2+n] (type t) to the live file and
        # flush it; OK or an error code. Allocates nothing while the file is open and its tail
        # known (every call after the first of a game). A ``payload`` over 255 bytes (a header
        # with long names) is framed apart in records.py's long form.
        attempt = 0
        while True:
            try:
                if not self._tail:
                    self._reopen()
                if self._f is None:
                    self._f = open(self._live(self.game_no), "ab")
                if payload is not None:
                    buf = R.frame(t, payload, self._seed)
                    k = len(buf)
                    self._f.write(buf)
                else:
                    buf = self._buf
                    k = L.seal(buf, t, n, self._seed)
                    L.write(self._f, buf, k)
                self._f.flush()
                L.keep(buf, k, self._seed)
                return OK
            except OSError as e:
                self._close()
                self._tail = False  # the tail is unknown now: reread before the next record
                if not _nospace(e):
                    self.log("journal: write failed: %r" % (e,))
                    return E_IO
                if attempt or not self.evict(2 * _BLOCK):
                    return E_FULL
                attempt = 1

    def _append(self, rec):
        # Any record, encoded by records.py (allocates: headers, edits, results).
        t, payload = R.encode(rec)
        n = len(payload)
        if n > 255:
            return self._commit(t, n, payload)
        self._buf[2 : 2 + n] = payload
        return self._commit(t, n)

    def _close(self):
        # Close the live file (it is reopened by the next record).
        f = self._f
        self._f = None
        if f is not None:
            try:
                f.close()
            except OSError as e:
                self.log("journal: close failed: %r" % (e,))

    def close(self):
        """Close the live file (before unmounting the flash); the next record reopens it."""
        self._close()

    def _reopen(self):
        # Reread the live file of the game in progress (repairing it) to learn its tail.
        self._close()
        _, tail = self._repair(self.game_no)
        self._seed[:] = tail
        self._tail = True

    def _repair(self, g):
        # Reread game g's live file; rewrite it if anything in it was bad. Returns (records,
        # the file's last 4 bytes).
        path = self._live(g)
        data = read_file(path)
        if data is None:
            data = b""
        found = R.scan(data, R.MAGIC, self.log)
        clean = sum(e - p for p, e, _ in found) + 4 == len(data)
        if not clean:
            fixed = R.build([data[p : e - 4] for p, e, _ in found])
            write_atomic(path, fixed)
            self.log("journal: game %d rewritten with its %d good records" % (g, len(found)))
            data = fixed
        return [rec for _, _, rec in found], bytes(data[-4:])

    def begin(self, header):
        """Start journaling a new game; ``header`` a dict of ``records.HEADER_FIELDS`` keys.

        Its ``game_no`` is assigned here (the one after every game the journal has seen) and
        kept in ``self.game_no``. Returns OK, E_FULL or E_IO.
        """
        self._close()
        self._tail = False
        try:
            self.settle()
            if self.free() < self.margin:
                self.evict(self.margin - self.free())
            if self.free() < self.reserve:
                return E_FULL
            g = self._next_no()
            write_atomic(self.root + "/next", str(g + 1).encode())
        except OSError as e:
            self.log("journal: begin failed: %r" % (e,))
            return E_FULL if _nospace(e) else E_IO
        h = R.full_header(header)
        h["game_no"] = g
        self.game_no = g
        try:
            self._f = open(self._live(g), "wb")
            self._f.write(R.MAGIC)
            self._f.flush()
        except OSError as e:
            self._close()
            return E_FULL if _nospace(e) else E_IO
        self._seed[:] = R.MAGIC
        self._tail = True
        self._ix.put(g, 0, 0, False)
        self.header = h
        return self._append((R.HEADER, h))

    def _next_no(self):
        n = 1
        data = read_file(self.root + "/next")
        if data:
            try:
                n = int(data)
            except ValueError:
                self.log("journal: bad game counter %r" % (data,))
        ix = self._index()
        if ix.count:
            n = max(n, ix.no[ix.count - 1] + 1)
        return n

    @micropython.native
    def move(self, ply, colour, point, tick, clocks):
        """A committed move: ``point`` y<<5|x or ``records.PASS``; ``clocks`` a tuple of ints,
        by convention ``(black main ms, black units, white main ms, white units)`` (each side's
        half starts with its main ms: the packed form relies on that); ``tick`` the paddle's
        ``ticks_ms`` (0 <= tick < 2**30). Allocates nothing."""
        if not self.game_no:
            return E_NO_GAME
        n = L.move(self._buf, ply, colour, point, tick, clocks)
        if n < 0:
            return self._append((R.MOVE, ply, colour, point, tick, tuple(clocks)))
        return self._commit(R.MOVE, n)

    @micropython.native
    def incident(self, kind, move_no, time_ms, points=(), detail=0, count=-1):
        """An incident of ``firmware/referee/incidents.py`` (``detail`` an int) with the first
        ``count`` of ``points`` (all if ``count`` < 0: a caller's reused buffer need not be
        cut to size). Allocates nothing for up to 40 points."""
        if not self.game_no:
            return E_NO_GAME
        detail = detail or 0
        n = L.incident(self._buf, kind, move_no, time_ms, points, detail, count)
        if n < 0:
            if count >= 0:
                points = points[:count]
            return self._append((R.INCIDENT, kind, move_no, time_ms, tuple(points), detail))
        return self._commit(R.INCIDENT, n)

    def edit(self, kind, move_no, time_ms, args=()):
        """An arbiter edit (pause, adjust, undo, warning, timeout->pass, sealed move...)."""
        if not self.game_no:
            return E_NO_GAME
        return self._append((R.EDIT, kind, move_no, time_ms, tuple(args)))

    @micropython.native
    def clocks(self, move_no, clocks):
        """The clocks as they are now (at a pause, after an adjustment): what resume restores.
        Allocates nothing."""
        if not self.game_no:
            return E_NO_GAME
        n = L.clocks(self._buf, move_no, clocks)
        if n < 0:
            return self._append((R.CLOCKS, move_no, tuple(clocks)))
        return self._commit(R.CLOCKS, n)

    def result(self, winner, reason, margin2=0, move_no=0):
        """The game's result (winner 0 none/draw, 1 black, 2 white); then the game is packed."""
        if not self.game_no:
            return E_NO_GAME
        err = self._append((R.RESULT, winner, reason, margin2, move_no))
        if err:
            return err
        g = self.game_no
        self.game_no = 0
        self._close()
        self._tail = False
        self._index().put(g, 0, 0, True)
        return self._archive(g)

    # -- packing --------------------------------------------------------------------------

    def _archive(self, g):
        # Pack finished game g and remove its live file. OK, or the error (the live file stays).
        ix = self._index()
        i = ix.find(g)
        if i < 0 or not ix.at[i]:
            recs, _ = self._repair(g)
            blob = R.pack(g, recs)
            err, at = self._pack_append(blob)
            if err:
                return err
            ix.put(g, at, len(blob), True)
        try:
            os.remove(self._live(g))
        except OSError as e:
            self.log("journal: cannot remove %s: %r" % (self._live(g), e))
        return OK

    def store(self, blob):
        """Keep a finished game given as its packed blob (``records.pack``), as ``result``
        keeps one: appended to the newest pack and indexed. OK or an error. Tools, tests and
        benches fill a journal quickly this way; its game number should be above every game
        kept (``begin`` numbers the next game after the highest)."""
        g = R.get_u(blob, 0, len(blob))[0]
        err, at = self._pack_append(blob)
        if not err:
            self._index().put(g, at, len(blob), True)
        return err

    def _pack_append(self, blob):
        # (OK, the entry's place k << 16 | offset), or (the error, 0).
        for attempt in (0, 1):
            packs = self._names("p", ".tgp")
            k = packs[-1] if packs else 1
            path = self._pack(k)
            size = _size(path)
            if size >= 0:
                self._entries(k)  # a damaged pack is left as it is: the PC may save the rest
            if size >= self.pack_max or (size >= 0 and not self._clean):
                k += 1
                path = self._pack(k)
                size = -1
            try:
                if size < 4:
                    with open(path, "wb") as f:
                        f.write(R.PACK_MAGIC)
                    seed = R.PACK_MAGIC
                    size = 4
                else:
                    with open(path, "rb") as f:
                        f.seek(size - 4)
                        seed = f.read(4)
                with open(path, "ab") as f:
                    f.write(R.pack_entry(blob, seed))
                return OK, k << 16 | size
            except OSError as e:
                if not _nospace(e):
                    self.log("journal: pack write failed: %r" % (e,))
                    return E_IO, 0
                if attempt or not self.evict(len(blob) + _BLOCK):
                    return E_FULL, 0
        return E_FULL, 0

    def _entries(self, k, buf=None, ix=None):
        # Put each valid entry of pack k in the index ``ix`` (if given), each checked against
        # its CRC: no list of them (its objects, scattered through the heap as the packs are
        # read, would leave no room whole for the index to grow into). Read into ``buf`` (a
        # bytearray; 2 KiB made here if None): an entry's head, its blob (in pieces if
        # longer), its CRC (a pack is up to 64 KiB; the heap is not). Sets self._clean: no bad
        # bytes.
        self._clean = True
        if buf is None:
            buf = bytearray(2048)
        mv = memoryview(buf)
        room = len(buf)
        try:
            f = open(self._pack(k), "rb")
        except OSError:
            return
        with f:
            got = f.readinto(mv[:4])
            if got < 4 or buf[:4] != R.PACK_MAGIC:
                self._clean = not got
                if got:
                    self.log("journal: pack %d: bad magic" % k)
                return
            seed = R.u32(buf, 0)
            p = 4
            while True:
                got = f.readinto(mv[:4])
                if got < 4:
                    if got:
                        self._clean = False
                        self.log("journal: pack %d: %d stray bytes at the end" % (k, got))
                    return
                n = R.u32(buf, 0)
                c = R.crc32(mv[:4], seed)
                left = n
                g = -1
                while left:
                    got = f.readinto(mv[: left if left < room else room])
                    if not got:
                        break
                    if g < 0:
                        try:
                            g = R.get_u(buf, 0, min(got, 5))[0]
                        except R.Bad:
                            g = 0
                    c = R.crc32(mv[:got], c)
                    left -= got
                got = f.readinto(mv[:4])  # the entry's CRC
                if left or got < 4 or c & 0xFFFFFFFF != R.u32(buf, 0):
                    self._clean = False
                    self.log("journal: pack %d: bad entry at byte %d: rest dropped" % (k, p))
                    return
                if p >= _PLACE_MAX:  # not written by this journal (pack_max <= 64 KiB)
                    self._clean = False
                    self.log("journal: pack %d: entries past 64 KiB not read" % k)
                    return
                if ix:
                    ix.put(max(g, 0), k << 16 | p, n, True)
                seed = R.u32(buf, 0)
                p += n + 8

    def settle(self):
        """Pack every finished game still in a live file (after a cut during packing), and
        remove the live copy of a game already packed. Reads the folder and the index, not
        the packs."""
        ix = self._index()
        for g in self._names("g", ".tgj"):
            i = ix.find(g)
            if g != self.game_no and i >= 0 and (ix.at[i] or ix.nf[i] & FINISHED):
                self._archive(g)

    # -- boot -----------------------------------------------------------------------------

    def resume(self):
        """At boot: the unfinished game to resume, or None.

        Rebuilds the index (``rebuild``) and settles. Returns a dict: ``game_no``, ``header``,
        ``moves`` [(ply, colour, point, tick, clocks)], ``incidents`` [(kind, move_no,
        time_ms, points, detail)], ``edits``, ``clocks`` (the latest clocks recorded, or
        None), ``records`` (all, in order). The journal then appends to that game. Problems
        found are logged, never raised.
        """
        try:
            self.rebuild()
            self.settle()
        except OSError as e:
            self.log("journal: resume failed: %r" % (e,))
            return None
        for g in reversed(self._names("g", ".tgj")):
            try:
                recs, tail = self._repair(g)
            except OSError as e:
                self.log("journal: game %d unreadable: %r" % (g, e))
                continue
            if not recs or recs[0][0] != R.HEADER:
                self.log("journal: game %d has no header" % g)
                continue
            if recs[-1][0] == R.RESULT:
                continue
            self.game_no = g
            self.header = recs[0][1]
            self._seed[:] = tail
            self._tail = True
            clocks = None
            for rec in recs:
                if rec[0] == R.MOVE:
                    clocks = rec[5]
                elif rec[0] == R.CLOCKS:
                    clocks = rec[2]
            return {
                "game_no": g,
                "header": recs[0][1],
                "moves": [r[1:] for r in recs if r[0] == R.MOVE],
                "incidents": [r[1:] for r in recs if r[0] == R.INCIDENT],
                "edits": [r[1:] for r in recs if r[0] == R.EDIT],
                "clocks": clocks,
                "records": recs,
            }
        return None

    # -- acks and eviction ----------------------------------------------------------------

    def acked(self):
        """The set of game numbers in the acks file (tools and tests: a set allocates for
        every ack; the board reads the index, or ``was_acked``)."""
        out = set()
        self._walk_acks(out.add)
        return out

    def was_acked(self, game_no):
        """Whether the acks file holds ``game_no`` (acked, and not kept since); read with no
        object per ack."""
        return self._walk_acks(lambda g: g == game_no)[1] > 0

    def ack(self, game_no):
        """The PC holds game ``game_no``: from now on it may be evicted. OK or an error.

        The index marked and one record appended to the acks file (nothing written if it is
        marked already), or the file rewritten from the index (``_compact_acks``) when its
        tail is unknown (missing, damaged, a write failed) or it holds more than
        ``_ACKS_STALE`` acks of games not kept. If the write fails the mark is taken back."""
        ix = self._index()
        i = ix.find(game_no)
        if i >= 0 and ix.nf[i] & ACKED:
            return OK
        if i >= 0:
            ix.nf[i] |= ACKED  # before a rewrite: it writes the index's acks
        else:
            self._ack_stale += 1  # (the PC link acks only games kept)
        seed = self._ack_seed
        if seed is None or self._ack_stale > _ACKS_STALE:
            err = self._compact_acks()
        else:
            buf = self._buf
            k = L.seal(buf, R.ACK, L.ack(buf, game_no), seed)
            self._ack_seed = None
            try:
                with open(self.root + "/acks.tgj", "ab") as f:
                    L.write(f, buf, k)
                L.keep(buf, k, seed)
                self._ack_seed = seed
                err = OK
            except OSError as e:
                err = E_FULL if _nospace(e) else E_IO
        if err and i >= 0:
            ix.nf[i] &= ~ACKED
        return err

    def delete(self, g):
        """Remove game ``g`` at the PC's request: OK, E_NO_GAME (not kept), E_PACKED (a
        packed game leaves with its pack, once every game in it is acknowledged) or
        E_IN_PROGRESS (the game being played)."""
        if g == self.game_no:
            return E_IN_PROGRESS
        ix = self._index()
        i = ix.find(g)
        if i < 0:
            return E_NO_GAME
        if ix.at[i]:
            return E_PACKED
        try:
            os.remove(self._live(g))
        except OSError:
            pass  # already gone: the index follows the flash
        if ix.nf[i] & ACKED:
            self._ack_stale += 1  # its ack stays in the acks file until it is compacted
        ix.drop(lambda k: ix.no[k] != g)
        return OK

    def evict(self, need_bytes):
        """Remove acked games, oldest first, until ``need_bytes`` are freed; the bytes freed.

        A pack goes only when every game in it is acked; an acked live file only if it is not
        the game in progress. Unacked games are never removed. The acks of the games removed
        are dropped from the acks file (it would grow with every game ever played).
        """
        ix = self._index()
        packs = {}  # pack number -> [first game, last game, all acked], one pass of the index
        for i in range(ix.count):
            k = ix.at[i] >> 16
            if k:
                seen = packs.get(k)
                if seen is None:
                    packs[k] = seen = [ix.no[i], 0, True]
                seen[1] = ix.no[i]
                seen[2] = seen[2] and bool(ix.nf[i] & ACKED)
        gone = []
        freed = 0
        for k in self._names("p", ".tgp"):
            if freed >= need_bytes:
                break
            seen = packs.get(k)
            if seen and seen[2]:
                size = _size(self._pack(k))
                os.remove(self._pack(k))
                gone.append(k)
                freed += (size + _BLOCK - 1) // _BLOCK * _BLOCK
                self.log("journal: evicted pack %d (games %d-%d)" % (k, seen[0], seen[1]))
        for g in self._names("g", ".tgj"):
            if freed >= need_bytes:
                break
            i = ix.find(g)
            if i >= 0 and not ix.at[i] and ix.nf[i] & ACKED and g != self.game_no:
                size = _size(self._live(g))
                os.remove(self._live(g))
                freed += (size + _BLOCK - 1) // _BLOCK * _BLOCK
                self.log("journal: evicted game %d" % g)
                gone.append(-g)
        if gone:
            ix.drop(lambda i: not (ix.at[i] >> 16 in gone or -ix.no[i] in gone))
            self._compact_acks()
        return freed

    def _compact_acks(self):
        # Rewrite the acks file with the acks of the games kept (the index's), atomically as
        # ``write_atomic`` does, a record at a time through the record buffer: nothing
        # allocated per ack. OK, or the error (the old file stays: these acks and more).
        ix = self._ix
        path = self.root + "/acks.tgj"
        buf = self._buf
        seed = bytearray(R.MAGIC)
        self._ack_seed = None
        try:
            with open(path + ".tmp", "wb") as f:
                f.write(R.MAGIC)
                for i in range(ix.count):
                    if ix.nf[i] & ACKED:
                        k = L.seal(buf, R.ACK, L.ack(buf, ix.no[i]), seed)
                        L.write(f, buf, k)
                        L.keep(buf, k, seed)
            os.rename(path + ".tmp", path)
        except OSError as e:
            self.log("journal: acks not compacted: %r" % (e,))
            return E_FULL if _nospace(e) else E_IO
        self._ack_seed = seed
        self._ack_stale = 0
        return OK

    # -- the PC link ----------------------------------------------------------------------

    def games(self, after=0, limit=-1):
        """The games kept numbered above ``after``, at most ``limit`` of them (-1: all):
        ``[(game_no, size_bytes, finished, acked)]`` by game number. From the index: a live
        file's size is read (``os.stat``), nothing else touches the flash, and the time and
        memory grow with the games returned, not with the games kept."""
        ix = self._index()
        out = []
        i = ix.after(after)
        while i < ix.count and len(out) != limit:
            g = ix.no[i]
            at = ix.at[i]
            nf = ix.nf[i]
            size = nf >> 2 if at else _size(self._live(g))
            if size >= 0:  # a live file removed behind the journal's back is not listed
                out.append((g, size, bool(nf & FINISHED), bool(nf & ACKED)))
            i += 1
        return out

    def state(self, game_no):
        """``(finished, acked)`` of a game kept, or None."""
        ix = self._index()
        i = ix.find(game_no)
        if i < 0 or (not ix.at[i] and _size(self._live(game_no)) < 0):
            return None
        nf = ix.nf[i]
        return bool(nf & FINISHED), bool(nf & ACKED)

    def locate(self, game_no):
        """``(place, size)`` of a game kept, or None: ``place`` 0 for a live file (its bytes
        change as it grows), else where its entry is (the same place, the same bytes)."""
        ix = self._index()
        i = ix.find(game_no)
        if i < 0:
            return None
        at = ix.at[i]
        size = ix.nf[i] >> 2 if at else _size(self._live(game_no))
        return None if size < 0 else (at, size)

    def read(self, game_no, offset=0, length=-1):
        """The stored bytes of a game: its pack blob, or its live file; None if not kept.

        With ``offset``/``length``, only those bytes (read from the flash alone). The whole
        blob is checked against its pack entry's CRC: a damaged entry reads as None."""
        ix = self._index()
        i = ix.find(game_no)
        if i < 0:
            return None
        at = ix.at[i]
        if not at:
            data = read_file(self._live(game_no))
            if data is None or (offset == 0 and length < 0):
                return data
            return data[offset : offset + length if length >= 0 else len(data)]
        n = ix.nf[i] >> 2
        p = at & 0xFFFF
        try:
            with open(self._pack(at >> 16), "rb") as f:
                if offset or length >= 0:
                    f.seek(p + 4 + offset)
                    return f.read(max(0, min(length if length >= 0 else n, n - offset)))
                f.seek(p - 4)
                raw = f.read(n + 12)
        except OSError as e:
            self.log("journal: game %d unreadable: %r" % (game_no, e))
            return None
        if len(raw) < n + 12 or not R.entry_ok(raw, 4, n):
            self.log("journal: game %d: pack entry damaged" % game_no)
            return None
        return raw[8 : 8 + n]

    def records(self, game_no):
        """A game's decoded records (the header first), from either form; [] if not kept."""
        loc = self.locate(game_no)
        data = self.read(game_no)
        if data is None:
            return []
        if loc is not None and not loc[0]:
            return [rec for _, _, rec in R.scan(data, R.MAGIC, self.log)]
        try:
            return R.unpack(data)[1]
        except R.Bad as e:
            self.log("journal: game %d: packed entry unreadable (%s)" % (game_no, e))
            return []
