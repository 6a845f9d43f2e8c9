"""The README's player walk, played as written: "For players: a game on the virtual board, to
the end", steps 1 to 4 and the headless block of the same game, taken from README.md's own
text, so that the test breaks when the README and the product drift apart.

The board is the virtual one without a terminal (``tests/host/board/test_virtual_board.py``'s
``Sim``: ``python -m host_tools.board.sim`` with stdin a pipe, a fresh flash folder), the PC user's
commands the installed ``tengen`` over its pty with a fresh data folder (``TENGEN_DATA_DIR``)
and config folder. What is checked is what a player reads: every ``face B ...`` line the
README quotes in the block is one the board printed off its glass, and every face text quoted
in steps 1 to 3 is one a face showed; step 4's sync says what the README says and puts the
game where it says. Then the PC user's table ("For the PC user"), each command as its row
writes it, on the same board: found without ``--port``, exit 0, and what the row says it does.
"""

import queue
import re
import shlex
from pathlib import Path

import pytest
from sgfmill import sgf

from tests.host.board.test_virtual_board import TENGEN, Sim, env  # noqa: F401 (env: a fixture)

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SECTION = README[
    README.index("## For players: a game on the virtual board") : README.index(
        "### Playing at the board"
    )
]
STEPS = SECTION[SECTION.index("\n1. `make sim`") : SECTION.index("\n\n", SECTION.index("\n4. "))]
AFTER = SECTION[SECTION.index("The same game without the view") :]
PRINTED = ("face ", "buzz ", "last ")  # the board's lines a comment may quote


def _step(n):
    """Step ``n``'s text (the numbered list of the walk)."""
    start = STEPS.index("\n%d. " % n)
    end = STEPS.find("\n%d. " % (n + 1), start)
    return STEPS[start : end if end >= 0 else len(STEPS)]


def _quoted(text):
    return re.findall(r"`([^`]+)`", text)


def _tengen(text, link):
    """The ``tengen`` command lines quoted in ``text``, as argument lists for this board."""
    found = []
    for q in _quoted(text):
        if q.startswith(".venv/bin/tengen "):
            args = shlex.split(q[len(".venv/bin/tengen ") :])
            found.append([link if a == "/dev/pts/4" else a for a in args])
    return found


def _faces_quoted(text):
    """The face texts quoted in a step: every quote but keys (one character), commands and
    paths."""
    return [
        q
        for q in _quoted(text)
        if len(q) > 1 and not q.startswith((".venv/", "make ", "~/", "1 written"))
    ]


def _block():
    """The headless block's commands, each with the printed lines its comments quote."""
    text = AFTER[AFTER.index("```\n") + 4 :]
    text = text[: text.index("```")]
    walk = []
    for line in text.splitlines():
        command, _, note = line.partition("#")
        command, note = command.strip(), note.strip()
        if command:
            walk.append((command, []))
        if note.startswith(PRINTED):
            walk[-1][1].append(note)
    return walk


def _shown(lines):
    return {ln[len("face B ") :] for ln in lines if ln.startswith("face ")}


