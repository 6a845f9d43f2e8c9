"""The virtual board's hardware (firmware/hal/virtual.py) against the real drivers, both runtimes.

The faces are the real ``HT1621Face`` drivers on the emulated HT1621 pair: what a driver
sends is decoded bit by bit into each chip's RAM, and the glass reader turns the RAM back
into text, so ``show(face)`` of a known ``Face`` must read back its time, move number,
counted seconds, what is left and its indicators. The buzzer is the real ``Buzzer`` on a
fake PWM, naming what it plays. The flash is a folder that survives a rebuild. The virtual
board's program (firmware/virtual/board.py) takes its commands and says what changed.
"""

import json

from firmware.boot import board
from firmware.clock import cues
from firmware.clock.clock import F_ARBITER, F_COUNTING, F_PAUSED, F_RUNNING
from firmware.hal import virtual as V
from firmware.store.journal import read_file
from firmware.ui import buzzer as bz
from tests.test_journal import fresh_root
from tests.test_ui_face import a_face


def _faces():
    bus, chips, faces = V.make_faces(2)
    for f in faces:
        f.start()
    return bus, chips, faces


def _root():
    return fresh_root(blocks=128)[: -len("/games")]


# ---- the faces -------------------------------------------------------------------------------


def test_a_clock_face_reads_back_from_the_chips_ram():
    bus, chips, faces = _faces()
    assert chips[0].on and chips[1].on
    faces[0].show(a_face("59:00", 1, F_RUNNING))
    g = V.read(chips[0].ram)
    assert g.big == "59:00" and g.small == "1" and g.marks == ("RUN", "MOVE")
    assert g.line() == "59:00  #1  RUN"
    faces[1].show(a_face("0:30", 123, F_RUNNING | F_COUNTING, count_s=25, units=3))
    assert V.read(chips[1].ram).line() == "0:30  #123  25s  3 left  RUN COUNT"
    assert V.read(chips[0].ram).line() == "59:00  #1  RUN"  # the other face untouched
    faces[0].show(a_face("1:05:00", 40, F_PAUSED, moves_left=12))
    assert V.read(chips[0].ram).line() == "1:05:00  #40  12 left  PAUSE"
    faces[0].show(a_face("0:09.5", 7, F_RUNNING))
    assert V.read(chips[0].ram).big == "0:09.5"
    assert bus.slips == 0 and chips[0].bad == 0 and chips[1].bad == 0


def test_only_what_changed_goes_on_the_wire():
    bus, chips, faces = _faces()
    f = a_face("10:00", 1, F_RUNNING)
    faces[0].show(f)
    frames = chips[0].frames
    assert not faces[0].show(f)  # the same face: nothing sent
    assert chips[0].frames == frames
    faces[0].show(a_face("9:59", 1, F_RUNNING))
    assert chips[0].frames == frames + 1  # one run of changed addresses
    assert V.read(chips[0].ram).line() == "9:59  #1  RUN"
    assert chips[1].frames == 2  # the other chip saw only its own start


def test_show_text_reads_back_with_its_point_and_marks():
    bus, chips, faces = _faces()
    faces[0].show_text("CAP", "D4")
    assert V.read(chips[0].ram).line() == "CAP  D4"
    faces[0].show_text("RESIGN", "?", F_ARBITER, "MODE: resign")
    assert V.read(chips[0].ram).line() == "RESIGN  ?  ARB"
    faces[1].show_text("2 STON", "Q16")
    assert V.read(chips[1].ram).line() == "2 STON  Q16"
    faces[1].show_text("B+3.5", "OK?")
    assert V.read(chips[1].ram).line() == "B+3.5  OK?"
    assert V.shown("CAP", "D4") == "CAP  D4"
    assert V.shown(a_face("59:00", 1, F_RUNNING)) == "59:00  #1  RUN"


def test_ambiguous_glyphs_are_read_by_the_cells_around_them():
    # 0/O, 2/Z, 5/S share their segments: such a cell reads as the cell after it, a digit
    # before a point or a colon, at a word's end as the letter or digit before it; the word
    # says whether the small cells are a point or a count (firmware/ui/texts.py).
    assert V.shown("50:05") == "50:05"
    assert V.shown("STON") == "STON" and V.shown("KO") == "KO" and V.shown("SOS") == "505"
    assert V.shown("GO ON") == "GO ON" and V.shown("POS") == "POS"
    assert V.shown("W252.5") == "W252.5" and V.shown("B180.75") == "B180.75"
    assert V.shown("KO", "S15") == "KO  S15" and V.shown("KO", "O10") == "KO  O10"
    assert V.shown("DEAD", "12") == "DEAD  12"
    assert V.shown("DEAD", "55") == "DEAD  55" and V.shown("CAP", "S5") == "CAP  S5"
    assert V.shown("CLEAR", "23") == "CLEAR  23"  # not Z3: Z is no column
    assert V.shown("FIX") == V.shown("FIH")  # the font's X is its H: no text has an X


