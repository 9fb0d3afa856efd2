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


def _assert_float32_sums_rounded_once(got, a, b):
    """Within one rounding to bfloat16 (half a spacing) plus the error of
    float32 sums of k terms, of the float64 product of the same values."""
    a64, b64 = a.double().numpy(), b.double().numpy()
    ref = a64 @ b64
    k = a64.shape[-1]
    bound = 0.5 + k * 2.0**-24 * np.abs(a64) @ np.abs(b64) / (np.maximum(np.abs(ref), 1e-30) * 2.0**-7)
    assert np.all(_ulps(got, ref) <= bound + 1e-6)


SHAPES = [(1, 1, 1), (1, 5, 3), (31, 33, 17), (32, 32, 32), (33, 70, 65), (64, 1000, 130), (257, 31, 96)]


@pytest.mark.parametrize("m,k,n", SHAPES, ids=lambda v: str(v))
def test_products_are_float32_sums_rounded_once(m, k, n):
    a, b = _bf16((m, k), 0), _bf16((k, n), 1)
    assert _bench.use_amx_bf16()
    got = (a @ b).float().numpy()
    _assert_float32_sums_rounded_once(got, a, b)
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


# Shapes whose bfloat16 result is rounded as it leaves the tiles: whole blocks,
# edges, more than one chunk of 512 columns, and more than 1024 depths (sums
# carried between depth blocks); depths of whole tiles read a straight from
# memory, with a last, partial row block packed.
ROUNDED = [(32, 64, 32), (70, 33, 45), (64, 1100, 96), (40, 2100, 600), (96, 64, 1030), (100, 64, 1100), (33, 1056, 70)]


@pytest.mark.parametrize("m,k,n", ROUNDED, ids=lambda v: str(v))
def test_rounded_results_are_float32_sums_rounded_once(m, k, n):
    a, b = _bf16((m, k), 13), _bf16((k, n), 14)
    got = (a @ b).float().numpy()
    _assert_float32_sums_rounded_once(got, a, b)
    # The widened path sums the same products in float32 in another order, so
    # a few results differ from it by a bfloat16 step.
    with _Widened():
        wide = (a @ b).float().numpy()
    assert np.mean(got == wide) >= 0.99


def test_rounding_is_to_nearest_even_with_torchs_nan():
    # Single-depth products, so the float32 sum is exact and only the rounding
    # is tested: ties, values just past them, overflow, NaN, inf. (Not
    # subnormals: the tile multiply reads and writes them as zero.)
    x = np.array([1.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 1.0 + 2.0**-8 + 2.0**-20, 2.0**-100,
                  3.0e38, -(1.0 + 2.0**-8), np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0**-140, 65504.0,
                  1.0 + 2.0**-9, -3.0], dtype=np.float32)
    scale = np.array([1.0, 1.0 + 2.0**-7, 2.0, 1.5, 2.0**-7], dtype=np.float32)
    a = gt.tensor(x.reshape(-1, 1)).bfloat16()
    b = gt.tensor(scale.reshape(1, -1)).bfloat16()
    got = (a @ b).view(gt.int16).numpy()
    with _Widened():
        wide = (a @ b).view(gt.int16).numpy()
    np.testing.assert_array_equal(got, wide)
    nan = np.isnan((a @ b).float().numpy())
    assert np.all(got[nan] == 0x7FC0)


def test_rounded_batches_and_strided_outputs():
    a, b = _bf16((3, 40, 70), 15), _bf16((3, 70, 50), 16)
    got = gt.bmm(a, b).float().numpy()
    with _Widened():
        wide = gt.bmm(a, b).float().numpy()
    assert np.all(_ulps(got, wide) <= 1.0 + 1e-6)
    # An out= whose columns are not adjacent takes the float32 copy and is the same.
    out = gt.zeros(3, 50, 40, dtype=gt.bfloat16).transpose(1, 2)
    gt.bmm(a, b, out=out)
    np.testing.assert_array_equal(out.float().numpy(), gt.bmm(a, b).float().numpy())


@pytest.mark.parametrize("m,k,n", [(100, 64, 1100), (33, 1056, 70), (64, 96, 40)], ids=lambda v: str(v))
def test_a_read_in_place_or_packed_gives_the_same_bits(m, k, n):
    # NOTE [AMX tiles straight from a]: a contiguous a with whole tiles of
    # depth is read where it lies; views whose rows start off a 64-byte line,
    # or run across the depth with a stride, are packed first. Same sums.
    big, b = _bf16((m + 1, k + 32), 21), _bf16((k, n), 22)
    views = {"on lines": big[1:, 32:], "off a line": big[1:, 1 : k + 1], "transposed": big[1:, 32:].T.contiguous().T}
    for name, a in views.items():
        got = (a @ b).view(gt.int16).numpy()
        np.testing.assert_array_equal(got, (a.contiguous() @ b).view(gt.int16).numpy(), err_msg=name)


def test_rounded_result_into_an_operand():
    # out= sharing memory with an operand goes through the float32 copy, as
    # before, so the operand is read whole before it is written.
    a, b = _bf16((48, 48), 17), _bf16((48, 48), 18)
    expected = (a @ b).float().numpy()
    gt.matmul(a, b, out=a)
    np.testing.assert_array_equal(a.float().numpy(), expected)
    b2 = _bf16((48, 48), 18)
    gt.matmul(_bf16((48, 48), 17), b2, out=b2)
    np.testing.assert_array_equal(b2.float().numpy(), expected)


def test_square_products_equal_torchs(torch):
    for n in (256, 1024):
        a, b = _bf16((n, n), 19), _bf16((n, n), 20)
        ta, tb = torch.tensor(a.float().numpy()).bfloat16(), torch.tensor(b.float().numpy()).bfloat16()
        got = (a @ b).view(gt.int16).numpy()
        theirs = (ta @ tb).view(torch.int16).numpy()
        assert np.mean(got == theirs) >= 0.999
