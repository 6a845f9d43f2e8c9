"""Time controls: small declarative definitions, and the named presets of the seeds.

A ``TimeControl`` says what each player gets; ``firmware/clock/clock.py`` runs it. Every
figure is in integer milliseconds. The kinds (seed, article):

- ABSOLUTE 包干制: one limit (002 第八条2, 003 第12条 包辦制).
- STAGES 多重时限: stages of ``(ms, moves)``; a stage with a move requirement must see that
  many moves before its time ends, and then the next stage's time is added to what is left;
  a stage without one flows into the next (002 第八条2).
- CHINESE 读秒: the last ``periods`` minutes of the limit are kept for counting; a move under
  a full minute costs nothing, each full minute used costs one (000 第十二条二).
- JAPANESE 讀秒制: ``periods`` periods of ``period_ms`` (≤ 60 s) after the main time; an
  overrun uses a period (003 第12条).
- CANADIAN 定時限步制: after the main time, ``moves`` moves in ``period_ms``, renewed when made.
- FISCHER 加秒制: ``increment_ms`` added after each move (002 第八条3).
- BRONSTEIN: after each move, the time it took is given back up to ``increment_ms``.
- DELAY (simple delay): each move's first ``increment_ms`` cost nothing.
- PENALTY 延時罰點制: after the main time, up to ``periods`` extra periods of ``period_ms``,
  each costing ``points`` at the count (003 第12条).
- SHARED 共用时限: one pool of ``main_ms`` for both players (002 第八条1); the arbiter may
  split what is left into two halves, which makes it ABSOLUTE.
"""

from micropython import const

ABSOLUTE = const(0)
STAGES = const(1)
CHINESE = const(2)
JAPANESE = const(3)
CANADIAN = const(4)
FISCHER = const(5)
BRONSTEIN = const(6)
DELAY = const(7)
PENALTY = const(8)
SHARED = const(9)
KINDS = (
    "absolute",
    "stages",
    "chinese",
    "japanese",
    "canadian",
    "fischer",
    "bronstein",
    "delay",
    "penalty",
    "shared",
)

MINUTE = const(60000)
_HOUR = const(3600000)
_SECOND = const(1000)


class TimeControl:
    """What each player gets; build one with the functions below, not by hand."""

    def __init__(self, kind, main_ms, name=""):
        self.kind = kind
        self.main_ms = main_ms
        self.period_ms = 0
        self.periods = 0
        self.moves = 0
        self.increment_ms = 0
        self.points = 0
        self.stages = ()
        self.name = name

    def __repr__(self):
        return "TimeControl(%s %s)" % (KINDS[self.kind], self.name or self.main_ms)


def _check(ok, what):
    if not ok:
        raise ValueError(what)


def absolute(main_ms, name=""):
    """One limit for the whole game (包干制)."""
    _check(main_ms > 0, "the limit must be positive")
    return TimeControl(ABSOLUTE, main_ms, name)


def chinese(limit_ms, kept_minutes, name=""):
    """读秒: of ``limit_ms`` the last ``kept_minutes`` minutes are counted minute by minute."""
    _check(kept_minutes >= 1, "at least one minute is kept for counting")
    _check(limit_ms >= kept_minutes * MINUTE, "the kept minutes are part of the limit")
    tc = TimeControl(CHINESE, limit_ms - kept_minutes * MINUTE, name)
    tc.periods = kept_minutes
    tc.period_ms = MINUTE
    return tc


def japanese(main_ms, periods, period_ms, name=""):
    """讀秒制: ``periods`` periods of ``period_ms`` after the main time."""
    _check(periods >= 1 and 10 * _SECOND <= period_ms <= MINUTE, "periods of 10–60 s")
    tc = TimeControl(JAPANESE, main_ms, name)
    tc.periods = periods
    tc.period_ms = period_ms
    return tc


def canadian(main_ms, moves, period_ms, name=""):
    """定時限步制: after the main time, ``moves`` moves in each ``period_ms``."""
    _check(moves >= 1 and period_ms > 0, "a block needs moves and time")
    tc = TimeControl(CANADIAN, main_ms, name)
    tc.moves = moves
    tc.period_ms = period_ms
    return tc


def fischer(main_ms, increment_ms, name=""):
    """加秒制: ``increment_ms`` added after each move."""
    _check(main_ms > 0 and increment_ms >= 0, "main time and an increment")
    tc = TimeControl(FISCHER, main_ms, name)
    tc.increment_ms = increment_ms
    return tc


def bronstein(main_ms, delay_ms, name=""):
    """Bronstein delay: each move's time is given back, up to ``delay_ms``."""
    tc = TimeControl(BRONSTEIN, main_ms, name)
    tc.increment_ms = delay_ms
    return tc


def delay(main_ms, delay_ms, name=""):
    """Simple delay: the first ``delay_ms`` of each move are free."""
    tc = TimeControl(DELAY, main_ms, name)
    tc.increment_ms = delay_ms
    return tc


