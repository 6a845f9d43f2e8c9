"""``tengen deploy`` without hardware (host_tools/deploy.py): the build, the mpremote command
lines, the errors; and the freeze manifest (hardware/manifest.py) agreeing with the build."""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools import deploy as D
from host_tools.link import LinkError

ROOT = Path(__file__).resolve().parents[2]
MP = ["mpremote-test"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    files, total = D.build(out)
    return out, files, total


def test_build_compiles_every_board_module(built):
    out, files, total = built
    modules = D.board_modules()
    assert "firmware/device.py" in modules and "firmware/link/server.py" in modules
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
    # From main.py (which starts firmware.device) through every import, the modules that
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
    assert "firmware/device.py" in seen and "firmware/app.py" in seen


def test_manifest_freezes_what_deploy_builds():
    calls = []
    env = {
        "include": lambda *a, **k: calls.append(("include", a, k)),
        "package": lambda *a, **k: calls.append(("package", a, k)),
        "module": lambda *a, **k: calls.append(("module", a, k)),
    }
    exec(compile((ROOT / "hardware/manifest.py").read_text(), "manifest.py", "exec"), env)
    assert calls[0] == ("include", ("$(PORT_DIR)/boards/manifest.py",), {})
    (kind, args, kw) = calls[1]
    assert (kind, args, kw["base_path"]) == ("package", ("firmware",), "..")
    assert ["firmware/" + f for f in kw["files"]] == D.board_modules()
    for f in kw["files"]:
        assert (ROOT / "hardware" / ".." / "firmware" / f).is_file()


# ---- deploy with a fake board and a fake mpremote -------------------------------------------


class FakeLink:
    def __init__(self, reply=None, error=None, open_error=None):
        self.reply = reply if reply is not None else {"ok": True, "maintenance": True}
        self.error = error
        self.open_error = open_error
        self.requests = []
        self.closed = False
        self.ports = []

    def __call__(self, port):  # the link factory
        if self.open_error:
            raise self.open_error
        self.ports.append(port)
        return self

    def request(self, cmd, **fields):
        self.requests.append((cmd, fields))
        if self.error:
            raise self.error
        return self.reply

    def close(self):
        self.closed = True


class FakeRun:
    """Records each command; ``fail`` maps a word in a command to (returncode, stderr)."""

    def __init__(self, fail=None, missing=False):
        self.commands = []
        self.fail = fail or {}
        self.missing = missing
        self.link = None
        self.link_closed_at_first_mpremote = None

    def __call__(self, cmd, **kw):
        self.commands.append(cmd)
        if self.missing:
            raise FileNotFoundError(2, "No such file or directory", cmd[0])
        if self.link is not None and cmd[-1] != "version":
            if self.link_closed_at_first_mpremote is None:
                self.link_closed_at_first_mpremote = self.link.closed
        for word, (rc, err) in self.fail.items():
            if word in cmd:
                return subprocess.CompletedProcess(cmd, rc, "", err)
        out = "mpremote 1.29.0" if cmd[-1] == "version" else ""
        return subprocess.CompletedProcess(cmd, 0, out, "")


def test_deploy_asks_for_maintenance_then_runs_mpremote(tmp_path):
    link, run = FakeLink(), FakeRun()
    run.link = link
    steps = []
    res = D.deploy(
        "/dev/ttyACM0",
        "1234",
        link_factory=link,
        run=run,
        mpremote=MP,
        build_dir=tmp_path / "b",
        sleep=lambda s: None,
        progress=steps.append,
    )
    assert link.ports == ["/dev/ttyACM0"]
    assert link.requests == [("maintenance", {"pin": "1234"})]
    assert link.closed and run.link_closed_at_first_mpremote is True  # port free for mpremote
    b = str(tmp_path / "b")
    connect = MP + ["connect", "/dev/ttyACM0"]
    assert run.commands == [
        MP + ["version"],
        connect + ["exec", D.CLEAN],
        connect
        + ["fs", "cp", "-r", b + "/firmware", ":firmware"]
        + ["fs", "cp", b + "/boot.py", ":boot.py"]
        + ["fs", "cp", b + "/main.py", ":main.py"],
        connect + ["reset"],
    ]
    assert res["commands"] == run.commands[1:]
    assert res["mpremote"] == "mpremote 1.29.0"
    assert len(res["files"]) == len(D.board_modules()) + 2 and res["bytes"] > 100_000
    assert steps == [
        "check mpremote",
        "build",
        "maintenance",
        "remove the old firmware",
        "copy the firmware",
        "restart the board",
    ]


def test_deploy_without_pin_skips_maintenance_and_cleans_its_build(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    link, run = FakeLink(), FakeRun()
    D.deploy("COM3", None, link_factory=link, run=run, mpremote=MP, sleep=lambda s: None)
    assert link.requests == [] and len(run.commands) == 4
    assert list(tmp_path.iterdir()) == []  # the temporary build is gone


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


def test_clean_script_runs_on_micropython(tmp_path):
    mp = Path(sys.executable).parent / "micropython"
    if not mp.exists():
        pytest.skip("no MicroPython unix port in the venv")
    (tmp_path / "firmware/a").mkdir(parents=True)
    (tmp_path / "firmware/a/x.mpy").write_text("")
    script = D.CLEAN.replace("'/firmware'", "'firmware'")
    for _ in range(2):
        proc = subprocess.run([str(mp), "-c", script], cwd=tmp_path, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        assert not (tmp_path / "firmware").exists()


def _deploy(tmp_path, link, run):
    return D.deploy(
        "/dev/ttyACM0",
        "0000",
        link_factory=link,
        run=run,
        mpremote=MP,
        build_dir=tmp_path / "b",
        sleep=lambda s: None,
    )


def test_wrong_pin_is_said_and_nothing_is_copied(tmp_path):
    link, run = FakeLink(error=LinkError("bad_pin", "wrong PIN")), FakeRun()
    with pytest.raises(D.DeployError, match="refused the PIN"):
        _deploy(tmp_path, link, run)
    assert link.closed
    assert run.commands == [MP + ["version"]]


def test_locked_pin(tmp_path):
    link = FakeLink(error=LinkError("pin_locked", "too many wrong PINs: wait a minute"))
    with pytest.raises(D.DeployError, match="too many wrong PINs"):
        _deploy(tmp_path, link, FakeRun())


def test_no_board(tmp_path):
    link = FakeLink(open_error=LinkError("io", "cannot open /dev/ttyACM0: no such file"))
    with pytest.raises(D.DeployError, match="no board on /dev/ttyACM0"):
        _deploy(tmp_path, link, FakeRun())


def test_a_board_that_does_not_answer(tmp_path):
    link = FakeLink(error=LinkError("timeout", "no answer"))
    with pytest.raises(D.DeployError, match="no answer from /dev/ttyACM0"):
        _deploy(tmp_path, link, FakeRun())


def test_mpremote_missing_is_found_before_the_board_stops(tmp_path):
    link = FakeLink()
    with pytest.raises(D.DeployError, match="mpremote is not available"):
        _deploy(tmp_path, link, FakeRun(missing=True))
    run = FakeRun(fail={"version": (1, "No module named mpremote")})
    with pytest.raises(D.DeployError, match="No module named mpremote"):
        _deploy(tmp_path, link, run)
    assert link.requests == []  # the game was never interrupted


def test_a_failed_copy_names_the_step(tmp_path):
    run = FakeRun(fail={"cp": (1, "cp: No space left on device.")})
    with pytest.raises(D.DeployError, match="could not copy the firmware") as e:
        _deploy(tmp_path, FakeLink(), run)
    assert "No space left on device" in str(e.value)
    assert run.commands[-1][-1] == ":main.py"  # stopped there: no reset
    assert not any(c[-1] == "reset" for c in run.commands)


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
        [str(python), "-c", "from host_tools import deploy; print(deploy.board_root())"],
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
