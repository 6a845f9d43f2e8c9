"""The hall's door (``host_tools/hall/door.py``): no message takes the hall down, and what a
relay's credentials can make it keep is bounded.

The adversary publishes to the hall's broker with a relay's password (on its own topics,
``.../<leaf>/relay-r1``, as the broker's ACL holds it to): malformed snapshots (the retained
``"size": "nine"`` that once made every page fail), events and proofs, wrong types, huge
strings, NaN, points off the board, and floods of forged boards, games and records. First
against the model (``Hall.handle``: every page's JSON still made and encodable, every
refusal counted by kind, by relay and by board), and the server's two views (the door
passed once: a refusal counted once, never queued for the public view); then the real
``tengen hall`` against Mosquitto: the retained bad snapshots across a restart (the public
pages, ``/api/boards`` and ``/ws``, and signed in ``/arbiter``, ``/api/live/boards``,
``/api/status`` and ``/ws?live=1``: every one working, none showing a bad board; the
arbiter's page in Chromium showing the refusals), and a flood of forged headers (the folders
and the counts under the bounds, the arbiter's status saying so).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import time

import pytest

from firmware.store import records as R
from host_tools.hall import door as HI
from host_tools.hall import feed as F
from host_tools.hall.state import Hall
from tests.host.hall.test_hall import (
    ARBITER,
    BOARD,
    HALL,
    RelayClient,
    broker_or_skip,
    get,
    go_records,
    start_hall,
    state_body,
    stop_hall,
    wait_for,
)

GOOD = state_body([], 0)
R1 = "r1"  # the relay whose credentials the adversary holds


def topic(board, leaf, relay=R1) -> str:
    """A board's topic as relay ``relay`` writes it (its user at the end)."""
    return F.topic(HALL, board, leaf, relay)


def state(body=None, **env) -> bytes:
    obj = {
        "v": 1,
        "board": BOARD,
        "relay": "r1",
        "online": True,
        "at": 1767225600000,
        "game": 1,
        "seq": 0,
        "state": GOOD if body is None else body,
    }
    obj.update(env)
    return json.dumps(obj).encode()


def body(**kw) -> dict:
    return dict(GOOD, **kw)


def event(rec_json, **env) -> bytes:
    obj = {"v": 1, "board": BOARD, "game": 1, "seq": 1, "at": 0, "rec": rec_json}
    obj.update(env)
    return json.dumps(obj).encode()


MOVE = {"type": "move", "ply": 1, "colour": 1, "point": 0, "tick": 5, "clocks": [1, 0, 1, 0]}

BAD_STATES = {
    "not JSON": b"\xff\xfe nonsense",
    "a list": b"[1, 2]",
    "nested deep": b"[" * 5000 + b"]" * 5000,
    "size nine": state(body(size="nine")),
    "size 10": state(body(size=10)),
    "size 9.0": state(body(size=9.0)),
    "renju on 19": state(body(game="renju", size=19)),
    "game unknown": state(body(game="chess")),
    "game a list": state(body(game=["go"])),
    "moves a string": state(body(moves="nonsense")),
    "a move off the board": state(body(moves=[9], colours=[1])),  # x = 9 on a 9x9
    "a negative move": state(body(moves=[-1], colours=[1])),
    "colours short": state(body(moves=[0, 1], colours=[1])),
    "colour 3": state(body(moves=[0], colours=[3])),
    "clock NaN": b'{"v":1,"board":"TG-0001","relay":"r1","online":true,"at":1,"game":1,'
    b'"seq":0,"state":{"game":"go9","size":9,"clock":{"state":"running","elapsed":NaN}}}',
    "clock Infinity": state(body(clock={"clocks": [1e400, 0, 0, 0]})),
    "clock a number": state(body(clock=5)),
    "clock state unknown": state(body(clock={"state": "ticking"})),
    "clocks huge": state(body(clock={"clocks": [2**63, 0, 0, 0]})),
    "result huge": state(body(result="x" * 15000)),
    "result long": state(body(result="x" * 65)),
    "result not text": state(body(result="\ud800")),
    "phase unknown": state(body(phase="chaos")),
    "game -1": state(game=-1),
    "game huge": state(game=2**40),
    "seq past the game": state(seq=10**6),
    "at a string": state(at="now"),
    "online a string": state(online="yes"),
    "another board": state(board="TG-0002"),
    "an unknown key": state(extra=1),
    "relay not a name": state(relay="../../x"),
    "too many bytes": state(body(dead=[0] * 9000)),
    "version 2": state(v=2),
    "state a list": state([1]),
}

