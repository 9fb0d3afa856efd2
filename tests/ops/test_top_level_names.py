"""torch's top-level names of layers (``torch.conv2d``, ``torch.batch_norm``, ...) and of
in-place methods (``torch.abs_``): each gives what torch's gives, compared value by value
with the gradients of every input, ``grad_fn`` names and ``_version``."""

import numpy as np
import pytest

import gradtrack


def _t(lib, shape, seed, requires_grad=True, positive=False):
    values = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        values = np.abs(values) + 0.5
    return lib.tensor(values, dtype=lib.float64, requires_grad=requires_grad)


# name: fn(lib) -> (output, [inputs whose gradients are compared])
LAYERS = {
    "conv1d": lambda t: _with(t, lambda x, w, b: t.conv1d(x, w, b, 2, 1, 1, 1),
                              (2, 2, 7), (3, 2, 3), (3,)),
    "conv2d": lambda t: _with(t, lambda x, w: t.conv2d(x, w, None, 1, 1, 2, 2),
                              (1, 4, 6, 6), (2, 2, 3, 3)),
    "conv3d": lambda t: _with(t, lambda x, w: t.conv3d(x, w), (1, 1, 3, 3, 3), (2, 1, 2, 2, 2)),
    "conv_transpose1d": lambda t: _with(t, lambda x, w: t.conv_transpose1d(x, w, None, 2, 1, 1),
                                        (1, 2, 4), (2, 3, 3)),
    "conv_transpose2d": lambda t: _with(t, lambda x, w: t.conv_transpose2d(x, w, stride=2),
                                        (1, 2, 3, 3), (2, 1, 2, 2)),
    "conv_transpose3d": lambda t: _with(t, lambda x, w: t.conv_transpose3d(x, w),
                                        (1, 1, 2, 2, 2), (1, 2, 2, 2, 2)),
    "batch_norm": lambda t: _with(t, lambda x, w, b: t.batch_norm(
        x, w, b, t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64), True, 0.1, 1e-5,
        True), (4, 3, 2), (3,), (3,)),
    "batch_norm_eval": lambda t: _with(t, lambda x: t.batch_norm(
        x, None, None, t.full((3,), 0.5, dtype=t.float64), t.full((3,), 2.0, dtype=t.float64),
        False, 0.1, 1e-5, False), (4, 3)),
    "instance_norm": lambda t: _with(t, lambda x, w: t.instance_norm(
        x, w, None, None, None, True, 0.1, 1e-5, False), (2, 3, 4), (3,)),
    "layer_norm": lambda t: _with(t, lambda x, w, b: t.layer_norm(x, [4], w, b, 1e-3),
                                  (3, 4), (4,), (4,)),
    "group_norm": lambda t: _with(t, lambda x, w: t.group_norm(x, 2, w), (2, 4, 3), (4,)),
    "rms_norm": lambda t: _with(t, lambda x, w: t.rms_norm(x, (3,), w, 1e-6), (2, 3), (3,)),
    "dropout_train": lambda t: _seeded(t, lambda x: t.dropout(x, 0.4, True), (5, 4)),
    "dropout_eval": lambda t: _with(t, lambda x: t.dropout(x, 0.4, False), (5, 4)),
    "alpha_dropout_train": lambda t: _seeded(t, lambda x: t.alpha_dropout(x, 0.3, True), (6,)),
    "feature_alpha_dropout_train": lambda t: _seeded(
        t, lambda x: t.feature_alpha_dropout(x, 0.5, True), (2, 4, 3)),
    "dropout_": lambda t: _seeded(t, lambda x: t.dropout_(x * 1, 0.4, True), (5, 4)),
    "alpha_dropout_": lambda t: _seeded(t, lambda x: t.alpha_dropout_(x * 1, 0.3, True), (6,)),
    "feature_alpha_dropout_": lambda t: _seeded(
        t, lambda x: t.feature_alpha_dropout_(x * 1, 0.5, True), (2, 4, 3)),
    "selu": lambda t: _with(t, t.selu, (3, 4)),
    "selu_": lambda t: _with(t, lambda x: t.selu_(x * 1), (3, 4)),
    "celu": lambda t: _with(t, lambda x: t.celu(x, 0.7), (3, 4)),
    "celu_": lambda t: _with(t, lambda x: t.celu_(x * 1, 1.5), (3, 4)),
    "threshold": lambda t: _with(t, lambda x: t.threshold(x, 0.1, -2.0), (3, 4)),
    "hardshrink": lambda t: _with(t, lambda x: t.hardshrink(x, 0.6), (3, 4)),
    "prelu": lambda t: _with(t, t.prelu, (2, 3, 2), (3,)),
    "pixel_shuffle": lambda t: _with(t, lambda x: t.pixel_shuffle(x, 2), (1, 8, 2, 3)),
    "pixel_unshuffle": lambda t: _with(t, lambda x: t.pixel_unshuffle(x, 2), (1, 2, 4, 2)),
    "channel_shuffle": lambda t: _with(t, lambda x: t.channel_shuffle(x, 3), (2, 6, 2)),
    "pdist": lambda t: _with(t, lambda x: t.pdist(x, 1.5), (4, 3)),
    "pairwise_distance": lambda t: _with(t, lambda a, b: t.pairwise_distance(a, b, 3, 1e-4, True),
                                         (3, 4), (3, 4)),
    "bilinear": lambda t: _with(t, t.bilinear, (3, 2), (3, 4), (5, 2, 4), (5,)),
    "embedding": lambda t: _with(t, lambda w: t.embedding(w, t.tensor([[0, 2], [2, 3]])),
                                 (4, 3)),
    "max_pool1d": lambda t: _with(t, lambda x: t.max_pool1d(x, 3, 2, 1), (2, 3, 8)),
    "max_pool2d": lambda t: _with(t, lambda x: t.max_pool2d(x, 2), (1, 2, 4, 5)),
    "max_pool3d": lambda t: _with(t, lambda x: t.max_pool3d(x, 2, ceil_mode=True), (1, 1, 3, 4, 4)),
    "max_pool1d_with_indices": lambda t: _with(
        t, lambda x: _values(t.max_pool1d_with_indices(x, 2, dilation=2)), (2, 7)),
    "avg_pool1d": lambda t: _with(t, lambda x: t.avg_pool1d(x, 3, 2, 1, False, False), (1, 2, 8)),
    "adaptive_avg_pool1d": lambda t: _with(t, lambda x: t.adaptive_avg_pool1d(x, 3), (2, 7)),
    "adaptive_max_pool1d": lambda t: _with(t, lambda x: _values(t.adaptive_max_pool1d(x, 3)),
                                           (2, 7)),
    "embedding_padding_idx": lambda t: _with(
        t, lambda w: t.embedding(w, t.tensor([0, 2, 2, 1]), 2, True), (4, 3)),
}


