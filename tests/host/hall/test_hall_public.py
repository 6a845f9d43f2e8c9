"""What the public reaches of ``tengen hall`` is exactly ``--delay`` behind the boards, and the
live view, the arbiter's page, ``/api/incidents`` and ``/api/status`` need a login (issue [R]).

As the adversary who wants live moves for a player: every public surface is watched while a
move is published (the JSON API's four routes, the public ``/ws``, the MQTT user ``public``,
the public page in Chromium), and none may show it before ``DELAY_S`` has passed since it was
published; each shows it after. The clocks too: until then the public sees the clocks as they
were before the move. Without a login: 401 for the API and the live WebSocket, the login form
for the arbiter's page; a wrong password refused; with one (the form's session cookie, or
HTTP Basic) served. The real ``tengen hall``, Mosquitto and a paho client as the relay
(tests/host/hall/test_hall.py's helpers).
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import threading
import time

import pytest

from host_tools.hall import feed as F
from tests.host.hall.test_hall import (
    ARBITER,
    BOARD,
    HALL,
    TENGEN,
    RelayClient,
    broker_or_skip,
    get,
    go_records,
    hall_env,
    start_hall,
    state_body,
    stop_hall,
    wait_for,
)

DELAY_S = 3.0
WRONG = "not-it-7f3e"  # a wrong password (never to be found in the hall's log either)
WAIT_S = 30.0  # how long a surface may take to show the move once the delay passed


def basic(user):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % user).encode()).decode()}


class PublicMqtt:
    """A paho client as user ``public`` reading everything it may: ``got`` [(time, topic,
    payload)]."""

    def __init__(self, port):
        import paho.mqtt.client as mqtt

        self.got: list[tuple[float, str, bytes]] = []
        self.ready = threading.Event()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-public")
        self.c.username_pw_set("public", "public")
        self.c.on_message = lambda c, u, m: self.got.append(
            (time.monotonic(), m.topic, bytes(m.payload))
        )
        self.c.on_subscribe = lambda *a: self.ready.set()
        self.c.on_connect = lambda c, *a: c.subscribe("tengen/#", 1)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.ready.wait(10)

    def events(self):
        return [(t, topic, F.parse_event(p)) for t, topic, p in self.got if "/events" in topic]

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


class WsWatcher:
    """A page's WebSocket (``path`` of ``url``) in a thread: ``got`` [(time, message)]."""

    def __init__(self, url, path="ws", headers=None):
        self.got: list[tuple[float, dict]] = []
        self.open = threading.Event()
        self.stop = threading.Event()
        self.error = None
        self.t = threading.Thread(target=lambda: asyncio.run(self._run(url + path, headers)))
        self.t.daemon = True
        self.t.start()
        assert self.open.wait(10), self.error

    async def _run(self, url, headers):
        import aiohttp

        try:
            async with aiohttp.ClientSession() as s, s.ws_connect(url, headers=headers) as ws:
                self.open.set()
                while not self.stop.is_set():
                    try:
                        msg = await ws.receive_json(timeout=0.2)
                    except TimeoutError:
                        continue
                    self.got.append((time.monotonic(), msg))
        except Exception as e:  # said by the test that waits for it
            self.error = e
            self.open.set()

    def record_seen(self, seq):
        for t, m in self.got:
            if m.get("type") == "record" and m.get("seq") == seq:
                return t
        return None

    def close(self):
        self.stop.set()
        self.t.join(5)