BAD_EVENTS = {
    "not JSON": b"nope",
    "raw not base64": event(MOVE, raw="not base64!"),
    "raw a number": event(MOVE, raw=5),
    "raw too long": event(MOVE, raw="AAAA" * 40000),
    "mac not hex": event(MOVE, raw="AAAA", mac="z" * 64),
    "mac short": event(MOVE, raw="AAAA", mac="ab"),
    "mac without raw": event(MOVE, mac="a" * 64),
    "seq past the bound": event(MOVE, seq=4096),
    "game 0": event(MOVE, game=0),
    "a move off any board": event(dict(MOVE, point=31)),
    "a bool for an int": event(dict(MOVE, ply=True)),
    "a float for an int": event(dict(MOVE, tick=5.0)),
    "clocks many": event(dict(MOVE, clocks=[0] * 100)),
    "an unknown field": event(dict(MOVE, cheat=1)),
    "an unknown type": event({"type": "teleport"}),
    "header size 7": event({"type": "header", "header": {"kind": 0, "size": 7}}, seq=0),
    "header renju 19": event({"type": "header", "header": {"kind": 1, "size": 19}}, seq=0),
    "header extra deep": event(
        {"type": "header", "header": {"kind": 0, "size": 9, "extra": "[" * 3000}}, seq=0
    ),
    "header extra nested": event(
        {"type": "header", "header": {"kind": 0, "size": 9, "extra": '{"black":{"a":1}}'}},
        seq=0,
    ),
    "header extra surrogate": event(
        {"type": "header", "header": {"kind": 0, "size": 9, "extra": '{"black":"\\ud800"}'}},
        seq=0,
    ),
    "header string long": event(
        {"type": "header", "header": {"kind": 0, "size": 9, "rules": "r" * 100}}, seq=0
    ),
    "header unknown field": event({"type": "header", "header": {"kind": 0, "x": 1}}, seq=0),
    "incident many points": event(
        {
            "type": "incident",
            "kind": 1,
            "move": 1,
            "time_ms": 0,
            "points": [0] * 1000,
            "detail": 0,
        }
    ),
}


def proof(**env) -> bytes:
    obj = {"v": 1, "board": BOARD, "game": 1, "data": base64.b64encode(b"x").decode()}
    obj.update({"hmac": ""}, **env)
    return json.dumps(obj).encode()


BAD_PROOFS = {
    "not JSON": b"nope",
    "a list": b"[]",
    "data not base64": proof(data="!!!!"),
    "data a number": proof(data=5),
    "hmac not hex": proof(hmac="zz"),
    "hmac long": proof(hmac="ab" * 100),
    "hmac a list": proof(hmac=["ab"]),
    "game 0": proof(game=0),
    "game a string": proof(game="1"),
    "another board": proof(board="TG-0002"),
    "an unknown key": proof(extra=1),
    "too many bytes": proof(data="A" * (F.PROOF_MAX + 4)),
    "version 2": proof(v=2),
}

BAD_RELAYS = {
    "online a string": b'{"v":1,"relay":"r1","online":"yes","boards":[]}',
    "a bad board id": b'{"v":1,"relay":"r1","online":true,"boards":["../x"]}',
    "boards many": json.dumps(
        {"v": 1, "relay": "r1", "online": True, "boards": ["b%d" % k for k in range(2000)]}
    ).encode(),
    "another relay": b'{"v":1,"relay":"r2","online":true,"boards":[]}',
}


