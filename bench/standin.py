"""Stand-in boards for the hall's scale bench: many boards in one CPython process, each one
the firmware's own link (``firmware/link/server.py``'s ``Server``) over a real journal
(``firmware/store/journal.py``, in a folder of the host) and a real match
(``firmware/game/match.py``: the referee, the rules, the clock), replaying real Go games.

    python -m bench.standin --folder DIR --boards 50 [--first 0] [--total 50] [--pace 5]
                            [--moves N] [--games N] [--corpus DIR | --builtin] [--record FILE]
                            [--serve 0.01]

Start reading at ``StandIn`` (one board), then ``Host`` (the loop that serves them all).
Each board's link is served on a pseudo-terminal, raw, read and written without blocking as
``firmware/virtual/board.py`` serves the virtual board's, so ``tengen relay --port /dev/pts/N``
(or ``tengen sync``, ``tengen boards --port``...) opens it with pyserial exactly as a board
on USB. What the stand-in leaves out is the sensing: instead of scanned frames, the
referee is handed the points as the sensing layer would report them once the stone is down
and its captures are off (``Referee.see``), then the paddle is pressed (``Match.press``) at
the tick of ``time.monotonic`` (``firmware/clock/ticks.py``): the clocks run for real.

The games: ``$TENGEN_SHARED/corpus/go`` (else ``<repo>/../shared/corpus/go``), read in place,
19x19 games without handicap stones, board ``k`` starting at the corpus's game ``k``; without
the corpus a fixed generator of legal moves (``builtin_moves``) plays, and the process says
so on stderr. A game ends at its last move (two passes: counted and confirmed; else the
loser resigns) or after ``--moves`` moves; the next begins one pace later.

Pace: after ``go`` each board presses one move every ``--pace`` seconds, the boards staggered
evenly over one pace (``--first``/``--total``: this process's share of a larger hall). Every
press is noted in ``--record`` as ``board game ply time.time()`` (one line, flushed): what
``bench/hall_scale.py`` measures latency from. On stdout: ``link BOARD PTY`` per board, then
``ready``; stdin takes ``go``, ``stop`` (no more presses; the links stay served) and ``quit``
(or the end of stdin).
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import selectors
import sys
import time
import tty
from pathlib import Path

from firmware.clock import ticks
from firmware.game import settings as S
from firmware.game.match import DEAD, PLAY, Match
from firmware.link.server import Server, load_secret
from firmware.referee.referee import _expand
from firmware.rules.go import Game
from firmware.rules.go_board import BLACK, WHITE
from firmware.store.journal import Journal

REPO = Path(__file__).resolve().parent.parent
N = 19
SERVE_S = 0.01  # every link is polled this often (the board's link task: 10 ms)
OUT_MAX = 256 * 1024  # bytes a link keeps for a PC that does not read; past it, dropped
READ_MAX = 4096
BACKLOG_S = 0.002  # a pty that had no room is written again this soon


def corpus_root() -> Path | None:
    """The Go corpus folder (``$TENGEN_SHARED/corpus/go`` or ``../shared/corpus/go``), or
    None when it is not there."""
    shared = os.environ.get("TENGEN_SHARED") or str(REPO.parent / "shared")
    root = Path(shared) / "corpus" / "go"
    return root if (root / "index.tsv").exists() else None


class Corpus:
    """The corpus's 19x19 games without handicap, in index order, parsed when first asked
    (``moves(k)``: game ``k`` modulo their number, as ``[(colour, (x, y) or None)]``)."""

    def __init__(self, root: Path):
        from tests.go_corpus import corpus_games

        self.root = root
        self.names = [name for name, moves in corpus_games(str(root)) if moves >= 20]
        self.cache: dict[int, list] = {}

    def moves(self, k: int) -> list:
        from firmware.rules import sgf

        k %= len(self.names)
        while k not in self.cache:
            with open(self.root / self.names[k], "rb") as f:
                nodes = sgf.parse(f.read())
            info = sgf.game_info(nodes[0])
            if info["size"] == N and not info["ab"] and not info["aw"]:
                self.cache[k] = sgf.moves(nodes, N)
            else:  # a handicap or smaller game: the next one instead
                self.names.pop(k)
                k %= len(self.names)
        return self.cache[k]


def builtin_moves(seed: int, count: int = 240) -> list:
    """A fixed game of ``count`` legal moves (random points the rules accept, a few passes;
    the same for the same ``seed``), for when the corpus is missing."""
    rng = random.Random(seed)
    g = Game(N)
    out = []
    for ply in range(count):
        c = BLACK if ply % 2 == 0 else WHITE
        for _ in range(200):
            x, y = rng.randrange(N), rng.randrange(N)
            if g.play(c, x, y) == 0:
                out.append(("B" if c == BLACK else "W", (x, y)))
                break
        else:
            g.play(c, None, None)
            out.append(("B" if c == BLACK else "W", None))
    return out


class _Seen:
    """What the match's sensing is asked for: the grid's size and its stable states."""

    def __init__(self):
        self.n = N
        self.states = bytearray(N * N)


class _App:
    """The board's app as the link sees it: the match in play (replaced at each new game)."""

    def __init__(self, match):
        self.match = match
        self.errors = []