@pytest.mark.slow(7)
def test_every_public_surface_is_exactly_the_delay_behind(tmp_path, started):
    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port, "--delay", str(DELAY_S))
    started(hall, stop_hall)
    public = started(PublicMqtt(broker.port))
    ws = started(WsWatcher(url))
    live_ws = started(WsWatcher(url, "ws?live=1", basic(ARBITER)))
    # The game begins: its header and the snapshot before the first move, once public.
    relay.state(BOARD, 1, 0, state_body(recs, 0))
    relay.event(BOARD, 1, 0, recs[0])
    wait_for(lambda: get(url + "api/games/%s/1" % BOARD)[0] == 200, WAIT_S, say="the header")
    before = get(url + "api/boards/%s" % BOARD)[1]
    assert before["ply"] == 0 and before["clocks"] == state_body(recs, 0)["clock"]["clocks"]
    move = recs[1]

    t0 = time.monotonic()
    relay.event(BOARD, 1, 1, move)
    relay.state(BOARD, 1, 1, state_body(recs, 1))
    seen: dict[str, float] = {}
    public_then = None  # the public surfaces at the moment the live view has the move
    end = time.monotonic() + DELAY_S + WAIT_S
    while len(seen) < 8 and time.monotonic() < end:
        now = time.monotonic()
        b = get(url + "api/boards/%s" % BOARD)[1]
        # The public's clocks are the clocks as they were: the old ones, or the move's.
        assert (b["ply"], b["clocks"]) in (
            (0, before["clocks"]),
            (1, list(move[5])),
        ), b
        board = [x for x in get(url + "api/boards")[1] if x["id"] == BOARD][0]
        game = get(url + "api/games")[1][0]
        records = get(url + "api/games/%s/1" % BOARD)[1]["records"]
        index = get(url + "feed/?json")[1]["games"][0]
        shown = {
            "feed/?json": index["moves"] == 1,
            "api/boards": board["ply"] == 1,
            "api/boards/B": len(b["moves"]) == 1,
            "api/games": game["moves"] == 1,
            "api/games/B/1": len(records) == 2,
        }
        for k, v in shown.items():
            if v:
                seen.setdefault(k, now)
        t = ws.record_seen(1)
        if t is not None:
            seen.setdefault("ws", t)
        t = next((t for t, _, ev in public.events() if ev["seq"] == 1), None)
        if t is not None:
            seen.setdefault("mqtt public", t)
        if "live" not in seen:
            live = get(url + "api/live/boards/%s" % BOARD, auth=ARBITER)[1]
            if live["ply"] == 1 and live_ws.record_seen(1) is not None:
                seen["live"] = now
                public_then = dict(shown, ws=ws.record_seen(1), mqtt=public.events()[1:])
        time.sleep(0.1)
    assert set(seen) == {
        "feed/?json",
        "api/boards",
        "api/boards/B",
        "api/games",
        "api/games/B/1",
        "ws",
        "mqtt public",
        "live",
    }, seen
    print({k: round(v - t0, 3) for k, v in seen.items()})
    # The live view (signed in) had it while no public surface did...
    assert public_then == {
        "feed/?json": False,
        "api/boards": False,
        "api/boards/B": False,
        "api/games": False,
        "api/games/B/1": False,
        "ws": None,
        "mqtt": [],
    }
    # ... and none showed it before the delay had passed since it was published.
    for k, t in seen.items():
        if k != "live":
            assert t - t0 >= DELAY_S, (k, t - t0)
    after = get(url + "api/boards/%s" % BOARD)[1]
    assert after["clocks"] == list(move[5]) and after["moves"][0]["point"] == move[3]
    # The public MQTT copy is the relay's own payloads, on the public topics only.
    topics = {topic for _, topic, _ in public.got}
    assert topics <= {
        "tengen/%s/_public/%s/state/relay-r1" % (HALL, BOARD),
        "tengen/%s/_public/%s/events/relay-r1" % (HALL, BOARD),
        "tengen/%s/_public/_relay/relay-r1" % HALL,
    }, topics
    assert [ev["seq"] for _, _, ev in public.events()] == [0, 1]
    # A public page's first message shows the past too, and nothing of the arbiter's.
    first = ws.got[0][1]
    assert first["type"] == "snapshot" and "bad" not in first and "relays" not in first
    assert live_ws.got[0][1]["bad"]["total"] == 0