def test_the_lcd_off_shows_nothing():
    bus, chips, faces = _faces()
    faces[0].show(a_face("10:00"))
    faces[0].off()
    assert not chips[0].on
    assert V.read(chips[0].ram, on=chips[0].on).line() == "(off)"
    faces[0].start()
    assert chips[0].on and V.read(chips[0].ram).line() == ""


def test_a_frame_cut_short_is_counted_and_the_ram_keeps_whole_nibbles():
    bus, chips, faces = _faces()
    cs = bus.pin(0)
    wr = bus.pin("wr")
    data = bus.pin("data")
    cs.value(0)
    for bit in (1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1):  # write, address 3, 1111, 11
        wr.value(0)
        data.value(bit)
        wr.value(1)
    cs.value(1)
    assert chips[0].ram[3] == 15 and chips[0].ram[4] == 0
    assert chips[0].bad == 1


# ---- the buzzer ------------------------------------------------------------------------------


def test_the_buzzer_names_what_it_plays():
    b = V.make_buzzer()
    b.play(bz.REFUSE, 0)
    b.play(bz.KEY, 10)
    b.play(bz.CONFIRM, 20)
    b.play(cues.pattern(cues.MARK << 8 | 30), 30)
    b.play(cues.pattern(cues.COUNT << 8 | 3), 40)
    b.play(cues.pattern(cues.MARK_LATE << 8), 50)
    assert b.take() == ["REFUSE", "KEY", "CONFIRM", "MARK", "COUNT", "MARK_LATE"]
    # One sound, several cues: it is named by all of them.
    assert V.pattern_name(cues.pattern(cues.FLAG << 8)) == "TIMEOUT/FLAG"
    assert V.pattern_name(cues.pattern(cues.PERIOD_LEFT << 8)) == "MINUTE_LEFT/PERIOD_LEFT"
    assert V.pattern_name(((440, 10),)) == "?440x10"
    assert b.take() == []
    b.cue(cues.FLAG << 8, 60)  # a cue played as a cue is named by its kind
    b.cue(cues.PERIOD_LEFT << 8 | 2, 70)
    assert b.take() == ["FLAG", "PERIOD_LEFT"]


def test_the_buzzer_plays_on_its_pwm_and_volume_0_is_silent():
    b = V.make_buzzer()
    b.play(bz.REFUSE, 0)
    assert b.pwm.hz == 700 and b.pwm.duty > 0
    b.step(150)
    assert b.pwm.duty == 0  # the gap
    b.step(1000)
    assert not b.playing and b.pwm.duty == 0
    b.set_volume(0)
    b.play(bz.REFUSE, 2000)
    assert b.take() == ["REFUSE"] and b.pwm.duty == 0


# ---- the board's hardware and flash ----------------------------------------------------------


def test_the_flash_folder_survives_a_rebuild():
    root = _root()
    hw = V.make_hardware(root)
    assert hw.calibrated
    cal = read_file(root + board.CALIBRATION)
    assert json.loads(cal)["size"] == 19
    bid = hw.board_id
    assert len(bid) == 16 and bid[0] == "v" and int(bid[1:], 16) >= 0
    app, server = board.build(hw)
    assert not app.errors  # calibrated: no "NO CAL" problem
    hw2 = V.make_hardware(root)
    assert not hw2.calibrated and hw2.board_id == bid
    assert read_file(root + board.CALIBRATION) == cal  # written once
    app2, server2 = board.build(hw2)
    assert not app2.errors
    assert server2.cmd_hello({})["board"] == bid
    assert V.make_hardware(_root()).board_id != bid  # another flash, another board


def test_the_hands_keys_paddles_and_time():
    hw = V.make_hardware(_root())
    t0 = hw.now()
    hw.keys.hold(3, 100)
    assert hw.keys() == 3
    hw.skip(150)
    assert hw.keys() == 0
    assert hw.now() - t0 >= 150
    got = []
    hw.press(1)  # no paddles attached yet: nothing
    hw.attach_paddles(lambda side, at: got.append((side, at)))
    hw.press(2)
    assert len(got) == 1 and got[0][0] == 2 and got[0][1] - hw.now() <= 0


