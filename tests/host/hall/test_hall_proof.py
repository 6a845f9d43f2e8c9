"""Issue [R]: least privilege on the broker and records proven end to end, with nothing faked
but the adversary: a virtual board (the real firmware on the unix port), ``tengen pair``'s
key, ``tengen hall-keys``, ``tengen relay`` and ``tengen hall`` as installed, Mosquitto with
one user per relay.

- relay r2's credentials publish for relay r1's board: the hall refuses it (counted);
- a forged record (a moved move) published ahead of the board's own from r1's credentials:
  once the game is finished its proof (the board's bytes and HMAC) verifies, the board's
  record wins, and the broadcast SGF is byte for byte the SGF ``tengen sync`` brings home,
  marked verified in the API and the feed's index;
- a board the organiser registered without a key: its game is shown unverified.
"""

import json
import subprocess

import pytest

from firmware.store import records as R
from host_tools.hall import feed as F
from host_tools.hall import proof as P
from host_tools.records import export as X
from tests.host.hall.test_hall import ARBITER, get, start_hall, stop_hall
from tests.host.hall.test_hall_browser import feed_sgf
from tests.host.hall.test_relay import (
    HALL,
    OPENING,
    TENGEN,
    RelayProc,
    VBoard,
    pair_board,
    publish,
    setup_board,
    until,
)


def _game(url, board, game=1):
    status, body = get("%sapi/games/%s/%d" % (url, board, game))
    return body if status == 200 else {}


