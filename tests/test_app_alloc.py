"""The app's pass (``App.step``) allocates nothing across a game: proven on MicroPython with
``micropython.mem_total()`` on the simulated grid, the reference faces' real driver (HT1621)
and the real buzzer, on pins that go nowhere, with and without the journal on LittleFS.

Quiet frames, frames with a change, presses, captures, refusals said on the faces with their
point, a pass, the clock's byo-yomi cues: no pass may feed the collector, which would pause
the clock. The scripted game runs again with the journal on a LittleFS RAM device (each move,
its clocks and each incident written as the board writes them). The scan is the hardware's,
so the frame is put in place before each pass. On CPython
(no ``mem_total``) the scripted game runs as a stand-in and checks what the faces and the
buzzer were given.
"""

import micropython

from firmware.clock import cues
from firmware.clock.clock import BLACK, WHITE
from firmware.game.app import App
from firmware.game.match import Match
from firmware.referee import incidents as inc
from firmware.sensing.grid import Sensing
from firmware.ui import buzzer as bz
from firmware.ui.buzzer import Buzzer
from firmware.ui.face import HT1621Face
from tests.support import require_shared, skip
from tests.test_physical_replay import N, calibrated

_COUNTED = hasattr(micropython, "mem_total")


class Pin:
    def value(self, v=None):
        return 0


class Pwm:
    def freq(self, f):
        pass

    def duty_u16(self, d):
        pass


class Prescanned:
    """The scanner as the app sees it: the frame is already in place (PIO + DMA on the board)."""

    n = N

    def scan(self, frame):
        pass


class Glass:
    """A face: the HT1621 driver, and what it was last asked to say (kept, not copied)."""

    def __init__(self):
        self.driver = HT1621Face(Pin(), Pin(), Pin())
        self.word = None
        self.small = b""

    def show(self, face):
        self.word = None
        return self.driver.show(face)

    @micropython.native
    def show_text(self, line, small=b"", flags=0, more=""):
        self.word = line
        self.small = small
        return self.driver.show_text(line, small, flags, more)


class Sounds:
    """The buzzer, and the last pattern it was given."""

    def __init__(self):
        self.buzzer = Buzzer(Pwm())
        self.last = None
        self.played = 0

    def play(self, pattern, now):
        self.last = pattern
        self.played += 1
        return self.buzzer.play(pattern, now)

    def step(self, now):
        return self.buzzer.step(now)


class Board:
    """The app on the simulated grid, each pass's bytes through the allocator counted."""

    def __init__(self, time, seed=9, journal=None, **settings):
        self.grid, frame, cal = calibrated(seed)
        settings.setdefault("game", "go19")
        settings["time"] = time
        self.match = Match(settings, Sensing(N, cal), journal)
        self.faces = (Glass(), Glass())
        self.sounds = Sounds()
        self.app = App(
            Prescanned(), self.match, faces=self.faces, buzzer=self.sounds, keys=lambda: 0
        )
        self.now = 0
        self.passes = 0
        self.bytes = 0  # through the allocator in the passes counted
        self.counting = False

    def run(self, ms, every=50):
        end = self.now + ms
        while self.now < end:
            self.now += every
            self.grid.scan(self.app.frame)  # the simulated scan allocates: not the board's
            before = micropython.mem_total() if _COUNTED else 0
            self.app.step(self.now)
            if _COUNTED and self.counting:
                self.bytes += micropython.mem_total() - before
                self.passes += 1

    def start(self):
        self.run(500)  # the first frames settle (each frame buffer's type checked once)
        self.match.start(self.now)
        self.run(200)
        self.counting = True

    def put(self, x, y, colour):
        self.grid.put(x, y, colour)
        self.run(300)

    def lift(self, x, y):
        self.grid.lift(x, y)
        self.run(300)

    def press(self, colour):
        self.app.paddles.hit(colour, self.now + 5)
        self.run(100)

    def move(self, x, y, colour):
        self.put(x, y, colour)
        self.press(colour)
        assert self.match.game.to_move == 3 - colour, (x, y)


