"""The special functions at their edges (poles, zeros, infinities, NaN, the far tails),
their errors and the names of gradtrack.special, against torch 2.13.

The op table (tests/ops/op_db/pointwise.py) checks values and gradients on ordinary
inputs; here are the inputs where a formula has to choose.
"""

import math

import pytest

import gradtrack

NAN, INF = math.nan, math.inf
EDGES = [NAN, INF, -INF, 0.0, -0.0, -1.0, -2.0, -0.5, 1e-30, -1e-30, 1e-8, 0.5, 1.0, 3.5, 9.99,
         10.0, 30.0, 1e10, 709.0, 800.0, -800.0, -26.0, -40.0, 1e17, 1e300]
PROBABILITIES = [NAN, -0.0, 0.0, 1e-300, 1e-30, 1e-10, 0.02, 0.3, 0.5, 0.7, 0.98, 1 - 1e-10, 1.0,
                 1.5, -0.5, INF]

UNARY = ["lgamma", "digamma", "i0", "special.i0e", "special.i1", "special.i1e",
         "special.log_ndtr", "special.erfcx", "special.entr", "special.ndtri",
         "special.gammaln", "special.psi", "special.expit"]


def _fn(lib, name):
    for part in name.split("."):
        lib = getattr(lib, part)
    return lib


def _assert_same(ours, theirs, rtol):
    a, b = ours.tolist(), theirs.tolist()
    for x, y in zip(a, b):
        if math.isnan(y):
            assert math.isnan(x), (a, b)
        elif math.isinf(y) or y == 0:
            assert x == y and math.copysign(1, x) == math.copysign(1, y), (a, b)
        else:
            assert x == pytest.approx(y, rel=rtol, abs=0), (a, b)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY)
def test_values_at_the_edges_match_torch(torch, name, dtype):
    values = PROBABILITIES if name == "special.ndtri" else EDGES
    ours = _fn(gradtrack, name)(gradtrack.tensor(values, dtype=getattr(gradtrack, dtype)))
    theirs = _fn(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "gradtrack")
    _assert_same(ours, theirs, 1e-12 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_at_the_edges_matches_torch(torch, n):
    values = [v for v in EDGES if abs(v) < 1e17]
    ours = gradtrack.polygamma(n, gradtrack.tensor(values, dtype=gradtrack.float64))
    theirs = torch.polygamma(n, torch.tensor(values, dtype=torch.float64))
    _assert_same(ours, theirs, 1e-10)


@pytest.mark.parametrize("name", ["fmax", "fmin", "logaddexp", "logaddexp2"])
def test_binary_edges_match_torch(torch, name):
    left = [NAN, 1.0, NAN, INF, -INF, INF, -INF, 0.0, -0.0, 700.0, -700.0, 1.0]
    right = [2.0, NAN, NAN, INF, -INF, -INF, 1.0, -0.0, 0.0, 700.0, -700.0, 1e-20]
    ours = getattr(gradtrack, name)(gradtrack.tensor(left, dtype=gradtrack.float64),
                                    gradtrack.tensor(right, dtype=gradtrack.float64))
    theirs = getattr(torch, name)(torch.tensor(left, dtype=torch.float64),
                                  torch.tensor(right, dtype=torch.float64))
    _assert_same(ours, theirs, 1e-14)


@pytest.mark.parametrize("name", ["i0", "special.i1", "special.i1e", "special.i0e",
                                  "special.erfcx", "special.entr", "lgamma", "digamma"])
def test_gradients_at_the_edges_match_torch(torch, name):
    values = [0.0, -0.0, 1e-20, 0.25, -3.0, 25.0, 2.0]
    x = gradtrack.tensor(values, dtype=gradtrack.float64, requires_grad=True)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    _fn(gradtrack, name)(x).sum().backward()
    _fn(torch, name)(tx).sum().backward()
    _assert_same(x.grad, tx.grad, 1e-10)


def test_polygamma_errors_match_torch(torch):
    x = gradtrack.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"^polygamma\(n, x\) does not support negative n\.$"):
        gradtrack.polygamma(-1, x)
    with pytest.raises(TypeError, match="must be int, not float"):
        gradtrack.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        torch.polygamma(-1, torch.tensor([1.0]))


@pytest.mark.parametrize("name,dtype", [("logaddexp", "int64"), ("logaddexp2", "bool")])
def test_logaddexp_refuses_integers_as_torch(torch, name, dtype):
    theirs = getattr(torch, name)
    with pytest.raises(NotImplementedError) as expected:
        theirs(torch.tensor([1, 0]).to(getattr(torch, dtype)),
               torch.tensor([1, 0]).to(getattr(torch, dtype)))
    with pytest.raises(NotImplementedError) as got:
        getattr(gradtrack, name)(gradtrack.tensor([1, 0]).to(getattr(gradtrack, dtype)),
                                 gradtrack.tensor([1, 0]).to(getattr(gradtrack, dtype)))
    assert str(got.value) == str(expected.value)


def test_polygamma_records_its_order_and_double_backward(torch):
    x = gradtrack.tensor([0.5, 2.0], dtype=gradtrack.float64, requires_grad=True)
    tx = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    y, ty = gradtrack.polygamma(2, x), torch.polygamma(2, tx)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "PolygammaBackward0"
    (g,) = gradtrack.autograd.grad(y.sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(ty.sum(), tx, create_graph=True)
    _assert_same(g, tg.detach(), 1e-12)
    (gg,) = gradtrack.autograd.grad(g.sum(), x)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    _assert_same(gg, tgg, 1e-12)
    assert x.polygamma(1).tolist() == pytest.approx(tx.polygamma(1).tolist(), rel=1e-14)


def test_special_functions_take_out(torch):
    out = gradtrack.empty(3)
    x = gradtrack.tensor([0.25, 1.0, -2.0])
    assert gradtrack.special.i1e(x, out=out) is out
    assert out.tolist() == pytest.approx(torch.special.i1e(torch.tensor(x.tolist())).tolist())
    assert gradtrack.polygamma(1, x.abs(), out=out) is out
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        gradtrack.special.erfcx(x, out=gradtrack.empty(3, dtype=gradtrack.int64))


def test_special_names_are_torchs(torch):
    ours = set(gradtrack.special.__all__)
    theirs = {n for n in dir(torch.special) if not n.startswith("_")}
    assert ours <= theirs
    assert gradtrack.special.expit is gradtrack.sigmoid
    assert gradtrack.special.psi is gradtrack.digamma
    assert not hasattr(gradtrack.Tensor, "i0e") and not hasattr(gradtrack, "i0e")
