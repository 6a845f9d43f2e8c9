# Tengen build and test targets. Run from the repository root; every target first makes the
# virtual environment (.venv), which is rebuilt whenever pyproject.toml changes.
#
#   make test    lint, pytest on CPython, tests/mp_run.py on the MicroPython unix port
#   make lint    ruff check + ruff format --check        make format   fix what ruff can
#   make sim     the virtual board: the whole board on the MicroPython unix port, its PC link on
#                a pty (tengen commands reach it); a terminal view played by keys, or headless
#   make gtp     the GTP front-end on the MicroPython unix port
#   make hall-demo  a tournament hall on this PC: Mosquitto, virtual boards playing scripted
#                games, tengen relay and tengen hall; prints the page's address (DEMO_ARGS:
#                e.g. --boards 8 --pace 2 --for 600 --folder DIR)
#   make bench   every bench/bench_*.py on the MicroPython unix port, the chip column (the
#                Tengen image on the emulated RP2040: bench/chip.py), then bench/host_sync.py
#   make hardware  the board's schematic as code: netlists, ERC, pin-map check, BOM, picture
#                (hardware/out/; HARDWARE_ARGS=--check only compares)
#   make voice   the clock's spoken phrases (espeak-ng, IMA ADPCM at 8 kHz) into build/voice/:
#                zh.bin and en.bin for the board's /voice/ (VOICE_ARGS=--wav: each clip as a WAV)
#   make chip    the Tengen image (MicroPython v1.28.0, the firmware frozen in) into
#                build/chip/tengen/, only if `tengen image check` passes it: from the offline
#                kit ../shared/rp2 (TENGEN_SHARED), or MICROPY_DIR=a v1.28.0 checkout
#                (CHIP_ARGS: e.g. --variant tengen unfixed stock, --clean, --verbose)
#   make clean   remove the virtual environment, caches and build artefacts

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MP := $(BIN)/micropython
STAMP := $(VENV)/.installed
# The test data (GNU Go referee games: JSON lines of up to 0.8 MB) needs more than the unix
# port's default 2 MB heap. The firmware's own memory budget is checked by its tests.
MP_TEST_HEAP := 64M
# pytest's workers (pytest-xdist): two per core, and the MicroPython suite beside them: most
# host tests wait on real time (a game, a broker, a browser), so a core has room for two. The
# longest tests start first and what shares a costly fixture runs on one worker (tests/conftest.py:
# the order). Every test keeps to its own temporary folder and free ports; what a session builds
# once (the chip's images, the emulator) is built under a file lock, so two runs share it.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

# kicad-symbols and kicad-footprints (KiCad's own libraries: the schematic's symbols, the
# footprints the BOM names and checks) and graphviz (the block diagram), from Debian's apt as
# root (the package list fetched only if a package is not found at first); make hardware runs
# it too, and it and tests/host/test_hardware.py say what is missing where it cannot be done.
HARDWARE_TOOLS = { [ -f /usr/share/kicad/symbols/74xx.kicad_sym ] && [ -d \
  /usr/share/kicad/footprints ] && command -v dot >/dev/null; } || { [ "$$(id -u)" = 0 ] && \
  command -v apt-get >/dev/null && { apt-get install -y -qq kicad-symbols kicad-footprints \
  graphviz || { apt-get update -qq && apt-get install -y -qq kicad-symbols kicad-footprints \
  graphviz; }; } >/dev/null 2>&1; }

# gcc-arm-none-eabi, its C library and C++ runtime, and CMake: what `make chip` needs beyond
# build-essential (the offline kit's README lists the same). As root with apt-get (the package
# list fetched only if a package is not found at first); otherwise it says what is missing.
CHIP_TOOLS = { command -v arm-none-eabi-gcc >/dev/null && [ -f \
  /usr/lib/arm-none-eabi/include/stdio.h ] && command -v cmake >/dev/null; } || { [ "$$(id \
  -u)" = 0 ] && command -v apt-get >/dev/null && { apt-get install -y -qq gcc-arm-none-eabi \
  libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake || { apt-get update -qq && \
  apt-get install -y -qq gcc-arm-none-eabi libnewlib-arm-none-eabi \
  libstdc++-arm-none-eabi-newlib cmake; }; } >/dev/null 2>&1; } || echo "make: the ARM \
  toolchain is missing and cannot be installed here (not root, or no apt-get): make chip \
  needs gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake"

