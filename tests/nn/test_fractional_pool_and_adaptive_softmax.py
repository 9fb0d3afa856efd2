"""Fractional max pooling (the same samples give torch's windows, values, indices and
gradients; without samples, torch's draws from the same seed), the adaptive softmax's
outputs, log_prob and predict, SyncBatchNorm and DataParallel on a CPU build, against torch."""

import numpy as np
import pytest

import gradtrack

from helpers import error_of

torch = pytest.importorskip("torch")


def _both(fn):
    return fn(torch), fn(gradtrack)


def _x(lib, shape, seed=0, dtype="float32"):
    values = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,shape,kernel,kwargs", [
    (2, (2, 3, 9, 11), (3, 2), {"output_size": (4, 5)}),
    (2, (3, 10, 7), 2, {"output_ratio": (0.5, 0.5)}),
    (2, (1, 2, 25, 25), 3, {"output_size": 11}),
    (3, (2, 2, 6, 7, 5), 2, {"output_size": (3, 4, 2)}),
    (3, (2, 6, 6, 6), (2, 3, 2), {"output_ratio": (0.5, 0.5, 0.6)}),
])
def test_fractional_max_pool_matches_torch(nd, shape, kernel, kwargs, dtype):
    planes = (shape[0] if len(shape) == nd + 2 else 1, shape[-nd - 1], nd)
    samples = np.random.default_rng(2).uniform(0, 1, size=planes)

    def run(lib):
        x = _x(lib, shape, dtype=dtype)
        fn = getattr(lib.nn.functional, f"fractional_max_pool{nd}d")
        out, idx = fn(x, kernel, return_indices=True,
                      _random_samples=lib.tensor(samples, dtype=x.dtype), **kwargs)
        grad = np.random.default_rng(4).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(grad, dtype=x.dtype))
        return out, idx, x.grad

    (t_out, t_idx, t_grad), (g_out, g_idx, g_grad) = _both(run)
    assert g_out.grad_fn.name() == t_out.grad_fn.name()
    assert g_idx.dtype == gradtrack.int64
    np.testing.assert_array_equal(g_idx.numpy(), t_idx.numpy())
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    np.testing.assert_allclose(g_grad.numpy(), t_grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fractional_max_pool_in_reduced_precision_places_windows_as_torch(dtype):
    # torch's kernel rounds each step of the window arithmetic to the input's type
    samples = np.random.default_rng(5).uniform(0, 1, size=(4, 8, 2))

    def run(lib):
        x = lib.tensor(np.random.default_rng(6).standard_normal((4, 8, 37, 29)),
                       dtype=getattr(lib, dtype))
        out, idx = lib.nn.functional.fractional_max_pool2d(
            x, 3, output_size=(13, 11), return_indices=True,
            _random_samples=lib.tensor(samples, dtype=getattr(lib, dtype)))
        return out.float().numpy(), idx.numpy()

    t, g = _both(run)
    np.testing.assert_array_equal(g[1], t[1])
    np.testing.assert_array_equal(g[0], t[0])


def test_fractional_max_pool_draws_its_samples_as_torch():
    def run(lib):
        lib.manual_seed(7)
        pool = lib.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.6))
        x = _x(lib, (2, 3, 10, 10))
        first = pool(x)
        return first.detach().numpy(), lib.rand(2).numpy(), repr(pool)

    t, g = _both(run)
    np.testing.assert_array_equal(g[0], t[0])
    np.testing.assert_array_equal(g[1], t[1])  # the stream continues where torch's does
    assert g[2] == t[2]


