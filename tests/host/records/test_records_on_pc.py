"""Games played at the (virtual) board end on the PC with complete, correct records (issue H).

The board is the virtual one, started as ``make sim`` starts it; everything the PC user does
goes through the installed ``tengen`` command over its pseudo-terminal: the players' names,
the calendar time, the game, then ``tengen sync``. The names belong to one game (issue 24):
kept whole, refused when too long, swapped by a Renju swap, kept by a game resumed after a
power cut, not carried into the next game. The SGF that arrives is read by sgfmill
(and @sabaki/sgf where node has it) and every property checked: DT, PC, KM, PB/PW, EV, RO,
RE with its reason, per-move BL/WL, and the incidents at the right points.
"""

import datetime
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from sgfmill import sgf

from host_tools.common.link import Link, LinkError
from tests.host.board.test_virtual_board import TENGEN, Sim, env, grid  # noqa: F401 (env: a fixture)
from tests.host.records.test_export import _SABAKI, _sabaki_module

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def _sgfs(home):
    return sorted(Path(home).rglob("*.sgf"))


def _names(sim):
    sim.tengen(
        "game",
        "--port",
        sim.link,
        "--black",
        "柯洁 Ke Jie",
        "--white",
        "Shin Jinseo",
        "--event",
        "Tengen Cup",
        "--round",
        "3",
        "--table",
        "12",
    )


