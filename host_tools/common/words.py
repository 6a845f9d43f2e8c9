"""The records in words, one place for the PC: incidents, arbiter actions and results.

Start reading at ``incident``. The SGF comments (``export.py``), the JSON sidecar's ``words``
(``sync.py``), ``tengen watch``'s incident lines (``watch.py``) and the hall's incident list
(``hall/state.py``) all say a record through here, so one event reads the same everywhere:
English words with the rule texts' Chinese term where they have one (提子, 禁手, 警告, 暂停,
封棋, 超时, 判负 …: /work/shared/seeds, SPEC §1), sides by colour, amounts of time as m:ss,
never a record's internal number. The incident kinds' own words are
``firmware/referee/incidents.py``'s (the board's log keeps them too); what an incident's
``detail`` adds and the arbiter's actions (``firmware/ui/arbiter.py``, journaled as EDIT
records ``(kind, move_no, time_ms, args)``) are said here.

Each function returns ``(Chinese, English)``; ``line`` joins them as the records write them:
``"a warning to Black (警告：黑方)"``.
"""

from __future__ import annotations

from firmware.referee import incidents as INC
from firmware.rules.gomoku_board import FORBIDDEN_NAMES
from firmware.ui import arbiter as A

SIDES = {1: "Black", 2: "White"}
SIDES_ZH = {1: "黑方", 2: "白方"}

# Go's reasons a point is refused (firmware/rules/go_board.py: OFF_BOARD 1 … FULL 6) in the
# rule texts' terms: 禁着点 (000 第五条, 001 第十九条), 全局同形再现 (000 第六条). The English
# is the faces' own (``say.more``), so the board and its records say the same.
_GO_ILLEGAL_ZH = {
    1: "棋盘外",
    2: "该点已有棋子",
    3: "打劫：须先在别处着一手",
    4: "禁着点",
    5: "禁止全局同形再现",
    6: "记录已满：请裁判处理",
}
# Black's forbidden moves in Renju (firmware/rules/gomoku.py DOUBLE_THREE 1 …): the Chinese
# term and the rules' own name (gomoku_board.FORBIDDEN_NAMES).
FOULS = {
    k: (zh, FORBIDDEN_NAMES[k]) for k, zh in ((1, "三三禁手"), (2, "四四禁手"), (3, "长连禁手"))
}

# The arbiter's actions as the journal keeps them (firmware/ui/arbiter.py's numbers).
PAUSE = A.PAUSE
RESUME = A.RESUME
ADJUST = A.ADJUST
UNDO = A.UNDO
WARNING = A.WARNING
RESULT = A.RESULT
TIMEOUT_PASS = A.TIMEOUT_PASS
SEAL = A.SEAL
LATE = A.LATE
# The arbiter's result (RESULT's argument).
_DECISIONS = {
    A.DRAW: ("和棋", "a draw"),
    A.BLACK: ("黑方胜", "Black wins"),
    A.WHITE: ("白方胜", "White wins"),
    A.BOTH_LOSE: ("双方判负", "both players lose"),
}


def line(zh: str, en: str) -> str:
    """The words as a record writes them: English, then the Chinese in brackets."""
    if zh and en:
        return "%s (%s)" % (en, zh)
    return en or zh


def side(colour, zh: bool = False) -> str:
    """``Black`` / ``White`` (黑方 / 白方); "a side" for anything else."""
    return (SIDES_ZH if zh else SIDES).get(colour, "一方" if zh else "a side")


def clock(ms: int, sign: bool = False) -> str:
    """An amount of time as players write it: ``2:00``, ``0:30``, ``1:05:00`` (h:mm:ss from
    an hour); ``sign``: ``+2:00`` / ``-0:30``."""
    neg = ms < 0
    s = (abs(int(ms)) + 500) // 1000
    h, m, s = s // 3600, s // 60 % 60, s % 60
    text = "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)
    if sign:
        return ("-" if neg else "+") + text
    return ("-" if neg else "") + text


