"""The device app: the board's tasks around one ``Match`` (firmware/match.py).

Start reading at ``App.step``: one pass of everything the board does — paddle presses
stamped by their IRQ, a scan through sensing and the referee, the clock's tick, the faces and
the buzzer. ``run`` repeats it as asyncio tasks on the board; tests and the simulator call
``step`` with their own times, so the same code is exercised to the millisecond.

Nothing in the paddle path allocates: the IRQ handler writes a preallocated ring (``Paddles``).
A task that raises is caught and logged, the game is saved (journal), and the task starts
again: one bad frame or a display fault never stops the clock.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import cues, ticks

_RING = const(8)  # paddle presses waiting for the clock task: plenty at human speed


class Paddles:
    """The two clock paddles: ``hit(side, tick)`` from the hard IRQ, ``take()`` in the task."""

    def __init__(self):
        self.side = bytearray(_RING)
        self.at = array("i", [0] * _RING)
        self.head = 0  # written by the IRQ only
        self.tail = 0  # written by the task only
        self.lost = 0

    def hit(self, side, at):
        """Record a press (IRQ context: no allocation, no waiting)."""
        nxt = (self.head + 1) % _RING
        if nxt == self.tail:
            self.lost += 1
            return
        self.side[self.head] = side
        self.at[self.head] = at
        self.head = nxt

    def take(self):
        """The oldest waiting press's side (0 if none); its tick is left in ``taken_at``."""
        if self.tail == self.head:
            return 0
        i = self.tail
        self.taken_at = self.at[i]
        self.tail = (i + 1) % _RING
        return self.side[i]


