"""``tengen play --engine CMD``: the PC runs an engine against the player at the board.

Start reading at ``run``. The board's settings say the game (Go over GTP; Renju, standard and
freestyle Gomoku over the Gomocup protocol), its size, komi, handicap and time; the engine is
told them, its name and version go into the board's name setting of its colour (so the record
keeps who the opponent was), and the board starts a game with the engine as its remote side.
Then, move by move: the engine's move is shown on the board's faces until the player has put
the stone there (``BoardPlayer.play``); the player's move is read at the board
(``BoardPlayer.wait_move``) and told to the engine. The game ends by the board's rules (a
resignation, the time, a five or a foul: ``GameOver``), by the engine resigning, or in Go after
two passes with the count both sides confirmed (``_go_end``): the engine's dead stones
(``final_status_list dead``) go to the board, whose face names them for the player to lift;
each count the player makes is answered for the engine (agreed when its ``final_score`` is the
board's count or the lifted stones are the ones it calls dead, else the counts differ: said on
the faces, journaled); the player's paddle confirms. A dispute at the board (PAUSE, 以实战解决)
sends play on: GTP has no undo of a pass, so both keep the two passes in their records (as the
board's journal does) and the next moves are played from the same position.

Output: plain lines a script can read (``engine: GNU Go 3.8 plays white``, each move
``W Q16``, ``engine_dead: C3 D3``, ``count: W+86.5``, ``result: W+86.5``), and a summary dict
that ``--json`` prints. ``result`` is only ever the board's result (confirmed by both, or the
rules', the arbiter's); without one, ``error`` says why (``tengen play`` exits 1).
"""

from __future__ import annotations

from collections.abc import Callable

from firmware.game.settings import TEXT_MAX as NAME_MAX  # a player's name on the board
from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS, vertex
from firmware.rules.go_count import result_sgf
from firmware.rules.gomoku import PASS, xy
from host_tools.play.board_player import BoardError, GameOver, Illegal
from host_tools.play.engines import (
    BLACK,
    RESIGN,
    WHITE,
    EngineError,
    GomocupBrain,
    GtpEngine,
    time_control,
)

COLOURS = {"black": BLACK, "b": BLACK, "white": WHITE, "w": WHITE}
NAMES = {BLACK: "black", WHITE: "white"}
LETTERS = {BLACK: "B", WHITE: "W"}


class PlayError(Exception):
    """The match could not be set up (a wrong option, a game the protocol cannot play)."""


def _say(line: str) -> None:
    print(line, flush=True)


def parse_colour(colour) -> int | None:
    """BLACK or WHITE from ``black``/``b``/``white``/``w`` or 1/2; None for None."""
    if colour is None or colour in (BLACK, WHITE):
        return colour
    c = COLOURS.get(str(colour).lower())
    if c is None:
        raise PlayError("colour: %r is not black or white" % colour)
    return c


def engine_colour(settings: dict, colour=None) -> int:
    """The engine's side: ``colour`` if given, else the board's ``remote`` setting if it
    names one, else White (the player at the board takes Black, as a guest would)."""
    c = parse_colour(colour)
    if c is not None:
        return c
    remote = settings.get("remote") or 0
    return remote if remote in (BLACK, WHITE) else WHITE


def choose_protocol(game: str, protocol: str = "auto") -> str:
    """``gtp`` for Go, ``gomocup`` for the Gomoku games; PlayError for a mismatch."""
    want = "gtp" if game.startswith("go") else "gomocup"
    if protocol == "auto":
        return want
    if protocol not in ("gtp", "gomocup"):
        raise PlayError("protocol: %r is not auto, gtp or gomocup" % protocol)
    if protocol != want:
        raise PlayError("a %s game is played over %s here, not %s" % (game, want, protocol))
    return protocol


def move_text(colour: int, p: int, game: str) -> str:
    """A move as the output line shows it: ``W Q16``, ``B pass`` (Gomoku: A..O columns)."""
    if p == PASS:
        where = "pass"
    else:
        where = vertex(*xy(p), columns=GO_COLUMNS if game.startswith("go") else GOMOKU_COLUMNS)
    return "%s %s" % (LETTERS[colour], where)


def _default_player(link):
    from host_tools.play.board_player import BoardPlayer

    return BoardPlayer(link)


def _start_engine(protocol: str, engine_cmd: str, stderr):
    if protocol == "gtp":
        return GtpEngine(engine_cmd, stderr=stderr)
    return GomocupBrain(engine_cmd, stderr=stderr)


