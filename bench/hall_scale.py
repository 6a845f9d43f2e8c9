"""The hall at scale: many boards through several relays, every board's key registered, press
-> the signed-in page and press -> the public page (``--delay`` behind), and what the broker,
the relays and the hall cost.

    python -m bench.hall_scale [--boards 200] [--relays 4] [--pace 5] [--seconds 60]
                               [--delay 10] [--moves N] [--no-keys]

Start reading at ``run``. Everything is real except the boards' hands: stand-in boards
(``bench/standin.py``: the firmware's link, journal and match in CPython processes, 50 boards
a process, each on a pty, each with its own secret as a board makes on first boot) play corpus
games, one move per board every ``--pace`` seconds, staggered; ``--relays`` ``tengen relay``
processes, each its own broker user ``relay-r<k>``, follow their share of the ptys
(``--port``) and publish to Mosquitto (``host_tools/hall/broker.py``: one user per relay and its
ACL, a free port, a temp folder); one ``tengen hall`` with the organiser's register
(``--boards``: every board's relay and key, ``host_tools/hall/boards.py``, so that the hall
checks every proof with the board's key), a login (``--users``, ``host_tools/hall/auth.py``)
and ``--delay`` subscribes and serves its page. Two WebSocket clients (aiohttp) stand for the
pages: the arbiter's, signed in (HTTP Basic) on ``/ws?live=1``, and the public's on ``/ws``;
each notes when each move's ``{"type":"record"}`` arrives.

Latency is a move's arrival on a page (the client's ``time.time()``) less its press (the
stand-in's ``time.time()`` at ``Match.press``): the relay noticing the move, reading it from
the board's link, the broker, the hall, its push. On the public page it must be the delay and
a little more, never less: the excess over the delay is measured, and every move that came
earlier than ``--delay`` after its press (or after the hall received it) is counted. Every
move pressed must arrive on each page exactly once: missing ones and repeats are listed. At the
end the bench asks the hall (signed in) for ``/api/status`` and ``/api/live/games``: the bad
messages it counted and each game's verdict (verified, pending, unverified, failed). CPU is
psutil's, in % of one core (100 % = a core busy), sampled every second while the boards play;
RSS its peak. The commands run are this tree's (``python -m host_tools``, the ``tengen``
command's module). The temp folder and every process started here are gone at the end
(``--keep``: the folder stays, for the logs).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HALL = "scale"
PER_PROCESS = 50  # stand-in boards a CPython process serves
FIRST_MINUTE = 60.0
STAMP = 0.001  # the resolution of the hall's "received" stamp (ms, rounded), s


def tengen() -> list[str]:
    """The ``tengen`` command of this tree (``python -m host_tools``, run with ``tree_env``):
    the installed one may be another checkout's."""
    return [sys.executable, "-m", "host_tools"]


