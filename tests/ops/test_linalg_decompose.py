"""svd, svdvals, qr, eigh, eigvalsh, matrix_rank, cond, multi_dot, pinv and matrix_exp
against torch 2.13
where the op table (tests/ops/op_db/linalg_decompose.py) does not reach: argument checks
and their messages, LinAlgError on non-finite input, the legacy torch.svd and torch.qr,
shapes of every mode (empty matrices included), rank-deficient input, gradients of
sign-free functions and at repeated singular values, the errors of backward, double
backward, named results and out=.
"""

import warnings

import numpy as np
import pytest

import gradtrack

from area_checks import double_backward, grads, randn
from helpers import same


def _nan(lib, batch=False):
    m = lib.ones(2, 3, 3) if batch else lib.ones(3, 3)
    m[(1, 0, 0) if batch else (0, 0)] = float("nan")
    return m


ERRORS = {
    "svd_1d": lambda lib: lib.linalg.svd(lib.ones(3)),
    "svd_int": lambda lib: lib.linalg.svd(lib.ones(3, 3, dtype=lib.int64)),
    "svd_half": lambda lib: lib.linalg.svd(lib.eye(3, dtype=lib.float16)),
    "svd_bfloat16": lambda lib: lib.linalg.svdvals(lib.eye(3, dtype=lib.bfloat16)),
    "svd_driver": lambda lib: lib.linalg.svd(lib.eye(2), driver="gesvd"),
    "svd_nan": lambda lib: lib.linalg.svd(_nan(lib)),
    "svd_nan_batch": lambda lib: lib.linalg.svdvals(_nan(lib, True)),
    "torch_svd_1d": lambda lib: lib.svd(lib.ones(3)),
    "torch_svd_int": lambda lib: lib.svd(lib.ones(3, 3, dtype=lib.int64)),
    "qr_1d": lambda lib: lib.linalg.qr(lib.ones(3)),
    "qr_int": lambda lib: lib.linalg.qr(lib.ones(3, 3, dtype=lib.int64)),
    "qr_half": lambda lib: lib.linalg.qr(lib.eye(3, dtype=lib.float16)),
    "qr_mode": lambda lib: lib.linalg.qr(lib.eye(2), mode="R"),
    "eigh_1d": lambda lib: lib.linalg.eigh(lib.ones(3)),
    "eigh_int": lambda lib: lib.linalg.eigh(lib.ones(3, 3, dtype=lib.int64)),
    "eigvalsh_int": lambda lib: lib.linalg.eigvalsh(lib.ones(3, 3, dtype=lib.int64)),
    "eigh_half": lambda lib: lib.linalg.eigh(lib.eye(3, dtype=lib.float16)),
    "eigh_nonsquare": lambda lib: lib.linalg.eigh(lib.ones(2, 3)),
    "eigvalsh_nonsquare": lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)),
    "eigh_uplo": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X"),
    "matrix_rank_1d": lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    "matrix_rank_int": lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.int64)),
    "cond_1d": lambda lib: lib.linalg.cond(lib.ones(3)),
    "cond_p": lambda lib: lib.linalg.cond(lib.eye(3), p=3),
    "cond_nonsquare": lambda lib: lib.linalg.cond(lib.ones(2, 3), p=1),
    "multi_dot_one": lambda lib: lib.linalg.multi_dot([lib.ones(3)]),
    "multi_dot_none": lambda lib: lib.linalg.multi_dot([]),
    "multi_dot_shapes": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 3)]),
    "multi_dot_3d": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 3), lib.ones(3, 2)]),
    "multi_dot_last_3d": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 3, 2)]),
    "multi_dot_middle_1d": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(3),
                                                             lib.ones(3, 2)]),
    "multi_dot_dtypes": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3),
                                                          lib.ones(3, 2, dtype=lib.float64)]),
    "pinv_1d": lambda lib: lib.linalg.pinv(lib.ones(3)),
    "pinv_int": lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.int64)),
    "pinv_half": lambda lib: lib.linalg.pinv(lib.ones(2, 3, dtype=lib.float16)),
    "matrix_exp_1d": lambda lib: lib.linalg.matrix_exp(lib.ones(3)),
    "matrix_exp_nonsquare": lambda lib: lib.linalg.matrix_exp(lib.ones(2, 3)),
    "matrix_exp_int": lambda lib: lib.linalg.matrix_exp(lib.ones(3, 3, dtype=lib.int64)),
    "torch_matrix_exp_nonsquare": lambda lib: lib.matrix_exp(lib.ones(2, 3)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


def test_eigh_of_non_finite_input_raises_lin_alg_error():
    # LAPACK's error code for a NaN is its own; the words and the batch element are torch's
    for batch in (False, True):
        with pytest.raises(gradtrack.linalg.LinAlgError,
                           match=("linalg.eigh: " + (r"\(Batch element 1\): " if batch else "")
                                  + "The algorithm failed to converge because the input matrix "
                                  "is ill-conditioned")):
            gradtrack.linalg.eigh(_nan(gradtrack, batch))


def _shapes(result):
    return [tuple(t.shape) for t in result]


SHAPES = [(3, 3), (4, 2), (2, 4), (2, 3, 4), (0, 3), (3, 0), (2, 0, 0)]


@pytest.mark.parametrize("shape", SHAPES)
def test_shapes_of_every_mode_match_torch(torch, shape):
    def run(lib):
        a = lib.ones(*shape)
        out = [_shapes(lib.linalg.svd(a)), _shapes(lib.linalg.svd(a, full_matrices=False)),
               tuple(lib.linalg.svdvals(a).shape),
               _shapes(lib.svd(a)), _shapes(lib.svd(a, some=False)),
               _shapes(lib.svd(a, compute_uv=False)),
               _shapes(lib.linalg.qr(a)), _shapes(lib.linalg.qr(a, mode="complete")),
               _shapes(lib.linalg.qr(a, mode="r"))]
        if shape[-1] == shape[-2]:
            out += [_shapes(lib.linalg.eigh(a)), tuple(lib.linalg.eigvalsh(a).shape)]
        return out
    assert run(gradtrack) == run(torch)


def test_empty_factors_are_torch_identities(torch):
    for shape in ((0, 3), (3, 0)):
        u, s, vh = gradtrack.linalg.svd(gradtrack.ones(*shape))
        tu, ts, tvh = torch.linalg.svd(torch.ones(*shape))
        np.testing.assert_array_equal(u.numpy(), tu.numpy())
        np.testing.assert_array_equal(vh.numpy(), tvh.numpy())


RANK_DEFICIENT = {
    "ones": lambda rng: np.ones((5, 5)),
    "rank2": lambda rng: rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5)),
    "rank1_wide": lambda rng: rng.standard_normal((3, 1)) @ rng.standard_normal((1, 7)),
    "zeros": lambda rng: np.zeros((4, 3)),
    "repeated": lambda rng: np.diag([2.0, 2.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("case", sorted(RANK_DEFICIENT))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rank_deficient_input_gives_torch_singular_values_and_orthonormal_factors(
        torch, case, dtype):
    a = RANK_DEFICIENT[case](np.random.default_rng(0)).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for full in (True, False):
        u, s, vh = (t.numpy() for t in gradtrack.linalg.svd(gradtrack.tensor(a), full))
        np.testing.assert_allclose(s, torch.linalg.svdvals(torch.tensor(a)).numpy(),
                                   atol=tol * 10)
        np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=tol)
        np.testing.assert_allclose(vh @ vh.T, np.eye(vh.shape[0]), atol=tol)
        k = len(s)
        np.testing.assert_allclose((u[:, :k] * s) @ vh[:k], a, atol=tol * 10)
    assert gradtrack.linalg.matrix_rank(gradtrack.tensor(a)).item() == \
        torch.linalg.matrix_rank(torch.tensor(a)).item()


def _gauge_free(lib, a, full):
    u, s, vh = lib.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    w = lib.tensor(np.arange(1.0, k + 1), dtype=a.dtype)
    return ((u * (s * w).unsqueeze(-2)) @ vh).sum() + (u * u).sum(-2).mul(w).sum() + s.sum()


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_gradients_of_sign_free_functions_match_torch(shape, full):
    same(lambda lib: (lambda x: grads(lib, _gauge_free(lib, x, full), x))(randn(lib, *shape)))


def test_svd_gradcheck():
    x = gradtrack.randn(4, 3, dtype=gradtrack.float64, requires_grad=True)
    assert gradtrack.autograd.gradcheck(lambda a: _gauge_free(gradtrack, a, False), (x,))


def test_singular_values_of_repeated_singular_values_have_torch_gradients():
    # only S is used: U's absent gradient must not turn 0 / 0 into NaN
    same(lambda lib: (lambda x: grads(lib, lib.linalg.svdvals(x).sum(), x))(
        lib.eye(3, dtype=lib.float64).requires_grad_()))
    same(lambda lib: (lambda x: grads(lib, lib.linalg.eigvalsh(x).pow(2).sum(), x))(
        lib.eye(3, dtype=lib.float64).requires_grad_()))


def test_repeated_singular_values_give_torch_nan_gradients_through_vectors():
    same(lambda lib: (lambda x: grads(lib, lib.linalg.svd(x).U.sum(), x)[0].isnan())(
        lib.eye(3, dtype=lib.float64).requires_grad_()))


SCENARIOS = {
    "qr": lambda lib: lib.linalg.qr(randn(lib, 4, 3)),
    "qr_wide": lambda lib: lib.linalg.qr(randn(lib, 2, 3, 5)),
    "qr_complete": lambda lib: lib.linalg.qr(randn(lib, 4, 3), mode="complete"),
    "qr_r": lambda lib: lib.linalg.qr(randn(lib, 4, 3), mode="r"),
    "eigvalsh": lambda lib: lib.linalg.eigvalsh(randn(lib, 2, 4, 4)),
    "eigh_reads_lower": lambda lib: lib.linalg.eigvalsh(lib.tensor([[2.0, 100.0], [1.0, 3.0]])),
    "eigh_reads_upper": lambda lib: lib.linalg.eigvalsh(lib.tensor([[2.0, 1.0], [100.0, 3.0]]),
                                                        UPLO="U"),
    "eigh_lowercase_uplo": lambda lib: lib.linalg.eigvalsh(lib.tensor([[2.0, 1.0], [100.0, 3.0]]),
                                                           UPLO="u"),
    "svdvals": lambda lib: lib.linalg.svdvals(randn(lib, 2, 3, 5)),
    "svd_compute_uv_false": lambda lib: lib.svd(randn(lib, 4, 3), compute_uv=False),
    "matrix_rank_version": lambda lib: [
        lib.linalg.matrix_rank(lib.ones(3, 3))._version,
        lib.linalg.matrix_rank(lib.ones(2, 3, 3), hermitian=True)._version,
        lib.linalg.matrix_rank(lib.zeros(2, 3, 0))._version],
    "matrix_rank": lambda lib: [
        lib.linalg.matrix_rank(randn(lib, 2, 4, 3)),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), atol=1e-2),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), rtol=1e-4),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), atol=1e-2, rtol=1e-4),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), atol=lib.tensor(1e-4)),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([-2.0, 1.0, 0.0])), hermitian=True),
        lib.linalg.matrix_rank(lib.zeros(2, 3, 0)),
        lib.linalg.matrix_rank(lib.diag(lib.tensor([2.0, 1e-3])).expand(2, 2, 2),
                               rtol=lib.tensor([1e-4, 1e-2]))],
    "cond": lambda lib: [lib.linalg.cond(randn(lib, 2, 3, 3), p) for p in
                         (None, 2, -2, "fro", "nuc", 1, -1, float("inf"), -float("inf"))],
    "cond_rectangular": lambda lib: lib.linalg.cond(randn(lib, 3, 5)),
    "cond_singular": lambda lib: [
        lib.linalg.cond(lib.diag(lib.tensor([1.0, 1.0, 0.0])), p) for p in
        (None, "fro", "nuc", 1, -1, float("inf"))] + [
        lib.linalg.cond(lib.stack([lib.eye(3), lib.zeros(3, 3)]).requires_grad_(), 1),
        lib.linalg.cond(lib.ones(3, 3).requires_grad_(), "fro")],
    "pinv": lambda lib: [
        lib.linalg.pinv(lib.ones(3, 3)), lib.linalg.pinv(lib.ones(3, 3), hermitian=True),
        lib.linalg.pinv(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), atol=1e-2),
        lib.linalg.pinv(lib.diag(lib.tensor([1.0, 1e-3, 1e-9])), rtol=1e-4),
        lib.linalg.pinv(lib.diag(lib.tensor([2.0, 1e-3])).expand(2, 2, 2),
                        rtol=lib.tensor([1e-4, 1e-2])),
        lib.linalg.pinv(randn(lib, 2, 3, 5)), lib.pinverse(randn(lib, 4, 2)),
        randn(lib, 3, 3).pinverse(rcond=0.5), lib.linalg.pinv(lib.zeros(0, 3))],
    "matrix_exp": lambda lib: [
        lib.linalg.matrix_exp(randn(lib, 2, 3, 3) * 4), lib.matrix_exp(lib.zeros(0, 0)),
        randn(lib, 4, 4).matrix_exp(), lib.linalg.matrix_exp(lib.tensor([[0.0, 1.0], [-1.0, 0.0]]))],
    "multi_dot": lambda lib: [lib.linalg.multi_dot([randn(lib, 2, 3), randn(lib, 3, 4, seed=1)]),
                              lib.linalg.multi_dot([randn(lib, 3), randn(lib, 3, seed=1)]),
                              lib.linalg.multi_dot([randn(lib, 3), randn(lib, 3, 2, seed=1)])],
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


