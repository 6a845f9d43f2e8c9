"""The device app's pass (firmware/game/app.py) on the simulated grid, with fake faces and buzzer.

Times are the test's: ``App.step(now)`` is what the board's task runs every scan.
"""

from firmware.clock import cues
from firmware.clock.clock import BLACK, WHITE
from firmware.game.app import App, Paddles
from firmware.game.match import Match
from firmware.sensing.grid import Sensing
from tests.support import locked
from tests.test_physical_replay import N, calibrated


class Faces:
    def __init__(self):
        self.last = b""
        self.shows = 0

    def show(self, face):
        self.shows += 1
        if self.shows % 16 == 1 or face.length != len(self.last):  # a sample is enough
            self.last = bytes(face.text[: face.length])


class Buzzer:
    def __init__(self):
        self.played = []

    def play(self, pattern, now):
        self.played.append((now, pattern))

    def step(self, now):
        pass


def _app(time="cn-local"):
    grid, frame, cal = calibrated(9)
    match = Match({"game": "go19", "time": time}, Sensing(N, cal))
    faces = (Faces(), Faces())
    app = App(grid, match, faces=faces, buzzer=Buzzer(), now=lambda: 0)
    return grid, app


def test_paddle_presses_go_through_the_ring():
    p = Paddles()
    assert p.take() == 0
    for k in range(7):
        p.hit(BLACK if k % 2 == 0 else WHITE, 100 + k)
    p.hit(BLACK, 200)  # the ring holds 7: this one is lost, and counted
    assert p.lost == 1
    got = []
    side = p.take()
    while side:
        got.append((side, p.taken_at))
        side = p.take()
    assert got == [(BLACK if k % 2 == 0 else WHITE, 100 + k) for k in range(7)]
    assert locked(lambda: p.hit(WHITE, 5)) is None  # the IRQ path allocates nothing


def test_moves_faces_and_the_counting_cues():
    grid, app = _app("cn-local")  # 1 hour; the last minute counted
    now = 0
    for _ in range(5):
        now += 50
        app.step(now)
    app.match.start(now)
    start = now
    grid.put(3, 3, BLACK)
    for _ in range(5):
        now += 50
        app.step(now)
    app.paddles.hit(BLACK, now + 7)
    now += 50
    app.step(now)
    assert app.match.game.ply == 1 and app.match.clock.running == WHITE
    app.faces[0].last = b""
    app.faces[0].shows = 0
    app.step(now)
    assert app.faces[0].last == b"59:00"  # 59 min of main time less 0.257 s, rounded up
    # White thinks past its 59 minutes of main time into the counted minute.
    t = start + 257 + 59 * 60000
    while now < t + 31000:
        now += 500
        app.step(now)
    played = [(at, p) for at, p in app.buzzer.played]
    assert played and played[0][1] == cues.pattern(cues.MARK << 8 | 30)
    assert played[0][0] - (start + 257 + 59 * 60000 + 30000) < 500  # within one step
    assert app.longest_gap == 500


def test_the_boards_timings_press_to_commit_and_frame_gaps_since_last_asked():
    # What hello reports (App.timing): the worst press-to-commit (the IRQ's stamp to the
    # clock pass that takes it) and the worst gap between frames, then they start over.
    grid, app = _app("cn-local")
    now = 0
    for _ in range(3):
        now += 50
        app.step(now)
    app.match.start(now)
    grid.put(3, 3, BLACK)
    for _ in range(5):
        now += 50
        app.step(now)
    app.paddles.hit(BLACK, now + 7)  # taken 43 ms later, at the next pass
    now += 50
    app.step(now)
    now += 120  # a pass held up: the frames 120 ms apart
    app.step(now)
    t = app.timing()
    assert t["press_ms"] == 43 and t["presses"] == 1, t
    assert t["frame_gap_ms"] == 120 and t["frames"] == 10 and t["tick_gap_ms"] == 120, t
    assert t["voice_late"] == 0
    now += 50
    app.step(now)
    t = app.timing()  # since the last call: one gap of 50 ms, no press
    assert (t["press_ms"], t["presses"], t["frame_gap_ms"], t["frames"]) == (0, 0, 50, 2), t
    assert locked(lambda: app.presses(now)) is None  # the counting allocates nothing


