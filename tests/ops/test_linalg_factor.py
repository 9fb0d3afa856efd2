"""inv, det, slogdet, logdet, solve, solve_triangular, matrix_power, cholesky and cholesky_solve against
torch 2.13 where the op table (tests/ops/op_db/linalg_factor.py) does not reach: argument
checks and their messages, LinAlgError on singular and non-positive-definite input (batch
element and pivot named), the ``_ex`` forms' info, named results, the legacy names,
gradients at a singular matrix, saved-tensor checks and forward-mode derivatives.
"""

import warnings

import numpy as np
import pytest

import gradtrack

from area_checks import grads, randn
from helpers import same


def _singular(lib):
    m = lib.zeros(3, 3)
    m[0, 0] = 1
    return m


def _batch_one_singular(lib):
    return lib.stack([lib.eye(3), lib.zeros(3, 3)])


def _not_pd(lib):
    return lib.tensor([[1.0, 2.0], [2.0, 1.0]])


ERRORS = {
    # shapes and dtypes
    "inv_1d": lambda lib: lib.linalg.inv(lib.ones(3)),
    "inv_nonsquare": lambda lib: lib.linalg.inv(lib.ones(2, 3)),
    "inverse_nonsquare": lambda lib: lib.inverse(lib.ones(2, 3)),
    "inv_int": lambda lib: lib.linalg.inv(lib.ones(3, 3, dtype=lib.int64)),
    "det_nonsquare": lambda lib: lib.linalg.det(lib.ones(2, 3)),
    "det_1d": lambda lib: lib.det(lib.ones(3)),
    "det_int": lambda lib: lib.linalg.det(lib.ones(3, 3, dtype=lib.int64)),
    "slogdet_nonsquare": lambda lib: lib.linalg.slogdet(lib.ones(2, 3)),
    "slogdet_int": lambda lib: lib.slogdet(lib.ones(3, 3, dtype=lib.int64)),
    "logdet_nonsquare": lambda lib: lib.logdet(lib.ones(2, 3)),
    "logdet_int": lambda lib: lib.logdet(lib.ones(3, 3, dtype=lib.int64)),
    "solve_nonsquare": lambda lib: lib.linalg.solve(lib.ones(2, 3), lib.ones(2, 2)),
    "solve_shapes": lambda lib: lib.linalg.solve(lib.ones(3, 3), lib.ones(2, 2)),
    "solve_shapes_right": lambda lib: lib.linalg.solve(lib.ones(3, 3), lib.ones(3, 2), left=False),
    "solve_vector_right": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3), left=False),
    "solve_vector_shapes": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(2)),
    "solve_dtypes": lambda lib: lib.linalg.solve(lib.ones(3, 3), lib.ones(3, 2, dtype=lib.float64)),
    "solve_int": lambda lib: lib.linalg.solve(lib.ones(3, 3, dtype=lib.int64),
                                              lib.ones(3, 2, dtype=lib.int64)),
    "solve_1d": lambda lib: lib.linalg.solve(lib.ones(3), lib.ones(3)),
    "solve_triangular_nonsquare": lambda lib: lib.linalg.solve_triangular(
        lib.ones(2, 3), lib.ones(2, 2), upper=True),
    "solve_triangular_1d_b": lambda lib: lib.linalg.solve_triangular(
        lib.ones(3, 3), lib.ones(3), upper=True),
    "solve_triangular_shapes": lambda lib: lib.linalg.solve_triangular(
        lib.ones(3, 3), lib.ones(2, 2), upper=True),
    "solve_triangular_shapes_right": lambda lib: lib.linalg.solve_triangular(
        lib.ones(3, 3), lib.ones(2, 2), upper=True, left=False),
    "solve_triangular_int": lambda lib: lib.linalg.solve_triangular(
        lib.ones(3, 3, dtype=lib.int64), lib.ones(3, 2, dtype=lib.int64), upper=True),
    "cholesky_nonsquare": lambda lib: lib.linalg.cholesky(lib.ones(2, 3)),
    "cholesky_1d": lambda lib: lib.linalg.cholesky(lib.ones(3)),
    "cholesky_int": lambda lib: lib.linalg.cholesky(lib.ones(3, 3, dtype=lib.int64)),
    "cholesky_solve_1d": lambda lib: lib.cholesky_solve(lib.ones(3), lib.eye(3)),
    "cholesky_solve_nonsquare": lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(2, 3)),
    "cholesky_solve_shapes": lambda lib: lib.cholesky_solve(lib.ones(2, 2), lib.eye(3)),
    "cholesky_solve_dtypes": lambda lib: lib.cholesky_solve(lib.ones(3, 2),
                                                            lib.eye(3, dtype=lib.float64)),
    "cholesky_solve_int": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.int64),
                                                         lib.ones(3, 3, dtype=lib.int64)),
    "matrix_power_nonsquare": lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    "matrix_power_1d": lambda lib: lib.linalg.matrix_power(lib.ones(3), 2),
    "matrix_power_int_negative": lambda lib: lib.linalg.matrix_power(lib.ones(2, 2, dtype=lib.int64), -1),
    "matrix_power_float_n": lambda lib: lib.linalg.matrix_power(lib.ones(2, 2), 2.0),
    "matrix_power_singular": lambda lib: lib.linalg.matrix_power(lib.zeros(2, 2), -2),
    **{f"{name}_{dt}": (lambda f, dt: lambda lib: f(lib, getattr(lib, dt)))(f, dt)
       for dt in ("bfloat16", "float16") for name, f in {
           "inv": lambda lib, d: lib.linalg.inv(lib.eye(2, dtype=d)),
           "inv_ex": lambda lib, d: lib.linalg.inv_ex(lib.eye(2, dtype=d)),
           "det": lambda lib, d: lib.linalg.det(lib.eye(2, dtype=d)),
           "slogdet": lambda lib, d: lib.linalg.slogdet(lib.eye(2, dtype=d)),
           "logdet": lambda lib, d: lib.logdet(lib.eye(2, dtype=d)),
           "solve": lambda lib, d: lib.linalg.solve(lib.eye(2, dtype=d), lib.ones(2, 1, dtype=d)),
           "solve_triangular": lambda lib, d: lib.linalg.solve_triangular(
               lib.eye(2, dtype=d), lib.ones(2, 1, dtype=d), upper=True),
           "cholesky": lambda lib, d: lib.linalg.cholesky(lib.eye(2, dtype=d)),
           "cholesky_solve": lambda lib, d: lib.cholesky_solve(lib.ones(2, 1, dtype=d),
                                                               lib.eye(2, dtype=d)),
           "matrix_power_inverse": lambda lib, d: lib.linalg.matrix_power(lib.eye(2, dtype=d), -1),
       }.items()},
    # singular and not positive-definite: LinAlgError, naming the pivot or minor and the batch
    "inv_singular": lambda lib: lib.linalg.inv(_singular(lib)),
    "inv_singular_batch": lambda lib: lib.linalg.inv(_batch_one_singular(lib)),
    "inverse_singular": lambda lib: lib.inverse(_singular(lib)),
    "inv_ex_check_errors": lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
    "solve_singular": lambda lib: lib.linalg.solve(_singular(lib), lib.ones(3, 2)),
    "solve_singular_batch": lambda lib: lib.linalg.solve(_batch_one_singular(lib),
                                                         lib.ones(2, 3, 1)),
    "solve_ex_check_errors": lambda lib: lib.linalg.solve_ex(lib.zeros(2, 2), lib.ones(2, 1),
                                                             check_errors=True),
    "cholesky_not_pd": lambda lib: lib.linalg.cholesky(_not_pd(lib)),
    "cholesky_negative": lambda lib: lib.linalg.cholesky(-lib.eye(3)),
    "cholesky_not_pd_batch": lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), -lib.eye(2)])),
    "cholesky_ex_check_errors": lambda lib: lib.linalg.cholesky_ex(-lib.eye(2), check_errors=True),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


