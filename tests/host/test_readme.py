"""The README's commands are the real ones: every ``tengen`` command line it shows names a
command that exists with options it has, every ``make`` target is in the Makefile, and the
settings table lists exactly the board's settings (firmware/settings.py). The journeys those
commands make are tested end to end elsewhere (tests/host/board/test_virtual_board.py,
test_records_on_pc.py, test_sync_boards.py, test_watch.py, test_verify.py).
"""

import re
from pathlib import Path

from typer.testing import CliRunner

from firmware import settings as S
from host_tools.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _tengen_lines():
    # Every `tengen ...` in backticks or a code block, without the .venv/bin/ prefix.
    found = set()
    for m in re.finditer(r"(?:\.venv/bin/)?\btengen ([a-z][a-z-]*)([^`\n|]*)", README):
        found.add((m.group(1), m.group(2)))
    return sorted(found)


def test_every_tengen_command_in_the_readme_exists_with_its_options():
    runner = CliRunner()
    helps = {}
    lines = _tengen_lines()
    commands = {c for c, _ in lines}
    assert {"boards", "sync", "verify", "watch", "settings", "game", "pair", "time"} <= commands
    for cmd, rest in lines:
        if cmd not in helps:
            r = runner.invoke(app, [cmd, "--help"])
            assert r.exit_code == 0, (cmd, r.output)
            helps[cmd] = r.output
        # Options inside quotes are another program's (the engine of ``tengen play``).
        for opt in re.findall(r"(--[a-z][a-z-]*)", re.sub(r'"[^"]*"', '""', rest)):
            assert opt in helps[cmd], (cmd, opt)


def test_every_make_target_in_the_readme_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    for t in set(re.findall(r"`make ([a-z][a-z-]*)", README)):
        assert t in targets, t


def test_the_settings_table_is_the_boards_settings():
    table = README[README.index("The settings (") :]
    table = table[: table.index("\n\n## ")]
    keys = set()
    for row in table.splitlines()[4:]:
        keys.update(re.findall(r"`([a-z_0-9]+)`", row.split("|")[1]))
    assert keys == set(S.DEFAULTS), keys ^ set(S.DEFAULTS)
    assert "`0000`" in README and "tengen settings pin=" in README  # the PIN and its change
