"""The player at the board, seen from the PC: the board as one side of a game the PC drives.

Start reading at ``BoardPlayer``. It wraps an open ``host_tools.common.link.Link`` and speaks the
board's remote-side commands (``move``, ``undo``, ``resign``, ``clock``, ``start``; see
firmware/link/server.py): the PC gives the board its side's moves (``play``), which the player
puts down, and waits for the player's own (``wait_move``) and for the count (``wait_count``).
``host_tools/play/gtp_board.py`` (the board as a GTP engine) and ``host_tools/play/play.py`` (an engine
against the board) build on it.

Points are the rules' codes ``y << 5 | x`` (y from the bottom), 1023 a pass. Every wait polls
``state``, the truth: USB drops lines, so the watch events only wake a wait early.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from host_tools.common.link import LinkError

PASS = 1023
NOT_CLEAR_RETRY_S = 0.5  # how often ``start`` is asked again while the faces say what to clear


class BoardError(Exception):
    """The board refused (``code`` its error code, ``message`` its words) or the link failed
    ("io", "timeout", "bad_reply"); "timeout" too when a wait's own time ran out."""

    def __init__(self, code: str, message: str = ""):
        super().__init__("%s: %s" % (code, message) if message else code)
        self.code = code
        self.message = message


class Illegal(BoardError):
    """The board refused the remote side's move by the rules (ko, suicide, taken, forbidden)."""


class GameOver(Exception):
    """The game ended while the PC waited: ``result`` as the board has it ("W+R", "B+T",
    "B+3.5", Gomoku "B+", "W+F" ...)."""

    def __init__(self, result: str):
        super().__init__("the game is over: %s" % result)
        self.result = result


