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

from firmware.store import records as R
from host_tools import feed as F
from host_tools import hall_proof as P
from tests.host import test_relay as TR
from tests.host.test_hall import ARBITER, get, start_hall, stop_hall
from tests.host.test_hall_browser import feed_sgf
from tests.host.test_relay import (
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

env = TR.env  # this test's folders
broker = TR.broker  # Mosquitto on a free port, users relay-r1, relay-r2, relay-inproc


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
    from host_tools import sync as S
    from host_tools.link import Link

    with Link(vb.link) as link:
        data, _, _ = S.fetch(link, 1)
    return S.decode(data)


def test_a_forged_record_loses_to_the_boards_proof(tmp_path, env, broker):
    vb = VBoard(tmp_path / "flash", seed=3)
    relay = hall = None
    try:
        setup_board(vb)
        pair_board(vb)  # the key, kept on this PC (TENGEN_CONFIG_DIR)
        said = _hall_keys(tmp_path, env, "--board", "%s=r1" % vb.board_id)
        assert "%s: relay r1, key registered" % vb.board_id in said
        assert oct((tmp_path / "boards.csv").stat().st_mode & 0o777) == "0o600"
        hall, url = start_hall(
            tmp_path, broker.port, "--boards", str(tmp_path / "boards.csv"), hall=HALL
        )
        vb.do("key pause")
        vb.play(OPENING[:4])  # even: finish() passes Black first
        real = _board_records(vb)
        k = next(i for i, r in enumerate(real) if r[0] == R.MOVE)  # the first move

        # The forger holds r1's password and publishes first: the first move moved.
        forged = list(real[: k + 1])
        forged[k] = real[k][:3] + (real[k][3] + 1,) + real[k][4:]
        r1 = F.relay_user("r1")
        for seq, rec in enumerate(forged):
            payload = F.event_payload(vb.board_id, 1, seq, rec, 1)
            publish(broker, F.topic(HALL, vb.board_id, F.EVENTS, "r1"), payload, user=r1)
        # Relay r2's credentials for r1's board: the hall refuses them.
        n = len(forged)
        bogus = F.event_payload(vb.board_id, 1, n, real[n], 1)
        publish(broker, F.topic(HALL, vb.board_id, F.EVENTS, "r2"), bogus, user="relay-r2")
        until(lambda: len(_game(url, vb.board_id).get("records", [])) == n, what="forgery")
        had = _game(url, vb.board_id)
        assert had["records"][k]["rec"]["point"] == forged[k][3]  # first wins, for now
        assert had["verified"] == P.PENDING
        until(
            lambda: get(url + "api/status", auth=ARBITER)[1]["bad"]["refused"] >= 1,
            what="r2 refused",
        )

        relay = RelayProc(broker, env, ports=[vb.link], name="r1")
        relay.wait_for("board %s on %s: following" % (vb.board_id, vb.link))
        until(lambda: len(_game(url, vb.board_id).get("records", [])) > n, what="real records")
        assert _game(url, vb.board_id)["records"][k]["rec"]["point"] == forged[k][3]
        vb.finish()
        until(
            lambda: _game(url, vb.board_id).get("verified") == P.VERIFIED,
            what="the game verified",
        )
        assert relay.stop() == 0
        relay = None

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
        assert game["records"][k]["rec"]["point"] == real[k][3]
        status = get(url + "api/status", auth=ARBITER)[1]
        assert status["bad"]["replaced"] == 1 and status["bad"]["conflicts"] >= 1
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
        until(lambda: _game(url, vb.board_id).get("verified") == P.VERIFIED, what="again")
        assert feed_sgf(url, vb.board_id, 1) == synced
    finally:
        if relay is not None:
            relay.kill()
        if hall is not None:
            stop_hall(hall)
        vb.close()


def test_a_board_without_a_key_is_shown_unverified(tmp_path, env, broker):
    vb = VBoard(tmp_path / "flash", seed=4)
    relay = hall = None
    try:
        setup_board(vb)
        _hall_keys(tmp_path, env, "--board", "%s=r1" % vb.board_id, "--no-key")
        hall, url = start_hall(
            tmp_path, broker.port, "--boards", str(tmp_path / "boards.csv"), hall=HALL
        )
        relay = RelayProc(broker, env, ports=[vb.link], name="r1")
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
    finally:
        if relay is not None:
            relay.kill()
        if hall is not None:
            stop_hall(hall)
        vb.close()


def test_the_register_and_the_cli_refuse_what_is_not_a_board(tmp_path, env):
    r = subprocess.run(
        [str(TENGEN), "hall-keys", str(tmp_path / "b.csv"), "--board", "never-paired"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2 and "not paired" in r.stderr
    from host_tools import hall_boards as HB

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
    from tests.host.test_hall import go_records

    recs = go_records(tmp_path)
    board = recs[0][1]["board_id"]
    data = bytes(R.pack(recs[0][1]["game_no"], recs))
    return board, recs[0][1]["game_no"], data, [F.record_from_json(F.record_json(r)) for r in recs]


def test_a_proof_that_does_not_hold_keeps_the_game_out_of_the_feed(tmp_path):
    from host_tools import verify as V
    from host_tools.hall_state import Hall

    board, no, data, recs = _model_game(tmp_path)
    key = bytes(range(32))
    hall = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    for seq, rec in enumerate(recs):
        hall.handle(F.topic("h", board, F.EVENTS, "r1"), F.event_payload(board, no, seq, rec, 1))
    hall.tick(1e12)
    assert hall.feed_sgf(board, no) and hall.games_json()[0]["verified"] == P.PENDING
    # From relay r2: refused, whatever it says.
    bad = F.proof_payload(board, no, data, V.mac(bytes(32), data))
    hall.handle(F.topic("h", board, F.PROOF, "r2"), bad)
    assert hall.refused == 1 and hall.games_json()[0]["verified"] == P.PENDING
    # Another key's HMAC from the right relay: FAILED, out of the feed, on disk too.
    hall.handle(F.topic("h", board, F.PROOF, "r1"), bad)
    assert hall.games_json()[0]["verified"] == P.FAILED
    assert hall.feed_sgf(board, no) is None and hall.feed_index() == []
    assert not (tmp_path / "feed" / board / ("%d.sgf" % no)).exists()
    again = Hall("h", tmp_path / "feed", boards={board: {"relay": "r1", "key": key}})
    again.load()
    assert again.games_json()[0]["verified"] == P.FAILED and again.feed_index() == []
    # The board's own proof: verified, back in the feed with its record inside.
    good = F.proof_payload(board, no, data, V.mac(key, data))
    hall.handle(F.topic("h", board, F.PROOF, "r1"), good)
    assert hall.games_json()[0]["verified"] == P.VERIFIED
    assert [e["verified"] for e in hall.feed_index()] == [P.VERIFIED]
    assert b"TG[" in hall.feed_sgf(board, no)
    hall.handle(F.topic("h", board, F.PROOF, "r1"), bad)  # too late: verified stays
    assert hall.games_json()[0]["verified"] == P.VERIFIED


def test_without_a_key_a_proof_proves_nothing(tmp_path):
    from host_tools.hall_state import Hall

    board, no, data, recs = _model_game(tmp_path)
    hall = Hall("h", tmp_path / "feed")
    for seq, rec in enumerate(recs):
        hall.handle(F.topic("h", board, F.EVENTS, "any"), F.event_payload(board, no, seq, rec, 1))
    hall.handle(F.topic("h", board, F.PROOF, "any"), F.proof_payload(board, no, data, "00"))
    assert hall.games_json()[0]["verified"] == P.UNVERIFIED
    assert hall.board_json(board)["verified"] == P.UNVERIFIED
