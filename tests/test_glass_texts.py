"""The glass is the oracle: every text of the table (firmware/ui/texts.py), its fields filled
with their worst cases, drawn through the real HT1621 driver onto the emulated glass and read
back as a player reads it (firmware/hal/virtual.py ``read``) must be exactly what was meant;
and the code that draws (the menu, the arbiter, the referee's words, the count, calibration,
the self-test, the boot) draws only texts of the table. tests/host/test_glass_stray.py fails
on a string literal that reaches a face from outside the table.
"""

from firmware.clock.clock import Face
from firmware.hal import virtual as V
from firmware.referee import incidents as inc
from firmware.ui import buttons as btn
from firmware.ui import say
from firmware.ui import texts as T
from tests import glass as G

POOR = "KMVWX"  # X reads as H, V as u; K, M and W only in the words the table allows


def _poor_ok(text):
    # K and M only in the game's words KO and KOM, and in OK; W never in a template (White's
    # letter comes from the side field, ``$``).
    rest = text
    for word in ("KOM", "KO", "OK"):
        rest = rest.replace(word, "")
    for c in POOR:
        if c in rest:
            return False
    return True


def _check(big, small, meant=None):
    # The text fits, and the glass reads back as meant.
    assert G.cells(big) <= 6, "%r takes %d big cells" % (big, G.cells(big))
    assert len(small) <= 3 and "." not in small and ":" not in small, "small %r" % small
    assert big[:1] not in (".", ":"), big
    for c in big + small:
        assert c in " .:" or V.F.glyph(ord(c)), "%r has no glyph in %r" % (c, big + "|" + small)
    got = G.read_back(big, small)
    want = meant or (big, small)
    assert got == want, "drawn %r, read %r" % (want, got)


def test_every_template_has_a_form_the_glass_can_show():
    for big, small in G.table():
        assert _poor_ok(big) and _poor_ok(small), "a poor glyph in %r|%r" % (big, small)
        assert "!" not in big or big == "!", big


def test_every_text_of_the_table_reads_back_as_meant():
    n = 0
    for big_t, small_t in G.table():
        if big_t == "!":
            continue  # the clock's time: test_the_clock_times_read_back
        for big in G.filled(big_t):
            for small in G.filled(small_t):
                _check(big, small)
                n += 1
    assert n > 500, n


def test_every_point_reads_as_itself_in_the_small_cells():
    for p in G.all_points():
        _check(T.INCIDENT[inc.CAPTURES_LEFT], p)
        _check(T.SIDES[2], p)  # the remote's move: W E5


def test_a_word_says_what_its_small_cells_hold():
    # The player reads the word first: a word never comes with a count and with a point, so
    # "CLEAR 55" is a count and "CAP S5" a point.
    kinds = {}
    for big, small in G.table():
        if small in ("#", "@"):
            assert kinds.get(big, small) == small, "%r comes with a count and a point" % big
            kinds[big] = small


def test_the_clock_times_read_back():
    bus, chips, faces = V.make_faces(1)
    f = Face()
    for text in G.fill_values("!"):
        f.text[: len(text)] = text.encode()
        f.length = len(text)
        f.move_no = 123
        faces[0].show(f)
        g = V.read(chips[0].ram)
        assert g.big == text and g.small == "123", (text, g.line())


def test_the_table_catches_a_text_outside_it():
    assert G.allowed("CAP", "Q16") == ("CAP", "@")
    assert G.allowed("DEAD", "23") == ("DEAD", "#")
    assert G.allowed("B+3.5", "OK?") is not None
    assert G.allowed("FIX", "") is None  # the old word
    assert G.allowed("PIN0___", "") is None
    assert G.allowed("CAP", "23") is None  # a count where a point goes
    # ... and a word that does not read is caught by the read-back: X reads as H.
    assert G.read_back("FIX", "") == ("FIH", "")


# ---- the code that draws draws only the table's texts --------------------------------------


def _in_table(big, small=""):
    assert G.allowed(big, small) is not None, "%r|%r is not in texts.table()" % (big, small)
    _check(big if isinstance(big, str) else bytes(big).decode(), small)


def test_every_incident_word_is_in_the_table():
    for kind in range(0, 30):
        for detail in range(0, 16):
            for gomoku in (False, True):
                for points in ((), (15 << 5 | 16,), (4 << 5 | 18,)):
                    w, small, _ = say.incident(kind, points, detail, gomoku)
                    if w:
                        _in_table(w, small)