def _with(lib, fn, *shapes):
    inputs = [_t(lib, shape, seed) for seed, shape in enumerate(shapes)]
    return fn(*inputs), inputs


def _values(pair):
    """The values of ATen's (values, indices) tuple, once the tuple is checked."""
    assert type(pair) is tuple and len(pair) == 2
    return pair[0] + pair[1].to(pair[0].dtype) * 1000  # the indices count in the values


def _seeded(lib, fn, shape):
    lib.manual_seed(7)
    return _with(lib, fn, shape)


def _facts(lib, case):
    out, inputs = LAYERS[case](lib)
    weights = _t(lib, tuple(out.shape), 99, requires_grad=False)
    grads = lib.autograd.grad((out * weights).sum(), inputs, allow_unused=True)
    return (out.detach().numpy(), type(out.grad_fn).__name__ if out.grad_fn else None,
            [None if g is None else g.numpy() for g in grads])


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_layer_names_match_torch(torch, case):
    mine, theirs = _facts(gradtrack, case), _facts(torch, case)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-10, atol=1e-12)
    assert mine[1] == theirs[1]
    for g, h in zip(mine[2], theirs[2]):
        assert (g is None) == (h is None)
        if g is not None:
            # celu's gradient is computed in another order than torch's (1e-8 apart)
            np.testing.assert_allclose(g, h, rtol=1e-7, atol=1e-12)


INPLACE = ["abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
           "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_",
           "deg2rad_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_",
           "i0_", "log10_", "log1p_", "log2_", "log_", "neg_", "negative_", "rad2deg_",
           "reciprocal_", "relu_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
           "square_", "tan_", "tanh_", "trunc_", "zero_", "detach_"]
# inputs inside each function's domain
_DOMAIN = {"acosh_": 1.5, "arccosh_": 1.5, "acos_": 0.0, "arccos_": 0.0, "asin_": 0.0,
           "arcsin_": 0.0, "atanh_": 0.0, "arctanh_": 0.0}


def _inplace_facts(lib, name, *args, **kwargs):
    values = np.array([0.3, 0.6, 0.9]) + _DOMAIN.get(name, 0.0)
    leaf = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    x = leaf * 1
    result = getattr(lib, name)(x, *args, **kwargs)
    grad_fn = type(x.grad_fn).__name__ if x.grad_fn else None
    grad = None
    if x.requires_grad:
        try:
            (grad,) = lib.autograd.grad(x.sum(), leaf)
            grad = grad.numpy()
        except NotImplementedError as e:  # torch has no derivative of acosh_, asinh_, atanh_
            grad = str(e)
    return result is x, x.detach().numpy(), x._version, grad_fn, grad


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_functions_match_torch(torch, name):
    mine, theirs = _inplace_facts(gradtrack, name), _inplace_facts(torch, name)
    assert mine[0] is True and theirs[0] is True
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12)
    assert mine[2:4] == theirs[2:4]
    if isinstance(theirs[4], str):
        assert mine[4] == theirs[4]
    elif theirs[4] is not None:
        np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-12)


