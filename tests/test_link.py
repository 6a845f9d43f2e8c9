"""The PC link (firmware/link/): framing, every command's reply, bad input, idempotency, HMAC,
and a fuzz of random and mutated lines while a game is played through ``Match``.

The server is driven as the board's task drives it: ``feed`` bytes, ``poll``, read the lines
written to ``out``. ``TENGEN_LINK_FUZZ`` sets the fuzz's line count (default 10,000;
``tests/host/test_link_fuzz.py`` runs 100,000 on MicroPython).
"""

import binascii
import json
import os

from firmware.clock.clock import BLACK, PAUSED, RUNNING, WHITE
from firmware.link import protocol as P
from firmware.link.hmac import equal, hmac_sha256
from firmware.link.server import CHUNK_MAX, LINES_PER_POLL, PIN_LOCK_MS, Server
from firmware.match import MOVED, Match
from firmware.sensing.grid import Sensing
from firmware.store import records as R
from firmware.store.journal import Journal, write_atomic
from tests.support import IS_MICROPYTHON, Rng
from tests.test_journal import HEADER, fresh_root
from tests.test_physical_replay import N, calibrated

SECRET = bytes(range(100, 132))
PIN = "4821"

_cal = []


def _calibrated():
    if not _cal:
        _cal.append(calibrated(3))
    grid, frame, cal = _cal[0]
    grid.clear()
    return grid, frame, cal


class Board:
    """A match on the simulated grid, a journal with a few games, a server, the host's view."""

    def __init__(self, games=3, time="cn-local"):
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
        self.srv = Server(
            self.match,
            self.journal,
            SECRET,
            out=self.out.append,
            now=lambda: self.t,
            board="TG-TEST",
            settings=self.settings,  # the board's settings, as firmware/board.py wires it
            save=self._save,
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
    assert b.ask("pair", pin="1234")["ok"]


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
    assert b.ask("pair", pin=PIN)["ok"]


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
    r = b.ask("pair", pin=PIN)
    assert r["secret"] == binascii.hexlify(SECRET).decode() and r["board"] == "TG-TEST"
    _err(b.ask("pair"), "missing")
    _err(b.ask("pair", pin=4821), "bad_type")


def test_wrong_pins_lock_the_protected_commands():
    b = Board(games=0)
    for _ in range(3):
        _err(b.ask("pair", pin="0000"), "bad_pin")
    _err(b.ask("pair", pin=PIN), "pin_locked")  # even the right one, for a while
    b.t += PIN_LOCK_MS
    assert b.ask("pair", pin=PIN)["ok"]


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
)
_BYTES = b'{}[]",:0123456789-.eE truefalsnul\\/\r\n\t\xff\xc3\x80'


def _fuzz_line(rng):
    # One line (with its newline, most of the time): random bytes, a template or a mutation.
    r = rng.below(10)
    if r == 0:
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
    not blank."""

    def __init__(self, max_line=P.MAX_LINE):
        self.max_line = max_line
        self.n = 0
        self.cur = b""
        self.long = False

    def add(self, data):
        pieces = data.split(b"\n")
        for i, piece in enumerate(pieces):
            if not self.long:
                self.cur += piece
                if len(self.cur) > self.max_line:
                    self.long = True
                    self.cur = b""
            if i < len(pieces) - 1:
                if self.long or self.cur.strip(b" \t\r"):
                    self.n += 1
                self.cur = b""
                self.long = False


class _Replies:
    """The server's ``out`` for the fuzz: each line checked and counted, none kept."""

    def __init__(self):
        self.replies = 0
        self.events = 0

    def __call__(self, line):
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        obj = json.loads(line)
        assert obj["v"] == 1
        if "event" in obj:
            self.events += 1
            return
        self.replies += 1
        assert obj["ok"] is True or (obj["ok"] is False and obj["error"] and obj["message"])
        assert obj["ok"] is False or "id" in obj


def test_fuzz_lines_while_a_game_is_played():
    total = int(os.getenv("TENGEN_LINK_FUZZ") or 10000)
    b = Board(games=2, time="fischer-30-30")
    b.settings["pin"] = PIN
    rng = Rng(2024)
    b.start()
    used = [0, 0, 0]
    expected = _Expected()
    got = _Replies()
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
