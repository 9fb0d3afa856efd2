"""numpy reference helpers that more than one area uses (an area's own are in its module)."""

import math

import numpy as np


def _f(a):
    """numpy math on integers promotes to float64 (torch: float32); values agree."""
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _erf(a):
    out = np.vectorize(math.erf, otypes=[np.float64])(a)
    return out.astype(a.dtype) if a.dtype.kind == "f" else out


def _sigmoid(np_, a):
    return 1.0 / (1.0 + np.exp(-_f(a)))


def _np_meshgrid_ij(a, b):
    return tuple(np.meshgrid(a, b, indexing="ij"))