# espeak-ng, from Debian's apt as root (the package list fetched only if it is not found at
# first); otherwise make voice says it is missing.
VOICE_TOOLS = command -v espeak-ng >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get \
  >/dev/null && { apt-get install -y -qq espeak-ng || { apt-get update -qq && apt-get install \
  -y -qq espeak-ng; }; } >/dev/null 2>&1; }

.DEFAULT_GOAL := test
.PHONY: venv test lint format sim gtp hall-demo bench hardware chip voice clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -e '.[dev]'
	@# @sabaki/sgf, a second SGF reader the export is checked with, and @sabaki/gtp, the GTP
	@# controller Sabaki uses (tests/host/gtp_match.js drives engine matches with it): a local
	@# install, never global; skipped where there is no npm or no registry: the tests say so.
	-command -v npm >/dev/null && npm install --prefix $(VENV)/node @sabaki/sgf@3.4.7 \
	  @sabaki/gtp@3.0.0 --no-audit --no-fund --silent
	@# binutils-arm-none-eabi: the ARM assembler and linker tests/host/board/test_image.py builds its
	@# firmware images with (Debian's apt, as root; the package list fetched only if the package
	@# is not found at first; skipped where that cannot be done: the test then says so).
	-command -v arm-none-eabi-as >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get \
	  >/dev/null && { apt-get install -y -qq binutils-arm-none-eabi || { apt-get update -qq \
	  && apt-get install -y -qq binutils-arm-none-eabi; }; } >/dev/null 2>&1; }
	@# mosquitto (the hall's MQTT broker: host_tools/hall/broker.py), chromium and chromium-driver
	@# (the hall's pages in a real browser, tests/host: Selenium): Debian's apt the same way.
	-{ [ -x /usr/sbin/mosquitto ] && command -v chromium >/dev/null && command -v chromedriver \
	  >/dev/null; } || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && { apt-get \
	  install -y -qq mosquitto chromium chromium-driver || { apt-get update -qq && apt-get \
	  install -y -qq mosquitto chromium chromium-driver; }; } >/dev/null 2>&1; }
	@# gnugo (GNU Go 3.8, /usr/games/gnugo: the real GTP opponent of tests/host/test_gtp_match.py
	@# and the engine journeys): Debian's apt the same way.
	-command -v gnugo >/dev/null || [ -x /usr/games/gnugo ] || { [ "$$(id -u)" = 0 ] && command \
	  -v apt-get >/dev/null && { apt-get install -y -qq gnugo || { apt-get update -qq && \
	  apt-get install -y -qq gnugo; }; } >/dev/null 2>&1; }
	@# espeak-ng (the speech synthesizer `make voice` speaks the clock's phrases with;
	@# tests/host/board/test_voice_build.py): Debian's apt the same way.
	-$(VOICE_TOOLS)
	-$(HARDWARE_TOOLS)
	@# The ARM toolchain and CMake `make chip` builds the Tengen image with (and the tests that
	@# build it: they skip without them), from Debian's apt the same way; said when it cannot.
	-@$(CHIP_TOOLS)
	touch $@

venv: $(STAMP)

# The board's design as code (hardware/design/): the netlists, the electrical rules check, the
# pin map checked against the firmware, the BOM and the block diagram, into hardware/out/.
# HARDWARE_ARGS=--check writes nothing and fails if hardware/out differs from the design.
hardware: $(STAMP)
	@-$(HARDWARE_TOOLS)
	$(BIN)/python -m hardware.design $(HARDWARE_ARGS)

