"""The ops whose nodes are named as torch's without a C++ row: the ``*_copy`` functions'
forward-mode derivatives and double backward, ``vdot`` and ``cholesky_inverse``'s nodes and
layout, the ops torch gives no derivative (``histogram``, weighted ``bincount``,
``detach_copy``: a NotImplemented node), the out-of-place ``index_put`` and ``fill``
(version 0, torch's nodes and errors); compared with torch 2.13."""

import numpy as np
import pytest

import gradtrack

from helpers import both_errors


def _x(lib, shape=(3, 4), seed=0, requires_grad=True):
    values = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=requires_grad)


COPY_TANGENTS = [
    lambda lib, x: lib.permute_copy(x, (1, 0)),
    lambda lib, x: lib.transpose_copy(x, 0, 1),
    lambda lib, x: lib.select_copy(x, 1, 2),
    lambda lib, x: lib.expand_copy(x[0], (2, 4)),
    lambda lib, x: lib.unbind_copy(x, 0)[1],
    lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1),
]


@pytest.mark.parametrize("call", COPY_TANGENTS)
def test_view_copies_forward_ad_matches_torch(torch, call):
    res = []
    for lib in (gradtrack, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(_x(lib, requires_grad=False), _x(lib, seed=1, requires_grad=False))
            primal, tangent = fw.unpack_dual(call(lib, x))
            res.append((primal.numpy().copy(), tangent.numpy().copy(), tuple(tangent.stride())))
    (mine, theirs) = res
    np.testing.assert_array_equal(mine[0], theirs[0])
    np.testing.assert_array_equal(mine[1], theirs[1])
    assert mine[2] == theirs[2]


def test_view_copy_node_saves_nothing(torch):
    # torch's PermuteBackward0_copy saves no tensor: writing to the input later is fine
    grads = []
    for lib in (gradtrack, torch):
        leaf = _x(lib)
        x = leaf * 1
        out = lib.permute_copy(x, (1, 0))
        x.mul_(2)
        (g,) = lib.autograd.grad((out * out.detach()).sum(), leaf)
        grads.append(g.numpy())
    np.testing.assert_array_equal(*grads)


def test_view_copy_dtype_records_nothing(torch):
    for lib in (gradtrack, torch):
        out = lib.view_copy(_x(lib), lib.int64)
        assert out.grad_fn is None and not out.requires_grad and out._version == 0


def test_vdot_and_cholesky_inverse_nodes_and_layout(torch):
    facts = []
    for lib in (gradtrack, torch):
        a, b = _x(lib, (4,), 1), _x(lib, (4,), 2)
        m = _x(lib, (2, 3, 3), 3, requires_grad=False)
        L = lib.linalg.cholesky(m @ m.mT + 3 * lib.eye(3, dtype=lib.float64)).requires_grad_()
        inv = lib.cholesky_inverse(L)
        single = lib.cholesky_inverse(L[0])
        plain = lib.cholesky_inverse(L.detach())
        facts.append((lib.vdot(a, b).grad_fn.name(), inv.grad_fn.name(), inv.stride(),
                      single.stride(), inv._version, plain.stride(), plain._base is None,
                      plain._version, inv._base is None))
    assert facts[0] == facts[1]
    assert facts[1][:2] == ("VdotBackward0", "CholeskyInverseBackward0")


NOT_IMPLEMENTED = {
    "histogram": (lambda lib, x, w: lib.histogram(x, 3).hist, "histogram"),
    "histogram_edges": (lambda lib, x, w: lib.histogram(x, 3).bin_edges, "histogram"),
    "histogram_weight": (lambda lib, x, w: lib.histogram(x.detach(), 3, weight=w).hist,
                         "histogram"),
    "bincount": (lambda lib, x, w: lib.bincount(lib.tensor([0, 1, 1, 3]), w), "bincount"),
    "detach_copy": (lambda lib, x, w: lib.detach_copy(x), "detach_copy"),
}


@pytest.mark.parametrize("name", sorted(NOT_IMPLEMENTED))
def test_ops_without_a_derivative_record_not_implemented(torch, name):
    call, aten = NOT_IMPLEMENTED[name]
    facts = []
    for lib in (gradtrack, torch):
        x, w = _x(lib, (4,), 0), _x(lib, (4,), 1).abs().detach().requires_grad_()
        out = call(lib, x, w)
        node = out.grad_fn
        edges = [type(f).__name__ for f, _ in node.next_functions]
        facts.append((node.name().split("::")[-1], out.requires_grad, out._version, edges))
    assert facts[0] == facts[1]
    mine, theirs = both_errors(lambda lib: call(lib, _x(lib, (4,)), _x(lib, (4,), 1).abs().detach()
                                           .requires_grad_()).sum().backward(), torch)
    assert mine == theirs == f"derivative for aten::{aten} is not implemented"


def test_histogram_edges_reach_only_inputs_that_require_grad(torch):
    counts = []
    for lib in (gradtrack, torch):
        x, b = _x(lib, (4,), 0, requires_grad=False), lib.tensor([-1.0, 0.0, 1.0],
                                                                 dtype=lib.float64)
        b.requires_grad_()
        counts.append(len(lib.histogram(x, b).hist.grad_fn.next_functions))
        assert lib.histogram(x, 3).hist.grad_fn is None
        with lib.no_grad():
            assert not lib.histogram(_x(lib, (4,)), 3).hist.requires_grad
    assert counts == [1, 1]


def test_histogram_forward_ad_raises_as_torch(torch):
    def call(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            lib.histogram(fw.make_dual(_x(lib, (4,), requires_grad=False),
                                       _x(lib, (4,), 1, requires_grad=False)), 3)
    mine, theirs = both_errors(call, torch)
    assert mine == theirs


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_is_out_of_place_with_version_0(torch, accumulate):
    res = []
    for lib in (gradtrack, torch):
        x, v = _x(lib, (5,)), _x(lib, (2,), 1)
        out = lib.index_put(x, (lib.tensor([0, 3]),), v, accumulate)
        method = x.index_put([lib.tensor([1, 1])], v, accumulate=accumulate)
        gx, gv = lib.autograd.grad((out * out).sum() + method.sum(), (x, v))
        res.append((out.detach().numpy().copy(), out._version, x._version, out.grad_fn.name(),
                    method.grad_fn.name(), method.detach().numpy().copy(), gx.numpy(),
                    gv.numpy()))
    (mine, theirs) = res
    assert mine[1:5] == theirs[1:5] == (0, 0, "IndexPutBackward0", "IndexPutBackward0")
    for k in (0, 5, 6, 7):
        np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib: lib.index_put(lib.ones(3), (lib.tensor([0]),), 2.0),
    lambda lib: lib.ones(3).index_put((lib.tensor([0]),), 2.0),
    lambda lib: lib.index_put(lib.ones(3), (lib.tensor([0]),), lib.tensor([2.0], dtype=lib.float64)),
    lambda lib: lib.index_put(lib.ones(3), (lib.tensor([9]),), lib.tensor([2.0])),
    lambda lib: lib.index_put(lib.ones(2, 3), (None, lib.tensor([0])), lib.tensor([2.0])),
    lambda lib: lib.index_put(lib.ones(3), (lib.tensor([0, 1]),), lib.tensor([2.0, 3.0, 4.0])),
])
def test_index_put_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs


def test_fill_matches_torch(torch):
    res = []
    for lib in (gradtrack, torch):
        x = _x(lib, (4, 3)).t()
        v = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
        a, b = lib.fill(x, 1.5), lib.fill(x, v)
        ga, gv = lib.autograd.grad((a * 2).sum() + (b * b).sum(), (x, v))
        res.append((a.detach().numpy().copy(), b.detach().numpy().copy(), a.stride(),
                    a._version, a.grad_fn.name(), b.grad_fn.name(), ga.numpy(), gv.item(),
                    lib.fill(lib.ones(2, dtype=lib.int64), 2.7).tolist()))
    (mine, theirs) = res
    for k in (0, 1, 6):
        np.testing.assert_array_equal(mine[k], theirs[k])
    assert mine[2:6] + mine[7:] == theirs[2:6] + theirs[7:]


def test_fill_forward_ad_matches_torch(torch):
    res = []
    for lib in (gradtrack, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(_x(lib, (3,), requires_grad=False), _x(lib, (3,), 1, False))
            v = fw.make_dual(lib.tensor(2.0, dtype=lib.float64), lib.tensor(3.0, dtype=lib.float64))
            res.append((fw.unpack_dual(lib.fill(x, 2.0)).tangent.tolist(),
                        fw.unpack_dual(lib.fill(x, v)).tangent.tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.fill(lib.ones(2), lib.tensor([1.0])),
    lambda lib: lib.fill(lib.ones(2), "a"),
    lambda lib: lib.fill(lib.ones(2), None),
    lambda lib: lib.fill(lib.ones(2, dtype=lib.uint8), 300),
])
def test_fill_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs
