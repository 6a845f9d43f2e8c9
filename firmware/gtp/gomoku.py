"""GTP commands for the Gomoku variants (``tengen-game renju|standard|freestyle``).

``firmware/gtp/go.py`` keeps the session; while it plays Gomoku it answers the commands in
``COMMANDS`` here, each a function of the engine and the arguments. Vertices use the columns
A–O without a skipped letter (seed 002 第一条); ``play`` answers ``win B``, ``win W`` (with
the foul's kind when Black's forbidden move lost) or ``draw`` once the game is decided.
"""

import gc

from firmware.gtp.core import _COLOR_NAMES, GtpError, _color, _int, _want, diagram
from firmware.rules.coords import GOMOKU_COLUMNS, parse_vertex, vertex
from firmware.rules.gomoku import (
    DRAW,
    MESSAGES,
    OK,
    VARIANTS,
    WIN_FOUL,
    Gomoku,
)
from firmware.rules.gomoku_board import BLACK, FORBIDDEN_NAMES, WHITE

_STARS = ((3, 3), (11, 3), (3, 11), (11, 11), (7, 7))  # 第一条1: D4 L4 D12 L12 and 天元


def new_game(engine, variant, size=15):
    """Start a new game of ``variant`` (an index of VARIANTS) on the engine, with the
    board's factory claim mode (firmware/game/settings.py). The opening stays free: the
    designated opening's fifth-move offers are laid at the board, and GTP has no command
    for them."""
    engine.gomoku = Gomoku(variant, size, claims=_claims())


def _claims():
    # The board's factory claim mode, as an index of gomoku.CLAIM_MODES.
    from firmware.game.settings import DEFAULTS
    from firmware.rules.gomoku import CLAIM_MODES

    return CLAIM_MODES.index(DEFAULTS["claims"])


def _vx(game, text):
    try:
        return parse_vertex(text, game.size, GOMOKU_COLUMNS)
    except ValueError:
        raise GtpError("syntax error (invalid vertex '%s')" % text)


def _name(x, y):
    return vertex(x, y, GOMOKU_COLUMNS)


def outcome(game):
    """``win B``, ``win W double-three``, ``draw``, or "" while the game goes on."""
    if not game.winner:
        return ""
    if game.winner == DRAW:
        return "draw"
    text = "win " + ("B" if game.winner == BLACK else "W")
    if game.reason == WIN_FOUL:
        text += " " + FORBIDDEN_NAMES[game.foul]
    return text


def cmd_boardsize(engine, args):
    """New empty board of size 5..19 for the same variant."""
    _want(args, 1)
    n = _int(args[0])
    if not 5 <= n <= 19:
        raise GtpError("unacceptable size")
    new_game(engine, engine.gomoku.variant, n)
    return ""


def cmd_clear_board(engine, args):
    """Empty the board and forget the game."""
    _want(args, 0)
    new_game(engine, engine.gomoku.variant, engine.gomoku.size)
    return ""


def cmd_play(engine, args):
    """Play a stone or pass; answer the result if the move decided the game."""
    _want(args, 2)
    game = engine.gomoku
    c = _color(args[0])
    xy = _vx(game, args[1])
    r = game.play(c, None, None) if xy is None else game.play(c, xy[0], xy[1])
    if r != OK:
        raise GtpError("illegal move (%s)" % MESSAGES[r])
    return outcome(game)


def cmd_undo(engine, args):
    """Take back the last move."""
    _want(args, 0)
    if not engine.gomoku.undo():
        raise GtpError("cannot undo")
    return ""


def cmd_showboard(engine, args):
    """ASCII diagram: X black, O white, + star points, then the variant, move and result."""
    _want(args, 0)
    game = engine.gomoku
    lines = diagram(game.board, GOMOKU_COLUMNS, _STARS if game.size == 15 else ())
    state = outcome(game) or "%s to play" % _COLOR_NAMES[game.to_move]
    lines.append("%s, move %d, %s" % (VARIANTS[game.variant], game.ply, state))
    return "\n" + "\n".join(lines)


def cmd_list_stones(engine, args):
    """Vertices of the stones of a colour."""
    _want(args, 1)
    c = _color(args[0])
    b = engine.gomoku.board
    n = b.size
    return " ".join([_name(x, y) for y in range(n) for x in range(n) if b.color_at(x, y) == c])


def cmd_is_legal(engine, args):
    """``1`` if ``play`` would take the move (a forbidden point is a foul, not refused)."""
    _want(args, 2)
    game = engine.gomoku
    c = _color(args[0])
    xy = _vx(game, args[1])
    if xy is None:
        return "1"
    return "1" if game.legal(c, xy[0], xy[1]) == OK else "0"


def cmd_all_legal(engine, args):
    """Every vertex ``play`` would take for the colour."""
    _want(args, 1)
    game = engine.gomoku
    c = _color(args[0])
    n = game.size
    return " ".join([_name(x, y) for y in range(n) for x in range(n) if game.legal(c, x, y) == OK])


def cmd_final_score(engine, args):
    """The result so far: ``B+``, ``W+``, ``0`` (draw) or ``?`` while the game goes on."""
    _want(args, 0)
    game = engine.gomoku
    if not game.winner:
        return "?"
    if game.winner == DRAW:
        return "0"
    return "B+" if game.winner == BLACK else "W+"


def cmd_tengen_forbidden(engine, args):
    """Black's forbidden points now, one ``H8 double-three`` per line (Renju only)."""
    _want(args, 0)
    return "\n".join(
        [
            "%s %s" % (_name(x, y), FORBIDDEN_NAMES[k])
            for x, y, k in engine.gomoku.forbidden_points()
        ]
    )


def load(variant, sgf, nodes, info, stop):
    """A new game of ``variant`` from a parsed ``GM[4]`` file, up to move ``stop``."""
    size = info["size"]
    if not 5 <= size <= 19:
        raise sgf.SgfError("unacceptable size %d" % size)
    moves = sgf.moves(nodes, size)
    nodes = None
    gc.collect()
    game = Gomoku(variant, size, claims=_claims())
    to_move = BLACK
    if info["pl"]:
        to_move = BLACK if info["pl"] == "B" else WHITE
    elif info["ab"] or info["aw"]:
        to_move = WHITE if len(info["ab"]) > len(info["aw"]) else BLACK
    last = len(moves) if stop is None else min(len(moves), stop - 1)
    if moves and not info["pl"]:
        to_move = BLACK if moves[0][0] == "B" else WHITE
    game.setup(info["ab"], info["aw"], to_move)
    for i in range(last):
        c = BLACK if moves[i][0] == "B" else WHITE
        xy = moves[i][1]
        r = game.play(c, None, None) if xy is None else game.play(c, xy[0], xy[1])
        if r != OK:
            where = "pass" if xy is None else _name(xy[0], xy[1])
            why = MESSAGES[r]
            if game.winner:
                why += " (%s)" % game.result_text()
            raise sgf.SgfError("move %d %s %s: %s" % (i + 1, moves[i][0], where, why))
    if last < len(moves) and not game.winner:  # the file says who plays next
        game.to_move = BLACK if moves[last][0] == "B" else WHITE
    return game


COMMANDS = {
    "boardsize": cmd_boardsize,
    "clear_board": cmd_clear_board,
    "play": cmd_play,
    "undo": cmd_undo,
    "showboard": cmd_showboard,
    "list_stones": cmd_list_stones,
    "is_legal": cmd_is_legal,
    "all_legal": cmd_all_legal,
    "final_score": cmd_final_score,
    "tengen-forbidden": cmd_tengen_forbidden,
}
