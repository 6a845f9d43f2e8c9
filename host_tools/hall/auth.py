"""Who may see the hall's live view: the arbiters' and organisers' logins of ``tengen hall``.

Start reading at ``Users`` (the users file), then ``Sessions`` and ``request_user`` (how a
request proves who sends it). ``host_tools/hall/server.py`` puts them in front of the arbiter's page,
``/api/incidents``, ``/api/status``, the live API (``/api/live/...``) and the live WebSocket
(``/ws?live=1``); the public routes never ask for a login and only ever show the delayed view.

The users file (``tengen hall --users FILE --add-user NAME``) has one line per user,
``NAME:scrypt$N$r$p$SALT$HASH`` (hashlib.scrypt, a random 16-byte salt per user, hex):
no password is kept, printed or logged, only its hash; the file is written 0600 and replaced
atomically. A page signs in with the form at ``/login``: the session is a random token
(``secrets.token_urlsafe(32)``) in an HttpOnly, SameSite=Strict cookie (Secure when the hall
is served over HTTPS), kept in the hall's memory only (a restarted hall asks again). An API
client sends HTTP Basic (``curl -u NAME:PW``) instead.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
import time
from pathlib import Path

COOKIE = "tengen_session"
SESSION_S = 12 * 3600  # a day of play; then the page asks again
SESSIONS_MAX = 1000  # the oldest goes first: a flood of logins cannot fill the hall's memory
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # 16 MiB, some 50 ms a check
CHECKED_S = 60.0  # an API client's right password is not hashed again for so long
CHECKED_MAX = 1000
_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


class AuthError(ValueError):
    """A user name or users file that cannot be used (its words say why)."""


def check_user(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise AuthError("user %r: 1-64 letters, digits, '_', '.', '@' or '-'" % (name,))
    return name


def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$SALT$HASH`` of ``password`` (a new random salt unless given)."""
    salt = os.urandom(16) if salt is None else salt
    h = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return "scrypt$%d$%d$%d$%s$%s" % (SCRYPT_N, SCRYPT_R, SCRYPT_P, salt.hex(), h.hex())


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` (``hash_password``'s form) was made of."""
    try:
        kind, n, r, p, salt, h = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(
            password.encode(),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(h) // 2,
            maxmem=2**26,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), h)


class Users:
    """The users file: ``read`` it, ``add``/``remove`` (written back at once), ``check``."""

    def __init__(self, path, clock=time.monotonic):
        self.path = Path(path)
        self.hashes: dict[str, str] = {}
        self.clock = clock
        # HTTP Basic sends the password with every request: a right one is remembered for
        # CHECKED_S under an HMAC of a key of this process (the password is not kept).
        self._key = os.urandom(32)
        self._checked: dict[bytes, float] = {}
        self._stamp = None

    def _stat(self):
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def fresh(self) -> Users:
        """Read the file again if it changed (a user added or removed while the hall runs);
        a file that no longer reads keeps the users had."""
        if self._stat() != self._stamp:
            try:
                self.read()
            except (AuthError, OSError, UnicodeDecodeError):
                pass
        return self

    def read(self) -> Users:
        """Read the file (none yet: no users); AuthError on a line that does not read."""
        self.hashes = {}
        self._checked.clear()
        self._stamp = self._stat()
        if not self.path.exists():
            return self
        for k, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            name, sep, stored = line.partition(":")
            if not sep or not _NAME.match(name) or not stored.startswith("scrypt$"):
                raise AuthError("%s line %d: not NAME:scrypt$..." % (self.path, k))
            self.hashes[name] = stored
        return self

    def write(self) -> None:
        text = "# tengen hall users (README: The tournament hall): NAME:scrypt hash\n" + "".join(
            "%s:%s\n" % (n, h) for n, h in sorted(self.hashes.items())
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, self.path)

    def add(self, name: str, password: str) -> None:
        """Add ``name`` or give it a new password."""
        check_user(name)
        if not password:
            raise AuthError("an empty password")
        self._checked.clear()
        self.hashes[name] = hash_password(password)
        self.write()

    def remove(self, name: str) -> bool:
        self._checked.clear()
        had = self.hashes.pop(name, None) is not None
        if had:
            self.write()
        return had

    def check(self, name: str, password: str) -> bool:
        mark = hmac.new(self._key, ("%s\0%s" % (name, password)).encode(), "sha256").digest()
        if self._checked.get(mark, -1.0) >= self.clock():
            return True
        stored = self.hashes.get(name)
        if stored is None:
            hash_password(password, b"\0" * 16)  # as long as a real check: names not probed
            return False
        if not check_password(password, stored):
            return False
        while len(self._checked) >= CHECKED_MAX:
            self._checked.pop(next(iter(self._checked)))
        self._checked[mark] = self.clock() + CHECKED_S
        return True


class Sessions:
    """The signed-in pages: token -> (user, expiry); in memory only."""

    def __init__(self, clock=time.monotonic, ttl: float = SESSION_S):
        self.clock = clock
        self.ttl = ttl
        self.by_token: dict[str, tuple[str, float]] = {}

    def new(self, user: str) -> str:
        token = secrets.token_urlsafe(32)
        while len(self.by_token) >= SESSIONS_MAX:
            self.by_token.pop(next(iter(self.by_token)))
        self.by_token[token] = (user, self.clock() + self.ttl)
        return token

    def user(self, token: str | None) -> str | None:
        got = self.by_token.get(token or "")
        if got is None:
            return None
        if got[1] < self.clock():
            self.by_token.pop(token, None)
            return None
        return got[0]

    def end(self, token: str | None) -> None:
        self.by_token.pop(token or "", None)


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``(name, password)`` of an ``Authorization: Basic ...`` header; None otherwise."""
    if not header or not header[:6].lower() == "basic ":
        return None
    try:
        text = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    name, sep, password = text.partition(":")
    return (name, password) if sep else None


def request_user(headers, cookies, users: Users | None, sessions: Sessions) -> str | None:
    """Who sends a request: its session cookie's user, else its HTTP Basic user if the
    password is right; None if no one (or no users file)."""
    user = sessions.user(cookies.get(COOKIE))
    if user is not None:
        return user
    creds = basic_credentials(headers.get("Authorization"))
    if creds is not None and users is not None and users.fresh().check(*creds):
        return creds[0]
    return None
