"""The PC link (firmware/link/): framing, every command's reply, bad input (invalid UTF-8 of
every kind), idempotency, HMAC, running out of memory, a fuzz of random and mutated lines while
a game is played through ``Match``, and a flood of settings requests.

The server is driven as the board's task drives it: ``feed`` bytes, ``poll``, read the lines
written to ``out``. ``TENGEN_LINK_FUZZ`` sets the fuzz's line count (default 10,000;
``tests/host/test_link_fuzz.py`` runs 100,000 on MicroPython), ``TENGEN_LINK_FLOOD`` the
flood's (default 3,000; 30,000 there, in a small heap). The game's modules (the match, the
sensing, the journal and their test helpers) are imported by the first ``Board``, so the flood
alone runs in a heap not much larger than the board's (``-X heapsize=``).
"""

import binascii
import json
import os

from firmware.clock.clock import BLACK, PAUSED, RUNNING, WHITE
from firmware.game import settings as S
from firmware.link import protocol as P
from firmware.link.hmac import equal, hmac_sha256
from firmware.link.server import CHUNK_MAX, LINES_PER_POLL, PIN_LOCK_MS, Server
from tests.support import IS_MICROPYTHON, Rng, skip

SECRET = bytes(range(100, 132))
PIN = "4821"

# Bound by _game_modules(): the game's side, ~200 KB of the unix port's heap.
MOVED = Match = Sensing = R = Journal = write_atomic = HEADER = fresh_root = None
N = calibrated = None
_cal = []


def _game_modules():
    global MOVED, Match, Sensing, R, Journal, write_atomic, HEADER, fresh_root, N, calibrated
    if Match is not None:
        return
    from firmware.game.match import MOVED, Match
    from firmware.sensing.grid import Sensing
    from firmware.store import records as R
    from firmware.store.journal import Journal, write_atomic
    from tests.test_journal import HEADER, fresh_root
    from tests.test_physical_replay import N, calibrated


def _calibrated():
    if not _cal:
        _cal.append(calibrated(3))
    grid, frame, cal = _cal[0]
    grid.clear()
    return grid, frame, cal


class Board:
    """A match on the simulated grid, a journal with a few games, a server, the host's view."""

    def __init__(self, games=3, time="cn-local"):
        _game_modules()
        self.grid, self.frame, cal = _calibrated()
        self.root = fresh_root(blocks=128)
        self.journal = Journal(self.root)
        for g in range(games):  # finished games, packed
            assert self.journal.begin(HEADER) == 0
            for k in range(1, 31 + g):
                self.journal.move(k, 1 + (k + 1) % 2, k, 1000 * k, (600000 - k, 0, 600000, 0))
            assert self.journal.result(1, 1, 0, 30 + g) == 0
        self.settings = {"game": "go19", "time": time, "pin": PIN}
        self.match = Match(self.settings, Sensing(N, cal), self.journal)
        self.t = 1000
        self.out = []
        self.saved = []
        self.reboot()

    def reboot(self):
        """A new server on the same flash (the board powered off and on)."""
        self.srv = Server(
            self.match,
            self.journal,
            SECRET,
            out=self.out.append,
            now=lambda: self.t,
            board="TG-TEST",
            settings=self.settings,  # the board's settings, as firmware/boot/board.py wires it
            save=self._save,
            pin_file=self.root + "/pinfails",
            paired_file=self.root + "/paired",
        )
        self.next_id = 1

    def _save(self, settings):
        self.saved.append(dict(settings))
        return write_atomic(self.root + "/settings.json", json.dumps(settings).encode())

    def frames(self, k):
        for _ in range(k):
            self.t += 50
            self.match.frame(self.grid.scan(self.frame), self.t)

    def start(self):
        self.frames(5)
        self.match.start(self.t, board_id="TG-TEST")

    def play(self, x, y, think=3000):
        side = self.match.clock.running
        self.grid.put(x, y, side)
        self.frames(4)
        self.t += think
        assert not self.match.tick(self.t)
        assert self.match.press(side, self.t) == MOVED
        return side

    def send(self, data):
        """Feed ``data`` (bytes) wholly, polling as the task does; the reply lines, parsed."""
        start = len(self.out)
        while data:
            n = self.srv.feed(data)
            data = data[n:]
            self.srv.poll()
        while self.srv.poll():
            pass
        return [json.loads(line) for line in self.out[start:]]

    def pair(self, pin=PIN):
        """``pair`` as the PC asks it: answered ``press_key`` (PAIR ? on the faces), MODE
        pressed at the board (the app calls ``press``), asked again; the last reply."""
        _err(self.ask("pair", pin=pin), "press_key")
        assert self.srv.press(self.t)
        return self.ask("pair", pin=pin)

    def ask(self, cmd, **fields):
        """One request; its one reply."""
        req = {"v": 1, "id": self.next_id, "cmd": cmd}
        req.update(fields)
        self.next_id += 1
        got = [r for r in self.send(P.dumps(req)) if "event" not in r]
        assert len(got) == 1, got
        assert got[0]["id"] == req["id"]
        return got[0]


def _err(reply, code):
    assert reply["ok"] is False and reply["error"] == code, reply
    assert isinstance(reply["message"], str) and reply["message"]


# ---- HMAC -------------------------------------------------------------------------------------