async def _login_checks(url):
    import aiohttp

    # unsafe: cookies of an IP address kept, as a browser keeps them.
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        # Without a login: the API says 401 (and how to sign in), the page sends to the form.
        for path in ("api/incidents", "api/status", "api/live/boards", "api/live/games"):
            async with s.get(url + path) as r:
                assert r.status == 401, path
                assert r.headers["WWW-Authenticate"].startswith("Basic"), path
        async with s.get(url + "arbiter", allow_redirects=False) as r:
            assert r.status == 303 and r.headers["Location"] == "/login?next=/arbiter"
        async with s.get(url + "?live", allow_redirects=False) as r:
            assert r.status == 303
        with pytest.raises(aiohttp.WSServerHandshakeError) as e:
            async with s.ws_connect(url + "ws?live=1"):
                pass
        assert e.value.status == 401
        # A wrong password, by HTTP Basic or by the form: refused, no cookie.
        for user in ((ARBITER[0], WRONG), ("nobody", ARBITER[1])):
            async with s.get(url + "api/status", headers=basic(user)) as r:
                assert r.status == 401
            form = {"name": user[0], "password": user[1], "next": "/arbiter"}
            async with s.post(url + "login", data=form, allow_redirects=False) as r:
                assert r.status == 401 and "Set-Cookie" not in r.headers
                assert "Wrong name or password" in await r.text()
        assert not s.cookie_jar.filter_cookies(url)
        # HTTP Basic: served.
        for path in ("api/incidents", "api/status", "api/live/boards", "arbiter"):
            async with s.get(url + path, headers=basic(ARBITER)) as r:
                assert r.status == 200, path
        # The form: a session cookie, HttpOnly and SameSite=Strict, that opens everything.
        form = {"name": ARBITER[0], "password": ARBITER[1], "next": "/arbiter"}
        async with s.post(url + "login", data=form, allow_redirects=False) as r:
            assert r.status == 303 and r.headers["Location"] == "/arbiter"
            cookie = r.headers["Set-Cookie"]
        assert cookie.startswith("tengen_session=") and "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie and "Path=/" in cookie
        token = cookie.split(";")[0].split("=", 1)[1]
        assert len(token) >= 40
        for path in ("arbiter", "api/status", "api/incidents", "api/live/games", "?live"):
            async with s.get(url + path, allow_redirects=False) as r:
                assert r.status == 200, path
        async with s.ws_connect(url + "ws?live=1") as ws:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "snapshot" and "bad" in first
        # Another site's page cannot use the cookie for the live WebSocket.
        with pytest.raises(aiohttp.WSServerHandshakeError):
            async with s.ws_connect(url + "ws?live=1", origin="http://evil.example"):
                pass
        # A made-up or an ended session: nothing.
        async with aiohttp.ClientSession(cookies={"tengen_session": "x" * 43}) as other:
            async with other.get(url + "api/status") as r:
                assert r.status == 401
        async with s.post(url + "logout", allow_redirects=False) as r:
            assert r.status == 303
        async with aiohttp.ClientSession(cookies={"tengen_session": token}) as other:
            async with other.get(url + "api/status") as r:
                assert r.status == 401
        # The login page sends only to this hall's own pages.
        form = {"name": ARBITER[0], "password": ARBITER[1], "next": "//evil.example/"}
        async with s.post(url + "login", data=form, allow_redirects=False) as r:
            assert r.headers["Location"] == "/arbiter"


def test_a_restarted_hall_shows_the_public_only_what_is_delay_old(tmp_path):
    # The records read back from the feed folder: the old ones public at once, the one that
    # came less than the delay ago only once its time comes.
    from host_tools.hall.server import HallServer
    from host_tools.hall.state import Hall

    recs = go_records(tmp_path)
    now = time.time()
    first = Hall(HALL, tmp_path / "feed", DELAY_S)
    for seq in range(3):
        came = now - 60 if seq < 2 else now - 1
        first.handle(
            F.topic(HALL, BOARD, F.EVENTS), F.event_payload(BOARD, 1, seq, recs[seq], 1), came
        )
    model = Hall(HALL, tmp_path / "feed", DELAY_S)
    assert model.load() == 3
    server = HallServer(model, ("127.0.0.1", 1))
    server.keep_loaded()
    assert len(server.public.game_records_json(BOARD, 1)["records_list"]) == 2
    assert len(server.hall.game_records_json(BOARD, 1)["records_list"]) == 3
    server._release(now + DELAY_S)  # noqa: SLF001 - the ticker's step, at a chosen time
    assert len(server.public.game_records_json(BOARD, 1)["records_list"]) == 3
    assert not server.pending


@pytest.mark.slow(10)
def test_across_a_restart_of_the_hall_the_public_stays_the_delay_behind(tmp_path, started):
    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    relay = started(RelayClient(broker.port))
    public = started(PublicMqtt(broker.port))
    hall, url = start_hall(tmp_path, broker.port, "--delay", str(DELAY_S))
    started(hall, stop_hall)
    for seq in (0, 1):
        relay.event(BOARD, 1, seq, recs[seq])

    def public_records():
        status, body = get(url + "api/games/%s/1" % BOARD)
        return len(body["records"]) if status == 200 else 0

    wait_for(lambda: public_records() == 2, DELAY_S + WAIT_S, say="two public records")
    stop_hall(hall)
    time.sleep(DELAY_S)  # what the hall had is delay old by the time it is back
    relay.event(BOARD, 1, 2, recs[2])  # queued by the broker for the hall's session
    t0 = time.monotonic()
    hall, url = start_hall(tmp_path, broker.port, "--delay", str(DELAY_S))
    started(hall, stop_hall)
    assert public_records() == 2  # the old ones at once, the new one not yet
    wait_for(lambda: public_records() == 3, DELAY_S + WAIT_S, say="the third record")
    assert time.monotonic() - t0 >= DELAY_S
    wait_for(
        lambda: [ev["seq"] for _, _, ev in public.events()][-1:] == [2],
        WAIT_S,
        say="the third record on the public topics",
    )
    assert [ev["seq"] for _, _, ev in public.events()] in ([0, 1, 2], [0, 1, 0, 1, 2])