@pytest.mark.slow(10)
def test_a_go_game_with_incidents_arrives_complete(tmp_path, env):  # noqa: F811
    sim = Sim(tmp_path / "flash", env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        sim.tengen("time", "--port", sim.link, "--set")
        _names(sim)
        today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        sim.do("key pause")
        for v, c in (("D2", "b"), ("C2", "w"), ("C3", "b"), ("E5", "w"), ("B2", "b")):
            sim.do("put %s %s" % (grid(v), c), "press %s" % c)
        sim.do("put %s w" % grid("F5"), "press w")
        sim.do("put %s b" % grid("C1"), "press b")  # takes C2, still on the board: refused
        assert "buzz REFUSE" in sim.said
        sim.do("lift %s" % grid("C2"), "press b")
        sim.do("press w", "press b", "wait 1600")  # two passes
        sim.do("key mode", "wait 300", "press b", "press w", "wait 300")  # count, both agree
        out = sim.tengen("sync", "--port", sim.link, "--dest", str(tmp_path / "home"))
        assert "1 written" in out, out
    finally:
        sim.close()
    [path] = _sgfs(tmp_path / "home")
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    root = game.get_root()
    assert root.get("DT") == today
    assert sim.board_id in root.get("PC")
    assert root.get("KM") == 5.5  # the 1988 rules' 2¾ stones, the board's default
    assert root.get("PB") == "柯洁 Ke Jie" and root.get("PW") == "Shin Jinseo"
    assert root.get("EV") == "Tengen Cup" and root.get("RO") == "3"
    assert "table 12" in root.get("GC")
    # Black 4 stones and the eye at C2, White 2, the rest shared; komi 2¾: White by 1¼ stones.
    assert root.get("RE") == "W+2.5"
    assert "白胜1¼子" in root.get("C")
    assert root.get("TM") == 600 and root.get("OT") == "3x30 byo-yomi"
    nodes = game.get_main_sequence()[1:]
    moves = [n.get_move() for n in nodes]
    xy = [(c, None if p is None else COLUMNS[p[1]] + str(p[0] + 1)) for c, p in moves]
    assert xy == [
        ("b", "D2"),
        ("w", "C2"),
        ("b", "C3"),
        ("w", "E5"),
        ("b", "B2"),
        ("w", "F5"),
        ("b", "C1"),
        ("w", None),
        ("b", None),
    ]
    assert all(n.has_property("BL") or n.has_property("WL") for n in nodes)
    # The refused press: its incident names the stone still on the board, C2 (not M1, N1).
    c1 = nodes[6].get("C")
    assert "captured stones still on the board" in c1 and "at C2" in c1, c1
    # The sidecar keeps the same point in the records' one encoding, y << 5 | x.
    side = json.loads(path.with_suffix(".json").read_text())
    left = [i for i in side["incidents"] if i["kind"] == 3]  # incidents.CAPTURES_LEFT
    assert left and all(i["points"] == [1 << 5 | 2] for i in left), side["incidents"]
    found = _sabaki_module()
    if found is not None:  # a second reader of every property
        node, module = found
        r = subprocess.run(
            [node, "-e", _SABAKI, module],
            input=path.read_text(),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        out = json.loads(r.stdout)
        assert out["root"]["RE"] == ["W+2.5"] and out["root"]["DT"] == [today]
        assert out["root"]["PB"] == ["柯洁 Ke Jie"] and len(out["moves"]) == 9


RENJU_OFF = 2  # Renju's 15x15 sits in the middle of the 19x19 grid: its H8 is the grid's K10
GOMOKU = "ABCDEFGHIJKLMNO"


def rgrid(v):
    """The grid's point (Go columns, no I) of a Renju vertex (A–O, no letter skipped)."""
    x = GOMOKU.index(v[0]) + RENJU_OFF
    return "%s%d" % (COLUMNS[x], int(v[1:]) + RENJU_OFF)


@pytest.mark.slow(8)
def test_a_renju_foul_arrives_with_its_reason(tmp_path, env):  # noqa: F811
    sim = Sim(tmp_path / "flash", env)
    try:
        sim.tengen(
            "settings",
            "--port",
            sim.link,
            "game=renju",
            "opening=designated",
            "offers=2",
            "claims=auto",
        )
        _names(sim)
        sim.do("key pause")
        for v, c in (("H8", "b"), ("H9", "w"), ("I8", "b")):
            sim.do("put %s %s" % (rgrid(v), c), "press %s" % c)
        sim.do("key mode")  # the swap
        sim.do("put %s w" % rgrid("G8"), "press w")
        sim.do("put %s b" % rgrid("I10"), "put %s b" % rgrid("F6"), "press b")  # two offers
        sim.do("lift %s" % rgrid("F6"), "put %s w" % rgrid("M3"), "press w")
        sim.do("put %s b" % rgrid("J10"), "press b", "put %s w" % rgrid("N3"), "press w")
        sim.do("put %s b" % rgrid("I9"), "press b", "wait 300")  # a double-three
        out = sim.tengen("sync", "--port", sim.link, "--dest", str(tmp_path / "home"))
        assert "1 written" in out, out
    finally:
        sim.close()
    [path] = _sgfs(tmp_path / "home")
    root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
    # No `tengen time --set` here: every tengen command sets the board's clock on connect.
    assert root.get("DT") == datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    assert root.get("RE") == "W+F"
    assert "double-three" in root.get("C") and "002 第十条1(2)" in root.get("C")
    assert root.get_raw("GM") == b"4" and root.get("RU").startswith("Renju")
    # White took Black after move 3 (三手可交换): the one who set up as White plays Black
    assert root.get("PB") == "Shin Jinseo" and root.get("PW") == "柯洁 Ke Jie"
    nodes = sgf.Sgf_game.from_bytes(path.read_bytes()).get_main_sequence()
    said = [n.get("C") for n in nodes if n.has_property("C")]
    assert any("the swap: White took Black after move 3 (三手可交换)" in c for c in said), said
    index = json.loads((tmp_path / "home" / "index.json").read_text())
    [entry] = index["games"] if isinstance(index, dict) else index
    assert (entry["black"], entry["white"]) == ("Shin Jinseo", "柯洁 Ke Jie")


LONGEST_BLACK = "柯洁" * 16  # 32 characters (96 bytes): the most a name may have, kept whole
LONGEST_WHITE = "Shin Jinseo of the Korea Baduk A"  # 32 characters


@pytest.mark.slow(7)
def test_the_names_belong_to_the_next_game_only(tmp_path, env):  # noqa: F811
    """``tengen game`` names the next game's players: kept whole in its SGF (the longest
    names the README allows, Chinese too), refused with words when longer, and not carried
    into the game after it."""

    sim = Sim(tmp_path / "flash", env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        # One character too many: refused by the command, and by the board's link itself.
        r = subprocess.run(
            [str(TENGEN), "game", "--port", sim.link, "--black", "柯" * 33],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        want = "black: 33 characters, at most 32 (a Chinese character counts as one)"
        assert r.returncode == 2 and want in " ".join(r.stderr.split()), r.stderr
        with Link(sim.link) as link:
            try:
                link.request("settings", set={"white": "W" * 33})
                raise AssertionError("a 33-character name was taken")
            except LinkError as e:
                assert e.code == "bad_value" and "white: 33 characters, at most 32" in e.message
        out = sim.tengen(
            "game", "--port", sim.link, "--black", LONGEST_BLACK, "--white", LONGEST_WHITE
        )
        assert LONGEST_BLACK in out and LONGEST_WHITE in out, out
        sim.do("key pause")  # game 1 starts with them ...
        out = sim.tengen("game", "--port", sim.link, "--json")
        assert json.loads(out) == dict.fromkeys(("black", "white", "event", "round", "table"), "")
        sim.do("put %s b" % grid("E5"), "press b", "put %s w" % grid("C3"), "press w")
        sim.do("key plus+minus", "key mode", "wait 300")  # Black resigns
        # ... game 2 has none: the next game, its stones off the board, started
        sim.do("key pause", "lift %s" % grid("E5"), "lift %s" % grid("C3"), "key pause")
        sim.do("put %s b" % grid("D4"), "press b", "key plus+minus", "key mode", "wait 300")
        out = sim.tengen("sync", "--port", sim.link, "--dest", str(tmp_path / "home"))
        assert "2 written" in out, out
    finally:
        sim.close()
    first, second = (sgf.Sgf_game.from_bytes(p.read_bytes()) for p in _sgfs(tmp_path / "home"))
    root = first.get_root()
    assert root.get("PB") == LONGEST_BLACK and root.get("PW") == LONGEST_WHITE
    assert root.get("RE") == "W+R"
    assert "result: Black resigned (黑方认输)" in root.get("C")
    root = second.get_root()
    assert not root.has_property("PB") and not root.has_property("PW")
    index = json.loads((tmp_path / "home" / "index.json").read_text())
    games = index["games"] if isinstance(index, dict) else index
    assert [(g["black"], g["white"]) for g in sorted(games, key=lambda g: g["game"])] == [
        (LONGEST_BLACK, LONGEST_WHITE),
        (None, None),
    ]


@pytest.mark.slow(10)
def test_a_game_resumed_after_a_power_cut_keeps_its_names(tmp_path, env):  # noqa: F811
    """The names went with the game when it started; the power goes mid-game; the board
    resumes it on its flash (its settings hold no names now) and the SGF still names the
    game's players."""
    flash = tmp_path / "flash"
    sim = Sim(flash, env)
    try:
        sim.tengen("settings", "--port", sim.link, "game=go", "size=9", "time=quick")
        _names(sim)
        sim.do("key pause", "put %s b" % grid("E5"), "press b")
        os.kill(sim.note()["board_pid"], signal.SIGKILL)  # the power goes
        with pytest.raises(EOFError):
            sim.until(lambda line: False)
    finally:
        sim.close()
    again = Sim(flash, env)
    try:
        out = again.tengen("game", "--port", again.link, "--json")
        assert not any(json.loads(out).values()), out  # the board's settings: none now
        again.do("key pause", "put %s w" % grid("C3"), "press w")  # play goes on
        again.do("key plus+minus", "key mode", "wait 300")  # Black, to move, resigns
        out = again.tengen("sync", "--port", again.link, "--dest", str(tmp_path / "home"))
        assert "1 written" in out, out
    finally:
        again.close()
    [path] = _sgfs(tmp_path / "home")
    root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
    assert root.get("PB") == "柯洁 Ke Jie" and root.get("PW") == "Shin Jinseo"
    assert root.get("EV") == "Tengen Cup" and root.get("RE") == "W+R"
