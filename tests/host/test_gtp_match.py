"""tests/host/gtp_match.js, a match between two GTP engines run by a real GTP controller
(@sabaki/gtp's ``Controller``, from npm), played here GNU Go against GNU Go on 9x9; the moves
are replayed with the firmware's rules and the engines' scores compared.

Start reading at ``run_match``; ``node_and_gtp`` and ``find_gnugo`` say where the tools are
looked for (the journeys that put ``tengen gtp --board`` in a match reuse all three).
"""

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware.rules.coords import parse_vertex
from firmware.rules.go import BLACK, OK, WHITE, Game

ROOT = Path(__file__).resolve().parents[2]
MATCH = ROOT / "tests" / "host" / "gtp_match.js"
GNUGO_DEBIAN = "/usr/games/gnugo"  # Debian's package puts it outside root's usual PATH


def node_package(package: str) -> tuple[str, Path] | None:
    """``(node, node_modules folder holding the npm ``package``)`` or None when node or the
    package is missing (a test never installs it): $SABAKI_NODE_MODULES (e.g. ``npm install
    --prefix DIR``), the repository's .venv/node (``make venv``), its node_modules, npm's
    global root. Give the folder to node as NODE_PATH."""
    node = shutil.which("node")
    if not node:
        return None
    roots = [ROOT / ".venv" / "node" / "node_modules", ROOT / "node_modules"]
    if os.environ.get("SABAKI_NODE_MODULES"):
        roots.insert(0, Path(os.environ["SABAKI_NODE_MODULES"]))
    npm = shutil.which("npm")
    if npm:
        r = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=30)
        if r.returncode == 0 and r.stdout.strip():
            roots.append(Path(r.stdout.strip()))
    for root in roots:
        if (root / package / "package.json").exists():
            return node, root
    return None


def node_and_gtp() -> tuple[str, Path] | None:
    """``(node, node_modules folder holding @sabaki/gtp)``, or None (``node_package``)."""
    return node_package("@sabaki/gtp")


def find_gnugo() -> str | None:
    """GNU Go's path: on PATH, or where Debian's ``gnugo`` package puts it; None if neither."""
    found = shutil.which("gnugo")
    if found:
        return found
    if os.access(GNUGO_DEBIAN, os.X_OK):
        return GNUGO_DEBIAN
    return None


def need_tools() -> tuple[str, Path, str]:
    """``(node, node_modules, gnugo)``, or the calling test skipped saying what is missing."""
    found = node_and_gtp()
    if found is None:
        if not shutil.which("node"):
            pytest.skip("node is not installed on this machine")
        pytest.skip("@sabaki/gtp is not installed (make venv puts it in .venv/node)")
    gnugo = find_gnugo()
    if gnugo is None:
        pytest.skip("GNU Go is not installed (Debian: apt-get install gnugo; make venv does)")
    return found[0], found[1], gnugo


def gnugo_command(gnugo: str, seed: int, level: int = 1) -> str:
    """A shell command line for GNU Go as a GTP engine (the path quoted as a shell needs)."""
    return "%s --mode gtp --level %d --seed %d" % (shlex.quote(gnugo), level, seed)


def run_match(
    node: str,
    node_modules: Path,
    black: str,
    white: str,
    *extra: str,
    cwd: Path | None = None,
    timeout: float = 900,
) -> dict:
    """``node tests/host/gtp_match.js --black BLACK --white WHITE EXTRA...`` with
    NODE_PATH=node_modules; its JSON line as a dict (the engines' stderr stays on stderr)."""
    env = dict(os.environ, NODE_PATH=str(node_modules))
    args = [node, str(MATCH), "--black", black, "--white", white, *extra]
    if cwd is not None:
        args += ["--cwd", str(cwd)]
    done = subprocess.run(
        args, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd or ROOT
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout  # ONE JSON line
    return json.loads(lines[0])


def replay(moves: list, size: int) -> Game:
    """The match's moves played on the firmware's rules; each must be legal."""
    game = Game(size)
    for colour, vertex in moves:
        c = BLACK if colour == "B" else WHITE
        xy = parse_vertex(vertex, size)
        r = game.play(c, *(xy if xy is not None else (None, None)))
        assert r == OK, (colour, vertex, r, game.ply)
    return game


def test_gnugo_against_gnugo_on_9x9(tmp_path):
    node, node_modules, gnugo = need_tools()
    # The engines' folder has a space in its name: the command lines are split as a shell
    # splits them, quotes and all.
    folder = tmp_path / "engines dir"
    folder.mkdir()
    (folder / "gnugo").symlink_to(gnugo)
    black = gnugo_command(str(folder / "gnugo"), seed=11)
    white = gnugo_command(gnugo, seed=12)
    # time_settings 0 0 0 is GTP's "no time limit": sent, and GNU Go stays at its level.
    out = run_match(
        node,
        node_modules,
        black,
        white,
        *("--size", "9", "--komi", "6.5", "--main", "0", "--byo", "0", "--stones", "0"),
        cwd=tmp_path,
    )
    assert out["errors"] == []
    assert out["black"] == out["white"] == "GNU Go"
    assert out["versions"]["black"].startswith("3.")
    moves = out["moves"]
    assert moves and all(c == "BW"[i % 2] for i, (c, _) in enumerate(moves))
    game = replay(moves, 9)
    scores = out["scores"]
    assert scores["black"] == scores["white"] and scores["black"][:2] in ("B+", "W+")
    if out["end"] == "resign":  # GNU Go may resign a lost game (its default): the side to move
        assert out["result"] == ("W+R" if game.to_move == BLACK else "B+R")
    else:
        assert out["end"] == "passes" and game.passes == 2
        assert out["result"] == scores["black"]


def test_a_bad_engine_is_reported(tmp_path):
    # An engine that refuses genmove: the match stops there and says so in "errors".
    node, node_modules, gnugo = need_tools()
    refuser = tmp_path / "refuser.sh"
    refuser.write_text(
        "while read -r cmd rest; do case $cmd in\n"
        "  quit) printf '= \\n\\n'; exit 0;;\n"
        "  genmove) printf '? not today\\n\\n';;\n"
        "  name) printf '= Refuser\\n\\n';;\n"
        "  *) printf '= \\n\\n';;\n"
        "esac; done\n"
    )
    out = run_match(
        node,
        node_modules,
        gnugo_command(gnugo, seed=5),
        "sh %s" % shlex.quote(str(refuser)),
        *("--size", "9", "--komi", "6.5"),
        cwd=tmp_path,
    )
    assert out["white"] == "Refuser" and out["end"] == "error"
    assert len(out["moves"]) == 1 and out["moves"][0][0] == "B"
    assert {"side": "white", "command": "genmove W", "error": "not today"} in out["errors"]
