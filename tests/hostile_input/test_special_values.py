"""Special values: NaN, infinities, signed zeros and extremes through ops and their
backward, and printed, against torch (in this process: ops on special values are not
crash-prone paths; the crash-prone cases are in the other files here, run in a child).
"""

import math
import warnings

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


# ---- NaN / inf through ops and backward ------------------------------------------------------

SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e38, -1e38, 1.0, -2.5, 3e38, 0.5]

UNARY = ["exp", "log", "sigmoid", "tanh", "relu", "sqrt", "abs", "sin", "cos", "neg",
         "reciprocal", "rsqrt", "log1p", "expm1", "square", "sign", "floor", "ceil", "round",
         "trunc"]
EXPRS = {
    "pow2": lambda L, x: x ** 2, "pow0.5": lambda L, x: x ** 0.5,
    "pow-1": lambda L, x: x ** -1, "pow-0.5": lambda L, x: x ** -0.5,
    "pow3": lambda L, x: x ** 3, "pow1.5": lambda L, x: x ** 1.5, "pow0": lambda L, x: x ** 0,
    "rpow": lambda L, x: 2 ** x, "xpowx": lambda L, x: x ** x,
    "div0": lambda L, x: x / 0, "mulinf": lambda L, x: x * math.inf,
    "clamp": lambda L, x: x.clamp(-1, 1), "sum": lambda L, x: x.sum(),
    "mean": lambda L, x: x.mean(), "max": lambda L, x: x.max(), "min": lambda L, x: x.min(),
    "prod": lambda L, x: x.prod(), "softmax": lambda L, x: x.softmax(0),
    "log_softmax": lambda L, x: x.log_softmax(0),
    "maximum": lambda L, x: L.maximum(x, L.zeros_like(x)),
    "minimum": lambda L, x: L.minimum(x, L.zeros_like(x)),
    "where": lambda L, x: L.where(x > 0, x, -x), "matmul": lambda L, x: x[None] @ x[:, None],
    "amax": lambda L, x: x.amax(0), "remainder": lambda L, x: L.remainder(x, 2.0),
    "floordiv": lambda L, x: x // 2.0, "sub_self": lambda L, x: x - x,
    "mul_self": lambda L, x: x * x, "div_self": lambda L, x: x / x,
}
for _name in UNARY:
    EXPRS[_name] = (lambda n: (lambda L, x: getattr(x, n)()))(_name)


def _run_special(L, fn, dtype):
    x = L.tensor(SPECIAL, dtype=getattr(L, dtype), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(L, x)
        values = np.array(y.detach().numpy(), dtype=np.float64)
        try:
            y.sum().backward()
        except RuntimeError as e:  # e.g. floor_divide has no derivative in torch either
            return values, str(e).replace(L.__name__, "<mod>")
    return values, np.array(x.grad.numpy(), dtype=np.float64)


def _same_special(a, b):
    """Equal shapes, NaN where the other has NaN, infinities equal, finite values close
    (the sign of a zero is not compared)."""
    return (a.shape == b.shape
            and np.array_equal(np.isnan(a), np.isnan(b))
            and np.allclose(a, b, rtol=1e-5, atol=1e-30, equal_nan=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", list(EXPRS))
def test_special_values_through_op_and_backward(op, dtype):
    tv, tg = _run_special(torch, EXPRS[op], dtype)
    gv, gg = _run_special(gradtrack, EXPRS[op], dtype)
    inputs = dict(enumerate(SPECIAL))
    assert _same_special(tv, gv), f"values at {inputs}\n    torch {tv}\ngradtrack {gv}"
    if isinstance(tg, str) or isinstance(gg, str):
        assert tg == gg, "backward raised in only one library, or with different messages"
        return
    assert _same_special(tg, gg), f"grads at {inputs}\n    torch {tg}\ngradtrack {gg}"


def test_nan_gradient_flows_through_backward_unchanged():
    for L in (torch, gradtrack):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).backward(L.tensor([math.nan, math.inf]))
        assert np.isnan(x.grad[0].item()) and x.grad[1].item() == math.inf


# ---- printing tensors with inf / nan / huge values -------------------------------------------

INF, NAN = math.inf, math.nan
REPRS = {
    "nan_inf": lambda L: L.tensor([NAN, INF, -INF]),
    "nan_inf_fraction": lambda L: L.tensor([NAN, INF, -INF, 1.5]),
    "nan_huge": lambda L: L.tensor([NAN, 1e20]),
    "inf_tiny": lambda L: L.tensor([INF, 1e-20]),
    "float32_extremes": lambda L: L.tensor([3e38, -3e38, 1.0]),
    "float64_extremes": lambda L: L.tensor([1e308, -1e308], dtype=L.float64),
    "float64_denormal": lambda L: L.tensor([5e-324, 1.0], dtype=L.float64),
    "float32_denormal": lambda L: L.tensor([1e-45, 1.0]),
    "only_nan": lambda L: L.tensor([NAN]),
    "scalar_inf": lambda L: L.tensor(INF),
    "scalar_nan": lambda L: L.tensor(-NAN),
    "matrix_mixed": lambda L: L.tensor([[NAN, 1.0], [INF, -0.0]], dtype=L.float64),
    "requires_grad": lambda L: L.tensor([NAN, INF], requires_grad=True),
    "grad_fn": lambda L: L.tensor([NAN, INF], requires_grad=True) * 2,
    "int64_extremes": lambda L: L.tensor([2**62, -2**63]),
    "above_1e8": lambda L: L.tensor([123456789.0, 1.0]),
    "ratio": lambda L: L.tensor([1e8, 1e-8]),
    "signed_zero_nan": lambda L: L.tensor([0.0, -0.0, NAN]),
    "summarized_nan": lambda L: L.full((2000,), NAN),
    "expanded_inf": lambda L: L.tensor([1.0, INF]).expand(3, 2),
    "almost_1e9_inf": lambda L: L.tensor([9.999e8, INF]),
    "float64_wide": lambda L: L.tensor([1e100, 1e-100, NAN, -INF], dtype=L.float64),
    "negative_nan_1e4": lambda L: L.tensor([-1.5, NAN, 1e4]),
    "arange_1e6": lambda L: L.arange(1e6, 1e6 + 5),
    "float64_1e16": lambda L: L.tensor([1e16, 1.0], dtype=L.float64),
    "matrix_1e10_nan": lambda L: L.tensor([[1e10, NAN], [-INF, 3]], dtype=L.float64),
}


@pytest.mark.parametrize("name", list(REPRS))
def test_repr_of_special_values(name):
    expected = repr(REPRS[name](torch)).replace("torch", "gradtrack")
    assert repr(REPRS[name](gradtrack)) == expected
