"""``tengen relay`` end to end: virtual boards (the real firmware on the MicroPython unix port,
their links on ptys) played through their commands, the hall's Mosquitto on a free port with
its files in the test's folder, and a consumer that reads the hall's topics as the hall does
(``feed.GameRecords`` per board and game, repeats dropped by ``seq``, a gap asked for on
``replay``). Whatever happens on the way (the broker killed, the relay killed, the board
unplugged), at the end the consumer's records of each game are the records ``tengen sync``
brings home, and so is their SGF (``assert_same_as_synced``).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from firmware.store import records as R
from host_tools.common import link as L
from host_tools.common.link import Link
from host_tools.hall import feed as F
from host_tools.hall.broker import BrokerError, mosquitto
from host_tools.records import export as X
from host_tools.records import sync as S

paho = pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is needed (make venv)")

ROOT = Path(__file__).resolve().parents[3]
TENGEN = Path(sys.executable).parent / "tengen"
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"

try:
    mosquitto()
except BrokerError as e:
    pytest.skip(str(e), allow_module_level=True)
if not MICROPYTHON.exists() or not TENGEN.exists():
    pytest.skip(
        "the MicroPython unix port and the installed tengen command are needed (make venv)",
        allow_module_level=True,
    )

HALL = "test-hall"
OFF = 5  # a 9x9 game sits in the middle of the 19x19 grid: its E5 is the grid's K10
COLUMNS = "ABCDEFGHJKLMNOPQRST"
WAIT = 30  # seconds a condition may take (a loaded machine); none is a timing threshold
OPENING = [("E5", "b"), ("F6", "w"), ("E4", "b"), ("D4", "w"), ("F4", "b"), ("C5", "w")]
MORE = [("G3", "b"), ("C3", "w"), ("G7", "b"), ("C7", "w"), ("H5", "b"), ("B5", "w")]


def grid(vertex):
    """The grid's point of a 9x9 game's vertex (the commands take the physical board's)."""
    x = COLUMNS.index(vertex[0])
    y = int(vertex[1:]) - 1
    return "%s%d" % (COLUMNS[x + OFF], y + OFF + 1)


def code(vertex):
    """The point code (``y << 5 | x``) of a 9x9 game's vertex."""
    return (int(vertex[1:]) - 1) << 5 | COLUMNS.index(vertex[0])


def until(cond, timeout=WAIT, what="the condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s" % what)


# ---- the parts ----------------------------------------------------------------------------


class VBoard:
    """A virtual board (``host_tools.board.sim.Board``) on ``flash``: ``do(*commands)`` plays them
    and returns when they are done; ``link`` its pty; ``board_id`` its id."""

    def __init__(self, flash, seed=1):
        from host_tools.board.sim import Board

        self.b = Board(flash, seed)
        self.link = self.b.link
        self.n = 0
        ready = self.until(lambda line: line.startswith("ready "))
        self.board_id = ready[-1].split()[1]
        self.until(lambda line: line.startswith("board "))

    def until(self, done, timeout=WAIT):
        got = []
        end = time.monotonic() + timeout
        while True:
            line = self.b.lines.get(timeout=max(0.1, end - time.monotonic()))
            if line is None:
                raise EOFError("the board stopped: %r" % got[-5:])
            got.append(line)
            if done(line):
                return got

    def do(self, *commands):
        self.n += 1
        mark = "echo done %d" % self.n
        for c in commands + (mark,):
            assert self.b.send(c)
        return self.until(lambda line: line == mark)

    def play(self, moves):
        for vertex, colour in moves:
            self.do("put %s %s" % (grid(vertex), colour), "press %s" % colour)

    def finish(self):
        """Both pass, the count (no dead stones), both confirm it: the game is over."""
        self.do("press b", "press w", "wait 1600", "key mode", "wait 300")
        self.do("press b", "press w", "wait 300")

    def next_game(self, stones):
        """After a result: PAUSE makes the next game, the stones are taken off, PAUSE starts
        it."""
        self.do("key pause", *("lift %s" % grid(v) for v, _ in stones), "key pause")

    def close(self):
        self.b.close()


def setup_board(vb, **settings):
    """A 9x9 quick game, before any relay holds the port."""
    with Link(vb.link) as link:
        link.request("settings", set=dict({"game": "go", "size": 9, "time": "quick"}, **settings))


class Consumer:
    """Reads the hall's events and snapshots as the hall does (user ``hall``, a persistent
    session): ``games[(board, game)]`` a ``GameRecords``; ``states[board]`` the last
    snapshot; counts of what came (``new``, ``repeats``, ``gaps``, ``conflicts``) and of the
    ``replays`` it asked for (``ask``: whether it asks)."""

    def __init__(self, broker, ask=True):
        self.broker = broker
        self.ask = ask
        self.games: dict = {}
        self.states: dict = {}
        self.relays: dict = {}
        self.firsts: dict = {}  # (board, game) -> the first event's payload as parsed
        self.proofs: dict = {}  # (board, game) -> the relay's proof (feed.parse_proof)
        self.counts = {"new": 0, "repeats": 0, "gaps": 0, "conflicts": 0, "replays": 0}
        self.asked: dict = {}  # (board, game) -> (seq, when) of the last replay asked
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.c = paho.Client(
            paho.CallbackAPIVersion.VERSION2,
            client_id="test-hall-%s" % uuid.uuid4().hex[:12],
            clean_session=False,
        )
        self.c.username_pw_set("hall", "hall")
        self.c.reconnect_delay_set(0.1, 1)
        self.c.on_connect = self._on_connect
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()
        assert self.ready.wait(10)

    def _on_connect(self, c, u, flags, rc, props):
        if not flags.session_present:
            c.subscribe(
                [
                    (F.subscription(HALL, F.EVENTS), 1),
                    (F.subscription(HALL, F.STATE), 1),
                    (F.subscription(HALL, F.PROOF), 1),
                    ("%s/%s/%s/+" % (F.ROOT, HALL, F.RELAY), 1),
                ]
            )
        self.ready.set()

    def _on_message(self, c, u, msg):
        where = F.parse_topic(msg.topic)
        with self.lock:
            if where[1] == F.RELAY:
                self.relays[where[2]] = F.parse_relay(msg.payload)
            elif where[2] == F.STATE:
                snap = F.parse_state(msg.payload)
                self.states[where[1]] = snap
                got = self.games.get((where[1], snap["game"]))
                if snap["seq"] >= 0 and (got is None or len(got.records) <= snap["seq"]):
                    self._ask(where[1], snap["game"], len(got.records) if got else 0)
            elif where[2] == F.PROOF:
                proof = F.parse_proof(msg.payload)
                self.proofs[(proof["board"], proof["game"])] = proof
            elif where[2] == F.EVENTS:
                ev = F.parse_event(msg.payload)
                key = (ev["board"], ev["game"])
                self.firsts.setdefault(key, ev)
                got = self.games.setdefault(key, F.GameRecords())
                r = got.add(ev["seq"], ev["rec"], ev["at"])
                name = {F.NEW: "new", F.DUPLICATE: "repeats", F.GAP: "gaps"}
                self.counts[name.get(r, "conflicts")] += 1
                if r == F.NEW:
                    self.counts["new"] += len(got.records) - 1 - ev["seq"]  # held ones
                if got.missing() is not None:
                    self._ask(ev["board"], ev["game"], got.missing())

    def _ask(self, board, game, seq):
        # A gap, or records the snapshot says were published and did not come: ask again
        # (at most once a second for the same record).
        if not self.ask:
            return
        last = self.asked.get((board, game))
        if last is not None and last[0] == seq and time.monotonic() - last[1] < 1.0:
            return
        self.asked[(board, game)] = (seq, time.monotonic())
        self.counts["replays"] += 1
        self.c.publish(F.topic(HALL, board, F.REPLAY), F.replay_payload(game, seq), qos=1)

    def records(self, board, game):
        with self.lock:
            got = self.games.get((board, game))
            return list(got.records) if got else []

    def over(self, board, game):
        recs = self.records(board, game)
        return bool(recs) and recs[-1][0] == R.RESULT

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


def publish(broker, topic, payload, retain=False, user="hall"):
    """One message from ``user`` (QoS 1), sent before this returns."""
    c = paho.Client(paho.CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, user)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    try:
        c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)
    finally:
        c.disconnect()
        c.loop_stop()


