"""host_tools/records/export.py: journaled games to SGF (checked with sgfmill and the firmware rules)
and Piskvork .psq; the @sabaki/sgf parser reads the SGF too when node can load it."""

import json
import subprocess

import pytest
from sgfmill import sgf, sgf_grammar

from firmware.clock import control as C
from firmware.rules.go import Game, fixed_handicap
from firmware.store import records as R
from firmware.store.journal import Journal
from host_tools.records import export as X

BLACK, WHITE = 1, 2


def journal_game(tmp_path, header, events):
    """Drive a real Journal on ``tmp_path``; ``events``: ("move", colour, point, tick,
    clocks), ("incident", kind, move_no, time_ms, points), ("edit", kind, move_no, time_ms,
    args), ("clocks", move_no, clocks), ("result", winner, reason, margin2, move_no).
    Returns the records ``Journal.records`` gives back (packed, if the game has a result)."""
    j = Journal(str(tmp_path / "games"), free=lambda: 10 << 20)
    assert j.begin(header) == 0
    g = j.game_no
    ply = 0
    for ev in events:
        if ev[0] == "move":
            ply = ev[-1] if len(ev) == 6 else ply + 1
            _, colour, point, tick, clocks = ev[:5]
            assert j.move(ply, colour, point, tick, clocks) == 0
        elif ev[0] == "incident":
            assert j.incident(*ev[1:]) == 0
        elif ev[0] == "edit":
            assert j.edit(*ev[1:]) == 0
            if ev[1] == 9:  # undo: the next move takes the undone ply
                ply = ev[2] - 1
            if ev[1] == 12:  # timeout turned into a pass
                ply = ev[2] - 1
        elif ev[0] == "clocks":
            assert j.clocks(*ev[1:]) == 0
        elif ev[0] == "result":
            assert j.result(*ev[1:]) == 0
    recs = j.records(g)
    assert recs and recs[0][0] == R.HEADER
    return recs


def pt(x, y):
    return y << 5 | x


def go_header(**kw):
    h = {
        "kind": R.GO,
        "size": 9,
        "komi2": 15,
        "handicap": 0,
        "rules": "1988",
        "tc": "quick",
        "tc_figures": (C.JAPANESE, 600000, 30000, 3, 0),
        "board_id": "TG-0001",
        "start": 1767225600,  # 2026-01-01 00:00:00 UTC
    }
    h.update(kw)
    return h


def replay(size, moves, handicap=()):
    """The final position (a tuple of rows of colours) after ``moves`` [(colour, x, y|None)]."""
    g = Game(size)
    if handicap:
        g.place_handicap(list(handicap))
    for c, x, y in moves:
        assert g.play(c, x, y) == 0, (c, x, y)
    n = g.board.size
    return tuple(tuple(g.board.color_at(x, y) for x in range(n)) for y in range(n))


def sgf_moves(game):
    out = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        c = BLACK if colour == "b" else WHITE
        out.append((c, None, None) if move is None else (c, move[1], move[0]))
    return out


# A 9x9 game with a capture and two passes; byo-yomi clocks (quick: 10 min + 3 x 30 s).
GO_MOVES = [
    (BLACK, 2, 2),
    (WHITE, 3, 2),
    (BLACK, 4, 2),
    (WHITE, 6, 6),
    (BLACK, 3, 1),
    (WHITE, 5, 6),
    (BLACK, 3, 3),  # captures White's D3
    (WHITE, 4, 6),
    (BLACK, 2, 6),
    (WHITE, 3, 6),
    (BLACK, 2, 5),
    (WHITE, None, None),
    (BLACK, None, None),
]


def go_events():
    ev = []
    main = {BLACK: 600000, WHITE: 600000}
    periods = {BLACK: 3, WHITE: 3}
    tick = 1000
    for i, (c, x, y) in enumerate(GO_MOVES):
        tick += 45000
        if i < 8:
            main[c] -= 45000 if i < 6 else main[c]  # moves 7 and 8 run into byo-yomi
        elif i == 9:
            periods[c] -= 1  # White overran a period
        point = R.PASS if x is None else pt(x, y)
        clocks = (main[BLACK], periods[BLACK], main[WHITE], periods[WHITE])
        ev.append(("move", c, point, tick, clocks))
    ev.insert(3, ("incident", 3, 4, 5000, (pt(3, 2),), 0))  # captures left (move 4's press)
    ev.append(("result", BLACK, X.END_COUNT, 7, len(GO_MOVES)))  # B+3.5
    return ev


