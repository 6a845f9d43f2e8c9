"""``make hall-demo``: a tournament hall on this PC, every part real but the players.

    python -m host_tools.hall.demo [--boards 4] [--pace 3] [--for SECONDS] [--folder DIR]

Start reading at ``Demo.start``. It runs Mosquitto with the hall's configuration
(``host_tools/hall/broker.py``), ``--boards`` virtual boards (``host_tools/board/sim.py``, each on its
own flash folder), writes a pairings CSV for them (round 1, tables 1..N, made-up players),
then starts ``tengen relay`` (every board's pty) and ``tengen hall`` (a free HTTP port, the
broadcast 10 s behind, its SGFs in ``DIR/feed``) as child processes, and each board plays
the built-in scripted games (``host_tools/hall/scripted.py``) round and round, a move every
``--pace`` seconds. It prints the page's address (``Tengen hall demo: open http://...``),
the arbiter's page and the feed, and runs until Ctrl-C, SIGTERM or ``--for`` seconds; then it
stops every child it started.

The boards note their ptys in a runtime folder of the demo's own (``DIR/run``), so the
user's ``tengen boards`` does not see them, nor the demo the user's boards. Without
``--folder`` everything lives in a temporary folder removed at the end; with it, the
broker's files, the boards' flash, the feed and the logs (``relay.log``, ``hall.log``) stay.
"""

from __future__ import annotations

import argparse
import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from host_tools.common.link import RUNTIME_ENV, LinkError
from host_tools.hall import broker as B
from host_tools.hall import feed as F
from host_tools.hall import scripted as S

HALL = "demo"
DEMO_RELAY = "demo-relay"
DELAY_S = 10
START_TIMEOUT = 90.0  # seconds for a child to be up on a loaded machine
PLAYERS = (
    "Ada Hartmann",
    "Bo Lindqvist",
    "Chen Yu",
    "Dario Conti",
    "Emi Sato",
    "Femi Adeyemi",
    "Greta Novak",
    "Hugo Marchetti",
    "Ines Duarte",
    "Jonas Berg",
    "Kim Soo-ah",
    "Lena Fischer",
)


class DemoError(Exception):
    """A part of the demo did not start (its words say which and why)."""


def tengen() -> list[str]:
    """The ``tengen`` command of this Python (the installed script, else ``-m host_tools``)."""
    script = Path(sys.executable).with_name("tengen")
    return [str(script)] if script.exists() else [sys.executable, "-m", "host_tools"]


def players(n: int) -> list[tuple[str, str]]:
    """``n`` pairs of made-up (black, white) names, no one twice while names last."""
    out = []
    for i in range(n):
        a, b = PLAYERS[(2 * i) % len(PLAYERS)], PLAYERS[(2 * i + 1) % len(PLAYERS)]
        if 2 * i + 1 >= len(PLAYERS):
            a, b = "%s %d" % (a, i + 1), "%s %d" % (b, i + 1)
        out.append((a, b))
    return out


def write_pairings(path: Path, boards: list[str], event: str = "Tengen hall demo") -> None:
    """Round 1 of ``boards``: table k at the k-th board (host_tools/hall/pairings.py's CSV)."""
    rows = ["round,table,board,black,white,event"]
    for k, (board, (black, white)) in enumerate(zip(boards, players(len(boards)), strict=True), 1):
        rows.append("1,%d,%s,%s,%s,%s" % (k, board, black, white, event))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


