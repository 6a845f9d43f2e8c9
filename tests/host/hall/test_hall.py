"""``tengen hall``: the model (``host_tools/hall/state.py``) fed real journal records across the
relay's JSON (``feed.event_payload`` -> ``Hall.handle``), and the real ``tengen hall`` process
against Mosquitto (``host_tools/hall/broker.py``) with a paho client publishing as a relay.

The records are a real ``firmware/store/journal.py`` Journal's (tests/host/records/test_export.py's
``journal_game``), so the hall's broadcast SGF is compared with ``export`` of the very records
``tengen sync`` would bring home. The helpers below (``RelayClient``, ``start_hall``,
``broker_or_skip``, ``wait_for``) are the browser test's too.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from firmware.store import records as R
from host_tools.hall import feed as F
from host_tools.hall import pairings as P
from host_tools.hall.state import Hall
from host_tools.records import export as X
from tests.host.records.test_export import go_events, go_header, journal_game

HALL = "h1"
BOARD = "TG-0001"  # go_header's board_id
TENGEN = Path(sys.executable).parent / "tengen"
WARNING = 10  # firmware/ui/arbiter.py: the arbiter's warning (an EDIT)
ARBITER = ("arbiter", "a long arbiter's password")  # start_hall's user (--users)


def go_records(tmp_path, extra=None):
    """A real 9x9 game's records: moves with clocks, a "captured stones left" incident, an
    arbiter's warning, the count's result (B+3.5)."""
    events = go_events()
    events.insert(6, ("edit", WARNING, 6, 9000, (2,)))
    header = go_header(extra=json.dumps(extra)) if extra else go_header()
    return journal_game(tmp_path, header, events)


def state_body(recs, ply=None, clock_state="running"):
    """The board's ``state`` reply (firmware/link/server.py ``cmd_state``) after ``ply``
    moves of ``recs``: what a relay puts in its snapshot."""
    moves = [r for r in recs if r[0] == R.MOVE][:ply]
    clocks = list(moves[-1][5]) if moves else [600000, 3, 600000, 3]
    running = 1 if len(moves) % 2 == 0 else 2
    return {
        "game": "go9",
        "size": 9,
        "ply": len(moves),
        "moves": [m[3] for m in moves],
        "colours": [m[2] for m in moves],
        "to_move": running,
        "clock": {
            "state": clock_state,
            "running": running,
            "clocks": clocks,
            "elapsed": 0,
            "flagged": 0,
        },
        "result": "",
        "phase": "play",
        "game_no": 1,
    }


def feed_all(hall, recs, board=BOARD, game=1, now=1000.0, order=None):
    """Every record of ``recs`` as the relay's events (in ``order`` of seqs, default in turn)."""
    for seq in order if order is not None else range(len(recs)):
        hall.handle(
            F.topic(HALL, board, F.EVENTS),
            F.event_payload(board, game, seq, recs[seq], 1767225600000 + seq),
            now,
        )


def records_of(pushes):
    return [(p["board"], p["game"], p["seq"]) for p in pushes if p["type"] == "record"]


# ---- the model ------------------------------------------------------------------------------


def test_records_in_order_repeats_dropped_sgf_is_the_synced_one(tmp_path):
    recs = go_records(tmp_path, extra={"black": "Ke Jie", "white": "Shin Jinseo"})
    hall = Hall(HALL, tmp_path / "feed")
    feed_all(hall, recs)
    feed_all(hall, recs, order=[3, 0, len(recs) - 1])  # QoS 1 repeats: dropped by seq
    pushes, out = hall.drain()
    assert records_of(pushes) == [(BOARD, 1, s) for s in range(len(recs))]
    first = [p for p in pushes if p["type"] == "record"][1]
    assert first["rec"] == F.record_json(recs[1]) and first["at"] == 1767225600001
    assert first["received"] == 1000000
    assert out == []  # no gap: no replay asked
    assert hall.feed_sgf(BOARD, 1, now=1000.0) == X.export(recs)["sgf"]
    hall.tick(1000.0)
    assert (tmp_path / "feed" / BOARD / "1.sgf").read_bytes() == X.export(recs)["sgf"]
    board = hall.board_json(BOARD, moves=True)
    assert board["black"] == "Ke Jie" and board["white"] == "Shin Jinseo"
    assert board["result"] == "B+3.5"
    stood = X.read_game(recs).moves
    assert [m["name"] for m in board["moves"]] == [
        "pass" if m.point == R.PASS else X._label(m.point, recs[0][1]) for m in stood
    ]
    assert board["moves"][0]["clocks"] == list(stood[0].clocks)
    assert board["moves"][0]["clock_text"] == ["9:15", "10:00"]
    # White's D3 (move 2) was taken by move 7: the small board has no stone there.
    assert [3, 2, 2] not in board["stones"] and [3, 3, 1] in board["stones"]
    # The incident and the arbiter's warning, in words, with where and when.
    words = [(i["what"], i["move"], i["words"]) for i in hall.incidents_json()]
    assert words == [
        ("arbiter", 6, "a warning to White"),
        ("incident", 4, "captured stones still on the board: remove them first (D3)"),
    ]
    incident = [p for p in pushes if p["type"] == "incident"]
    assert [i["seq"] for i in incident] == [4, 7]
    assert hall.games_json()[0]["moves"] == len(stood)


