"""The ``tengen`` command: host-side tools for a Tengen board.

Each subcommand is a small function here; heavier work lives in its own module and is imported
inside the command, so ``tengen --help`` stays fast and a missing optional part only affects
the command that needs it.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

import typer
from rich.console import Console

app = typer.Typer(
    name="tengen", help="Tools for the Tengen Go/Gomoku board.", no_args_is_help=True
)
err = Console(stderr=True)


@app.command()
def version() -> None:
    """Print the installed version of the host tools."""
    try:
        typer.echo("tengen " + package_version("tengen"))
    except PackageNotFoundError:
        typer.echo("tengen (not installed; running from a source tree)")


@app.command()
def gtp() -> None:
    """Run the firmware's GTP engine on this PC (stdin/stdout), e.g. for a GTP GUI."""
    try:
        from firmware.gtp import main as run_engine
    except ModuleNotFoundError as e:
        if e.name != "firmware.gtp":
            raise
        err.print("[red]The GTP engine (firmware/gtp.py) is not in this tree yet.[/red]")
        raise typer.Exit(1) from None
    run_engine()