class Demo:
    """The demo's parts: ``start()`` them, ``stop()`` them all (each child by its own pid)."""

    def __init__(
        self, folder: Path, n_boards: int = 4, pace_s: float = 3.0, out=None, keep: bool = True
    ):
        self.folder = folder
        self.keep = keep
        self.n = n_boards
        self.pace_s = pace_s
        self.out = out or sys.stdout
        self.broker: B.Broker | None = None
        self.boards: list = []
        self.board_ids: list[str] = []
        self.players: list[S.Player] = []
        self.children: dict[str, subprocess.Popen] = {}
        self.url = ""
        users = (*B.USERS, F.relay_user(DEMO_RELAY))  # the demo's one relay: its own user
        self.passwords = {u: secrets.token_urlsafe(12) for u in users}

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def env(self, user: str) -> dict:
        """A child's environment: the demo's runtime folder, ``user``'s broker password."""
        env = dict(os.environ)
        env[RUNTIME_ENV] = str(self.folder / "run")
        env["TENGEN_MQTT_PASSWORD"] = self.passwords[user]
        return env

    def start(self) -> None:
        """Broker, boards, pairings, relay, hall, players; the addresses printed."""
        from host_tools.board.sim import Board

        for module, command in (("relay", "relay"), ("server", "hall")):
            if not (Path(__file__).parent / ("%s.py" % module)).exists():
                raise DemoError(
                    "host_tools/hall/%s.py is missing: tengen %s is needed" % (module, command)
                )
        os.environ[RUNTIME_ENV] = str(self.folder / "run")  # the boards' pty notes: ours
        self.broker = B.Broker(self.folder / "broker", HALL, passwords=self.passwords).start()
        broker = "127.0.0.1:%d" % self.broker.port
        for i in range(self.n):
            board = Board(self.folder / "boards" / ("board%d" % (i + 1)), seed=i + 1, quiet=True)
            self.boards.append(board)
            self.board_ids.append(_ready(board))
        pairings = self.folder / "pairings.csv"
        write_pairings(pairings, self.board_ids)
        for k, (board, (black, white)) in enumerate(
            zip(self.boards, players(self.n), strict=True), 1
        ):
            # Before the relay holds the link: the first game's record has the names too.
            S.configure(
                board.link,
                time="quick",
                black=black,
                white=white,
                event="Tengen hall demo",
                round="1",
                table=str(k),
            )
        relay = tengen() + ["relay", "--broker", broker, "--hall", HALL, "--name", DEMO_RELAY]
        for board in self.boards:
            relay += ["--port", board.link]
        self._child("relay", relay, F.relay_user(DEMO_RELAY))
        feed = self.folder / "feed"
        # The arbiter's login: a made-up password, shown once (its hash in DIR/hall-users).
        from host_tools.hall import auth as AU

        users = self.folder / "hall-users"
        self.arbiter_pw = secrets.token_urlsafe(9)
        AU.Users(users).read().add("arbiter", self.arbiter_pw)
        hall = tengen() + [
            "hall",
            "--broker",
            broker,
            "--hall",
            HALL,
            "--pairings",
            str(pairings),
            "--http",
            "0",
            "--delay",
            str(DELAY_S),
            "--feed-dir",
            str(feed),
            "--users",
            str(users),
        ]
        self.url = self._hall(hall)
        games = list(S.DEMO_GAMES)
        for i, board in enumerate(self.boards):
            order = games[i % len(games) :] + games[: i % len(games)]  # not all the same game
            player = S.Player(board, order, self.pace_s, name="board%d" % (i + 1))
            self.players.append(player)
        for player in self.players:
            player.start()
            time.sleep(min(1.0, self.pace_s / max(1, self.n)))  # the boards not in step
        self.say("Tengen hall demo: open %s" % self.url)
        self.say(
            "  the arbiter's page: %sarbiter (user arbiter, password %s; live view: %s?live)"
            % (self.url, self.arbiter_pw, self.url)
        )
        self.say(
            "  the broadcast feed: %sfeed/ (%d s behind; SGFs in %s)" % (self.url, DELAY_S, feed)
        )
        self.say("  the JSON API:       %sapi/boards, %sapi/games" % (self.url, self.url))
        kept = "" if self.keep else " (removed at the end: --folder keeps them)"
        self.say(
            "  %d board%s (%s) through one relay, broker %s; files and logs in %s%s"
            % (self.n, "s" * (self.n > 1), ", ".join(self.board_ids), broker, self.folder, kept)
        )

    def _child(self, name: str, argv: list[str], user: str, stdout=None) -> subprocess.Popen:
        log = open(self.folder / ("%s.log" % name), "ab")  # noqa: SIM115 - the child keeps it
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=stdout or log,
                stderr=log,
                env=self.env(user),
                start_new_session=True,  # the terminal's Ctrl-C is ours: we stop it in turn
            )
        finally:
            log.close()
        self.children[name] = proc
        return proc

    def _hall(self, argv: list[str]) -> str:
        # The hall's one stdout line says where it serves; the rest of its output is drained.
        proc = self._child("hall", argv, "hall", stdout=subprocess.PIPE)
        found: list[str] = []
        ready = threading.Event()

        def read():
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\n")
                if not found and line.startswith("hall: http"):
                    found.append(line[len("hall: ") :].strip())
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(START_TIMEOUT) or not found:
            said = _tail(self.folder / "hall.log") or "no output"
            raise DemoError("tengen hall did not start: %s" % said)
        url = found[0]
        return url if url.endswith("/") else url + "/"

    def check(self) -> str | None:
        """What went wrong since the start (a child gone, a board that refused), or None."""
        for name, proc in self.children.items():
            if proc.poll() is not None:
                return "tengen %s exited (%s): %s" % (
                    name,
                    proc.returncode,
                    _tail(self.folder / ("%s.log" % name)),
                )
        for player in self.players:
            if player.error is not None:
                err, player.error = player.error, None
                return "%s: %s" % (player.name, err)
        return None

    def stop(self) -> None:
        """Stop the players, the hall, the relay, the boards and the broker (our pids only)."""
        for player in self.players:
            player.halt.set()
        for player in self.players:
            player.stop()
        for name in ("hall", "relay"):
            proc = self.children.get(name)
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        for board in self.boards:
            board.close()
        if self.broker is not None:
            self.broker.stop()