def _tell_game(engine, protocol: str, st: dict, say) -> None:
    # The game as the board will start it: size, komi, handicap, rule, time.
    game, size = st["game"], int(st["size"])
    tc = None
    try:
        tc = time_control(st.get("time", ""))
    except ValueError as e:
        say("time: %s (the engine keeps its own)" % e)
    if protocol == "gtp":
        engine.boardsize(size)
        engine.clear_board()
        engine.komi(int(st.get("komi2", 0)))
        if int(st.get("handicap", 0)) >= 2:
            engine.handicap(int(st["handicap"]))  # Black's stones, where the board puts them
    else:
        engine.start(size)
        engine.rule(game)
    if tc is not None:
        engine.time_settings(tc)


def _main_ms(state: dict, colour: int) -> int | None:
    # The main time left of ``colour`` from the state's clock figures
    # [black main, units, white main, units] (ms), None when unknown or used up.
    clocks = (state.get("clock") or {}).get("clocks")
    if not isinstance(clocks, list) or len(clocks) < 4:
        return None
    ms = clocks[0 if colour == BLACK else 2]
    return ms if isinstance(ms, int) and ms > 0 else None


def run(
    link_or_port,
    engine_cmd: str,
    colour=None,
    protocol: str = "auto",
    say: Callable[[str], None] = _say,
    player_factory: Callable | None = None,
    engine_stderr=None,
) -> dict:
    """Play one game: the engine ``engine_cmd`` against the player at the board.

    ``link_or_port``: an open ``host_tools.common.link.Link`` or a port path (opened and closed
    here). ``colour``: the engine's side (``black``/``white``; default the board's ``remote``
    setting, else white). ``protocol``: ``auto``, ``gtp`` (Go) or ``gomocup`` (the Gomoku
    games). ``say`` gets each output line. ``player_factory(link)`` makes the BoardPlayer
    (tests give a fake). ``engine_stderr``: where the engine's stderr goes (default nowhere).

    The summary: {"engine", "colour", "moves": [[colour, point], ...], "result",
    "engine_score", "count" (Go's board count or None), "error" (None or why it stopped)}.
    PlayError for a wrong option; a board or engine failure mid-game ends the game with
    "error" set (the board keeps the game; the player can resign or take it over there)."""
    parse_colour(colour)  # wrong options fail before the board is touched
    if protocol not in ("auto", "gtp", "gomocup"):
        raise PlayError("protocol: %r is not auto, gtp or gomocup" % protocol)
    link = link_or_port
    opened = isinstance(link_or_port, str)
    if opened:
        from host_tools.common.link import Link

        link = Link(link_or_port)
    player = (player_factory or _default_player)(link)
    engine = None
    summary: dict = {
        "engine": None,
        "colour": None,
        "moves": [],
        "result": None,
        "engine_score": None,
        "count": None,
        "engine_dead": None,
        "error": None,
    }
    try:
        st = player.settings()
        game = st.get("game", "go")
        proto = choose_protocol(game, protocol)
        ec = engine_colour(st, colour)
        pc = WHITE if ec == BLACK else BLACK
        summary["colour"] = NAMES[ec]
        engine = _start_engine(proto, engine_cmd, engine_stderr)
        # One printable line of at most 32 characters, as the board's name settings take.
        name = "".join(ch if ch >= " " and ch != "\x7f" else " " for ch in engine.full_name())
        name = name.strip()[:NAME_MAX]
        summary["engine"] = name
        say("engine: %s plays %s" % (name, NAMES[ec]))
        _tell_game(engine, proto, st, say)
        extra = {} if proto == "gtp" else {"opening": "free"}  # the brain moves freely
        player.new_game(remote=ec, **{NAMES[ec]: name}, **extra)
        _loop(player, engine, proto, game, ec, pc, summary, say)
    except GameOver as e:
        summary["result"] = e.result
    except Illegal as e:
        summary["error"] = "the board refused the engine's move: %s" % e
    except (EngineError, BoardError) as e:
        summary["error"] = str(e) or type(e).__name__
    finally:
        if engine is not None:
            engine.close()
        player.close()
        if opened:
            link.close()
    if not summary["result"] and not summary["error"]:
        summary["error"] = "the game ended without a result at the board"
    if summary["result"]:
        say("result: %s" % summary["result"])
    if summary["error"]:
        say("error: %s" % summary["error"])
    return summary


