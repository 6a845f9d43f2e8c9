"""The settings and the menu that sets them with the four keys.

Start with ``Menu``: ``handle(event)`` takes the events of ``buttons.py``, ``text()`` is what
the faces show for the item at hand, ``(big, small)``: the value in the six big cells and the
item's label in the three small ones (``("7.5", "KOM")``, ``("1988", "RUL")``; the words are
firmware/ui/texts.py's), ``settings`` the result, a plain dict the app journals and hands to the rules
and the clock:

- ``game``: "go", "renju", "standard" or "freestyle" (``firmware/rules/gomoku.py`` VARIANTS);
  ``size``: 19, 13 or 9 for Go, 15 for the others.
- Go: ``rules`` ("1988", "1979", "taiwan", "national": the rule texts of SPEC §1), which sets
  ``ko`` (``firmware/rules/go.py`` KO_RULES: "chinese", "positional", "situational"),
  ``komi2`` (komi in half points, ``firmware/rules/go_count.py``: KOMI_1988 = 5½ points =
  2¾ stones, KOMI_NATIONAL = 7½ points = 3¾ stones, KOMI_TAIWAN) and ``free_captures``
  (1988: removing captures in byo-yomi is free); ``handicap`` 0 … 9 (1 is 让先: Black
  first, no stones; from 1 on there is no komi, 001).
- Gomoku/Renju: ``opening`` ("free" or "designated"), ``offers`` (N of 五手N打, 1 … 10, with a
  designated opening), ``claims`` ("auto" or "claim").
- ``time``: a name of ``firmware/clock/control.py`` PRESETS; ``volume`` 0 (silent) … 3;
  ``voice``: the count spoken in "zh", "en" or "off" (settings.VOICES; CN, EN, OFF).

Keys: MODE next item, PAUSE the item before, + and − (and their repeat) change the value,
long MODE done (DONE), long PAUSE cancel (CANCEL: the settings as they were at the start).
Items that do not apply to the game are skipped. Not on the clock's path: this allocates.
"""

from micropython import const

from firmware.clock.control import PRESETS
from firmware.game.settings import DEFAULTS, GO_TIME, GOMOKU_TIME, VOICES
from firmware.game.settings import KO_RULES as KO_ALL
from firmware.rules.go_count import KOMI_1988, KOMI_NATIONAL, KOMI_TAIWAN
from firmware.ui import buttons
from firmware.ui import texts as T

# What ``handle`` did.
NOTHING = const(0)
MOVED = const(1)  # another item
CHANGED = const(2)  # a value changed
DONE = const(3)
CANCEL = const(4)

GAMES = (  # (game, size), in the order of texts.GAMES (their words)
    ("go", 19),
    ("go", 13),
    ("go", 9),
    ("renju", 15),
    ("standard", 15),
    ("freestyle", 15),
)

# Go rule texts (SPEC §1): (name, ko rule, komi in half points, free capture time); their
# words are texts.RULES, in this order.
RULES = (
    ("1988", "chinese", KOMI_1988, True),  # 000: 中国围棋竞赛规则 (1988)
    ("1979", "chinese", KOMI_1988, False),  # 001: 围棋竞赛规则 1979
    ("taiwan", "situational", KOMI_TAIWAN, False),  # 003: 第6条, 第11条
    ("national", "chinese", KOMI_NATIONAL, False),  # the current rules, 004
)
KO_RULES = ("chinese", "positional", "situational")  # the menu's; settings.KO_RULES all
KOMI_MAX = const(30)  # half points: up to 15 points
HANDICAP_MAX = const(9)
OFFERS_MAX = const(10)
VOLUME_MAX = const(3)

TIMES = tuple(sorted(PRESETS))

# The items, in menu order.
GAME = const(0)
RULESET = const(1)
KO = const(2)
KOMI = const(3)
HANDICAP = const(4)
OPENING = const(5)
OFFERS = const(6)
CLAIMS = const(7)
TIME = const(8)
VOLUME = const(9)
VOICE = const(10)
ITEMS = const(11)
ITEM_NAMES = (
    "game",
    "rules",
    "ko",
    "komi",
    "handicap",
    "opening",
    "offers",
    "claims",
    "time",
    "volume",
    "voice",
)


def defaults():
    """The settings of a new board (a new dict): firmware/game/settings.py's DEFAULTS, Go 19×19
    under the 1988 rules, national time, volume 2."""
    return dict(DEFAULTS)


