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

from firmware.app import App
from firmware.clock import cues
from firmware.clock.clock import BLACK, WHITE
from firmware.match import Match
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

    def __init__(self, time, seed=9, journal=None):
        self.grid, frame, cal = calibrated(seed)
        self.match = Match({"game": "go19", "time": time}, Sensing(N, cal), journal)
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


def test_a_corpus_game_through_the_app_allocates_nothing():
    if not _COUNTED:
        skip("micropython.mem_total() is in MicroPython builds with memory statistics")
    from firmware.rules.go import Game
    from firmware.simulator import play_taking
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


def test_the_engine_s_dead_stones_and_its_no_on_the_faces_allocate_nothing():
    # Go's end against an engine: the player's face names its dead stones (LIFT, how many,
    # the next point) on every pass, then the count with the engine's NO. The link's calls
    # (the proposal, the count, the answer) are not the pass: they are left out of the count.
    from firmware.app import COUNT_NO, LIFT_WORD

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
    assert bytes(black_face.word) == (LIFT_WORD + " 2").encode()
    assert bytes(black_face.small) == b"D4" and white_face.word == "DEAD"
    b.lift(3, 3)
    assert bytes(black_face.word) == (LIFT_WORD + " 1").encode()
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
    assert white_face.small == COUNT_NO and black_face.small == "OK?"
    if _COUNTED:
        assert b.passes > 100 and b.bytes == 0, (b.passes, b.bytes)
