"""Statistics, order statistics and norms against torch 2.13 where the op table
(tests/ops/op_db/reduction.py) does not reach: var, std, var_mean and std_mean
(correction, one element), logsumexp (integers, infinities), kthvalue, median (NaN, ties,
even counts) and mode, nansum's bits, vector_norm and norm of every order (zeros), the
float32 two-norm's one pass, max/min with indices over a dense run or columns. Argument
checks and their messages, grad_fn names, named results, gradients (double backward and
finite differences) and out= under no_grad.
"""

import numpy as np
import pytest

import gradtrack

from area_checks import double_backward, gradcheck_on_float64, grads, randn
from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "var_int": lambda lib: lib.var(lib.tensor([1, 2, 3])),
    "std_int": lambda lib: lib.tensor([1, 2]).std(),
    "kthvalue_k": lambda lib: lib.kthvalue(lib.ones(2, 5), 6, 1),
    "kthvalue_k0": lambda lib: lib.ones(2, 5).kthvalue(0),
    "median_empty_dim": lambda lib: lib.median(lib.zeros(2, 0), 1),
    "vector_norm_int": lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "var_grad_fn": lambda lib: (lib.var(randn(lib, 3, 4)), lib.std(randn(lib, 3, 4), 0)),
    "var_mean_grad_fn": lambda lib: lib.var_mean(randn(lib, 3, 4), 1, keepdim=True),
    "std_mean_grad_fn": lambda lib: lib.std_mean(randn(lib, 3, 4), (0, 1)),
    "var_unbiased_positional": lambda lib: lib.var(randn(lib, 5), False),
    "var_one_element": lambda lib: lib.var(lib.ones(1), 0).isnan(),
    "logsumexp_int": lambda lib: lib.logsumexp(lib.tensor([1, 2, 3]), 0),
    "logsumexp_inf": lambda lib: lib.logsumexp(lib.tensor([[-float("inf")] * 2, [1.0, 2.0]]), 1),
    "kthvalue": lambda lib: lib.kthvalue(randn(lib, 3, 5), 2, 1, keepdim=True),
    "median_all": lambda lib: lib.median(randn(lib, 3, 5)),
    "median_nan": lambda lib: (lib.median(lib.tensor([1.0, float("nan"), 3.0])).isnan(),
                               [t.nan_to_num(99.0) for t in
                                lib.median(lib.tensor([1.0, float("nan"), 3.0, float("nan")]), 0)]),
    "median_even": lambda lib: lib.median(lib.tensor([4.0, 1.0, 3.0, 2.0])),
    "median_dim": lambda lib: lib.median(randn(lib, 3, 4), 0),
    "mode": lambda lib: lib.mode(lib.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 1.0]])),
    "mode_int": lambda lib: lib.tensor([3, 1, 3, 1, 2]).mode(),
    "order_stats_0d": lambda lib: (lib.kthvalue(lib.tensor(3.0), 1), lib.mode(lib.tensor(3.0)),
                                   lib.median(lib.tensor(3.0), 0)),
    "norms": lambda lib: (lib.linalg.vector_norm(randn(lib, 3, 4)), lib.norm(randn(lib, 3, 4)),
                          randn(lib, 3, 4).norm(dim=1), lib.linalg.norm(randn(lib, 3, 4)),
                          lib.linalg.vector_norm(randn(lib, 2, 3), ord=3, dim=1)),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "std_zero": lambda lib: (lambda x: grads(lib, lib.std(x, 1), x))(
        lib.tensor([[1.0, 1.0], [1.0, 2.0]], dtype=lib.float64, requires_grad=True)),
    "var_mean_one_output": lambda lib: (lambda x: grads(lib, lib.var_mean(x, 0)[1], x))(
        randn(lib, 3, 2)),
    "logsumexp_keepdim": lambda lib: (lambda x: grads(lib, lib.logsumexp(x, (0, 2), True), x))(
        randn(lib, 2, 3, 2)),
    "median_all_ties": lambda lib: (lambda x: grads(lib, lib.median(x), x))(
        lib.tensor([2.0, 1.0, 2.0, 3.0, 2.0], dtype=lib.float64, requires_grad=True)),
    "median_dim": lambda lib: (lambda x: grads(lib, lib.median(x, 1), x))(randn(lib, 3, 5)),
    "mode_dim": lambda lib: (lambda x: grads(lib, lib.mode(x, 0, keepdim=True), x))(
        lib.tensor([[1.0, 2.0], [1.0, 3.0], [4.0, 3.0]], dtype=lib.float64, requires_grad=True)),
    "kthvalue": lambda lib: (lambda x: grads(lib, lib.kthvalue(x, 3, 0), x))(randn(lib, 4, 3)),
    "norm_orders": lambda lib: (lambda x: [grads(lib, lib.linalg.vector_norm(x, o, 1), x)
                                           for o in (1, 2, 3, 0.5, float("inf"), -float("inf"), 0)])(
        randn(lib, 3, 4)),
    "norm_zero": lambda lib: (lambda x: grads(lib, lib.linalg.vector_norm(x), x))(
        lib.zeros(3, dtype=lib.float64, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


DOUBLE = {
    "var": (lambda lib, x: lib.var(x, 1) ** 2, [[3.0, 1.0, 2.0], [0.5, 2.0, -1.0]]),
    "std_mean": (lambda lib, x: lib.std_mean(x, 0)[0] ** 2 + lib.std_mean(x, 0)[1] ** 3,
                 [[3.0, 1.0], [0.5, 2.0], [1.0, 1.0]]),
    "logsumexp": (lambda lib, x: lib.logsumexp(x, 1), [[3.0, 1.0], [0.5, 2.0]]),
    "vector_norm_3": (lambda lib, x: lib.linalg.vector_norm(x, 3, 0), [[3.0, 1.0], [0.5, -2.0]]),
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    """create_graph=True gradients, then the gradient of their sum."""
    same(double_backward(*DOUBLE[case]))


GRADCHECK = {
    "var": lambda a: gradtrack.var(a, 0, correction=0),
    "logsumexp": lambda a: gradtrack.logsumexp(a, 1),
    "vector_norm": lambda a: gradtrack.linalg.vector_norm(a, 3, 1),
}


@pytest.mark.parametrize("op", list(GRADCHECK))
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    assert gradcheck_on_float64(GRADCHECK[op])


def test_var_degrees_of_freedom_warning():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        gradtrack.var(gradtrack.ones(1), 0)


# ---- out= (NOTE [out= rules] in gradtrack/_out.py) ------------------------------------------

OUT = {}


def _out_under_no_grad(lib):
    with lib.no_grad():
        return lib.var(lib.ones(3, requires_grad=True), out=lib.empty(()))


OUT["no_grad_mode_allows"] = _out_under_no_grad


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    same(OUT[case])


# ---- nansum: one pass in the sum's order --------------------------------------------------------

@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nansum_bits_match_torch(threads, dim, dtype):
    """NaN reads as 0 inside the sum's cascade: the whole-tensor, row and column sums
    carry torch's bits, from short runs to the threads' chunks."""
    import numpy as np
    import torch
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 257)).astype(dtype)
    x.flat[::7] = np.nan
    x[3] = np.nan  # a row of NaNs sums to 0
    before = (torch.get_num_threads(), gradtrack.get_num_threads())
    torch.set_num_threads(threads)
    gradtrack.set_num_threads(threads)
    try:
        args = () if dim is None else (dim,)
        want = torch.nansum(torch.from_numpy(x), *args).numpy()
        got = gradtrack.nansum(gradtrack.tensor(x), *args).numpy()
    finally:
        torch.set_num_threads(before[0])
        gradtrack.set_num_threads(before[1])
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)


