"""``torch.poisson`` (torch's draws, PoissonBackward0, errors) and the top-level
``torch.embedding_bag`` (ATen's arguments, its four outputs, EmbeddingBagBackward0) and
``set_flush_denormal``, compared with torch 2.13."""

import numpy as np
import pytest

import gradtrack

from helpers import both_errors


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_draws_are_torchs(torch, dtype):
    rates = [[0.5, 12.0, 100.0, 0.0], [3.0, 0.0, 1e4, 9.99]]
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(3)
        r = lib.tensor(rates, dtype=getattr(lib, dtype)).t()
        out = lib.poisson(r)
        after = lib.rand(3)
        g = lib.Generator().manual_seed(7)
        seeded = lib.poisson(lib.full((6,), 30.0, dtype=getattr(lib, dtype)), generator=g)
        res.append((out.tolist(), str(out.dtype).split(".")[-1], out.stride(), after.tolist(),
                    seeded.tolist(), lib.rand(1, generator=g).tolist()))
    assert res[0] == res[1]


def test_poisson_node_and_gradient(torch):
    res = []
    for lib in (gradtrack, torch):
        r = lib.tensor([1.0, 2.5, 0.0], requires_grad=True)
        lib.manual_seed(0)
        out = lib.poisson(r)
        (g,) = lib.autograd.grad((out * 3).sum(), r)
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            tangent = fw.unpack_dual(lib.poisson(fw.make_dual(r.detach(), lib.ones(3)))).tangent
        res.append((out.grad_fn.name(), out._version, g.tolist(), tangent.tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.poisson(lib.tensor([1, 2])),
    lambda lib: lib.poisson(lib.tensor([2.0, -1.0])),
    lambda lib: lib.poisson(lib.tensor([float("nan")])),
    lambda lib: lib.poisson([1.0]),
    lambda lib: lib.poisson(lib.ones(2), generator=5),
])
def test_poisson_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs


def test_poisson_refusal_moves_the_generator_as_torch(torch):
    after = []
    for lib in (gradtrack, torch):
        lib.manual_seed(1)
        with pytest.raises(RuntimeError):
            lib.poisson(lib.tensor([2.0, 15.0, -1.0]))
        after.append(lib.rand(2).tolist())
    assert after[0] == after[1]


BAGS = [(mode, weighted, last, pad) for mode in (0, 1, 2) for weighted in (False, True)
        for last in (False, True) for pad in (None, 3) if not (weighted and mode)]


@pytest.mark.parametrize("mode,weighted,last,pad", BAGS)
def test_embedding_bag_outputs_match_torch(torch, mode, weighted, last, pad):
    res = []
    for lib in (gradtrack, torch):
        w = lib.tensor(np.random.default_rng(0).standard_normal((4, 3)), requires_grad=True)
        psw = lib.tensor([0.5, 1.0, 2.0, -1.0, 3.0], dtype=lib.float64, requires_grad=True) \
            if weighted else None
        offsets = lib.tensor([0, 2, 2, 5] if last else [0, 2, 2])
        outs = lib.embedding_bag(w, lib.tensor([0, 2, 1, 3, 3]), offsets, False, mode, False, psw,
                                 last, pad)
        grads = lib.autograd.grad((outs[0] * outs[0]).sum(), [w] + ([psw] if weighted else []))
        res.append(([o.tolist() for o in outs], [str(o.dtype) for o in outs[1:]],
                    outs[0].grad_fn.name(), [g.numpy() for g in grads]))
    (mine, theirs) = res
    np.testing.assert_allclose(mine[0][0], theirs[0][0], rtol=1e-12)
    assert mine[0][1:] == theirs[0][1:]
    assert [s.split(".")[-1] for s in mine[1]] == [s.split(".")[-1] for s in theirs[1]]
    assert mine[2] == theirs[2] == "EmbeddingBagBackward0"
    for a, b in zip(mine[3], theirs[3]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_embedding_bag_refuses_missing_offsets_as_torch(torch):
    mine, theirs = both_errors(lambda lib: lib.embedding_bag(lib.ones(4, 3), lib.tensor([0, 1]),
                                                         None), torch)
    assert mine == theirs


def _denormal_results(lib):
    tiny = lib.tensor([1e-300], dtype=lib.float64)
    a, b = lib.tensor([2.4e-38]), lib.tensor([2.3e-38])  # normal; their difference is not
    return [lib.tensor([1e-39]).item(), (tiny * 1e-20).item(), (a - b).item(),
            (tiny + lib.tensor([1e-310], dtype=lib.float64)).item()]


def test_set_flush_denormal_flushes_as_torch(torch):
    res = []
    try:
        for lib in (gradtrack, torch):
            on = lib.set_flush_denormal(True)
            flushed = _denormal_results(lib)
            off = lib.set_flush_denormal(False)
            res.append((on, flushed, off, _denormal_results(lib)))
    finally:
        torch.set_flush_denormal(False)
        gradtrack.set_flush_denormal(False)
    assert res[0] == res[1]
    # this CPU has the flush (x86 with SSE3): flushed while on, kept after
    assert res[0][0] is True and res[0][1][:3] == [0.0, 0.0, 0.0]
    assert 0.0 not in res[0][3]
    mine, theirs = both_errors(lambda lib: lib.set_flush_denormal(1), torch)
    assert mine == theirs


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_leaves_padding_rows_out(torch, mode):
    # a NaN or inf in the padding row is no NaN in its bags (it was multiplied by 0)
    res = []
    for lib in (gradtrack, torch):
        w = lib.tensor([[1.0, 2.0], [3.0, float("nan")], [float("inf"), 1.0]],
                       dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor([[0, 1, 2], [1, 1, 0]]), w,
                                              padding_idx=1, mode=mode)
        (g,) = lib.autograd.grad(out[:, 0].sum(), w)
        res.append((out.tolist(), g.tolist(), out.grad_fn.name()))
    assert res[0] == res[1]
