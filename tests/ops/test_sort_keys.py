"""sort and topk of float32 lines of 256+ elements: the integer-key paths.

NOTE [Sort keys] (csrc/kernels/sort_keys.cpp): a radix sort for full sorts, a
k-element heap for topk, split over threads along one long line. Each result
must equal torch's exactly: values (NaN, -0.0 bits included), positions, and
the order of ties: by position with stable=True, else as torch's std::sort and
topk leave them (NOTE [Ties in torch's order] in csrc/kernels/scan_sort.cpp).
"""

import numpy as np
import pytest

import gradtrack


def _data(n, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "normal":
        return rng.standard_normal(n).astype(np.float32)
    if kind == "ties":  # few distinct values, signed zeros among them
        return rng.choice(np.array([-1.5, -0.0, 0.0, 2.0, 7.25], np.float32), n)
    x = rng.standard_normal(n).astype(np.float32)  # "special": NaN, inf, zeros, extremes
    idx = rng.choice(n, size=min(n, 64), replace=False)
    x[idx] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38, -3.4e38,
                                  1e-45, -1e-45], np.float32), idx.size)
    x[idx[:3]] = np.array([np.nan, -np.nan, np.nan], np.float32)  # NaN of both signs
    return x


def _same(got, want):
    gv, gi = got
    wv, wi = want
    assert gv.dtype == gradtrack.float32 and gi.dtype == gradtrack.int64
    a, b = gv.numpy(), wv.numpy()
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b))
    assert np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32))  # -0.0 kept
    assert np.array_equal(gi.numpy(), wi.numpy())


@pytest.mark.parametrize("kind", ["normal", "ties", "special"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", [256, 1000, 5003])
def test_full_sort_of_lines_matches_torch(torch, kind, descending, n):
    x = _data(n, kind, seed=n)
    for stable in (None, False, True):
        kwargs = {} if stable is None else {"stable": stable}
        _same(gradtrack.from_numpy(x.copy()).sort(descending=descending, **kwargs),
              torch.from_numpy(x.copy()).sort(descending=descending, **kwargs))


@pytest.mark.parametrize("kind", ["normal", "ties", "special"])
def test_sort_along_inner_and_outer_dims_matches_torch(torch, kind):
    x = _data(3 * 300 * 4, kind, seed=7).reshape(3, 300, 4)
    for dim in (1, -1, 0):
        for descending, stable in ((False, False), (True, False), (False, True), (True, True)):
            _same(gradtrack.from_numpy(x.copy()).sort(dim=dim, descending=descending,
                                                      stable=stable),
                  torch.from_numpy(x.copy()).sort(dim=dim, descending=descending, stable=stable))


@pytest.mark.parametrize("kind", ["normal", "ties", "special"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("n,k", [(300, 3), (1000, 200), (70000, 10), (200003, 1), (200003, 37)])
def test_topk_matches_torch(torch, kind, largest, n, k):
    """Few of many use the heap (split along the line from 2^16 up), more the radix sort."""
    x = _data(n, kind, seed=k)
    for sorted_ in (True, False):
        _same(gradtrack.from_numpy(x.copy()).topk(k, largest=largest, sorted=sorted_),
              torch.from_numpy(x.copy()).topk(k, largest=largest, sorted=sorted_))


def test_topk_of_several_long_lines_and_one_thread(torch):
    x = _data(3 * 70000, "normal", seed=3).reshape(3, 70000)
    x[0, 5], x[1, 6], x[2, 7], x[1, 8] = np.inf, -np.inf, 9.0, -0.0  # no ties: exact order
    for threads in (1, 2):
        old = gradtrack.get_num_threads()
        gradtrack.set_num_threads(threads)
        try:
            for dim, k in ((1, 5), (0, 2)):
                _same(gradtrack.from_numpy(x.copy()).topk(k, dim=dim),
                      torch.from_numpy(x.copy()).topk(k, dim=dim))
        finally:
            gradtrack.set_num_threads(old)


def test_sort_and_topk_gradients_flow_to_the_chosen_positions(torch):
    x = _data(1000, "normal", seed=11)
    for lib in (gradtrack, torch):
        a = lib.from_numpy(x.copy()).requires_grad_()
        (a.sort(descending=True).values[:5] * lib.arange(1.0, 6.0)).sum().backward()
        b = lib.from_numpy(x.copy()).requires_grad_()
        b.topk(4).values.sum().backward()
        if lib is gradtrack:
            ga, gb = a.grad.numpy(), b.grad.numpy()
        else:
            assert np.array_equal(ga, a.grad.numpy())
            assert np.array_equal(gb, b.grad.numpy())
