"""The AVX2 convolution forward without an im2col matrix (NOTE [Implicit im2col on
AVX2] in csrc/kernels/conv_implicit_avx2.cpp), against torch and against the
im2col path, on any CPU with AVX2 and FMA (our AVX-512 GEMM switched off)."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack._C import _bench

from conv_stride1 import STRIDE1_GEOMETRIES, check_stride1_conv, geometry_id

pytestmark = pytest.mark.skipif(not _bench.conv_implicit_avx2_available(), reason="this CPU has no AVX2 with FMA")

NEVER, WHERE_WINS, ALWAYS = 0, 1, 2


def _intel():
    with open("/proc/cpuinfo") as f:
        return "GenuineIntel" in f.read()


def _default_mode():
    """Off beside our AVX-512 GEMM, except on a Zen 4 and on Intel (NOTE [Weight gradient
    on Zen 4], NOTE [Weight gradient on Intel])."""
    off = _bench.gemm_avx512_available() and not _bench.avx512_in_halves() and not _intel()
    return NEVER if off else WHERE_WINS


def test_zen4_is_told_by_its_family():
    with open("/proc/cpuinfo") as f:
        info = f.read()
    amd = "AuthenticAMD" in info
    family = int(info.split("cpu family")[1].split(":")[1].split()[0]) if amd else 0
    assert _bench.avx512_in_halves() == (amd and family == 25 and " avx512f" in info)


class _Mode:
    """Our AVX-512 GEMM off and the AVX2 kernel in `mode`, restored on exit."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.saved = _bench.use_gemm_avx512(), _bench.conv_implicit_avx2_mode()
        _bench.set_gemm_avx512(False)
        _bench.set_conv_implicit_avx2_mode(self.mode)

    def __exit__(self, *exc):
        _bench.set_gemm_avx512(self.saved[0])
        _bench.set_conv_implicit_avx2_mode(self.saved[1])


@pytest.fixture(params=[ALWAYS, NEVER], ids=["implicit", "im2col"])
def mode(request):
    with _Mode(request.param):
        yield request.param


@pytest.mark.parametrize("geom", STRIDE1_GEOMETRIES, ids=geometry_id)
def test_stride1_conv_matches_torch(torch, mode, threads, geom):
    assert _bench.conv_implicit_avx2_mode() == mode
    check_stride1_conv(torch, geom)


def test_default_mode_and_refusal():
    assert _bench.conv_implicit_avx2_mode() == _default_mode()
    with pytest.raises(RuntimeError, match="mode must be 0, 1 or 2"):
        _bench.set_conv_implicit_avx2_mode(3)
    assert _bench.conv_implicit_avx2_mode() == _default_mode()


@pytest.mark.parametrize(
    "oc, oh, ow, k, wins",
    [
        (64, 32, 32, 576, True),  # the benchmark layer: two full tiles per row
        (64, 224, 224, 27, True),  # 14 full tiles
        (16, 64, 64, 144, True),
        (64, 16, 100, 192, True),  # 112 lanes for 100 columns: 1/8 wasted at most
        (64, 8, 8, 576, False),  # half of each tile empty
        (128, 28, 28, 1152, False),  # 32 lanes for 28 columns
        (256, 14, 14, 2304, False),
        (4, 4, 16, 9, False),  # below 2^21 multiply-adds
    ],
)
def test_where_it_runs(oc, oh, ow, k, wins):
    assert _bench.implicit_avx2_wins(oc, oh, ow, k) is wins


def test_paths_agree_and_read_nothing_past_the_image():
    # The image is the middle of a buffer of NaNs: a read before its start or past its
    # end would turn an output NaN. Output width 20 leaves a 4-column tile.
    x = np.random.default_rng(0).standard_normal((1, 32, 20, 20)).astype(np.float32)
    big = np.full(x.size + 64, np.nan, dtype=np.float32)
    big[32 : 32 + x.size] = x.ravel()
    xt = gt.from_numpy(big)[32 : 32 + x.size].reshape(1, 32, 20, 20)
    w = gt.randn(25, 32, 3, 3)
    out = {}
    for mode in (ALWAYS, NEVER):
        with _Mode(mode):
            out[mode] = gt.nn.functional.conv2d(xt, w, padding=1).numpy()
    assert np.isfinite(out[ALWAYS]).all()
    np.testing.assert_allclose(out[ALWAYS], out[NEVER], rtol=1e-5, atol=1e-4)