def test_go_and_gomoku_illegal_points_say_why():
    assert say.word(inc.ILLEGAL, 3, False) == T.GO_ILLEGAL[3] == "KO"
    assert say.word(inc.ILLEGAL, 4, False) == "SUICID"
    assert say.word(inc.ILLEGAL, 6, True) == "CENTER"  # Renju's first stone off the centre
    assert say.word(inc.ILLEGAL, 2, True) == "FILLED"
    assert say.more(inc.ILLEGAL, 6, True) == "the first stone goes on the centre"


def test_the_menu_draws_only_table_texts():
    from firmware.ui import menus

    for game in menus.GAMES:
        m = menus.Menu({"game": game[0], "size": game[1]})
        for item in range(menus.ITEMS):
            if not m.applies(item):
                continue
            m.item = item
            seen = []
            for _ in range(120):  # every value of the item, round and back
                t = m.text()
                _in_table(t[0], t[1])
                if t in seen and item != menus.KOMI:
                    break
                seen.append(t)
                m.change(1)
            m.settings = dict(m.saved)
    m = menus.Menu({"ko": "simple", "time": "byoyomi/600/5/30", "komi2": -30})
    for item in (menus.KO, menus.TIME, menus.KOMI):
        t = m.text(item)
        _in_table(t[0], t[1])


def test_the_arbiter_draws_only_table_texts():
    from firmware.ui.arbiter import Arbiter

    def ev(key):
        return btn.event(btn.PRESS, key)

    a = Arbiter("0000", lockout_ms=60000)
    assert a.text(0) == ("", "")
    a.begin(0)
    for _d in range(4):
        for _ in range(9):
            _in_table(*a.text(0))
            a.handle(ev(btn.PLUS), 0)
        _in_table(*a.text(0))
        a.handle(ev(btn.MINUS), 0)  # back to 8: a wrong PIN
        a.handle(ev(btn.MODE), 0)
    for _ in range(3):  # locked out after three wrong PINs
        a.begin(0)
        for _d in range(4):
            a.handle(ev(btn.PLUS), 0)
            a.handle(ev(btn.MODE), 0)
    for now in (1, 59001, 59999):
        _in_table(*a.text(now))
    a = Arbiter("0000")
    a.begin(0)
    for _d in range(4):
        a.handle(ev(btn.MODE), 0)
    assert a.active
    from firmware.ui.arbiter import MENU

    for _ in range(2 * len(MENU)):  # the list, with the pause taken and not
        _in_table(*a.text(0))
        a.handle(ev(btn.PLUS), 0)
    for index in range(len(MENU)):
        a.state = 2  # LIST
        a.index = index
        a.handle(ev(btn.MODE), 0)  # choose
        for field in range(3):
            if a.state != 3:  # FIELD
                break
            for step in range(100):
                _in_table(*a.text(0))
                a.handle(ev(btn.PLUS if field == 0 or step < 60 else btn.MINUS), 0)
            a.handle(ev(btn.MODE), 0)


