"""The boot's known-answer self-checks (firmware/boot/selfcheck.py), both runtimes.

On CPython every check runs through the kernels' plain-Python paths (firmware/_mpshim.py makes
viper and native plain functions); on the unix port through the real viper and native code.
Both must give exactly ``KNOWN``: the constants the board compares with cannot drift from
the code. A kernel made to answer wrong (a function swapped for a broken one, as a
misaligned frozen function behaves) must be named by the check that runs it.
"""

from firmware.boot import selfcheck as SC
from firmware.hal import rp2040  # noqa: F401  (loaded, as on the board: HAL is checked too)


def _patched(obj, name, value):
    """Set ``obj.name`` to ``value``; returns the undo."""
    old = getattr(obj, name)
    setattr(obj, name, value)
    return lambda: setattr(obj, name, old)


def test_the_known_answers_are_what_the_code_gives():
    wrong = [tag for tag, _, fn in SC.CHECKS if fn() != SC.KNOWN[tag]]
    assert not wrong, "KNOWN is stale for %s; the table now:\n%s" % (wrong, SC._table())
    assert sorted(SC.KNOWN) == sorted(tag for tag, _, _ in SC.CHECKS)
    assert SC.run() == []
    SC.verify()  # raises nothing


def test_every_tag_fits_the_small_cells():
    for tag, what, _ in SC.CHECKS:
        assert 1 <= len(tag) <= 3 and tag == tag.upper() and what


def test_the_checks_meet_what_they_are_for():
    # The answers are not just any numbers: each check reaches the cases it is meant to.
    from firmware.rules import go_board as G
    from firmware.rules import gomoku_board as GB

    go = SC.KNOWN["GO"]
    codes = go[: len(SC._GO_MOVES)]
    assert codes.count(G.OK) == 21
    for why in (G.KO, G.SUICIDE, G.OCCUPIED, G.OFF_BOARD):
        assert codes.count(why) == 1
    after = go[len(SC._GO_MOVES) :]
    # rows (10), the two hash keys, ko, stones, removal log size, captures, ply, to move
    nlog, black_took = after[14], after[15]
    assert nlog == 5 and black_took == 5  # one, one, then three at once
    ren = SC.KNOWN["REN"]
    assert ren[:4] == (GB.DOUBLE_THREE, GB.DOUBLE_FOUR, GB.OVERLINE, GB.NOT_FORBIDDEN)
    assert ren[4:8] == (0, 0, 0, 0)  # a four-three, one three, a corner, next to a six
    sen = SC.KNOWN["SEN"]
    frames = [sen[4 * i + 1] for i in range(len(SC._SEN_FRAMES))]
    assert frames == [1, 2, 3, 4, 5, 6, 7, 7, 7, 8, 9, 10]  # not 1, 0, 1, 0 (on-chip.md)
    assert sen[4 * 7] < 0 and sen[4 * 8] < 0  # the two refused frames
    crc = SC.KNOWN["CRC"]
    assert crc[0] == 0xCBF43926  # CRC-32's check value of "123456789"
    assert crc[-3:] == (4, 1, 3)


def test_a_viper_kernel_with_a_misaligned_constant_is_named():
    # on-chip.md: Sensing.frames counted 1, 0, 1, 0 when the mask 0x3FFFFFFF read as
    # 0xFFFFE001. The same wrong answer, made here by hand:
    from firmware.sensing.grid import Sensing

    real = Sensing._update

    def misaligned(self, frame, now_ms):
        n = real(self, frame, now_ms)
        self.frames = self.frames & 0xFFFFE001
        return n

    undo = _patched(Sensing, "_update", misaligned)
    try:
        failed = SC.run()
        try:
            SC.verify()
            raise AssertionError("a wrong kernel passed")
        except SC.Failed as e:
            assert e.tag == "SEN"
            assert str(e) == "CHECK SEN Sensing.update: item 5 is 0, known 2", str(e)
    finally:
        undo()
    assert [t for t, _ in failed] == ["SEN"]
    assert SC.run() == []


def test_each_check_names_its_own_kernel():
    from firmware.clock.clock import Clock
    from firmware.referee import referee
    from firmware.rules import go_board, gomoku_board
    from firmware.store import records

    def no_captures(*args):
        return 1  # "the group has a liberty": nothing is ever taken

    def never_foul(*args):
        return 0

    def one_ms_more(self, s):
        return real_limit(self, s) + 1

    def off_by_one(data, seed=0):
        return real_crc(data, seed) ^ 1

    def raises(*args):
        raise ValueError("broken")

    real_limit = Clock._limit
    real_crc = records.crc32
    for obj, name, fake, tag in (
        (go_board, "flood", no_captures, "GO"),
        (gomoku_board, "_foul", never_foul, "REN"),
        (Clock, "_limit", one_ms_more, "TIC"),
        (records, "crc32", off_by_one, "CRC"),
        (referee, "_differing", raises, "REF"),
        (rp2040, "reassemble", raises, "HAL"),
    ):
        undo = _patched(obj, name, fake)
        try:
            failed = SC.run()
        finally:
            undo()
        assert [t for t, _ in failed] == [tag], (name, failed)
        assert failed[0][1].startswith("CHECK %s " % tag)
        if fake is raises:
            assert "raised ValueError: broken" in failed[0][1]
    assert SC.run() == []


def test_two_failures_are_both_named():
    from firmware.store import records

    undo = _patched(records, "crc32", lambda data, seed=0: 0)
    from firmware.rules import gomoku_board

    undo2 = _patched(gomoku_board, "_foul", lambda *a: 3)
    try:
        try:
            SC.verify()
            raise AssertionError("wrong kernels passed")
        except SC.Failed as e:
            assert e.tag == "REN" and str(e).endswith("(and CRC)"), str(e)
    finally:
        undo2()
        undo()
