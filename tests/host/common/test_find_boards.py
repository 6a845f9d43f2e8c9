"""Finding boards (host_tools/common/link.py ``find_boards``) and ``tengen boards``: the ports that
could not be used are said, with why (busy, permission denied: the group to join; no answer),
in the text output and in --json. The USB ports are faked (``list_ports.comports`` and the
opener ``serial.Serial``); one busy port is a real pseudo-terminal held open by another link.
"""

import errno
import json
import os
from types import SimpleNamespace

import pytest
import serial
from typer.testing import CliRunner

from host_tools.cli import app
from host_tools.common import link as L


class FakeBoard:
    """A serial port with a Tengen board behind it: answers every request with hello."""

    def __init__(self, port, name="tengen"):
        self.port = port
        self.name = name
        self.pending = b""
        self.timeout = 0.05
        self.in_waiting = 0

    def write(self, data):
        req = json.loads(data)
        reply = {"v": 1, "id": req["id"], "ok": True, "name": self.name, "fw": "0.1.0"}
        reply.update(proto=1, board="TG-%s" % self.port[-1], game="go")
        self.pending += json.dumps(reply).encode() + b"\n"

    def flush(self):
        pass

    def read(self, n):
        data, self.pending = self.pending[:n], self.pending[n:]
        return data

    def close(self):
        pass


class Silent(FakeBoard):
    """A port that opens but never answers (a MicroPython board at its REPL, say)."""

    def write(self, data):
        pass


def _fail(num, text):
    def open_port(port, *a, **kw):
        raise serial.SerialException(num, text % port)

    return open_port


BUSY = _fail(
    errno.EAGAIN, "Could not exclusively lock port %s: [Errno 11] Resource temporarily unavailable"
)
DENIED = _fail(errno.EACCES, "could not open port %s: [Errno 13] Permission denied")
GONE = _fail(errno.ENOENT, "could not open port %s: [Errno 2] No such file or directory")

PORTS = {
    "/dev/ttyACM0": lambda port, *a, **kw: FakeBoard(port),
    "/dev/ttyACM1": BUSY,
    "/dev/ttyACM2": DENIED,
    "/dev/ttyACM3": lambda port, *a, **kw: Silent(port),
    "/dev/ttyACM4": GONE,
    "/dev/ttyACM5": lambda port, *a, **kw: FakeBoard(port, name="other"),
}


@pytest.fixture
def usb(monkeypatch, tmp_path):
    """The fake ports: ttyACM0-5 with the RP2040's id, ttyUSB0 another device."""
    listed = [SimpleNamespace(device=p, vid=L.USB_VID, pid=L.USB_PID) for p in PORTS]
    listed.append(SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001))
    monkeypatch.setattr(L.list_ports, "comports", lambda: listed)
    monkeypatch.setattr(L.serial, "Serial", lambda port, *a, **kw: PORTS[port](port))
    monkeypatch.setenv(L.RUNTIME_ENV, str(tmp_path / "run"))  # no virtual board
    monkeypatch.setattr(L, "_port_group", lambda port: "dialout")
    return PORTS


def test_find_boards_says_which_ports_it_could_not_use_and_why(usb):
    unreachable = []
    found = L.find_boards(timeout=0.2, unreachable=unreachable)
    assert [b["port"] for b in found] == ["/dev/ttyACM0"] and found[0]["board"] == "TG-0"
    why = {u["port"]: u for u in unreachable}
    assert sorted(why) == ["/dev/ttyACM%d" % k for k in (1, 2, 3, 4, 5)]  # not ttyUSB0
    assert all(u["ok"] is False for u in unreachable)
    assert why["/dev/ttyACM1"]["error"] == "busy"
    assert "another program" in why["/dev/ttyACM1"]["message"]
    assert why["/dev/ttyACM2"]["error"] == "permission"
    msg = why["/dev/ttyACM2"]["message"]
    assert "'dialout'" in msg and "usermod -aG dialout" in msg
    assert why["/dev/ttyACM3"]["error"] == "no_answer"
    assert why["/dev/ttyACM4"]["error"] == "missing"
    assert why["/dev/ttyACM5"]["error"] == "not_tengen"
    assert [b["port"] for b in L.find_boards(timeout=0.2)] == ["/dev/ttyACM0"]  # as before


