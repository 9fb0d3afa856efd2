"""Copies whose output runs across the source's long stride (t(), channels-last permutes,
made contiguous or copied into) go in tiles (NOTE [Transposed copies in tiles] in
csrc/kernels/copy.cpp). Every element lands where numpy puts it: tile edges, batches,
sliced and offset views, every element size, a transposed destination; and a copy
within one storage keeps torch's verdict. Each runs twice: as a small copy writes, and
as one past ~40 MiB does, its tile rows streamed (lowered through the private hook)."""

import numpy as np
import pytest

import gradtrack

@pytest.fixture(params=["plain", "streamed"], autouse=True)
def stores(request):
    bench = gradtrack._C._bench
    saved = bench.stream_store_bytes()
    bench.set_stream_store_bytes(0 if request.param == "streamed" else saved)
    yield request.param
    bench.set_stream_store_bytes(saved)


DTYPES = ["float32", "float64", "int64", "int32", "float16", "bfloat16", "int16"]


def _array(shape, seed):
    return np.random.default_rng(seed).integers(-1000, 1000, shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(8, 8), (9, 33), (31, 65), (64, 64), (1000, 37), (7, 300), (3, 100)])
def test_transpose_made_contiguous(dtype, shape):
    x = _array(shape, len(shape))
    t = gradtrack.tensor(x).to(getattr(gradtrack, dtype))
    got = t.t().contiguous()
    assert got.is_contiguous()
    stored = t.to(gradtrack.float64).numpy()  # as the dtype rounds them
    np.testing.assert_array_equal(got.to(gradtrack.float64).numpy(), stored.T)


@pytest.mark.parametrize("perm, shape", [((0, 2, 3, 1), (3, 16, 9, 11)), ((0, 2, 1, 3), (2, 40, 5, 8)),
                                         ((2, 0, 1), (33, 9, 40)), ((1, 0, 2), (50, 70, 1))])
def test_permutes_made_contiguous(perm, shape):
    x = _array(shape, 3).astype(np.float32)
    got = gradtrack.tensor(x).permute(*perm).contiguous().numpy()
    np.testing.assert_array_equal(got, np.ascontiguousarray(x.transpose(perm)))


def test_offset_and_sliced_views():
    x = _array((100, 120), 4).astype(np.float32)
    t = gradtrack.tensor(x)
    view = t[3:90, 5:117:2].t()
    np.testing.assert_array_equal(view.contiguous().numpy(), np.ascontiguousarray(x[3:90, 5:117:2].T))
    batch = gradtrack.tensor(_array((4, 50, 60), 5).astype(np.float64))
    np.testing.assert_array_equal(batch[1:].transpose(1, 2).contiguous().numpy(),
                                  np.ascontiguousarray(batch.numpy()[1:].transpose(0, 2, 1)))


def test_copy_into_a_transposed_destination():
    x = _array((45, 70), 6).astype(np.float32)
    dest = gradtrack.zeros(70, 45)
    dest.t().copy_(gradtrack.tensor(x))
    np.testing.assert_array_equal(dest.numpy(), x.T)
    dest2 = gradtrack.zeros(45, 70)
    dest2.copy_(gradtrack.tensor(np.ascontiguousarray(x.T)).t())
    np.testing.assert_array_equal(dest2.numpy(), x)


def test_copy_within_one_storage_as_torch():
    torch = pytest.importorskip("torch")
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    for lib in (gradtrack, torch):
        a = lib.tensor(x)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            a.copy_(a.t())
    # disjoint halves of one storage: allowed, and the plain loop's result
    out = {}
    for lib in (gradtrack, torch):
        a = lib.tensor(np.arange(2 * 40 * 40, dtype=np.float32).reshape(2, 40, 40))
        a[0].copy_(a[1].t())
        out[lib] = a.numpy()
    np.testing.assert_array_equal(out[gradtrack], out[torch])