def komi_text(komi2):
    """Komi in points from half points: "7.5", "6", "-0.5"."""
    sign = T.SIGNS[1] if komi2 < 0 else ""
    k = -komi2 if komi2 < 0 else komi2
    return sign + str(k // 2) + (T.HALF if k % 2 else "")


def time_label(name):
    """A time preset's ``(big, small)`` (texts.TIMES); a spec from the PC shows OTHER."""
    return T.TIMES.get(name) or T.OTHER_TIME


def _cycle(values, current, step):
    i = values.index(current) if current in values else 0
    return values[(i + step) % len(values)]


def _clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


class Menu:
    """The settings menu over a settings dict (a copy is kept to cancel)."""

    def __init__(self, settings=None):
        base = defaults()
        if settings:
            base.update(settings)
        self.settings = base
        self.saved = dict(base)
        self.item = GAME

    def go(self):
        """Whether the game is Go."""
        return self.settings["game"] == "go"

    def applies(self, item):
        """Whether ``item`` is in the menu for the current game."""
        s = self.settings
        if item in (RULESET, KO, KOMI, HANDICAP):
            return s["game"] == "go"
        # The opening and its offers are Renju's alone: a designated opening brings the swap,
        # the offers and the forbidden moves (002 第四条1; firmware/game/match.py opening_of).
        if item == CLAIMS:
            return s["game"] != "go"
        if item == OPENING:
            return s["game"] == "renju"
        if item == OFFERS:
            return s["game"] == "renju" and s["opening"] == "designated"
        return True

    def _move(self, step):
        i = self.item
        while True:
            i = (i + step) % ITEMS
            if self.applies(i):
                break
        self.item = i

    def handle(self, ev):
        """One key event: NOTHING, MOVED, CHANGED, DONE or CANCEL."""
        k = buttons.kind(ev)
        key = buttons.keys(ev)
        if k == buttons.LONG and key == buttons.MODE:
            return DONE
        if k == buttons.LONG and key == buttons.PAUSE:
            self.settings = dict(self.saved)
            self.item = GAME
            return CANCEL
        if k == buttons.PRESS and key == buttons.MODE:
            self._move(1)
            return MOVED
        if k == buttons.PRESS and key == buttons.PAUSE:
            self._move(-1)
            return MOVED
        if k in (buttons.PRESS, buttons.REPEAT, buttons.LONG) and key in (
            buttons.PLUS,
            buttons.MINUS,
        ):
            self.change(1 if key == buttons.PLUS else -1)
            return CHANGED
        return NOTHING

    def change(self, step):
        """Change the current item's value by ``step`` (+1 or -1)."""
        s = self.settings
        item = self.item
        if item == GAME:
            now = (s["game"], s["size"])
            i = GAMES.index(now) if now in GAMES else 0
            game, size = GAMES[(i + step) % len(GAMES)]
            was_go = s["game"] == "go"
            s["game"] = game
            s["size"] = size
            if was_go != (game == "go"):  # a time control that suits the game
                s["time"] = GO_TIME if game == "go" else GOMOKU_TIME
        elif item == RULESET:
            names = [r[0] for r in RULES]
            self.set_rules(_cycle(names, s["rules"], step))
        elif item == KO:
            s["ko"] = _cycle(KO_RULES, s["ko"], step)
        elif item == KOMI:
            s["komi2"] = _clamp(s["komi2"] + step, 0, KOMI_MAX)
        elif item == HANDICAP:
            h = _clamp(s["handicap"] + step, 0, HANDICAP_MAX)
            if h and not s["handicap"]:
                s["komi2"] = 0  # 让先 and handicap games have no komi (001)
            elif not h and s["handicap"]:
                s["komi2"] = self._rule()[2]
            s["handicap"] = h
        elif item == OPENING:
            s["opening"] = "free" if s["opening"] == "designated" else "designated"
        elif item == OFFERS:
            s["offers"] = _clamp(s["offers"] + step, 1, OFFERS_MAX)
        elif item == CLAIMS:
            s["claims"] = "claim" if s["claims"] == "auto" else "auto"
        elif item == TIME:
            s["time"] = _cycle(TIMES, s["time"], step)
        elif item == VOLUME:
            s["volume"] = _clamp(s["volume"] + step, 0, VOLUME_MAX)
        elif item == VOICE:
            s["voice"] = _cycle(VOICES, s["voice"], step)

    def _rule(self):
        for r in RULES:
            if r[0] == self.settings["rules"]:
                return r
        return RULES[0]

    def set_rules(self, name):
        """Choose a Go rule text: its ko rule, komi (none with a handicap), capture time."""
        s = self.settings
        s["rules"] = name
        r = self._rule()
        s["ko"] = r[1]
        s["komi2"] = 0 if s["handicap"] else r[2]
        s["free_captures"] = r[3]

    def text(self, item=None):
        """``(big, small)`` for the faces: the item's value and its label (texts.py)."""
        s = self.settings
        item = self.item if item is None else item
        if item == GAME:
            now = (s["game"], s["size"])
            return T.GAMES[GAMES.index(now)] if now in GAMES else (T.QUESTION, "")
        if item == RULESET:
            return (T.RULES[RULES.index(self._rule())], T.RULES_LABEL)
        if item == KO:
            ko = s["ko"]
            return (T.KO[KO_ALL.index(ko)] if ko in KO_ALL else T.QUESTION, T.KO_LABEL)
        if item == KOMI:
            return (komi_text(s["komi2"]), T.KOMI_LABEL)
        if item == HANDICAP:
            return (str(s["handicap"]), T.HANDICAP_LABEL)
        if item == OPENING:
            return (T.OPENINGS[s["opening"] == "designated"], T.OPENING_LABEL)
        if item == OFFERS:
            return (str(s["offers"]), T.OFFERS_LABEL)
        if item == CLAIMS:
            return (T.CLAIMS[s["claims"] != "auto"], T.CLAIMS_LABEL)
        if item == TIME:
            return time_label(s["time"])
        if item == VOLUME:
            return (str(s["volume"]) if s["volume"] else T.VOLUME_OFF, T.VOLUME_LABEL)
        if item == VOICE:
            v = s["voice"]
            return (T.VOICES[VOICES.index(v)] if v in VOICES else T.QUESTION, T.VOICE_LABEL)
        return ("", "")

    def result(self):
        """The settings that apply to the chosen game (a new dict)."""
        s = self.settings
        out = {"game": s["game"], "size": s["size"], "time": s["time"], "volume": s["volume"]}
        out["voice"] = s["voice"]
        keys = ("rules", "ko", "komi2", "free_captures", "handicap")
        if s["game"] != "go":
            keys = ("claims",)
            if s["game"] == "renju":  # the opening is Renju's alone (see ``applies``)
                keys += ("opening",) + (("offers",) if s["opening"] == "designated" else ())
        for k in keys:
            out[k] = s[k]
        return out