def test_a_failing_step_is_logged_and_survived():
    grid, app = _app()

    class Broken:
        n = N

        def scan(self, frame):
            raise OSError("ADC gone")

    good = app.scanner
    app.scanner = Broken()
    app.guarded_step(50)
    assert app.errors and app.errors[-1][0] == "step"
    app.scanner = good
    app.guarded_step(100)
    assert len(app.errors) == 1


def _keyed_app():
    from firmware.ui.arbiter import Arbiter

    grid, frame, cal = calibrated(9)
    match = Match({"game": "go", "size": 19, "time": "fischer-30-30"}, Sensing(N, cal))
    levels = [0]
    app = App(grid, match, keys=lambda: levels[0], arbiter=Arbiter("1234"))
    return app, levels


def _hold(app, levels, bits, now, ms):
    levels[0] = bits
    end = now + ms
    while now < end:
        now += 10
        app.step(now)
    return now


def test_the_pause_key_starts_the_game_and_the_chord_asks_for_the_pin():
    from firmware.ui import arbiter as arb
    from firmware.ui import buttons as btn

    app, levels = _keyed_app()
    now = _hold(app, levels, 0, 0, 100)
    now = _hold(app, levels, btn.PAUSE, now, 60)
    now = _hold(app, levels, 0, now, 60)  # released: a PRESS of PAUSE
    assert app.match.clock.state == 1 and app.match.clock.running == BLACK
    now = _hold(app, levels, btn.PAUSE | btn.MODE, now, 100)  # the arbiter's chord
    now = _hold(app, levels, 0, now, 60)
    assert app.arbiter.state == arb.PIN


def test_arbiter_actions_are_carried_out():
    from firmware.ui import arbiter as arb

    app, levels = _keyed_app()
    m = app.match
    m.start(0)
    app.act((arb.PAUSE,), 5000)
    assert m.clock.state == 2  # paused
    app.act((arb.ADJUST, WHITE, 60000), 5000)
    assert m.clock.main[WHITE] == 30 * 60000 + 60000
    app.act((arb.RESUME,), 9000)
    assert m.clock.state == 1 and m.clock.elapsed(10000) == 6000  # 5 s + 1 s after resume
    app.act((arb.RESULT, arb.WHITE), 10000)
    assert m.result == "W+" and m.clock.state == 4


def test_the_menu_before_the_game_chooses_it():
    from firmware.ui import buttons as btn

    app, levels = _keyed_app()
    saved = []
    app.save = saved.append
    now = _hold(app, levels, 0, 0, 50)
    now = _hold(app, levels, btn.MODE, now, 900)  # a long MODE opens the menu
    now = _hold(app, levels, 0, now, 60)
    assert app.menu is not None and app.menu.text() == ("GO", "19")
    for _ in range(3):  # + three times: GO 13, GO 9, RENJU
        now = _hold(app, levels, btn.PLUS, now, 40)
        now = _hold(app, levels, 0, now, 40)
    assert app.menu.text() == ("RENJU", "15")
    now = _hold(app, levels, btn.MODE, now, 900)  # a long MODE: done
    now = _hold(app, levels, 0, now, 60)
    assert app.menu is None
    assert app.match.settings["game"] == "renju" and app.match.game.board.size == 15
    assert saved and saved[-1]["game"] == "renju"


def test_warnings_cost_a_stone_and_two_lose():
    from firmware.ui import arbiter as arb

    app, levels = _keyed_app()
    m = app.match
    m.start(0)
    app.act((arb.WARNING, WHITE), 100)
    assert m.warnings[WHITE] == 1 and not m.result
    app.act((arb.WARNING, WHITE), 200)
    assert m.result == "B+F"