@pytest.mark.parametrize("shape, kw", [((1 << 18,), {}), ((3, 70001), {}), ((64, 1000), {"dim": 1}),
                                       ((5, 7), {"dim": -1, "keepdim": True}), ((2, 3, 4), {"dim": (0, 1, 2)})])
def test_two_norm_of_float32_in_one_pass(shape, kw):
    # NOTE [Two-norms in one pass]: the float squares summed in double, the root rounded
    # once, and the same on any number of threads
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32) * 3
    axis = kw.get("dim", tuple(range(len(shape))))
    squares = (x * x).astype(np.float64)
    ref = np.sqrt(squares.sum(axis=axis, keepdims=kw.get("keepdim", False)))
    mine = gradtrack.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            gradtrack.set_num_threads(threads)
            # p=2, not the default 'fro': torch takes 'fro' over three dims as a matrix
            # norm, and refuses it
            results.append(gradtrack.tensor(x).norm(2, **kw).numpy())
    finally:
        gradtrack.set_num_threads(mine)
    assert results[0].shape == ref.shape
    assert np.array_equal(results[0], results[1])
    assert np.all(np.abs(results[0] - ref) <= 0.5 * np.spacing(ref.astype(np.float32)) * 1.001)
    assert np.array_equal(gradtrack.linalg.vector_norm(gradtrack.tensor(x), 2, **kw).numpy(), results[0])


def test_two_norm_of_float32_leaves_float_range_as_torch():
    torch = pytest.importorskip("torch")
    rows = [[3.0, -4.0], [float("nan"), 1.0], [float("inf"), 1.0], [0.0, -0.0], [1e30, 1e30],
            [1e-30, 1e-30], [1.5e19, 1.5e19], [3e38, 1.0]]
    for kw in ({"dim": 1}, {}):
        got = gradtrack.tensor(rows).norm(**kw).numpy()
        np.testing.assert_array_equal(got, torch.tensor(rows).norm(**kw).numpy())
    for row in rows:
        np.testing.assert_array_equal(gradtrack.tensor(row).norm().numpy(), torch.tensor(row).norm().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7, 1), (3, 5), (64, 1000), (2, 3, 33), (5, 70), (300, 2, 3)])
def test_extreme_and_its_index_over_a_dense_run_as_torch(dtype, shape):
    # the last dim's extreme comes from the vector loop, then the first element equal to
    # it; other dims compare whole rows of columns: ties, -0 against 0 and NaN (the first
    # wins) as torch's, and a transposed run
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x = rng.integers(-3, 3, shape).astype(dtype)
    x.reshape(-1)[::7] = -0.0
    # dims 0 and 1 of a matrix, and the middle one of three: the column-wise loop
    ops = [lambda a: a.max(-1), lambda a: a.min(-1), lambda a: a.argmax(-1),
           lambda a: a.argmin(-1), lambda a: a.max(0), lambda a: a.transpose(0, -1).min(0),
           lambda a: a.argmax(0), lambda a: a.argmin(0, keepdim=True), lambda a: a.max(1),
           lambda a: a.min(1, keepdim=True)]
    for y in (x, np.where(rng.random(shape) < 0.05, np.nan, x).astype(dtype)):
        for op in ops:
            got, expected = op(gradtrack.tensor(y)), op(torch.tensor(y))
            if isinstance(expected, tuple):
                np.testing.assert_array_equal(got.indices.numpy(), expected.indices.numpy())
                values, want = got.values.numpy(), expected.values.numpy()
                np.testing.assert_array_equal(values, want)
                assert np.array_equal(np.signbit(values), np.signbit(want))
            else:
                np.testing.assert_array_equal(got.numpy(), expected.numpy())
