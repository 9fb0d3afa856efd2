"""The composed shape ops (_shape_ops.py): torch's errors, warnings and return forms.
Values, gradients and grad_fn names are compared in the op table (tests/ops/op_db/)."""

import subprocess
import sys
import warnings

import pytest

import gradtrack

X = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]

ERRORS = {
    "broadcast_to_fewer_dims": lambda t, x: t.broadcast_to(x, (4,)),
    "broadcast_tensors_mismatch": lambda t, x: t.broadcast_tensors(x, t.zeros(5)),
    "broadcast_shapes_mismatch": lambda t, x: t.broadcast_shapes((3, 4), (5,)),
    # the last dim is compared first; the argument is printed as it was given
    "broadcast_shapes_left_dims_pending": lambda t, x: t.broadcast_shapes(t.Size([3]),
                                                                          (2, 1, 4)),
    "broadcast_shapes_size_and_list": lambda t, x: t.broadcast_shapes((1, 3), [2, 2]),
    "broadcast_shapes_size_argument": lambda t, x: t.broadcast_shapes((3,), t.Size([2])),
    "broadcast_shapes_int_argument": lambda t, x: t.broadcast_shapes(3, 2),
    "movedim_lengths": lambda t, x: t.movedim(x, (0, 1), (1,)),
    "movedim_range": lambda t, x: t.movedim(x, 0, 5),
    "movedim_repeated": lambda t, x: t.movedim(x, (0, 0), (1, 0)),
    "movedim_repeated_destination": lambda t, x: t.movedim(x, (0, 1), (1, 1)),
    "fliplr_1d": lambda t, x: t.fliplr(x[0]),
    "flipud_0d": lambda t, x: t.flipud(x[0, 0]),
    "hstack_empty": lambda t, x: t.hstack([]),
    "vstack_empty": lambda t, x: t.vstack([]),
    "take_along_dim_range": lambda t, x: t.take_along_dim(x, t.tensor([[0, 1]]), 5),
    "take_along_dim_float_index": lambda t, x: t.take_along_dim(x, t.tensor([[0.0]]), 1),
    "take_along_dim_flat_non_contiguous": lambda t, x: t.take_along_dim(x.t(), t.tensor([1])),
    "diff_negative_order": lambda t, x: t.diff(x, n=-1),
    "diff_0d": lambda t, x: t.diff(x[0, 0]),
    "tensor_split_zero_sections": lambda t, x: t.tensor_split(x, 0, 1),
    "hsplit_not_divisible": lambda t, x: t.hsplit(x, 3),
    "vsplit_1d": lambda t, x: t.vsplit(x[0], 3),
    "dsplit_2d": lambda t, x: t.dsplit(x, 2),
    "unflatten_bad_sizes": lambda t, x: x.unflatten(1, (3, 2)),
    "meshgrid_bad_indexing": lambda t, x: t.meshgrid(x[0], x[1], indexing="bad"),
    "inner_mismatch": lambda t, x: t.inner(x, t.zeros(3)),
    "cosine_similarity_mismatch": lambda t, x: t.cosine_similarity(x, t.zeros(5, 4)),
    "positive_bool": lambda t, x: t.positive(x > 2),
    "hstack_out_requires_grad": lambda t, x: t.hstack([x.requires_grad_()], out=t.zeros(1)),
    "combinations_2d": lambda t, x: t.combinations(x),
    "combinations_negative_r": lambda t, x: t.combinations(x[0], -1),
    "sum_to_size_not_expandable": lambda t, x: x.sum_to_size(2, 4),
    "sum_to_size_more_dims": lambda t, x: x.sum_to_size(1, 1, 3, 4),
    "split_with_sizes_sum": lambda t, x: x.split_with_sizes([1, 1]),
    "mH_1d": lambda t, x: x[0].mH,
    "H_3d": lambda t, x: x.unsqueeze(0).H,
    "H_1d": lambda t, x: x[0].H,
    "adjoint_1d": lambda t, x: t.adjoint(x[0]),
    "is_nonzero_many": lambda t, x: t.is_nonzero(x),
    "is_nonzero_empty": lambda t, x: x[:0].is_nonzero(),
    "tril_indices_negative_row": lambda t, x: t.tril_indices(-1, 3),
    "triu_indices_negative_col": lambda t, x: t.triu_indices(3, -2),
    "tril_indices_float": lambda t, x: t.tril_indices(3, 3, dtype=t.float32),
    "triu_indices_bool": lambda t, x: t.triu_indices(3, 3, dtype=t.bool),
    "unravel_index_float": lambda t, x: t.unravel_index(x[0], (3, 4)),
    "unravel_index_negative_shape": lambda t, x: t.unravel_index(t.tensor([5]), (3, -4)),
    "unfold_window_too_large": lambda t, x: x.unfold(1, 5, 1),
    "unfold_negative_size": lambda t, x: x.unfold(1, -1, 1),
    "unfold_zero_step": lambda t, x: x.unfold(0, 2, 0),
    "unfold_dim_range": lambda t, x: x.unfold(2, 1, 1),
    "unfold_0d_dim_range": lambda t, x: x[0, 0].unfold(1, 1, 1),
    "rot90_one_dim": lambda t, x: t.rot90(x, 1, [0]),
    "rot90_same_dims": lambda t, x: t.rot90(x, 1, [0, -2]),
    "rot90_dim_range": lambda t, x: t.rot90(x, 1, [0, 2]),
    "rot90_1d": lambda t, x: t.rot90(x[0], 1, [0, 0]),
    "block_diag_3d": lambda t, x: t.block_diag(x, x.unsqueeze(0)),
    "block_diag_not_tensor": lambda t, x: t.block_diag(x, [1]),
    "vander_2d": lambda t, x: t.vander(x),
    "vander_negative_N": lambda t, x: t.vander(x[0], N=-1),
    "linalg_vander_0d": lambda t, x: t.linalg.vander(x[0, 0]),
    "linalg_vander_N_1": lambda t, x: t.linalg.vander(x[0], N=1),
    "linalg_vander_bool": lambda t, x: t.linalg.vander(x[0] > 2),
    "trapezoid_x_count": lambda t, x: t.trapezoid(x, t.ones(5)),
    "trapezoid_bool": lambda t, x: t.trapezoid(x > 2),
    "trapezoid_bool_x": lambda t, x: t.trapezoid(x, x > 2),
    "trapezoid_bool_dx": lambda t, x: t.trapezoid(x, dx=True),
    "trapezoid_dim_range": lambda t, x: t.trapezoid(x, dim=2),
    "cumulative_trapezoid_x_count": lambda t, x: t.cumulative_trapezoid(x, t.ones(5)),
    "cumulative_trapezoid_bool": lambda t, x: t.cumulative_trapezoid(x > 2),
    "chain_matmul_none": lambda t, x: t.chain_matmul(),
    "chain_matmul_1d": lambda t, x: t.chain_matmul(x[0], x),
    "chain_matmul_shapes": lambda t, x: t.chain_matmul(x, x),
    "chain_matmul_dtypes": lambda t, x: t.chain_matmul(x.long(), x.t()),
    "empty_strided_lengths": lambda t, x: t.empty_strided((2, 2), (1,)),
    "empty_strided_negative_size": lambda t, x: t.empty_strided((-1, 2), (1, 1)),
    "empty_strided_negative_stride": lambda t, x: t.empty_strided((2, 2), (-1, 1)),
    "empty_strided_int_requires_grad":
        lambda t, x: t.empty_strided((2,), (1,), dtype=t.int64, requires_grad=True),
}


