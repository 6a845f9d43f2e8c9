"""The board's wiring (firmware/boot/board.py) on a bench: power cuts, settings that cannot brick it.

A bench HAL gives ``board.build`` the simulated grid, recorded faces and buzzer, keys, paddles
and the link's output, with the flash as a folder (a LittleFS on MicroPython): the same wiring
as the device and the virtual board. A "power cut" is dropping the app mid-game and building
the board again on the same flash. Both runtimes.
"""

import json

from firmware.boot import board
from firmware.clock.clock import BLACK, PAUSED, RUNNING
from firmware.game.match import PLAY
from firmware.store.journal import read_file, write_atomic
from tests import rig as R
from tests.test_journal import fresh_root


class Bench:
    """A HAL for firmware/boot/board.py with everything recorded (see its header)."""

    def __init__(self, root, seed=9):
        self.root = root
        self.scanner, cal = R.grid_for(seed)
        write_atomic(root + board.CALIBRATION, json.dumps(cal.to_dict()).encode())
        self.faces = (R.Face(), R.Face())
        self.buzzer = R.Buzzer()
        self.levels = 0
        self.t = 0
        self.keys = lambda: self.levels
        self.now = lambda: self.t
        self.board_id = "bench"
        self.set_rtc = None
        self.sent = []
        self.link_out = self.sent.append
        self.hit = None

    def attach_paddles(self, hit):
        self.hit = hit


class Board(R.Rig):
    """``tests/rig.py``'s hands and eyes on a board built by ``board.build``."""

    def __init__(self, root, hw=None):
        self.hw = hw or Bench(root)
        self.app, self.server = board.build(self.hw)
        self.grid = self.hw.scanner
        self.faces = self.hw.faces
        self.buzzer = self.hw.buzzer
        self.heard_at = 0
        self.run(200)

    # The bench's time and keys are the rig's.
    now = property(lambda self: self.hw.t, lambda self, v: setattr(self.hw, "t", v))
    levels = property(lambda self: self.hw.levels, lambda self, v: setattr(self.hw, "levels", v))

    def ask(self, cmd, **fields):
        req = {"v": 1, "id": len(self.hw.sent) + 1, "cmd": cmd}
        req.update(fields)
        reply = self.server.handle(json.dumps(req).encode())
        return json.loads(reply)


def _root():
    return fresh_root(blocks=128)[: -len("/games")]


def test_a_power_cut_mid_game_resumes_paused_and_a_settings_change_waits():
    root = _root()
    write_atomic(root + board.SETTINGS, b'{"game": "go", "size": 9, "time": "quick"}')
    b = Board(root)
    assert b.match.game.board.size == 9
    b.key("pause")
    for v, c in (("E5", "b"), ("C3", "w"), ("G7", "b")):
        b.put(v, c)
        b.run(3000)
        b.press(c)
    clocks = b.match.clocks()
    assert b.match.game.ply == 3
    # Between the cut and the restart, the PC changes the board's settings.
    r = b.ask("settings", set={"game": "renju"})
    assert r["ok"], r
    assert b.match.game.board.size == 9  # the game in progress is not touched
    b.run(5000)
    # The power is cut: build the board again on the same flash.
    b2 = Board(root, Bench(root))
    m = b2.match
    assert m.game.board.size == 9 and m.game.ply == 3 and m.phase == PLAY
    assert m.clock.state == PAUSED and m.clocks() == clocks
    assert "PAUSE" in b2.seen("b")  # White's face says by turns how long the power was off
    assert b2.app.off_side == 2 and ("PAUSE" in b2.seen("w") or "OFF" in b2.seen("w"))
    # The stones are on the board (the grid is the same): the players resume with PAUSE.
    b2.key("pause")
    assert m.clock.state == RUNNING and m.clock.running == 2
    b2.put("C7", "w")
    b2.press("w")
    assert m.game.ply == 4 and b2.journal_moves() == 4
    # The next game is the new settings' (after this one ends).
    b2.key("plus+minus")
    b2.key("mode")
    assert m.result == "W+R"  # Black's clock ran: Black resigned
    b2.key("pause")
    assert b2.match.game.board.size == 15 and b2.match.settings["game"] == "renju"


