"""A paired board obeys only its PC (issue [O]), on both runtimes: the link's signed commands
(firmware/link/server.py's header says the form) and pairing under a new PIN and a key press.

Tried as someone on the USB port without the key would: every command that changes the
board's state or records, unsigned, signed with another key, signed for the boot before a
power cycle, replayed in the same boot, altered after signing; each refused with its own code
and nothing changed. The reads stay open. Pairing is refused on the factory PIN and without
the press at the board; ``BoardRig`` (the whole board, ``firmware/boot/board.py``'s ``build`` on
the virtual hardware) shows ``PAIR ?`` on the faces' glass and takes the MODE key, and keeps
the pairing across a power cycle.
"""

import binascii
import json

from firmware.link import protocol as P
from firmware.link.hmac import hmac_sha256
from firmware.link.server import _OPEN, COMMANDS, PAIR_MS
from tests.test_link import PIN, SECRET, Board, _err

# Every command that changes the board or its records, with fields it could take.
CHANGES = (
    ("ack", {"game": 1}),
    ("time", {"epoch": 1767225600}),
    ("settings", {"set": {"komi2": 13}}),
    ("delete", {"game": 2, "pin": PIN}),
    ("adjust", {"side": 2, "main_ms": 5000, "pin": PIN}),
    ("maintenance", {"pin": PIN}),
    ("start", {}),
    ("move", {"ply": 0, "point": 3 << 5 | 3}),
    ("resign", {"side": 2}),
    ("undo", {"ply": 0}),
    ("clock", {"side": 2, "ms": 1000}),
    ("dead", {"points": []}),
    ("confirm", {}),
    ("selftest", {"start": True}),
)
REFUSALS = ("need_mac", "bad_mac", "replayed")


def _line(b, cmd, fields, seq=None):
    # A request line as the PC writes it, with ``seq`` if given (without its newline).
    req = {"v": 1, "id": b.next_id, "cmd": cmd}
    req.update(fields)
    if seq is not None:
        req["seq"] = seq
    b.next_id += 1
    return P.dumps(req)[:-1]


def sign(line, nonce, key=SECRET):
    """``line`` (a request without its newline) signed as host_tools/common/link.py signs it."""
    body = line[:-1]  # the closing brace: the mac goes before it
    mac = binascii.hexlify(hmac_sha256(key, nonce + body))
    return body + b',"mac":"' + mac + b'"}'


def _one(b, line):
    got = [r for r in b.send(line + b"\n") if "event" not in r]
    assert len(got) == 1, got
    return got[0]


def _nonce(b):
    return b.ask("hello")["nonce"].encode()


def _paired(games=3):
    b = Board(games=games)
    assert b.ask("hello")["paired"] is False
    assert b.pair()["ok"]
    hello = b.ask("hello")
    assert hello["paired"] is True and hello["seq"] == 0 and len(hello["nonce"]) == 16
    return b


def test_every_command_is_a_read_or_signed():
    # A command added later is not open by mistake: it is either a read or in CHANGES.
    names = [c for c, _ in CHANGES]
    for cmd in COMMANDS:
        assert (cmd in _OPEN) != (cmd in names), cmd


def test_an_unpaired_board_takes_every_command_unsigned():
    b = Board()
    assert b.ask("ack", game=1)["acked"] is True
    assert b.ask("settings", set={"komi2": 13})["settings"]["komi2"] == 13
    for cmd, fields in CHANGES:
        r = _one(b, _line(b, cmd, fields))
        assert r["ok"] or r["error"] not in REFUSALS, (cmd, r)