def test_tengen_boards_lists_the_ports_it_could_not_use(usb):
    r = CliRunner().invoke(app, ["boards"])
    assert r.exit_code == 0, r.output
    assert "/dev/ttyACM0" in r.stdout and "TG-0" in r.stdout
    assert "busy: /dev/ttyACM1 is busy" in r.stderr
    assert "permission: permission denied on /dev/ttyACM2" in r.stderr
    assert "usermod -aG dialout" in r.stderr
    assert "no_answer: /dev/ttyACM3" in r.stderr
    r = CliRunner().invoke(app, ["boards", "--json"])
    assert r.exit_code == 0
    rows = json.loads(r.stdout)
    assert [(b["port"], b["ok"]) for b in rows][:2] == [
        ("/dev/ttyACM0", True),
        ("/dev/ttyACM1", False),
    ]
    assert rows[0]["name"] == "tengen" and rows[2]["error"] == "permission"


def test_no_board_but_busy_ports_says_so(usb, monkeypatch):
    one = [SimpleNamespace(device="/dev/ttyACM1", vid=L.USB_VID, pid=L.USB_PID)]
    monkeypatch.setattr(L.list_ports, "comports", lambda: one)
    r = CliRunner().invoke(app, ["boards"])
    assert r.exit_code == 2
    assert "No Tengen board found" in r.stderr and "/dev/ttyACM1 is busy" in r.stderr
    r = CliRunner().invoke(app, ["time"])  # any command looking for the board
    assert r.exit_code == 2 and "/dev/ttyACM1 is busy" in r.stderr
    r = CliRunner().invoke(app, ["boards", "--json"])
    assert r.exit_code == 2 and json.loads(r.stdout)[0]["error"] == "busy"


def test_a_port_another_link_holds_is_busy():
    # A real pseudo-terminal: the first link holds it exclusively, the second is refused.
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    try:
        with L.Link(path):
            unreachable = []
            assert L.find_boards([path], timeout=0.2, unreachable=unreachable) == []
            assert unreachable[0]["error"] == "busy", unreachable
            with pytest.raises(L.LinkError) as e:
                L.Link(path)
            assert e.value.code == "io" and e.value.reason == "busy"
    finally:
        os.close(master)
        os.close(slave)


def test_the_group_hint_names_the_ports_group(tmp_path):
    import grp

    f = tmp_path / "ttyFAKE"
    f.write_text("")
    want = grp.getgrgid(os.stat(f).st_gid).gr_name
    e = L.open_error(str(f), serial.SerialException(errno.EACCES, "Permission denied"))
    assert e.reason == "permission" and "'%s'" % want in e.message


def test_an_emulated_chip_noted_is_found_and_is_no_virtual_board(usb, monkeypatch):
    # host_tools/board/emulator.py notes its pty as a "chip": find_boards tries it after USB and the
    # virtual boards; deploy's is_virtual (the "virtual" notes) does not take it for tengen sim.
    from host_tools.board import deploy

    PORTS["/tmp/chip/ttyEMU"] = lambda port, *a, **kw: FakeBoard(port)
    monkeypatch.setattr(L.list_ports, "comports", lambda: [])
    note = L.register_virtual("/tmp/chip/ttyEMU", "/tmp/chip/flash.bin", kind="chip")
    try:
        assert note.name.startswith("chip-")
        assert L.virtual_ports() == [] and L.virtual_ports("chip") == ["/tmp/chip/ttyEMU"]
        assert [b["port"] for b in L.find_boards(timeout=0.2)] == ["/tmp/chip/ttyEMU"]
        assert not deploy.is_virtual("/tmp/chip/ttyEMU", {"name": "tengen"})
    finally:
        L.unregister_virtual(note)
        del PORTS["/tmp/chip/ttyEMU"]
    assert L.find_boards(timeout=0.2) == []
    # A note whose process is gone is dropped.
    note = L.register_virtual(
        "/tmp/chip/ttyEMU", "/tmp/chip/flash.bin", kind="chip", pid=2**22 + 1
    )
    assert L.virtual_ports("chip") == [] and not note.exists()