def still(hall: Hall) -> list:
    # The boards as the API shows them, but the faces (they count down as time passes).
    return [dict(b, faces=None) for b in hall.boards_json()]


def pages_work(hall: Hall) -> None:
    """What every page and the API are made of: made, and encodable as UTF-8 JSON."""
    for obj in (
        hall.snapshot_message(),
        hall.boards_json(),
        hall.games_json(),
        hall.feed_index(),
        hall.drain()[0],
        [hall.board_json(b, moves=True) for b in hall.boards],
        [hall.game_records_json(b, g) for b, g in hall.games],
    ):
        json.dumps(obj, ensure_ascii=False, allow_nan=False).encode("utf-8")


def test_every_good_message_passes_the_door(tmp_path):
    recs = go_records(tmp_path)
    lim = HI.Limits()
    for seq, rec in enumerate(recs):
        got = HI.check_event(F.event_payload(BOARD, 1, seq, rec, 5), BOARD, lim)
        assert got["rec"] == rec
    full = state_body(recs)
    got = HI.check_state(F.state_payload(BOARD, "r1", True, 5, 1, 9, full), BOARD, lim)
    assert got["state"] == full
    got = HI.check_relay(F.relay_payload("r1", True, [BOARD], 5), "r1", lim)
    assert got["boards"] == [BOARD]
    assert HI.check_relay(F.relay_payload("r1", False), "r1", lim)["online"] is False  # the will
    # A key a newer firmware adds to its ``state`` reply is dropped, not passed to the pages.
    got = HI.check_state(state(body(secret="x" * 100)), BOARD, lim)
    assert "secret" not in got["state"]


@pytest.mark.parametrize(
    "topic_leaf, bad", [(F.STATE, BAD_STATES), (F.EVENTS, BAD_EVENTS), (F.PROOF, BAD_PROOFS)]
)
def test_no_malformed_message_reaches_the_pages(tmp_path, topic_leaf, bad):
    recs = go_records(tmp_path)
    hall = Hall(HALL, tmp_path / "feed")
    hall.handle(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, 0, recs[0], 0), 1.0)
    hall.handle(topic(BOARD, F.STATE), state(), 1.0)
    hall.drain()
    before = still(hall)
    for what, payload in bad.items():
        assert hall.handle(topic(BOARD, topic_leaf), payload, 2.0) is False, what
        assert hall.bad[topic_leaf] >= 1, what
        pushes, _ = hall.drain()
        assert [p["type"] for p in pushes] == ["bad"], what  # nothing else went out
        pages_work(hall)
    assert hall.bad == {topic_leaf: len(bad)}
    # Counted against the relay whose user wrote it (the topic's) and the board it named.
    assert hall.bad_json()["by"] == {"relay r1": len(bad), "board " + BOARD: len(bad)}
    assert hall.games[(BOARD, 1)].verdict is None  # no proof taken either
    assert still(hall) == before  # the board as it was
    assert len(hall.games[(BOARD, 1)].recs.records) == 1  # and its records
    assert [p.name for p in (tmp_path / "feed" / BOARD).iterdir()] == ["1.jsonl"]


def test_a_good_proof_passes_the_door(tmp_path):
    from firmware.store import records as RR
    from host_tools.hall import proof as P

    recs = go_records(tmp_path)
    hall = Hall(HALL, tmp_path / "feed")
    for seq, rec in enumerate(recs):
        hall.handle(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, seq, rec, 0), 1.0)
    data = bytes(RR.pack(1, recs))
    assert (
        HI.check_proof(F.proof_payload(BOARD, 1, data, None), BOARD, HI.Limits())["data"] == data
    )
    assert hall.handle(topic(BOARD, F.PROOF), F.proof_payload(BOARD, 1, data, None), 2.0)
    assert hall.games[(BOARD, 1)].verdict == P.UNVERIFIED and hall.bad == {}
    # A proof of more records than a game may have is refused for the bound.
    hall = Hall(HALL, limits=HI.Limits(records_per_game=len(recs) - 1))
    assert not hall.handle(topic(BOARD, F.PROOF), F.proof_payload(BOARD, 1, data, None), 2.0)
    assert hall.bad == {"bound": 1} and hall.held == 0


