"""A sum over a middle dim (``x.mean(1)`` of a (B, T, D) sequence) in torch's order, bit
for bit: each of the B slices summed as one (T, D) block's columns (NOTE [PyTorch's
summation order] in csrc/kernels/cascade_sum.cpp), on one thread or two."""

import numpy as np
import pytest

import gradtrack

CASES = [((8, 37, 16), 1), ((4, 5, 3), 1), ((64, 10, 32), 1), ((3, 100, 100), 1),
         ((3, 4, 5, 6), 2), ((3, 4, 5, 6), 1), ((2, 3, 4, 5, 6), 2), ((16, 128, 64), 1),
         ((4, 1000, 30), 1), ((2, 70000, 2), 1)]


def _sums(lib, shape, dim, dtype):
    x = lib.tensor(np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype))
    return [getattr(x, op)(dim).numpy() for op in ("sum", "mean", "nansum")] + [
        x.sum(dim, keepdim=True).numpy()]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", CASES)
def test_middle_dim_sum_bit_for_bit(torch, shape, dim, dtype, threads):
    old = (gradtrack.get_num_threads(), torch.get_num_threads())
    gradtrack.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        for got, want in zip(_sums(gradtrack, shape, dim, dtype), _sums(torch, shape, dim, dtype)):
            assert np.array_equal(got, want)
    finally:
        gradtrack.set_num_threads(old[0])
        torch.set_num_threads(old[1])


def test_a_short_middle_dim_adds_in_order():
    """Three rows: ((a + b) + c), each column on its own (without torch)."""
    v = np.array([-1.5255959, -0.10016718, 0.43914157], np.float32)
    x = gradtrack.tensor(np.repeat(v[None, :, None], 4, axis=2).repeat(2, axis=0))
    want = np.float32(np.float32(v[0] + v[1]) + v[2])
    assert (x.sum(1).numpy() == want).all()
