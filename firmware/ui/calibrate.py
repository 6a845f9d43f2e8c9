"""The calibration procedure at the board, step by step on the faces (hardware/README.md).

1. "CAL EMPT": the board empty; MODE takes frames of it.
2. "CAL A": black stones on the points with x + y even, white on the odd ones; MODE.
3. "CAL B": the colours swapped; MODE.
Then "CAL OK" (or "CAL 3BAD" with the bad points listed in ``problems``); the calibration is
``result``. The frames go through ``firmware/sensing/calibration.py``'s ``Calibrator``, the
same procedure the tests and the simulator use.
"""

from micropython import const

from firmware.sensing.calibration import CalibrationError, Calibrator

FRAMES = const(8)  # frames taken per step (the procedure needs at least 4 of the empty board)

STEP_TEXT = ("CAL EMPT", "CAL A", "CAL B")


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
        """A scan; counted while a step takes its frames. True once the procedure is over."""
        if self.taking:
            (self.cal.add_empty, self.cal.add_pass_a, self.cal.add_pass_b)[self.step](frame)
            self.taking -= 1
            if not self.taking:
                self.step += 1
                if self.step == 3:
                    self._finish()
        return self.step == 3

    def _finish(self):
        try:
            self.result = self.cal.finish()
            self.problems = self.cal.problems
        except CalibrationError as e:
            self.error = str(e)

    def text(self):
        """What the faces show now."""
        if self.step < 3:
            return STEP_TEXT[self.step] + ("..." if self.taking else "")
        if self.result is None:
            return "CAL ERR"
        if self.problems:
            return "CAL %dBAD" % len(self.problems)
        return "CAL OK"