def tree_env(env: dict | None = None) -> dict:
    """``env`` (default: this process's) with this tree first on ``PYTHONPATH``."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


def ready_commands() -> str | None:
    """None when ``tengen relay`` and ``tengen hall`` both answer ``--help``, else why not."""
    for cmd in ("relay", "hall"):
        try:
            r = subprocess.run(
                tengen() + [cmd, "--help"], capture_output=True, timeout=60, env=tree_env()
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return "tengen %s --help: %s" % (cmd, e)
        if r.returncode:
            return "tengen %s is not there yet (tengen %s --help failed)" % (cmd, cmd)
    return None


def _lines(proc: subprocess.Popen, out: queue.Queue) -> None:
    for line in proc.stdout:
        out.put(line.rstrip("\n"))
    out.put(None)


def _reader(proc: subprocess.Popen) -> queue.Queue:
    q: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(proc, q), daemon=True).start()
    return q


def _until(q: queue.Queue, prefix: str, timeout: float, what: str) -> list[str]:
    # The lines up to the first that starts with prefix; RuntimeError at the end or timeout.
    got = []
    end = time.monotonic() + timeout
    while True:
        try:
            line = q.get(timeout=max(0.05, end - time.monotonic()))
        except queue.Empty:
            raise RuntimeError("%s said no %r within %.0f s: %r" % (what, prefix, timeout, got))
        if line is None:
            raise RuntimeError("%s ended before %r: %r" % (what, prefix, got[-5:]))
        got.append(line)
        if line.startswith(prefix):
            return got


LIVE, PUBLIC = "live", "public"  # the two pages: signed in (/ws?live=1), everyone's (/ws)


@dataclass
class Result:
    """What one run measured. ``presses`` (board, game, ply) -> press time; ``arrivals`` the
    same key -> every arrival on the signed-in page (time, seq, at, received); ``orders``
    (board, game) -> the seqs of its records in arrival order; ``public`` and
    ``public_orders`` the same of the public page; ``usage`` name -> [(cpu %, rss bytes)]
    samples; ``verdicts`` verdict -> games, ``status`` the hall's ``/api/status`` at the
    end."""

    boards: int
    relays: int
    pace: float
    seconds: float
    delay: float = 0.0
    moves: int = 0  # a game's moves at most (0: the corpus game's)
    keyed: int = 0  # boards whose key the hall's register has
    go: float = 0.0
    stopped: float = 0.0
    presses: dict = field(default_factory=dict)
    arrivals: dict = field(default_factory=dict)
    orders: dict = field(default_factory=dict)
    public: dict = field(default_factory=dict)
    public_orders: dict = field(default_factory=dict)
    usage: dict = field(default_factory=dict)
    machine: list = field(default_factory=list)  # (all processes, not ours) in % of a core
    load: tuple = ()  # the machine's 1-minute load average at go and at the end
    followed: int = 0  # boards the hall had a state of before go
    bad_messages: int = 0
    verdicts: dict = field(default_factory=dict)
    status: dict = field(default_factory=dict)
    serve: float = 0.01  # the stand-ins' poll of their links, s
    nice: int = 0  # the stand-ins' and relays' niceness
    idle_usage: dict = field(default_factory=dict)  # as usage, before go (the boards still)
    idle_machine: list = field(default_factory=list)
    closed: dict = field(default_factory=dict)  # view -> times the hall closed its page
    hall_moves: dict = field(default_factory=dict)  # (board, game) -> moves, the hall's API
    notes: list = field(default_factory=list)

    def _view(self, view: str) -> tuple[dict, dict]:
        return (self.arrivals, self.orders) if view == LIVE else (self.public, self.public_orders)

    def missing(self, view: str = LIVE) -> list:
        """The moves pressed that never reached the page."""
        arrivals = self._view(view)[0]
        return sorted(k for k in self.presses if k not in arrivals)

    def repeats(self, view: str = LIVE) -> list:
        """The moves that reached the page more than once."""
        return sorted(k for k, v in self._view(view)[0].items() if len(v) > 1)

    def strays(self, view: str = LIVE) -> list:
        """Moves on the page that no stand-in pressed (in this run)."""
        return sorted(k for k in self._view(view)[0] if k not in self.presses)

    def out_of_order(self, view: str = LIVE) -> list:
        """The games whose records reached the page out of seq order, or with a seq twice."""
        orders = self._view(view)[1]
        return sorted(g for g, seqs in orders.items() if seqs != sorted(set(seqs)))

    def latencies(self, lo: float = 0.0, hi: float = float("inf"), view: str = LIVE) -> list:
        """Press -> page in seconds, of the moves pressed ``lo``-``hi`` s after go."""
        arrivals = self._view(view)[0]
        out = []
        for k, t in self.presses.items():
            if k in arrivals and lo <= t - self.go < hi:
                out.append(arrivals[k][0][0] - t)
        return sorted(out)

    def not_in_hall(self) -> list:
        """The moves pressed that the hall's own games (``/api/live/games``) lack."""
        return sorted(k for k in self.presses if self.hall_moves.get(k[:2], 0) < k[2])

    def early(self) -> tuple[list, list]:
        """The moves the public page had sooner than the delay: ``(after their press, after
        the hall received them)``, each a list of keys. Both must be empty. The hall's
        ``received`` is in ms, rounded: a move is early after it by more than ``STAMP``."""
        by_press, by_hall = [], []
        for k, hits in self.public.items():
            now, _, _, received = hits[0]
            if k in self.presses and now - self.presses[k] < self.delay:
                by_press.append(k)
            # The stamp is the hall's time rounded to the ms: up to 0.5 ms late.
            if isinstance(received, (int, float)) and now - received / 1000 < self.delay - STAMP:
                by_hall.append(k)
        return sorted(by_press), sorted(by_hall)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