def test_the_count_and_results_are_table_texts():
    for m4 in range(-1444, 1445, 7):
        points, stones = say.margin_text(m4)
        for small in (T.OK, T.ASK):
            _in_table(points, small)
            _in_table(stones, small)
    results = ["B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "B+", "W+", "0", "Void", "B+0.5"]
    results += ["W+361.5", "B+12", "Draw (both passed)", "B+ (five)", "W+ (five)"]
    results += ["B+F (double-three)", "W+F (double-four)", "B+F (overline)", "W+ (adjudicated)"]
    from firmware.rules.go_count import result_sgf

    for m4 in (1, 2, 22, 723, -723, -1):
        results.append(result_sgf(m4))
    for r in results:
        _in_table(say.result_word(r), say.result_small(r))


def test_calibration_and_the_self_test_are_table_texts():
    from firmware.sensing.calibration import FAULT_NAMES
    from firmware.ui.calibrate import Calibrating, SelfTesting

    c = Calibrating(19)
    for step in range(3):
        c.step = step
        c.taking = 0
        _in_table(*c.text())
        c.taking = 3
        _in_table(*c.text())
    c.step = 3
    _in_table(*c.text())  # no result: CAL ERR
    c.result = object()
    _in_table(*c.text())
    c.problems = [0] * 23
    _in_table(*c.text())
    import firmware.sensing.selftest as ST

    real = ST.selftest, ST.Known
    seen = []
    try:
        ST.Known = lambda sensing: None
        for bit, name in FAULT_NAMES:  # as finish() words a result with this fault first
            ST.selftest = lambda frames, known, bit=bit, name=name: [(0, bit, "S15: " + name)]
            t = SelfTesting(19, frames=0)
            t.finish(None)
            for now in (0, 2000):  # BAD and how many, then the fault and its point
                w = t.text(now)
                _in_table(w[0], w[1])
                seen.append(w[0])
    finally:
        ST.selftest, ST.Known = real
    assert seen == [w for f in T.FAULTS for w in (T.BAD, f)], seen
    t = SelfTesting(19)
    _in_table(*t.text(0)[:2])


def test_the_boot_words_are_table_texts():
    from firmware.boot import bootlog

    class Face:
        def show_text(self, line, small="", flags=0, more=""):
            self.seen = (line, small)

    faces = (Face(),)
    bootlog.attach("/nonexistent/boot.log", faces)
    try:
        bootlog.show(ValueError("x"))
        _in_table(*faces[0].seen)
        bootlog.show(MemoryError())
        _in_table(*faces[0].seen)
        from firmware.boot.selfcheck import CHECKS, Failed

        assert tuple(c[0] for c in CHECKS) == G.TAGS
        for tag in G.TAGS:
            bootlog.show(Failed(tag, "CHECK " + tag))
            _in_table(*faces[0].seen)
    finally:
        bootlog.attach(bootlog.PATH, None)


# ---- through the real App, off the glass ---------------------------------------------------


def test_an_illegal_point_says_why_on_the_glass():
    # Renju's first stone off the centre (designated opening) and Go's suicide: the face of
    # the player says the reason, not ILLEGL, read back off the emulated glass.
    from firmware.game.settings import DEFAULTS
    from tests.rig import Rig

    s = dict(DEFAULTS)
    s.update(game="renju", size=15, time="renju-rif")
    rig = Rig(s, glass=True)
    rig.key("pause")
    rig.put("A1", "b")
    rig.press("b")
    assert rig.seen("b") == "CENTER  A1", rig.seen("b")
    assert "REFUSE" in rig.heard()
    rig = Rig({"game": "go", "size": 19}, glass=True)
    rig.key("pause")
    for v, c in (("C3", "b"), ("A2", "w"), ("C4", "b"), ("B1", "w"), ("A1", "b")):
        rig.put(v, c)
        rig.press(c)
    assert rig.seen("b") == "SUICID  A1", rig.seen("b")
    assert "59:00" in rig.seen("w")  # White's face keeps its clock


def test_a_board_that_draws_a_text_outside_the_table_fails():
    # The test bench's faces (tests/rig.py) check every text the app draws.
    from tests.rig import in_table

    in_table("CAP", bytearray(b"Q16"))
    for big, small in (("FIX", ""), ("PIN0___", ""), ("DEAD", "Q16"), ("RESIGN", "")):
        try:
            in_table(big, small)
        except AssertionError:
            continue
        raise AssertionError("%r %r passed" % (big, small))


def test_the_arbiter_and_the_menu_read_whole_on_the_glass():
    # The PAUSE+MODE showed INO___ (PIN0___ cut to six cells) and the list ARNING.
    from tests.rig import Rig

    rig = Rig({"game": "go", "size": 19}, glass=True)
    rig.key("pause")
    rig.key("pause+mode")
    assert rig.seen("b") == "0___  PIN  ARB", rig.seen("b")
    for _ in range(3):
        rig.key("mode")
    rig.key("plus")
    assert rig.seen("w") == "---1  PIN  ARB", rig.seen("w")
    rig.key("pause")  # back a digit
    rig.key("pause")
    rig.key("pause")
    rig.key("pause")  # out
    rig.pin("1234")
    for want in ("PAUSE", "ADJUST", "UNDO", "ALERT", "RESULT", "T.PASS", "SEAL", "LATE", "QUIT"):
        assert rig.seen("b") == want + "  ARB", (want, rig.seen("b"))
        rig.key("plus")
    rig.key("pause")  # leave the mode
    rig.run(3000)
    rig = Rig({"game": "go", "size": 19}, glass=True)
    rig.key("mode", long=True)
    seen = []
    for _ in range(7):
        seen.append(rig.seen("b"))
        rig.key("mode")
    assert seen == ["GO  19", "1988  RUL", "CN  KO", "5.5  KOM", "0  HCP", "3:00  CN", "2  SND"]
