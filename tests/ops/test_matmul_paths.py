"""Batched and transposed products on each threading path of csrc/kernels/matmul.cpp.

Threads go over the batch when there are many small products or at least two
per thread, and inside each product otherwise; operands that are transposed
views go to BLAS with a transpose flag instead of a copy. Every path must give
torch's numbers.
"""

import numpy as np
import pytest

import gradtrack


@pytest.mark.parametrize("batch", [1, 3, 4, 9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["nn", "tn", "nt"])
def test_bmm_on_every_path_matches_torch(torch, batch, dtype, threads, layout):
    rng = np.random.default_rng(batch)
    a = rng.standard_normal((batch, 70, 90)).astype(dtype)
    b = rng.standard_normal((batch, 90, 80)).astype(dtype)

    def run(lib):
        x, y = lib.from_numpy(a.copy()), lib.from_numpy(b.copy())
        if layout[0] == "t":
            x = x.transpose(1, 2).contiguous().transpose(1, 2)
        if layout[1] == "t":
            y = y.transpose(1, 2).contiguous().transpose(1, 2)
        return lib.bmm(x, y).numpy(), (x @ y).numpy()

    old = gradtrack.get_num_threads()
    gradtrack.set_num_threads(threads)
    try:
        got = run(gradtrack)
    finally:
        gradtrack.set_num_threads(old)
    want = run(torch)
    tol = 1e-4 if dtype == "float32" else 1e-11
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