def test_no_malformed_relay_status_is_taken():
    hall = Hall(HALL)
    for what, payload in BAD_RELAYS.items():
        hall.handle(F.relay_topic(HALL, "r1"), payload, 1.0)
        assert hall.relays == {} and hall.boards == {}, what
    assert hall.bad == {"relay": len(BAD_RELAYS)}
    assert hall.bad_json()["by"] == {"relay r1": len(BAD_RELAYS)}
    hall.handle("tengen/%s/x" % HALL, b"{}", 1.0)
    hall.handle("tengen/other/%s/state/relay-r1" % BOARD, state(), 1.0)
    hall.handle("tengen/%s/%s/state/r1" % (HALL, BOARD), state(), 1.0)  # not a relay's user
    hall.handle("tengen/%s/%s/pairing/relay-r1" % (HALL, BOARD), b"{}", 1.0)  # not its leaf
    assert hall.bad["topic"] == 4
    pages_work(hall)


def test_a_board_from_another_relay_is_refused_and_named():
    # The register names r1 for the board: r2's credentials are refused at the door, before
    # the payload is read, counted against r2 and the board.
    hall = Hall(HALL, boards={BOARD: {"relay": "r1", "key": None}})
    assert not hall.handle(topic(BOARD, F.STATE, "r2"), state(), 1.0)
    assert not hall.handle(topic(BOARD, F.EVENTS, "r2"), b"not even JSON", 1.0)
    assert hall.bad == {"relay": 2} and hall.refused == 2
    assert hall.bad_json()["by"] == {"relay r2": 2, "board " + BOARD: 2}
    assert hall.handle(topic(BOARD, F.STATE, "r1"), state(), 1.0)
    # A board of the register takes no share of the boards not paired.
    register = {"K-%d" % k: {"relay": "r1", "key": None} for k in range(10)}
    hall = Hall(HALL, boards=register, limits=HI.Limits(unknown_per_relay=2, unknown_boards=2))
    hall.handle(F.relay_topic(HALL, "r1"), F.relay_payload("r1", True, sorted(register)), 1.0)
    assert hall.relays["r1"]["boards"] == sorted(register) and hall.unknown == {}


def test_refusals_are_logged_at_most_once_a_minute(caplog):
    clock = [1000.0]
    hall = Hall(HALL, clock=lambda: clock[0])
    where = topic(BOARD, F.STATE)
    for _ in range(500):
        hall.handle(where, b"nonsense", clock[0])
    clock[0] += 61
    hall.handle(where, b"nonsense", clock[0])
    said = [r.getMessage() for r in caplog.records if "bad state" in r.getMessage()]
    assert len(said) == 2 and "(500 since last said" in said[1]
    assert hall.bad == {"state": 501}
    pushes, _ = hall.drain()
    assert [p["type"] for p in pushes] == ["bad"]  # one push, not 501


def header(board=BOARD, game=1) -> bytes:
    rec = (R.HEADER, {"kind": R.GO, "size": 9, "board_id": board})
    return F.event_payload(board, game, 0, rec, 0)


