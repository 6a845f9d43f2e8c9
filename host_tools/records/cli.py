"""The records' commands: ``tengen sync`` (the games home), ``export``, ``verify`` and
``pair`` (the board's key, kept for sync and verify: host_tools/common/keys.py).

Start reading at ``sync`` (host_tools/records/sync.py drives it).
"""

from typing import Annotated

import typer

from host_tools.common.cli import EXIT_FAIL, EXIT_USAGE, PORT, err, find_port, link_failed


def _secret(secret_hex: str | None):
    if secret_hex is None:
        return None
    try:
        return bytes.fromhex(secret_hex)
    except ValueError:
        err.print("[red]--secret must be hex (what `pair` gave)[/red]")
        raise typer.Exit(EXIT_USAGE) from None


def _stored_key(board: str | None):
    # The key ``pair`` stored for ``board`` (None if none).
    if not board:
        return None
    from host_tools.common import keys

    return keys.get(board)


def sync(
    port: str = PORT,
    dest: str = typer.Option(
        None,
        "--dest",
        "-d",
        help="Root folder for the games, each board's in DIR/<board id>/ (default: the user"
        " data folder's games/, or $TENGEN_DATA_DIR/games).",
    ),
    refetch: bool = typer.Option(
        False,
        "--refetch",
        help="Also fetch the games the board still keeps that were acknowledged elsewhere"
        " (another PC or folder).",
    ),
    secret: str = typer.Option(
        None, "--secret", help="The board's key (hex) to check HMACs (default: the paired one)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON summary."),
) -> None:
    """Bring every finished game home as SGF + JSON sidecar into the board's own folder
    (DATE_GAME.sgf, .bin, .json; index.json and index.csv list them all); acknowledge each
    game once verified."""
    import json

    from rich.progress import Progress

    from host_tools.common.link import Link, LinkError, set_clock
    from host_tools.records import sync as S

    key = _secret(secret)
    port = find_port(port)
    try:
        with Link(port) as link, Progress(console=err, disable=json_out) as bar:
            set_clock(link)
            if key is None:
                key = _stored_key(str(link.request("hello").get("board", "")))
            task = bar.add_task("sync", total=None)

            def progress(event, game_no, done, total):
                bar.update(task, total=total, completed=done, description="game %d" % game_no)

            summary = S.sync(link, dest, progress=progress, secret=key, refetch=refetch)
    except LinkError as e:
        raise link_failed(port, e, json_out) from None
    except OSError as e:  # the folder could not be made or written
        err.print("[red]%s[/red]" % e)
        raise typer.Exit(EXIT_FAIL) from None
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
        if summary["refetched"]:
            typer.echo("%d of them acknowledged elsewhere before" % len(summary["refetched"]))
        if summary["not_here"]:
            typer.echo(
                "%d acknowledged elsewhere and not here (--refetch fetches them)"
                % len(summary["not_here"])
            )
        typer.echo("games: %s" % summary["folder"])
        if summary["index"]:
            typer.echo("index: %s" % summary["index"])
        for g, why in sorted(summary["failed"].items()):
            err.print("[red]game %d:[/red] %s" % (g, why))
    if summary.get("index_error"):
        err.print("[red]The index could not be written:[/red] %s" % summary["index_error"])
    if summary["failed"]:
        raise typer.Exit(EXIT_FAIL)


def export(
    file: str = typer.Argument(..., help="A game's stored bytes (NNNNNN.bin from sync)."),
    out: str = typer.Option(None, "--out", "-o", help="Folder (default: next to FILE)."),
) -> None:
    """Write SGF (and .psq for Gomoku/Renju) of a game's stored bytes. The SGF carries the
    record and the HMAC from the sidecar beside FILE (NNNNNN.json, as sync wrote it), so that
    `tengen verify` can check the SGF alone."""
    from pathlib import Path

    from host_tools.records import export as X
    from host_tools.records import sync as S
    from host_tools.records import verify as V

    src = Path(file)
    try:
        data = src.read_bytes()
        side, _ = V.read_side(src)  # no sidecar, or a bad one: an SGF without the HMAC
        files = X.export(S.decode(data), proof=(data, (side or {}).get("hmac")))
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


