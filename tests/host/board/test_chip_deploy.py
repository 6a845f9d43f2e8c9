"""``tengen deploy`` on the emulated RP2040, on every board a maker has (issue 25, [N]).

The installed ``tengen`` over the emulator's pty, as README §8 step 8 runs it: a freshly
flashed Tengen image (deploy copies boot.py and main.py, the app answers ``hello`` with no
boot error), the same board with its app running (refused without the arbiter's PIN, done
with it), and a freshly flashed stock MicroPython (refused with the way to the Tengen image,
nothing written). The images come from ``make chip`` (the ``chip_images`` fixture); the
tests skip, saying why, where the offline kit, the ARM compiler or node is missing.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.board.emulator import Chip
from host_tools.common.link import Link

PIN = "0000"  # the factory PIN (firmware/game/settings.py)
BIN = Path(sys.executable).parent  # the installed tengen and mpremote (make venv)


def tengen(*args, timeout=300):
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run(
        [str(BIN / "tengen"), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def mpremote(port, *args):
    return subprocess.run(
        [str(BIN / "mpremote"), "connect", port, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def board_files(port):
    done = mpremote(port, "exec", "import os; print(sorted(os.listdir('/')))")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def hello(port):
    with Link(port, timeout=10) as link:
        return link.request("hello")


@pytest.mark.slow(28)
def test_deploy_on_a_fresh_tengen_board_then_on_its_running_app(chip_images, emu, tmp_path):
    with Chip(chip_images["tengen"] / "firmware.uf2", tmp_path, emu=emu) as chip:
        assert board_files(chip.port) == "[]"  # a freshly flashed board: an empty filesystem
        done = tengen("deploy", "--port", chip.port)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Tengen image" in done.stdout and "the board answers" in done.stdout
        info = hello(chip.port)
        assert info.get("fw") and not info.get("boot_error"), info

        # The app now owns the port: without the PIN nothing is touched.
        done = tengen("deploy", "--port", chip.port)
        assert done.returncode == 1
        assert "give the arbiter's PIN with --pin" in done.stdout + done.stderr
        assert hello(chip.port).get("fw")

        done = tengen("deploy", "--port", chip.port, "--pin", PIN)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not hello(chip.port).get("boot_error")
        assert chip.hardfaults() == 0


def test_deploy_on_a_fresh_stock_micropython_is_refused_with_the_way(chip_images, emu, tmp_path):
    with Chip(chip_images["stock"] / "firmware.uf2", tmp_path, emu=emu) as chip:
        before = board_files(chip.port)
        done = tengen("deploy", "--port", chip.port)
        out = done.stdout + done.stderr
        assert done.returncode == 1, out
        assert "stock MicroPython" in out and "Tengen image" in out and "make chip" in out
        assert "Nothing was changed" in " ".join(out.split())
        assert board_files(chip.port) == before
