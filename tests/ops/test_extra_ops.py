"""Scans, sorts, statistics, diagonals, shape ops and the other tensor ops
beyond the elementwise core, against torch 2.13: argument checks and
their messages, grad_fn names, named results, keyword forms, and gradients
(including double backward and finite differences) where the op table
(tests/ops/op_db/) does not reach: ties, NaN, zeros, edge shapes.
"""

import numpy as np
import pytest

import gradtrack

from helpers import same

F64 = "float64"


def _x(lib, *shape, seed=0, rg=True):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=lib.float64, requires_grad=rg)


def _grads(lib, out, *inputs):
    """Gradients of ``out`` (a tensor or a tuple whose first is) for a fixed upstream."""
    out = out[0] if isinstance(out, tuple) else out
    up = lib.tensor(np.linspace(-1, 1, max(out.numel(), 1)).reshape(tuple(out.shape)))
    return lib.autograd.grad([out], list(inputs), [up], allow_unused=True)


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "cumsum_dim": lambda lib: lib.cumsum(lib.ones(2, 3), 2),
    "sort_dim": lambda lib: lib.sort(lib.tensor(3.0), 1),
    "topk_k_big": lambda lib: lib.topk(lib.ones(2, 3), 4),
    "topk_k_neg": lambda lib: lib.topk(lib.ones(3), -1),
    "topk_0d_k2": lambda lib: lib.topk(lib.tensor(3.0), 2),
    "var_int": lambda lib: lib.var(lib.tensor([1, 2, 3])),
    "std_int": lambda lib: lib.tensor([1, 2]).std(),
    "tril_1d": lambda lib: lib.tril(lib.ones(3)),
    "triu_1d": lambda lib: lib.ones(3).triu(),
    "flip_dup": lambda lib: lib.flip(lib.ones(2, 3), (0, 0)),
    "flip_range": lambda lib: lib.flip(lib.ones(2, 3), (3,)),
    "roll_align": lambda lib: lib.roll(lib.ones(2, 3), (1, 2), (0,)),
    "roll_empty": lambda lib: lib.roll(lib.ones(2, 3), (), ()),
    "roll_range": lambda lib: lib.roll(lib.ones(2, 3), 1, 5),
    "repeat_fewer": lambda lib: lib.ones(2, 3).repeat(2),
    "repeat_negative": lambda lib: lib.ones(2, 3).repeat(-1, 1),
    "repeat_none": lambda lib: lib.ones(2).repeat(),
    "kthvalue_k": lambda lib: lib.kthvalue(lib.ones(2, 5), 6, 1),
    "kthvalue_k0": lambda lib: lib.ones(2, 5).kthvalue(0),
    "median_empty_dim": lambda lib: lib.median(lib.zeros(2, 0), 1),
    "trace_1d": lambda lib: lib.trace(lib.ones(3)),
    "diag_3d": lambda lib: lib.diag(lib.ones(2, 2, 2)),
    "diagonal_same_dims": lambda lib: lib.diagonal(lib.zeros(2, 3), 0, 1, 1),
    "diag_embed_same_dims": lambda lib: lib.diag_embed(lib.ones(2), 1, 0, 0),
    "lerp_dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp_int": lambda lib: lib.lerp(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64),
                                     0.5),
    "cross_len": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4), dim=1),
    "linalg_cross_len": lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2)),
    "vector_norm_int": lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64)),
    "addmv_sizes": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(4)),
    "baddbmm_sizes": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2, 3),
                                             lib.ones(2, 4, 2)),
    "one_hot_float": lambda lib: lib.nn.functional.one_hot(lib.tensor([0.0, 2.0])),
    "one_hot_too_big": lambda lib: lib.nn.functional.one_hot(lib.tensor([0, 3]), 3),
    "one_hot_negative": lambda lib: lib.nn.functional.one_hot(lib.tensor([-1, 2]), 3),
    "repeat_interleave_sizes": lambda lib: lib.repeat_interleave(lib.ones(2, 3), lib.tensor([1, 2, 3]),
                                                                 dim=0),
    "repeat_interleave_negative": lambda lib: lib.repeat_interleave(lib.ones(2), -1),
    "isclose_dtypes": lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "cumsum_int32_to_int64": lambda lib: lib.cumsum(lib.tensor([1, 2, 3], dtype=lib.int32), 0),
    "cumsum_bool": lambda lib: lib.tensor([True, False, True]).cumsum(0),
    "cumsum_dtype_kw": lambda lib: lib.cumsum(lib.ones(2, 3), dim=0, dtype=lib.int32),
    "cumprod_grad_fn": lambda lib: lib.cumprod(_x(lib, 2, 3), 1),
    "sort_named": lambda lib: lib.sort(lib.tensor([2.0, 3.0, 1.0]), descending=True),
    # NaN != NaN in the comparison: NaN is shown as 99
    "sort_nan_last": lambda lib: [t.nan_to_num(99.0) for t in lib.sort(
        lib.tensor([2.0, float("nan"), 1.0]))],
    "sort_nan_first_desc": lambda lib: [t.nan_to_num(99.0) for t in lib.sort(
        lib.tensor([2.0, float("nan"), 1.0]), 0, True)],
    "sort_bool": lambda lib: lib.sort(lib.tensor([True, False])),
    "sort_0d": lambda lib: lib.sort(lib.tensor(3.0), 0),
    "sort_stable_ties": lambda lib: lib.sort(lib.tensor([1, 0, 1, 0, 1]), stable=True),
    # any stable= (None included) takes torch's sort.stable overload: SortBackward1
    "sort_stable_grad_fn": lambda lib: (lib.sort(_x(lib, 4), stable=True),
                                        lib.sort(_x(lib, 4), stable=None),
                                        _x(lib, 4).sort(0, True), _x(lib, 4).sort(stable=False)),
    "argsort": lambda lib: lib.argsort(lib.tensor([[3, 1, 2], [0, 5, 4]]), dim=1),
    "topk_named": lambda lib: lib.topk(_x(lib, 3, 4), 2, dim=0, largest=False),
    "topk_0d": lambda lib: lib.topk(lib.tensor(3.0), 1),
    "topk_k0": lambda lib: lib.topk(lib.ones(2, 3), 0),
    "var_grad_fn": lambda lib: (lib.var(_x(lib, 3, 4)), lib.std(_x(lib, 3, 4), 0)),
    "var_mean_grad_fn": lambda lib: lib.var_mean(_x(lib, 3, 4), 1, keepdim=True),
    "std_mean_grad_fn": lambda lib: lib.std_mean(_x(lib, 3, 4), (0, 1)),
    "var_unbiased_positional": lambda lib: lib.var(_x(lib, 5), False),
    "var_one_element": lambda lib: lib.var(lib.ones(1), 0).isnan(),
    "logsumexp_int": lambda lib: lib.logsumexp(lib.tensor([1, 2, 3]), 0),
    "logsumexp_inf": lambda lib: lib.logsumexp(lib.tensor([[-float("inf")] * 2, [1.0, 2.0]]), 1),
    "tril_grad_fn": lambda lib: (lib.tril(_x(lib, 3, 3)), lib.triu(_x(lib, 3, 3), -1)),
    "tril_inplace": lambda lib: (lambda y: (y.tril_(1), y._version))(_x(lib, 3, 4) * 1),
    "triu_inplace_leaf": lambda lib: _x(lib, 3, 3).triu_(),
    "flip_roll_repeat_grad_fn": lambda lib: (lib.flip(_x(lib, 2, 3), (0,)),
                                             lib.roll(_x(lib, 2, 3), 1),
                                             _x(lib, 2, 3).repeat(2, 1),
                                             lib.tile(_x(lib, 2, 3), (2,))),
    "repeat_empty": lambda lib: lib.ones(2, 0).repeat(3, 2),
    "kthvalue": lambda lib: lib.kthvalue(_x(lib, 3, 5), 2, 1, keepdim=True),
    "median_all": lambda lib: lib.median(_x(lib, 3, 5)),
    "median_nan": lambda lib: (lib.median(lib.tensor([1.0, float("nan"), 3.0])).isnan(),
                               [t.nan_to_num(99.0) for t in
                                lib.median(lib.tensor([1.0, float("nan"), 3.0, float("nan")]), 0)]),
    "median_even": lambda lib: lib.median(lib.tensor([4.0, 1.0, 3.0, 2.0])),
    "median_dim": lambda lib: lib.median(_x(lib, 3, 4), 0),
    "mode": lambda lib: lib.mode(lib.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 1.0]])),
    "mode_int": lambda lib: lib.tensor([3, 1, 3, 1, 2]).mode(),
    "order_stats_0d": lambda lib: (lib.kthvalue(lib.tensor(3.0), 1), lib.mode(lib.tensor(3.0)),
                                   lib.median(lib.tensor(3.0), 0)),
    "diagonal_view": lambda lib: (lambda x: (lib.diagonal(x, 1), lib.diagonal(x, 1)._base is x))(
        _x(lib, 3, 4)),
    "diagonal_dims": lambda lib: lib.diagonal(lib.arange(24.0).view(2, 3, 4), -1, 2, 0),
    "diagonal_beyond": lambda lib: lib.diagonal(lib.zeros(2, 3), 5),
    "diag_embed": lambda lib: lib.diag_embed(_x(lib, 2, 3), -1, 0, 2),
    "diag_1d_2d": lambda lib: (lib.diag(_x(lib, 3), 1), lib.diag(_x(lib, 3, 4), -1)),
    "trace": lambda lib: (lib.trace(_x(lib, 3, 4)), lib.trace(lib.arange(6).view(2, 3))),
    "nan_to_num": lambda lib: lib.nan_to_num(
        lib.tensor([float("nan"), float("inf"), -float("inf"), 1.0], requires_grad=True)),
    "nan_to_num_values": lambda lib: lib.nan_to_num(
        lib.tensor([float("nan"), float("inf"), -float("inf")], dtype=lib.float64), 1.0, 2.0, -3.0),
    "nan_to_num_int": lambda lib: lib.nan_to_num(lib.tensor([1, 2])),
    "lerp": lambda lib: (lib.lerp(_x(lib, 3), _x(lib, 3, seed=1), 0.25),
                         lib.lerp(_x(lib, 3), _x(lib, 3, seed=1), _x(lib, 3, seed=2)),
                         lib.lerp(lib.tensor([1.0]), lib.tensor([3.0]), 1.0)),
    "norms": lambda lib: (lib.linalg.vector_norm(_x(lib, 3, 4)), lib.norm(_x(lib, 3, 4)),
                          _x(lib, 3, 4).norm(dim=1), lib.linalg.norm(_x(lib, 3, 4)),
                          lib.linalg.vector_norm(_x(lib, 2, 3), ord=3, dim=1)),
    "baddbmm_addmv": lambda lib: (lib.baddbmm(_x(lib, 2, 2, 2), _x(lib, 2, 2, 3), _x(lib, 2, 3, 2),
                                              beta=0.5, alpha=2),
                                  lib.addmv(_x(lib, 2), _x(lib, 2, 3), _x(lib, 3), beta=2)),
    "cross": lambda lib: (lib.cross(_x(lib, 2, 3), _x(lib, 2, 3, seed=1), dim=1),
                          lib.linalg.cross(_x(lib, 3, 3), _x(lib, 1, 3, seed=1))),
    "cross_ndim": lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3)),
    "isclose": lambda lib: (lib.isclose(lib.tensor([1.0, float("nan"), 2.0]),
                                        lib.tensor([1.0 + 1e-9, float("nan"), 2.1])),
                            lib.isclose(lib.tensor([float("nan")]), lib.tensor([float("nan")]),
                                        equal_nan=True),
                            lib.isclose(lib.tensor([float("inf")]), lib.tensor([float("inf")])),
                            lib.allclose(lib.tensor([1.0]), lib.tensor([1.0 + 1e-9])),
                            lib.allclose(lib.tensor([1.0]), lib.tensor([1.1]))),
    "one_hot": lambda lib: (lib.nn.functional.one_hot(lib.tensor([0, 2])),
                            lib.nn.functional.one_hot(lib.tensor([[1], [0]]), num_classes=3)),
    "einsum": lambda lib: (lib.einsum("ij,jk->ik", _x(lib, 2, 3), _x(lib, 3, 4)),
                           lib.einsum("ij->j", _x(lib, 2, 3)),
                           lib.einsum("ii", _x(lib, 3, 3)),
                           lib.einsum("bij,bkj->bik", _x(lib, 2, 3, 4), _x(lib, 2, 5, 4)),
                           lib.einsum("i,j->ij", _x(lib, 2), _x(lib, 3)),
                           lib.einsum("ij,jk,kl->il", _x(lib, 2, 3), _x(lib, 3, 4), _x(lib, 4, 2))),
    "repeat_interleave": lambda lib: (_x(lib, 2, 3).repeat_interleave(2),
                                      lib.repeat_interleave(_x(lib, 2, 3), 3, dim=1),
                                      lib.repeat_interleave(_x(lib, 2, 3), lib.tensor([1, 2]), dim=0),
                                      lib.repeat_interleave(_x(lib, 2, 3), lib.tensor([0, 2, 1]), 1),
                                      lib.repeat_interleave(lib.tensor([0, 2, 0, 3]))),
    "unique": lambda lib: (lib.unique(lib.tensor([[3, 1], [3, 2]])),
                           lib.unique(lib.tensor([2.5, -1.0, 2.5, 0.0, -1.0]), return_inverse=True,
                                      return_counts=True),
                           lib.tensor([True, False, True]).unique(return_counts=True),
                           lib.unique(lib.zeros(0), return_inverse=True, return_counts=True),
                           lib.unique(_x(lib, 2, 3, rg=False))),
    "tensordot": lambda lib: (lib.tensordot(_x(lib, 2, 3, 4), _x(lib, 3, 4, 5)),
                              lib.tensordot(_x(lib, 3, 4), _x(lib, 5, 4), dims=([1], [1]))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "cumprod_zeros": lambda lib: (lambda x: _grads(lib, lib.cumprod(x, 1), x))(
        lib.tensor([[0.0, 2.0, 0.0, 3.0], [1.5, -2.0, 0.0, 4.0]], dtype=lib.float64,
                   requires_grad=True)),
    "sort_ties": lambda lib: (lambda x: _grads(lib, lib.sort(x, stable=True), x))(
        lib.tensor([1.0, 0.0, 1.0, 0.0], dtype=lib.float64, requires_grad=True)),
    "std_zero": lambda lib: (lambda x: _grads(lib, lib.std(x, 1), x))(
        lib.tensor([[1.0, 1.0], [1.0, 2.0]], dtype=lib.float64, requires_grad=True)),
    "var_mean_one_output": lambda lib: (lambda x: _grads(lib, lib.var_mean(x, 0)[1], x))(
        _x(lib, 3, 2)),
    "logsumexp_keepdim": lambda lib: (lambda x: _grads(lib, lib.logsumexp(x, (0, 2), True), x))(
        _x(lib, 2, 3, 2)),
    "median_all_ties": lambda lib: (lambda x: _grads(lib, lib.median(x), x))(
        lib.tensor([2.0, 1.0, 2.0, 3.0, 2.0], dtype=lib.float64, requires_grad=True)),
    "median_dim": lambda lib: (lambda x: _grads(lib, lib.median(x, 1), x))(_x(lib, 3, 5)),
    "mode_dim": lambda lib: (lambda x: _grads(lib, lib.mode(x, 0, keepdim=True), x))(
        lib.tensor([[1.0, 2.0], [1.0, 3.0], [4.0, 3.0]], dtype=lib.float64, requires_grad=True)),
    "kthvalue": lambda lib: (lambda x: _grads(lib, lib.kthvalue(x, 3, 0), x))(_x(lib, 4, 3)),
    "diagonal_offsets": lambda lib: (lambda x: _grads(lib, lib.diagonal(x, -1, 2, 0), x))(
        _x(lib, 3, 2, 4)),
    "diag_embed": lambda lib: (lambda x: _grads(lib, lib.diag_embed(x, 1), x))(_x(lib, 2, 3)),
    "trace": lambda lib: (lambda x: _grads(lib, lib.trace(x), x))(_x(lib, 3, 4)),
    "nan_to_num": lambda lib: (lambda x: _grads(lib, lib.nan_to_num(x), x))(
        lib.tensor([float("nan"), float("inf"), 2.0], dtype=lib.float64, requires_grad=True)),
    "lerp_broadcast": lambda lib: (lambda a, b, w: _grads(lib, lib.lerp(a, b, w), a, b, w))(
        _x(lib, 2, 3), _x(lib, 3, seed=1), _x(lib, 2, 1, seed=2)),
    "norm_orders": lambda lib: (lambda x: [_grads(lib, lib.linalg.vector_norm(x, o, 1), x)
                                           for o in (1, 2, 3, 0.5, float("inf"), -float("inf"), 0)])(
        _x(lib, 3, 4)),
    "norm_zero": lambda lib: (lambda x: _grads(lib, lib.linalg.vector_norm(x), x))(
        lib.zeros(3, dtype=lib.float64, requires_grad=True)),
    "baddbmm_broadcast": lambda lib: (lambda s, a, b: _grads(lib, lib.baddbmm(s, a, b, alpha=3),
                                                              s, a, b))(
        _x(lib, 2), _x(lib, 2, 3, 4, seed=1), _x(lib, 2, 4, 2, seed=2)),
    "addmv_beta0": lambda lib: (lambda s, m, v: _grads(lib, lib.addmv(s, m, v, beta=0), s, m, v))(
        _x(lib, 2), _x(lib, 2, 3, seed=1), _x(lib, 3, seed=2)),
    "repeat_interleave": lambda lib: (lambda x: (
        _grads(lib, x.repeat_interleave(2, dim=0), x),
        _grads(lib, x.repeat_interleave(lib.tensor([2, 0, 1]), dim=1), x)))(_x(lib, 2, 3)),
    "cross_broadcast": lambda lib: (lambda a, b: _grads(lib, lib.cross(a, b, dim=-1), a, b))(
        _x(lib, 2, 3), _x(lib, 1, 3, seed=1)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


DOUBLE = {
    "cumprod_zeros": (lambda lib, x: lib.cumprod(x, 0), [[0.0, 2.0], [1.5, 0.0], [2.0, 3.0]]),
    "sort": (lambda lib, x: lib.sort(x, 1).values * lib.arange(2.0), [[3.0, 1.0], [0.5, 2.0]]),
    "var": (lambda lib, x: lib.var(x, 1) ** 2, [[3.0, 1.0, 2.0], [0.5, 2.0, -1.0]]),
    "std_mean": (lambda lib, x: lib.std_mean(x, 0)[0] ** 2 + lib.std_mean(x, 0)[1] ** 3,
                 [[3.0, 1.0], [0.5, 2.0], [1.0, 1.0]]),
    "logsumexp": (lambda lib, x: lib.logsumexp(x, 1), [[3.0, 1.0], [0.5, 2.0]]),
    "vector_norm_3": (lambda lib, x: lib.linalg.vector_norm(x, 3, 0), [[3.0, 1.0], [0.5, -2.0]]),
    "diagonal_trace": (lambda lib, x: lib.trace(x * x) + lib.diagonal(x, 1).sum() ** 2,
                       [[3.0, 1.0], [0.5, -2.0]]),
    "cross": (lambda lib, x: lib.cross(x, x * x, dim=1), [[3.0, 1.0, 2.0], [0.5, -2.0, 1.0]]),
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    """create_graph=True gradients, then the gradient of their sum."""
    fn, data = DOUBLE[case]

    def scenario(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad([fn(lib, x).sum()], [x], create_graph=True)
        (gg,) = lib.autograd.grad([(g * g).sum()], [x])
        return g.detach(), gg

    same(scenario)


@pytest.mark.parametrize("op", ["cumprod", "var", "logsumexp", "cross", "lerp", "vector_norm"])
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    x = _x(gradtrack, 2, 3)
    y = _x(gradtrack, 2, 3, seed=1)
    fns = {
        "cumprod": lambda a: gradtrack.cumprod(a, 1),
        "var": lambda a: gradtrack.var(a, 0, correction=0),
        "logsumexp": lambda a: gradtrack.logsumexp(a, 1),
        "cross": lambda a, b: gradtrack.cross(a, b, dim=1),
        "lerp": lambda a, b: gradtrack.lerp(a, b, a.sigmoid()),
        "vector_norm": lambda a: gradtrack.linalg.vector_norm(a, 3, 1),
    }
    fn = fns[op]
    args = (x, y) if fn.__code__.co_argcount == 2 else (x,)
    assert gradtrack.autograd.gradcheck(fn, args)


def test_var_degrees_of_freedom_warning():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        gradtrack.var(gradtrack.ones(1), 0)


def test_tril_inplace_version_and_gradient():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = _x(lib, 3, 3)
        y = x * 2
        view = y[1:]
        view.triu_()
        return y._version, type(y.grad_fn).__name__, _grads(lib, y, x)

    gv, gn, gg = run(gradtrack)
    tv, tn, tg = run(torch)
    assert (gv, gn) == (tv, tn)
    np.testing.assert_allclose(gg[0].numpy(), tg[0].numpy())


# ---- out= (NOTE [out= rules] in gradtrack/_out.py) ------------------------------------------

OUT = {
    "cumsum_into_view": lambda lib: (lambda base: (lib.cumsum(lib.ones(3), 0, out=base[:3]), base,
                                                   base._version))(lib.zeros(5)),
    "cumsum_resize_empty": lambda lib: (lambda o: (lib.cumsum(lib.ones(2, 2), 1, out=o), o.shape,
                                                   o._version))(lib.empty(0)),
    "cumsum_cast_int_out": lambda lib: lib.cumsum(lib.ones(3), 0, out=lib.empty(3, dtype=lib.int64)),
    "sort_tuple": lambda lib: lib.sort(lib.tensor([2.0, 1.0]),
                                       out=(lib.empty(2), lib.empty(2, dtype=lib.int64))),
    "topk_tuple": lambda lib: lib.topk(lib.tensor([2.0, 1.0, 3.0]), 2,
                                       out=(lib.empty(2), lib.empty(2, dtype=lib.int64))),
    "requires_grad": lambda lib: lib.cumsum(lib.ones(3, requires_grad=True), 0, out=lib.empty(3)),
    "out_requires_grad": lambda lib: lib.tril(lib.ones(2, 2), out=lib.ones(2, 2, requires_grad=True)),
    "lerp_cast_refused": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), 0.5,
                                              out=lib.empty(2, dtype=lib.int64)),
}


def _out_under_no_grad(lib):
    with lib.no_grad():
        return lib.var(lib.ones(3, requires_grad=True), out=lib.empty(()))


OUT["no_grad_mode_allows"] = _out_under_no_grad


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    same(OUT[case])


def test_out_resize_warns_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (gradtrack, torch):
        o = lib.zeros(2)
        with pytest.warns(UserWarning, match=r"had shape \[2\], which does not match the "
                                             r"required output shape \[3\]"):
            lib.cumsum(lib.ones(3), 0, out=o)
        assert o.tolist() == [1.0, 2.0, 3.0]