def test_cond_and_multi_dot_graphs_match_torch(torch):
    from helpers import name, nexts
    for lib_pair in ((gradtrack, torch),):
        graphs = []
        for lib in lib_pair:
            x = lib.tensor(np.random.default_rng(0).standard_normal((3, 3)), requires_grad=True)
            ys = [lib.linalg.cond(x), lib.linalg.multi_dot([x, x, x]),
                  lib.linalg.multi_dot([x[:, :1].mT, x, x[:, :2]])]
            graphs.append([(name(y.grad_fn), nexts(y.grad_fn)) for y in ys])
        assert graphs[0] == graphs[1]


QR_GRADS = {
    "tall": lambda lib: (lambda x: grads(lib, (lambda q, r: (q * r[..., :1, :].sum()).sum()
                                               + r.pow(2).sum())(*lib.linalg.qr(x)), x))(
        randn(lib, 5, 3)),
    "wide": lambda lib: (lambda x: grads(lib, (lambda q, r: q.sum() + r.pow(2).sum())(
        *lib.linalg.qr(x)), x))(randn(lib, 2, 3, 5)),
    "q_only": lambda lib: (lambda x: grads(lib, lib.linalg.qr(x).Q.pow(3).sum(), x))(
        randn(lib, 4, 4)),
    "r_only_wide": lambda lib: (lambda x: grads(lib, lib.linalg.qr(x).R.pow(3).sum(), x))(
        randn(lib, 3, 4)),
    "complete_wide": lambda lib: (lambda x: grads(lib, sum(t.sum() for t in lib.linalg.qr(
        x, mode="complete")), x))(randn(lib, 3, 4)),
    "complete_tall": lambda lib: (lambda x: grads(lib, lib.linalg.qr(x, mode="complete").Q.sum(),
                                                  x))(randn(lib, 4, 3)),
    "mode_r": lambda lib: (lambda x: grads(lib, lib.linalg.qr(x, mode="r").R.sum(), x))(
        randn(lib, 4, 3)),
}


