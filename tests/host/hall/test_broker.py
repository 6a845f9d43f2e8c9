"""The hall's broker is Debian's Mosquitto, configured by ``host_tools/hall/broker.py``: the relay
may publish, the public may only read, nobody anonymous; retained snapshots and the hall's
queued events outlive a restart."""

import threading
import time

import pytest

from host_tools.hall import feed as F
from host_tools.hall.broker import MAX_PACKET, Broker, BrokerError, acl_text, mosquitto

paho = pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is needed (make venv)")

try:
    mosquitto()
except BrokerError as e:
    pytest.skip(str(e), allow_module_level=True)


class Client:
    """A paho client that keeps what it receives: ``got`` [(topic, payload, retain)]."""

    def __init__(self, broker, user, password=None, client_id="", clean=True, subscribe=None):
        self.got = []
        self.connected = threading.Event()
        self.refused = None
        self.c = paho.Client(
            paho.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean
        )
        if user is not None:
            self.c.username_pw_set(user, password if password is not None else user)
        self.c.on_message = lambda c, u, m: self.got.append((m.topic, m.payload, m.retain))

        def on_connect(c, u, flags, rc, props):
            if rc.is_failure:
                self.refused = str(rc)
            elif subscribe:
                c.subscribe(subscribe, qos=1)
            self.connected.set()

        self.c.on_connect = on_connect
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()
        assert self.connected.wait(5)

    def publish(self, topic, payload, retain=False):
        info = self.c.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(5)

    def close(self):
        self.c.disconnect()
        self.c.loop_stop()


@pytest.fixture
def club(tmp_path, started):
    """Hall ``club``'s Mosquitto, a test's own, stopped at its end (after its clients)."""
    return started(Broker(tmp_path / "broker", "club").start(), "stop")


def _until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def test_only_the_relay_publishes_the_boards_and_anonymous_is_refused(club, started):
    hall = started(Client(club, "hall", subscribe="tengen/club/#"))
    relay = started(Client(club, "relay-r1"))
    public = started(Client(club, "public"))
    state = F.state_payload("v1", "r1", True, 1, 0, -1, None)
    public.publish(F.topic("club", "v1", F.STATE, "r1"), b"forged", retain=True)
    public.publish("tengen/club/v1/state/public", b"forged", retain=True)
    relay.publish(F.topic("club", "v1", F.STATE, "r1"), state, retain=True)
    relay.publish("tengen/club2/v1/state/relay-r1", b"x")  # another hall's: not its own
    assert _until(lambda: hall.got)
    time.sleep(0.3)  # what else would have come by now
    assert [g[1] for g in hall.got] == [state]  # not the public's, not another hall's
    anon = started(Client(club, None))
    wrong = started(Client(club, "relay-r1", "not-the-password"))
    shared = started(Client(club, "relay", "relay"))  # the one user every relay shared: no more
    assert anon.refused and wrong.refused and shared.refused and hall.refused is None


def test_a_relay_writes_only_under_its_own_name(club, started):
    """Relay r1's credentials: nothing for relay r2's boards, no pairing, no replay request,
    no other relay's status, and none of r2's snapshots read."""
    hall = started(Client(club, "hall", subscribe="tengen/club/#"))
    r1 = started(Client(club, "relay-r1", subscribe="tengen/club/#"))
    r2 = started(Client(club, "relay-r2"))
    mine = F.state_payload("v1", "r2", True, 1, 0, -1, None)
    r2.publish(F.topic("club", "v2", F.STATE, "r2"), mine, retain=True)
    forged = F.state_payload("v2", "r2", True, 2, 0, -1, None)
    r1.publish(F.topic("club", "v2", F.STATE, "r2"), forged, retain=True)
    r1.publish(F.topic("club", "v2", F.EVENTS, "r2"), b"forged")
    r1.publish(F.topic("club", "v2", F.PROOF, "r2"), b"forged")
    r1.publish(F.topic("club", "v2", F.PAIRING), F.pairing_payload({"black": "X"}), True)
    r1.publish(F.topic("club", "v2", F.REPLAY), F.replay_payload(1, 0))
    r1.publish(F.relay_topic("club", "r2"), F.relay_payload("r2", False), True)
    r1.publish(F.topic("club", "v1", F.STATE), b"no relay's", retain=True)
    ok = F.state_payload("v1", "r1", True, 3, 0, -1, None)
    r1.publish(F.topic("club", "v1", F.STATE, "r1"), ok, retain=True)
    assert _until(lambda: any(g[1] == ok for g in hall.got))
    time.sleep(0.3)
    assert [g[1] for g in hall.got] == [mine, ok]
    assert not any(g[1] == mine for g in r1.got)  # r2's snapshot: not r1's to read
    pairing = F.pairing_payload({"black": "A"})
    hall.publish(F.topic("club", "v1", F.PAIRING), pairing, retain=True)
    assert _until(lambda: any(g[1] == pairing for g in r1.got))  # the hall's: read