def test_go_sgf_has_every_property_and_replays(tmp_path):
    recs = journal_game(tmp_path, go_header(extra=json.dumps({"black": "Ke Jie"})), go_events())
    data = X.go_sgf(recs, white="Shin Jinseo")
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert root.get("GM") == 1 and root.get("FF") == 4
    assert root.get("SZ") == 9 and game.get_size() == 9
    assert root.get("RU") == "Chinese"
    assert root.get("KM") == 7.5
    assert not root.has_property("HA")
    assert root.get("RE") == "B+3.5"
    assert root.get("PB") == "Ke Jie" and root.get("PW") == "Shin Jinseo"
    assert root.get("DT") == "2026-01-01"
    assert root.get("TM") == 600
    assert root.get("OT") == "3x30 byo-yomi"
    assert root.get("PC") == "Tengen board TG-0001"
    nodes = game.get_main_sequence()[1:]
    assert len(nodes) == len(GO_MOVES)
    assert nodes[0].get("BL") == 555 and not nodes[0].has_property("OB")
    assert nodes[1].get("WL") == 555
    assert nodes[6].get("BL") == 30 and nodes[6].get("OB") == 3  # in byo-yomi
    assert nodes[9].get("WL") == 30 and nodes[9].get("OW") == 2  # a period used
    assert "captured stones still on the board" in nodes[3].get("C")
    assert "D3" in nodes[3].get("C")
    # The moves replay with the firmware rules to the journal's final position.
    moves = sgf_moves(game)
    assert moves == GO_MOVES
    journal_moves = [
        (m[1], None, None) if m[2] == R.PASS else (m[1], m[2] & 31, m[2] >> 5)
        for m in (r[1:] for r in recs if r[0] == R.MOVE)
    ]
    assert replay(9, moves) == replay(9, journal_moves)
    assert replay(9, moves)[2][3] == 0  # White's D3 stone was captured


def test_go_handicap_and_resignation(tmp_path):
    header = go_header(size=19, handicap=4, komi2=0, tc="cn-local", tc_figures=())
    ev = [
        ("move", WHITE, pt(16, 16), 5000, (3540000, 1, 3500000, 1)),
        ("move", BLACK, pt(2, 16), 9000, (3536000, 1, 3500000, 1)),
        ("result", WHITE, X.END_RESIGN, 0, 2),
    ]
    # The handicap game starts with White, so the first MOVE is White's (the journal's ply 1).
    recs = journal_game(tmp_path, header, ev)
    game = sgf.Sgf_game.from_bytes(X.go_sgf(recs))
    root = game.get_root()
    assert root.get("HA") == 4
    assert root.get("KM") == 0
    assert root.get("RE") == "W+R"
    assert root.get("OT") == "1 minute counted (读秒)"
    assert root.get("TM") == 3540  # 1 h, of which the last minute is counted
    black, white, _ = root.get_setup_stones()
    expect = {(y, x) for x, y in fixed_handicap(19, 4)}
    assert black == expect and not white
    assert root.get("PL") == "w"
    hcap = fixed_handicap(19, 4)
    moves = sgf_moves(game)
    assert moves == [(WHITE, 16, 16), (BLACK, 2, 16)]
    assert replay(19, moves, hcap)[16][16] == WHITE