def test_legacy_cholesky_errors_and_warns_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda lib: lib.cholesky(-lib.eye(3)))
        same(lambda lib: lib.cholesky(lib.ones(2, 3)))
    with pytest.warns(UserWarning, match="gradtrack.cholesky is deprecated in favor of "
                                         "gradtrack.linalg.cholesky"):
        gradtrack.cholesky(gradtrack.eye(2))


def test_lin_alg_error_is_a_runtime_error_named_as_torch_names_it(torch):
    assert issubclass(gradtrack.linalg.LinAlgError, RuntimeError)
    assert gradtrack.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__
    with pytest.raises(RuntimeError):
        gradtrack.linalg.inv(gradtrack.zeros(2, 2))


def test_lin_alg_error_lives_in_c_as_torch_s_and_pickles(torch):
    import pickle

    def where(lib):
        try:
            lib.linalg.cholesky(-lib.eye(2))
        except Exception as e:  # noqa: BLE001 - the error is the observation
            copy = pickle.loads(pickle.dumps(e))
            return (type(e).__module__.replace(lib.__name__, "torch"), type(e).__qualname__,
                    type(e) is lib.linalg.LinAlgError, lib._C._LinAlgError is type(e),
                    type(copy) is type(e), str(copy) == str(e))

    assert where(gradtrack) == where(torch)


