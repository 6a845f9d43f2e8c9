"""The games journal on flash: the game in progress, packed finished games, acks, eviction.

Start reading at ``Journal``. Files under ``root`` (``/games`` on the board):

    g000123.tgj   the live journal of game 123: one checksummed record per event
                  (``records.py``), appended as it happens; survives any power cut
    p0001.tgp     a pack of finished games, one compact entry each, oldest pack first
    acks.tgj      the games the PC has confirmed it holds (ACK records)
    next          the next game number (``write_atomic``)

Durability: each record is one ``open(.., "ab")``, one ``write``, ``close``. On LittleFS a
file's new contents become visible only at a commit (close, or ``flush``, which is
``lfs2_file_sync`` in MicroPython's VfsLfs2), and a commit is atomic: after a power cut the
file is as it was at the last completed commit. So a record whose call returned is on flash;
the one being written is either whole or absent. Measured on the unix port's VfsLfs2 over a RAM
device of 4,096-byte blocks (progsize 256, as the rp2 port mounts it): per move record ~1 erase
and ~3.4 programs (~2.4 KB: LittleFS copies the file's tail block and commits its metadata),
~0.17 ms of CPU; keeping the file open and calling ``flush`` costs the same. On the RP2040's
flash the erase dominates (a 4 KiB sector, ~45 ms typical), once per move; the rp2 port runs
flash operations with interrupts held off, so the app should journal after the press is
handled (the paddles' IRQ stamps may wait that long, not the clock's arithmetic).

A finished game (its RESULT written) is packed: its records re-encoded at ~4 bytes a move and
appended to the newest pack (one write, one close), then its live file removed. A cut between
the two leaves both; ``settle`` (run by ``resume`` and ``begin``) finds the game in the pack and
removes the live file, or packs it again.

Space: only acked games are evicted (whole packs whose games are all acked, oldest first, and
acked live files of abandoned games). When the free space is below ``margin`` at ``begin``, the
journal evicts; if it still cannot keep ``reserve`` bytes free, ``begin`` returns E_FULL, and
a write that fails for space returns E_FULL after one eviction attempt. Errors are returned as
codes (``ERRORS`` has their words), never raised: the app shows them and plays on.
"""

import os

from firmware.store import records as R

OK = 0
E_FULL = 1  # no room left and nothing the PC has confirmed to evict
E_IO = 2  # the flash failed a write
E_NO_GAME = 3  # no game begun
ERRORS = {
    OK: "",
    E_FULL: "storage full: sync the games to the PC",
    E_IO: "storage error",
    E_NO_GAME: "no game in progress",
}