@pytest.mark.parametrize(
    ("winner", "reason", "margin2", "edits", "expect"),
    [
        (BLACK, X.END_TIME, 0, [], "B+T"),
        (WHITE, X.END_TIME, 0, [], "W+T"),
        (BLACK, X.END_RESIGN, 0, [], "B+R"),
        (WHITE, X.END_COUNT, -1, [], "W+0.5"),
        (BLACK, X.END_COUNT, 12, [], "B+6"),
        (0, X.END_COUNT, 0, [], "0"),
        (WHITE, X.END_RULES, 0, [], "W+F"),
        (0, X.END_ARBITER, 0, [("edit", 11, 3, 0, (0,))], "0"),
        (0, X.END_ARBITER, 0, [("edit", 11, 3, 0, (3,))], "Void"),
        (BLACK, X.END_ARBITER, 0, [("edit", 11, 3, 0, (1,))], "B+"),
    ],
)
def test_go_results(tmp_path, winner, reason, margin2, edits, expect):
    ev = [
        ("move", BLACK, pt(4, 4), 100, (590000, 3, 600000, 3)),
        ("move", WHITE, pt(2, 2), 200, (590000, 3, 590000, 3)),
        *edits,
        ("result", winner, reason, margin2, 2),
    ]
    recs = journal_game(tmp_path, go_header(), ev)
    assert sgf.Sgf_game.from_bytes(X.go_sgf(recs)).get_root().get("RE") == expect


def test_go_unfinished_game_has_no_result(tmp_path):
    recs = journal_game(tmp_path, go_header(start=0), [("move", BLACK, pt(4, 4), 1, (1, 3, 2, 3))])
    root = sgf.Sgf_game.from_bytes(X.go_sgf(recs)).get_root()
    assert not root.has_property("RE") and not root.has_property("DT")


def test_arbiter_undo_and_timeout_pass(tmp_path):
    ev = [
        ("move", BLACK, pt(4, 4), 100, (590000, 3, 600000, 3)),
        ("move", WHITE, pt(2, 2), 200, (590000, 3, 590000, 3)),
        ("edit", 9, 2, 300, ()),  # the arbiter takes White's move back
        ("move", WHITE, pt(6, 6), 400, (590000, 3, 580000, 3)),
        ("edit", 12, 4, 500, ()),  # Black flagged: his turn becomes a pass (move 3)
        ("clocks", 4, (0, 0, 580000, 3)),
        ("move", WHITE, pt(2, 6), 600, (0, 0, 570000, 3)),
    ]
    recs = journal_game(tmp_path, go_header(), ev)
    game = sgf.Sgf_game.from_bytes(X.go_sgf(recs))
    assert sgf_moves(game) == [
        (BLACK, 4, 4),
        (WHITE, 6, 6),
        (BLACK, None, None),
        (WHITE, 2, 6),
    ]
    nodes = game.get_main_sequence()
    assert "move taken back" in nodes[2].get("C")
    assert "Black's time out turned into a pass" in nodes[3].get("C")
    assert not nodes[3].has_property("BL")  # no clocks were journaled for that pass
    replay(9, sgf_moves(game))


def test_canadian_stones_left(tmp_path):
    h = go_header(tc="canadian-25-10", tc_figures=(C.CANADIAN, 3600000, 600000, 0, 25))
    ev, tick = [], 0
    b_main, b_block = 10000, 600000
    for i in range(6):
        tick += 20000
        c = BLACK if i % 2 == 0 else WHITE
        if c == BLACK:
            if b_main:
                b_main = 0
                b_block = 600000 - 10000
            else:
                b_block -= 20000
        clocks = (b_main, b_block, 3000000, 600000)
        ev.append(("move", c, pt(i, 0), tick, clocks))
    recs = journal_game(tmp_path, h, ev)
    game = sgf.Sgf_game.from_bytes(X.go_sgf(recs))
    assert game.get_root().get("OT") == "25/600 Canadian"
    nodes = game.get_main_sequence()[1:]
    assert [n.get("OB") for n in nodes[0::2]] == [24, 23, 22]
    assert [n.get("BL") for n in nodes[0::2]] == [590, 570, 550]
    assert nodes[1].get("WL") == 3000 and not nodes[1].has_property("OW")