def test_a_gap_asks_the_board_to_replay_rate_limited(tmp_path):
    recs = go_records(tmp_path)
    hall = Hall(HALL)
    feed_all(hall, recs, order=[0, 1, 3, 4], now=10.0)
    pushes, out = hall.drain()
    assert records_of(pushes) == [(BOARD, 1, 0), (BOARD, 1, 1)]
    assert out == [(F.topic(HALL, BOARD, F.REPLAY), F.replay_payload(1, 2), False)]
    feed_all(hall, recs, order=[5], now=11.0)
    hall.tick(11.0)
    assert hall.drain()[1] == []  # asked 1 s ago: not again yet
    hall.tick(12.5)
    assert hall.drain()[1] == [(F.topic(HALL, BOARD, F.REPLAY), F.replay_payload(1, 2), False)]
    feed_all(hall, recs, order=[2], now=13.0)  # the replay: 2, and those held back follow
    pushes, out = hall.drain()
    assert records_of(pushes) == [(BOARD, 1, s) for s in (2, 3, 4, 5)]
    feed_all(hall, recs, order=range(2, len(recs)), now=13.1)
    hall.tick(20.0)
    assert hall.drain()[1] == []
    assert hall.feed_sgf(BOARD, 1, now=20.0) == X.export(recs)["sgf"]


def test_a_snapshot_ahead_of_the_records_asks_replay_after_a_grace(tmp_path):
    recs = go_records(tmp_path)
    hall = Hall(HALL)
    feed_all(hall, recs, order=[0, 1], now=10.0)
    snap = F.state_payload(BOARD, "r1", True, 10000, 1, 5, state_body(recs, 2))
    hall.handle(F.topic(HALL, BOARD, F.STATE), snap, 10.0)
    hall.tick(10.5)  # the events may be on their way
    assert hall.drain()[1] == []
    hall.tick(11.2)
    assert hall.drain()[1] == [(F.topic(HALL, BOARD, F.REPLAY), F.replay_payload(1, 2), False)]
    feed_all(hall, recs, order=range(2, 6), now=11.5)
    hall.tick(20.0)
    assert hall.drain()[1] == []


def test_the_broadcast_delay_cuts_by_arrival(tmp_path):
    recs = go_records(tmp_path)
    hall = Hall(HALL, tmp_path / "feed", delay=3.0)
    feed_all(hall, recs[:2], now=100.0)  # header and move 1
    feed_all(hall, recs, order=range(2, len(recs)), now=101.0)
    assert hall.feed_sgf(BOARD, 1, now=102.9) is None  # nothing has been 3 s here
    hall.tick(102.9)
    assert not (tmp_path / "feed" / BOARD / "1.sgf").exists()
    assert hall.feed_sgf(BOARD, 1, now=103.0) == X.export(recs[:2])["sgf"]
    hall.tick(103.5)
    assert (tmp_path / "feed" / BOARD / "1.sgf").read_bytes() == X.export(recs[:2])["sgf"]
    assert [g["board"] for g in hall.feed_index(now=103.5)] == [BOARD]
    hall.tick(104.0)
    assert (tmp_path / "feed" / BOARD / "1.sgf").read_bytes() == X.export(recs)["sgf"]