def verify(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Games' .bin files as sync wrote them (each with its .json sidecar beside it),"
            " SGF files (checked alone: the record inside), or folders of them."
        ),
    ],
    secret: str = typer.Option(
        None, "--secret", help="The board's key (hex): check the HMAC (default: the paired one)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON report."),
) -> None:
    """Check synced games: the checksums in each game's bytes (a finished game's seal, a live
    game's CRC chain), the sidecar's CRC, and the HMAC with the board's key. One line a file:
    ok, "ok, HMAC not checked (why)" or "FAILED: why". Exit 0: all ok; 3: nothing failed but
    some HMACs were not checked (board not paired, no sidecar); 1: something failed. The key is
    the one paired with the board the record names (never the sidecar's word); with a key at
    hand, a game without an HMAC is FAILED. An SGF is checked by the record it carries, then
    written again from that record and compared byte for byte: any edit is FAILED, named."""
    import json

    from host_tools.records import check as C
    from host_tools.records import verify as V

    key = _secret(secret)
    reports = C.verify_paths(files, key, _stored_key)
    code = V.exit_code(reports)
    if json_out:
        typer.echo(json.dumps(V.summary(reports)))
    else:
        for report in reports:
            typer.echo(V.line(report))
        if len(reports) > 1:
            s = V.summary(reports)
            err.print(
                "%d ok, %d HMAC not checked, %d failed"
                % (s["ok"], s["hmac_not_checked"], s["failed"])
            )
    if code:
        raise typer.Exit(code)


def pair(
    pin: str = typer.Option(..., "--pin", help="The arbiter's PIN (not the factory 0000)."),
    port: str = PORT,
    timeout: float = typer.Option(
        30.0, "--timeout", metavar="S", help="Seconds to wait for MODE at the board."
    ),
) -> None:
    """Get the board's key (its games' HMAC secret) and keep it for sync and verify; from then
    on the board obeys only a PC holding it. The board must have a PIN of its own (tengen
    settings pin=NNNN --pin 0000 first), and the arbiter confirms at the board: its faces say
    PAIR ?, and MODE gives the key."""
    import time

    from host_tools.common import keys
    from host_tools.common.link import Link, LinkError, set_clock

    port = find_port(port)
    told = False
    try:
        with Link(port) as link:
            set_clock(link)
            end = time.monotonic() + timeout
            while True:
                try:
                    reply = link.request("pair", pin=pin)
                    break
                except LinkError as e:
                    if e.code == "factory_pin":
                        raise LinkError(
                            e.code,
                            "the board still has the factory PIN 0000: give it one of its "
                            "own first (tengen settings pin=NNNN --pin 0000), then pair with it",
                        ) from None
                    if e.code != "press_key":
                        raise
                    if not told:  # the board shows PAIR ? and waits for MODE
                        err.print("Press MODE on the board to confirm (its faces say PAIR ?) ...")
                        told = True
                    if time.monotonic() > end:
                        raise LinkError(
                            "press_key", "no MODE press at the board within %g s" % timeout
                        ) from None
                    time.sleep(0.25)
    except LinkError as e:
        raise link_failed(port, e) from None
    board = str(reply.get("board", ""))
    try:
        secret = bytes.fromhex(str(reply.get("secret", "")))
    except ValueError:
        secret = b""
    if not board or not secret:
        err.print("[red]The board's answer has no board id or key.[/red]")
        raise typer.Exit(EXIT_FAIL)
    try:
        path = keys.store(board, secret)
    except OSError as e:
        err.print("[red]The key could not be stored: %s[/red]" % e)
        raise typer.Exit(EXIT_FAIL) from None
    typer.echo("Paired with board %s; its key is in %s" % (board, path))