class _Procs:
    """The processes a run started, ended by their own pids (never by name)."""

    def __init__(self):
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name, args, **kw) -> subprocess.Popen:
        p = subprocess.Popen(args, start_new_session=True, **kw)
        self.procs.append((name, p))
        return p

    def end(self) -> None:
        for _, p in self.procs:
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except OSError:
                    pass
        end = time.monotonic() + 8
        for _, p in self.procs:
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


async def _client(url, result, view, states, stop, auth=None) -> None:
    # A page (``view``: the signed-in one, /ws?live=1, with ``auth``; the public one, /ws):
    # every record message noted with its arrival time, every state's board. A page the hall
    # closes connects again, as the hall's pages do; what it missed meanwhile stays missing.
    import aiohttp

    path = "ws?live=1" if view == LIVE else "ws"
    async with aiohttp.ClientSession(headers=auth) as s:
        while not stop.is_set():
            # No heartbeat of ours: a hall too busy to answer a ping in time is measured,
            # not left (the hall pings the page; aiohttp answers as it reads).
            async with s.ws_connect(url + path, max_msg_size=0) as ws:
                await _page(ws, result, view, states, stop)
            if not stop.is_set():
                when = "%.0f s after go" % (time.time() - result.go) if result.go else "before go"
                result.notes.append("the hall closed the %s WebSocket %s" % (view, when))
                result.closed[view] = result.closed.get(view, 0) + 1
                await asyncio.sleep(1.0)


async def _page(ws, result, view, states, stop) -> None:
    import aiohttp

    arrivals, orders = result._view(view)
    while not stop.is_set():
        try:
            msg = await asyncio.wait_for(ws.receive(), 0.5)
        except asyncio.TimeoutError:
            continue
        if msg.type != aiohttp.WSMsgType.TEXT:
            if msg.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSING,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.ERROR,
            ):
                return
            continue
        now = time.time()
        try:
            m = json.loads(msg.data)
            kind = m.get("type")
            if kind == "board":  # a board's snapshot changed: the hall has it
                states.add(m["board"]["id"])
            elif kind == "snapshot":
                states.update(b["id"] for b in m.get("boards", []))
            elif kind == "record":
                g = (m["board"], m["game"])
                orders.setdefault(g, []).append(m["seq"])
                rec = m["rec"]
                if rec.get("type") == "move":
                    key = (m["board"], m["game"], rec["ply"])
                    hit = (now, m["seq"], m.get("at"), m.get("received"))
                    arrivals.setdefault(key, []).append(hit)
        except (ValueError, KeyError, TypeError, AttributeError):
            result.bad_messages += 1


async def _ask_hall(url: str, result: Result, auth) -> None:
    # The hall's own words at the end, signed in: its status (the bad messages it counted)
    # and each game's verdict.
    import aiohttp

    try:
        async with aiohttp.ClientSession(headers=auth) as s:
            async with s.get(url + "api/status") as r:
                result.status = await r.json()
            async with s.get(url + "api/live/games") as r:
                games = await r.json()
    except (aiohttp.ClientError, ValueError, asyncio.TimeoutError) as e:
        result.notes.append("the hall's status: %r" % e)
        return
    for g in games:
        v = str(g.get("verified"))
        result.verdicts[v] = result.verdicts.get(v, 0) + 1
        result.hall_moves[(g.get("board"), g.get("game"))] = g.get("moves", 0)


async def _sample(procs: dict, result: Result, stop: asyncio.Event) -> None:
    # CPU (% of one core) and RSS of each process every second.
    import psutil

    watched = {}
    psutil.cpu_percent(None)  # the machine's, all cores: what else ran beside the bench
    for name, pid in procs.items():
        try:
            p = psutil.Process(pid)
            p.cpu_percent(None)  # the first call sets the start
            watched[name] = p
        except psutil.Error:
            result.notes.append("%s: no process to watch" % name)
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except asyncio.TimeoutError:
            pass
        ours = 0.0
        for name, p in watched.items():
            try:
                sample = (p.cpu_percent(None), p.memory_info().rss)
            except psutil.Error:
                continue
            ours += sample[0]
            result.usage.setdefault(name, []).append(sample)
        machine = psutil.cpu_percent(None) * psutil.cpu_count()
        result.machine.append((machine, max(0.0, machine - ours)))


