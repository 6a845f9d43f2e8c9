"""The PC link's commands: one ``Server`` between the serial line and the board's game.

Start reading at ``Server.poll``. The server is pure: bytes come in through ``feed``, reply
lines go out through ``out(bytes)``, times come from ``now()``; the board's task (``serve``,
at the end) reads the USB serial and calls both, and the tests do the same with strings.

A request is one JSON object on a line: ``{"v":1,"id":n,"cmd":"...", ...}``; ``id`` an int
(0 <= id < 2**31) or a string of at most 32 characters. Every request line gets exactly one
reply line, with its id when the id could be read. A request seen again (the same id and the
same bytes, among the last ``CACHE`` requests and ``CACHE_BYTES`` of replies) gets the very
same reply and is not carried out twice: USB CDC drops what no one reads, so the host asks
again (its latest request only). The commands are in ``COMMANDS``; each takes the request and returns the reply's fields, or raises ``Reject``.

Bad input never reaches the game: framing is bounded (``protocol.Framer``), ``poll`` handles
at most ``LINES_PER_POLL`` lines, every failure becomes an error reply, and nothing raises out
of ``poll``. A line that is not strict UTF-8 gets ``bad_utf8`` (MicroPython would take it and
echo its bytes back), so every line the board writes is UTF-8 JSON. An error reply carries the
request's id even when the line is not JSON or is too long (``protocol.find_id`` reads it from
the bytes). Running out of memory is an error like the others: the request is tried once more
after a collection, then answered ``no_memory`` with its id from a buffer made at start,
allocating nothing. The protected commands (``delete``, ``adjust``, ``maintenance``, ``pair``,
and ``settings`` changing the PIN) need the arbiter's PIN in ``"pin"``; ``PIN_TRIES`` wrong
PINs lock them for ``PIN_LOCK_MS``, and each wrong PIN after that doubles the wait (``_pin_wait``).
With ``pin_file`` the count of wrong PINs is kept on flash (``write_atomic``) and read at start:
a power cycle restarts the wait from the boot, it never ends it (issue [O]: with the count in
RAM a restart after every third guess tried all 10,000 PINs in 17 minutes).

Once paired, the board obeys only the PC that holds its key (issue [O]: anyone on the USB port
could ``ack`` a game before the arbiter's PC had it). ``pair`` hands the key out under the PIN,
never with the factory PIN (``factory_pin``: set a new one first), and only once the arbiter
confirmed it at the board: the first ``pair`` puts ``PAIR ?`` on the faces and is answered
``press_key``; a MODE press within ``PAIR_MS`` (the app calls ``press``) lets the next ``pair``
have the key. The server never waits: the PC asks again. Paired (a flag in ``paired_file``,
written once, kept across power cycles), every command but the reads (``_OPEN``, ``settings``
without ``set``, ``time`` without ``epoch``) must be signed: its line ends with
``,"mac":"<64 lowercase hex>"}``, the HMAC-SHA256 under the key of the nonce then the line's
bytes before that field (``nonce`` + ``line[:-74]``), and it carries ``"seq"``, above every
``seq`` taken since the boot. ``nonce`` (in ``hello``, with ``paired`` and the last ``seq``) is
drawn at each boot: a line signed before a power cycle fails as ``bad_mac``, one replayed in
the same boot as ``replayed`` (a request asked again, same id and bytes, still gets its cached
reply). Nothing of this is written per request: no flash wear. A request unsigned is
``need_mac``.

``selftest`` runs the sensor self-test (see ``cmd_selftest``).

``hello`` tells the board's budgets without the REPL (the app owns the USB): ``heap``, the free
heap after a collection now, the least of those since power-up and the one after
``board.build`` (``heap_free``: a collection costs a few ms, so it is taken at ``build`` and at
each ``hello``, never per frame); ``face_ms``, the tick when the app first drew the faces (on
the RP2040 the ms since power-up: the boot time to the first face); ``timing``, the worst
press-to-commit and gap between scanned frames since the last ``hello`` (``App.timing``).
``tengen boards`` prints them; ``tests/host/board/test_chip_budgets.py`` checks them on the
emulated chip.
"""

import binascii
import gc
import json
import os

from firmware.clock import ticks
from firmware.link import protocol as P
from firmware.link.hmac import equal, hmac_sha256
from firmware.link.protocol import Reject, _field, _int
from firmware.store import journal as J

FIRMWARE = "0.2.0"  # the firmware's version, as ``hello`` reports it
LINES_PER_POLL = 4  # request lines handled per ``poll``: the game's tasks come first
CACHE = 8  # replies kept for requests asked again
CACHE_BYTES = 2048  # ... and their bytes (beyond the newest): the heap a full journal needs
CHUNK = 1024  # ``get``'s default length (bytes of the game, before base64)
CHUNK_MAX = 2048
LIST_MAX = 50  # games per ``list`` reply
PIN_TRIES = 3
PIN_LOCK_MS = 60000
_PIN_DOUBLINGS = 10  # the wait stops growing at PIN_LOCK_MS << 10: 17 hours
SECRET_PATH = "/secret.bin"
SECRET_BYTES = 32
PAIR_MS = 30000  # the key press that confirms a pairing, then the PC's asking again, within it
# Never signed (host_tools/common/link.py):
_OPEN = ("hello", "state", "watch", "list", "get", "pair")
_MAC_AT = b',"mac":"'  # a signed line's end: this, 64 hex digits, '"}' (74 bytes)

