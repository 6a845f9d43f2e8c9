"""Records in words (issue 24): every incident, every arbiter action and the arbiter's result
as the SGF comments, the sidecar, ``tengen watch`` and the hall say them (host_tools/common/words.py).

Two journaled games hold every incident kind with every detail the board writes and every
arbiter action the journal keeps; their SGF is read back with sgfmill and each comment is
checked for its words and for what must not be there: a record's internal numbers ("detail
3", "warning 1", "time adjusted 2 120000").
"""

import json
import re

from sgfmill import sgf

from firmware.referee import incidents as INC
from firmware.store import records as R
from host_tools.common import words as W
from host_tools.live import watch as WATCH
from host_tools.records import export as X
from host_tools.records import sync as S
from tests.host.records.test_export import go_header, journal_game, pt

BLACK, WHITE = 1, 2
D4 = pt(3, 3)


def _every_incident(gomoku):
    # (kind, detail) of every incident the board journals, each detail it can carry.
    out = []
    for kind in sorted(INC.WORDS):
        if kind in (INC.MOVE, INC.PASS):  # said by the moves themselves
            continue
        details = [0]
        if kind == INC.ILLEGAL:
            details = [0, 9, 12] if gomoku else [0, 1, 2, 3, 4, 5, 6]
        elif kind == INC.FOUL:
            details = [1, 2, 3]
        elif kind in (INC.CLAIM, INC.FALSE_CLAIM, INC.REMOTE, INC.WRONG_POINT):
            details = [1, 2]
        elif kind == INC.POWER_OFF:  # off-time << 4 (-1 unknown), 8 checkpoint, 4 charged, side
            details = [192 << 4 | 8 | 1, 3700 << 4 | 12 | 2, -16 | 1]
        out += [(kind, d) for d in details]
    return out


ACTIONS = [
    (W.PAUSE, ()),
    (W.RESUME, ()),
    (W.ADJUST, (BLACK, 120000)),
    (W.ADJUST, (WHITE, -30000)),
    (W.WARNING, (BLACK,)),
    (W.WARNING, (WHITE,)),
    (W.SEAL, ()),
    (W.RESUME, ()),
    (W.LATE, (WHITE,)),
    (W.TIMEOUT_PASS, ()),
    (W.UNDO, ()),
]


def _game(tmp_path, header, gomoku, decision):
    ev = [
        ("move", BLACK, D4, 100, (590000, 3, 600000, 3)),
        ("move", WHITE, pt(5, 5), 200, (590000, 3, 595000, 3)),
    ]
    for kind, detail in _every_incident(gomoku):
        ev.append(("incident", kind, 3, 300, (D4,), detail))
    ev.append(("move", BLACK, pt(6, 6), 400, (580000, 3, 595000, 3)))
    for kind, args in ACTIONS:
        ev.append(("edit", kind, 4, 500, args))
        if kind == W.TIMEOUT_PASS:  # White's turn became a pass: Black to move
            ev.append(("move", BLACK, pt(2, 6), 600, (570000, 3, 0, 0)))
    ev.append(("edit", W.RESULT, 5, 700, (decision,)))
    winner = decision if decision in (BLACK, WHITE) else 0
    ev.append(("result", winner, X.END_ARBITER, 0, 5))
    return journal_game(tmp_path, header, ev)


def _comments(data):
    game = sgf.Sgf_game.from_bytes(data)
    return [n.get("C") for n in game.get_main_sequence() if n.has_property("C")]


# What may carry digits in the words: a point (D4), an amount of time (2:00), a rule text's
# article (004 第22条第5款, 002 第六条1(4)), "move 3", Black 1 / White 4 / Black 5, a count.
_ALLOWED = re.compile(
    r"\b[A-T]\d{1,2}\b|[+-]?\d+:\d\d(:\d\d)?|\b00\d\b|第[^ ，,)）]*?[条款]\d*(\(\d+\))?"
    r"|move \d|(Black|White) \d|[五三四]手N?打?|\d+ points|\(\d+\)"
)


def _leftovers(text):
    return re.findall(r"\d+", _ALLOWED.sub("", text))


