"""The board's settings (firmware/game/settings.py): every value checked, changes all or nothing,
and ``load`` turning whatever /settings.json holds into settings the board can boot with.

The fuzz (``TENGEN_SETTINGS_FUZZ`` inputs, default 2,000) feeds random and mutated bytes to
``load`` and random changes to ``apply``; whatever comes out must make a game
(``firmware.game.match.new_game``) and a clock (``control.PRESETS``).
"""

import json
import os

from firmware.clock import control
from firmware.game import settings as S
from firmware.game.match import new_game
from tests.support import IS_MICROPYTHON, Rng

PRESET = sorted(control.PRESETS)[0]

# For each setting: values it takes, values it refuses (True is no int, 19.0 no size).
VALID = {
    "game": ("go", "renju", "standard", "freestyle", "go19", "go13", "go9"),
    "size": (9, 13, 15, 19),
    "rules": ("1988", "1979", "taiwan", "national"),
    "ko": ("simple", "chinese", "positional", "situational"),
    "komi2": (-30, -1, 0, 11, 15, 60),
    "free_captures": (True, False),
    "handicap": (0, 1, 2, 9),
    "opening": ("free", "designated"),
    "offers": (1, 5, 10),
    "claims": ("auto", "claim"),
    "captures": (0, 1, 2),
    "time": tuple(sorted(control.PRESETS))
    + ("absolute/600", "byoyomi/600/5/30", "canadian/0/25/600", "fischer/300/10"),
    "volume": (0, 1, 2, 3),
    "voice": ("zh", "en", "off"),
    "pin": ("0000", "1234", "9999"),
    "late_factor": (1, 2, 3),
    "remote": (0, 1, 2),
    "off_charged": (True, False),
    "black": ("", "Nie Weiping", "聂卫平", "x" * 32),
    "white": ("", "Cho Hunhyun"),
    "event": ("", "第1届应氏杯"),
    "round": ("", "3"),
    "table": ("", "12"),
}
INVALID = {
    "game": ("chess", "Go", "go18", "go 19", "", 1, None, True),
    "size": (0, 8, 10, 14, 21, 19.0, True, "19", None),
    "rules": ("1989", "japanese", "", 1988, None),
    "ko": ("none", "superko", "", 0, None),
    "komi2": (-31, 61, 7.5, "11", True, False, None),
    "free_captures": (0, 1, "true", "yes", None),
    "handicap": (-1, 10, 2.0, "2", True, None),
    "opening": ("swap", "", 0, None),
    "offers": (0, 11, "10", True, None),
    "claims": ("manual", "", False, None),
    "captures": (-1, 3, "refuse", True, None),
    "time": ("45min", "", "CN-NATIONAL", 45, True, None, "byoyomi/600/5", "byoyomi/600/5/5")
    + ("absolute/0", "absolute/-1", "absolute/ 60", "fischer/1/2/3", "absolute/" + "9" * 30),
    "volume": (-1, 4, 2.0, "2", True, False, None),
    "voice": ("cn", "ZH", "fr", "", 0, True, None),
    "pin": ("123", "12345", "12a4", "１２３４", " 123", 1234, True, None),
    "late_factor": (0, 4, 1.5, True, None),
    "remote": (-1, 3, "white", True, None),
    "off_charged": (0, 1, "true", "charged", None),
    "black": ("x" * 33, "tab\there", "line\n", "\x7f", 1, True, None),
    "white": ("y" * 40, 0),
    "event": (None, False),
    "round": (3, "r\r"),
    "table": (12, ["a"]),
}
GAMES = {"go": (9, 13, 19), "renju": (15,), "standard": (15,), "freestyle": (15,)}


def _bootable(s):
    # What the board does with settings at boot: a game and a clock from them.
    for k, v in s.items():
        assert S.check(k, v) is None, (k, v)
    assert s["game"] in GAMES and s["size"] in GAMES[s["game"]], s
    game = new_game(s)
    assert game.board.size == s["size"], s
    assert control.lookup(s["time"]) is not None


def _full(s):
    assert sorted(s) == sorted(S.DEFAULTS), s


