"""Steps shared by the tools that fit the table kernels' rows of polynomials
(fit_atan_rows.py, fit_gelu_rows.py): rounding to float32, fitting a row's higher
coefficients one at a time, and printing the C++ initialiser."""

import numpy as np


def f32(v):
    """v rounded to float32, as a Python float."""
    return float(np.float32(float(v)))


def extend_fit(t, target, weight, coefs, first, degree):
    """coefs (of t^first, t^(first + 1), ...) extended up to t^degree: each next one fitted
    to target's weighted error by Lawson's reweighting towards the minimax, with the
    higher ones free, then rounded to float32 before the next is fitted."""
    coefs = list(coefs)
    while first + len(coefs) <= degree:
        j = first + len(coefs)
        rest = target - sum(cf * t**i for i, cf in enumerate(coefs, start=first))
        powers = t[:, None] ** np.arange(j, degree + 1)[None, :]
        lawson = np.full(len(t), 1 / len(t))
        for _ in range(80):
            sol = np.linalg.lstsq(powers * (weight * lawson)[:, None], rest * weight * lawson,
                                  rcond=None)[0]
            lawson *= np.abs((powers @ sol - rest) * weight) + 1e-300
            lawson /= lawson.sum()
        coefs.append(f32(sol[0]))
    return coefs


def print_columns(table, columns):
    """The C++ initialiser of a float[columns][len(table)] array: one brace per column."""
    for k in range(columns):
        print("    {" + ", ".join(_hex(row[k]) for row in table) + "},")


def _hex(v):
    if v == 0:
        return "0x0p+0f"
    mant, exp = float(v).hex().split("p")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}p{exp}f"
