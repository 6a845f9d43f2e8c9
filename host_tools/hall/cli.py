"""The tournament hall's commands: ``tengen relay``, ``hall``, ``hall-keys`` and ``broker``
(host_tools/hall/relay.py, server.py, boards.py and broker.py drive them).

Start reading at ``hall``.
"""

from typing import Annotated

import typer

from host_tools.common.cli import EXIT_FAIL, EXIT_USAGE, err


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
    from host_tools.hall import relay as RL

    if password is None:
        err.print("[red]The broker's password: --password or TENGEN_MQTT_PASSWORD.[/red]")
        raise typer.Exit(EXIT_USAGE)
    code = RL.run(broker, hall_name, user, password, name, ports, scan)
    if code:
        raise typer.Exit(code)


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
    from host_tools.hall.server import serve

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

    from host_tools.hall import auth as AU

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

    from host_tools.common import keys as K
    from host_tools.hall import boards as HB
    from host_tools.hall import feed as F

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

    from host_tools.hall import broker as B
    from host_tools.hall import feed as F

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
