"""The in-place column of the op table: every in-place variant against torch.

For each spec of tests/ops/op_db/ with an ``inplace`` method, on the spec's own
samples: ``y = x * 1`` (a non-leaf of the first input, so the write is legal),
then ``y.<op>_(*others)``. gradtrack and torch must agree on the outcome:
the same exception type and message, or the same values, dtype, grad_fn,
``_version`` and gradient of every input. A wrong in-place gradient with no
error (the class of bug behind div_(rounding_mode=...) and remainder_) is
found here, not by a user. The last test holds the table to the op list: an
in-place variant of the list that no spec exercises fails it.
"""

import warnings

import numpy as np
import pytest

import gradtrack

from helpers import to_np
from op_db import OPS
from test_ops import _id, _seed, apply_views, assert_values, base_arrays, leaves

GT = gradtrack
# Integer and bool samples check values and refusals; float64 also gradients.
DTYPES = ("float32", "float64", "int64", "bool")

CASES = [pytest.param(spec, sample, dt, id=_id(spec.name, spec.inplace, sample.id, dt))
         for spec in OPS if spec.inplace for sample in spec.samples
         for dt in spec.dtypes if dt in DTYPES]


def _run(lib, spec, sample, arrays, dtype):
    """The in-place call's outcome: ("error", type, message) or the state it leaves."""
    xs = leaves(lib, sample, arrays, requires_grad=dtype == "float64")
    views = apply_views(sample, xs)
    y = views[0] * 1 if views[0].dtype != lib.bool else views[0].clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = getattr(y, spec.inplace)(*views[1:], *spec.inplace_args, **dict(spec.inplace_kw))
        except Exception as e:  # noqa: BLE001 - the outcome under test
            return ("error", type(e).__name__, str(e).replace("torch", "gradtrack")), None
    assert out is y, f"{spec.inplace} must return self"
    gf = y.grad_fn
    name = None if gf is None else gf.name().replace("torch::", "gradtrack::")
    state = (str(y.dtype).split(".")[-1], tuple(y.shape), name, y._version, y.requires_grad)
    grads = None
    req = [x for x in xs if x.requires_grad]
    if y.requires_grad and y.numel() > 0:
        rng = np.random.default_rng(_seed("inplace-upstream", spec.name, sample.id))
        upstream = lib.tensor(rng.standard_normal(tuple(y.shape)))
        try:
            grads = lib.autograd.grad([y], req, [upstream], allow_unused=True)
        except Exception as e:  # noqa: BLE001 - backward's refusal is an outcome too
            grads = ("error", type(e).__name__, str(e).replace("torch", "gradtrack"))
    return ("ok", state, to_np(y)), grads


@pytest.mark.parametrize("spec,sample,dtype", CASES)
def test_inplace_variant_matches_torch(torch, spec, sample, dtype):
    arrays = base_arrays(spec, sample, dtype)
    (kind, *got), grads = _run(GT, spec, sample, arrays, dtype)
    (t_kind, *want), t_grads = _run(torch, spec, sample, arrays, dtype)
    assert kind == t_kind, f"gradtrack: {kind} {got[:2]}, torch: {t_kind} {want[:2]}"
    if kind == "error":
        assert got == want
        return
    assert got[0] == want[0], "dtype, shape, grad_fn, _version, requires_grad"
    rtol, atol = spec.tolerance(dtype)
    assert_values(got[1], want[1], rtol, atol, "values: ")
    if isinstance(t_grads, tuple) and t_grads and t_grads[0] == "error":
        assert grads == t_grads
        return
    assert (grads is None) == (t_grads is None)
    for k, (g, tg) in enumerate(zip(grads or (), t_grads or ())):
        assert (g is None) == (tg is None), f"grad of input {k}: {g} vs {tg}"
        if tg is not None:
            assert_values(to_np(g), tg.numpy(force=True), 1e-7, 1e-9, f"grad of input {k}: ")


def test_every_inplace_variant_of_the_op_list_is_in_the_table():
    covered = {spec.inplace for spec in OPS if spec.inplace}
    listed = {name + "_" for name in gradtrack._C._inplace.ops}
    assert listed - covered == set()


def test_inplace_methods_come_from_the_op_list():
    for name in gradtrack._C._inplace.ops:
        assert callable(getattr(gradtrack.Tensor, name + "_")), name
        assert callable(getattr(gradtrack, name)), name