class StandIn:
    """One stand-in board: ``board`` its id, ``folder`` its flash (the journal, its secret),
    ``games(k)`` the moves of its ``k``-th game, ``max_moves`` a game's moves at most (0: the
    whole game), ``max_games`` the games it plays (0: no end). ``link`` is its pty's path;
    ``press(now)`` plays the next move."""

    def __init__(self, board: str, folder, games, max_moves=0, record=None, max_games=0):
        self.board = board
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.games = games
        self.max_moves = max_moves
        self.max_games = max_games
        self.record = record  # a text file: one line per press
        self.journal = Journal(str(self.folder / "games"))
        self.settings = dict(S.DEFAULTS)
        self.settings["time"] = "cn-local"
        self.seen = _Seen()
        self.app = _App(Match(self.settings, self.seen, self.journal))
        master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo: the board would read its own replies back
        os.set_blocking(master, False)
        self.master = master
        self.link = os.ttyname(self.slave)
        self.server = Server(
            self.app,
            self.journal,
            load_secret(str(self.folder / "secret.bin")),
            out=self._out,
            board=board,
            settings=self.settings,
            save=lambda chosen: True,
        )
        self.outbuf = bytearray()
        self.pending = b""
        self.dropped = 0  # bytes no one read in time (as USB CDC drops them)
        self.played = 0  # games begun
        self.shadow: Game | None = None
        self.moves: list = []
        self.index = 0
        self.presses = 0

    # ---- the link -----------------------------------------------------------------------------

    def _out(self, data) -> None:
        if len(self.outbuf) + len(data) > OUT_MAX:
            self.dropped += len(data)
            return
        self.outbuf += data

    def readable(self) -> bool:
        """Read what the PC wrote; False when the pty is gone."""
        try:
            data = os.read(self.master, READ_MAX)
        except BlockingIOError:
            return True
        except OSError:
            return False
        self.pending += data
        self.serve()
        return True

    def serve(self) -> None:
        """Feed what waits, let the server answer and send its events, write them out."""
        if self.pending:
            n = self.server.feed(self.pending)
            self.pending = self.pending[n:]
        self.server.poll()
        self.flush()

    def flush(self) -> bool:
        """Write what the server said as far as the pty takes it; True if all went."""
        while self.outbuf:
            try:
                n = os.write(self.master, self.outbuf)
            except BlockingIOError:
                return False
            except OSError:
                self.dropped += len(self.outbuf)
                self.outbuf.clear()
                return True
            del self.outbuf[:n]
        return True

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self.journal._close()

    # ---- the hands ----------------------------------------------------------------------------

    def begin(self, now: int) -> None:
        """A new game: the board's current settings (names the relay set included), Black's
        clock started, the journal's header written."""
        m = Match(self.settings, self.seen, self.journal) if self.played else self.app.match
        self.app.match = m
        self.seen.states[:] = bytes(N * N)
        m.sensing = self.seen
        m.start(now, board_id=self.board, start_time=int(time.time()))
        self.moves = self.games(self.played)
        self.played += 1
        self.index = 0
        self.shadow = Game(N)

    def press(self, now: int) -> tuple[int, int] | None:
        """The next move: the stone down and its captures off (as the sensing would report
        them), then the paddle at ``now``. Begins a game when none is in play and ends one
        after its last move. ``(game, ply)`` of a move journaled, else None."""
        m = self.app.match
        if self.shadow is None or m.result:
            if self.max_games and self.played >= self.max_games:
                return None  # its games are played: the board stays on, idle
            self.begin(now)
            m = self.app.match
        limit = len(self.moves) if not self.max_moves else min(self.max_moves, len(self.moves))
        if self.index >= limit or m.phase != PLAY:
            self._end(now)
            return None
        colour, xy = self.moves[self.index]
        side = BLACK if colour == "B" else WHITE
        if side != m.game.to_move:  # the corpus has a move out of turn: the game ends here
            self._end(now)
            return None
        r = self.shadow.play(side, None, None) if xy is None else self.shadow.play(side, *xy)
        if r:  # a move our rules refuse (superko): the game ends here
            self._end(now)
            return None
        self.index += 1
        _expand(self.shadow.board.rows, N, self.seen.states)
        m.referee.see(self.seen.states, now)
        at = time.time()
        if m.press(side, now) != 0:  # MOVED
            self._end(now)
            return None
        self.presses += 1
        game, ply = self.journal.game_no, m.game.ply
        if self.record is not None:
            self.record.write("%s %d %d %.6f\n" % (self.board, game, ply, at))
        return game, ply

    def _end(self, now: int) -> None:
        # After two passes the count is confirmed by both; otherwise the side to move resigns.
        m = self.app.match
        if m.result:
            return
        if m.phase == DEAD:
            m.count(now)
            m.confirm(BLACK, now)
            m.confirm(WHITE, now)
        if not m.result:
            m.resign(m.game.to_move, now)


