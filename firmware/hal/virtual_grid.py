"""Simulated Hall-sensor grid: raw frames from a physical model of the board, the virtual board's
scanner (``firmware/hal/virtual.py``; ``make sim``, the replays, the tests) on the MicroPython
unix port and CPython. Never used on the board itself.

A frame is what the real scan engine delivers: ``array('H')`` of n*n 12-bit ADC counts, index
``y*n + x`` (y = 0 the bottom row, x = 0 the left column). Start reading at ``SimGrid``: stones
are put, moved, slid, lifted; ``scan(frame)`` fills one frame per call (time-free: the caller
decides how many scans a movement lasts). ``checkerboard()`` lays out the two calibration passes.

The physics, with the figures chosen (research/hardware.md §1.2 and §5):

- Field: 6×3 mm N35 disc (Br = 1.21 T) axially magnetised, its face z = 5 mm above the Hall die
  (board top 3–5 mm + stone skin + package). ``magnet_bz`` is the exact field of a uniformly
  magnetised cylinder (Derby & Olbert, Am. J. Phys. 78 (2010) 229, with Bulirsch's ``cel``):
  47.7 mT on axis; 64 % of it left 3 mm off-centre, 29 % at 5 mm, zero near 9.5 mm, then the
  opposite sign, ≈ −1.1 % at 22 mm. These match the research's table (48 mT, 29 %, 1.9 mT
  for four neighbours).
- Gain: 15 mV/mT at 3.3 V (a DRV5055A3/TMAG5253-class ratiometric sensor) = 18.6 counts/mT,
  so a centred stone moves its point by 888 counts: black down to ≈ 1160, white up to ≈ 2940.
  Per-sensor gain spread σ = 7 % (sensitivity tolerance and die height lumped; *est.*),
  per-stone magnet spread σ = 2 % (Br and thickness tolerance; *est.*).
- Baseline: 2048 (VCC/2, ratiometric) + a per-sensor offset, σ = 25 counts (*est.*).
- Crosstalk: the field's negative lobe is scaled so that a stone moves a neighbour one pitch
  away (22 mm) by ``-crosstalk`` of its own delta (default 1.5 %, a little above the magnet's
  1.1 % to cover shared-column effects); neighbours further away follow the field's tail
  (23.7 mm: 1.3 %, diagonals 0.6 %). ``crosstalk=None`` keeps the bare magnet.
- Pitch 22.0 mm across × 23.7 mm along (a standard Go board); off-centre offsets are in pitch
  units. A stone half-way between two points reads about −2 % on both (the negative lobe).
- Noise: ``noise`` is the RMS of a reading about its mean, quantisation included (RP2040:
  0.97–1.36 LSB measured, so 1.4 by default); a sum of four uniform bytes (bounded ±3.5 σ).
- Polarity: black North down → B < 0 → below baseline; white South down → above (§5).

Faults, given at construction as points ``(x, y)``: ``reversed`` (sensor mounted upside down:
opposite sign), ``dead`` (``(x, y)`` or ``(x, y, mode)``, mode ``"flat"`` = baseline and noise
but no response, ``"low"`` = reads 0, ``"high"`` = reads 4095), ``stuck`` ({(x, y): value}),
``noisy`` ({(x, y): sigma in LSB}).

Reproducible: every random number comes from xorshift32 streams seeded from ``seed``, and the
arithmetic that makes a frame is exact IEEE double (+ − × ÷ √ only) or integer, so CPython and
MicroPython produce the same frames. ``scan`` works in integers (levels in Q16) and allocates
nothing, so a scan loop driven by it can run under ``micropython.heap_lock()``. A 19×19 scan
takes ≈ 0.11 ms on the unix port (0.19 ms on CPython): stones' contributions are computed when
they move, not per scan.
"""

import math
from array import array

EMPTY = 0  # the same values as firmware.rules.go_board
BLACK = 1
WHITE = 2

DEAD_FLAT = "flat"  # reads its baseline with noise but does not see stones
DEAD_LOW = "low"  # reads 0 (output shorted low, open row enable)
DEAD_HIGH = "high"  # reads 4095

ADC_MAX = 4095
MID_SCALE = 2048.0

_M32 = 0xFFFFFFFF
_U4_SIGMA = 147.80138700296515  # RMS of a sum of four uniform bytes: sqrt(4 * (256**2 - 1) / 12)
_Q = 65536  # levels and noise scales are Q16 integers


