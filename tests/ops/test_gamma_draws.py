"""``torch._standard_gamma``, ``_sample_dirichlet`` and their gradients
``_standard_gamma_grad`` and ``_dirichlet_grad``: seeded draws and the generator stream
after them, gradients in every regime of torch's approximations, the graph they record,
and their errors, all compared with torch 2.13 bit for bit (NOTE [Gamma draws], NOTE
[Pathwise gamma gradients]). The op table (op_db/sampling.py) also checks the gradients
against the exact derivatives."""

import warnings

import numpy as np
import pytest

import gradtrack

from helpers import both_errors, torch_to_gradtrack

# alpha < 1 (boosted), 0, the squeeze and the log test, large, and the non-finite ones
_ALPHAS = [0.0, 1e-3, 0.01, 0.3, 0.5, 0.999, 1.0, 1.5, 2.0, 3.7, 8.5, 10.0, 50.0, 1000.0,
           1e6, float("nan"), -1.0, -0.5, float("inf")]


def _same(mine, theirs):
    np.testing.assert_array_equal(np.asarray(mine.tolist()), np.asarray(theirs.tolist()))


def _tensor(lib, values, dtype):
    return lib.tensor(np.asarray(values).tolist(), dtype=getattr(lib, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_draws_and_stream_are_torchs(torch, dtype):
    alpha = np.tile(_ALPHAS, 30)
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(1)
        default = lib._standard_gamma(_tensor(lib, alpha, dtype))
        # the cached second normal and the uniforms: the stream goes on as torch's
        after = (lib.rand(3, dtype=lib.float64), lib.randn(3, dtype=lib.float64))
        g = lib.Generator().manual_seed(7)
        view = _tensor(lib, alpha[:40], dtype).reshape(8, 5).t()
        seeded = lib._standard_gamma(view, generator=g)
        expanded = lib._standard_gamma(_tensor(lib, [0.5, 4.0], dtype)[:, None].expand(2, 3),
                                       generator=g)
        res.append((default, *after, seeded, expanded, lib.rand(2, generator=g)))
    for mine, theirs in zip(*res):
        assert mine.dtype.is_floating_point and tuple(mine.shape) == tuple(theirs.shape)
        _same(mine, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_gradients_are_torchs_in_every_regime(torch, dtype):
    rng = np.random.default_rng(0)
    alpha = np.concatenate([rng.uniform(0.05, 1, 300), rng.uniform(1, 8, 300),
                            rng.uniform(8, 200, 300), [9.0, 20.0, 100.0]])
    # small x (series), x near alpha (the saddle point's centre), the rest
    x = np.concatenate([rng.uniform(1e-4, 0.8, 300), rng.uniform(0.8, 30, 300),
                        alpha[600:900] * rng.uniform(0.85, 1.15, 300), [9.0, 21.0, 150.0]])
    mine = gradtrack._standard_gamma_grad(_tensor(gradtrack, alpha, dtype),
                                          _tensor(gradtrack, x, dtype))
    theirs = torch._standard_gamma_grad(_tensor(torch, alpha, dtype), _tensor(torch, x, dtype))
    _same(mine, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsample_gradient_is_torchs(torch, dtype):
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(3)
        alpha = _tensor(lib, [0.2, 0.9, 1.0, 2.5, 7.0, 30.0], dtype).requires_grad_()
        x = lib._standard_gamma(alpha)
        (x * _tensor(lib, [1.0, -2.0, 0.5, 3.0, 1.0, -1.0], dtype)).sum().backward()
        res.append((x.detach(), alpha.grad))
    for mine, theirs in zip(*res):
        _same(mine, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 17, 100])
def test_dirichlet_draws_are_torchs(torch, dtype, k):
    alpha = np.random.default_rng(k).uniform(0.05, 3, (50, k))
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(k)
        draw = lib._sample_dirichlet(_tensor(lib, alpha, dtype))
        res.append((draw, lib.rand(2, dtype=lib.float64),
                    lib._sample_dirichlet(_tensor(lib, alpha, dtype).t())))
    for mine, theirs in zip(*res):
        _same(mine, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_gradients_are_torchs_in_every_regime(torch, dtype):
    rng = np.random.default_rng(4)
    # concentrations small, large (the saddle point) and in between (the fitted correction)
    alpha = np.concatenate([rng.uniform(0.01, 0.5, (300, 3)), rng.uniform(6.5, 40, (300, 3)),
                            rng.uniform(0.5, 5, (300, 3))])
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(5)
        a = _tensor(lib, alpha, dtype)
        x = lib._sample_dirichlet(a)
        res.append((x, lib._dirichlet_grad(x, a, a.sum(-1, True).expand_as(a))))
    for mine, theirs in zip(*res):
        _same(mine, theirs)


def test_graph_matches_torchs(torch):
    facts = []
    for lib in (gradtrack, torch):
        alpha = lib.tensor([1.5, 2.0], requires_grad=True)
        x = lib._standard_gamma(alpha)
        (grad,) = lib.autograd.grad(x.sum(), alpha, create_graph=True)
        inner = grad.grad_fn.next_functions[1][0]
        node = lib._standard_gamma_grad(alpha, x.detach()).grad_fn
        facts.append([x.grad_fn.name(), type(grad.grad_fn).__name__, type(inner).__name__,
                      type(node).__name__, len(node.next_functions),
                      repr(x.grad_fn).split(" object")[0]])
        with pytest.raises(NotImplementedError) as e:
            grad.sum().backward()
        facts.append(str(e.value))
        y = lib._standard_gamma(alpha)
        y.mul_(2)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        facts.append(torch_to_gradtrack(str(e.value)) if lib is torch else str(e.value))
        d = lib._sample_dirichlet(alpha)
        facts.append(d.grad_fn.name().split("::")[-1])
        with pytest.raises(RuntimeError) as e:
            d.sum().backward()
        facts.append(str(e.value))
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.5]), lib.tensor([1.0]))
            for call in (lambda: lib._standard_gamma(dual),
                         lambda: lib._standard_gamma_grad(dual, dual),
                         lambda: lib._sample_dirichlet(dual),
                         lambda: lib._dirichlet_grad(dual, dual, dual)):
                with pytest.raises(NotImplementedError) as e:
                    call()
                facts.append(str(e.value).replace("pytorch/pytorch", "PT"))
    assert facts[:len(facts) // 2] == facts[len(facts) // 2:]


@pytest.mark.parametrize("call", [
    lambda lib: lib._standard_gamma(lib.ones(3, dtype=lib.long)),
    lambda lib: lib._standard_gamma(lib.ones(3, dtype=lib.bfloat16)),
    lambda lib: lib._standard_gamma([1.0]),
    lambda lib: lib._standard_gamma(lib.ones(3), generator=5),
    lambda lib: lib._sample_dirichlet(lib.ones(3, dtype=lib.long)),
    lambda lib: lib._sample_dirichlet(lib.ones(3, dtype=lib.bfloat16)),
    lambda lib: lib._standard_gamma_grad(lib.ones(3), lib.ones(2)),
    lambda lib: lib._standard_gamma_grad(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib._standard_gamma_grad(lib.ones(3, dtype=lib.long), lib.ones(3, dtype=lib.long)),
    lambda lib: lib._dirichlet_grad(lib.ones(3), lib.ones(2), lib.ones(3)),
    lambda lib: lib._dirichlet_grad(lib.ones(3), lib.ones(3, dtype=lib.float64), lib.ones(3)),
    lambda lib: lib._dirichlet_grad(*(lib.ones(3, dtype=lib.long),) * 3),
])
def test_errors_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine in (theirs, torch_to_gradtrack(theirs))  # 'torch.Generator' is kept


def test_shapes_and_resize_warning_match_torch(torch):
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grad = lib._standard_gamma_grad(lib.full((3, 1), 2.0), lib.full((2,), 1.5))
        res.append((grad.tolist(), [str(w.message).split(" (Triggered")[0] for w in caught],
                    lib._sample_dirichlet(lib.ones(())).tolist(),
                    tuple(lib._sample_dirichlet(lib.ones(0, 3)).shape),
                    tuple(lib._standard_gamma(lib.ones(0)).shape),
                    lib._dirichlet_grad(lib.full((2, 3), 0.3), lib.ones(3),
                                        lib.ones(1) * 3).tolist()))
    assert res[0] == res[1]