def test_fractional_max_pool_ties_and_nans_as_torch():
    x = np.zeros((1, 1, 6, 6), dtype=np.float32)
    x[0, 0, 1, 1] = x[0, 0, 2, 2] = np.nan
    samples = [[[0.3, 0.7]]]

    def run(lib):
        return lib.nn.functional.fractional_max_pool2d(
            lib.tensor(x), 3, output_size=3, return_indices=True,
            _random_samples=lib.tensor(samples))

    t, g = _both(run)
    np.testing.assert_array_equal(g[1].numpy(), t[1].numpy())
    np.testing.assert_array_equal(g[0].numpy(), t[0].numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 9), 3,
                                                        output_size=(6, 8)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 9), 2,
                                                        output_size=(3, 9)),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.ones(1, 2, 4, 4, 4), 2,
                                                        output_size=(2, 4, 2)),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.ones(1, 2, 4, 4, 4), 2,
                                                        output_size=(4, 4, 4)),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.ones(1, 2, 4, 4, 4), 2,
                                                        output_size=(2, 2, 4)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(1, 2, 7, 9), 2, output_size=2, _random_samples=lib.rand(1, 2, 3)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 9), 2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(7, 9), 2, output_size=3),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 9), 2,
                                                        output_ratio=0.5),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(1, 2, 6, 6), 2, output_size=3, _random_samples=lib.rand(1, 2, 3).double()),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(1, 2, 6, 6).long(), 2, output_size=3, _random_samples=lib.ones(1, 2, 2).long()),
    lambda lib: lib.nn.functional.fractional_max_pool3d(
        lib.ones(1, 2, 6, 6, 6).long(), 2, output_size=3,
        _random_samples=lib.ones(1, 2, 3).long()),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(2, 2, 6, 6), 2, output_size=3, _random_samples=lib.rand(1, 2, 2)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(1, 3, 6, 6), 2, output_size=3, _random_samples=lib.rand(1, 2, 2)),
    lambda lib: lib.nn.FractionalMaxPool2d(3),
    lambda lib: lib.nn.FractionalMaxPool3d(3, output_ratio=1.5),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5),
])
def test_fractional_max_pool_errors_as_torch(call):
    assert error_of(lambda: call(gradtrack)) == error_of(lambda: call(torch))


def test_adaptive_log_softmax_matches_torch():
    target = [0, 4, 9, 2, 7, 5, 1]

    def run(lib):
        lib.manual_seed(0)
        asm = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
        x = _x(lib, (7, 8))
        out = asm(x, lib.tensor(target))
        out.loss.backward()
        grads = [p.grad.numpy().copy() for p in asm.parameters()]
        with lib.no_grad():
            log_prob, predict = asm.log_prob(x), asm.predict(x)
        single = asm(x[0], lib.tensor(target[0]))
        return (type(out).__name__, out._fields, repr(asm), out.output.detach().numpy(),
                out.loss.item(), x.grad.numpy(), grads, log_prob.numpy(), predict.numpy(),
                single.output.detach().numpy(), list(asm.state_dict()))

    t, g = _both(run)
    assert g[:3] == t[:3] and g[-1] == t[-1]
    np.testing.assert_allclose(g[3], t[3], rtol=1e-5, atol=1e-6)
    assert g[4] == pytest.approx(t[4], rel=1e-5)
    np.testing.assert_allclose(g[5], t[5], rtol=1e-5, atol=1e-6)
    for gg, tg in zip(g[6], t[6]):
        np.testing.assert_allclose(gg, tg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[7], t[7], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(g[8], t[8])
    np.testing.assert_allclose(g[9], t[9], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(2, 8), lib.tensor([1])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(2, 8),
                                                              lib.tensor([1, 12])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(2, 8),
                                                              lib.tensor([[1]])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(8), lib.tensor([1])),
])
def test_adaptive_log_softmax_errors_as_torch(call):
    assert error_of(lambda: call(gradtrack)) == error_of(lambda: call(torch))


def test_sync_batch_norm_on_a_cpu_build_as_torch():
    def run(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                                lib.nn.Sequential(lib.nn.BatchNorm1d(3, affine=False)))
        weight = net[1].weight
        converted = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        assert converted is net and converted[1].weight is weight
        out = converted(lib.ones(4, 2))
        sync = lib.nn.SyncBatchNorm(3)
        return (repr(converted), out.detach().numpy(), converted[1].running_mean.numpy(),
                error_of(lambda: sync(lib.ones(3))), error_of(lambda: sync(lib.ones(2, 0))),
                out.grad_fn.name())

    t, g = _both(run)
    assert g[0] == t[0] and g[3:] == t[3:]
    np.testing.assert_allclose(g[1], t[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[2], t[2], rtol=1e-5, atol=1e-6)


def test_data_parallel_without_gpus_wraps_and_calls_as_torch():
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.DataParallel(lib.nn.Linear(3, 2), device_ids=None, dim=0)
        out = model(lib.ones(4, 3))
        out.sum().backward()
        return (repr(model), model.device_ids, list(model.state_dict()),
                out.detach().numpy(), model.module.weight.grad.numpy(),
                hasattr(model, "output_device"))

    t, g = _both(run)
    assert g[:3] == t[:3] and g[5] == t[5]
    np.testing.assert_allclose(g[3], t[3], rtol=1e-6)
    np.testing.assert_allclose(g[4], t[4], rtol=1e-6)