def test_overtime_texts():
    assert X.overtime_text(C.PRESETS["japanese-5x30"]) == "5x30 byo-yomi"
    assert X.overtime_text(C.PRESETS["cn-national"]) == "5 minutes counted (读秒)"
    assert X.overtime_text(C.PRESETS["fischer-30-30"]) == "30 s Fischer increment"
    assert X.overtime_text(C.PRESETS["ing-penalty"]).startswith("2x35 minutes penalty")
    assert "40 moves in 120 minutes" in X.overtime_text(C.PRESETS["renju-stages"])
    assert X.overtime_text(C.absolute(60000)) is None
    # A name that is no preset: the figures alone.
    tc = X.time_control({"tc": "mine", "tc_figures": (C.JAPANESE, 60000, 20000, 2, 0)})
    assert X.overtime_text(tc) == "2x20 byo-yomi"


def test_sgf_escaping(tmp_path):
    names = {"black": "A]b\\c", "white": "李 昌镐"}
    recs = journal_game(
        tmp_path,
        go_header(extra=json.dumps(names)),
        [("move", BLACK, pt(4, 4), 1, (1000, 3, 1000, 3))],
    )
    root = sgf.Sgf_game.from_bytes(X.go_sgf(recs)).get_root()
    assert root.get("PB") == "A]b\\c" and root.get("PW") == "李 昌镐"


# -- Renju -------------------------------------------------------------------------------------

RENJU_MOVES = [(7, 7), (7, 8), (8, 7), (6, 7), (9, 7), (10, 7), (8, 8), (6, 6), (8, 6)]


def renju_records(tmp_path, result=(BLACK, X.END_RULES, 0, 9), moves=RENJU_MOVES):
    header = {
        "kind": R.RENJU,
        "size": 15,
        "rules": "2013",
        "opening": "free",
        "tc": "renju-rif",
        "tc_figures": (C.FISCHER, 3600000, 0, 0, 0),
        "start": 1767225600,
    }
    ev, tick = [], 7000
    clocks = [3600000, 0, 3600000, 0]
    for i, (x, y) in enumerate(moves):
        tick += 1000 * (i + 1)
        c = BLACK if i % 2 == 0 else WHITE
        clocks[2 * (c - 1)] -= 1000 * (i + 1) - 30000
        point = R.PASS if x is None else pt(x, y)
        ev.append(("move", c, point, tick % (1 << 30), tuple(clocks)))
    if result:
        ev.append(("result", *result))
    return journal_game(tmp_path, header, ev)


def test_renju_sgf_gm4(tmp_path):
    recs = renju_records(tmp_path)
    data = X.gomoku_sgf(recs)
    # sgfmill's grammar reads the raw text: GM[4], and the moves as written.
    coarse = sgf_grammar.parse_sgf_game(data)
    assert coarse.sequence[0]["GM"] == [b"4"]
    assert coarse.sequence[0]["SZ"] == [b"15"]
    assert coarse.sequence[1]["B"] == [b"hh"]  # H8, the centre
    assert coarse.sequence[2]["W"] == [b"hg"]  # H9: SGF rows count from the top
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert root.get("GM") == 4 and root.get("RU") == "Renju 2013"
    assert root.get("RE") == "B+" and root.get("OT") == "30 s Fischer increment"
    assert root.get("TM") == 3600
    moves = [(m[1], m[0]) for _, m in (n.get_move() for n in game.get_main_sequence()[1:])]
    assert moves == RENJU_MOVES
    assert game.get_main_sequence()[1].get("BL") == 3629


def test_renju_psq_round_trip(tmp_path):
    recs = renju_records(tmp_path, result=(WHITE, X.END_TIME, 0, 9))
    text = X.psq(recs)
    lines = text.splitlines()
    assert lines[0] == "Piskvorky 15x15, 0:0, 0"
    assert lines[1] == "8,8,0"  # H8 (1-based, the row from the top: 15 - 7)
    assert lines[2] == "8,7,2000"  # H9, two seconds after the first press
    assert lines[-3:] == ["homo-1", "homo-2", str(X.PISKVORK_TIMEOUT)]
    size, moves = X.read_psq(text)
    assert size == 15
    assert [(x, y) for x, y, _ in moves] == RENJU_MOVES
    assert [t for _, _, t in moves] == [0] + [1000 * (i + 1) for i in range(1, 9)]
    assert set(X.export(recs)) == {"sgf", "psq"}


