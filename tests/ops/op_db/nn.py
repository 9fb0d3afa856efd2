"""nn.functional: softmax and log_softmax, the activations, layer/batch/group norm,
embedding, dropout, the losses, one_hot and cosine_similarity.
"""

import numpy as np

from .reference import _erf, _f, _sigmoid
from .rows import FLOAT, POS, A, Domain, E, Fixed, Idx, OpSpec, S, T
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
