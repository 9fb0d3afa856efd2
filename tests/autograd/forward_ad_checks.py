"""Helpers of the forward-mode AD tests (tests/autograd/test_forward_ad_*.py): a tangent
of ``fn(lib, *duals)`` in either library, its finite-difference estimate, and
``check_tangent``, which compares gradtrack's tangent with torch 2.13's and with finite
differences.
"""

import numpy as np

import gradtrack


def np_of(t):
    """A copy of ``t``'s values as a NumPy array (None for None)."""
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def rng_arrays(seed, *shapes):
    """Standard normal float64 arrays of ``shapes``, drawn from one seeded generator."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def tangent_of(lib, fn, primals, tangents):
    """The output's tangent of fn(*duals) (tangent None: a plain input)."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        xs = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
              for p, t in zip(primals, tangents)]
        return np_of(fw.unpack_dual(fn(lib, *xs)).tangent)


def finite_difference(fn, primals, tangents, eps=1e-6):
    """The central difference of gradtrack's ``fn`` along ``tangents``."""
    def at(sign):
        xs = [gradtrack.tensor(p + sign * eps * t if t is not None else p)
              for p, t in zip(primals, tangents)]
        return fn(gradtrack, *xs).numpy()
    return (at(1) - at(-1)) / (2 * eps)


def check_tangent(torch, fn, primals, tangents, fd=True):
    """gradtrack's tangent of ``fn`` is torch's and (``fd``) the finite difference's."""
    ours = tangent_of(gradtrack, fn, primals, tangents)
    theirs = tangent_of(torch, fn, primals, tangents)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    if fd:
        np.testing.assert_allclose(ours, finite_difference(fn, primals, tangents),
                                   rtol=1e-4, atol=1e-6)
