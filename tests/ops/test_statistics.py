"""Scans, statistics and the indexed reductions against torch where the op table cannot
reach: the in-place forms that take ``dim`` first (``scatter_reduce_``,
``index_reduce_``), ``out=`` with named-tuple results, ``var``/``std`` with a float or
absent ``correction``, forward AD where torch has none, and the refusals, each with
torch's exception type and message and without touching ``self`` or its ``_version``.
"""

import warnings

import numpy as np
import pytest

import gradtrack


def _inputs(lib, dtype):
    rng = np.random.default_rng(11)
    grad = dtype == lib.float64
    x = lib.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=grad)
    src = lib.tensor(rng.standard_normal((4, 4)), dtype=dtype, requires_grad=grad)
    return x, src


CALLS = {
    "scatter_reduce_sum": lambda y, s, L: y.scatter_reduce_(
        0, L.tensor([[0, 2, 1, 0], [0, 0, 2, 2]]), s[:2], "sum"),
    "scatter_reduce_amax_exclude": lambda y, s, L: y.scatter_reduce_(
        1, L.tensor([[0, 0, 3], [1, 1, 1], [3, 2, 0]]), s[:3, :3], "amax", include_self=False),
    "scatter_reduce_prod": lambda y, s, L: y.scatter_reduce_(
        0, L.tensor([[1, 1, 1, 1]]), s[:1], "prod"),
    "scatter_reduce_mean_exclude": lambda y, s, L: y.scatter_reduce_(
        0, L.tensor([[0, 2, 1, 0], [0, 0, 2, 2]]), s[:2], "mean", include_self=False),
    "index_reduce_prod": lambda y, s, L: y.index_reduce_(0, L.tensor([0, 2, 0, 0]), s, "prod"),
    "index_reduce_mean_exclude": lambda y, s, L: y.index_reduce_(
        1, L.tensor([3, 3, 0, 1]), s[:3], "mean", include_self=False),
    "index_reduce_amin": lambda y, s, L: y.index_reduce_(0, L.tensor([1, 1, 1, 2]), s, "amin"),
}


def _outcome(lib, name, dtype):
    x, src = _inputs(lib, dtype)
    y = x * 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: index_reduce() is in beta
        out = CALLS[name](y, src, lib)
    assert out is y
    state = (y.grad_fn.name() if y.grad_fn else None, y._version)
    grads = None
    if dtype == lib.float64:
        upstream = lib.tensor(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
        grads = lib.autograd.grad([y], [x, src], [upstream], allow_unused=True)
        grads = [None if g is None else g.detach().numpy() for g in grads]
    return state, y.detach().numpy(), grads


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_dim_first_inplace_forms_match_torch(torch, name, dtype):
    got = _outcome(gradtrack, name, getattr(gradtrack, dtype))
    want = _outcome(torch, name, getattr(torch, dtype))
    assert got[0] == want[0], "grad_fn, _version"
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-6)
    for g, tg in zip(got[2] or (), want[2] or ()):
        assert (g is None) == (tg is None)
        if tg is not None:
            np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)


def _values(r):
    return [t.numpy() for t in r] if isinstance(r, tuple) else [r.numpy()]


OUT_CALLS = {
    "cummax": lambda L, x, o: L.cummax(x, 1, out=o),
    "cummin": lambda L, x, o: L.cummin(x, 0, out=o),
    "aminmax": lambda L, x, o: L.aminmax(x, dim=1, out=o),
    "nanmedian": lambda L, x, o: L.nanmedian(x, 1, out=o),
    "histogram": lambda L, x, o: L.histogram(x, 3, out=o),
}


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out_takes_a_tuple_for_named_results(torch, name):
    results = []
    for L in (gradtrack, torch):
        x = L.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
        first = L.empty(0)
        second = L.empty(0, dtype=L.float32 if name in ("aminmax", "histogram") else L.int64)
        r = OUT_CALLS[name](L, x, (first, second))
        assert r[0] is first and r[1] is second
        assert isinstance(r, tuple)
        results.append(_values(r))
    for g, t in zip(*results):
        np.testing.assert_allclose(g, t)


def test_logcumsumexp_renorm_quantile_take_out(torch):
    for name, call in {
            "logcumsumexp": lambda L, x, o: L.logcumsumexp(x, 1, out=o),
            "renorm": lambda L, x, o: L.renorm(x, 2, 0, 1.0, out=o),
            "quantile": lambda L, x, o: L.quantile(x, 0.25, dim=0, out=o),
            "nansum": lambda L, x, o: L.nansum(x, out=o),
            "nanmean": lambda L, x, o: L.nanmean(x, 1, out=o),
            "histc": lambda L, x, o: L.histc(x, 4, out=o)}.items():
        got = []
        for L in (gradtrack, torch):
            x = L.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
            o = L.empty(0)
            assert call(L, x, o) is o, name
            got.append((o.numpy().copy(), o._version))
        np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6, err_msg=name)
        assert got[0][1] == got[1][1], name


