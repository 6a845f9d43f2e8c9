"""``tengen deploy`` without hardware (host_tools/board/deploy.py): the build, the mpremote command
lines, the errors; and the freeze manifest (hardware/manifest.py) agreeing with the build."""

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.board import deploy as D
from host_tools.common.link import LinkError

ROOT = Path(__file__).resolve().parents[3]
FW = D.firmware_version()  # this checkout's: the image a deploy matches
MP = ["mpremote-test"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    files, total = D.build(out)
    return out, files, total


def test_build_compiles_every_board_module(built):
    out, files, total = built
    modules = D.board_modules()
    assert "firmware/boot/device.py" in modules and "firmware/link/server.py" in modules
    assert not set(modules) & D.EXCLUDE
    want = [m[: -len(".py")] + ".mpy" for m in modules] + ["boot.py", "main.py"]
    assert files == want
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert on_disk == sorted(want)
    assert total == sum((out / f).stat().st_size for f in files)
    assert 100_000 < total < 400_000  # ~140 KB of .mpy today
    assert (out / "main.py").read_bytes() == (ROOT / "main.py").read_bytes()
    assert (out / "boot.py").read_bytes() == (ROOT / "boot.py").read_bytes()


def test_every_mpy_header_is_for_micropython_on_armv6m(built):
    out, files, _ = built
    for f in files:
        if not f.endswith(".mpy"):
            continue
        head = (out / f).read_bytes()[:4]
        assert head[0:1] == b"M", f
        assert head[1] == 6, f  # .mpy version 6 (MicroPython >= 1.19)
        # arch in the top 6 bits: 0 (bytecode only) or 4 (armv6m, for @native/@viper code)
        assert head[2] >> 2 in (0, 4), f
    # modules with viper code carry the architecture
    assert (out / "firmware/rules/bitboard.mpy").read_bytes()[2] >> 2 == 4


def test_build_reports_a_module_that_does_not_compile(tmp_path):
    root = tmp_path / "src"
    (root / "firmware").mkdir(parents=True)
    (root / "firmware/__init__.py").write_text("")
    (root / "firmware/bad.py").write_text("match x:\n    case 1:\n        pass\n")
    (root / "boot.py").write_text("")
    (root / "main.py").write_text("")
    with pytest.raises(D.DeployError, match="firmware/bad.py does not compile"):
        D.build(tmp_path / "out", root=root)


def _firmware_imports(path):
    """``firmware.x`` modules a source file imports (any depth, guarded or not)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("firmware")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("firmware"):
            out.add(node.module)
            out |= {node.module + "." + a.name for a in node.names}  # may be submodules
    return out


def test_everything_the_board_imports_is_built():
    # From main.py (which starts firmware.boot.device) through every import, the modules that
    # exist as files must all be built. _mpshim is imported only on CPython.
    modules = set(D.board_modules())
    todo, seen = ["main.py", "boot.py"], set()
    while todo:
        src = todo.pop()
        if src in seen:
            continue
        seen.add(src)
        for name in _firmware_imports(ROOT / src):
            if name == "firmware._mpshim":
                continue
            base = name.replace(".", "/")
            for cand in (base + ".py", base + "/__init__.py"):
                if (ROOT / cand).is_file():
                    assert cand in modules, "%s imports %s, which is not built" % (src, cand)
                    todo.append(cand)
    assert "firmware/boot/device.py" in seen and "firmware/game/app.py" in seen


def test_manifest_freezes_what_deploy_builds():
    calls = []

    def recorder(kind):
        return lambda *a, **k: calls.append((kind, a, k))

    env = {k: recorder(k) for k in ("include", "package", "module", "freeze", "require")}
    exec(compile((ROOT / "hardware/manifest.py").read_text(), "manifest.py", "exec"), env)
    # The port's modules the board needs (_boot.py mounts the filesystem, rp2.py has asm_pio),
    # asyncio without what the firmware never uses, then the firmware.
    assert calls[0] == ("freeze", ("$(PORT_DIR)/modules", ("_boot.py", "rp2.py")), {})
    assert calls[1][:2] == ("package", ("asyncio", ("__init__.py", "core.py", "funcs.py")))
    (kind, args, kw) = calls[2]
    assert (kind, args, kw["base_path"]) == ("package", ("firmware",), "..")
    assert ["firmware/" + f for f in kw["files"]] == D.board_modules()
    for f in kw["files"]:
        assert (ROOT / "hardware" / ".." / "firmware" / f).is_file()


# ---- deploy with a fake board behind a fake mpremote and a fake link ---------------------------

MPY_RP2 = 6 | (3 << 8) | (4 << 10)  # sys.implementation._mpy of MicroPython 1.23+ on an RP2040
PORT = "/dev/ttyACM0"


class FakeBoard:
    """A board as deploy reaches it: its filesystem (paths), its image (``frozen``: the
    Tengen modules frozen in, their version), a ROMFS partition's size, whether its app runs
    (then its link answers ``hello``). ``run`` stands in for subprocess.run of mpremote: it
    records every command, carries out what each would do on the board (the CLEAN script,
    ``fs cp``, ``reset``), answers ``version`` and the probe; ``link`` is the link
    factory. ``fail`` maps a word of a command to (returncode, stderr); ``missing``: no
    mpremote at all; ``dead``: after a reset the board answers nothing (no REPL either)."""

    def __init__(
        self,
        frozen=None,
        romfs=0,
        fs=(),
        app=False,
        platform="rp2",
        heap=245_888,
        mpy=MPY_RP2,
        pin="0000",
        fail=None,
        missing=False,
        dead=False,
    ):
        self.frozen = frozen  # the image's firmware version, or None: stock MicroPython
        self.romfs_size = romfs
        self.fs = set(fs)
        self.app = app
        self.platform = platform
        self.heap = heap
        self.mpy = mpy
        self.pin = pin
        self.fail = fail or {}
        self.missing = missing
        self.dead = dead
        self.commands = []
        self.requests = []
        self.resets = 0
        self.opened = 0
        self.link_open_at_mpremote = False
        self._links_open = 0

    # -- mpremote --

    def __call__(self, cmd, **kw):
        self.commands.append(cmd)
        if self.missing:
            raise FileNotFoundError(2, "No such file or directory", cmd[0])
        for word, (rc, err) in self.fail.items():
            if word in cmd:
                return subprocess.CompletedProcess(cmd, rc, "", err)
        if cmd[-1] == "version":
            return subprocess.CompletedProcess(cmd, 0, "mpremote 1.29.0", "")
        if self._links_open:
            self.link_open_at_mpremote = True
        assert cmd[len(MP)] == "connect" and cmd[len(MP) + 1] == PORT, cmd
        if self.app or self.dead:  # mpremote cannot get the REPL
            return subprocess.CompletedProcess(cmd, 1, "", "could not enter raw repl")
        out = []
        # As mpremote reads its command line: commands chained with "+", each taking every
        # argument up to the next "+" (so ``fs cp`` copies all but its last argument into the
        # last, which must then be a folder).
        commands = [[]]
        for word in cmd[len(MP) + 2 :]:
            if word == "+":
                commands.append([])
            else:
                commands[-1].append(word)
        for args in commands:
            if args[0] == "exec":
                assert len(args) == 2, args
                out.append(self._exec(args[1]))
            elif args[:2] == ["fs", "cp"]:
                recursive = args[2] == "-r"
                sources, dst = args[3 if recursive else 2 : -1], args[-1]
                if len(sources) > 1 and not dst.endswith("/"):
                    return subprocess.CompletedProcess(
                        cmd, 1, "", "cp: destination does not exist"
                    )
                src = Path(sources[0])
                if recursive:
                    for f in src.rglob("*"):
                        if f.is_file():
                            self.fs.add("/" + dst[1:] + "/" + f.relative_to(src).as_posix())
                else:
                    assert src.is_file(), src
                    self.fs.add("/" + dst[1:])
            elif args == ["reset"]:
                self.resets += 1
                self.app = not self.dead_after_reset and self.boots()
                self.dead = self.dead_after_reset
            else:
                raise AssertionError("unknown mpremote command %r" % args)
        return subprocess.CompletedProcess(cmd, 0, "".join(out), "")

    dead_after_reset = False
    boot_log = ""  # /boot.log (firmware/boot/bootlog.py)
    boot_error = None  # what hello says stopped the previous boot

    def _exec(self, script):
        if script == D.MKVOICE:
            return ""
        if script == D.CLEAN:
            self.fs = {p for p in self.fs if not (p == "/firmware" or p.startswith("/firmware/"))}
            return ""
        assert script == D.PROBE, script
        info = {
            "impl": "micropython",
            "version": "1.28.0",
            "mpy": self.mpy,
            "machine": "Raspberry Pi Pico with RP2040",
            "build": "RPI_PICO",
            "platform": self.platform,
            "frozen": self.frozen is not None,
            "frozen_fw": self.frozen,
            "romfs": self.romfs_size,
            "files": any(p.startswith("/firmware/") for p in self.fs),
            "heap": self.heap,
            "boot_log": self.boot_log,
        }
        return "TENGEN-PROBE %s\n" % json.dumps(info)

    def boots(self):
        """Whether main.py starts the app after a reset (on-chip.md: from .mpy files the
        app does not fit a Pico's heap; the image's frozen modules are shadowed by files)."""
        if "/main.py" not in self.fs or "/boot.py" not in self.fs:
            return False
        files = any(p.startswith("/firmware/") for p in self.fs)
        if files:
            if self.heap > 1_000_000:
                return True
            self.boot_log += (
                "error build: MemoryError: memory allocation failed, allocating 5776 bytes\n"
                '  File "firmware/sensing/grid.py", line 120, in __init__\n'
            )
            return False
        return self.frozen is not None

    # -- the link --

    def link(self, port):
        if port != PORT:
            raise LinkError("io", "cannot open %s: no such file" % port, "missing")
        self.opened += 1
        return _FakeLink(self)


class _FakeLink:
    def __init__(self, board):
        self.board = board
        self.closed = False
        board._links_open += 1

    def request(self, cmd, **fields):
        b = self.board
        b.requests.append((cmd, fields))
        if not b.app:
            raise LinkError("timeout", "no answer")
        if cmd == "hello":
            fw = b.frozen or FW
            hello = {"ok": True, "name": "tengen", "fw": fw, "proto": 1, "board": "e6614c31"}
            return dict(hello, boot_error=b.boot_error)
        if cmd == "maintenance":
            if fields.get("pin") != b.pin:
                raise LinkError("bad_pin", "wrong PIN")
            b.app = False  # the game saved, the REPL free
            return {"ok": True, "maintenance": True}
        raise AssertionError(cmd)

    def close(self):
        if not self.closed:
            self.closed = True
            self.board._links_open -= 1


class Clock:
    """Time for the hello wait: ``sleep`` moves it on."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += s


def _go(tmp_path, board, pin="0000", **kw):
    clock = Clock()
    steps = []
    kw.setdefault("virtual", lambda: [])
    kw.setdefault("voice", False)  # the voice's own tests below
    res = D.deploy(
        PORT,
        pin,
        link_factory=board.link,
        run=board,
        mpremote=MP,
        build_dir=tmp_path / "b",
        sleep=clock.sleep,
        clock=clock,
        progress=steps.append,
        **kw,
    )
    return res, steps


def _mp_commands(board):
    return [c[len(MP) + 2 :] for c in board.commands if c[-1] != "version"]


BOARD_FILES = {"/main.py", "/boot.py", "/settings.json", "/journal/000001.bin", "/secret.bin"}


def test_a_tengen_image_gets_boot_and_main_only_and_loses_a_stale_firmware_folder(tmp_path):
    stale = {"/firmware/__init__.mpy", "/firmware/game/app.mpy", "/firmware/rules/go.mpy"}
    board = FakeBoard(frozen=FW, fs=BOARD_FILES | stale, app=True)
    res, steps = _go(tmp_path, board)
    assert res["kind"] == D.FROZEN and res["board"]["frozen_fw"] == FW
    assert board.fs == BOARD_FILES  # /firmware gone, the game's files kept
    b = str(tmp_path / "b")
    assert _mp_commands(board) == [
        ["exec", D.PROBE],
        ["exec", D.CLEAN],
        ["fs", "cp", b + "/boot.py", ":boot.py", "+", "fs", "cp", b + "/main.py", ":main.py"],
        ["reset"],
    ]
    assert res["files"] == ["boot.py", "main.py"] and res["commands"] == board.commands[2:]
    assert board.requests[:2] == [("hello", {}), ("maintenance", {"pin": "0000"})]
    assert board.requests[-1] == ("hello", {}) and res["hello"]["fw"] == FW
    assert not board.link_open_at_mpremote  # the port is free for mpremote
    assert res["warnings"] == []
    assert steps == [
        "check mpremote",
        "build",
        "ask the board",
        "probe",
        "remove the old firmware",
        "copy boot.py and main.py",
        "restart the board",
        "wait for the board's hello",
    ]


def test_an_older_image_is_refused_and_nothing_is_copied(tmp_path):
    board = FakeBoard(frozen="0.0.9", fs={"/main.py", "/boot.py"})
    with pytest.raises(D.DeployError, match="image has firmware 0.0.9 frozen in, this tengen"):
        _go(tmp_path, board, pin=None)
    assert [c for c in _mp_commands(board) if "cp" in c] == []  # boot.py, main.py untouched


def test_a_previous_failed_boot_is_passed_on(tmp_path):
    board = FakeBoard(frozen=FW, fs={"/main.py", "/boot.py"})
    board.boot_error = "selfcheck: CHECK go 1: item 3 is 0, known 2"
    res, _ = _go(tmp_path, board, pin=None)
    assert res["warnings"] == [
        "the board's previous boot failed: selfcheck: CHECK go 1: item 3 is 0, known 2"
    ]


def test_a_stock_board_is_refused_and_left_as_it_was(tmp_path):
    board = FakeBoard(fs={"/main.py", "/boot.py", "/notes.txt"})
    before = set(board.fs)
    with pytest.raises(D.DeployError) as e:
        _go(tmp_path, board, pin=None)
    msg = str(e.value)
    assert "stock MicroPython 1.28.0" in msg and "ROMFS" not in msg
    assert "hardware/README.md" in msg and "--force" in msg and "Nothing was changed" in msg
    assert _mp_commands(board) == [["exec", D.PROBE]] and board.fs == before


def test_force_copies_the_mpy_files_and_says_why_the_pico_does_not_start(tmp_path):
    board = FakeBoard(fs={"/main.py", "/boot.py", "/firmware/old.mpy"})
    with pytest.raises(D.DeployError) as e:
        _go(tmp_path, board, pin=None, force=True)
    msg = str(e.value)
    # The copy was made (the old file gone, every module there), the board restarted...
    modules = {"/" + m[: -len(".py")] + ".mpy" for m in D.board_modules()}
    assert board.fs == modules | {"/main.py", "/boot.py"}
    # ...and its app did not answer: the board is looked at, reset once more, and it is said.
    assert "did not answer hello within 30 s" in msg and "at the MicroPython REPL" in msg
    assert "do not fit its RAM" in msg and "import main" in msg
    assert "Its /boot.log says:\nerror build: MemoryError: memory allocation failed" in msg
    assert "line 120, in __init__" in msg
    assert board.resets == 2
    # On a board with the RAM (not a Pico), the same copy runs.
    big = FakeBoard(fs={"/main.py", "/boot.py"}, heap=8_000_000)
    res, steps = _go(tmp_path, big, pin=None, force=True)
    assert res["kind"] == D.FILES and res["hello"] is not None
    assert any("--force" in w and "MemoryError" in w for w in res["warnings"])
    assert len(res["files"]) == len(D.board_modules()) + 2


def test_a_stock_board_with_a_romfs_partition_is_refused_like_any_stock_board(tmp_path):
    # The app imported from /rom takes 148 KB of heap and does not start (on-chip.md): ROMFS
    # is no way onto a Pico; the message says so, and the way to the image.
    board = FakeBoard(romfs=256 * 1024, fs={"/firmware/game/app.mpy", "/settings.json"})
    before = set(board.fs)
    with pytest.raises(D.DeployError) as e:
        _go(tmp_path, board, pin=None)
    msg = str(e.value)
    assert "stock MicroPython 1.28.0" in msg and "Nothing was changed" in msg
    assert "Its 256 KB ROMFS partition does not help" in msg and "148 KB" in msg
    assert "make chip" in msg and "--force" in msg
    assert _mp_commands(board) == [["exec", D.PROBE]] and board.fs == before
    assert not hasattr(D, "ROMFS") and not hasattr(D, "romfs_image")


def test_an_incompatible_micropython_is_refused(tmp_path):
    old = 6 | (1 << 8) | (4 << 10)  # .mpy 6.1: MicroPython 1.20-1.22
    with pytest.raises(D.DeployError, match=r"\.mpy format is 6\.1.*tengen builds 6\.3"):
        _go(tmp_path, FakeBoard(mpy=old), pin=None)
    with pytest.raises(D.DeployError, match="not an RP2040 board"):
        _go(tmp_path, FakeBoard(platform="esp32"), pin=None)


def test_the_boot_log_entry_that_stopped_the_board():
    log = "error start: ImportError: x\n  tb 1\nok\nerror build: MemoryError: y\n  tb 2\n  tb 3\n"
    assert D.boot_error({"boot_log": log}) == "error build: MemoryError: y\n  tb 2\n  tb 3"
    assert D.boot_error({"boot_log": log + "ok\n"}) == ""  # the app started since
    assert D.boot_error({}) == ""


def test_the_decision_table():
    rp2 = {"impl": "micropython", "platform": "rp2", "version": "1.28.0", "mpy": MPY_RP2}
    assert D.decide(dict(rp2, frozen=True, frozen_fw=FW), version=FW) == (D.FROZEN, [])
    # Another version's image: boot.py and main.py import its modules by name, so nothing
    # is copied (a board left with a main.py its image cannot run would stop at boot).
    with pytest.raises(D.DeployError, match="nothing was copied; build and flash"):
        D.decide(dict(rp2, frozen=True, frozen_fw="0.1.0"), version=FW)
    assert D.decide(dict(rp2, frozen=True, romfs=1 << 20))[0] == D.FROZEN  # the image first
    assert D.decide(dict(rp2), force=True)[0] == D.FILES
    assert D.decide(dict(rp2, romfs=1 << 20), force=True)[0] == D.FILES
    for bad in (dict(rp2), dict(rp2, romfs=1 << 20), dict(rp2, impl="cpython")):
        with pytest.raises(D.DeployError):
            D.decide(bad)
    assert D.decide(dict(rp2, mpy=0), force=True)[0] == D.FILES  # no _mpy: not checked


def test_a_refusal_after_maintenance_restarts_the_app(tmp_path):
    # A Tengen app running from .mpy files on a board with the RAM (an RP2350, say) but an
    # older MicroPython: the app left for the REPL at our asking, so it is started again.
    board = FakeBoard(
        fs={"/main.py", "/boot.py", "/firmware/game/app.mpy"}, app=True, heap=8_000_000
    )
    board.mpy = 6 | (2 << 8) | (6 << 10)  # .mpy 6.2, armv7em
    with pytest.raises(D.DeployError, match=r"(?s)format is 6\.2.*restarted as it was"):
        _go(tmp_path, board, force=True)
    assert _mp_commands(board) == [["exec", D.PROBE], ["reset"]] and board.app
    assert "/firmware/game/app.mpy" in board.fs  # nothing removed
    board.mpy = 6 | (3 << 8) | (6 << 10)  # the same MicroPython as built: armv6m code runs
    res, _ = _go(tmp_path, board, force=True)
    assert res["kind"] == D.FILES and res["hello"] is not None


def test_a_board_that_does_not_come_back_is_said_with_the_way_back(tmp_path):
    board = FakeBoard(frozen=FW, fs={"/main.py", "/boot.py"}, app=True)
    board.dead_after_reset = True
    with pytest.raises(D.DeployError) as e:
        _go(tmp_path, board, wait=10)
    msg = str(e.value)
    assert "did not answer hello within 10 s" in msg and "does not answer on" in msg
    assert "holding the PAUSE key (safe mode" in msg and "BOOTSEL" in msg
    hellos = [r for r in board.requests[2:] if r[0] == "hello"]
    assert len(hellos) >= 10  # asked again and again for the 10 s


def test_the_hello_wait_goes_on_while_the_port_is_gone():
    clock = Clock()
    answers = [LinkError("io", "gone", "missing")] * 3 + [None]
    board = FakeBoard(app=True)

    def factory(port):
        a = answers.pop(0)
        if a is not None:
            raise a
        return board.link(port)

    hello = D.wait_for_hello(PORT, factory, 5, clock.sleep, clock)
    assert hello["name"] == "tengen" and clock.t == 1.5


def test_without_pin_a_running_app_is_refused_untouched(tmp_path):
    board = FakeBoard(frozen=FW, fs={"/main.py", "/boot.py"}, app=True)
    with pytest.raises(D.DeployError, match="runs its app .* give the arbiter's PIN"):
        _go(tmp_path, board, pin=None)
    assert board.requests == [("hello", {})] and _mp_commands(board) == [] and board.app


def test_deploy_cleans_its_temporary_build(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "t"))
    (tmp_path / "t").mkdir()
    board = FakeBoard(frozen=FW)
    clock = Clock()
    D.deploy(PORT, None, board.link, board, MP, sleep=clock.sleep, clock=clock, virtual=list)
    assert list((tmp_path / "t").iterdir()) == []  # the temporary build is gone