# ---- the values ---------------------------------------------------------------------------------


def test_the_defaults_are_go_19_under_the_1988_rules():
    want = {
        "game": "go",
        "size": 19,
        "rules": "1988",
        "ko": "chinese",
        "komi2": 11,
        "free_captures": True,
        "handicap": 0,
        "opening": "designated",
        "offers": 10,
        "claims": "auto",
        "captures": 0,
        "time": "cn-national",
        "volume": 2,
        "voice": "zh",  # the count spoken in the rule texts' own words (000 第十二条)
        "pin": "0000",
        "late_factor": 1,
        "remote": 0,
        "off_charged": False,  # a power cut's off-time is not charged (checkpoint.py)
        "black": "",
        "white": "",
        "event": "",
        "round": "",
        "table": "",
    }
    assert S.DEFAULTS == want
    _bootable(S.DEFAULTS)
    assert S.load(None) == (want, [])  # a new board: defaults, nothing to say
    assert S.load(None)[0] is not S.DEFAULTS


def test_the_copies_agree_with_their_sources():
    from firmware.referee import referee
    from firmware.rules import go, go_count, gomoku
    from firmware.ui import menus

    assert S.VARIANTS == gomoku.VARIANTS
    assert S.KO_RULES == tuple(k for k in go.KO_RULES if k != "none")
    assert S.KOMI_1988 == go_count.KOMI_1988 == S.DEFAULTS["komi2"]
    assert (referee.REFUSE, referee.WARN, referee.ALLOW) == (0, 1, 2)
    assert S.DEFAULTS["captures"] == referee.REFUSE
    assert S.TIMES == tuple(sorted(control.PRESETS))
    assert S.RULES == tuple(r[0] for r in menus.RULES)
    assert S.DEFAULTS["opening"] in gomoku.OPENINGS
    assert S.DEFAULTS["claims"] in gomoku.CLAIM_MODES
    # one source of defaults: the menu's are these, as a new dict each time
    d = menus.defaults()
    assert d == S.DEFAULTS and d is not S.DEFAULTS
    d["volume"] = 0
    assert S.DEFAULTS["volume"] == 2
    # the menu's ranges stay inside the settings' own
    assert menus.KOMI_MAX <= 60 and menus.HANDICAP_MAX == 9
    assert menus.OFFERS_MAX == 10 and menus.VOLUME_MAX == 3
    assert menus.GO_TIME in control.PRESETS and menus.GOMOKU_TIME in control.PRESETS


def test_game_keys_are_all_but_volume_voice_pin_and_the_off_time_rule():
    # off_charged is the arbiter's rule for the board, read when a game resumes after a cut;
    # the voice is the board's too (its file is on the board's flash).
    board = ("volume", "voice", "pin", "off_charged")
    assert sorted(S.GAME_KEYS) == sorted(k for k in S.DEFAULTS if k not in board)
    part = S.game_part(S.DEFAULTS)
    assert (
        "volume" not in part
        and "voice" not in part
        and "pin" not in part
        and "off_charged" not in part
    )
    assert part["time"] == "cn-national" and part["black"] == ""
    assert S.game_part({"game": "renju", "pin": "1111"}) == {"game": "renju"}


def test_every_setting_takes_its_values_and_refuses_others():
    assert sorted(VALID) == sorted(S.DEFAULTS) == sorted(INVALID)
    for name, values in VALID.items():
        for v in values:
            assert S.check(name, v) is None, (name, v)
    for name, values in INVALID.items():
        for v in values:
            msg = S.check(name, v)
            assert isinstance(msg, str) and msg.startswith(name + ": "), (name, v, msg)
            assert len(msg) <= 240, msg