@pytest.mark.parametrize("case", sorted(QR_GRADS))
def test_qr_gradients_and_their_errors_match_torch(case):
    same(QR_GRADS[case])


EIGH_GRADS = {
    # eigh reads one triangle; torch's gradient is symmetric all the same
    "not_symmetric": lambda lib: (lambda x: grads(lib, (lambda w, v: w.pow(2).sum() + (
        v * v * lib.arange(3.0, dtype=lib.float64)).sum())(*lib.linalg.eigh(x)), x))(
        randn(lib, 3, 3)),
    "upper_batch": lambda lib: (lambda x: grads(lib, (lambda w, v: w.sum() + (
        v.pow(2) * lib.arange(4.0, dtype=lib.float64)).sum())(*lib.linalg.eigh(x, UPLO="U")), x))(
        randn(lib, 2, 4, 4)),
}


@pytest.mark.parametrize("case", sorted(EIGH_GRADS))
def test_eigh_gradients_match_torch(case):
    same(EIGH_GRADS[case])


DOUBLE = {
    "svdvals": lambda lib, x: lib.linalg.svdvals(x),
    "svd_wide": lambda lib, x: _gauge_free(lib, x[..., :2, :], False),
    "svd_tall_full": lambda lib, x: _gauge_free(lib, x[..., :2], True),
    "nuclear_norm": lambda lib, x: lib.linalg.matrix_norm(x, "nuc"),
    "qr": lambda lib, x: (lambda q, r: q.pow(3).sum() + r.pow(2).sum())(*lib.linalg.qr(x)),
    "eigh": lambda lib, x: (lambda w, v: w.pow(3).sum() + (v.pow(2) * lib.arange(
        3.0, dtype=x.dtype)).sum())(*lib.linalg.eigh(x + x.mT)),
    "pinv_wide": lambda lib, x: lib.linalg.pinv(x[..., :2, :]),
    "pinv_hermitian": lambda lib, x: lib.linalg.pinv(x @ x.mT + 3 * lib.eye(3, dtype=x.dtype),
                                                     hermitian=True),
    "matrix_exp": lambda lib, x: lib.linalg.matrix_exp(x * 2),
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    data = np.random.default_rng(3).standard_normal((3, 3))
    same(double_backward(DOUBLE[case], data))


def test_legacy_qr_warns_as_torch_and_svd_returns_v(torch):
    with pytest.warns(UserWarning, match="gradtrack.qr is deprecated in favor of "
                                         "gradtrack.linalg.qr"):
        gradtrack.qr(gradtrack.eye(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda lib: lib.qr(randn(lib, 4, 3), some=False))
        same(lambda lib: randn(lib, 3, 4).qr())
    same(lambda lib: (lambda r: (r.V.grad_fn.__class__.__name__, r.S))(
        lib.svd(randn(lib, 4, 3).requires_grad_())))
    same(lambda lib: randn(lib, 3, 3).svd(compute_uv=False).S)


def test_named_results_print_as_torch(torch):
    a = [[2.0, 1.0], [1.0, 3.0]]
    for fn in (lambda lib: lib.linalg.svd(lib.tensor(a)), lambda lib: lib.svd(lib.tensor(a)),
               lambda lib: lib.linalg.qr(lib.tensor(a)), lambda lib: lib.linalg.eigh(lib.tensor(a))):
        ours, theirs = fn(gradtrack), fn(torch)
        assert type(ours).__name__ == type(theirs).__name__
        assert repr(ours) == repr(theirs).replace("torch", "gradtrack")
    r = gradtrack.linalg.eigh(gradtrack.tensor(a))
    assert r.eigenvalues is r[0] and r.eigenvectors is r[1]
    assert gradtrack.linalg.qr(gradtrack.tensor(a)).R is not None


OUT = {
    "svd": lambda lib, a: lib.linalg.svd(a, out=(lib.empty(0), lib.empty(0), lib.empty(0))),
    "svdvals": lambda lib, a: lib.linalg.svdvals(a, out=lib.empty(0)),
    "torch_svd": lambda lib, a: lib.svd(a, out=(lib.empty(0), lib.empty(0), lib.empty(0))),
    "qr": lambda lib, a: lib.linalg.qr(a, out=(lib.empty(0), lib.empty(0))),
    "eigh": lambda lib, a: lib.linalg.eigh(a @ a.mT, out=(lib.empty(0), lib.empty(0))),
    "eigvalsh": lambda lib, a: lib.linalg.eigvalsh(a @ a.mT, out=lib.empty(0)),
    "matrix_rank": lambda lib, a: lib.linalg.matrix_rank(a, out=lib.empty(0, dtype=lib.int64)),
    "cond": lambda lib, a: lib.linalg.cond(a, out=lib.empty(0)),
    "multi_dot": lambda lib, a: lib.linalg.multi_dot([a, a, a], out=lib.empty(0)),
    "pinv": lambda lib, a: lib.linalg.pinv(a, out=lib.empty(0)),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    def run(lib):
        r = OUT[case](lib, lib.tensor([[3.0, 1.0], [1.0, 2.0]]))
        parts = r if isinstance(r, tuple) else (r,)
        return [(tuple(p.shape), np.round(np.abs(p.numpy()), 4).tolist()) for p in parts]
    same(run)


@pytest.mark.parametrize("scale", [0.01, 0.4, 3.0, 50.0])
@pytest.mark.parametrize("n", [1, 7, 64])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp_matches_torch_across_norms(torch, scale, n, dtype):
    # No squaring below the dtype's threshold, several above (NOTE [Scaling for the
    # exponential's Taylor polynomial]); a batch of two, one of them symmetric, whose
    # exponential is known from its eigenvalues in float64.
    rng = np.random.default_rng(n * 10 + int(scale * 100))
    a = rng.standard_normal((2, n, n)) * scale / np.sqrt(n)
    a[1] = (a[1] + a[1].T) / 2
    a = a.astype(dtype)
    ours = gradtrack.linalg.matrix_exp(gradtrack.tensor(a)).numpy().astype(np.float64)
    theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy().astype(np.float64)
    w, v = np.linalg.eigh(a[1].astype(np.float64))
    exact = (v * np.exp(w)) @ v.T
    eps = np.finfo(dtype).eps
    size = np.abs(exact).max()
    assert np.abs(ours[1] - exact).max() <= max(4 * np.abs(theirs[1] - exact).max(), 64 * n * eps * size)
    assert np.abs(ours - theirs).max() <= 1e3 * n * eps * np.abs(theirs).max()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp_scales_each_matrix_of_a_batch_alone(dtype):
    # Norms from 2^-12 to 2^6 times a unit matrix's: each matrix is scaled and squared
    # as often as its own norm needs, so it comes out as it does alone.
    rng = np.random.default_rng(11)
    a = rng.standard_normal((5, 24, 24)) / np.sqrt(24)
    a *= np.array([2.0**-12, 2.0**-4, 1.0, 2.0**3, 2.0**6]).reshape(5, 1, 1)
    a = a.astype(dtype)
    batch = gradtrack.linalg.matrix_exp(gradtrack.tensor(a)).numpy()
    eps = np.finfo(dtype).eps
    for i in range(5):
        alone = gradtrack.linalg.matrix_exp(gradtrack.tensor(a[i])).numpy()
        np.testing.assert_allclose(batch[i], alone, rtol=0, atol=64 * eps * np.abs(alone).max())
        # Against float64's exponential: the smallest matrices no further off than a
        # few roundings of their (near-identity) result.
        ref = gradtrack.linalg.matrix_exp(gradtrack.tensor(a[i].astype(np.float64))).numpy()
        err = np.abs(batch[i] - ref).max() / np.abs(ref).max()
        assert err <= (64 if i < 2 else 2048) * eps


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(64, 64), (130, 97), (97, 130), (256, 256), (2, 260, 260)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocked_qr_matches_torch(torch, threads, shape, mode, dtype):
    # From two blocks of 32 reflectors the factorization and Q are blocked to the end,
    # and from 2^24 multiply-adds split over two threads (NOTE [Blocked Householder QR
    # over two threads]): the same reflectors as LAPACK's, so torch's Q and R to
    # rounding, Q orthonormal and Q R = A.
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    before = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        q, r = gradtrack.linalg.qr(gradtrack.tensor(a), mode=mode)
    finally:
        gradtrack.set_num_threads(before)
    tq, tr = torch.linalg.qr(torch.tensor(a), mode=mode)
    tol = 2e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(r.numpy(), tr.numpy(), rtol=0, atol=tol * np.abs(a).max() * 10)
    if mode == "r":
        assert q.numel() == 0
        return
    np.testing.assert_allclose(q.numpy(), tq.numpy(), rtol=0, atol=tol)
    qn, rn = q.numpy().astype(np.float64), r.numpy().astype(np.float64)
    eye = np.eye(qn.shape[-1])
    assert np.abs(np.swapaxes(qn, -2, -1) @ qn - eye).max() <= tol
    assert np.abs(qn @ rn - a).max() <= tol * np.abs(a).max() * 10
