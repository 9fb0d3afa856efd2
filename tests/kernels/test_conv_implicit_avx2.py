"""The AVX2 convolution forward without an im2col matrix (NOTE [Implicit im2col on
AVX2] in csrc/kernels/conv_implicit_avx2.cpp), against torch and against the
im2col path, on any CPU with AVX2 and FMA (our AVX-512 GEMM switched off)."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack._C import _bench

from conv_stride1 import STRIDE1_GEOMETRIES, check_stride1_conv, geometry_id

pytestmark = pytest.mark.skipif(not _bench.conv_implicit_avx2_available(), reason="this CPU has no AVX2 with FMA")


@pytest.fixture(params=[True, False], ids=["implicit", "im2col"])
def path(request):
    old_v4, old_v3 = _bench.use_gemm_avx512(), _bench.use_conv_implicit_avx2()
    _bench.set_gemm_avx512(False)
    _bench.set_conv_implicit_avx2(request.param)
    yield request.param
    _bench.set_gemm_avx512(old_v4)
    _bench.set_conv_implicit_avx2(old_v3)


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = gt.get_num_threads()
    gt.set_num_threads(request.param)
    yield request.param
    gt.set_num_threads(old)


@pytest.mark.parametrize("geom", STRIDE1_GEOMETRIES, ids=geometry_id)
def test_stride1_conv_matches_torch(torch, path, threads, geom):
    assert _bench.use_conv_implicit_avx2() == path
    check_stride1_conv(torch, geom)


def test_default_is_on_exactly_without_avx512():
    assert _bench.use_conv_implicit_avx2() == (not _bench.gemm_avx512_available())


def test_paths_agree_and_read_nothing_past_the_image():
    # The image is the tail of a bigger buffer followed by NaNs: a read past its end (or
    # before its start) would turn an output NaN. Output width 20 leaves a 4-column tile.
    x = np.random.default_rng(0).standard_normal((1, 32, 20, 20)).astype(np.float32)
    big = np.full(x.size + 64, np.nan, dtype=np.float32)
    big[32 : 32 + x.size] = x.ravel()
    xt = gt.from_numpy(big)[32 : 32 + x.size].reshape(1, 32, 20, 20)
    w = gt.randn(25, 32, 3, 3)
    out = {}
    for on in (True, False):
        _bench.set_gemm_avx512(False)
        _bench.set_conv_implicit_avx2(on)
        try:
            out[on] = gt.nn.functional.conv2d(xt, w, padding=1).numpy()
        finally:
            _bench.set_gemm_avx512(True)
            _bench.set_conv_implicit_avx2(not _bench.gemm_avx512_available())
    assert np.isfinite(out[True]).all()
    np.testing.assert_allclose(out[True], out[False], rtol=1e-5, atol=1e-4)
