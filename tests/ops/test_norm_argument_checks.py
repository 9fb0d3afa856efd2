"""The vector and matrix norms' checks against torch 2.13: ``dtype=`` (floating, real,
not narrowing), the orders without an identity (negative, ``inf``) refused on an empty
reduction with torch's words through every entry (linalg.vector_norm, linalg.norm,
torch.norm, Tensor.norm, torch.dist), and the matrix norms of empty matrices."""

import pytest

from helpers import same

INF = float("inf")


@pytest.mark.parametrize("dtype, source", [
    ("long", "float32"), ("bool", "float32"), ("uint8", "float32"), ("complex64", "float32"),
    ("complex128", "float32"), ("float32", "float64"), ("float16", "float32"),
    ("bfloat16", "float16"), ("float64", "float32"), ("float32", "int64")])
@pytest.mark.parametrize("fn", ["vector_norm", "matrix_norm", "norm", "norm_ord1"])
def test_norm_dtype_checks(fn, dtype, source):
    def scenario(lib):
        a = lib.arange(12).reshape(3, 4).to(getattr(lib, source))
        want = getattr(lib, dtype)
        if fn == "norm_ord1":
            return lib.linalg.norm(a, ord=1, dtype=want)
        return getattr(lib.linalg, fn)(a, dtype=want)
    same(scenario)


@pytest.mark.parametrize("ord", [INF, -INF, -1, -0.5, -2.0, -1 / 3, 0, 1, 2, 0.5])
@pytest.mark.parametrize("shape, dim", [
    ((0,), None), ((0, 3), None), ((0, 3), 0), ((0, 3), 1), ((0, 3), -2), ((0, 3), (0, 1)),
    ((3, 0, 0), (2, 1)), ((3, 0), ()), ((), 0), ((0, 3), 5)])
def test_vector_norm_without_identity_refuses_an_empty_reduction(ord, shape, dim):
    same(lambda lib: lib.linalg.vector_norm(lib.zeros(shape), ord=ord, dim=dim))


@pytest.mark.parametrize("ord", [INF, -INF, -1])
def test_norm_entries_refuse_an_empty_reduction(ord):
    same(lambda lib: lib.dist(lib.zeros(0), lib.zeros(0), p=ord))
    same(lambda lib: lib.dist(lib.zeros(0, 3), lib.zeros(3), p=ord))
    same(lambda lib: lib.norm(lib.zeros(0), p=ord))
    same(lambda lib: lib.norm(lib.zeros(0, 3), p=ord, dim=0))
    same(lambda lib: lib.zeros(0).norm(ord))
    same(lambda lib: lib.linalg.norm(lib.zeros(0), ord=ord))


def test_identity_check_comes_after_the_input_checks():
    same(lambda lib: lib.linalg.vector_norm(lib.zeros(0, 3, dtype=lib.long), ord=INF))
    same(lambda lib: lib.linalg.vector_norm(lib.zeros(0, 3), ord=INF, dtype=lib.long))
    same(lambda lib: lib.linalg.vector_norm(lib.zeros(0, 3, dtype=lib.float64), ord=INF,
                                            dtype=lib.float32))
    same(lambda lib: lib.dist(lib.zeros(0, 3), lib.zeros(2, 3), p=-1))
    same(lambda lib: lib.dist(lib.zeros(0, 3, dtype=lib.long), lib.zeros(3, dtype=lib.long),
                              p=-1))


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, INF, -INF])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 2, 3), (2, 3, 0)])
def test_matrix_norm_of_empty_matrices(shape, ord, keepdim):
    # torch: zeros without a graph where a positive order's maximum is over an empty dim;
    # the negative orders raise amin's error there
    same(lambda lib: lib.linalg.matrix_norm(lib.zeros(shape, requires_grad=True), ord=ord,
                                            keepdim=keepdim))


def test_vector_norm_with_a_wider_dtype_still_computes():
    same(lambda lib: lib.linalg.vector_norm(lib.arange(4.0), dtype=lib.float64))
    same(lambda lib: lib.linalg.matrix_norm(lib.arange(4.0).reshape(2, 2), ord=1,
                                            dtype=lib.float64))