class _Narrow:
    """A link that takes at most ``room`` bytes per write (a pty nobody reads)."""

    def __init__(self, room):
        self.room = room
        self.data = b""

    def write(self, data):
        n = min(self.room, len(data))
        self.data += data[:n]
        return None if n == 0 else n  # MicroPython's non-blocking write: None, nothing taken

    def flush(self):
        pass


def test_the_link_drops_what_does_not_fit_and_never_blocks():
    link = _Narrow(1000)
    hw = V.make_hardware(_root(), link)
    hw.link_out(b'{"id":1}\n')
    assert link.data == b'{"id":1}\n'
    link.room = 4
    hw.link_out(b'{"id":2}\n')  # cut short
    link.room = 0
    hw.link_out(b'{"id":3}\n')  # dropped whole
    link.room = 1000
    hw.link_out(b'{"id":4}\n')
    lines = link.data.split(b"\n")
    assert lines[0] == b'{"id":1}' and lines[1] == b'{"id' and lines[2] == b'{"id":4}'
    assert hw.dropped > 0


def test_the_virtual_board_takes_commands_and_says_what_changed():
    import asyncio

    from firmware.virtual.board import VirtualBoard

    said = []
    hw = V.make_hardware(_root())
    vb = VirtualBoard(hw, said.append)
    vb.report(force=True)
    assert "face B" in said[0] and said[2] == "game go 19"
    assert said[3] == "board " + "." * 361

    async def hands():
        for line in ("put D4 b", "bogus", "put Z9 b", "put", "lift Q16", "echo done"):
            await vb.command(line)
        return await vb.command("quit")

    assert asyncio.run(hands()) is False
    stones = [ln for ln in said if ln.startswith("board ")][-1][6:]
    assert stones.index("X") == (19 - 4) * 19 + 3 and stones.count("X") == 1  # D4
    errors = [ln for ln in said if ln.startswith("? ")]
    assert len(errors) == 4 and "unknown command: bogus" in errors[0]
    assert "Z9" in errors[1] and "missing" in errors[2] and "Q16" in errors[3]
    assert said[-1] == "echo done"


# ---- the calendar clock (the emulated PCF8563, firmware/hal/pcf8563.py) ----------------------


class _HostClock:
    """The host's time (seconds since 1970) as the test sets it: the RTC chip runs on it."""

    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def test_the_calendar_time_survives_a_power_cycle_on_the_rtc_chip():
    root = _root()
    host = _HostClock(1767225600.5)
    hw = V.make_hardware(root, host_time=host)
    app, server = board.build(hw)
    assert hw.read_rtc() is None and server.calendar() is None  # a chip never set: VL
    assert server.cmd_time({"epoch": 1767225600})["epoch"] >= 1767225600  # the PC sets it
    assert hw.read_rtc() == 1767225600 and hw.rtc_chip.writes == 3
    # The power goes for an hour; the coin cell keeps the chip running. No PC at the boot.
    host.t += 3600.25
    hw2 = V.make_hardware(root, host_time=host)
    app2, server2 = board.build(hw2)
    assert server2.epoch[0] == 1767225600 + 3600
    assert server2.calendar() >= 1767225600 + 3600
    assert app2.calendar() == server2.calendar()  # the records' start time
    assert server2.cmd_time({})["epoch"] >= 1767225600 + 3600
    assert not app2.errors and not server2.faults


def test_a_damaged_rtc_file_or_no_chip_boots_with_no_calendar_time():
    from firmware.store.journal import write_atomic

    root = _root()
    host = _HostClock(1767225600.0)
    hw = V.make_hardware(root, host_time=host)
    board.build(hw)[1].cmd_time({"epoch": 1767225600})
    write_atomic(root + V.RTC_FILE, b"\x00garbage, not the chip's registers")
    hw2 = V.make_hardware(root, host_time=host)
    app2, server2 = board.build(hw2)
    assert server2.calendar() is None and app2.calendar() == 0 and not app2.errors
    # The chip gone: no time, and setting the time still works (the chip's part ignored).
    hw2.i2c.devices.clear()
    assert hw2.read_rtc() is None
    assert server2.cmd_time({"epoch": 1767225700})["epoch"] >= 1767225700
    assert not server2.faults
    hw3 = V.make_hardware(root, host_time=host)  # the file the damaged one left: no time
    assert board.build(hw3)[1].calendar() is None
