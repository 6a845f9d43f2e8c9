"""A block device in RAM for ``VfsLfs2``: the virtual board's flash, and the power-cut tests' one.

It implements MicroPython's extended block protocol (``readblocks``/``writeblocks`` with an
offset, ``ioctl`` 4 count, 5 size, 6 erase), so LittleFS programs partial blocks as it does
on the RP2040's flash. Every program and erase is one operation, counted in ``ops``; with
``log`` set each is appended there as ``(block, offset, bytes)`` (an erase as ``(block, 0,
None)``, to keep the log small), so a
test can rebuild the flash as it was after any prefix of them. ``cut`` (an op number) makes
that op and every later one fail: raise OSError(5), or with ``silent`` be dropped quietly, as
flash that lost power would.
"""

_EIO = 5


class RamBlockDevice:
    def __init__(self, block_size=4096, count=352, data=None):
        self.block_size = block_size
        self.count = count
        self.data = bytearray(block_size * count) if data is None else data
        self.ops = 0
        self.cut = 0  # the first op that fails; 0: none
        self.silent = False
        self.log = None

    def readblocks(self, block, buf, offset=0):
        a = block * self.block_size + offset
        buf[:] = self.data[a : a + len(buf)]

    def _op(self, a, data, erase=False):
        self.ops += 1
        if self.cut and self.ops >= self.cut:
            if self.silent:
                return
            raise OSError(_EIO)
        self.data[a : a + len(data)] = data
        if self.log is not None:
            bs = self.block_size
            self.log.append((a // bs, a % bs, None if erase else bytes(data)))

    def writeblocks(self, block, buf, offset=None):
        self._op(block * self.block_size + (offset or 0), buf)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.count
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase
            self._op(arg * self.block_size, b"\xff" * self.block_size, True)
            return 0
        return 0 if op in (1, 2, 3) else None


class FileBlockDevice:
    """The same protocol over a file (the virtual board's flash kept between runs; big test disks
    without holding them in RAM). The file is created filled with 0xFF if it is too short."""

    def __init__(self, path, block_size=4096, count=352):
        self.block_size = block_size
        self.count = count
        try:
            self.f = open(path, "r+b")
        except OSError:
            self.f = open(path, "w+b")
        self.f.seek(0, 2)
        have = self.f.tell()
        blank = b"\xff" * block_size
        while have < block_size * count:
            self.f.write(blank)
            have += block_size

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_size + offset)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, offset=None):
        self.f.seek(block * self.block_size + (offset or 0))
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.count
        if op == 5:
            return self.block_size
        if op == 6:
            self.writeblocks(arg, b"\xff" * self.block_size)
            return 0
        if op == 3:  # sync
            self.f.flush()
        return 0 if op in (1, 2, 3) else None

    def close(self):
        self.f.close()
