"""MaxPool2d(2)'s branch-free float32 kernel (NOTE [2x2 max pooling on AVX-512] in
csrc/kernels/nn/pool.cpp) against torch: values and indices, NaN and infinities,
ties, widths that leave a short last block of 16 outputs, odd sizes whose last row
or column no window reads, and the gradient through the indices."""

import numpy as np
import pytest

import gradtrack

SHAPES = [(2, 3, 28, 28), (1, 1, 2, 2), (1, 2, 5, 7), (3, 1, 9, 33), (1, 4, 14, 64),
          (2, 2, 6, 66), (1, 1, 64, 100)]


def _input(shape, seed, special):
    g = np.random.default_rng(seed)
    x = g.standard_normal(shape).astype(np.float32)
    if special:
        flat = x.reshape(-1)
        picks = g.choice(flat.size, size=max(1, flat.size // 5), replace=False)
        kinds = np.array([np.nan, np.inf, -np.inf, 0.5, 0.5], dtype=np.float32)
        flat[picks] = kinds[g.integers(0, kinds.size, picks.size)]
        x = np.round(x, 1)  # ties within windows
    return x


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("special", [False, True], ids=["normal", "nan_inf_ties"])
def test_values_indices_and_gradient_match_torch(torch, threads, shape, special):
    x = _input(shape, sum(shape), special)
    got, got_i = gradtrack.nn.functional.max_pool2d(gradtrack.tensor(x), 2, return_indices=True)
    want, want_i = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True)
    assert np.array_equal(got_i.numpy(), want_i.numpy())
    xg = gradtrack.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    gy = np.random.default_rng(1).standard_normal(want.shape).astype(np.float32)
    (gradtrack.nn.functional.max_pool2d(xg, 2) * gradtrack.tensor(gy)).sum().backward()
    (torch.nn.functional.max_pool2d(xt, 2) * torch.tensor(gy)).sum().backward()
    assert np.array_equal(xg.grad.numpy(), xt.grad.numpy())


def test_a_non_contiguous_input_and_ceil_mode_take_the_general_path(torch):
    x = _input((2, 3, 10, 12), 5, True)
    for kwargs in ({"ceil_mode": True}, {"stride": 1}, {"padding": 1}):
        got = gradtrack.nn.functional.max_pool2d(gradtrack.tensor(x), 2, **kwargs)
        want = torch.nn.functional.max_pool2d(torch.tensor(x), 2, **kwargs)
        assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True)
    xt = gradtrack.tensor(x).transpose(2, 3)
    got = gradtrack.nn.functional.max_pool2d(xt, 2)
    want = torch.nn.functional.max_pool2d(torch.tensor(x).transpose(2, 3), 2)
    assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True)