def test_a_paired_board_refuses_each_change_without_its_key():
    b = _paired()
    nonce = _nonce(b)
    for cmd, fields in CHANGES:
        _err(_one(b, _line(b, cmd, fields)), "need_mac")
        other = bytes(32)  # another key
        _err(_one(b, sign(_line(b, cmd, fields, seq=1), nonce, other)), "bad_mac")
        _err(_one(b, sign(_line(b, cmd, fields, seq=1), b"0" * 16)), "bad_mac")  # a guess
    # Nothing was done: the game not acknowledged, the settings and the time as they were.
    assert [g["acked"] for g in b.ask("list")["games"]] == [False, False, False]
    assert "komi2" not in b.ask("settings")["settings"]
    assert b.ask("time")["epoch"] is None
    assert not b.srv.maintenance and b.srv.seq == 0
    # With the key, each is taken (or refused for its own reasons: no app here).
    seq = 0
    for cmd, fields in CHANGES:
        seq += 1
        r = _one(b, sign(_line(b, cmd, fields, seq=seq), nonce))
        assert r["ok"] or r["error"] not in REFUSALS, (cmd, r)
    assert b.ask("list")["games"][0]["acked"] is True
    assert b.ask("settings")["settings"]["komi2"] == 13
    assert b.ask("time")["epoch"] == 1767225600
    assert b.srv.maintenance and b.ask("hello")["seq"] == len(CHANGES)


def test_reads_stay_open_on_a_paired_board():
    b = _paired()
    assert b.ask("hello")["ok"] and b.ask("state")["ok"]
    assert len(b.ask("list")["games"]) == 3
    assert b.ask("get", game=1)["size"] > 0
    assert b.ask("watch", on=True)["watching"] and b.ask("watch", on=False)["ok"]
    assert b.ask("settings")["settings"]["game"] == "go19"
    assert b.ask("settings", set={})["ok"]  # nothing to set: a read
    assert b.ask("time")["ok"]
    assert b.pair()["ok"]  # pairing again: the PIN and the press, no key needed


def test_a_signed_request_is_taken_once_and_its_resend_gets_the_same_reply():
    b = _paired()
    nonce = _nonce(b)
    ack = sign(_line(b, "ack", {"game": 1}, seq=1), nonce)
    first = _one(b, ack)
    assert first["acked"] is True
    assert _one(b, ack) == first  # the link's resend (same id, same bytes): the cached reply
    _err(_one(b, sign(_line(b, "ack", {"game": 2}, seq=1), nonce)), "replayed")  # seq 1 again
    assert not b.ask("list")["games"][1]["acked"]
    for _ in range(8):  # the reply cache moves on
        b.ask("hello")
    _err(_one(b, ack), "replayed")  # the very line again, later: refused
    assert _one(b, sign(_line(b, "ack", {"game": 2}, seq=7), nonce))["acked"]  # gaps are fine
    _err(_one(b, sign(_line(b, "ack", {"game": 3}, seq=5), nonce)), "replayed")  # not below
    assert b.ask("hello")["seq"] == 7


def test_a_line_signed_before_a_power_cycle_is_refused_after_it():
    b = _paired()
    nonce = _nonce(b)
    settings = sign(_line(b, "settings", {"set": {"komi2": 13}}, seq=1), nonce)
    assert _one(b, settings)["ok"]
    kept = sign(_line(b, "ack", {"game": 1}, seq=2), nonce)  # signed, never sent
    b.reboot()  # the board off and on: its pairing is on flash, its nonce new
    hello = b.ask("hello")
    assert hello["paired"] is True and hello["seq"] == 0 and hello["nonce"].encode() != nonce
    _err(_one(b, settings), "bad_mac")  # the cache is gone with the power: refused
    _err(_one(b, kept), "bad_mac")
    _err(_one(b, _line(b, "ack", {"game": 1})), "need_mac")
    assert not b.ask("list")["games"][0]["acked"]
    new = hello["nonce"].encode()
    assert _one(b, sign(_line(b, "ack", {"game": 1}, seq=1), new))["acked"]


def test_the_mac_covers_the_whole_line_and_nothing_else_passes():
    b = _paired()
    nonce = _nonce(b)
    good = sign(_line(b, "ack", {"game": 1}, seq=1), nonce)
    altered = good.replace(b'"game":1', b'"game":2')  # another game, the same mac
    _err(_one(b, altered), "bad_mac")
    upper = good[:-66] + good[-66:-2].upper() + good[-2:]
    _err(_one(b, upper), "bad_mac")
    spaced = good[:-1] + b" }"  # anything after the mac
    _err(_one(b, spaced), "bad_mac")
    body = _line(b, "ack", {"game": 1}, seq=1)  # the mac first, then the rest: not the form
    mac = binascii.hexlify(hmac_sha256(SECRET, nonce + body[:-1]))
    _err(_one(b, b'{"mac":"' + mac + b'",' + body[1:]), "bad_mac")
    _err(_one(b, sign(_line(b, "ack", {"game": 1}), nonce)), "missing")  # no seq
    _err(_one(b, sign(_line(b, "ack", {"game": 1}, seq="1"), nonce)), "bad_type")
    _err(_one(b, sign(_line(b, "ack", {"game": 1}, seq=0), nonce)), "bad_value")
    assert not b.ask("list")["games"][0]["acked"] and b.srv.seq == 0
    assert _one(b, good)["acked"]  # the untouched line


