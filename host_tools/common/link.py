"""The host's end of the PC link (DESIGN.md §4): find Tengen boards, ask them things.

Start reading at ``Link.request``. One request is one JSON line ``{"v":1,"id":n,"cmd":...}``;
the board answers with one line carrying the same id (``firmware/link/server.py``). USB CDC
drops what no one reads, so a request that gets no answer in time is sent again, the very same
bytes with the same id: the board answers a repeated request from its cache and does not carry
it out twice. Event lines (``{"event":...}``, from ``watch``) are set aside in ``events``.

A paired board obeys only the PC holding its key (issue [O]; the form in
firmware/link/server.py's header). ``Link`` sends plainly until the board answers ``need_mac``;
then it reads the board's id, this boot's nonce and its last ``seq`` from ``hello``, takes the
key ``tengen pair`` kept for that board (host_tools/common/keys.py, or ``Link.key``), and from then on
signs every request but the reads (``OPEN``), each with the next ``seq``. A resend is the same
signed bytes (the board's cache answers it); ``bad_mac`` (the board restarted: a new nonce) or
``replayed`` (another PC signed meanwhile) make it read ``hello`` again and sign anew, once.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from pathlib import Path

import serial
from serial.tools import list_ports

try:  # pyserial's flush on POSIX drains with termios, whose error is not an OSError
    from termios import error as _TermiosError
except ImportError:  # Windows
    _TermiosError = OSError

# What a port can raise when the board goes away mid-transfer (a pty hung up, USB unplugged).
_IO_ERRORS = (serial.SerialException, OSError, _TermiosError)

VERSION = 1
USB_VID = 0x2E8A  # Raspberry Pi: every plain MicroPython RP2040 board has this id...
USB_PID = 0x0005  # ...so a board is confirmed as Tengen by its ``hello``
BAUD = 115200  # USB CDC ignores it; a UART adapter needs it
# The commands a paired board takes unsigned (firmware/link/server.py ``_OPEN``; ``settings``
# and ``time`` only read are not checked either, but signing them costs nothing).
OPEN = ("hello", "state", "watch", "list", "get", "pair")
_SIGN_ERRORS = ("need_mac", "bad_mac", "replayed")


class LinkError(Exception):
    """The board said no (``code``: its error code, ``message``: its words) or the link failed
    (``code`` "timeout", "io", "bad_reply"). A port that could not be opened is "io" with a
    ``reason``: "busy" (another program has it), "permission" (not allowed: the group hint in
    the message), "missing" (no such port), or "io"."""

    def __init__(self, code: str, message: str, reason: str = ""):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.reason = reason or code


def _port_group(port: str) -> str | None:
    # The group that owns the device file ``port`` (dialout, uucp...), if it can be read.
    try:
        import grp

        return grp.getgrgid(os.stat(port).st_gid).gr_name
    except (ImportError, OSError, KeyError):
        return None


def open_error(port: str, e: Exception) -> LinkError:
    """The ``LinkError`` for ``port`` not opening with ``e`` (pyserial's SerialException or an
    OSError), its ``reason`` and a message that says what to do."""
    import errno

    num = getattr(e, "errno", None)
    text = str(e)
    if (
        num in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK)
        or "exclusively lock" in text
        or (os.name == "nt" and ("Access is denied" in text or "PermissionError" in text))
    ):  # Windows says "access denied" for a port another program has open
        return LinkError(
            "io",
            "%s is busy: another program has it open (tengen watch or sync, mpremote, a serial "
            "terminal, ModemManager); close it and try again" % port,
            "busy",
        )
    if num in (errno.EACCES, errno.EPERM):
        group = _port_group(port) or "dialout"
        return LinkError(
            "io",
            "permission denied on %s: it belongs to the group '%s'; add yourself to it "
            "(sudo usermod -aG %s $USER), then log out and in again" % (port, group, group),
            "permission",
        )
    if num in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
        return LinkError("io", "%s is not there (unplugged?): %s" % (port, text), "missing")
    return LinkError("io", "cannot open %s: %s" % (port, text), "io")


CLOCK_DRIFT_S = 2  # the board's calendar may be this far from the PC's before it is set


def set_clock(link) -> bool:
    """Set the board's calendar clock to this PC's when it is unset or has drifted: what
    dates its records (the SGF's DT). The CLI does it at every connect, as SPEC §5 asks;
    ``tengen time`` alone only shows it. True if it was set. A board that refuses is left."""
    try:
        now = int(time.time())
        epoch = link.request("time").get("epoch")
        if epoch is None or abs(epoch - now) > CLOCK_DRIFT_S:
            link.request("time", epoch=int(time.time()))
            return True
    except LinkError:
        pass
    return False


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
            except _IO_ERRORS as e:
                raise open_error(port, e) from None
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
        self.key: bytes | None = None  # the board's key; None: the one tengen pair kept
        self.signing: list | None = None  # [key, nonce bytes, last seq] once the board asked
        self.board = ""  # the board's id, once read for signing

    def close(self) -> None:
        try:
            self.ser.close()
        except _IO_ERRORS:
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
            except _IO_ERRORS as e:
                raise LinkError("io", "the link to %s failed: %s" % (self.port, e)) from None
            if data:
                self.buf.extend(data)
                if len(self.buf) > 1 << 20:  # no line is that long: garbage, drop it
                    self.buf.clear()

    def _write(self, data: bytes) -> None:
        try:
            self.ser.write(data)
            self.ser.flush()
        except _IO_ERRORS as e:
            raise LinkError("io", "the link to %s failed: %s" % (self.port, e)) from None

    # ---- requests -------------------------------------------------------------------------

    def request(self, cmd: str, **fields) -> dict:
        """Send ``cmd`` with ``fields``; the reply's fields (a dict). Raises ``LinkError``: the
        board's error code and message on ``ok: false``, "timeout" if it never answered. A
        paired board's request is signed with its key (the module's header)."""
        fresh = False  # signing with what hello said just now
        while True:
            try:
                return self._request(cmd, fields)
            except LinkError as e:
                if e.code not in _SIGN_ERRORS or cmd in OPEN:
                    raise
                if fresh:  # signed as hello said, and still refused
                    if e.code == "bad_mac":
                        raise LinkError(
                            "bad_mac",
                            "the key this PC keeps for board %s is not the board's: pair "
                            "again (tengen pair --pin PIN)" % self.board,
                        ) from None
                    raise
                self._start_signing()
                fresh = True

    def _start_signing(self) -> None:
        # The board asked for signed requests: its id, nonce and last seq from hello, and
        # the key kept for it (LinkError need_mac if this PC holds none).
        hello = self._request("hello", {})
        self.board = str(hello.get("board", ""))
        key = self.key
        if key is None:
            from host_tools.common import keys

            key = keys.get(self.board)
        if key is None:
            self.signing = None
            raise LinkError(
                "need_mac",
                "board %s is paired with another PC and obeys only its key: pair this one "
                "(tengen pair --pin PIN, then MODE on the board)" % self.board,
            )
        self.signing = [key, str(hello.get("nonce", "")).encode(), int(hello.get("seq", 0))]

    def _encode(self, cmd: str, fields: dict) -> bytes:
        # The request's line (with its newline), signed when the board wants it: its bytes up
        # to the closing brace, then ``,"mac":"<hex>"}``, the HMAC of the nonce and those bytes.
        import hashlib
        import hmac

        self.next_id = (self.next_id + 1) % (1 << 31)
        req = {"v": VERSION, "id": self.next_id, "cmd": cmd}
        req.update(fields)
        sign = self.signing
        if sign is None or cmd in OPEN:
            return json.dumps(req, separators=(",", ":")).encode() + b"\n"
        sign[2] += 1
        req["seq"] = sign[2]
        body = json.dumps(req, separators=(",", ":")).encode()[:-1]
        mac = hmac.new(sign[0], sign[1] + body, hashlib.sha256).hexdigest()
        return body + b',"mac":"' + mac.encode() + b'"}\n'

    def _request(self, cmd: str, fields: dict) -> dict:
        # One request, sent again while unanswered (the very same bytes); the reply.
        data = self._encode(cmd, fields)
        rid = self.next_id
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
                if "cmd" in reply:
                    # A request, not a reply: ours echoed by a board at MicroPython's REPL (a
                    # freshly flashed one, where the app does not run yet), which answers
                    # nothing; taken for a reply it read as an error with no message.
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


def stop_watching(link) -> None:
    """Turn the board's events off (if it is still there, without retrying) and close the
    port: how ``tengen watch`` and ``tengen relay`` leave a board."""
    try:
        link.retries = 0
        link.request("watch", on=False)
    except (LinkError, AttributeError):  # gone, or a test's stand-in link
        pass
    link.close()


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


def register_virtual(
    port: str, flash: str, board_pid: int | None = None, kind: str = "virtual", pid=None
) -> Path:
    """Note that a board serves its link on ``port`` while process ``pid`` lives (default this
    one): a virtual board (``kind`` "virtual", tengen sim: its flash folder, the board's own
    process) or the emulated chip ("chip", host_tools/board/emulator.py: its flash file, the
    bridge); the file to remove when it stops (``unregister_virtual``)."""
    folder = runtime_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    pid = os.getpid() if pid is None else pid
    # One note per board: one process may serve several boards (make hall-demo).
    path = folder / ("%s-%d-%s.json" % (kind, pid, os.path.basename(port)))
    tmp = path.with_name(path.name + ".tmp")
    note = {"port": port, "pid": pid, "board_pid": board_pid, "flash": flash}
    tmp.write_text(json.dumps(note))
    os.replace(tmp, path)
    return path


def unregister_virtual(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def virtual_ports(kind: str = "virtual") -> list[str]:
    """The ptys of the boards of ``kind`` running for this user: "virtual" (tengen sim, the
    boards deploy leaves alone) or "chip" (emulated RP2040s). Notes left by a process that is
    gone are removed."""
    ports = []
    try:
        files = sorted(runtime_dir().glob("%s-*.json" % kind))
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


def noted_ports() -> list[str]:
    """The ports noted in the runtime folder: the virtual boards', then the emulated chips'."""
    return virtual_ports() + virtual_ports("chip")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def find_boards(ports=None, timeout: float = 0.5, unreachable: list | None = None) -> list[dict]:
    """Tengen boards: ``[{"port": path, **hello}]``. ``ports`` the device paths to try (default:
    every USB serial port with id 2E8A:0005, then the virtual boards' ptys, ``tengen sim``, and
    the emulated chips', host_tools/board/emulator.py); each is confirmed by its ``hello``.

    The ports tried that are not boards go to ``unreachable`` (a list, if given), each as
    ``{"port", "ok": False, "error", "message"}``: "busy", "permission" (the message names the
    port's group to join), "missing" or "io" when it could not be opened; "no_answer" when it
    did not answer ``hello`` (a MicroPython board not running the Tengen app, say); "not_tengen"
    when something else answered."""
    if ports is None:
        ports = [p.device for p in list_ports.comports() if p.vid == USB_VID and p.pid == USB_PID]
        ports += [p for p in noted_ports() if p not in ports]
    found = []
    for path in ports:
        try:
            with Link(path, timeout=timeout, retries=1) as link:
                hello = link.request("hello")
        except LinkError as e:
            if e.code == "timeout":
                reason = "no_answer"
                message = "%s did not answer hello: a MicroPython board not running the " % path
                message += "Tengen app (at the REPL, in safe mode)?"
            elif e.code == "io":
                reason, message = e.reason, e.message
            else:  # an error reply to hello: something speaks the protocol, not as we do
                reason, message = "not_tengen", "%s answered hello with %s" % (path, e)
            _note(unreachable, path, reason, message)
            continue
        if hello.get("name") == "tengen":
            found.append(dict(hello, port=path))
        else:
            _note(unreachable, path, "not_tengen", "%s is not a Tengen board" % path)
    return found


def _note(unreachable: list | None, port: str, reason: str, message: str) -> None:
    if unreachable is not None:
        unreachable.append({"port": port, "ok": False, "error": reason, "message": message})