def _read_presses(files: list[Path]) -> dict:
    out = {}
    for f in files:
        try:
            text = f.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            w = line.split()
            if len(w) == 4:
                out[(w[0], int(w[1]), int(w[2]))] = float(w[3])
    return out


def basic_auth(user: str, password: str) -> dict:
    """The headers of HTTP Basic: how an API client signs in to the hall."""
    token = base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    return {"Authorization": "Basic " + token}


def _niced(n: int):
    # A child's niceness, set between fork and exec: its own and, as every child is the first
    # of its own session, its session's autogroup's (Linux with sched_autogroup_enabled
    # shares the CPU between sessions first: a process's own niceness then only orders it
    # among its session's threads).
    def nice():
        os.nice(n)
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(n))
        except OSError:
            pass  # no autogroups here: the process's niceness is the whole of it

    return nice if n else None


def relay_of(index: int, relays: int) -> str:
    """The relay id board ``index`` is plugged into: every ``relays``-th board to one."""
    return "r%d" % (index % relays + 1)


def register(folder: Path, links: list, relays: int, keys: bool = True) -> dict:
    """The organiser's register of the stand-ins (``host_tools/hall/boards.py``): each board's
    relay and, with ``keys``, its key: the secret the board made on its first start
    (``firmware/link/server.py`` ``load_secret``), as ``tengen pair`` would have read it."""
    out = {}
    for k, (board, _) in enumerate(links):
        key = (folder / board / "secret.bin").read_bytes() if keys else None
        out[board] = {"relay": relay_of(k, relays), "key": key}
    return out


