"""Random games judged by GNU Go (``../shared/referee/go``) replayed under the same rules.

174 games on 9×9, 13×13 and 19×19 under the ko rules none / simple / positional / situational
and the suicide rules forbid / allow / allow-all. After every move the stones must match
GNU Go's, every empty point the side to move may not play must be refused for the same reason
(occupied, suicide, ko, superko), and every tenth move the full list of legal points must
match. The final positions' area counts must match too. Runs on both runtimes.
"""

import json

from firmware.rules.coords import parse_vertex, vertex
from firmware.rules.go import KO_RULES, SUICIDE_RULES, Game
from firmware.rules.go_board import BLACK, REASONS, WHITE
from firmware.rules.go_count import count, result_sgf
from tests.support import IS_MICROPYTHON, require_shared


def _lines(path):
    # gzip on both runtimes: MicroPython's deflate module, CPython's gzip.
    if IS_MICROPYTHON:
        import deflate

        f = open(path, "rb")
        stream = deflate.DeflateIO(f, deflate.GZIP)
        try:
            while True:
                line = stream.readline()
                if not line:
                    break
                yield line
        finally:
            stream.close()
            f.close()
    else:
        import gzip

        with gzip.open(path, "rb") as f:
            yield from f


def _stones(game, color):
    n = game.size
    return sorted(
        vertex(x, y) for y in range(n) for x in range(n) if game.board.color_at(x, y) == color
    )


def _refusals(game, color):
    n = game.size
    out = {}
    for y in range(n):
        for x in range(n):
            if not game.board.color_at(x, y):
                r = game.legal(color, x, y)
                if r:
                    out[vertex(x, y)] = REASONS[r]
    return out


def _check_file(name):
    path = require_shared("referee", "go", name + ".jsonl.gz")
    games = 0
    for line in _lines(path):
        record = json.loads(line)
        games += 1
        _check_game(name, record)
    return games


def _check_game(name, record):
    n = record["size"]
    rules = record["rules"]
    game = Game(n, KO_RULES.index(rules["ko"]), SUICIDE_RULES.index(rules["suicide"]))
    where = "%s game %d" % (name, record["game"])
    for m in record["moves"]:
        color = BLACK if m["color"] == "B" else WHITE
        xy = parse_vertex(m["move"], n)
        r = game.play(color, xy[0], xy[1]) if xy else game.play(color, None, None)
        at = "%s move %d" % (where, m["n"])
        assert r == 0, at + " refused: " + REASONS[r]
        assert _stones(game, BLACK) == sorted(m["black"]), at
        assert _stones(game, WHITE) == sorted(m["white"]), at
        to_move = BLACK if m["to_move"] == "B" else WHITE
        expected = m.get("illegal_empty") or {}
        assert _refusals(game, to_move) == expected, at
        check = m.get("check")
        if check:
            legal = [
                vertex(x, y)
                for y in range(n)
                for x in range(n)
                if game.board.color_at(x, y) == 0 and game.legal(to_move, x, y) == 0
            ]
            assert sorted(legal) == sorted(check["legal"]), at
    area = record["final"]["area"]
    c = count(game.board)
    assert c.black_area2 == int(2 * area["black_area"]), where
    assert c.white_area2 == int(2 * area["white_area"]), where
    assert c.shared == area["dame"], where
    assert result_sgf(c.margin4(int(2 * record["komi"]))) == area["result"], where


def test_simple_ko_games_agree_with_gnugo():
    assert _check_file("random_9x9_simple_forbid") == 60
    assert _check_file("random_13x13_simple_forbid") == 15
    assert _check_file("random_19x19_simple_forbid") == 4


def test_positional_superko_games_agree_with_gnugo():
    assert _check_file("random_9x9_positional_forbid") == 25


def test_situational_superko_games_agree_with_gnugo():
    assert _check_file("random_9x9_situational_forbid") == 25


def test_no_ko_rule_games_agree_with_gnugo():
    assert _check_file("random_9x9_none_forbid") == 15


def test_suicide_allowed_games_agree_with_gnugo():
    assert _check_file("random_9x9_simple_allow") == 15
    assert _check_file("random_9x9_simple_allowall") == 15