def test_the_messages_say_what_is_wrong():
    assert S.check("game", "chess") == "game: chess is not one of go, renju, standard, freestyle"
    msg = S.check("time", "45min")
    assert msg.startswith("time: 45min is not a preset (") and "cn-national" in msg
    assert "byoyomi/600/5/30" in msg
    for name in control.PRESETS:
        assert name in msg
    assert S.check("colour", "red") == "colour: not a setting"
    assert S.check("volume", True) == "volume: true is not an integer from 0 to 3"
    assert S.check("voice", "fr") == "voice: fr is not one of zh, en, off"
    assert S.check("komi2", 99) == "komi2: 99 is not an integer from -30 to 60"
    assert S.check("free_captures", 1) == "free_captures: 1 is not true or false"
    assert "12a4" not in S.check("pin", "12a4")  # a mistyped PIN is not repeated
    assert len(S.check("black", "z" * 5000)) < 80
    assert "..." in S.check("game", "q" * 5000)
    assert len(S.check("volume", 10**300)) < 80
    assert S.check(5, 5) == "5: not a setting"
    assert S.check(None, 5) == "null: not a setting"


# ---- apply ------------------------------------------------------------------------------------


def test_apply_changes_and_leaves_the_current_dict_alone():
    cur = dict(S.DEFAULTS)
    new, errors = S.apply(cur, {"volume": 0, "time": "quick", "black": "Ke Jie"})
    assert errors == [] and cur == S.DEFAULTS
    assert new["volume"] == 0 and new["time"] == "quick" and new["black"] == "Ke Jie"
    assert new["game"] == "go" and new["size"] == 19
    assert S.apply(cur, {}) == (cur, [])


def test_go_sizes_are_normalised_and_checked_with_the_game():
    cur = dict(S.DEFAULTS)
    for name, size in (("go13", 13), ("go9", 9), ("go19", 19)):
        new, errors = S.apply(cur, {"game": name})
        assert errors == [] and new["game"] == "go" and new["size"] == size, new
    assert S.apply(cur, {"game": "go13", "size": 13})[0]["size"] == 13
    assert S.apply(cur, {"game": "go", "size": 9})[0]["size"] == 9
    assert S.apply(cur, {"size": 13})[0]["size"] == 13
    # Go to Gomoku moves the board to 15, and back to 19; within a family the size stays
    go13 = S.apply(cur, {"game": "go13"})[0]
    renju = S.apply(go13, {"game": "renju"})[0]
    assert renju["game"] == "renju" and renju["size"] == 15
    assert S.apply(renju, {"game": "freestyle"})[0]["size"] == 15
    back = S.apply(renju, {"game": "go"})[0]
    assert back["game"] == "go" and back["size"] == 19
    assert S.apply(go13, {"game": "go"})[0]["size"] == 13
    # ... and the time with it, when it was the other family's own; a user's choice stays
    assert (
        cur["time"] == S.GO_TIME and renju["time"] == S.GOMOKU_TIME and back["time"] == S.GO_TIME
    )
    quick = S.apply(cur, {"time": "quick"})[0]
    assert S.apply(quick, {"game": "renju"})[0]["time"] == "quick"
    assert S.apply(cur, {"game": "renju", "time": "quick"})[0]["time"] == "quick"
    assert S.apply(renju, {"game": "standard"})[0]["time"] == S.GOMOKU_TIME
    assert S.apply(go13, {"volume": 1})[0]["size"] == 13
    # an explicit pair that does not fit is refused
    for cur_, changes in (
        (cur, {"game": "renju", "size": 19}),
        (cur, {"game": "go13", "size": 19}),
        (cur, {"game": "go", "size": 15}),
        (cur, {"size": 15}),
        (renju, {"size": 19}),
    ):
        new, errors = S.apply(cur_, changes)
        assert new is None and errors and errors[0].startswith("size: "), (changes, errors)
    # what the board held before "go19" was normalised: the older names still read
    new, errors = S.apply({"game": "go9", "time": PRESET}, {"volume": 1})
    assert errors == [] and new == {"game": "go", "size": 9, "time": PRESET, "volume": 1}