class Host:
    """The stand-ins of one process, served in one selector loop: every link read as soon as
    the PC writes, every server polled each ``serve`` seconds (the board's ``SERVE_S``), each
    board's press due every ``pace`` seconds (``go``), the first ``offset(board)`` seconds
    after go. A press and a request are answered at once whatever ``serve`` is: a longer one
    only spares the CPU the polls that find nothing to do (many boards on one machine)."""

    def __init__(
        self, boards: list[StandIn], pace: float, offsets=None, record=None, serve=SERVE_S
    ):
        self.boards = boards
        self.record = record  # the presses' file, flushed each serve
        self.serve = serve
        self.pace = pace
        self.offsets = offsets or [pace * k / max(1, len(boards)) for k in range(len(boards))]
        self.sel = selectors.DefaultSelector()
        for b in boards:
            self.sel.register(b.master, selectors.EVENT_READ, b)
        self.due: list = []  # (monotonic time, index)
        self.playing = False
        self.running = True
        self.commands = None  # a file descriptor of command lines (stdin), or None

    def go(self) -> None:
        """Start pressing."""
        t0 = time.monotonic()
        self.due = [(t0 + off, k) for k, off in enumerate(self.offsets)]
        heapq.heapify(self.due)
        self.playing = True

    def stop(self) -> None:
        """No more presses; the links stay served."""
        self.playing = False
        self.due = []

    def watch(self, fd: int) -> None:
        """Take command lines (go, stop, quit) from ``fd``."""
        self.commands = fd
        self._cmd = b""
        try:
            self.sel.register(fd, selectors.EVENT_READ, None)
        except PermissionError:  # a plain file (/dev/null): read to its end (quit) now
            while self.running:
                self._command()

    def _command(self) -> None:
        data = os.read(self.commands, 1024)
        if not data:
            self.running = False
            return
        self._cmd += data
        while b"\n" in self._cmd:
            line, self._cmd = self._cmd.split(b"\n", 1)
            word = line.strip().decode(errors="replace")
            if word == "go":
                self.go()
            elif word == "stop":
                self.stop()
            elif word == "quit":
                self.running = False

    def run(self, until=None) -> None:
        """Serve until ``quit``, the end of the commands, or ``until()`` says so."""
        next_serve = time.monotonic()
        backlog: set = set()  # boards whose pty had no room for all they said
        while self.running and not (until and until()):
            now = time.monotonic()
            wait = next_serve - now
            if self.due:
                wait = min(wait, self.due[0][0] - now)
            if backlog:  # a reply the pty did not take whole: the rest as soon as it can
                wait = min(wait, BACKLOG_S)
            for key, _ in self.sel.select(max(0.0, wait)):
                if key.data is None:
                    self._command()
                elif not key.data.readable():
                    self.sel.unregister(key.fd)
                elif key.data.outbuf:
                    backlog.add(key.data)
            now = time.monotonic()
            while self.playing and self.due and self.due[0][0] <= now:
                at, k = heapq.heappop(self.due)
                b = self.boards[k]
                b.press(ticks.now_ms())
                b.serve()  # the move event goes out at once, as the board's next link pass
                if b.outbuf:
                    backlog.add(b)
                heapq.heappush(self.due, (at + self.pace, k))
            for b in list(backlog):
                if b.flush():
                    backlog.discard(b)
            if now >= next_serve:
                for b in self.boards:
                    b.serve()
                if self.record is not None:
                    self.record.flush()
                next_serve = now + self.serve

    def close(self) -> None:
        for b in self.boards:
            b.close()
        self.sel.close()