class BoardPlayer:
    """The board's side of a game the PC plays through ``link`` (an open Link; anything with
    its ``request(cmd, **fields)`` and ``read_event(timeout)`` will do). ``poll_s``: how often
    a wait asks the board's ``state``. Turns the board's events on."""

    def __init__(self, link, poll_s: float = 0.25):
        self.link = link
        self.poll_s = poll_s
        # How many moves of the board's record the PC has accounted for (the remote's moves
        # it made, the player's it returned): the next move ``wait_move`` returns is the first
        # of its colour past them. None until known (the first wait takes the state's ply).
        self.seen: int | None = None
        self.game_no: int | None = None
        self._request("watch", on=True)

    # ---- one request ---------------------------------------------------------------------

    def _request(self, cmd: str, **fields) -> dict:
        try:
            return self.link.request(cmd, **fields)
        except LinkError as e:
            if e.code == "illegal":
                raise Illegal(e.code, e.message) from None
            raise BoardError(e.code, e.message) from None

    def hello(self) -> dict:
        """The board's ``hello`` (its firmware version "fw", its id "board" ...)."""
        return self._request("hello")

    def settings(self, **changes) -> dict:
        """The board's settings after ``changes`` (all or none: BoardError "bad_value")."""
        reply = self._request("settings", set=changes) if changes else self._request("settings")
        return dict(reply.get("settings") or {})

    def state(self) -> dict:
        """The board's ``state`` reply: the game, its moves, clocks, phase, result, remote..."""
        return self._request("state")

    def moves(self) -> list[tuple[int, int]]:
        """(colour, point) of each move of the game so far (1023 a pass)."""
        st = self.state()
        return list(zip(st.get("colours") or [], st.get("moves") or [], strict=True))

    # ---- waiting -------------------------------------------------------------------------

    def _wait(self, check: Callable[[dict], object], timeout: float | None, what: str):
        """Poll ``state`` until ``check(state)`` is not None; that value. Events wake early."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            found = check(self.state())
            if found is not None:
                return found
            left = self.poll_s
            if deadline is not None:
                left = min(left, deadline - time.monotonic())
                if left <= 0:
                    raise BoardError("timeout", "no %s within %g s" % (what, timeout))
            self._doze(left)

    def _doze(self, seconds: float) -> None:
        # Up to ``seconds``: back at once when an event comes (the rest already read is
        # dropped too: the next state says it all).
        try:
            if self.link.read_event(seconds) is not None:
                for _ in range(100):
                    if self.link.read_event(0) is None:
                        break
        except LinkError as e:
            raise BoardError(e.code, e.message) from None

    # ---- a game --------------------------------------------------------------------------

    def new_game(self, remote: int, timeout: float | None = None, **settings) -> None:
        """Start the next game with the PC playing ``remote`` (1 Black, 2 White) and these
        settings (game, size, komi2, handicap, time, black, white ...). While stones are on
        the board that the new game does not have, the faces name them (``CLR. 23  D4``)
        and this waits for the player to lift them; a game still being played: BoardError
        "in_progress"."""
        self.settings(remote=remote, **settings)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                reply = self._request("start")
                break
            except BoardError as e:
                if e.code != "not_clear":
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                raise BoardError("timeout", "the board was not cleared within %g s" % timeout)
            self._doze(NOT_CLEAR_RETRY_S)
        self.game_no = reply.get("game_no")
        self.seen = 0

    def play(self, colour: int, point: int, timeout: float | None = None) -> None:
        """The remote side's move (``colour`` its side, ``point`` or 1023): returns once the
        board has committed it (the player put the stone there and lifted its captures).
        Illegal if the rules refuse it; GameOver if the game ended meanwhile."""
        st = self.state()
        if st.get("result"):
            raise GameOver(st["result"])
        ply = st["ply"]
        if st.get("to_move") != colour:
            raise BoardError("not_your_turn", "it is not %s's turn" % _NAMES[colour])
        if self._send_move(ply, point, colour, timeout):
            self.seen = ply + 1
            return

        def committed(s: dict):
            if s["ply"] > ply:
                return True
            if s.get("result"):
                raise GameOver(s["result"])
            if s["ply"] < ply:
                raise BoardError("undone", "a move was taken back while the stone waited")
            if s.get("expect", point) == -1:  # the board forgot it (restarted): ask again
                try:
                    placed = self._request("move", ply=ply, point=point).get("placed")
                    return True if placed else None
                except BoardError as e:
                    if isinstance(e, Illegal) or e.code != "not_your_turn":
                        raise
            return None

        self._wait(committed, timeout, "stone placed")
        moves = self.state().get("moves") or []
        if len(moves) > ply and moves[ply] != point:
            raise BoardError("mismatch", "the board's move %d is not the one sent" % (ply + 1))
        self.seen = ply + 1

    def _send_move(self, ply: int, point: int, colour: int, timeout: float | None) -> bool:
        # ``move`` until the board takes it: whether it is committed already. A paused clock
        # ("not_your_turn" while it is this side's turn) is waited out.
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                return bool(self._request("move", ply=ply, point=point).get("placed"))
            except Illegal:
                raise
            except BoardError as e:
                if e.code != "not_your_turn":
                    raise
                s = self.state()
                if s.get("result"):
                    raise GameOver(s["result"]) from None
                paused = (s.get("clock") or {}).get("state") == "paused"
                if s["ply"] != ply or s.get("to_move") != colour or not paused:
                    raise
                if deadline is not None and time.monotonic() >= deadline:
                    raise BoardError("timeout", "the clock stayed paused") from None
            self._doze(self.poll_s)

    def wait_move(self, colour: int, timeout: float | None = None) -> int:
        """The player's next move of ``colour`` at the board: its point (1023 a pass) once
        committed (the clock pressed). GameOver(result) if the game ended instead (a
        resignation, a flag, a count). A move that ends the game (a five) is returned first;
        the next wait raises GameOver."""

        def found(s: dict):
            ply = s["ply"]
            if self.seen is None or self.seen > ply:  # first look, or moves taken back
                self.seen = ply
            colours = s.get("colours") or []
            moves = s.get("moves") or []
            while self.seen < ply:
                i = self.seen
                self.seen += 1
                if colours[i] == colour:
                    return moves[i]
            if s.get("result"):
                raise GameOver(s["result"])
            return None

        return self._wait(found, timeout, "move")

    def undo(self) -> None:
        """Take back the game's last move (the faces tell the player which stone to lift).
        BoardError "over" after a result, "bad_ply" when there is none."""
        ply = self.state()["ply"]
        if ply == 0:
            raise BoardError("bad_ply", "no move to take back")
        self._request("undo", ply=ply - 1)
        if self.seen is not None:
            self.seen = min(self.seen, ply - 1)

    def resign(self, colour: int) -> None:
        """The remote side ``colour`` resigns."""
        self._request("resign", side=colour)

    def time_left(self, colour: int, ms: int, stones: int) -> None:
        """``colour``'s time as the remote's controller says (GTP ``time_left``): ``stones``
        0: ``ms`` main time left; else ``ms`` for ``stones`` moves of overtime."""
        self._request("clock", side=colour, ms=int(ms), stones=int(stones))

    def wait_count(self, timeout: float | None = None) -> dict:
        """Go's count by the players (after two passes they lift the dead stones, press MODE):
        ``{"result": "B+3.5" or "" (not yet confirmed), "margin4": quarter stones, Black
        positive, "dead": [points lifted as dead]}``. GameOver if the game ended otherwise."""

        def counted(s: dict):
            margin4 = s.get("margin4")
            result = s.get("result") or ""
            if margin4 is not None and (result or s.get("phase") == "counted"):
                return {"result": result, "margin4": margin4, "dead": list(s.get("dead") or [])}
            if result:
                raise GameOver(result)
            return None

        return self._wait(counted, timeout, "count")

    def propose_dead(self, points: list[int]) -> None:
        """Go's end, after two passes: the stones the remote side (an engine) calls dead.
        The player's face names them one at a time until lifted; from now on the remote
        side's confirmation of the count is ``answer_count``'s, not its paddle's."""
        self._request("dead", points=list(points))

    def wait_end(self, answered: int = 0, timeout: float | None = None) -> dict:
        """After two passes, the board's next word on the end: ``{"phase": "counted",
        "count_no", "margin4", "dead"}`` for a count (numbered) after ``answered``;
        ``{"phase": "play"}`` when the players disputed it (以实战解决: play goes on);
        ``{"phase": "over", "result"}`` once the game has its result (the count confirmed by
        both, the arbiter's, a resignation ...)."""

        def ended(s: dict):
            if s.get("result"):
                return {"phase": "over", "result": s["result"]}
            phase = s.get("phase")
            if phase == "play":
                return {"phase": "play"}
            no = s.get("count_no") or 0
            if phase == "counted" and no > answered and s.get("margin4") is not None:
                return {
                    "phase": "counted",
                    "count_no": no,
                    "margin4": s["margin4"],
                    "dead": list(s.get("dead") or []),
                }
            return None

        return self._wait(ended, timeout, "count")

    def answer_count(self, count_no: int, agree: bool, margin4: int | None = None) -> dict:
        """The remote side's answer to the count ``count_no``: ``agree`` confirms it for that
        side; else its own count ``margin4`` (quarter stones, Black positive) differs, which
        the board says and journals. The reply: {"result", "confirmed"}. BoardError "stale"
        when the players counted again meanwhile."""
        fields: dict = {"count_no": count_no, "agree": bool(agree)}
        if margin4 is not None:
            fields["margin4"] = max(-32768, min(32767, int(margin4)))
        return self._request("confirm", **fields)

    def close(self) -> None:
        """Turn the board's events off (the link stays open: its owner closes it)."""
        try:
            self.link.request("watch", on=False)
        except LinkError:
            pass


_NAMES = ("", "Black", "White")