def test_apply_is_all_or_nothing():
    cur = dict(S.DEFAULTS)
    keep = dict(cur)
    for changes, names in (
        ({"volume": 3, "time": "45min"}, ["time"]),
        ({"game": "chess", "volume": 1}, ["game"]),
        ({"colour": "red", "pin": "1234"}, ["colour"]),
        ({"volume": 9, "offers": 0, "black": "ok"}, ["offers", "volume"]),
        ({"handicap": True}, ["handicap"]),
    ):
        new, errors = S.apply(cur, changes)
        assert new is None and [e.split(":")[0] for e in errors] == names, errors
        assert cur == keep
    assert S.apply(cur, [("volume", 1)])[0] is None
    assert S.apply(cur, {1: 2, "volume": 1})[0] is None


def test_the_result_stays_within_max_bytes():
    big = dict(S.DEFAULTS)
    big["note"] = "n" * (
        S.MAX_BYTES + 1000
    )  # something the board held that would make the file too big
    new, errors = S.apply(big, {"volume": 1})
    assert new is None and errors == ["settings: more than %d bytes" % S.MAX_BYTES]
    # the longest names: within the bound as MicroPython writes JSON (UTF-8), over it as
    # CPython does (\ud834\udd1e escapes); either way what is accepted can be saved and read
    changes = {k: "\U0001d11e" * 32 for k in S.NAMES}
    new, errors = S.apply(S.DEFAULTS, changes)
    whole = dict(S.DEFAULTS)
    whole.update(changes)
    data = json.dumps(whole).encode()
    if len(data) > S.MAX_BYTES:
        assert new is None and errors == ["settings: more than %d bytes" % S.MAX_BYTES]
    else:
        assert errors == [] and S.load(data) == (new, [])
    new, errors = S.apply(S.DEFAULTS, {k: "W" * 32 for k in S.NAMES})
    assert errors == [] and len(json.dumps(new).encode()) <= S.MAX_BYTES


# ---- load -------------------------------------------------------------------------------------


def test_load_a_saved_file():
    want = dict(S.DEFAULTS)
    want.update(game="renju", size=15, time="renju-rif", volume=0, pin="7777", black="黑")
    assert S.load(json.dumps(want).encode()) == (want, [])
    assert S.load(bytearray(json.dumps(want).encode())) == (want, [])
    # an older file: "go13", and no size, and some settings missing
    got, msgs = S.load(b'{"game": "go13", "time": "quick"}')
    assert msgs == [] and got["game"] == "go" and got["size"] == 13 and got["time"] == "quick"
    _full(got)
    got, msgs = S.load(b'{"game": "standard"}')
    assert msgs == [] and got["size"] == 15


def test_load_a_damaged_file_gives_the_defaults_and_one_message():
    for data in (
        b"",
        b"\x00\xff\xfe garbage",
        b'{"game": "renju", "vol',  # truncated by a power cut
        b"[1, 2, 3]",
        b'"go"',
        b"null",
        b"17",
        b"{" * 600 + b"}" * 600,
        b'{"a": ' * 600 + b"1" + b"}" * 600,  # over MAX_BYTES
        b"\xc3\x28",  # not UTF-8
        b'{"game": "renju", "volume": 1}' + b" " * S.MAX_BYTES,  # over MAX_BYTES
        "not bytes at all",
        12,
    ):
        got, msgs = S.load(data)
        assert got == S.DEFAULTS and len(msgs) == 1, (data, msgs)
        assert msgs[0].startswith("settings: ") and "defaults" in msgs[0]
    assert str(S.MAX_BYTES) in S.load(b"{}" + b" " * (S.MAX_BYTES + 1))[1][0]