def test_forged_boards_games_and_records_are_bounded(tmp_path):
    lim = HI.Limits(unknown_per_relay=3, unknown_boards=5, games_per_board=4, games=10)
    lim.records = 20
    hall = Hall(HALL, tmp_path / "feed", pairings={"P-1": {"table": "1"}}, limits=lim)
    # Boards relay r2 names on its topics: three (its share), then refused.
    for k in range(6):
        hall.handle(topic("X-%d" % k, F.EVENTS, "r2"), header("X-%d" % k), 1.0)
    assert sorted(hall.unknown["r2"]) == ["X-0", "X-1", "X-2"]
    # Relay r1 claims boards: its share, and the five in all.
    hall.handle(F.relay_topic(HALL, "r1"), F.relay_payload("r1", True, ["A", "B", "C"]), 1.0)
    assert hall.relays["r1"]["boards"] == ["A", "B"]
    # A paired board is always taken; games per board, and in all.
    for game in range(1, 9):
        hall.handle(topic("P-1", F.EVENTS), header("P-1", game), 1.0)
    assert hall.boards["P-1"].games == 4
    for game in range(1, 9):
        hall.handle(topic("A", F.EVENTS), header("A", game), 1.0)
    assert len(hall.games) == 10 and hall.boards["A"].games == 3  # 3 + 4 + 3
    # A snapshot or a proof of a board past the bounds is refused too.
    hall.handle(topic("Z", F.STATE), state(board="Z"), 1.0)
    hall.handle(topic("Z", F.PROOF), proof(board="Z"), 1.0)
    assert "Z" not in hall.boards
    # Records: at most ``records`` kept or held, every game together.
    for seq in range(1, 40):
        rec = (R.MOVE, seq, 2 - seq % 2, 0, seq, (1, 0, 1, 0))
        hall.handle(topic("X-0", F.EVENTS, "r2"), F.event_payload("X-0", 1, seq, rec, 0), 1.0)
    assert hall.held == 20
    kept = hall.bad_json()["kept"]
    assert kept == dict(kept, boards=6, unpaired=5, games=10, records=20)
    assert hall.bad["bound"] == 3 + 1 + 4 + 5 + 2 + (39 - 10)  # 10 headers, 10 moves kept
    files = [p for p in (tmp_path / "feed").rglob("*") if p.is_file()]
    assert len(files) <= 2 * lim.games
    pages_work(hall)
    # A restarted hall reads back no more than its bounds either.
    again = Hall(HALL, tmp_path / "feed", limits=HI.Limits(games=5, unknown_boards=2))
    again.load()
    assert len(again.games) <= 5 and len(again.boards) <= 2


def test_a_point_off_the_games_board_is_refused(tmp_path):
    hall = Hall(HALL)
    hall.handle(topic(BOARD, F.EVENTS), header(), 1.0)
    off = (R.MOVE, 1, 1, 12, 5, (1, 0, 1, 0))  # x = 12 on a 9x9 game
    hall.handle(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, 1, off, 0), 1.0)
    assert hall.bad == {"events": 1} and len(hall.games[(BOARD, 1)].recs.records) == 1


# ---- the two views: the door passed once ----------------------------------------------------


def test_the_door_is_passed_once_for_both_views(tmp_path, caplog):
    # ``tengen hall``'s server: the live view and the public one, ``--delay`` behind. A bad
    # message is refused at the door once (counted once, said once), and never queued for
    # the public view; what the live view took reaches the public one, unchecked again.
    from host_tools.hall.server import HallServer

    caplog.set_level(logging.INFO, logger="tengen.hall")
    recs = go_records(tmp_path)
    hall = Hall(HALL, tmp_path / "feed", 3600.0)
    server = HallServer(hall, ("127.0.0.1", 1))
    server._flush_soon = True  # noqa: SLF001 - no event loop here: the test drains
    server._message(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, 0, recs[0], 0))  # noqa: SLF001
    server._message(topic(BOARD, F.STATE), state())  # noqa: SLF001
    bad = [(F.STATE, p) for p in BAD_STATES.values()] + [
        (F.EVENTS, p) for p in BAD_EVENTS.values()
    ]
    bad += [(F.PROOF, p) for p in BAD_PROOFS.values()]
    for leaf, payload in bad:
        server._message(topic(BOARD, leaf), payload)  # noqa: SLF001
    # Record 0 again, not the one had (a conflict): the live view keeps its own.
    other = (R.HEADER, dict(recs[0][1], size=13))
    server._message(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, 0, other, 0))  # noqa: SLF001
    assert len(server.pending) == 2  # the two good ones, no other
    server._release(time.time() + 3600)  # noqa: SLF001 - the ticker's step, an hour on
    assert not server.pending
    want = {"state": len(BAD_STATES), "events": len(BAD_EVENTS), "proof": len(BAD_PROOFS)}
    assert hall.bad == dict(want, conflict=1)
    assert server.public.counts.total() == 0  # nothing for it to refuse: it was not given
    public = server.public.boards_json()
    assert [(b["id"], b["records"]) for b in public] == [(BOARD, 1)]
    assert server.public.games[(BOARD, 1)].recs.records == [recs[0]]
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("bad ")]
    assert sorted(m.split(" message")[0] for m in said) == [
        "bad conflict",
        "bad events",
        "bad proof",
        "bad state",
    ]
    pages_work(server.public)


