"""torch's ``*_copy`` functions, ``unsafe_*`` splits, ``isin``, ``vdot``,
``cholesky_inverse``, ``index_put_``, the top-level losses' int reduction and the small queries
(``typename``, ``get_device``, ``has_lapack``, ...), compared with torch 2.13.

Each ``*_copy`` records torch's one node (NOTE [View copies as one node]); ``detach_copy``
and the ops without a derivative record torch's NotImplemented node."""

import numpy as np
import pytest

import gradtrack

from helpers import both_errors


def _x(lib, shape=(3, 4), seed=0):
    values = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


COPIES = {
    "expand_copy": (lambda lib, x: lib.expand_copy(x[0], (2, 4)), "ExpandBackward0_copy"),
    "permute_copy": (lambda lib, x: lib.permute_copy(x, (1, 0)), "PermuteBackward0_copy"),
    "select_copy": (lambda lib, x: lib.select_copy(x, 1, 2), "SelectBackward0_copy"),
    "slice_copy": (lambda lib, x: lib.slice_copy(x, 1, 1, 4, 2), "SliceBackward0_copy"),
    "squeeze_copy": (lambda lib, x: lib.squeeze_copy(x[:1]), "SqueezeBackward0_copy"),
    "squeeze_copy_dim": (lambda lib, x: lib.squeeze_copy(x[:1], 0), "SqueezeBackward1_copy"),
    "unsqueeze_copy": (lambda lib, x: lib.unsqueeze_copy(x, 1), "UnsqueezeBackward0_copy"),
    "t_copy": (lambda lib, x: lib.t_copy(x), "TBackward0_copy"),
    "transpose_copy": (lambda lib, x: lib.transpose_copy(x, 0, 1), "TransposeBackward0_copy"),
    "view_copy": (lambda lib, x: lib.view_copy(x, (2, 6)), "ViewBackward0_copy"),
    "diagonal_copy": (lambda lib, x: lib.diagonal_copy(x, 1), "DiagonalBackward0_copy"),
    "alias_copy": (lambda lib, x: lib.alias_copy(x), "AliasBackward0_copy"),
    "unfold_copy": (lambda lib, x: lib.unfold_copy(x, 1, 2, 1), "UnfoldBackward0_copy"),
    "as_strided_copy": (lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1),
                        "AsStridedBackward0_copy"),
    "narrow_copy": (lambda lib, x: lib.narrow_copy(x, 1, 1, 2), "NarrowCopyBackward0"),
    "Tensor.narrow_copy": (lambda lib, x: x.narrow_copy(0, 1, 2), "NarrowCopyBackward0"),
}


