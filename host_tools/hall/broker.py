"""The hall's MQTT broker: Mosquitto (Debian's ``mosquitto``), configured and, for a demo or a
test, started here. Tengen has no broker of its own.

Start reading at ``write_config``. A hall's broker folder holds ``mosquitto.conf``, the
password file (hashed by ``mosquitto_passwd``) and the ACL:

    relay-<id>  one user per relay (``feed.relay_user``): writes only topics that end with
             its own user (a pattern with ``%u``): its boards' ``state``, ``events`` and
             ``proof``, and its status ``_relay/relay-<id>``; reads the pairings, the replay
             requests and its own snapshots. It cannot write a pairing, a replay request,
             another relay's status, the public copy or anything under another relay's name,
             and the hall takes a board's messages only from the relay the organiser
             registered it to (``host_tools/hall/boards.py``)
    hall     reads everything of the hall; writes only pairings, replay requests and the
             public copy (``tengen/<hall>/_public/#``)
    public   reads only the public copy: the hall republishes there each state, event and
             relay status once it is ``--delay`` old; for other software, never a writer

Anonymous clients are refused, and so is a packet over ``MAX_PACKET`` bytes (room for the
largest payload, a finished game's proof); retained messages and the queued QoS 1 messages of the
persistent sessions (the hall's) are kept on disk (``persistence``), so a broker restarted
mid-round still has every board's snapshot and what it owed the hall.

``Broker`` runs ``mosquitto -c CONF`` as a child process (``start``, ``stop``, ``kill``,
``restart``) on a port of loopback; ``free_port`` finds one, so that two test runs on one
machine never share a broker.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from host_tools.hall import feed as F

USERS = ("hall", "public")  # and one ``relay-<id>`` per relay (``is_user``)
# The largest MQTT packet the broker takes (``max_packet_size``; a client that sends a larger
# one is disconnected, its message dropped): what a relay can publish at once. The largest
# legitimate payload is a finished game's proof, its stored bytes in base64: the hall takes
# up to ``feed.PROOF_MAX`` (1 MiB) of them (host_tools/hall/door.py ``Limits.proof_bytes``;
# a board's longest game, 4,096 records with their clocks, packs to ~90 KB, ~120 KB in
# base64), plus the envelope and the topic: 64 KiB more leaves room for both.
MAX_PACKET = F.PROOF_MAX + 64 * 1024


def is_user(user: str) -> bool:
    """Whether ``user`` is one of the hall's broker users: hall, public, or a relay's."""
    return user in USERS or F.relay_of_user(user) is not None


class BrokerError(Exception):
    """Mosquitto is missing, or did not start (its words)."""


def mosquitto() -> str:
    """The path of Debian's ``mosquitto`` (in /usr/sbin, often not on a user's PATH)."""
    for p in (shutil.which("mosquitto"), "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"):
        if p and os.access(p, os.X_OK):
            return p
    raise BrokerError(
        "mosquitto is not installed: 'make venv' installs it (Debian: apt-get install mosquitto)"
    )


def free_port() -> int:
    """A TCP port of loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def acl_text(hall: str) -> str:
    """The ACL of a hall (see the module's text)."""
    base = "%s/%s" % (F.ROOT, F.check_name(hall, "hall"))
    # A ``pattern`` applies to every user, %u standing for the user's name: a relay's user
    # writes only under its own name; another user (hall, public) owns no such topics, as
    # no relay id makes ``relay-<id>`` equal to "hall" or "public".
    return "\n".join(
        [
            "# Tengen hall %r: who may read and write what (host_tools/hall/broker.py)" % hall,
            # A board named _public would put a relay's message in the public copy.
            "pattern deny %s/_public/+/%%u" % base,
            "pattern readwrite %s/+/%s/%%u" % (base, F.STATE),
            "pattern write %s/+/%s/%%u" % (base, F.EVENTS),
            "pattern write %s/+/%s/%%u" % (base, F.PROOF),
            "pattern readwrite %s/%s/%%u" % (base, F.RELAY),
            "pattern read %s/+/%s" % (base, F.PAIRING),
            "pattern read %s/+/%s" % (base, F.REPLAY),
            "",
            "user hall",
            *_not_a_relay(base, "hall"),
            "topic read %s/#" % base,
            "topic write %s/+/%s" % (base, F.PAIRING),
            "topic write %s/+/%s" % (base, F.REPLAY),
            "topic write %s/_public/#" % base,
            "",
            "user public",
            *_not_a_relay(base, "public"),
            "topic read %s/_public/#" % base,
            "",
        ]
    )


