"""``tengen relay``: the boards on this PC's ports, published to a tournament hall's broker.

Start reading at ``Relay``, then ``Follower``. The wire format is ``host_tools/hall/feed.py``'s;
every topic and payload is made there.

One MQTT client (paho-mqtt) per relay, with a retained will saying the relay went offline.
A discovery thread looks for boards every ``scan`` seconds (the ports given, else
``host_tools.common.link.find_boards``'s: USB 2E8A:0005 and the virtual boards' ptys) and starts a
``Follower`` thread for each board it does not follow yet. A follower owns its board's link:
``watch`` events (and a slow poll) tell it something happened; it reads the board's journal
(``list``, ``get``) and publishes each record not yet published as an event, then the
board's snapshot (its ``state`` and the last record published), retained.

The stream is the journal, so nothing needs to be kept here: where the relay is in it is the
``(game, seq)`` of the board's retained snapshot on the broker. At each connection to the
broker a follower reads it back (subscribes to its own snapshot, takes the retained message,
unsubscribes) and publishes everything after it from the board's journal: the rest of that
game, packed by now or not, and every later game. While the broker is away nothing is
published (paho would keep it in memory); the board is followed on. A relay killed, a broker
killed, a board unplugged: the next connection carries on from the snapshot, and the only
repeats are the messages in flight at the cut, which consumers drop by ``seq``.

While a game is played, each record's event carries its stored bytes, and the last record of
each read the board's HMAC of the game's bytes through it (``Copy.proof``): the hall proves
the live records with the board's key as they come (``host_tools/hall/proof.py``'s ``Chain``).
Once a game is finished and every record of it published, the follower publishes its proof
(``feed.proof_payload``): the board's stored bytes of the game and the HMAC the board gave
with them, which the hall checks with the board's key; a replay that reaches a finished
game's end sends it again. The relay connects as its own MQTT user, ``relay-<id>``, and
writes only topics that end with that user (the broker's ACL: ``host_tools/hall/broker.py``).

The relay also takes the hall's ``replay`` requests (that game again from that record, read
from the journal) and ``pairing`` messages (the players' names written into the board's
settings, so the next game's header has them). A payload that is not the hall's format is
logged on stderr and left; the relay goes on.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import sys
import threading
import time
import zlib

import paho.mqtt.client as mqtt

from firmware.game.settings import NAMES, TEXT_MAX
from firmware.store import records as R
from host_tools.common import link as L
from host_tools.hall import feed as F
from host_tools.records import sync as S

POLL_S = 1.0  # the fallback poll: a record no event announced waits at most this long
SCAN_S = 2.0  # how often the ports are looked at for new boards
EVENT_S = 0.2  # how long a follower waits for the board's next event line
SOON_S = 0.1  # an event came and its record was not in the journal yet: look again this soon
SOON_TRIES = 3
FULL_S = 10.0  # the journal is read at least this often, even when nothing seems to change
RETAINED_S = 1.0  # how long to wait for a retained snapshot after SUBACK (none: none kept)
SUBACK_S = 5.0
RECONNECT_S = (0.2, 2.0)  # paho's reconnect pause, doubled from the first to the second
KEEPALIVE_S = 10
QUEUED_MAX = 1000  # paho's outgoing queue: past this, publishing waits for the broker
LINK_TIMEOUT_S = 1.0
LINK_RETRIES = 2
REOPEN_TRIES = 2  # the link failed: how often the same port is tried again before "lost"
CHUNK = S.CHUNK


def now_ms() -> int:
    """Calendar time in ms (UTC): the ``at`` of what the relay publishes."""
    return int(time.time() * 1000)


def default_name() -> str:
    """This relay's id when none is given: the host's name, as a hall name allows."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname())[:32].strip("-")
    return name or "relay"