def _journal_moves(self):
    from firmware.store import records as Rec

    j = self.app.journal
    return sum(1 for r in j.records(j.game_no) if r[0] == Rec.MOVE)


Board.journal_moves = _journal_moves


def test_invalid_settings_from_the_link_are_refused():
    root = _root()
    b = Board(root)
    before = read_file(root + board.SETTINGS)
    for change in ({"time": "45min"}, {"game": "chess"}, {"colour": "red"}, {"volume": 9}):
        r = b.ask("settings", set=change)
        assert not r["ok"] and r["error"] == "bad_value", r
        assert list(change)[0] in r["message"], r
    assert read_file(root + board.SETTINGS) == before
    assert b.ask("settings", set={"time": "quick", "volume": 0})["ok"]
    assert json.loads(read_file(root + board.SETTINGS))["time"] == "quick"


def test_a_damaged_or_invalid_settings_file_boots_to_defaults_and_says_so():
    from firmware.game import settings as S

    for data in (b"{not json", b'{"time": "45min", "game": "chess", "volume": 1}', b"\xff" * 3000):
        root = _root()
        write_atomic(root + board.SETTINGS, data)
        b = Board(root)
        assert b.match.settings["time"] == S.DEFAULTS["time"]
        assert b.match.settings["game"] == "go" and b.match.game.board.size == 19
        assert b.seen("b") == "RESET SET" == b.seen("w")
        assert "REFUSE" in b.heard()
        assert any(w == "settings" for w, _ in b.app.errors)
        b.run(7000)
        assert b.seen("b") == "2:55:00 #1"  # then the clock: 3 h, the last 5 min counted
        b.key("pause")
        assert b.match.clock.state == RUNNING and b.match.clock.running == BLACK


# ---- a boot that reports (firmware/boot/bootlog.py, firmware/boot/selfcheck.py) ---------------------------


def _misaligned_sensing():
    # Sensing.frames counting 1, 0, 1, 0 (on-chip.md's misaligned viper literal); the undo.
    from firmware.sensing.grid import Sensing

    real = Sensing._update

    def update(self, frame, now_ms):
        n = real(self, frame, now_ms)
        self.frames = self.frames & 0xFFFFE001
        return n

    Sensing._update = update
    return lambda: setattr(Sensing, "_update", real)


def _build_fails(root, hw=None):
    # board.build on a bench HAL, which must raise: (the exception, the HAL).
    hw = hw or Bench(root)
    try:
        board.build(hw)
    except Exception as e:
        return e, hw
    raise AssertionError("the board was built")


def _log(root):
    return (read_file(root + board.BOOT_LOG) or b"").decode()


def test_a_failing_selfcheck_stops_the_boot_says_so_and_the_next_hello_tells():
    from firmware.boot import selfcheck

    root = _root()
    undo = _misaligned_sensing()
    try:
        e, hw = _build_fails(root)
    finally:
        undo()
    assert isinstance(e, selfcheck.Failed) and e.tag == "SEN"
    assert hw.faces[0].text == "FAULT SEN" == hw.faces[1].text
    assert hw.sent == [] and hw.hit is None  # no app: no link, no paddles
    log = _log(root)
    assert log.startswith("error selfcheck: CHECK SEN Sensing.update: item 5 is 0, known 2\n")
    assert "  Traceback" in log
    # The next boot works (the image was fixed): its hello says why the last one stopped.
    b = Board(root)
    hello = b.ask("hello")
    assert hello["ok"] and hello["boot_error"] == (
        "selfcheck: CHECK SEN Sensing.update: item 5 is 0, known 2"
    )
    assert _log(root) == log + "ok\n"
    # And the one after it has nothing to report, and writes nothing.
    b = Board(root)
    assert b.ask("hello")["boot_error"] is None
    assert _log(root) == log + "ok\n"


