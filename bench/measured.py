"""What the chip measured against the benches' estimates: chip / estimate, by kind of code.

``bench/chip.py`` (``make bench``'s last MicroPython section) runs the firmware on the Tengen
image on the emulated RP2040, whose clock is its counted Cortex-M0+ cycles at 125 MHz, beside
the unix port, and prints each figure both ways. A bench run alone on the unix port states a
figure as the chip runs it with these ratios, from the run in bench/README.md ("The chip
column"). They replace the x1.55 that research/on-chip.md guessed for comparison-heavy viper
loops. Each is the largest of its rows over three runs on a shared machine (the unix side of
a ratio wanders by 10-15 % with the host's load; the chip's side is the same every run),
rounded up; re-measure (``python -m bench.chip``) after changing a kernel, and update them
with the README's table.
"""

# Go's built worst cases (viper flood fill, lifts, the repetition scan behind the bytecode
# of Game.play): comb snake capture 1.13-1.36, legal() 1.17-1.23, the 1,024-ply game's worst
# move 1.37-1.47, a new position at ply 1,024 1.16-1.57. The kernels alone: flood 1.61-1.68,
# _take 1.32-1.64, _seen 1.70-1.73.
GO_WORST = 1.6
# Renju forbidden(): the searched worst 1.15-1.38, the tests' positions 1.20-1.29; the full
# scan 0.99-1.01.
RENJU = 1.4
# Sensing.update on a frame with no change (the viper _scan): 1.42-1.51.
SENSING = 1.55
# A frame with a change (Sensing.update + Referee.see): mean 1.05-1.11, the slowest 0.90-0.96.
REFEREE = 1.15
# selfcheck.run() once the kernels' modules are loaded: 0.70-0.73. The boot's first run, cold,
# also imports them: 333 ms on the chip (paid in build() either way; bench_selfcheck's
# "first" runs after its own imports).
SELFCHECK = 0.75