def parse_broker(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT``; the port 1883 if none) as ``(host, port)``;
    ValueError if it is not one."""
    host, sep, port = text.rpartition(":")
    if not sep or "]" in port:
        host, port = text, "1883"
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("--broker %r: HOST:PORT" % text)
    return host, int(port)


def usb_and_virtual_ports() -> list[str]:
    """The ports ``find_boards`` tries by default: USB 2E8A:0005, then the virtual boards' and
    the emulated chips'."""
    from serial.tools import list_ports

    ports = [p.device for p in list_ports.comports() if p.vid == L.USB_VID and p.pid == L.USB_PID]
    return ports + [p for p in L.noted_ports() if p not in ports]


def relay_identity(user: str | None, name: str | None) -> tuple[str, str]:
    """``(relay id, MQTT user)`` from ``--user`` and ``--name`` (either may be None: the
    user is ``relay-<id>``, the id the host's name if neither is given); ValueError."""
    if user is None:
        name = F.check_name(name or default_name(), "relay id")
        return name, F.relay_user(name)
    of = F.relay_of_user(user)
    if of is None:
        raise ValueError("--user %r: a relay's user is relay-<its id>" % (user,))
    if name is not None and name != of:
        raise ValueError("--user %s is relay %s's, not %s's" % (user, of, name))
    return of, user


def pairing_settings(pairing: dict, problems: list | None = None) -> dict:
    """The board's settings for a parsed pairing (``feed.parse_pairing``): its names, each
    made what ``firmware/game/settings.py`` takes (one line of at most TEXT_MAX characters: control
    characters become spaces, a longer text is cut). What was changed goes to ``problems``."""
    out = {}
    for key in NAMES:
        value = pairing.get(key, "")
        clean = "".join(c if " " <= c and c != "\x7f" else " " for c in value)
        if clean != value and problems is not None:
            problems.append("%s: control characters made spaces" % key)
        if len(clean) > TEXT_MAX:
            if problems is not None:
                problems.append("%s: cut to %d characters (%r)" % (key, TEXT_MAX, value))
            clean = clean[:TEXT_MAX]
        out[key] = clean
    return out