_SETTING_KEYS = 24  # settings a ``settings`` request may set at once
_REBASE_MS = 1 << 27  # the calendar's tick base is moved on before ticks.diff would wrap

# The reply when the heap has no room, made without allocating (``Server._no_memory``): A, then
# '"id":' the id ',' when the id was found, then C; spaces to the buffer's end, then a newline.
_NOMEM_A = b'{"v":1,'
_NOMEM_B = b'"id":'
_NOMEM_C = b'"ok":false,"error":"no_memory","message":"out of memory: ask again"}'
_NOMEM_LEN = len(_NOMEM_A) + len(_NOMEM_B) + 2 + 4 * P.ID_CHARS + 1 + len(_NOMEM_C) + 1


def load_secret(path=SECRET_PATH):
    """The board's secret for the records' HMAC: 32 random bytes made on first boot and kept
    (written atomically) in ``path``."""
    from firmware.store.journal import read_file, write_atomic

    data = read_file(path)
    if data is not None and len(data) == SECRET_BYTES:
        return data
    secret = os.urandom(SECRET_BYTES)
    write_atomic(path, secret)
    return secret


def _pin_wait(fails):
    # How long the PIN stays locked after the last wrong one: none below PIN_TRIES, then
    # PIN_LOCK_MS, doubled by each wrong PIN after (a mistyping arbiter waits a minute; ten
    # thousand guesses would take years).
    if fails < PIN_TRIES:
        return 0
    return PIN_LOCK_MS << min(fails - PIN_TRIES, _PIN_DOUBLINGS)


def _read_count(path):
    # The count kept in ``path`` (0 if none or unreadable: a bad file is no reason not to boot).
    data = J.read_file(path) if path else None
    try:
        return max(0, int(data)) if data else 0
    except ValueError:
        return 0


