"""torch.special's value-only functions: the Bessel and Airy functions and the orthogonal
polynomials. torch records no node for them, so the rows are not differentiable: the
table checks their values (numpy's polynomial series for the polynomials, torch's own
values for the Bessel functions, which numpy lacks), dtypes, shapes over the unary
samples' layouts, and that no grad_fn is recorded where inputs require grad.
tests/ops/test_special_functions.py has their edges, argument forms and errors.
"""

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre

from .rows import FLOAT, POS, REAL, OpSpec
from .samples import UNARY

DEGREE = 4


def _val(module):
    return {"chebyshev": chebyshev.chebval, "hermite": hermite.hermval,
            "hermite_e": hermite_e.hermeval, "laguerre": laguerre.lagval,
            "legendre": legendre.legval}[module]


def _polynomial_ref(family, shift=False):
    coefficients = [0] * DEGREE + [1]
    val = _val(family)

    def ref(np_, a):
        x = 2 * a.astype(np.float64) - 1 if shift else a.astype(np.float64)
        return val(x, coefficients).astype(a.dtype)
    return ref


def _chebyshev_kind_ref(kind, shift=False):
    """V_n and W_n from U: V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1}; U from T's
    derivative relation U_n = (T_{n+1}' ) / (n + 1)."""
    def u(x, n):
        return chebyshev.chebval(x, chebyshev.chebder([0] * (n + 1) + [1])) / (n + 1)

    def ref(np_, a):
        x = 2 * a.astype(np.float64) - 1 if shift else a.astype(np.float64)
        if kind == "u":
            r = u(x, DEGREE)
        elif kind == "v":
            r = u(x, DEGREE) - u(x, DEGREE - 1)
        else:
            r = u(x, DEGREE) + u(x, DEGREE - 1)
        return r.astype(a.dtype)
    return ref


def _torch_ref(name):
    def ref(np_, a):
        import torch
        return getattr(torch.special, name)(torch.from_numpy(np.array(a))).numpy()
    return ref


def _polynomial(name, ref):
    # torch's value at a NaN x is undefined (its kernels return whatever a register held:
    # -1.8e8 one run, a neighbour's value the next; gradtrack gives NaN), so a NaN fed in
    # by a fuzzed chain is read as 0.25 by both libraries
    def fn(L, a):
        return getattr(L.special, name)(L.where(a.isnan(), 0.25, a), DEGREE)
    return OpSpec(f"special.{name}", fn, UNARY, FLOAT, REAL, ref=ref, differentiable=False)


def _bessel(name, domain=REAL):
    return OpSpec(f"special.{name}", lambda L, a: getattr(L.special, name)(a), UNARY, FLOAT,
                  domain, ref=_torch_ref(name), differentiable=False)


OPS = [
    _polynomial("chebyshev_polynomial_t", _polynomial_ref("chebyshev")),
    _polynomial("chebyshev_polynomial_u", _chebyshev_kind_ref("u")),
    _polynomial("chebyshev_polynomial_v", _chebyshev_kind_ref("v")),
    _polynomial("chebyshev_polynomial_w", _chebyshev_kind_ref("w")),
    _polynomial("shifted_chebyshev_polynomial_t", _polynomial_ref("chebyshev", shift=True)),
    _polynomial("shifted_chebyshev_polynomial_u", _chebyshev_kind_ref("u", shift=True)),
    _polynomial("shifted_chebyshev_polynomial_v", _chebyshev_kind_ref("v", shift=True)),
    _polynomial("shifted_chebyshev_polynomial_w", _chebyshev_kind_ref("w", shift=True)),
    _polynomial("hermite_polynomial_h", _polynomial_ref("hermite")),
    _polynomial("hermite_polynomial_he", _polynomial_ref("hermite_e")),
    _polynomial("laguerre_polynomial_l", _polynomial_ref("laguerre")),
    _polynomial("legendre_polynomial_p", _polynomial_ref("legendre")),
    _bessel("bessel_j0"),
    _bessel("bessel_j1"),
    _bessel("bessel_y0", POS),
    _bessel("bessel_y1", POS),
    OpSpec("special.modified_bessel_i0", lambda L, a: L.special.modified_bessel_i0(a), UNARY,
           FLOAT, REAL, ref=lambda np_, a: np.i0(a.astype(np.float64)).astype(a.dtype),
           differentiable=False),
    _bessel("modified_bessel_i1"),
    _bessel("modified_bessel_k0", POS),
    _bessel("modified_bessel_k1", POS),
    _bessel("scaled_modified_bessel_k0", POS),
    _bessel("scaled_modified_bessel_k1", POS),
    _bessel("spherical_bessel_j0"),
    _bessel("airy_ai"),
]
