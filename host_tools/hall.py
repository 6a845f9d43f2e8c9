"""``tengen hall``: the tournament hall's pages, feed and API, fed from the MQTT broker.

Start reading at ``serve``, then ``HallServer``. The state is ``host_tools/hall_state.py``'s
``Hall``; this module only moves messages: paho's client (user ``hall``, a persistent
session so that the broker keeps the QoS 1 events for the hall while it is down) hands each
message to the asyncio loop, ``Hall.handle`` takes it, and what it leaves (``Hall.drain``)
goes to every page's WebSocket and, for replay requests and pairings, back to the broker.
aiohttp serves the pages (``hall_web/``: plain HTML, JavaScript and SVG), the broadcast SGFs
(``/feed/``) and the JSON API; every page keeps one WebSocket (``/ws``) that first gets the
whole picture (``snapshot``) and then every change.

paho runs its own thread (``loop_start``); nothing of the state is touched there: its
callbacks only ``call_soon_threadsafe`` into the loop.
"""

from __future__ import annotations

import asyncio
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

from host_tools import feed as F
from host_tools import pairings as P
from host_tools.hall_state import Hall, default_feed_dir

log = logging.getLogger("tengen.hall")

WEB = Path(__file__).with_name("hall_web")
TICK_S = 0.25  # the delay's cut, replay requests again, the SGFs written
CLOCKS_S = 1.0  # the running faces pushed (the pages count down in between)
QUEUE_MAX = 20000  # messages a page may lag behind before it is dropped (it reconnects)
PASSWORD_ENV = "TENGEN_MQTT_PASSWORD"
SGF_TYPE = "application/x-go-sgf"


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
    ):
        self.hall = hall
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
        try:
            self.hall.handle(topic, payload)
        except Exception as e:  # a message the model did not expect: counted, not fatal
            if not self.hall.bad.get("internal"):  # the first one's trace; then counted
                log.exception("a message the hall could not take (%s)", topic)
            self.hall.bad_message("internal", "%s: %r" % (topic, e))
        if not self._flush_soon:  # the messages queued behind this one go in the same flush
            self._flush_soon = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_soon = False
        pushes, out = self.hall.drain()
        for topic, payload, retain in out:
            self._publish(topic, payload, retain)
        for msg in pushes:
            self.broadcast(msg)

    async def ticker(self) -> None:
        """Now and then: ``Hall.tick`` (the delay, replays), the running faces."""
        last = 0.0
        while True:
            await asyncio.sleep(TICK_S)
            try:
                self.hall.tick()
                if time.monotonic() - last >= CLOCKS_S:
                    last = time.monotonic()
                    msg = self.hall.clocks_message()
                    if msg:
                        self.hall.pushes.append(msg)
            except Exception:  # a bug here must not stop the hall: said, and tried again
                log.exception("the hall's tick failed")
            self._flush()

    # ---- the pages' WebSockets ----------------------------------------------------------------

    def broadcast(self, msg: dict) -> None:
        """Send ``msg`` to every page; a page too far behind is dropped (it reconnects and
        gets a fresh snapshot)."""
        if not self.clients:
            return
        text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
        for ws, q in list(self.clients.items()):
            try:
                q.put_nowait(text)
            except asyncio.QueueFull:
                self.clients.pop(ws, None)
                asyncio.ensure_future(ws.close(message=b"too far behind"))

    async def ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        q: asyncio.Queue = asyncio.Queue(QUEUE_MAX)
        # The snapshot and the registration in one step of the loop: no change falls between.
        self._flush()
        q.put_nowait(json.dumps(self.hall.snapshot_message(), ensure_ascii=False))
        self.clients[ws] = q
        writer = asyncio.ensure_future(self._writer(ws, q))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.clients.pop(ws, None)
            writer.cancel()
        return ws

    async def _writer(self, ws: web.WebSocketResponse, q: asyncio.Queue) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
            while not ws.closed:
                await ws.send_str(await q.get())

    # ---- HTTP ---------------------------------------------------------------------------------

    def app(self) -> web.Application:
        """The aiohttp application: pages, feed, API, WebSocket."""
        app = web.Application()
        page = self._page
        app.router.add_get("/", page("live.html"))
        app.router.add_get("/table/{board}", page("table.html"))
        app.router.add_get("/arbiter", page("arbiter.html"))
        app.router.add_get("/feed", lambda r: web.HTTPFound("/feed/"))
        app.router.add_get("/feed/", self.feed_index)
        app.router.add_get(r"/feed/{board}/{game:\d+}.sgf", self.feed_sgf)
        app.router.add_get("/api/boards", self.api_boards)
        app.router.add_get("/api/boards/{board}", self.api_board)
        app.router.add_get("/api/games", self.api_games)
        app.router.add_get(r"/api/games/{board}/{game:\d+}", self.api_game)
        app.router.add_get("/api/incidents", self.api_incidents)
        app.router.add_get("/api/status", self.api_status)
        app.router.add_get("/ws", self.ws_handler)
        app.router.add_static("/static/", WEB)
        return app

    def _page(self, name: str):
        path = WEB / name

        async def handler(request: web.Request) -> web.Response:
            return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

        return handler

    @staticmethod
    def _json(obj, status: int = 200) -> web.Response:
        return web.json_response(
            obj, status=status, dumps=lambda o: json.dumps(o, ensure_ascii=False)
        )

    def _not_found(self, what: str) -> web.Response:
        return self._json({"error": "not found", "what": what}, status=404)

    async def api_boards(self, request: web.Request) -> web.Response:
        return self._json(self.hall.boards_json())

    async def api_board(self, request: web.Request) -> web.Response:
        board = request.match_info["board"]
        j = self.hall.board_json(board, moves=True)
        return self._json(j) if j is not None else self._not_found("board %s" % board)

    async def api_games(self, request: web.Request) -> web.Response:
        return self._json(self.hall.games_json())

    async def api_game(self, request: web.Request) -> web.Response:
        board, game = request.match_info["board"], int(request.match_info["game"])
        j = self.hall.game_records_json(board, game)
        if j is None:
            return self._not_found("game %d of board %s" % (game, board))
        j["records"] = j.pop("records_list")
        return self._json(j)

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
                "pages": len(self.clients),
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
        games = self.hall.feed_index()
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
            "<th>moves</th><th>result</th><th></th></tr></thead><tbody>%s</tbody></table>"
            "</body></html>"
        ) % (html.escape(self.hall.name), self.hall.delay, "".join(rows))
        return web.Response(text=body, content_type="text/html")


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
) -> int:
    """Run the hall until SIGINT/SIGTERM; the exit status. Prints ``hall: http://HOST:PORT/``
    once serving; errors in the arguments or the pairings file end it at once (status 2)."""
    logging.basicConfig(level=logging.INFO, format="hall: %(message)s", stream=sys.stderr)
    try:
        address = parse_broker(broker)
        F.check_name(hall, "hall")
        paired = P.for_round(P.read(pairings), round_) if pairings else {}
        if delay < 0:
            raise ValueError("--delay: seconds, not negative")
    except (ValueError, P.PairingError) as e:
        print("hall: %s" % e, file=sys.stderr)
        return 2
    folder = Path(feed_dir) if feed_dir else default_feed_dir(hall)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print("hall: the feed folder %s: %s" % (folder, e), file=sys.stderr)
        return 2
    if password is None:
        password = os.environ.get(PASSWORD_ENV)
    model = Hall(hall, folder, delay, paired)
    kept = model.load()
    if kept:
        log.info("%d records read back from %s", kept, folder)
    server = HallServer(model, address, user, password)
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
    ticker = asyncio.ensure_future(server.ticker())
    try:
        await stop.wait()
    finally:
        ticker.cancel()
        server.stop_mqtt()
        for ws in list(server.clients):
            with contextlib.suppress(Exception):
                await ws.close()
        await runner.cleanup()
