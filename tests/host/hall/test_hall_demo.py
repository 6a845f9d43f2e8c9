"""``make hall-demo`` (host_tools/hall/demo.py) end to end: the broker, two virtual boards
playing scripted games, ``tengen relay`` and ``tengen hall`` as it starts them; the page's
address printed, both boards online on the hall's API with the pairings' names, moves
arriving; at the end (``--for``) every process it started is gone.
"""

import csv
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[3]
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"
PREFIX = "Tengen hall demo: open "


def _mosquitto():
    from host_tools.hall import broker

    try:
        return broker.mosquitto()
    except broker.BrokerError:
        return None


pytestmark = [
    pytest.mark.skipif(
        not MICROPYTHON.exists(),
        reason="the MicroPython unix port is needed (make venv)",
    ),
    pytest.mark.skipif(
        _mosquitto() is None or not shutil.which("mosquitto_passwd"),
        reason="Mosquitto is not installed: make venv (as root), or apt-get install mosquitto",
    ),
]


def _get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


@pytest.mark.slow(28)
def test_the_hall_demo_shows_two_boards_playing_then_stops_everything(tmp_path):
    env = dict(os.environ)
    env["TENGEN_RUNTIME_DIR"] = str(tmp_path / "run")  # the demo uses its own; belt and braces
    env["TENGEN_CONFIG_DIR"] = str(tmp_path / "config")
    env["TENGEN_DATA_DIR"] = str(tmp_path / "data")
    folder = tmp_path / "demo"
    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools.hall.demo"]
        + ["--boards", "2", "--pace", "1", "--for", "25", "--folder", str(folder)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    errors = []
    threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True).start()
    seen = set()
    try:
        url = None
        end = time.monotonic() + 120
        while url is None:
            try:
                line = lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                pytest.fail("no address printed: %s" % "".join(errors)[-2000:])
            assert proc.poll() is None or not lines.empty(), "".join(errors)[-2000:]
            if line.startswith(PREFIX):
                url = line[len(PREFIX) :].strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        seen.update(p.pid for p in psutil.Process(proc.pid).children(recursive=True))

        with open(folder / "pairings.csv", newline="") as f:
            pairings = {r["board"]: (r["black"], r["white"]) for r in csv.DictReader(f)}
        assert len(pairings) == 2

        boards = games = None
        while proc.poll() is None:
            seen.update(p.pid for p in psutil.Process(proc.pid).children(recursive=True))
            try:
                boards = _get(url + "api/boards")
                games = _get(url + "api/games")
            except OSError:
                time.sleep(0.3)
                continue
            online = {b["id"]: (b["black"], b["white"]) for b in boards if b["online"]}
            moved = {g["board"] for g in games if g["moves"] > 0}
            if online == pairings and moved == set(pairings):
                break
            time.sleep(0.3)
        else:
            pytest.fail("the demo ended first: boards %r games %r" % (boards, games))
    finally:
        try:
            proc.wait(timeout=90)  # --for 25: it ends by itself
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(errors)[-2000:]
    # The broker, two boards, the relay, the hall: each started, each gone now.
    names = {"mosquitto", "micropython", "tengen"}
    assert len(seen) >= 5, seen
    alive = []
    for pid in seen:
        try:
            p = psutil.Process(pid)
            if p.status() != psutil.STATUS_ZOMBIE and any(
                n in " ".join(p.cmdline()) for n in names
            ):
                alive.append((pid, p.cmdline()))
        except psutil.NoSuchProcess:
            pass
    assert alive == []
    assert not list((folder / "run").glob("virtual-*.json"))  # the boards' notes are gone


def test_the_demo_pairings_are_a_pairings_file_and_bad_arguments_are_refused(tmp_path):
    from host_tools.hall import demo as D
    from host_tools.hall import pairings as P

    D.write_pairings(tmp_path / "p.csv", ["vaaa", "vbbb", "vccc"])
    rows = P.read(tmp_path / "p.csv")
    assert [(r["round"], r["table"], r["board"]) for r in rows] == [
        ("1", "1", "vaaa"),
        ("1", "2", "vbbb"),
        ("1", "3", "vccc"),
    ]
    names = [r["black"] for r in rows] + [r["white"] for r in rows]
    assert len(set(names)) == 6 and all(names)
    for bad in (["--boards", "0"], ["--pace", "-1"], ["--for", "soon"]):
        with pytest.raises(SystemExit) as e:
            D.main(bad)
        assert e.value.code == 2


def test_tengen_broker_writes_the_halls_configuration(tmp_path):
    from typer.testing import CliRunner

    from host_tools.cli import app

    runner = CliRunner()
    folder = tmp_path / "broker"
    r = runner.invoke(
        app,
        ["broker", "--hall", "cup", "--folder", str(folder), "--port", "1884"]
        + ["--relay", "east=r-secret", "--relay", "west", "--password-hall", "h-secret"],
    )
    assert r.exit_code == 0, r.output
    conf = (folder / "mosquitto.conf").read_text()
    assert "listener 1884 0.0.0.0" in conf and "allow_anonymous false" in conf
    assert "pattern write tengen/cup/+/events/%u" in (folder / "acl").read_text()
    users = [line.split(":")[0] for line in (folder / "passwd").read_text().split()]
    assert users == ["hall", "public", "relay-east", "relay-west"]  # one user per relay
    assert "r-secret" not in (folder / "passwd").read_text()  # hashed
    # The passwords not given are made up and printed once; the given ones never.
    made = [line.split() for line in r.output.splitlines() if line.startswith("  ")]
    assert [m[0] for m in made] == ["public", "relay-west"] and len(made[0][1]) >= 12
    assert "r-secret" not in r.output and "h-secret" not in r.output
    assert "mosquitto -c %s" % (folder / "mosquitto.conf") in r.output

    r = runner.invoke(app, ["broker", "--hall", "no good", "--folder", str(tmp_path / "x")])
    assert r.exit_code == 2 and "1-32 letters" in r.output