def test_retained_snapshots_and_queued_events_outlive_a_restart(club, started):
    hall = Client(club, "hall", client_id="hall-club", clean=False, subscribe="tengen/club/#")
    hall.close()  # the hall is away: QoS 1 events wait for its session
    relay = started(Client(club, "relay-r1"))
    state = F.state_payload("v1", "r1", True, 1, 1, 0, None)
    event = F.event_payload("v1", 1, 0, (1, {"kind": 0, "size": 9}), 1)
    relay.publish(F.topic("club", "v1", F.STATE, "r1"), state, retain=True)
    relay.publish(F.topic("club", "v1", F.EVENTS, "r1"), event)
    relay.close()
    club.restart(kill=False)  # SIGTERM: mosquitto saves what it keeps
    back = started(Client(club, "hall", client_id="hall-club", clean=False))
    assert _until(lambda: any(g[1] == event for g in back.got))
    late = started(Client(club, "hall", subscribe=F.subscription("club", F.STATE)))
    assert _until(lambda: late.got)
    assert late.got[0][1:] == (state, True)


def test_the_public_reads_only_the_halls_delayed_copy(club, started):
    # The live topics are not the public's (the delay would be moot); the copy the hall
    # republishes under _public/ is, and no relay can write there.
    public = started(Client(club, "public", subscribe="tengen/#"))
    relay = started(Client(club, "relay-r1"))
    hall = started(Client(club, "hall"))
    state = F.state_payload("v1", "r1", True, 1, 0, -1, None)
    relay.publish(F.topic("club", "v1", F.STATE, "r1"), state, retain=True)
    relay.publish(F.topic("club", "v1", F.EVENTS, "r1"), b"live")
    relay.publish(F.relay_topic("club", "r1"), b"live", retain=True)
    relay.publish("tengen/club/_public/v1/events/relay-r1", b"forged")
    # A board named _public: the relay's own pattern would let it write here.
    relay.publish("tengen/club/_public/events/relay-r1", b"forged")
    relay.publish("tengen/club/_public/state/relay-r1", b"forged", retain=True)
    hall.publish("tengen/club/_public/v1/state", state, retain=True)
    assert _until(lambda: public.got)
    time.sleep(0.3)  # what else would have come by now
    assert [(t, p) for t, p, _ in public.got] == [("tengen/club/_public/v1/state", state)]
    late = started(Client(club, "public", subscribe="tengen/club/#"))  # retained: the copy only
    assert _until(lambda: late.got)
    time.sleep(0.3)
    assert [g[0] for g in late.got] == ["tengen/club/_public/v1/state"]


def test_a_relay_publishes_a_whole_game_proof_and_nothing_larger(club, started):
    # The largest proof the hall takes (feed.PROOF_MAX characters of base64) passes the
    # broker; a packet past ``max_packet_size`` is dropped and its sender disconnected, so
    # no relay makes the broker or the hall hold a larger message.
    import base64

    assert "max_packet_size %d" % MAX_PACKET in club.conf.read_text()
    hall = started(Client(club, "hall", subscribe="tengen/club/#"))
    relay = Client(club, "relay-r1")
    data = bytes(F.PROOF_MAX // 4 * 3)  # PROOF_MAX characters once in base64
    proof = F.proof_payload("v1", 1, data, "ab" * 32)
    assert len(base64.b64encode(data)) == F.PROOF_MAX
    relay.publish(F.topic("club", "v1", F.PROOF, "r1"), proof)
    assert _until(lambda: [g[1] for g in hall.got] == [proof], 10)
    gone = threading.Event()
    relay.c.on_disconnect = lambda *a: gone.set()
    too_big = b"x" * MAX_PACKET
    relay.c.publish(F.topic("club", "v2", F.PROOF, "r1"), too_big, qos=1)
    assert gone.wait(10)  # the broker dropped the relay's connection
    ok = F.state_payload("v1", "r1", True, 1, 0, -1, None)
    r2 = started(Client(club, "relay-r2"))
    r2.publish(F.topic("club", "v1", F.STATE, "r2"), ok)
    assert _until(lambda: any(g[1] == ok for g in hall.got))
    assert not any(g[1] == too_big for g in hall.got)
    relay.c.loop_stop()  # (paho would send it again on reconnecting)


def test_the_acl_names_the_hall():
    text = acl_text("club")
    assert "pattern write tengen/club/+/events/%u" in text
    assert "topic write tengen/club/+/pairing" in text
    assert "tengen/club/#" not in text.split("user hall")[0]  # no relay writes the hall
    with pytest.raises(ValueError):
        acl_text("bad/hall")