def _not_a_relay(base: str, user: str) -> list[str]:
    # The patterns give every user the topics named after it: denied to hall and public (a
    # deny is applied before any grant), so that neither writes where a relay would.
    return ["topic deny %s/+/%s/%s" % (base, leaf, user) for leaf in F.RELAY_LEAVES] + [
        "topic deny %s/%s/%s" % (base, F.RELAY, user)
    ]


def write_config(
    folder,
    hall: str,
    passwords: dict[str, str],
    port: int = 1883,
    bind: str = "127.0.0.1",
) -> Path:
    """Write a hall's broker configuration into ``folder`` (made if need be): mosquitto.conf,
    passwd (each of ``passwords``' users, hashed by mosquitto_passwd), acl, and data/ for
    persistence. Returns the path of mosquitto.conf."""
    folder = Path(folder).resolve()
    (folder / "data").mkdir(parents=True, exist_ok=True)
    unknown = sorted(u for u in passwords if not is_user(u))
    if unknown:
        raise BrokerError(
            "users are %s and relay-<id>, not %s" % (", ".join(USERS), ", ".join(unknown))
        )
    passwd = folder / "passwd"
    passwd.write_text("")
    os.chmod(passwd, 0o600)
    tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    for user, password in passwords.items():
        r = subprocess.run(
            [tool, "-b", str(passwd), user, password], capture_output=True, text=True
        )
        if r.returncode:
            raise BrokerError("mosquitto_passwd: %s" % (r.stderr.strip() or r.stdout.strip()))
    (folder / "acl").write_text(acl_text(hall))
    conf = folder / "mosquitto.conf"
    conf.write_text(
        "\n".join(
            [
                "# Tengen hall %r (host_tools/hall/broker.py; README: The tournament hall)" % hall,
                "per_listener_settings false",
                # Run as root, mosquitto would become the user "mosquitto", who cannot read
                # these files: it stays the user who wrote them.
                "user %s" % pwd.getpwuid(os.getuid()).pw_name,
                "listener %d %s" % (port, bind),
                "allow_anonymous false",
                "password_file %s" % passwd,
                "acl_file %s" % (folder / "acl"),
                "persistence true",
                "persistence_location %s/" % (folder / "data"),
                "autosave_interval 1",
                "max_queued_messages 100000",
                "max_packet_size %d" % MAX_PACKET,
                "log_dest stderr",
                "log_type error",
                "log_type warning",
                "",
            ]
        )
    )
    return conf


class Broker:
    """Mosquitto as a child process on ``port`` of loopback, its files in ``folder``; with
    ``passwords`` (default: hall, public and the user of each of ``relays``, every user's
    password its name) written by ``write_config``."""

    def __init__(
        self, folder, hall: str, port: int | None = None, passwords=None, relays=("r1", "r2")
    ):
        self.folder = Path(folder)
        self.hall = hall
        self.port = port or free_port()
        users = list(USERS) + [F.relay_user(r) for r in relays]
        self.passwords = dict(passwords or {u: u for u in users})
        self.conf = write_config(self.folder, hall, self.passwords, self.port)
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> Broker:
        """Start mosquitto and wait until it takes connections."""
        log = open(self.folder / "mosquitto.log", "ab")  # noqa: SIM115 - the child keeps it
        try:
            self.proc = subprocess.Popen(
                [mosquitto(), "-c", str(self.conf)],
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        finally:
            log.close()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise BrokerError("mosquitto exited: %s" % self.log_tail())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise BrokerError("mosquitto did not listen on %d: %s" % (self.port, self.log_tail()))

    def log_tail(self, n: int = 800) -> str:
        try:
            return (self.folder / "mosquitto.log").read_text(errors="replace")[-n:]
        except OSError:
            return ""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc and self.proc.poll() is None else None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop it cleanly (SIGTERM: it saves what it keeps)."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """Kill it at once (SIGKILL: what it had not saved is gone, as in a crash)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def restart(self, kill: bool = True) -> Broker:
        """Kill (or stop) and start it again on the same port with the same files."""
        self.kill() if kill else self.stop()
        return self.start()

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