def cel(kc, p, c, s):
    """Bulirsch's general complete elliptic integral
    ∫₀^{π/2} (c cos²φ + s sin²φ) / ((cos²φ + p sin²φ) √(cos²φ + kc² sin²φ)) dφ."""
    k = abs(kc)
    em = 1.0
    if p > 0:
        pp = math.sqrt(p)
        ss = s / pp
        cc = c
    else:
        f = kc * kc
        q = (1.0 - f) * (s - c * p)
        g = 1.0 - p
        f = f - p
        pp = math.sqrt(f / g)
        cc = (c - s) / g
        ss = -q / (g * g * pp) + cc * pp
    f = cc
    cc = cc + ss / pp
    g = k / pp
    ss = 2.0 * (ss + f * g)
    pp = g + pp
    g = em
    em = k + em
    kk = k
    while abs(g - k) > g * 1e-9:
        k = 2.0 * math.sqrt(kk)
        kk = k * em
        f = cc
        cc = cc + ss / pp
        g = kk / pp
        ss = 2.0 * (ss + f * g)
        pp = g + pp
        g = em
        em = k + em
    return (math.pi / 2.0) * (ss + cc * em) / (em * (em + pp))


def magnet_bz(rho, z, diameter=6.0, thickness=3.0, br=1210.0):
    """Axial field (mT) of a disc magnet magnetised along its axis, at ``rho`` mm from the axis
    and ``z`` mm below its near face (z > 0). Positive near the axis with the South pole facing
    the point (a white stone), negative in the far lobe beyond ≈ 9.5 mm (at z = 5 mm)."""
    a = diameter / 2.0
    half = thickness / 2.0
    zc = z + half  # from the magnet's centre
    g = (a - rho) / (a + rho)
    total = 0.0
    for sign, zz in ((1.0, zc + half), (-1.0, zc - half)):
        d = math.sqrt(zz * zz + (a + rho) * (a + rho))
        kc = math.sqrt(zz * zz + (a - rho) * (a - rho)) / d
        total += sign * (zz / d) * cel(kc, g * g, 1.0, g)
    return (br / math.pi) * a / (a + rho) * total


class _Rng:
    """xorshift32; ``normal()`` is the sum of twelve uniforms less six (clipped at ±6 σ)."""

    def __init__(self, seed):
        self.s = (seed & _M32) or 0x9E3779B9

    def next(self):
        s = self.s
        s ^= (s << 13) & _M32
        s ^= s >> 17
        s ^= (s << 5) & _M32
        self.s = s
        return s

    def normal(self):
        t = 0.0
        for _ in range(12):
            t += self.next() / 4294967296.0
        return t - 6.0


def _stream(seed, k):
    """Seed of the k-th independent stream for ``seed`` (a Weyl step, then four xorshift rounds)."""
    r = _Rng((seed * 0x9E3779B1 + k * 0x85EBCA6B + 0x27D4EB2F) & _M32)
    for _ in range(4):
        r.next()
    return r.s


def _clip3(v):
    return -3.0 if v < -3.0 else (3.0 if v > 3.0 else v)


def _near(k, d):
    """Point nearest to k + d; exactly half-way counts at k."""
    if -0.5 <= d <= 0.5:
        return k
    return k + int(math.floor(d + 0.5))


def _pairs(spec):
    """A dict or an iterable of (key, value) pairs, as a list of pairs."""
    if not spec:
        return []
    if isinstance(spec, dict):
        return list(spec.items())
    return list(spec)