def test_a_restarted_hall_reads_its_records_back(tmp_path):
    recs = go_records(tmp_path)
    feed = tmp_path / "feed"
    hall = Hall(HALL, feed)
    feed_all(hall, recs, order=range(0, 6), now=50.0)
    with open(feed / BOARD / "1.jsonl", "a") as f:
        f.write('{"seq": 6, "at": 1, "rec": {"type": "mo')  # a line cut by a crash
    again = Hall(HALL, feed)
    assert again.load() == 6
    assert again.bad == {"store": 1}
    g = again.games[(BOARD, 1)]
    assert g.recs.records == recs[:6] and g.recs.times == [50.0] * 6
    assert g.relay_at[5] == 1767225600005
    assert [i["seq"] for i in again.incidents] == [4]
    assert records_of(again.drain()[0]) == []  # read back, not news for the pages
    feed_all(again, recs, order=range(5, len(recs)), now=60.0)
    assert again.feed_sgf(BOARD, 1, now=60.0) == X.export(recs)["sgf"]


def test_bad_messages_are_counted_and_nothing_breaks(tmp_path, caplog):
    recs = go_records(tmp_path)
    hall = Hall(HALL)
    events = F.topic(HALL, BOARD, F.EVENTS)
    ok = F.event_payload(BOARD, 1, 0, recs[0], 0)
    hall.handle(events, b"\xff not json", 1.0)
    hall.handle(events, b'{"v": 9}', 1.0)
    hall.handle(events, ok.replace(b'"seq":0', b'"seq":-1'), 1.0)
    hall.handle(events, ok.replace(b'"type":"header"', b'"type":"nonsense"'), 1.0)
    hall.handle(F.topic(HALL, "TG-2", F.EVENTS), ok, 1.0)  # another board's id in it
    hall.handle(F.topic(HALL, BOARD, F.STATE), b"[]", 1.0)
    hall.handle(F.relay_topic(HALL, "r1"), b'{"v": 1, "online": "yes"}', 1.0)
    hall.handle("tengen/other/TG-1/events", ok, 1.0)
    hall.handle(
        F.topic(HALL, BOARD, F.STATE),
        F.state_payload(BOARD, "r1", True, 0, 1, 0, {"moves": "nonsense", "clock": 5}),
        1.0,
    )
    assert hall.bad == {"events": 5, "state": 2, "relay": 1, "topic": 1}
    assert hall.bad_json()["total"] == 9
    said = [r.getMessage() for r in caplog.records if "bad" in r.getMessage()]
    assert len(said) == 4  # once per kind
    hall.handle(events, ok, 2.0)  # and the good ones still go in
    different = F.event_payload(BOARD, 1, 0, (R.HEADER, dict(recs[0][1], size=13)), 0)
    hall.handle(events, different, 2.0)
    assert hall.conflicts == 1 and len(hall.games[(BOARD, 1)].recs.records) == 1
    assert hall.snapshot_message()["bad"]["total"] == 10


def test_online_follows_the_snapshot_and_the_relay(tmp_path):
    recs = go_records(tmp_path)
    hall = Hall(HALL, pairings={BOARD: {"round": "1", "table": "3", "black": "A", "white": "B"}})
    assert hall.board_json(BOARD)["table"] == "3" and not hall.board_json(BOARD)["online"]
    hall.drain()
    hall.handle(F.relay_topic(HALL, "r1"), F.relay_payload("r1", True, [BOARD], 1), 5.0)
    snap = F.state_payload(BOARD, "r1", True, 5000, 0, -1, state_body(recs, 0))
    hall.handle(F.topic(HALL, BOARD, F.STATE), snap, 5.0)
    pushes, _ = hall.drain()
    assert {"type": "online", "board": BOARD} in pushes
    assert [p for p in pushes if p["type"] == "state"][0]["online"] is True
    assert hall.board_json(BOARD)["online"] and hall.offline_json() == []
    hall.handle(F.relay_topic(HALL, "r1"), F.relay_payload("r1", False), 7.0)  # its will
    pushes, _ = hall.drain()
    assert {"type": "offline", "board": BOARD, "since": 7000} in pushes
    assert hall.offline_json() == [
        {"board": BOARD, "table": "3", "relay": "r1", "since": 7000, "seen": True}
    ]
    hall.handle(F.relay_topic(HALL, "r1"), F.relay_payload("r1", True, [BOARD]), 8.0)
    assert hall.board_json(BOARD)["online"]
    hall.handle(
        F.topic(HALL, BOARD, F.STATE), F.state_payload(BOARD, "r1", False, 9000, 0, -1, None), 9.0
    )
    assert hall.board_json(BOARD)["offline_since"] == 9000
    assert hall.pairing_messages() == [
        (
            F.topic(HALL, BOARD, F.PAIRING),
            F.pairing_payload({"round": "1", "table": "3", "black": "A", "white": "B"}),
            True,
        )
    ]


