"""The board's tools: ``tengen sim`` (the virtual board), ``tengen image check``, the board's
time, self-test, settings and next game, and ``tengen deploy``.

Start reading at ``deploy`` (host_tools/board/deploy.py drives it); the others are one request
to the board each (``_request``) or a call into their module.
"""

from typing import Annotated

import typer
from rich.console import Console

from host_tools.common.cli import EXIT_FAIL, EXIT_USAGE, PORT, err, find_port, link_failed


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
    from host_tools.board import sim as S

    code = S.run(flash, seed, False if headless else None)
    if code:
        raise typer.Exit(code)


# ---- the Tengen image (host_tools/board/image.py) -------------------------------------------

image_app = typer.Typer(
    name="image",
    help="The Tengen firmware image: MicroPython with the board's modules frozen in"
    " (hardware/README.md).",
    no_args_is_help=True,
)


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

    from host_tools.board import image as I

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


# ---- the board's time, self-test, settings, and game ---------------------------------------


def _request(
    port: str | None, cmd: str, json_out: bool = False, clock: bool = True, **fields
) -> dict:
    # One request to the board at ``port`` (or the one found), its calendar clock set first
    # (``clock``); a failure exits.
    from host_tools.common.link import Link, LinkError, set_clock

    port = find_port(port)
    try:
        with Link(port) as link:
            if clock:
                set_clock(link)
            return link.request(cmd, **fields)
    except LinkError as e:
        raise link_failed(port, e, json_out) from None


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

    from host_tools.common.link import Link, LinkError, set_clock

    port = find_port(port)
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
    from host_tools.board import deploy as D

    if build_only is not None:
        try:
            files, total = D.build(build_only)
        except D.DeployError as e:
            err.print(str(e), style="red", markup=False)
            raise typer.Exit(EXIT_FAIL) from None
        typer.echo("%d files, %d bytes in %s" % (len(files), total, build_only))
        return
    port = find_port(port)

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
