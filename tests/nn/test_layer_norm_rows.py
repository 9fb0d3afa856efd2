"""layer_norm's row kernels against torch: NOTE [Lane sums] and
NOTE [LayerNorm backward in one pass] in csrc/kernels/nn/norm.cpp.

Rows longer than the 8 lanes plus a tail, with and without the affine
weight, and the three gradient layouts the kernel specializes: one number
broadcast (y.sum()), contiguous, and anything else (made dense first).
"""

import numpy as np
import pytest

import gradtrack


def _run(lib, x, affine, grad, dtype):
    t = lib.from_numpy(x.copy()).to(getattr(lib, dtype)).requires_grad_()
    ln = lib.nn.LayerNorm(x.shape[-1], elementwise_affine=affine, dtype=getattr(lib, dtype))
    if affine:
        with lib.no_grad():
            ln.weight.copy_(lib.linspace(0.5, 1.5, x.shape[-1], dtype=getattr(lib, dtype)))
            ln.bias.copy_(lib.linspace(-1.0, 1.0, x.shape[-1], dtype=getattr(lib, dtype)))
    y = ln(t)
    if grad == "sum":
        y.sum().backward()
    else:
        g = lib.from_numpy(np.cos(np.arange(y.numel())).reshape(y.shape)).to(y.dtype)
        if grad == "strided":
            g = g.t().contiguous().t()  # same values, column-major
        y.backward(g)
    params = [ln.weight.grad, ln.bias.grad] if affine else []
    return [y.detach(), t.grad] + params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("grad", ["sum", "dense", "strided"])
@pytest.mark.parametrize("threads", [1, 2])
def test_layer_norm_forward_and_backward_match_torch(torch, dtype, affine, grad, threads):
    x = np.random.default_rng(5).standard_normal((37, 1029)) * 3 + 1.5
    old = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        got = _run(gradtrack, x, affine, grad, dtype)
    finally:
        gradtrack.set_num_threads(old)
    want = _run(torch, x, affine, grad, dtype)
    tol = {"float32": dict(rtol=2e-4, atol=2e-4), "float64": dict(rtol=1e-10, atol=1e-10)}[dtype]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), **tol)
