"""The ``tengen`` command: host-side tools for a Tengen board.

Each subcommand is a small function here; heavier work lives in its own module and is imported
inside the command, so ``tengen --help`` stays fast and a missing optional part only affects
the command that needs it.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Annotated

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


# ---- the link: boards, sync, export, verify -------------------------------------------------
# Exit codes: 0 done, 1 something failed (a game, a check, the link), 2 usage / no board.

EXIT_FAIL = 1
EXIT_USAGE = 2


def _secret(secret_hex: str | None):
    if secret_hex is None:
        return None
    try:
        return bytes.fromhex(secret_hex)
    except ValueError:
        err.print("[red]--secret must be hex (what `pair` gave)[/red]")
        raise typer.Exit(EXIT_USAGE) from None


@app.command()
def boards(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the Tengen boards on USB (2E8A:0005, confirmed by their hello)."""
    import json

    from rich.table import Table

    from host_tools.link import find_boards

    found = find_boards()
    if json_out:
        typer.echo(json.dumps(found))
    elif found:
        table = Table("port", "board", "firmware", "game")
        for b in found:
            table.add_row(b["port"], str(b.get("board")), str(b.get("fw")), str(b.get("game")))
        Console().print(table)
    else:
        err.print("No Tengen board found: is it plugged in and running its app?")
    if not found:
        raise typer.Exit(EXIT_USAGE)


@app.command()
def sync(
    port: str = typer.Option(None, "--port", "-p", help="Serial port (default: find the board)."),
    dest: str = typer.Option(".", "--dest", "-d", help="Folder for the games."),
    secret: str = typer.Option(None, "--secret", help="The board's key (hex) to check HMACs."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON summary."),
) -> None:
    """Bring every finished game home as SGF + JSON sidecar; acknowledge it once verified."""
    import json

    from rich.progress import Progress

    from host_tools import sync as S
    from host_tools.link import Link, LinkError, find_boards

    key = _secret(secret)
    if port is None:
        found = find_boards()
        if len(found) != 1:
            err.print(
                "No Tengen board found." if not found else "Several boards: choose with --port."
            )
            raise typer.Exit(EXIT_USAGE)
        port = found[0]["port"]
    try:
        with Link(port) as link, Progress(console=err, disable=json_out) as bar:
            task = bar.add_task("sync", total=None)

            def progress(event, game_no, done, total):
                bar.update(task, total=total, completed=done, description="game %d" % game_no)

            summary = S.sync(link, dest, progress=progress, secret=key)
    except LinkError as e:
        err.print("[red]The link to %s failed:[/red] %s" % (port, e))
        if json_out:
            typer.echo(json.dumps({"error": e.code, "message": e.message}))
        raise typer.Exit(EXIT_USAGE if e.code == "io" else EXIT_FAIL) from None
    if json_out:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(
            "%d written, %d acknowledged, %d already here, %d failed"
            % (
                len(summary["written"]),
                len(summary["acked"]),
                len(summary["present"]),
                len(summary["failed"]),
            )
        )
        for g, why in sorted(summary["failed"].items()):
            err.print("[red]game %d:[/red] %s" % (g, why))
    if summary["failed"]:
        raise typer.Exit(EXIT_FAIL)


@app.command()
def export(
    file: str = typer.Argument(..., help="A game's stored bytes (NNNNNN.bin from sync)."),
    out: str = typer.Option(None, "--out", "-o", help="Folder (default: next to FILE)."),
) -> None:
    """Write SGF (and .psq for Gomoku/Renju) of a game's stored bytes."""
    from pathlib import Path

    from host_tools import export as X
    from host_tools import sync as S

    src = Path(file)
    try:
        files = X.export(S.decode(src.read_bytes()))
    except OSError as e:
        err.print("[red]%s[/red]" % e)
        raise typer.Exit(EXIT_USAGE) from None
    except ValueError as e:  # records.Bad is a ValueError
        err.print("[red]%s: not a readable game: %s[/red]" % (file, e))
        raise typer.Exit(EXIT_FAIL) from None
    folder = Path(out) if out else src.parent
    folder.mkdir(parents=True, exist_ok=True)
    for ext, data in files.items():
        path = folder / (src.stem + "." + ext)
        S.write_atomic(path, data)
        typer.echo(str(path))


@app.command()
def verify(
    files: Annotated[list[str], typer.Argument(help="NNNNNN.bin files (and .json sidecars).")],
    secret: str = typer.Option(None, "--secret", help="The board's key (hex): check the HMAC."),
) -> None:
    """Check synced games: the records' CRC chain, the sidecar's CRC, and the HMAC."""
    import json
    from pathlib import Path

    from host_tools import verify as V

    key = _secret(secret)
    bad = 0
    for name in files:
        path = Path(name)
        try:
            data = path.read_bytes()
        except OSError as e:
            err.print("[red]%s[/red]" % e)
            raise typer.Exit(EXIT_USAGE) from None
        side = {}
        try:
            side = json.loads(path.with_suffix(".json").read_bytes())
        except (OSError, ValueError):
            pass
        problems = V.verify(data, key, side.get("hmac"))
        if "crc" in side and side["crc"] != V.crc32(data):
            problems.append("CRC differs from the sidecar's")
        if problems:
            bad += 1
            typer.echo("%s: FAILED: %s" % (name, "; ".join(problems)))
        else:
            typer.echo("%s: ok" % name)
    if bad:
        raise typer.Exit(EXIT_FAIL)
