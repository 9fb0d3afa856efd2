"""vmap's batched path (NOTE [vmap batching rules]): functions whose ops all have a
batching rule run once on the whole batch (checked by making the per-sample loop fail)
and give torch.func.vmap's values; a function that meets an op without a rule, draws
random numbers or mixes dtypes runs per sample and stays exact."""

import numpy as np
import pytest

import gradtrack
from gradtrack.func import _vmap

# ---- functions with a rule for every op: one batched call --------------------------------


@pytest.fixture
def no_loop(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("vmap ran the function per sample")
    monkeypatch.setattr(_vmap, "_run_samples", refuse)


@pytest.fixture
def spy_loop(monkeypatch):
    calls = []
    run = _vmap._run_samples

    def spy(*args, **kwargs):
        calls.append(1)
        return run(*args, **kwargs)
    monkeypatch.setattr(_vmap, "_run_samples", spy)
    return calls


def _x(lib, *shape, seed=0):
    g = np.random.default_rng(seed)
    return lib.tensor(g.standard_normal(shape).astype(np.float32))


def _mlp(lib):
    F = lib.nn.functional
    return lambda x, w, b: F.relu(F.linear(x, w, b)).tanh().sum()


BATCHED = {
    # elementwise: with numbers, unbatched operands of lower and higher rank, both batched
    "unary_chain": (lambda lib: (lambda a: (-a).exp().sigmoid().sqrt().log1p().abs()),
                    lambda lib: (_x(lib, 4, 3),), 0),
    "numbers": (lambda lib: (lambda a: 2.0 - a * 3 + 1 / (abs(a) + 1) ** 2),
                lambda lib: (_x(lib, 4, 3),), 0),
    "unbatched_higher_rank": (lambda lib: (lambda a, b: a * b + b),
                              lambda lib: (_x(lib, 4, 3), _x(lib, 2, 3, seed=1)), (0, None)),
    "unbatched_lower_rank": (lambda lib: (lambda a, b: a / (b.abs() + 1) - b),
                             lambda lib: (_x(lib, 4, 2, 3), _x(lib, 3, seed=1)), (0, None)),
    "both_batched_broadcast": (lambda lib: (lambda a, b: lib.maximum(a, b) if False else
                                            a.maximum(b) + a.pow(2)),
                               lambda lib: (_x(lib, 4, 2, 3), _x(lib, 4, 3, seed=1)), 0),
    "comparison": (lambda lib: (lambda a, b: (a > b).logical_and(a < 1)),
                   lambda lib: (_x(lib, 4, 3), _x(lib, 3, seed=1)), (0, None)),
    "clamp": (lambda lib: (lambda a: a.clamp(-0.5, 0.5) + a.clamp(min=0)),
              lambda lib: (_x(lib, 4, 3),), 0),
    # matrix products in every arrangement of vectors, matrices, batched or not
    "matmul_batched_matrix": (lambda lib: (lambda a, w: a @ w),
                              lambda lib: (_x(lib, 4, 2, 3), _x(lib, 3, 5, seed=1)), (0, None)),
    "matmul_batched_vector": (lambda lib: (lambda a, w: a @ w),
                              lambda lib: (_x(lib, 4, 3), _x(lib, 3, 5, seed=1)), (0, None)),
    "matmul_vector_times_batched": (lambda lib: (lambda a, w: w @ a),
                                    lambda lib: (_x(lib, 4, 3), _x(lib, 5, 3, seed=1)),
                                    (0, None)),
    "matmul_matrix_times_batched": (lambda lib: (lambda a, w: w @ a),
                                    lambda lib: (_x(lib, 4, 3, 2), _x(lib, 6, 5, 3, seed=1)),
                                    (0, None)),
    "matmul_both_batched": (lambda lib: (lambda a, b: a.matmul(b)),
                            lambda lib: (_x(lib, 4, 2, 3), _x(lib, 4, 3, 5, seed=1)), 0),
    "dot_mv_mm_bmm": (lambda lib: (lambda a, m, c: (a.dot(a), m.mv(a), m.mm(m.t()),
                                                   c.bmm(c.transpose(1, 2)))),
                      lambda lib: (_x(lib, 4, 3), _x(lib, 4, 2, 3, seed=1),
                                   _x(lib, 4, 2, 2, 3, seed=2)), 0),
    # reductions and softmax over logical dimensions
    "reductions": (lambda lib: (lambda a: (a.sum(), a.sum(0), a.sum((0, -1)), a.mean(1, True),
                                           a.amax(-1), a.max(), a.min(), a.sum(dim=-2))),
                   lambda lib: (_x(lib, 4, 2, 3),), 0),
    "softmax": (lambda lib: (lambda a: (a.softmax(0), a.log_softmax(-1),
                                        lib.nn.functional.softmax(a, dim=1),
                                        lib.nn.functional.log_softmax(a, 0))),
                lambda lib: (_x(lib, 4, 2, 3),), 0),
    # views
    "views": (lambda lib: (lambda a: (a.view(6), a.reshape(3, -1), a.unsqueeze(0).unsqueeze(-1),
                                      a.unsqueeze(1).squeeze(), a.flatten(), a.transpose(0, 1),
                                      a.permute(1, 0), a.t(), a.mT, a.T, a[1], a[:, 1:],
                                      a[None, ..., 0])),
              lambda lib: (_x(lib, 4, 2, 3),), 0),
    # layers and losses
    "linear_batched_input": (lambda lib: _mlp(lib),
                             lambda lib: (_x(lib, 4, 3), _x(lib, 5, 3, seed=1), _x(lib, 5, seed=2)),
                             (0, None, None)),
    "linear_batched_weight": (lambda lib: _mlp(lib),
                              lambda lib: (_x(lib, 3), _x(lib, 4, 5, 3, seed=1),
                                           _x(lib, 4, 5, seed=2)), (None, 0, 0)),
    "modules": (lambda lib: (lambda a: lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Sigmoid(),
                                                         lib.nn.ReLU())(a)),
                lambda lib: (_x(lib, 4, 3),), 0),
    "mse_loss": (lambda lib: (lambda a, b: (lib.nn.functional.mse_loss(a, b),
                                            lib.nn.functional.mse_loss(a, b, reduction="sum"),
                                            lib.nn.functional.mse_loss(b, a, reduction="none"))),
                 lambda lib: (_x(lib, 4, 2, 3), _x(lib, 2, 3, seed=1)), (0, None)),
    "conv2d_batched_input": (lambda lib: (lambda x, w, b: lib.nn.functional.conv2d(
        x, w, b, stride=2, padding=1)),
        lambda lib: (_x(lib, 4, 2, 3, 7, 6), _x(lib, 5, 3, 3, 3, seed=1), _x(lib, 5, seed=2)),
        (0, None, None)),
    "conv2d_unbatched_sample": (lambda lib: (lambda x, w: lib.nn.functional.conv2d(
        x, w, padding="same", dilation=2)),
        lambda lib: (_x(lib, 4, 3, 6, 6), _x(lib, 4, 3, 3, 2, seed=1)), (0, None)),
    "conv1d_batched_weight_groups": (lambda lib: (lambda x, w, b: lib.nn.functional.conv1d(
        x, w, b, groups=2)),
        lambda lib: (_x(lib, 2, 4, 9), _x(lib, 3, 6, 2, 3, seed=1), _x(lib, 3, 6, seed=2)),
        (None, 0, 0)),
    "conv3d_batched_weight": (lambda lib: (lambda x, w: lib.nn.functional.conv3d(x, w, padding=1)),
                              lambda lib: (_x(lib, 2, 2, 4, 4, 4), _x(lib, 3, 2, 2, 3, 3, 3,
                                                                      seed=1)), (None, 0)),
    "max_pool2d": (lambda lib: (lambda x: (lib.nn.functional.max_pool2d(x, 2, ceil_mode=True),
                                           lib.nn.functional.max_pool2d(x[0], 3, 1, 1,
                                                                        return_indices=True))),
                   lambda lib: (_x(lib, 3, 2, 2, 5, 5),), 0),
    "conv2d_both_batched": (lambda lib: (lambda x, w: lib.nn.functional.conv2d(x, w, stride=(1, 2))),
                            lambda lib: (_x(lib, 3, 2, 2, 5, 5), _x(lib, 3, 4, 2, 2, 3, seed=1)),
                            0),
    "in_dims_1_out_dims_1": (lambda lib: (lambda a, b: a @ b),
                             lambda lib: (_x(lib, 3, 4), _x(lib, 3, 2, seed=1)), (1, None)),
}


