"""float32 sigmoid and silu on Intel's AVX-512 run in one pass over sixteen floats (NOTE
[Sigmoid in one pass] in csrc/kernels/simd.cpp); elsewhere, and with the switch off, in the
block loop around the vector exp. The one pass must give every bit the block loop gives:
checked over a walk through all float bit patterns, the edges of exp's range, NaN
payloads and every length around the two-vector step. Both paths are held to torch's
error against float64, and checked in place and through views."""

import numpy as np
import pytest

import gradtrack
import gradtrack.nn.functional as F
from gradtrack._C import _bench
from helpers import float32_bits as _bits
from helpers import float32_ulps as _ulps
from helpers import kernel_paths

path = kernel_paths(_bench.logistic_one_pass, _bench.set_logistic_one_pass, "one_pass", "blocks")

OPS = {"sigmoid": lambda t: t.sigmoid(), "silu": F.silu}


def _walk():
    """Every 65,537th bit pattern (all signs, exponents, NaN payloads) and the floats
    beside exp's overflow and underflow edges and sigmoid's subnormal results."""
    walk = np.arange(0, 2**32, 65_537, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = np.array([88.72, 87.33, 103.97, 104.0, 0.0, 1e-45, 1.2e-38, 16.6, 9.0], np.float32)
    near = np.concatenate([(edges.view(np.int32) + d).view(np.float32) for d in range(-40, 41)])
    special = np.array([np.inf, np.nan], np.float32)
    payloads = np.array([0x7FC00001, 0x7F800123, 0xFFC12345, 0xFF800001], np.uint32)
    both = np.concatenate([near, special, payloads.view(np.float32)])
    return np.concatenate([walk, both, -both])


def _run(op, x, one_pass):
    saved = _bench.logistic_one_pass()
    _bench.set_logistic_one_pass(one_pass)
    try:
        return OPS[op](gradtrack.tensor(x)).numpy()
    finally:
        _bench.set_logistic_one_pass(saved)


@pytest.mark.parametrize("op", sorted(OPS))
def test_one_pass_gives_the_block_loops_bits(op):
    if not _bench.logistic_one_pass():
        pytest.skip("this CPU runs the block loop only")
    x = _walk()
    assert np.array_equal(_bits(_run(op, x, True)), _bits(_run(op, x, False)))


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_length_and_tail(op, path):
    rng = np.random.default_rng(0)
    for n in [*range(0, 70), 1023, 1024, 1025, 4099]:
        x = (rng.standard_normal(n) * 30).astype(np.float32)
        got = OPS[op](gradtrack.tensor(x)).numpy()
        want = np.array([OPS[op](gradtrack.tensor(x[i : i + 1])).item() for i in range(min(n, 70))])
        assert np.array_equal(_bits(got[: len(want)]), _bits(want.astype(np.float32))), n


def test_no_further_from_float64_than_torch(path):
    # 1 + e rounds e's last bits away where e is large: 2.29 ulp near x = -16.6 for both
    # libraries; on average 0.322 ulp against torch's 0.331 (measured).
    torch = pytest.importorskip("torch")
    x = np.linspace(-87, 40, 400_003, dtype=np.float32)
    ref = 1 / (1 + np.exp(-x.astype(np.float64)))
    ours = _ulps(gradtrack.tensor(x).sigmoid().numpy(), ref)
    theirs = _ulps(torch.tensor(x).sigmoid().numpy(), ref)
    assert ours.max() <= 2.3
    assert ours.max() <= theirs.max()
    assert ours.mean() <= theirs.mean()


def test_in_place_and_through_views(path):
    rng = np.random.default_rng(1)
    base = (rng.standard_normal((40, 33)) * 8).astype(np.float32)
    want = gradtrack.tensor(base.copy()).sigmoid().numpy()
    t = gradtrack.tensor(base.copy())
    t.sigmoid_()
    assert np.array_equal(_bits(t.numpy()), _bits(want))
    view = gradtrack.tensor(base.copy()).t()[:, 1::2]
    assert np.array_equal(_bits(view.sigmoid().numpy()), _bits(want.T[:, 1::2]))
    s = gradtrack.tensor(base.copy())
    F.silu(s, inplace=True)
    assert np.array_equal(_bits(s.numpy()), _bits(F.silu(gradtrack.tensor(base)).numpy()))
