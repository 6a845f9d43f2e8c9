"""A board on the test bench: the real ``App`` on the simulated grid with its faces and buzzer
recorded, driven as the players drive it (stones, paddles, keys, time), on both runtimes.

``Rig(settings)`` builds it; ``put``/``lift`` move stones on the grid, ``press`` a paddle,
``key``/``chord`` the soft keys (held as long as a finger would), ``run(ms)`` lets time pass
(the app's pass every 20 ms, as its clock task). ``seen(side)`` is what that face shows now,
``heard()`` the sounds since the last call, by name. ``Rig(settings, glass=True)`` draws on
the real HT1621 drivers and the emulated glass instead, and ``seen`` reads the glass back
(firmware/hal/virtual.py ``read``). Either way every text the app draws must be one of the
glass table's (firmware/ui/texts.py, ``tests/glass.py``): a text outside it fails the test.

``BoardRig()`` is the whole board as it leaves the factory: the virtual board
(``firmware/virtual/board.py``'s ``VirtualBoard``: ``firmware/boot/board.py``'s ``build`` on the virtual
hardware, ``firmware/hal/virtual.py``) in simulated time, with a fresh flash folder (no
settings file; the virtual board calibrates itself on that first start), the same hands, the
PC link's requests (``ask``), and what the faces show read back from the emulated HT1621
glass.
"""

from firmware.clock import cues
from firmware.clock.clock import BLACK, WHITE
from firmware.game.app import App
from firmware.game.match import Match
from firmware.rules.coords import GO_COLUMNS, GOMOKU_COLUMNS, parse_vertex
from firmware.sensing.grid import Sensing
from firmware.ui import buttons as btn
from firmware.ui import buzzer as bz
from firmware.ui.arbiter import Arbiter

N = 19
STEP = 20


def sound_name(pattern):
    """The name of a buzzer pattern: the buzzer's own, or the clock cue it is."""
    for name in ("KEY", "REFUSE", "CONFIRM"):
        if pattern == getattr(bz, name):
            return name
    kinds = ("", "MARK", "MARK_LATE", "MINUTE_LEFT", "COUNT", "TIMEOUT", "PERIOD_LEFT", "FLAG")
    for k in range(1, len(kinds)):
        if pattern == cues.pattern(k << 8):
            return kinds[k]
    return "?"


class Face:
    """A face driver that keeps what it was last asked to draw, as one line of text."""

    def __init__(self):
        self.text = ""
        self.texts = []  # every distinct text line drawn (show_text), in order

    def show(self, face):
        t = bytes(face.text[: face.length]).decode()
        self.text = "%s #%d" % (t, face.move_no)
        if face.flags & 8:
            self.text += " ARB"
        if face.flags & 2:
            self.text += " PAUSE"
        if face.flags & 4:
            self.text += " FLAG"

    def show_text(self, line, small="", flags=0, more=""):
        in_table(line, small)
        t = line if isinstance(line, str) else line.decode()
        if small:
            t += " " + (small if isinstance(small, str) else small.decode())
        if flags & 8:
            t += " ARB"
        self.text = t
        if not self.texts or self.texts[-1] != t:
            self.texts.append(t)


_CHECKED = set()


def in_table(line, small):
    """Fail (AssertionError) on a text the glass table does not have."""
    key = tuple(t if isinstance(t, str) else bytes(t).decode() for t in (line, small))
    if key in _CHECKED:
        return
    from tests.glass import allowed

    assert allowed(line, small) is not None, "a text outside the glass table: %r %r" % key
    _CHECKED.add(key)


class GlassFace:
    """The real HT1621 driver on an emulated chip: what it draws is checked against the
    table (``in_table``) and read back off the glass (``seen``)."""

    def __init__(self, face):
        self.face = face

    def show(self, face):
        return self.face.show(face)

    def show_text(self, line, small="", flags=0, more=""):
        in_table(line, small)
        return self.face.show_text(line, small, flags, more)


class Buzzer:
    """A buzzer that keeps the names of what it played."""

    def __init__(self):
        self.played = []

    def play(self, pattern, now):
        if pattern:
            self.played.append(sound_name(pattern))

    def step(self, now):
        pass

    def set_volume(self, v):
        pass


_GRIDS = {}


def grid_for(seed):
    """A calibrated simulated grid (made once per seed: the calibration takes a while)."""
    from firmware.hal.virtual import calibrated

    if seed not in _GRIDS:
        _GRIDS[seed] = calibrated(seed)
    grid, frame, cal = _GRIDS[seed]
    grid.clear()
    return grid, cal


