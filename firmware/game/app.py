"""The device app: the board's tasks around one ``Match`` (firmware/game/match.py).

Start reading at ``App.step``: one pass of everything the board does — paddle presses
stamped by their IRQ, a scan through sensing and the referee, the clock's tick, the faces and
the buzzer. ``run`` repeats it as asyncio tasks on the board; tests and the virtual board in
simulated time (firmware/virtual.py) call ``step`` with their own times, so the same code is
exercised to the millisecond.

Nothing in the paddle path allocates: the IRQ handler writes a preallocated ring (``Paddles``).
A task that raises is caught and logged, the game is saved (journal), and the task starts
again: one bad frame or a display fault never stops the clock. A scan that stalls (the DMA
chain broken: hal/rp2040.py's ``ScanGuard`` goes on with the polled scan) is logged with its
count and said once on both faces, "SCAN" with the fault's sound (``scan_health``).

The game's whole life is at the keys (``key``; README "Playing at the board"):

- before a game: PAUSE starts Black's clock; refused while stones the new game does not have
  are on the board (or stones it has are missing: handicap stones), and then the faces name
  the points to clear one at a time with how many are left, ``CLR. 23  D4``, as the stones
  come off, until the board is ready (``OK``; ``clearing``); a long MODE opens the settings
  menu; PLUS+MINUS calibrates;
  the PC's ``selftest`` (link) runs the sensor self-test (``selftest``), refused in a game;
- after a power cut the game comes back paused, its running turn from the clock's checkpoint
  (firmware/clock/checkpoint.py): the face of the player who was to play says how long the
  board was off ("3:12  OFF") by turns with its clock, until PAUSE lets the game go on;
- during play: PLUS+MINUS asks to resign for the side whose clock runs ("RESIGN ?" on its
  face; + or − changes the side, MODE confirms, PAUSE or 10 s cancel); MODE is Gomoku's claim
  key (or the swap after Black 3: 三手可交换); PAUSE resumes a game paused by a power cut;
- Go's end: after two passes the players lift the dead stones ("DEAD" and how many), MODE
  counts, the count stays on the faces ("B+3.5" and "B 1.75", i.e. 黑胜1¾子) until each player
  confirms it with their paddle; PAUSE disputes it and play goes on (以实战解决);
- after a result: it stays on the faces until PAUSE makes the next game with the same
  settings (or a long MODE opens the menu for another).
- whenever the PC asks for the board's key (``PAIR ?`` on both faces, link ``pair``): MODE
  within 30 s confirms it (``Server.press``), before anything else the key would do.

A side played from the PC (the ``remote`` setting: an engine, an opponent elsewhere; link
``move``): its move stays on the other player's face (``W E5``: the colour, the point) until
that stone is down with its captures lifted; the board then commits it as a press would.

Everything the referee notices (``Referee.log``) is said on the faces — a word in the big
cells and its point in the small ones (``firmware/ui/say.py``), on the face of the player
concerned, for ``NOTICE_MS`` — with the buzzer's refuse pattern for a fault.
"""

from array import array

import micropython
from micropython import const

from firmware.clock import cues, ticks
from firmware.ui import buzzer, say
from firmware.ui import texts as T