def _loop(player, engine, proto, game, ec, pc, summary, say) -> None:
    # The moves until the game ends; GameOver from the board ends it too (run catches it).
    go = proto == "gtp"
    state = player.state()
    turn = state.get("to_move", BLACK)
    last = None  # the player's last move, for the brain's TURN (None: nothing yet)
    passes = 0
    moves = summary["moves"]
    while True:
        if turn == ec:
            left = _main_ms(state, ec)
            if go:
                if left is not None:
                    engine.time_left(ec, left, 0)
                p = engine.genmove(ec)
            else:
                if left is not None:
                    engine.time_left(left)
                if last is None:
                    p = engine.begin()
                elif last == PASS:  # Gomocup has no pass: the position, then the brain's move
                    p = engine.board([tuple(m) for m in moves], ec)
                else:
                    p = engine.turn(last)
            if p == RESIGN:
                say("%s resigns" % LETTERS[ec])
                player.resign(ec)
                summary["result"] = player.state().get("result") or ("%s+R" % LETTERS[pc])
                return
            player.play(ec, p)
        else:
            p = player.wait_move(pc)
            if go:
                engine.play(pc, p)
            last = p
        moves.append([turn, p])
        say(move_text(turn, p, game))
        passes = passes + 1 if p == PASS else 0
        if go and passes >= 2:
            if _go_end(player, engine, summary, say):
                return
            passes = 0  # disputed: play goes on from the same position (以实战解决)
            state = player.state()
            turn = state.get("to_move", BLACK)
            continue
        state = player.state()
        if state.get("result"):  # a five, a foul, the time: the board's rules ended it
            summary["result"] = state["result"]
            return
        turn = pc if turn == ec else ec


def margin4_of(score: str | None) -> int | None:
    """A GTP ``final_score`` (``W+86.5``, ``B+3``, ``0``) in quarter stones, Black positive
    (the board's margins: a quarter stone is half a point); None if it is not one."""
    if not score:
        return None
    text = score.strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return 0
    if len(text) < 3 or text[0] not in "BW" or text[1] != "+":
        return None
    try:
        half = round(float(text[2:]) * 2)
    except ValueError:
        return None
    return half if text[0] == "B" else -half


def _vertices(points: list[int]) -> str:
    return " ".join(vertex(*xy(p)) for p in points) or "none"


def _go_end(player, engine, summary: dict, say) -> bool:
    # Two passes: the engine's dead stones to the board (the player's face names them until
    # lifted), then each count the players make (MODE) is answered for the engine: agreed
    # (its paddle's confirmation) when the engine's final_score is the board's count, or
    # when the stones lifted are exactly the ones it calls dead (its own scoring may not be
    # the board's area count: the board's rules count); else the counts differ, which the
    # board says and journals. True once the board has the result (both confirmed, or the
    # arbiter's, a resignation ...), False when the players disputed (play goes on).
    try:
        dead = engine.final_status_list("dead")
    except EngineError as e:  # an engine without it: the player's paddles confirm for both
        say("engine: no dead stones (%s): the player confirms for both" % e)
        dead = None
    try:
        score = engine.final_score()
    except EngineError:
        score = None
    summary["engine_score"] = score
    summary["engine_dead"] = dead
    engine4 = margin4_of(score)
    if dead is not None:
        player.propose_dead(dead)
        say("engine_dead: %s" % _vertices(dead))
    say("engine_score: %s" % score)
    answered = 0
    while True:
        end = player.wait_end(answered)
        if end["phase"] == "over":
            summary["result"] = end["result"]
            return True
        if end["phase"] == "play":
            say("count disputed at the board: play goes on")
            summary["count"] = None
            return False
        answered = end["count_no"]
        margin4 = end["margin4"]
        summary["count"] = {"margin4": margin4, "dead": end["dead"], "agreed": None}
        say("count: %s" % result_sgf(margin4))
        if dead is None:
            continue
        same_dead = sorted(end["dead"]) == sorted(dead)
        agree = margin4 == engine4 or same_dead
        summary["count"]["agreed"] = agree
        if agree:
            say("engine agrees: waiting for the player to confirm")
        else:
            say(
                "engine disagrees: it counts %s (lifted %s; it calls dead %s)"
                % (score, _vertices(end["dead"]), _vertices(dead))
            )
        try:
            player.answer_count(answered, agree, engine4)
        except BoardError as e:
            if e.code == "not_remote":  # the board restarted (a power cut) and forgot them
                player.propose_dead(dead)
                player.answer_count(answered, agree, engine4)
            elif e.code not in ("stale", "not_now"):
                raise  # (stale, not_now: counted again or ended meanwhile: the next wait)


def main_text(summary: dict) -> str:
    """The summary as one line of JSON (``tengen play --json``)."""
    import json

    return json.dumps(summary, ensure_ascii=False, sort_keys=True)
