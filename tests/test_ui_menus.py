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


def keys(m, seq):
    """Press keys by name: '+', '-', 'm' (mode), 'p' (pause); the lines shown after each."""
    names = {"+": PLUS, "-": MINUS, "m": MODE, "p": PAUSE}
    out = []
    for k in seq:
        press(m, names[k])
        out.append(m.text())
    return out


def test_go_13_under_taiwan_rules_with_quick_time():
    m = Menu()
    assert m.text() == "GO 19"
    assert press(m, PLUS) == CHANGED and m.text() == "GO 13"
    assert press(m, MODE) == MOVED and m.text() == "RULES 88"
    assert keys(m, "++") == ["RULES 79", "TAIWAN"]
    assert keys(m, "m") == ["KO SIT"]
    assert keys(m, "m+") == ["KOMI 6", "KOMI 6.5"]
    assert keys(m, "m") == ["HCAP 0"]
    assert keys(m, "m++++") == ["CN 3H", "FI 30+30", "ING PEN", "JP 5X30", "QUICK"]
    assert keys(m, "m-") == ["VOL 2", "VOL 1"]
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
    }


def test_renju_with_five_offers_and_claims():
    m = Menu()
    assert keys(m, "---") == ["FREESTYL", "GOMOKU", "RENJU"]
    # The Go items are skipped; the time follows the game.
    assert keys(m, "m") == ["OPEN DES"]
    assert keys(m, "m") == ["OFFER 10"]
    assert press(m, MINUS, LONG) == CHANGED  # a held key: long, then repeats
    assert press(m, MINUS, REPEAT) == CHANGED
    assert keys(m, "---") == ["OFFER 7", "OFFER 6", "OFFER 5"]
    assert keys(m, "m+") == ["AUTO REF", "CLAIMS"]
    assert keys(m, "m") == ["RIF60+30"]
    assert keys(m, "mpp") == ["VOL 2", "RIF60+30", "CLAIMS"]  # pause: the item before
    assert press(m, MODE, LONG) == DONE
    assert m.result() == {
        "game": "renju",
        "size": 15,
        "opening": "designated",
        "offers": 5,
        "claims": "claim",
        "time": "renju-rif",
        "volume": 2,
    }


def test_free_opening_has_no_offers_and_gomoku_variants():
    m = Menu({"game": "standard", "size": 15, "time": "renju-stages"})
    assert keys(m, "m+m") == ["OPEN DES", "OPEN FRE", "AUTO REF"]
    r = m.result()
    assert r["game"] == "standard" and r["opening"] == "free" and "offers" not in r
    assert r["time"] == "renju-stages" and "komi2" not in r


def test_handicap_takes_komi_away_and_gives_it_back():
    m = Menu()
    assert keys(m, "mmmm") == ["RULES 88", "KO CN", "KOMI 5.5", "HCAP 0"]
    assert keys(m, "++") == ["HCAP 1", "HCAP 2"]
    assert m.settings["komi2"] == 0
    assert keys(m, "p") == ["KOMI 0"]
    assert keys(m, "m---") == ["HCAP 2", "HCAP 1", "HCAP 0", "HCAP 0"]
    assert m.settings["komi2"] == 11  # the 1988 komi again
    assert keys(m, "pppp+") == ["KOMI 5.5", "KO CN", "RULES 88", "GO 19", "GO 13"]
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
    assert m.settings["size"] == 19 and m.settings["volume"] == 3 and m.text() == "GO 19"
    assert m.handle(0) == NOTHING
    assert press(m, MODE, REPEAT) == NOTHING


def test_values_stop_at_their_ends():
    m = Menu()
    m.item = menus.VOLUME
    assert keys(m, "++++") == ["VOL 3"] * 4
    assert keys(m, "----") == ["VOL 2", "VOL 1", "VOL OFF", "VOL OFF"]
    m.item = menus.KOMI
    for _ in range(40):
        press(m, PLUS)
    assert m.text() == "KOMI 15" and m.settings["komi2"] == menus.KOMI_MAX
    press(m, MINUS)
    assert m.text() == "KOMI14.5"


def test_every_line_fits_a_face():
    # Every value of every item, for every game: at most 8 characters.
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
                assert 0 < len(t) <= 8, (item, t)
                seen.add(t)
                if item != menus.GAME:
                    press(m, PLUS)
            assert len(seen) >= 1
    for name in PRESETS:
        assert len(menus.time_label(name)) <= 8, name
    assert menus.time_label("some-new-preset") == "SOME-NEW"


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

    for _label, game, size in menus.GAMES:
        if game == "go":
            for r in menus.RULES:
                assert r[2] in go.KO_RULES
                go.Game(size, ko_rule=go.KO_RULES.index(r[2]))
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