# ---- values, named results, info and grad_fn names -------------------------------------------

SCENARIOS = {
    "inv_ex": lambda lib: lib.linalg.inv_ex(randn(lib, 2, 3, 3) + 3 * lib.eye(3)),
    "inv_ex_singular_info": lambda lib: lib.linalg.inv_ex(_batch_one_singular(lib)).info,
    "solve_ex": lambda lib: lib.linalg.solve_ex(randn(lib, 3, 3) + 3 * lib.eye(3),
                                                randn(lib, 3, 2, seed=1)),
    "solve_ex_singular_info": lambda lib: lib.linalg.solve_ex(_singular(lib), lib.ones(3, 1)).info,
    "solve_broadcast_shapes": lambda lib: [
        tuple(lib.linalg.solve(lib.eye(3).expand(2, 1, 3, 3), lib.ones(4, 3, 1)).shape),
        tuple(lib.linalg.solve(lib.eye(3).expand(2, 3, 3), lib.ones(3)).shape),
        tuple(lib.linalg.solve(lib.eye(3).expand(2, 3, 3), lib.ones(2, 3)).shape),
        tuple(lib.linalg.solve(lib.eye(3), lib.ones(2, 3), left=False).shape)],
    "slogdet": lambda lib: lib.linalg.slogdet(randn(lib, 2, 3, 3)),
    "slogdet_legacy_name": lambda lib: lib.slogdet(randn(lib, 3, 3)),
    "slogdet_singular": lambda lib: lib.linalg.slogdet(_singular(lib)),
    "det_singular": lambda lib: lib.linalg.det(_singular(lib)),
    "logdet_negative_and_singular": lambda lib: (lib.logdet(-lib.eye(3)).isnan(), lib.logdet(_singular(lib)),
                                                 lib.logdet(randn(lib, 3, 3))),
    "empty_matrices": lambda lib: (lib.linalg.inv(lib.zeros(0, 0)), lib.linalg.det(lib.zeros(0, 0)),
                                   lib.linalg.slogdet(lib.zeros(2, 0, 0))),
    "cholesky_ex": lambda lib: lib.linalg.cholesky_ex(lib.tensor([[4.0, 2.0], [2.0, 3.0]])),
    "cholesky_ex_not_pd_info": lambda lib: lib.linalg.cholesky_ex(_not_pd(lib)).info,
    "cholesky_reads_one_triangle": lambda lib: (
        lib.linalg.cholesky(lib.tensor([[4.0, 100.0], [2.0, 3.0]])),
        lib.linalg.cholesky(lib.tensor([[4.0, 2.0], [100.0, 3.0]]), upper=True)),
    "solve_triangular_reads_one_triangle": lambda lib: (
        lib.linalg.solve_triangular(lib.tensor([[2.0, 7.0], [1.0, 4.0]]), lib.ones(2, 1),
                                    upper=False),
        lib.linalg.solve_triangular(lib.tensor([[9.0, 2.0], [7.0, 9.0]]), lib.ones(2, 1),
                                    upper=True, unitriangular=True),
        lib.linalg.solve_triangular(lib.tensor([[2.0, 1.0], [0.0, 4.0]]),
                                    lib.ones(2, 2, dtype=lib.float64), upper=True)),
    "matrix_power_versions_and_batches": lambda lib: [
        (lambda r: (r, r._version))(lib.linalg.matrix_power(randn(lib, 2, 3, 3), n))
        for n in (0, 1, 2, 4, -1, -2)] + [lib.matrix_power(lib.ones(2, 2, dtype=lib.int64), 0)],
    "methods": lambda lib: (lambda a: (a.inverse(), a.det(), a.slogdet(), a.logdet()))(
        randn(lib, 3, 3) + 4 * lib.eye(3, dtype=lib.float64)),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


def test_named_results_print_as_torch(torch):
    for name in ("inv_ex", "solve_ex", "slogdet", "cholesky_ex"):
        args = (torch.eye(2), torch.ones(2, 1)) if name == "solve_ex" else (torch.eye(2),)
        ours = getattr(gradtrack.linalg, name)(*(gradtrack.tensor(a.numpy()) for a in args))
        theirs = getattr(torch.linalg, name)(*args)
        assert repr(ours) == repr(theirs).replace("torch", "gradtrack")
        assert ours._fields == theirs._fields if hasattr(theirs, "_fields") else True
    assert repr(gradtrack.slogdet(gradtrack.eye(2))) == \
        repr(torch.slogdet(torch.eye(2))).replace("torch", "gradtrack")


# ---- gradients where the op table does not reach ---------------------------------------------

def _spd(lib, a):
    return a @ a.mT + 3 * lib.eye(a.shape[-1], dtype=a.dtype)


GRADIENTS = {
    "det_singular": lambda lib: (lambda x: grads(lib, lib.linalg.det(x * lib.tensor(
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0]], dtype=lib.float64)), x))(
        randn(lib, 3, 3)),
    "det_batch_one_singular": lambda lib: (lambda x: grads(lib, lib.linalg.det(
        x * lib.tensor([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]], dtype=lib.float64)),
        x))(lib.ones(2, 2, 2, dtype=lib.float64, requires_grad=True)),
    "slogdet_sign_only": lambda lib: (lambda x: lib.autograd.grad(
        [lib.linalg.slogdet(x)[0].sum()], [x], allow_unused=True))(randn(lib, 3, 3)),
    "solve_broadcast": lambda lib: (lambda a, b: grads(lib, lib.linalg.solve(
        a + 4 * lib.eye(3, dtype=lib.float64), b), a, b))(randn(lib, 3, 3), randn(lib, 2, 3, 2, seed=1)),
    "solve_triangular_broadcast": lambda lib: (lambda a, b: grads(
        lib, lib.linalg.solve_triangular(a + 4 * lib.eye(3, dtype=lib.float64), b, upper=False),
        a, b))(randn(lib, 3, 3), randn(lib, 2, 3, 2, seed=1)),
    "cholesky_upper_batch": lambda lib: (lambda a: grads(
        lib, lib.linalg.cholesky(_spd(lib, a), upper=True), a))(randn(lib, 2, 3, 3)),
    "cholesky_solve_broadcast": lambda lib: (lambda b, a: grads(
        lib, lib.cholesky_solve(b, lib.linalg.cholesky(_spd(lib, a))), b, a))(
        randn(lib, 2, 3, 2), randn(lib, 3, 3, seed=1)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


def test_saved_input_written_in_place_makes_backward_raise():
    def scenario(lib):
        a = randn(lib, 3, 3)
        w = a * 1 + 4 * lib.eye(3, dtype=lib.float64)
        out = lib.linalg.solve(w, lib.ones(3, 1, dtype=lib.float64))
        w.add_(1)
        out.sum().backward()
    same(scenario)


def test_result_written_in_place_makes_backward_raise():
    def scenario(lib):
        a = randn(lib, 3, 3)
        inv = lib.linalg.inv(a + 4 * lib.eye(3, dtype=lib.float64))
        inv.mul_(2)
        inv.sum().backward()
    same(scenario)


def _legacy_cholesky(lib, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.cholesky(a)


# ---- forward-mode derivatives ----------------------------------------------------------------

JVPS = {
    "inv": lambda lib, a, b: lib.linalg.inv(a),
    "det": lambda lib, a, b: lib.linalg.det(a),
    "slogdet": lambda lib, a, b: lib.linalg.slogdet(a)[1],
    "solve": lambda lib, a, b: lib.linalg.solve(a, b),
    "solve_vector": lambda lib, a, b: lib.linalg.solve(a, b[:, 0]),
    "solve_right": lambda lib, a, b: lib.linalg.solve(a, b.mT, left=False),
    "solve_batch_vector": lambda lib, a, b: lib.linalg.solve(a.expand(2, 3, 3), b.mT),
    "solve_triangular": lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
    "solve_triangular_right_unit": lambda lib, a, b: lib.linalg.solve_triangular(
        a, b.mT, upper=False, left=False, unitriangular=True),
    "cholesky": lambda lib, a, b: lib.linalg.cholesky(_spd(lib, a)),
    "cholesky_upper": lambda lib, a, b: lib.linalg.cholesky(_spd(lib, a), upper=True),
    "legacy_cholesky_has_none": lambda lib, a, b: _legacy_cholesky(lib, _spd(lib, a)),
    "cholesky_solve": lambda lib, a, b: lib.cholesky_solve(b, lib.linalg.cholesky(_spd(lib, a))),
}


@pytest.mark.parametrize("case", sorted(JVPS))
def test_forward_mode_matches_torch(case):
    def scenario(lib):
        fwad = lib.autograd.forward_ad
        rng = np.random.default_rng(3)
        a = lib.tensor(rng.standard_normal((3, 3)) + 4 * np.eye(3))
        b = lib.tensor(rng.standard_normal((3, 2)))
        ta, tb = (lib.tensor(rng.standard_normal(s)) for s in ((3, 3), (3, 2)))
        with fwad.dual_level():
            out = JVPS[case](lib, fwad.make_dual(a, ta), fwad.make_dual(b, tb))
            return fwad.unpack_dual(out).tangent
    same(scenario)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n, k", [(17, 1), (33, 40), (100, 7), (130, 200), (257, 64)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocked_lu_solves_match_numpy(n, k, dtype, threads):
    # Sizes past the substitution leaves (16 rows) and the 64-column LAPACK panels of
    # the factorization, odd halves, and right-hand sides split over two threads (NOTE
    # [LU solves on our GEMM], NOTE [LU on our GEMM]); a batch of two, the second
    # matrix permuted so that its factorization pivots.
    rng = np.random.default_rng(n * 1000 + k)
    a = rng.standard_normal((2, n, n)) + 2 * np.eye(n)
    a[1] = a[1][rng.permutation(n)]
    b = rng.standard_normal((2, n, k))
    before = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        A, B = gradtrack.tensor(a.astype(dtype)), gradtrack.tensor(b.astype(dtype))
        x, inv = gradtrack.linalg.solve(A, B), gradtrack.linalg.inv(A)
        xl = gradtrack.linalg.solve(A, B[..., :1].transpose(-2, -1), left=False)
        sign, logabs = gradtrack.linalg.slogdet(A)
    finally:
        gradtrack.set_num_threads(before)
    a32, b32 = a.astype(dtype).astype(np.float64), b.astype(dtype).astype(np.float64)
    tol = 1e-3 if dtype == "float32" else 1e-10
    ref = np.linalg.solve(a32, b32)
    assert np.abs(x.numpy() - ref).max() <= tol * np.abs(ref).max()
    assert np.abs(inv.numpy() - np.linalg.inv(a32)).max() <= tol * np.abs(np.linalg.inv(a32)).max()
    ref_left = np.swapaxes(np.linalg.solve(np.swapaxes(a32, -2, -1), b32[..., :1]), -2, -1)
    assert np.abs(xl.numpy() - ref_left).max() <= tol * np.abs(ref_left).max()
    ref_sign, ref_logabs = np.linalg.slogdet(a32)
    assert (sign.numpy() == ref_sign).all()
    assert np.abs(logabs.numpy() - ref_logabs).max() <= tol * np.abs(ref_logabs).max()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n, k", [(210, 210), (256, 256), (256, 261), (300, 140)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_one_matrix_factored_in_the_solve_region_matches_numpy(n, k, layout, threads):
    # One matrix (no batch) from 2^23 multiply-adds: its copy and factorization run in
    # the region that then solves the columns on both threads (NOTE [Waking the pool
    # behind the factorization]); a transposed operand is copied there by the strided
    # copy. Uneven shares: k not a multiple of 16, the inverse's first ~40% of columns.
    rng = np.random.default_rng(n + k)
    a = (rng.standard_normal((n, n)) + 2 * np.eye(n))[rng.permutation(n)]
    b = rng.standard_normal((n, k))
    A = gradtrack.tensor(a.T.astype(np.float32))
    if layout == "transposed":
        A = A.T
    else:
        A = gradtrack.tensor(a.astype(np.float32))
    B = gradtrack.tensor(b.astype(np.float32))
    before = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        x, inv = gradtrack.linalg.solve(A, B), gradtrack.linalg.inv(A)
    finally:
        gradtrack.set_num_threads(before)
    a32 = a.astype(np.float32).astype(np.float64)
    ref_x, ref_inv = np.linalg.solve(a32, b.astype(np.float32)), np.linalg.inv(a32)
    assert np.abs(x.numpy() - ref_x).max() <= 1e-3 * np.abs(ref_x).max()
    assert np.abs(inv.numpy() - ref_inv).max() <= 1e-3 * np.abs(ref_inv).max()
    assert np.abs(inv.numpy() @ a32 - np.eye(n)).max() <= 1e-3


@pytest.mark.parametrize("n", [3, 40, 256])
def test_blocked_inverse_of_singular_matrix_matches_torch(torch, n):
    # The solve with singular factors is not finite wherever torch's is not (which of
    # NaN and infinity each entry is follows the order of the operations).
    a = np.ones((n, n), dtype=np.float32)
    ours = gradtrack.linalg.inv_ex(gradtrack.tensor(a))
    theirs = torch.linalg.inv_ex(torch.tensor(a))
    assert ours.info.item() == theirs.info.item() > 0
    assert (np.isfinite(ours.inverse.numpy()) == np.isfinite(theirs.inverse.numpy())).all()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [129, 300])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocked_cholesky_matches_numpy(n, upper, dtype, threads):
    # Past the 128-row LAPACK leaves (NOTE [Cholesky on our GEMM]): the factor, its zero
    # triangle, and the order of the first leading minor that is not positive-definite.
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, n))
    a = (x @ x.T + n * np.eye(n)).astype(dtype)
    before = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        factor = gradtrack.linalg.cholesky(gradtrack.tensor(a), upper=upper).numpy()
        bad = a.copy()
        bad[n - 20, n - 20] = -1.0
        info = gradtrack.linalg.cholesky_ex(gradtrack.tensor(bad), upper=upper).info.item()
    finally:
        gradtrack.set_num_threads(before)
    ref = np.linalg.cholesky(a.astype(np.float64))
    ref = ref.T if upper else ref
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert np.abs(factor - ref).max() <= tol * np.abs(ref).max()
    assert not (np.tril(factor, -1) if upper else np.triu(factor, 1)).any()
    assert info == n - 19


