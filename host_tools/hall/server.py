"""``tengen hall``: the tournament hall's pages, feed and API, fed from the MQTT broker.

Start reading at ``serve``, then ``HallServer``. The state is ``host_tools/hall/state.py``'s
``Hall``; this module only moves messages: paho's client (user ``hall``, a persistent
session so that the broker keeps the QoS 1 events for the hall while it is down) hands each
message to the asyncio loop, ``Hall.handle`` takes it, and what it leaves (``Hall.drain``)
goes to every page's WebSocket and, for replay requests and pairings, back to the broker.
aiohttp serves the pages (``web/``: plain HTML, JavaScript and SVG), the broadcast SGFs
(``/feed/``) and the JSON API; every page keeps one WebSocket (``/ws``) that first gets the
whole picture (``snapshot``) and then every change.

Two views of the hall: the live one (``hall``, every message as it comes) and the public one
(``public``, a second ``Hall`` fed each message once it is ``--delay`` seconds old, with the
time it came: its moves, clocks, results and incidents are the live view's of ``delay`` ago).
Each message passes the door once (``Hall.door``, ``host_tools/hall/door.py``): a refused
one is counted there, by the live view, and goes no further; the public view is given only
what the live view took, as the door made it (``_message``, ``_release``).
Everything the public reaches without a login is the public view: the pages' ``/ws``, the
JSON API, the feed, and on MQTT the hall's republished copy under ``tengen/<hall>/_public/``
(the only topics the broker's ``public`` user may read). The live view (``/ws?live=1``,
``/api/live/...``), the arbiter's page, ``/api/incidents`` and ``/api/status`` need a login
(``host_tools/hall/auth.py``: a session cookie from ``/login``, or HTTP Basic).

paho runs its own thread (``loop_start``); nothing of the state is touched there: its
callbacks only ``call_soon_threadsafe`` into the loop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import html
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from aiohttp import WSMsgType, web

from host_tools.hall import auth as AU
from host_tools.hall import boards as HB
from host_tools.hall import door as HI
from host_tools.hall import feed as F
from host_tools.hall import pairings as P
from host_tools.hall.state import Hall, default_feed_dir

log = logging.getLogger("tengen.hall")

WEB = Path(__file__).with_name("web")
TICK_S = 0.25  # the delay's cut, replay requests again, the SGFs written
CLOCKS_S = 1.0  # the running faces pushed (the pages count down in between)
QUEUE_MAX = 20000  # messages a page may lag behind before it is dropped (it reconnects)
PASSWORD_ENV = "TENGEN_MQTT_PASSWORD"
SGF_TYPE = "application/x-go-sgf"
PUBLIC = "_public"  # tengen/<hall>/_public/...: the delayed copy the MQTT user public reads
PUBLIC_HIDDEN = ("bad",)  # pushes of the arbiter's only, never on a public WebSocket
RESTART_COVER_S = 3600.0  # a hall down less than this leaves no hole in the public copy


def public_topic(topic: str) -> str:
    """``tengen/<hall>/X...`` -> ``tengen/<hall>/_public/X...``."""
    root, hall, rest = topic.split("/", 2)
    return "%s/%s/%s/%s" % (root, hall, PUBLIC, rest)


def public_hall(hall: Hall) -> Hall:
    """The public view of ``hall``: no folder of its own, its clock ``delay`` behind."""
    delay = hall.delay
    public = Hall(
        hall.name,
        None,
        delay,
        hall.pairings,
        clock=lambda: time.time() - delay,
        boards=hall.register,  # the same register: a game the board's key fails stays out
        limits=hall.limits,
    )
    public.quiet = True  # what it is given passed the live view's door: said there
    return public


def parse_broker(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` too) as ``(host, port)``; ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("--broker %r: HOST:PORT" % text)
    return host.strip("[]"), int(port)


def client_id(hall: str, feed_dir) -> str:
    """The hall's MQTT client id: one per hall name and feed folder, so that a restarted hall
    finds its persistent session (and the events queued for it) again, and two halls with
    two folders do not take each other's."""
    digest = hashlib.sha256(str(Path(feed_dir).resolve()).encode()).hexdigest()[:10]
    return "tengen-hall-%s-%s" % (hall, digest)


