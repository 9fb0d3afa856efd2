"""Print the table of float32 gelu's rows (NOTE [gelu from rows of polynomials] in
csrc/kernels/simd_math.cpp): per row of a = |x| a centre c, K = Phi(c), and c1 ... c5 of
Phi(c + t) = K + c1 t + ... + c5 t^5.

Each centre is the float near its row's middle where Phi is nearest a float (within
2^-12 of an ulp or so: K needs no low part), on the grid of the row's spacing so that
t = a - c is exact. c1 is phi(c) rounded to float; c2 ... c5 are fitted to the relative error of Phi(a) and,
where a <= 2 (gelu of -a takes the rows there), of 1 - Phi(a), each rounded to float
before the next is fitted. Needs numpy and mpmath; prints the C++ initialiser and, on
stderr, each row's relative errors.

    python tools/fit_gelu_rows.py > /tmp/rows.inc
"""

import math
import sys

import numpy as np
from mpmath import erfc, mp, mpf, sqrt
from mpmath import exp as mp_exp
from mpmath import pi as mp_pi
from row_tables import extend_fit, f32, print_columns

mp.prec = 100
DEGREE = 5
NEAR = 2.0  # below -NEAR, gelu leaves the rows


def _upper(a):
    """1 - Phi(a)."""
    return erfc(mpf(a) / sqrt(2)) / 2


def _rows():
    """(lo, hi) of each row: [0, 1/16) and the quarter octaves from 1/16 to 8."""
    rows = [(0.0, 1 / 16)]
    for e in range(-4, 3):
        rows += [(2.0**e * (1 + k / 4), 2.0**e * (1 + (k + 1) / 4)) for k in range(4)]
    return rows


def _centre(lo, hi):
    """The float within 1/8 of the row's width of its middle whose Phi is nearest a float
    (0 for the first row, where Phi(0) = 1/2)."""
    if lo == 0:
        return 0.0
    grid = 2.0 ** (np.frexp(lo)[1] - 24)  # the spacing of the floats in [lo, hi)
    steps = np.arange(-int((hi - lo) / 8 / grid), int((hi - lo) / 8 / grid) + 1)
    c = (lo + hi) / 2 + steps * grid
    k = 1 - np.vectorize(math.erfc)(c / math.sqrt(2)) / 2  # float64: to ~2^-29 of an ulp
    near = k.astype(np.float32).astype(np.float64)
    off = np.abs(k - near) / np.ldexp(1.0, np.frexp(near)[1] - 24)
    return float(c[np.argmin(off + np.abs(steps) * 1e-12)])


def _fit(lo, hi):
    c = _centre(lo, hi)
    n = 400
    a = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    a = np.concatenate([a, [lo, hi]])
    t = a - c
    upper = [_upper(v) for v in a]
    phi = np.array([float(1 - u) for u in upper])
    tail = np.array([float(u) for u in upper])
    k = 1 - _upper(c)
    k_hi = f32(k)
    c1 = f32(mp_exp(-mpf(c) ** 2 / 2) / sqrt(2 * mp_pi))
    weight = 1 / np.where(a <= NEAR * 1.001, np.minimum(phi, tail), phi)
    target = np.array([float(1 - u - k_hi) for u in upper])  # Phi(a) - K
    coefs = extend_fit(t, target, weight, [c1], 1, DEGREE)
    poly = sum(cf * t**i for i, cf in enumerate(coefs, start=1))
    err = np.abs(poly - target)
    return [c, k_hi] + coefs, np.max(err / phi), np.max(np.where(a <= NEAR, err / tail, 0))


def main():
    table = []
    for lo, hi in _rows():
        row, pos, neg = _fit(lo, hi)
        table.append(row)
        print(f"[{lo:.4f}, {hi:.4f}) c = {row[0]}: Phi {pos:.2e}, 1 - Phi {neg:.2e}",
              file=sys.stderr)
    table += [[8.0, 1.0] + [0.0] * DEGREE] * 3  # [8, inf): Phi is 1 in float
    print_columns(table, DEGREE + 2)


if __name__ == "__main__":
    main()