def test_a_scripted_game_with_refusals_a_pass_and_cues_allocates_nothing():
    _scripted_game(Board("quick"))  # 10 min, then 3 x 30 s byo-yomi with its counting cues


def test_the_same_game_journaled_on_littlefs_allocates_nothing():
    if not _COUNTED:
        skip("counts MicroPython heap bytes (micropython.mem_total) on VfsLfs2")
    from firmware.store import records as R
    from firmware.store.journal import Journal
    from tests.test_journal import fresh_root
    from tests.test_journal_index import QuietRam

    journal = Journal(fresh_root(dev=QuietRam(4096, 64)))
    b = Board("quick", journal=journal)
    _scripted_game(b)
    kept = journal.records(journal.game_no)
    assert [r for r in kept if r[0] == R.MOVE][-1][3] == 2 << 5 | 2  # C3, White's last
    assert {inc.CAPTURES_LEFT, inc.ILLEGAL, inc.PASS} <= {r[1] for r in kept if r[0] == R.INCIDENT}
    journal.close()


class _RtcBus:
    """The PCF8563's bus as the checkpoint reads it: seven registers, nothing allocated."""

    def readfrom_mem_into(self, addr, reg, buf):
        i = 0
        while i < len(buf):
            buf[i] = 0x10 + i
            i += 1


def test_the_game_checkpointed_on_littlefs_allocates_nothing():
    # The running clock's checkpoint (firmware/clock/checkpoint.py) rewritten about every
    # 800 ms and at every press, with the RTC read through the real PCF8563 driver.
    if not _COUNTED:
        skip("counts MicroPython heap bytes (micropython.mem_total) on VfsLfs2")
    from firmware.clock.checkpoint import Checkpoint
    from firmware.hal.pcf8563 import PCF8563
    from firmware.store.journal import Journal
    from tests.test_journal import fresh_root
    from tests.test_journal_index import QuietRam

    root = fresh_root(dev=QuietRam(4096, 64))
    journal = Journal(root)
    b = Board("quick", journal=journal)
    b.app.journal = journal
    ck = b.app.checkpoint = Checkpoint(root + "/clock.ck", PCF8563(_RtcBus()).raw)
    _scripted_game(b)
    assert ck.writes > 700 and not ck.failed, (ck.writes, ck.failed)
    ck.close()
    journal.close()


def _scripted_game(b):
    b.start()
    black_face, white_face = b.faces
    # A ko: Black D4 C5 D6, White E4 F5 E6 D5; Black takes at E5.
    for x, y, c in ((3, 3, BLACK), (4, 3, WHITE), (2, 4, BLACK), (5, 4, WHITE)):
        b.move(x, y, c)
    for x, y, c in ((3, 5, BLACK), (4, 5, WHITE), (15, 15, BLACK), (3, 4, WHITE)):
        b.move(x, y, c)
    b.put(4, 4, BLACK)
    b.press(BLACK)  # D5 is still on the board: refused, said on Black's face
    assert b.match.game.ply == 8 and black_face.word == "CAP"
    assert bytes(black_face.small) == b"D5" and b.sounds.last is bz.REFUSE
    b.lift(3, 4)
    b.press(BLACK)
    assert b.match.game.ply == 9 and b.match.game.captures[BLACK] == 1
    b.put(3, 4, WHITE)  # White takes back at once: the ko
    b.lift(4, 4)
    b.press(WHITE)
    assert b.match.game.ply == 9 and white_face.word == "KO" and bytes(white_face.small) == b"D5"
    b.lift(3, 4)
    b.put(4, 4, BLACK)
    b.run(3000)  # the notice ends: the clock again
    assert white_face.word is None
    b.press(WHITE)  # a pass, said on both faces
    assert b.match.game.passes == 1 and black_face.word == white_face.word == "PASS"
    assert b.sounds.last is bz.KEY
    played = b.sounds.played
    b.run(10 * 60 * 1000 + 28000, every=100)  # Black thinks into byo-yomi: its cue
    cue_patterns = [cues.pattern(k << 8) for k in range(1, 8)]
    assert b.sounds.played > played and b.sounds.last in cue_patterns
    b.move(16, 16, BLACK)
    b.move(2, 2, WHITE)
    assert b.match.game.ply == 12 and not b.app.errors
    if _COUNTED:
        assert b.passes > 6000 and b.bytes == 0, (b.passes, b.bytes)