def test_the_faces_are_the_clock_models(tmp_path):
    recs = go_records(tmp_path)
    hall = Hall(HALL)
    feed_all(hall, recs[:1], now=time.time())
    body = state_body(recs, 8)  # moves 7 and 8 ran into byo-yomi: 30 s periods
    body["clock"]["elapsed"] = 12000
    hall.handle(
        F.topic(HALL, BOARD, F.STATE),
        F.state_payload(BOARD, "r1", True, int(time.time() * 1000), 1, 0, body),
    )
    faces = hall.board_json(BOARD)["faces"]
    assert [f["side"] for f in faces] == ["Black", "White"]
    black, white = faces
    assert black["running"] and not white["running"]
    assert black["overtime"] == "byo-yomi, 3 left" and white["overtime"] == "byo-yomi, 3 left"
    assert black["time"] in ("0:18", "0:17") and white["time"] == "0:30"


# ---- pairings -------------------------------------------------------------------------------


def test_pairings_csv(tmp_path):
    good = (
        "Round,Table,Board,Black,White,Event,Rating\n1,1,TG-1,Ann,Bob,Open,5\n"
        "1,2,TG-2,Cy,Di,Open,4\n2,1,TG-2,Ann,Di,Open,4\n10,1,TG-1,X,Y,Open,1\n"
    )
    rows = P.parse(good)
    assert P.rounds(rows) == ["1", "2", "10"]
    assert P.for_round(rows) == {
        "TG-1": {"round": "10", "table": "1", "black": "X", "white": "Y", "event": "Open"}
    }
    assert set(P.for_round(rows, 1)) == {"TG-1", "TG-2"}
    with pytest.raises(P.PairingError, match="no pairings for round 3"):
        P.for_round(rows, 3)
    path = tmp_path / "p.csv"
    path.write_text(good)
    assert P.read(path) == rows


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("round,table,black,white\n1,1,A,B\n", "line 1: no column board"),
        ("round,table,board,black,white,board\n", "column board twice"),
        (
            "round,table,board,black,white\n1,1,TG-1,A,B\n1,2,TG-1,C,D\n",
            "line 3: board TG-1 twice in round 1 \\(line 2 too\\)",
        ),
        (
            "round,table,board,black,white\n1,1,TG-1,A,B\n1,1,TG-2,C,D\n",
            "line 3: table 1 twice in round 1",
        ),
        ("round,table,board,black,white\n\n1,1,,A,B\n", "line 3: the board is empty"),
        ("round,table,board,black,white\n1,1,_x,A,B\n", "line 2: board id '_x'"),
        ("round,table,board,black,white\n1,1,TG-1,A\n", "line 2: 4 fields, the first row has 5"),
        ("round,table,board,black,white\n1,1,TG-1,%s,B\n" % ("n" * 65), "more than 64"),
        (  # a name the board would not keep whole: refused, never cut (32 characters)
            "round,table,board,black,white\n1,1,TG-1,A,%s\n" % ("柯" * 33),
            "line 2: white: 33 characters, at most 32 \\(a Chinese character counts as one\\)",
        ),
        (
            "round,table,board,black,white\n1,1,a b,A,B\n2,,TG-1,A,B\n",
            "line 2: board id 'a b'.*; line 3: the table is empty",
        ),
    ],
)
def test_bad_pairings_say_which_line(text, words):
    with pytest.raises(P.PairingError, match=words):
        P.parse(text)


# ---- the real process against Mosquitto ----------------------------------------------------


def broker_or_skip(folder, hall=HALL):
    """A started ``Broker`` for ``hall``, or the test skipped saying how to get mosquitto."""
    from host_tools.hall import broker as B

    try:
        B.mosquitto()
    except B.BrokerError:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    return B.Broker(folder, hall).start()


