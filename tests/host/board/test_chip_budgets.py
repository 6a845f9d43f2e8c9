"""The chip's budgets as checks that fail, on the emulated RP2040 (host_tools/board/budgets.py).

Start reading at ``test_a_fresh_board_has_its_heap_and_boots_in_time``. The Tengen image boots
on the emulator (host_tools/board/emulator.py's ``Chip``) and the board says its figures in its
link's ``hello`` (firmware/link/server.py): the free heap after ``build()``, now (after a
collection) and the least seen, and ``face_ms``, the tick of the first face drawn (the RP2040's
ticks count from power-up: emulated ms, cycle-counted). Two boards:

- a fresh flash: ``tengen deploy`` puts boot.py and main.py on it and restarts it; its heap
  after ``build()`` and its boot time are checked, then a few moves are played by stones and
  paddles (``Chip.put``, ``Chip.press``) and the heap in play is checked;
- a flash made on this PC holding 1,000 finished games, 500 acknowledged (tests/host/
  chip_flash.py: the firmware's own journal files in the rp2 port's LittleFS, loaded at the
  image's filesystem offset): the board boots on it (its journal's index rebuilt), then the
  PC lists every game, reads one whole and acknowledges one, and nothing answers
  ``no_memory``; the heap after that is checked.

The image: the session's ``chip_images`` (tests/host/conftest.py), built from this tree by
``make chip``'s code; the emulator: the session's ``emu``. Wall time: ~1-2 minutes each on a shared 2-core machine (the chip runs at
about a tenth of real time while it scans); the figures are printed (``-s``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host_tools.board import budgets
from host_tools.board import emulator as E
from host_tools.common.link import Link, LinkError

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def image(chip_images):
    """``(uf2, elf)``: the image ``make chip`` built from this tree."""
    folder = chip_images["tengen"]
    return folder / "firmware.uf2", folder / "firmware.elf"


def _tengen(*args, timeout=600):
    # The installed ``tengen`` (make venv: this checkout, editable), as a maker runs it.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [str(Path(sys.executable).parent / "tengen"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _hello(chip, wait=300.0):
    # The app's hello once it answers; a board whose boot stopped says why on its console
    # (main.py: "tengen: fatal: ...") and is not waited for.
    from host_tools.board.deploy import wait_for_hello

    end = time.monotonic() + wait
    hello = None
    while hello is None and time.monotonic() < end:
        hello = wait_for_hello(chip.port, timeout=5.0)
        said = Path(chip.port + ".out.log")
        fatal = said.exists() and re.search(
            r"tengen: fatal: .*", said.read_text("utf-8", "replace")
        )
        if hello is None and fatal:
            pytest.fail("the board's boot stopped: " + fatal.group(0))
    assert hello is not None, "the board's app did not answer hello"
    assert hello.get("boot_error") is None, hello
    assert "heap" in hello, "the image's hello has no heap: it was not built from this tree"
    return hello


def _emulated_s(chip) -> float:
    # The emulated time of the runner's latest log line (``[emu <ms>ms]``; with ``stats`` one
    # line every emulated second).
    found = re.findall(r"\[emu ([0-9.]+)ms\]", chip.log())
    return float(found[-1]) / 1000 if found else 0.0


def _say(text):
    print("\n[chip budgets] " + text)


# ---- a fresh board ---------------------------------------------------------------------------


def _ply(link):
    return link.request("state")["ply"]


def _play(chip, link, moves):
    # Black's clock started with PAUSE (pressed again until it runs); each stone put on the
    # grid, then its player's paddle (Black's is the right one), pressed again until the
    # board has taken the move.
    end = time.monotonic() + 120
    while not link.request("state")["clock"]["running"]:
        assert time.monotonic() < end, "PAUSE did not start the game"
        chip.press("pause")
    for i, (x, y) in enumerate(moves):
        chip.put(x, y, "b" if i % 2 == 0 else "w")
        # The paddle once the board has seen the stone (200 ms of its running clock: the
        # runner reads its controls every 200 ms of real time, the scan debounces 10 ms);
        # pressed with the stone, it would be a pass.
        seen = link.request("state")["clock"]["elapsed"] + 200
        while link.request("state")["clock"]["elapsed"] < seen:
            time.sleep(0.2)
        end = time.monotonic() + 120
        while _ply(link) <= i:
            assert time.monotonic() < end, "move %d was not taken" % (i + 1)
            chip.press("right" if i % 2 == 0 else "left")


@pytest.mark.slow(27)
def test_a_fresh_board_has_its_heap_and_boots_in_time(image, emu, tmp_path):
    chip = E.Chip(image[0], tmp_path / "chip", emu=emu, wall=900)
    with chip:
        done = _tengen("deploy", "--port", chip.port, "--wait", "300")
        assert done.returncode == 0, done.stdout + done.stderr
        hello = _hello(chip)
        built, boot = hello["heap"]["built"], hello["face_ms"]
        _say("after build(): %d B free; first face %d ms after power-up" % (built, boot))
        assert built >= budgets.HEAP_BUILT, (built, budgets.HEAP_BUILT)
        assert 0 < boot <= budgets.BOOT_MS, (boot, budgets.BOOT_MS)
        with Link(chip.port, timeout=10) as link:
            _play(chip, link, [(3, 3), (15, 15), (15, 3), (3, 15)])
            # The image's long ints are 64-bit (mpconfigtrim.h): a number past them in a
            # request is refused as bad input, and the board answers the next one.
            with pytest.raises(LinkError) as refused:
                link.request("state", id_extra=10**30)
            assert refused.value.code == "bad_json", refused.value
            assert "64 bits" in str(refused.value), refused.value
            heap = link.request("hello")["heap"]
        _say("playing (4 moves): %d B free, least %d" % (heap["free"], heap["low"]))
        assert heap["free"] >= budgets.HEAP_PLAYING and heap["low"] >= budgets.HEAP_PLAYING, heap
    assert chip.hardfaults() == 0, chip.log()[-2000:]


# ---- the journal at 1,000 games --------------------------------------------------------------


@pytest.mark.slow(30)
def test_the_journal_at_a_thousand_games_answers_on_the_chip(image, emu, tmp_path):
    from host_tools.board.image import Image, filesystem
    from tests.host.board import chip_flash
    from tests.host.test_journal_heap import journal

    offset, size = filesystem(Image(image[1]))
    src = tmp_path / "files"
    journal(src / "games", budgets.JOURNAL_ACKED)
    fresh = 2  # the odd games are acknowledged first: game 2 is not
    chip_flash.board_files(src)
    fs = tmp_path / "fs.bin"
    chip_flash.littlefs(src, fs, size)
    chip = E.Chip(image[0], tmp_path / "chip", emu=emu, wall=900, stats=True, fs=(fs, offset))
    with chip:
        hello = _hello(chip)
        built, boot = hello["heap"]["built"], hello["face_ms"]
        _say(
            "1,000 games: after build() %d B free; first face %d ms after power-up" % (built, boot)
        )
        assert built >= budgets.HEAP_BUILT_JOURNAL, (built, budgets.HEAP_BUILT_JOURNAL)
        assert 0 < boot <= budgets.BOOT_JOURNAL_MS, (boot, budgets.BOOT_JOURNAL_MS)
        with Link(chip.port, timeout=120, retries=1) as link:
            times = {}

            def timed(what, cmd, **fields):
                w, e = time.monotonic(), _emulated_s(chip)
                try:
                    r = link.request(cmd, **fields)
                except LinkError as err:  # no_memory among them: the budget is not met
                    pytest.fail("%s at 1,000 games: %s" % (cmd, err))
                t = times.setdefault(what, [0, 0.0, 0.0])
                t[0] += 1
                t[1] += time.monotonic() - w
                t[2] += _emulated_s(chip) - e
                return r

            listed, acked, after = 0, 0, 0
            while True:
                r = timed("list", "list", after=after)
                listed += len(r["games"])
                acked += sum(g["acked"] for g in r["games"])
                if not r["more"]:
                    break
                after = r["games"][-1]["no"]
            assert (listed, acked) == (budgets.JOURNAL_GAMES, budgets.JOURNAL_ACKED)
            offset = 0
            while True:
                r = timed("get", "get", game=fresh, offset=offset, length=2048)
                offset += 2048
                if r["eof"]:
                    break
            assert r["size"] > 0
            assert timed("ack", "ack", game=fresh)["acked"] is True
            heap = timed("hello", "hello")["heap"]
        for what, (n, wall, emulated) in times.items():
            _say(
                "%s: %d requests, %.2f s wall each, ~%d ms emulated each (read off the"
                " runner's stats lines: 1 s apart with the kit's runner)"
                % (what, n, wall / n, emulated * 1000 / n)
            )
        _say("after them: %d B free, least %d" % (heap["free"], heap["low"]))
        assert heap["low"] >= budgets.HEAP_SYNCED, (heap, budgets.HEAP_SYNCED)
    assert chip.hardfaults() == 0, chip.log()[-2000:]
