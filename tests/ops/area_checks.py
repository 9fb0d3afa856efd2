"""Helpers of the op tests by area where the op table does not reach (tests/ops/
test_pointwise.py, test_reduction.py, test_scan_sort.py, test_shape.py, test_linalg.py):
seeded float64 inputs, gradients for a fixed upstream, the double-backward scenario of a
``DOUBLE`` row and gradcheck on float64 inputs.
"""

import numpy as np

import gradtrack


def randn(lib, *shape, seed=0, rg=True):
    """A float64 tensor of ``shape``, standard normal from ``seed``; requires grad if ``rg``."""
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=lib.float64, requires_grad=rg)


def grads(lib, out, *inputs):
    """Gradients of ``out`` (a tensor or a tuple whose first is) for a fixed upstream."""
    out = out[0] if isinstance(out, tuple) else out
    up = lib.tensor(np.linspace(-1, 1, max(out.numel(), 1)).reshape(tuple(out.shape)))
    return lib.autograd.grad([out], list(inputs), [up], allow_unused=True)


def double_backward(fn, data):
    """The scenario (for ``helpers.same``) of ``fn(lib, x)`` at ``data``: create_graph=True
    gradients of its sum, then the gradient of their sum of squares."""
    def scenario(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad([fn(lib, x).sum()], [x], create_graph=True)
        (gg,) = lib.autograd.grad([(g * g).sum()], [x])
        return g.detach(), gg

    return scenario


def gradcheck_on_float64(fn):
    """gradtrack.autograd.gradcheck of ``fn`` at a 2x3 float64 input (two for a ``fn`` of
    two arguments)."""
    x = randn(gradtrack, 2, 3)
    y = randn(gradtrack, 2, 3, seed=1)
    args = (x, y) if fn.__code__.co_argcount == 2 else (x,)
    return gradtrack.autograd.gradcheck(fn, args)
