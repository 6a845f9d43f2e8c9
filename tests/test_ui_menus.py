"""The settings menu (firmware/ui/menus.py): key events in, the faces' lines and the settings
dict out.

The rule presets are SPEC §1's: komi 2¾ stones (5½ points) under the 1979 and 1988 rules, 3¾
stones (7½ points) under the current national rules, Taiwan's 6 points (003 第11条) with
situational superko (003 第6条); handicap games have no komi (001); removing captures in
byo-yomi is free under 1988 only (SPEC §3).
"""

from firmware.clock.control import PRESETS
from firmware.ui import menus
from firmware.ui.buttons import LONG, MINUS, MODE, PAUSE, PLUS, PRESS, REPEAT, event
from firmware.ui.menus import CANCEL, CHANGED, DONE, MOVED, NOTHING, Menu


def press(m, key, kind=PRESS):
    return m.handle(event(kind, key))


def line(m):
    """What the faces show for the item at hand: the big cells' value, the small cells'
    label (``"7.5 KOM"``; the words are firmware/ui/texts.py's)."""
    big, small = m.text()
    return (big + " " + small).strip()


def keys(m, seq):
    """Press keys by name: '+', '-', 'm' (mode), 'p' (pause); the lines shown after each."""
    names = {"+": PLUS, "-": MINUS, "m": MODE, "p": PAUSE}
    out = []
    for k in seq:
        press(m, names[k])
        out.append(line(m))
    return out


def test_go_13_under_taiwan_rules_with_quick_time():
    m = Menu()
    assert m.text() == ("GO", "19")
    assert press(m, PLUS) == CHANGED and line(m) == "GO 13"
    assert press(m, MODE) == MOVED and line(m) == "1988 RUL"
    assert keys(m, "++") == ["1979 RUL", "TAI RUL"]
    assert keys(m, "m") == ["SIT KO"]
    assert keys(m, "m+") == ["6 KOM", "6.5 KOM"]
    assert keys(m, "m") == ["0 HCP"]
    assert keys(m, "m++++") == ["3:00 CN", "30+30 FI", "3H PEN ING", "5-30 JP", "RAPID"]
    assert keys(m, "m-") == ["2 SND", "1 SND"]
    assert keys(m, "m+++-") == ["CN SAY", "EN SAY", "OFF SAY", "CN SAY", "OFF SAY"]
    assert keys(m, "m") == ["GO 13"]  # round again
    assert press(m, MODE, LONG) == DONE
    assert m.result() == {
        "game": "go",
        "size": 13,
        "rules": "taiwan",
        "ko": "situational",
        "komi2": 13,
        "free_captures": False,
        "handicap": 0,
        "time": "quick",
        "volume": 1,
        "voice": "off",
    }


def test_renju_with_five_offers_and_claims():
    m = Menu()
    assert keys(m, "---") == ["FREE 15", "STD 15", "RENJU 15"]
    # The Go items are skipped; the time follows the game.
    assert keys(m, "m") == ["DESIG OPN"]
    assert keys(m, "m") == ["10 OFR"]
    assert press(m, MINUS, LONG) == CHANGED  # a held key: long, then repeats
    assert press(m, MINUS, REPEAT) == CHANGED
    assert keys(m, "---") == ["7 OFR", "6 OFR", "5 OFR"]
    assert keys(m, "m+") == ["AUTO CLA", "CALL CLA"]
    assert keys(m, "m") == ["60+30 RIF"]
    assert keys(m, "mmppp") == [
        "2 SND",
        "CN SAY",
        "2 SND",
        "60+30 RIF",
        "CALL CLA",
    ]  # pause: the item before
    assert press(m, MODE, LONG) == DONE
    assert m.result() == {
        "game": "renju",
        "size": 15,
        "opening": "designated",
        "offers": 5,
        "claims": "claim",
        "time": "renju-rif",
        "volume": 2,
        "voice": "zh",
    }


def test_free_opening_has_no_offers_and_gomoku_variants():
    # Standard and freestyle Gomoku open free (002 第四条1): no opening, no offers to set.
    m = Menu({"game": "standard", "size": 15, "time": "renju-stages"})
    assert keys(m, "m+") == ["AUTO CLA", "CALL CLA"]
    r = m.result()
    assert r["game"] == "standard" and "opening" not in r and "offers" not in r
    renju = Menu({"game": "renju", "size": 15, "time": "renju-rif"})
    assert keys(renju, "m+m") == ["DESIG OPN", "FREE OPN", "AUTO CLA"]
    assert renju.result()["opening"] == "free" and "offers" not in renju.result()
    assert r["time"] == "renju-stages" and "komi2" not in r