_RING = const(8)  # paddle presses waiting for the clock task: plenty at human speed
NOTICE_MS = const(3000)  # how long a face shows what the referee said, then the clock again
RESIGN_MS = const(10000)  # an unanswered resignation question lapses
_CLICK = const(0)  # the sounds of ``App.beep``: a key click, a fault, something done
_FAULT = const(1)
_DONE = const(2)
_ALTERNATE_MS = const(2000)  # the count's two forms take turns on the faces
SCAN_SAY_MS = const(600000)  # a scan that stalls again is said on the faces at most this often
TEST_SHOW_MS = const(8000)  # the self-test's result on the faces (each of its forms twice)


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
    ``journal``; ``now`` reads the tick (``firmware.clock.ticks.now_ms`` on the board);
    ``speaker`` (``play(voice, cue, now)`` True if it speaks the cue, ``step(now)``,
    ``stop()``, ``set_volume(v)``: the virtual HAL's ``Speaker``) speaks the count's cues in
    the ``voice`` setting's language (``voice_setup``) instead of beeping them."""

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
        settings=None,
        board_id="",
        speaker=None,
    ):
        from firmware.clock.clock import Face

        self.scanner = scanner
        self.match = match
        self.faces = faces
        self.buzzer = buzzer
        self.speaker = speaker
        self.voice = None  # the open voice file (firmware/ui/voice.py), None: the beeps
        self.voice_lang = None  # the setting it was opened for
        self.voice_dir = "/voice/"  # where zh.bin, en.bin are (board.py: under the flash root)
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
        self.testing = None  # its SelfTesting: the sensor self-test, kept for the link once done
        self.testing_until = 0  # its result is on the faces until then
        self.steps = 0
        self.last_tick = 0
        self.longest_gap = 0  # ms between clock ticks: the budget the tasks must keep
        # The board's timings (``timing``, the link's hello): the worst ms from a paddle's
        # press (its IRQ's stamp) to the clock taking it, presses; the worst ms between two
        # scanned frames, frames; the last frame's tick.
        self.timings = array("i", [0, 0, 0, 0, 0])
        self.face_ms = -1  # the tick when the faces were first drawn (the link's hello)
        # The board's settings (what the next game is made of); the match keeps its own copy.
        self.settings = settings if settings is not None else dict(match.settings)
        self.board_id = board_id
        self.server = None  # the PC link (board.py): the calendar time the PC set
        self.notes = [None, None, None]  # per side: [word, small, more] the face shows now
        self.note_until = array("i", [0, 0, 0])
        # What a notice is made of, made once: per side its [word, small, more] and the small
        # cells' text by length (an incident's point is written there, not built); the
        # faces' count of dead stones, by length; the texts of a count or a result.
        self._items = (None, [None, "", ""], [None, "", ""])
        self._smalls = (None, _texts(), _texts())
        self._small = bytearray(3)
        self._dead = _texts()
        self._offers_buf = bytearray(5)  # the fifth-move offers' count, "3/10", by length
        self._offers_texts = _texts() + (bytearray(4), bytearray(5))
        self._lift_word = bytearray((T.LIFT_DEAD + "  ").encode())  # and how many (``_lift``)
        self._lift_smalls = _texts()
        self._lift_small = b""
        self._texts_for = None
        self._texts = ()
        self.heard = 0  # referee incidents already said
        self.heard_log = match.referee.log
        self.over_said = False  # the result's sound was made
        self.resigning = 0  # the side asked "resign?", 0 if none
        self.resign_at = 0
        self.scan_stalls = 0  # the scanner's stalls already logged (``scan_health``)
        self.scan_said_at = None  # when the faces last said "SCAN"
        # Before a game, once PAUSE was refused: the faces name the next point to clear and
        # how many are left (``_clear_step``), until the board is ready. The texts are made
        # once and written in place: the word and its count, the point.
        self.clearing = False
        self._clr = bytearray((say.CLEAR_WORD + "   ").encode())
        self._put = bytearray((say.PUT_WORD + "   ").encode())
        self._clear_smalls = _texts()
        self._clear_line = self._clr
        self._clear_small = b""
        self._clear_more = say.CLEAR_MORE
        self._lift_at = -1  # ``_to_clear``'s first points (frame indices of the game's board)
        self._put_at = -1
        self._nput = 0
        self.checkpoint = None  # the running clock kept on flash (board.py sets it)
        self.off_side = 0  # after a power cut: the side whose face says how long (``off``)
        self._off_line = T.OFF
        self._off_small = T.QUESTION
        self.nclear = 0  # while clearing: how many are left, the point named (frame index of
        self.clear_at = -1  # the game's board, -1 outside its area): the link's watch

    # ---- one pass ---------------------------------------------------------------------------

    @micropython.native  # as bytecode its frame would be borrowed from the heap every pass
    def step(self, now):
        """Everything once, at tick ``now``: presses, keys, a scan, the clock, faces, buzzer."""
        self.steps += 1
        self.presses(now)
        self.buttons_step(now)
        self.scanner.scan(self.frame)
        self.scan_health(now)
        self.take_frame(now)
        self._tick(now)
        self.listen(now)
        self._show(now)
        if self.voice is not None:
            self.speaker.step(now)

    @micropython.native
    def take_frame(self, now):
        """The scanned frame to the calibration procedure while it runs, else to the game
        (and to the self-test while it takes frames)."""
        if self.calibrating is None:
            self.match.frame(self.frame, now)
            t = self.testing
            if t is not None and t.taking and t.frame(self.frame):
                self.tested(now)
        elif self.calibrating.frame(self.frame) and self.calibrating.result is not None:
            cal = self.calibrating.result
            self.match.sensing.load(cal)
            if self.save_calibration is not None:
                self.save_calibration(cal)

    @micropython.native
    def presses(self, now):
        """The paddle presses the IRQ stamped, oldest first."""
        m = self.match
        tm = self.timings
        side = self.paddles.take()
        while side:
            lag = ticks.diff(now, self.paddles.taken_at)  # press to commit
            if lag > tm[0]:
                tm[0] = lag
            tm[1] += 1
            if m.press(side, self.paddles.taken_at) == 4:  # match.CONFIRMED: the count agreed
                self.note(side, T.OK, "", "count confirmed", now, _DONE)
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
        """A button event (firmware/ui/buttons.py): the arbiter's chord and actions, the menu,
        the calibration, and the game's life (see the module's header)."""
        from firmware.ui import arbiter as arb
        from firmware.ui import buttons as btn

        a = self.arbiter
        s = self.server
        if s is not None and ev == btn.event(btn.PRESS, btn.MODE) and s.press(now):
            self.note(3, T.OK, "", "paired", now, _DONE)  # the PC asked: PAIR ? on the faces
            return
        if a is not None and a.state != arb.IDLE:
            action = a.handle(ev, now)
            if action is not None:
                self.act(action, now)
        elif ev == btn.ARBITER and a is not None:
            if a.begin(now) is not None:  # locked out after wrong PINs
                self.note(3, T.CLOSED, "", "arbiter locked: wait a minute", now, _FAULT)
        elif self.menu is not None:
            from firmware.ui import menus

            r = self.menu.handle(ev)
            if r == menus.DONE:
                self.choose(self.menu.result())
                self.menu = None
                self.beep(_DONE, now)
            elif r == menus.CANCEL:
                self.menu = None
        elif self.calibrating is not None:
            if self.calibrating.step == 3 or ev == btn.event(btn.LONG, btn.PAUSE):
                self.calibrating = None  # done (any key), or given up (a long PAUSE)
            elif ev == btn.event(btn.PRESS, btn.MODE):
                self.calibrating.go()
        else:
            self.play_key(ev, now)
        if a is not None:
            self.match.clock.arbiter = a.active  # the faces' ARB mark

    def play_key(self, ev, now):
        """The keys of the game's life, by where the game is (match.PHASES)."""
        from firmware.game import match as M
        from firmware.ui import buttons as btn

        m = self.match
        state = m.clock.state
        pause = ev == btn.event(btn.PRESS, btn.PAUSE)
        mode = ev == btn.event(btn.PRESS, btn.MODE)
        if self.resigning:
            self.resign_key(ev, now)
        elif m.phase == M.OVER or (state == 0 and m.phase == M.PLAY):
            if ev == btn.event(btn.LONG, btn.MODE):
                from firmware.ui.menus import Menu

                self.menu = Menu(self.settings)
                self.clearing = False  # the game may change: PAUSE asks again
                self._end_notes()
            elif pause and m.phase == M.OVER:
                self.next_game(now)
            elif pause:
                self.start(now)
            elif ev == btn.event(btn.CHORD, btn.PLUS | btn.MINUS) and m.phase == M.PLAY:
                from firmware.ui.calibrate import Calibrating

                self.calibrating = Calibrating(self.scanner.n)
                self.clearing = False
                self._end_notes()
        elif m.phase == M.DEAD or m.phase == M.COUNTED:
            if mode:
                if m.phase == M.COUNTED:  # lifted one more: count again
                    m.phase = M.DEAD
                m.count(now)
            elif pause:
                m.dispute(now)
        elif ev == btn.event(btn.CHORD, btn.PLUS | btn.MINUS):
            self.resigning = m.clock.running or m.game.to_move
            self.resign_at = now
        elif mode and state == 1:
            if not m.swap(now):  # the swap when it is the time for it, else a claim
                m.claim(now)
        elif pause and state == 2 and not (self.arbiter and self.arbiter.paused):
            m.clock.resume(now)  # a game paused by a power cut: the players go on
            m.snapshot()
            self.beep(_DONE, now)

    def resign_key(self, ev, now):
        """A key while "resign?" is asked: + or − the other side, MODE yes, PAUSE no."""
        from firmware.ui import buttons as btn

        k = btn.kind(ev)
        key = btn.keys(ev)
        if k != btn.PRESS:
            return
        if key == btn.MODE:
            side = self.resigning
            self.resigning = 0
            self.match.resign(side, now)
        elif key == btn.PLUS or key == btn.MINUS:
            self.resigning = 3 - self.resigning
            self.resign_at = now
        elif key == btn.PAUSE:
            self.resigning = 0

    def start(self, now):
        """PAUSE before a game: Black's clock starts, unless stones the game does not have
        (the last game's) are still on the board. A settings change made since the match was
        made (the link, the menu) is taken now: it applies to the next game, this one."""
        from firmware.game.match import Match

        m = self.match
        if m.settings != self.settings:
            m = self.match = Match(self.settings, m.sensing, self.journal)
            m.referee.see(m.sensing.states, now)
        fixes = m.referee.fixes()
        outside = m.referee.outside  # a smaller game's: its first move would be refused (FIX)
        if fixes or outside:
            from firmware.referee import incidents as inc

            codes = [m.referee.code(i) for i, _ in fixes]
            m.referee.log.add(inc.NOT_CLEAR, 1, now, codes, outside)  # detail: outside
            self.clearing = True
            return False
        self.clearing = False
        m.start(now, self.board_id, self.calendar())
        self.names_used()
        return True

    def names_used(self):
        """The game just started took the players' names (``tengen game``, a hall's pairing):
        they were for it alone, so the board's settings drop them (saved: a power cut does
        not bring them back; the game keeps its own in its journal header). The next game has
        none until the PC sets them again: no name carries over to another game."""
        from firmware.game.match import NAME_KEYS

        s = self.settings
        if not any(s.get(k) for k in NAME_KEYS):
            return
        for k in NAME_KEYS:
            if k in s:
                s[k] = ""  # in place: the link holds the same dict
        if self.save is not None:
            self.save(s)

    def names_back(self, game):
        """A game voided before its first move (the link's ``start`` with other settings) did
        not use its names (``game``: its settings): they go back to the board's settings for
        the game made anew, unless the PC set other names since."""
        from firmware.game.match import NAME_KEYS

        s = self.settings
        if any(s.get(k) for k in NAME_KEYS) or not any(game.get(k) for k in NAME_KEYS):
            return
        for k in NAME_KEYS:
            s[k] = game.get(k, "")
        if self.save is not None:
            self.save(s)

    def next_game(self, now):
        """After a result: a new game with the board's settings, ready to start."""
        from firmware.game.match import Match

        old = self.match
        self.match = Match(self.settings, old.sensing, self.journal)
        self.match.referee.see(old.sensing.states, now)
        if self.arbiter is not None:
            self.arbiter.paused = False

    def calendar(self):
        """Calendar seconds the PC set (the link's ``time``), 0 if never set."""
        srv = self.server
        t = srv.calendar() if srv is not None else None
        return t or 0

    def settings_changed(self):
        """The link saved new settings: the volume and the PIN at once; the game waits for
        the next one (``start``), a game in progress is never altered. A game not yet begun
        (PAUSE not pressed) is made anew with them at once, so the faces show the game that
        PAUSE will start (its time) and the clearing is the new game's, as after the menu."""
        from firmware.game.match import PLAY

        m = self.match
        if m.phase == PLAY and m.clock.state == 0 and m.settings != self.settings:
            self.next_game(self.now())  # 0: the clock's NOT_STARTED
        if self.buzzer is not None and hasattr(self.buzzer, "set_volume"):
            self.buzzer.set_volume(self.settings.get("volume", 2))
        self.voice_setup()
        if self.arbiter is not None and "pin" in self.settings:
            self.arbiter.set_pin(self.settings["pin"])

    def voice_setup(self):
        """The ``voice`` and ``volume`` settings onto the speaker: the language's file
        (``voice_dir`` + "zh.bin") opened once, here, not per cue. Off, no speaker, or a file
        that cannot be used (missing, torn: a note in the boot log says why): the beeps."""
        sp = self.speaker
        if sp is None:
            return
        sp.set_volume(self.settings.get("volume", 2))
        lang = self.settings.get("voice", "off")
        if lang == self.voice_lang:
            return
        self.voice_lang = lang
        if self.voice is not None:
            sp.stop()
            self.voice.close()
            self.voice = None
        if lang != "off":
            from firmware.ui import voice

            self.voice, why = voice.load(self.voice_dir + lang + ".bin")
            if why:  # a note, not an error: the board works, it beeps the count
                from firmware.boot import bootlog

                bootlog.note("voice: " + why + ": the count is beeped")

    def selftest(self, now):
        """Start the sensor self-test (firmware/ui/calibrate.py's ``SelfTesting``: the next
        scans of the board at rest, judged by firmware/sensing/selftest.py), unless one runs.
        None when it runs, else why not: ``(code, words)`` (a game in progress, the
        calibration). The last result is dropped: a new one takes its place."""
        from firmware.game import match as M

        t = self.testing
        if t is not None and t.taking:
            return None
        if self.calibrating is not None:
            return ("busy", "the board is being calibrated")
        m = self.match
        if m.phase != M.OVER and (m.phase != M.PLAY or m.clock.state != 0):
            return ("in_progress", "a game is being played: test the sensors before or after it")
        from firmware.ui.calibrate import SelfTesting

        self.testing = None  # the last result's memory first
        self.testing = SelfTesting(self.scanner.n)
        return None

    def tested(self, now):
        """The self-test took its frames: judge them; the faulty points read UNCERTAIN in play
        (until the next boot or calibration: ``selftest.mark``), unless a game began meanwhile;
        the result on the faces for ``TEST_SHOW_MS``, with its sound."""
        from firmware.game import match as M
        from firmware.sensing.selftest import mark

        t = self.testing
        m = self.match
        t.finish(m.sensing)
        if t.found and (m.phase == M.OVER or (m.phase == M.PLAY and m.clock.state == 0)):
            mark(m.sensing, t.found)
        self.testing_until = ticks.add(now, TEST_SHOW_MS)
        self.beep(_FAULT if t.found or t.error else _DONE, now)

    def problem(self, where, messages):
        """Something the board fixed by itself at boot (settings reset to defaults, no
        calibration): on both faces for a while, and kept for the PC (``errors``)."""
        for msg in messages:
            self.errors.append((where, msg))
        word = T.RESET if where == "settings" else T.NO_CAL
        small = T.SETTINGS if where == "settings" else ""
        self.note(3, word, small, messages[0], self.now(), _FAULT)
        self.note_until[1] = self.note_until[2] = ticks.add(self.now(), 2 * NOTICE_MS)

    def choose(self, settings):
        """The players chose a game in the menu: a new match with it; the board's settings
        take it (and keep what the menu does not show: the PIN)."""
        from firmware.game.match import Match

        merged = dict(self.settings)
        merged.update(settings)
        self.settings.clear()  # in place: the link holds the same dict
        self.settings.update(merged)
        old = self.match
        self.match = Match(merged, old.sensing, self.journal)
        self.match.referee.see(old.sensing.states, 0)
        if self.save is not None:
            self.save(merged)
        self.settings_changed()

    def act(self, action, now):
        """Carry out an arbiter action (firmware/ui/arbiter.py) and journal it."""
        from firmware.game.match import END_ARBITER
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
            # Entering, leaving, PIN refusals: nothing to carry out or keep, but said.
            if kind == arb.REFUSED or kind == arb.LOCKOUT:
                self.note(3, T.NO_PIN if kind == arb.REFUSED else T.CLOSED, "", "", now, _FAULT)
            elif kind == arb.ENTER:
                self.beep(_DONE, now)
            return
        word = T.ARB_DONE[kind] if kind < len(T.ARB_DONE) and T.ARB_DONE[kind] else T.DONE
        self.note(3, word, "", arb.ACTION_NAMES[kind], now, _DONE)
        if self.journal is not None:
            self.journal.edit(kind, m.game.ply + 1, now, action[1:])
            self.journal.clocks(m.game.ply + 1, m.clocks_now())

    @micropython.native
    def _tick(self, now):
        gap = ticks.diff(now, self.last_tick)
        if self.steps > 1 and gap > self.longest_gap:
            self.longest_gap = gap
        self.last_tick = now
        m = self.match
        m.tick(now)
        ck = self.checkpoint
        if ck is not None and self.journal is not None:
            ck.step(self.journal.game_no, m.game.ply + 1, m.clock, now)

    def off(self, side, secs):
        """After a power cut (checkpoint.py ``power_back``): ``side``'s face says how long
        the board was off, ``secs`` (-1 unknown; from 10 hours on the face has no room: said
        as unknown, the record has it), by turns with its clock until the game goes on."""
        self.off_side = side
        if 0 <= secs < 36000:
            from firmware.clock.clock import format_time

            buf = bytearray(12)
            self._off_line = buf[: format_time(secs * 1000, buf)]
            self._off_small = T.OFF

    # ---- what the board says ------------------------------------------------------------------

    @micropython.native
    def listen(self, now):
        """Say the referee's new incidents (and the game's end) on the faces and the buzzer."""
        log = self.match.referee.log
        if log is not self.heard_log:  # a new game: a new log
            self.heard_log = log
            self.heard = 0
            self.over_said = False
            self.resigning = 0
        if log.total != self.heard:
            self._say(log, now)
        if self.match.phase == 3 and not self.over_said:  # match.OVER
            self.over_said = True
            self._say_over(now)

    @micropython.native
    def _say(self, log, now):
        # The incidents logged since the last look, each on a face (a move and the count
        # excepted: the faces show them already).
        j = log.first_new(self.heard)
        self.heard = log.total
        while j < log.size:
            kind = log.kind(j)
            if kind == 25:  # NOT_CLEAR: the faces name the points to clear (``clearing``)
                self.beep(_FAULT, now)
            elif kind != 1 and kind != 17 and kind != 28:  # REMOTE_DEAD: the DEAD face says it
                self._say_one(log, j, kind, now)
            j += 1

    @micropython.native
    def _say_one(self, log, j, kind, now):
        m = self.match
        gomoku = not m.referee.go
        detail = log.detail(j)
        npoints = log.npoints(j)
        first = log.point(j, 0) if npoints else 0
        k = say.small_into(self._small, kind, npoints, first, gomoku, detail)
        whose = say.face_of(kind)
        mover = m.game.to_move
        side = 3 if whose == say.BOTH else mover if whose == say.MOVER else 3 - mover
        word = say.word(kind, detail, gomoku)
        more = say.more(kind, detail, gomoku)
        if kind == 12 or kind == 2:  # RESTORED, PASS: a short word, the clock soon back
            until = ticks.add(now, NOTICE_MS // 2)
            sound = _CLICK
        else:
            until = ticks.add(now, NOTICE_MS)
            # A fault (an OFFERS refusal by its detail), the remote side's move (REMOTE, 26)
            sound = _FAULT if say.is_fault(kind, detail) else _DONE if kind == 26 else _CLICK
        if side & 1:
            self._set_note(1, word, self._own(self._smalls[1], k), more, until)
        if side & 2:
            self._set_note(2, word, self._own(self._smalls[2], k), more, until)
        self.beep(sound, now)

    @micropython.native
    def _own(self, texts, k):
        # ``_small``'s text of length k copied into ``texts[k]`` (one of ``_texts()``: a
        # buffer of each length, so a face keeps its text while ``_small`` is reused).
        own = texts[k]
        src = self._small
        i = 0
        while i < k:
            own[i] = src[i]
            i += 1
        return own

    def _say_over(self, now):
        # The result replaces whatever the faces were saying. A flag fall is the long tone
        # (SPEC §3), any other end the confirming pattern.
        self.notes[1] = self.notes[2] = None
        self.resigning = 0
        if self.buzzer is not None:
            clock = self.match.clock
            timeout = clock.flagged and self.match.result.endswith("+T")
            if timeout and self.voice is not None:
                # Spoken, not the long tone: "10，超时判负" at the counting's end (the clock
                # flags before its cue is played), "超时判负" without counting.
                k = clock.kind  # control.CHINESE 2, JAPANESE 3
                cue = cues.TIMEOUT << 8 | 10 if k == 2 or k == 3 else cues.FLAG << 8
                if self.speaker.play(self.voice, cue, now):
                    return
            self.buzzer.play(cues.pattern(cues.FLAG << 8) if timeout else _sound(_DONE), now)

    @micropython.native
    def note(self, side, word, small, more, now, sound=_CLICK, ms=NOTICE_MS):
        """Show ``word`` (and ``small``, ``more``) on ``side``'s face (3: both) for ``ms``,
        with a ``sound`` (``beep``)."""
        until = ticks.add(now, ms)
        if side & 1:
            self._set_note(1, word, small, more, until)
        if side & 2:
            self._set_note(2, word, small, more, until)
        self.beep(sound, now)

    def _end_notes(self):
        # A mode the player opened (the menu, the calibration) shows at once: what the board
        # said before (NO CAL at boot, asking for this very key) is over.
        self.notes[1] = self.notes[2] = None

    @micropython.native
    def _set_note(self, side, word, small, more, until):
        item = self._items[side]
        item[0] = word
        item[1] = small
        item[2] = more
        self.notes[side] = item
        self.note_until[side] = until

    @micropython.native
    def beep(self, sound, now):
        """_CLICK a key click, _FAULT the refuse pattern, _DONE the confirming one."""
        if self.buzzer is not None:
            self.buzzer.play(_sound(sound), now)

    @micropython.native
    def _show(self, now):
        clock = self.match.clock
        if self.clearing:
            self._clear_step(now)
        if self.faces is not None:
            self._face(0, 1, now)  # two calls, not a loop: a for loop allocates
            self._face(1, 2, now)
            if self.face_ms < 0:
                self.face_ms = now  # on the RP2040 the ms since power-up: the boot time
        if self.buzzer is not None:
            if clock.version != self.cue_version:
                self.cue_version = clock.version
                self.cue = clock.next_cue(now)
                self.cue_at = clock.cue_tick
            if self.cue and ticks.diff(now, self.cue_at) >= 0:
                v = self.voice  # the cue spoken if it can be (a voice: a speaker), else beeped
                if v is None or not self.speaker.play(v, self.cue, now):
                    self.buzzer.play(cues.pattern(self.cue), now)
                self.cue = clock.next_cue(self.cue_at)
                self.cue_at = clock.cue_tick
            self.buzzer.step(now)

    @micropython.native
    def _face(self, k, side, now):
        # One face, first what matters most: a notice (what the board just said), the menu,
        # the calibration or the arbiter's mode, a question, where the game is (the dead
        # stones, the count, the result), else its clock.
        f = self.faces[k]
        m = self.match
        flags = 8 if m.clock.arbiter else 0  # F_ARBITER: the mark stays on in the mode
        if self.notes[side] is not None:
            if ticks.diff(self.note_until[side], now) > 0:
                n = self.notes[side]
                f.show_text(n[0], n[1], flags, n[2])
                return
            self.notes[side] = None
        if self.menu is not None or self.calibrating is not None:
            t = (self.menu or self.calibrating).text()  # (big, small)
            f.show_text(t[0], t[1])
            return
        t = self.testing
        if t is not None and (t.taking or ticks.diff(self.testing_until, now) > 0):
            w = t.text(now)
            f.show_text(w[0], w[1], flags, w[2])
            return
        if self.arbiter is not None and self.arbiter.state != 0:  # PIN, the list, a field
            t = self.arbiter.text(now)  # (big, small)
            f.show_text(t[0], t[1], 8)
            return
        if self.resigning == side:
            if ticks.diff(now, self.resign_at) < RESIGN_MS:
                f.show_text(T.RESIGN, T.QUESTION, flags, "MODE: resign, PAUSE: no")
                return
            self.resigning = 0
        if m.phase != 0:
            self._phase_text(f, side, now, flags)
            return
        if m.clock.state == 1 and not m.referee.go and self._offers_text(f, side, now, flags):
            return
        if self.clearing:  # before a game: the next point to clear, how many are left
            f.show_text(self._clear_line, self._clear_small, flags, self._clear_more)
            return
        if m.expect >= 0 and side != m.remote:  # the remote's stone, until it is down
            t = m.expect_text
            f.show_text(t[0], t[1], flags, t[2])
            return
        if self.off_side:  # how long the power was off, by turns with the clock
            if m.clock.state != 2:  # PAUSED no more: the game goes on
                self.off_side = 0
            elif side == self.off_side and (ticks.diff(now, 0) // _ALTERNATE_MS) % 2 == 0:
                f.show_text(self._off_line, self._off_small, flags, "")
                return
        face = self.face
        m.clock.face(side, now, face)
        f.show(face)

    @micropython.native
    def _offers_text(self, f, side, now, flags):
        # Renju's fifth-move offers (五手N打): how many are down (of how many are due while
        # Black puts them down; still down while White chooses), steadily on the waiting
        # player's face and by turns with the clock on the mover's. False when not drawn.
        m = self.match
        down = m.referee.offers_down()
        if down < 0:
            return False
        if side == m.clock.running and (ticks.diff(now, 0) // _ALTERNATE_MS) % 2:
            return False  # the mover's own clock, every other turn
        buf = self._offers_buf
        if m.game.offered:
            k = say.digits_into(buf, down)
        else:
            k = say.offers_into(buf, down, m.game.offers)
        text = self._offers_texts[k]
        i = 0
        while i < k:
            text[i] = buf[i]
            i += 1
        if m.game.offered:
            f.show_text(say.CHOOSE_WORD, text, flags, say.CHOOSE_MORE)
        else:
            f.show_text(text, say.OFFERS_WORD, flags, say.OFFERS_MORE)
        return True

    @micropython.native
    def _phase_text(self, f, side, now, flags):
        m = self.match
        if m.phase == 1:  # DEAD: lift the dead stones, then MODE
            if side != m.remote and m.proposed is not None and self._lift(m):
                f.show_text(self._lift_word, self._lift_small, flags, "lift the engine's dead")
                return
            dead = self._own(self._dead, say.digits_into(self._small, m.referee.ndead()))
            f.show_text(T.DEAD, dead, flags, "lift the dead, then MODE")
            return
        t = self._phase_texts(m)
        if m.phase == 2:  # COUNTED: the count both ways, until both confirm
            first = (ticks.diff(now, 0) // _ALTERNATE_MS) % 2 == 0
            small = T.OK if m.confirmed & side else T.ASK
            if side == m.remote and m.differs and m.differs == m.counts:
                small = T.NO  # the engine's count differs
            f.show_text(t[0] if first else t[1], small, flags, t[2])
        else:  # OVER: the result until the next game
            f.show_text(t[0], t[1], flags, t[2])

    @micropython.native
    def _lift(self, m):
        # The engine's dead stones still on the board: "DEAD." and how many (two cells, 99 at
        # most: texts.LIFT_DEAD) in ``_lift_word``, the first's point in ``_lift_small``
        # (written in place); how many (0: all lifted).
        left = m.proposed_left()
        if not left:
            return 0
        say.count_into(self._lift_word, len(T.LIFT_DEAD), left, 2)
        k = say.point_into(self._small, m.referee.code(m.proposed_first), False)
        self._lift_small = self._own(self._lift_smalls, k)
        return left

    @micropython.native  # called on every pass: as bytecode its frame would be borrowed
    def _phase_texts(self, m):
        # The count's or the result's texts, made when it changes, not on every pass.
        key = m.counted if m.phase == 2 else m.result
        if key is not self._texts_for:
            self._texts_for = key
            if m.phase == 2:
                margin4 = m.counted[0]
                points, stones = say.margin_text(margin4)
                self._texts = (points, stones, say.stones_words(margin4))
            else:
                r = m.result
                self._texts = (say.result_word(r), say.result_small(r), say.result_more(r))
        return self._texts

    # ---- clearing the board for a game ------------------------------------------------------

    @micropython.native
    def _clear_step(self, now):
        # Before a game, once PAUSE was refused: the faces' texts for the next point to clear
        # and how many are left, from the referee's latest look, until the board is ready.
        # Stones to take off first (a stone of the wrong colour where the game has one too),
        # then stones outside a smaller game's area, then handicap stones to put down.
        m = self.match
        if m.phase != 0 or m.clock.state != 0:  # started (the link's start), or no longer
            self.clearing = False
            return
        ref = m.referee
        lift = self._to_clear(ref.expected, ref.seen)
        out = ref.outside
        gomoku = not ref.go
        self.nclear = lift + out + self._nput
        self.clear_at = self._lift_at if lift else -1 if out else self._put_at
        if lift or out:
            line = self._clr
            count_at = len(line) - 3
            say.count_into(line, count_at, lift + out)
            if lift:
                self._clear_small = self._clear_point(ref, self._lift_at, gomoku)
                self._clear_more = say.CLEAR_MORE
            else:
                self._clear_small = say.OUTSIDE
                self._clear_more = say.OUTSIDE_MORE
            self._clear_line = line
        elif self._nput:
            line = self._put
            say.count_into(line, len(line) - 3, self._nput)
            self._clear_small = self._clear_point(ref, self._put_at, gomoku)
            self._clear_more = say.PUT_MORE
            self._clear_line = line
        else:
            self.clearing = False
            self.note(3, say.CLEARED, "", say.CLEARED_MORE, now, _DONE)

    @micropython.native
    def _clear_point(self, ref, i, gomoku):
        # The name of frame index ``i`` for the small cells, in the clearing's own buffer.
        return self._own(self._clear_smalls, say.point_into(self._small, ref.code(i), gomoku))

    def clear_points(self):
        """While the faces name the points to clear (``clearing``), for the PC (builds lists):
        ``{"points": [...], "outside": n}``, the game's point codes in the faces' order (the
        stones to take off, then those to put down) and the stones outside a smaller game's
        area; None when the faces are not naming any."""
        if not self.clearing:
            return None
        from firmware.referee.referee import EMPTY

        ref = self.match.referee
        fixes = ref.fixes()
        off = [ref.code(i) for i, _ in fixes if ref.seen[i] != EMPTY]
        on = [ref.code(i) for i, _ in fixes if ref.seen[i] == EMPTY]
        return {"points": off + on, "outside": ref.outside}

    @micropython.native
    def _to_clear(self, e, s):
        # Where the board seen (s) differs from the new game's position (e), as ``fixes``
        # has it, counted without building anything: the stones to take off (returned; the
        # first in ``_lift_at``) and the empty points where the game has a stone (``_nput``,
        # the first in ``_put_at``).
        nlift = 0
        nput = 0
        lift_at = -1
        put_at = -1
        i = 0
        n2 = len(e)
        while i < n2:
            got = s[i]
            if got != e[i]:
                if got == 0:
                    if put_at < 0:
                        put_at = i
                    nput += 1
                else:
                    if lift_at < 0:
                        lift_at = i
                    nlift += 1
            i += 1
        self._lift_at = lift_at
        self._put_at = put_at
        self._nput = nput
        return nlift

    def to_clear(self):
        """What the board wants done before a game (or in one: the captured stones still on
        it, a disturbed board's way back), for the PC and the terminal view (builds lists):
        ``{grid index: mark}`` over the whole grid (``y * grid + x``), the mark ``"x"`` a
        stone to take off, ``"b"``/``"w"`` a stone of that colour to put down."""
        from firmware.referee.referee import EMPTY

        m = self.match
        ref = m.referee
        grid = ref.grid
        off = ref.margin
        n = ref.n
        marks = {}

        def at(i):
            return (i // n + off) * grid + i % n + off

        if m.phase == 0 and m.clock.state == 0 or ref.scattered:
            for i, want in ref.fixes():
                if ref.seen[i] != EMPTY:
                    marks[at(i)] = "x"
                else:
                    marks[at(i)] = ".bw"[want] if want in (1, 2) else "x"
            if ref.outside:
                states = m.sensing.states
                for y in range(grid):
                    for x in range(grid):
                        inside = off <= x < off + n and off <= y < off + n
                        if not inside and states[y * grid + x] in (1, 2):
                            marks[y * grid + x] = "x"
        elif m.phase == 0 and ref.go:
            for i in ref.captures_left():
                marks[at(i)] = "x"
        return marks

    # ---- the board's loop -------------------------------------------------------------------

    def guarded_step(self, now):
        """``step``, with any exception logged and survived (the clock must go on)."""
        self.guard(self.step, now)

    async def run(self, scan_ms=10, clock_ms=20, ui_ms=100):
        """The board's tasks, for ever: the clock (paddles, keys, ticks) every ``clock_ms``,
        the scan (sensing, referee) as frames come (the board's scanner's ``poll``) or every
        ``scan_ms`` (a scanner with ``scan`` alone: the simulated grid, at the polled scan's
        100 frames/s), the faces and the buzzer every ``ui_ms``. A task that raises is logged
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
        self.listen(now)
        if self.voice is not None:  # the phrase's next block, one pass at a time (20 ms)
            self.speaker.step(now)

    async def _every(self, ms, job):
        while True:
            self.guard(job, self.now())
            await ticks.sleep_ms(ms)

    async def _scan_loop(self, ms):
        # The board's scanner (hal/rp2040.py's ScanGuard) is polled: ``poll`` says how long
        # to sleep until the frame is there (no coroutine or task per frame: the loop
        # allocates nothing), and never waits for ever: a stalled DMA chain times out, the
        # frame comes from the polled scan, and the stall is counted for ``scan_health``. Each
        # frame goes to sensing and the referee at once, stamped with the tick it arrived at:
        # the debounce is by time (firmware/sensing/grid.py).
        poll = getattr(self.scanner, "poll", None)
        while True:
            try:
                if poll is None:
                    self.scanner.scan(self.frame)
                else:
                    wait = poll(self.frame)
                    if wait >= 0:  # not there yet (READY is -1)
                        await ticks.sleep_ms(wait)
                        continue
                now = self.now()
                self.scan_health(now)
                self.take_frame(now)
                if poll is None:
                    await ticks.sleep_ms(ms)
            except Exception as e:
                self.fault("scan", e)
                await ticks.sleep_ms(ms)

    def timing(self):
        """The board's timings since the last call (the link's ``hello``; each call starts
        them over): ``press_ms`` the worst from a paddle's press to the clock taking it
        (``presses`` of them), ``frame_gap_ms`` the worst between two scanned frames
        (``frames``), ``tick_gap_ms`` between two clock ticks, ``voice_late`` the speaker's
        passes that came after its ring had played the phrase's samples (the chip's)."""
        tm = self.timings
        out = {
            "press_ms": tm[0],
            "presses": tm[1],
            "frame_gap_ms": tm[2],
            "frames": tm[3],
            "tick_gap_ms": self.longest_gap,
            "voice_late": getattr(self.speaker, "late", 0),
        }
        tm[0] = tm[1] = tm[2] = 0
        tm[3] = 1 if tm[3] else 0  # the next gap is measured from the last frame
        self.longest_gap = 0
        if out["voice_late"]:
            self.speaker.late = 0
        return out

    @micropython.native
    def scan_health(self, now):
        """The scanner's new stalls (``ScanGuard.stalls``: its DMA chain stopped delivering
        and the polled scan took over): logged in ``errors`` with the count, and said on both
        faces ("SCAN", with the fault's sound) the first time and then at most every
        ``SCAN_SAY_MS``, never every frame. A frame just came: the worst gap between frames
        is kept (``timing``)."""
        tm = self.timings
        if tm[3]:  # from the second frame on
            gap = ticks.diff(now, tm[4])
            if gap > tm[2]:
                tm[2] = gap
        tm[3] += 1
        tm[4] = now
        stalls = getattr(self.scanner, "stalls", 0)
        if stalls != self.scan_stalls:
            self.scan_stalls = stalls
            self._scan_stalled(stalls, now)

    def _scan_stalled(self, stalls, now):
        s = self.scanner
        msg = "DMA scan stalled (%d time%s: %s): polled scan, DMA retried" % (
            stalls,
            "" if stalls == 1 else "s",
            getattr(s, "error", "") or "no frame",
        )
        errors = self.errors
        if errors and errors[-1][1].startswith("DMA scan stalled"):
            errors[-1] = ("scan", msg)  # the same fault again: its count goes up
        else:
            errors.append(("scan", msg))
            if len(errors) > 20:
                errors.pop(0)
        said = self.scan_said_at
        if said is None or ticks.diff(now, said) >= SCAN_SAY_MS:
            self.scan_said_at = now
            self.note(3, T.SCAN, "", "scan stalled: polled scan", now, _FAULT)

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


def _sound(k):
    return buzzer.REFUSE if k == _FAULT else buzzer.CONFIRM if k == _DONE else buzzer.KEY


def _texts():
    # Texts of length 0 … 3 for the small cells, written in place.
    return (b"", bytearray(1), bytearray(2), bytearray(3))
