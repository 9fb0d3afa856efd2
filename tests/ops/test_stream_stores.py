"""Elementwise loops whose tensors span many bytes write their output with
streaming stores, through a small staging block (NOTE [Streaming stores] in
csrc/kernels/loops.h). Only loops past ~40 MiB stream by default, so these
tests lower the threshold through the private hook: then every loop that
has an input and writes dense runs streams, and its bits must equal those
of the plain loop, for every op and in-place variant in the op table, and
torch's for large tensors split across threads at awkward offsets."""

import warnings

import numpy as np
import pytest

import gradtrack as gt

from helpers import to_np
from op_db import OPS
from test_ops import _id, _seed, apply_views, base_arrays, float_outputs, flatten, leaves

bench = gt._C._bench


@pytest.fixture
def streaming():
    """A switch: streaming(True) makes every loop stream, streaming(False) none."""
    saved = bench.stream_store_bytes()
    yield lambda on: bench.set_stream_store_bytes(0 if on else 1 << 62)
    bench.set_stream_store_bytes(saved)


def test_the_hook_round_trips_and_refuses_negative():
    saved = bench.stream_store_bytes()
    assert saved == 40 << 20
    try:
        bench.set_stream_store_bytes(12345)
        assert bench.stream_store_bytes() == 12345
        with pytest.raises(RuntimeError, match="bytes must be >= 0"):
            bench.set_stream_store_bytes(-1)
        assert bench.stream_store_bytes() == 12345
    finally:
        bench.set_stream_store_bytes(saved)


def _bits(t):
    a = np.ascontiguousarray(to_np(t))
    return a.dtype.str, a.shape, a.tobytes()


def _run(spec, sample, dtype, with_grad):
    """The op's outputs as bytes, and with_grad: the gradients of its float inputs."""
    arrays = base_arrays(spec, sample, dtype)
    xs = leaves(gt, sample, arrays, requires_grad=with_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = spec.fn(gt, *apply_views(sample, xs))
    result = [_bits(o) for o in flatten(out)]
    if with_grad:
        used = [o for o in float_outputs(out) if o.requires_grad]
        req = [x for x in xs if x.requires_grad]
        if used and req:
            rng = np.random.default_rng(_seed("stream", spec.name, sample.id))
            ups = [gt.tensor(rng.standard_normal(tuple(o.shape))).to(o.dtype) for o in used]
            grads = gt.autograd.grad(used, req, ups, allow_unused=True)
            result += [None if g is None else _bits(g) for g in grads]
    return result


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.name) for s in OPS])
def test_every_op_gives_the_same_bits_streamed(streaming, spec):
    for sample in spec.samples:
        for dtype in spec.dtypes:
            with_grad = spec.differentiable and dtype == "float64"
            streaming(False)
            plain = _run(spec, sample, dtype, with_grad)
            streaming(True)
            streamed = _run(spec, sample, dtype, with_grad)
            assert streamed == plain, _id(spec.name, sample.id, dtype)


# Lengths that leave a partial staging block, a partial vector and a thread
# boundary inside a block; offsets that misalign the output by 1..3 elements.
@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_large_loops_match_torch_streamed(torch, streaming, threads, n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n + 3) * 4).astype(dtype)
    y = (rng.standard_normal(n + 3) * 4 + 1).astype(dtype)

    def results(lib):
        a, b = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())
        got = [a[:n] + b[:n], a[:n] * b[1:n + 1], a[3:] < b[3:], a[:n] * 3,
               lib.maximum(a[1:n + 1], b[2:n + 2])]
        if a.dtype.is_floating_point:
            got += [a[:n].relu(), lib.where(a[:n] > 0, a[:n], b[:n]), a[:n].exp()]
        out = lib.zeros(n + 3, dtype=a.dtype)
        lib.add(a[:n], b[:n], out=out[1:n + 1])  # a destination 1 element in
        c = a.clone()
        c[2:].mul_(b[2:])  # in place, 2 elements in
        return [np.asarray(to_np(g) if lib is gt else g.numpy()) for g in got + [out, c]]

    streaming(False)
    plain = results(gt)
    streaming(True)
    streamed, theirs = results(gt), results(torch)
    for k, (p, m, t) in enumerate(zip(plain, streamed, theirs)):
        assert m.dtype == p.dtype == t.dtype and m.tobytes() == p.tobytes(), k
        if k == 7:  # exp: within 2 ulp of torch's (NOTE [SIMD clones])
            np.testing.assert_allclose(m, t, rtol=3e-7 if dtype == "float32" else 1e-15)
        else:
            assert np.array_equal(m, t, equal_nan=True), k


def test_broadcast_and_strided_outputs_match_unstreamed(streaming, threads):
    rng = np.random.default_rng(7)
    x = gt.from_numpy(rng.standard_normal((300, 257)).astype(np.float32))
    col = gt.from_numpy(rng.standard_normal((300, 1)).astype(np.float32))
    results = []
    for on in (False, True):
        streaming(on)
        strided = gt.zeros(257, 300)
        gt.mul(x, col, out=strided.t())  # the output's runs are not dense: it never streams
        results.append([_bits(x + col), _bits(x.t() * 2), _bits(strided), _bits(x[:, 1:] - col)])
    assert results[0] == results[1]


def test_large_graph_gradients_match_torch_streamed(torch, streaming, threads):
    """The benchmark's large graph, every loop streamed: the same gradient bits."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((512, 515)).astype(np.float32)
    w = rng.standard_normal((512, 515)).astype(np.float32)
    streaming(True)
    grads = []
    for lib in (gt, torch):
        wt = lib.from_numpy(w.copy()).requires_grad_()
        (lib.from_numpy(x.copy()) * wt).relu().sum().backward()
        grads.append(np.asarray(wt.grad.numpy()))
    assert np.array_equal(grads[0], grads[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_product_gradients_match_torch_streamed(torch, streaming, threads, dtype):
    """Both gradients of a * b come from one fused loop with two outputs."""
    rng = np.random.default_rng(5)
    a, b, up = (rng.standard_normal(100_003).astype(dtype) for _ in range(3))
    results = []
    for lib, on in ((gt, False), (gt, True), (torch, True)):
        streaming(on)
        x, y = (lib.from_numpy(v.copy()).requires_grad_() for v in (a, b))
        (x * y).backward(lib.from_numpy(up.copy()))
        results.append([np.asarray(t.grad.numpy()).tobytes() for t in (x, y)])
    assert results[0] == results[1] == results[2]
