"""nn.functional: softmax and log_softmax, the activations, layer/batch/group norm,
embedding, dropout, the losses, one_hot and cosine_similarity.
"""

import numpy as np

from .reference import _erf, _f, _sigmoid
from .rows import FLOAT, POS, A, Domain, E, Fixed, Idx, OpSpec, S, T, Tr
from .samples import LOSS_PAIR, UNARY, UNARY_SMALL


def _log_softmax(a, dim):
    a = _f(a)
    m = np.max(a, axis=dim, keepdims=True) if a.size else a
    s = a - m
    return s - np.log(np.sum(np.exp(s), axis=dim, keepdims=True))


def _softmax(a, dim):
    return np.exp(_log_softmax(a, dim))


OPS = []

# ---- softmax ---------------------------------------------------------------------------------

_SM = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("expand", E((1, 3), (2, 3))))
OPS += [
    OpSpec("log_softmax", lambda lib, a: lib.log_softmax(a, dim=-1), _SM + (S("1d", A(4)),), FLOAT,
           ref=lambda np_, a: _log_softmax(a, -1), gradgrad=True, rtol=1e-5),
    OpSpec("Tensor.log_softmax_dim0", lambda lib, a: a.log_softmax(0), _SM, FLOAT,
           ref=lambda np_, a: _log_softmax(a, 0), gradgrad=True, rtol=1e-5),
    OpSpec("softmax", lambda lib, a: lib.softmax(a, 1), _SM, FLOAT,
           ref=lambda np_, a: _softmax(a, 1), gradgrad=True, rtol=1e-5),
    OpSpec("Tensor.softmax_neg", lambda lib, a: a.softmax(dim=-1), _SM + (S("0d", A()),), FLOAT,
           ref=lambda np_, a: _softmax(a, -1) if a.ndim else np.ones((), a.dtype), rtol=1e-5),
    OpSpec("softmax_empty", lambda lib, a: a.softmax(1), (S("empty", A(0, 3)),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("softmax_dtype", lambda lib, a: a.softmax(-1, dtype=lib.float64), _SM[:1], ("float32",),
           ref=lambda np_, a: _softmax(a.astype(np.float64), -1), rtol=1e-5),
    OpSpec("log_softmax_large", lambda lib, a: a.log_softmax(-1),
           (S("large", Fixed([[1000.0, 0.0, -1000.0], [50.0, 50.0, 50.0]])),), FLOAT,
           ref=lambda np_, a: _log_softmax(a, -1)),
]


# ---- nn layers: activations and normalization (nn.functional) --------------------------------

def _softplus_np(a):
    return np.where(a > 20, a, np.log1p(np.exp(np.minimum(a, 20))))


def _layer_norm_np(a, eps=1e-5):
    mean = a.mean(axis=-1, keepdims=True)
    var = a.var(axis=-1, keepdims=True)
    return (a - mean) / np.sqrt(var + eps)


def _nnf(name, *args, **kw):
    return lambda lib, a: getattr(lib.nn.functional, name)(a, *args, **kw)


OPS += [
    OpSpec("nn.functional.gelu", _nnf("gelu"), UNARY, FLOAT,
           ref=lambda np_, a: a * 0.5 * (1 + _erf(a / np.sqrt(2.0))), gradgrad=True,
           rtol=2e-6),
    OpSpec("nn.functional.gelu_tanh", _nnf("gelu", approximate="tanh"), UNARY, FLOAT,
           ref=lambda np_, a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),
           rtol=2e-6),
    OpSpec("nn.functional.silu", _nnf("silu"), UNARY, FLOAT,
           ref=lambda np_, a: a * _sigmoid(np_, a), gradgrad=True, rtol=2e-6),
    OpSpec("nn.functional.leaky_relu", _nnf("leaky_relu", 0.1), UNARY, FLOAT,
           ref=lambda np_, a: np.where(a > 0, a, 0.1 * a)),
    OpSpec("nn.functional.elu", _nnf("elu"), UNARY, FLOAT,
           ref=lambda np_, a: np.where(a > 0, a, np.expm1(a)), rtol=2e-6),
    OpSpec("nn.functional.softplus", _nnf("softplus"), UNARY, FLOAT,
           ref=lambda np_, a: _softplus_np(a), rtol=2e-6),
    OpSpec("nn.functional.hardtanh", _nnf("hardtanh"), UNARY, FLOAT,
           ref=lambda np_, a: np.clip(a, -1, 1)),
    OpSpec("nn.functional.mish", _nnf("mish"), UNARY, FLOAT,
           ref=lambda np_, a: a * np.tanh(_softplus_np(a)), rtol=2e-6),
    OpSpec("nn.functional.hardswish", _nnf("hardswish"), UNARY, FLOAT,
           ref=lambda np_, a: a * np.clip(a + 3, 0, 6) / 6, rtol=2e-6),
    OpSpec("nn.functional.hardsigmoid", _nnf("hardsigmoid"), UNARY, FLOAT,
           domain=Domain("around_kinks", -5.0, 5.0), ref=lambda np_, a: np.clip(a + 3, 0, 6) / 6, rtol=2e-6),
    OpSpec("nn.functional.rrelu_eval", _nnf("rrelu", 0.1, 0.3), UNARY, FLOAT,
           ref=lambda np_, a: np.where(a > 0, a, a * 0.2), rtol=2e-6),
    OpSpec("nn.functional.logsigmoid", _nnf("logsigmoid"), UNARY, FLOAT,
           ref=lambda np_, a: -_softplus_np(-a), rtol=2e-6),
    OpSpec("nn.functional.layer_norm", lambda lib, a: lib.nn.functional.layer_norm(a, (3,)),
           (S("2x3", A(2, 3)), S("t", T(2, 3))), FLOAT,
           ref=lambda np_, a: _layer_norm_np(a), gradgrad=True, rtol=1e-5, atol=1e-5),
]


# ---- nn layers: batch/group norm, embedding, dropout and the losses --------------------------

UNIT = Domain("unit", 0.05, 0.95, 0, 2)      # probabilities (binary cross entropy)


def _channels(v, ndim):
    """A per-channel vector shaped to broadcast over (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _batch_norm_np(a, w=None, b=None, eps=1e-5):
    axes = (0,) + tuple(range(2, a.ndim))
    out = (a - a.mean(axis=axes, keepdims=True)) / np.sqrt(a.var(axis=axes, keepdims=True) + eps)
    if w is not None:
        out = out * _channels(w, a.ndim) + _channels(b, a.ndim)
    return out


def _group_norm_np(a, groups, w=None, b=None, eps=1e-5):
    g = a.reshape(a.shape[0], groups, -1)
    out = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps))
    out = out.reshape(a.shape)
    if w is not None:
        out = out * _channels(w, a.ndim) + _channels(b, a.ndim)
    return out


def _reduce(loss, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda x: x}[reduction](loss)


def _smooth_l1_np(a, t, beta):
    d = np.abs(a - t)
    return np.mean(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta))


def _huber_np(a, t, delta):
    d = np.abs(a - t)
    return np.mean(np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta)))


def _bce_np(p, t, w=None):
    loss = -(t * np.log(p) + (1 - t) * np.log1p(-p))
    return np.mean(loss if w is None else loss * w)


def _bce_logits_np(a, t, pos_weight=None):
    pw = 1.0 if pos_weight is None else pos_weight
    log_sig, log_one_minus = -_softplus_np(-a), -_softplus_np(a)
    return np.mean(-(pw * t * log_sig + (1 - t) * log_one_minus))


def _nll_np(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    rows = np.arange(logp.shape[0])
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    w = np.ones(logp.shape[1], logp.dtype) if weight is None else weight
    wi = w[safe] * keep
    loss = -logp[rows, safe] * wi
    if reduction == "mean":
        return loss.sum() / wi.sum()
    return _reduce(loss, reduction)


def _cross_entropy_np(a, target, smoothing=0.0):
    logp = _log_softmax(a, 1)
    nll = -logp[np.arange(a.shape[0]), target]
    smooth = -logp.mean(axis=1)
    return np.mean((1 - smoothing) * nll + smoothing * smooth)


def _kl_div_np(a, t, reduction, log_target=False):
    loss = np.exp(t) * (t - a) if log_target else np.where(t > 0, t * (np.log(t) - a), 0.0)
    return loss.sum() / a.shape[0] if reduction == "batchmean" else _reduce(loss, reduction)


def _F(lib):
    return lib.nn.functional


_BAG_IDX = Idx([0, 2, 1, 3, 3])
_BAG_OFF = Idx([0, 2, 2])


def _embedding_bag_np(w, idx, offsets, mode, weights=None, last=False, pad=None):
    """The bags of ``idx`` that start at ``offsets`` (the last one ends the last bag when
    ``last``), reduced over their rows of ``w`` (``pad``'s rows left out; an empty bag is 0)."""
    ends = list(offsets[1:]) + ([] if last else [len(idx)])
    starts = list(offsets[:len(ends)])
    out = np.zeros((len(starts), w.shape[1]), w.dtype)
    for b, (lo, hi) in enumerate(zip(starts, ends)):
        keep = [k for k in range(lo, hi) if idx[k] != pad]
        if not keep:
            continue
        rows = w[idx[keep]] * (weights[keep, None] if weights is not None else 1)
        out[b] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


NORM_CH = (S("4x3", A(4, 3)), S("2x3x5", A(2, 3, 5)), S("t", T(4, 3)))

OPS += [
    OpSpec("nn.functional.batch_norm",
           lambda lib, a: _F(lib).batch_norm(a, None, None, training=True), NORM_CH, FLOAT,
           ref=lambda np_, a: _batch_norm_np(a), rtol=1e-5, atol=1e-5, gradgrad=True),
    OpSpec("nn.functional.batch_norm_affine",
           lambda lib, a, w, b: _F(lib).batch_norm(a, None, None, w, b, training=True),
           (S("2x3x4", A(2, 3, 4), A(3), A(3)),), FLOAT,
           ref=lambda np_, a, w, b: _batch_norm_np(a, w, b), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.group_norm", lambda lib, a: _F(lib).group_norm(a, 2),
           (S("2x4x3", A(2, 4, 3)), S("3x4", A(3, 4))), FLOAT,
           ref=lambda np_, a: _group_norm_np(a, 2), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.group_norm_affine",
           lambda lib, a, w, b: _F(lib).group_norm(a, 2, w, b),
           (S("2x4x3", A(2, 4, 3), A(4), A(4)),), FLOAT,
           ref=lambda np_, a, w, b: _group_norm_np(a, 2, w, b), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.embedding", lambda lib, w, i: _F(lib).embedding(i, w),
           (S("5x3", A(5, 3), Idx([[0, 2], [4, 2]])), S("t", T(5, 3), Idx([1, 1, 3]))), FLOAT,
           ref=lambda np_, w, i: w[i]),
    OpSpec("nn.functional.embedding_padding_idx",
           lambda lib, w, i: _F(lib).embedding(i, w, padding_idx=0),
           (S("5x3", A(5, 3), Idx([0, 2, 0, 4])),), FLOAT, ref=lambda np_, w, i: w[i],
           gradcheck=False),  # the padding row's gradient is zero by definition
    # embedding_bag's bags: offsets [0, 2, 2] over 5 indices are bags of 2, 0 (empty) and 3
    OpSpec("nn.functional.embedding_bag_mean",
           lambda lib, w, i, o: _F(lib).embedding_bag(i, w, o),
           (S("5x3", A(5, 3), _BAG_IDX, _BAG_OFF), S("t", T(5, 3), _BAG_IDX, _BAG_OFF)), FLOAT,
           ref=lambda np_, w, i, o: _embedding_bag_np(w, i, o, "mean")),
    OpSpec("nn.functional.embedding_bag_sum_weighted",
           lambda lib, w, i, o, p: _F(lib).embedding_bag(i, w, o, mode="sum",
                                                         per_sample_weights=p),
           (S("5x3", A(5, 3), _BAG_IDX, _BAG_OFF, A(5)),), FLOAT,
           ref=lambda np_, w, i, o, p: _embedding_bag_np(w, i, o, "sum", p)),
    OpSpec("nn.functional.embedding_bag_max_last_offset",
           lambda lib, w, i, o: _F(lib).embedding_bag(i, w, o, mode="max",
                                                      include_last_offset=True),
           (S("5x3", A(5, 3), _BAG_IDX, Idx([0, 2, 5])),), FLOAT,
           ref=lambda np_, w, i, o: _embedding_bag_np(w, i, o, "max", last=True)),
    OpSpec("nn.functional.embedding_bag_2d_padding_idx",
           lambda lib, w, i: _F(lib).embedding_bag(i, w, padding_idx=2),
           (S("5x3", A(5, 3), Idx([[0, 2, 4], [2, 2, 1]])),), FLOAT,
           ref=lambda np_, w, i: _embedding_bag_np(w, i.reshape(-1), np.array([0, 3]), "mean",
                                                   pad=2)),
    # torch.embedding_bag: ATen's arguments (scale_grad_by_freq, mode as 0/1/2, sparse,
    # per_sample_weights, include_last_offset, padding_idx) and four outputs, of which the
    # first is the bags (the others are compared with torch in test_poisson_embedding_bag_...)
    OpSpec("embedding_bag",
           lambda lib, w, i, o: lib.embedding_bag(w, i, o, False, 0, False, None, False, 3)[0],
           (S("5x3", A(5, 3), _BAG_IDX, _BAG_OFF), S("t", T(5, 3), _BAG_IDX, _BAG_OFF)), FLOAT,
           ref=lambda np_, w, i, o: _embedding_bag_np(w, i, o, "sum", pad=3)),
    OpSpec("embedding_bag_weighted_last_offset",
           lambda lib, w, i, o, p: lib.embedding_bag(w, i, o, False, 0, False, p, True)[0],
           (S("5x3", A(5, 3), _BAG_IDX, Idx([0, 2, 2, 5]), A(5)),), FLOAT,
           ref=lambda np_, w, i, o, p: _embedding_bag_np(w, i, o, "sum", p, last=True)),
    OpSpec("embedding_bag_max",
           lambda lib, w, i, o: lib.embedding_bag(w, i, o, False, 2)[0],
           (S("5x3", A(5, 3), _BAG_IDX, _BAG_OFF),), FLOAT,
           ref=lambda np_, w, i, o: _embedding_bag_np(w, i, o, "max")),
    OpSpec("nn.functional.dropout_eval", lambda lib, a: _F(lib).dropout(a, 0.5, training=False),
           UNARY_SMALL, FLOAT, ref=lambda np_, a: a),
    OpSpec("nn.functional.mse_loss", lambda lib, a, t: _F(lib).mse_loss(a, t), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: np.mean((a - t) ** 2), gradgrad=True),
    OpSpec("nn.functional.mse_loss_sum",
           lambda lib, a, t: _F(lib).mse_loss(a, t, reduction="sum"), LOSS_PAIR[:1], FLOAT,
           ref=lambda np_, a, t: np.sum((a - t) ** 2)),
    OpSpec("nn.functional.l1_loss_none",
           lambda lib, a, t: _F(lib).l1_loss(a, t, reduction="none"), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: np.abs(a - t)),
    OpSpec("nn.functional.smooth_l1_loss",
           lambda lib, a, t: _F(lib).smooth_l1_loss(a, t, beta=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: _smooth_l1_np(a, t, 0.5)),
    OpSpec("nn.functional.huber_loss",
           lambda lib, a, t: _F(lib).huber_loss(a, t, delta=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: _huber_np(a, t, 0.5)),
    OpSpec("nn.functional.binary_cross_entropy",
           lambda lib, p, t: _F(lib).binary_cross_entropy(p, t),
           (S("3x4", A(3, 4, domain=UNIT), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, p, t: _bce_np(p, t), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_weight",
           lambda lib, p, t, w: _F(lib).binary_cross_entropy(p, t, w),
           (S("3x4", A(3, 4, domain=UNIT), A(3, 4, domain=UNIT), A(4, requires_grad=False)),),
           FLOAT, ref=lambda np_, p, t, w: _bce_np(p, t, w), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_with_logits",
           lambda lib, a, t: _F(lib).binary_cross_entropy_with_logits(a, t),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)), S("t", T(3, 4), A(3, 4, domain=UNIT))),
           FLOAT, ref=lambda np_, a, t: _bce_logits_np(a, t), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_with_logits_pos_weight",
           lambda lib, a, t, pw: _F(lib).binary_cross_entropy_with_logits(a, t, pos_weight=pw),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT),
                      A(4, domain=POS, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t, pw: _bce_logits_np(a, t, pw), rtol=1e-5),
    OpSpec("nn.functional.nll_loss", lambda lib, a, i: _F(lib).nll_loss(a, i),
           (S("3x4", A(3, 4), Idx([1, 0, 3])), S("t", T(3, 4), Idx([2, 2, 0]))), FLOAT,
           ref=lambda np_, a, i: _nll_np(a, i)),
    OpSpec("nn.functional.nll_loss_weight_ignore",
           lambda lib, a, w, i: _F(lib).nll_loss(a, i, w, ignore_index=1),
           (S("4x3", A(4, 3), A(3, domain=POS, requires_grad=False), Idx([1, 0, 2, 2])),),
           FLOAT,
           ref=lambda np_, a, w, i: _nll_np(a, i, w, 1)),
    OpSpec("nn.functional.nll_loss_none",
           lambda lib, a, i: _F(lib).nll_loss(a, i, reduction="none"),
           (S("3x4", A(3, 4), Idx([1, 0, 3])),), FLOAT,
           ref=lambda np_, a, i: _nll_np(a, i, reduction="none")),
    OpSpec("nn.functional.nll_loss_spatial",
           lambda lib, a, w, i: _F(lib).nll_loss(a, i, w, ignore_index=2),
           (S("2x3x2x2", A(2, 3, 2, 2), A(3, domain=POS, requires_grad=False),
              Idx([[[1, 0], [2, 2]], [[0, 1], [1, 0]]])),
            S("2x3x4", A(2, 3, 4), A(3, domain=POS, requires_grad=False),
              Idx([[1, 0, 2, 0], [2, 1, 1, 0]]))), FLOAT,
           ref=lambda np_, a, w, i: _nll_np(np.moveaxis(a, 1, -1).reshape(-1, a.shape[1]),
                                            i.reshape(-1), w, 2)),
    OpSpec("nn.functional.cross_entropy", lambda lib, a, i: _F(lib).cross_entropy(a, i),
           (S("3x4", A(3, 4), Idx([1, 0, 3])), S("t", T(3, 4), Idx([3, 3, 0]))), FLOAT,
           ref=lambda np_, a, i: _cross_entropy_np(a, i), gradgrad=True),
    OpSpec("nn.functional.cross_entropy_label_smoothing",
           lambda lib, a, i: _F(lib).cross_entropy(a, i, label_smoothing=0.1),
           (S("3x4", A(3, 4), Idx([1, 0, 3])),), FLOAT,
           ref=lambda np_, a, i: _cross_entropy_np(a, i, 0.1)),
    OpSpec("nn.functional.cross_entropy_probs",
           lambda lib, a, p: _F(lib).cross_entropy(a, p),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, a, p: np.mean(-(p * _log_softmax(a, 1)).sum(axis=1))),
    OpSpec("nn.functional.linear_cross_entropy",
           lambda lib, x, w, i: _F(lib).linear_cross_entropy(x, w, i),
           (S("3x4", A(3, 4), A(5, 4), Idx([1, 0, 4])),), FLOAT,
           ref=lambda np_, x, w, i: _cross_entropy_np(x @ w.T, i)),
    OpSpec("nn.functional.linear_cross_entropy_chunked",
           lambda lib, x, w, b, i: _F(lib).linear_cross_entropy(
               x, w, i, linear_bias=b, options=lib.nn.LinearCrossEntropyOptions(
                   batch_chunk_size=2, chunking_method=None)),
           (S("3x4", A(3, 4), A(5, 4), A(5), Idx([1, 0, 4])),), FLOAT,
           ref=lambda np_, x, w, b, i: _cross_entropy_np(x @ w.T + b, i)),
    OpSpec("nn.functional.kl_div_batchmean",
           lambda lib, a, t: _F(lib).kl_div(a, t, reduction="batchmean"),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "batchmean")),
    OpSpec("nn.functional.kl_div_log_target",
           lambda lib, a, t: _F(lib).kl_div(a, t, reduction="sum", log_target=True),
           (S("3x4", A(3, 4), A(3, 4)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "sum", True)),
]

# ---- one_hot, cosine_similarity -------------------------------------------------------------

OPS += [
    OpSpec("one_hot", lambda lib, i: lib.nn.functional.one_hot(i, 5),
           (S("idx", Idx([[0, 4], [2, 2]])),), ("int64",),
           ref=lambda np_, i: np.eye(5, dtype=np.int64)[i], differentiable=False),
    OpSpec("cosine_similarity", lambda lib, a, b: lib.cosine_similarity(a, b),
           (S("3x4", A(3, 4), A(3, 4)), S("bcast", A(3, 4), A(4))), FLOAT,
           ref=lambda np_, a, b: (a * b).sum(1) / (np.linalg.norm(a, axis=1)
                                                  * np.linalg.norm(np.broadcast_to(b, a.shape),
                                                                   axis=1)), rtol=1e-5),
]

# ---- layers composed from ops: shrinks, gates, norms, distances, shuffles, margin losses ----

SIGNS = Domain("signs", choices=(-1.0, 1.0))


def _sign_arg(*shape):
    return A(*shape, domain=SIGNS, requires_grad=False)


def _glu_np(a, dim):
    x, g = np.split(a, 2, axis=dim)
    return x * _sigmoid(np, g)


def _rms_np(a, w, eps):
    return a / np.sqrt((a * a).mean(-1, keepdims=True) + eps) * w


def _lrn_np(a, size, alpha=1e-4, beta=0.75, k=1.0):
    sq = np.pad(a * a, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (a.ndim - 2))
    div = np.stack([sq[:, c:c + size].mean(1) for c in range(a.shape[1])], 1)
    return a / (div * alpha + k) ** beta


def _pixel_shuffle_np(a, r):
    n, c, h, w = a.shape
    return a.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(
        n, c // (r * r), h * r, w * r)


def _cos_embedding_np(a, b, y, margin):
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))
    return np.mean(np.where(y == 1, 1 - cos, np.maximum(cos - margin, 0)))


def _multi_margin_np(a, t, p=1, margin=1.0):
    picked = a[np.arange(len(t)), t][:, None]
    z = np.maximum(margin - picked + a, 0) ** p
    z[np.arange(len(t)), t] = 0
    return np.mean(z.sum(1) / a.shape[1])


def _multilabel_margin_np(a, t):
    total = []
    for row, labels in zip(a, t):
        labels = list(labels[:list(labels).index(-1)] if -1 in labels else labels)
        others = [j for j in range(len(row)) if j not in labels]
        total.append(sum(max(0.0, 1 - (row[k] - row[j])) for k in labels for j in others)
                     / len(row))
    return np.mean(total)


def _pdist_np(a):
    n = a.shape[0]
    return np.array([np.linalg.norm(a[i] - a[j]) for i in range(n) for j in range(i + 1, n)],
                    dtype=a.dtype)


_SHRINK = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("0d", A()), S("empty", A(0, 3)))
OPS += [
    OpSpec("nn.functional.hardshrink", _nnf("hardshrink", 0.5), _SHRINK, FLOAT,
           ref=lambda np_, a: np.where(np.abs(a) > 0.5, a, 0), gradgrad=True),
    OpSpec("nn.functional.softshrink", _nnf("softshrink", 0.5), _SHRINK, FLOAT,
           ref=lambda np_, a: np.where(a > 0.5, a - 0.5, np.where(a < -0.5, a + 0.5, 0))),
    OpSpec("nn.functional.tanhshrink", _nnf("tanhshrink"), UNARY, FLOAT,
           ref=lambda np_, a: a - np.tanh(a), gradgrad=True),
    OpSpec("nn.functional.softsign", _nnf("softsign"), UNARY, FLOAT,
           ref=lambda np_, a: a / (1 + np.abs(a)), gradgrad=True),
    OpSpec("nn.functional.threshold", _nnf("threshold", 0.1, 20.0), _SHRINK, FLOAT,
           ref=lambda np_, a: np.where(a > 0.1, a, 20.0)),
    OpSpec("nn.functional.glu", _nnf("glu", 1), (S("2x4", A(2, 4)), S("t", T(3, 4))), FLOAT,
           ref=lambda np_, a: _glu_np(a, 1), gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.prelu", lambda lib, a, w: lib.nn.functional.prelu(a, w),
           (S("channels", A(2, 3, 4), A(3)), S("one", A(3, 4), A(1))), FLOAT,
           ref=lambda np_, a, w: np.where(a > 0, a, a * w.reshape((1, -1) + (1,) * (a.ndim - 2))
                                          if a.ndim > 1 else a * w)),
    OpSpec("Tensor.prelu", lambda lib, a, w: a.prelu(w), (S("channels", A(2, 3, 4), A(3)),),
           FLOAT, ref=lambda np_, a, w: np.where(a > 0, a, a * w.reshape(1, -1, 1))),
    OpSpec("Tensor.hardshrink", lambda lib, a: a.hardshrink(0.3), _SHRINK, FLOAT,
           ref=lambda np_, a: np.where(np.abs(a) > 0.3, a, 0)),
    OpSpec("nn.functional.normalize", _nnf("normalize"), (S("2x3", A(2, 3)), S("t", T(2, 3))),
           FLOAT, ref=lambda np_, a: a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True),
                                                   1e-12), gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.rms_norm",
           lambda lib, a, w: lib.nn.functional.rms_norm(a, (4,), w, 1e-5),
           (S("2x4", A(2, 4), A(4)), S("3d", A(2, 3, 4), A(4))), FLOAT,
           ref=lambda np_, a, w: _rms_np(a, w, 1e-5), gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.local_response_norm", _nnf("local_response_norm", 3, 0.1),
           (S("3d", A(2, 5, 3)), S("4d", A(1, 4, 2, 3)),
            S("4d_transposed", Tr((1, 4, 2, 3), 2, 3))), FLOAT,
           ref=lambda np_, a: _lrn_np(a, 3, 0.1), rtol=1e-5),
    OpSpec("nn.functional.instance_norm", _nnf("instance_norm"), (S("3d", A(2, 3, 5)),), FLOAT,
           ref=lambda np_, a: _batch_norm_np(a.reshape(1, 6, 5)).reshape(a.shape), rtol=1e-4,
           atol=1e-4),
    OpSpec("nn.functional.pairwise_distance",
           lambda lib, a, b: lib.nn.functional.pairwise_distance(a, b),
           (S("3x4", A(3, 4), A(3, 4)), S("bcast", A(3, 4), A(4))), FLOAT,
           ref=lambda np_, a, b: np.linalg.norm(a - b + 1e-6, axis=-1), rtol=1e-5),
    OpSpec("nn.functional.pdist", _nnf("pdist"), (S("4x3", A(4, 3)), S("t", T(4, 3))), FLOAT,
           ref=lambda np_, a: _pdist_np(a), rtol=1e-5),
    OpSpec("nn.functional.bilinear",
           lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c),
           (S("2x3x4", A(2, 3), A(2, 4), A(5, 3, 4), A(5)),), FLOAT,
           ref=lambda np_, a, b, w, c: np.einsum("bi,oij,bj->bo", a, w, b) + c, rtol=1e-5),
    OpSpec("nn.functional.pixel_shuffle", _nnf("pixel_shuffle", 2), (S("4d", A(1, 8, 2, 3)),),
           FLOAT, ref=lambda np_, a: _pixel_shuffle_np(a, 2)),
    OpSpec("nn.functional.pixel_unshuffle",
           lambda lib, a: lib.nn.functional.pixel_unshuffle(
               lib.nn.functional.pixel_shuffle(a, 2), 2),
           (S("4d", A(1, 8, 2, 3)),), FLOAT, ref=lambda np_, a: a.copy()),
    OpSpec("nn.functional.channel_shuffle", _nnf("channel_shuffle", 2), (S("3d", A(2, 4, 3)),),
           FLOAT, ref=lambda np_, a: a.reshape(2, 2, 2, 3).transpose(0, 2, 1, 3).reshape(a.shape)),
    OpSpec("nn.functional.cosine_embedding_loss",
           lambda lib, a, b, y: _F(lib).cosine_embedding_loss(a, b, y, margin=0.1),
           (S("3x4", A(3, 4), A(3, 4), _sign_arg(3)),), FLOAT,
           ref=lambda np_, a, b, y: _cos_embedding_np(a, b, y, 0.1), rtol=1e-5),
    OpSpec("nn.functional.margin_ranking_loss",
           lambda lib, a, b, y: _F(lib).margin_ranking_loss(a, b, y, margin=0.2),
           (S("5", A(5), A(5), _sign_arg(5)),), FLOAT,
           ref=lambda np_, a, b, y: np.mean(np.maximum(-y * (a - b) + 0.2, 0))),
    OpSpec("nn.functional.hinge_embedding_loss",
           lambda lib, a, y: _F(lib).hinge_embedding_loss(a, y),
           (S("3x4", A(3, 4), _sign_arg(3, 4)),), FLOAT,
           ref=lambda np_, a, y: np.mean(np.where(y == 1, a, np.maximum(1 - a, 0)))),
    OpSpec("nn.functional.poisson_nll_loss",
           lambda lib, a, t: _F(lib).poisson_nll_loss(a, t),
           (S("3x4", A(3, 4), A(3, 4, domain=POS, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t: np.mean(np.exp(a) - t * a), rtol=1e-5),
    OpSpec("nn.functional.gaussian_nll_loss",
           lambda lib, a, t, v: _F(lib).gaussian_nll_loss(a, t, v),
           (S("3x4", A(3, 4), A(3, 4), A(3, 4, domain=POS)),), FLOAT,
           ref=lambda np_, a, t, v: np.mean(0.5 * (np.log(v) + (a - t) ** 2 / v)), rtol=1e-5),
    OpSpec("nn.functional.soft_margin_loss",
           lambda lib, a, y: _F(lib).soft_margin_loss(a, y),
           (S("3x4", A(3, 4), _sign_arg(3, 4)),), FLOAT,
           ref=lambda np_, a, y: np.mean(np.log1p(np.exp(-a * y))), rtol=1e-5),
    OpSpec("nn.functional.multilabel_soft_margin_loss",
           lambda lib, a, t: _F(lib).multilabel_soft_margin_loss(a, t),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t: np.mean(-(t * np.log(_sigmoid(np, a))
                                           + (1 - t) * np.log(_sigmoid(np, -a))).mean(1)),
           rtol=1e-5),
    OpSpec("nn.functional.multi_margin_loss",
           lambda lib, a, t: _F(lib).multi_margin_loss(a, t, p=2, margin=0.5),
           (S("4x5", A(4, 5), Idx([1, 0, 4, 2])),), FLOAT,
           ref=lambda np_, a, t: _multi_margin_np(a, t, 2, 0.5), rtol=1e-5),
    OpSpec("nn.functional.multilabel_margin_loss",
           lambda lib, a, t: _F(lib).multilabel_margin_loss(a, t),
           (S("3x4", A(3, 4), Idx([[3, 0, -1, 1], [1, 2, 3, -1], [2, 2, 2, 2]])),), FLOAT,
           ref=lambda np_, a, t: _multilabel_margin_np(a, t), rtol=1e-5),
    OpSpec("nn.functional.triplet_margin_loss",
           lambda lib, a, p, n: _F(lib).triplet_margin_loss(a, p, n, margin=0.5, swap=True),
           (S("3x4", A(3, 4), A(3, 4), A(3, 4)),), FLOAT,
           ref=lambda np_, a, p, n: np.mean(np.maximum(
               0.5 + np.linalg.norm(a - p + 1e-6, axis=1)
               - np.minimum(np.linalg.norm(a - n + 1e-6, axis=1),
                            np.linalg.norm(p - n + 1e-6, axis=1)), 0)), rtol=1e-5),
]


# ---- the top-level losses: reduction as ATen's int, unreduced by default ----------------------

OPS += [
    OpSpec("kl_div", lambda lib, a, t: lib.kl_div(a, t), (S("3x4", A(3, 4),
           A(3, 4, domain=UNIT, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "none")),
    OpSpec("kl_div_mean_log_target", lambda lib, a, t: lib.kl_div(a, t, 1, log_target=True),
           (S("3x4", A(3, 4), A(3, 4)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "mean", True)),
    OpSpec("binary_cross_entropy_with_logits",
           lambda lib, a, t: lib.binary_cross_entropy_with_logits(a, t, None, None, 1),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, a, t: _bce_logits_np(a, t), rtol=1e-5),
    OpSpec("margin_ranking_loss", lambda lib, a, b, y: lib.margin_ranking_loss(a, b, y, 0.2),
           (S("5", A(5), A(5), _sign_arg(5)),), FLOAT,
           ref=lambda np_, a, b, y: np.maximum(-y * (a - b) + 0.2, 0)),
    OpSpec("cosine_embedding_loss",
           lambda lib, a, b, y: lib.cosine_embedding_loss(a, b, y, 0.1, 1),
           (S("3x4", A(3, 4), A(3, 4), _sign_arg(3)),), FLOAT,
           ref=lambda np_, a, b, y: _cos_embedding_np(a, b, y, 0.1), rtol=1e-5),
    OpSpec("hinge_embedding_loss", lambda lib, a, y: lib.hinge_embedding_loss(a, y, 1.0, 2),
           (S("3x4", A(3, 4), _sign_arg(3, 4)),), FLOAT,
           ref=lambda np_, a, y: np.sum(np.where(y == 1, a, np.maximum(1 - a, 0)))),
    OpSpec("poisson_nll_loss",
           lambda lib, a, t: lib.poisson_nll_loss(a, t, True, False, 1e-8, 1),
           (S("3x4", A(3, 4), A(3, 4, domain=POS, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t: np.mean(np.exp(a) - t * a), rtol=1e-5),
    OpSpec("triplet_margin_loss", lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n),
           (S("3x4", A(3, 4), A(3, 4), A(3, 4)),), FLOAT,
           ref=lambda np_, a, p, n: np.maximum(
               1.0 + np.linalg.norm(a - p + 1e-6, axis=1)
               - np.linalg.norm(a - n + 1e-6, axis=1), 0), rtol=1e-5),
]


# ---- the CTC loss ----------------------------------------------------------------------------

def _ctc_np(log_probs, targets, input_lengths, target_lengths, blank=0):
    """Per-sample negative log-likelihoods by the forward recursion over l' (float64)."""
    out = []
    for b, (il, tl) in enumerate(zip(input_lengths, target_lengths)):
        ext = [blank]
        for label in targets[b][:tl]:
            ext += [int(label), blank]
        alpha = np.full(len(ext), -np.inf)
        alpha[0] = log_probs[0, b, ext[0]]
        if len(ext) > 1:
            alpha[1] = log_probs[0, b, ext[1]]
        for t in range(1, il):
            prev = alpha.copy()
            for s in range(len(ext)):
                terms = [prev[s]] + ([prev[s - 1]] if s > 0 else [])
                if s > 1 and ext[s] != blank and ext[s] != ext[s - 2]:
                    terms.append(prev[s - 2])
                alpha[s] = np.logaddexp.reduce(terms) + log_probs[t, b, ext[s]]
        out.append(-np.logaddexp.reduce(alpha[-2:] if tl else alpha[-1:]))
    return np.array(out, dtype=log_probs.dtype)


_CTC_TARGETS = [[1, 2, 2], [3, 1, 0]]
OPS += [
    OpSpec("nn.functional.ctc_loss",
           lambda lib, a, tg: lib.nn.functional.ctc_loss(a, tg, [6, 5], [3, 2],
                                                         reduction="none"),
           (S("6x2x4", A(6, 2, 4), Idx(_CTC_TARGETS)),), FLOAT,
           ref=lambda np_, a, tg: _ctc_np(a, tg, [6, 5], [3, 2]), gradcheck=False, rtol=1e-5),
]


# ---- the native norm and dropout functions: the output and what backward saves ---------------


def _stats_np(a, axes, eps=1e-5):
    mean = a.mean(axis=axes, keepdims=True)
    return mean, 1 / np.sqrt(a.var(axis=axes, keepdims=True) + eps)


def _native_layer_norm_np(a, w, b):
    mean, rstd = _stats_np(a, (-1,))
    return (a - mean) * rstd * w + b, mean, rstd


def _native_batch_norm_np(a, w, b):
    mean, invstd = _stats_np(a, (0, 2))
    return (a - mean) * invstd * _channels(w, 3) + _channels(b, 3), mean.ravel(), invstd.ravel()


def _native_group_norm_np(a, w, b, groups=2):
    g = a.reshape(a.shape[0], groups, -1)
    mean, rstd = _stats_np(g, (-1,))
    out = ((g - mean) * rstd).reshape(a.shape) * _channels(w, 3) + _channels(b, 3)
    return out, mean.reshape(a.shape[0], groups), rstd.reshape(a.shape[0], groups)


_NONEMPTY = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("scalar", A()))

# native_layer_norm's and native_batch_norm's statistics take no gradient (torch's are
# outputs that do not require grad): a row of its own compares their values
OPS += [
    OpSpec("native_layer_norm",
           lambda lib, a, w, b: lib.native_layer_norm(a, [3], w, b, 1e-5)[0],
           (S("2x3", A(2, 3), A(3), A(3)), S("t", T(4, 3), A(3), A(3))), FLOAT,
           ref=lambda np_, a, w, b: _native_layer_norm_np(a, w, b)[0], rtol=1e-5, atol=1e-5),
    OpSpec("native_layer_norm_stats",
           lambda lib, a, w, b: tuple(lib.native_layer_norm(a, [3], w, b, 1e-5)[1:]),
           (S("2x3", A(2, 3), A(3), A(3)),), FLOAT,
           ref=lambda np_, a, w, b: _native_layer_norm_np(a, w, b)[1:], rtol=1e-5, atol=1e-5,
           differentiable=False),
    OpSpec("native_batch_norm",
           lambda lib, a, w, b: lib.native_batch_norm(a, w, b, None, None, True, 0.1, 1e-5)[0],
           (S("2x3x4", A(2, 3, 4), A(3), A(3)),), FLOAT,
           ref=lambda np_, a, w, b: _native_batch_norm_np(a, w, b)[0], rtol=1e-5, atol=1e-5),
    OpSpec("native_batch_norm_stats",
           lambda lib, a, w, b: tuple(lib.native_batch_norm(a, w, b, None, None, True, 0.1,
                                                            1e-5)[1:]),
           (S("2x3x4", A(2, 3, 4), A(3), A(3)),), FLOAT,
           ref=lambda np_, a, w, b: _native_batch_norm_np(a, w, b)[1:], rtol=1e-5, atol=1e-5,
           differentiable=False),
    OpSpec("native_group_norm",
           lambda lib, a, w, b: tuple(lib.native_group_norm(a, w, b, 2, 4, 3, 2, 1e-5)),
           (S("2x4x3", A(2, 4, 3), A(4), A(4)),), FLOAT,
           ref=lambda np_, a, w, b: _native_group_norm_np(a, w, b), rtol=1e-5, atol=1e-5),
    # not training (or p = 0): the input and a mask of ones, drawn from no generator. Not
    # on empty inputs: torch returns an empty input itself and gives it (a leaf included)
    # the NativeDropoutBackward0 node, which gradtrack does not copy
    OpSpec("native_dropout_eval", lambda lib, a: tuple(lib.native_dropout(a, 0.5, False)),
           _NONEMPTY, FLOAT, ref=lambda np_, a: (a, np.ones(a.shape, bool))),
    OpSpec("native_dropout_p0", lambda lib, a: tuple(lib.native_dropout(a, 0.0, True)),
           _NONEMPTY, FLOAT, ref=lambda np_, a: (a, np.ones(a.shape, bool))),
    OpSpec("feature_dropout_eval", lambda lib, a: lib.feature_dropout(a, 0.5, False),
           (S("2x3x4", A(2, 3, 4)),), FLOAT, ref=lambda np_, a: a),
]
