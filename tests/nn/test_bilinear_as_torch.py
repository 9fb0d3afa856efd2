"""Bilinear resizing rounds as torch's CPU kernels do, bit for bit (NOTE [Bilinear rounded as
torch's] in csrc/kernels/resample.cpp): the four-corner kernel torch takes for small outputs,
channels-last inputs and 3 channels on one thread, its generic kernel otherwise, the vector
width that splits a corner sum's channels, and the fused multiply-adds of its AVX2 build.
"""

import numpy as np
import pytest

import gradtrack as gt

# (input height, width, interpolate's size arguments): outputs on both sides of torch's
# 128-pixel rule (height + width), up and down, whole and fractional scales, a dim left
# unchanged.
RESIZES = [
    (8, 8, {"scale_factor": 2}),
    (40, 30, {"scale_factor": 2}),
    (33, 47, {"size": (45, 61)}),
    (64, 64, {"scale_factor": 0.5}),
    (20, 20, {"size": (20, 37)}),
    (9, 13, {"scale_factor": 1.7}),
    (50, 70, {"size": (97, 131)}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("channels", [1, 3, 4, 19, 40])
@pytest.mark.parametrize("resize", range(len(RESIZES)), ids=lambda i: "x".join(map(str, RESIZES[i][:2])))
def test_bilinear_forward_equals_torch_bit_for_bit(torch, threads, dtype, channels, resize):
    h, w, size = RESIZES[resize]
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        x = np.random.default_rng(channels * 100 + h).standard_normal((2, channels, h, w)).astype(dtype)
        for align_corners in (False, True):
            for channels_last in (False, True):
                tx, gx = torch.tensor(x), gt.tensor(x)
                if channels_last:
                    tx = tx.contiguous(memory_format=torch.channels_last)
                    gx = gx.contiguous(memory_format=gt.channels_last)
                want = torch.nn.functional.interpolate(tx, mode="bilinear", align_corners=align_corners, **size).numpy()
                got = gt.nn.functional.interpolate(gx, mode="bilinear", align_corners=align_corners, **size).numpy()
                assert np.array_equal(got, want), (align_corners, channels_last)
    finally:
        torch.set_num_threads(before)


def test_bilinear_forward_stays_near_float64():
    # Without torch: float32 weights (source positions rounded in float, as torch's) put
    # the float32 resize within 1e-4 of the float64 one for inputs of size ~1.
    x = np.random.default_rng(1).standard_normal((2, 5, 33, 47)).astype(np.float32)
    for size in ((45, 61), (97, 131), (16, 20)):
        got = gt.nn.functional.interpolate(gt.tensor(x), size=size, mode="bilinear").numpy()
        ref = gt.nn.functional.interpolate(gt.tensor(x.astype(np.float64)), size=size, mode="bilinear").numpy()
        assert np.abs(got - ref).max() <= 1e-4


def test_bilinear_keeps_its_gradient(torch):
    x = np.random.default_rng(2).standard_normal((1, 3, 9, 13))
    gx, tx = gt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    gt.nn.functional.interpolate(gx, size=(20, 31), mode="bilinear").pow(2).sum().backward()
    torch.nn.functional.interpolate(tx, size=(20, 31), mode="bilinear").pow(2).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert gt.nn.functional.interpolate(gx, scale_factor=2, mode="bilinear").grad_fn.name() == (
        "UpsampleBilinear2DBackward0"
    )