def test_pairing_wants_a_new_pin_then_the_press_at_the_board():
    b = Board(games=0)
    b.settings["pin"] = "0000"  # as the board leaves the factory
    _err(b.ask("pair", pin="0000"), "factory_pin")
    _err(b.ask("pair", pin="1111"), "bad_pin")  # the PIN first: a guess learns nothing
    assert b.ask("settings", set={"pin": "2580"}, pin="0000")["ok"]
    assert not b.srv.press(b.t)  # a press nobody asked for
    _err(b.ask("pair", pin="2580"), "press_key")
    b.t += 1000
    _err(b.ask("pair", pin="2580"), "press_key")  # no press: still waiting
    b.t += PAIR_MS
    assert not b.srv.press(b.t)  # too late: it lapsed
    _err(b.ask("pair", pin="2580"), "press_key")  # asked anew
    assert b.srv.press(b.t + 1000) and not b.srv.press(b.t + 1100)  # taken once
    assert b.ask("hello")["paired"] is False
    r = b.ask("pair", pin="2580")
    assert r["secret"] == binascii.hexlify(SECRET).decode()
    assert b.ask("hello")["paired"] is True
    _err(b.ask("pair", pin="2580"), "press_key")  # each pairing its own press
    b.t += 2 * PAIR_MS
    b.reboot()
    assert b.ask("hello")["paired"] is True  # kept on flash
    _err(b.ask("settings", set={"komi2": 13}), "need_mac")


def test_a_new_board_pairs_at_its_keys_and_obeys_only_the_key_then():
    # The whole board as it leaves the factory (BoardRig), its glass read back.
    from firmware.store.journal import read_file
    from tests.rig import BoardRig

    rig = BoardRig()
    assert rig.ask("pair", pin="0000")["error"] == "factory_pin"
    assert rig.ask("settings", set={"pin": "2580"}, pin="0000")["ok"]
    r = rig.ask("pair", pin="2580")
    assert r["error"] == "press_key"
    rig.run(100)
    assert rig.seen("b") == rig.seen("w") == "PAIR  ?", rig.seen("b")
    rig.key("pause")  # not the key asked for: nothing
    assert rig.ask("pair", pin="2580")["error"] == "press_key"
    rig.key("mode")
    assert rig.seen("b") == "OK" and rig.heard()[-1:] == ["CONFIRM"]
    r = rig.ask("pair", pin="2580")
    assert r["ok"] and r["board"] == rig.hw.board_id and len(r["secret"]) == 64
    key = binascii.unhexlify(r["secret"])  # what the PC keeps (host_tools/common/keys.py)
    assert read_file(rig.root + "/paired") is not None
    _err(rig.ask("settings", set={"komi2": 13}), "need_mac")
    rig = BoardRig(root=rig.root)  # the board off and on: still paired
    assert rig.ask("hello")["paired"] is True
    _err(rig.ask("settings", set={"komi2": 13}), "need_mac")
    # The PC that holds the key: a signed request, as host_tools/common/link.py sends it.
    nonce = rig.ask("hello")["nonce"].encode()
    line = P.dumps({"v": 1, "id": 900, "cmd": "settings", "set": {"komi2": 13}, "seq": 1})
    start = len(rig.link.data)
    rig.server.feed(sign(line[:-1], nonce, key) + b"\n")
    while rig.server.poll():
        pass
    reply = json.loads(rig.link.data[start:].decode().strip().split("\n")[-1])
    assert reply["ok"] and reply["settings"]["komi2"] == 13, reply
