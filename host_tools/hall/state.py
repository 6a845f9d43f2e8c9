"""What ``tengen hall`` knows of the tournament: every board and every game, built from the
broker's messages alone (``host_tools/hall/feed.py``'s encoding, read by its ``parse_*``). Pure:
no network and no event loop here; ``host_tools/hall/server.py`` feeds it and serves it.

Start reading at ``Hall.handle`` (one MQTT message in: ``door``, the checks of
``host_tools/hall/door.py`` and the register, then ``take``, held to the bounds of
``door.Limits``), then ``Hall.tick`` (what time does:
the broadcast delay passing, replay requests again). What goes out is left for the server in
two lists: ``pushes`` (JSON messages for every page's WebSocket) and ``outbox`` (MQTT
publishes: replay requests, the pairings).

Per board: the latest snapshot (the relay's ``state``), whether it is online (its snapshot
says so and its relay is online), its pairing, and a ``host_tools/live/watch.py`` ``View`` of its
current game: the snapshot loaded, each new move applied as ``tengen watch`` applies the
board's move event, so the faces are drawn by the firmware's clock model just as there.

Per (board, game): the records (``feed.GameRecords``: in order, repeats dropped, gaps held
back and asked for on the board's ``replay`` topic), when each arrived (the hall's clock: the
broadcast delay cuts there), the incidents and arbiter actions in words. The broadcast SGF is
``host_tools/records/export.py``'s ``export`` of the records that arrived at least ``delay`` seconds
ago: for a finished game, byte for byte the SGF ``tengen sync`` writes. The records are kept
in ``feed_dir/<board>/<game>.jsonl`` (one line each, with its times), so a restarted hall has
them again; the SGF in ``feed_dir/<board>/<game>.sgf``.

Who may say what: the organiser's register (``host_tools/hall/boards.py``, ``boards``) names
each board's relay and key. A board's messages from another relay (the topic ends with the
relay's user, which the broker's ACL enforces) are refused and counted. A finished game's
proof (the board's bytes and HMAC) is checked with the board's key (``host_tools/
proof.py``): a verified game's records are the board's, whatever came before them (the
records had are replaced and the feed written again, the conflict counted); a FAILED one is
kept apart, never in the feed. The proof is kept as ``<game>.proof`` (a FAILED verdict as
``<game>.failed``) beside the records.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import os
import time
from pathlib import Path

from firmware.referee import incidents as INC
from firmware.store import records as R
from firmware.ui import arbiter as A
from host_tools.common import words
from host_tools.hall import door as HI
from host_tools.hall import feed as F
from host_tools.hall import proof as P
from host_tools.live import watch as W
from host_tools.records import export as X
from host_tools.records.sync import KINDS, write_atomic

log = logging.getLogger("tengen.hall")

REPLAY_EVERY_S = 2.0  # one replay request per game at most this often
BEHIND_GRACE_S = 1.0  # a snapshot ahead of the records: the events may be on their way
INCIDENTS_KEPT = 5000
INCIDENTS_SHOWN = 500  # in a page's first snapshot
SKEW_MAX_MS = 6 * 3600 * 1000  # a snapshot's age beyond this is a wrong clock, not time spent


def _ms(t: float) -> int:
    return int(round(t * 1000))


def _json_line(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def table_key(table: str, board: str):
    """Sort key of a table: numbered tables by number, then named ones, then boards without a
    table (by id)."""
    t = str(table or "")
    if t.isdigit():
        return (0, int(t), "", board)
    return (1 if t else 2, 0, t, board)


def clocks_text(clocks) -> list[str]:
    """A move's four clock figures as two short texts (Black's, White's): the main time as a
    face shows it, or the units left once the main time is gone."""
    out = []
    for k in (0, 2):
        if not clocks or len(clocks) < k + 2:
            out.append("")
        elif clocks[k] > 0 or clocks[k + 1] <= 0:
            out.append(W.clock_text(clocks[k]))
        else:
            out.append("0:00 +%d" % clocks[k + 1])
    return out


class GameState:
    """One game of one board: its records as they came, and what is made of them."""

    def __init__(self, board: str, game: int, hold: int = 4096):
        self.board = board
        self.game = game
        self.recs = F.GameRecords(hold)
        self.relay_at: dict[int, int] = {}  # seq -> the relay's ``at`` (ms)
        self.asked_at = -1e18  # when a replay was last asked (hall clock)
        self.behind: tuple[int, float] | None = None  # (seq a snapshot says, since when)
        self.fed = 0  # records in the SGF last written to the feed folder
        self.fed_sgf: bytes | None = None
        self.bytes = 0  # the lines of its .jsonl (the hall's ``kept_bytes`` holds them all)
        self.verdict: str | None = None  # proof's VERIFIED, FAILED or UNVERIFIED
        self.why = ""  # why FAILED
        self.proof: tuple[bytes, str] | None = None  # the board's bytes and HMAC, if they agree
        self.chain: P.Chain | None = None  # a keyed board's live records proven (proof)
        self.held_since: float | None = None  # since when the chain holds records unproven
        self._read: tuple[int, X.Game | None] = (-1, None)
        self._sgf: tuple[int, bytes | None] = (-1, None)

    @property
    def header(self) -> dict | None:
        recs = self.recs.records
        return recs[0][1] if recs and recs[0][0] == R.HEADER else None

    def kind(self) -> str:
        h = self.header
        return KINDS.get(h.get("kind", R.GO), "go") if h else "go"

    def size(self) -> int:
        h = self.header or {}
        return int(h.get("size") or (19 if self.kind() == "go" else 15))

    def extra(self) -> dict:
        return X.header_extra(self.header or {})

    def read(self) -> X.Game | None:
        """``export.read_game`` of the records had (cached); None if they do not read."""
        n = len(self.recs.records)
        if self._read[0] != n:
            try:
                game = X.read_game(self.recs.records)
            except Exception:  # records the exporter cannot read: shown as none
                game = None
            self._read = (n, game)
        return self._read[1]

    def result(self) -> str | None:
        g = self.read()
        return X.result_text(g) if g is not None else None

    def sgf(self, upto: float) -> bytes | None:
        """The broadcast SGF: ``export`` of the records that arrived at or before ``upto``
        (the hall's clock); None before the header has."""
        recs = self.recs.upto(upto)
        if not recs or self.verdict == P.FAILED:
            return None
        if self._sgf[0] != len(recs):
            # The whole game with its proof: the SGF carries the board's record and HMAC, as
            # the one ``tengen sync`` writes (``tengen verify`` checks it alone).
            proof = self.proof if len(recs) == len(self.recs.records) else None
            try:
                data = X.export(recs, proof=proof)["sgf"]
            except Exception as e:  # the exporter refuses them: no SGF, said once
                log.warning("board %s game %d: no SGF: %s", self.board, self.game, e)
                data = None
            self._sgf = (len(recs), data)
        return self._sgf[1]


class BoardState:
    """One board: its snapshot, whether it is online, its pairing, the view of its game."""

    def __init__(self, board: str):
        self.id = board
        self.snapshot: dict | None = None
        self.relay = ""
        self.online = False
        self.since: float | None = None  # offline since (hall clock); None while online
        self.game = 0  # the current game's number (the newest the hall heard of)
        self.games = 0  # how many of its games the hall keeps
        self.pairing: dict = {}
        self.view = W.View()
        self._stones: tuple = ((), [])


class Hall:
    """The hall's whole state. ``handle`` each MQTT message, ``tick`` now and then; take
    ``pushes`` and ``outbox`` after each. ``clock`` is the hall's clock (``time.time``)."""

    def __init__(
        self,
        name: str,
        feed_dir=None,
        delay: float = 0.0,
        pairings: dict | None = None,
        clock=time.time,
        boards: dict | None = None,
        limits: HI.Limits | None = None,
    ):
        self.name = F.check_name(name, "hall")
        self.feed_dir = Path(feed_dir) if feed_dir is not None else None
        self.delay = float(delay)
        self.clock = clock
        self.boards: dict[str, BoardState] = {}
        self.games: dict[tuple[str, int], GameState] = {}
        self.relays: dict[str, dict] = {}
        self.incidents: list[dict] = []  # oldest first
        # What the door refused (host_tools/hall/door.py), and the bounds it holds to.
        self.limits = limits or HI.Limits()
        self.counts = HI.Counts(self.limits)
        self.bad = self.counts.kinds
        self.bad_last = self.counts.last
        self._bad_dirty = False
        self.quiet = False  # the public view: its refusals are the live view's, said there
        self.unknown: dict[str, set] = {}  # relay ("": none named) -> boards not paired
        self.held = 0  # records kept and held past a gap, every game together
        self.held_bytes = 0  # the bytes of the live records the chains hold unproven
        self.kept_bytes = 0  # the lines of the .jsonl files, every game together
        self.conflicts = 0
        self.replaced = 0  # games whose records a verified proof replaced
        self.forged = 0  # live records whose board's MAC did not hold (proof.Chain)
        self.refused = 0  # messages from a relay the board is not registered to
        self.register = dict(boards or {})  # board -> {"relay", "key"} (boards.read)
        self.replays_asked = 0
        self.pushes: list[dict] = []
        self.outbox: list[tuple[str, bytes, bool]] = []
        self.dirty: set[str] = set()
        self.pairings = dict(pairings or {})
        for board, p in self.pairings.items():
            self._board(board).pairing = dict(p)

    # ---- messages in --------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes, now: float | None = None) -> bool:
        """One MQTT message: a board's snapshot, event or proof, or a relay's status; the
        door (``door``), then the model (``take``). Whether it was taken."""
        now = self.clock() if now is None else now
        msg = self.door(topic, payload, now)
        return msg is not None and self.take(msg, now)

    def door(self, topic: str, payload: bytes, now: float | None = None) -> HI.Message | None:
        """The message checked (``door.check``: its topic, the register's relay for
        its board, its payload): what the model may take, or None. A refusal is counted here
        (by kind, by relay and board), logged at most once a minute per kind, and goes no
        further. ``server.py`` calls it once a message, before either view takes it."""
        now = self.clock() if now is None else now
        try:
            where = HI.check_topic(topic, self.name)
        except HI.Refused as e:
            self.bad_message(e.kind, str(e), None, now)
            return None
        board, leaf, relay = where
        who = HI.sources(board, leaf, relay)
        if board != F.RELAY and leaf in F.RELAY_LEAVES and not self._its_relay(board, relay):
            self.refused += 1
            self.bad_message(
                "relay",
                "%s: board %s is registered to relay %s, not %s"
                % (topic, board, self.register[board]["relay"], relay),
                who,
                now,
            )
            return None
        try:
            return HI.check_payload(where, payload, self.limits)
        except HI.Refused as e:
            self.bad_message(e.kind, str(e), who, now)
            return None

    def take(self, msg: HI.Message, now: float | None = None) -> bool:
        """A message past the door into the model; whether it was taken (else it was held
        to a bound, or did not fit what the hall has: counted)."""
        now = self.clock() if now is None else now
        board, leaf, relay, obj = msg
        try:
            if board == F.RELAY:
                self._relay(leaf, obj, now)
            elif leaf == F.STATE:
                self._state(board, obj, relay, now)
            elif leaf == F.EVENTS:
                return self._event(board, obj, relay, now)
            elif leaf == F.PROOF:
                return self._proof(board, obj, now, relay=relay)
            # the pairing and replay leaves are the hall's own words: nothing to learn there
            return True
        except HI.Refused as e:
            self.bad_message(e.kind, str(e), HI.sources(board, leaf, relay), now)
        except F.FeedError as e:
            kind = leaf if board != F.RELAY else "relay"
            self.bad_message(kind, "%s: %s" % (board, e), HI.sources(board, leaf, relay), now)
        return False

    def _its_relay(self, board: str, relay: str | None) -> bool:
        # A registered relay: only it (a topic without a relay's user is no relay's);
        # none registered: any relay.
        want = self.register.get(board, {}).get("relay")
        return want is None or relay == want

    def key(self, board: str) -> bytes | None:
        """The board's registered key, None if it has none."""
        return self.register.get(board, {}).get("key")

    def verdict(self, g: GameState) -> str:
        """``proof``'s VERIFIED, UNVERIFIED, PENDING or FAILED of a game now."""
        if g.verdict in (P.VERIFIED, P.FAILED):
            return g.verdict
        return P.PENDING if self.key(g.board) is not None else P.UNVERIFIED

    def bad_message(self, kind: str, text: str, who=None, now=None) -> None:
        """Count a message that could not be used (shown on the arbiter's page) under its
        kind and ``who`` (``door.sources``: its relay and board); logged at most once
        per ``Limits.log_every_s`` per kind (never by a ``quiet`` view: the live one said
        it, but for a fault of the hall's own)."""
        self.counts.add(kind, text, who)
        n = self.counts.log_now(kind, self.clock() if now is None else now)
        if n and (not self.quiet or kind == "internal"):
            log.warning(
                "bad %s message (%d since last said, %d in all): %s",
                kind,
                n,
                self.bad.get(kind, 0),
                HI.short(text),
            )
        self._bad_dirty = True  # one push per flush, however many came

    # ---- the bounds ---------------------------------------------------------------------------

    def _admit_board(self, board: str, relay: str, per_relay: bool = True) -> bool:
        """Whether the hall keeps ``board`` (already had, paired or registered, or within
        the bounds of boards not in the pairings: per relay and in all)."""
        if board in self.boards:
            return True
        if board not in self.pairings and board not in self.register:
            had = self.unknown.get(relay)
            if per_relay and had is None and len(self.unknown) >= self.limits.relays:
                return False
            if per_relay and len(had or ()) >= self.limits.unknown_per_relay:
                return False
            if sum(len(x) for x in self.unknown.values()) >= self.limits.unknown_boards:
                return False
            self.unknown.setdefault(relay, set()).add(board)
        self._board(board)
        return True

    def _admit_game(self, board: str, game: int) -> GameState:
        """The game, made if the board has fewer than ``games_per_board``; else Refused."""
        g = self.games.get((board, game))
        if g is not None:
            return g
        b = self.boards.get(board)
        if b is not None and b.games >= self.limits.games_per_board:
            raise HI.Refused(
                "bound",
                "board %s: game %d past the %d games a board may have"
                % (board, game, self.limits.games_per_board),
            )
        if len(self.games) >= self.limits.games:
            raise HI.Refused(
                "bound",
                "board %s: game %d past the hall's %d games" % (board, game, len(self.games)),
            )
        return self._game(board, game)

    def _admit_record(self, g: GameState, seq: int, rec) -> None:
        """Refused if the record would pass the hall's records or bytes, or a move or an
        incident names a point off its game's board."""
        h = g.header
        if h is not None and rec[0] in (R.MOVE, R.INCIDENT):
            size = g.size()
            points = (rec[3],) if rec[0] == R.MOVE else rec[4]
            for p in points:
                if p != R.PASS and ((p & 31) >= size or (p >> 5) >= size):
                    raise HI.Refused(
                        "events",
                        "board %s game %d: point %d is off a %dx%d board"
                        % (g.board, g.game, p, size, size),
                    )
        if seq < len(g.recs.records) or seq in g.recs.ahead:
            return  # a repeat (or a conflict): nothing more to keep
        if self.held >= self.limits.records:
            raise HI.Refused(
                "bound", "board %s: past the hall's %d records" % (g.board, self.held)
            )
        if self.kept_bytes >= self.limits.bytes:
            raise HI.Refused(
                "bound", "board %s: past the hall's %d bytes" % (g.board, self.kept_bytes)
            )

    def _board(self, board: str) -> BoardState:
        b = self.boards.get(board)
        if b is None:
            b = self.boards[board] = BoardState(board)
        return b

    def _game(self, board: str, game: int) -> GameState:
        g = self.games.get((board, game))
        if g is None:
            g = self.games[(board, game)] = GameState(board, game, self.limits.records_per_game)
            self._board(board).games += 1
        return g

    def _relay(self, relay: str, obj: dict, now: float) -> None:
        if relay not in self.relays and len(self.relays) >= self.limits.relays:
            raise HI.Refused("bound", "relay %s: past the %d relays" % (relay, self.limits.relays))
        was = self.relays.get(relay, {})
        boards = [b for b in obj["boards"] if self._admit_board(b, relay)]
        self.relays[relay] = {
            "online": obj["online"],
            "boards": boards,
            "at": obj.get("at", 0),
            "since": was.get("since") if was.get("online") == obj["online"] else now,
        }
        for board in boards:
            if not self._its_relay(board, relay):
                continue  # another relay's board: not this one's to claim
            b = self._board(board)
            if not b.relay:
                b.relay = relay
        if len(boards) < len(obj["boards"]):
            self.bad_message(
                "bound",
                "relay %s: %d boards past the bounds of boards not paired"
                % (relay, len(obj["boards"]) - len(boards)),
                HI.sources(F.RELAY, relay, relay),
            )
        for b in list(self.boards.values()):
            if b.relay == relay:
                self._set_online(b, now)

    def _relay_online(self, relay: str) -> bool:
        r = self.relays.get(relay)
        return True if r is None else bool(r["online"])

    def _set_online(self, b: BoardState, now: float) -> None:
        snap_online = bool(b.snapshot and b.snapshot.get("online"))
        online = snap_online and self._relay_online(b.relay)
        if online == b.online and (online or b.since is not None):
            return
        b.online = online
        b.since = None if online else now
        msg = {"type": "online" if online else "offline", "board": b.id}
        if not online:
            msg["since"] = _ms(now)
        self.pushes.append(msg)
        self.dirty.add(b.id)

    def _state(self, board: str, obj: dict, relay: str | None, now: float) -> None:
        # ``relay``: the topic's (the broker's ACL holds a relay to its own), not what the
        # payload says.
        if obj["board"] != board:
            raise F.FeedError("state: board %r on %s's topic" % (obj["board"], board))
        known = self.boards.get(board)
        if not self._admit_board(board, relay or (known.relay if known else "")):
            raise HI.Refused("bound", "board %s: past the bounds of boards not paired" % board)
        game, seq = obj["game"], obj["seq"]
        g = self._admit_game(board, game) if game >= 1 else None
        b = self._board(board)
        b.snapshot = obj
        b.relay = relay or b.relay
        if g is not None:
            b.game = max(b.game, game)
            if seq >= len(g.recs.records):
                if g.behind is None or g.behind[0] != seq:
                    g.behind = (seq, now)
            else:
                g.behind = None
        state = obj.get("state")
        if isinstance(state, dict):
            st = dict(state)
            clock = st.get("clock")
            if isinstance(clock, dict) and clock.get("state") == "running":
                # The figures were true when the relay read them: the time since is spent.
                age = _ms(now) - obj["at"]
                if 0 < age < SKEW_MAX_MS and isinstance(clock.get("elapsed"), int):
                    st["clock"] = dict(clock, elapsed=clock["elapsed"] + age)
            proven = game >= 1 and self.key(board) is not None
            if proven:
                # A keyed board's position is its proven records', never the relay's word:
                # the snapshot gives the clock and phase only.
                read = self._game(board, game).read()
                moves = read.moves if read is not None else []
                st["moves"] = [m.point for m in moves]
                st["colours"] = [m.colour for m in moves]
                st["ply"] = len(moves)
                st["result"] = (X.result_text(read) if read is not None else "") or ""
            try:
                b.view.load(st)
            except (TypeError, ValueError) as e:
                raise F.FeedError("state: the board's state does not read: %s" % e) from None
            self._set_preset(b)
            if not proven:
                self._replay_view(b, game, seq)
        self._set_online(b, now)
        self.pushes.append(dict(obj, type="state", board=board))
        self.dirty.add(board)

    def _replay_view(self, b: BoardState, game: int, seq: int) -> None:
        # A snapshot older than the records had (a retained one, or one overtaken by the
        # events): the moves after its ``seq`` are applied on top of it.
        g = self.games.get((b.id, game))
        if g is None or game != b.game:
            return
        recs = g.recs.records
        for s in range(max(seq + 1, 1), len(recs)):
            if recs[s][0] == R.MOVE:
                self._view_move(b, recs[s], True)

    def _set_preset(self, b: BoardState) -> None:
        # The faces need the time control: the current game's header names its preset.
        g = self.games.get((b.id, b.game))
        h = g.header if g is not None else None
        if h and h.get("tc"):
            b.view.preset = h["tc"]
            b.view.preset_for = W.game_key(b.view.game(), b.view.size())

    def _event(self, board: str, ev: dict, relay: str | None, now: float) -> bool:
        # False: a conflict (counted), not passed on to the public view.
        if ev["board"] != board:
            raise F.FeedError("event: board %r on %s's topic" % (ev["board"], board))
        if not self._admit_board(board, relay or ""):
            raise HI.Refused("bound", "board %s: past the bounds of boards not paired" % board)
        g = self._admit_game(board, ev["game"])
        seq = ev["seq"]
        self._admit_record(g, seq, ev["rec"])
        if seq >= len(g.recs.records):
            g.relay_at.setdefault(seq, ev["at"])
        chain = self._chain(g)
        if chain is None or seq < chain.count:
            # unkeyed, or proven before: a repeat at most
            return self._add(g, seq, ev["rec"], now, relay)
        if self.held_bytes + len(ev["raw"] or b"") > self.limits.held_bytes:
            raise HI.Refused(
                "bound", "board %s: past the hall's %d bytes held" % (board, self.held_bytes)
            )
        size, held, held_bytes = len(chain.data), len(chain.held), chain.held_bytes
        status, proven = chain.offer(seq, ev["rec"], ev["raw"], ev["mac"])
        self.held += len(chain.held) - held  # the hall's bounds count what chains hold too
        self.held_bytes += chain.held_bytes - held_bytes
        if proven:
            self._keep_chain(g, bytes(chain.data[size:]))
            for s, rec in proven:
                self._add(g, s, rec, now, relay)
        g.held_since = (g.held_since or now) if chain.held else None
        self.dirty.add(board)  # the arbiter's page shows what is held
        if status == P.FORGED:
            self.forged += 1
            self.bad_message(
                "forged",
                "board %s game %d: %s: dropped, asked again" % (board, g.game, chain.why),
                HI.sources(board, F.EVENTS, relay),
            )
            self._ask_replay(g, now, chain.count)
            return False
        if chain.held and chain.count not in chain.held:
            self._ask_replay(g, now, chain.count)  # a gap before what is held
        return True

    def _chain(self, g: GameState) -> P.Chain | None:
        # A keyed board's game is proven record by record until its finished proof verifies
        # (from then on every record is the board's and events are repeats).
        key = self.key(g.board)
        if key is None or g.verdict == P.VERIFIED:
            return None
        if g.chain is None:
            g.chain = P.Chain(key)
        return g.chain

    def _add(self, g: GameState, seq: int, rec, now: float, relay: str | None) -> bool:
        # A record into the game's records (in order, repeats dropped, gaps asked again);
        # False for a conflict (counted), which is not passed on to the public view.
        before = len(g.recs.records)
        had = before + len(g.recs.ahead)
        got = g.recs.add(seq, rec, now)
        self.held += len(g.recs.records) + len(g.recs.ahead) - had
        if got == F.NEW:
            for s in range(before, len(g.recs.records)):
                self._new_record(g, s, persist=True)
            if g.behind is not None and g.behind[0] < len(g.recs.records):
                g.behind = None
            if g.recs.missing() is not None:
                self._ask_replay(g, now)
        elif got == F.GAP:
            self._ask_replay(g, now)
        elif got == F.CONFLICT:
            self.conflicts += 1
            self.bad_message(
                "conflict",
                "board %s game %d: record %d differs from the one had" % (g.board, g.game, seq),
                HI.sources(g.board, F.EVENTS, relay),
            )
            return False
        return True

    # ---- a finished game's proof ---------------------------------------------------------------

    def _proof(
        self, board: str, obj: dict, now: float, keep: bool = True, relay: str | None = None
    ) -> bool:
        # False: a proof that FAILED, or another after a verified one (counted), not passed
        # on to the public view.
        if obj["board"] != board:
            raise F.FeedError("proof: board %r on %s's topic" % (obj["board"], board))
        if not self._admit_board(board, relay or ""):
            raise HI.Refused("bound", "board %s: past the bounds of boards not paired" % board)
        g = self._admit_game(board, obj["game"])
        data, mac = obj["data"], obj["hmac"]
        who = HI.sources(board, F.PROOF, relay)
        if g.verdict == P.VERIFIED:
            if g.proof is not None and g.proof[0] != data:
                self.bad_message(
                    "proof",
                    "board %s game %d: another proof after a verified one" % (board, g.game),
                    who,
                )
                return False
            return True
        status, recs, why = P.check(self.key(board), board, g.game, data, mac)
        if recs is not None and len(recs) > self.limits.records_per_game:
            raise HI.Refused(
                "bound",
                "board %s game %d: a proof of %d records, past the %d of a game"
                % (board, g.game, len(recs), self.limits.records_per_game),
            )
        if status == P.FAILED:
            g.verdict, g.why, g.proof = P.FAILED, why, None
            self.bad_message("proof", "board %s game %d: FAILED: %s" % (board, g.game, why), who)
            if keep:
                self._keep_verdict(g, None)
            self._unfeed(g)
        elif status == P.UNVERIFIED:
            # No key: nothing proven; the board's record goes into the SGF only if it is
            # the records had (whoever checks it later, with the key, will know).
            g.verdict = P.UNVERIFIED
            if recs is not None and recs == g.recs.records:
                g.proof = (data, mac or None)
                g._sgf = (-1, None)
                g.fed = 0
        else:
            g.verdict, g.why, g.proof = P.VERIFIED, "", (data, mac)
            had = g.recs.records
            if recs[: len(had)] == had:  # the records had, proven; those held come with them
                for s in range(len(had), len(recs)):
                    self._add(g, s, recs[s], now, relay)
            else:
                self._replace(g, recs, now)
            if g.chain is not None:  # what it held is the board's records now
                self.held -= len(g.chain.held)
                self.held_bytes -= g.chain.held_bytes
            g.chain, g.held_since = None, None
            if keep:
                self._keep_verdict(g, data, mac)
            g._sgf = (-1, None)
            g.fed = 0
            g.fed_sgf = None
        self.pushes.append(
            {"type": "verdict", "board": board, "game": g.game, "verified": self.verdict(g)}
        )
        self.dirty.add(board)
        return status != P.FAILED

    def _replace(self, g: GameState, recs: list, now: float) -> None:
        # The board's own records win over what the events brought (a forged, dropped or
        # reordered record): the game's records, incidents and kept lines are made again.
        had = g.recs.records
        n = P.differences(had, recs)
        self.conflicts += 1
        self.replaced += 1
        self.bad_message(
            "conflict",
            "board %s game %d: %d record(s) differed from the board's verified record: "
            "replaced by it" % (g.board, g.game, n),
        )
        times = g.recs.times
        self.held += len(recs) - len(had) - len(g.recs.ahead)  # (_proof held it to a game's)
        new = F.GameRecords(self.limits.records_per_game)
        for s, rec in enumerate(recs):
            same = s < len(had) and had[s] == rec
            new.records.append(rec)
            new.times.append(times[s] if same else max(now, times[s] if s < len(times) else now))
        g.recs = new
        g._read = (-1, None)
        g.behind = None
        self.incidents = [
            e for e in self.incidents if (e["board"], e["game"]) != (g.board, g.game)
        ]
        for s in range(len(recs)):
            self._new_record(g, s, persist=False, push=False)
        if self.feed_dir is not None:
            lines = "".join(
                _json_line(
                    {
                        "seq": s,
                        "at": g.relay_at.get(s, 0),
                        "received": g.recs.times[s],
                        "rec": F.record_json(rec),
                    }
                )
                + "\n"
                for s, rec in enumerate(recs)
            )
            data = lines.encode()
            self.kept_bytes += len(data) - g.bytes
            g.bytes = len(data)
            try:
                self._folder(g.board).mkdir(parents=True, exist_ok=True)
                write_atomic(self._folder(g.board) / ("%d.jsonl" % g.game), data)
            except OSError as e:
                self.bad_message(
                    "store", "cannot rewrite board %s game %d: %s" % (g.board, g.game, e)
                )

    def _keep_verdict(self, g: GameState, data: bytes | None, mac: str = "") -> None:
        # A verified proof kept (a restarted hall checks it again); a FAILED verdict too.
        if self.feed_dir is None:
            return
        folder = self._folder(g.board)
        proof, failed = folder / ("%d.proof" % g.game), folder / ("%d.failed" % g.game)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if data is None:
                write_atomic(failed, (g.why + "\n").encode())
            else:
                body = {"data": base64.b64encode(data).decode(), "hmac": mac}
                write_atomic(proof, _json_line(body).encode())
                failed.unlink(missing_ok=True)
        except OSError as e:
            self.bad_message(
                "store", "cannot keep board %s game %d's proof: %s" % (g.board, g.game, e)
            )

    def _unfeed(self, g: GameState) -> None:
        # A FAILED game is not broadcast: its SGF leaves the feed folder.
        g.fed_sgf = None
        if self.feed_dir is not None:
            try:
                (self._folder(g.board) / ("%d.sgf" % g.game)).unlink(missing_ok=True)
            except OSError:
                pass

    # ---- a new record -------------------------------------------------------------------------

    def _new_record(self, g: GameState, seq: int, persist: bool, push: bool = True) -> None:
        rec = g.recs.records[seq]
        received = g.recs.times[seq]
        at = g.relay_at.get(seq, 0)
        if persist:
            self._keep(g, seq, rec, at, received)
        if push:
            self.pushes.append(
                {
                    "type": "record",
                    "board": g.board,
                    "game": g.game,
                    "seq": seq,
                    "rec": F.record_json(rec),
                    "at": at,
                    "received": _ms(received),
                }
            )
        b = self._board(g.board)
        entry = self._incident(g, seq, rec, at, received)
        if entry is not None:
            self.incidents.append(entry)
            del self.incidents[:-INCIDENTS_KEPT]
            if push:
                self.pushes.append(dict(entry, type="incident"))
        if g.game < b.game:
            return
        last = seq == len(g.recs.records) - 1
        if rec[0] == R.HEADER:
            if g.game > b.game or not b.view.state:
                b.game = g.game
                self._new_game_view(b, g)
            else:  # the snapshot came first: its view stands, the header names the clock
                self._set_preset(b)
        elif rec[0] == R.MOVE:
            self._view_move(b, rec, last)
        elif rec[0] == R.EDIT and rec[1] == A.UNDO and last:
            b.view.apply({"event": "undo", "ply": rec[2] - 1})
        elif rec[0] == R.RESULT:
            b.view.result = g.result() or b.view.result
            if last and b.view.clock.get("state") == "running":
                b.view.clock["state"] = "finished"  # as the board's clock is once it ends
        self.dirty.add(g.board)

    def _new_game_view(self, b: BoardState, g: GameState) -> None:
        # A game's header is written as Black's clock starts: the faces show the full time.
        h = g.header or {}
        tc = X.time_control(h)
        figures = [0, 0, 0, 0]
        if tc is not None:
            from firmware.clock.clock import Clock

            c = Clock(tc)
            figures = [c.main[1], c.over[1], c.main[2], c.over[2]]
        size = g.size()
        name = "go%d" % size if g.kind() == "go" else g.kind()
        first = 2 if g.kind() == "go" and h.get("handicap", 0) >= 2 else 1
        b.view.load(
            {
                "game": name,
                "size": size,
                "moves": [],
                "colours": [],
                "clock": {"state": "running", "running": first, "clocks": figures, "elapsed": 0},
                "result": "",
                "phase": "play",
                "game_no": g.game,
            }
        )
        self._set_preset(b)

    def _view_move(self, b: BoardState, rec, last: bool) -> None:
        # As ``tengen watch`` applies the board's move event; a move the snapshot already
        # shows is left to it (its clock is the fresher), unless it replaces one (an undo).
        _, ply, colour, point, _tick, clocks = rec
        v = b.view
        n = len(v.moves)
        if ply == n + 1 or (last and ply <= n and v.moves[ply - 1] != point):
            v.apply(
                {
                    "event": "move",
                    "ply": ply,
                    "colour": colour,
                    "point": point,
                    "clocks": list(clocks),
                }
            )
            if v.clock.get("state") in (None, "not started"):
                v.clock["state"] = "running"

    def _incident(self, g: GameState, seq: int, rec, at: int, received: float) -> dict | None:
        t = rec[0]
        game = g.kind()
        if t == R.INCIDENT:
            _, kind, move, time_ms, points, detail = rec
            if kind in (INC.MOVE, INC.PASS):  # every move logs one: the move says it
                return None
            zh, en = W.incident_words({"kind": kind, "detail": detail}, game)
            what = "incident"
            names = [W.point_name(p, game) for p in points]
        elif t == R.EDIT:
            _, kind, move, time_ms, args = rec
            zh, en = words.action(kind, args)
            what = "arbiter"
            names = []
        else:
            return None
        p = self._names(g.board, g)
        text = en + (" (%s)" % ", ".join(names) if names else "")
        return {
            "board": g.board,
            "game": g.game,
            "seq": seq,
            "table": p["table"],
            "round": p["round"],
            "what": what,
            "kind": kind,
            "move": move,
            "time_ms": time_ms,
            "points": names,
            "words": text,
            "zh": zh,
            "at": at,
            "received": _ms(received),
        }

    # ---- replay requests ----------------------------------------------------------------------

    def _ask_replay(self, g: GameState, now: float, start: int | None = None) -> bool:
        if now - g.asked_at < REPLAY_EVERY_S:
            return False
        if start is None:
            start = g.recs.missing()
            if start is None:
                return False
        g.asked_at = now
        self.replays_asked += 1
        self.outbox.append(
            (F.topic(self.name, g.board, F.REPLAY), F.replay_payload(g.game, start), False)
        )
        return True

    def tick(self, now: float | None = None) -> None:
        """What time does: a gap not yet filled or a snapshot still ahead of the records is
        asked for again (at most every ``REPLAY_EVERY_S``); the broadcast SGFs whose delay
        passed are written."""
        now = self.clock() if now is None else now
        for g in self.games.values():
            n = len(g.recs.records)
            if g.recs.missing() is not None:
                self._ask_replay(g, now)
            elif g.held_since is not None and now - g.held_since >= BEHIND_GRACE_S:
                self._ask_replay(g, now, g.chain.count)  # held, and no MAC came for them
            elif g.behind is not None:
                if g.behind[0] < n:
                    g.behind = None
                elif now - g.behind[1] >= BEHIND_GRACE_S:
                    self._ask_replay(g, now, n)
            if g.fed < n and self.feed_dir is not None and g.verdict != P.FAILED:
                self._write_feed(g, now)

    def resync(self, now: float | None = None) -> None:
        """The broker is (back) there: every gap asked for at once."""
        now = self.clock() if now is None else now
        for g in self.games.values():
            g.asked_at = -1e18
        self.tick(now)

    # ---- the feed folder ----------------------------------------------------------------------

    def _folder(self, board: str) -> Path:
        return self.feed_dir / board

    def _keep(self, g: GameState, seq: int, rec, at: int, received: float) -> None:
        if self.feed_dir is None:
            return
        line = _json_line({"seq": seq, "at": at, "received": received, "rec": F.record_json(rec)})
        self.kept_bytes += len(line) + 1
        g.bytes += len(line) + 1
        folder = self._folder(g.board)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / ("%d.jsonl" % g.game), "a", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError as e:
            self.bad_message("store", "cannot keep board %s game %d: %s" % (g.board, g.game, e))

    def _keep_chain(self, g: GameState, raw: bytes) -> None:
        # The live bytes proven, kept before their records (a restarted hall goes on from
        # them; ``_load_chain`` keeps only what the records kept agree with).
        if self.feed_dir is None:
            return
        try:
            self._folder(g.board).mkdir(parents=True, exist_ok=True)
            with open(self._folder(g.board) / ("%d.chain" % g.game), "ab") as f:
                f.write(raw)
            self.kept_bytes += len(raw)
        except OSError as e:
            self.bad_message("store", "cannot keep board %s game %d: %s" % (g.board, g.game, e))

    def _write_feed(self, g: GameState, now: float) -> None:
        cut = now - self.delay
        k = len(g.recs.upto(cut))
        if k == g.fed or k == 0:
            return
        data = g.sgf(cut)
        g.fed = k
        if data is None or data == g.fed_sgf:
            return
        try:
            self._folder(g.board).mkdir(parents=True, exist_ok=True)
            write_atomic(self._folder(g.board) / ("%d.sgf" % g.game), data)
            g.fed_sgf = data
        except OSError as e:
            self.bad_message(
                "store", "cannot write board %s game %d's SGF: %s" % (g.board, g.game, e)
            )

    def load(self) -> int:
        """Read back the records kept in the feed folder (a restarted hall); the number of
        records. A line that does not read (cut by a crash) is skipped and counted."""
        if self.feed_dir is None or not self.feed_dir.is_dir():
            return 0
        n = 0
        for folder in sorted(self.feed_dir.iterdir()):
            if not folder.is_dir() or not F.board_ok(folder.name):
                continue
            # A game's records, and its verdict even without records (a FAILED proof)
            games = {
                int(p.stem)
                for p in folder.iterdir()
                if p.suffix in (".jsonl", ".proof", ".failed") and p.stem.isdigit()
            }
            for game in sorted(g for g in games if 1 <= g <= HI.I32):
                path = folder / ("%d.jsonl" % game)
                # What was kept was within the bounds then: the relay's share is not known
                # now (""), the bounds in all still hold.
                try:
                    if not self._admit_board(folder.name, "", per_relay=False):
                        raise HI.Refused(
                            "bound", "board %s: past the boards not paired" % folder.name
                        )
                    g = self._admit_game(folder.name, game)
                except HI.Refused as e:
                    self.bad_message("store", "%s: not read back: %s" % (path, e))
                    continue
                if path.exists():
                    n += self._load_game(g, path)
                self._load_verdict(g)
                self._load_chain(g)
        for b in self.boards.values():
            b.since = None if b.online else self.clock()
        return n

    def _load_game(self, g: GameState, path: Path) -> int:
        try:
            if path.stat().st_size > self.limits.bytes - self.kept_bytes:
                raise OSError("past the hall's %d bytes" % self.limits.bytes)
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            self.bad_message("store", "%s: %s" % (path, e))
            return 0
        for line in lines:
            try:
                obj = json.loads(line)
                seq, at, received = int(obj["seq"]), int(obj["at"]), float(obj["received"])
                if not 0 <= seq < self.limits.records_per_game or not math.isfinite(received):
                    raise ValueError("seq or time")
                HI.check_record_json(obj["rec"], self.limits.records_per_game)
                rec = F.record_from_json(obj["rec"])
                self._admit_record(g, seq, rec)
            except (ValueError, KeyError, TypeError, F.FeedError):
                self.bad_message("store", "%s: a line that does not read" % path)
                continue
            before = len(g.recs.records)
            had = before + len(g.recs.ahead)
            g.relay_at.setdefault(seq, at)
            got = g.recs.add(seq, rec, received)
            self.held += len(g.recs.records) + len(g.recs.ahead) - had
            self.kept_bytes += len(line) + 1
            g.bytes += len(line) + 1
            if got == F.NEW:
                for s in range(before, len(g.recs.records)):
                    self._new_record(g, s, persist=False, push=False)
        g.fed_sgf = None  # written again once: the file may be older than the records
        return len(g.recs.records)

    def _load_chain(self, g: GameState) -> None:
        # The proven live bytes kept: the chain goes on from them if they are the records
        # kept; otherwise it starts again from the game's start (its records asked again and
        # proven anew: those had come back as repeats).
        key = self.key(g.board)
        if key is None or g.verdict == P.VERIFIED or self.feed_dir is None:
            return
        path = self._folder(g.board) / ("%d.chain" % g.game)
        recs = g.recs.records
        try:
            if path.stat().st_size > self.limits.bytes - self.kept_bytes:
                raise OSError("past the hall's %d bytes" % self.limits.bytes)
            chain = P.Chain(key, path.read_bytes())
            if chain.records == recs:
                g.chain = chain
                self.kept_bytes += len(chain.data)
                return
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            self.bad_message("store", "%s: %s" % (path, e))
        path.unlink(missing_ok=True)

    def _load_verdict(self, g: GameState) -> None:
        board, game = g.board, g.game
        folder = self._folder(board)
        try:
            path = folder / ("%d.proof" % game)
            if path.stat().st_size > 2 * self.limits.proof_bytes:
                raise ValueError("past a proof's bytes")
            obj = json.loads(path.read_text(encoding="utf-8"))
            data, mac = base64.b64decode(obj["data"]), str(obj["hmac"])
        except (OSError, ValueError, KeyError, TypeError):
            data = None
        if data is not None:
            try:
                self._proof(
                    board,
                    {"board": board, "game": game, "data": data, "hmac": mac},
                    self.clock(),
                    keep=False,
                )
            except F.FeedError as e:  # Refused too: past a bound now
                self.bad_message("store", "%s: not read back: %s" % (path, e))
        elif (folder / ("%d.failed" % game)).exists():
            g.verdict = P.FAILED
            with open(folder / ("%d.failed" % game), errors="replace") as f:
                g.why = HI.short(f.read(HI.TEXT_SHOWN).strip())
        self.pushes.clear()

    def feed_index(self, now: float | None = None) -> list[dict]:
        """Every game with a broadcast SGF now: board, game, names, moves, result, url."""
        now = self.clock() if now is None else now
        out = []
        for (board, game), g in sorted(self.games.items()):
            if g.verdict != P.FAILED and g.recs.upto(now - self.delay):
                out.append(dict(self.game_json(g), sgf="/feed/%s/%d.sgf" % (board, game)))
        return out

    def feed_sgf(self, board: str, game: int, now: float | None = None) -> bytes | None:
        """The broadcast SGF of a game now (the delay applied); None if none."""
        now = self.clock() if now is None else now
        g = self.games.get((board, game))
        return g.sgf(now - self.delay) if g is not None else None

    # ---- pairings -----------------------------------------------------------------------------

    def pairing_messages(self) -> list[tuple[str, bytes, bool]]:
        """The retained pairing message of every paired board (published on each connect)."""
        return [
            (F.topic(self.name, board, F.PAIRING), F.pairing_payload(p), True)
            for board, p in sorted(self.pairings.items())
        ]

    def _names(self, board: str, g: GameState | None = None) -> dict:
        # Who plays: the game's header (what the board wrote) first, else the pairing.
        b = self.boards.get(board)
        p = dict(b.pairing) if b is not None else {}
        out = {k: str(p.get(k, "") or "") for k in F.PAIRING_KEYS}
        if g is None and b is not None:
            g = self.games.get((board, b.game))
        extra = g.extra() if g is not None else {}
        for k in F.PAIRING_KEYS:
            v = extra.get(k)
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v):
                out[k] = str(v)
        game = g.read() if g is not None else None
        return X.swap_players(out, game is not None and game.swapped)  # Renju's swap

    # ---- what the pages and the API show ------------------------------------------------------

    def board_json(self, board: str, moves: bool = False) -> dict | None:
        """A board as the pages and ``/api/boards`` show it; with ``moves``, its current
        game's moves (numbered, named, each with its clocks). None if unknown."""
        b = self.boards.get(board)
        if b is None:
            return None
        v = b.view
        g = self.games.get((board, b.game))
        names = self._names(board, g)
        game_name = v.game() if v.state else (g.kind() if g else "go")
        last = v.last()
        result = (g.result() if g is not None else None) or v.result or None
        snap = b.snapshot or {}
        out = {
            "id": board,
            "online": b.online,
            "offline_since": None if b.since is None else _ms(b.since),
            "relay": b.relay,
            "table": names["table"],
            "round": names["round"],
            "event": names["event"],
            "black": names["black"],
            "white": names["white"],
            "game": b.game,
            "kind": W.game_name(game_name),
            "size": v.size() if v.state else (g.size() if g else 19),
            "ply": len(v.moves),
            "last": None
            if last is None
            else {"colour": last[1], "point": last[0], "name": W.point_name(last[0], game_name)},
            "clock": str(v.clock.get("state", "")) if v.state else "",
            "faces": self.faces(b),
            "clocks": list(v.clock.get("clocks") or []),
            "result": result,
            "phase": v.phase,
            "stones": self._stones(b),
            "records": len(g.recs.records) if g else 0,
            "verified": self.verdict(g)
            if g
            else (P.PENDING if self.key(board) is not None else P.UNVERIFIED),
            "held": len(g.chain.held) if g is not None and g.chain is not None else 0,
            "snapshot_at": snap.get("at"),
            "url": "/table/%s" % board,
        }
        if moves:
            out["moves"] = self.moves_json(b, g, game_name)
        return out

    def faces(self, b: BoardState) -> list[dict]:
        """Both faces as they show now (``watch.View.faces``: the firmware's clock model)."""
        if not b.view.state:
            return []
        try:
            return b.view.faces(live=True)
        except Exception:  # figures the view cannot draw: no faces rather than no page
            return []

    def _stones(self, b: BoardState) -> list:
        key = (b.view.size(), tuple(b.view.moves), tuple(b.view.colours))
        if b._stones[0] != key:
            try:
                stones = b.view.stones() if b.view.state else {}
            except Exception:
                stones = {}
            b._stones = (key, [[x, y, c] for (x, y), c in sorted(stones.items())])
        return b._stones[1]

    def moves_json(self, b: BoardState, g: GameState | None, game_name: str) -> list[dict]:
        game = g.read() if g is not None else None
        if game is not None and (game.moves or not b.view.moves):
            return [
                {
                    "ply": m.ply,
                    "colour": m.colour,
                    "point": m.point,
                    "name": W.point_name(m.point, game_name),
                    "clocks": list(m.clocks) if m.clocks else None,
                    "clock_text": clocks_text(m.clocks),
                    "notes": list(m.notes),
                }
                for m in game.moves
            ]
        return [
            {
                "ply": k + 1,
                "colour": c,
                "point": p,
                "name": W.point_name(p, game_name),
                "clocks": None,
                "clock_text": ["", ""],
                "notes": [],
            }
            for k, (p, c) in enumerate(zip(b.view.moves, b.view.colours, strict=False))
        ]

    def boards_json(self) -> list[dict]:
        """Every board, sorted by table."""
        out = []
        for board in self.boards:
            try:
                out.append(self.board_json(board))
            except Exception as e:  # a bug here must not take every page down: counted
                log.exception("board %s cannot be shown", board)
                self.bad_message("internal", "board %s cannot be shown: %r" % (board, e))
        out.sort(key=lambda d: table_key(d["table"], d["id"]))
        return out

    def game_json(self, g: GameState) -> dict:
        names = self._names(g.board, g)
        game = g.read()
        return {
            "board": g.board,
            "game": g.game,
            "round": names["round"],
            "table": names["table"],
            "event": names["event"],
            "black": names["black"],
            "white": names["white"],
            "kind": g.kind() if g.header else None,
            "size": g.size() if g.header else None,
            "moves": len(game.moves) if game else 0,
            "records": len(g.recs.records),
            "result": X.result_text(game) if game else None,
            "sgf": "/feed/%s/%d.sgf" % (g.board, g.game),
            "verified": self.verdict(g),
            "why": g.why,
            "held": len(g.chain.held) if g.chain is not None else 0,  # awaiting the board's MAC
        }

    def games_json(self) -> list[dict]:
        return [self.game_json(g) for _, g in sorted(self.games.items()) if g.recs.records]

    def game_records_json(self, board: str, game: int) -> dict | None:
        """A game's records (``feed.record_json``) with their times; None if unknown."""
        g = self.games.get((board, game))
        if g is None or not g.recs.records:
            return None
        recs = [
            {
                "seq": s,
                "rec": F.record_json(rec),
                "at": g.relay_at.get(s, 0),
                "received": _ms(g.recs.times[s]),
            }
            for s, rec in enumerate(g.recs.records)
        ]
        return dict(self.game_json(g), records_list=recs, missing=g.recs.missing())

    def incidents_json(self, limit: int | None = None) -> list[dict]:
        """The incidents and arbiter actions, newest first."""
        items = self.incidents[::-1]
        return items if limit is None else items[:limit]

    def offline_json(self) -> list[dict]:
        out = []
        for b in self.boards.values():
            if not b.online:
                names = self._names(b.id)
                out.append(
                    {
                        "board": b.id,
                        "table": names["table"],
                        "relay": b.relay,
                        "since": None if b.since is None else _ms(b.since),
                        "seen": b.snapshot is not None,
                    }
                )
        out.sort(key=lambda d: table_key(d["table"], d["board"]))
        return out

    def bad_json(self) -> dict:
        """What the door refused: by kind, by relay/board, the last words of each kind; and
        what the hall keeps against its bounds."""
        return {
            "total": self.counts.total(),
            "kinds": dict(self.bad),
            "last": dict(self.bad_last),
            "by": dict(sorted(self.counts.by.items(), key=lambda kv: -kv[1])),
            "conflicts": self.conflicts,
            "replaced": self.replaced,
            "refused": self.refused,
            "forged": self.forged,
            "kept": {
                "relays": len(self.relays),
                "boards": len(self.boards),
                "unpaired": sum(len(x) for x in self.unknown.values()),
                "games": len(self.games),
                "records": self.held,
                "bytes": self.kept_bytes,
                "held_bytes": self.held_bytes,
            },
            "limits": self.limits.json(),
        }

    def relays_json(self) -> list[dict]:
        return [
            {
                "relay": r,
                "online": d["online"],
                "boards": d["boards"],
                "since": None if d.get("since") is None else _ms(d["since"]),
            }
            for r, d in sorted(self.relays.items())
        ]

    def snapshot_message(self) -> dict:
        """A page's first message: everything it shows."""
        return {
            "type": "snapshot",
            "hall": self.name,
            "delay": self.delay,
            "now": _ms(self.clock()),
            "boards": self.boards_json(),
            "incidents": self.incidents_json(INCIDENTS_SHOWN),
            "offline": self.offline_json(),
            "relays": self.relays_json(),
            "bad": self.bad_json(),
        }

    def clocks_message(self) -> dict | None:
        """The faces of every board whose clock runs (the pages count down between)."""
        faces = {
            b.id: self.faces(b)
            for b in self.boards.values()
            if b.view.state and b.view.clock.get("state") == "running"
        }
        return {"type": "clocks", "faces": faces} if faces else None

    def drain(self) -> tuple[list[dict], list[tuple[str, bytes, bool]]]:
        """What to send now: the pushes (then a ``board`` message per changed board) and the
        MQTT publishes; both lists are emptied."""
        pushes = self.pushes
        if self._bad_dirty:
            self._bad_dirty = False
            pushes.append({"type": "bad", "bad": self.bad_json()})
        for board in sorted(self.dirty):
            j = self.board_json(board)
            if j is not None:
                pushes.append({"type": "board", "board": j})
        if self.dirty:
            pushes.append({"type": "offline-list", "offline": self.offline_json()})
        self.dirty = set()
        out = self.outbox
        self.pushes, self.outbox = [], []
        return pushes, out


def default_feed_dir(hall: str) -> Path:
    """Where a hall keeps its feed without ``--feed-dir``: ``<data folder>/hall/<hall>``."""
    from host_tools.records.sync import data_dir

    return data_dir() / "hall" / F.check_name(hall, "hall")


def mkdir_feed(path) -> Path:
    """The feed folder, made if need be."""
    p = Path(path)
    os.makedirs(p, exist_ok=True)
    return p