def test_a_flood_of_snapshots_waits_for_the_public_view_within_its_bound(tmp_path):
    # Valid snapshots as fast as a relay can publish them, with a long delay: the live view
    # takes each, the public view's queue holds no more than its bound (the rest counted),
    # and a record is queued whatever the snapshots did.
    from host_tools.hall.server import HallServer

    recs = go_records(tmp_path)
    lim = HI.Limits(pending_bytes=20_000)
    hall = Hall(HALL, tmp_path / "feed", 3600.0, limits=lim)
    server = HallServer(hall, ("127.0.0.1", 1))
    server._flush_soon = True  # noqa: SLF001 - no event loop here
    for k in range(200):
        server._message(topic(BOARD, F.STATE), state(at=k))  # noqa: SLF001
    assert hall.boards[BOARD].snapshot["at"] == 199  # the live view took every one
    assert server.pending_bytes <= lim.pending_bytes
    assert sum(len(t) + len(p) for _, t, p, _, _ in server.pending) == server.pending_bytes
    assert hall.bad["bound"] == 200 - len(server.pending) > 0
    server._message(topic(BOARD, F.EVENTS), F.event_payload(BOARD, 1, 0, recs[0], 0))  # noqa: SLF001
    assert server.pending[-1][3].leaf == F.EVENTS
    server._release(time.time() + 3600)  # noqa: SLF001
    assert server.pending_bytes == 0 and len(server.public.games[(BOARD, 1)].recs.records) == 1


# ---- the real hall against Mosquitto --------------------------------------------------------


DELAY_S = 1.0  # the public view a second behind: the two views both in play


async def ws_snapshot(url, live=False) -> dict:
    import aiohttp

    path, headers = "ws", None
    if live:
        path = "ws?live=1"
        token = base64.b64encode(("%s:%s" % ARBITER).encode()).decode()
        headers = {"Authorization": "Basic " + token}
    async with aiohttp.ClientSession() as s, s.ws_connect(url + path, headers=headers) as ws:
        return await ws.receive_json(timeout=10)


def all_pages_work(url) -> tuple[dict, dict]:
    """Every page and API answer 200 (the arbiter's, the live API and the status signed in,
    and refused without a login); each WebSocket's first message is its snapshot. The public
    and the live ``/ws`` snapshots."""
    for prefix, auth in (("api/", None), ("api/live/", ARBITER)):
        status, boards = get(url + prefix + "boards", auth=auth)
        assert status == 200, (prefix, boards)
        for b in boards:
            assert get(url + prefix + "boards/%s" % b["id"], auth=auth)[0] == 200
        assert get(url + prefix + "games", auth=auth)[0] == 200
    for page in ("", "table/" + BOARD, "feed/", "login", "?live", "table/%s?live" % BOARD):
        assert get(url + page, json_out=False, auth=ARBITER)[0] == 200, page
    for page in ("", "table/" + BOARD, "feed/"):
        assert get(url + page, json_out=False)[0] == 200, page
    for page in ("arbiter", "api/incidents", "api/status", "api/live/boards"):
        assert get(url + page, json_out=False, auth=ARBITER)[0] == 200, page
        status, body = get(url + page, json_out=False)
        assert status == 401 or b"Sign in" in body, page  # the API 401, a page the form
    public = asyncio.run(ws_snapshot(url))
    live = asyncio.run(ws_snapshot(url, live=True))
    for snap in (public, live):
        assert snap["type"] == "snapshot" and snap["hall"] == HALL
    assert "bad" not in public and "bad" in live  # the refusals are the arbiter's
    return public, live