def _pc_table(sim, tmp_path):
    """The PC user's table, each command as its first cell writes it (no ``--port``: the
    board is found), against the board the walk played on: the ones that need no other
    device, engine or terminal."""
    table = README[README.index("## For the PC user") : README.index("The arbiter's PIN is")]
    rows = [r.split("|")[1:3] for r in table.splitlines() if r.startswith("| `tengen ")]
    home = str(tmp_path / "data" / "games")
    ran = []
    for cell, says in rows:
        args = shlex.split(cell.strip().strip("`"))[1:]
        if args[0] in ("deploy", "image", "gtp", "play", "sim"):
            continue
        args = [home if a == "~/.local/share/tengen/games" else a for a in args]
        args = [str(tmp_path / a) if a.endswith(".bin") else a for a in args]
        if args[0] == "export":
            bins = sorted((tmp_path / "data" / "games").rglob("*.bin"))
            (tmp_path / "game.bin").write_bytes(bins[0].read_bytes())
        if args[0] == "watch":
            args.append("--once")  # the row's one picture: the live view would not end
        start = len(sim.said)
        if args[0] == "pair":  # as its row says: the board's own PIN first, then MODE
            pin_first = re.search(r"`tengen (settings pin=\S+ --pin 0000)`", says)
            assert pin_first and "`PAIR ?`" in says and "MODE" in says, says
            sim.tengen(*pin_first.group(1).split())
            out = sim.pair(*args[1:])
        else:
            out = sim.tengen(*args)  # exit 0: ``verify`` too, as ``pair`` came before it
        ran.append(args[0])
        if args[0] == "boards":
            assert sim.link in out and sim.board_id in out, out
        elif args[0] == "pair":
            assert sim.board_id in out, out
        elif args[0] == "verify":
            assert out.strip().endswith(": ok"), out
        elif args[0] == "export":
            assert (tmp_path / "game.sgf").exists(), out
        elif args[0] == "watch":
            assert "result: W+2.5" in out, out
        elif args[0] == "selftest":
            faces = re.findall(r"`(TEST\.[A-Z]*)`", says)  # the faces the row quotes
            assert faces == ["TEST.", "TEST.OK"], says
            for face in faces:  # the board's lines are read as they come (until)
                if "face B " + face not in sim.said[start:]:
                    sim.until(lambda line, face=face: line == "face B " + face, timeout=10)
    assert ran == [
        "boards",
        "time",
        "settings",
        "game",
        "pair",
        "sync",
        "verify",
        "export",
        "watch",
        "selftest",
    ], ran


@pytest.mark.slow(18)
def test_the_readme_walk_as_written(tmp_path, env):  # noqa: F811
    env["TENGEN_DATA_DIR"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    assert 'SIM_ARGS="--headless --flash' in AFTER  # the block is for the headless board
    walk = _block()
    assert len(walk) > 20 and sum(len(q) for _, q in walk) > 10, walk
    sim = Sim(tmp_path / "flash", env)
    try:
        # Step 1: the settings, the calendar time, the names, as the README types them.
        lines = _tengen(_step(1), sim.link)
        assert [a[0] for a in lines] == ["settings", "time", "game"], lines
        for args in lines:
            sim.tengen(*args)
        sim.do("wait 300")
        for face in _faces_quoted(_step(1)):
            assert "face B " + face in sim.said and "face W " + face in sim.said, (face, sim.said)

        # Steps 2 and 3 as the block plays them: each quoted line printed after its command.
        for command, quoted in walk:
            start = len(sim.said)
            sim.do(command)
            for want in quoted:
                if want not in sim.said[start:]:  # a face's report may follow the echo
                    try:
                        sim.until(lambda line, want=want: line == want, timeout=10)
                    except queue.Empty:
                        said = sim.said[start:]
                        raise AssertionError(
                            "after %r: not %r but %r" % (command, want, said)
                        ) from None
        shown = _shown(sim.said)
        for n in (2, 3):
            for face in _faces_quoted(_step(n)):
                assert face in shown, (n, face, sorted(shown))

        # Step 4: sync, its words and the files where the README puts them.
        [args] = _tengen(_step(4), sim.link)
        assert args[0] == "sync"
        out = sim.tengen(*args)
        said = re.search(r"`(1 written[^`]*)`", _step(4)).group(1)
        assert said in out, out

        _pc_table(sim, tmp_path)
    finally:
        sim.close()
    home = tmp_path / "data" / "games"  # ~/.local/share/tengen, moved by TENGEN_DATA_DIR
    path = re.search(r"`~/\.local/share/tengen/games/([^`]+)`", _step(4)).group(1)
    # <date> is the game's (its start, by the board's calendar): found, not guessed, so a run
    # across midnight finds it too.
    pattern = path.replace("<board id>", sim.board_id).replace("<date>", "*")
    [sgf_path] = home.glob(pattern)
    for suffix in (".sgf", ".bin", ".json"):
        assert sgf_path.with_suffix(suffix).exists(), sorted(home.rglob("*"))
    assert (home / "index.csv").exists()
    root = sgf.Sgf_game.from_bytes(sgf_path.read_bytes()).get_root()
    results = {q for q in _faces_quoted(_step(3)) if q.startswith(("B+", "W+")) and " " not in q}
    assert results == {root.get("RE")}, (results, root.get("RE"))  # the faces' result, the SGF's
    assert (root.get("PB"), root.get("PW")) == ("Ke Jie", "Shin Jinseo")