class RelayProc:
    """``tengen relay`` as installed, its stderr lines kept in ``lines``."""

    def __init__(self, broker, env, ports=(), name="r1"):
        args = [str(TENGEN), "relay", "--broker", "127.0.0.1:%d" % broker.port, "--hall", HALL]
        args += ["--name", name, "--scan", "0.3"]
        for p in ports:
            args += ["--port", p]
        self.proc = subprocess.Popen(
            args,
            env=dict(env, TENGEN_MQTT_PASSWORD=F.relay_user(name)),  # the test broker's
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def saw(self, text):
        return any(text in line for line in self.lines)

    def wait_for(self, text):
        try:
            until(lambda: self.saw(text), what=repr(text))
        except AssertionError as e:
            raise AssertionError("%s; the relay said %s" % (e, self.lines[-8:])) from None

    def stop(self):
        """SIGTERM: a clean stop."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                return self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    close = kill  # at a test's end (``started``): harmless after ``stop`` or ``kill``


def in_process_relay(broker, ports, lines):
    from host_tools.hall.relay import Relay

    return Relay(
        ("127.0.0.1", broker.port),
        HALL,
        None,
        F.relay_user("inproc"),
        "inproc",
        ports,
        0.3,
        log=lines.append,
    ).start()


def assert_same_as_synced(consumer, board_id, port, dest, env, games=(1,)):
    """``tengen sync`` brings the board's games home into ``dest``; each of ``games`` as
    the consumer has it from the hall's topics is the synced game record for record, and its
    SGF (``host_tools.records.export`` with the board's bytes and HMAC the relay forwarded, as the
    hall writes it) is the synced .sgf byte for byte."""
    r = subprocess.run(
        [str(TENGEN), "sync", "--port", port, "--dest", str(dest)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, (r.stdout, r.stderr)
    folder = Path(dest) / board_id
    for game in games:
        bin_file = next(folder.glob("*_%06d.bin" % game))
        synced = S.decode(bin_file.read_bytes())
        got = consumer.records(board_id, game)
        assert got == synced, "game %d: %d records here, %d synced" % (game, len(got), len(synced))
        until(lambda g=game: (board_id, g) in consumer.proofs, what="game %d's proof" % game)
        proof = consumer.proofs[(board_id, game)]
        assert proof["data"] == bin_file.read_bytes()  # the board's bytes, as sync has them
        want = bin_file.with_suffix(".sgf").read_bytes()
        assert X.export(got, proof=(proof["data"], proof["hmac"] or None))["sgf"] == want


def moves_of(recs):
    """(colour, point) of each move record."""
    return [(r[2], r[3]) for r in recs if r[0] == R.MOVE]


def played(moves):
    """(colour, point) of each (vertex, "b"/"w") played."""
    return [(1 if side == "b" else 2, code(v)) for v, side in moves]


# ---- the tests ----------------------------------------------------------------------------


@pytest.mark.slow(7)
def test_a_game_reaches_the_hall_as_tengen_sync_brings_it_home(tmp_path, env, broker, started):
    vb = started(VBoard(tmp_path / "flash"))
    consumer = started(Consumer(broker))
    setup_board(vb)
    relay = started(RelayProc(broker, env, ports=[vb.link]))
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    relay.wait_for("broker: connected")
    vb.do("key pause")  # the game begins: its header
    vb.play(OPENING[:4])
    recs = until(
        lambda: (
            len(moves_of(consumer.records(vb.board_id, 1))) == 4
            and consumer.records(vb.board_id, 1)
        ),
        what="4 moves at the hall",
    )
    assert recs[0][0] == R.HEADER and recs[0][1]["board_id"] == vb.board_id
    assert moves_of(recs) == played(OPENING[:4])
    for r in recs:
        if r[0] == R.MOVE:
            assert len(r[5]) == 4  # both clocks: main ms and units of each side
    # The snapshot, retained: what a newcomer reads first.
    snap = until(lambda: consumer.states.get(vb.board_id), what="a snapshot")
    snap = until(
        lambda: (s := consumer.states[vb.board_id])["state"]["ply"] == 4 and s,
        what="the snapshot at move 4",
    )
    assert snap["online"] and snap["relay"] == "r1" and snap["game"] == 1
    assert snap["seq"] == len(recs) - 1
    assert snap["state"]["moves"] == [code(v) for v, _ in OPENING[:4]]
    assert consumer.relays["r1"]["online"] and consumer.relays["r1"]["boards"] == [vb.board_id]
    late = Consumer(broker, ask=False)  # a newcomer: the snapshot is kept for it
    try:
        until(lambda: late.states.get(vb.board_id), what="the retained snapshot")
        assert late.states[vb.board_id]["state"]["moves"] == snap["state"]["moves"]
    finally:
        late.close()

    vb.finish()
    until(lambda: consumer.over(vb.board_id, 1), what="the result at the hall")
    assert relay.stop() == 0
    assert relay.saw("relay: stopped")
    until(lambda: not consumer.relays["r1"]["online"], what="the relay's status offline")
    until(lambda: not consumer.states[vb.board_id]["online"], what="the board offline")
    assert_same_as_synced(consumer, vb.board_id, vb.link, tmp_path / "home", env)
    assert consumer.counts["conflicts"] == 0 and consumer.counts["gaps"] == 0
    print("journey: %s" % consumer.counts)


@pytest.mark.slow(19)
def test_broker_and_relay_killed_mid_game_nothing_lost(tmp_path, env, broker, started):
    vb = started(VBoard(tmp_path / "flash"))
    consumer = started(Consumer(broker))
    setup_board(vb)
    relay = started(RelayProc(broker, env))  # no --port: found in this test's runtime folder
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    time.sleep(1.2)  # the broker's autosave (every 1 s) has the consumer's session
    vb.do("key pause")
    vb.play(OPENING[:2])
    until(lambda: len(consumer.records(vb.board_id, 1)) >= 3, what="the first moves")
    broker.kill()  # at once: what it had not saved yet (a second's worth) is lost
    vb.play(OPENING[2:4])  # played while the broker is gone
    relay.wait_for("broker: disconnected")
    broker.start()
    vb.play(OPENING[4:6])
    until(
        lambda: len(moves_of(consumer.records(vb.board_id, 1))) == 6,
        what="every move after the broker came back",
    )

    after_broker = dict(consumer.counts)
    relay.kill()  # SIGKILL: no goodbye (its will says it)
    until(lambda: not consumer.relays["r1"]["online"], what="the relay's will")
    # While no relay runs: game 1 goes on and ends (packed on the board), game 2 begins.
    vb.play(MORE[:2])
    vb.finish()
    vb.next_game(OPENING + MORE[:2])
    vb.play(OPENING[:2])
    relay = started(RelayProc(broker, env))
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    vb.play(OPENING[2:4])
    vb.finish()
    until(lambda: consumer.over(vb.board_id, 2), what="game 2's result at the hall")
    assert relay.stop() == 0
    assert moves_of(consumer.records(vb.board_id, 1))[:8] == played(OPENING + MORE[:2])
    assert moves_of(consumer.records(vb.board_id, 2))[:4] == played(OPENING[:4])
    assert_same_as_synced(consumer, vb.board_id, vb.link, tmp_path / "home", env, (1, 2))
    assert consumer.counts["conflicts"] == 0
    print("broker killed: %s; then relay killed: %s" % (after_broker, consumer.counts))


@pytest.mark.slow(8)
def test_board_unplugged_and_plugged_back_the_game_goes_on(tmp_path, env, broker, started):
    flash = tmp_path / "flash"
    vb = started(VBoard(flash, seed=3))
    consumer = started(Consumer(broker))
    setup_board(vb)
    relay = started(RelayProc(broker, env))
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    vb.do("key pause")
    vb.play(OPENING[:3])
    until(lambda: len(moves_of(consumer.records(vb.board_id, 1))) == 3, what="3 moves")
    vb.close()  # unplugged
    relay.wait_for("board %s on %s: lost" % (vb.board_id, vb.link))
    until(lambda: not consumer.states[vb.board_id]["online"], what="the board offline")

    vb = started(VBoard(flash, seed=3))  # plugged back: the same board, its game paused
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    vb.do("key pause")  # the game goes on
    vb.play(OPENING[3:6])
    vb.finish()
    until(lambda: consumer.over(vb.board_id, 1), what="the result at the hall")
    until(lambda: consumer.states[vb.board_id]["online"], what="the board online")
    assert relay.stop() == 0
    assert moves_of(consumer.records(vb.board_id, 1))[:6] == played(OPENING)
    assert_same_as_synced(consumer, vb.board_id, vb.link, tmp_path / "home", env)
    assert consumer.counts["conflicts"] == 0
    print("board unplugged: %s" % consumer.counts)


def test_a_pairing_becomes_the_next_games_header(tmp_path, env, broker, started):
    vb = started(VBoard(tmp_path / "flash"))
    consumer = started(Consumer(broker))
    lines: list[str] = []
    setup_board(vb)
    long_event = "The Tengen Autumn Open, first division"  # 38 characters: cut to 32
    pairing = {"round": "3", "table": "12", "black": "Ke Jie", "white": "申真谞"}
    pairing["event"] = long_event
    publish(broker, F.topic(HALL, vb.board_id, F.PAIRING), F.pairing_payload(pairing), True)
    started(in_process_relay(broker, [vb.link], lines), "stop")
    until(lambda: any("pairing written" in ln for ln in lines), what="the pairing written")
    assert any("event: cut to 32 characters" in ln for ln in lines), lines
    vb.do("key pause")  # the next game: its header has the names
    first = until(lambda: consumer.firsts.get((vb.board_id, 1)), what="the header event")
    assert first["seq"] == 0 and first["rec"][0] == R.HEADER
    extra = json.loads(first["rec"][1]["extra"])
    assert extra["black"] == "Ke Jie" and extra["white"] == "申真谞"
    assert extra["round"] == "3" and extra["table"] == "12"
    assert extra["event"] == long_event[:32]

    # A new pairing while the board is followed: written at once, and whole: the board
    # dropped the last names when their game started (they were for that game alone).
    pairing["white"] = "Shin Jinseo"
    lines.clear()
    publish(broker, F.topic(HALL, vb.board_id, F.PAIRING), F.pairing_payload(pairing), True)
    until(lambda: any("pairing written" in ln for ln in lines), what="the new pairing")
    [written] = [ln for ln in lines if "pairing written" in ln]
    assert "white 'Shin Jinseo'" in written and "black 'Ke Jie'" in written, written


def pair_board(vb, pin="4821"):
    """Pair this PC with the board as ``tengen pair`` does (a PIN of its own first, MODE at
    the board when asked), the key kept where the relay finds it; the key."""
    from host_tools.common import keys

    with Link(vb.link) as link:
        link.request("settings", set={"pin": pin}, pin="0000")
        try:
            link.request("pair", pin=pin)
            raise AssertionError("paired without the key press")
        except L.LinkError as e:
            assert e.code == "press_key", e
        vb.do("key mode")
        secret = bytes.fromhex(link.request("pair", pin=pin)["secret"])
    keys.store(vb.board_id, secret)
    return secret


def test_a_paired_board_takes_the_pairing_from_the_relay_holding_its_key(
    tmp_path, env, broker, started
):
    # Issue [O]: paired, the board takes settings only signed; the relay signs with the key
    # tengen pair kept (host_tools/common/link.py), and a PC without it is refused.
    from host_tools.common import keys

    vb = started(VBoard(tmp_path / "flash"))
    lines: list[str] = []
    setup_board(vb)
    pair_board(vb)
    with Link(vb.link) as link:
        link.key = bytes(32)  # a PC holding another key
        with pytest.raises(L.LinkError) as refused:
            link.request("settings", set={"black": "Mallory"})
        assert refused.value.code == "bad_mac"
    assert keys.get(vb.board_id) is not None
    pairing = {"round": "3", "table": "12", "black": "Ke Jie", "white": "Shin Jinseo"}
    publish(broker, F.topic(HALL, vb.board_id, F.PAIRING), F.pairing_payload(pairing), True)
    started(in_process_relay(broker, [vb.link], lines), "stop")
    until(lambda: any("pairing written" in ln for ln in lines), what="the pairing written")
    assert not any("could not be written" in ln for ln in lines), lines


def test_garbage_on_the_halls_topics_is_said_and_the_relay_goes_on(tmp_path, env, broker, started):
    vb = started(VBoard(tmp_path / "flash"))
    consumer = started(Consumer(broker))
    lines: list[str] = []
    setup_board(vb)
    started(in_process_relay(broker, lambda: [vb.link], lines), "stop")
    until(lambda: any("following" in ln for ln in lines), what="the board followed")
    vb.do("key pause")
    vb.play(OPENING[:1])
    until(lambda: len(consumer.records(vb.board_id, 1)) >= 2, what="the first move")
    replay = F.topic(HALL, vb.board_id, F.REPLAY)
    pairing = F.topic(HALL, vb.board_id, F.PAIRING)
    bad = [
        (replay, b"not json"),
        (replay, b'{"v":1,"game":0,"from":0}'),
        (replay, b'{"v":2,"game":1,"from":0}'),
        (replay, b"[1,2]"),
        (pairing, b"\xff\xfe\x00"),
        (pairing, b'{"v":1,"black":5}'),
        (pairing, b'{"v":1,"white":"%s"}' % (b"x" * 80)),
    ]
    for topic, payload in bad:
        publish(broker, topic, payload)
    publish(broker, replay, F.replay_payload(42, 0))  # a game the board does not keep
    until(lambda: sum("ignored" in ln for ln in lines) == len(bad), what="each one said")
    until(lambda: any("replay of game 42" in ln for ln in lines), what="game 42 refused")
    assert any("not JSON" in ln for ln in lines) and any("version 2" in ln for ln in lines)

    # The relay goes on: the next moves arrive, and a good replay is served.
    vb.play(OPENING[1:3])
    until(lambda: len(moves_of(consumer.records(vb.board_id, 1))) == 3, what="3 moves")
    before = consumer.counts["repeats"]
    publish(broker, replay, F.replay_payload(1, 0))
    n = len(consumer.records(vb.board_id, 1))
    until(lambda: consumer.counts["repeats"] - before == n, what="the game replayed")
    assert consumer.counts["conflicts"] == 0


def test_an_idle_board_is_not_news():
    # The relay polls each board's state every second: a reply that differs only by its
    # envelope (the request's id) or the running clock's elapsed time changed nothing, so no
    # journal read and no snapshot follow (1,000 idle boards: 1,000 snapshots a second before).
    from host_tools.hall.relay import state_key

    reply = {"v": 1, "id": 7, "ok": True, "ply": 3, "clock": {"state": "running", "elapsed": 5}}
    again = dict(reply, id=8, clock={"state": "running", "elapsed": 1005})
    assert state_key(reply) == state_key(again)
    assert state_key(reply) != state_key(dict(reply, ply=4))