def incident(kind: int, detail: int = 0, gomoku: bool = False) -> tuple[str, str]:
    """``(Chinese, English)`` of a referee incident with what its ``detail`` adds: Go's reason
    for an illegal point, Renju's foul, who claimed, whose remote move, why the fifth-move
    offers were refused, the stones outside a smaller game's area."""
    zh, en = INC.words(kind, detail if kind == INC.OFFERS else 0)
    if not en:
        return "", "an incident this program has no words for"
    if kind == INC.ILLEGAL and detail:
        if gomoku:
            from firmware.rules.gomoku import MESSAGES

            if 0 < detail < len(MESSAGES):
                en = "%s: %s" % (en, MESSAGES[detail])
        elif detail in _GO_ILLEGAL_ZH:
            from firmware.ui import say

            why_en = say.more(kind, detail, False)
            zh, en = "%s：%s" % (zh, _GO_ILLEGAL_ZH[detail]), "%s: %s" % (en, why_en)
    elif kind == INC.FOUL and detail in FOULS:
        zh = "%s（%s）" % (zh, FOULS[detail][0])
        en = "Black's forbidden move, %s: White may claim it" % FOULS[detail][1]
    elif kind == INC.CLAIM and detail in SIDES:
        zh, en = side(detail, True) + zh, "%s's claim decided the game" % side(detail)
    elif kind == INC.FALSE_CLAIM and detail in SIDES:
        zh, en = side(detail, True) + zh, "%s claimed with nothing to claim" % side(detail)
    elif kind == INC.REMOTE and detail in SIDES:
        en = "%s's move from the remote side: put its stone down" % side(detail)
    elif kind == INC.WRONG_POINT and detail in SIDES:
        en = "not that point for %s's stone: put it where shown" % side(detail)
    elif kind == INC.COUNT_DIFFERS:  # detail: the remote side's count, in quarter stones
        from firmware.rules.go_count import result_sgf

        theirs = result_sgf(detail) if detail else "a draw"
        zh = "%s（对方：%s）" % (zh, result_sgf(detail) if detail else "和棋")
        en = "%s; it counts %s" % (en, theirs)
    elif kind == INC.POWER_OFF:  # detail: s << 4 (-1 unknown), 8 checkpoint, 4 charged, side
        secs, who = detail >> 4, detail & 3
        zh = "%s%s，%s走棋" % (
            zh,
            clock(secs * 1000) if secs >= 0 else "（时长不明）",
            side(who, True),
        )
        en = "%s for %s; %s to play, %s, %s" % (
            en,
            clock(secs * 1000) if secs >= 0 else "an unknown time (the RTC could not say)",
            side(who),
            "the clock resumed from its checkpoint"
            if detail & 8
            else "no checkpoint of the turn: its clock resumed from the turn's start",
            "the off-time charged" if detail & 4 else "the off-time not charged",
        )
    elif kind == INC.NOT_CLEAR and detail > 0:
        # The detail: stones outside a smaller game's area (they have no name in it).
        zh = "%s（棋局范围外%d子）" % (zh, detail)
        en = "%s: %d stone%s outside the game's area" % (en, detail, "" if detail == 1 else "s")
    return zh, en


def where(kind: int, labels) -> str:
    """What an incident's points are, after its words: " at D4, E5", or for the count the
    dead stones the players lifted (" (the dead stones lifted: B2)")."""
    if not labels:
        return ""
    if kind == INC.COUNT:
        return " (the dead stones lifted: %s)" % ", ".join(labels)
    return " at " + ", ".join(labels)


def action(kind: int, args=(), to_move: int = 0) -> tuple[str, str]:
    """``(Chinese, English)`` of an arbiter action as journaled (``args`` its arguments;
    ``to_move`` the side whose time ran out, for a timeout turned into a pass)."""
    args = tuple(args)
    who = args[0] if args else 0
    if kind == PAUSE:
        return "暂停", "the game paused"
    if kind == RESUME:
        return "续赛", "the game resumed"
    if kind == ADJUST and len(args) >= 2:
        more = args[1] >= 0
        return (
            "调整用时：%s%s%s" % (side(who, True), "加" if more else "减", clock(abs(args[1]))),
            "time adjusted: %s %s" % (side(who), clock(args[1], sign=True)),
        )
    if kind == UNDO:
        return "裁判悔棋", "the last move taken back"
    if kind == WARNING:
        return "警告：%s" % side(who, True), "a warning to %s" % side(who)
    if kind == RESULT:
        zh, en = _DECISIONS.get(who, ("", "a result"))
        return "裁判判定：" + zh, "result decided: " + en
    if kind == TIMEOUT_PASS:
        zh = "超时，改判弃权一次（004 第22条第5款）"
        if to_move in SIDES:
            return side(to_move, True) + zh, "%s's time out turned into a pass" % side(to_move)
        return zh, "a time out turned into a pass"
    if kind == SEAL:
        return "封棋", "sealed move: the game is adjourned"
    if kind == LATE:
        return "迟到：%s" % side(who, True), "late arrival: %s" % side(who)
    return "", "an arbiter action this program has no words for"


def decision(who: int) -> tuple[str, str]:
    """The arbiter's result in words (RESULT's argument)."""
    zh, en = _DECISIONS.get(who, ("", "a result"))
    return "裁判判定" + zh, "decided by the arbiter: " + en