def test_load_drops_what_is_invalid_and_keeps_the_rest():
    got, msgs = S.load(b'{"time": "45min", "game": "chess", "volume": 2}')
    assert got == S.DEFAULTS and len(msgs) == 2, msgs
    assert msgs[0].startswith("game: chess") and msgs[1].startswith("time: 45min"), msgs
    got, msgs = S.load(b'{"time": "45min", "game": "renju", "volume": 0, "colour": "red"}')
    assert got["game"] == "renju" and got["size"] == 15 and got["volume"] == 0
    assert got["time"] == "cn-national"
    assert [m.split(":")[0] for m in msgs] == ["colour", "time"], msgs
    # a size that does not fit the game: the game's own size, said
    got, msgs = S.load(b'{"game": "renju", "size": 19}')
    assert (got["game"], got["size"]) == ("renju", 15) and msgs[0].startswith("size: 19"), msgs
    got, msgs = S.load(b'{"game": "go9", "size": 13}')
    assert (got["game"], got["size"]) == ("go", 9) and len(msgs) == 1, msgs
    got, msgs = S.load(b'{"game": "chess", "size": 15}')  # the game falls back to Go 19
    assert (got["game"], got["size"]) == ("go", 19) and len(msgs) == 2, msgs
    got, msgs = S.load(b'{"pin": 1234, "size": 19.0, "free_captures": 1}')
    assert got == S.DEFAULTS and len(msgs) == 3, msgs
    # MicroPython's JSON reader takes keys that are not strings; CPython's refuses the file
    got, msgs = S.load(b'{1: 2, null: 3, "volume": 1}')
    if IS_MICROPYTHON:
        assert got["volume"] == 1 and msgs == [
            "1: not a setting: dropped",
            "null: not a setting: dropped",
        ], msgs
    else:
        assert got == S.DEFAULTS and len(msgs) == 1, msgs


# ---- the fuzz ---------------------------------------------------------------------------------

_KEYS = sorted(S.DEFAULTS) + ["colour", "", "size "]
_ODD = (None, True, False, 0, -1, 1, 2, 15, 19, 10**20, 1.5, "", "x" * 40, [], {}, [1], {"a": 1})


def _value(rng, key):
    # Mostly a value the key takes or refuses, sometimes anything.
    r = rng.below(10)
    if key in VALID and r < 5:
        vals = VALID[key]
    elif key in INVALID and r < 8:
        vals = INVALID[key]
    else:
        vals = _ODD
    return vals[rng.below(len(vals))]


def _changes(rng):
    d = {}
    for _ in range(rng.below(5)):
        k = _KEYS[rng.below(len(_KEYS))]
        d[k] = _value(rng, k)
    return d


def _mutate(rng, data):
    # Bytes changed, put in, left out, or the end cut off (MicroPython's bytearray deletes
    # nothing: plain bytes, cut and joined).
    b = bytes(data)
    for _ in range(1 + rng.below(4)):
        r = rng.below(4)
        i = rng.below(len(b) + 1)
        if r == 0 and b:
            i %= len(b)
            b = b[:i] + bytes([rng.below(256)]) + b[i + 1 :]
        elif r == 1:
            b = b[:i] + bytes([rng.below(256)]) + b[i:]
        elif r == 2:
            b = b[:i] + b[i + rng.below(8) :]
        else:
            b = b[:i]  # a write cut short
    return b


def test_fuzz_load_and_apply_always_give_a_bootable_board():
    n = int(os.getenv("TENGEN_SETTINGS_FUZZ") or 2000)
    rng = Rng(20260704)
    cur = dict(S.DEFAULTS)
    good = json.dumps(cur).encode()
    applied = 0
    for i in range(n):
        r = i % 4
        if r == 0:  # random bytes
            data = bytes(rng.below(256) for _ in range(rng.below(80)))
        elif r == 1:  # a saved file, damaged
            data = _mutate(rng, good)
        else:  # a JSON object of likely and unlikely settings
            data = json.dumps(_changes(rng)).encode()
        got, msgs = S.load(data)
        _full(got)
        _bootable(got)
        assert isinstance(msgs, list) and all(isinstance(m, str) for m in msgs)
        assert not [m for m in msgs if "could not be read" in m], (data, msgs)  # no stray raise
        # a request's changes on what the board holds
        changes = _changes(rng)
        new, errors = S.apply(cur, changes)
        if new is None:
            assert errors and all(isinstance(m, str) and m for m in errors)
            continue
        assert errors == []
        _bootable(new)
        saved = json.dumps(new).encode()
        assert len(saved) <= S.MAX_BYTES
        assert S.load(saved) == (new, [])  # what is saved reads back the same
        applied += 1
        cur = new
        good = saved
    assert applied > n // 20, applied  # the fuzz changed the settings, not only refused