def test_the_arbiters_page_and_the_live_view_need_a_login(tmp_path, started):
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    hall, url = start_hall(tmp_path, broker.port)
    started(hall, stop_hall)
    asyncio.run(_login_checks(url))
    # The public pages no longer lead to the arbiter's.
    for page in ("", "table/" + BOARD):
        status, body = get(url + page, json_out=False)
        assert status == 200 and b"/arbiter" not in body
    assert get(url + "api/boards")[0] == 200  # the public API asks nothing
    stop_hall(hall)
    log = (tmp_path / "hall.log").read_text()
    assert "failed login" in log and ARBITER[1] not in log and WRONG not in log


def test_users_are_added_with_tengen_hall_and_kept_hashed(tmp_path, started):
    if not TENGEN.exists():
        pytest.skip("the tengen command is not installed (make venv)")
    users = tmp_path / "users"
    password = "correct horse battery staple"

    def tengen(*args, stdin=""):
        return subprocess.run(
            [str(TENGEN), "hall", "--users", str(users), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=hall_env(tmp_path),
            timeout=60,
        )

    r = tengen("--add-user", "chief", stdin=password + "\n")
    assert r.returncode == 0, r.stderr
    assert password not in r.stdout + r.stderr
    text = users.read_text()
    assert password not in text and "chief:scrypt$" in text
    assert oct(os.stat(users).st_mode & 0o777) == "0o600"
    assert tengen("--add-user", "bad name", stdin="x\n").returncode == 2
    assert tengen("--add-user", "empty", stdin="\n").returncode == 2
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    hall, url = start_hall(tmp_path, broker.port, "--users", str(users), auth=("chief", password))
    started(hall, stop_hall)
    assert get(url + "api/status", auth=("chief", password))[0] == 200
    assert get(url + "api/status", auth=ARBITER)[0] == 401  # not in this file
    # Removed while the hall runs: refused from then on.
    assert tengen("--remove-user", "chief").returncode == 0
    assert get(url + "api/status", auth=("chief", password))[0] == 401
    assert tengen("--add-user", "chief", stdin=password + "\n").returncode == 0
    stop_hall(hall)
    assert tengen("--remove-user", "chief").returncode == 0
    assert "chief" not in users.read_text()
    assert tengen("--remove-user", "chief").returncode == 1


@pytest.mark.slow(8)
def test_the_public_page_in_chromium_is_the_delay_behind(tmp_path, started):
    from tests.host.hall.test_hall_browser import browser_or_skip, card, open_page, wait_page

    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    driver = started(browser_or_skip(tmp_path), "quit")
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port, "--delay", str(DELAY_S))
    started(hall, stop_hall)
    relay.state(BOARD, 1, 0, state_body(recs, 0))
    relay.event(BOARD, 1, 0, recs[0])
    open_page(driver, url)
    wait_page(lambda: card(driver, BOARD), WAIT_S, "the board's card")
    assert card(driver, BOARD)["ply"] == 0
    t0 = time.monotonic()
    relay.event(BOARD, 1, 1, recs[1])
    relay.state(BOARD, 1, 1, state_body(recs, 1))
    c, _ = wait_page(
        lambda: (c := card(driver, BOARD))["ply"] == 1 and c, DELAY_S + WAIT_S, "the move"
    )
    took = time.monotonic() - t0
    print("publish -> public page: %.3f s (delay %g s)" % (took, DELAY_S))
    assert took >= DELAY_S
    # Without a login the arbiter's page is the login form.
    driver.get(url + "arbiter")
    wait_page(lambda: "/login" in driver.current_url, say="the login form")
    assert driver.find_elements("id", "sign-in")
    assert c["stones"] == 1
