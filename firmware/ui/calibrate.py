"""The calibration procedure at the board, step by step on the faces (hardware/README.md).

1. "CLEAR": the board empty; MODE takes frames of it ("CLEAR." while it does).
2. "CAL A": black stones on the points with x + y even, white on the odd ones; MODE.
3. "CAL B": the colours swapped; MODE.
Then "CAL OK" (or "BAD" and 3, with the bad points listed in ``problems``); the calibration is
``result``. The frames go through ``firmware/sensing/calibration.py``'s ``Calibrator``, the
same procedure the tests and the virtual board (firmware/hal/virtual.py) use.

``SelfTesting`` is the sensor self-test a maker runs after calibrating (the link's
``selftest``, ``tengen selftest``): the next ``TEST_FRAMES`` scans of the board at rest go
through ``firmware/sensing/selftest.py``; the faces say "TEST." meanwhile, then "TEST.OK", or
"BAD" with how many points alternating with the first one's fault and point ("PINNED" "D4").
The words are firmware/ui/texts.py's.
Its frames are copied only while it runs, and dropped once judged.
"""

from micropython import const

from firmware.sensing.calibration import FAULT_NAMES, CalibrationError, Calibrator
from firmware.ui import texts as T

FRAMES = const(8)  # frames taken per step (the procedure needs at least 4 of the empty board)

# Scans the self-test judges. A live sensor's ~1.4 counts of noise read the same value in all
# of 8 scans for about one point in 20,000 (a 19x19 board: a false "stuck" every 60 runs); in
# all of 16, one in 700 million. 16 copies of a 19x19 frame are 12 KB, for a moment.
TEST_FRAMES = const(16)
FAULTS_MAX = const(20)  # faulty points a link reply lists (the count says how many in all)
_ALTERNATE_MS = const(2000)


class Calibrating:
    """One run of the procedure on an ``n`` × ``n`` grid."""

    def __init__(self, n):
        self.cal = Calibrator(n)
        self.step = 0  # 0 empty, 1 pass A, 2 pass B, 3 finished
        self.taking = 0  # frames still to take for this step
        self.result = None
        self.problems = []
        self.error = ""

    def go(self):
        """MODE: take this step's frames (the stones are in place)."""
        if self.step < 3 and not self.taking:
            self.taking = FRAMES

    def frame(self, frame):
        """A scan; counted while a step takes its frames. True on the one that ends the
        procedure, only: the caller saves the result then, once (not at every scan until the
        maker presses a key)."""
        if not self.taking:
            return False
        (self.cal.add_empty, self.cal.add_pass_a, self.cal.add_pass_b)[self.step](frame)
        self.taking -= 1
        if not self.taking:
            self.step += 1
            if self.step == 3:
                self._finish()
                return True
        return False

    def _finish(self):
        try:
            self.result = self.cal.finish()
            self.problems = self.cal.problems
        except CalibrationError as e:
            self.error = str(e)

    def text(self):
        """What the faces show now: ``(big, small)``."""
        if self.step < 3:
            return (T.CAL_STEPS[self.step] + (T.BUSY if self.taking else ""), "")
        if self.result is None:
            return (T.CAL, T.ERR)
        if self.problems:
            return (T.BAD, str(min(len(self.problems), 999)))
        return (T.CAL_OK, "")


class SelfTesting:
    """One run of the sensor self-test on an ``n`` × ``n`` grid: ``frame`` takes the scans
    (``taking`` is how many are still to come), ``finish(sensing)`` judges them; then
    ``found`` is ``selftest``'s list (empty: every sensor is well) and ``text``, ``report``
    say it."""

    def __init__(self, n, frames=TEST_FRAMES):
        self.n = n
        self.taking = frames
        self.frames = []  # copies: the app's frame buffer is refilled by every scan
        self.taken = 0
        self.found = None
        self.error = ""
        self._texts = ((T.TEST_BUSY, "", "sensor self-test: keep the board still"),)

    def frame(self, frame):
        """A scan while the run takes them; True when it was the last one."""
        from array import array

        if not self.taking:
            return False
        self.frames.append(array("H", frame))
        self.taking -= 1
        return not self.taking

    def finish(self, sensing):
        """Judge the frames against what ``sensing`` knows (``selftest.Known``), drop them."""
        from firmware.sensing import selftest as ST

        self.taken = len(self.frames)
        try:
            self.found = ST.selftest(self.frames, ST.Known(sensing))
        except Exception as e:  # said, not raised: the board goes on
            self.found = []
            self.error = repr(e)
        self.frames = None
        found = self.found
        if self.error:
            self._texts = ((T.TEST, T.ERR, "sensor self-test failed: " + self.error),)
        elif not found:
            self._texts = ((T.TEST_OK, "", "sensor self-test: every point is well"),)
        else:
            i, bits, msg = found[0]
            k = len(found)
            first = T.FAULTS[0]
            for j in range(len(FAULT_NAMES)):
                if bits & FAULT_NAMES[j][0]:
                    first = T.FAULTS[j]
                    break
            bad = "%d bad point%s: %s" % (k, "" if k == 1 else "s", msg)
            point = msg[: msg.find(":")]
            self._texts = ((T.BAD, str(min(k, 999)), bad), (first, point, msg))

    def text(self, now):
        """``(word, small, more)`` for the faces now (a result alternates its two forms)."""
        t = self._texts
        return t[(now // _ALTERNATE_MS) % len(t)] if len(t) > 1 else t[0]

    def report(self):
        """The link's ``selftest`` reply fields: ``running``, or ``done`` with what was found."""
        if self.found is None:
            return {"running": True}
        from firmware.sensing.selftest import fault_names

        out = []
        for i, bits, msg in self.found[:FAULTS_MAX]:
            point = msg[: msg.find(":")]
            out.append({"point": point, "index": i, "faults": fault_names(bits), "message": msg})
        r = {"done": True, "frames": self.taken, "points": self.n * self.n}
        r["count"] = len(self.found)
        r["faults"] = out
        if self.error:
            r["error"] = self.error
        return r