_ENOSPC = 28
_BLOCK = 4096
_PACK_MAX = 64 * 1024  # a new pack starts past this: eviction frees space in 64 KiB steps


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
    ``pack_max`` the size past which a new pack file starts.
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
        self.pack_max = pack_max
        self.game_no = 0  # the game being journaled, 0: none
        self._seed = None  # the last 4 bytes of the live file (the CRC chain), None: reread
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

    # -- writing --------------------------------------------------------------------------

    def _append(self, rec):
        t, payload = R.encode(rec)
        path = self._live(self.game_no)
        for attempt in (0, 1):
            try:
                if self._seed is None:
                    self._repair(self.game_no)
                data = R.frame(t, payload, self._seed)
                with open(path, "ab") as f:
                    f.write(data)
                self._seed = bytes(data[-4:])
                return OK
            except OSError as e:
                self._seed = None  # the tail is unknown now: reread before the next append
                if not _nospace(e):
                    self.log("journal: write failed: %r" % (e,))
                    return E_IO
                if attempt or not self.evict(2 * _BLOCK):
                    return E_FULL
        return E_FULL

    def _repair(self, g):
        # Reread game g's live file; rewrite it if anything in it was bad. Sets the seed.
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
        self._seed = bytes(data[-4:])
        return [rec for _, _, rec in found]

    def begin(self, header):
        """Start journaling a new game; ``header`` a dict of ``records.HEADER_FIELDS`` keys.

        Its ``game_no`` is assigned here (the one after every game the journal has seen) and
        kept in ``self.game_no``. Returns OK, E_FULL or E_IO.
        """
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
        self._seed = R.MAGIC
        try:
            with open(self._live(g), "wb") as f:
                f.write(R.MAGIC)
        except OSError as e:
            self._seed = None
            return E_FULL if _nospace(e) else E_IO
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
        for g in self._names("g", ".tgj"):
            n = max(n, g + 1)
        for k in self._names("p", ".tgp"):
            for g, _, _ in self._entries(k):
                n = max(n, g + 1)
        return n

    def move(self, ply, colour, point, tick, clocks):
        """A committed move: ``point`` y<<5|x or ``records.PASS``; ``clocks`` a tuple of ints,
        by convention ``(black main ms, black units, white main ms, white units)`` (each side's
        half starts with its main ms: the packed form relies on that); ``tick`` the paddle's
        ``ticks_ms`` (0 <= tick < 2**30)."""
        if not self.game_no:
            return E_NO_GAME
        return self._append((R.MOVE, ply, colour, point, tick, tuple(clocks)))

    def incident(self, kind, move_no, time_ms, points=(), detail=0):
        """An incident of ``firmware/referee/incidents.py`` (``detail`` an int)."""
        if not self.game_no:
            return E_NO_GAME
        return self._append((R.INCIDENT, kind, move_no, time_ms, tuple(points), detail or 0))

    def edit(self, kind, move_no, time_ms, args=()):
        """An arbiter edit (pause, adjust, undo, warning, timeout->pass, sealed move...)."""
        if not self.game_no:
            return E_NO_GAME
        return self._append((R.EDIT, kind, move_no, time_ms, tuple(args)))

    def clocks(self, move_no, clocks):
        """The clocks as they are now (at a pause, after an adjustment): what resume restores."""
        if not self.game_no:
            return E_NO_GAME
        return self._append((R.CLOCKS, move_no, tuple(clocks)))

    def result(self, winner, reason, margin2=0, move_no=0):
        """The game's result (winner 0 none/draw, 1 black, 2 white); then the game is packed."""
        if not self.game_no:
            return E_NO_GAME
        err = self._append((R.RESULT, winner, reason, margin2, move_no))
        if err:
            return err
        g = self.game_no
        self.game_no = 0
        self._seed = None
        return self._archive(g)

    # -- packing --------------------------------------------------------------------------

    def _archive(self, g):
        # Pack finished game g and remove its live file. OK, or the error (the live file stays).
        recs = self._repair(g)
        self._seed = None
        if self._find(g) is None:
            blob = R.pack(g, recs)
            err = self._pack_append(blob)
            if err:
                return err
        try:
            os.remove(self._live(g))
        except OSError as e:
            self.log("journal: cannot remove %s: %r" % (self._live(g), e))
        return OK

    def _pack_append(self, blob):
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
                else:
                    with open(path, "rb") as f:
                        f.seek(size - 4)
                        seed = f.read(4)
                with open(path, "ab") as f:
                    f.write(R.pack_entry(blob, seed))
                return OK
            except OSError as e:
                if not _nospace(e):
                    self.log("journal: pack write failed: %r" % (e,))
                    return E_IO
                if attempt or not self.evict(len(blob) + _BLOCK):
                    return E_FULL
        return E_FULL

    def _entries(self, k):
        # (game_no, offset, blob length) of each valid entry in pack k, read in small pieces
        # (a pack is up to 64 KiB; the board's heap is not). Sets self._clean: no bad bytes.
        out = []
        self._clean = True
        try:
            f = open(self._pack(k), "rb")
        except OSError:
            return out
        with f:
            seed = f.read(4)
            if seed != R.PACK_MAGIC:
                self._clean = not seed
                if seed:
                    self.log("journal: pack %d: bad magic" % k)
                return out
            p = 4
            while True:
                head = f.read(4)
                if len(head) < 4:
                    if head:
                        self._clean = False
                        self.log("journal: pack %d: %d stray bytes at the end" % (k, len(head)))
                    return out
                n = R.u32(head, 0)
                c = R.crc32(head, R.u32(seed, 0))
                left = n
                first = b""
                while left:
                    chunk = f.read(left if left < 256 else 256)
                    if not chunk:
                        break
                    if not first:
                        first = chunk[:5]
                    c = R.crc32(chunk, c)
                    left -= len(chunk)
                tail = f.read(4)
                if left or len(tail) < 4 or c & 0xFFFFFFFF != R.u32(tail, 0):
                    self._clean = False
                    self.log("journal: pack %d: bad entry at byte %d: rest dropped" % (k, p))
                    return out
                try:
                    g = R.get_u(first, 0, len(first))[0]
                except R.Bad:
                    g = 0
                out.append((g, p, n))
                seed = tail
                p += n + 8

    def _find(self, g):
        # (pack number, offset, length) of game g's packed entry, or None.
        for k in self._names("p", ".tgp"):
            for gg, p, n in self._entries(k):
                if gg == g:
                    return k, p, n
        return None

    def settle(self):
        """Pack every finished game still in a live file (after a cut during packing)."""
        for g in self._names("g", ".tgj"):
            if g == self.game_no:
                continue
            recs = self._repair(g)
            self._seed = None
            if recs and recs[-1][0] == R.RESULT:
                self._archive(g)

    # -- boot -----------------------------------------------------------------------------

    def resume(self):
        """At boot: the unfinished game to resume, or None.

        Returns a dict: ``game_no``, ``header``, ``moves`` [(ply, colour, point, tick,
        clocks)], ``incidents`` [(kind, move_no, time_ms, points, detail)], ``edits``,
        ``clocks`` (the latest clocks recorded, or None), ``records`` (all, in order). The
        journal then appends to that game. Problems found are logged, never raised.
        """
        try:
            self.settle()
            live = self._names("g", ".tgj")
        except OSError as e:
            self.log("journal: resume failed: %r" % (e,))
            return None
        for g in reversed(live):
            try:
                recs = self._repair(g)
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
        self._seed = None
        return None

    # -- acks and eviction ----------------------------------------------------------------

    def acked(self):
        """The set of game numbers the PC has confirmed."""
        data = read_file(self.root + "/acks.tgj")
        if not data:
            return set()
        return set(rec[1] for _, _, rec in R.scan(data, R.MAGIC, self.log) if rec[0] == R.ACK)

    def ack(self, game_no):
        """The PC holds game ``game_no``: from now on it may be evicted. OK or an error."""
        path = self.root + "/acks.tgj"
        try:
            data = read_file(path)
            if not data:
                data = R.MAGIC
                with open(path, "wb") as f:
                    f.write(data)
            else:
                found = R.scan(data, R.MAGIC, self.log)
                if sum(e - p for p, e, _ in found) + 4 != len(data):
                    data = R.build([data[p : e - 4] for p, e, _ in found])
                    write_atomic(path, data)
            t, payload = R.encode((R.ACK, game_no))
            with open(path, "ab") as f:
                f.write(R.frame(t, payload, data[-4:]))
            return OK
        except OSError as e:
            return E_FULL if _nospace(e) else E_IO

    def evict(self, need_bytes):
        """Remove acked games, oldest first, until ``need_bytes`` are freed; the bytes freed.

        A pack goes only when every game in it is acked; an acked live file only if it is not
        the game in progress. Unacked games are never removed.
        """
        acked = self.acked()
        freed = 0
        for k in self._names("p", ".tgp"):
            if freed >= need_bytes:
                break
            entries = self._entries(k)
            if entries and all(g in acked for g, _, _ in entries):
                size = _size(self._pack(k))
                os.remove(self._pack(k))
                freed += (size + _BLOCK - 1) // _BLOCK * _BLOCK
                self.log(
                    "journal: evicted pack %d (games %d-%d)" % (k, entries[0][0], entries[-1][0])
                )
        for g in self._names("g", ".tgj"):
            if freed >= need_bytes:
                break
            if g in acked and g != self.game_no:
                size = _size(self._live(g))
                os.remove(self._live(g))
                freed += (size + _BLOCK - 1) // _BLOCK * _BLOCK
                self.log("journal: evicted game %d" % g)
        return freed

    # -- listing for the PC link ----------------------------------------------------------

    def games(self):
        """Every game kept: [(game_no, size_bytes, finished, acked)], by game number."""
        acked = self.acked()
        out = []
        for k in self._names("p", ".tgp"):
            for g, _, n in self._entries(k):
                out.append((g, n, True, g in acked))
        for g in self._names("g", ".tgj"):
            recs = self.records(g)
            done = bool(recs) and recs[-1][0] == R.RESULT
            out.append((g, _size(self._live(g)), done, g in acked))
        out.sort()
        return out

    def read(self, game_no):
        """The stored bytes of a game: its pack blob, or its live file; None if not kept."""
        path = self._live(game_no)
        data = read_file(path)
        if data is not None:
            return data
        at = self._find(game_no)
        if at is None:
            return None
        k, p, n = at
        with open(self._pack(k), "rb") as f:
            f.seek(p + 4)
            return f.read(n)

    def records(self, game_no):
        """A game's decoded records (the header first), from either form; [] if not kept."""
        data = read_file(self._live(game_no))
        if data is not None:
            return [rec for _, _, rec in R.scan(data, R.MAGIC, self.log)]
        blob = self.read(game_no)
        if blob is None:
            return []
        try:
            return R.unpack(blob)[1]
        except R.Bad as e:
            self.log("journal: game %d: packed entry unreadable (%s)" % (game_no, e))
            return []