class App:
    """The board: ``scanner`` (``firmware/hal``), a ``Match``, and optional ``faces`` (two
    objects with ``show(Face)``), ``buzzer`` (with ``play(pattern, now)`` and ``step(now)``),
    ``journal``; ``now`` reads the tick (``firmware.clock.ticks.now_ms`` on the board)."""

    def __init__(
        self,
        scanner,
        match,
        faces=None,
        buzzer=None,
        journal=None,
        now=ticks.now_ms,
        keys=None,
        arbiter=None,
        save=None,
    ):
        from firmware.clock.clock import Face

        self.scanner = scanner
        self.match = match
        self.faces = faces
        self.buzzer = buzzer
        self.journal = journal
        self.now = now
        self.paddles = Paddles()
        self.frame = array("H", [0] * (scanner.n * scanner.n))
        self.face = Face()
        self.cue = 0  # the next cue the buzzer waits for, and the clock version it was for
        self.cue_version = -1
        self.errors = []  # (task, message), for the arbiter and the host
        self.keys = keys  # reads the soft keys' levels (firmware/ui/buttons.py's bits)
        self.buttons = None
        if keys is not None:
            from firmware.ui.buttons import Buttons

            self.buttons = Buttons()
        self.arbiter = arbiter  # firmware/ui/arbiter.py's Arbiter, behind its PIN
        self.menu = None  # firmware/ui/menus.py's Menu while the players choose the game
        self.save = save  # writes the chosen settings (safely: device.py's atomic write)
        self.save_calibration = None  # writes a new calibration (device.py sets it)
        self.calibrating = None  # firmware/ui/calibrate.py's procedure while it runs
        self.steps = 0
        self.last_tick = 0
        self.longest_gap = 0  # ms between clock ticks: the budget the tasks must keep

    # ---- one pass ---------------------------------------------------------------------------

    @micropython.native  # as bytecode its frame would be borrowed from the heap every pass
    def step(self, now):
        """Everything once, at tick ``now``: presses, keys, a scan, the clock, faces, buzzer."""
        self.steps += 1
        self.presses(now)
        self.buttons_step(now)
        self.scanner.scan(self.frame)
        self.take_frame(now)
        self._tick(now)
        self._show(now)

    @micropython.native
    def take_frame(self, now):
        """The scanned frame to the calibration procedure while it runs, else to the game."""
        if self.calibrating is None:
            self.match.frame(self.frame, now)
        elif self.calibrating.frame(self.frame) and self.calibrating.result is not None:
            cal = self.calibrating.result
            self.match.sensing.load(cal)
            if self.save_calibration is not None:
                self.save_calibration(cal)

    @micropython.native
    def presses(self, now):
        """The paddle presses the IRQ stamped, oldest first, then the clock's look at ``now``."""
        m = self.match
        side = self.paddles.take()
        while side:
            m.press(side, self.paddles.taken_at)
            side = self.paddles.take()

    @micropython.native
    def buttons_step(self, now):
        """The soft keys' events."""
        if self.buttons is not None:
            ev = self.buttons.poll(self.keys(), now)
            while ev:
                self.key(ev, now)
                ev = self.buttons.pending()

    def key(self, ev, now):
        """A button event (firmware/ui/buttons.py): the arbiter's chord and actions; the
        pause key starts a game whose clock has not started."""
        from firmware.ui import arbiter as arb
        from firmware.ui import buttons as btn

        a = self.arbiter
        if a is not None and a.state != arb.IDLE:
            action = a.handle(ev, now)
            if action is not None:
                self.act(action, now)
        elif ev == btn.ARBITER and a is not None:
            a.begin(now)
        elif self.menu is not None:
            from firmware.ui import menus

            r = self.menu.handle(ev)
            if r == menus.DONE:
                self.choose(self.menu.result())
                self.menu = None
            elif r == menus.CANCEL:
                self.menu = None
        elif self.calibrating is not None:
            if self.calibrating.step == 3 or ev == btn.event(btn.LONG, btn.PAUSE):
                self.calibrating = None  # done (any key), or given up (a long PAUSE)
            elif ev == btn.event(btn.PRESS, btn.MODE):
                self.calibrating.go()
        elif self.match.clock.state == 0:  # before the game: the menu, or the start
            if ev == btn.event(btn.CHORD, btn.PLUS | btn.MINUS):
                from firmware.ui.calibrate import Calibrating

                self.calibrating = Calibrating(self.scanner.n)
            elif ev == btn.event(btn.LONG, btn.MODE):
                from firmware.ui.menus import Menu

                self.menu = Menu(self.match.settings)
            elif ev == btn.event(btn.PRESS, btn.PAUSE):
                self.match.start(now)

    def choose(self, settings):
        """The players chose a game in the menu: a new match with it; the settings kept."""
        from firmware.match import Match

        merged = dict(self.match.settings)  # what the menu does not show (the PIN) stays
        merged.update(settings)
        self.match = Match(merged, self.match.sensing, self.journal)
        if self.save is not None:
            self.save(merged)

    def act(self, action, now):
        """Carry out an arbiter action (firmware/ui/arbiter.py) and journal it."""
        from firmware.match import END_ARBITER
        from firmware.ui import arbiter as arb

        m = self.match
        clock = m.clock
        kind = action[0]
        if kind == arb.PAUSE or kind == arb.SEAL:  # 封棋 stops the clocks like a pause
            clock.pause(now)
        elif kind == arb.RESUME:
            clock.resume(now)
        elif kind == arb.ADJUST:
            side, delta = action[1], action[2]
            main = clock.main[side] + delta
            clock.adjust(side, main_ms=main if main > 0 else 0)
        elif kind == arb.UNDO:
            m.referee.undo()
        elif kind == arb.WARNING:
            m.warn(action[1])
        elif kind == arb.RESULT:
            w = action[1]
            m._end(("Draw", "B+", "W+", "Void")[w], w if w in (1, 2) else 0, END_ARBITER)
        elif kind == arb.TIMEOUT_PASS:
            if clock.timeout_to_pass(now) == 0:
                m.game.play(3 - clock.running, None, None)
                m.referee.sync()
        elif kind == arb.LATE:
            clock.arrive(action[1], now, factor=m.settings.get("late_factor", 1))
        else:
            return  # entering, leaving, PIN refusals: nothing to carry out or keep
        if self.journal is not None:
            self.journal.edit(kind, m.game.ply + 1, now, action[1:])
            self.journal.clocks(m.game.ply + 1, m.clocks())

    @micropython.native
    def _tick(self, now):
        gap = ticks.diff(now, self.last_tick)
        if self.steps > 1 and gap > self.longest_gap:
            self.longest_gap = gap
        self.last_tick = now
        self.match.tick(now)

    @micropython.native
    def _show(self, now):
        clock = self.match.clock
        if self.faces is not None and (self.menu is not None or self.calibrating is not None):
            line = (self.menu or self.calibrating).text()
            self.faces[0].show_text(line)
            self.faces[1].show_text(line)
        elif self.faces is not None:
            face = self.face
            clock.face(1, now, face)  # two calls, not a loop: a for loop allocates its iterator
            self.faces[0].show(face)
            clock.face(2, now, face)
            self.faces[1].show(face)
        if self.buzzer is not None:
            if clock.version != self.cue_version:
                self.cue_version = clock.version
                self.cue = clock.next_cue(now)
                self.cue_at = clock.cue_tick
            if self.cue and ticks.diff(now, self.cue_at) >= 0:
                self.buzzer.play(cues.pattern(self.cue), now)
                self.cue = clock.next_cue(self.cue_at)
                self.cue_at = clock.cue_tick
            self.buzzer.step(now)

    # ---- the board's loop -------------------------------------------------------------------

    def guarded_step(self, now):
        """``step``, with any exception logged and survived (the clock must go on)."""
        self.guard(self.step, now)

    async def run(self, scan_ms=50, clock_ms=20, ui_ms=100):
        """The board's tasks, for ever: the clock (paddles, keys, ticks) every ``clock_ms``,
        the scan (sensing, referee) as frames come (the DMA scanner's ``scan_async``) or every
        ``scan_ms``, the faces and the buzzer every ``ui_ms``. A task that raises is logged
        and goes on (``guard``): nothing may stop the clock."""
        import asyncio

        await asyncio.gather(
            self._every(clock_ms, self._clock_task),
            self._scan_loop(scan_ms),
            self._every(ui_ms, self._show),
        )

    def _clock_task(self, now):
        self.presses(now)
        self.buttons_step(now)
        self._tick(now)

    async def _every(self, ms, job):
        import asyncio

        sleep_ms = getattr(asyncio, "sleep_ms", None)
        while True:
            self.guard(job, self.now())
            if sleep_ms is not None:
                await sleep_ms(ms)
            else:
                await asyncio.sleep(ms / 1000)

    async def _scan_loop(self, ms):
        import asyncio

        scan_async = getattr(self.scanner, "scan_async", None)
        while True:
            try:
                if scan_async is not None:
                    await scan_async(self.frame)  # the DMA fills it; other tasks run
                else:
                    self.scanner.scan(self.frame)
                    await asyncio.sleep(ms / 1000)
                self.take_frame(self.now())
            except Exception as e:
                self.fault("scan", e)
                await asyncio.sleep(ms / 1000)

    def guard(self, job, now):
        """``job(now)``, with any exception logged and survived."""
        try:
            job(now)
        except Exception as e:
            self.fault(getattr(job, "__name__", "task"), e)

    def fault(self, where, e):
        """Log an exception from a task and save the game before anything else."""
        self.errors.append((where, repr(e)))
        if len(self.errors) > 20:
            self.errors.pop(0)
        if self.journal is not None:
            try:
                self.journal.settle()  # every record is already durable: finish any packing
            except Exception as e2:
                self.errors.append(("journal", repr(e2)))