def test_the_tasks_run_the_board_in_real_time():
    import asyncio

    from firmware.clock import ticks

    grid, frame, cal = calibrated(9)
    match = Match({"game": "go19", "time": "fischer-30-30"}, Sensing(N, cal))
    app = App(grid, match, now=ticks.now_ms)

    async def until(done, most_s=10.0):
        # Waits for what the tasks should bring about, however slow the machine (no timing
        # is asserted: only that it happens).
        waited = 0.0
        while not done() and waited < most_s:
            await asyncio.sleep(0.02)
            waited += 0.02

    async def scenario():
        task = asyncio.create_task(app.run(scan_ms=20, clock_ms=10, ui_ms=50))
        await until(lambda: match.sensing.frames >= 5)
        match.start(app.now())
        grid.put(3, 3, BLACK)
        await until(lambda: match.referee.seen[3 * N + 3] == BLACK)  # through the debounce
        app.paddles.hit(BLACK, app.now())
        await until(lambda: match.game.ply == 1)
        task.cancel()

    asyncio.run(scenario())
    assert match.game.ply == 1 and match.clock.running == WHITE
    assert not app.errors


def test_calibration_at_the_board():
    # PLUS+MINUS before a game starts the procedure; MODE takes each step's frames.
    from firmware.hal.virtual_grid import checkerboard
    from firmware.ui import buttons as btn

    app, levels = _keyed_app()
    grid = app.scanner
    saved = []
    app.save_calibration = saved.append
    now = _hold(app, levels, 0, 0, 50)
    now = _hold(app, levels, btn.PLUS | btn.MINUS, now, 100)
    now = _hold(app, levels, 0, now, 60)
    assert app.calibrating is not None and app.calibrating.text() == ("CLEAR", "")
    for phase in (None, 0, 1):
        if phase is not None:
            checkerboard(grid, phase)
        now = _hold(app, levels, btn.MODE, now, 40)
        now = _hold(app, levels, 0, now, 200)  # the step's frames are taken
    assert app.calibrating.text() == ("CAL OK", ""), app.calibrating.text()
    now = _hold(app, levels, 0, now, 500)  # the maker reads CAL OK: more frames meanwhile
    # Saved once (seen on the emulated chip: it was written again at every frame until a key,
    # a flash write per scan that starved the keys, so the key that ends it was missed).
    assert len(saved) == 1 and saved[0].size == N, len(saved)
    grid.clear()
    now = _hold(app, levels, btn.MODE, now, 40)
    now = _hold(app, levels, 0, now, 60)
    assert app.calibrating is None


def test_the_calibration_and_the_menu_show_at_once_over_the_boards_notice():
    # A fresh board says NO CAL on both faces for 6 s at power-up; the PLUS+MINUS it asks for
    # starts the procedure, whose first step shows at once, not after the notice (seen on the
    # emulated chip: the virtual board is calibrated, so it never shows NO CAL). The same for
    # the menu (a long MODE) over the notice.
    from tests.rig import Rig

    rig = Rig({"game": "go", "size": 19}, glass=True)
    problem = ["the board is not calibrated: PLUS+MINUS before a game"]
    rig.app.problem("calibration", problem)
    rig.run(100)
    assert (rig.seen("b"), rig.seen("w")) == ("NO CAL", "NO CAL")
    rig.key("plus+minus")
    assert (rig.seen("b"), rig.seen("w")) == ("CLEAR", "CLEAR")
    rig.key("pause", long=True)  # given up
    assert rig.app.calibrating is None
    rig.app.problem("calibration", problem)
    rig.run(100)
    assert rig.seen("b") == "NO CAL"
    rig.key("mode", long=True)
    assert rig.seen("b") == "GO  19", rig.seen("b")


