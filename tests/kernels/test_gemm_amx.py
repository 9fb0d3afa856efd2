"""bfloat16 products on AMX tiles (NOTE [AMX bfloat16 products] in
csrc/kernels/gemm_amx.cpp): against a float64 product of the same bfloat16 values,
against the widened float32 path they replace, and against torch, on edges,
strides, batches, accumulation and gradients."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack._C import _bench

pytestmark = pytest.mark.skipif(not _bench.amx_bf16_available(), reason="this CPU has no AMX-BF16")


class _Widened:
    """The float32 path, for comparison, restored on exit."""

    def __enter__(self):
        _bench.set_amx_bf16(False)

    def __exit__(self, *exc):
        _bench.set_amx_bf16(True)


def _bf16(shape, seed):
    return gt.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32)).bfloat16()


def _ulps(got, ref):
    """|got - ref| in units of bfloat16's spacing at ref (2^-7 relative)."""
    scale = np.maximum(np.abs(ref), 1e-30)
    return np.abs(got - ref) / (scale * 2.0**-7)


SHAPES = [(1, 1, 1), (1, 5, 3), (31, 33, 17), (32, 32, 32), (33, 70, 65), (64, 1000, 130), (257, 31, 96)]


@pytest.mark.parametrize("m,k,n", SHAPES, ids=lambda v: str(v))
def test_products_are_float32_sums_rounded_once(m, k, n):
    a, b = _bf16((m, k), 0), _bf16((k, n), 1)
    assert _bench.use_amx_bf16()
    got = (a @ b).float().numpy()
    ref = a.double().numpy() @ b.double().numpy()
    # one rounding to bfloat16 (half a spacing) plus float32 sums of k terms
    bound = 0.5 + k * 2.0**-24 * np.abs(a.double().numpy()) @ np.abs(b.double().numpy()) / (
        np.maximum(np.abs(ref), 1e-30) * 2.0**-7
    )
    assert np.all(_ulps(got, ref) <= bound + 1e-6)
    with _Widened():
        wide = (a @ b).float().numpy()
    assert np.mean(got == wide) >= 0.99
    assert np.all(_ulps(got, wide) <= 1.0 + 1e-6)


def test_strided_operands_and_batches():
    a, b = _bf16((3, 40, 70), 2), _bf16((3, 50, 40), 3)
    cases = {
        "a.T": lambda: a.transpose(1, 2) @ b.transpose(1, 2)[:, :40, :],
        "sliced": lambda: a[:, ::2, 1:33] @ b[:, 3:35, ::3],
        "bmm": lambda: gt.bmm(a[:, :, :50], b),
    }
    for name, f in cases.items():
        got = f().float().numpy()
        with _Widened():
            wide = f().float().numpy()
        assert np.all(_ulps(got, wide) <= 1.0 + 1e-6), name


def test_accumulating_products_round_once():
    bias, a, b = _bf16((48, 40), 4), _bf16((48, 96), 5), _bf16((96, 40), 6)
    got = gt.addmm(bias, a, b).float().numpy()
    ref = bias.double().numpy() + a.double().numpy() @ b.double().numpy()
    assert np.all(_ulps(got, ref) <= 0.5 + 0.05)
    with _Widened():
        wide = gt.addmm(bias, a, b).float().numpy()
    assert np.mean(got == wide) >= 0.99


def test_gradients_of_bfloat16_products():
    a = _bf16((40, 64), 7).requires_grad_(True)
    b = _bf16((64, 24), 8).requires_grad_(True)
    (a @ b).sum().backward()
    assert a.grad.dtype == gt.bfloat16 and b.grad.dtype == gt.bfloat16
    ones = np.ones((40, 24))
    np.testing.assert_allclose(a.grad.double().numpy(), ones @ b.detach().double().numpy().T, rtol=2**-7)
    np.testing.assert_allclose(b.grad.double().numpy(), a.detach().double().numpy().T @ ones, rtol=2**-7)


def test_matches_torch(torch):
    for m, k, n in [(64, 1000, 130), (257, 31, 96), (128, 512, 128)]:
        a, b = _bf16((m, k), 9), _bf16((k, n), 10)
        ta, tb = torch.tensor(a.float().numpy()).bfloat16(), torch.tensor(b.float().numpy()).bfloat16()
        got = (a @ b).float().numpy()
        theirs = (ta @ tb).float().numpy()
        assert np.mean(got == theirs) >= 0.99
        assert np.all(_ulps(got, theirs) <= 1.0 + 1e-6)


def test_float16_and_mixed_dtypes_keep_the_widened_path():
    a, b = _bf16((32, 32), 11), _bf16((32, 32), 12)
    half = (a.half() @ b.half()).float().numpy()
    ref = a.half().double().numpy() @ b.half().double().numpy()
    np.testing.assert_allclose(half, ref, rtol=2**-10, atol=1e-3)
    with pytest.raises(RuntimeError):
        a @ b.float()


def test_switch_reads_back():
    assert _bench.use_amx_bf16()
    with _Widened():
        assert not _bench.use_amx_bf16()
    assert _bench.use_amx_bf16()
