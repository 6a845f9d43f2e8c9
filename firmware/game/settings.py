"""The board's settings: their names, defaults and valid values, in one place.

Whatever reaches the settings (the menu, the PC link's ``settings`` request, the bytes of
``/settings.json`` after a power cut mid-write or an old firmware) goes through here, so the
board always boots into a game it can play:

- ``load(data)``: the saved file's bytes (or None) into a full settings dict; bad values fall
  back to their defaults, with messages for the faces. Never raises.
- ``apply(current, changes)``: a request's changes, all checked, all applied or none.
- ``check(name, value)``: one value, None if valid or a short message saying why not.
- ``GAME_KEYS`` / ``game_part``: what belongs to a game (the journal keeps it with the game)
  rather than to the board (volume, PIN).

The values (menus.py shows them; match.py and the clock use them):

    game        "go", "renju", "standard", "freestyle" ("go19", "go13", "go9" are taken on
                input and become "go" with that size)
    size        9, 13 or 19 for Go, 15 for the others (checked with the game)
    rules       "1988", "1979", "taiwan", "national" (the Go rule texts, SPEC §1)
    ko          "simple", "chinese", "positional", "situational"
    komi2       komi in half points, -30 … 60;  handicap 0 … 9;  free_captures true/false
    opening     "free", "designated";  offers 1 … 10 (五手N打);  claims "auto", "claim"
    captures    0 refuse, 1 warn, 2 allow (the referee's REFUSE/WARN/ALLOW)
    time        a preset of firmware/clock/control.py, or a spec a PC sends (``control.parse``:
                "byoyomi/600/5/30" ...);  late_factor 1 … 3
    remote      0, or the side (1 Black, 2 White) a PC plays: an engine or a remote opponent
                whose moves the board shows and the player puts down (link ``move``)
    volume      0 (silent) … 3 (the beeps and the voice);  pin: 4 digits, the arbiter's PIN
    voice       "zh" (中文), "en" (English), "off": the language the clock speaks the count in
                (firmware/ui/voice.py; the beeps where it is off or its file is missing)
    off_charged true: after a power cut the time the board was off is charged to the player
                whose clock ran (as if it had run on); false (the default): not charged, the
                clock resumes from its last checkpoint (firmware/clock/checkpoint.py)
    black, white, event, round, table: text for the next game's record, at most 32 characters
                (not bytes), kept whole; dropped once that game starts (firmware/game/app.py)
"""

import json

from firmware.clock.control import PRESETS, lookup

# The saved file's bound: load refuses more, apply never makes more. Room for five names of
# TEXT_MAX characters however JSON writes them (CPython escapes a character beyond the BMP as
# 12 bytes, \ud834\udd1e; MicroPython writes UTF-8, 4) besides the other settings.
MAX_BYTES = 3072
# A name or event field: at most 32 characters (Unicode characters, not bytes: 柯洁 is 2), kept
# whole in the game's record (firmware/game/match.py) and the SGF.
TEXT_MAX = 32

# Written out rather than imported: this module is loaded at every boot, before a game is
# chosen, and must not pull in a rules engine (Go's or Gomoku's) the game may not need.
# tests/test_settings.py checks each copy against its source.
VARIANTS = ("renju", "standard", "freestyle")  # firmware/rules/gomoku.py VARIANTS
GAMES = ("go",) + VARIANTS
# firmware/rules/go.py KO_RULES but "none": every rule text forbids at least the immediate
# ko recapture (SPEC §1); "simple" enforces only that, "chinese" also reports repetitions.
KO_RULES = ("simple", "chinese", "positional", "situational")
KOMI_1988 = 11  # firmware/rules/go_count.py KOMI_1988: 2¾ stones = 5½ points
GO_SIZES = (9, 13, 19)
GOMOKU_SIZE = 15
RULES = ("1988", "1979", "taiwan", "national")
TIMES = tuple(sorted(PRESETS))  # sorted: MicroPython's dicts keep no order
NAMES = ("black", "white", "event", "round", "table")

# Each family's own time control: the menu takes it when the game changes between Go and
# Gomoku, and so does ``apply`` when the time held is the other family's (a choice of the
# user's is kept): Renju under China's national Go time (3 hours) is no factory setting.
GO_TIME = "cn-national"
GOMOKU_TIME = "renju-rif"

DEFAULTS = {
    "game": "go",
    "size": 19,
    "rules": "1988",
    "ko": "chinese",
    "komi2": KOMI_1988,
    "free_captures": True,
    "handicap": 0,
    "opening": "designated",
    "offers": 10,
    "claims": "auto",
    "captures": 0,
    "time": GO_TIME,
    "volume": 2,
    # Chinese: the count's words are the rule texts' own (000 第十二条: "还剩N分钟", "超时判负"),
    # and the board's factory game is Chinese Go under them.
    "voice": "zh",
    "pin": "0000",
    "late_factor": 1,
    "remote": 0,
    "off_charged": False,
    "black": "",
    "white": "",
    "event": "",
    "round": "",
    "table": "",
}

