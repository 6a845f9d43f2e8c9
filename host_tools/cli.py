"""The ``tengen`` command: host-side tools for a Tengen board.

Start reading at ``COMMANDS``: every command, in the order ``tengen --help`` lists them, and
the package whose ``cli.py`` holds it. Each command is a small function there, its options
beside the code it drives; heavier work lives in the package's modules and is imported inside
the command, so ``tengen --help`` stays fast and a missing optional part only affects the
command that needs it. What the commands share (exit codes, ``--port``, the board found on
USB) is ``host_tools/common/cli.py``.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

import typer

from host_tools.board import cli as board
from host_tools.common import cli as common
from host_tools.hall import cli as hall
from host_tools.live import cli as live
from host_tools.play import cli as play
from host_tools.records import cli as records

app = typer.Typer(
    name="tengen", help="Tools for the Tengen Go/Gomoku board.", no_args_is_help=True
)


def version() -> None:
    """Print the installed version of the host tools."""
    try:
        typer.echo("tengen " + package_version("tengen"))
    except PackageNotFoundError:
        typer.echo("tengen (not installed; running from a source tree)")


# The commands by the user they serve: play (an engine, GTP), the board itself (the virtual
# board, its image, time, self-test, settings, next game, deploy), the records (sync, export,
# verify, pair), the live view (watch), the tournament hall (relay, hall, hall-keys, broker).
COMMANDS = [
    ("version", version),
    ("gtp", play.gtp),
    ("play", play.play),
    ("sim", board.sim),
    ("boards", common.boards),
    ("sync", records.sync),
    ("export", records.export),
    ("verify", records.verify),
    ("time", board.time_),
    ("selftest", board.selftest),
    ("settings", board.settings),
    ("game", board.game),
    ("pair", records.pair),
    ("watch", live.watch),
    ("relay", hall.relay),
    ("hall", hall.hall),
    ("hall-keys", hall.hall_keys),
    ("broker", hall.broker_),
    ("deploy", board.deploy),
]
for name, command in COMMANDS:
    app.command(name)(command)
app.add_typer(board.image_app, name="image")  # tengen image check
