"""``make chip`` (host_tools/board/chip.py): the Tengen image built for real, and its gate.

The project's patch is applied to the offline kit's own tools/mpy-tool.py and then seen as
applied. The images come from the ``chip_images`` fixture (tests/host/conftest.py), built
through ``host_tools.board.chip.ensure`` from the offline kit ($TENGEN_SHARED/rp2) or a $MICROPY_DIR
checkout with the ARM toolchain: where either is missing those tests skip and say why. The
built image passes ``tengen image check`` and calls itself v1.28.0, not this repository's
``git describe``; the image built without the patch fails the check with its misaligned
functions named, and the gate refuses to write it. Starts at the patch file itself."""

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.board import chip
from host_tools.board import image as I

ROOT = Path(__file__).resolve().parents[3]
MPY_TOOL = "tools/mpy-tool.py"
FIXED = "            MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M,\n"


# ---- the patch --------------------------------------------------------------------------------


def test_the_patch_adds_armv6m_to_the_four_byte_list_and_nothing_else():
    text = chip.PATCH.read_text()
    assert "--- a/tools/mpy-tool.py\n+++ b/tools/mpy-tool.py\n" in text
    body = text[text.index("@@") :].splitlines()
    added = [ln for ln in body if ln.startswith("+")]
    removed = [ln for ln in body if ln.startswith("-")]
    assert added == ["+            MP_NATIVE_ARCH_ARMV6M,"] and removed == []
    context = [ln[1:] for ln in body if ln.startswith(" ")]
    assert "            MP_NATIVE_ARCH_ARMV6," in context  # right after ARMV6, in that list


@pytest.fixture
def upstream_tree(tmp_path):
    """A MicroPython tree holding upstream's tools/mpy-tool.py as the kit has it (or as the
    $MICROPY_DIR checkout has it, unpatched); skips when neither is there."""
    tree = tmp_path / "micropython"
    (tree / "tools").mkdir(parents=True)
    tarball = chip.kit_tarball()
    if tarball.is_file():
        member = "%s/micropython/%s" % (chip.KIT, MPY_TOOL)
        subprocess.run(
            ["tar", "-xJf", str(tarball), "-C", str(tmp_path), member], check=True, timeout=120
        )
        shutil.move(tmp_path / member, tree / MPY_TOOL)
    elif os.environ.get("MICROPY_DIR"):
        shutil.copyfile(Path(os.environ["MICROPY_DIR"]) / MPY_TOOL, tree / MPY_TOOL)
        if chip.patch_state(tree) == "applied":
            chip.set_patch(tree, False)
    else:
        pytest.skip("no MicroPython tree: %s" % chip.no_source_message())
    return tree


def test_the_patch_applies_to_the_kits_mpy_tool_and_is_then_seen_applied(upstream_tree):
    tool = upstream_tree / MPY_TOOL
    upstream = tool.read_text()
    assert FIXED not in upstream  # upstream as-is: the defect is there
    assert chip.patch_state(upstream_tree) == "unapplied"
    assert chip.set_patch(upstream_tree) is True
    assert chip.patch_state(upstream_tree) == "applied"
    assert FIXED in tool.read_text()
    assert chip.set_patch(upstream_tree) is False  # applied once, never twice
    assert (
        tool.read_text().count("MP_NATIVE_ARCH_ARMV6M,")
        == upstream.count("MP_NATIVE_ARCH_ARMV6M,") + 1
    )
    assert chip.set_patch(upstream_tree, applied=False) is True  # the unfixed variant's way
    assert tool.read_text() == upstream


def test_a_tree_the_patch_does_not_fit_is_refused(upstream_tree):
    tool = upstream_tree / MPY_TOOL
    tool.write_text(tool.read_text().replace("MP_NATIVE_ARCH_ARMV6,", "MP_NATIVE_ARCH_ARMV6 ,"))
    assert chip.patch_state(upstream_tree) == "conflict"
    with pytest.raises(chip.ChipError, match="does not apply.*MicroPython v1.28.0"):
        chip.set_patch(upstream_tree)


# ---- where MicroPython comes from ------------------------------------------------------------


