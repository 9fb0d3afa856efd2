"""interpolate and the reflection and replication pads round as torch's CPU kernels, bit
for bit: linear, trilinear and bicubic resizes nest their taps as torch's generic kernel
(NOTE [Resampled in torch's nesting] in csrc/kernels/resample.cpp), or sum trilinear's
corners as its channels-last kernel (bilinear has tests/nn/test_bilinear_as_torch.py),
and every gradient is summed as torch's backward
kernels sum it (NOTE [Resampling gradients summed as torch's]): plane by plane in output
order, the weights multiplied from the first dim, bicubic's in its own order and unfused.
"""

import numpy as np
import pytest

import gradtrack as gt

# (mode, input shape, interpolate's size arguments): up and down, fractional scales, a dim
# left unchanged, borders where both taps are one pixel.
RESIZES = [
    ("nearest", (2, 3, 7, 9), {"size": (13, 18)}),
    ("nearest", (2, 3, 9), {"scale_factor": 0.6}),
    ("nearest", (1, 2, 5, 6, 7), {"size": (9, 4, 11)}),
    ("nearest-exact", (2, 3, 7, 9), {"size": (13, 5)}),
    ("linear", (2, 3, 11), {"size": (23,)}),
    ("linear", (2, 3, 11), {"size": (4,)}),
    ("bilinear", (2, 3, 7, 9), {"size": (13, 5)}),
    ("bilinear", (1, 5, 16, 16), {"scale_factor": 2}),
    ("bilinear", (1, 4, 33, 17), {"size": (8, 40)}),
    ("bilinear", (1, 2, 8, 8), {"size": (8, 19)}),
    ("bicubic", (2, 3, 7, 9), {"size": (13, 5)}),
    ("bicubic", (1, 4, 10, 12), {"scale_factor": 1.7}),
    ("trilinear", (1, 2, 5, 6, 7), {"size": (9, 4, 11)}),
    ("trilinear", (2, 5, 4, 4, 4), {"scale_factor": 2}),
    ("trilinear", (1, 11, 3, 5, 4), {"size": (7, 4, 9)}),
]
PADS = [
    ("reflect", (2, 3, 9), (3, 4)),
    ("reflect", (2, 3, 7, 9), (2, 3, 1, 4)),
    ("replicate", (2, 3, 7, 9), (2, 3, 1, 4)),
    ("replicate", (1, 2, 4, 5, 6), (1, 2, 3, 1, 2, 2)),
    ("reflect", (1, 3, 4, 5, 6), (2, 1, 0, 3, 1, 2)),
]


def _grad(lib, x, gy, fn, channels_last):
    t = lib.tensor(x)
    if channels_last:
        t = t.contiguous(memory_format=lib.channels_last if x.ndim == 4 else lib.channels_last_3d)
    t.requires_grad_(True)
    fn(lib, t).backward(lib.tensor(gy))
    return t.grad.numpy()


def _cases():
    for i, (mode, shape, size) in enumerate(RESIZES):
        corners = (None,) if mode.startswith("nearest") else (False, True)
        for align_corners in corners:
            kw = {} if align_corners is None else {"align_corners": align_corners}
            yield (f"{mode}-{i}-{align_corners}", shape,
                   lambda lib, t, size=size, mode=mode, kw=kw:
                   lib.nn.functional.interpolate(t, mode=mode, **kw, **size))
    for i, (mode, shape, pad) in enumerate(PADS):
        yield (f"pad-{mode}-{i}", shape,
               lambda lib, t, pad=pad, mode=mode: lib.nn.functional.pad(t, pad, mode=mode))


CASES = list(_cases())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_gradient_equals_torch_bit_for_bit(torch, threads, dtype, case):
    _, shape, fn = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal(shape).astype(dtype)
    out_shape = tuple(fn(torch, torch.tensor(x)).shape)
    gy = rng.standard_normal(out_shape).astype(dtype)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        layouts = (False, True) if len(shape) >= 4 else (False,)
        for channels_last in layouts:
            want = _grad(torch, x, gy, fn, channels_last)
            got = _grad(gt, x, gy, fn, channels_last)
            assert np.array_equal(got, want), channels_last
    finally:
        torch.set_num_threads(before)