def test_every_incident_and_arbiter_action_in_words(tmp_path):
    for gomoku, header, decision in (
        (False, go_header(), WHITE),
        (True, dict(go_header(), kind=R.RENJU, size=15, rules="2013"), 3),
    ):
        folder = tmp_path / ("renju" if gomoku else "go")
        folder.mkdir()
        recs = _game(folder, header, gomoku, decision)
        data = X.export(recs)["sgf"]
        said = "\n".join(_comments(data))
        lines = said.split("\n")
        # every incident: its words, its point, its detail said, never numbered
        for kind, detail in _every_incident(gomoku):
            zh, en = W.incident(kind, detail, gomoku)
            said_at = W.where(kind, ["D4"])  # " at D4"; the count: the dead stones lifted
            assert "incident: %s (%s)%s" % (en, zh, said_at) in lines, (kind, detail, lines)
        for kind, args in ACTIONS:
            to_move = WHITE if kind == W.TIMEOUT_PASS else 0
            assert "arbiter: " + W.line(*W.action(kind, args, to_move)) in lines, (kind, lines)
        for line in lines:
            assert not re.search(r"detail|kind \d|edit \d|incident \d", line), line
            assert not _leftovers(line), (line, _leftovers(line))
        # the words themselves, as a player reads them, with the seeds' terms
        for words in (
            "arbiter: time adjusted: Black +2:00 (调整用时：黑方加2:00)",
            "arbiter: time adjusted: White -0:30 (调整用时：白方减0:30)",
            "arbiter: a warning to Black (警告：黑方)",
            "arbiter: the game paused (暂停)",
            "arbiter: sealed move: the game is adjourned (封棋)",
            "arbiter: late arrival: White (迟到：白方)",
            "arbiter: White's time out turned into a pass (白方超时，改判弃权一次（004 第22条第5款）)",
            "incident: captured stones still on the board: remove them first "
            "(提子未提清，请先提掉) at D4",
        ):
            assert words in lines, (words, lines)
        if gomoku:
            assert (
                "incident: Black's forbidden move, double-three: White may claim it "
                "(黑方禁手（三三禁手）) at D4" in lines
            )
            assert "incident: White's claim decided the game (白方指出) at D4" in lines
            assert "result: decided by the arbiter: both players lose (裁判判定双方判负)" in lines
            assert sgf.Sgf_game.from_bytes(data).get_root().get("RE") == "Void"
        else:
            assert (
                "incident: a move the rules do not allow: ko: play elsewhere first "
                "(着手无效：打劫：须先在别处着一手) at D4" in lines
            )
            assert (
                "incident: a move the rules do not allow: suicide is not allowed (着手无效：禁着点)"
                " at D4" in lines
            )
            assert "arbiter: result decided: White wins (裁判判定：白方胜)" in lines
            assert "result: decided by the arbiter: White wins (裁判判定白方胜)" in lines
            assert sgf.Sgf_game.from_bytes(data).get_root().get("RE") == "W+"
        # the sidecar: the codes for programs, the words beside them for people
        side = S.sidecar(1, b"", recs, "TG-0001", None)
        json.dumps(side)
        for i in side["incidents"]:
            assert i["words"] and not _leftovers(i["words"]), i
            assert "incident: %s%s" % (i["words"], W.where(i["kind"], ["D4"])) in lines
        for e in side["edits"]:
            assert e["words"] and not _leftovers(e["words"]), e
        assert side["result"]["words"].startswith("result: decided by the arbiter")


