"""What every package's commands share: the exit codes, the ``--port`` option, the board
found on USB, a failed link said the same way; and ``tengen boards`` (the link's own command).

Start reading at ``find_port``. The root (``host_tools/cli.py``) assembles the commands; each
package's ``cli.py`` holds its own, their options beside the code they drive.
"""

import typer
from rich.console import Console

# Messages are never broken by rich at the terminal's width: a path or a reason stays on one line,
# whole, for the reader to copy and for the scripts that read it (COLUMNS does not change them).
err = Console(stderr=True, soft_wrap=True)


# ---- the link: the board found, a failure said, tengen boards ------------------------------
# Exit codes: 0 done, 1 something failed (a game, a check, the link), 2 usage / no board;
# verify: 3 nothing failed but some HMACs were not checked (host_tools/records/verify.py).

EXIT_FAIL = 1
EXIT_USAGE = 2


def find_port(port: str | None) -> str:
    # ``--port``, or the one board on USB; exit 2 when there is none or several.
    if port is not None:
        return port
    from host_tools.common.link import find_boards

    unreachable: list = []
    found = find_boards(unreachable=unreachable)
    if len(found) != 1:
        err.print("No Tengen board found." if not found else "Several boards: choose with --port.")
        if not found:
            say_unreachable(unreachable)
        raise typer.Exit(EXIT_USAGE)
    return found[0]["port"]


def say_unreachable(unreachable: list) -> None:
    # The ports find_boards tried and could not use, and why (busy, permission...).
    for u in unreachable:
        err.print("%s: %s" % (u["error"], u["message"]), markup=False, highlight=False)


def link_failed(port: str, e, json_out: bool = False):
    # Report a ``LinkError``; the exit: 2 if the port could not be used, else 1.
    import json

    err.print("[red]The link to %s failed:[/red] %s" % (port, e))
    if json_out:
        typer.echo(json.dumps({"error": e.code, "message": e.message}))
    return typer.Exit(EXIT_USAGE if e.code == "io" else EXIT_FAIL)


PORT = typer.Option(None, "--port", "-p", help="Serial port (default: find the board).")


def boards(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the Tengen boards on USB (2E8A:0005), the virtual ones (tengen sim) and the emulated
    ones (an RP2040 on rp2040js, host_tools/board/emulator.py), each confirmed by its hello; and the ports that could not be used, with why (busy, permission
    denied, no answer). --json: one list, the boards ("ok": true, their hello) then those
    ports ("ok": false, "error", "message")."""
    import json

    from rich.table import Table

    from host_tools.common.link import find_boards

    unreachable: list = []
    found = find_boards(unreachable=unreachable)
    if json_out:
        typer.echo(json.dumps(found + unreachable))
    else:
        if found:
            table = Table("port", "board", "firmware", "game")
            for b in found:
                table.add_row(b["port"], str(b.get("board")), str(b.get("fw")), str(b.get("game")))
            Console().print(table)
            for b in found:  # what the board says went wrong: its last boot, its faults
                if b.get("boot_error"):
                    typer.echo("%s: the previous boot failed: %s" % (b["port"], b["boot_error"]))
                for fault in b.get("faults") or ():
                    typer.echo("%s: %s" % (b["port"], fault))
                heap = b.get("heap") or {}
                if heap.get("free", -1) >= 0:  # the board's budgets (bench/README.md)
                    typer.echo(
                        "%s: heap %d B free (least %d, after build %d); first face at %d ms"
                        % (b["port"], heap["free"], heap.get("low", -1),
                           heap.get("built", -1), b.get("face_ms", -1))
                    )  # fmt: skip
        else:
            err.print("No Tengen board found: is it plugged in and running its app?")
        say_unreachable(unreachable)
    if not found:
        raise typer.Exit(EXIT_USAGE)