def _raised(lib, case):
    x = lib.tensor(X)
    with pytest.raises(Exception) as info:
        ERRORS[case](lib, x)
    return type(info.value).__name__, str(info.value).replace("torch.", "gradtrack.")


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(torch, case):
    assert _raised(gradtrack, case) == _raised(torch, case)


def test_meshgrid_without_indexing_warns_as_torch_and_uses_ij(torch):
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grids = lib.meshgrid(lib.arange(2), lib.arange(3))
        assert [g.tolist() for g in grids] == [[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]]
        assert [str(w.message).split(" (Triggered")[0] for w in caught] == [
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument."]


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_forms_of_the_result(torch, name):
    for args in ((2.0,), (2.0, [1.0, 2.0]), ([[1.0]],)):
        got = getattr(gradtrack, name)(*[gradtrack.tensor(a) for a in args])
        want = getattr(torch, name)(*[torch.tensor(a) for a in args])
        assert type(got).__name__ == type(want).__name__
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        assert [list(g.shape) for g in got] == [list(w.shape) for w in want]


def test_broadcast_tensors_returns_inputs_that_need_no_expansion(torch):
    a, b = gradtrack.zeros(2, 3, requires_grad=True), gradtrack.zeros(3, requires_grad=True)
    ra, rb = gradtrack.broadcast_tensors(a, b)
    assert ra is a and rb.grad_fn.name() == "ExpandBackward0"


def test_out_forms_write_in_place(torch):
    out = gradtrack.zeros(2)
    version = out._version
    result = gradtrack.hstack([gradtrack.tensor([1.0]), gradtrack.tensor([2.0])], out=out)
    assert result is out and out.tolist() == [1.0, 2.0] and out._version > version


def test_cosine_similarity_gradient_with_a_zero_vector_matches_torch(torch):
    grads = []
    for lib in (gradtrack, torch):
        a = lib.tensor([[0.0, 0.0], [1.0, 2.0]], requires_grad=True)
        b = lib.tensor([[1.0, 1.0], [3.0, -1.0]], requires_grad=True)
        lib.cosine_similarity(a, b).sum().backward()
        grads.append((a.grad.tolist(), b.grad.tolist()))
    assert _close(grads[0], grads[1])


def _close(x, y):
    import numpy as np
    return all(np.allclose(np.asarray(p), np.asarray(q), rtol=1e-6) for p, q in zip(x, y))


def test_unravel_index_wraps_as_torch(torch):
    for indices, shape in (([4, 7, 12, -1], (3, 4)), ([5], 7), ([[0, 23], [11, 6]], (2, 3, 4))):
        got = gradtrack.unravel_index(gradtrack.tensor(indices), shape)
        want = torch.unravel_index(torch.tensor(indices), shape)
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
        assert all(str(g.dtype)[10:] == str(w.dtype)[6:] for g, w in zip(got, want))


def test_predicates_match_torch(torch):
    cases = [[0.0], [float("nan")], [[3]], [False], [-0.0]]
    for value in cases:
        assert gradtrack.tensor(value).is_nonzero() == torch.tensor(value).is_nonzero()
        assert gradtrack.is_nonzero(gradtrack.tensor(value)) == torch.tensor(value).is_nonzero()
    a, b = gradtrack.zeros(2, 3), gradtrack.zeros(3, 2)
    assert gradtrack.is_same_size(a, a.clone()) and not a.is_same_size(b)


def test_sum_to_size_returns_self_when_nothing_sums(torch):
    x = gradtrack.ones(2, 3, requires_grad=True)
    assert x.sum_to_size(2, 3) is x
    tx = torch.ones(2, 3, requires_grad=True)
    assert type(x.sum_to_size(3).grad_fn).__name__ == type(tx.sum_to_size(3).grad_fn).__name__


def test_h_of_a_0d_tensor_warns_as_torch(torch):
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert lib.tensor(2.0).H.item() == 2.0
        assert [str(w.message).split(" (Triggered")[0] for w in caught] == [
            "Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."]



def test_unfold_is_a_view_whose_writes_reach_the_base(torch):
    results = []
    for lib in (gradtrack, torch):
        base = lib.arange(6.0)
        windows = base.unfold(0, 2, 2)
        windows[1, 0] = -1.0
        results.append((base.tolist(), windows._base is base, base._version,
                        windows.shape == (3, 2), windows.stride()))
    assert results[0] == results[1]


def test_unfold_double_backward_names_and_values_match_torch(torch):
    out = []
    for lib in (gradtrack, torch):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        go = lib.ones(3, 3, 2, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(x.unfold(1, 2, 1), x, go, create_graph=True)
        (gg,) = lib.autograd.grad(g, go, lib.ones_like(g))
        out.append((g.grad_fn.name(), g.tolist(), g._version, gg.tolist()))
    assert out[0] == out[1]


def test_vander_backward_raises_as_torch(torch):
    # torch.vander overwrites the cumulative product's saved input in place
    messages = []
    for lib in (gradtrack, torch):
        v = lib.tensor([1.0, 0.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            lib.vander(v).sum().backward()
        messages.append(str(info.value).split(":")[0])
    assert messages[0] == messages[1]


def test_chain_matmul_warns_once_as_torch_and_its_one_matrix_is_a_copy(torch):
    # torch warns once per process: both libraries are asked in a fresh one
    script = (
        "import warnings, sys\n"
        "import gradtrack, torch\n"
        "seen = []\n"
        "for lib in (gradtrack, torch):\n"
        "    a = lib.ones(2, 3, requires_grad=True)\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        r = lib.chain_matmul(a)\n"
        "        lib.chain_matmul(a, a.t())\n"
        "    seen.append((r.grad_fn.name(), lib.chain_matmul(a, a.t()).grad_fn.name(),\n"
        "                 [str(w.message).split(' (Triggered')[0] for w in caught]))\n"
        "sys.exit(0 if seen[0] == seen[1] and len(seen[0][2]) == 1 else repr(seen))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_empty_strided_and_new_empty_strided_have_torch_geometry(torch):
    shapes = []
    for lib in (gradtrack, torch):
        e = lib.empty_strided((2, 3), (1, 2), dtype=lib.float64)
        n = lib.ones(2, dtype=lib.int32).new_empty_strided((2, 2), (1, 2))
        shapes.append((tuple(e.shape), e.stride(), str(e.dtype).split(".")[1], e._base is None,
                       n.stride(), str(n.dtype).split(".")[1], n.requires_grad))
    assert shapes[0] == shapes[1]


def test_tensor_equal_matches_torch(torch):
    cases = [([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, 3.0]), ([1.0], [1.0, 1.0])]
    for a, b in cases:
        assert gradtrack.tensor(a).equal(gradtrack.tensor(b)) == \
            torch.tensor(a).equal(torch.tensor(b))


def test_kron_and_block_diag_of_integers_match_torch(torch):
    for lib_fn in (lambda t: t.kron(t.tensor([[1, 2]]), t.tensor([3, 4])),
                   lambda t: t.block_diag(t.tensor([1, 2]), t.tensor([[True]])),
                   lambda t: t.block_diag()):
        mine, theirs = lib_fn(gradtrack), lib_fn(torch)
        assert mine.tolist() == theirs.tolist()
        assert str(mine.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert tuple(mine.shape) == tuple(theirs.shape)