class Server:
    """The link for one board.

    ``app`` the ``firmware.game.app.App`` (or a bare ``firmware.game.match.Match``): the game is always
    ``app.match``, which the app replaces when the players choose a new game. ``journal`` the
    ``firmware.store.journal.Journal``; ``secret`` the board's key (``load_secret``); ``out``
    writes one reply or event line (bytes); ``now`` the tick in ms; ``board`` the board id;
    ``settings`` the saved settings dict (default: the match's), ``save(settings)`` writes
    them (True if written); ``set_rtc(epoch)`` sets the calendar clock (the board's RTC).
    """

    def __init__(
        self,
        app,
        journal,
        secret,
        out,
        now=ticks.now_ms,
        board="",
        settings=None,
        save=None,
        set_rtc=None,
        pin_file=None,
        paired_file=None,
    ):
        self.app = app
        self.journal = journal
        self.secret = bytes(secret)
        self.out = out
        self.now = now
        self.board = board
        self.settings = settings if settings is not None else self._match().settings
        self.save = save
        self.set_rtc = set_rtc
        self.framer = P.Framer()
        self.cache = []  # (id, request bytes, reply bytes), oldest first
        self.watching = False
        self.maintenance = False  # set by ``maintenance``: the board's loop returns to the REPL
        self.pin_file = pin_file
        self.pin_fails = _read_count(pin_file)
        self._got = None  # get's last packed game: (game, file, size, crc, mac), its later chunks
        self.pin_lock_at = now()  # a count kept from before the boot waits from the boot
        self.paired_file = paired_file
        self.paired = bool(J.read_file(paired_file)) if paired_file else False
        self.nonce = binascii.hexlify(os.urandom(8))  # this boot's: signed lines of no other
        self.seq = 0  # the last signed request's seq taken since the boot
        self.pair_at = None  # when ``pair`` asked for the key press (a tick), or None
        self.pair_ok = False  # the key was pressed since
        self.epoch = None  # (calendar seconds, tick ms) when the PC set the time
        self.requests = 0  # lines handled
        self.errors = 0  # error replies sent
        self.faults = []  # unexpected exceptions (repr), the last few
        self.faults_lost = 0  # faults not kept for want of memory
        self._seen = None  # the watch's view: match, ply, clock key, incidents, result, and
        # the points to clear (their key)
        self.no_memory = 0  # requests answered no_memory
        self._nomem = bytearray(_NOMEM_LEN)  # that reply, made at start (_no_memory)
        self.heap_built = -1  # the free heap after board.build (heap_free), -1: not known
        self.heap_low = -1  # the least heap_free has seen

    # ---- the flow -----------------------------------------------------------------------------

    def feed(self, data):
        """Bytes from the serial line; returns how many were taken (see ``Framer.feed``)."""
        try:
            return self.framer.feed(data)
        except Exception as e:  # cannot happen; a broken link must still not stop the game
            self._fault(e)
            try:
                self.framer = P.Framer()
            except MemoryError:
                return 0
            return len(data)

    def poll(self):
        """Handle waiting requests (at most ``LINES_PER_POLL``) and send the watch's events.
        Returns the number of lines handled. Never raises."""
        done = 0
        try:
            self._watch_step()
        except Exception as e:
            self._fault(e)
        while done < LINES_PER_POLL and self.framer.waiting():
            line = self.framer.take()
            done += 1
            try:
                reply = self.handle(line)
            except Exception as e:  # handle catches everything; this is the last guard
                self._fault(e)
                reply = self._last_resort(line)
            self._write(reply)
        return done

    def handle(self, line):
        """The reply (bytes, one line) to one request line (bytes, or ``protocol.TOO_LONG``).
        Short of memory, the request is tried once more after a collection (what the failed
        try held is garbage by then); failing again, the reply is the ``no_memory`` buffer
        (a bytearray the next such reply overwrites: write it out before the next request)."""
        self.requests += 1
        try:
            try:
                return self._reply(line)
            except MemoryError:
                pass
            gc.collect()
            try:
                return self._reply(line)
            except MemoryError:
                return self._no_memory(line)
        finally:
            if line is P.TOO_LONG:
                self.framer.last_long_id = None  # this line's: not the next one's

    def _reply(self, line):
        # handle's work; MemoryError goes up to it.
        if line is P.TOO_LONG:
            rid = self.framer.last_long_id  # read from the line's first bytes
            return self._error(rid, "too_long", "line over %d bytes" % P.MAX_LINE)
        bad = P.utf8_error(line)
        if bad >= 0:
            return self._error(P.request_id(line), "bad_utf8", "not UTF-8 (byte %d)" % bad)
        try:
            text = P.join_surrogates(line).decode()
        except ValueError as e:  # not UnicodeError, which cannot happen after utf8_error
            if e.args[0] == "escape":  # MicroPython's json would read it as some character
                msg = "not JSON: a \\u escape without 4 hex digits"
                return self._error(P.request_id(line), "bad_json", msg)
            msg = "not UTF-8: a \\u escape of a lone surrogate"
            return self._error(P.request_id(line), "bad_utf8", msg)
        try:
            req = json.loads(text)
        except MemoryError:
            raise
        except OverflowError:  # the image's ints are 64-bit (hardware/README.md, flash budget)
            return self._error(P.request_id(line), "bad_json", "a number past 64 bits")
        except Exception:  # ValueError; anything else a broken parser might raise
            return self._error(P.request_id(line), "bad_json", "not JSON")
        if not isinstance(req, dict):
            return self._error(None, "not_object", "a request is a JSON object")
        if "id" not in req:
            return self._error(None, "missing", "id: missing")
        rid = req["id"]
        if isinstance(rid, str):
            ok = len(rid) <= 32
        else:
            ok = isinstance(rid, int) and rid is not True and rid is not False
            ok = ok and 0 <= rid < 1 << 31
        if not ok:
            return self._error(None, "bad_id", "id: an integer from 0 to 2**31-1, or a string")
        for cid, cline, creply in self.cache:
            if cid == rid and cline == line:
                return creply  # asked again: the same answer, nothing done twice
        if req.get("v") != P.VERSION:
            return self._error(rid, "bad_version", "v: this board speaks version %d" % P.VERSION)
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            reply = _error_obj(rid, "missing" if cmd is None else "bad_type", "cmd: a string")
        elif cmd not in COMMANDS:
            reply = _error_obj(rid, "unknown_cmd", "unknown command: %s" % cmd[:32])
        else:
            try:
                if self.paired and _signed(cmd, req):
                    self._check_mac(line, req)
                fields = COMMANDS[cmd](self, req)
                reply = {"v": P.VERSION, "id": rid, "ok": True}
                reply.update(fields)
            except Reject as e:
                reply = _error_obj(rid, e.args[0], e.args[1])
            except MemoryError:
                raise
            except Exception as e:
                self._fault(e)
                reply = _error_obj(rid, "internal", "internal error: %s" % type(e).__name__)
        data = P.dumps(reply)
        if P.utf8_error(data) >= 0:  # text kept from before (old settings): never sent as is
            reply = _error_obj(rid, "internal", "the reply would not be UTF-8")
            data = P.dumps(reply)
        if not reply["ok"]:
            self.errors += 1
        c = self.cache
        try:
            c.append((rid, line, data))
        except MemoryError:
            return data  # not kept: asked again, it is answered again (requests are idempotent)
        # The newest replies up to CACHE_BYTES (the last one always): the PC asks again only
        # its latest request, and eight list pages or get chunks would hold ~24 KB.
        size = 0
        keep = 0
        for e in reversed(c):
            size += len(e[2])
            if keep and (keep == CACHE or size > CACHE_BYTES):
                break
            keep += 1
        del c[: len(c) - keep]
        return data

    def _no_memory(self, line):
        # The no_memory reply with the request's id, written into the buffer made at start;
        # allocates nothing (find_id, id_end and the copies work on small ints).
        self.no_memory += 1
        self.errors += 1
        buf = self._nomem
        k = _put(buf, 0, _NOMEM_A, 0, len(_NOMEM_A))
        i = -1 if line is P.TOO_LONG else P.find_id(line)
        if i >= 0:
            k = _put(buf, k, _NOMEM_B, 0, len(_NOMEM_B))
            k = _put(buf, k, line, i, P.id_end(line, i))
            buf[k] = 0x2C  # ,
            k += 1
        k = _put(buf, k, _NOMEM_C, 0, len(_NOMEM_C))
        while k < len(buf) - 1:
            buf[k] = 0x20
            k += 1
        buf[k] = 0x0A
        return buf

    def _last_resort(self, line):
        # The reply when handle itself failed (it cannot): "internal", with the id if found.
        try:
            rid = None if line is P.TOO_LONG else P.request_id(line)
            self.errors += 1
            return P.dumps(_error_obj(rid, "internal", "internal error"))
        except Exception:
            return self._no_memory(line)

    def event(self, name, fields=None):
        """Send an event (``{"v":1,"event":name,...fields}``) if the host is watching. The app
        may call it for what the server cannot see by itself (a key, a fault)."""
        if not self.watching:
            return
        ev = {"v": P.VERSION, "event": name}
        if fields:
            ev.update(fields)
        data = P.dumps(ev)
        if P.utf8_error(data) < 0:  # as replies: never a line that is not UTF-8
            self._write(data)

    def calendar(self):
        """Calendar seconds (UTC, since 1970) as the PC set them, or None if never set."""
        if self.epoch is None:
            return None
        secs, at = self.epoch
        return secs + ticks.diff(self.now(), at) // 1000

    # ---- helpers ------------------------------------------------------------------------------

    def _match(self):
        return getattr(self.app, "match", self.app)

    def _write(self, data):
        try:
            self.out(data)
        except Exception as e:  # the host went away: the game goes on
            self._fault(e)

    def _error(self, rid, code, message):
        self.errors += 1
        return P.dumps(_error_obj(rid, code, message))

    def _fault(self, e):
        try:
            self.faults.append(repr(e)[:80])
        except MemoryError:  # no room to say it: counted at least
            self.faults_lost += 1
            return
        if len(self.faults) > 8:
            self.faults.pop(0)

    def _pin(self, req):
        # The arbiter's PIN, or Reject. Wrong PINs count; PIN_TRIES of them lock for a while.
        now = self.now()
        wait = _pin_wait(self.pin_fails)
        if wait and ticks.diff(now, self.pin_lock_at) < wait:
            left = (wait - ticks.diff(now, self.pin_lock_at) + 999) // 1000
            raise Reject("pin_locked", "too many wrong PINs: wait %d s" % left)
        pin = _field(req, "pin", str)
        want = str(self.settings.get("pin", "0000"))
        if equal(pin.encode(), want.encode()):
            self._pin_count(0)
            return
        self._pin_count(self.pin_fails + 1)
        self.pin_lock_at = now
        raise Reject("bad_pin", "wrong PIN")

    def _check_mac(self, line, req):
        # A signed request's proof, or Reject (the module's header says the form).
        if "mac" not in req:
            raise Reject("need_mac", "the board is paired: sign with its key")
        seq = _int(req, "seq", 1, (1 << 31) - 1)
        k = len(line) - 74
        ok = k > 0 and line[k : k + 8] == _MAC_AT and line[-2:] == b'"}'
        if ok:
            mac = binascii.hexlify(hmac_sha256(self.secret, self.nonce + line[:k]))
            ok = equal(mac, line[k + 8 : -2])
        if not ok:
            raise Reject("bad_mac", "not signed with the key for this boot's nonce")
        if seq <= self.seq:
            raise Reject("replayed", "seq %d: taken already" % seq)
        self.seq = seq

    def press(self, now):
        """The key press at the board that confirms a pairing: True if ``pair`` asked for it
        (within ``PAIR_MS``), and the next ``pair`` has the key."""
        at = self.pair_at
        if at is None or self.pair_ok or ticks.diff(now, at) >= PAIR_MS:
            return False
        self.pair_ok = True
        return True

    def _pin_count(self, n):
        # The count of wrong PINs, on flash before the reply goes (a cut after the reply must
        # not forget the guess).
        if n == self.pin_fails:
            return
        self.pin_fails = n
        if self.pin_file is not None:
            try:
                J.write_atomic(self.pin_file, b"%d" % n)
            except OSError as e:
                self._fault(e)

    def _watch_step(self):
        # The events since the last look: moves, the clock's state, incidents, the result,
        # the points to clear before a game.
        if not self.watching:
            return
        m = self._match()
        g = m.game
        c = m.clock
        s = self._seen
        if s is None or s[0] is not m:
            if s is not None:
                self.event("game", {"game": self._kind(), "size": g.board.size})
            self._seen = s = [m, g.ply, None, m.referee.log.total, m.result, None]
        ply = g.ply
        if ply < s[1]:
            self.event("undo", {"ply": ply})
            s[1] = ply
        k = 0
        while s[1] < ply and k < 8:  # bounded: the rest at the next poll
            colour, point = _move(g, s[1])
            s[1] += 1
            k += 1
            self.event(
                "move",
                {"ply": s[1], "colour": colour, "point": point, "clocks": list(m.clocks())},
            )
        key = (c.state, c.flagged)  # a press is a move event, not a clock event
        if key != s[2]:
            if s[2] is not None:
                self.event("clock", self._clock(m))
            s[2] = key
        log = m.referee.log
        new = log.total - s[3]
        if new > 0:
            items = log.items[-new:] if new < len(log.items) else log.items
            for kind, no, at, points, detail in items[-8:]:
                if kind == 1:  # incidents.MOVE: the move event says it
                    continue
                self.event(
                    "incident",
                    {
                        "kind": kind,
                        "move": no,
                        "time_ms": at,
                        "points": list(points),
                        "detail": detail if isinstance(detail, int) else 0,
                    },
                )
            s[3] = log.total
        if m.result != s[4]:
            s[4] = m.result
            self.event("result", {"result": m.result})
        # Before a game, once PAUSE was refused: the points to clear, as the faces name them,
        # again whenever how many are left or the one named changes (an empty list: done).
        app = self.app
        clearing = getattr(app, "clearing", False)
        key = (app.nclear, app.clear_at) if clearing else None
        if key != s[5]:
            s[5] = key
            pts = app.clear_points() if clearing else None
            self.event("clear", pts or {"points": [], "outside": 0})

    def _kind(self):
        return self._match().settings.get("game", "go19")

    def _clock(self, m):
        from firmware.clock.clock import STATES

        c = m.clock
        return {
            "state": STATES[c.state],
            "running": c.running,
            "clocks": list(m.clocks()),
            "elapsed": c.elapsed(self.now()),
            "flagged": c.flagged,
        }

    # ---- the commands -------------------------------------------------------------------------

    def cmd_hello(self, req):
        # boot_error: what stopped the board's previous boot, or None (firmware/boot/bootlog.py;
        # board.build sets it).
        return {
            "name": "tengen",
            "fw": FIRMWARE,
            "proto": P.VERSION,
            "board": self.board,
            "game": self._kind(),
            "boot_error": getattr(self, "boot_error", None),
            "faults": self._faults(),
            "heap": {"free": self.heap_free(), "low": self.heap_low, "built": self.heap_built},
            "face_ms": getattr(self.app, "face_ms", -1),
            "timing": self.app.timing() if hasattr(self.app, "timing") else None,
            "paired": self.paired,
            "nonce": self.nonce.decode(),
            "seq": self.seq,
        }

    def heap_free(self):
        """The free heap after a collection (what the board's objects leave), kept in
        ``heap_low`` if it is the least yet; -1 where there is no ``gc.mem_free`` (CPython)."""
        free = getattr(gc, "mem_free", None)
        if free is None:
            return -1
        gc.collect()
        n = free()
        if self.heap_low < 0 or n < self.heap_low:
            self.heap_low = n
        return n

    def _faults(self):
        # What the board fixed or worked around while running (a stalled scan, a task that
        # raised: App.errors), the latest few, as "where: what" lines for the PC.
        errors = getattr(self.app, "errors", None) or ()
        return ["%s: %s" % (w, m) for w, m in errors[-4:]]

    def cmd_state(self, req):
        from firmware.game.match import PHASES

        m = self._match()
        g = m.game
        moves = []
        colours = []
        for i in range(g.ply):
            colour, point = _move(g, i)
            colours.append(colour)
            moves.append(point)
        return {
            "game": self._kind(),
            "size": g.board.size,
            "ply": g.ply,
            "moves": moves,
            "colours": colours,
            "to_move": g.to_move,
            "clock": self._clock(m),
            "result": m.result,
            "phase": PHASES[getattr(m, "phase", 0)],
            "game_no": getattr(self.journal, "game_no", 0) if self.journal else 0,
            "remote": getattr(m, "remote", 0),
            "expect": getattr(m, "expect", -1),
            "dead": self._dead(m),
            "margin4": m.counted[0] if getattr(m, "counted", None) else None,
            "clear": self.app.clear_points() if hasattr(self.app, "clear_points") else None,
            "count_no": getattr(m, "counts", 0),
            "confirmed": getattr(m, "confirmed", 0),
        }

    def _dead(self, m):
        # Go's end: the stones the players lift as dead (point codes), as the count took
        # them once counted (the result stays; the players clear the board after it).
        phase = getattr(m, "phase", 0)
        if phase == 1:  # match.DEAD
            return [y << 5 | x for x, y in m.referee.dead_stones()]
        return list(getattr(m, "dead", ())) if getattr(m, "counted", None) else []

    def cmd_watch(self, req):
        on = _field(req, "on", bool, True)
        self.watching = on
        self._seen = None
        if on:
            self._watch_step()  # the starting point: later changes are events
        return {"watching": on}

    def cmd_list(self, req):
        after = _int(req, "after", 0, 1 << 31, 0)
        limit = _int(req, "limit", 1, LIST_MAX, LIST_MAX)
        # From the journal's index: memory and time grow with the page, not the games kept.
        page = self._journal().games(after, limit + 1)  # one more: whether more follow
        more = len(page) > limit
        if more:
            page.pop()
        for i in range(len(page)):  # in place: each tuple garbage as its dict is made
            g, size, finished, acked = page[i]
            page[i] = {"no": g, "size": size, "finished": finished, "acked": acked}
        return {"games": page, "more": more}

    def cmd_get(self, req):
        g = _int(req, "game", 1, 1 << 31)
        offset = _int(req, "offset", 0, 1 << 31, 0)
        length = _int(req, "length", 1, CHUNK_MAX, CHUNK)
        j = self._journal()
        where = j.locate(g)
        # A packed game's bytes never change while it is kept at the same place: its CRC and
        # HMAC are computed at its first chunk and kept (game, place, size, crc, hmac) for the
        # next ones, which are read alone. A live file grows: read whole every time.
        got = self._got
        if where is not None and where[0] and got is not None and got[:2] == (g, where[0]):
            size, crc, mac = got[2:]
            if offset > size:
                raise Reject("bad_value", "offset: past the game's %d bytes" % size)
            chunk = j.read(g, offset, length)
        else:
            data = None if where is None else j.read(g)
            if data is None:
                raise Reject("no_game", "game %d is not kept" % g)
            size = len(data)
            if offset > size:
                raise Reject("bad_value", "offset: past the game's %d bytes" % size)
            crc = binascii.crc32(data) & 0xFFFFFFFF
            mac = binascii.hexlify(hmac_sha256(self.secret, data)).decode()
            self._got = (g, where[0], size, crc, mac) if where[0] else None
            chunk = data[offset : offset + length]
        if chunk is None:
            raise Reject("no_game", "game %d is not kept" % g)
        return {
            "game": g,
            "size": size,
            "offset": offset,
            "data": binascii.b2a_base64(chunk)[:-1].decode(),
            "eof": offset + len(chunk) >= size,
            "crc": crc,
            "hmac": mac,
        }

    def cmd_ack(self, req):
        g = _int(req, "game", 1, 1 << 31)
        j = self._journal()
        state = j.state(g)  # (finished, acked) from the journal's index, or None
        if state is None:
            if j.was_acked(g):  # acked before and evicted since: still a yes (the file says)
                return {"game": g, "acked": True}
            raise Reject("no_game", "game %d is not kept" % g)
        if state[1]:
            return {"game": g, "acked": True}
        if not state[0]:
            raise Reject("not_finished", "game %d is still being played" % g)
        err = j.ack(g)
        if err:
            from firmware.store.journal import ERRORS

            raise Reject("io", ERRORS.get(err, "storage error"))
        return {"game": g, "acked": True}

    def cmd_time(self, req):
        secs = _int(req, "epoch", 0, (1 << 32) - 1, None)
        if secs is not None:
            self.epoch = (secs, self.now())
            if self.set_rtc is not None:
                try:
                    self.set_rtc(secs)
                except Exception as e:
                    self._fault(e)
        return {"epoch": self.calendar()}

    def cmd_settings(self, req):
        changes = _field(req, "set", dict, None)
        if changes:
            if len(changes) > _SETTING_KEYS:
                raise Reject("bad_value", "set: at most %d settings at once" % _SETTING_KEYS)
            for k, v in changes.items():
                if not isinstance(k, str) or len(k) > 16:  # MicroPython's JSON takes {1: 2}
                    raise Reject("bad_value", "set: a setting's name has at most 16 characters")
                # bool named too: MicroPython's True is not an instance of int, CPython's is.
                # The values themselves (a string's length too) are firmware/game/settings.py's.
                if not isinstance(v, (bool, int, str)):
                    raise Reject("bad_type", "set: %s: an integer, true/false or a string" % k)
            if "pin" in changes:
                self._pin(req)  # the arbiter's PIN before anything is said about the new one
            # All or nothing: every value checked (firmware/game/settings.py), "go19" made "go"
            # and a size, the game and size checked together; one bad value refuses all.
            from firmware.game.settings import apply  # here: the link alone does not hold it

            new, errors = apply(self.settings, changes)
            if errors:
                raise Reject("bad_value", errors[0])
            if self.save is not None and not self.save(new):
                raise Reject("io", "the settings could not be saved")
            self.settings.clear()  # in place: the app holds the same dict
            self.settings.update(new)
            changed = getattr(self.app, "settings_changed", None)
            if changed is not None:  # the app: the volume and the PIN at once
                changed()
            else:
                arbiter = getattr(self.app, "arbiter", None)
                if "pin" in changes and arbiter is not None:
                    arbiter.set_pin(changes["pin"])
        shown = {}
        for k, v in self.settings.items():
            if k != "pin" and isinstance(v, (bool, int, str)):
                shown[k] = v
        return {"settings": shown}

    def cmd_delete(self, req):
        self._pin(req)
        g = _int(req, "game", 1, 1 << 31)
        r = self._journal().delete(g)
        if r == J.E_IN_PROGRESS:
            raise Reject("in_progress", "game %d is being played" % g)
        if r == J.E_PACKED:
            raise Reject(
                "packed",
                "a packed game leaves with its pack: ack it and it is evicted when needed",
            )
        if r == J.E_NO_GAME:
            return {"game": g, "deleted": False}  # already gone: idempotent
        return {"game": g, "deleted": True}

    def cmd_adjust(self, req):
        self._pin(req)
        side = _int(req, "side", 1, 2)
        main_ms = _int(req, "main_ms", 0, 100 * 3600 * 1000)
        m = self._match()
        c = m.clock
        if c.state == 1:
            raise Reject("running", "pause the clock first")
        if c.state == 0 or c.state == 4:
            raise Reject("no_game", "no game in progress")
        from firmware.ui.arbiter import ADJUST

        delta = main_ms - c.main[side]
        c.adjust(side, main_ms=main_ms)
        jn = m.journal
        if jn is not None:
            now = self.now()
            jn.edit(ADJUST, m.game.ply + 1, now, (side, delta))
            jn.clocks(m.game.ply + 1, m.clocks())
        return {"side": side, "clocks": list(m.clocks())}

    def cmd_maintenance(self, req):
        self._pin(req)
        m = self._match()
        c = m.clock
        if c.state == 1:  # the game waits, paused, for the board to come back
            c.pause(self.now())
            if m.journal is not None:
                m.journal.clocks(m.game.ply + 1, m.clocks())
        self.maintenance = True
        return {"maintenance": True}

    def cmd_pair(self, req):
        self._pin(req)
        if str(self.settings.get("pin", "0000")) == "0000":
            raise Reject("factory_pin", "set a new PIN first (settings pin)")
        now = self.now()
        at = self.pair_at
        if at is None or ticks.diff(now, at) >= PAIR_MS:  # ask for the press (again)
            self.pair_at = now
            self.pair_ok = False
            note = getattr(self.app, "note", None)
            if note is not None:
                from firmware.ui import texts as T

                note(3, T.PAIR, T.QUESTION, "MODE: pair", now, 0, PAIR_MS)
        if not self.pair_ok:
            raise Reject("press_key", "press MODE on the board, then ask again")
        self.pair_at = None
        if not self.paired:
            self.paired = True
            if self.paired_file is not None:
                J.write_atomic(self.paired_file, b"1")
        return {"board": self.board, "secret": binascii.hexlify(self.secret).decode()}

    # ``selftest``: the sensor self-test of a freshly built board (the app's ``selftest``; the
    # board empty, no game in progress). {"cmd":"selftest"} starts a run when the board has
    # no result yet and answers {"running":true} until it is done, then the last result,
    # {"done":true,"frames":16,"points":361,"count":1,"faults":[{"point":"D4","index":60,
    # "faults":["dead"],"message":"D4: dead (pinned at 4095)"}]} (at most 20 points listed,
    # "count" all of them; "error" if the run itself failed), kept until
    # {"cmd":"selftest","start":true} starts a new run. Refused with in_progress during a
    # game, busy while the board is being calibrated. (A comment, not the docstring: the
    # unix port compiles this module from source in tests/host/test_journal_heap.py's small
    # heap, and a docstring's text is parsed into it; a comment is not.)
    def cmd_selftest(self, req):
        start = _field(req, "start", bool, False)
        app = self.app
        if not hasattr(app, "selftest"):
            raise Reject("no_app", "this board cannot test its sensors from the link")
        t = app.testing
        if t is not None and t.taking:
            return {"running": True}
        if start or t is None:
            why = app.selftest(self.now())
            if why is not None:
                raise Reject(why[0], why[1])
            return {"running": True}
        return t.report()

    def _journal(self):
        if self.journal is None:
            raise Reject("no_journal", "this board keeps no games")
        return self.journal

    # ---- a remote side: an engine or an opponent elsewhere (match.py ``remote_move``) --------

    def cmd_start(self, req):
        # The next game with the board's settings, Black's clock running: the PAUSE key's
        # start, for a PC that plays one side. A game just begun with the same settings is
        # that game (asked again); one with moves must end first.
        from firmware.game.match import same_game

        app = self.app
        if not hasattr(app, "start"):
            raise Reject("no_app", "this board cannot start games from the link")
        now = self.now()
        m = app.match
        if m.phase == 3:  # match.OVER: the next game
            app.next_game(now)
            m = app.match
        elif m.clock.state != 0:
            if m.game.ply or m.result:
                raise Reject("in_progress", "a game is being played: it must end first")
            if same_game(m.settings, app.settings):
                return {"started": True, "game_no": self._game_no()}
            # Begun with other settings and no move yet: void (kept as such), made anew.
            m.void()
            back = getattr(app, "names_back", None)
            if back is not None:  # its names were not used: for the game made anew
                back(m.settings)
            app.next_game(now)
        if not app.start(now):
            from firmware.ui.say import point_name

            m = app.match
            fixes = m.referee.fixes()
            names = [point_name(m.referee.code(i), not m.referee.go) for i, _ in fixes[:8]]
            more = " ..." if len(fixes) > 8 else ""
            out = m.referee.outside  # a smaller game's area: those stones have no name in it
            if out:
                more += "%s%d stone%s outside the game's area" % (
                    " and " if names else "",
                    out,
                    "" if out == 1 else "s",
                )
            raise Reject("not_clear", "clear the board first: %s%s" % (" ".join(names), more))
        return {"started": True, "game_no": self._game_no()}

    def _game_no(self):
        return getattr(self.journal, "game_no", 0) if self.journal else 0

    def cmd_move(self, req):
        ply = _int(req, "ply", 0, 1 << 16)
        point = _int(req, "point", 0, 1023)
        m = self._match()
        g = m.game
        if ply < g.ply:  # asked again once made: the same answer
            colour, p = _move(g, ply)
            if p == point and colour == getattr(m, "remote", 0):
                return {"placed": True, "ply": ply}
            raise Reject(
                "bad_ply", "move %d was another: the game has %d moves" % (ply + 1, g.ply)
            )
        if ply > g.ply:
            raise Reject("bad_ply", "the game has %d moves" % g.ply)
        expect = getattr(m, "expect", -1)
        if expect >= 0:
            if expect == point:
                return {"placed": False, "ply": ply}
            raise Reject("waiting", "the board waits for the last move to be put down")
        if not hasattr(m, "remote_move"):
            raise Reject("not_remote", "this game has no remote side")
        err = m.remote_move(point, self.now())
        if err:
            words = {
                "not_remote": "no side is played from the PC: set remote first",
                "not_your_turn": "not the remote side's turn (or the clock is not running)",
            }
            raise Reject(err, m.why or words.get(err, err))
        return {"placed": m.expect < 0, "ply": ply}

    def cmd_resign(self, req):
        side = _int(req, "side", 1, 2)
        m = self._match()
        if getattr(m, "remote", 0) != side:
            raise Reject("not_remote", "only the remote side resigns from the PC")
        if not m.result:
            if m.clock.state == 0:
                raise Reject("no_game", "no game in progress")
            m.resign(side, self.now())
        return {"result": m.result}

    def cmd_undo(self, req):
        ply = _int(req, "ply", 0, 1 << 16)
        m = self._match()
        if not getattr(m, "remote", 0):
            raise Reject("not_remote", "an undo from the PC needs a remote side (or the arbiter)")
        if ply == m.game.ply:
            return {"ply": ply}
        if m.result:
            raise Reject("over", "the game is over")
        if ply != m.game.ply - 1 or not m.remote_undo(self.now()):
            raise Reject(
                "bad_ply", "the game has %d moves: one is taken back at a time" % m.game.ply
            )
        return {"ply": m.game.ply}

    def cmd_clock(self, req):
        side = _int(req, "side", 1, 2)
        ms = _int(req, "ms", 0, 100 * 3600 * 1000)
        stones = _int(req, "stones", 0, 1000, 0)
        m = self._match()
        if not getattr(m, "remote", 0):
            raise Reject("not_remote", "the clock is set from the PC only with a remote side")
        if not m.remote_clock(side, ms, stones, self.now()):
            raise Reject("no_game", "no game in progress")
        return {"clocks": list(m.clocks())}

    # Go's end against an engine (firmware/link/ending.py, loaded when used): ``dead``, the
    # stones the remote side calls dead; ``confirm``, its answer to a count on the faces.
    def cmd_dead(self, req):
        from firmware.link.ending import dead

        return dead(self, req)

    def cmd_confirm(self, req):
        from firmware.link.ending import confirm

        return confirm(self, req)