def _ready(board) -> str:
    # The board's id from its first lines ("ready ID"); the rest stay for its hands.
    end = time.monotonic() + START_TIMEOUT
    while time.monotonic() < end:
        try:
            line = board.lines.get(timeout=1.0)
        except queue.Empty:  # not up yet
            continue
        if line is None:
            break
        if line.startswith("ready "):
            return line.split()[1]
    raise DemoError("a virtual board did not start (flash %s)" % board.flash)


def _tail(path: Path, n: int = 600) -> str:
    try:
        return path.read_text(errors="replace")[-n:].strip()
    except OSError:
        return ""


def main(argv=None) -> int:
    """The demo (see the module's text); the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m host_tools.hall.demo", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--boards", type=int, default=4, help="virtual boards (default 4)")
    ap.add_argument("--pace", type=float, default=3.0, help="seconds between moves (default 3)")
    ap.add_argument(
        "--for", dest="seconds", type=float, help="end after SECONDS (default: Ctrl-C)"
    )
    ap.add_argument("--folder", help="keep everything in DIR (default: a temporary folder)")
    args = ap.parse_args(argv)
    if not 1 <= args.boards <= 64:
        ap.error("--boards: 1 to 64")
    if args.pace < 0:
        ap.error("--pace: seconds, 0 or more")
    temporary = args.folder is None
    folder = Path(tempfile.mkdtemp(prefix="tengen-hall-demo-") if temporary else args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    done = threading.Event()

    def ended(signum, frame):
        done.set()

    signal.signal(signal.SIGTERM, ended)
    signal.signal(signal.SIGHUP, ended)
    demo = Demo(folder, args.boards, args.pace, keep=not temporary)
    code = 0
    try:
        demo.start()
        end = None if args.seconds is None else time.monotonic() + args.seconds
        while not done.is_set():
            left = 1.0 if end is None else min(1.0, end - time.monotonic())
            if left <= 0 or done.wait(left):
                break
            trouble = demo.check()
            if trouble:
                print("hall demo: %s" % trouble, file=sys.stderr, flush=True)
                if not trouble.startswith("board"):
                    code = 1
                    break
    except KeyboardInterrupt:
        pass
    except (DemoError, B.BrokerError, S.ScriptError, LinkError, OSError) as e:
        print("hall demo: %s" % e, file=sys.stderr, flush=True)
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not stop the stopping
        demo.stop()
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    print("hall demo: stopped", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