# the modes whose forward rounds as torch's: its generic kernel's nesting, and for trilinear
# on channels-last inputs of more than 3 channels its channels-last kernel
NESTED = [i for i, (mode, _, _) in enumerate(RESIZES) if mode in ("linear", "bicubic", "trilinear")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("resize", NESTED, ids=[f"{RESIZES[i][0]}-{i}" for i in NESTED])
def test_forward_equals_torch_bit_for_bit(torch, threads, dtype, resize):
    mode, shape, size = RESIZES[resize]
    x = np.random.default_rng(resize).standard_normal(shape).astype(dtype)
    for align_corners in (False, True):
        layouts = (False, True) if len(shape) >= 4 else (False,)
        for channels_last in layouts:
            tx, gx = torch.tensor(x), gt.tensor(x)
            if channels_last:
                tx = tx.contiguous(memory_format=torch.channels_last if x.ndim == 4 else torch.channels_last_3d)
                gx = gx.contiguous(memory_format=gt.channels_last if x.ndim == 4 else gt.channels_last_3d)
            want = torch.nn.functional.interpolate(tx, mode=mode, align_corners=align_corners, **size).numpy()
            got = gt.nn.functional.interpolate(gx, mode=mode, align_corners=align_corners, **size).numpy()
            assert np.array_equal(got, want), (align_corners, channels_last)


@pytest.mark.parametrize("resize", NESTED, ids=[f"{RESIZES[i][0]}-{i}" for i in NESTED])
def test_forward_stays_near_float64(resize):
    # Without torch: the float32 resize within a few float32 units of its float64 one (16:
    # bicubic's float32 weights cancel), and a constant image stays constant to 8 units
    # (the weights of each output sum to 1).
    mode, shape, size = RESIZES[resize]
    x = np.random.default_rng(7).standard_normal(shape)
    f = gt.nn.functional.interpolate
    got = f(gt.tensor(x.astype(np.float32)), mode=mode, **size).numpy()
    ref = f(gt.tensor(x), mode=mode, **size).numpy()
    assert np.abs(got - ref).max() <= 16 * np.finfo(np.float32).eps * max(1.0, np.abs(ref).max())
    ones = f(gt.ones(shape, dtype=gt.float32), mode=mode, **size).numpy()
    assert np.abs(ones - 1).max() <= 8 * np.finfo(np.float32).eps


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_gradient_is_the_adjoint(case):
    # Without torch: <f(x), gy> = <x, grad> for these linear maps, in float64 to 1e-12.
    _, shape, fn = CASES[case]
    rng = np.random.default_rng(100 + case)
    x = rng.standard_normal(shape)
    y = fn(gt, gt.tensor(x)).numpy()
    gy = rng.standard_normal(y.shape)
    grad = _grad(gt, x, gy, fn, False)
    assert grad.shape == x.shape
    lhs, rhs = float(np.sum(y * gy)), float(np.sum(x * grad))
    assert abs(lhs - rhs) <= 1e-12 * max(1.0, abs(lhs))


# (mode, input shape, size): resizes torch runs with its generic kernel on float16/bfloat16
# inputs (bilinear: an output of more than 128 pixels a side, channels-first)
REDUCED = [
    ("linear", (2, 3, 40), (97,)),
    ("bilinear", (1, 3, 70, 90), (130, 150)),
    ("bilinear", (2, 1, 40, 90), (100, 33)),
    ("bicubic", (1, 2, 30, 40), (61, 83)),
    ("trilinear", (1, 2, 5, 6, 7), (9, 4, 11)),
]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("resize", range(len(REDUCED)), ids=[r[0] for r in REDUCED])
def test_reduced_float_forward_equals_torch(torch, dtype, resize):
    # torch stores the weights in the reduced type and computes in float32
    # (on two threads each: with 3 channels torch's choice of kernel depends on the count)
    mode, shape, size = REDUCED[resize]
    x = np.random.default_rng(resize).standard_normal(shape).astype(np.float32)
    before = torch.get_num_threads(), gt.get_num_threads()
    torch.set_num_threads(2)
    gt.set_num_threads(2)
    try:
        for align_corners in (False, True):
            got, want = (lib.nn.functional.interpolate(
                lib.tensor(x).to(getattr(lib, dtype)), size=size, mode=mode,
                align_corners=align_corners).float().numpy() for lib in (gt, torch))
            assert np.array_equal(got, want), align_corners
    finally:
        torch.set_num_threads(before[0])
        gt.set_num_threads(before[1])


def test_reduced_float_gradient_rounds_once(torch):
    # bfloat16 gradients are summed in float32 and rounded once at the end, as torch's.
    x = np.random.default_rng(5).standard_normal((1, 3, 6, 7)).astype(np.float32)
    gy = np.random.default_rng(6).standard_normal((1, 3, 11, 13)).astype(np.float32)
    grads = []
    for lib in (torch, gt):
        t = lib.tensor(x).to(lib.bfloat16).requires_grad_(True)
        y = lib.nn.functional.interpolate(t, size=(11, 13), mode="bilinear")
        y.backward(lib.tensor(gy).to(lib.bfloat16))
        grads.append(t.grad.float().numpy())
    assert np.array_equal(grads[1], grads[0])
