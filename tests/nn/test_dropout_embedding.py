"""Dropout, Embedding and EmbeddingBag against torch 2.13: train/eval, p=0 and p=1,
in-place, the mask itself (torch's stream) and its statistics, padding_idx,
max_norm, from_pretrained, grad_fn names, gradients and messages."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn
import gradtrack.nn.functional as F
from gradtrack.autograd import gradcheck

from helpers import error_of

RNG = np.random.default_rng(3)


# ---- dropout ---------------------------------------------------------------------------------

def test_dropout_eval_and_p0_return_the_input(torch):
    for lib in (gt, torch):
        x = lib.ones(3, requires_grad=True)
        assert lib.nn.functional.dropout(x, 0.5, training=False) is x
        assert lib.nn.functional.dropout(x, 0.0) is x
        assert lib.nn.Dropout(0.3).eval()(x) is x


def test_dropout_p1_zeroes_with_mul_node(torch):
    for lib in (gt, torch):
        x = lib.ones(3, requires_grad=True)
        y = lib.nn.functional.dropout(x, 1.0)
        assert y.tolist() == [0.0, 0.0, 0.0]
        assert type(y.grad_fn).__name__ == "MulBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_dropout_mask_statistics_and_gradient():
    gt.manual_seed(0)
    x = gt.ones(200, 100, requires_grad=True)
    y = F.dropout(x, 0.3)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values == {0.0, float(np.float32(1) / np.float32(0.7))}
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.01
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout_same_seed_same_mask():
    gt.manual_seed(5)
    a = F.dropout(gt.ones(50), 0.5)
    gt.manual_seed(5)
    b = F.dropout(gt.ones(50), 0.5)
    assert a.tolist() == b.tolist()


def test_dropout_inplace(torch):
    for lib in (gt, torch):
        x = lib.ones(4, 5, requires_grad=True)
        y = x * 1
        out = lib.nn.functional.dropout(y, 0.5, inplace=True)
        assert out is y and y._version == 1
        assert type(out.grad_fn).__name__ == "MulBackward0"
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_dropout_messages_and_repr(torch):
    for call in (lambda lib: lib.nn.functional.dropout(lib.ones(2), 1.5),
                 lambda lib: lib.nn.Dropout(-0.1)):
        assert error_of(lambda: call(gt)) == error_of(lambda: call(torch))
    assert repr(nn.Dropout()) == repr(torch.nn.Dropout())
    assert repr(nn.Dropout(0.2, True)) == repr(torch.nn.Dropout(0.2, True))


def test_dropout_mask_equals_torch(torch):
    gt.manual_seed(1)
    torch.manual_seed(1)
    ours = [F.dropout(gt.ones(n), 0.4) for n in (1, 15, 64, 1000)]
    ours.append(nn.Dropout(0.25)(gt.ones(7, 9)))
    refs = [torch.nn.functional.dropout(torch.ones(n), 0.4) for n in (1, 15, 64, 1000)]
    refs.append(torch.nn.Dropout(0.25)(torch.ones(7, 9)))
    for o, r in zip(ours, refs):
        np.testing.assert_allclose(o.numpy(), r.numpy())


# ---- embedding -------------------------------------------------------------------------------

W = RNG.standard_normal((6, 3))
IDX = [[0, 2, 2], [5, 1, 0]]


def _embed(lib, **kwargs):
    w = lib.tensor(W, requires_grad=True)
    y = lib.nn.functional.embedding(lib.tensor(IDX), w, **kwargs)
    (y * lib.tensor(np.arange(18.0).reshape(2, 3, 3))).sum().backward()
    return y, w.grad


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"scale_grad_by_freq": True},
                                    {"scale_grad_by_freq": True, "padding_idx": 0}])
def test_embedding_matches_torch(torch, kwargs):
    (yo, go), (yr, gr) = _embed(gt, **kwargs), _embed(torch, **kwargs)
    np.testing.assert_allclose(yo.detach().numpy(), yr.detach().numpy())
    np.testing.assert_allclose(go.numpy(), gr.numpy())
    assert type(yo.grad_fn).__name__ == type(yr.grad_fn).__name__ == "EmbeddingBackward0"


def test_embedding_int32_indices_and_finite_differences():
    w = gt.tensor(W, requires_grad=True)
    idx = gt.tensor(IDX, dtype=gt.int32)
    # The padding row (3) is not looked up: its zero gradient is also the numerical one.
    assert gradcheck(lambda w: F.embedding(idx, w, padding_idx=3), (w,))


def test_embedding_double_backward(torch):
    def run(lib):
        w = lib.tensor(W, requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(IDX), w)
        (g,) = lib.autograd.grad((y ** 2).sum(), w, create_graph=True)
        (gg,) = lib.autograd.grad((g ** 2).sum(), w)
        return gg.numpy()
    np.testing.assert_allclose(run(gt), run(torch), rtol=1e-12)


def test_embedding_module_padding_and_state_dict(torch):
    ours, ref = nn.Embedding(5, 3, padding_idx=1), torch.nn.Embedding(5, 3, padding_idx=1)
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["weight"]
    assert ours.weight[1].tolist() == [0.0, 0.0, 0.0]
    assert ours.weight._version == ref.weight._version
    ours(gt.tensor([1, 1, 3])).sum().backward()
    assert ours.weight.grad[1].tolist() == [0.0, 0.0, 0.0]
    assert ours.weight.grad[3].tolist() == [1.0, 1.0, 1.0]


def test_embedding_max_norm_renormalizes_used_rows(torch):
    def run(lib):
        w = lib.tensor(W * 3)
        emb = lib.nn.Embedding(6, 3, max_norm=1.5, _weight=w)
        v0 = emb.weight._version
        out = emb(lib.tensor([0, 0, 4]))
        return out.detach().numpy(), emb.weight.detach().numpy(), emb.weight._version - v0
    ours, ref = run(gt), run(torch)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-6)
    assert ours[2] == ref[2]


def test_embedding_from_pretrained(torch):
    for lib in (gt, torch):
        emb = lib.nn.Embedding.from_pretrained(lib.tensor(W))
        assert emb.weight.requires_grad is False
        assert repr(emb) == "Embedding(6, 3)"
        assert lib.nn.Embedding.from_pretrained(lib.tensor(W), freeze=False).weight.requires_grad
    assert error_of(lambda: nn.Embedding.from_pretrained(gt.ones(4))) == error_of(
        lambda: torch.nn.Embedding.from_pretrained(torch.ones(4)))


EMB_MESSAGES = [
    lambda lib: lib.nn.Embedding(5, 3, padding_idx=5),
    lambda lib: lib.nn.functional.embedding(lib.tensor([5]), lib.ones(5, 3)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(5, 3)),
]


@pytest.mark.parametrize("call", EMB_MESSAGES)
def test_embedding_messages(torch, call):
    ours, ref = error_of(lambda: call(gt)), error_of(lambda: call(torch))
    assert ours == (ref[0], ref[1].replace("torch.", "gradtrack."))


# ---- embedding bag ---------------------------------------------------------------------------

BAGS = [
    ({"mode": "sum"}, [0, 2, 2, 5, 1], [0, 2]),
    ({"mode": "mean"}, [0, 2, 2, 5, 1], [0, 2, 2]),
    ({"mode": "mean", "include_last_offset": True}, [0, 2, 2, 5, 1], [0, 1, 5]),
    ({"mode": "mean", "padding_idx": 2}, [0, 2, 2, 5, 1], [0, 3]),
    ({"mode": "sum"}, [[0, 2], [5, 1]], None),
    ({"mode": "mean"}, [[0, 2], [5, 5]], None),
    ({"mode": "max"}, [0, 2, 2, 5, 1], [0, 2, 2]),
    ({"mode": "max", "padding_idx": 2}, [0, 2, 2, 5, 1, 3], [0, 1, 3]),
    ({"mode": "max", "include_last_offset": True}, [0, 2, 4, 5, 1], [0, 3, 5]),
    ({"mode": "max"}, [[0, 2], [5, 1]], None),
]


@pytest.mark.parametrize("kwargs, idx, offsets", BAGS)
def test_embedding_bag_matches_torch(torch, kwargs, idx, offsets):
    def run(lib):
        w = lib.tensor(W, requires_grad=True)
        off = None if offsets is None else lib.tensor(offsets)
        y = lib.nn.functional.embedding_bag(lib.tensor(idx), w, off, **kwargs)
        (y * lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))).sum() \
            .backward()
        return y.detach().numpy(), w.grad.numpy()
    for a, b in zip(run(gt), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_embedding_bag_per_sample_weights(torch):
    def run(lib):
        w = lib.tensor(W, requires_grad=True)
        psw = lib.tensor([0.5, 2.0, 1.0], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.embedding_bag(lib.tensor([0, 3, 4]), w, lib.tensor([0, 1]),
                                            mode="sum", per_sample_weights=psw)
        y.sum().backward()
        return y.detach().numpy(), w.grad.numpy(), psw.grad.numpy()
    for a, b in zip(run(gt), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_embedding_bag_module(torch):
    ours, ref = nn.EmbeddingBag(5, 3, mode="sum"), torch.nn.EmbeddingBag(5, 3, mode="sum")
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert repr(nn.EmbeddingBag(3, 2, max_norm=1.0, padding_idx=0)) == repr(
        torch.nn.EmbeddingBag(3, 2, max_norm=1.0, padding_idx=0))
    bag = nn.EmbeddingBag.from_pretrained(gt.tensor(W), mode="sum")
    assert bag(gt.tensor([[1, 2]])).tolist() == [(W[1] + W[2]).tolist()]


BAG_MESSAGES = [
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[0, 1]]), lib.ones(5, 3),
                                                lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([0, 1]), lib.ones(5, 3)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([0, 1]), lib.ones(5, 3),
                                                lib.tensor([0, 3])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([0, 1]), lib.ones(5, 3),
                                                lib.tensor([0]), per_sample_weights=lib.ones(2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([0, 1]), lib.ones(5, 3),
                                                lib.tensor([0]), mode="min"),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([0, 1]), lib.ones(5, 3),
                                                lib.tensor([0]), mode="max",
                                                per_sample_weights=lib.ones(2)),
]


@pytest.mark.parametrize("call", BAG_MESSAGES)
def test_embedding_bag_messages(torch, call):
    ours, ref = error_of(lambda: call(gt)), error_of(lambda: call(torch))
    assert ours == (ref[0], ref[1].replace("torch.", "gradtrack."))