def game_source(corpus: Corpus | None, index: int, total: int):
    """The moves of board ``index``'s ``k``-th game: the corpus's game ``index + k * total``
    (every board its own games), or the built-in generator's."""
    if corpus is not None:
        return lambda k: corpus.moves(index + k * total)
    return lambda k: builtin_moves(1000 * index + k)


def make_boards(
    folder, count, first=0, total=None, max_moves=0, record=None, corpus=True, max_games=0
):
    """``count`` stand-ins ``b<first>``... in ``folder`` (a folder each), sharing ``record``
    (see ``StandIn`` for the rest); ``corpus`` True: the corpus if found; a Path: that
    corpus; False: the built-in moves."""
    total = total or first + count
    root = corpus_root() if corpus is True else corpus or None
    if corpus is True and root is None:
        print(
            "standin: no corpus at ../shared/corpus/go (or $TENGEN_SHARED): "
            "the built-in generator of legal moves plays instead",
            file=sys.stderr,
        )
    source = Corpus(Path(root)) if root else None
    out = []
    for i in range(first, first + count):
        board = "b%03d" % i
        out.append(
            StandIn(
                board,
                Path(folder) / board,
                game_source(source, i, total),
                max_moves,
                record,
                max_games,
            )
        )
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.standin", description=__doc__.split("\n")[0])
    p.add_argument("--folder", required=True, help="the boards' flash folders go here")
    p.add_argument("--boards", type=int, default=50)
    p.add_argument("--first", type=int, default=0, help="the first board's number")
    p.add_argument("--total", type=int, default=0, help="boards hall-wide (the stagger)")
    p.add_argument("--pace", type=float, default=5.0, help="seconds between a board's moves")
    p.add_argument("--moves", type=int, default=0, help="a game's moves at most (0: all)")
    p.add_argument("--games", type=int, default=0, help="games a board plays (0: no end)")
    p.add_argument("--corpus", default=None, help="the Go corpus folder (index.tsv)")
    p.add_argument("--builtin", action="store_true", help="the built-in moves, not the corpus")
    p.add_argument("--record", default=None, help="the presses' file")
    p.add_argument(
        "--serve", type=float, default=SERVE_S, help="seconds between two polls of every link"
    )
    a = p.parse_args(argv)
    if not 1 <= a.boards <= 1000 or a.pace <= 0 or not 0 < a.serve <= 1:
        p.error("--boards 1-1000, --pace > 0, --serve 0-1 s")
    total = a.total or a.first + a.boards
    record = open(a.record, "a", buffering=1 << 16) if a.record else None  # noqa: SIM115
    corpus = False if a.builtin else Path(a.corpus) if a.corpus else True
    boards = make_boards(a.folder, a.boards, a.first, total, a.moves, record, corpus, a.games)
    offsets = [a.pace * (a.first + k) / total for k in range(a.boards)]
    host = Host(boards, a.pace, offsets, record, a.serve)
    host.watch(sys.stdin.fileno())
    for b in boards:
        print("link %s %s" % (b.board, b.link))
    print("ready", flush=True)
    try:
        host.run()
    except KeyboardInterrupt:
        pass
    finally:
        if record is not None:
            record.close()
        host.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
