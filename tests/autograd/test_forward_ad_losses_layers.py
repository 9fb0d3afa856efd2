"""Forward-mode AD of the losses and the layers beyond the op table: mse, l1, smooth_l1,
huber, binary cross entropy (with logits, weights, pos_weight), kl_div, nll_loss and
cross_entropy (weights, ignore_index, label smoothing, probabilities) in every reduction,
and batch/layer/group norm, var/std and var_mean/std_mean, conv2d, the pools and
embedding; each tangent compared with torch 2.13's and with finite differences.
"""

import numpy as np
import pytest

import gradtrack


def _np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def _err(fn, lib):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e).replace(lib.__name__, "LIB")
    return None


def _rng_arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _tangent(lib, fn, primals, tangents):
    """The output's tangent of fn(*duals) (tangent None: a plain input)."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        xs = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
              for p, t in zip(primals, tangents)]
        return _np(fw.unpack_dual(fn(lib, *xs)).tangent)


def _fd(fn, primals, tangents, eps=1e-6):
    def at(sign):
        xs = [gradtrack.tensor(p + sign * eps * t if t is not None else p)
              for p, t in zip(primals, tangents)]
        return fn(gradtrack, *xs).numpy()
    return (at(1) - at(-1)) / (2 * eps)


def _check(torch, fn, primals, tangents, fd=True):
    ours = _tangent(gradtrack, fn, primals, tangents)
    theirs = _tangent(torch, fn, primals, tangents)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    if fd:
        np.testing.assert_allclose(ours, _fd(fn, primals, tangents), rtol=1e-4, atol=1e-6)


# ---- losses --------------------------------------------------------------------------------

def _f(lib):
    return lib.nn.functional


PAIR_LOSSES = {
    "mse_loss": lambda lib, x, y, r: _f(lib).mse_loss(x, y, reduction=r),
    "l1_loss": lambda lib, x, y, r: _f(lib).l1_loss(x, y, reduction=r),
    "smooth_l1_loss": lambda lib, x, y, r: _f(lib).smooth_l1_loss(x, y, reduction=r, beta=0.7),
    "smooth_l1_beta0": lambda lib, x, y, r: _f(lib).smooth_l1_loss(x, y, reduction=r, beta=0.0),
    "huber_loss": lambda lib, x, y, r: _f(lib).huber_loss(x, y, reduction=r, delta=0.6),
    "bce_with_logits": lambda lib, x, y, r: _f(lib).binary_cross_entropy_with_logits(
        x, y.sigmoid(), reduction=r),
    "bce_with_logits_weights": lambda lib, x, y, r: _f(lib).binary_cross_entropy_with_logits(
        x, y.sigmoid(), weight=lib.tensor([0.5, 2.0, 1.0], dtype=lib.float64), reduction=r,
        pos_weight=lib.tensor([1.5, 0.3, 2.0], dtype=lib.float64)),
    "bce": lambda lib, x, y, r: _f(lib).binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction=r),
    "bce_weight": lambda lib, x, y, r: _f(lib).binary_cross_entropy(
        x.sigmoid(), y.sigmoid(), weight=lib.tensor([0.5, 2.0, 1.0], dtype=lib.float64),
        reduction=r),
    "kl_div": lambda lib, x, y, r: _f(lib).kl_div(x.log_softmax(1), y.softmax(1),
                                                  reduction="batchmean" if r == "mean" else r),
    "kl_div_log_target": lambda lib, x, y, r: _f(lib).kl_div(x, y, reduction=r, log_target=True),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(PAIR_LOSSES))
@pytest.mark.parametrize("both", [True, False], ids=["both_dual", "input_dual"])
def test_pair_loss_tangents(torch, name, reduction, both):
    x, y, tx, ty = _rng_arrays(len(name), (4, 3), (4, 3), (4, 3), (4, 3))
    fn = PAIR_LOSSES[name]
    _check(torch, lambda lib, a, b: fn(lib, a, b, reduction), [x, y], [tx, ty if both else None])


CLASS_LOSSES = {
    "nll_loss": lambda lib, x, tg, w: _f(lib).nll_loss(x.log_softmax(1), tg),
    "nll_loss_sum": lambda lib, x, tg, w: _f(lib).nll_loss(x.log_softmax(1), tg, reduction="sum"),
    "nll_loss_none": lambda lib, x, tg, w: _f(lib).nll_loss(x.log_softmax(1), tg, reduction="none"),
    "nll_loss_weight_ignore": lambda lib, x, tg, w: _f(lib).nll_loss(x, tg, weight=w,
                                                                     ignore_index=2),
    "nll_loss_1d": lambda lib, x, tg, w: _f(lib).nll_loss(x[0], tg[0]),
    "cross_entropy": lambda lib, x, tg, w: _f(lib).cross_entropy(x, tg),
    "cross_entropy_weight": lambda lib, x, tg, w: _f(lib).cross_entropy(x, tg, weight=w,
                                                                        reduction="sum"),
    "cross_entropy_smoothing": lambda lib, x, tg, w: _f(lib).cross_entropy(
        x, tg, label_smoothing=0.2),
    "cross_entropy_probs": lambda lib, x, tg, w: _f(lib).cross_entropy(x, x.detach().softmax(1)),
}


@pytest.mark.parametrize("name", sorted(CLASS_LOSSES))
def test_class_loss_tangents(torch, name):
    x, tx = _rng_arrays(7, (4, 5), (4, 5))

    def fn(lib, a):
        tg = lib.tensor([1, 4, 2, 0])
        w = lib.tensor([0.5, 2.0, 1.0, 1.5, 0.7], dtype=lib.float64)
        return CLASS_LOSSES[name](lib, a, tg, w)

    _check(torch, fn, [x], [tx], fd="probs" not in name)


# ---- layers and statistics -----------------------------------------------------------------

LAYERS = {
    "batch_norm_train": lambda lib, x, w: _f(lib).batch_norm(
        x, None, None, w[0, :, 0], w[1, :, 1], training=True),
    "batch_norm_eval": lambda lib, x, w: _f(lib).batch_norm(
        x, lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64),
        lib.tensor([1.5, 0.7, 1.1], dtype=lib.float64), w[0, :, 0], None, training=False),
    "layer_norm_affine": lambda lib, x, w: _f(lib).layer_norm(x, (3, 4), w[0], w[1]),
    "group_norm": lambda lib, x, w: _f(lib).group_norm(x.reshape(3, 2, 4), 2, w[:, 0, 0]),
    "var": lambda lib, x, w: x.var(1),
    "std_keepdim": lambda lib, x, w: x.std((0, 2), keepdim=True, correction=0),
    "var_mean": lambda lib, x, w: lib.var_mean(x, 2)[0] * lib.var_mean(x, 2)[1],
    "std_mean": lambda lib, x, w: lib.std_mean(x)[0] + lib.std_mean(x)[1],
    "conv2d": lambda lib, x, w: _f(lib).conv2d(x.reshape(1, 2, 3, 4), w.reshape(2, 2, 2, 3)[:, :, :2, :2],
                                               w[0, 0, :2], padding=1),
    "max_pool": lambda lib, x, w: _f(lib).max_pool2d(x * w, 2, stride=1),
    "avg_pool": lambda lib, x, w: _f(lib).avg_pool2d(x * w, 2, stride=1, padding=1),
    "adaptive_avg": lambda lib, x, w: _f(lib).adaptive_avg_pool2d(x * w, (2, 3)),
    "adaptive_max": lambda lib, x, w: _f(lib).adaptive_max_pool2d(x * w, (2, 2)),
    "embedding": lambda lib, x, w: _f(lib).embedding(lib.tensor([[1, 0], [1, 1]]), w[0]) * 1,
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_tangents(torch, name):
    x, w, tx, tw = _rng_arrays(len(name) + 3, (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4))
    _check(torch, LAYERS[name], [x, w], [tx, tw], fd="max" not in name)