@pytest.mark.parametrize("name,args,kwargs", [
    ("clamp_", (0.4, 0.8), {}), ("clip_", (), {"max": 0.5}), ("clamp_min_", (0.5,), {}),
    ("clamp_max_", (0.5,), {}), ("fill_", (2.5,), {}), ("nan_to_num_", (1.0,), {}),
    ("round_", (), {}), ("logit_", (), {}), ("logit_", (0.35,), {}),
    ("xlogy_", ("tensor", [0.0, 2.0, 0.5]), {}), ("ldexp_", ("tensor", [1, -2, 3]), {}),
])
def test_inplace_functions_with_arguments_match_torch(torch, name, args, kwargs):
    def made(lib):  # ("tensor", values): the other operand, a tensor of each library
        return (lib.tensor(args[1]),) if args[:1] == ("tensor",) else args
    mine = _inplace_facts(gradtrack, name, *made(gradtrack), **kwargs)
    theirs = _inplace_facts(torch, name, *made(torch), **kwargs)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12)
    assert mine[2:4] == theirs[2:4]
    np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-12)


def test_addmv_function_matches_torch(torch):
    out = []
    for lib in (gradtrack, torch):
        x = _t(lib, (2,), 0) * 1
        m, v = _t(lib, (2, 3), 1), _t(lib, (3,), 2)
        lib.addmv_(x, m, v, beta=0.5, alpha=2.0)
        (gm,) = lib.autograd.grad(x.sum(), m)
        out.append((x.detach().numpy(), type(x.grad_fn).__name__, x._version, gm.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    assert out[0][1:3] == out[1][1:3]
    np.testing.assert_allclose(out[0][3], out[1][3], rtol=1e-12)


@pytest.mark.parametrize("name,args", [("fix_", ()), ("swapaxes_", (0, 1)),
                                       ("swapdims_", (1, 0))])
def test_tensor_inplace_aliases_match_torch(torch, name, args):
    out = []
    for lib in (gradtrack, torch):
        leaf = _t(lib, (2, 3), 0)
        x = leaf * 2
        r = getattr(x, name)(*args)
        (g,) = lib.autograd.grad((x * _t(lib, tuple(x.shape), 1, False)).sum(), leaf)
        out.append((r is x, tuple(x.shape), x.stride(), x._version, type(x.grad_fn).__name__,
                    x.detach().numpy().tolist(), g.numpy().tolist()))
    assert out[0] == out[1]


def test_inplace_function_refuses_a_leaf_as_torch(torch):
    raised = []
    for lib in (gradtrack, torch):
        with pytest.raises(RuntimeError) as info:
            lib.sin_(lib.ones(2, requires_grad=True))
        raised.append(str(info.value).split("\n")[0])
    assert raised[0] == raised[1]


def test_threshold_function_matches_torch(torch):
    # (the node differs: CopyBackwards over ThresholdBackward0 where torch records
    # ThresholdBackward1, NOTE in nn/_functional_activations.py; the values, gradient and
    # version are torch's)
    mine = _inplace_facts(gradtrack, "threshold_", 0.5, -1.0)
    theirs = _inplace_facts(torch, "threshold_", 0.5, -1.0)
    assert mine[0] is True and theirs[0] is True
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12)
    assert mine[2] == theirs[2]
    np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-12)


def _native_channel_shuffle(lib):
    x = _t(lib, (2, 6, 2), 3)
    out = lib.native_channel_shuffle(x, 3)
    facts = [out.detach().numpy().tolist(), type(out.grad_fn).__name__,
             out.grad_fn.name().replace("torch", "gradtrack"), out.is_contiguous(),
             out._base is None, lib.nn.functional.native_channel_shuffle(x, 2).grad_fn.name()]
    for call in (lambda: out.sum().backward(),
                 lambda: lib.native_channel_shuffle(x[0, 0], 2),
                 lambda: lib.native_channel_shuffle(x, 4),
                 lambda: lib.native_channel_shuffle(x, 0)):
        try:
            call()
            facts.append(None)
        except RuntimeError as e:
            facts.append(str(e))
    import importlib
    fwad = importlib.import_module(f"{lib.__name__}.autograd.forward_ad")
    with fwad.dual_level():
        dual = fwad.make_dual(x.detach(), lib.ones_like(x))
        try:
            lib.native_channel_shuffle(dual, 2)
            facts.append(None)
        except NotImplementedError as e:
            facts.append(str(e))
    return facts


def test_native_channel_shuffle_matches_torch(torch):
    mine, theirs = _native_channel_shuffle(gradtrack), _native_channel_shuffle(torch)
    assert mine[0] == theirs[0]
    assert mine[1:5] == theirs[1:5]
    assert mine[5].replace("gradtrack", "torch") == theirs[5]
    assert mine[6:] == theirs[6:]