def test_without_kit_or_checkout_the_error_says_both_ways(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TENGEN_SHARED", str(tmp_path))
    monkeypatch.delenv("MICROPY_DIR", raising=False)
    with pytest.raises(chip.ChipError) as e:
        chip.find_source()
    msg = str(e.value)
    assert e.value.code == chip.EXIT_USAGE
    assert str(tmp_path / "rp2" / "micropython-1.28.0-rp2.tar.xz") in msg
    assert "make chip MICROPY_DIR=" in msg
    assert "git clone --branch v1.28.0 --recurse-submodules" in msg
    assert chip.main(["--variant", "tengen"]) == chip.EXIT_USAGE
    assert "no MicroPython v1.28.0 to build from" in capsys.readouterr().err


def test_a_named_checkout_comes_first_and_must_be_micropython(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROPY_DIR", str(tmp_path))
    with pytest.raises(chip.ChipError, match="is not a MicroPython checkout"):
        chip.find_source()
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "mpconfig.h").write_text(
        "#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 27\n"
        "#define MICROPY_VERSION_MICRO 0\n"
    )
    (tmp_path / "ports" / "rp2").mkdir(parents=True)
    source = chip.find_source()
    assert source.kind == "checkout" and source.micropython == tmp_path.resolve()
    assert chip.tree_version(tmp_path) == "1.27.0"


def test_one_build_of_a_clone_at_a_time(tmp_path):
    probe = (
        "import fcntl, sys\n"
        "f = open(sys.argv[1], 'w')\n"
        "try:\n"
        "    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "except BlockingIOError:\n"
        "    sys.exit(3)\n"
    )
    lock = tmp_path / ".lock"
    with chip.locked(tmp_path):
        held = subprocess.run([sys.executable, "-c", probe, str(lock)], timeout=60)
    free = subprocess.run([sys.executable, "-c", probe, str(lock)], timeout=60)
    assert (held.returncode, free.returncode) == (3, 0)
    with open(lock) as f:  # released: taken at once
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_what_an_image_is_made_of():
    source = chip.Source("kit", ROOT, ROOT, chip.KIT_SHA256)
    tengen, unfixed = chip.inputs_digest("tengen", source), chip.inputs_digest("unfixed", source)
    assert tengen == chip.inputs_digest("tengen", source) and tengen != unfixed
    other = chip.Source("checkout", ROOT, None, "/elsewhere")
    assert chip.inputs_digest("stock", source) != chip.inputs_digest("stock", other)


# ---- the real build -----------------------------------------------------------------------------


def test_make_chip_builds_the_image_the_check_passes(chip_images):
    # The entry point make chip runs (everything is up to date after the fixture: seconds).
    done = subprocess.run(
        [sys.executable, "-m", "host_tools.board.chip", "--variant", "tengen"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chip: tengen image" in done.stdout
    folder = chip_images["tengen"]
    assert folder == chip.BUILD / "tengen"
    for name in chip.OUTPUTS + ("check.txt", chip.STAMP):
        assert (folder / name).is_file(), name
    report = I.check(folder / "firmware.elf")
    assert report["exit"] == I.EXIT_GOOD, [c.line() for c in report["checks"]]
    assert (folder / "check.txt").read_text().splitlines()[-1] == "image: good, flash it"
    layout = {c.name: c for c in report["checks"]}["layout"]
    assert layout.details["free"] >= I.FLASH_MARGIN


def test_the_image_calls_itself_v1_28_0_not_a_git_describe(chip_images):
    for variant in chip.VARIANTS:
        folder = chip_images[variant]
        assert json.loads((folder / chip.STAMP).read_text())["micropython"] == "v1.28.0"
        # The REPL's banner: "MicroPython v1.28.0 on <date>"; from inside this repository
        # git would have named it after this repository's commit.
        assert b"MicroPython v1.28.0 on " in (folder / "firmware.bin").read_bytes(), variant
    impl = I.image_implementation(I.Image(chip_images["tengen"] / "firmware.elf"))
    assert impl["version"] == "1.28.0" and impl["machine"] == "Tengen (RP2040) with RP2040"


def test_the_image_built_without_the_patch_fails_with_its_functions_named(chip_images):
    report = I.check(chip_images["unfixed"] / "firmware.elf")
    assert report["exit"] == I.EXIT_BAD
    alignment = {c.name: c for c in report["checks"]}["alignment"]
    assert alignment.status == I.FAILED
    misaligned = alignment.details["misaligned"]
    assert misaligned and all(int(m["address"], 16) % 4 == 2 for m in misaligned)
    assert any(m["function"].startswith("firmware/") for m in misaligned)
    assert misaligned[0]["function"].split(" (")[0] in alignment.verdict
    assert (chip_images["unfixed"] / "check.txt").read_text().splitlines()[-1] == (
        "image: BAD, do not flash it"
    )
    # The build leaves the tree patched: the next Tengen image is fixed again.
    assert chip.patch_state(chip.find_source().micropython) == "applied"


def test_the_gate_refuses_the_unfixed_image_and_writes_nothing(chip_images, tmp_path, capsys):
    out = tmp_path / "tengen"
    out.mkdir()
    (out / "firmware.uf2").write_bytes(b"an older image")  # never left beside a refusal
    with pytest.raises(chip.ChipError, match="image: BAD, not written"):
        chip.gate(chip_images["unfixed"] / "firmware.elf", out)
    assert not out.exists()
    assert "FAILED  native code alignment" in capsys.readouterr().out
    # The same gate lets the fixed image through, with the check's lines beside it.
    report = chip.gate(chip_images["tengen"] / "firmware.elf", out)
    assert report["exit"] == I.EXIT_GOOD
    assert sorted(p.name for p in out.iterdir()) == sorted(chip.OUTPUTS + ("check.txt",))


def test_the_flash_budget_fails_a_real_image_held_to_more(chip_images):
    img = I.Image(chip_images["tengen"] / "firmware.elf")
    c = I.check_layout(img)
    free = c.details["free"]
    assert c.status == I.OK and free >= I.FLASH_MARGIN
    over = I.check_layout(img, margin=free + 1024)
    assert over.status == I.FAILED and "1.0 KiB short of the" in over.verdict


def test_the_stock_image_is_no_tengen_image(chip_images):
    report = I.check(chip_images["stock"] / "firmware.elf")
    frozen = {c.name: c for c in report["checks"]}["frozen"]
    assert frozen.status == I.FAILED and report["exit"] == I.EXIT_BAD
    impl = I.image_implementation(I.Image(chip_images["stock"] / "firmware.elf"))
    assert impl["machine"] == "Raspberry Pi Pico with RP2040"
