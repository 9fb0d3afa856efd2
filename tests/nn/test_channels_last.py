"""Channels-last results against torch 2.13: the ops whose CPU kernels lay their result out
like a channels-last input (convolution, norms, pooling, interpolation, padding, the
activations, cat) give torch's strides, the same values and gradients as row-major
inputs, and an untouched grad_fn and version. NOTE [Channels-last results]."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _x(lib, c=4):
    g = np.random.default_rng(0)
    x = lib.tensor(g.standard_normal((2, c, 8, 8)).astype(np.float32))
    return x.to(memory_format=lib.channels_last)


def _w(lib, *shape):
    g = np.random.default_rng(1)
    return lib.tensor(g.standard_normal(shape).astype(np.float32))


CASES = {
    "conv2d": lambda lib, F, x: F.conv2d(x, _w(lib, 6, 4, 3, 3), padding=1),
    "conv2d_weight_only": lambda lib, F, x: F.conv2d(
        x.contiguous(), _w(lib, 6, 4, 3, 3).to(memory_format=lib.channels_last)),
    "conv2d_1x1": lambda lib, F, x: F.conv2d(x, _w(lib, 6, 4, 1, 1)),
    "conv2d_depthwise": lambda lib, F, x: F.conv2d(x, _w(lib, 4, 1, 3, 3), groups=4),
    "conv2d_one_channel": lambda lib, F, x: F.conv2d(x[:, :1], _w(lib, 2, 1, 3, 3)),
    "conv_transpose2d": lambda lib, F, x: F.conv_transpose2d(x, _w(lib, 4, 6, 3, 3)),
    "conv2d_row_major": lambda lib, F, x: F.conv2d(x.contiguous(), _w(lib, 6, 4, 3, 3)),
    "batch_norm_train": lambda lib, F, x: F.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda lib, F, x: F.batch_norm(x, lib.zeros(4), lib.ones(4)),
    "group_norm": lambda lib, F, x: F.group_norm(x, 2),
    "layer_norm": lambda lib, F, x: F.layer_norm(x, (8,)),
    "max_pool2d": lambda lib, F, x: F.max_pool2d(x, 2),
    "max_pool2d_indices": lambda lib, F, x: F.max_pool2d(x, 3, 2, ceil_mode=True,
                                                         return_indices=True)[1],
    "avg_pool2d": lambda lib, F, x: F.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda lib, F, x: F.adaptive_avg_pool2d(x, 3),
    "adaptive_max_pool2d": lambda lib, F, x: F.adaptive_max_pool2d(x, 2),
    "adaptive_max_pool2d_indices": lambda lib, F, x: F.adaptive_max_pool2d(
        x, 2, return_indices=True)[1],
    "interpolate_nearest": lambda lib, F, x: F.interpolate(x, scale_factor=2),
    "interpolate_bilinear": lambda lib, F, x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "interpolate_bicubic": lambda lib, F, x: F.interpolate(x, scale_factor=2, mode="bicubic"),
    "pad_constant": lambda lib, F, x: F.pad(x, (1, 1, 1, 1)),
    "pad_reflect": lambda lib, F, x: F.pad(x, (1, 1, 1, 1), mode="reflect"),
    "pad_replicate": lambda lib, F, x: F.pad(x, (1, 1, 1, 1), mode="replicate"),
    "pad_circular": lambda lib, F, x: F.pad(x, (1, 1, 1, 1), mode="circular"),
    "gelu": lambda lib, F, x: F.gelu(x),
    "silu": lambda lib, F, x: F.silu(x),
    "leaky_relu": lambda lib, F, x: F.leaky_relu(x),
    "hardtanh": lambda lib, F, x: F.hardtanh(x),
    "elu": lambda lib, F, x: F.elu(x),
    "logsigmoid": lambda lib, F, x: F.logsigmoid(x),
    "relu": lambda lib, F, x: F.relu(x),
    "cat_channels": lambda lib, F, x: lib.cat([x, x], 1),
    "cat_batch": lambda lib, F, x: lib.cat([x, x], 0),
    "cat_mixed": lambda lib, F, x: lib.cat([x, x.contiguous()], 1),
    "concat": lambda lib, F, x: lib.concat([x, x], 1),
    # torch: the mean, then channels-last strides given in place (version 1)
    "adaptive_avg_pool2d_to_1": lambda lib, F, x: F.adaptive_avg_pool2d(x, 1),
    "pixel_shuffle": lambda lib, F, x: F.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda lib, F, x: F.pixel_unshuffle(x, 2),
    # torch: a cat along the dim viewed with the dim split; at the end, unsqueezed inputs
    **{f"stack_{d}": (lambda d: lambda lib, F, x: lib.stack([x, x * 2], d))(d)
       for d in (-5, -1, 0, 1, 2, 3, 4)},
    "stack_mixed": lambda lib, F, x: lib.stack([x, x.contiguous()], 2),
}


def _layout(lib, case):
    x = _x(lib).requires_grad_()
    y = CASES[case](lib, lib.nn.functional, x)
    return (tuple(y.stride()), y.is_contiguous(), y.is_contiguous(memory_format=lib.channels_last),
            y._version)


@pytest.mark.parametrize("case", sorted(CASES))
def test_result_layout_matches_torch(case):
    assert _layout(gradtrack, case) == _layout(torch, case)


@pytest.mark.parametrize("case", ["conv2d", "conv_transpose2d", "batch_norm_train", "group_norm",
                                  "max_pool2d", "avg_pool2d", "interpolate_bilinear",
                                  "pad_reflect", "gelu", "cat_channels", "pixel_shuffle",
                                  "pixel_unshuffle", "stack_2"])
def test_values_and_gradients_match_row_major_and_torch(case):
    results = []
    for lib, layout in ((gradtrack, "channels_last"), (gradtrack, "contiguous_format"),
                        (torch, "channels_last")):
        x = _x(lib).to(memory_format=getattr(lib, layout)).requires_grad_()
        y = CASES[case](lib, lib.nn.functional, x)
        (y * y).sum().backward()
        results.append((type(y.grad_fn).__name__, y.detach().numpy(), x.grad.numpy()))
    (cl_name, cl_y, cl_g), (rm_name, rm_y, rm_g), (t_name, t_y, t_g) = results
    assert cl_name == rm_name == t_name
    np.testing.assert_array_equal(cl_y, rm_y)
    np.testing.assert_array_equal(cl_g, rm_g)
    np.testing.assert_allclose(cl_y, t_y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(cl_g, t_g, rtol=1e-3, atol=1e-3)


def _view_error(lib):
    y = lib.nn.functional.conv2d(_x(lib), _w(lib, 6, 4, 3, 3))
    with pytest.raises(RuntimeError) as info:
        y.view(2, -1)
    return str(info.value), tuple(y.reshape(2, -1).shape)


def test_view_of_a_channels_last_result_fails_as_torch():
    got, expected = _view_error(gradtrack), _view_error(torch)
    assert got[1] == expected[1]
    assert got[0].replace("gradtrack", "torch") == expected[0]


def test_a_resnet_block_keeps_channels_last_and_torch_numbers():
    outs = []
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        block = lib.nn.Sequential(lib.nn.Conv2d(4, 8, 3, padding=1), lib.nn.BatchNorm2d(8),
                                  lib.nn.ReLU(), lib.nn.MaxPool2d(2))
        block = block.to(memory_format=lib.channels_last)
        x = _x(lib)
        y = block(x)
        y.sum().backward()
        outs.append((y.is_contiguous(memory_format=lib.channels_last), y.detach().numpy(),
                     block[0].weight.grad.numpy(),
                     block[0].weight.is_contiguous(memory_format=lib.channels_last)))
    assert outs[0][0] and outs[1][0] and outs[0][3] == outs[1][3]
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-3, atol=1e-3)


def test_adaptive_avg_pool_to_one_pixel_records_torch_nodes():
    names = []
    for lib in (gradtrack, torch):
        x = _x(lib).requires_grad_()
        y = lib.nn.functional.adaptive_avg_pool2d(x, 1)
        node = y.grad_fn
        names.append((node.name(), node.next_functions[0][0].name()))
        (y * y).sum().backward()
        names.append(tuple(x.grad.stride()))
        names.append(np.round(x.grad.numpy(), 5).tolist())
    assert names[:3] == names[3:]
    assert names[0] == ("AsStridedBackward1", "MeanBackward1")