def test_a_stalled_dma_scan_goes_on_polled_is_said_once_and_comes_back():
    # The board's scanner (hal/rp2040.py's ScanGuard over the DMA scan, on a fake chip whose
    # sensors are the simulated grid) under the app's real tasks: the DMA chain stops
    # delivering mid-game; the game still sees a stone put down (polled frames), the faces say
    # "SCAN" once with the fault's sound, the stall is logged with its count, and the DMA scan
    # takes over again when the chain delivers.
    import asyncio

    from firmware.clock import ticks
    from firmware.hal import rp2040 as hal
    from tests.rig import Buzzer as RigBuzzer
    from tests.rig import Face
    from tests.test_hal_rp2040 import FakeChip

    grid, frame, cal = calibrated(9)
    chip = FakeChip(grid.scan, async_irq=True)
    dma = hal.DmaScanner(N, timeout_ms=30, parts=chip)
    scanner = hal.ScanGuard(
        dma, lambda: hal.PolledScanner(N, sleep_us=lambda us: None, machine=chip.machine), 300
    )
    match = Match({"game": "go19", "time": "fischer-30-30"}, Sensing(N, cal))
    faces = (Face(), Face())
    buzzer = RigBuzzer()
    app = App(scanner, match, faces=faces, buzzer=buzzer, now=ticks.now_ms)

    async def until(done, most_s=10.0):
        waited = 0.0
        while not done() and waited < most_s:
            await asyncio.sleep(0.02)
            waited += 0.02
        assert done(), "waited %.1f s" % waited

    def said(face, word):
        return len([t for t in face.texts if t.startswith(word)])

    async def scenario():
        task = asyncio.create_task(app.run(scan_ms=20, clock_ms=10, ui_ms=20))
        await until(lambda: match.sensing.frames >= 5)
        assert scanner.path == "dma" and chip.fired >= 5 and not app.errors
        match.start(app.now())
        chip.deliver = False  # the DMA chain stalls
        grid.put(3, 3, BLACK)
        await until(lambda: match.referee.seen[3 * N + 3] == BLACK)  # seen all the same
        assert scanner.path == "polled" and scanner.stalls == 1
        await until(lambda: scanner.retries >= 3)  # restarts tried, still stalled
        assert said(faces[0], "SCAN") == 1 and said(faces[1], "SCAN") == 1
        assert buzzer.played.count("REFUSE") == 1
        assert [e[0] for e in app.errors] == ["scan"]
        assert app.errors[0][1].startswith("DMA scan stalled (1 time: scan: no frame IRQ)")
        # ... and the PC sees it in the link's hello (tengen boards prints it).
        import json

        from firmware.link.server import Server

        srv = Server(app, None, b"k" * 32, out=lambda b: None)
        hello = json.loads(srv.handle(b'{"v":1,"id":1,"cmd":"hello"}'))
        assert hello["faults"][0].startswith("scan: DMA scan stalled"), hello
        chip.deliver = True  # the chain delivers again: the DMA scan is back
        await until(lambda: scanner.path == "dma")
        fired = chip.fired
        grid.lift(3, 3)
        await until(lambda: match.referee.seen[3 * N + 3] == 0)
        assert chip.fired > fired and scanner.recoveries == 1 and scanner.stalls == 1
        assert said(faces[0], "SCAN") == 1 and len(app.errors) == 1
        task.cancel()

    asyncio.run(scenario())
    assert match.clock.running == BLACK  # the clock went on throughout


def test_a_scan_stall_again_counts_in_the_same_entry_and_is_not_said_every_time():
    from tests.rig import Face

    grid, app = _app()
    app.faces = (Face(), Face())

    class Stalling:
        n = N
        stalls = 0
        error = "scan: no frame IRQ"

        def scan(self, frame):
            grid.scan(frame)

    app.scanner = Stalling()
    app.step(100)
    assert app.errors == []
    app.scanner.stalls = 1
    app.step(200)
    app.step(300)
    assert app.errors == [
        ("scan", "DMA scan stalled (1 time: scan: no frame IRQ): polled scan, DMA retried")
    ]
    assert app.notes[1][0] == "SCAN" and len(app.buzzer.played) == 1
    app.scanner.stalls = 2  # it came back, then stalled again soon: counted, not said again
    app.step(5000)
    assert len(app.errors) == 1 and app.errors[0][1].startswith("DMA scan stalled (2 times")
    assert app.notes[1] is None and len(app.buzzer.played) == 1
    app.scanner.stalls = 3  # much later: said again
    app.step(5000 + 600000)
    assert app.notes[1][0] == "SCAN" and len(app.buzzer.played) == 2
