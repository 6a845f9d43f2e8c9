"""The app plays a full game in a small MicroPython heap (-X heapsize), the figures reported.

bench/bench_app.py plays a corpus game through the app on the simulated grid and prints the
app's heap (its objects and the peak in play, beyond the loaded code and the simulated grid).
1 MB is the heap the run is given: most of it is the simulated grid's full checkerboard and the
firmware's code compiled from source on the unix port (more in a clone whose path is long: 768 KB
was found too tight there, fragmenting); the app's own share is what is asserted, 48 KB.
"""

import os
import subprocess

from tests.support import REPO

MICROPYTHON = os.path.join(REPO, ".venv", "bin", "micropython")


def test_a_full_game_in_a_small_heap():
    r = subprocess.run(
        [MICROPYTHON, "-X", "heapsize=1024k", "-m", "bench.bench_app", "--games", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    if "nothing to play" in r.stdout:
        return  # no corpus beside the repository: bench_app says so and plays nothing
    line = [x for x in r.stdout.splitlines() if x.strip().startswith("together:")][0]
    kb = float(line.split()[1])
    assert kb <= 48, line  # memory, not time: the same on every run