def wait_for(what, timeout=20.0, every=0.05, say="a condition"):
    """``what()``'s first true value, polled; AssertionError after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError("waited %g s for %s" % (timeout, say))
        time.sleep(every)


class RelayClient:
    """A paho client as ``tengen relay`` is to the broker (user relay-<name>): publishes snapshots
    and events, and keeps what the hall says to the boards (pairings, replay requests)."""

    def __init__(self, port, hall=HALL, name="r1"):
        import paho.mqtt.client as mqtt

        self.hall = hall
        self.name = name
        self.said: list[tuple[str, bytes]] = []
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-relay-%s" % name)
        self.c.username_pw_set(F.relay_user(name), F.relay_user(name))
        self.c.on_message = lambda c, u, m: self.said.append((m.topic, bytes(m.payload)))
        self.c.will_set(F.relay_topic(hall, name), F.relay_payload(name, False), 1, True)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        for leaf in (F.PAIRING, F.REPLAY):
            self.c.subscribe(F.subscription(hall, leaf), 1)
        self.status(True, [BOARD])

    def _pub(self, topic, payload, retain=False):
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def status(self, online, boards=()):
        self._pub(
            F.relay_topic(self.hall, self.name),
            F.relay_payload(self.name, online, boards, int(time.time() * 1000)),
            True,
        )

    def state(self, board, game, seq, body, online=True):
        self._pub(
            F.topic(self.hall, board, F.STATE, self.name),
            F.state_payload(board, self.name, online, int(time.time() * 1000), game, seq, body),
            True,
        )

    def event(self, board, game, seq, rec):
        self._pub(
            F.topic(self.hall, board, F.EVENTS, self.name),
            F.event_payload(board, game, seq, rec, int(time.time() * 1000)),
        )

    def raw(self, topic, payload):
        self._pub(topic, payload)

    def replays(self):
        return [F.parse_replay(p) for t, p in self.said if t.endswith("/" + F.REPLAY)]

    def pairings(self):
        return {
            F.parse_topic(t)[1]: F.parse_pairing(p)
            for t, p in self.said
            if t.endswith("/" + F.PAIRING)
        }

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


def hall_env(tmp_path):
    env = dict(os.environ)
    env["TENGEN_DATA_DIR"] = str(tmp_path / "data")
    env["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")
    env["TENGEN_RUNTIME_DIR"] = str(tmp_path / "run")
    return env


def users_file(tmp_path):
    """A users file with ``ARBITER`` (written once per test folder)."""
    from host_tools.hall import auth as AU

    path = tmp_path / "hall-users"
    if not path.exists():
        AU.Users(path).read().add(*ARBITER)
    return path


def start_hall(tmp_path, port, *args, feed_dir=None, hall=HALL, auth=ARBITER):
    """``tengen hall`` for ``hall`` on a free HTTP port, ``ARBITER`` its one user (unless
    ``--users`` is given, then ``auth`` is one of that file); ``(process, base url)`` once it said its line and holds its session on the broker."""
    if not TENGEN.exists():
        pytest.skip("the tengen command is not installed (make venv)")
    feed_dir = feed_dir or tmp_path / "feed"
    if "--users" not in args:
        args = ("--users", str(users_file(tmp_path)), *args)
    proc = subprocess.Popen(
        [
            str(TENGEN),
            "hall",
            "--broker",
            "127.0.0.1:%d" % port,
            "--hall",
            hall,
            "--password",
            "hall",
            "--http",
            "0",
            "--feed-dir",
            str(feed_dir),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=open(tmp_path / "hall.log", "ab"),  # noqa: SIM115
        env=hall_env(tmp_path),
        text=True,
    )
    line = proc.stdout.readline().strip()
    if not line.startswith("hall: http://"):
        proc.kill()
        raise AssertionError(
            "tengen hall said %r: %s" % (line, (tmp_path / "hall.log").read_text()[-2000:])
        )
    url = line[len("hall: ") :]
    # Serving comes first; events published before the hall's first subscription are not
    # queued for it (its session begins then): a test publishes once it is connected.
    try:
        wait_for(
            lambda: get(url + "api/status", auth=auth)[1].get("connected"),
            say="the hall's MQTT session",
        )
    except BaseException:
        stop_hall(proc)  # not left running after the test
        raise
    return proc, url


def stop_hall(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def get(url, json_out=True, auth=None):
    """``(status, body)`` of a GET (JSON decoded when ``json_out``); ``auth`` (name,
    password): sent as HTTP Basic."""
    req = urllib.request.Request(url)
    if auth is not None:
        import base64

        token = base64.b64encode(("%s:%s" % auth).encode()).decode()
        req.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            data = r.read()
            return r.status, json.loads(data) if json_out else data
    except urllib.error.HTTPError as e:
        data = e.read()
        return e.code, json.loads(data) if json_out else data


def test_the_hall_process_end_to_end(tmp_path, started):
    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    (tmp_path / "pairs.csv").write_text(
        "round,table,board,black,white\n1,3,%s,Ann,Bob\n1,4,TG-0002,Cy,Di\n" % BOARD
    )
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port, "--pairings", str(tmp_path / "pairs.csv"))
    started(hall, stop_hall)
    # The pairings, retained for the relays.
    wait_for(lambda: len(relay.pairings()) == 2, say="the pairings")
    assert relay.pairings()[BOARD] == {
        "round": "1",
        "table": "3",
        "black": "Ann",
        "white": "Bob",
        "event": "",
    }
    relay.state(BOARD, 1, 0, state_body(recs, 0))
    for seq in (0, 1, 3, 4):  # 2 lost on the way: the hall asks for it
        relay.event(BOARD, 1, seq, recs[seq])
    wait_for(lambda: (1, 2) in relay.replays(), say="a replay request")
    for seq in range(2, len(recs)):
        relay.event(BOARD, 1, seq, recs[seq])
    relay.state(BOARD, 1, len(recs) - 1, state_body(recs))
    wait_for(
        lambda: (
            get(url + "api/games/%s/1" % BOARD)[1].get("records")
            and len(get(url + "api/games/%s/1" % BOARD)[1]["records"]) == len(recs)
        ),
        say="the records",
    )
    status, sgf = get(url + "feed/%s/1.sgf" % BOARD, json_out=False)
    assert status == 200 and sgf == X.export(recs)["sgf"]
    written = tmp_path / "feed" / BOARD / "1.sgf"
    wait_for(lambda: written.exists() and written.read_bytes() == sgf, say="the SGF file")
    game = get(url + "api/games/%s/1" % BOARD)[1]
    assert [r["rec"] for r in game["records"]] == [F.record_json(r) for r in recs]
    boards = {b["id"]: b for b in get(url + "api/boards")[1]}
    b = boards[BOARD]
    assert (b["table"], b["black"], b["white"], b["online"]) == ("3", "Ann", "Bob", True)
    assert b["result"] == "B+3.5" and b["ply"] == len(X.read_game(recs).moves)
    assert not boards["TG-0002"]["online"]  # paired, never seen
    assert get(url + "api/games")[1][0]["sgf"] == "/feed/%s/1.sgf" % BOARD
    assert [i["what"] for i in get(url + "api/incidents", auth=ARBITER)[1]] == [
        "arbiter",
        "incident",
    ]
    assert get(url + "api/boards/nope") == (404, {"error": "not found", "what": "board nope"})
    assert get(url + "api/games/%s/9" % BOARD)[0] == 404
    assert get(url + "feed/%s/9.sgf" % BOARD)[0] == 404
    index = get(url + "feed/?json")[1]
    assert [g["sgf"] for g in index["games"]] == ["/feed/%s/1.sgf" % BOARD]
    assert b"/feed/%s/1.sgf" % BOARD.encode() in get(url + "feed/", json_out=False)[1]
    for page in ("", "table/" + BOARD, "static/hall.js"):
        assert get(url + page, json_out=False)[0] == 200
    assert get(url + "arbiter", json_out=False, auth=ARBITER)[0] == 200
    relay.raw(F.topic(HALL, BOARD, F.EVENTS, relay.name), b"nonsense")
    wait_for(
        lambda: get(url + "api/status", auth=ARBITER)[1]["bad"]["total"] == 1,
        say="a bad count",
    )
    # The relay gone without a word: its will marks its boards offline.
    relay.c._sock.close()  # noqa: SLF001 - a broken link, not a clean disconnect
    wait_for(
        lambda: BOARD in [o["board"] for o in get(url + "api/status", auth=ARBITER)[1]["offline"]],
        say="the board offline",
    )
    stop_hall(hall)
    assert hall.returncode == 0


def test_pushes_and_a_restart_with_the_events_queued_meanwhile(tmp_path, started):
    import aiohttp

    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port)
    started(hall, stop_hall)
    relay.state(BOARD, 1, 0, state_body(recs, 0))

    async def watch(n):
        got = []
        async with aiohttp.ClientSession() as s, s.ws_connect(url + "ws") as ws:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "snapshot" and first["hall"] == HALL
            for seq in range(n):  # the relay publishes while the page watches
                await asyncio.to_thread(relay.event, BOARD, 1, seq, recs[seq])
                await asyncio.to_thread(relay.event, BOARD, 1, seq, recs[seq])  # twice
            # Every record, and a board message (after the records of one flush: when
            # they all come in one, it follows the last incident).
            while len([m for m in got if m["type"] == "record"]) < n or not any(
                m["type"] == "board" for m in got
            ):
                got.append(await ws.receive_json(timeout=10))
            got.append(await ws.receive_json(timeout=10))
        return got

    got = asyncio.run(watch(8))
    rec_msgs = [m for m in got if m["type"] == "record"]
    assert [m["seq"] for m in rec_msgs] == list(range(8))  # in order, never twice
    m = rec_msgs[3]
    assert set(m) == {"type", "board", "game", "seq", "rec", "at", "received"}
    assert m["rec"] == F.record_json(recs[3]) and m["received"] >= m["at"] - 5000
    assert any(x["type"] == "board" for x in got)
    assert [x for x in got if x["type"] == "incident"][0]["words"].startswith("captured")
    stop_hall(hall)
    # While the hall is away, the broker keeps the events for its persistent session.
    for seq in range(8, len(recs)):
        relay.event(BOARD, 1, seq, recs[seq])
    hall, url = start_hall(tmp_path, broker.port)
    started(hall, stop_hall)
    wait_for(
        lambda: get(url + "feed/%s/1.sgf" % BOARD, json_out=False)[1] == X.export(recs)["sgf"],
        say="the whole game after the restart",
    )
    lines = (tmp_path / "feed" / BOARD / "1.jsonl").read_text().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == list(range(len(recs)))


def test_bad_arguments_end_the_hall_with_a_clear_error(tmp_path):
    if not TENGEN.exists():
        pytest.skip("the tengen command is not installed (make venv)")
    (tmp_path / "bad.csv").write_text("round,table,board,black,white\n1,1,,A,B\n")
    r = subprocess.run(
        [
            str(TENGEN),
            "hall",
            "--broker",
            "127.0.0.1:1",
            "--hall",
            HALL,
            "--pairings",
            str(tmp_path / "bad.csv"),
        ],
        capture_output=True,
        text=True,
        env=hall_env(tmp_path),
        timeout=60,
    )
    assert r.returncode == 2 and "line 2: the board is empty" in r.stderr and r.stdout == ""
    r = subprocess.run(
        [str(TENGEN), "hall", "--broker", "nowhere", "--hall", HALL],
        capture_output=True,
        text=True,
        env=hall_env(tmp_path),
        timeout=60,
    )
    assert r.returncode == 2 and "HOST:PORT" in r.stderr


def test_after_a_renju_swap_the_hall_names_who_plays_black(tmp_path):
    from firmware.referee import incidents as INC
    from tests.host.records.test_export import pt

    header = go_header(
        kind=R.RENJU, size=15, rules="2013", extra=json.dumps({"black": "A", "white": "B"})
    )
    events = [
        ("move", 1, pt(7, 7), 100, (600000, 3, 600000, 3)),
        ("move", 2, pt(7, 8), 200, (600000, 3, 600000, 3)),
        ("move", 1, pt(8, 7), 300, (600000, 3, 600000, 3)),
    ]
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
    hall = Hall(HALL, tmp_path / "feed")
    feed_all(hall, journal_game(tmp_path / "a", header, events))
    board = hall.board_json(BOARD)
    assert (board["black"], board["white"]) == ("A", "B")
    events.append(("incident", INC.SWAP, 4, 400, (), 0))
    hall = Hall(HALL, tmp_path / "feed2")
    feed_all(hall, journal_game(tmp_path / "b", header, events))
    board = hall.board_json(BOARD)
    assert (board["black"], board["white"]) == ("B", "A")
    [swap] = [i for i in hall.incidents_json() if i["kind"] == INC.SWAP]
    assert swap["words"] == "the swap: White took Black after move 3"
    assert swap["zh"] == "三手可交换"
