"""The memory layout of torch.linalg's results against torch 2.13 (NOTE [Column-major
results] in csrc/ops/linalg_batch.h): LAPACK-backed results are column-major matrices in
a row-major batch, which ``.stride()``, ``is_contiguous()``, a ``.view()`` that needs
rows (torch raises) and the node of a later reshape all show."""

import pytest

import gradtrack

from helpers import raised


def _inputs(lib):
    lib.manual_seed(0)
    a = lib.randn(4, 4) + lib.eye(4) * 5
    return a, lib.randn(4, 3), a @ a.mT, lib.randn(3, 5), lib.randn(5, 3)


CASES = {
    "inv": lambda lib, a, b, s, w, t: lib.linalg.inv(a),
    "inv_batch": lambda lib, a, b, s, w, t: lib.linalg.inv(a.expand(2, 4, 4)),
    "inv_ex": lambda lib, a, b, s, w, t: lib.linalg.inv_ex(a).inverse,
    "inv_empty_batch": lambda lib, a, b, s, w, t: lib.linalg.inv(a[:0].reshape(0, 4, 4)[:, :3, :3]),
    "solve": lambda lib, a, b, s, w, t: lib.linalg.solve(a, b),
    "solve_batch": lambda lib, a, b, s, w, t: lib.linalg.solve(a, b.expand(2, 4, 3)),
    "solve_vector": lambda lib, a, b, s, w, t: lib.linalg.solve(a, b[:, 0]),
    "solve_vector_batch": lambda lib, a, b, s, w, t: lib.linalg.solve(a.expand(3, 4, 4), b.mT),
    "solve_vector_batches": lambda lib, a, b, s, w, t: lib.linalg.solve(
        a.expand(2, 3, 4, 4), b.mT.expand(2, 3, 4)),
    "solve_one_column": lambda lib, a, b, s, w, t: lib.linalg.solve(a, b[:, :1]),
    "solve_right": lambda lib, a, b, s, w, t: lib.linalg.solve(a, b.mT, left=False),
    "solve_triangular": lambda lib, a, b, s, w, t: lib.linalg.solve_triangular(a.triu(), b, upper=True),
    "solve_triangular_right": lambda lib, a, b, s, w, t: lib.linalg.solve_triangular(a.triu(), b.mT,
                                                                          upper=True, left=False),
    "cholesky": lambda lib, a, b, s, w, t: lib.linalg.cholesky(s),
    "cholesky_upper": lambda lib, a, b, s, w, t: lib.linalg.cholesky(s, upper=True),
    "cholesky_solve": lambda lib, a, b, s, w, t: lib.cholesky_solve(b, lib.linalg.cholesky(s)),
    "lu_factor": lambda lib, a, b, s, w, t: lib.linalg.lu_factor(a).LU,
    "lu_factor_wide": lambda lib, a, b, s, w, t: lib.linalg.lu_factor(w).LU,
    "lu_solve": lambda lib, a, b, s, w, t: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
    "lu_solve_right": lambda lib, a, b, s, w, t: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b.mT, left=False),
    "qr_q": lambda lib, a, b, s, w, t: lib.linalg.qr(t).Q,
    "qr_r": lambda lib, a, b, s, w, t: lib.linalg.qr(t).R,
    "qr_complete_q": lambda lib, a, b, s, w, t: lib.linalg.qr(t, mode="complete").Q,
    "qr_wide_r": lambda lib, a, b, s, w, t: lib.linalg.qr(w).R,
    "svd_u": lambda lib, a, b, s, w, t: lib.linalg.svd(w).U,
    "svd_vh": lambda lib, a, b, s, w, t: lib.linalg.svd(w).Vh,
    "svd_reduced_u": lambda lib, a, b, s, w, t: lib.linalg.svd(t, full_matrices=False).U,
    "eigh": lambda lib, a, b, s, w, t: lib.linalg.eigh(s).eigenvectors,
    "lstsq_square": lambda lib, a, b, s, w, t: lib.linalg.lstsq(a, b).solution,
    "lstsq_wide": lambda lib, a, b, s, w, t: lib.linalg.lstsq(w, b[:3]).solution,
    "lstsq_tall": lambda lib, a, b, s, w, t: lib.linalg.lstsq(t, lib.ones(5, 2)).solution,
    "lstsq_tall_vector": lambda lib, a, b, s, w, t: lib.linalg.lstsq(t, lib.ones(5)).solution,
    "lstsq_tall_batch": lambda lib, a, b, s, w, t: lib.linalg.lstsq(
        t.expand(2, 5, 3), lib.ones(2, 5, 2)).solution,
    "lstsq_tall_vector_batch": lambda lib, a, b, s, w, t: lib.linalg.lstsq(
        t.expand(2, 5, 3), lib.ones(2, 5)).solution,
    "lstsq_wide_vector_batch": lambda lib, a, b, s, w, t: lib.linalg.lstsq(
        w.expand(2, 3, 5), lib.ones(2, 3)).solution,
    "pinv": lambda lib, a, b, s, w, t: lib.linalg.pinv(t),
    "matrix_exp": lambda lib, a, b, s, w, t: lib.linalg.matrix_exp(a / 10),
}


def _layout(lib, name):
    out = CASES[name](lib, *_inputs(lib))
    view = raised(lambda: out.view(-1), lib)
    return (tuple(out.shape), out.stride(), out.is_contiguous(), out._is_view(),
            view and view[0], out.untyped_storage().nbytes())


@pytest.mark.parametrize("name", CASES)
def test_layout_matches_torch(torch, name):
    assert _layout(gradtrack, name) == _layout(torch, name)


def test_reshape_of_an_inverse_records_torchs_node(torch):
    def node(lib):
        a = (lib.eye(6) * 2 + lib.arange(36.0).reshape(6, 6) / 100).requires_grad_()
        return lib.linalg.inv(a).reshape(2, 3, 6).grad_fn.name()
    assert node(gradtrack) == node(torch)


def test_writing_to_a_least_squares_solution_breaks_its_backward(torch):
    """The solution is the tensor the node saved (torch's), so an in-place write to it
    before backward raises rather than giving a gradient for other values."""
    def run(lib):
        a = lib.arange(15.0).reshape(5, 3).sin().requires_grad_()
        x = lib.linalg.lstsq(a, lib.ones(5, 2)).solution
        x.mul_(2)
        x.sum().backward()
    expected, got = raised(lambda: run(torch), torch), raised(lambda: run(gradtrack), gradtrack)
    assert expected[0] == "RuntimeError" and "modified by an inplace operation" in expected[1]
    assert got == expected
