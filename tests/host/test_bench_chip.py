"""The chip benches (``bench/chip.py``) run end to end on a tiny subset, so they cannot rot.

Two corpus games (or none, without the shared corpus), a journal of 10 games, the Go, clock,
journal and boot drivers: the data image is made on the unix port, each driver runs there and
on the Tengen image on the emulated RP2040, the boot driver as the chip's ``main.py`` after a
reset, and the table comes out with both columns. No figure is checked against a threshold:
only that each was measured, on both runtimes. Skips without node, the image or the unix port.
"""

import json

import pytest

from bench import chip

# It runs the Tengen image on the emulated chip: with the chip's other tests (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("chip")


@pytest.mark.slow(24)
def test_chip_benches_run_end_to_end(tmp_path, capsys):
    try:
        chip.find_image()
        chip.find_emu()
        chip.find_micropython()
    except chip.Missing as e:
        pytest.skip(str(e))
    out = tmp_path / "figures.json"
    status = chip.main(
        ["--only", "go,clock,journal,boot", "--games", "2", "--journal", "10", "--tries", "20"]
        + ["--referee-moves", "5", "--calls", "10", "--passes", "1", "--json", str(out)]
        + ["--keep", str(tmp_path / "work")]
    )
    said = capsys.readouterr().out
    assert status == 0, said
    figures = json.loads(out.read_text())
    for side in ("unix", "chip"):
        for key in ("long_worst", "snake2_capture"):
            assert figures[side]["go"][key][0] > 0, (side, key, said)
        assert figures[side]["clock"]["clock_press"][0] > 0, (side, said)
        assert figures[side]["journal"]["journal_rebuild"][2] == "10_games", (side, said)
        assert figures[side]["boot"]["boot_build"][0] > 0, (side, said)
    assert figures["chip"]["boot"]["boot_power"][0] > figures["chip"]["boot"]["boot_build"][0]
    assert "comb snake 2 bands, capture" in said and "chip/est" in said
    assert "0 HardFaults" in said