@pytest.mark.parametrize("correction", [0.5, None, 2, 0])
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_var_std_take_any_correction(torch, name, correction):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((3, 5))
    got, want = [], []
    for L, store in ((gradtrack, got), (torch, want)):
        x = L.tensor(data, requires_grad=True)
        r = getattr(L, name)(x, 1, correction=correction, keepdim=True)
        first = r[0] if isinstance(r, tuple) else r
        store.append(first.detach().numpy())
        store.append(type(first.grad_fn).__name__ if L is torch else first.grad_fn.name())
        store.append(L.autograd.grad(first.sum(), x)[0].numpy())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-10)


def test_index_reduce_has_no_forward_ad_and_scatter_prod_no_tangent(torch):
    import gradtrack.autograd.forward_ad as fw

    x = gradtrack.ones(3, dtype=gradtrack.float64)
    with fw.dual_level():
        dual = fw.make_dual(x, gradtrack.ones(3, dtype=gradtrack.float64))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with "
                                                      "index_reduce that does not support it"):
            dual.index_reduce(0, gradtrack.tensor([0, 0]), gradtrack.ones(2, dtype=x.dtype),
                              "prod")
        r = dual.scatter_reduce(0, gradtrack.tensor([0, 0]), gradtrack.ones(2, dtype=x.dtype),
                                "amax")
        assert fw.unpack_dual(r).tangent is not None


X = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.5, 0.0], [3.0, 3.0, -2.0, 1.0]]
REFUSALS = {
    "scatter_reduce_reduce": lambda L: L.tensor(X).scatter_reduce(
        0, L.tensor([[0]]), L.tensor(X), "mul"),
    "scatter_reduce_dtype": lambda L: L.tensor(X).scatter_reduce(
        0, L.tensor([[0]]), L.tensor(X, dtype=L.float64), "sum"),
    "scatter_reduce_bounds": lambda L: L.tensor(X).scatter_reduce(
        0, L.tensor([[5]]), L.tensor(X), "sum"),
    "scatter_reduce_dims": lambda L: L.tensor(X).scatter_reduce(
        0, L.tensor([0]), L.tensor(X), "sum"),
    "scatter_reduce_inplace_bounds": lambda L: L.tensor(X).scatter_reduce_(
        1, L.tensor([[0, 9]]), L.tensor(X), "amin"),
    "index_reduce_sum": lambda L: L.tensor(X).index_reduce(0, L.tensor([0]), L.ones(1, 4), "sum"),
    "index_reduce_float_index": lambda L: L.tensor(X).index_reduce(
        0, L.tensor([0.0]), L.ones(1, 4), "prod"),
    "index_reduce_matrix_index": lambda L: L.tensor(X).index_reduce(
        0, L.tensor([[0]]), L.ones(1, 4), "prod"),
    "index_reduce_count": lambda L: L.tensor(X).index_reduce(
        0, L.tensor([0, 1]), L.ones(1, 4), "mean"),
    "index_reduce_dtype": lambda L: L.tensor(X).index_reduce(
        0, L.tensor([0]), L.ones(1, 4, dtype=L.float64), "amax"),
    "index_reduce_shape": lambda L: L.tensor(X).index_reduce(
        0, L.tensor([0]), L.ones(1, 3), "amax"),
    "index_reduce_bounds": lambda L: L.tensor(X).index_reduce_(
        0, L.tensor([-1]), L.ones(1, 4), "amin"),
    "cummax_dim": lambda L: L.cummax(L.tensor(X), 2),
    "logcumsumexp_int": lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    "nanmedian_empty_dim": lambda L: L.nanmedian(L.zeros(2, 0), 1),
    "nanmean_int": lambda L: L.nanmean(L.tensor([1, 2])),
    "aminmax_empty": lambda L: L.aminmax(L.zeros(0)),
    "aminmax_empty_dim": lambda L: L.aminmax(L.zeros(2, 0), dim=1),
    "dist_int": lambda L: L.dist(L.tensor([1, 2]), L.tensor([3, 4])),
    "dist_shapes": lambda L: L.dist(L.ones(2), L.ones(3)),
    "renorm_p": lambda L: L.renorm(L.tensor(X), -1, 0, 1.0),
    "renorm_maxnorm": lambda L: L.renorm(L.tensor(X), 2, 0, -1.5),
    "renorm_1d": lambda L: L.renorm(L.ones(3), 2, 0, 1.0),
    "renorm_int": lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 0, 1.0),
    "renorm_inplace_p": lambda L: L.tensor(X).renorm_(0, 0, 1.0),
    "quantile_q_range": lambda L: L.quantile(L.tensor(X), 1.5),
    "quantile_q_values": lambda L: L.quantile(L.tensor(X), L.tensor([0.2, -0.1])),
    "quantile_q_matrix": lambda L: L.quantile(L.tensor(X), L.tensor([[0.2]])),
    "quantile_q_dtype": lambda L: L.quantile(L.tensor(X), L.tensor([0.2], dtype=L.float64)),
    "quantile_int": lambda L: L.quantile(L.tensor([1, 2]), 0.5),
    "quantile_empty": lambda L: L.quantile(L.zeros(0), 0.5),
    "quantile_interpolation": lambda L: L.nanquantile(L.tensor(X), 0.5, interpolation="mid"),
    "quantile_dim": lambda L: L.quantile(L.tensor(X), 0.5, dim=2),
    "histc_int": lambda L: L.histc(L.tensor([1, 2])),
    "histc_bins": lambda L: L.histc(L.tensor(X), -1),
    "histc_range": lambda L: L.histc(L.tensor(X), 3, min=2, max=1),
    "histc_inf": lambda L: L.histc(L.tensor(X), 3, min=float("-inf"), max=1),
    "histogram_int": lambda L: L.histogram(L.tensor([1, 2]), 2),
    "histogram_range": lambda L: L.histogram(L.tensor(X), 2, range=(3.0, 1.0)),
    "histogram_bins_matrix": lambda L: L.histogram(L.tensor(X), L.tensor([[0.0, 1.0]])),
    "bincount_negative": lambda L: L.bincount(L.tensor([1, -2])),
    "bincount_matrix": lambda L: L.bincount(L.tensor([[1, 2]])),
    "bincount_float": lambda L: L.bincount(L.tensor([1.0])),
    "bincount_minlength": lambda L: L.bincount(L.tensor([1]), minlength=-1),
    "bincount_weights": lambda L: L.bincount(L.tensor([1, 2]), L.tensor([1.0])),
    "cov_3d": lambda L: L.cov(L.zeros(2, 2, 2)),
    "cov_bool": lambda L: L.cov(L.tensor([True])),
    "cov_fweights_float": lambda L: L.cov(L.tensor(X), fweights=L.ones(4)),
    "cov_fweights_count": lambda L: L.cov(L.tensor(X), fweights=L.tensor([1, 2])),
    "cov_fweights_negative": lambda L: L.cov(L.tensor(X), fweights=L.tensor([1, -2, 1, 1])),
    "cov_aweights_int": lambda L: L.cov(L.tensor(X), aweights=L.tensor([1, 2, 1, 1])),
    "cov_aweights_zero": lambda L: L.cov(L.tensor(X), aweights=L.zeros(4)),
    "corrcoef_3d": lambda L: L.corrcoef(L.zeros(2, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(torch, name):
    with pytest.raises(Exception) as want:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            REFUSALS[name](torch)
    with pytest.raises(type(want.value)) as got:
        REFUSALS[name](gradtrack)
    assert str(got.value) == str(want.value)


def test_scatter_reduce_old_names_forward_but_refuse_backward(torch):
    for reduce in ("max", "min"):
        outcomes = []
        for L in (gradtrack, torch):
            x = L.tensor(X, requires_grad=True)
            y = x.scatter_reduce(0, L.tensor([[1, 0, 2, 2]]), L.tensor([[5.0, -1, 0, 9]]), reduce,
                                 include_self=False)
            with pytest.raises(RuntimeError) as err:
                y.sum().backward()
            outcomes.append((y.detach().numpy().tolist(), str(err.value)))
        assert outcomes[0] == outcomes[1]


def test_dist_p0_backward_refuses_other_as_torch(torch):
    for L in (gradtrack, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = L.tensor([0.5, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="Expected a proper Tensor but got None"):
            L.dist(x, y, 0).backward()
        z = L.tensor([0.5, 2.0])
        L.dist(x, z, 0).backward()
        assert x.grad is None


def test_refused_inplace_leaves_self_alone():
    x = gradtrack.tensor(X)
    with pytest.raises(RuntimeError):
        x.scatter_reduce_(0, gradtrack.tensor([[0, 7]]), gradtrack.ones(1, 2), "sum")
    with pytest.raises(IndexError):
        x.index_reduce_(0, gradtrack.tensor([3]), gradtrack.ones(1, 4), "prod")
    assert x._version == 0 and x.tolist() == X


def test_cov_warns_when_no_degrees_of_freedom_are_left(torch):
    for L in (gradtrack, torch):
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            r = L.cov(L.tensor([1.0, 2.0, 3.0]), correction=3)
        assert float(r) == float("inf")


def test_histc_and_histogram_edges_match_torch(torch):
    data = np.random.default_rng(5).standard_normal(200).astype(np.float32)
    data[:3] = [0.0, 1.0, 0.5]
    for bins in (1, 7, 32):
        got = gradtrack.histc(gradtrack.tensor(data), bins, min=0, max=1)
        want = torch.histc(torch.tensor(data), bins, min=0, max=1)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        h, e = gradtrack.histogram(gradtrack.tensor(data), bins)
        th, te = torch.histogram(torch.tensor(data), bins)
        np.testing.assert_array_equal(h.numpy(), th.numpy())
        np.testing.assert_array_equal(e.numpy(), te.numpy())