class HallServer:
    """The hall's MQTT client and web app around one ``Hall``."""

    def __init__(
        self,
        hall: Hall,
        broker: tuple[str, int],
        user: str = "hall",
        password: str | None = None,
        mqtt_id: str | None = None,
        users: AU.Users | None = None,
    ):
        self.hall = hall
        self.public = public_hall(hall)
        # (arrival, topic, payload, republish): every message, kept until it is delay old.
        self.pending: collections.deque = collections.deque()
        self.pending_bytes = 0  # their topics and payloads (``_queue``)
        self.users = users
        self.sessions = AU.Sessions()
        self.public_clients: dict[web.WebSocketResponse, asyncio.Queue] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.broker = broker
        self.user = user
        self.password = password
        self.mqtt_id = mqtt_id or client_id(hall.name, hall.feed_dir or ".")
        self.clients: dict[web.WebSocketResponse, asyncio.Queue] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.client: mqtt.Client | None = None
        self.connected = False
        self._flush_soon = False
        self._said_refused = False
        self._stopping = False

    # ---- MQTT ---------------------------------------------------------------------------------

    def start_mqtt(self) -> None:
        """Connect (in the background: the hall serves its pages while the broker is away)."""
        self.loop = asyncio.get_running_loop()
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.mqtt_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
        )
        c.username_pw_set(self.user, self.password)
        c.reconnect_delay_set(min_delay=0.2, max_delay=2)
        c.max_queued_messages_set(0)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.connect_async(self.broker[0], self.broker[1], keepalive=15)
        c.loop_start()
        self.client = c

    def stop_mqtt(self) -> None:
        if self.client is not None:
            self._stopping = True
            self.client.disconnect()
            self.client.loop_stop()
            self.client = None

    def _on_connect(self, client, userdata, flags, reason_code, properties=None):
        if reason_code.is_failure:
            if not self._said_refused:
                self._said_refused = True
                log.error("the broker refused the hall: %s (user %s)", reason_code, self.user)
            return
        self._said_refused = False
        name = self.hall.name
        client.subscribe(
            [
                (F.subscription(name, F.STATE), F.QOS),
                (F.subscription(name, F.EVENTS), F.QOS),
                (F.subscription(name, F.PROOF), F.QOS),
                ("%s/%s/%s/+" % (F.ROOT, name, F.RELAY), F.QOS),
            ]
        )
        self.loop.call_soon_threadsafe(self._connected)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None):
        self.loop.call_soon_threadsafe(self._disconnected, str(reason_code))

    def _on_message(self, client, userdata, msg):
        self.loop.call_soon_threadsafe(self._message, msg.topic, bytes(msg.payload))

    def _connected(self) -> None:
        was, self.connected = self.connected, True
        log.info("connected to the broker %s:%d", *self.broker)
        for topic, payload, retain in self.hall.pairing_messages():
            self._publish(topic, payload, retain)
        if not was:
            self.hall.resync()
        self._flush()

    def _disconnected(self, why: str) -> None:
        if self.connected and not self._stopping:
            log.warning("the broker is gone (%s): trying again", why)
        self.connected = False

    def _publish(self, topic: str, payload: bytes, retain: bool) -> None:
        if self.client is not None:
            self.client.publish(topic, payload, qos=F.QOS, retain=retain)

    def _message(self, topic: str, payload: bytes) -> None:
        # The door once (door: a refusal counted once, by the live view, and never
        # passed on); then the live view now, the public one what the live one took, later.
        now = time.time()
        taken = None
        try:
            msg = self.hall.door(topic, payload, now)
            if msg is not None and self.hall.take(msg, now):
                taken = msg
        except Exception as e:  # a message the model did not expect: counted, not fatal
            if not self.hall.bad.get("internal"):  # the first one's trace; then counted
                log.exception("a message the hall could not take (%s)", topic)
            self.hall.bad_message("internal", "%s: %r" % (topic, e))
        if taken is not None and self._queue(taken, topic, payload):
            self.pending.append((now, topic, payload, taken, True))
        if self.hall.delay <= 0:
            self._release(now)
        else:
            self._schedule()
        if not self._flush_soon:  # the messages queued behind this one go in the same flush
            self._flush_soon = True
            self.loop.call_soon(self._flush)

    def _queue(self, msg: HI.Message, topic: str, payload: bytes) -> bool:
        """Whether a message the live view took is kept for the public one: always a record
        or a proof (the hall's bounds hold those), a snapshot or a relay's status only while
        the queue holds less than ``Limits.pending_bytes`` (a relay publishing snapshots as
        fast as the broker takes them cannot fill the hall's memory over the delay; the
        public view shows the next one)."""
        size = len(topic) + len(payload)
        if msg.leaf in (F.EVENTS, F.PROOF) and msg.board != F.RELAY:
            self.pending_bytes += size
            return True
        if self.pending_bytes + size > self.hall.limits.pending_bytes:
            who = HI.sources(msg.board, msg.leaf, msg.relay)
            self.hall.bad_message("bound", "%s: the public view's queue is full" % topic, who)
            return False
        self.pending_bytes += size
        return True

    def keep_loaded(self) -> None:
        """The records a restarted hall read back go to the public view as they came: those
        older than the delay at once, the others when their time comes. Those that came in
        the last ``RESTART_COVER_S`` before it are republished on the public topics too (the
        hall may have gone before it did; a reader drops a repeat by its seq)."""
        loaded = []
        recent = time.time() - self.hall.delay - RESTART_COVER_S
        for (board, game), g in self.hall.games.items():
            # Under the relay's user, as it came: the register's relay, else the board's last.
            relay = self.hall.register.get(board, {}).get("relay")
            if relay is None and board in self.hall.boards:
                relay = self.hall.boards[board].relay or None
            topic = F.topic(self.hall.name, board, F.EVENTS, relay)
            came = 0.0
            chain = g.chain  # a keyed board's live game: its records go with their proof
            for seq, rec in enumerate(g.recs.records):
                at = g.relay_at.get(seq, 0)
                raw, mac = chain.event(seq) if chain and seq < chain.count else (None, None)
                payload = F.event_payload(board, game, seq, rec, at, raw, mac)
                came = g.recs.times[seq]
                # Read back within the bounds (Hall.load): past the door already.
                ev = {"board": board, "game": game, "seq": seq, "at": at, "rec": rec}
                ev.update(raw=raw, mac=mac)
                msg = HI.Message(board, F.EVENTS, relay, ev)
                loaded.append((came, topic, payload, msg, came > recent))
            if g.proof is not None:  # the verdict too, with the game's last record
                payload = F.proof_payload(board, game, g.proof[0], g.proof[1])
                proof_topic = F.topic(self.hall.name, board, F.PROOF, relay)
                proof = {"board": board, "game": game, "data": g.proof[0], "hmac": g.proof[1]}
                msg = HI.Message(board, F.PROOF, relay, proof)
                loaded.append((came, proof_topic, payload, msg, came > recent))
        loaded.sort(key=lambda m: m[0])
        self.pending_bytes += sum(len(m[1]) + len(m[2]) for m in loaded)
        self.pending.extendleft(reversed(loaded))
        self._release(time.time())
        self._flush()

    def _schedule(self) -> None:
        # One timer, for the oldest message kept: the public view has each message at its
        # arrival plus the delay, not at the next tick.
        if self._timer is None and self.pending and self.loop is not None:
            wait = self.pending[0][0] + self.hall.delay - time.time()
            self._timer = self.loop.call_later(max(0.0, wait), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._release(time.time())
        self._flush()
        self._schedule()

    def _release(self, now: float) -> None:
        """The messages now ``delay`` old into the public view (with the time they came),
        and those it took republished on the public topics."""
        cut = now - self.hall.delay
        public = self.public
        while self.pending and self.pending[0][0] <= cut:
            came, topic, payload, msg, republish = self.pending.popleft()
            self.pending_bytes -= len(topic) + len(payload)
            try:
                taken = public.take(msg, came)  # past the door already: not checked again
            except Exception as e:  # as for the live view: counted, not fatal
                log.exception("the public view could not take a message (%s)", topic)
                public.bad_message("internal", "%s: %r" % (topic, e))
                taken = False
            if republish and taken:
                # The payload as it came: checked at the door, so a reader of the public
                # copy gets only what the hall took.
                leaf = F.parse_topic(topic)[2] if F.parse_topic(topic) else ""
                self._publish(public_topic(topic), payload, leaf != F.EVENTS)

    def _flush(self) -> None:
        self._flush_soon = False
        pushes, out = self.hall.drain()
        for topic, payload, retain in out:
            self._publish(topic, payload, retain)
        for msg in pushes:
            self.broadcast(msg)
        pushes, _ = self.public.drain()  # its replay requests are the live view's to make
        for msg in pushes:
            if msg.get("type") not in PUBLIC_HIDDEN:
                self.broadcast(msg, self.public_clients)

    async def ticker(self) -> None:
        """Now and then: ``Hall.tick`` (the delay, replays), the running faces."""
        last = 0.0
        while True:
            await asyncio.sleep(TICK_S)
            try:
                self.hall.tick()
                self._release(time.time())
                if time.monotonic() - last >= CLOCKS_S:
                    last = time.monotonic()
                    for view in (self.hall, self.public):
                        msg = view.clocks_message()
                        if msg:
                            view.pushes.append(msg)
            except Exception:  # a bug here must not stop the hall: said, and tried again
                log.exception("the hall's tick failed")
            self._flush()

    # ---- the pages' WebSockets ----------------------------------------------------------------

    def broadcast(self, msg: dict, clients: dict | None = None) -> None:
        """Send ``msg`` to every page of ``clients`` (default: the live view's); a page too
        far behind is dropped (it reconnects and gets a fresh snapshot)."""
        clients = self.clients if clients is None else clients
        if not clients:
            return
        text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
        for ws, q in list(clients.items()):
            try:
                q.put_nowait(text)
            except asyncio.QueueFull:
                clients.pop(ws, None)
                asyncio.ensure_future(ws.close(message=b"too far behind"))

    async def ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        """``/ws``: the public view; ``/ws?live=1``: the live one, for a signed-in user."""
        live = "live" in request.query
        if live:
            self._need_user(request, api=True)
            origin = request.headers.get("Origin")
            if origin and origin.split("://", 1)[-1] != request.host:
                raise web.HTTPForbidden(text="another site's page")
        view, clients = (self.hall, self.clients) if live else (self.public, self.public_clients)
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        q: asyncio.Queue = asyncio.Queue(QUEUE_MAX)
        # The snapshot and the registration in one step of the loop: no change falls between.
        self._flush()
        first = view.snapshot_message()
        if not live:
            for key in ("bad", "relays"):
                first.pop(key, None)
        q.put_nowait(json.dumps(first, ensure_ascii=False))
        clients[ws] = q
        writer = asyncio.ensure_future(self._writer(ws, q))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            clients.pop(ws, None)
            writer.cancel()
        return ws

    async def _writer(self, ws: web.WebSocketResponse, q: asyncio.Queue) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
            while not ws.closed:
                await ws.send_str(await q.get())

    # ---- HTTP ---------------------------------------------------------------------------------

    def app(self) -> web.Application:
        """The aiohttp application: pages, feed, API, WebSocket; the login."""
        app = web.Application()
        page = self._page
        app.router.add_get("/", page("live.html"))
        app.router.add_get("/table/{board}", page("table.html"))
        app.router.add_get("/arbiter", page("arbiter.html", signed_in=True))
        app.router.add_get("/login", self.login_form)
        app.router.add_post("/login", self.login)
        app.router.add_post("/logout", self.logout)
        app.router.add_get("/feed", lambda r: web.HTTPFound("/feed/"))
        app.router.add_get("/feed/", self.feed_index)
        app.router.add_get(r"/feed/{board}/{game:\d+}.sgf", self.feed_sgf)
        # The public API is the public view; /api/live/... the live one, for a login.
        for prefix, view in (("/api", self.public), ("/api/live", self.hall)):
            guard = self._signed_in if view is self.hall else (lambda f: f)
            app.router.add_get(prefix + "/boards", guard(self._api_boards(view)))
            app.router.add_get(prefix + "/boards/{board}", guard(self._api_board(view)))
            app.router.add_get(prefix + "/games", guard(self._api_games(view)))
            app.router.add_get(prefix + r"/games/{board}/{game:\d+}", guard(self._api_game(view)))
        app.router.add_get("/api/incidents", self._signed_in(self.api_incidents))
        app.router.add_get("/api/status", self._signed_in(self.api_status))
        app.router.add_get("/ws", self.ws_handler)
        app.router.add_static("/static/", WEB)
        return app

    # ---- the login ----------------------------------------------------------------------------

    def user_of(self, request: web.Request) -> str | None:
        """Who sends ``request`` (a session cookie or HTTP Basic); None if no one."""
        return AU.request_user(request.headers, request.cookies, self.users, self.sessions)

    def _need_user(self, request: web.Request, api: bool) -> str:
        user = self.user_of(request)
        if user is not None:
            return user
        if api:
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": "a login is needed"}),
                content_type="application/json",
                headers={"WWW-Authenticate": 'Basic realm="tengen hall", charset="UTF-8"'},
            )
        raise web.HTTPSeeOther("/login?next=" + _quote(request.path_qs))

    def _signed_in(self, handler):
        async def guarded(request: web.Request) -> web.StreamResponse:
            self._need_user(request, api=True)
            return await handler(request)

        return guarded

    async def login_form(self, request: web.Request, said: str = "") -> web.Response:
        nxt = _local(request.query.get("next", "/arbiter"))
        body = (
            "<!doctype html><html><head><meta charset='utf-8'><title>Tengen hall %s: sign in"
            "</title><link rel='stylesheet' href='/static/hall.css'></head><body>"
            "<h1>Sign in</h1><p>The arbiter's page and the live view are for the hall's "
            "arbiters and organisers.</p>%s<form method='post' action='/login'>"
            "<input type='hidden' name='next' value='%s'>"
            "<p><label>Name <input name='name' id='name' autocomplete='username'></label></p>"
            "<p><label>Password <input name='password' id='password' type='password' "
            "autocomplete='current-password'></label></p>"
            "<p><button type='submit' id='sign-in'>Sign in</button></p></form></body></html>"
        ) % (
            html.escape(self.hall.name),
            "<p class='error' id='said'>%s</p>" % html.escape(said) if said else "",
            html.escape(nxt, quote=True),
        )
        status = 401 if said else 200
        return web.Response(text=body, content_type="text/html", status=status)

    async def login(self, request: web.Request) -> web.Response:
        form = await request.post()
        name, password = str(form.get("name", "")), str(form.get("password", ""))
        nxt = _local(str(form.get("next", "/arbiter")))
        ok = self.users is not None and self.users.fresh().check(name, password)
        if not ok:
            log.warning("a failed login")  # not the name either: it may be a password
            await asyncio.sleep(0.5)  # a guesser's pace
            return await self.login_form(request, "Wrong name or password.")
        log.info("%s signed in", name)
        resp = web.HTTPSeeOther(nxt)
        resp.set_cookie(
            AU.COOKIE,
            self.sessions.new(name),
            max_age=AU.SESSION_S,
            path="/",
            httponly=True,
            samesite="Strict",
            secure=request.secure,
        )
        return resp

    async def logout(self, request: web.Request) -> web.Response:
        self.sessions.end(request.cookies.get(AU.COOKIE))
        resp = web.HTTPSeeOther("/")
        resp.del_cookie(AU.COOKIE, path="/")
        return resp

    # ---- the pages and the API ----------------------------------------------------------------

    def _page(self, name: str, signed_in: bool = False):
        path = WEB / name

        async def handler(request: web.Request) -> web.StreamResponse:
            if signed_in or "live" in request.query:
                self._need_user(request, api=False)
            return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

        return handler

    @staticmethod
    def _json(obj, status: int = 200) -> web.Response:
        return web.json_response(
            obj, status=status, dumps=lambda o: json.dumps(o, ensure_ascii=False)
        )

    def _not_found(self, what: str) -> web.Response:
        return self._json({"error": "not found", "what": what}, status=404)

    def _api_boards(self, view: Hall):
        async def api_boards(request: web.Request) -> web.Response:
            return self._json(view.boards_json())

        return api_boards

    def _api_board(self, view: Hall):
        async def api_board(request: web.Request) -> web.Response:
            board = request.match_info["board"]
            j = view.board_json(board, moves=True)
            return self._json(j) if j is not None else self._not_found("board %s" % board)

        return api_board

    def _api_games(self, view: Hall):
        async def api_games(request: web.Request) -> web.Response:
            return self._json(view.games_json())

        return api_games

    def _api_game(self, view: Hall):
        async def api_game(request: web.Request) -> web.Response:
            board, game = request.match_info["board"], int(request.match_info["game"])
            j = view.game_records_json(board, game)
            if j is None:
                return self._not_found("game %d of board %s" % (game, board))
            j["records"] = j.pop("records_list")
            return self._json(j)

        return api_game

    async def api_incidents(self, request: web.Request) -> web.Response:
        return self._json(self.hall.incidents_json())

    async def api_status(self, request: web.Request) -> web.Response:
        h = self.hall
        return self._json(
            {
                "hall": h.name,
                "connected": self.connected,
                "delay": h.delay,
                "offline": h.offline_json(),
                "relays": h.relays_json(),
                "bad": h.bad_json(),
                "replays_asked": h.replays_asked,
                "pages": len(self.clients) + len(self.public_clients),
                "pending": len(self.pending),
            }
        )

    async def feed_sgf(self, request: web.Request) -> web.Response:
        board, game = request.match_info["board"], int(request.match_info["game"])
        data = self.hall.feed_sgf(board, game)
        if data is None:
            return self._not_found(
                "game %d of board %s (none yet, or not yet past the %g s delay)"
                % (game, board, self.hall.delay)
            )
        return web.Response(
            body=data,
            content_type=SGF_TYPE,
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    async def feed_index(self, request: web.Request) -> web.Response:
        # The public view's games: their moves and results as the feed has them, not live.
        games = self.public.games_json()
        if "json" in request.query or "application/json" in request.headers.get("Accept", ""):
            return self._json({"hall": self.hall.name, "delay": self.hall.delay, "games": games})
        rows = []
        for g in games:
            cells = [
                g["board"],
                str(g["game"]),
                g["round"],
                g["table"],
                g["black"],
                g["white"],
                str(g["moves"]),
                g["result"] or "",
                g["verified"],
            ]
            link = '<a href="%s">SGF</a>' % html.escape(g["sgf"])
            rows.append(
                "<tr>%s<td>%s</td></tr>"
                % ("".join("<td>%s</td>" % html.escape(c or "") for c in cells), link)
            )
        body = (
            "<!doctype html><html><head><meta charset='utf-8'><title>Tengen hall %s: feed"
            "</title><link rel='stylesheet' href='/static/hall.css'></head><body>"
            "<h1>Broadcast feed</h1><p>Each game's SGF, %g s behind the boards. "
            "<a href='/feed/?json'>JSON</a></p><table id='feed'><thead><tr><th>board</th>"
            "<th>game</th><th>round</th><th>table</th><th>black</th><th>white</th>"
            "<th>moves</th><th>result</th><th>verified</th><th></th></tr></thead><tbody>%s</tbody></table>"
            "</body></html>"
        ) % (html.escape(self.hall.name), self.hall.delay, "".join(rows))
        return web.Response(text=body, content_type="text/html")


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/?=&")


def _local(path: str) -> str:
    """Where to go after the login: a path of this hall only (no other site)."""
    ok = path.startswith("/") and not path.startswith("//") and "\\" not in path
    return path if ok else "/arbiter"


# ---- the command ------------------------------------------------------------------------------


def serve(
    broker: str,
    hall: str,
    user: str = "hall",
    password: str | None = None,
    http: int = 8080,
    bind: str = "127.0.0.1",
    pairings: str | None = None,
    round_: str | None = None,
    delay: float = 0.0,
    feed_dir: str | None = None,
    users_file: str | None = None,
    boards: str | None = None,
) -> int:
    """Run the hall until SIGINT/SIGTERM; the exit status. Prints ``hall: http://HOST:PORT/``
    once serving; errors in the arguments, the pairings or the boards file (``boards``: the
    organiser's register of relays and keys, ``host_tools/hall/boards.py``) end it at once
    (status 2)."""
    logging.basicConfig(level=logging.INFO, format="hall: %(message)s", stream=sys.stderr)
    try:
        address = parse_broker(broker)
        F.check_name(hall, "hall")
        paired = P.for_round(P.read(pairings), round_) if pairings else {}
        register = HB.read(boards) if boards else {}
        if delay < 0:
            raise ValueError("--delay: seconds, not negative")
        users = AU.Users(users_file).read() if users_file else None
    except (ValueError, P.PairingError, OSError) as e:
        print("hall: %s" % e, file=sys.stderr)
        return 2
    if users is None or not users.hashes:
        log.warning("no users (--users FILE --add-user NAME): the arbiter's page is closed")
    folder = Path(feed_dir) if feed_dir else default_feed_dir(hall)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print("hall: the feed folder %s: %s" % (folder, e), file=sys.stderr)
        return 2
    if password is None:
        password = os.environ.get(PASSWORD_ENV)
    model = Hall(hall, folder, delay, paired, boards=register)
    kept = model.load()
    if kept:
        log.info("%d records read back from %s", kept, folder)
    server = HallServer(model, address, user, password, users=users)
    try:
        asyncio.run(_run(server, bind, http))
    except OSError as e:
        print("hall: cannot serve on %s:%d: %s" % (bind, http, e), file=sys.stderr)
        return 1
    return 0


async def _run(server: HallServer, bind: str, port: int) -> None:
    runner = web.AppRunner(server.app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, bind, port)
    await site.start()
    host, real_port = runner.addresses[0][:2]
    shown = "[%s]" % host if ":" in host else host
    print("hall: http://%s:%d/" % (shown, real_port), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    server.start_mqtt()
    server.keep_loaded()  # after: what it republishes waits in paho's queue for the broker
    ticker = asyncio.ensure_future(server.ticker())
    try:
        await stop.wait()
    finally:
        ticker.cancel()
        server.stop_mqtt()
        for ws in list(server.clients) + list(server.public_clients):
            with contextlib.suppress(Exception):
                await ws.close()
        await runner.cleanup()