def state_key(state) -> str | None:
    """What a board's ``state`` reply shows but for the running clock's elapsed time (it
    changes by itself): equal keys, nothing happened."""
    if not isinstance(state, dict):
        return None
    # The reply's envelope (its request's id, new at every poll) is not the board's state.
    state = {k: v for k, v in state.items() if k not in ("v", "id", "ok")}
    clock = state.get("clock")
    if isinstance(clock, dict):
        state = dict(state, clock={k: v for k, v in clock.items() if k != "elapsed"})
    return repr(state)


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Relay:
    """Follows the boards and publishes them to ``hall`` on the broker ``broker``
    (``"HOST:PORT"`` or ``(host, port)``), as ``user``/``password``, under the relay id
    ``name`` (the user is ``relay-<name>``: either gives the other; given both, they agree). ``ports``: the device paths to follow (a list, or a function returning one,
    looked at every ``scan`` seconds); None: every Tengen board found. ``log(line)`` says
    what happens (default: stderr). ``start()``, then ``stop()``."""

    def __init__(
        self,
        broker,
        hall: str,
        user: str | None = None,
        password: str | None = None,
        name: str | None = None,
        ports=None,
        scan: float = SCAN_S,
        poll: float = POLL_S,
        log=None,
    ):
        self.host, self.port = parse_broker(broker) if isinstance(broker, str) else broker
        self.hall = F.check_name(hall, "hall")
        self.name, user = relay_identity(user, name)
        self.ports = ports
        self.scan = scan
        self.poll = poll
        self.log = log or _stderr
        self.stopping = threading.Event()
        self.lock = threading.RLock()
        self.followers: dict[str, Follower] = {}  # board id -> its follower
        self.pairings: dict[str, dict] = {}  # board id -> the last pairing the hall kept
        self.written: dict[str, dict] = {}  # board id -> the names last written into it
        self.offline: set = set()  # boards lost while the broker was away
        self.gen = 0  # connections to the broker so far: a follower resumes at each new one
        self.broker_up: bool | str | None = None  # True, or why it is away (said once)
        self.said: set = set()  # ports' problems already logged (once each)
        self.waiters: dict[str, list] = {}  # state topic -> [Event, payload]: a resume's
        self.acks = threading.Condition(self.lock)
        self.acked: set = set()  # SUBACKs received (mids)
        self.discovery: threading.Thread | None = None
        self.client = self._client(user, password)

    # ---- the broker -----------------------------------------------------------------------

    def _client(self, user, password):
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id="tengen-relay-%s-%s" % (self.hall, self.name),
            clean_session=True,  # what it owes is in the boards' journals, not in a session
        )
        c.username_pw_set(user, password)
        c.will_set(self.status_topic, F.relay_payload(self.name, False), qos=F.QOS, retain=True)
        c.reconnect_delay_set(*RECONNECT_S)
        c.max_queued_messages_set(QUEUED_MAX)
        c.on_connect = self._guard(self._on_connect)
        c.on_connect_fail = self._guard(self._on_connect_fail)
        c.on_disconnect = self._guard(self._on_disconnect)
        c.on_subscribe = self._guard(self._on_subscribe)
        c.on_message = self._guard(self._on_message)
        return c

    @property
    def status_topic(self) -> str:
        return F.relay_topic(self.hall, self.name)

    def _guard(self, fn):
        # paho's thread ends on an exception in a callback: said and left instead.
        def call(*args):
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001 - the relay must outlive a bug here
                self.log("relay: internal error in %s: %r" % (fn.__name__, e))

        return call

    def connected(self) -> bool:
        return self.client.is_connected()

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self._broker_down("refused: %s" % reason)
            return
        with self.lock:
            self.gen += 1
            self.broker_up = True
        self.log("relay: broker: connected (%s:%d)" % (self.host, self.port))
        for leaf in (F.REPLAY, F.PAIRING):
            client.subscribe(F.subscription(self.hall, leaf), qos=F.QOS)
        self.publish_status()
        with self.lock:
            gone = sorted(self.offline - set(self.followers))
            self.offline.clear()
        if gone:  # reading the broker's snapshots waits for this thread: another one does it
            threading.Thread(target=self._say_offline, args=(gone,), daemon=True).start()

    def _say_offline(self, boards: list[str]) -> None:
        # Boards lost while the broker was away: their snapshots on the broker say offline,
        # where the stream stands kept as the broker has it (it may have lost what we sent
        # last: our own cursor would skip that at the next resume).
        for board in boards:
            try:
                payload = self.retained(self.state_topic(board))
                snap = F.parse_state(payload) if payload else None
            except TimeoutError:
                return
            except F.FeedError:
                continue
            with self.lock:
                back = board in self.followers
            if snap and snap["online"] and snap.get("relay") == self.name and not back:
                cursor = (snap["game"], snap["seq"])
                self.send(self.state_topic(board), self.snapshot(board, False, cursor, None), True)

    def _broker_down(self, why: str) -> None:
        # Said once, and again only when the reason changes (paho retries every 2 s).
        with self.lock:
            said = self.broker_up == why
            self.broker_up = why
        if not said:
            self.log("relay: broker: disconnected (%s)" % why)

    def _on_connect_fail(self, client, userdata):
        self._broker_down("cannot connect to %s:%d" % (self.host, self.port))

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        if self.broker_up is True:  # after a refusal paho says so again: said already
            self._broker_down(str(reason))

    def _on_subscribe(self, client, userdata, mid, reasons, properties):
        with self.acks:
            self.acked.add(mid)
            self.acks.notify_all()

    def _on_message(self, client, userdata, msg):
        where = F.parse_topic(msg.topic)
        if where is None or where[0] != self.hall or where[1] == F.RELAY:
            return
        board, leaf = where[1], where[2]
        if leaf == F.STATE:
            with self.lock:
                waiter = self.waiters.get(msg.topic)
            if waiter is not None and msg.retain:  # the kept one, not one going past
                waiter[1] = msg.payload
                waiter[0].set()
            return
        if leaf == F.PAIRING:
            if not msg.payload:  # the hall cleared it: nothing to write
                with self.lock:
                    self.pairings.pop(board, None)
                return
            try:
                pairing = F.parse_pairing(msg.payload)
            except F.FeedError as e:
                self.log("relay: board %s: bad pairing ignored: %s" % (board, e))
                return
            with self.lock:
                self.pairings[board] = pairing
                f = self.followers.get(board)
            if f is not None:
                f.commands.put(("pairing", pairing))
        elif leaf == F.REPLAY:
            with self.lock:
                f = self.followers.get(board)
            if f is None:
                return  # another relay's board
            try:
                game, start = F.parse_replay(msg.payload)
            except F.FeedError as e:
                self.log("relay: board %s: bad replay request ignored: %s" % (board, e))
                return
            f.commands.put(("replay", game, start))

    def send(self, topic: str, payload: bytes, retain: bool = False) -> bool:
        """Publish at QoS 1 if the broker is there; False if not sent (nothing is left in
        paho's queue to be sent later, but for a cut at this very moment)."""
        if not self.client.is_connected():
            return False
        info = self.client.publish(topic, payload, qos=F.QOS, retain=retain)
        return info.rc == mqtt.MQTT_ERR_SUCCESS

    def state_topic(self, board: str) -> str:
        return F.topic(self.hall, board, F.STATE, self.name)

    def snapshot(self, board: str, online: bool, cursor, state) -> bytes:
        game, seq = cursor if cursor is not None else (0, -1)
        return F.state_payload(board, self.name, online, now_ms(), game, seq, state)

    def publish_status(self, online: bool = True):
        """The relay's retained status: online, the boards it follows."""
        with self.lock:
            boards = sorted(self.followers)
        payload = F.relay_payload(self.name, online, boards, now_ms())
        if not self.client.is_connected():
            return None
        return self.client.publish(self.status_topic, payload, qos=F.QOS, retain=True)

    def retained(self, topic: str):
        """The retained message of ``topic`` (bytes), None if none is kept; raises TimeoutError
        if the broker did not acknowledge the subscription (gone meanwhile)."""
        waiter = [threading.Event(), None]
        with self.lock:
            self.waiters[topic] = waiter
        try:
            rc, mid = self.client.subscribe(topic, qos=F.QOS)
            if rc != mqtt.MQTT_ERR_SUCCESS:
                raise TimeoutError("subscribe: %s" % mqtt.error_string(rc))
            end = time.monotonic() + SUBACK_S
            with self.acks:
                while mid not in self.acked:
                    left = end - time.monotonic()
                    if left <= 0 or self.stopping.is_set():
                        raise TimeoutError("no SUBACK for %s" % topic)
                    self.acks.wait(min(left, 0.2))
                self.acked.discard(mid)
            # Mosquitto sends the retained message right after the SUBACK.
            waiter[0].wait(RETAINED_S)
            return waiter[1]
        finally:
            with self.lock:
                self.waiters.pop(topic, None)
            if self.client.is_connected():
                self.client.unsubscribe(topic)  # our own snapshots need not come back

    # ---- the boards -----------------------------------------------------------------------

    def _ports(self) -> list[str]:
        if self.ports is None:
            return usb_and_virtual_ports()
        return list(self.ports() if callable(self.ports) else self.ports)

    def look(self) -> None:
        """One look at the ports: a follower for each new Tengen board."""
        with self.lock:
            held = {f.port for f in self.followers.values()}
        ports = [p for p in self._ports() if p not in held]
        if not ports:
            return
        unreachable: list = []
        found = L.find_boards(ports, unreachable=unreachable)
        for u in unreachable:
            self._say_once(u["port"], u["error"], "relay: %s: %s" % (u["port"], u["message"]))
        for hello in found:
            port, board = hello["port"], str(hello.get("board", ""))
            if not F.board_ok(board):
                self._say_once(port, "id", "relay: %s: board id %r is not usable" % (port, board))
                continue
            with self.lock:
                if self.stopping.is_set():
                    return
                other = self.followers.get(board)
                if other is None:
                    f = Follower(self, port, board)
                    self.followers[board] = f
            if other is not None:
                self._say_once(
                    port,
                    "twice",
                    "relay: board %s on %s: already followed on %s" % (board, port, other.port),
                )
                continue
            self.said = {s for s in self.said if s[0] != port}
            f.start()

    def _say_once(self, port: str, what: str, line: str) -> None:
        key = (port, what)
        if key not in self.said:
            self.said = {s for s in self.said if s[0] != port} | {key}
            self.log(line)

    def _discover(self) -> None:
        while not self.stopping.is_set():
            try:
                self.look()
            except Exception as e:  # noqa: BLE001 - listing ports failed: look again later
                self.log("relay: looking for boards failed: %r" % e)
            self.stopping.wait(self.scan)

    def dropped(self, f: Follower, cursor, lost: bool) -> None:
        """``f`` stopped following its board (``lost``: the board went)."""
        with self.lock:
            if self.followers.get(f.board) is f:
                del self.followers[f.board]
        payload = self.snapshot(f.board, False, cursor, None)
        if cursor is not None and self.send(self.state_topic(f.board), payload, True):
            pass
        elif lost:  # said when the broker is back (or now, from what the broker keeps)
            with self.lock:
                self.offline.add(f.board)
            if self.connected() and not self.stopping.is_set():
                with self.lock:
                    self.offline.discard(f.board)
                threading.Thread(target=self._say_offline, args=([f.board],), daemon=True).start()
        if lost:
            self.log("relay: board %s on %s: lost" % (f.board, f.port))
            self.publish_status()

    # ---- start, stop ----------------------------------------------------------------------

    def start(self) -> Relay:
        """Connect (in the background, again whenever the connection drops) and follow."""
        self.client.connect_async(self.host, self.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()
        self.discovery = threading.Thread(target=self._discover, name="relay-scan", daemon=True)
        self.discovery.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop following (each board's snapshot said offline), say the relay is offline,
        disconnect."""
        self.stopping.set()
        if self.discovery is not None:
            self.discovery.join(timeout)
        with self.lock:
            followers = list(self.followers.values())
        for f in followers:
            f.join(timeout)
        info = self.publish_status(online=False)
        if info is not None:
            try:
                info.wait_for_publish(timeout=2.0)
            except (RuntimeError, ValueError):
                pass  # not sent: the will says it
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Copy:
    """What a follower has read of one game: its bytes, their CRC, whether they are final
    (the game finished when they were read), the records."""

    __slots__ = ("data", "crc", "final", "recs", "mac", "ends")

    def __init__(self, data=b"", crc=None, final=False, recs=(), mac=None, ends=None):
        self.data, self.crc, self.final, self.recs = data, crc, final, list(recs)
        self.mac = mac  # the board's HMAC (hex) of ``data``
        self.ends = ends  # a live game's: where each record's bytes end; None if packed

    def proof(self, seq: int) -> tuple[bytes | None, str | None]:
        """``(raw, mac)`` of record ``seq`` for its event (``feed.event_payload``): its
        stored bytes from the end of the record before, and the board's HMAC if they reach
        the end of the bytes the HMAC is of; ``(None, None)`` for a packed game's (its proof
        is the whole game's, once finished)."""
        if self.ends is None or len(self.ends) != len(self.recs):
            return None, None
        end = self.ends[seq]
        raw = self.data[self.ends[seq - 1] if seq else 0 : end]
        return raw, (self.mac if end == len(self.data) else None)


class Follower(threading.Thread):
    """One board at ``port`` (id ``board``), followed for ``relay`` in its own thread, which
    alone uses its link. ``cursor`` the ``(game, seq)`` last published (None: not known
    until the broker's snapshot is read)."""

    def __init__(self, relay: Relay, port: str, board: str):
        super().__init__(name="relay-%s" % board, daemon=True)
        self.relay = relay
        self.port = port
        self.board = board
        self.link: L.Link | None = None
        self.commands: queue.Queue = queue.Queue()
        self.cursor: tuple[int, int] | None = None
        self.resumed = 0  # the relay's connection this follower resumed on
        self.copies: dict[int, Copy] = {}
        self.state: dict | None = None
        self.shown = None  # what the last snapshot published showed
        self.events_topic = F.topic(relay.hall, board, F.EVENTS, relay.name)
        self.proof_topic = F.topic(relay.hall, board, F.PROOF, relay.name)
        self.proved: set = set()  # finished games whose proof was published
        self.state_topic = relay.state_topic(board)

    # ---- the link -------------------------------------------------------------------------

    def open(self) -> None:
        """Open the port, check it is this board, set its clock, turn its events on."""
        link = L.Link(self.port, timeout=LINK_TIMEOUT_S, retries=LINK_RETRIES)
        try:
            hello = link.request("hello")
            if hello.get("name") != "tengen" or str(hello.get("board", "")) != self.board:
                raise L.LinkError("io", "%s is not board %s now" % (self.port, self.board))
            L.set_clock(link)  # the records' dates (SPEC §5), as every tengen command does
            link.request("watch", on=True)
        except BaseException:
            link.close()
            raise
        self.link = link

    def close(self) -> None:
        if self.link is None:
            return
        L.stop_watching(self.link)
        self.link = None

    def reopen(self) -> bool:
        """The link failed: the same port tried again a few times; True if the board is back."""
        if self.link is not None:
            self.link.close()
            self.link = None
        for _ in range(REOPEN_TRIES):
            if self.relay.stopping.is_set() or not os.path.exists(self.port):
                return False
            try:
                self.open()
                return True
            except L.LinkError:
                self.relay.stopping.wait(0.3)
        return False

    def events(self) -> bool:
        """Wait a little for the board's events; True if any came (they all say: look)."""
        link = self.link
        got = False
        ev = link.read_event(EVENT_S)
        while ev is not None:
            got = True
            ev = link.read_event(0)
        return got

    def games(self, first: int) -> list[dict]:
        """The games the board keeps from number ``first`` on (``list``, page by page)."""
        return S.list_games(self.link, max(0, first - 1))

    def records(self, no: int, finished: bool) -> list:
        """Game ``no``'s records, read from the board: only what was added since the last
        read while it is played; from the start again when its bytes changed form (a
        finished game is packed). Raises LinkError "no_game" if the board keeps it no more."""
        c = self.copies.get(no)
        if c is not None and c.final:
            return c.recs
        have = c.data if c is not None else b""
        for _ in range(2):
            try:
                got, crc, mac, _ = S.read_from(self.link, no, len(have), CHUNK)
            except L.LinkError as e:
                if e.code != "bad_value" or not have:
                    raise
                have = b""  # shorter than what we had: packed meanwhile
                continue
            whole = have + got
            if zlib.crc32(whole) & 0xFFFFFFFF == crc:
                break
            have = b""  # not the same bytes any more: packed
        else:
            raise S.SyncError("game %d: CRC mismatch, read twice" % no)
        ends = None
        if c is None or whole != c.data:
            if whole[:4] == R.MAGIC:  # live: each record's bytes for its proof
                spans = R.scan(whole)
                recs, ends = [r for _, _, r in spans], [e for _, e, _ in spans]
                if [o for o, _, _ in spans] != [4] + ends[:-1]:
                    ends = None  # bytes skipped between records: the game's proof will tell
            else:
                recs = S.decode(whole)
        else:
            recs, ends = c.recs, c.ends
        self.copies[no] = Copy(whole, crc, finished, recs, mac, ends)
        return recs

    def prove(self, no: int) -> bool:
        """Publish game ``no``'s proof (its bytes and the board's HMAC) if it was read
        finished; False if it could not be sent."""
        c = self.copies.get(no)
        if c is None or not c.final:
            return True
        payload = F.proof_payload(self.board, no, c.data, c.mac)
        if not self.relay.send(self.proof_topic, payload):
            return False
        self.proved.add(no)
        return True

    # ---- the broker -----------------------------------------------------------------------

    def resume(self) -> None:
        """Where the stream stands on the broker: the retained snapshot's ``(game, seq)``."""
        gen = self.relay.gen
        payload = self.relay.retained(self.state_topic)
        cursor = (0, -1)
        if payload:
            try:
                snap = F.parse_state(payload)
                cursor = (snap["game"], snap["seq"])
            except F.FeedError as e:
                self.relay.log(
                    "relay: board %s: its snapshot on the broker is unreadable (%s): the "
                    "journal is published from its start" % (self.board, e)
                )
        self.cursor = cursor
        self.resumed = gen
        self.shown = None  # whatever the broker kept: ours now

    def publish(self) -> int:
        """Every record after the cursor, in order, then the snapshot; the records sent."""
        relay = self.relay
        if self.cursor is None:
            return 0
        sent = 0
        cg, cs = self.cursor
        for g in self.games(max(cg, 1)):
            no = g["no"]
            if no < cg:
                continue
            try:
                recs = self.records(no, bool(g.get("finished")))
            except L.LinkError as e:
                if e.code == "no_game":
                    continue  # evicted meanwhile
                raise
            at = now_ms()
            copy = self.copies[no]
            for seq in range(cs + 1 if no == cg else 0, len(recs)):
                payload = F.event_payload(self.board, no, seq, recs[seq], at, *copy.proof(seq))
                if not relay.send(self.events_topic, payload):
                    self.snap()
                    return sent
                self.cursor = (no, seq)
                sent += 1
            if no not in self.proved and self.cursor == (no, len(recs) - 1):
                if not self.prove(no):
                    self.snap()
                    return sent
        for no in [n for n in self.copies if n < self.cursor[0]]:
            del self.copies[no]  # published: a replay reads it again
        self.snap()
        return sent

    def snap(self) -> None:
        """The retained snapshot, if it shows something new."""
        if self.state is None or self.cursor is None:
            return
        key = (self.cursor, state_key(self.state))
        if key == self.shown:
            return
        payload = self.relay.snapshot(self.board, True, self.cursor, self.state)
        if self.relay.send(self.state_topic, payload, retain=True):
            self.shown = key

    def replay(self, game: int, start: int) -> None:
        """The hall's request: game ``game`` again from record ``start``."""
        try:
            recs = self.records(game, self._finished(game))
        except L.LinkError as e:
            if e.code not in ("no_game", "bad_value"):
                raise
            self.relay.log(
                "relay: board %s: replay of game %d: the board does not keep it (%s)"
                % (self.board, game, e.message)
            )
            return
        at = now_ms()
        copy = self.copies[game]
        for seq in range(start, len(recs)):
            payload = F.event_payload(self.board, game, seq, recs[seq], at, *copy.proof(seq))
            if not self.relay.send(self.events_topic, payload):
                return
        self.prove(game)  # the end of a finished game: its proof again

    def _finished(self, game: int) -> bool:
        for g in self.games(game):
            if g["no"] == game:
                return bool(g.get("finished"))
        return False

    def pair(self, pairing: dict) -> None:
        """Write the pairing's names into the board's settings (only those that differ)."""
        problems: list = []
        want = pairing_settings(pairing, problems)
        for p in problems:
            self.relay.log("relay: board %s: pairing: %s" % (self.board, p))
        # The names are for one game: the board drops them once it starts. Followed again
        # (a reconnection) with the same pairing, the relay does not write them a second
        # time, or the next game would carry this one's names.
        if self.relay.written.get(self.board) == want:
            return
        try:
            have = self.link.request("settings").get("settings", {})
            diff = {k: v for k, v in want.items() if have.get(k, "") != v}
            if not diff:
                self.relay.written[self.board] = want
                return
            self.link.request("settings", set=diff)
            self.relay.written[self.board] = want
        except L.LinkError as e:
            if e.code in ("io", "timeout"):
                raise
            self.relay.log(
                "relay: board %s: the pairing could not be written: %s" % (self.board, e)
            )
            return
        self.relay.log(
            "relay: board %s: pairing written: %s"
            % (self.board, ", ".join("%s %r" % (k, v) for k, v in sorted(diff.items())))
        )

    # ---- the loop ---------------------------------------------------------------------------

    def run(self) -> None:
        relay = self.relay
        try:
            self.open()
        except L.LinkError as e:
            relay.log("relay: board %s on %s: cannot follow: %s" % (self.board, self.port, e))
            relay.dropped(self, None, lost=False)
            return
        relay.log("relay: board %s on %s: following" % (self.board, self.port))
        relay.publish_status()
        with relay.lock:
            pairing = relay.pairings.get(self.board)
        if pairing is not None:
            self.commands.put(("pairing", pairing))
        lost = False
        try:
            lost = not self._follow()
        except Exception as e:  # noqa: BLE001 - a bug: said; the next look follows it again
            relay.log("relay: board %s: internal error: %r" % (self.board, e))
        finally:
            if not lost:
                self.close()
            relay.dropped(self, self.cursor, lost)

    def _follow(self) -> bool:
        # Until the relay stops (True) or the board is gone (False). The journal is read when
        # the board sent an event, when its state changed (a poll), and every FULL_S anyway:
        # a ``get`` of the live game costs the board a CRC and an HMAC of it.
        relay = self.relay
        due = 0.0  # the next poll of the state
        full = 0.0  # the next read of the journal, whatever the state says
        soon = 0  # looks again soon left, for an event whose record was not there yet
        looked = None  # the state at the last read of the journal
        while not relay.stopping.is_set():
            try:
                look = self.events()
                if look:
                    soon = SOON_TRIES
                self._commands()
                now = time.monotonic()
                if look or now >= due:
                    due = now + relay.poll
                    self.state = self.link.request("state")
                    look = look or soon > 0 or now >= full or state_key(self.state) != looked
                if not relay.connected():
                    continue
                if self.resumed != relay.gen:
                    self.resume()
                    look = True
                if look:
                    full = now + FULL_S
                    looked = state_key(self.state)
                    if self.publish():
                        soon = 0
                    elif soon > 0:
                        soon -= 1
                        due = min(due, now + SOON_S)
            except L.LinkError as e:
                if e.code in ("io", "timeout"):
                    if not self.reopen():
                        return False
                    continue
                relay.log("relay: board %s: %s" % (self.board, e))
                relay.stopping.wait(relay.poll)
            except TimeoutError:
                continue  # the broker went during the resume: again when it is back
            except (S.SyncError, R.Bad, ValueError, KeyError, TypeError, IndexError) as e:
                relay.log("relay: board %s: unexpected answer: %r" % (self.board, e))
                relay.stopping.wait(relay.poll)
        return True

    def _commands(self) -> None:
        while True:
            try:
                cmd = self.commands.get_nowait()
            except queue.Empty:
                return
            if cmd[0] == "pairing":
                self.pair(cmd[1])
            elif cmd[0] == "replay" and self.relay.connected():
                self.replay(cmd[1], cmd[2])


# ---- the command --------------------------------------------------------------------------


def run(
    broker: str,
    hall: str,
    user: str | None = None,
    password: str | None = None,
    name: str | None = None,
    ports: list[str] | None = None,
    scan: float = SCAN_S,
) -> int:
    """``tengen relay``: run until SIGTERM or Ctrl-C; the exit code (2: bad arguments)."""
    try:
        relay = Relay(broker, hall, user, password, name, ports or None, scan)
    except (ValueError, F.FeedError) as e:
        _stderr("relay: %s" % e)
        return 2
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    relay.start()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        relay.stop()
        for s, h in previous.items():
            signal.signal(s, h)
    _stderr("relay: stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m host_tools.hall.relay``: the same as ``tengen relay``."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m host_tools.hall.relay", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--broker", required=True, help="the hall's broker, HOST:PORT")
    ap.add_argument("--hall", required=True, help="the hall's name")
    ap.add_argument("--user", help="the broker's user (default: relay-<id>)")
    ap.add_argument("--password", default=os.environ.get("TENGEN_MQTT_PASSWORD"))
    ap.add_argument("--name", help="this relay's id (default: the host's name)")
    ap.add_argument("--port", action="append", help="a board's port (default: find them)")
    ap.add_argument("--scan", type=float, default=SCAN_S, help="seconds between looks")
    a = ap.parse_args(argv)
    if a.password is None:
        ap.error("--password or TENGEN_MQTT_PASSWORD is needed")
    return run(a.broker, a.hall, a.user, a.password, a.name, a.port, a.scan)


if __name__ == "__main__":
    sys.exit(main())