VOICES = ("zh", "en", "off")

# What a game carries with it; volume, the voice, the PIN and the arbiter's off-time rule
# (read when a game resumes after a cut) belong to the board.
GAME_KEYS = tuple(
    k for k in sorted(DEFAULTS) if k not in ("volume", "voice", "pin", "off_charged")
)

# How each setting is checked: (kind, a, b). Kinds: one of the tuple a (or of b, taken on
# input but not shown); an int from a to b; true/false; text; the PIN; a time preset.
_ONE = 0
_INT = 1
_BOOL = 2
_TEXT = 3
_PIN = 4
_TIME = 5
_KINDS = {
    "game": (_ONE, GAMES, ("go19", "go13", "go9")),
    "size": (_INT, 9, 19),  # and one of GO_SIZES or GOMOKU_SIZE, see check
    "rules": (_ONE, RULES, None),
    "ko": (_ONE, KO_RULES, None),
    "komi2": (_INT, -30, 60),
    "free_captures": (_BOOL, None, None),
    "handicap": (_INT, 0, 9),
    "opening": (_ONE, ("free", "designated"), None),
    "offers": (_INT, 1, 10),
    "claims": (_ONE, ("auto", "claim"), None),
    "captures": (_INT, 0, 2),
    "time": (_TIME, None, None),
    "volume": (_INT, 0, 3),
    "voice": (_ONE, VOICES, None),
    "pin": (_PIN, None, None),
    "late_factor": (_INT, 1, 3),
    "remote": (_INT, 0, 2),
    "off_charged": (_BOOL, None, None),
}
for _k in NAMES:
    _KINDS[_k] = (_TEXT, None, None)


def _show(v):
    # A value as a message shows it: short, whatever it is (a file may hold anything).
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, float):
        v = "%g" % v
    elif isinstance(v, int):
        v = str(v)  # 10**300 too: cut below
    elif not isinstance(v, str):
        return "a list" if isinstance(v, list) else "an object" if isinstance(v, dict) else "?"
    return v if len(v) <= 24 else v[:21] + "..."


def _is_int(v):
    # bool is not an int here: CPython's True is an instance of int, MicroPython's is not.
    return isinstance(v, int) and not (v is True or v is False)


def check(name, value):
    """None if ``value`` is valid for the setting ``name``, else a short message:
    "game: chess is not one of go, renju, standard, freestyle", "colour: not a setting".
    ``size`` is checked alone here (9, 13, 15 or 19); ``apply`` checks it with the game."""
    spec = _KINDS.get(name) if isinstance(name, str) else None
    if spec is None:
        return "%s: not a setting" % _show(name)
    kind, a, b = spec
    v = value
    if kind == _ONE:
        if isinstance(v, str) and (v in a or (b is not None and v in b)):
            return None
        return "%s: %s is not one of %s" % (name, _show(v), ", ".join(a))
    if kind == _INT:
        if _is_int(v) and a <= v <= b and (name != "size" or v in GO_SIZES or v == GOMOKU_SIZE):
            return None
        if name == "size":
            return "size: %s is not a board size (9, 13, 19 for go; 15)" % _show(v)
        return "%s: %s is not an integer from %d to %d" % (name, _show(v), a, b)
    if kind == _BOOL:
        return (
            None if v is True or v is False else "%s: %s is not true or false" % (name, _show(v))
        )
    if kind == _TIME:
        if lookup(v) is not None:
            return None
        return "time: %s is not a preset (%s) or a spec: byoyomi/600/5/30" % (
            _show(v),
            ", ".join(TIMES),
        )
    if kind == _PIN:
        # The value is not shown: it may be someone's PIN mistyped.
        if isinstance(v, str) and len(v) == 4 and all("0" <= c <= "9" for c in v):
            return None
        return "pin: must be four digits"
    # _TEXT: one line of text (control characters would garble the faces and the records)
    if isinstance(v, str) and len(v) <= TEXT_MAX and all(" " <= c and c != "\x7f" for c in v):
        return None
    if isinstance(v, str) and len(v) > TEXT_MAX:
        return "%s: %d characters, at most %d (a Chinese character counts as one)" % (
            name,
            len(v),
            TEXT_MAX,
        )
    return "%s: must be one line of text of at most %d characters" % (name, TEXT_MAX)


_GO_SIZED = {"go19": 19, "go13": 13, "go9": 9}  # the older names, match.py's GAMES


def _split(game):
    # (game, the size it implies or None): "go13" -> ("go", 13); not a game -> ("go", None).
    if not isinstance(game, str):
        return "go", None
    if game in _GO_SIZED:
        return "go", _GO_SIZED[game]
    return (game if game in GAMES else "go"), None


def _fits(game, size):
    if not _is_int(size):  # 19.0 == 19, but a Go board of 19.0 points is not one
        return False
    return size in GO_SIZES if game == "go" else size == GOMOKU_SIZE


def _family_size(game):
    return 19 if game == "go" else GOMOKU_SIZE