def test_a_memory_error_while_building_is_logged_shown_and_reported():
    from firmware.store import journal

    def no_room(*args, **kw):
        raise MemoryError("memory allocation failed, allocating 5776 bytes")

    root = _root()
    real = journal.Journal
    journal.Journal = no_room
    try:
        e, hw = _build_fails(root)
    finally:
        journal.Journal = real
    assert isinstance(e, MemoryError)
    assert hw.faces[0].text == "HEAP ERR" == hw.faces[1].text
    log = _log(root)
    first = "error build: MemoryError: memory allocation failed, allocating 5776 bytes\n"
    assert log.startswith(first)
    assert "no_room" in log  # the traceback, indented under it
    assert all(line.startswith("  ") for line in log.split("\n")[1:] if line)
    b = Board(root)
    assert b.ask("hello")["boot_error"] == first[len("error ") : -1]


def test_any_other_exception_says_boot_err_and_a_clean_board_reports_null():
    from firmware.link import server as link

    root = _root()
    assert Board(root).ask("hello")["boot_error"] is None
    assert read_file(root + board.BOOT_LOG) is None  # a clean boot writes nothing

    def broken(path):
        raise OSError(5)

    real = link.load_secret
    link.load_secret = broken
    try:
        e, hw = _build_fails(root)
    finally:
        link.load_secret = real
    assert hw.faces[0].text == "BOOT ERR"
    assert _log(root).startswith("error build: OSError: ")


def test_the_boot_log_keeps_only_its_last_few_kb_of_whole_entries():
    from firmware.boot import bootlog

    root = _root()
    bootlog.attach(root + board.BOOT_LOG)
    # Failures enough to go past the log's limit (each ``fail`` collects the heap, slow under
    # CPython: no more than that).
    n = 1
    i = 0
    while i < n:
        try:
            raise ValueError("failure %d" % i)
        except ValueError as e:
            last = e
            assert bootlog.fail(e, "build") == "build: ValueError: failure %d" % i
        if i == 0:  # one entry's size, traceback and all
            n = bootlog.LIMIT // len(_log(root)) + 3
        i += 1
    log = _log(root)
    assert len(log) <= bootlog.LIMIT
    assert log.startswith("error build: ValueError: failure ")
    assert "error build: ValueError: failure %d\n" % (i - 1) in log
    assert bootlog.last_error() == "build: ValueError: failure %d" % (i - 1)
    assert read_file(root + board.BOOT_LOG + ".tmp") is None  # renamed over the log
    # The same exception comes to main.py's handler again: it is not written twice.
    assert bootlog.fail(last) is None and _log(root) == log


def test_the_virtual_board_shows_a_failed_check_on_its_glass():
    from firmware.hal import virtual as V

    root = _root()
    hw = V.make_hardware(root)
    undo = _misaligned_sensing()
    try:
        _build_fails(root, hw)
    finally:
        undo()
    assert hw.glass(0).line() == V.shown("FAULT", "SEN") == hw.glass(1).line()
    assert _log(root).startswith("error selfcheck: CHECK SEN ")


# ---- main.py's last-resort handler ------------------------------------------------------------


def _main():
    import main

    return main