COMMANDS = {
    "hello": Server.cmd_hello,
    "state": Server.cmd_state,
    "watch": Server.cmd_watch,
    "list": Server.cmd_list,
    "get": Server.cmd_get,
    "ack": Server.cmd_ack,
    "time": Server.cmd_time,
    "settings": Server.cmd_settings,
    "delete": Server.cmd_delete,
    "adjust": Server.cmd_adjust,
    "maintenance": Server.cmd_maintenance,
    "pair": Server.cmd_pair,
    "start": Server.cmd_start,
    "move": Server.cmd_move,
    "resign": Server.cmd_resign,
    "undo": Server.cmd_undo,
    "clock": Server.cmd_clock,
    "dead": Server.cmd_dead,
    "confirm": Server.cmd_confirm,
    "selftest": Server.cmd_selftest,
}


def _signed(cmd, req):
    # Whether a paired board wants ``cmd`` signed: all but the reads.
    if cmd == "settings":
        return bool(req.get("set"))
    if cmd == "time":
        return req.get("epoch") is not None
    return cmd not in _OPEN


def _put(buf, k, src, i, j):
    # src[i:j] copied into buf from k, byte by byte (a slice would allocate); the new k.
    while i < j:
        buf[k] = src[i]
        k += 1
        i += 1
    return k


