"""Forward-mode AD of every op in the op table (op_db/), float64 samples.

For each differentiable spec x sample: the inputs get seeded random tangents
inside a dual level; the outputs' tangents must equal torch 2.13's, and a
central finite difference along the tangent direction. Where torch has no
forward AD for an op, gradtrack must raise the same NotImplementedError text;
where gradtrack lacks a formula torch has, the op must be in KNOWN_MISSING
(a list that may only shrink: an entry that works fails the test).
"""

import numpy as np
import pytest

import gradtrack

from op_db import OPS
from test_ops import _seed, apply_views, base_arrays, float_outputs, wants_grad

# Ops torch 2.13 supports in forward mode and gradtrack does not yet (empty:
# every op of the table has a jvp formula; cdist has none in torch either).
KNOWN_MISSING = set()
# torch 2.13's tangent for these is not the derivative (finite differences disagree with it):
# gradtrack's is checked against finite differences alone
TORCH_TANGENT_OFF = {"cholesky_inverse", "Tensor.cholesky_inverse_upper"}

# Finite differences along the tangent do not see the tangent torch defines
# at a discontinuity or a tie (both libraries agree there; the table test
# against torch still runs).
NO_FD = {"floor", "ceil", "round", "trunc", "sign", "sgn", "frac", "remainder", "fmod",
         "floor_divide", "div_floor", "div_trunc", "amax_ties", "max_ties", "min_ties",
         "maximum_ties", "minimum_ties", "clamp_tensor", "clamp_tensor_min_only",
         "clamp_min_tensor", "clamp_max_tensor", "median", "mode",
         # torch's tangent is 0 where exp(x - max) underflows along the whole prefix
         "logcumsumexp_large"}

PARAMS = [pytest.param(spec, sample, id=f"{spec.name}-{sample.id}")
          for spec in OPS if spec.differentiable and "float64" in spec.dtypes
          for sample in spec.samples]


def _tangent_arrays(spec, sample, arrays):
    rng = np.random.default_rng(_seed("tangent", spec.name, sample.id))
    return [rng.standard_normal(a.shape) if wants_grad(arg, a) else None
            for arg, a in zip(sample.args, arrays)]


def _run(lib, spec, sample, arrays, tangents):
    """(tangents of the float outputs as arrays or None, error or None)."""
    fw = lib.autograd.forward_ad
    try:
        with fw.dual_level():
            xs = []
            for arr, tan in zip(arrays, tangents):
                x = lib.tensor(arr)
                xs.append(fw.make_dual(x, lib.tensor(tan)) if tan is not None else x)
            outs = float_outputs(spec.fn(lib, *apply_views(sample, xs)))
            result = []
            for o in outs:
                t = fw.unpack_dual(o).tangent
                result.append(None if t is None else
                              np.array(t.detach().numpy(**({"force": True} if lib is not gradtrack
                                                           else {})), copy=True))
            return result, None
    except (NotImplementedError, RuntimeError) as e:  # refusals are compared, as values are
        return None, (type(e).__name__,
                      str(e).replace("pytorch/pytorch", "GH").replace(lib.__name__, "LIB"))


def _values(lib, spec, sample, arrays):
    xs = [lib.tensor(a) for a in arrays]
    return [o.detach().numpy() for o in float_outputs(spec.fn(lib, *apply_views(sample, xs)))]


def _fd(spec, sample, arrays, tangents, eps=1e-6):
    plus = [a + eps * t if t is not None else a for a, t in zip(arrays, tangents)]
    minus = [a - eps * t if t is not None else a for a, t in zip(arrays, tangents)]
    return [(p - m) / (2 * eps) for p, m in zip(_values(gradtrack, spec, sample, plus),
                                                _values(gradtrack, spec, sample, minus))]


@pytest.mark.parametrize("spec,sample", PARAMS)
def test_tangent_matches_torch_and_finite_differences(torch, spec, sample):
    arrays = base_arrays(spec, sample, "float64")
    tangents = _tangent_arrays(spec, sample, arrays)
    ours, our_err = _run(gradtrack, spec, sample, arrays, tangents)
    theirs, their_err = _run(torch, spec, sample, arrays, tangents)
    if their_err is not None:
        assert our_err == their_err
        return
    if spec.name in KNOWN_MISSING:
        assert our_err is not None, f"{spec.name} works now: remove it from KNOWN_MISSING"
        return
    assert our_err is None, our_err
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if spec.name in TORCH_TANGENT_OFF:
            break
        assert (a is None) == (b is None), f"output {k}: tangent {a} vs torch's {b}"
        if b is not None:
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, equal_nan=True,
                                       err_msg=f"output {k}")
    if (spec.name in NO_FD or "ties" in sample.id or not spec.gradcheck
            or any(0 in a.shape for a in arrays)):
        return
    for k, (a, fd) in enumerate(zip(ours, _fd(spec, sample, arrays, tangents))):
        if a is not None:
            np.testing.assert_allclose(a, fd, rtol=1e-4, atol=1e-5, err_msg=f"fd output {k}")