# What a detail adds, written out by hand (not by the code under test): Go's reasons as the
# faces say them, Renju's refusals and fouls, who claimed, whose stone, the stones outside a
# smaller game's area, why the offers were refused, the engine's count.
SAID = {
    (INC.ILLEGAL, 1, False): "a move the rules do not allow: off the board (着手无效：棋盘外)",
    (INC.ILLEGAL, 4, False): "a move the rules do not allow: suicide is not allowed "
    "(着手无效：禁着点)",
    (INC.ILLEGAL, 5, False): "a move the rules do not allow: the position repeats "
    "(着手无效：禁止全局同形再现)",
    (INC.ILLEGAL, 12, True): "a move the rules do not allow: two offers give the same shape "
    "(五手N打: 不同形): choose another (着手无效)",
    (INC.FOUL, 3, True): "Black's forbidden move, overline: White may claim it "
    "(黑方禁手（长连禁手）)",
    (INC.FALSE_CLAIM, 1, True): "Black claimed with nothing to claim (黑方指出无效)",
    (INC.REMOTE, 2, False): "White's move from the remote side: put its stone down "
    "(对方着子：请代为落子)",
    (INC.WRONG_POINT, 1, False): "not that point for Black's stone: put it where shown "
    "(落点不对：请放到指示的交叉点)",
    (INC.NOT_CLEAR, 3, False): "clear the board before the game starts: 3 stones outside the "
    "game's area (请清盘（棋局范围外3子）)",
    (INC.OFFERS, INC.OFFERS_OVER, True): "more offers than announced (打点数量过多)",
    (INC.OFFERS, INC.OFFERS_SAME, True): "two offers of the same shape: move one "
    "(打点同形：请换一个)",
    (INC.COUNT_DIFFERS, -173, False): "the remote side's count differs from the board's; it "
    "counts W+86.5 (双方计算结果不一致（对方：W+86.5）)",
    (INC.COUNT_DIFFERS, 0, False): "the remote side's count differs from the board's; it "
    "counts a draw (双方计算结果不一致（对方：和棋）)",
}


def test_what_a_detail_adds_is_said_in_words():
    for (kind, detail, gomoku), words in SAID.items():
        assert W.line(*W.incident(kind, detail, gomoku)) == words, (kind, detail)
    # the count's points are the dead stones the players lifted, not where the count was
    assert W.where(INC.COUNT, ["B2", "C3"]) == " (the dead stones lifted: B2, C3)"
    assert W.where(INC.CAPTURES_LEFT, ["D4"]) == " at D4"


def test_watch_and_the_hall_say_an_incident_as_the_record_does():
    for (kind, detail, gomoku), words in SAID.items():
        ev = {"kind": kind, "detail": detail, "move": 3, "points": [D4]}
        game = "renju" if gomoku else "go"
        english = words[: words.rindex(" (")]  # watch says the English alone
        assert WATCH.incident_text(ev, game) == "move 3: %s (D4)" % english
    assert W.incident(99, 1) == ("", "an incident this program has no words for")
    assert W.action(99, (1, 2)) == ("", "an arbiter action this program has no words for")


def test_amounts_of_time_read_as_clocks():
    assert W.clock(120000, sign=True) == "+2:00"
    assert W.clock(-30000, sign=True) == "-0:30"
    assert W.clock(3723000) == "1:02:03"
    assert W.clock(0) == "0:00"


def test_the_swap_moves_the_names_unless_the_arbiter_took_it_back(tmp_path):
    header = dict(
        go_header(), kind=R.RENJU, size=15, rules="2013", extra=json.dumps({"black": "A"})
    )
    ev = [
        ("move", BLACK, pt(7, 7), 100, (600000, 3, 600000, 3)),
        ("move", WHITE, pt(7, 8), 200, (600000, 3, 600000, 3)),
        ("move", BLACK, pt(8, 7), 300, (600000, 3, 600000, 3)),
        ("incident", INC.SWAP, 4, 400, (), 0),
    ]
    for k, (more, pb, pw) in enumerate(
        (
            ([], None, "A"),  # swapped: A set up as Black, plays White
            ([("edit", W.UNDO, 4, 500, ())], "A", None),  # the swap taken back
            ([("move", WHITE, pt(9, 9), 600, (600000, 3, 590000, 3))], None, "A"),
        )
    ):
        folder = tmp_path / str(k)
        folder.mkdir()
        root = sgf.Sgf_game.from_bytes(X.export(journal_game(folder, header, ev + more))["sgf"])
        root = root.get_root()
        assert (root.get("PB") if root.has_property("PB") else None) == pb, k
        assert (root.get("PW") if root.has_property("PW") else None) == pw, k