# Lint, pytest, then the MicroPython runner: all three always run, so a failure in one does not
# hide the others' reports, and the target fails if any failed. pytest exits 5 when it collects
# no test; that is not a failure here. The emulated chip's images (make chip: every variant the
# tests boot) start building first, in the background, while lint and the first tests run;
# the chip tests wait for them (a lock), or skip saying why where they cannot be built.
test: $(STAMP)
	@status=0; \
	mkdir -p build; \
	echo "== the Tengen images for the emulated chip (make chip, meanwhile: build/chip-test.log)"; \
	{ $(BIN)/python -m host_tools.board.chip --variant tengen unfixed stock >build/chip-test.log 2>&1 & }; \
	echo "== lint (ruff)"; \
	$(MAKE) --no-print-directory lint || status=1; \
	$(MP) -X heapsize=$(MP_TEST_HEAP) tests/mp_run.py >build/mp-test.log 2>&1 & mp=$$!; \
	echo "== pytest (CPython, $(PYTEST_WORKERS) workers; the slowest tests listed at the end)"; \
	echo "   (beside it, the MicroPython suite: build/mp-test.log)"; \
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 || { rc=$$?; [ $$rc -eq 5 ] || status=1; }; \
	echo "== tests/mp_run.py (MicroPython unix port)"; \
	wait $$mp || status=1; \
	cat build/mp-test.log; \
	exit $$status

# Both checks always run; the target fails if either does.
lint: $(STAMP)
	@status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/ruff format --check . || status=1; \
	exit $$status

# Fixes first (ruff's advice: a fix may leave code unformatted), then format; lint errors that
# cannot be fixed automatically are still reported and fail the target.
format: $(STAMP)
	@status=0; \
	$(BIN)/ruff check --fix . || status=1; \
	$(BIN)/ruff format . || status=1; \
	exit $$status

# The virtual board (host_tools/board/sim.py): the terminal view with a terminal, else headless
# (commands on stdin, the board's lines on stdout). SIM_ARGS: e.g. --flash DIR, --seed N.
sim: $(STAMP)
	@$(BIN)/python -m host_tools.board.sim $(SIM_ARGS)

gtp: $(STAMP)
	$(MP) -m firmware.gtp

# The tournament hall's demo (host_tools/hall/demo.py; README "The tournament hall"). Ctrl-C
# ends it and every process it started.
hall-demo: $(STAMP)
	@$(BIN)/python -m host_tools.hall.demo $(DEMO_ARGS)

# Run as modules (-m bench.NAME) so that the repository root is on MicroPython's path. The
# chip section needs the image (make chip) and node; without them it says so and goes on.
bench: $(STAMP)
	@status=0; found=0; \
	for f in bench/bench_*.py; do \
	  [ -e "$$f" ] || continue; found=1; \
	  m=$$(basename "$$f" .py); \
	  echo "== $$f"; \
	  $(MP) -m bench.$$m || { echo "bench: $$f failed"; status=1; }; \
	done; \
	[ $$found -eq 1 ] || echo "bench: no bench/bench_*.py files yet, nothing to run"; \
	echo "== chip (emulated RP2040): bench/chip.py, the Tengen image beside the unix port"; \
	$(BIN)/python -m bench.chip || { echo "bench: bench/chip.py failed"; status=1; }; \
	echo "== bench/host_sync.py (CPython: the host tools over a pseudo-terminal)"; \
	$(BIN)/python -m bench.host_sync || { echo "bench: bench/host_sync.py failed"; status=1; }; \
	echo "== bench/hall_scale.py (CPython: 200 boards through 4 relays to the hall's two pages)"; \
	$(BIN)/python -m bench.hall_scale || { echo "bench: bench/hall_scale.py failed"; status=1; }; \
	exit $$status

# The clock's spoken phrases (host_tools/board/voice.py): espeak-ng speaks each clip once, in
# Mandarin and English, at 8 kHz in IMA ADPCM, into build/voice/zh.bin and en.bin (the board's
# /voice/); prints the bytes of each. VOICE_ARGS: e.g. --wav (each clip as a WAV to listen to).
voice: $(STAMP)
	@-$(VOICE_TOOLS)
	@$(BIN)/python -m host_tools.board.voice --out build/voice $(VOICE_ARGS)

# The Tengen image (host_tools/board/chip.py; hardware/README.md §8): the kit unpacked, picotool and
# mpy-cross made once (build/chip/kit/), the project's mpy-tool patch applied, the image built
# and let through only if `tengen image check` passes (else exit 1, nothing written).
chip: $(STAMP)
	@-$(CHIP_TOOLS)
	@$(BIN)/python -m host_tools.board.chip $(if $(MICROPY_DIR),--micropython "$(MICROPY_DIR)") \
	  $(CHIP_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build dist *.egg-info
	find . -path ./.git -prune -o -name __pycache__ -type d -prune -exec rm -rf {} + \
	  -o -name '*.mpy' -type f -exec rm -f {} +