def penalty(main_ms, period_ms, points, max_periods, name=""):
    """延時罰點制: up to ``max_periods`` extra periods of ``period_ms``, ``points`` each."""
    _check(period_ms > 0 and max_periods >= 1, "extra periods need a length and a maximum")
    tc = TimeControl(PENALTY, main_ms, name)
    tc.period_ms = period_ms
    tc.periods = max_periods
    tc.points = points
    return tc


def stages(parts, name=""):
    """多重时限: ``[(ms, moves), ...]``, ``moves`` 0 for a stage without a requirement."""
    _check(len(parts) >= 1, "at least one stage")
    for ms, moves in parts:
        _check(ms > 0 and moves >= 0, "a stage needs time")
    tc = TimeControl(STAGES, parts[0][0], name)
    tc.stages = tuple(parts)
    tc.moves = parts[0][1]
    return tc


def shared(pool_ms, name=""):
    """共用时限: one pool for both players."""
    _check(pool_ms > 0, "the pool must be positive")
    return TimeControl(SHARED, pool_ms, name)


def _presets():
    return {
        # 000 第十二条: national games end within a day and keep 5 minutes for counting;
        # local games 1–2 hours, counting may keep 1 minute.
        "cn-national": chinese(3 * _HOUR, 5, "Chinese national game: 3 h, last 5 min counted"),
        "cn-local": chinese(1 * _HOUR, 1, "Chinese local game: 1 h, last minute counted"),
        "japanese-5x30": japanese(1 * _HOUR, 5, 30 * _SECOND, "1 h + 5 x 30 s byo-yomi"),
        "canadian-25-10": canadian(1 * _HOUR, 25, 10 * MINUTE, "1 h + 25 moves in 10 min"),
        "fischer-30-30": fischer(30 * MINUTE, 30 * _SECOND, "30 min + 30 s a move"),
        "renju-rif": fischer(60 * MINUTE, 30 * _SECOND, "Renju, RIF style: 60 min + 30 s"),
        "renju-stages": stages(
            ((2 * _HOUR, 40), (1 * _HOUR, 0)), "Renju, two stages: 40 moves in 2 h, then 1 h"
        ),
        "ing-penalty": penalty(
            3 * _HOUR, 35 * MINUTE, 2, 2, "Ing: 3 h, then up to 2 x 35 min at 2 points"
        ),
        "quick": japanese(10 * MINUTE, 3, 30 * _SECOND, "Quick play: 10 min + 3 x 30 s"),
        "blitz-delay": delay(5 * MINUTE, 5 * _SECOND, "5 min, 5 s delay"),
        "bronstein-15-10": bronstein(15 * MINUTE, 10 * _SECOND, "15 min, 10 s Bronstein"),
        "shared-2h": shared(2 * _HOUR, "2 h shared by both players"),
    }


PRESETS = _presets()


# A time control told by a PC (a GTP controller's time_settings, an online server's game):
# "absolute/M", "byoyomi/M/P/T", "canadian/M/S/T", "fischer/M/I", all in seconds. The
# setting keeps the text, so the journal's header (its ``tc``) says what the game was played
# by, as a preset's name does.
_SPECS = {"absolute": 1, "byoyomi": 3, "canadian": 3, "fischer": 2}
SPEC_MAX = 32  # a spec's length at most (a setting's text, the header's tc)


def parse(spec):
    """The ``TimeControl`` of a spec such as ``"byoyomi/600/5/30"`` (see above); ValueError
    with the reason if it is not one."""
    if not isinstance(spec, str) or len(spec) > SPEC_MAX:
        raise ValueError("not a time spec")
    parts = spec.split("/")
    want = _SPECS.get(parts[0])
    if want is None or len(parts) != want + 1:
        raise ValueError("not one of absolute/M, byoyomi/M/P/T, canadian/M/S/T, fischer/M/I")
    n = []
    for p in parts[1:]:
        if not p or len(p) > 6 or not all("0" <= c <= "9" for c in p):
            raise ValueError("%s: whole seconds" % p)
        n.append(int(p))
    kind = parts[0]
    if kind == "absolute":
        return absolute(n[0] * _SECOND, spec)
    if kind == "byoyomi":
        return japanese(n[0] * _SECOND, n[1], n[2] * _SECOND, spec)
    if kind == "canadian":
        return canadian(n[0] * _SECOND, n[1], n[2] * _SECOND, spec)
    return fischer(n[0] * _SECOND, n[1] * _SECOND, spec)


def lookup(name):
    """The ``TimeControl`` a game's ``time`` setting names: a preset, or a spec (``parse``);
    None if it is neither."""
    tc = PRESETS.get(name) if isinstance(name, str) else None
    if tc is not None:
        return tc
    try:
        return parse(name)
    except ValueError:
        return None
