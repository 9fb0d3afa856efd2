"""nn.utils' batch-norm folding (fusion), skip_init and the conv weight memory-format
conversions: the folded layer against the unfolded pair, and every result, flag and
error against torch 2.13."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _arrays(seed=0, out_channels=4, weight_shape=(4, 3, 3, 3)):
    rs = np.random.RandomState(seed)
    return {"w": rs.randn(*weight_shape), "b": rs.randn(out_channels),
            "rm": rs.randn(out_channels), "rv": rs.rand(out_channels) + 0.1,
            "bn_w": rs.rand(out_channels) + 0.5, "bn_b": rs.randn(out_channels)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("missing", [(), ("b",), ("bn_w", "bn_b")])
def test_fuse_conv_bn_weights_match_torch_bit_for_bit(torch, dtype, transpose, missing):
    arrays = _arrays(weight_shape=(3, 4, 3, 3) if transpose else (4, 3, 3, 3))

    def run(lib):
        t = {k: None if k in missing else lib.tensor(v, dtype=getattr(lib, dtype))
             for k, v in arrays.items()}
        t["w"].requires_grad_()
        w, b = lib.nn.utils.fuse_conv_bn_weights(t["w"], t["b"], t["rm"], t["rv"], 1e-3,
                                                 t["bn_w"], t["bn_b"], transpose)
        return [(p.detach().numpy(), type(p).__name__, p.dtype == getattr(lib, dtype),
                 p.requires_grad, p.is_leaf) for p in (w, b)]

    for ours, theirs in zip(run(gradtrack), run(torch)):
        np.testing.assert_array_equal(ours[0], theirs[0])
        assert ours[1:] == theirs[1:]


@pytest.mark.parametrize("with_bias", [True, False])
def test_fuse_linear_bn_weights_match_torch_bit_for_bit(torch, with_bias):
    arrays = _arrays(weight_shape=(4, 5))

    def run(lib):
        t = {k: lib.tensor(v, dtype=lib.float32) for k, v in arrays.items()}
        w, b = lib.nn.utils.fuse_linear_bn_weights(t["w"].requires_grad_(),
                                                   t["b"] if with_bias else None, t["rm"],
                                                   t["rv"], 1e-5, t["bn_w"], t["bn_b"])
        return [(p.detach().numpy(), p.requires_grad) for p in (w, b)]

    for ours, theirs in zip(run(gradtrack), run(torch)):
        np.testing.assert_array_equal(ours[0], theirs[0])
        assert ours[1] == theirs[1]


def _pair(lib, kind):
    """An eval-mode layer and batch norm whose tensors come from numpy (the same in
    both libraries), and an input."""
    nn = lib.nn
    if kind == "conv":
        layer, bn, x_shape = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), (2, 3, 6, 6)
    elif kind == "conv_transpose":
        layer, bn, x_shape = nn.ConvTranspose2d(3, 4, 3), nn.BatchNorm2d(4), (2, 3, 5, 5)
    else:
        layer, bn, x_shape = nn.Linear(5, 4), nn.BatchNorm1d(4), (8, 5)
    a = _arrays(1, 4, tuple(layer.weight.shape))
    layer.load_state_dict({"weight": lib.tensor(a["w"], dtype=lib.float32),
                           "bias": lib.tensor(a["b"], dtype=lib.float32)})
    with lib.no_grad():
        for name, key in (("running_mean", "rm"), ("running_var", "rv"), ("weight", "bn_w"),
                          ("bias", "bn_b")):
            getattr(bn, name).copy_(lib.tensor(a[key], dtype=lib.float32))
    x = lib.tensor(np.random.RandomState(2).randn(*x_shape), dtype=lib.float32)
    return layer.eval(), bn.eval(), x


@pytest.mark.parametrize("kind", ["conv", "conv_transpose", "linear"])
def test_fused_layer_gives_the_pair_output_and_torch_parameters(torch, kind):
    def run(lib):
        layer, bn, x = _pair(lib, kind)
        before = layer.weight.detach().clone()
        if kind == "linear":
            fused = lib.nn.utils.fuse_linear_bn_eval(layer, bn)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=kind == "conv_transpose")
        with lib.no_grad():
            y, want = fused(x), bn(layer(x))
        np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
        assert fused is not layer and bool((layer.weight == before).all())
        return [fused.weight.detach().numpy(), fused.bias.detach().numpy(), type(fused).__name__,
                fused.training, fused.weight.requires_grad]

    ours, theirs = run(gradtrack), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert ours[2:] == theirs[2:]


ERRORS = {
    "training_layer": lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1),
                                                                 lib.nn.BatchNorm2d(2).eval()),
    "training_bn": lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(1, 2).eval(),
                                                                lib.nn.BatchNorm1d(2)),
    "no_statistics": lambda lib: lib.nn.utils.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 2, 1).eval(), lib.nn.BatchNorm2d(2, track_running_stats=False).eval()),
    "linear_features": lambda lib: lib.nn.utils.fuse_linear_bn_eval(
        lib.nn.Linear(1, 3).eval(), lib.nn.BatchNorm1d(2).eval()),
    "skip_init_not_a_module": lambda lib: lib.nn.utils.skip_init(int),
    "skip_init_no_device": lambda lib: lib.nn.utils.skip_init(lib.nn.ReLU),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


def test_fusion_with_a_one_feature_batch_norm(torch):
    def run(lib):
        lib.manual_seed(0)
        layer, bn = lib.nn.Linear(3, 4).eval(), lib.nn.BatchNorm1d(1).eval()
        with lib.no_grad():
            bn.running_mean.fill_(0.5)
            bn.running_var.fill_(2.0)
        fused = lib.nn.utils.fuse_linear_bn_eval(layer, bn)
        return fused.weight.shape, fused.bias.shape

    assert run(gradtrack) == run(torch)


def test_skip_init_leaves_the_generator_as_torch_does(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, bias=False)
        m2 = lib.nn.utils.skip_init(lib.nn.Linear, in_features=2, out_features=4)
        return (lib.randn(4).numpy().tolist(), tuple(m.weight.shape), m.bias,
                tuple(m2.weight.shape), tuple(m2.bias.shape), m.weight.requires_grad,
                type(m.weight).__name__)

    assert run(gradtrack) == run(torch)


@pytest.mark.parametrize("dims", [2, 3])
def test_conv_weight_memory_format_as_torch(torch, dims):
    def run(lib):
        nn = lib.nn
        conv = getattr(nn, f"Conv{dims}d")
        convt = getattr(nn, f"ConvTranspose{dims}d")
        lib.manual_seed(0)
        model = nn.Sequential(conv(2, 4, 3), nn.Sequential(nn.ReLU(), convt(4, 3, 2)),
                              nn.Linear(3, 3), getattr(nn, f"Conv{5 - dims}d")(3, 3, 1))
        before = [p.detach().clone() for p in model.parameters()]
        fmt = lib.channels_last if dims == 2 else lib.channels_last_3d
        convert = getattr(lib.nn.utils, f"convert_conv{dims}d_weight_memory_format")
        returned = convert(model, fmt)
        after = list(model.parameters())
        return (returned is model,
                [p.is_contiguous(memory_format=fmt) if p.dim() == dims + 2 else p.is_contiguous()
                 for p in after],
                [p.stride() for p in after], [type(p).__name__ for p in after],
                all(bool((a == b).all()) for a, b in zip(after, before)))

    assert run(gradtrack) == run(torch)