def test_renju_pass_draw(tmp_path):
    moves = RENJU_MOVES[:4] + [(None, None), (None, None)]
    recs = renju_records(tmp_path, result=(0, X.END_RULES, 0, 6), moves=moves)
    game = sgf.Sgf_game.from_bytes(X.gomoku_sgf(recs))
    assert game.get_root().get("RE") == "0"
    assert [n.get_move()[1] for n in game.get_main_sequence()[-2:]] == [None, None]
    with pytest.raises(ValueError, match="pass"):
        X.psq(recs)
    assert set(X.export(recs)) == {"sgf"}


def test_wrong_kind_refused(tmp_path):
    with pytest.raises(ValueError):
        X.go_sgf(renju_records(tmp_path))
    with pytest.raises(ValueError):
        X.read_game([])


# -- @sabaki/sgf --------------------------------------------------------------------------------

_SABAKI = """
const sgf = require(process.argv[process.argv.length - 1]);
const [root] = sgf.parse(require('fs').readFileSync(0, 'utf8'));
const out = {root: root.data, moves: []};
for (let node = root.children[0]; node; node = node.children[0])
  out.moves.push(node.data);
console.log(JSON.stringify(out));
"""


def _sabaki_module():
    # An @sabaki/sgf already on this machine (never installed by the test), found where the
    # GTP match finds @sabaki/gtp: ``(node, the package's folder)`` or None.
    from tests.host.test_gtp_match import node_package

    found = node_package("@sabaki/sgf")
    return None if found is None else (found[0], str(found[1] / "@sabaki" / "sgf"))


def test_sabaki_sgf_reads_it(tmp_path):
    found = _sabaki_module()
    if found is None:
        pytest.skip("@sabaki/sgf is not installed on this machine")
    node, module = found
    recs = journal_game(tmp_path, go_header(), go_events())
    r = subprocess.run(
        [node, "-e", _SABAKI, module],
        input=X.go_sgf(recs).decode(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(r.stdout)
    assert out["root"]["RU"] == ["Chinese"] and out["root"]["KM"] == ["7.5"]
    assert out["root"]["RE"] == ["B+3.5"] and out["root"]["OT"] == ["3x30 byo-yomi"]
    assert len(out["moves"]) == len(GO_MOVES)
    assert out["moves"][6]["OB"] == ["3"]


# -- verify ------------------------------------------------------------------------------------


def test_verify_live_and_packed(tmp_path):
    from host_tools.records import verify as V

    secret = b"board-secret-0001"
    j = Journal(str(tmp_path / "g"), free=lambda: 10 << 20)
    j.begin(go_header())
    g = j.game_no
    j.move(1, BLACK, pt(4, 4), 100, (1000, 3, 1000, 3))
    live = bytes(j.read(g))
    assert V.verify(live, secret, V.mac(secret, live)) == []
    edited = bytearray(live)
    edited[-8] ^= 1  # one bit in the last record
    assert V.check_records(bytes(edited))
    assert V.verify(bytes(edited), secret, V.mac(secret, live))
    j.result(BLACK, X.END_RESIGN, 0, 1)
    packed = bytes(j.read(g))
    assert packed[:4] != R.MAGIC and V.verify(packed, secret, V.mac(secret, packed)) == []
    assert V.check_records(packed.replace(b"TG-0001", b"TG-0002"))  # the seal tells
    tampered = bytes(R.seal(bytearray(packed[:-7].replace(b"TG-0001", b"TG-0002"))))
    assert tampered != packed
    assert V.check_records(tampered) == []  # a consistent edit, sealed anew: only the HMAC tells
    assert V.verify(tampered, secret, V.mac(secret, packed)) == [
        "HMAC does not match: the record was altered or is from another board"
    ]
    assert not V.verify_mac(b"other", packed, V.mac(secret, packed))
    assert not V.verify_mac(secret, packed, "not hex")
    assert V.crc32(b"123456789") == 0xCBF43926