def _game_size(held, changes, errors):
    # The game and size of ``held`` (valid values, "goNN" allowed) with ``changes`` (already
    # checked one by one): (game, size), errors appended for a pair that does not fit.
    old, old_size = _split(held.get("game"))  # no game at all: match.py plays Go
    if old_size is None:
        old_size = held.get("size")
    if not _fits(old, old_size):
        old_size = _family_size(old)  # repaired quietly: this was already held, not asked
    if "game" not in changes:
        game, size = old, old_size
        if "size" in changes:
            size = changes["size"]
            if not _fits(game, size):
                errors.append("size: %d does not fit %s" % (size, game))
        return game, size
    game, size = _split(changes["game"])
    if "size" in changes:
        if size is not None and changes["size"] != size:
            errors.append("size: %d does not fit %s" % (changes["size"], changes["game"]))
        size = changes["size"]
        if not _fits(game, size):
            errors.append("size: %d does not fit %s" % (size, game))
    elif size is None:
        # Go to Gomoku or back: the other family's board; within a family the size stays.
        size = old_size if (game == "go") == (old == "go") else _family_size(game)
    return game, size


def _size_of(d):
    try:
        return len(json.dumps(d).encode())
    except (TypeError, ValueError):
        return MAX_BYTES + 1  # not JSON at all: it could not be saved


def apply(current, changes):
    """``current`` (a settings dict, left alone) with ``changes`` (a dict of name: value):
    ``(new_dict, [])``, or ``(None, [messages])`` when any change is invalid, the game and
    size do not fit together, or the result would exceed MAX_BYTES as JSON; then nothing
    applies. "go19" etc. become "go" with the size; changing between Go and Gomoku without
    a size moves the size to 19 or 15, and without a time moves a time that is the other
    family's own (GO_TIME, GOMOKU_TIME) to the new one's."""
    errors = []
    if not isinstance(changes, dict):
        return None, ["settings: the changes must be an object"]
    for k in sorted(changes, key=str):  # sorted: the same first message on both runtimes
        msg = check(k, changes[k])
        if msg:
            errors.append(msg)
    if errors:
        return None, errors
    game, size = _game_size(current, changes, errors)
    if errors:
        return None, errors
    new = dict(current)
    new.update(changes)
    new["game"] = game
    new["size"] = size
    was_go = _split(current.get("game"))[0] == "go"
    if "time" not in changes and (game == "go") != was_go:
        if new.get("time") == (GO_TIME if was_go else GOMOKU_TIME):
            new["time"] = GO_TIME if game == "go" else GOMOKU_TIME
    if _size_of(new) > MAX_BYTES:
        return None, ["settings: more than %d bytes" % MAX_BYTES]
    return new, []


def load(data):
    """The settings from the bytes of /settings.json (None: no file): ``(settings, messages)``.
    DEFAULTS, overlaid with every stored value that is valid; each invalid or unknown one is
    dropped with a message naming it. A file that is not a JSON object within MAX_BYTES gives
    the defaults and one message. Never raises: the board must boot whatever the flash holds."""
    if data is None:
        return dict(DEFAULTS), []  # a new board: nothing to say
    try:
        if len(data) > MAX_BYTES:
            return dict(DEFAULTS), [
                "settings: the file is over %d bytes: defaults used" % MAX_BYTES
            ]
        stored = json.loads(bytes(data))
    except Exception:  # not UTF-8, not JSON, not even bytes: ValueError, UnicodeError, ...
        stored = None
    if not isinstance(stored, dict):
        return dict(DEFAULTS), ["settings: the file is not a JSON object: defaults used"]
    try:
        return _overlay(stored)
    except Exception:  # a case missed here must still not keep the board from booting
        return dict(DEFAULTS), ["settings: the file could not be read: defaults used"]


def _overlay(stored):
    # load's work on a parsed object: the defaults with its valid values, and the messages.
    settings = dict(DEFAULTS)
    messages = []
    good = {}
    # key=str: MicroPython's JSON reader takes {1: 2} and {null: 1} too; sorted: the same
    # messages on both runtimes.
    for k in sorted(stored, key=str):
        msg = check(k, stored[k])
        if msg:
            messages.append(msg + (": default used" if k in DEFAULTS else ": dropped"))
        else:
            good[k] = stored[k]
    size = good.pop("size", None)
    if "game" in good:
        game, implied = _split(good["game"])
        if implied is not None and size is not None and size != implied:
            messages.append("size: %d does not fit %s: dropped" % (size, good["game"]))
            size = None
        size = implied if implied is not None else size
    else:
        game = settings["game"]
    if size is not None and not _fits(game, size):
        messages.append("size: %d does not fit %s: default used" % (size, game))
        size = None
    settings.update(good)
    settings["game"] = game
    settings["size"] = _family_size(game) if size is None else size
    return settings, messages


def game_part(settings):
    """The settings that belong to the game (GAME_KEYS that ``settings`` holds): a new dict
    the app can give a game and its journal, without the board's volume and PIN."""
    return {k: settings[k] for k in GAME_KEYS if k in settings}
