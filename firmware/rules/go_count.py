"""Counting a finished Go game by area (数子法, seed 000 第九条) and stating the result.

The players lift the dead stones off the board (the board sees it); what remains counts as
alive. A side's area is its stones plus the empty regions that touch only its stones; a
region touching both colours (dame, the shared points of a seki) is split half and half
(双方活棋之间的空点各得一半). The baseline is half the board, 180½ on 19×19.

Everything is kept in whole units to avoid floats: areas in half points, margins in quarter
stones (one stone = two points, so a quarter stone is half a point). Komi is given in half
points: 2¾ stones (000 第十一条, 1979/1988) = 11, 3¾ stones (current rules) = 15, Taiwan's
6 points (003 第11条: 黑184子為勝) = 12; handicap games (让先) have none (001).
"""

from micropython import const

from firmware.rules.bitboard import flood, new_array, popcount, scratch, touches
from firmware.rules.go_board import BLACK, WHITE

KOMI_1988 = const(11)
KOMI_NATIONAL = const(15)
KOMI_TAIWAN = const(12)

_FRACTIONS = ("", "¼", "½", "¾")


class Count:
    """The area count of a position: stones, regions and each side's area in half points."""

    def __init__(self, size):
        self.size = size
        self.black_stones = 0
        self.white_stones = 0
        self.black_territory = 0
        self.white_territory = 0
        self.shared = 0  # empty points touching both colours (dame, seki)
        # (owner or colour, first row, row masks): expanded into points only when asked for.
        self._regions = []
        self._groups = []

    @property
    def regions(self):
        """Empty regions as ``(owner, points)``: owner BLACK, WHITE or 0 (shared or neutral)."""
        return [(owner, _points(lo, masks)) for owner, lo, masks in self._regions]

    @property
    def groups(self):
        """Groups of stones (connected, whatever their life) as ``(color, points)``."""
        return [(c, _points(lo, masks)) for c, lo, masks in self._groups]

    @property
    def black_area2(self):
        """Black's area in half points: stones + territory + half of the shared points."""
        return 2 * (self.black_stones + self.black_territory) + self.shared

    @property
    def white_area2(self):
        """White's area in half points."""
        return 2 * (self.white_stones + self.white_territory) + self.shared

    def margin4(self, komi2, black_warnings=0, white_warnings=0):
        """Black's margin in quarter stones (negative: White ahead).

        Black's count minus the baseline (half the board) minus the komi in stones; each
        warning costs the warned side one stone (004 第24条: 被警告方罚出一子).
        """
        return (
            2 * self.black_area2
            - 2 * self.size * self.size
            - komi2
            - 4 * black_warnings
            + 4 * white_warnings
        )


def count(board, dead=()):
    """Count ``board`` by area with the stones at the points in ``dead`` removed first."""
    n = board.size
    rows = new_array("I", 3 * n)
    for i in range(2 * n):
        rows[i] = board.rows[i]
    for x, y in dead:
        bit = 1 << x
        rows[y] &= ~bit
        rows[n + y] &= ~bit
    full = (1 << n) - 1
    for y in range(n):
        rows[2 * n + y] = full & ~(rows[y] | rows[n + y])
    result = Count(n)
    g = scratch(n)
    seen = new_array("I", n)
    for layer in (2, 0, 1):  # empty regions, then black groups, then white groups
        off = layer * n
        for y in range(n):
            rest = rows[off + y] & ~seen[y]
            while rest:
                x = 0
                while not rest & (1 << x):
                    x += 1
                flood(rows, off, n, g, x, y, 0)
                lo = g[n]
                hi = g[n + 1]
                size = 0
                for yy in range(lo, hi + 1):
                    seen[yy] |= g[yy]
                    size += popcount(g[yy])
                masks = tuple(g[lo : hi + 1])
                if layer == 2:
                    b = touches(g, lo, hi, rows, 0, n)
                    w = touches(g, lo, hi, rows, n, n)
                    if b and not w:
                        result.black_territory += size
                        owner = BLACK
                    elif w and not b:
                        result.white_territory += size
                        owner = WHITE
                    else:
                        result.shared += size
                        owner = 0
                    result._regions.append((owner, lo, masks))
                elif layer == 0:
                    result.black_stones += size
                    result._groups.append((BLACK, lo, masks))
                else:
                    result.white_stones += size
                    result._groups.append((WHITE, lo, masks))
                rest = rows[off + y] & ~seen[y]
    return result


def _points(lo, masks):
    out = []
    y = lo
    for row in masks:
        x = 0
        while row:
            if row & 1:
                out.append((x, y))
            row >>= 1
            x += 1
        y += 1
    return out


def _stones_text(q):
    whole = q // 4
    frac = _FRACTIONS[q % 4]
    if whole == 0:
        return frac
    return str(whole) + frac


def result_chinese(margin4):
    """The result in Chinese style: ``黑胜1¾子``, ``白胜½子`` or ``和棋``."""
    if margin4 == 0:
        return "和棋"
    if margin4 > 0:
        return "黑胜" + _stones_text(margin4) + "子"
    return "白胜" + _stones_text(-margin4) + "子"


def result_sgf(margin4):
    """The result as SGF ``RE``: ``B+3.5``, ``W+0.5`` or ``0`` (points = 2 × stones)."""
    if margin4 == 0:
        return "0"
    winner = "B" if margin4 > 0 else "W"
    half = abs(margin4)  # a quarter stone is half a point
    text = str(half // 2)
    if half % 2:
        text += ".5"
    return winner + "+" + text