def _hall_keys(tmp_path, env, *args):
    r = subprocess.run(
        [str(TENGEN), "hall-keys", str(tmp_path / "boards.csv"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def _board_records(vb):
    from host_tools.common.link import Link
    from host_tools.records import sync as S

    with Link(vb.link) as link:
        data, _, _ = S.fetch(link, 1)
    return S.decode(data)


def _live_bytes(vb):
    """The board's live game 1 as a relay reads it: its bytes and the board's HMAC of them."""
    from host_tools.common.link import Link
    from host_tools.records import sync as S

    with Link(vb.link) as link:
        data, _, mac, _ = S.read_from(link, 1)
    return data, mac


def _everything_shown(url, board):
    """Every record of the board's game 1 the hall shows, public and signed in."""
    out = []
    for path in ("api/games/%s/1", "api/live/games/%s/1"):
        status, body = get(url + path % board, auth=ARBITER)
        if status == 200:
            out.extend(r["rec"] for r in body.get("records", []))
    return out


@pytest.mark.slow(10)
def test_forged_replayed_reordered_dropped_records_never_reach_the_hall(
    tmp_path, env, broker, started
):
    from host_tools.records import verify as V

    vb = started(VBoard(tmp_path / "flash", seed=3))
    setup_board(vb)
    pair_board(vb)  # the key, kept on this PC (TENGEN_CONFIG_DIR)
    said = _hall_keys(tmp_path, env, "--board", "%s=r1" % vb.board_id)
    assert "%s: relay r1, key registered" % vb.board_id in said
    assert oct((tmp_path / "boards.csv").stat().st_mode & 0o777) == "0o600"
    hall, url = start_hall(
        tmp_path, broker.port, "--boards", str(tmp_path / "boards.csv"), hall=HALL
    )
    started(hall, stop_hall)
    vb.do("key pause")
    vb.play(OPENING[:4])  # even: finish() passes Black first
    data, mac = _live_bytes(vb)  # what the forger reads off the board's USB, MAC included
    real = R.scan(data)
    recs = [r for _, _, r in real]
    ends = [e for _, e, _ in real]
    k = next(i for i, r in enumerate(recs) if r[0] == R.MOVE)  # the first move
    moved = recs[k][:3] + (recs[k][3] + 1,) + recs[k][4:]
    t, body = R.encode(moved)
    moved_raw = bytes(R.frame(t, body, data[ends[k - 1] - 4 : ends[k - 1]]))

    def raw(s):
        return data[ends[s - 1] if s else 0 : ends[s]]

    # The forger holds r1's password and publishes ahead of the board's relay.
    r1 = F.relay_user("r1")
    to = F.topic(HALL, vb.board_id, F.EVENTS, "r1")
    honest = [(s, recs[s], raw(s), None) for s in range(k)]
    attacks = [
        [(k, moved, raw(k), V.mac(bytes(32), data[: ends[k]]))],  # the JSON moved
        [(k, moved, moved_raw, V.mac(bytes(32), data[: ends[k - 1]] + moved_raw))],
        [(k, moved, moved_raw, mac)],  # the move moved, the board's MAC kept
        [(k, recs[k], raw(k), V.mac(bytes(32), data[: ends[k]]))],  # another key's MAC
        [(k + 1, recs[k], raw(k), None), (k, recs[k + 1], raw(k + 1), mac)],  # reordered
        [(k, recs[k + 1], raw(k + 1), mac)],  # record k dropped
        [(k, moved, None, None)],  # the old format: no bytes, no MAC
    ]
    for events in attacks:  # each after the honest records before it (still unproven)
        for seq, rec, rw, m in honest + events:
            payload = F.event_payload(vb.board_id, 1, seq, rec, 1, rw, m)
            publish(broker, to, payload, user=r1)
    # Relay r2's credentials for r1's board: the hall refuses them.
    bogus = F.event_payload(vb.board_id, 1, 0, recs[0], 1, raw(0), mac)
    publish(broker, F.topic(HALL, vb.board_id, F.EVENTS, "r2"), bogus, user="relay-r2")
    until(
        lambda: get(url + "api/status", auth=ARBITER)[1]["bad"].get("forged", 0) >= 6,
        what="the forgeries counted",
    )
    status = get(url + "api/status", auth=ARBITER)[1]
    assert status["bad"]["refused"] >= 1
    assert _everything_shown(url, vb.board_id) == []  # no MAC covered the first records
    assert get(url + "api/boards/" + vb.board_id)[0] in (200, 404)
    assert get(url + "feed/%s/1.sgf" % vb.board_id, json_out=False)[0] == 404

    relay = started(RelayProc(broker, env, ports=[vb.link], name="r1"))
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    until(lambda: len(_everything_shown(url, vb.board_id)) >= 2 * len(recs), what="real")
    shown = _everything_shown(url, vb.board_id)
    assert all(r["point"] != moved[3] for r in shown if r["type"] == "move" and r["ply"] == 1)
    vb.finish()
    until(
        lambda: _game(url, vb.board_id).get("verified") == P.VERIFIED,
        what="the game verified",
    )
    assert relay.stop() == 0

    r = subprocess.run(
        [str(TENGEN), "sync", "--port", vb.link, "--dest", str(tmp_path / "home"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, (r.stdout, r.stderr)
    synced = next((tmp_path / "home" / vb.board_id).glob("*_000001.sgf")).read_bytes()
    until(lambda: feed_sgf(url, vb.board_id, 1) == synced, what="the feed is the board's")
    game = _game(url, vb.board_id)
    assert game["records"][k]["rec"]["point"] == recs[k][3]
    status = get(url + "api/status", auth=ARBITER)[1]
    assert status["bad"]["replaced"] == 0  # no forged record ever got in to be replaced
    index = get(url + "feed/?json")[1]["games"]
    entry = next(e for e in index if e["board"] == vb.board_id and e["game"] == 1)
    assert entry["verified"] == P.VERIFIED
    kept = tmp_path / "feed" / vb.board_id
    assert (kept / "1.proof").exists()
    # The SGF on disk verifies alone with the board's key (tengen verify).
    v = subprocess.run(
        [str(TENGEN), "verify", str(kept / "1.sgf")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert v.returncode == 0, (v.stdout, v.stderr)

    # A restarted hall reads the verified game back as verified, the forgery gone.
    stop_hall(hall)
    hall, url = start_hall(
        tmp_path, broker.port, "--boards", str(tmp_path / "boards.csv"), hall=HALL
    )
    started(hall, stop_hall)
    until(lambda: _game(url, vb.board_id).get("verified") == P.VERIFIED, what="again")
    assert feed_sgf(url, vb.board_id, 1) == synced


@pytest.mark.slow(6)
def test_a_board_without_a_key_is_shown_unverified(tmp_path, env, broker, started):
    vb = started(VBoard(tmp_path / "flash", seed=4))
    setup_board(vb)
    _hall_keys(tmp_path, env, "--board", "%s=r1" % vb.board_id, "--no-key")
    hall, url = start_hall(
        tmp_path, broker.port, "--boards", str(tmp_path / "boards.csv"), hall=HALL
    )
    started(hall, stop_hall)
    relay = started(RelayProc(broker, env, ports=[vb.link], name="r1"))
    relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
    vb.do("key pause")
    vb.play(OPENING[:2])
    vb.finish()
    until(
        lambda: any(
            r["rec"]["type"] == "result" for r in _game(url, vb.board_id).get("records", [])
        ),
        what="the result at the hall",
    )
    assert _game(url, vb.board_id)["verified"] == P.UNVERIFIED
    board = get(url + "api/boards/" + vb.board_id)[1]
    assert board["verified"] == P.UNVERIFIED
    until(lambda: get(url + "feed/?json")[1]["games"], what="the feed's index")
    index = get(url + "feed/?json")[1]["games"]
    assert [e["verified"] for e in index if e["board"] == vb.board_id] == [P.UNVERIFIED]


def test_the_register_and_the_cli_refuse_what_is_not_a_board(tmp_path, env):
    r = subprocess.run(
        [str(TENGEN), "hall-keys", str(tmp_path / "b.csv"), "--board", "never-paired"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2 and "not paired" in r.stderr
    from host_tools.hall import boards as HB

    reg = HB.parse("board,relay,key\nv1,r1,00ff\nv2,,\n")
    assert reg == {"v1": {"relay": "r1", "key": b"\x00\xff"}, "v2": {"relay": None, "key": None}}
    for bad in ("board,key\nv1,zz\n", "board\n_x\n", "board\nv1\nv1\n", "relay\nr1\n"):
        try:
            HB.parse(bad)
        except HB.BoardsError:
            continue
        raise AssertionError("taken: %r" % bad)
    assert json.loads(json.dumps(reg, default=str))


# ---- the hall's model alone (no broker): the verdicts ---------------------------------------


def _model_game(tmp_path):
    from tests.host.hall.test_hall import go_records

    recs = go_records(tmp_path)
    board = recs[0][1]["board_id"]
    data = bytes(R.pack(recs[0][1]["game_no"], recs))
    return board, recs[0][1]["game_no"], data, [F.record_from_json(F.record_json(r)) for r in recs]


def test_a_proof_that_does_not_hold_keeps_the_game_out_of_the_feed(tmp_path):
    from host_tools.hall.state import Hall
    from host_tools.records import verify as V

    board, no, data, recs = _model_game(tmp_path)
    key = bytes(range(32))
    hall = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    for seq, rec in enumerate(recs):
        hall.handle(F.topic("h", board, F.EVENTS, "r1"), F.event_payload(board, no, seq, rec, 1))
    hall.tick(1e12)
    # Records without the board's bytes (as a packed game's): held until the game's proof.
    assert hall.feed_sgf(board, no) is None and hall.games_json() == []
    held = hall.game_json(hall.games[(board, no)])
    assert (held["records"], held["held"], held["verified"]) == (0, len(recs), P.PENDING)
    # From relay r2: refused, whatever it says.
    bad = F.proof_payload(board, no, data, V.mac(bytes(32), data))
    hall.handle(F.topic("h", board, F.PROOF, "r2"), bad)
    assert hall.refused == 1 and hall.games_json() == []
    # Another key's HMAC from the right relay: FAILED, out of the feed, on disk too.
    hall.handle(F.topic("h", board, F.PROOF, "r1"), bad)
    assert hall.game_json(hall.games[(board, no)])["verified"] == P.FAILED
    assert hall.feed_sgf(board, no) is None and hall.feed_index() == []
    assert not (tmp_path / "feed" / board / ("%d.sgf" % no)).exists()
    again = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    again.load()
    assert again.game_json(again.games[(board, no)])["verified"] == P.FAILED
    assert again.feed_index() == []
    # The board's own proof: verified, back in the feed with its record inside.
    good = F.proof_payload(board, no, data, V.mac(key, data))
    hall.handle(F.topic("h", board, F.PROOF, "r1"), good)
    assert hall.games_json()[0]["verified"] == P.VERIFIED
    assert hall.games[(board, no)].recs.records == recs
    assert [e["verified"] for e in hall.feed_index()] == [P.VERIFIED]
    assert b"TG[" in hall.feed_sgf(board, no)
    hall.handle(F.topic("h", board, F.PROOF, "r1"), bad)  # too late: verified stays
    assert hall.games_json()[0]["verified"] == P.VERIFIED


def test_without_a_key_a_proof_proves_nothing(tmp_path):
    from host_tools.hall.state import Hall

    board, no, data, recs = _model_game(tmp_path)
    hall = Hall("h", tmp_path / "feed")
    for seq, rec in enumerate(recs):
        hall.handle(F.topic("h", board, F.EVENTS, "any"), F.event_payload(board, no, seq, rec, 1))
    hall.handle(F.topic("h", board, F.PROOF, "any"), F.proof_payload(board, no, data, "00"))
    assert hall.games_json()[0]["verified"] == P.UNVERIFIED
    assert hall.board_json(board)["verified"] == P.UNVERIFIED


# ---- live records proven one read at a time (hall_proof.Chain) ------------------------------


def _live(recs):
    """A live journal file of ``recs`` (as the board writes it) and where each record ends."""
    buf, ends = bytearray(R.MAGIC), []
    for rec in recs:
        t, payload = R.encode(rec)
        buf.extend(R.frame(t, payload, buf[-4:]))
        ends.append(len(buf))
    return bytes(buf), ends


def _events(board, no, recs, key, reads, forge=None):
    """The relay's events for records ``reads[0]..`` read by reads (each read's last record
    with the board's HMAC of the bytes through it), as ``(seq, payload)``; ``forge`` may
    change ``(seq, rec, raw, mac)`` before each is made."""
    from host_tools.records import verify as V

    data, ends = _live(recs)
    out, start = [], 0
    for stop in reads:
        for seq in range(start, stop):
            raw = data[ends[seq - 1] if seq else 0 : ends[seq]]
            mac = V.mac(key, data[: ends[seq]]) if seq == stop - 1 else None
            parts = (seq, recs[seq], raw, mac)
            if forge is not None:
                parts = forge(*parts)
            out.append((parts[0], F.event_payload(board, no, parts[0], parts[1], 1, *parts[2:])))
        start = stop
    return out


def _shown(hall, board, no):
    """What the hall shows of the game anywhere: its records in the API, the board's, the
    SGF (with no delay)."""
    got = hall.game_records_json(board, no)
    return (
        [r["rec"] for r in got["records_list"]] if got else [],
        hall.board_json(board)["records"] if hall.board_json(board) else 0,
        hall.feed_sgf(board, no, now=1e12),
    )


def test_live_records_reach_the_hall_as_the_boards_mac_proves_them(tmp_path):
    from host_tools.hall.state import Hall

    board, no, _, recs = _model_game(tmp_path)
    key = bytes(range(32))
    reg = {board: {"relay": "r1", "key": key}}
    hall = Hall("h", tmp_path / "feed", boards=reg)
    topic = F.topic("h", board, F.EVENTS, "r1")
    half = len(recs) // 2
    # Read by read: the first reads a record each, then three at once (MAC on the last).
    reads = list(range(1, half)) + [half + 2]
    for _seq, payload in _events(board, no, recs, key, reads):
        hall.handle(topic, payload)
        proven = hall.games[(board, no)].chain.count
        assert len(hall.games[(board, no)].recs.records) == proven
    assert hall.games[(board, no)].recs.records == recs[: half + 2]
    assert hall.bad_json()["forged"] == 0 and hall.verdict(hall.games[(board, no)]) == P.PENDING
    # A restarted hall goes on from the bytes it proved: the rest proven as it comes.
    again = Hall("h", tmp_path / "feed", boards=reg)
    again.load()
    assert again.games[(board, no)].chain.count == half + 2
    rest = _events(board, no, recs, key, list(range(1, len(recs) + 1)))[half + 2 :]
    for _seq, payload in rest:
        again.handle(topic, payload)
    assert again.games[(board, no)].recs.records == recs
    assert again.bad_json()["forged"] == 0 and not again.outbox


def test_forged_replayed_reordered_or_dropped_live_records_never_reach_the_hall(tmp_path):
    from host_tools.hall.state import Hall
    from host_tools.records import verify as V

    board, no, _, recs = _model_game(tmp_path)
    key = bytes(range(32))
    hall = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    topic = F.topic("h", board, F.EVENTS, "r1")
    k = next(i for i, r in enumerate(recs) if r[0] == R.MOVE)  # the first move
    honest = _events(board, no, recs, key, list(range(1, len(recs) + 1)))
    for _seq, payload in honest[:k]:
        hall.handle(topic, payload)
    assert _shown(hall, board, no)[1] == k
    shown = _shown(hall, board, no)
    hall.pushes.clear()
    moved = recs[k][:3] + (recs[k][3] + 1,) + recs[k][4:]
    data, ends = _live(recs)
    t, payload = R.encode(moved)
    moved_raw = bytes(R.frame(t, payload, data[ends[k - 1] - 4 : ends[k - 1]]))
    attacks = {
        # the move moved in the JSON only, the board's bytes and MAC kept
        "json": [(k, moved, data[ends[k - 1] : ends[k]], V.mac(key, data[: ends[k]]))],
        # the move moved in its bytes too (CRC right), the board's MAC kept
        "bytes": [(k, moved, moved_raw, V.mac(key, data[: ends[k]]))],
        # ... with a MAC of another key (what a relay can compute)
        "mac": [(k, moved, moved_raw, V.mac(bytes(32), data[: ends[k - 1]] + moved_raw))],
        # no MAC at all: held, never shown
        "none": [(k, moved, moved_raw, None)],
        # the MAC of the record before replayed on this one
        "replayed": [(k, recs[k], data[ends[k - 1] : ends[k]], V.mac(key, data[: ends[k - 1]]))],
        # two records in swapped order, the MAC of the two
        "reordered": [
            (k, recs[k + 1], data[ends[k] : ends[k + 1]], None),
            (k + 1, recs[k], data[ends[k - 1] : ends[k]], V.mac(key, data[: ends[k + 1]])),
        ],
        # one dropped: the next in its place with the MAC through both
        "dropped": [
            (k, recs[k + 1], data[ends[k] : ends[k + 1]], V.mac(key, data[: ends[k + 1]]))
        ],
        # a record without its bytes (as a packed game's are): only the game's proof tells
        "no bytes": [(k, moved, None, None)],
    }
    for name, events in attacks.items():
        for seq, rec, raw, mac in events:
            hall.handle(topic, F.event_payload(board, no, seq, rec, 1, raw, mac))
        assert _shown(hall, board, no) == shown, name
        assert not [p for p in hall.pushes if p["type"] == "record"], name
        hall.pushes.clear()
    assert hall.bad_json()["forged"] == 6  # all but "none" and "no bytes", which wait
    asked = [F.parse_replay(p) for t, p, _ in hall.outbox if t.endswith("/replay")]
    assert asked and set(asked) == {(no, k)}  # asked again from the first record not proven
    # Then the relay's honest events: every record proven, the SGF the board's.
    hall.tick(1e12)
    for _seq, payload in honest[k:]:
        hall.handle(topic, payload)
    assert hall.games[(board, no)].recs.records == recs
    hall.tick(1e12)
    assert hall.feed_sgf(board, no, now=1e12) == X.export(recs)["sgf"]


def test_a_relays_snapshot_never_shows_a_position_the_board_did_not_prove(tmp_path):
    from host_tools.hall.state import Hall
    from tests.host.hall.test_hall import state_body

    board, no, _, recs = _model_game(tmp_path)
    key = bytes(range(32))
    hall = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    moves = [i for i, r in enumerate(recs) if r[0] == R.MOVE]
    upto = moves[3] + 1  # four moves proven
    for _seq, payload in _events(board, no, recs, key, list(range(1, upto + 1))):
        hall.handle(F.topic("h", board, F.EVENTS, "r1"), payload)
    proven = hall.board_json(board)
    assert proven["ply"] == 4
    # The relay's snapshot claims eight moves and a result: the position stays the proven one.
    fake = dict(state_body(recs, ply=8), result="W+R")
    payload = F.state_payload(board, "r1", True, 1, no, upto + 10, fake)
    hall.handle(F.topic("h", board, F.STATE, "r1"), payload)
    shown = hall.board_json(board)
    assert (shown["ply"], shown["stones"], shown["result"]) == (4, proven["stones"], None)
    # The board's next proven record moves it on.
    for _seq, payload in _events(board, no, recs, key, list(range(1, moves[4] + 2)))[upto:]:
        hall.handle(F.topic("h", board, F.EVENTS, "r1"), payload)
    assert hall.board_json(board)["ply"] == 5


def test_a_relay_cannot_fill_the_halls_memory_with_unproven_records():
    chain = P.Chain(bytes(32))
    rec = (R.MOVE, 1, 1, 0, 0, (0, 0, 0, 0))
    for seq in range(1, 3 * P.HOLD_MAX):  # never record 0: nothing can ever be proven
        chain.offer(seq, rec, bytes(2000), None)
        chain.offer(seq, rec, bytes(1000), None)  # the same again, smaller: replaced
    assert len(chain.held) <= P.HOLD_MAX and chain.held_bytes <= P.HOLD_BYTES
    assert chain.held_bytes == sum(len(r) for _, r, _ in chain.held.values())
    assert chain.missing() == 0 and chain.count == 0


def test_a_restarted_hall_gives_its_public_view_the_proven_live_records(tmp_path):
    # The public view proves each record again (a forged one the live view dropped never
    # reaches it): a restarted hall hands it the records it kept with their bytes and MAC.
    import time

    from host_tools.hall.server import HallServer
    from host_tools.hall.state import Hall

    board, no, _, recs = _model_game(tmp_path)
    key = bytes(range(32))
    reg = {board: {"relay": "r1", "key": key}}
    first = Hall("h", tmp_path / "feed", 5.0, boards=reg)
    half = len(recs) // 2
    old = time.time() - 60
    for _seq, payload in _events(board, no, recs, key, list(range(1, half + 1))):
        first.handle(F.topic("h", board, F.EVENTS, "r1"), payload, old)
    model = Hall("h", tmp_path / "feed", 5.0, boards=reg)
    assert model.load() == half
    server = HallServer(model, ("127.0.0.1", 1))
    server.keep_loaded()
    shown = server.public.game_records_json(board, no)["records_list"]
    assert [F.record_from_json(r["rec"]) for r in shown] == recs[:half]
    assert server.public.bad_json()["forged"] == 0 and not server.pending


def test_the_halls_memory_bounds_what_every_chain_holds(tmp_path):
    # A relay spreads unproven records over many games: the hall's own bound stops it.
    from host_tools.hall import door as HI
    from host_tools.hall.state import Hall

    board, no, _, recs = _model_game(tmp_path)
    limits = HI.Limits(held_bytes=50_000)
    hall = Hall("h", None, boards={board: {"relay": "r1", "key": bytes(32)}}, limits=limits)
    raw = bytes(1000)
    for game in range(1, 40):
        for seq in range(1, 3):  # never record 0: nothing can be proven
            msg = F.event_payload(board, game, seq, recs[1], 1, raw, None)
            hall.handle(F.topic("h", board, F.EVENTS, "r1"), msg)
    assert hall.held_bytes <= 50_000 and hall.bad_json()["kinds"].get("bound", 0) > 0
    assert hall.bad_json()["kept"]["held_bytes"] == hall.held_bytes
