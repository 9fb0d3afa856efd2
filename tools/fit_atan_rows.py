"""Print the table of float32 atan's rows (NOTE [atan from rows of polynomials] in
csrc/kernels/simd_atan_rows.cpp): per row a centre c, the constant and linear terms and
c2 ... c5 of a degree-5 polynomial in t = u - c, for atan(u) (rows 0-15) and for
pi/2 - atan(u) (rows 16-31).

Each centre is the float near its row's middle whose constant and linear terms are floats
to within 2^-9 of an ulp; c2 ... c5 are fitted to the relative error, each rounded to
float before the next is fitted. Needs numpy and mpmath; prints the C++ initialiser and,
on stderr, each row's error in ulps of the result.

    python tools/fit_atan_rows.py > /tmp/rows.inc
"""

import sys

import numpy as np
from mpmath import atan as mp_atan
from mpmath import mp, mpf
from mpmath import pi as mp_pi
from row_tables import extend_fit, f32, print_columns

mp.prec = 120
HALF_PI = mp_pi / 2
DEGREE = 5


def _ulp(v):
    """The float32 spacing at each |v| (v in float64)."""
    return np.ldexp(1.0, np.maximum(np.frexp(np.abs(v))[1] - 24, -149))


def _rows():
    """[lo, hi] of each row of u: [0, 3/32), two sixty-fourths, the quarter octaves from
    1/8 to 1, and u = 1 with reciprocal estimates a hair above it."""
    rows = [(0.0, 3 / 32), (6 / 64, 7 / 64), (7 / 64, 8 / 64)]
    rows += [(2.0**e * (1 + k / 4), 2.0**e * (1 + (k + 1) / 4)) for e in (-3, -2, -1)
             for k in range(4)]
    return rows + [(1.0, 1.0 + 2**-12)]


def _off(v):
    """How far each float64 value is from its nearest float32, in ulps of it."""
    near = v.astype(np.float32).astype(np.float64)
    return np.abs(v - near) / _ulp(near)


def _centre(lo, hi, inverted):
    """The float within 1/8 of the row's width of its middle whose constant and linear
    terms are nearest floats; on the grid of the row's spacing, so that u - c is exact."""
    grid = 2.0**-26 if lo < 1 / 8 else float(_ulp(np.array([lo]))[0])
    steps = np.arange(-int((hi - lo) / 8 / grid), int((hi - lo) / 8 / grid) + 1)
    c = (lo + hi) / 2 + steps * grid
    c0 = np.arctan(c)
    if inverted:
        c0 = float(HALF_PI) - c0
    worst = np.maximum(_off(c0), _off(1 / (1 + c * c)))
    return float(c[np.argmin(worst + np.abs(steps) * 1e-9)])


def _fit(c, lo, hi, inverted):
    """[c, c0, c1, c2 ... c5] and the largest error in ulps of the result over the row,
    widened by 2^-12 for the reciprocal's estimate."""
    a, b = lo * (1 - 2**-12), hi * (1 + 2**-12)
    n = 500
    u = (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    if lo == 0 and not inverted:  # relative accuracy down to the smallest u
        u = np.concatenate([u, np.geomspace(1e-30, b, 200)])
    t = u - c
    exact = [HALF_PI - mp_atan(mpf(v)) if inverted else mp_atan(mpf(v)) for v in u]
    ref = np.array([float(v) for v in exact])
    at_c = HALF_PI - mp_atan(mpf(c)) if inverted else mp_atan(mpf(c))
    slope = 1 / (1 + mpf(c) ** 2)
    coefs = [f32(at_c), f32(-slope if inverted else slope)]
    coefs = extend_fit(t, ref, 1 / np.abs(ref), coefs, 0, DEGREE)
    poly = sum(cf * t**i for i, cf in enumerate(coefs))
    return [c] + coefs, float(np.max(np.abs(poly - ref) / _ulp(ref)))


def main():
    table = []
    for inverted in (False, True):
        rows = _rows()
        for r, (lo, hi) in enumerate(rows):
            if r == 15:  # u = 1: the row below's centre and range, reaching past 1
                c, lo = table[-1][0], rows[14][0]
            elif r == 0 and not inverted:
                c = 0.0  # atan(u) = u for the smallest u
            else:
                c = _centre(lo, hi, inverted)
            row, err = _fit(c, lo, hi, inverted)
            table.append(row)
            side = "pi/2 - atan" if inverted else "atan"
            print(f"{side} row {r:2d} [{lo:.5f}, {hi:.5f}] c = {c!r}: {err:.4f} ulp",
                  file=sys.stderr)
    print_columns(table, DEGREE + 2)


if __name__ == "__main__":
    main()