def _error_obj(rid, code, message):
    e = {"v": P.VERSION, "ok": False, "error": code, "message": message}
    if rid is not None:
        e["id"] = rid
    return e


def _move(g, i):
    # (colour, point code y<<5|x, 1023 a pass) of move i of a Go game or a Gomoku game.
    moves = getattr(g, "moves", None)
    if isinstance(moves, list):  # Gomoku keeps colour << 10 | point
        w = moves[i]
        return w >> 10 & 3, w & 1023
    colour, x, y = g.move(i)
    return colour, 1023 if x is None else y << 5 | x


# ---- the board ------------------------------------------------------------------------------


async def serve(server, inp, period_ms=10, burst=256):
    """The board's link task: read the serial line ``inp`` (``sys.stdin`` on the board: the
    USB CDC; the pseudo-terminal on the virtual board) without blocking, feed the server, let
    it answer; until a ``maintenance`` request. Ctrl-C is turned off while it runs (the app
    owns the serial line) and on again when it returns."""
    import select

    import micropython

    stream = getattr(inp, "buffer", inp)
    poller = select.poll()
    poller.register(inp, select.POLLIN)
    micropython.kbd_intr(-1)
    pending = b""
    try:
        while not server.maintenance:
            try:
                if not pending:
                    got = bytearray()
                    while len(got) < burst:
                        ready = poller.poll(0)
                        if not ready or not ready[0][1] & select.POLLIN:
                            break
                        b = stream.read(1)
                        if not b:
                            break
                        got.extend(b)
                    pending = bytes(got)
                if pending:
                    n = server.feed(pending)
                    pending = pending[n:]  # the rest when the queue has room
                server.poll()
            except MemoryError:
                # Out of memory here: a byte read may be lost (its request is answered as
                # broken, with its id); the link, and above all the game, go on.
                gc.collect()
            await ticks.sleep_ms(period_ms)
    finally:
        micropython.kbd_intr(3)


async def run(app, server, inp):
    """The app's tasks and the link together; returns (to the REPL) after ``maintenance``."""
    import asyncio

    task = asyncio.create_task(app.run())
    try:
        await serve(server, inp)
    finally:
        task.cancel()