def run(
    boards: int = 200,
    relays: int = 4,
    pace: float = 5.0,
    seconds: float = 60.0,
    drain: float = 30.0,
    folder: str | None = None,
    corpus: str | None = None,
    follow_timeout: float = 120.0,
    say=print,
    delay: float = 10.0,
    moves: int = 0,
    keys: bool = True,
    serve: float = 0.01,
    nice: int = 0,
    idle: float = 0.0,
) -> Result:
    """One run: stand-ins, broker, relays, hall and the pages' clients up; the boards play
    for ``seconds``; then ``drain`` seconds at most without news (after the delay) for the
    last moves to reach both pages; everything torn down. ``say`` gets progress lines.
    ``serve``: the stand-ins' poll of their links (s); ``nice``: the stand-ins and relays run
    at this niceness (the hall and the broker at the bench's); ``idle``: seconds the CPU is
    sampled before go, the boards followed and still."""
    from host_tools.hall import auth as AU
    from host_tools.hall import boards as HB
    from host_tools.hall.broker import Broker

    tmp = Path(folder or tempfile.mkdtemp(prefix="tengen-hall-scale-"))
    env = tree_env()
    env["TENGEN_RUNTIME_DIR"] = str(tmp / "run")
    env["TENGEN_CONFIG_DIR"] = str(tmp / "config")
    env["TENGEN_DATA_DIR"] = str(tmp / "data")
    result = Result(boards, relays, pace, seconds, delay=delay, moves=moves)
    result.serve, result.nice = serve, nice
    procs = _Procs()
    broker = None
    standins: list[subprocess.Popen] = []
    records: list[Path] = []
    try:
        # The boards first: their ptys are the relays' ports.
        links: list[tuple[str, str]] = []
        for first in range(0, boards, PER_PROCESS):
            n = min(PER_PROCESS, boards - first)
            rec = tmp / ("presses-%03d.txt" % first)
            records.append(rec)
            args = [sys.executable, "-m", "bench.standin", "--folder", str(tmp / "boards")]
            args += ["--boards", str(n), "--first", str(first), "--total", str(boards)]
            args += ["--pace", str(pace), "--record", str(rec), "--moves", str(moves)]
            args += ["--serve", str(serve)]
            if corpus:
                args += ["--corpus", corpus]
            p = procs.start(
                "stand-ins %d" % first,
                args,
                cwd=REPO,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
                preexec_fn=_niced(nice),
            )
            standins.append(p)
            for line in _until(_reader(p), "ready", 120, "bench.standin"):
                w = line.split()
                if w[0] == "link":
                    links.append((w[1], w[2]))
        say("%d stand-in boards in %d processes" % (len(links), len(standins)))

        # The organiser's files: the register (relay and key of every board), one login.
        reg = register(tmp / "boards", links, relays, keys)
        result.keyed = sum(1 for r in reg.values() if r["key"])
        HB.write(tmp / "boards.csv", reg)
        password = os.urandom(12).hex()
        AU.Users(tmp / "users").read().add("bench", password)
        auth = basic_auth("bench", password)

        names = ["r%d" % (k + 1) for k in range(relays)]
        broker = Broker(tmp / "broker", HALL, relays=names).start()  # one user each
        addr = "127.0.0.1:%d" % broker.port
        hall = procs.start(
            "hall",
            tengen()
            + ["hall", "--broker", addr, "--hall", HALL, "--user", "hall", "--password", "hall"]
            + ["--http", "0", "--feed-dir", str(tmp / "feed"), "--delay", str(delay)]
            + ["--boards", str(tmp / "boards.csv"), "--users", str(tmp / "users")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=open(tmp / "hall.log", "wb"),  # noqa: SIM115 - the child keeps it
            text=True,
            bufsize=1,
        )
        url = _until(_reader(hall), "hall: ", 60, "tengen hall")[-1].split()[1]
        if not url.endswith("/"):
            url += "/"
        say("hall at %s, broker on %s, %d keys registered" % (url, addr, result.keyed))
        relay_procs = []
        for k in range(relays):
            mine = [path for j, (_, path) in enumerate(links) if relay_of(j, relays) == names[k]]
            relay_procs.append(
                procs.start(
                    "relay %d" % (k + 1),
                    tengen()
                    + ["relay", "--broker", addr, "--hall", HALL, "--name", names[k]]
                    + ["--password", "relay-%s" % names[k]]
                    + [a for path in mine for a in ("--port", path)],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=open(tmp / ("relay-%d.log" % (k + 1)), "wb"),  # noqa: SIM115
                    preexec_fn=_niced(nice),
                )
            )
        watched = {"broker": broker.pid, "hall": hall.pid, "page clients": os.getpid()}
        for k, p in enumerate(relay_procs):
            watched["relay %d" % (k + 1)] = p.pid
        for k, p in enumerate(standins):
            watched["stand-ins %d" % k] = p.pid
        asyncio.run(
            _measure(
                url, auth, result, watched, standins, records, follow_timeout, drain, say, idle
            )
        )
        result.presses = _read_presses(records)
        dead = [n for n, p in procs.procs if p.poll() is not None]
        if dead:
            result.notes.append("ended during the run: %s" % ", ".join(dead))
    finally:
        for p in standins:
            try:
                p.stdin.write("quit\n")
                p.stdin.close()
            except (OSError, ValueError):
                pass
        procs.end()
        if broker is not None:
            broker.stop()
        if folder is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def _tell(procs: list[subprocess.Popen], word: str) -> None:
    for p in procs:
        try:
            p.stdin.write(word + "\n")
            p.stdin.flush()
        except (OSError, ValueError):
            pass


async def _measure(
    url, auth, result, watched, standins, records, follow_timeout, drain, say, idle=0.0
):
    # Both pages' clients up; go once the hall has every board's state; stop after the run's
    # seconds; wait for the moves still on their way (the public page: the delay more).
    stop = asyncio.Event()
    states: set = set()
    public_states: set = set()
    live = asyncio.create_task(_client(url, result, LIVE, states, stop, auth))
    public = asyncio.create_task(_client(url, result, PUBLIC, public_states, stop))
    end = time.monotonic() + follow_timeout
    while len(states) < result.boards and time.monotonic() < end:
        for c in (live, public):
            if c.done():
                c.result()  # the connection failed: its exception
        await asyncio.sleep(0.2)
    result.followed = len(states)
    if idle > 0:  # what following the boards costs before any of them plays
        # Once the public page too has every board, and 5 s on: the start's messages done.
        while len(public_states) < result.boards and time.monotonic() < end:
            await asyncio.sleep(0.2)
        await asyncio.sleep(5.0)
        say("the hall has %d of %d boards; %g s still" % (len(states), result.boards, idle))
        calm = Result(result.boards, result.relays, result.pace, idle)
        done = asyncio.Event()
        watch = asyncio.create_task(_sample(watched, calm, done))
        await asyncio.sleep(idle)
        done.set()
        await watch
        result.idle_usage, result.idle_machine = calm.usage, calm.machine
    say("the hall has %d of %d boards; go" % (len(states), result.boards))
    sampler = asyncio.create_task(_sample(watched, result, stop))
    result.go = time.time()
    load = os.getloadavg()[0]
    _tell(standins, "go")
    await asyncio.sleep(result.seconds)
    _tell(standins, "stop")
    result.stopped = time.time()
    result.load = (load, os.getloadavg()[0])
    await asyncio.sleep(0.2)  # the stand-ins flush their records every 10 ms
    presses = _read_presses(records)
    say("stopped: %d moves pressed; waiting for the pages" % len(presses))
    last, seen = time.monotonic(), -1
    while time.monotonic() - last < drain + result.delay:
        presses = _read_presses(records)  # a stand-in slow to hear "stop" pressed once more
        got = sum(1 for k in presses if k in result.arrivals) + sum(
            1 for k in presses if k in result.public
        )
        if got == 2 * len(presses):
            break
        if got != seen:
            last, seen = time.monotonic(), got
        await asyncio.sleep(0.25)
    stop.set()
    await asyncio.gather(live, public, sampler, return_exceptions=True)
    await _ask_hall(url, result, auth)


def _ms_row(xs: list[float]) -> str:
    return "%.0f / %.0f / %.0f / %.0f ms" % (
        _pct(xs, 0.5),
        _pct(xs, 0.9),
        _pct(xs, 0.99),
        xs[-1],
    )


def report(r: Result, out=print) -> None:
    """The table of a run."""
    played = max(1e-9, r.stopped - r.go)
    rows = [
        ("boards / relays", "%d / %d" % (r.boards, r.relays)),
        (
            "pace, run",
            "a move per board every %g s, %.0f s%s"
            % (r.pace, played, ", games of %d moves at most" % r.moves if r.moves else ""),
        ),
        ("boards registered with a key", "%d" % r.keyed),
        ("boards the hall had before go", "%d" % r.followed),
        ("moves pressed", "%d" % len(r.presses)),
        ("moves per second, hall-wide", "%.1f" % (len(r.presses) / played)),
    ]
    for view, arrivals, name in ((LIVE, r.arrivals, "signed-in"), (PUBLIC, r.public, "public")):
        reached = sum(1 for k in r.presses if k in arrivals)
        rows += [
            ("%s page: moves that reached it" % name, "%d" % reached),
            (
                "  missing / repeated / unknown",
                "%d / %d / %d" % (len(r.missing(view)), len(r.repeats(view)), len(r.strays(view))),
            ),
            ("  games out of seq order", "%d" % len(r.out_of_order(view))),
        ]
    lat = r.latencies()
    if lat:
        ms = [1000 * x for x in lat]
        rows.append(("press -> signed-in page p50 / p90 / p99 / max", _ms_row(ms)))
        first = r.latencies(0, FIRST_MINUTE)
        steady = r.latencies(FIRST_MINUTE)
        rows.append(
            (
                "  max: first minute / after",
                "%s / %s"
                % (
                    "%.0f ms" % (1000 * first[-1]) if first else "-",
                    "%.0f ms (p99 %.0f)" % (1000 * steady[-1], 1000 * _pct(steady, 0.99))
                    if steady
                    else "- (a run over 60 s)",
                ),
            )
        )
        rows += _segments(r)
    pub = r.latencies(view=PUBLIC)
    if pub:
        ms = [1000 * (x - r.delay) for x in pub]
        rows.append(
            (
                "press -> public page less the %g s delay" % r.delay,
                "min %.0f, " % ms[0] + _ms_row(ms),
            )
        )
        by_press, by_hall = r.early()
        after_hall = [
            hits[0][0] - hits[0][3] / 1000 - r.delay
            for hits in r.public.values()
            if isinstance(hits[0][3], (int, float))
        ]
        if after_hall:
            rows.append(
                (
                    "  hall's receipt -> public page less the delay",
                    "min %.1f, p50 %.0f ms"
                    % (1000 * min(after_hall), 1000 * _pct(sorted(after_hall), 0.5)),
                )
            )
        rows.append(
            (
                "  sooner than the delay: after press / hall",
                "%d / %d" % (len(by_press), len(by_hall)),
            )
        )
    if r.hall_moves:
        rows.append(("moves pressed the hall lacks (its API)", "%d" % len(r.not_in_hall())))
    if r.closed:
        rows.append(
            (
                "pages the hall closed (too far behind)",
                ", ".join("%s %d" % kv for kv in sorted(r.closed.items())),
            )
        )
    if r.verdicts:
        rows.append(
            (
                "the hall's games by verdict",
                ", ".join("%s %d" % kv for kv in sorted(r.verdicts.items())),
            )
        )
    if r.status:
        bad = r.status.get("bad") or {}
        kinds = {k: v for k, v in bad.items() if k != "total" and isinstance(v, int) and v}
        rows.append(
            (
                "the hall's bad messages",
                "%s%s"
                % (
                    bad.get("total", 0),
                    " (%s)" % ", ".join("%s %d" % kv for kv in sorted(kinds.items()))
                    if kinds
                    else "",
                ),
            )
        )
        # Every live record's MAC is checked by the hall (proof.Chain): say how many failed, and
        # what it held unproven at the end (records waiting for the MAC of a later read).
        kept = bad.get("kept") or {}
        rows.append(
            (
                "live records forged (MAC failed) / held",
                "%s / %s bytes" % (bad.get("forged", "-"), kept.get("held_bytes", "-")),
            )
        )
        rows.append(("the hall's replays asked", "%s" % r.status.get("replays_asked", "-")))
    out("")
    width = max(len(a) for a, _ in rows)
    for a, b in rows:
        out("%-*s  %s" % (width, a, b))
    if r.idle_usage:
        out("")
        out("before go: the boards followed, none playing")
        _usage_table(r.idle_usage, r.idle_machine, out)
    out("")
    if r.idle_usage:
        out("while the boards play")
    _usage_table(r.usage, r.machine, out)
    if r.machine:
        out("load average %.1f at go, %.1f at the end" % (r.load or (0.0, 0.0)))
    if r.nice or r.serve != 0.01:
        out(
            "stand-ins polling their links every %g s; stand-ins and relays at nice %d"
            % (r.serve, r.nice)
        )
    for view in (LIVE, PUBLIC):
        for keys, what in (
            (r.missing(view), "missing"),
            (r.repeats(view), "repeated"),
            (r.strays(view), "unknown"),
        ):
            if keys:
                out(
                    "%s on the %s page (first 10): %s"
                    % (what, view, " ".join("%s/%d/%d" % m for m in keys[:10]))
                )
    for keys, what in zip(r.early(), ("its press", "the hall's receipt")):
        if keys:
            out(
                "sooner than the delay after %s (first 10): %s"
                % (what, " ".join("%s/%d/%d" % m for m in keys[:10]))
            )
    if r.bad_messages:
        out("WebSocket messages not understood: %d" % r.bad_messages)
    for note in r.notes:
        out("note: " + note)


def _usage_table(usage: dict, machine: list, out) -> None:
    out("%-15s %10s %10s %11s" % ("process", "CPU avg %", "CPU peak %", "RSS peak MB"))
    names = list(usage)
    relays = [n for n in names if n.startswith("relay")]
    stands = [n for n in names if n.startswith("stand-ins")]
    for name in ["broker", "hall"] + relays:
        if name in usage:
            out(_usage_line(name, [usage[name]]))
    if len(relays) > 1:
        out(_usage_line("relays (sum)", [usage[n] for n in relays]))
    if stands:
        out(_usage_line("stand-ins (sum)", [usage[n] for n in stands]))
    if "page clients" in usage:
        out(_usage_line("page clients", [usage["page clients"]]))
    if machine:
        import psutil

        others = [o for _, o in machine]
        out(
            "machine: %d cores, all busy %.0f %% of one core on average; other programs "
            "%.0f %% (peak %.0f %%)"
            % (
                psutil.cpu_count(),
                sum(m for m, _ in machine) / len(machine),
                sum(others) / len(others),
                max(others),
            )
        )


def _segments(r: Result) -> list:
    # Where the time goes: press -> relay's read (its "at"), relay -> hall ("received"),
    # hall -> page; each the p50 / p99 in ms. Clocks of one machine: comparable.
    a, b, c = [], [], []
    for k, t in r.presses.items():
        hits = r.arrivals.get(k)
        if not hits:
            continue
        now, _, at, received = hits[0]
        if isinstance(at, (int, float)) and isinstance(received, (int, float)):
            a.append(at - 1000 * t)
            b.append(received - at)
            c.append(1000 * now - received)
    if not a:
        return []
    out = []
    for name, xs in (
        ("  press -> relay read p50 / p99", a),
        ("  relay -> hall p50 / p99", b),
        ("  hall -> signed-in page p50 / p99", c),
    ):
        xs.sort()
        out.append((name, "%.0f / %.0f ms" % (_pct(xs, 0.5), _pct(xs, 0.99))))
    return out


def dump(r: Result, path: str) -> None:
    """Every move as a JSON line: board, game, ply, press (s), and each arrival's page time
    (s), seq, the relay's ``at`` and the hall's ``received`` (ms), on the signed-in page
    (``arrivals``) and the public one (``public``); times since go."""
    with open(path, "w") as f:
        for k, t in sorted(r.presses.items()):
            row = {"board": k[0], "game": k[1], "ply": k[2], "press": round(t - r.go, 4)}
            for name, arrivals in (("arrivals", r.arrivals), ("public", r.public)):
                row[name] = [
                    [round(now - r.go, 4), seq, at, received]
                    for now, seq, at, received in arrivals.get(k, [])
                ]
            f.write(json.dumps(row) + "\n")


def _usage_line(name: str, series: list[list]) -> str:
    # Summed per sample (a process group's whole cost), then averaged and peaked.
    n = min(len(s) for s in series) if series else 0
    if not n:
        return "%-15s %10s %10s %11s" % (name, "-", "-", "-")
    cpu = [sum(s[i][0] for s in series) for i in range(n)]
    rss = [sum(s[i][1] for s in series) for i in range(n)]
    return "%-15s %10.1f %10.1f %11.1f" % (name, sum(cpu) / n, max(cpu), max(rss) / 2**20)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.hall_scale", description=__doc__.split("\n")[0]
    )
    p.add_argument("--boards", type=int, default=200)
    p.add_argument("--relays", type=int, default=4)
    p.add_argument("--pace", type=float, default=5.0, help="seconds between a board's moves")
    p.add_argument("--seconds", type=float, default=60.0, help="how long the boards play")
    p.add_argument("--delay", type=float, default=10.0, help="the hall's --delay, s")
    p.add_argument("--moves", type=int, default=0, help="a game's moves at most (0: all)")
    p.add_argument("--no-keys", action="store_true", help="register the boards without keys")
    p.add_argument("--serve", type=float, default=0.01, help="the stand-ins' link poll, s")
    p.add_argument("--nice", type=int, default=0, help="the stand-ins' and relays' niceness")
    p.add_argument("--idle", type=float, default=0.0, help="CPU sampled before go, s")
    p.add_argument("--drain", type=float, default=30.0, help="wait for the last moves, s")
    p.add_argument("--follow", type=float, default=120.0, help="wait for every board, s")
    p.add_argument("--corpus", default=None, help="the Go corpus folder (default: ../shared)")
    p.add_argument("--keep", default=None, help="run in this folder and keep it (the logs)")
    p.add_argument("--dump", default=None, help="every move's times to this file (JSON lines)")
    a = p.parse_args(argv)
    if a.boards < 1 or not 1 <= a.relays <= a.boards or a.pace <= 0 or a.seconds <= 0:
        p.error("--boards >= 1, --relays 1..boards, --pace and --seconds > 0")
    if a.delay < 0 or a.moves < 0 or a.idle < 0 or not 0 < a.serve <= 1:
        p.error("--delay, --moves, --idle: not negative; --serve 0-1 s")
    from host_tools.hall.broker import BrokerError, mosquitto

    try:
        mosquitto()
        why = ready_commands()
    except BrokerError as e:
        why = str(e)
    if why:
        print("hall_scale: %s; nothing measured" % why)
        return 0
    if a.keep:
        Path(a.keep).mkdir(parents=True, exist_ok=True)
    r = run(
        a.boards,
        a.relays,
        a.pace,
        a.seconds,
        a.drain,
        a.keep,
        a.corpus,
        follow_timeout=a.follow,
        delay=a.delay,
        moves=a.moves,
        keys=not a.no_keys,
        serve=a.serve,
        nice=a.nice,
        idle=a.idle,
    )
    report(r)
    if a.dump:
        dump(r, a.dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