class Rig:
    """The app, its recorded faces and buzzer, a simulated grid, and the time."""

    chips = None  # the emulated HT1621s when the faces are the glass (``glass=True``)

    def __init__(self, settings, journal=None, seed=9, pin="1234", match=None, glass=False):
        self.grid, cal = grid_for(seed)
        self.sensing = Sensing(N, cal)
        settings = dict(settings)
        settings.setdefault("pin", pin)
        if match is None:
            match = Match(settings, self.sensing, journal)
        if glass:
            from firmware.hal.virtual import make_faces

            _, self.chips, drivers = make_faces(2)
            for d in drivers:
                d.start()
            self.faces = (GlassFace(drivers[0]), GlassFace(drivers[1]))
        else:
            self.faces = (Face(), Face())
        self.buzzer = Buzzer()
        self.levels = 0
        self.now = 0
        self.journal = journal
        self.app = App(
            self.grid,
            match,
            faces=self.faces,
            buzzer=self.buzzer,
            journal=journal,
            now=lambda: self.now,
            keys=lambda: self.levels,
            arbiter=Arbiter(settings["pin"]),
            settings=settings,
        )
        self.heard_at = 0
        self.run(200)

    @property
    def match(self):
        return self.app.match

    # ---- the players' hands -----------------------------------------------------------------

    def _xy(self, v):
        # A vertex of the game (Go's columns skip I, Gomoku's do not) on the grid, where a
        # smaller game sits in the middle.
        g = self.match.game
        n = g.board.size
        x, y = parse_vertex(v, n, GO_COLUMNS if hasattr(g, "captures") else GOMOKU_COLUMNS)
        return x + (N - n) // 2, y + (N - n) // 2

    def put(self, v, colour, ms=200):
        x, y = self._xy(v)
        self.grid.put(x, y, BLACK if colour[0] in "bB" else WHITE)
        self.run(ms)

    def lift(self, v, ms=200):
        x, y = self._xy(v)
        self.grid.lift(x, y)
        self.run(ms)

    def press(self, colour, ms=100):
        self.app.paddles.hit(BLACK if colour[0] in "bB" else WHITE, self.now + 1)
        self.run(ms)

    def key(self, name, long=False):
        self.levels = _bits(name)
        self.run(900 if long else 100)
        self.levels = 0
        self.run(100)

    def pin(self, digits):
        """The arbiter's chord, then the PIN digit by digit (+ to the digit, MODE to take it)."""
        self.key("pause+mode")
        for d in digits:
            for _ in range(int(d)):
                self.key("plus")
            self.key("mode")

    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += STEP
            self.app.step(self.now)

    # ---- what the players see and hear --------------------------------------------------------

    def seen(self, colour):
        k = 0 if colour[0] in "bB" else 1
        if self.chips is not None:  # the glass, as the player reads it
            from firmware.hal.virtual import read

            return read(self.chips[k].ram).line()
        return self.faces[k].text

    def heard(self):
        out = self.buzzer.played[self.heard_at :]
        self.heard_at = len(self.buzzer.played)
        return out


def _bits(name):
    bits = 0
    for k in name.split("+"):
        bits |= {"pause": btn.PAUSE, "mode": btn.MODE, "plus": btn.PLUS, "minus": btn.MINUS}[k]
    return bits


class BoardRig(Rig):
    """A new board: no settings file, nothing played (a fresh flash folder, or ``root``),
    built as the device builds itself, ``dead`` its dead sensors (``make_hardware``'s); time
    is the rig's own (``run``), so every run shows the same. Rig's hands, but the paddles and
    keys are the virtual board's (``hw.press``, ``hw.keys.hold``); ``seen(side)`` is what that
    face's glass reads (``hw.glass``), ``heard()`` the buzzer's sounds since the last call, by
    name; ``ask`` a request on the PC link. ``host_time``: the clock the RTC chip runs on
    (``make_hardware``'s; default a fixed instant: the chip stands still)."""

    def __init__(self, seed=1, root=None, dead=(), host_time=None):
        from firmware.hal import virtual as V
        from firmware.virtual.board import VirtualBoard

        if root is None:
            from tests.test_journal import fresh_root

            root = fresh_root(blocks=128)[: -len("/games")]
        self.root = root
        self.link = _Link()
        hw = V.make_hardware(
            root,
            self.link,
            seed,
            host_time=host_time or (lambda: V.SIM_EPOCH),
            dead=list(dead),
            simulated=True,
        )
        self.hw = hw
        self.said = []  # the virtual board's lines, when ``board.report()`` is asked for them
        self.board = VirtualBoard(hw, self.said.append)  # the virtual board, simulated time
        self.grid = hw.scanner
        self.app, self.server = self.board.app, self.board.server
        self.next_id = 1
        self.run(200)

    @property
    def now(self):
        """The board's time: the virtual hardware's simulated tick (``hw.ms``)."""
        return self.hw.ms

    @now.setter
    def now(self, ms):
        self.hw.ms = ms

    @property
    def journal(self):
        return self.app.journal

    # ---- the players' hands: the virtual board's paddles and keys ---------------------------

    def press(self, colour, ms=100):
        self.hw.press(BLACK if colour[0] in "bB" else WHITE)
        self.run(ms)

    def play(self, moves):
        """Each ``(vertex, colour)`` put down and its paddle pressed."""
        for v, c in moves:
            self.put(v, c)
            self.press(c)

    def key(self, name, long=False):
        ms = 900 if long else 100
        self.hw.keys.hold(_bits(name), ms)
        self.run(ms + 100)

    # ---- the PC link ------------------------------------------------------------------------

    def ask(self, cmd, **fields):
        """One request on the link, as ``tengen`` sends it; the reply (a dict)."""
        import json

        req = {"v": 1, "id": self.next_id, "cmd": cmd}
        req.update(fields)
        self.next_id += 1
        start = len(self.link.data)
        self.server.feed(json.dumps(req).encode() + b"\n")
        while self.server.poll():
            pass
        return json.loads(self.link.data[start:].decode().strip().split("\n")[-1])

    # ---- what the players see and hear --------------------------------------------------------

    def seen(self, colour):
        """What that face's glass shows: ``2:55:00  #1  RUN``, ``CAP  D4``."""
        return self.hw.glass(0 if colour[0] in "bB" else 1).line()

    def seen_over(self, colour, ms, every=500):
        """Every distinct reading of that face while ``ms`` pass (texts that take turns)."""
        out = []
        for _ in range(ms // every):
            t = self.seen(colour)
            if t not in out:
                out.append(t)
            self.run(every)
        return out

    def heard(self):
        return self.hw.buzzer.take()


class _Link:
    """The PC's end of the link: what the board wrote."""

    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += data
        return len(data)

    def flush(self):
        pass
