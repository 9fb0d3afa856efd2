"""Forward-mode AD of the losses and the layers beyond the op table: mse, l1, smooth_l1,
huber, binary cross entropy (with logits, weights, pos_weight), kl_div, nll_loss and
cross_entropy (weights, ignore_index, label smoothing, probabilities) in every reduction,
and batch/layer/group norm, var/std and var_mean/std_mean, conv2d, the pools and
embedding; each tangent compared with torch 2.13's and with finite differences.
"""

import pytest


from forward_ad_checks import check_tangent, rng_arrays


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
    x, y, tx, ty = rng_arrays(len(name), (4, 3), (4, 3), (4, 3), (4, 3))
    fn = PAIR_LOSSES[name]
    check_tangent(torch, lambda lib, a, b: fn(lib, a, b, reduction), [x, y], [tx, ty if both else None])


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
    x, tx = rng_arrays(7, (4, 5), (4, 5))

    def fn(lib, a):
        tg = lib.tensor([1, 4, 2, 0])
        w = lib.tensor([0.5, 2.0, 1.0, 1.5, 0.7], dtype=lib.float64)
        return CLASS_LOSSES[name](lib, a, tg, w)

    check_tangent(torch, fn, [x], [tx], fd="probs" not in name)


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
    x, w, tx, tw = rng_arrays(len(name) + 3, (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4))
    check_tangent(torch, LAYERS[name], [x, w], [tx, tw], fd="max" not in name)
