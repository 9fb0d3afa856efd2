"""cdist (every p and compute_mode), searchsorted and bucketize against torch
2.13: values, gradients, grad_fn names and error messages.
"""

import numpy as np
import pytest

import gradtrack
from helpers import name, nexts


def _outcome(lib, fn):
    try:
        r = fn(lib)
        return ("ok", r.tolist(), str(r.dtype).split(".")[-1])
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e).replace("gradtrack", "torch"))


SEARCH = {
    "left": lambda L: L.searchsorted(L.tensor([1., 3, 5, 7, 9]), L.tensor([[3., 6, 9], [3, 6, 9]])),
    "right": lambda L: L.searchsorted(L.tensor([1., 3, 5]), L.tensor([[3., 6]]), right=True),
    "side_right": lambda L: L.searchsorted(L.tensor([1., 3, 5]), L.tensor([3., 6]), side="right"),
    "opposites": lambda L: L.searchsorted(L.tensor([1., 3]), L.tensor([3.]), side="left",
                                          right=True),
    "bad_side": lambda L: L.searchsorted(L.tensor([1., 3]), L.tensor([3.]), side="foo"),
    "int32": lambda L: L.searchsorted(L.tensor([1., 3, 5]), L.tensor([3., 6]), out_int32=True),
    "scalar": lambda L: L.searchsorted(L.tensor([1., 3, 5, 7, 9]), 5),
    "scalar_float": lambda L: L.searchsorted(L.tensor([1., 3, 5, 7, 9]), 5.5),
    "nan": lambda L: L.searchsorted(L.tensor([1., 3, 5]), L.tensor([float("nan"), 1.])),
    "mixed_dtypes": lambda L: L.searchsorted(L.tensor([1, 3, 5]), L.tensor([1.5, 4])),
    "rows": lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]), L.tensor([[1.5], [4]])),
    "rows_mismatch": lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]),
                                              L.tensor([[2, 3, 4]])),
    "rows_1d_values": lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]), L.tensor([2, 3])),
    "zero_dim": lambda L: L.searchsorted(L.tensor(3.), L.tensor([2, 3])),
    "sorter": lambda L: L.searchsorted(L.tensor([5., 1, 3]), L.tensor([2., 4]),
                                       sorter=L.tensor([1, 2, 0])),
    "sorter_size": lambda L: L.searchsorted(L.tensor([5., 1, 3]), L.tensor([2., 4]),
                                            sorter=L.tensor([1, 2])),
    "sorter_range": lambda L: L.searchsorted(L.tensor([5., 1, 3]), L.tensor([2., 4]),
                                             sorter=L.tensor([1, 2, 3])),
    "sorter_dtype": lambda L: L.searchsorted(L.tensor([5., 1, 3]), L.tensor([2., 4]),
                                             sorter=L.tensor([1., 2, 0])),
    "bool": lambda L: L.searchsorted(L.tensor([True, False]), L.tensor([True])),
    "bucketize": lambda L: L.bucketize(L.tensor([3., 6, 9]), L.tensor([1., 3, 5, 7, 9])),
    "bucketize_right": lambda L: L.bucketize(L.tensor([[3., 6, 9]]), L.tensor([1., 3, 5, 7, 9]),
                                             right=True, out_int32=True),
    "bucketize_scalar": lambda L: L.bucketize(5, L.tensor([1., 3, 5, 7, 9])),
    "bucketize_2d": lambda L: L.bucketize(L.tensor([3., 6, 9]), L.tensor([[1., 2]])),
    "out_dtype": lambda L: L.searchsorted(L.tensor([1., 3]), L.tensor([2.]),
                                          out=L.empty(0, dtype=L.float32)),
    "out": lambda L: L.searchsorted(L.tensor([1., 3]), L.tensor([2., 4.]),
                                    out=L.empty(0, dtype=L.int64)),
    "bucketize_grad_input": lambda L: L.bucketize(L.tensor([3., 6], requires_grad=True),
                                                  L.tensor([1., 5])),
}


@pytest.mark.parametrize("case", sorted(SEARCH))
def test_searchsorted_and_bucketize_match_torch(torch, case):
    assert _outcome(gradtrack, SEARCH[case]) == _outcome(torch, SEARCH[case])


def test_searchsorted_large_random_matches_numpy():
    rng = np.random.RandomState(0)
    b = np.sort(rng.randint(0, 50, size=200)).astype(np.float64)
    v = rng.randint(-5, 55, size=5000).astype(np.float64)
    for side in ("left", "right"):
        got = gradtrack.searchsorted(gradtrack.tensor(b), gradtrack.tensor(v), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(b, v, side=side))