@pytest.mark.parametrize("name", sorted(COPIES))
def test_view_copies_match_torch(torch, name):
    fn, torch_node = COPIES[name]
    facts = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        out = fn(lib, x)
        weights = lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
        (grad,) = lib.autograd.grad((out * weights).sum(), x)
        facts.append((out.detach().numpy().copy(), tuple(out.stride()), out.is_contiguous(),
                      grad.numpy(), out.grad_fn.name()))
        # a copy: writing to it leaves the input as it was
        before = x.detach().numpy().copy()
        out.detach().zero_()
        np.testing.assert_array_equal(x.detach().numpy(), before)
    (mine, theirs) = facts
    np.testing.assert_array_equal(mine[0], theirs[0])
    assert mine[1:3] == theirs[1:3]
    np.testing.assert_array_equal(mine[3], theirs[3])
    assert mine[4] == theirs[4] == torch_node


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.unbind_copy(x, 1),
    lambda lib, x: lib.split_copy(x, 3, 1),
    lambda lib, x: lib.split_with_sizes_copy(x, [1, 2]),
    lambda lib, x: lib.unsafe_chunk(x, 2, 1),
    lambda lib, x: lib.unsafe_split(x, 2),
    lambda lib, x: lib.unsafe_split_with_sizes(x, [2, 2], 1),
    lambda lib, x: x.unsafe_split(2, 1),
    lambda lib, x: x.unsafe_chunk(3),
    lambda lib, x: x.unsafe_split_with_sizes([1, 2]),
])
def test_split_copies_match_torch(torch, call):
    results = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        outs = call(lib, x)
        total = sum(((o * (k + 1)) ** 2).sum() for k, o in enumerate(outs))
        (grad,) = lib.autograd.grad(total, x)
        results.append(([o.detach().numpy() for o in outs], type(outs).__name__, grad.numpy()))
    (mine, theirs) = results
    assert len(mine[0]) == len(theirs[0]) and mine[1] == theirs[1]
    for a, b in zip(mine[0], theirs[0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-12)


def test_detach_copy_values_match_torch(torch):
    outs = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        out = lib.detach_copy(x)
        outs.append(out.detach().numpy().copy())
        out.detach().zero_()
        assert x.detach().abs().sum().item() > 0
    np.testing.assert_array_equal(*outs)
    # the result requires grad through a NotImplemented node, whose backward raises
    assert torch.detach_copy(_x(torch)).grad_fn.name() == "torch::autograd::NotImplemented"
    assert gradtrack.detach_copy(_x(gradtrack)).grad_fn.name() == \
        "gradtrack::autograd::NotImplemented"
    mine, theirs = both_errors(lambda lib: lib.detach_copy(_x(lib)).sum().backward(), torch)
    assert mine == theirs == "derivative for aten::detach_copy is not implemented"


ISIN = [
    lambda lib: lib.isin(lib.tensor([1, 2, 3]), lib.tensor([2, 5])),
    lambda lib: lib.isin(lib.tensor([[1, 2], [3, 4]]), lib.tensor([4, 1]), invert=True),
    lambda lib: lib.isin(lib.tensor([1.0, 2.0, float("nan")]), 2.0),
    lambda lib: lib.isin(2, lib.tensor([1, 2])),
    lambda lib: lib.isin(lib.tensor([1, 5]), lib.tensor([1.0, 2.5])),
    lambda lib: lib.isin(lib.tensor([1.5, 5.0]), lib.tensor([1, 5])),
    lambda lib: lib.isin(lib.tensor([1, 2]), lib.tensor([], dtype=lib.int64)),
    lambda lib: lib.isin(lib.tensor([3, 1]), lib.tensor([1, 3]), assume_unique=True),
]


@pytest.mark.parametrize("call", ISIN)
def test_isin_matches_torch(torch, call):
    mine, theirs = call(gradtrack), call(torch)
    assert mine.tolist() == theirs.tolist()
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.isin(1, 2),
    lambda lib: lib.isin(lib.tensor([True, False]), lib.tensor([True])),
])
def test_isin_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs


