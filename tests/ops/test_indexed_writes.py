"""The indexed writes and fused updates against torch where the op table cannot reach:
the in-place forms that take ``dim`` first (``index_add_``, ``index_copy_``,
``index_fill_``), and the refusals of every new op, each with torch's exception type
and message and without touching ``self`` or its ``_version``.
"""

import numpy as np
import pytest

import gradtrack

INDEX = [0, 2, 0]


def _inputs(lib, dtype):
    rng = np.random.default_rng(7)
    x = lib.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=dtype == lib.float64)
    src = lib.tensor(rng.standard_normal((3, 3)), dtype=dtype, requires_grad=dtype == lib.float64)
    value = lib.tensor(1.5, dtype=dtype, requires_grad=dtype == lib.float64)
    return x, src, value, lib.tensor(INDEX)


CALLS = {
    "index_add_": lambda y, s, v, i: y.index_add_(1, i, s, alpha=-2),
    "index_add_dim0": lambda y, s, v, i: y.index_add_(0, i[:2], s[:2, :1].expand(2, 4)),
    "index_copy_": lambda y, s, v, i: y.index_copy_(1, i[1:], s[:, :2]),
    "index_fill_number": lambda y, s, v, i: y.index_fill_(1, i, -3.0),
    "index_fill_tensor": lambda y, s, v, i: y.index_fill_(0, i, v),
}