CDIST_ERRORS = {
    "x1_1d": lambda L: L.cdist(L.zeros(4), L.zeros(5, 4)),
    "x2_1d": lambda L: L.cdist(L.zeros(3, 4), L.zeros(4)),
    "columns": lambda L: L.cdist(L.zeros(3, 4), L.zeros(5, 3)),
    "negative_p": lambda L: L.cdist(L.zeros(3, 4), L.zeros(5, 4), p=-1),
    "integers": lambda L: L.cdist(L.ones(3, 4).long(), L.ones(5, 4).long()),
    "dtypes": lambda L: L.cdist(L.zeros(3, 4), L.zeros(5, 4).double()),
    "mode": lambda L: L.cdist(L.zeros(3, 4), L.zeros(5, 4), compute_mode="foo"),
    "batch": lambda L: L.cdist(L.zeros(2, 3, 4), L.zeros(3, 5, 4)),
    "empty_rows": lambda L: L.cdist(L.zeros(0, 4), L.zeros(5, 4)),
    "empty_cols": lambda L: L.cdist(L.zeros(3, 0), L.zeros(5, 0)),
}


@pytest.mark.parametrize("case", sorted(CDIST_ERRORS))
def test_cdist_checks_match_torch(torch, case):
    assert _outcome(gradtrack, CDIST_ERRORS[case]) == _outcome(torch, CDIST_ERRORS[case])


@pytest.mark.parametrize("p", [2.0, 1.0, float("inf"), 3.0, 0.5, 0.0])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("shapes", [((3, 4), (5, 4)), ((2, 1, 3, 4), (3, 5, 4)),
                                    ((30, 3), (4, 3))])
def test_cdist_matches_torch(torch, p, mode, shapes):
    rng = np.random.RandomState(0)
    a, b = rng.randn(*shapes[0]), rng.randn(*shapes[1])
    b[..., 0, :] = a[..., 0, :] if a.ndim == b.ndim else b[..., 0, :]  # a zero distance
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (a, b))
    ga, gb = (gradtrack.tensor(v, requires_grad=True) for v in (a, b))
    ty, gy = torch.cdist(ta, tb, p=p, compute_mode=mode), gradtrack.cdist(ga, gb, p=p,
                                                                          compute_mode=mode)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-7)
    assert name(gy.grad_fn) == name(ty.grad_fn)
    assert [n for n, _ in nexts(gy.grad_fn)][:1] == [n for n, _ in nexts(ty.grad_fn)][:1]
    w = rng.randn(*ty.shape)
    (ty * torch.tensor(w)).sum().backward()
    (gy * gradtrack.tensor(w)).sum().backward()
    np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gb.grad.numpy(), tb.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("p", [2.0, 1.0, float("inf"), 3.0, 1.5])
def test_cdist_gradcheck(p):
    a = gradtrack.randn(2, 3, 4, dtype=gradtrack.float64, requires_grad=True)
    b = gradtrack.randn(1, 5, 4, dtype=gradtrack.float64, requires_grad=True)
    assert gradtrack.autograd.gradcheck(
        lambda x, y: gradtrack.cdist(x, y, p=p, compute_mode="donot_use_mm_for_euclid_dist"),
        (a, b))
    if p == 2.0:
        assert gradtrack.autograd.gradcheck(
            lambda x, y: gradtrack.cdist(x, y, compute_mode="use_mm_for_euclid_dist"), (a, b))


def test_cdist_in_torch_functional():
    assert gradtrack.functional.cdist is gradtrack.cdist


@pytest.mark.parametrize("p, mode", [(1.0, "use_mm_for_euclid_dist_if_necessary"),
                                     (2.0, "donot_use_mm_for_euclid_dist"),
                                     (float("inf"), "use_mm_for_euclid_dist"),
                                     (0.5, "use_mm_for_euclid_dist_if_necessary"),
                                     (0.0, "donot_use_mm_for_euclid_dist")])
def test_cdist_double_backward_is_refused_as_torch_refuses_it(p, mode):
    from helpers import same

    def scenario(lib):
        a = lib.arange(6.0, dtype=lib.float64).reshape(3, 2).sin().requires_grad_()
        b = lib.arange(8.0, dtype=lib.float64).reshape(4, 2).cos()
        g, = lib.autograd.grad(lib.cdist(a, b, p=p, compute_mode=mode).sum(), a,
                               create_graph=True)
        names = g.grad_fn.name()
        g.sum().backward()
        return names
    same(scenario)