def test_vdot_and_cholesky_inverse_match_torch(torch):
    res = []
    for lib in (gradtrack, torch):
        a, b = _x(lib, (4,), 1), _x(lib, (4,), 2)
        v = lib.vdot(a, b)
        ga, gb = lib.autograd.grad(v, (a, b))
        m = _x(lib, (3, 3), 3)
        L = lib.linalg.cholesky(m @ m.mT + 3 * lib.eye(3, dtype=lib.float64))
        inv = lib.cholesky_inverse(L)
        inv_u = lib.cholesky_inverse(L.mT, upper=True)
        (gm,) = lib.autograd.grad((inv * lib.arange(9.0, dtype=lib.float64).view(3, 3)).sum(), m)
        res.append([v.item(), ga.numpy(), gb.numpy(), inv.detach().numpy(),
                    inv_u.detach().numpy(), gm.numpy(), L.cholesky_inverse().detach().numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    mine, theirs = both_errors(lambda lib: lib.cholesky_inverse(lib.ones(2, 3)), torch)
    assert mine == theirs
    mine, theirs = both_errors(lambda lib: lib.cholesky_inverse(lib.ones(2)), torch)
    assert mine == theirs


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put__function_matches_torch(torch, accumulate):
    res = []
    for lib in (gradtrack, torch):
        leaf = _x(lib)
        x = leaf * 1
        values = _x(lib, (2, 4), 4)
        out = lib.index_put_(x, (lib.tensor([2, 2]),), values, accumulate)
        gl, gv = lib.autograd.grad((out * out).sum(), (leaf, values))
        res.append((out is x, x.detach().numpy(), x._version, x.grad_fn.name(), gl.numpy(),
                    gv.numpy()))
    (mine, theirs) = res
    assert mine[0] is theirs[0] is True and mine[2:4] == theirs[2:4]
    for k in (1, 4, 5):
        np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-12)


@pytest.mark.parametrize("name,args", [
    ("kl_div", ()), ("kl_div", (3,)), ("binary_cross_entropy_with_logits", ()),
    ("hinge_embedding_loss", ()), ("hinge_embedding_loss", (1.0, 7)),
])
def test_top_level_losses_do_not_reduce_by_default_as_torch(torch, name, args):
    out = []
    for lib in (gradtrack, torch):
        x = _x(lib)
        t = lib.tensor(np.random.default_rng(5).uniform(0.1, 1, (3, 4)))
        out.append(getattr(lib, name)(x, t, *args).detach().numpy())
    assert out[0].shape == out[1].shape == (3, 4)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


def test_top_level_loss_refuses_a_string_reduction_as_torch(torch):
    mine, theirs = both_errors(lambda lib: lib.kl_div(lib.ones(2), lib.ones(2), "mean"), torch)
    assert mine == theirs


def test_ctc_loss_matches_torch(torch):
    res = []
    rng = np.random.default_rng(7)
    logits = rng.standard_normal((6, 2, 4))
    for lib in (gradtrack, torch):
        x = lib.tensor(logits, requires_grad=True)
        targets = lib.tensor([[1, 2, 2], [3, 1, 0]])
        for reduction in (0, 1, 2):
            lp = x.log_softmax(2)
            loss = lib.ctc_loss(lp, targets, [6, 5], [3, 2], 0, reduction)
            (g,) = lib.autograd.grad(loss.sum(), x)
            res.append((loss.detach().numpy(), g.numpy()))
        default = lib.ctc_loss(lp, targets, [6, 5], [3, 2])
        res.append((default.detach().numpy(), default.detach().numpy()))
    half = len(res) // 2
    for (a, ga), (b, gb) in zip(res[:half], res[half:]):
        np.testing.assert_allclose(a, b, rtol=1e-10)
        np.testing.assert_allclose(ga, gb, rtol=1e-9, atol=1e-12)


def test_queries_match_torch(torch):
    import torch.nn as tnn
    for obj_g, obj_t in [(gradtrack.ones(2), torch.ones(2)),
                         (gradtrack.ones(2, dtype=gradtrack.int64),
                          torch.ones(2, dtype=torch.int64)),
                         (gradtrack.ones(1, dtype=gradtrack.bfloat16),
                          torch.ones(1, dtype=torch.bfloat16)),
                         (3, 3), (np.ones(2), np.ones(2)), ("a", "a")]:
        assert gradtrack.typename(obj_g) == torch.typename(obj_t).replace("torch.", "gradtrack.")
    assert gradtrack.typename(gradtrack.nn.Linear(1, 1)).split(".")[-1] == torch.typename(
        tnn.Linear(1, 1)).split(".")[-1]
    assert gradtrack.is_storage(gradtrack.ones(2)) is torch.is_storage(torch.ones(2)) is False
    assert gradtrack.get_device(gradtrack.ones(2)) == torch.get_device(torch.ones(2)) == -1
    assert gradtrack.ones(2).get_device() == torch.ones(2).get_device() == -1
    assert gradtrack.is_inference(gradtrack.ones(2)) is torch.is_inference(torch.ones(2))
    for name in ("has_lapack", "has_mkl", "has_openmp", "has_spectral"):
        assert getattr(gradtrack, name) is getattr(torch, name)
    assert gradtrack.compiled_with_cxx11_abi() is torch.compiled_with_cxx11_abi()
    assert gradtrack.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    for lib in (gradtrack, torch):
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled() is True
        lib.set_warn_always(False)
    for call in (lambda lib: lib.get_device(3), lambda lib: lib.is_inference(3),
                 lambda lib: lib.set_warn_always(3)):
        mine, theirs = both_errors(call, torch)
        assert mine == theirs


def test_vmap_is_func_vmap(torch):
    import gradtrack.func
    assert gradtrack.vmap is gradtrack.func.vmap
    assert torch.vmap is torch.func.vmap
    x = np.arange(6.0).reshape(2, 3)
    mine = gradtrack.vmap(lambda t: t * t.sum())(gradtrack.tensor(x))
    theirs = torch.vmap(lambda t: t * t.sum())(torch.tensor(x))
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