def status_of(url) -> dict:
    return get(url + "api/status", auth=ARBITER)[1]


def test_retained_malformed_states_leave_every_page_working_across_a_restart(tmp_path, started):
    recs = go_records(tmp_path)
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    from tests.host.hall.test_hall_public import PublicMqtt

    relay = started(RelayClient(broker.port))
    public_mqtt = started(PublicMqtt(broker.port))  # the broker's user public: the hall's copy
    delay = ("--delay", str(DELAY_S))
    hall, url = start_hall(tmp_path, broker.port, *delay)
    started(hall, stop_hall)
    # One good board, then a retained bad snapshot on each of many others, from relay
    # r1's credentials on its own topics (what the broker lets it write).
    relay.state(BOARD, 1, 0, state_body(recs, 0))
    for seq in range(3):
        relay.event(BOARD, 1, seq, recs[seq])
    bad = {"B-%d" % k: p for k, p in enumerate(BAD_STATES.values())}
    for board, payload in bad.items():
        payload = payload.replace(BOARD.encode(), board.encode())
        relay.c.publish(topic(board, F.STATE), payload, qos=1, retain=True)
    nine = state(body(size="nine"), board="B-0")  # the issue's: last, retained
    relay.c.publish(topic("B-0", F.STATE), nine, 1, True).wait_for_publish(10)
    wait_for(
        lambda: status_of(url)["bad"]["kinds"].get("state", 0) == len(bad) + 1,
        say="the bad snapshots counted",
    )
    last = status_of(url)["bad"]["last"]["state"]  # the issue's, the last one
    assert last.startswith("B-0 state:") and "size 'nine' is not a size of go9" in last

    def public_records():
        return get(url + "api/boards/%s" % BOARD)[1].get("records")

    wait_for(lambda: public_records() == 3, DELAY_S + 20, say="the public records")
    public, live = all_pages_work(url)
    for snap in (public, live):
        assert [b["id"] for b in snap["boards"]] == [BOARD]  # none of the bad ones
    # The public copy on the broker: the good board's messages, none of the bad.
    wait_for(
        lambda: len([t for _, t, _ in public_mqtt.got if "/events/" in t]) == 3,
        say="the good records on the public copy",
    )
    boards = {F.parse_topic(t.replace("/_public", ""))[1] for _, t, _ in public_mqtt.got}
    assert boards == {BOARD, F.RELAY}
    stop_hall(hall)
    assert "Traceback" not in (tmp_path / "hall.log").read_text()

    # The broker keeps the bad snapshots: a restarted hall gets them all again.
    hall, url = start_hall(tmp_path, broker.port, *delay)
    started(hall, stop_hall)
    status = wait_for(
        lambda: (lambda s: s if s["bad"]["kinds"].get("state", 0) >= len(bad) else None)(
            status_of(url)
        ),
        say="the retained bad snapshots counted again",
    )
    wait_for(lambda: public_records() == 3, DELAY_S + 20, say="the public records again")
    time.sleep(DELAY_S)  # what the public view was given (none of the bad) is in it
    public, live = all_pages_work(url)
    for snap in (public, live):
        assert [b["id"] for b in snap["boards"]] == [BOARD]
    for prefix, auth in (("api/", None), ("api/live/", ARBITER)):
        assert [b["id"] for b in get(url + prefix + "boards", auth=auth)[1]] == [BOARD]
        assert get(url + prefix + "boards/%s" % BOARD, auth=auth)[1]["records"] == 3
        assert get(url + prefix + "boards/B-0", auth=auth)[0] == 404
    # Counted once (the door is before both views), against the relay and each board.
    status = status_of(url)
    assert status["bad"]["kinds"] == {"state": len(bad)}
    by = status["bad"]["by"]
    assert by["relay r1"] == len(bad) and by["board B-0"] == 1
    assert all(k == "relay r1" or k.startswith("board B-") for k in by)
    assert status["bad"]["last"]["state"].startswith("B-")  # the last one's words
    assert live["bad"]["total"] == status["bad"]["total"]
    log = (tmp_path / "hall.log").read_text()
    assert log.count("bad state message") == 2  # once a minute: once per run
    assert "Traceback" not in log

    # The arbiter's page, signed in, in a real browser: the refusals and whence.
    from tests.host.hall.test_hall_browser import (
        browser_or_skip,
        open_page,
        sign_in,
        wait_page,
    )

    driver = started(browser_or_skip(tmp_path), "quit")
    open_page(driver, url)  # the public page: its one good board
    got = driver.execute_script(
        "return [...document.querySelectorAll('.table-card')].map(e => e.dataset.board)"
    )
    assert got == [BOARD]
    sign_in(driver, url)
    open_page(driver, url + "arbiter")
    shown, _ = wait_page(
        lambda: driver.execute_script(
            "const k = document.querySelector('#bad li[data-kind=state]');"
            "const b = document.querySelector('#bad-by li[data-from=\"board B-0\"]');"
            "return k && b ? [k.textContent, b.textContent,"
            " document.getElementById('bad-count').textContent,"
            " document.getElementById('kept').textContent] : null;"
        ),
        say="the refusals on the arbiter's page",
    )
    assert shown[0].startswith("state: %d B-" % len(bad))
    assert shown[1] == "board B-0: 1" and shown[2] == str(len(bad))
    assert shown[3].startswith("kept: 1 boards")