def test_the_fifth_move_offers_on_the_faces_allocate_nothing():
    # Renju's ten offers going down and White lifting nine: the passes that count them on
    # the faces ("3/10" OFR, SELECT 9) allocate nothing; the presses of the offers and of
    # White's choice are left out (their lists are made once a game).
    b = Board("renju-rif", game="renju", opening="designated", offers=10)
    b.start()
    m = 2  # the 15x15 in the middle of the grid
    for k, (x, y) in enumerate(((7, 7), (7, 8), (8, 7), (6, 7))):  # 雨月, White 4 on G8
        b.counting = False
        b.move(x + m, y + m, BLACK if k % 2 == 0 else WHITE)
    offers = ((9, 7), (4, 4), (5, 11), (10, 3), (11, 10), (2, 8), (12, 12), (3, 2), (13, 12))
    offers += ((1, 1),)
    b.run(200)  # the notices of the opening's moves are over
    b.counting = True
    black_face, white_face = b.faces
    for k, (x, y) in enumerate(offers):
        b.put(x + m, y + m, BLACK)
        assert bytes(white_face.word) == b"%d/10" % (k + 1), white_face.word
    b.counting = False
    b.press(BLACK)
    assert len(b.match.game.offered) == 10
    b.run(3000)
    b.counting = True
    for k, (x, y) in enumerate(offers[1:]):
        b.lift(x + m, y + m)
        assert black_face.word == "SELECT" and bytes(black_face.small) == b"%d" % (9 - k)
    assert not b.app.errors and not b.match.referee.scattered
    if _COUNTED:
        assert b.passes > 100 and b.bytes == 0, (b.passes, b.bytes)


def test_a_corpus_game_through_the_app_allocates_nothing():
    if not _COUNTED:
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    from firmware.rules.go import Game
    from firmware.virtual.board import play_taking
    from tests.go_corpus import game_moves

    moves = game_moves(require_shared("corpus", "go"), 150, 250)
    b = Board("cn-national", seed=21)
    b.start()
    shadow = Game(N)  # the test's copy, to know which stones each move takes
    captures = 0
    for colour, xy in moves:
        c = BLACK if colour == "B" else WHITE
        b.run(500)
        if xy is None:
            shadow.play(c, None, None)
        else:
            taken = play_taking(shadow, c, xy[0], xy[1])
            captures += len(taken)
            b.grid.put(xy[0], xy[1], c)
            b.run(200)
            for x, y in taken:
                b.grid.lift(x, y)
            b.run(200)
        b.press(c)
    assert b.match.game.ply == len(moves) and captures > 0
    assert b.bytes == 0, (b.bytes, b.passes)


def test_naming_the_points_to_clear_allocates_nothing():
    # Before a game, PAUSE refused (its key path may allocate): every pass after it names the
    # next point and the count on the real driver, as stones come off, until the board is
    # ready ("OK"), without feeding the collector.
    b = Board("quick")
    for x, y, c in ((3, 3, BLACK), (15, 15, WHITE), (9, 9, BLACK), (2, 17, WHITE)):
        b.grid.put(x, y, c)
    b.run(500)
    assert not b.app.start(b.now) and b.app.clearing
    b.run(100)
    black_face = b.faces[0]
    assert bytes(black_face.word) == b"CLR.  4" and bytes(black_face.small) == b"D4"
    b.counting = True
    b.lift(15, 15)
    assert bytes(black_face.word) == b"CLR.  3" and bytes(black_face.small) == b"D4"
    b.lift(3, 3)
    assert bytes(black_face.word) == b"CLR.  2" and bytes(black_face.small) == b"K10"
    b.lift(9, 9)
    b.lift(2, 17)
    assert black_face.word == "OK" and not b.app.clearing
    b.run(500)
    if _COUNTED:
        assert b.passes > 20 and b.bytes == 0, (b.passes, b.bytes)


