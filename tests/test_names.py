"""The players' names belong to one game (issue 24): kept whole in its record, gone after.

``tengen game`` (the link's ``settings``) or a hall's pairing sets ``black``, ``white``,
``event``, ``round``, ``table`` for the next game. That game's journal header keeps them whole,
up to firmware/game/settings.py's TEXT_MAX characters each (Chinese ones too: a header over 255
bytes takes the live record's long form, firmware/store/records.py); once it starts the
board's settings drop them, so the game after it has none; a game resumed after a power cut
keeps its own. On both runtimes (the journal on LittleFS under MicroPython).
"""

import json

from firmware.game import settings as S
from firmware.game.match import NAME_KEYS, Match, same_game, settings_of
from firmware.store import Journal
from firmware.store import records as R
from tests.rig import Rig
from tests.test_journal import fresh_root

LONGEST = {
    "black": "柯洁" * 16,  # 32 characters, 96 bytes of UTF-8
    "white": "Shin Jinseo, Korea Baduk Assoc.!",  # 32 characters
    "event": "第二十五届三星车险杯世界围棋大师赛决赛第三局" + "x" * 10,
    "round": "\U0001d11e" * 32,  # beyond the BMP: 4 bytes each
    "table": "12" * 16,
}


def test_the_longest_names_fit_the_settings_and_the_limit_is_in_characters():
    for k in NAME_KEYS:
        assert len(LONGEST[k]) == S.TEXT_MAX, k
    new, errors = S.apply(S.DEFAULTS, LONGEST)
    assert errors == [], errors
    assert all(new[k] == LONGEST[k] for k in NAME_KEYS)
    new, errors = S.apply(S.DEFAULTS, {"black": "柯" * 33})
    assert new is None
    assert errors == ["black: 33 characters, at most 32 (a Chinese character counts as one)"]


def test_a_header_with_the_longest_names_is_written_whole_and_read_back():
    settings = dict(S.DEFAULTS)
    settings.update(LONGEST)
    settings.update({"game": "renju", "size": 15, "time": "byoyomi/600/5/30", "remote": 2})
    root = fresh_root()
    j = Journal(root)
    m = Match(settings, Rig({"game": "go"}).sensing, j)
    m.start(0, "TG-0001", 1767225600)
    h = j.header
    assert len(R.encode_header(h)) > 255  # the long form
    found = R.scan(open(root + "/g%06d.tgj" % j.game_no, "rb").read())
    assert found[0][2][0] == R.HEADER
    extra = json.loads(found[0][2][1]["extra"])
    assert all(extra[k] == LONGEST[k] for k in NAME_KEYS), extra
    # a power cut: the resumed game keeps its names and its rules
    j.close()
    resumed = Journal(root).resume()
    s = settings_of(resumed["header"])
    assert all(s[k] == LONGEST[k] for k in NAME_KEYS)
    assert s["remote"] == 2 and s["game"] == "renju"
    # a torn record after the long header: the journal rewrites the file, the header whole
    path = root + "/g%06d.tgj" % j.game_no
    with open(path, "ab") as f:
        f.write(b"\x05\x02\x01")
    again = Journal(root).resume()
    assert again["header"] == resumed["header"]
    data = open(path, "rb").read()
    assert [r[0] for _, _, r in R.scan(data)] == [r[0] for r in resumed["records"]]
    assert not data.endswith(b"\x05\x02\x01")
    # one byte changed in the long header: the scan drops it, no crash
    data = bytearray(open(root + "/g%06d.tgj" % j.game_no, "rb").read())
    data[40] ^= 1
    assert not [r for _, _, r in R.scan(bytes(data)) if r[0] == R.HEADER]


def test_a_long_header_chains_like_any_record():
    payload = b"x" * 300
    buf = bytearray(R.MAGIC) + R.frame(R.HEADER, R.encode_header({"extra": "y" * 300}), R.MAGIC)
    seed = buf[-4:]
    buf += R.frame(*R.encode((R.ACK, 7)), seed)
    recs = [r for _, _, r in R.scan(bytes(buf))]
    assert recs[0][1]["extra"] == "y" * 300 and recs[1] == (R.ACK, 7)
    assert len(R.frame(R.HEADER, payload, R.MAGIC)) == 300 + 7


def _journal_rig(settings):
    j = Journal(fresh_root())
    return Rig(settings, journal=j), j


def test_the_names_go_with_the_game_they_were_set_for():
    saved = []
    settings = dict(S.DEFAULTS)
    settings.update({"game": "go", "size": 9, "time": "quick"})
    rig, j = _journal_rig(settings)
    rig.app.save = lambda s: saved.append(dict(s)) or True
    names = {"black": "柯洁", "white": "Shin Jinseo", "event": "Cup", "round": "3", "table": "1"}
    rig.app.settings.update(names)  # what the link's ``settings`` does, in place
    rig.key("pause")  # the game starts with them
    extra = json.loads(j.header["extra"])
    assert all(extra[k] == names[k] for k in names), extra
    assert all(rig.app.settings[k] == "" for k in NAME_KEYS)  # dropped at once ...
    assert saved and all(saved[-1][k] == "" for k in NAME_KEYS)  # ... and saved so
    assert rig.match.settings["black"] == "柯洁"  # the game keeps its own
    # the link's ``start`` asked again: the same game, not a new one for lacking names
    assert same_game(rig.match.settings, rig.app.settings)
    assert not same_game(rig.match.settings, dict(rig.app.settings, black="Other"))
    assert not same_game(rig.match.settings, dict(rig.app.settings, komi2=0))
    rig.match.resign(1, rig.now)  # Black resigns: the game is over
    rig.run(200)
    rig.key("pause")  # the result's PAUSE: the next game
    rig.key("pause")  # started, with no names
    extra = json.loads(j.header["extra"])
    assert not any(k in extra for k in NAME_KEYS), extra
    assert j.game_no == 2


def test_a_game_voided_before_its_first_move_gives_its_names_to_the_one_made_anew():
    from tests.test_remote import Board

    b = Board({"game": "go", "size": 9, "time": "quick"})
    b.ok("settings", set={"black": "柯洁", "white": "Shin Jinseo"})
    b.ok("start")
    assert b.ok("settings")["settings"]["black"] == ""  # the game took them
    assert b.ok("start")["game_no"] == 1  # asked again: the same game, names or not
    # the PC starts again with other settings before any move: the first game is void, its
    # names go to the game made anew
    b.ok("settings", set={"komi2": 13})
    assert b.ok("start")["game_no"] == 2
    assert json.loads(b.journal.header["extra"])["black"] == "柯洁"
    assert b.rig.app.settings["black"] == ""
    # new names set meanwhile win over the voided game's
    b.ok("settings", set={"komi2": 11, "black": "Other"})
    assert b.ok("start")["game_no"] == 3
    extra = json.loads(b.journal.header["extra"])
    assert extra["black"] == "Other" and "white" not in extra
