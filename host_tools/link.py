"""The host's end of the PC link (DESIGN.md §4): find Tengen boards, ask them things.

Start reading at ``Link.request``. One request is one JSON line ``{"v":1,"id":n,"cmd":...}``;
the board answers with one line carrying the same id (``firmware/link/server.py``). USB CDC
drops what no one reads, so a request that gets no answer in time is sent again, the very same
bytes with the same id: the board answers a repeated request from its cache and does not carry
it out twice. Event lines (``{"event":...}``, from ``watch``) are set aside in ``events``.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from pathlib import Path

import serial
from serial.tools import list_ports

VERSION = 1
USB_VID = 0x2E8A  # Raspberry Pi: every plain MicroPython RP2040 board has this id...
USB_PID = 0x0005  # ...so a board is confirmed as Tengen by its ``hello``
BAUD = 115200  # USB CDC ignores it; a UART adapter needs it


class LinkError(Exception):
    """The board said no (``code``: its error code, ``message``: its words) or the link failed
    (``code`` "timeout", "io", "bad_reply")."""

    def __init__(self, code: str, message: str):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message


class Link:
    """A link to one board over ``port`` (a device path, opened exclusively, or an open
    pyserial-like object with ``read``/``write``/``timeout``).

    ``timeout`` seconds to wait for a reply, ``retries`` times the request is sent again
    (waiting ``backoff``, doubled each time, in between).
    """

    def __init__(self, port, timeout: float = 2.0, retries: int = 4, backoff: float = 0.1):
        if isinstance(port, str):
            try:
                self.ser = serial.Serial(port, BAUD, timeout=0.05, exclusive=True)
            except (serial.SerialException, OSError) as e:
                raise LinkError("io", "cannot open %s: %s" % (port, e)) from None
            self.port = port
        else:
            self.ser = port
            self.port = getattr(port, "port", None) or getattr(port, "name", "?")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.next_id = int(time.time() * 1000) % (1 << 20)  # not one a previous run used
        self.buf = bytearray()
        self.events: deque = deque(maxlen=1000)
        self.resent = 0  # requests sent again (for the curious and the tests)

    def close(self) -> None:
        try:
            self.ser.close()
        except (serial.SerialException, OSError):
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- lines ----------------------------------------------------------------------------

    def _readline(self, deadline: float) -> bytes | None:
        """The next line (without ``\\r\\n``), or None at the deadline."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i]).rstrip(b"\r")
                del self.buf[: i + 1]
                return line
            if time.monotonic() >= deadline:
                return None
            try:
                waiting = getattr(self.ser, "in_waiting", 0)
                data = self.ser.read(max(1, min(waiting, 65536)))
            except (serial.SerialException, OSError) as e:
                raise LinkError("io", "the link to %s failed: %s" % (self.port, e)) from None
            if data:
                self.buf.extend(data)
                if len(self.buf) > 1 << 20:  # no line is that long: garbage, drop it
                    self.buf.clear()

    def _write(self, data: bytes) -> None:
        try:
            self.ser.write(data)
            self.ser.flush()
        except (serial.SerialException, OSError) as e:
            raise LinkError("io", "the link to %s failed: %s" % (self.port, e)) from None

    # ---- requests -------------------------------------------------------------------------

    def request(self, cmd: str, **fields) -> dict:
        """Send ``cmd`` with ``fields``; the reply's fields (a dict). Raises ``LinkError``: the
        board's error code and message on ``ok: false``, "timeout" if it never answered."""
        self.next_id = (self.next_id + 1) % (1 << 31)
        rid = self.next_id
        req = {"v": VERSION, "id": rid, "cmd": cmd}
        req.update(fields)
        data = json.dumps(req, separators=(",", ":")).encode() + b"\n"
        wait = self.backoff
        for attempt in range(self.retries + 1):
            if attempt:
                self.resent += 1
                time.sleep(wait)
                wait *= 2
            self._write(data)
            deadline = time.monotonic() + self.timeout
            while True:
                line = self._readline(deadline)
                if line is None:
                    break  # no answer: ask again
                reply = _parse(line)
                if reply is None:
                    continue  # noise on the line
                if "event" in reply:
                    self.events.append(reply)
                    continue
                if reply.get("id") != rid:
                    continue  # a late answer to an earlier request, or to garbage
                if not reply.get("ok"):
                    raise LinkError(
                        str(reply.get("error", "error")), str(reply.get("message", ""))
                    )
                return reply
        raise LinkError(
            "timeout", "no answer to %r from %s after %d tries" % (cmd, self.port, attempt + 1)
        )

    def read_event(self, timeout: float) -> dict | None:
        """The next event line (``{"event":...}``, from ``watch``): one set aside in ``events``
        first, else one read within ``timeout`` seconds; None if none came. Replies to no
        request waiting are dropped. Raises ``LinkError`` ("io") if the link failed."""
        if self.events:
            return self.events.popleft()
        deadline = time.monotonic() + timeout
        while True:
            line = self._readline(deadline)
            if line is None:
                return None
            obj = _parse(line)
            if obj is not None and "event" in obj:
                return obj


def _parse(line: bytes) -> dict | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


# ---- virtual boards (``tengen sim``): their ptys, in a per-user runtime folder --------------

RUNTIME_ENV = "TENGEN_RUNTIME_DIR"  # overrides the folder (the tests use it)


def runtime_dir() -> Path:
    """Where running virtual boards leave their pty's path: the user's runtime folder."""
    folder = os.environ.get(RUNTIME_ENV)
    if not folder:
        import warnings

        from platformdirs import user_runtime_dir

        with warnings.catch_warnings():  # no XDG_RUNTIME_DIR: the fallback is fine here
            warnings.simplefilter("ignore")
            folder = user_runtime_dir("tengen", appauthor=False)
    return Path(folder)


def register_virtual(port: str, flash: str, board_pid: int | None = None) -> Path:
    """Note that a virtual board serves its link on ``port`` while this process lives (its
    flash folder, the board's own process); the file to remove when it stops
    (``unregister_virtual``)."""
    folder = runtime_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / ("virtual-%d.json" % os.getpid())
    tmp = path.with_name(path.name + ".tmp")
    note = {"port": port, "pid": os.getpid(), "board_pid": board_pid, "flash": flash}
    tmp.write_text(json.dumps(note))
    os.replace(tmp, path)
    return path


def unregister_virtual(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def virtual_ports() -> list[str]:
    """The ptys of the virtual boards running for this user (files left by a process that
    is gone are removed)."""
    ports = []
    try:
        files = sorted(runtime_dir().glob("virtual-*.json"))
    except OSError:
        return ports
    for f in files:
        try:
            note = json.loads(f.read_text())
            pid = int(note["pid"])
            port = str(note["port"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not _alive(pid):
            unregister_virtual(f)
            continue
        ports.append(port)
    return ports


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def find_boards(ports=None, timeout: float = 0.5) -> list[dict]:
    """Tengen boards: ``[{"port": path, **hello}]``. ``ports`` the device paths to try (default:
    every USB serial port with id 2E8A:0005, then the virtual boards' ptys, ``tengen sim``);
    each is confirmed by its ``hello``."""
    if ports is None:
        ports = [p.device for p in list_ports.comports() if p.vid == USB_VID and p.pid == USB_PID]
        ports += [p for p in virtual_ports() if p not in ports]
    found = []
    for path in ports:
        try:
            with Link(path, timeout=timeout, retries=1) as link:
                hello = link.request("hello")
        except LinkError:
            continue  # busy, not answering, or not ours
        if hello.get("name") == "tengen":
            found.append(dict(hello, port=path))
    return found