def test_the_engine_s_dead_stones_and_its_no_on_the_faces_allocate_nothing():
    # Go's end against an engine: the player's face names its dead stones (DEAD., how many,
    # the next point) on every pass, then the count with the engine's NO. The link's calls
    # (the proposal, the count, the answer) are not the pass: they are left out of the count.
    from firmware.ui import texts as T

    b = Board("quick")
    b.start()
    black_face, white_face = b.faces
    b.move(3, 3, BLACK)  # D4
    b.move(15, 15, WHITE)  # Q16
    b.move(2, 2, BLACK)  # C3
    b.press(WHITE)
    b.press(BLACK)  # two passes: the dead stones
    m = b.match
    b.counting = False
    m.remote = WHITE
    assert m.remote_dead([3 << 5 | 3, 2 << 5 | 2], b.now) == ""
    b.run(100)
    b.counting = True
    b.run(2000)  # the PASS said, then the engine's dead stones
    assert bytes(black_face.word) == (T.LIFT_DEAD + " 2").encode()
    assert bytes(black_face.small) == b"D4" and white_face.word == "DEAD"
    b.lift(3, 3)
    assert bytes(black_face.word) == (T.LIFT_DEAD + " 1").encode()
    assert bytes(black_face.small) == b"C3"
    b.lift(2, 2)
    assert black_face.word == "DEAD" and bytes(black_face.small) == b"2"
    if _COUNTED:
        assert b.passes > 50 and b.bytes == 0, (b.passes, b.bytes)
    b.counting = False
    m.count(b.now)
    assert m.remote_verdict(m.counts, False, -40, b.now) == ""
    b.run(100)
    b.counting = True
    b.run(2800)  # DIFFER said on both faces
    assert black_face.word == white_face.word == "DIFFER"
    b.counting = False
    b.run(300)  # the count's texts are made once, when it changes (app._phase_texts)
    b.counting = True
    b.run(4000)  # the count, both ways, with the engine's NO
    assert white_face.small == T.NO and black_face.small == "OK?"
    if _COUNTED:
        assert b.passes > 100 and b.bytes == 0, (b.passes, b.bytes)


def test_the_voice_speaking_the_count_allocates_nothing():
    # The cues spoken instead of beeped (issue 29): the virtual HAL's speaker fed by the app's
    # pass, block by block from the voice file into its one PCM buffer (its recording, which
    # allocates on the PC, replaced by a sink that only counts the samples, as the chip's DMA
    # would take them).
    import os

    from firmware.hal.virtual import Speaker
    from firmware.ui import voice as V
    from host_tools.board import voicefile as VF
    from tests.test_voice import _clips, _path

    path = _path("alloc")
    with open(path, "wb") as f:
        f.write(VF.pack("zh", _clips()))
    try:
        b = Board("quick")  # 10 min, then 3 x 30 s byo-yomi
        fed = [0, 0]

        def sink(pcm, n):
            fed[0] += n
            fed[1] += 1

        sp = Speaker()
        sp.sink = sink
        b.app.speaker = sp
        b.app.voice = V.Voice(path)
        b.start()
        b.move(3, 3, BLACK)
        b.move(15, 15, WHITE)
        played = b.sounds.played
        b.run(10 * 60 * 1000 + 2 * 30000 + 25000, every=100)  # two periods used, then 1 … 5
        assert fed[1] > 7 and fed[0] > 2000, fed  # blocks read and given
        assert b.sounds.played == played  # no cue beeped: spoken
        b.move(16, 16, BLACK)
        assert not b.app.errors
        if _COUNTED:
            assert b.bytes == 0, (b.passes, b.bytes)
        b.app.voice.close()
    finally:
        os.remove(path)