def test_hmac_sha256_rfc4231_vectors():
    cases = (
        (
            b"\x0b" * 20,
            b"Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        ),
        (
            b"Jefe",
            b"what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        ),
        (
            b"\xaa" * 131,
            b"Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        ),
    )
    for key, msg, want in cases:
        assert binascii.hexlify(hmac_sha256(key, msg)).decode() == want


def test_hmac_sha256_equals_cpython_hmac():
    if IS_MICROPYTHON:
        return  # no hmac module here: the RFC vectors above check this runtime
    import hashlib
    import hmac

    rng = Rng(5)
    for klen in (0, 1, 31, 32, 63, 64, 65, 100, 200):
        for mlen in (0, 1, 55, 56, 63, 64, 65, 1000, 5000):
            key = bytes(rng.below(256) for _ in range(klen))
            msg = bytes(rng.below(256) for _ in range(mlen))
            assert hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def test_equal_compares_whole_strings():
    assert equal(b"abcd", b"abcd") and not equal(b"abcd", b"abce")
    assert not equal(b"abc", b"abcd") and equal(b"", b"")


# ---- framing ----------------------------------------------------------------------------------


def test_framer_lines_crlf_blank_and_split():
    f = P.Framer()
    assert f.feed(b'{"a":1}\r\n  \r\n\n{"b"') == 18
    assert f.feed(b":2}\n") == 4
    assert [f.take(), f.take()] == [b'{"a":1}', b'{"b":2}']
    assert f.waiting() == 0


def test_framer_drops_a_too_long_line_to_its_newline():
    f = P.Framer(max_line=16)
    f.feed(b"x" * 10)
    f.feed(b"y" * 10)  # over 16: dropped from here
    f.feed(b"z" * 1000 + b"\nok\n")
    assert f.take() is P.TOO_LONG and f.take() == b"ok" and f.waiting() == 0
    f.feed(b"a" * 16 + b"\n")  # exactly the limit is kept
    assert f.take() == b"a" * 16


def test_framer_queue_is_bounded():
    f = P.Framer(max_queue=3)
    data = b"1\n" * 10
    n = f.feed(data)
    assert n == 6 and f.waiting() == 3
    f.take()
    assert f.feed(data[n:]) == 2 and f.waiting() == 3


# ---- commands ---------------------------------------------------------------------------------


def test_hello():
    b = Board(games=0)
    r = b.ask("hello")
    assert r["ok"] and r["v"] == 1 and r["proto"] == 1 and r["name"] == "tengen"
    assert r["board"] == "TG-TEST" and r["game"] == "go19" and isinstance(r["fw"], str)


def test_state_snapshot_of_a_game_being_played():
    b = Board(games=0)
    b.start()
    b.play(3, 3)
    b.play(15, 15)
    b.t += 1500
    r = b.ask("state")
    assert r["ok"] and r["game"] == "go19" and r["size"] == 19 and r["ply"] == 2
    assert r["moves"] == [3 << 5 | 3, 15 << 5 | 15] and r["colours"] == [BLACK, WHITE]
    assert r["to_move"] == BLACK and r["result"] == ""
    c = r["clock"]
    assert c["state"] == "running" and c["running"] == BLACK and c["elapsed"] == 1500
    assert c["clocks"] == list(b.match.clocks()) and c["flagged"] == 0


def test_watch_sends_moves_clock_and_result_events():
    b = Board(games=0)
    b.start()
    r = b.ask("watch", on=True)
    assert r["watching"] is True
    b.play(3, 3)
    b.srv.poll()
    ev = [json.loads(line) for line in b.out if b'"event"' in line]
    assert ev == [
        {
            "v": 1,
            "event": "move",
            "ply": 1,
            "colour": BLACK,
            "point": 3 << 5 | 3,
            "clocks": list(b.match.clocks()),
        }
    ]
    b.match.clock.pause(b.t)
    b.match.resign(WHITE, b.t)
    b.out.clear()
    b.srv.poll()
    ev = [json.loads(line) for line in b.out]
    assert [e["event"] for e in ev] == ["clock", "result"]
    assert ev[0]["state"] == "finished" and ev[1]["result"] == "B+R"
    b.srv.event("fault", {"where": "scan"})
    assert json.loads(b.out[-1]) == {"v": 1, "event": "fault", "where": "scan"}
    assert b.ask("watch", on=False)["watching"] is False
    b.out.clear()
    b.srv.event("fault")
    b.srv.poll()
    assert b.out == []


def test_list_get_and_ack_a_game_whole():
    b = Board(games=3)
    b.start()  # game 4 in progress
    b.play(3, 3)
    r = b.ask("list")
    games = r["games"]
    assert [g["no"] for g in games] == [1, 2, 3, 4] and r["more"] is False
    assert [g["finished"] for g in games] == [True, True, True, False]
    assert not any(g["acked"] for g in games)
    assert b.ask("list", after=1, limit=2)["games"][0]["no"] == 2
    assert b.ask("list", after=1, limit=2)["more"] is True
    want = b.journal.read(2)
    got = b""
    offset = 0
    while True:
        r = b.ask("get", game=2, offset=offset, length=40)
        assert r["ok"] and r["size"] == len(want) and r["offset"] == offset
        got += binascii.a2b_base64(r["data"])
        offset = len(got)
        if r["eof"]:
            break
    assert got == want
    assert r["crc"] == binascii.crc32(want) & 0xFFFFFFFF
    assert r["hmac"] == binascii.hexlify(hmac_sha256(SECRET, want)).decode()
    assert R.unpack(got)[0] == 2  # the packed form, as records.py reads it
    one = b.ask("get", game=2)
    assert one["eof"] and binascii.a2b_base64(one["data"]) == want
    _err(b.ask("get", game=9), "no_game")
    _err(b.ask("get", game=2, offset=len(want) + 1), "bad_value")
    _err(b.ask("get", game=2, length=CHUNK_MAX + 1), "bad_value")
    assert b.ask("ack", game=2) == {
        "v": 1,
        "id": b.next_id - 1,
        "ok": True,
        "game": 2,
        "acked": True,
    }
    assert b.ask("ack", game=2)["ok"]  # again, with a new id: still fine, written once
    assert b.journal.acked() == {2}
    _err(b.ask("ack", game=4), "not_finished")
    _err(b.ask("ack", game=77), "no_game")
    assert [g["acked"] for g in b.ask("list")["games"]] == [False, True, False, False]


def test_time_sets_the_calendar():
    b = Board(games=0)
    assert b.ask("time")["epoch"] is None
    set_to = []
    b.srv.set_rtc = set_to.append
    assert b.ask("time", epoch=1767225600)["epoch"] == 1767225600
    b.t += 61500
    assert b.srv.calendar() == 1767225661 and b.ask("time")["epoch"] == 1767225661
    assert set_to == [1767225600]
    _err(b.ask("time", epoch=-1), "bad_value")
    _err(b.ask("time", epoch="now"), "bad_type")


def test_settings_get_set_and_the_pin():
    b = Board(games=0)
    r = b.ask("settings")
    assert r["settings"] == {"game": "go19", "time": "cn-local"}  # the PIN is never shown
    r = b.ask("settings", set={"volume": 3, "time": "fischer-30-30"})
    assert r["settings"]["volume"] == 3 and b.saved[-1]["time"] == "fischer-30-30"
    assert json.loads(open(b.root + "/settings.json").read())["volume"] == 3
    _err(b.ask("settings", set={"pin": "1234"}), "missing")  # the old PIN is needed
    _err(b.ask("settings", set={"pin": "12a4"}, pin=PIN), "bad_value")
    _err(b.ask("settings", set={"x": 1.5}), "bad_type")
    _err(b.ask("settings", set=[1]), "bad_type")
    assert b.ask("settings", set={"pin": "1234"}, pin=PIN)["ok"]
    assert b.settings["pin"] == "1234" and b.saved[-1]["pin"] == "1234"
    _err(b.ask("pair", pin=PIN), "bad_pin")
    assert b.pair("1234")["ok"]


def test_settings_refuse_a_bad_value_whole_and_keep_what_was_saved():
    b = Board(games=0)
    assert b.ask("settings", set={"volume": 1})["ok"]
    before = dict(b.settings)
    saved = len(b.saved)
    file = open(b.root + "/settings.json").read()
    for changes, name in (
        ({"time": "45min"}, "time"),
        ({"game": "chess"}, "game"),
        ({"colour": "red"}, "colour"),
        ({"volume": 3, "time": "45min"}, "time"),  # all or nothing: volume stays 1
        ({"volume": 4}, "volume"),
        ({"handicap": True}, "handicap"),
        ({"game": "renju", "size": 19}, "size"),
        ({"black": "x" * 33}, "black"),
    ):
        r = b.ask("settings", set=changes)
        _err(r, "bad_value")
        assert r["message"].startswith(name + ": "), r
        assert b.settings == before and len(b.saved) == saved
        assert open(b.root + "/settings.json").read() == file
    r = b.ask("settings", set={"time": "45min"})
    assert "cn-national" in r["message"]  # the message lists the presets
    # a bad value next to a PIN change: the PIN is not changed either
    _err(b.ask("settings", set={"pin": "1234", "volume": 9}, pin=PIN), "bad_value")
    assert b.settings["pin"] == PIN
    assert b.pair()["ok"]


def test_settings_normalise_the_game_and_its_size():
    b = Board(games=0)
    held = b.settings
    r = b.ask("settings", set={"game": "go13"})
    assert r["settings"]["game"] == "go" and r["settings"]["size"] == 13, r
    assert b.settings is held and held["game"] == "go" and held["size"] == 13  # in place
    assert b.saved[-1]["size"] == 13 and "pin" not in r["settings"]
    r = b.ask("settings", set={"game": "renju"})
    assert (r["settings"]["game"], r["settings"]["size"]) == ("renju", 15)
    _err(b.ask("settings", set={"size": 13}), "bad_value")
    r = b.ask("settings", set={"game": "go"})
    assert (r["settings"]["game"], r["settings"]["size"]) == ("go", 19)
    assert b.settings["pin"] == PIN  # kept through every change


def test_pair_returns_the_secret_under_the_pin():
    b = Board(games=0)
    r = b.pair()
    assert r["secret"] == binascii.hexlify(SECRET).decode() and r["board"] == "TG-TEST"
    _err(b.ask("pair"), "missing")
    _err(b.ask("pair", pin=4821), "bad_type")


def test_wrong_pins_lock_the_protected_commands():
    b = Board(games=0)
    for _ in range(3):
        _err(b.ask("pair", pin="0000"), "bad_pin")
    _err(b.ask("pair", pin=PIN), "pin_locked")  # even the right one, for a while
    b.t += PIN_LOCK_MS
    assert b.pair()["ok"]


def test_guessing_the_pin_across_power_cycles_is_bounded():
    # As a cheater would (issue [O]): a restart after every third guess. The count is on
    # flash: a reboot restarts the wait from the boot, each wrong PIN doubles it.
    b = Board(games=0)
    tried = 0
    waited = 0
    for _ in range(6):
        for _ in range(3):
            r = b.ask("pair", pin="%04d" % tried)
            if r["ok"] or r["error"] == "pin_locked":
                break
            _err(r, "bad_pin")
            tried += 1
        b.t += 5000
        b.reboot()  # power off and on
        r = b.ask("pair", pin="%04d" % tried)
        _err(r, "pin_locked")  # the reboot did not end the wait
        while r.get("error") == "pin_locked":  # wait it out, as a patient cheater
            b.t += 60_000
            waited += 60_000
            r = b.ask("pair", pin="%04d" % tried)
        _err(r, "bad_pin")
        tried += 1
    assert tried == 3 + 6  # three free guesses, then one per wait
    assert waited >= PIN_LOCK_MS * (2**6 - 1)  # 1 + 2 + 4 + ... minutes: over an hour
    b.reboot()
    b.t += PIN_LOCK_MS << 10  # the longest wait (the clock wraps at 2**30 ms)
    _err(
        b.ask("pair", pin=PIN), "press_key"
    )  # the right PIN once the wait is over: the count goes
    _err(b.ask("pair", pin="0001"), "bad_pin")  # and three tries again


def test_delete_an_abandoned_game_under_the_pin():
    b = Board(games=1)
    b.journal.begin(HEADER)  # game 2, never finished: a live file
    b.journal.game_no = 0  # abandoned (as after a resume that did not take it)
    _err(b.ask("delete", game=2, pin="0000"), "bad_pin")
    assert b.ask("delete", game=2, pin=PIN)["deleted"] is True
    assert b.journal.read(2) is None
    assert b.ask("delete", game=2, pin=PIN)["deleted"] is False  # already gone
    _err(b.ask("delete", game=1, pin=PIN), "packed")
    b.start()
    _err(b.ask("delete", game=b.journal.game_no, pin=PIN), "in_progress")


def test_adjust_a_paused_clock_under_the_pin():
    b = Board(games=0)
    _err(b.ask("adjust", side=WHITE, main_ms=5000, pin=PIN), "no_game")
    b.start()
    b.play(3, 3)
    _err(b.ask("adjust", side=WHITE, main_ms=5000, pin=PIN), "running")
    b.match.clock.pause(b.t)
    _err(b.ask("adjust", side=3, main_ms=5000, pin=PIN), "bad_value")
    r = b.ask("adjust", side=WHITE, main_ms=5000, pin=PIN)
    assert r["clocks"][2] == 5000 and b.match.clock.main[WHITE] == 5000
    recs = b.journal.records(b.journal.game_no)
    assert recs[-1][0] == R.CLOCKS and recs[-1][2][2] == 5000 and recs[-2][0] == R.EDIT


def test_maintenance_pauses_the_game_and_raises_the_flag():
    b = Board(games=0)
    b.start()
    b.play(3, 3)
    _err(b.ask("maintenance", pin="1111"), "bad_pin")
    assert not b.srv.maintenance
    assert b.ask("maintenance", pin=PIN)["maintenance"] is True
    assert b.srv.maintenance and b.match.clock.state == PAUSED
    recs = b.journal.records(b.journal.game_no)
    assert recs[-1][0] == R.CLOCKS


# ---- bad input --------------------------------------------------------------------------------


def test_a_malformed_escape_is_bad_json_on_both_runtimes():
    # MicroPython's JSON reader makes some character of "\\uZZZZ" (U+23333) where CPython's
    # refuses it: the board answers bad_json, in UTF-8, as CPython would, wherever it stands.
    b = Board(games=1)
    for text in (b"\\uZZZZ", b"a\\u12", b"\\u-100", b"\\ud83d\\u", b"\\ug000"):
        for line in (
            b'{"v":1,"id":"%s","cmd":"hello"}\n' % text,
            b'{"v":1,"id":5,"cmd":"hello","x":"%s"}\n' % text,
        ):
            got = b.send(line)
            assert len(got) == 1, (line, got)
            _err(got[0], "bad_json")
    # An escaped backslash before a u is no escape: the request is answered.
    assert b.ask("hello", x="\\uZZZZ")["ok"]


def test_each_kind_of_bad_input_gets_a_clear_error():
    b = Board(games=1)
    cases = (
        (b"x" * 600 + b"\n", "too_long", None),
        (b"\xff\xfe{}\n", "bad_utf8", None),
        (b"{not json\n", "bad_json", None),
        (b"[1, 2]\n", "not_object", None),
        (b'{"v":1,"cmd":"hello"}\n', "missing", None),
        (b'{"v":1,"id":true,"cmd":"hello"}\n', "bad_id", None),
        (b'{"v":1,"id":-1,"cmd":"hello"}\n', "bad_id", None),
        (b'{"v":1,"id":[1],"cmd":"hello"}\n', "bad_id", None),
        (b'{"v":2,"id":5,"cmd":"hello"}\n', "bad_version", 5),
        (b'{"id":6,"cmd":"hello"}\n', "bad_version", 6),
        (b'{"v":1,"id":7}\n', "missing", 7),
        (b'{"v":1,"id":8,"cmd":3}\n', "bad_type", 8),
        (b'{"v":1,"id":9,"cmd":"launch"}\n', "unknown_cmd", 9),
        (b'{"v":1,"id":10,"cmd":"get"}\n', "missing", 10),
        (b'{"v":1,"id":11,"cmd":"get","game":"1"}\n', "bad_type", 11),
        (b'{"v":1,"id":12,"cmd":"get","game":true}\n', "bad_type", 12),
        (b'{"v":1,"id":13,"cmd":"get","game":1,"length":0}\n', "bad_value", 13),
        (b'{"v":1,"id":14,"cmd":"watch","on":1}\n', "bad_type", 14),
        (b'{"v":1,"id":"s","cmd":"list","limit":1000}\n', "bad_value", "s"),
    )
    for line, code, rid in cases:
        got = b.send(line)
        assert len(got) == 1, (line, got)
        _err(got[0], code)
        assert got[0].get("id") == rid, (line, got)
        assert got[0]["v"] == 1
    assert b.send(b"\r\n   \n\t\r\n") == []  # blank lines: keep-alives, no reply
    assert b.ask("hello")["ok"]  # and the link still works


# Invalid UTF-8 of every kind (RFC 3629 section 3 and its table of well-formed sequences).
# MicroPython's bytes.decode() takes all but the stray, truncated and never-used bytes and its
# JSON reader the rest, so the board must check them itself.
BAD_UTF8 = (
    (b"\xc0\xaf", "overlong /"),
    (b"\xc1\xbf", "overlong DEL"),
    (b"\xe0\x80\xaf", "overlong 3-byte /"),
    (b"\xe0\x9f\xbf", "overlong 3-byte U+07FF"),
    (b"\xf0\x80\x80\xaf", "overlong 4-byte /"),
    (b"\xf0\x8f\xbf\xbf", "overlong 4-byte U+FFFF"),
    (b"\xed\xa0\x80", "surrogate U+D800"),
    (b"\xed\xad\xbf", "surrogate U+DB7F"),
    (b"\xed\xb0\x80", "surrogate U+DC00"),
    (b"\xed\xbf\xbf", "surrogate U+DFFF"),
    (b"\xed\xa0\xbd\xed\xb8\x80", "surrogate pair as CESU-8"),
    (b"\xf4\x90\x80\x80", "U+110000"),
    (b"\xf7\xbf\xbf\xbf", "U+1FFFFF"),
    (b"\xf8\x88\x80\x80\x80", "5-byte form"),
    (b"\xfc\x84\x80\x80\x80\x80", "6-byte form"),
    (b"\x80", "stray continuation"),
    (b"\xbf", "stray continuation BF"),
    (b"\x80\x80", "two stray continuations"),
    (b"\xc3", "truncated 2-byte"),
    (b"\xe4\xb8", "truncated 3-byte"),
    (b"\xf0\x9f\x98", "truncated 4-byte"),
    (b"\xe4\xb8a", "3-byte cut by ASCII"),
    (b"\xfe", "FE"),
    (b"\xff", "FF"),
)
GOOD_UTF8 = (
    b"",
    b"plain ASCII \x00\x7f",
    b"\xc2\x80",  # U+0080
    b"\xdf\xbf",  # U+07FF
    b"\xe0\xa0\x80",  # U+0800
    b"\xed\x9f\xbf",  # U+D7FF, the last before the surrogates
    b"\xee\x80\x80",  # U+E000, the first after
    b"\xef\xbf\xbf",  # U+FFFF
    b"\xf0\x90\x80\x80",  # U+10000
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF, the last
    "黑方 李昌镐 五子棋".encode(),
    b"\xf0\xa0\x80\x80",  # U+20000, CJK extension B (some names need it)
)


def test_utf8_error_finds_every_kind_of_invalid_utf8():
    for good in GOOD_UTF8:
        assert P.utf8_error(good) == -1, good
        assert P.utf8_error(b"x" + good + b"y", 1, len(good) + 1) == -1, good
    for bad, what in BAD_UTF8:
        for pre, post in ((b"", b""), (b'{"a":"', b'"}'), ("é".encode(), b"z")):
            assert P.utf8_error(pre + bad + post) == len(pre), (what, pre)
    assert P.utf8_error(b"ab\xc3\xa9", 0, 3) == 2  # cut by ``end``: truncated there
    assert P.utf8_error(b"\xc3\xa9\x80") == 2  # a continuation after a whole character
    if not IS_MICROPYTHON:
        for bad, what in BAD_UTF8:  # CPython's decoder, the oracle, agrees
            try:
                bad.decode()
                raise AssertionError(what)
            except UnicodeDecodeError:
                pass


def test_utf8_error_agrees_with_cpython_on_random_bytes():
    if IS_MICROPYTHON:
        skip("CPython's decoder is the oracle; the table above checks this runtime")
    rng = Rng(77)
    lead = (0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE)
    lead += (0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFE, 0xFF)
    cont = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF)
    for a in lead:  # every boundary of the table, two bytes after each lead byte
        for b in cont:
            for c in cont:
                for d in (0x80, 0xBF, 0x41):
                    data = bytes((a, b, c, d))
                    assert P.utf8_error(data) == _first_bad_utf8(data), data
    for _ in range(20000):
        data = bytes(
            lead[rng.below(len(lead))] if rng.below(3) else rng.below(256)
            for _ in range(rng.below(12))
        )
        assert P.utf8_error(data) == _first_bad_utf8(data), data


def _first_bad_utf8(data):
    # The runtime's own decoder's answer: where the first bad byte is, or -1.
    try:
        data.decode()
    except UnicodeDecodeError as e:
        return e.start
    return -1


def test_join_surrogates_reads_escaped_pairs_as_cpython_does():
    line = b'{"a":"\\ud840\\udc00 \\\\ud800 \\u00e9","b":"\\uD83D\\uDE00"}'
    joined = P.join_surrogates(line)
    assert json.loads(joined) == {"a": "\U00020000 \\ud800 \u00e9", "b": "\U0001f600"}
    assert json.loads(joined)["a"].encode() == b"\xf0\xa0\x80\x80 \\ud800 \xc3\xa9"
    if not IS_MICROPYTHON:  # CPython's reader joins the pairs itself: the same
        assert json.loads(joined) == json.loads(line.decode())
    assert P.join_surrogates(b'{"a":"\\u00e9\\\\"}') == b'{"a":"\\u00e9\\\\"}'  # none: same
    for lone in (
        b'"\\ud800"',
        b'"\\udfff"',
        b'"\\udc00\\ud800"',
        b'"\\ud83d\\u0041"',
        b'"\\ud83d"',
        b'"\\ud83d',
    ):
        try:
            P.join_surrogates(lone)
            raise AssertionError(lone)
        except ValueError:
            pass


def test_find_id_reads_the_id_of_a_broken_line():
    cases = (
        (b'{"v":1,"id":7,"cmd":"\xff"}', 7),
        (b'{"v":1,"set":{"id":5},"id":"ab"}', "ab"),  # the top level's
        (b'{"id":1,"id":2}', 2),  # the last, as a JSON reader
        (b'  {"id" : 2147483647 }', 2147483647),
        (b'{"id":"\xe5\xaf\xb9\xe5\xb1\x80"}', "对局"),
        (b'{"x":"\\"id\\":3","id":4}', 4),
        (b'{"v":1,"id":5,"cmd":"hel', 5),  # cut short after the id
        (b'{"id":' + b'"' + b"x" * 32 + b'"}', "x" * 32),
        (b'{"id":2147483648}', None),
        (b'{"id":07}', None),
        (b'{"id":-1}', None),
        (b'{"id":1.5}', None),
        (b'{"id":1e3}', None),
        (b'{"id":true}', None),
        (b'{"id":"\xed\xa0\x80"}', None),  # not UTF-8: never echoed
        (b'{"id":"a\\"b"}', None),  # an escape: left to the JSON reader
        (b'{"id":"a\tb"}', None),  # a control character
        (b'{"id":' + b'"' + b"x" * 33 + b'"}', None),
        (b'{"id":5', None),  # cut inside the id: 5 or 57?
        (b'[{"id":1}]', None),
        (b'"id":1}', None),
        (b"", None),
    )
    for line, want in cases:
        assert P.request_id(line) == want, (line, P.request_id(line))
    # On lines a JSON reader takes, the same id (or none, for an id with an escape).
    rng = Rng(31)
    for _ in range(3000):
        line = _fuzz_line(rng).rstrip(b"\n").rstrip(b"\r")
        try:
            obj = json.loads(line.decode())
        except Exception:
            continue
        if isinstance(obj, dict) and "id" in obj:
            got = P.request_id(line)
            assert got is None or (got == obj["id"] and type(got) is type(obj["id"])), line


def _reply_ok(line):
    # One reply line: strict UTF-8 (CPython's decoder where there is one), one JSON object,
    # and no escaped surrogate in it either; returns the object.
    assert line.endswith(b"\n") and line.count(b"\n") == 1, line
    assert P.utf8_error(line) == -1, line
    if not IS_MICROPYTHON:
        line.decode()  # strict
    obj = json.loads(line)
    _strings_ok(obj)
    return obj


def _strings_ok(v):
    if isinstance(v, str):
        v.encode()  # CPython: a lone surrogate from a \u escape raises here
        assert P.utf8_error(v.encode()) == -1
    elif isinstance(v, dict):
        for k in v:
            _strings_ok(k)
            _strings_ok(v[k])
    elif isinstance(v, list):
        for x in v:
            _strings_ok(x)


def test_every_kind_of_invalid_utf8_is_refused_with_the_request_id():
    b = Board(games=0)
    rid = 100
    for bad, what in BAD_UTF8:
        for place in (
            b'{"v":1,"id":%d,"cmd":"hello%s"}',
            b'{"v":1,"id":%d,"cmd":"settings","set":{"black":"%s"}}',
            b'{"v":1,"id":%d,"cmd":"settings","set":{"%s":1}}',
            b'{"v":1,"id":%d,"cmd":"x","note":"%s',  # the line ends inside it
            b'{"v":1,"id":%d,%s"cmd":"hello"}',  # not even JSON there
        ):
            rid += 1
            line = place.replace(b"%d", b"%d" % rid).replace(b"%s", bad)
            start = len(b.out)
            got = b.send(line + b"\n")
            assert len(got) == 1, (what, line, got)
            for raw in b.out[start:]:
                _reply_ok(raw)
            _err(got[0], "bad_utf8")
            assert got[0]["id"] == rid, (what, line, got)
        # In a string id the id cannot be echoed: the reply has none.
        got = b.send(b'{"v":1,"id":"a%sb","cmd":"hello"}\n' % bad)
        _err(got[0], "bad_utf8")
        assert "id" not in got[0], (what, got)
    assert b.settings["black"] == "" if "black" in b.settings else True
    assert b.ask("hello")["ok"]


def test_lone_surrogate_escapes_are_refused_and_pairs_taken():
    b = Board(games=0)
    for i, esc in enumerate((b"\\ud800", b"\\uDFFF", b"\\udc00\\ud800", b"\\ud83dx", b"\\ud83d")):
        line = b'{"v":1,"id":%d,"cmd":"settings","set":{"black":"%s"}}\n' % (i + 1, esc)
        got = b.send(line)
        _err(got[0], "bad_utf8")
        assert got[0]["id"] == i + 1
        assert not b.saved
    for i, esc in enumerate((b"\\ud840\\udc00\\u674e", "\U00020000李".encode())):
        line = b'{"v":1,"id":%d,"cmd":"settings","set":{"black":"%s"}}\n' % (50 + i, esc)
        start = len(b.out)
        got = b.send(line)
        assert got[0]["ok"] and got[0]["id"] == 50 + i, got
        assert got[0]["settings"]["black"] == "\U00020000李"
        assert (
            _reply_ok(b.out[start])["settings"]["black"].encode()
            == b"\xf0\xa0\x80\x80\xe6\x9d\x8e"
        )
        assert b.settings["black"] == "\U00020000李"
    # Echoed text: an unknown command, a string id, in any script
    got = b.send('{"v":1,"id":"对局-1","cmd":"下棋\\ud83d\\ude00"}\n'.encode())
    _err(got[0], "unknown_cmd")
    assert got[0]["id"] == "对局-1" and got[0]["message"] == "unknown command: 下棋\U0001f600"
    _reply_ok(b.out[-1])


def test_an_error_reply_carries_the_id_when_the_line_has_one():
    b = Board(games=0)
    got = b.send(b'{"v":1,"id":5,"cmd":"hel\n')
    _err(got[0], "bad_json")
    assert got[0]["id"] == 5
    got = b.send(b'{"v":1,"id":"s-6","cmd":"hello"\n')
    _err(got[0], "bad_json")
    assert got[0]["id"] == "s-6"
    got = b.send(b'{"v":1,"id":7,"cmd":"settings","set":{"black":"' + b"x" * 600 + b'"}}\n')
    _err(got[0], "too_long")
    assert got[0]["id"] == 7
    got = b.send(b'{"v":1,"cmd":"settings","set":{"black":"' + b"x" * 600 + b'"},"id":8}\n')
    _err(got[0], "too_long")
    assert "id" not in got[0]  # past the bytes kept: not known
    assert b.ask("hello")["ok"]


def _failing(real, times):
    # ``real`` (a command), raising MemoryError the first ``times`` calls (-1: always).
    calls = [0]

    def command(srv, req):
        calls[0] += 1
        if times < 0 or calls[0] <= times:
            raise MemoryError("memory allocation failed")
        return real(srv, req)

    return command, calls


def test_a_memory_error_is_tried_again_then_answered_with_the_id():
    from firmware.link import server as SV

    b = Board(games=0)
    real = SV.COMMANDS["hello"]
    try:
        SV.COMMANDS["hello"], calls = _failing(real, 1)
        got = b.send(b'{"v":1,"id":61,"cmd":"hello"}\n')
        assert got[0]["ok"] and got[0]["id"] == 61 and calls[0] == 2  # the second try
        SV.COMMANDS["hello"], calls = _failing(real, -1)
        for line, rid in (
            (b'{"v":1,"id":62,"cmd":"hello"}', 62),
            ('{"v":1,"id":"对局","cmd":"hello"}'.encode(), "对局"),
            (b'{"v":1,"cmd":"hello","id":2147483647}', 2147483647),
            (
                b'{"v":1,"id":"' + "\U00020000".encode() * 32 + b'","cmd":"hello"}',
                "\U00020000" * 32,
            ),
        ):
            start = len(b.out)
            got = b.send(line + b"\n")
            assert len(got) == 1
            _err(got[0], "no_memory")
            assert got[0]["id"] == rid, got
            _reply_ok(bytes(b.out[start]))
        assert calls[0] == 8  # each tried twice
        assert b.srv.no_memory == 4 and not b.srv.faults  # not an internal fault
        got = b.send(b'{"v":1,"cmd":"hello"}\n')  # no id: "missing", as ever
        _err(got[0], "missing")
    finally:
        SV.COMMANDS["hello"] = real
    assert b.ask("hello")["ok"]
    assert b.send(b'{"v":1,"id":62,"cmd":"hello"}\n')[0]["ok"]  # not cached as failed


def test_the_no_memory_reply_allocates_nothing():
    if not IS_MICROPYTHON:
        skip("heap_lock is MicroPython's")
    import gc

    import micropython

    b = Board(games=0)
    for line, rid in (
        (b'{"v":1,"id":71,"cmd":"hello"}', 71),
        ('{"v":1,"id":"对局","cmd":"list"}'.encode(), "对局"),
        (b'{"v":1,"cmd":"hello"}', None),
        (b'{"v":1,"id":72,"cmd":"\xff"}', 72),
        (P.TOO_LONG, None),
    ):
        gc.collect()
        micropython.heap_lock()
        try:
            reply = b.srv.handle(line)
        finally:
            micropython.heap_unlock()
        obj = _reply_ok(bytes(reply))
        _err(obj, "no_memory")
        assert obj.get("id") == rid, obj
    assert b.ask("hello")["ok"]


def test_the_same_request_twice_gets_the_same_reply_once_done():
    b = Board(games=2)
    line = b'{"v":1,"id":42,"cmd":"ack","game":1}\n'
    first = b.send(line)
    b.journal.ack = None  # a second ack would now fail: it must not be carried out
    assert b.send(line) == first and first[0]["ok"]
    out = b.out[-1]
    assert b.out[-2] == out  # byte for byte
    del b.journal.ack  # the class's method again
    b.t += 5000
    s1 = b.send(b'{"v":1,"id":43,"cmd":"state"}\r\n')
    assert b.send(b'{"v":1,"id":43,"cmd":"state"}\r\n') == s1
    # The same id with other bytes is a new request.
    assert b.send(b'{"v":1,"id":43,"cmd":"hello"}\n')[0]["name"] == "tengen"


def test_a_flood_is_handled_a_few_lines_per_poll():
    b = Board(games=0)
    data = b'{"v":1,"id":1,"cmd":"hello"}\n' * 100
    taken = b.srv.feed(data)
    assert taken < len(data)  # the rest waits outside (the USB buffers)
    assert b.srv.poll() == LINES_PER_POLL and len(b.out) == LINES_PER_POLL
    assert b.send(data[taken:]) and len(b.out) == 100


def test_exceptions_in_a_command_or_the_output_are_contained():
    b = Board(games=0)
    b.srv.journal = None
    _err(b.ask("list"), "no_journal")

    def broken():
        raise OSError(5)

    b.srv.journal = b.journal
    b.journal.games = broken
    _err(b.ask("list"), "internal")

    def gone(data):
        raise OSError(5)

    b.srv.out = gone
    b.srv.feed(b'{"v":1,"id":1,"cmd":"hello"}\n')
    assert b.srv.poll() == 1 and b.srv.faults


# ---- fuzz -------------------------------------------------------------------------------------

_TEMPLATES = (
    b'{"v":1,"id":1,"cmd":"hello"}',
    b'{"v":1,"id":2,"cmd":"state"}',
    b'{"v":1,"id":3,"cmd":"list","after":0,"limit":5}',
    b'{"v":1,"id":4,"cmd":"get","game":1,"offset":0,"length":64}',
    b'{"v":1,"id":5,"cmd":"ack","game":2}',
    b'{"v":1,"id":6,"cmd":"time","epoch":1767225600}',
    b'{"v":1,"id":7,"cmd":"settings"}',
    b'{"v":1,"id":8,"cmd":"watch","on":true}',
    b'{"v":1,"id":9,"cmd":"adjust","side":1,"main_ms":1,"pin":"0000"}',
    b'{"v":1,"id":10,"cmd":"maintenance","pin":"0000"}',
    b'{"v":1,"id":11,"cmd":"delete","game":1,"pin":"0000"}',
    b'{"v":1,"id":"x","cmd":"pair","pin":"1234"}',
    b'{"v":1,"id":12,"cmd":"selftest","start":true}',
)
_BYTES = b'{}[]",:0123456789-.eE truefalsnul\\/\r\n\t\xff\xc3\x80'


def _fuzz_line(rng):
    # One line (with its newline, most of the time): random bytes, a template or a mutation.
    r = rng.below(12)
    if r >= 10:  # a template with invalid UTF-8 of one kind, or a lone surrogate escape
        line = _TEMPLATES[rng.below(len(_TEMPLATES))]
        if r == 10:
            put = BAD_UTF8[rng.below(len(BAD_UTF8))][0]
        else:
            put = (b"\\ud800", b"\\udfff", b"\\udbff\\u0041", b"\\ud840\\udc00")[rng.below(4)]
        quote = line.find(b'"', rng.below(len(line)))  # into a string (or anywhere)
        p = quote + 1 if quote >= 0 and rng.below(4) else rng.below(len(line) + 1)
        line = line[:p] + put + line[p:]
    elif r == 0:
        line = bytes(rng.below(256) for _ in range(rng.below(80)))
    elif r == 1:
        line = bytes(_BYTES[rng.below(len(_BYTES))] for _ in range(rng.below(60)))
    elif r == 2:
        line = b"[" * rng.between(1, 600)  # deep, and sometimes too long
    elif r == 3:
        line = _TEMPLATES[rng.below(len(_TEMPLATES))]
        line = line.replace(b'"id":', b'"id":%d' % rng.below(1 << 20) + b',"x":')
    else:
        line = _TEMPLATES[rng.below(len(_TEMPLATES))]
        for _ in range(rng.between(1, 4)):
            k = rng.below(8)  # 3: a random byte (mostly bad UTF-8), 1 in 8
            p = rng.below(len(line) + 1)
            if k == 0:
                put = b""  # a byte deleted
                q = p + 1
            elif k == 1 or k > 3:
                put = bytes([_BYTES[rng.below(len(_BYTES))]])
                q = p
            elif k == 2:  # a piece of the line repeated
                put = line[rng.below(len(line) + 1) :][: rng.below(40)]
                q = p
            else:
                put = bytes([rng.below(256)])
                q = p + rng.below(2)
            line = line[:p] + put + line[q:]
    if rng.below(20) == 0:
        line += b"\r"
    return line + (b"\n" if rng.below(50) else b"")


class _Expected:
    """The replies the framing rules promise for a byte stream, counted as it goes (split on
    newlines here, independently of ``Framer``): one per complete line that is too long or
    not blank; and for each, the id it must carry (``ids``, oldest first)."""

    def __init__(self, max_line=P.MAX_LINE):
        self.max_line = max_line
        self.n = 0
        self.cur = b""
        self.long = None  # the first max_line bytes of a line too long
        self.ids = []

    def add(self, data):
        pieces = data.split(b"\n")
        for i, piece in enumerate(pieces):
            if self.long is None:
                self.cur += piece
                if len(self.cur) > self.max_line:
                    self.long = self.cur[: self.max_line]
                    self.cur = b""
            if i < len(pieces) - 1:
                if self.long is not None:
                    self.n += 1
                    self.ids.append(P.request_id(self.long))
                elif self.cur.strip(b" \t\r"):
                    self.n += 1
                    self.ids.append(_want_id(self.cur))
                self.cur = b""
                self.long = None


def _want_id(line):
    # The id a reply to ``line`` must carry: the JSON reader's when the line is a request
    # object (strict UTF-8, escaped pairs joined), else the one find_id sees, if any.
    if line.endswith(b"\r"):
        line = line[:-1]
    obj = None
    if P.utf8_error(line) < 0:
        try:
            obj = json.loads(P.join_surrogates(line).decode())
        except Exception:
            obj = None
    if obj is None:
        return P.request_id(line)
    if not isinstance(obj, dict):
        return None
    rid = obj.get("id")
    if isinstance(rid, str):
        return rid if len(rid) <= 32 else None
    if isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 1 << 31:
        return rid
    return None


class _Replies:
    """The server's ``out`` for the fuzz: each line checked (strict UTF-8, JSON, never
    ``internal``, the id its request line holds) and counted, none kept."""

    def __init__(self, expected):
        self.expected = expected
        self.replies = 0
        self.events = 0
        self.codes = {}

    def __call__(self, line):
        obj = _reply_ok(bytes(line))
        assert obj["v"] == 1
        if "event" in obj:
            self.events += 1
            return
        self.replies += 1
        assert obj["ok"] is True or (obj["ok"] is False and obj["error"] and obj["message"])
        assert obj["ok"] is False or "id" in obj
        code = obj.get("error", "ok")
        assert code != "internal", obj
        self.codes[code] = self.codes.get(code, 0) + 1
        want = self.expected.ids.pop(0)
        assert obj.get("id") == want, (obj, want)


def test_fuzz_lines_while_a_game_is_played():
    total = int(os.getenv("TENGEN_LINK_FUZZ") or 10000)
    b = Board(games=2, time="fischer-30-30")
    b.settings["pin"] = PIN
    rng = Rng(2024)
    b.start()
    used = [0, 0, 0]
    expected = _Expected()
    got = _Replies(expected)
    b.srv.out = got
    points = [(x, y) for y in range(1, 18, 4) for x in range(1, 18, 2)]  # no captures
    per_move = total // len(points) + 1
    sent = 0
    for k, (x, y) in enumerate(points):
        side = b.match.clock.running
        t0 = b.t
        b.grid.put(x, y, side)
        for _ in range(per_move):
            if sent == total:
                break
            line = _fuzz_line(rng)
            expected.add(line)
            sent += 1
            data = line
            while data:
                n = b.srv.feed(data)
                data = data[n:]
                b.srv.poll()
            if sent % 64 == 0:
                b.frames(1)  # the scan goes on among the requests
        b.frames(4)
        b.t += 50 + rng.below(2000)
        assert b.match.press(side, b.t) == MOVED, (k, b.match.referee.why)
        used[side] += b.t - t0
    b.srv.feed(b"\n")  # ends a last line left open
    expected.add(b"\n")
    while b.srv.poll():
        pass
    assert not b.srv.faults, b.srv.faults
    assert b.match.clock.state == RUNNING and b.match.game.ply == len(points)
    assert b.match.clock.spent[BLACK] == used[BLACK] and b.match.clock.spent[WHITE] == used[WHITE]
    assert got.replies == expected.n and got.replies > total * 9 // 10
    assert got.codes.get("bad_utf8", 0) > total // 20, got.codes  # every kind, many times
    b.srv.out = b.out.append
    # The journal is whole: the game in progress has every move, the others are unchanged.
    recs = b.journal.records(b.journal.game_no)
    assert len([r for r in recs if r[0] == R.MOVE]) == len(points)
    assert [g for g, _, _, _ in b.journal.games()] == [1, 2, 3]
    assert b.ask("state")["ply"] == len(points)


def test_settings_take_true_and_false_on_both_runtimes():
    # MicroPython's True is not an int (CPython's is): the check must name bool itself.
    b = Board(games=0)
    r = b.ask("settings", set={"free_captures": True})
    assert r["ok"] and r["settings"]["free_captures"] is True, r
    assert b.ask("settings")["settings"]["free_captures"] is True


# ---- settings floods ---------------------------------------------------------------------------


class _Holder:
    # The app as the server sees it for settings: their dict, and a count of the changes.
    def __init__(self, settings):
        self.settings = settings
        self.changed = 0

    def settings_changed(self):
        self.changed += 1


_NAMES = ("李昌镐", "聂卫平", "Cho Chikun", "Ōhashi", "\U00020000\U0002a6d6", "")


def _flood_request(rng, rid, want):
    # One settings request of the flood: (line, the error code it must get or "ok"); a valid
    # change is also made in ``want``, the settings the board must then hold.
    r = rng.below(12)
    req = {"v": 1, "id": rid, "cmd": "settings"}
    code = "bad_value"
    if r == 0:  # a new key (not a setting), as the flood of the report
        req["set"] = {"k%06d" % rng.below(1 << 20): rng.below(1000)}
    elif r == 1:  # six new keys of text
        req["set"] = {"n%d_%05d" % (k, rng.below(99999)): "x" * 20 for k in range(6)}
    elif r == 2:  # an oversized key
        req["set"] = {"k" * rng.between(17, 400): 1}
    elif r == 3:  # an oversized value
        req["set"] = {
            ("black", "white", "event", "round", "table")[rng.below(5)]: "y" * rng.between(33, 400)
        }
    elif r == 4:  # too many keys at once
        req["set"] = {"s%d" % k: k for k in range(rng.between(25, 40))}
    elif r == 5:  # a known key, a value out of range
        req["set"] = {"volume": rng.between(4, 1 << 20)}
    elif r == 6:  # invalid UTF-8 in a key or a value
        bad = BAD_UTF8[rng.below(len(BAD_UTF8))][0]
        line = b'{"v":1,"id":%d,"cmd":"settings","set":{"%s":"%s"}}' % (
            rid,
            bad if rng.below(2) else b"event",
            b"v" if rng.below(2) else bad,
        )
        if line.count(bad) == 0:
            line = line.replace(b'"v"}', b'"' + bad + b'"}')
        return line, "bad_utf8"
    elif r == 7:  # a lone surrogate escape
        return b'{"v":1,"id":%d,"cmd":"settings","set":{"white":"a\\udc01"}}' % rid, "bad_utf8"
    elif r == 8:  # a line too long
        return b'{"v":1,"id":%d,"cmd":"settings","set":{"%s":1}}' % (rid, b"z" * 600), "too_long"
    elif r == 9:  # just read them
        code = "ok"
    else:  # valid changes, interleaved
        name = _NAMES[rng.below(len(_NAMES))]
        change = {"volume": rng.below(4), "black": name, "komi2": rng.between(-30, 60)}
        req["set"] = change
        want.update(change)
        code = "ok"
    return P.dumps(req)[:-1], code


def _flood(n, seed=4242):
    # A server on the board's full settings, flooded with ``n`` settings requests; the heap
    # (MicroPython) before and after, the number of valid changes.
    import gc

    settings = dict(S.DEFAULTS)
    holder = _Holder(settings)
    files = [b""]

    def save(new):
        files[0] = json.dumps(new).encode()  # what would be written: its bytes
        return True

    expected = _Expected()
    got = _Replies(expected)
    srv = Server(
        holder, None, SECRET, out=got, now=lambda: 1000, board="TG-F", save=save, settings=settings
    )
    rng = Rng(seed)
    want = dict(settings)
    mem = []
    for i in range(n):
        if i == min(200, n // 2):  # after a warm-up: the cache is full, strings interned
            gc.collect()
            mem.append(getattr(gc, "mem_free", lambda: 0)())
        line, code = _flood_request(rng, i + 1, want)
        data = line + b"\n"
        expected.add(data)
        before = dict(got.codes)
        while data:
            data = data[srv.feed(data) :]
            srv.poll()
        while srv.poll():
            pass
        assert got.replies == expected.n == i + 1, (i, line)
        after = [c for c in got.codes if got.codes[c] != before.get(c, 0)]
        assert after == [code], (line, code, after)
    gc.collect()
    mem.append(getattr(gc, "mem_free", lambda: 0)())
    assert not srv.faults and srv.no_memory == 0, srv.faults
    assert settings == want and json.loads(files[0]) == want
    assert sorted(settings) == sorted(S.DEFAULTS) and len(files[0]) <= S.MAX_BYTES
    assert len(srv.cache) <= 8 and srv.framer.waiting() == 0 and srv.framer.long_ids == []
    return mem, got.codes


def test_a_settings_flood_keeps_the_heap_and_every_id():
    # thousands of settings requests: new keys, oversized keys and values, invalid UTF-8,
    # lines too long, valid changes in between; every reply with its id, none "internal",
    # the settings only what they were plus the valid changes, the heap as it was.
    total = int(os.getenv("TENGEN_LINK_FLOOD") or 3000)
    mem, codes = _flood(total)
    for code in ("ok", "bad_value", "bad_utf8", "too_long"):
        assert codes.get(code, 0) > total // 20, codes
    if IS_MICROPYTHON:
        grown = mem[0] - mem[1]
        assert grown < 4096, "the heap grew by %d bytes over %d requests" % (grown, total)


def _fill_heap(chunks):
    # Allocate until nothing is left, into the preallocated list ``chunks``; how many.
    import gc

    j = 0
    size = gc.mem_free()
    while size >= 16 and j < len(chunks):
        try:
            chunks[j] = bytearray(size)
            j += 1
        except MemoryError:
            size //= 2
    return j


def test_a_nearly_full_heap_still_answers_every_request_with_its_id():
    # The request is queued, the heap filled but for 0 to 64 KB, and the server
    # polled: the reply is the right one or "no_memory", never "internal", always with its id.
    if not IS_MICROPYTHON:
        skip("a full heap is MicroPython's (-X heapsize)")
    import gc

    if gc.mem_free() + gc.mem_alloc() > 1 << 20:
        # Every collection sweeps the whole heap: in mp_run's 64 MB, minutes.
        skip("in a heap of at most 1 MB: tests/host/test_link_fuzz.py runs it in 384 KB")
    holder = _Holder(dict(S.DEFAULTS))
    sink = bytearray(1024)
    size = [0]

    def out(data):  # allocates nothing: a copy into ``sink``
        n = len(data)
        for k in range(n):
            sink[k] = data[k]
        size[0] = n

    srv = Server(holder, None, SECRET, out=out, now=lambda: 1000, save=lambda new: True)
    cases = (
        (b'{"v":1,"id":%d,"cmd":"hello"}', "ok"),
        (b'{"v":1,"id":%d,"cmd":"settings"}', "ok"),
        (b'{"v":1,"id":%d,"cmd":"settings","set":{"volume":1,"black":"\xe6\x9d\x8e"}}', "ok"),
        (b'{"v":1,"id":%d,"cmd":"settings","set":{"colour":"red"}}', "bad_value"),
        (b'{"v":1,"id":%d,"cmd":"list"}', "no_journal"),
        (b'{"v":1,"id":%d,"cmd":"hello\xed\xa0\x80"}', "bad_utf8"),
        (b'{"v":1,"id":%d,"cmd":"hel', "bad_json"),
    )
    rng = Rng(99)
    chunks = [None] * 400
    codes = {}
    for i in range(400):
        template, code = cases[i % len(cases)]
        line = template.replace(b"%d", b"%d" % (i + 1)) + b"\n"
        assert srv.feed(line) == len(line)
        j = _fill_heap(chunks)
        gap = rng.below(1 << rng.between(8, 16))  # the smallest chunks freed: the server's
        while j > 0 and gap > 0:
            j -= 1
            gap -= len(chunks[j])
            chunks[j] = None
        size[0] = 0
        srv.poll()
        for k in range(len(chunks)):
            chunks[k] = None
        gc.collect()
        reply = _reply_ok(bytes(sink[: size[0]]))
        if reply.get("message") == "settings: more than %d bytes" % S.MAX_BYTES:
            # firmware/game/settings.py's _size_of takes a MemoryError for a size over the bound
            # (its ``except Exception``): the settings are refused, wrongly said too big.
            reply["error"] = "no_memory"
        assert reply.get("error", "ok") in (code, "no_memory"), (line, reply)
        assert reply["id"] == i + 1, (line, reply)
        codes[reply.get("error", "ok")] = codes.get(reply.get("error", "ok"), 0) + 1
    assert codes.get("no_memory", 0) > 10 and codes.get("ok", 0) > 10, codes
    assert holder.settings["black"] == "李" and not srv.faults, (codes, srv.faults)