class SimGrid:
    """An n×n board of simulated Hall sensors with stones on it. See the module header."""

    def __init__(
        self,
        n=19,
        seed=1,
        noise=1.4,
        crosstalk=0.015,
        reversed=(),
        dead=(),
        stuck=None,
        noisy=None,
        offset_spread=25.0,
        gain_spread=0.07,
        stone_spread=0.02,
        pitch=(22.0, 23.7),
        z=5.0,
        magnet=(6.0, 3.0),
        br=1210.0,
        sensitivity=15.0,
        vref=3.3,
        reach=3,
    ):
        self.n = n
        nn = n * n
        self._nn = nn
        self.seed = seed
        self.pitch = (float(pitch[0]), float(pitch[1]))
        self.z = float(z)
        self.magnet = (float(magnet[0]), float(magnet[1]))
        self.br = float(br)
        self.reach = reach
        self.scans = 0  # scans taken so far

        # Field of a centred stone at its own sensor, and the scale of the negative lobe.
        self._b0 = magnet_bz(0.0, self.z, self.magnet[0], self.magnet[1], self.br)
        self._tail = 1.0
        if crosstalk is not None:
            bare = magnet_bz(self.pitch[0], self.z, self.magnet[0], self.magnet[1], self.br)
            self._tail = crosstalk / -(bare / self._b0)
        # Profile of a centred stone at grid offsets (|ix|, |iy|) <= reach, index iy*(reach+1)+ix
        # (float-keyed dicts are slow on MicroPython: its float hash is the integer part).
        self._centred = array("d", [0.0] * ((reach + 1) * (reach + 1)))
        for iy in range(reach + 1):
            ey = iy * self.pitch[1]
            for ix in range(reach + 1):
                ex = ix * self.pitch[0]
                self._centred[iy * (reach + 1) + ix] = self._profile(ex * ex + ey * ey, 0.0)
        counts_per_mt = sensitivity * 4096.0 / (vref * 1000.0)
        self.nominal_gain = counts_per_mt * self._b0  # counts for a centred stone, strength 1

        setup = _Rng(_stream(seed, 1))
        self._base = array("d", [0.0] * nn)
        self._gain = array("d", [0.0] * nn)
        for p in range(nn):
            self._base[p] = MID_SCALE + offset_spread * _clip3(setup.normal())
            self._gain[p] = self.nominal_gain * (1.0 + gain_spread * _clip3(setup.normal()))
        self._stone_rng = _Rng(_stream(seed, 2))
        self._drift_rng = _Rng(_stream(seed, 3))
        self._s = _stream(seed, 4)  # noise stream, kept as a plain int for scan()
        self._stone_spread = stone_spread

        self._sigma = array("d", [float(noise)] * nn)
        for (x, y), sigma in _pairs(noisy):
            self._sigma[self._index(x, y)] = float(sigma)
        for x, y in reversed:
            p = self._index(x, y)
            self._gain[p] = -self._gain[p]
        self._fixed_at = {}  # point -> value it always reads
        for item in dead:
            p = self._index(item[0], item[1])
            mode = item[2] if len(item) > 2 else DEAD_FLAT
            if mode == DEAD_FLAT:
                self._gain[p] = 0.0
            elif mode == DEAD_LOW:
                self._fixed_at[p] = 0
            elif mode == DEAD_HIGH:
                self._fixed_at[p] = ADC_MAX
            else:
                raise ValueError("dead mode must be 'flat', 'low' or 'high'")
        for (x, y), value in _pairs(stuck):
            self._fixed_at[self._index(x, y)] = min(max(int(value), 0), ADC_MAX)
        fixed = []
        for p in range(nn):  # in point order: the same on both runtimes
            if p in self._fixed_at:
                fixed.append(p)
                fixed.append(self._fixed_at[p])
        self._fixed = array("i", fixed)

        self._noise_q = array("i", [0] * nn)
        for p in range(nn):
            var = self._sigma[p] * self._sigma[p] - 1.0 / 12.0  # rounding adds 1/12 LSB²
            analog = math.sqrt(var) if var > 0.0 else 0.0
            self._noise_q[p] = int(math.floor(analog / _U4_SIGMA * _Q + 0.5))

        self._stones = [None] * nn  # by key point: [color, dx, dy, height, strength, contrib]
        self._field = array("d", [0.0] * nn)  # stones' fields, in counts
        self._hover = array("d", [0.0] * nn)
        self._level_q = array("i", [0] * nn)
        for p in range(nn):
            self._refresh(p)

    # -- geometry and bookkeeping ---------------------------------------------------------------

    def _index(self, x, y):
        if not (0 <= x < self.n and 0 <= y < self.n):
            raise ValueError("point off the board: (%d, %d)" % (x, y))
        return y * self.n + x

    def _refresh(self, p):
        v = self._base[p] + self._field[p] + self._hover[p]
        self._level_q[p] = int(math.floor(v * _Q + 0.5))

    def profile(self, dx, dy, height=0.0):
        """Fraction of a centred stone's delta that a stone offset (dx, dy) pitches and
        ``height`` mm above the surface gives at a sensor (crosstalk scaling included)."""
        px = dx * self.pitch[0]
        py = dy * self.pitch[1]
        return self._profile(px * px + py * py, float(height))

    def _profile(self, r2, h):
        bz = magnet_bz(math.sqrt(r2), self.z + h, self.magnet[0], self.magnet[1], self.br)
        f = bz / self._b0
        if f < 0.0:
            f *= self._tail
        return f

    def _contrib(self, key, st):
        """(points, deltas in counts) of the stone ``st`` keyed at point ``key``."""
        n = self.n
        color, dx, dy, h, strength = st[0], st[1], st[2], st[3], st[4]
        sx = key % n + dx
        sy = key // n + dy
        cx = int(math.floor(sx + 0.5))
        cy = int(math.floor(sy + 0.5))
        sign = strength if color == WHITE else -strength
        r = self.reach
        # A stone resting on its point: the same numbers as below, computed once at start-up.
        centred = dx == 0.0 and dy == 0.0 and h == 0.0
        table = self._centred
        pts = []
        vals = []
        for y in range(max(cy - r, 0), min(cy + r, n - 1) + 1):
            ey = (y - sy) * self.pitch[1]
            for x in range(max(cx - r, 0), min(cx + r, n - 1) + 1):
                ex = (x - sx) * self.pitch[0]
                p = y * n + x
                g = self._gain[p]
                if g != 0.0:
                    if centred:
                        f = table[abs(y - cy) * (r + 1) + abs(x - cx)]
                    else:
                        f = self._profile(ex * ex + ey * ey, h)
                    pts.append(p)
                    vals.append(sign * g * f)
        # Arrays, not lists of boxed floats: a full board of stones fits the unix port's heap.
        return (array("H", pts), array("d", vals))

    def _apply(self, contrib, sign):
        field = self._field
        pts, vals = contrib
        for i in range(len(pts)):
            p = pts[i]
            field[p] += sign * vals[i]
            self._refresh(p)

    def _place(self, key, st):
        st[5] = self._contrib(key, st)
        self._stones[key] = st
        self._apply(st[5], 1.0)

    def _remove(self, key):
        st = self._stones[key]
        self._apply(st[5], -1.0)
        self._stones[key] = None
        return st

    def _stone(self, x, y):
        st = self._stones[self._index(x, y)]
        if st is None:
            raise ValueError("no stone keyed at (%d, %d)" % (x, y))
        return st

    # -- stones ---------------------------------------------------------------------------------

    def put(self, x, y, color, dx=0.0, dy=0.0, height=0.0, strength=None):
        """Put a stone of ``color`` (BLACK/WHITE) at point (x, y) — its key — offset by
        (dx, dy) pitches and ``height`` mm above the surface (held in the hand: not on the
        board). ``strength`` scales its magnet (default: drawn with the per-stone spread)."""
        if color != BLACK and color != WHITE:
            raise ValueError("color must be BLACK or WHITE")
        key = self._index(x, y)
        if self._stones[key] is not None:
            raise ValueError("a stone is already keyed at (%d, %d)" % (x, y))
        if strength is None:
            strength = 1.0 + self._stone_spread * _clip3(self._stone_rng.normal())
        self._place(key, [color, float(dx), float(dy), float(height), float(strength), None])

    def lift(self, x, y):
        """Take the stone keyed at (x, y) off the board; return its colour."""
        self._stone(x, y)
        return self._remove(self._index(x, y))[0]

    def move(self, x, y, dx, dy, height=None):
        """Set the offset of the stone keyed at (x, y) to (dx, dy) pitches from (x, y) (not
        cumulative) and, if given, its height in mm. The key stays (x, y)."""
        st = self._stone(x, y)
        key = self._index(x, y)
        self._remove(key)
        st[1] = float(dx)
        st[2] = float(dy)
        if height is not None:
            st[3] = float(height)
        self._place(key, st)

    def clear(self):
        """Take every stone off and stop any hover."""
        for key in range(self._nn):
            if self._stones[key] is not None:
                self._remove(key)
        self.unhover()

    def slide(self, path, steps, color=None, height=0.0):
        """Generator: slide a stone along ``path`` (a list of (x, y) waypoints, floats allowed,
        the first may be off the board) in ``steps`` equal moves, yielding its position (fx, fy)
        after each move; scan between yields. With ``color`` a new stone enters at path[0];
        without, the stone keyed at path[0]'s nearest point moves, from where it really is. It
        travels ``height`` mm above the surface (0: sliding on it). At the end it is keyed at the last
        waypoint's nearest point (which must be free), offset by what remains."""
        if len(path) < 2 or steps < 1:
            raise ValueError("a slide needs two waypoints and at least one step")
        ex, ey = path[-1]
        kx = int(math.floor(ex + 0.5))
        ky = int(math.floor(ey + 0.5))
        key = self._index(kx, ky)
        path = list(path)
        x0, y0 = path[0]
        if color is None:
            # The stone keyed at path[0]'s nearest point starts from where it really is.
            sx = int(math.floor(x0 + 0.5))
            sy = int(math.floor(y0 + 0.5))
            st = self._stone(sx, sy)
            start = self._index(sx, sy)
            x0 = sx + st[1]
            y0 = sy + st[2]
            path[0] = (x0, y0)
            if key != start and self._stones[key] is not None:
                raise ValueError("a stone is already keyed at (%d, %d)" % (kx, ky))
            self._remove(start)
        else:
            if color != BLACK and color != WHITE:
                raise ValueError("color must be BLACK or WHITE")
            if self._stones[key] is not None:
                raise ValueError("a stone is already keyed at (%d, %d)" % (kx, ky))
            strength = 1.0 + self._stone_spread * _clip3(self._stone_rng.normal())
            st = [color, 0.0, 0.0, float(height), strength, None]
        lengths = []
        total = 0.0
        for i in range(1, len(path)):
            ax, ay = path[i - 1]
            bx, by = path[i]
            d = math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay))
            lengths.append(d)
            total += d
        st[1] = x0 - kx
        st[2] = y0 - ky
        st[3] = float(height)
        self._place(key, st)
        for step in range(1, steps + 1):
            t = total * step / steps
            leg = 0
            while leg < len(lengths) - 1 and t > lengths[leg]:
                t -= lengths[leg]
                leg += 1
            ax, ay = path[leg]
            bx, by = path[leg + 1]
            u = t / lengths[leg] if lengths[leg] > 0.0 else 1.0
            if step == steps:
                u = 1.0
            fx = ax + (bx - ax) * u
            fy = ay + (by - ay) * u
            self._remove(key)
            st[1] = fx - kx
            st[2] = fy - ky
            self._place(key, st)
            yield (fx, fy)

    def descend(self, x, y, color, steps, height=20.0, dx=0.0, dy=0.0):
        """Generator: a hand brings a new stone down onto (x, y) (offset dx, dy) from ``height``
        mm in ``steps`` equal moves, yielding its height after each; it ends on the board."""
        self.put(x, y, color, dx, dy, height)
        for step in range(1, steps + 1):
            h = height * (steps - step) / steps
            self.move(x, y, dx, dy, h)
            yield h

    def ascend(self, x, y, steps, height=20.0):
        """Generator: a hand lifts the stone keyed at (x, y) to ``height`` mm in ``steps`` moves,
        yielding its height after each; after the last it is gone (in the hand)."""
        st = self._stone(x, y)
        h0 = st[3]
        for step in range(1, steps + 1):
            h = h0 + (height - h0) * step / steps
            self.move(x, y, st[1], st[2], h)
            yield h
        self.lift(x, y)

    # -- other disturbances ---------------------------------------------------------------------

    def hover(self, x, y, strength, radius=1.0):
        """A weak field centred over (x, y) (floats, pitch units): a magnetised ring, a watch, a
        phone in the hand. ``strength`` is its delta at the centre as a fraction of a centred
        stone's (positive like white, negative like black); it falls as
        1 / (1 + (d / radius)²)², d in pitches. Replaces the previous hover."""
        n = self.n
        r2 = float(radius) * float(radius)
        for p in range(self._nn):
            ddx = p % n - x
            ddy = p // n - y
            q = 1.0 + (ddx * ddx + ddy * ddy) / r2
            self._hover[p] = strength * self._gain[p] / (q * q)
            self._refresh(p)

    def unhover(self):
        """Take the hovering field away."""
        for p in range(self._nn):
            if self._hover[p] != 0.0:
                self._hover[p] = 0.0
                self._refresh(p)

    def drift(self, offset, spread=0.0):
        """Shift every sensor's baseline by ``offset`` counts plus a per-sensor normal term of
        σ ``spread`` (temperature, supply); the true baselines follow."""
        for p in range(self._nn):
            self._base[p] += offset + spread * _clip3(self._drift_rng.normal())
            self._refresh(p)

    # -- scanning -------------------------------------------------------------------------------

    def new_frame(self):
        """A zeroed frame of the right size."""
        return array("H", [0] * self._nn)

    def scan(self, frame):
        """Fill ``frame`` (array('H') of n*n) with one scan's readings and return it. Integer
        work only: allocates nothing, so it may run under heap_lock."""
        lv = self._level_q
        ns = self._noise_q
        s = self._s
        for p in range(self._nn):
            s ^= (s << 13) & 0xFFFFFFFF
            s ^= s >> 17
            s ^= (s << 5) & 0xFFFFFFFF
            u = (s & 255) + ((s >> 8) & 255) + ((s >> 16) & 255) + (s >> 24) - 510
            v = (lv[p] + u * ns[p] + 32768) >> 16
            if v < 0:
                v = 0
            elif v > 4095:
                v = 4095
            frame[p] = v
        self._s = s
        fx = self._fixed
        for i in range(0, len(fx), 2):
            frame[fx[i]] = fx[i + 1]
        self.scans += 1
        return frame

    # -- ground truth ---------------------------------------------------------------------------

    def truth(self):
        """What lies on each point: bytearray(n*n) of EMPTY/BLACK/WHITE, index y*n + x. A stone
        counts at its nearest point (exactly half-way: its key) when it rests on the surface
        (height 0); stones in the air or off the board do not count."""
        n = self.n
        out = bytearray(self._nn)
        for key in range(self._nn):
            st = self._stones[key]
            if st is not None and st[3] == 0.0:
                x = _near(key % n, st[1])
                y = _near(key // n, st[2])
                if 0 <= x < n and 0 <= y < n:
                    out[y * n + x] = st[0]
        return out

    def color_at(self, x, y):
        """EMPTY, BLACK or WHITE: what ``truth()`` says for (x, y)."""
        return self.truth()[self._index(x, y)]

    def stones(self):
        """[(x, y, color, fx, fy, height, strength)] for every stone, by key point: (x, y) its
        key, (fx, fy) where it really is (pitch units), height in mm."""
        n = self.n
        out = []
        for key in range(self._nn):
            st = self._stones[key]
            if st is not None:
                x = key % n
                y = key // n
                out.append((x, y, st[0], x + st[1], y + st[2], st[3], st[4]))
        return out

    def true_baseline(self, x, y):
        """Mean empty reading of (x, y) in counts (float); a dead low/high or stuck sensor
        gives the value it always reads."""
        p = self._index(x, y)
        if p in self._fixed_at:
            return float(self._fixed_at[p])
        return self._base[p]

    def true_gain(self, x, y):
        """Delta in counts that a centred WHITE stone of strength 1, alone on the board, gives
        at (x, y): about +888 for a good sensor, negative if reversed, 0 if dead or stuck.
        A black stone gives the negative of it."""
        p = self._index(x, y)
        if p in self._fixed_at:
            return 0.0
        return self._gain[p]

    def true_sigma(self, x, y):
        """RMS noise of (x, y)'s readings in counts (0 for a dead low/high or stuck sensor)."""
        p = self._index(x, y)
        if p in self._fixed_at:
            return 0.0
        return self._sigma[p]

    def level(self, x, y):
        """The noise-free reading of (x, y) now (float counts, before rounding and clamping;
        scans use it to 1/65536 of a count)."""
        p = self._index(x, y)
        if p in self._fixed_at:
            return float(self._fixed_at[p])
        return self._base[p] + self._field[p] + self._hover[p]


def checkerboard(grid, pass_index):
    """Lay out a calibration pass on ``grid`` (clearing it first): pass 0 (A) black on points
    with x + y even and white on odd, pass 1 (B) the colours swapped (research/hardware.md §5)."""
    grid.clear()
    n = grid.n
    for y in range(n):
        for x in range(n):
            even = (x + y) % 2 == 0
            grid.put(x, y, BLACK if even == (pass_index % 2 == 0) else WHITE)