def test_a_flood_of_forged_headers_is_bounded(tmp_path, started):
    broker = started(broker_or_skip(tmp_path / "broker"), "stop")
    relay = started(RelayClient(broker.port))
    hall, url = start_hall(tmp_path, broker.port)
    started(hall, stop_hall)
    lim = status_of(url)["bad"]["limits"]
    boards, games = lim["unknown_per_relay"] + 44, 8
    many = lim["games_per_board"] + 36
    sent = []
    for k in range(boards):
        for game in range(1, games + 1):
            sent.append(("F-%03d" % k, game))
    sent += [("F-000", game) for game in range(games + 1, many + 1)]
    infos = [relay.c.publish(topic(b, F.EVENTS), header(b, g), qos=1) for b, g in sent]
    for info in infos:
        info.wait_for_publish(30)
    # Every message taken or refused: the hall's counts add up to what was sent.
    wait_for(
        lambda: (
            lambda s: s["bad"]["kept"]["games"] + s["bad"]["kinds"].get("bound", 0) == len(sent)
        )(status_of(url)),
        timeout=120,
        say="every forged header taken or refused",
    )
    status = status_of(url)
    kept = status["bad"]["kept"]
    # Relay r1's share of boards not paired: the one its status claims, and the forged.
    share = lim["unknown_per_relay"]
    assert kept["unpaired"] == share <= lim["unknown_boards"]
    assert kept["games"] == (share - 1) * games + lim["games_per_board"] - games
    assert status["bad"]["kinds"]["bound"] == len(sent) - kept["games"] > 0
    assert status["bad"]["by"]["board F-000"] == many - lim["games_per_board"]
    assert status["bad"]["by"]["relay r1"] == len(sent) - kept["games"]
    feed = tmp_path / "feed"
    wait_for(
        lambda: len([p for p in feed.rglob("*.sgf")]) == kept["games"],
        timeout=60,
        say="the SGFs written",
    )
    files = [p for p in feed.rglob("*") if p.is_file()]
    assert len(files) == 2 * kept["games"] <= 2 * lim["games"]
    assert len([p for p in feed.iterdir() if p.is_dir()]) == share - 1
    assert len(get(url + "api/games", json_out=False)[1]) < 2 * 2**20
    all_pages_work(url)


def test_limits_are_plain_numbers():
    lim = HI.Limits().json()
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in lim.values())
