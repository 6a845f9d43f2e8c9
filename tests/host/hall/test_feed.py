"""The hall's wire format (``host_tools/hall/feed.py``) with real journal records: what the board
journals crosses the relay's JSON and comes out the same records, so the hall's SGF is the
one ``tengen sync`` writes; bad topics and payloads are refused with their reason."""

import json
import random

import pytest

from firmware.store import records as R
from host_tools.hall import feed as F
from host_tools.records import export as X
from tests.host.records.test_export import go_events, go_header, journal_game, renju_records


def _go_records(tmp_path):
    return journal_game(tmp_path, go_header(), go_events())


def test_every_record_crosses_the_json_and_encodes_the_same(tmp_path):
    (tmp_path / "renju").mkdir()
    recs = _go_records(tmp_path) + renju_records(tmp_path / "renju")[1:]
    kinds = {r[0] for r in recs}
    assert {R.HEADER, R.MOVE, R.INCIDENT, R.RESULT} <= kinds
    for seq, rec in enumerate(recs[:1] + [r for r in recs[1:] if r[0] != R.HEADER]):
        msg = F.parse_event(F.event_payload("v0123", 7, seq, rec, 1767225600123))
        assert msg["rec"] == rec
        assert R.encode(msg["rec"]) == R.encode(rec)
        assert (msg["board"], msg["game"], msg["seq"]) == ("v0123", 7, seq)


def test_records_in_any_order_with_repeats_make_the_synced_sgf(tmp_path):
    recs = _go_records(tmp_path)
    sent = [(seq, rec) for seq, rec in enumerate(recs)]
    sent += random.Random(3).sample(sent, 5)  # QoS 1 may deliver a message twice
    random.Random(4).shuffle(sent)
    got = F.GameRecords()
    seen = []
    for seq, rec in sent:
        payload = F.event_payload("b001", 1, seq, rec, 0)  # as the relay publishes it
        m = F.parse_event(payload)
        seen.append(got.add(m["seq"], m["rec"], 0))
        if got.missing() is not None:
            assert got.missing() == len(got.records)
    assert got.records == recs
    assert seen.count(F.DUPLICATE) == 5 and F.CONFLICT not in seen
    assert X.export(got.records)["sgf"] == X.export(recs)["sgf"]


def test_a_different_record_at_a_known_seq_is_a_conflict_not_a_change(tmp_path):
    recs = _go_records(tmp_path)
    got = F.GameRecords()
    for seq, rec in enumerate(recs[:3]):
        assert got.add(seq, rec, seq) == F.NEW
    assert got.add(1, recs[2], 9) == F.CONFLICT
    assert got.records == recs[:3] and got.conflicts == 1


def test_the_delay_cuts_by_arrival():
    got = F.GameRecords()
    for seq, at in enumerate((10.0, 11.0, 12.5)):
        got.add(seq, (R.CLOCKS, seq, (1, 0, 1, 0)) if seq else (R.HEADER, {}), at)
    assert [len(got.upto(t)) for t in (9.9, 10.0, 12.4, 13)] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "payload, words",
    [
        (b"\xff", "not JSON"),
        (b"[1]", "not an object"),
        (b'{"v":2}', "version 2"),
        (b'{"v":1,"board":"a/b","game":1,"seq":0,"at":0,"rec":{}}', "board id"),
        (b'{"v":1,"board":"b1","game":0,"seq":0,"at":0,"rec":{}}', "game is an integer >= 1"),
        (b'{"v":1,"board":"b1","game":1,"seq":-1,"at":0,"rec":{}}', "seq"),
        (b'{"v":1,"board":"b1","game":1,"seq":1,"at":0,"rec":{"type":"nope"}}', "type"),
        (
            b'{"v":1,"board":"b1","game":1,"seq":1,"at":0,"rec":{"type":"move","ply":1,'
            b'"colour":3,"point":1,"tick":0,"clocks":[]}}',
            "colour",
        ),
        (
            b'{"v":1,"board":"b1","game":1,"seq":1,"at":0,"rec":{"type":"clocks","move":1,'
            b'"clocks":["1"]}}',
            "integers",
        ),
        (
            b'{"v":1,"board":"b1","game":1,"seq":1,"at":0,"rec":{"type":"header","header":{}}}',
            "only it",
        ),
        (
            b'{"v":1,"board":"b1","game":1,"seq":1,"at":0,"rec":{"type":"move","ply":-1,'
            b'"colour":1,"point":1,"tick":0,"clocks":[]}}',
            "does not encode",
        ),
    ],
)
def test_bad_events_are_refused_with_their_reason(payload, words):
    with pytest.raises(F.FeedError, match=words):
        F.parse_event(payload)


def test_topics_round_trip_and_refuse_what_is_not_a_board():
    t = F.topic("club", "v0123abc", F.EVENTS)
    assert t == "tengen/club/v0123abc/events"
    assert F.parse_topic(t) == ("club", "v0123abc", F.EVENTS)
    assert F.parse_topic(F.relay_topic("club", "pc-2")) == ("club", F.RELAY, "pc-2")
    for bad in ("tengen/club/+/state", "tengen/club/b1/other", "x/club/b1/state", "tengen/c"):
        assert F.parse_topic(bad) is None
    for board in ("_relay", "a/b", "#", "", "x" * 33):
        with pytest.raises(F.FeedError):
            F.topic("club", board, F.STATE)
    with pytest.raises(F.FeedError):
        F.topic("club", "b1", "moves")


def test_snapshot_pairing_replay_and_relay_status_round_trip():
    state = {"v": 1, "id": 4, "ok": True, "ply": 3, "moves": [33, 1023, 65]}
    s = F.parse_state(F.state_payload("b1", "pc-1", True, 5, 2, 9, state))
    assert s["state"] == {"ply": 3, "moves": [33, 1023, 65]} and (s["game"], s["seq"]) == (2, 9)
    assert F.parse_state(F.state_payload("b1", "pc-1", False, 5, 0, -1, None))["state"] is None
    p = {"round": "3", "table": "12", "black": "李昌镐", "white": "Cho", "event": "Open"}
    assert F.parse_pairing(F.pairing_payload(p)) == p
    with pytest.raises(F.FeedError, match="black"):
        F.parse_pairing(json.dumps({"v": 1, "black": "x" * 65}).encode())
    assert F.parse_replay(F.replay_payload(4, 17)) == (4, 17)
    with pytest.raises(F.FeedError):
        F.parse_replay(b'{"v":1,"game":0,"from":0}')
    r = F.parse_relay(F.relay_payload("pc-1", True, ["b1", "b2"], 9))
    assert r["online"] and r["boards"] == ["b1", "b2"]