def test_clean_script_removes_a_tree_and_tolerates_none(tmp_path):
    # CLEAN runs on the board; CPython's os has the same stat/listdir/rmdir/remove.
    script = D.CLEAN.replace("'/firmware'", repr(str(tmp_path / "firmware")))
    (tmp_path / "firmware/a/b").mkdir(parents=True)
    (tmp_path / "firmware/x.py").write_text("")
    (tmp_path / "firmware/a/b/y.mpy").write_text("")
    (tmp_path / "keep.json").write_text("{}")
    exec(script, {})
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]
    exec(script, {})  # nothing to remove: no error


def _micropython():
    mp = Path(sys.executable).parent / "micropython"
    if not mp.exists():
        pytest.skip("no MicroPython unix port in the venv")
    return mp


def test_clean_script_runs_on_micropython(tmp_path):
    mp = _micropython()
    (tmp_path / "firmware/a").mkdir(parents=True)
    (tmp_path / "firmware/a/x.mpy").write_text("")
    script = D.CLEAN.replace("'/firmware'", "'firmware'")
    for _ in range(2):
        proc = subprocess.run([str(mp), "-c", script], cwd=tmp_path, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        assert not (tmp_path / "firmware").exists()


def test_the_probe_runs_on_micropython(tmp_path):
    # On the unix port from the checkout (firmware/ on disk, not frozen): stock. With a
    # folder of its own standing in for the frozen modules: a Tengen image and its version,
    # and nothing of it left imported afterwards.
    mp = _micropython()
    proc = subprocess.run([str(mp), "-c", D.PROBE], cwd=ROOT, capture_output=True, text=True)
    info = D.parse_probe(proc.stdout)
    assert info is not None, proc.stdout + proc.stderr
    assert info["impl"] == "micropython" and info["platform"] == "linux"
    assert info["frozen"] is False and info["frozen_fw"] is None and info["romfs"] == 0
    assert info["mpy"] & 0xFF == 6 and info["heap"] > 0 and info["files"] is False
    assert info["boot_log"] == ""
    image = tmp_path / "frozen"
    (image / "firmware/link").mkdir(parents=True)
    (image / "firmware/__init__.py").write_text("")
    (image / "firmware/link/__init__.py").write_text("")
    (image / "firmware/link/server.py").write_text('FIRMWARE = "9.9.9"\n')
    script = D.PROBE.replace("['.frozen']", repr([str(image)]))
    script += "import sys\nprint('left', [k for k in sys.modules if 'firmware' in k])\n"
    proc = subprocess.run([str(mp), "-c", script], cwd=tmp_path, capture_output=True, text=True)
    info = D.parse_probe(proc.stdout)
    assert info["frozen"] is True and info["frozen_fw"] == "9.9.9", proc.stdout + proc.stderr
    assert "left []" in proc.stdout


def test_wrong_pin_is_said_and_nothing_is_copied(tmp_path):
    board = FakeBoard(frozen=FW, app=True, pin="4821")
    with pytest.raises(D.DeployError, match="refused the PIN"):
        _go(tmp_path, board)
    assert _mp_commands(board) == [] and board.app and not board.link_open_at_mpremote


def test_locked_pin(tmp_path):
    board = FakeBoard(frozen=FW, app=True)

    class Locked(_FakeLink):
        def request(self, cmd, **fields):
            if cmd == "maintenance":
                raise LinkError("pin_locked", "too many wrong PINs: wait a minute")
            return super().request(cmd, **fields)

    board.link = lambda port: Locked(board)
    with pytest.raises(D.DeployError, match="too many wrong PINs"):
        _go(tmp_path, board)


def test_no_board(tmp_path):
    board = FakeBoard()
    with pytest.raises(D.DeployError, match="no board on /dev/ttyACM9"):
        D.deploy("/dev/ttyACM9", "0000", board.link, board, MP, tmp_path / "b", virtual=list)


def test_a_board_that_does_not_answer_the_pin(tmp_path):
    board = FakeBoard()  # at the REPL: the link gets no answer
    with pytest.raises(D.DeployError, match="no answer from /dev/ttyACM0.*without the PIN"):
        _go(tmp_path, board)
    assert _mp_commands(board) == []


def test_mpremote_missing_is_found_before_the_board_stops(tmp_path):
    board = FakeBoard(frozen=FW, app=True, missing=True)
    with pytest.raises(D.DeployError, match="mpremote is not available"):
        _go(tmp_path, board)
    board = FakeBoard(frozen=FW, app=True, fail={"version": (1, "No module named mpremote")})
    with pytest.raises(D.DeployError, match="No module named mpremote"):
        _go(tmp_path, board)
    assert board.requests == []  # the game was never interrupted


def _voice_source(folder, langs=("zh", "en")):
    # Small voice files of made-up clips, as tests/test_voice.py makes them.
    from host_tools.board import voicefile as VF
    from tests.test_voice import _clips

    folder.mkdir(parents=True, exist_ok=True)
    for lang in langs:
        (folder / (lang + ".bin")).write_bytes(VF.pack(lang, _clips()))
    return folder


def test_the_voice_files_go_to_the_boards_voice_folder(tmp_path):
    src = _voice_source(tmp_path / "voice")
    board = FakeBoard(frozen=FW, fs=BOARD_FILES, app=True)
    res, steps = _go(tmp_path, board, voice=src)
    b = str(tmp_path / "b")
    assert board.fs == BOARD_FILES | {"/voice/zh.bin", "/voice/en.bin"}
    assert _mp_commands(board)[-2] == [
        "exec",
        D.MKVOICE,
        "+",
        "fs",
        "cp",
        b + "/voice/zh.bin",
        ":voice/zh.bin",
        "+",
        "fs",
        "cp",
        b + "/voice/en.bin",
        ":voice/en.bin",
    ]
    assert res["files"] == ["boot.py", "main.py", "voice/zh.bin", "voice/en.bin"]
    assert "copy the voice" in steps and res["warnings"] == []
    assert (tmp_path / "b/voice/zh.bin").read_bytes() == (src / "zh.bin").read_bytes()


def test_missing_voice_files_are_made_and_without_espeak_deploy_goes_on(tmp_path):
    # A missing (or torn) file is made first; when it cannot be (no espeak-ng), the board
    # gets its firmware without the voice, and deploy says so.
    from host_tools.board import voice as B

    src = _voice_source(tmp_path / "voice", ("zh",))
    made = []

    def make(out, langs, log):
        made.append(langs)
        _voice_source(Path(out), langs)

    names, note = D.voice_files(tmp_path / "d1", src, make)
    assert made == [("en",)] and note == "" and len(names) == 2
    (src / "en.bin").write_bytes((src / "en.bin").read_bytes()[:-5])  # torn

    def no_espeak(out, langs, log):
        raise B.VoiceBuildError("espeak-ng is not installed: apt-get install espeak-ng")

    names, note = D.voice_files(tmp_path / "d2", src, no_espeak)
    assert names == [] and "espeak-ng is not installed" in note and "beep" in note
    board = FakeBoard(frozen=FW, fs=BOARD_FILES, app=True)
    real = B.build
    B.build = no_espeak
    try:
        res, steps = _go(tmp_path, board, voice=src)
    finally:
        B.build = real
    assert board.fs == BOARD_FILES and res["files"] == ["boot.py", "main.py"]
    assert res["warnings"] == [note] and "warning: " + note in steps
    assert "copy the voice" not in steps


def test_a_failed_copy_names_the_step(tmp_path):
    board = FakeBoard(frozen=FW, app=True, fail={"cp": (1, "cp: No space left on device.")})
    with pytest.raises(D.DeployError, match="could not copy boot.py and main.py") as e:
        _go(tmp_path, board)
    assert "No space left on device" in str(e.value)
    assert not any(c[-1] == "reset" for c in board.commands)  # stopped there: no reset


def test_a_fake_mpremote_command_line(tmp_path):
    # The real subprocess.run on a fake mpremote program: it keeps its arguments and answers
    # the probe as a stock board would; the refusal comes through its real stdout.
    script = tmp_path / "mpremote.py"
    log = tmp_path / "args.json"
    script.write_text(
        "import json, sys\n"
        "args = sys.argv[1:]\n"
        "with open(%r, 'a') as f:\n"
        "    f.write(json.dumps(args) + '\\n')\n"
        "if args == ['version']:\n"
        "    print('mpremote 1.29.0')\n"
        "elif 'exec' in args and 'TENGEN-PROBE' in args[-1]:\n"
        "    print('TENGEN-PROBE ' + json.dumps({'impl': 'micropython', 'version': '1.28.0',\n"
        "          'platform': 'rp2', 'mpy': %d, 'frozen': False, 'romfs': 0, 'heap': 1}))\n"
        "else:\n"
        "    sys.exit(3)\n" % (str(log), MPY_RP2)
    )
    board = FakeBoard()
    with pytest.raises(D.DeployError, match="stock MicroPython 1.28.0"):
        D.deploy(
            PORT,
            None,
            board.link,
            mpremote=[sys.executable, str(script)],
            build_dir=tmp_path / "b",
            virtual=list,
        )
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [["version"], ["connect", PORT, "exec", D.PROBE]]


def test_a_virtual_board_is_recognised_and_left_alone(tmp_path):
    board = FakeBoard(frozen=FW, app=True)
    with pytest.raises(D.DeployError, match="virtual board .* left running"):
        _go(tmp_path, board, virtual=lambda: [PORT])
    assert board.requests == [] and _mp_commands(board) == [] and board.app
    assert D.is_virtual("/dev/pts/4", {"name": "tengen"}, virtual=list)
    assert D.is_virtual("COM3", {"name": "tengen", "platform": "linux"}, virtual=list)
    assert not D.is_virtual("/dev/pts/4", None, virtual=list)  # no app answering: not known
    assert not D.is_virtual(PORT, {"name": "tengen", "fw": FW}, virtual=list)


def test_the_cli_says_what_it_did(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from host_tools.cli import app

    def fake_deploy(port, pin, progress=None, force=False, wait=30.0):
        progress("probe")
        progress("warning: careful")
        return {
            "files": ["boot.py", "main.py"],
            "bytes": 3000,
            "kind": D.FROZEN,
            "board": {
                "impl": "micropython",
                "version": "1.28.0",
                "frozen": True,
                "frozen_fw": FW,
                "platform": "rp2",
                "heap": 245_888,
            },
            "hello": {"fw": FW},
            "warnings": ["careful"],
        }

    monkeypatch.setattr(D, "deploy", fake_deploy)
    r = CliRunner().invoke(app, ["deploy", "--port", PORT, "--pin", "0000"])
    assert r.exit_code == 0, r.output
    assert "deployed 2 files (3000 bytes) to /dev/ttyACM0 beside the Tengen image" in r.output
    assert "done: the board answers (Tengen firmware %s)" % FW in r.output
    assert "deploy: warning: careful" in r.output

    def refused(port, pin, progress=None, force=False, wait=30.0):
        raise D.DeployError("the board runs stock MicroPython")

    monkeypatch.setattr(D, "deploy", refused)
    r = CliRunner().invoke(app, ["deploy", "--port", PORT])
    assert r.exit_code == 1 and "stock MicroPython" in r.output


# ---- against the virtual board (tengen sim) ------------------------------------------------------


def test_deploy_to_the_virtual_board_explains_and_leaves_it_running(tmp_path):
    # make sim's board on its pty: deploy recognises it (by its runtime note; and, with the
    # note out of sight, by its hello on a pseudo-terminal) and refuses, the PIN never used;
    # the board plays on. The hello wait itself works over the same pty.
    import os

    from host_tools.common.link import RUNTIME_ENV, Link
    from tests.host.board.test_virtual_board import MICROPYTHON, TENGEN, Sim

    if not MICROPYTHON.exists() or not TENGEN.exists():
        pytest.skip("the MicroPython unix port and the installed tengen command are needed")
    env = dict(os.environ, **{RUNTIME_ENV: str(tmp_path / "run")})
    env["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")
    sim = Sim(tmp_path / "flash", env)
    try:
        noted = lambda: [sim.link]  # noqa: E731 (what host_tools.common.link.virtual_ports says)
        for virtual in (noted, list):
            run = FakeBoard()
            with pytest.raises(D.DeployError) as e:
                D.deploy(
                    sim.link,
                    "0000",
                    run=run,
                    mpremote=MP,
                    build_dir=tmp_path / "b",
                    virtual=virtual,
                )
            assert "is a virtual board (tengen sim)" in str(e.value)
            assert _mp_commands(run) == []  # mpremote never reached for it
        hello = D.wait_for_hello(sim.link, timeout=10)
        assert hello["name"] == "tengen" and hello["board"] == sim.board_id
        assert sim.do("key pause")[-1] == "echo done 1"  # still playing: not in maintenance
        with Link(sim.link) as link:
            assert link.request("state")["clock"]["state"] == "running"
        r = subprocess.run(
            [str(TENGEN), "deploy", "--port", sim.link, "--pin", "0000"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert r.returncode == 1 and "virtual board" in r.stderr, r.stdout + r.stderr
        assert sim.proc.poll() is None and "bye maintenance" not in sim.said
    finally:
        assert sim.close() == 0


def test_real_mpremote_is_found():
    # The default command (python -m mpremote) when mpremote is installed, as `make` does.
    pytest.importorskip("mpremote")
    assert "mpremote" in D.check_mpremote()


def test_the_cli_builds_the_firmware(tmp_path):
    from typer.testing import CliRunner

    from host_tools.cli import app

    r = CliRunner().invoke(app, ["deploy", "--build-only", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    assert "files" in r.output and (tmp_path / "b" / "main.py").exists()


# ---- from an install: pip install / pipx install -------------------------------------------


def test_the_package_list_is_every_package_in_the_tree():
    import tomllib

    from setuptools import find_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = find_packages(where=str(ROOT), include=["host_tools*", "firmware*"])
    assert sorted(conf["packages"]) == sorted(found + [D.BOARD_PACKAGE])
    assert conf["package-dir"] == {D.BOARD_PACKAGE: "."}


def test_board_root_in_a_checkout_is_the_repository():
    assert D.board_root() == ROOT  # a checkout (editable install): not a package here


def _copy_sources(dest):
    # What a wheel is built from, copied: building in the checkout would leave build/ there.
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("firmware", "host_tools", "hardware"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in ("boot.py", "main.py", "pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, dest / name)


def _build_wheel(src, out):
    # pip wheel; without build isolation when this environment can build wheels itself (no
    # download), else isolated (pip fetches setuptools): skipped when there is no network.
    import importlib.util

    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
    if importlib.util.find_spec("wheel") or importlib.util.find_spec(
        "setuptools.command.bdist_wheel"
    ):
        cmd.append("--no-build-isolation")
    done = subprocess.run(
        cmd + ["-w", str(out), str(src)], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        text = done.stdout + done.stderr
        offline = ("Could not find a version", "Failed to establish", "NewConnectionError")
        if any(word in text for word in offline):
            pytest.skip("cannot build a wheel here without the package index:\n" + text[-500:])
        raise AssertionError(text)
    wheels = list(out.glob("tengen-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_deploy_build_only_from_an_installed_wheel(tmp_path):
    import sysconfig
    import zipfile

    src = tmp_path / "src"
    _copy_sources(src)
    wheel = _build_wheel(src, tmp_path / "dist")
    names = set(zipfile.ZipFile(wheel).namelist())
    board = "host_tools/board_files/"
    for f in D.board_modules() + ["boot.py", "main.py", "hardware/manifest.py"]:
        assert board + f in names, f
    assert "firmware/rules/go.py" in names  # the importable package too
    # The host tools' own files that are not Python (pyproject.toml's package-data): the
    # hall's pages and the emulator's models.
    assert "host_tools/hall/web/hall.js" in names
    for model in ("board", "glass", "speaker"):
        assert "host_tools/board/emulator_%s.js" % model in names

    # A fresh environment: the wheel installed, its dependencies borrowed from this one by a
    # .pth (nothing downloaded); no checkout anywhere on its path.
    env_dir = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
        + ["--no-index", "--disable-pip-version-check", "-q", str(wheel)],
        check=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [str(python), "-c", "from host_tools.board import deploy; print(deploy.board_root())"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip() == str(Path(site) / "host_tools" / "board_files")

    out = elsewhere / "build"
    done = subprocess.run(
        [str(env_dir / "bin" / "tengen"), "deploy", "--build-only", str(out)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    want = [m[: -len(".py")] + ".mpy" for m in D.board_modules()] + ["boot.py", "main.py"]
    got = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert got == sorted(want)
    assert "%d files" % len(want) in done.stdout
    assert (out / "main.py").read_bytes() == (ROOT / "main.py").read_bytes()
    assert (out / "firmware/rules/bitboard.mpy").read_bytes()[2] >> 2 == 4  # armv6m

    # tengen gtp from the same install, in this Python and on the unix port (found on PATH):
    # the engine comes from the install's files, whatever the folder.
    script = b"boardsize 9\nplay black E5\nlist_stones black\nquit\n"
    mp = Path(sys.executable).with_name("micropython")
    for extra in ([], ["--micropython"]) if mp.exists() else ([],):
        e = dict(env, PATH=str(mp.parent) + os.pathsep + env.get("PATH", ""))
        done = subprocess.run(
            [str(env_dir / "bin" / "tengen"), "gtp"] + extra,
            cwd=elsewhere,
            input=script,
            capture_output=True,
            env=e,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == b"= \n\n= \n\n= E5\n\n= \n\n", (extra, done.stdout)


class _Repl:
    """A freshly flashed board at MicroPython's REPL, as the serial port shows it: every
    line sent is echoed after the prompt, then answered with a Python error; no JSON reply."""

    port = "/dev/ttyACM0"

    def __init__(self):
        self.out = bytearray()
        self.timeout = 0.05

    def write(self, data):
        for line in bytes(data).split(b"\n"):
            if line:
                self.out += line + b"\r\nTraceback (most recent call last):\r\n"
                self.out += b"NameError: name 'v' isn't defined\r\n>>> "

    def flush(self):
        pass

    @property
    def in_waiting(self):
        return len(self.out)

    def read(self, n):
        data = bytes(self.out[:n])
        del self.out[:n]
        return data

    def close(self):
        pass


def test_a_board_at_the_repl_is_not_taken_for_an_app_that_refused():
    # README (hardware) §8 step 8 on a freshly flashed board: the REPL echoes the hello; that
    # echo is no reply (it read as "error" with no message and stopped the deploy).
    from host_tools.common.link import Link

    link = Link(_Repl(), timeout=0.2, retries=0)
    with pytest.raises(LinkError) as e:
        link.request("hello")
    assert e.value.code == "timeout"
    factory = lambda port: Link(_Repl(), timeout=0.2, retries=0)  # noqa: E731
    assert D.ask_board("/dev/ttyACM0", None, factory, virtual=list) is None