def test_main_reports_what_stops_the_boot_and_returns():
    import builtins

    from firmware.boot import bootlog

    main = _main()
    root = _root()
    hw = Bench(root)

    def boot():  # as device.run: build, then the app; here the build fails
        undo = _misaligned_sensing()
        try:
            board.build(hw)
        finally:
            undo()

    said = []  # what main.py prints on the REPL's console
    builtins.BOOT_ERROR = OSError(28)  # boot.py failed too (and the app went on)
    try:
        bootlog.attach(root + board.BOOT_LOG)  # the board's root: "" is the real "/"
        assert main.main(boot, said.append) is None  # returns: the REPL stays reachable
    finally:
        del builtins.BOOT_ERROR
    heads = [line for line in _log(root).split("\n") if line and line[0] != " "]
    assert heads[0].startswith("error boot.py: OSError: ")
    assert heads[1].startswith("error selfcheck: CHECK SEN ")
    assert len(heads) == 2  # build wrote it; main.py's handler did not write it again
    assert hw.faces[0].text == "FAULT SEN"
    assert said[0] == "tengen: boot.py failed: " + repr(OSError(28))
    assert said[1].startswith("tengen: fatal: ") and "CHECK SEN" in said[1]
    assert "Traceback" in said[2] and "selfcheck" in said[2]  # where it stopped, for the maker

    # An exception before the HAL exists (the firmware cannot be loaded): logged, no faces.
    root = _root()
    bootlog.attach(root + board.BOOT_LOG)

    def no_firmware():
        raise ImportError("no module named 'firmware.boot.device'")

    del said[:]
    assert main.main(no_firmware, said.append) is None
    assert _log(root).startswith("error start: ImportError: no module named")
    assert said[0].startswith("tengen: fatal: ImportError(")

    # The app itself stops after it started: the run stage, on the faces it had.
    root = _root()
    hw = Bench(root)

    def app_dies():
        board.build(hw)
        raise RuntimeError("asyncio loop died")

    del said[:]
    main.main(app_dies, said.append)
    assert said[0].startswith("tengen: fatal: RuntimeError(")
    assert _log(root).startswith("error run: RuntimeError: asyncio loop died\n")
    assert hw.faces[0].text == "BOOT ERR"


def test_main_py_runs_as_the_board_runs_it_and_returns():
    # The port executes main.py as __main__; off the board it says so and returns.
    main = _main()
    with open(main.__file__) as f:
        src = f.read()
    said = []

    def console(*args, **kw):  # main.py's print, kept for the check instead of shown
        said.append(" ".join(str(a) for a in args))

    exec(compile(src, "main.py", "exec"), {"__name__": "__main__", "print": console})
    assert said == ["tengen: not a board; run `make sim` for the simulated one"]


# ---- the board's id (firmware/hal/rp2040.py) ------------------------------------------------


def test_a_board_id_from_the_secret_where_the_flash_id_is_blank():
    from firmware.hal.rp2040 import board_id
    from firmware.link.server import load_secret

    root = _root()
    assert board_id(b"\xe6\x61\x38\x52\xd3\x4a\x2b\x24", root) == "e6613852d34a2b24"
    assert read_file(root + board.SECRET) is None  # a good flash id needs no secret
    zeros = board_id(bytes(8), root)
    assert len(zeros) == 16 and zeros[0] == "s" and int(zeros[1:], 16) >= 0
    secret = read_file(root + board.SECRET)
    assert secret is not None and len(secret) == 32  # made on this first boot
    assert board_id(b"\xff" * 8, root) == zeros  # all ones: the same
    assert board_id(bytes(8), root) == zeros  # the next boot: the same
    assert load_secret(root + board.SECRET) == secret  # the link's key is that secret
    assert secret.hex() not in zeros and zeros[1:] not in secret.hex()
    other = _root()
    assert board_id(bytes(8), other) != zeros  # another board, another secret
    assert board_id(b"", other) == board_id(bytes(8), other)


def test_the_calendar_starts_from_the_rtc_chip_and_a_failing_one_stops_nothing():
    hw = Bench(_root())
    hw.read_rtc = lambda: 1767225600  # the chip kept the time through the power cut
    b = Board(hw.root, hw)
    assert b.server.epoch[0] == 1767225600 and b.server.calendar() >= 1767225600
    assert b.app.calendar() == b.server.calendar()

    def broken():
        raise OSError(5)

    for read in (lambda: None, broken):  # no time; a chip that raises after all
        hw = Bench(_root())
        hw.read_rtc = read
        b = Board(hw.root, hw)
        assert b.server.calendar() is None and b.app.calendar() == 0
