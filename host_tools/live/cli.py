"""``tengen watch``: the game at the board, live (host_tools/live/watch.py draws it).

Start reading at ``watch``.
"""

import typer
from rich.console import Console

from host_tools.common.cli import PORT, err, find_port, link_failed


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

    from host_tools.common.link import LinkError
    from host_tools.live import watch as W

    port = find_port(port)
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
        raise link_failed(port, e, json_out) from None
    except KeyboardInterrupt:
        pass