def test_handicap_takes_komi_away_and_gives_it_back():
    m = Menu()
    assert keys(m, "mmmm") == ["1988 RUL", "CN KO", "5.5 KOM", "0 HCP"]
    assert keys(m, "++") == ["1 HCP", "2 HCP"]
    assert m.settings["komi2"] == 0
    assert keys(m, "p") == ["0 KOM"]
    assert keys(m, "m---") == ["2 HCP", "1 HCP", "0 HCP", "0 HCP"]
    assert m.settings["komi2"] == 11  # the 1988 komi again
    assert keys(m, "pppp+") == ["5.5 KOM", "CN KO", "1988 RUL", "GO 19", "GO 13"]
    # Changing the rules with a handicap keeps komi at 0.
    m.settings["handicap"] = 4
    m.set_rules("national")
    assert m.settings["komi2"] == 0 and m.settings["ko"] == "chinese"
    m.settings["handicap"] = 0
    m.set_rules("national")
    assert m.settings["komi2"] == 15 and not m.settings["free_captures"]


def test_cancel_restores_and_other_events_do_nothing():
    m = Menu({"volume": 3})
    keys(m, "+m+m+")
    assert m.settings["size"] == 13
    assert press(m, PAUSE, LONG) == CANCEL
    want = menus.defaults()
    want["volume"] = 3
    assert m.settings == want
    assert m.settings["size"] == 19 and m.settings["volume"] == 3 and line(m) == "GO 19"
    assert m.handle(0) == NOTHING
    assert press(m, MODE, REPEAT) == NOTHING


def test_values_stop_at_their_ends():
    m = Menu()
    m.item = menus.VOLUME
    assert keys(m, "++++") == ["3 SND"] * 4
    assert keys(m, "----") == ["2 SND", "1 SND", "OFF SND", "OFF SND"]
    m.item = menus.KOMI
    for _ in range(40):
        press(m, PLUS)
    assert line(m) == "15 KOM" and m.settings["komi2"] == menus.KOMI_MAX
    press(m, MINUS)
    assert line(m) == "14.5 KOM"


def test_every_line_fits_a_face():
    # Every value of every item, for every game: a value, and a label of 3 cells at most
    # (tests/test_glass_texts.py reads each back off the glass).
    for g in range(len(menus.GAMES)):
        m = Menu()
        for _ in range(g):
            press(m, PLUS)
        for item in range(menus.ITEMS):
            if not m.applies(item):
                continue
            m.item = item
            seen = set()
            for _ in range(45):
                t = m.text()
                assert 0 < len(t[0]) and len(t[1]) <= 3, (item, t)
                seen.add(t)
                if item != menus.GAME:
                    press(m, PLUS)
            assert len(seen) >= 1
    for name in PRESETS:
        assert menus.time_label(name) != ("OTHER", ""), name
    assert menus.time_label("byoyomi/600/5/30") == ("OTHER", "")


def test_komi_text():
    assert [menus.komi_text(k) for k in (0, 1, 11, 12, 15, -1)] == [
        "0",
        "0.5",
        "5.5",
        "6",
        "7.5",
        "-0.5",
    ]


def test_the_settings_name_what_the_rules_and_the_clock_know():
    # Every value the menu can produce builds the real objects, by the cores' own names.
    from firmware.rules import go, gomoku

    for game, size in menus.GAMES:
        if game == "go":
            for r in menus.RULES:
                assert r[1] in go.KO_RULES
                go.Game(size, ko_rule=go.KO_RULES.index(r[1]))
            for ko in menus.KO_RULES:
                assert ko in go.KO_RULES
        else:
            variant = gomoku.VARIANTS.index(game)
            for opening in gomoku.OPENINGS:
                for claims in gomoku.CLAIM_MODES:
                    gomoku.Gomoku(
                        variant,
                        size,
                        gomoku.CLAIM_MODES.index(claims),
                        gomoku.OPENINGS.index(opening),
                        10,
                    )
    for name in menus.TIMES:
        assert name in PRESETS
    assert menus.GO_TIME in PRESETS and menus.GOMOKU_TIME in PRESETS
    d = menus.defaults()
    assert d["opening"] in gomoku.OPENINGS and d["claims"] in gomoku.CLAIM_MODES