def _outcome(lib, name, dtype):
    x, src, value, index = _inputs(lib, dtype)
    y = x * 1
    out = CALLS[name](y, src, value, index)
    assert out is y
    state = (y.grad_fn.name() if y.grad_fn else None, y._version)
    grads = None
    if dtype == lib.float64:
        upstream = lib.tensor(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
        grads = lib.autograd.grad([y], [x, src, value], [upstream], allow_unused=True)
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


REFUSALS = {
    "index_add_count": lambda L: L.zeros(3, 4).index_add(0, L.tensor([0, 2]), L.ones(3, 4)),
    "index_add_matrix_index": lambda L: L.zeros(3, 4).index_add(0, L.tensor([[0, 2]]),
                                                                L.ones(2, 4)),
    "index_add_float_index": lambda L: L.zeros(3, 4).index_add(0, L.tensor([0.0]), L.ones(1, 4)),
    "index_add_bounds": lambda L: L.zeros(3, 4).index_add(0, L.tensor([0, 5]), L.ones(2, 4)),
    "index_add_dtype": lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]),
                                                         L.ones(1, 4, dtype=L.float64)),
    "index_add_shape": lambda L: L.zeros(3, 4).index_add(0, L.tensor([0, 2]), L.ones(2, 5)),
    "index_add_inplace_bounds": lambda L: L.zeros(3, 4).index_add_(0, L.tensor([7]),
                                                                   L.ones(1, 4)),
    "index_copy_count": lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0, 2]), L.ones(3, 4)),
    "index_copy_bounds": lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0, 5]), L.ones(2, 4)),
    "index_copy_dtype": lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]),
                                                           L.ones(1, 4, dtype=L.float64)),
    "index_fill_bounds": lambda L: L.zeros(3, 4).index_fill(1, L.tensor([0, 9]), 2.0),
    "index_fill_vector_value": lambda L: L.zeros(3, 4).index_fill(1, L.tensor([0]),
                                                                  L.tensor([2.0, 3.0])),
    "index_fill_float_index": lambda L: L.zeros(3, 4).index_fill(1, L.tensor([0.0]), 2.0),
    "take_bounds": lambda L: L.take(L.zeros(3, 4), L.tensor([12])),
    "take_float_index": lambda L: L.take(L.zeros(3, 4), L.tensor([1.0])),
    "put_bounds": lambda L: L.zeros(3, 4).put_(L.tensor([12]), L.ones(1)),
    "put_count": lambda L: L.zeros(3, 4).put_(L.tensor([1, 2]), L.ones(1)),
    "put_dtype": lambda L: L.zeros(3, 4).put_(L.tensor([1]), L.ones(1, dtype=L.float64)),
    "masked_scatter_short_source": lambda L: L.zeros(3, 4).masked_scatter(
        L.tensor([True, False, True, False]), L.ones(2)),
    "masked_scatter_long_mask": lambda L: L.zeros(3, 4).masked_scatter(L.tensor([1, 0, 1, 0]),
                                                                       L.ones(12)),
    "select_scatter_shape": lambda L: L.select_scatter(L.zeros(3, 4), L.ones(3), 0, 1),
    "slice_scatter_shape": lambda L: L.slice_scatter(L.zeros(3, 4), L.ones(3, 3), 1, 0, 4, 2),
    "diagonal_scatter_shape": lambda L: L.diagonal_scatter(L.zeros(3, 4), L.ones(2)),
    "fill_diagonal_1d": lambda L: L.zeros(3).fill_diagonal_(5),
    "fill_diagonal_unequal": lambda L: L.zeros(3, 3, 2).fill_diagonal_(5),
    "addcdiv_integers": lambda L: L.addcdiv(L.ones(2), L.tensor([1, 2]), L.tensor([1, 2])),
    "addcmul_bool": lambda L: L.addcmul(L.tensor([True]), L.tensor([True]), L.tensor([True])),
    "addcmul_value_type": lambda L: L.addcmul(L.ones(2), L.ones(2), L.ones(2), value="a"),
    "addcmul_inplace_broadcast": lambda L: L.ones(2).addcmul_(L.ones(3, 2), L.ones(2)),
    "addcmul_inplace_cast": lambda L: L.tensor([1, 2]).addcmul_(L.ones(2), L.ones(2)),
    "addr_vec1": lambda L: L.addr(L.zeros(2, 3), L.ones(2, 1), L.ones(3)),
    "addr_integral_alpha": lambda L: L.addr(L.zeros(2, 3, dtype=L.long),
                                            L.ones(2, dtype=L.long), L.ones(3, dtype=L.long),
                                            alpha=2.5),
    "addr_inplace_1d": lambda L: L.ones(3).addr_(L.ones(2), L.ones(3)),
    "addr_inplace_size": lambda L: L.ones(1, 3).addr_(L.ones(2), L.ones(3)),
    "addbmm_batches": lambda L: L.addbmm(L.zeros(2, 3), L.ones(4, 2, 5), L.ones(3, 5, 3)),
    "addbmm_inner": lambda L: L.addbmm(L.zeros(2, 3), L.ones(4, 2, 5), L.ones(4, 4, 3)),
    "addbmm_2d_batch1": lambda L: L.addbmm(L.zeros(2, 3), L.ones(2, 5), L.ones(4, 5, 3)),
    "addmm_inplace_size": lambda L: L.ones(4).addmm_(L.ones(2, 3), L.ones(3, 4)),
    "baddbmm_inplace_size": lambda L: L.ones(3, 2).baddbmm_(L.ones(2, 3, 4), L.ones(2, 4, 2)),
    "addmv_inplace_size": lambda L: L.ones(1).addmv_(L.ones(3, 4), L.ones(4)),
    "addmm_inplace_alpha_type": lambda L: L.ones(2, 2).addmm_(L.ones(2, 2), L.ones(2, 2),
                                                              alpha=None),
    "cumsum_inplace_dtype": lambda L: L.ones(2).cumsum_(0, dtype=L.float64),
    "lerp_inplace_broadcast": lambda L: L.ones(2).lerp_(L.ones(2, 2), 0.5),
    "lerp_inplace_integers": lambda L: L.tensor([1, 2]).lerp_(L.tensor([1, 2]), 0.5),
    "lt_inplace_broadcast": lambda L: L.tensor([1, 2]).lt_(L.tensor([[1, 2], [3, 4]])),
    "lt_inplace_other_type": lambda L: L.tensor([1, 2]).lt_("a"),
}


def _refusal(lib, name):
    try:
        REFUSALS[name](lib)
    except Exception as e:  # noqa: BLE001 - the refusal under test
        return type(e).__name__, str(e).replace("torch", "gradtrack")
    return None


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(torch, name):
    want = _refusal(torch, name)
    assert want is not None, "torch refuses every case of this table"
    assert _refusal(gradtrack, name) == want


def test_a_refused_inplace_write_leaves_self_as_it_was():
    x = gradtrack.arange(12.0).reshape(3, 4)
    before = x.clone()
    with pytest.raises(RuntimeError):
        x.index_add_(0, gradtrack.tensor([0, 5]), gradtrack.ones(2, 4))
    with pytest.raises(IndexError):
        x.put_(gradtrack.tensor([0, 12]), gradtrack.ones(2))
    with pytest.raises(RuntimeError):
        x.addcmul_(gradtrack.ones(2, 3, 4), gradtrack.ones(4))
    assert x._version == 0
    assert gradtrack.equal(x, before)
