"""Go's end against an engine, from the PC link: the link's ``dead`` and ``confirm`` commands.

Start reading at ``dead``. Kept apart from ``firmware/link/server.py`` (whose ``cmd_dead`` and
``cmd_confirm`` import this module when first used): most games never need it, and the server
is compiled into a small heap (tests/host/test_journal_heap.py). The game's side of both is
``firmware/game/match.py``'s ``remote_dead`` and ``remote_verdict``.

Like ``move``, both need a remote side and carry no PIN: they only act for that side.
"""

from firmware.link.protocol import Reject, _field, _int


def dead(server, req):
    """``{"cmd":"dead","points":[codes]}`` after both passed: the stones the remote side
    calls dead, which the player's face names until they are lifted (LIFT and each point).
    The reply: {"dead": points}. Refused with not_now before the two passes, not_a_stone for
    a point without a stone, not_remote without a remote side."""
    points = _field(req, "points", list)
    if len(points) > 400:
        raise Reject("bad_value", "points: at most 400")
    for p in points:
        if not isinstance(p, int) or p is True or p is False or not 0 <= p < 1023:
            raise Reject("bad_value", "points: point codes (y << 5 | x)")
    m = server._match()
    if not hasattr(m, "remote_dead"):
        raise Reject("not_remote", "this game has no remote side")
    err = m.remote_dead(points, server.now())
    if err:
        words = {
            "not_remote": "no side is played from the PC: set remote first",
            "not_now": "the dead stones come after two passes",
        }
        raise Reject(err, m.why or words.get(err, err))
    return {"dead": points}


def confirm(server, req):
    """``{"cmd":"confirm","count_no":n,"agree":true}``: the remote side's answer to the count
    numbered ``count_no`` (the state's) on the faces. ``agree`` confirms it for that side;
    ``"agree":false`` with its own ``"margin4"`` (quarter stones, Black positive) says the
    counts differ, on both faces and in the journal. The reply: {"result", "confirmed"}.
    Refused with stale (another count is on the faces), not_now (no count), not_remote (the
    remote side gave no dead stones: its paddle confirms then)."""
    count_no = _int(req, "count_no", 0, 1 << 30)
    agree = _field(req, "agree", bool)
    margin4 = _int(req, "margin4", -32768, 32767, 0)
    m = server._match()
    if not hasattr(m, "remote_verdict"):
        raise Reject("not_remote", "this game has no remote side")
    err = m.remote_verdict(count_no, agree, margin4, server.now())
    if err:
        words = {
            "not_remote": "the remote side gave no dead stones: its paddle confirms",
            "not_now": "no count on the faces",
            "stale": "the count changed: %d is on the faces" % m.counts,
        }
        raise Reject(err, words.get(err, err))
    return {"result": m.result, "confirmed": m.confirmed}