@pytest.mark.parametrize("n", [6, 100])
@pytest.mark.parametrize("zero", ["column", "row", "ones"])
def test_singular_matrix_reports_the_pivot_torch_reports(torch, n, zero):
    # A zero column of A is a zero row of the A^T that LAPACK factors; the info and
    # the element inv's error names are A's, as torch's (NOTE [The pivot a singular
    # matrix reports]).
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, n, n))
    if zero == "column":
        a[1, :, n // 2] = 0
    elif zero == "row":
        a[1, n // 2] = 0
    else:
        a[1] = 1
    b = np.ones((2, n, 1))
    results = []
    for lib in (gradtrack, torch):
        with pytest.raises(RuntimeError) as caught:
            lib.linalg.inv(lib.tensor(a))
        results.append((lib.linalg.inv_ex(lib.tensor(a)).info.tolist(),
                        lib.linalg.solve_ex(lib.tensor(a), lib.tensor(b)).info.tolist(),
                        str(caught.value)))
    assert results[0] == results[1]
    assert results[0][0][1] > 0


@pytest.mark.parametrize("vectors", [1, 3, 4, 5])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_few_right_hand_sides_match_numpy(vectors, left, upper, unitriangular):
    # Up to four columns (rows, on the right) go one at a time through trsv, five
    # through trsm (NOTE [Few right-hand sides by trsv]); the transposed solves of
    # cholesky_solve's second step and of lu_solve(adjoint=True) as well.
    n = 70
    rng = np.random.default_rng(vectors * 8 + left * 4 + upper * 2 + unitriangular)
    a = 0.05 * rng.standard_normal((n, n)) + np.eye(n)  # well conditioned with a unit diagonal
    b = rng.standard_normal((n, vectors) if left else (vectors, n))
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        np.fill_diagonal(t, 1.0)
    x = gradtrack.linalg.solve_triangular(gradtrack.tensor(a), gradtrack.tensor(b), upper=upper,
                                          left=left, unitriangular=unitriangular).numpy()
    ref = np.linalg.solve(t, b) if left else np.linalg.solve(t.T, b.T).T
    np.testing.assert_allclose(x, ref, rtol=1e-10, atol=1e-12)
    if left and not unitriangular:
        spd = a @ a.T + n * np.eye(n)
        factor = np.linalg.cholesky(spd)
        factor = factor.T if upper else factor
        got = gradtrack.cholesky_solve(gradtrack.tensor(b), gradtrack.tensor(factor), upper=upper)
        np.testing.assert_allclose(got.numpy(), np.linalg.solve(spd, b), rtol=1e-9, atol=1e-11)
        LU, piv = gradtrack.linalg.lu_factor(gradtrack.tensor(a))
        for adjoint in (False, True):
            got = gradtrack.linalg.lu_solve(LU, piv, gradtrack.tensor(b), adjoint=adjoint)
            np.testing.assert_allclose(got.numpy(), np.linalg.solve(a.T if adjoint else a, b),
                                       rtol=1e-9, atol=1e-11)