def _run(lib, name, out_dims=0):
    make_fn, make_args, in_dims = BATCHED[name]
    return lib.func.vmap(make_fn(lib), in_dims=in_dims, out_dims=out_dims)(*make_args(lib))


def _assert_same(ours, theirs, rtol=1e-5, atol=1e-6):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _assert_same(o, t, rtol, atol)
        return
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for k in theirs:
            _assert_same(ours[k], theirs[k], rtol, atol)
        return
    assert list(ours.shape) == list(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_batched_call_matches_torch(name, torch, no_loop):
    _assert_same(_run(gradtrack, name), _run(torch, name))


def test_out_dims_move_the_batch(torch, no_loop):
    for name in ("matmul_batched_matrix", "in_dims_1_out_dims_1"):
        _assert_same(_run(gradtrack, name, out_dims=-1), _run(torch, name, out_dims=-1))
        _assert_same(_run(gradtrack, name, out_dims=1), _run(torch, name, out_dims=1))


def test_unbatched_output_is_repeated_along_the_batch(torch, no_loop):
    def run(lib):
        return lib.func.vmap(lambda a, w: (a * 2, w + 1), in_dims=(0, None),
                             out_dims=(1, 0))(_x(lib, 4, 3), _x(lib, 2, seed=1))
    _assert_same(run(gradtrack), run(torch))


def test_results_are_torch_s_views_and_nodes(torch, no_loop):
    for lib in (gradtrack, torch):
        x = lib.ones(3, 2, requires_grad=True)
        same = lib.func.vmap(lambda a: a)(x)
        assert same is x  # as torch: the batched input itself, no copy
        base = lib.ones(3, 2)
        view = lib.func.vmap(lambda a: a.view(2, 1), out_dims=(0,))(base)
        view[0, 0, 0] = 5.0  # a view of the input, as torch's
        assert view.shape == (3, 2, 1) and base[0, 0].item() == 5.0
        names = [type(lib.func.vmap(f)(x).grad_fn).__name__
                 for f in (lambda a: a * 2, lambda a: a.sum(), lambda a: a.exp())]
        assert names == ["MulBackward0", "SumBackward1", "ExpBackward0"]


def test_gradient_flows_back_through_the_batched_call(torch, no_loop):
    def run(lib):
        x = _x(lib, 4, 3).requires_grad_()
        w = _x(lib, 3, 2, seed=1).requires_grad_()
        lib.func.vmap(lambda a: (a @ w).tanh().sum(), in_dims=0)(x).pow(2).sum().backward()
        return x.grad, w.grad
    _assert_same(run(gradtrack), run(torch))


# ---- per-sample gradients ----------------------------------------------------------------

def _per_sample(lib, argnums=0, has_aux=False, in_dims=(None, 0, 0)):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = lib.randn(16, 5), lib.randint(0, 3, (16,))
    if in_dims[0] == 0:
        params = {k: v.unsqueeze(0).expand(16, *v.shape).clone() for k, v in params.items()}

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        value = lib.nn.functional.cross_entropy(out, yi.unsqueeze(0))
        return (value, out.sum()) if has_aux else value
    fn = lib.func.grad(loss, argnums=argnums, has_aux=has_aux)
    return lib.func.vmap(fn, in_dims=in_dims)(params, x, y)


@pytest.mark.parametrize("variant", ["params", "params_and_input", "aux", "batched_params"])
def test_per_sample_gradients_in_one_call_match_torch_and_the_loop(variant, torch, monkeypatch):
    kwargs = {"params": {}, "params_and_input": {"argnums": (0, 1)}, "aux": {"has_aux": True},
              "batched_params": {"in_dims": (0, 0, 0)}}[variant]
    theirs = _per_sample(torch, **kwargs)
    looped = []
    monkeypatch.setattr(_vmap, "_run_batched", lambda *a: looped.append(1) or _vmap._FALLBACK)
    by_loop = _per_sample(gradtrack, **kwargs)
    assert looped
    monkeypatch.undo()
    with monkeypatch.context() as m:
        m.setattr(_vmap, "_run_samples", lambda *a: pytest.fail("ran per sample"))
        ours = _per_sample(gradtrack, **kwargs)
    _assert_same(ours, theirs)
    _assert_same(ours, by_loop, rtol=1e-6, atol=1e-7)


def _cnn_per_sample(lib):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(0), nn.Linear(4 * 2 * 2, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = lib.randn(8, 2, 5, 5), lib.randint(0, 3, (8,))

    def loss(p, xi, yi):
        return nn.functional.cross_entropy(lib.func.functional_call(model, p, (xi,)), yi)
    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)


def test_per_sample_gradients_of_a_cnn_match_torch(torch, no_loop):
    _assert_same(_cnn_per_sample(gradtrack), _cnn_per_sample(torch))


def test_per_sample_gradients_of_parameters_that_require_grad_keep_their_graph(torch,
                                                                                no_loop):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        params = dict(model.named_parameters())
        x = lib.randn(5, 3)

        def loss(p, xi):
            return (lib.func.functional_call(model, p, (xi,)) ** 2).sum()
        grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(params, x)
        flags = [g.requires_grad for g in grads.values()]
        sum(g.pow(2).sum() for g in grads.values()).backward()  # through the gradients
        return grads, flags, [p.grad for p in model.parameters()]
    (ours, ours_flags, ours_second), (theirs, their_flags, their_second) = run(gradtrack), run(torch)
    assert ours_flags == their_flags == [True] * 4
    _assert_same(ours, theirs)
    _assert_same(ours_second, their_second)


def test_cross_entropy_rule_ignores_as_torch(torch, no_loop):
    def run(lib, reduction):
        F = lib.nn.functional
        logits, labels = _x(lib, 4, 3, 5), lib.tensor([[0, 1, 4], [2, 2, 2], [4, 3, 1],
                                                         [1, 0, 3]])
        return lib.func.vmap(lambda a, t: F.cross_entropy(a, t, ignore_index=2,
                                                          reduction=reduction))(logits, labels)
    for reduction in ("mean", "sum", "none"):
        _assert_same(run(gradtrack, reduction), run(torch, reduction))


# ---- what runs per sample ----------------------------------------------------------------

FALLBACKS = {
    "free_function_without_rule": lambda lib: lib.func.vmap(lambda a: lib.cumsum(a, 0) * 2)(
        _x(lib, 4, 3)),
    "method_without_rule": lambda lib: lib.func.vmap(lambda a: a.cumsum(0).sum())(_x(lib, 4, 3)),
    "index_by_tensor": lambda lib: lib.func.vmap(lambda a: a[lib.tensor([2, 0])])(_x(lib, 4, 3)),
    "in_place_method": lambda lib: lib.func.vmap(lambda a: a.clone().mul_(2) + 1)(_x(lib, 4, 3)),
    "mixed_dtypes": lambda lib: lib.func.vmap(lambda a, s: a * s)(
        _x(lib, 4, 3), lib.arange(4.0, dtype=lib.float64)),
    "nested_vmap": lambda lib: lib.func.vmap(lib.func.vmap(lambda a, b: a @ b))(
        _x(lib, 4, 2, 3), _x(lib, 4, 2, 3, seed=1)),
    "random_draw_same": lambda lib: (lib.manual_seed(0), lib.func.vmap(
        lambda a: a * 2 + lib.rand(3), randomness="same")(_x(lib, 4, 3)), lib.rand(2))[1:],
    "random_draw_different": lambda lib: (lib.manual_seed(0), lib.func.vmap(
        lambda a: (a * 2).exp() * lib.rand(3), randomness="different")(_x(lib, 4, 3)),
        lib.rand(2))[1:],
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_a_function_without_rules_runs_per_sample_exactly(name, torch, spy_loop):
    ours = FALLBACKS[name](gradtrack)
    assert spy_loop, "expected the per-sample loop"
    _assert_same(ours, FALLBACKS[name](torch))


def test_data_dependent_branch_runs_per_sample(spy_loop):
    # torch refuses a tensor's truth value under vmap; gradtrack runs the samples one by one
    x = _x(gradtrack, 4, 3)
    out = gradtrack.func.vmap(lambda a: a * 2 if a.sum() > 0 else a - 1)(x)
    assert spy_loop
    for a, o in zip(x, out):
        assert o.tolist() == (a * 2 if a.sum() > 0 else a - 1).tolist()


def test_random_draw_in_error_mode_raises_and_leaves_the_generator(torch):
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        with pytest.raises(RuntimeError, match="randomness error mode"):
            lib.func.vmap(lambda a: (a * 2).sum() + lib.rand(()))(_x(lib, 4, 3))
    assert gradtrack.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())


def test_side_effect_free_fallback_leaves_captured_tensors_alone():
    buf = gradtrack.zeros(3)
    # the batched try refuses the write (a batched value reaches the core's add_), so
    # only the per-sample calls write: once per sample, as the loop always did
    gradtrack.func.vmap(lambda a: buf.add_(a))(gradtrack.ones(4, 3))
    assert buf.tolist() == [4.0, 4.0, 4.0]
