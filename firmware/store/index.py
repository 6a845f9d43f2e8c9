"""Where every kept game is, in RAM: the journal's index (``journal.py`` keeps it current).

Three ``array('I')`` hold one slot per game, sorted by game number:

    no    the game number
    at    0: the game is a live file (``g000123.tgj``); else ``k << 16 | offset``: its entry
          starts ``offset`` bytes into pack ``k`` (entries start below 64 KiB: ``journal.py``
          keeps ``pack_max`` <= 65,536)
    nf    ``length << 2 | ACKED | FINISHED``: a packed game's blob length (0 for a live file,
          whose size is read when asked), whether the PC confirmed it, whether it is finished

12 bytes a game: 12,000 bytes for 1,000 games and 16 slots (a rebuild makes it at its size
once; a game kept after grows it an eighth, in place where the heap allows). A
lookup is a binary search; ``page`` walks from a slot; nothing here reads the flash. The index
is never stored: ``Journal`` rebuilds it from the packs, the live files and the acks file when
it starts (``Journal.rebuild``), so a power cut cannot leave it stale.
"""

from array import array

FINISHED = 1
ACKED = 2
_GROW_MIN = 16


def _words(n):
    # An array('I') of n words (their values unused): from a range, whose length is known, so
    # the array is made at its size with no list or bytes of n items first.
    return array("I", range(n))


class Index:
    """The slots, ``count`` of them in use, room for ``len(self.no)``."""

    def __init__(self, room=_GROW_MIN):
        self.count = 0
        self.no = _words(room)
        self.at = _words(room)
        self.nf = _words(room)

    def find(self, g):
        """The slot of game ``g``, or -1."""
        i = self.after(g - 1)
        return i if i < self.count and self.no[i] == g else -1

    def after(self, g):
        """The first slot whose game number is above ``g`` (``count`` if none)."""
        lo = 0
        hi = self.count
        no = self.no
        while lo < hi:
            mid = (lo + hi) >> 1
            if no[mid] <= g:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def put(self, g, at, length, finished):
        """Game ``g`` is at ``at`` (see the module's docstring); keeps its ACKED bit. New games
        come with the highest number, so this appends; an older one is inserted."""
        i = self.after(g - 1)
        flags = FINISHED if finished else 0
        if i < self.count and self.no[i] == g:
            flags |= self.nf[i] & ACKED
        else:
            if self.count == len(self.no):
                self._resize(self.count + max(_GROW_MIN, self.count >> 3))
            j = self.count
            while j > i:  # only when an older game turns up (a rebuild out of order)
                self.no[j] = self.no[j - 1]
                self.at[j] = self.at[j - 1]
                self.nf[j] = self.nf[j - 1]
                j -= 1
            self.count += 1
            self.no[i] = g
        self.at[i] = at
        self.nf[i] = length << 2 | flags
        return i

    def ack(self, g):
        """Mark game ``g`` confirmed by the PC; False if it is not kept or was marked already
        (the journal counts such acks: ``Journal._ack_stale``)."""
        i = self.find(g)
        if i < 0 or self.nf[i] & ACKED:
            return False
        self.nf[i] |= ACKED
        return True

    def drop(self, keep):
        """Remove every slot ``i`` for which ``keep(i)`` is false, in place."""
        j = 0
        for i in range(self.count):
            if keep(i):
                self.no[j] = self.no[i]
                self.at[j] = self.at[i]
                self.nf[j] = self.nf[i]
                j += 1
        self.count = j

    def trim(self, spare=_GROW_MIN):
        """Give back the room beyond ``spare`` free slots (after a rebuild)."""
        if len(self.no) > self.count + spare:
            self._resize(self.count + spare)

    def _resize(self, room):
        # Grown in place where the heap allows (``extend`` reallocates: the old words are
        # freed at once, not left for the collector); shrunk by a copy.
        for name in ("no", "at", "nf"):
            old = getattr(self, name)
            if room > len(old):
                old.extend(_words(room - len(old)))
            else:
                setattr(self, name, old[:room])
