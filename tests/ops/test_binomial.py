"""``torch.binomial``: torch's CPU draws for a seeded generator (both samplers, float32
and float64), broadcasting, the NotImplemented node and its errors, and torch's refusals,
compared with torch 2.13 (NOTE [Binomial draws])."""

import warnings

import numpy as np
import pytest

import gradtrack

from helpers import both_errors


def _inputs(dtype, seed):
    rng = np.random.default_rng(seed)
    counts = np.concatenate([rng.integers(0, 30, 20), rng.integers(0, 3000, 20),
                             rng.uniform(0, 60, 20), [1e6, 1e9, 12345.5, 3e7]])
    probs = np.concatenate([rng.uniform(0, 1, 40),
                            rng.choice([0.0, 1.0, 0.5, 0.01, 0.99, 0.3, 0.7], 20),
                            [0.3, 0.5, 0.999, 1e-6]])
    return counts.astype(dtype), probs.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_draws_are_torchs(torch, dtype, seed):
    counts, probs = _inputs(dtype, seed)
    res = []
    for lib in (gradtrack, torch):
        g = lib.Generator().manual_seed(seed)
        seeded = lib.binomial(lib.tensor(counts), lib.tensor(probs), generator=g)
        lib.manual_seed(seed + 10)
        default = lib.binomial(lib.tensor(counts).reshape(4, 16).t(),
                               lib.tensor(probs).reshape(4, 16).t())
        # the generators moved on by exactly the doubles the samplers used
        after = (lib.rand(2, dtype=lib.float64, generator=g).tolist(),
                 lib.rand(2, dtype=lib.float64).tolist())
        res.append((seeded.numpy(), default.numpy(), str(default.dtype).split(".")[-1],
                    default.stride(), after))
    (mine, theirs) = res
    np.testing.assert_array_equal(mine[0], theirs[0])
    np.testing.assert_array_equal(mine[1], theirs[1])
    assert mine[2:] == theirs[2:]


@pytest.mark.parametrize("call", [
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.tensor([1.5, -0.5])),
    lambda lib: lib.binomial(lib.tensor([-1.0, 2.5, 0.0]), lib.tensor([0.5, 0.5, 0.5])),
    lambda lib: lib.binomial(lib.tensor([float("nan"), 2.5, 3.0, float("nan")]),
                             lib.tensor([float("nan"), 0.5, float("nan"), 1.0])),
    lambda lib: lib.binomial(lib.tensor([float("inf"), 2.5, float("inf"), float("-inf")]),
                             lib.tensor([0.5, 0.5, 0.9, 0.5])),
    lambda lib: lib.binomial(lib.full((3,), 20.0).expand(2, 3), lib.tensor([0.1, 0.5, 0.9])),
    lambda lib: lib.binomial(lib.ones(0, 3), lib.ones(3)),
    lambda lib: lib.binomial(lib.tensor(30.0, dtype=lib.float64),
                             lib.tensor(0.5, dtype=lib.float64)),
    lambda lib: lib.binomial(count=lib.tensor([5.0, 20.0]), prob=lib.tensor([0.5, 0.5])),
])
def test_edges_and_shapes_match_torch(torch, call):
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(3)
        out = call(lib)
        res.append((out.numpy(), str(out.dtype).split(".")[-1], out.stride(),
                    lib.rand(1).tolist()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    assert res[0][1:] == res[1][1:]


@pytest.mark.parametrize("count_shape,prob_shape", [((2,), (1, 2)), ((1,), (2,)), ((), (2,)),
                                                    ((0,), (1,))])
def test_broadcast_result_and_resize_warning_match_torch(torch, count_shape, prob_shape):
    res = []
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.binomial(lib.full(count_shape, 12.0), lib.full(prob_shape, 0.5))
        res.append((out.tolist(), tuple(out.shape),
                    [str(w.message).split(" (Triggered")[0] for w in caught]))
    assert res[0] == res[1]


def test_not_implemented_node_and_its_errors_match_torch(torch):
    res = []
    for lib in (gradtrack, torch):
        c = lib.tensor([10.0, 5.0, 100.0], requires_grad=True)
        p = lib.tensor([0.5, 0.2, 0.7], requires_grad=True)
        out = lib.binomial(c, p)
        facts = [out.grad_fn.name().split("::")[-1], len(out.grad_fn.next_functions),
                 out._version, len(lib.binomial(c.detach(), p).grad_fn.next_functions)]
        for run in (lambda: out.sum().backward(), lambda: lib.autograd.grad(out.sum(), p)):
            with pytest.raises(RuntimeError) as e:
                run()
            facts.append(str(e.value))
        fw = lib.autograd.forward_ad
        with fw.dual_level(), pytest.raises(NotImplementedError) as e:
            lib.binomial(fw.make_dual(c.detach(), lib.ones(3)), p.detach())
        facts.append(str(e.value))
        with lib.no_grad():
            facts.append(lib.binomial(c, p).requires_grad)
        res.append(facts)
    assert res[0] == res[1]


REFUSALS = [
    lambda lib: lib.binomial(lib.tensor([1, 2]), lib.tensor([0.5, 0.5])),
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.tensor([1, 0])),
    lambda lib: lib.binomial(lib.tensor([True]), lib.tensor([0.5])),
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.5], dtype=lib.float64)),
    lambda lib: lib.binomial(lib.tensor([1.0], dtype=lib.float64), lib.tensor([0.5, 0.5])),
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.5, 0.5])),
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), 0.5),
    lambda lib: lib.binomial([1.0, 2.0], lib.tensor([0.5, 0.5])),
    lambda lib: lib.binomial(lib.tensor([1.0]).half(), lib.tensor([0.5]).half()),
    lambda lib: lib.binomial(lib.tensor([1.0]).bfloat16(), lib.tensor([0.5]).bfloat16()),
    lambda lib: lib.binomial(lib.tensor([1.0]), lib.tensor([0.5]), generator=1),
]


@pytest.mark.parametrize("call", REFUSALS)
def test_refusals_match_torch(torch, call):
    mine, theirs = both_errors(call, torch)
    assert mine == theirs


def test_a_refusal_draws_nothing(torch):
    after = []
    for lib in (gradtrack, torch):
        lib.manual_seed(1)
        with pytest.raises(RuntimeError):
            lib.binomial(lib.tensor([20.0, 3.0]), lib.tensor([0.5, 0.5, 0.5]))
        after.append(lib.rand(2).tolist())
    assert after[0] == after[1]


def test_where_torchs_inversion_never_ends_the_draw_is_count():
    # torch's loop adds waiting times until they pass count, which a NaN count never lets
    # happen (torch hangs); gradtrack returns count and draws nothing
    gradtrack.manual_seed(2)
    expected = gradtrack.rand(2).tolist()
    gradtrack.manual_seed(2)
    out = gradtrack.binomial(gradtrack.tensor([float("nan"), float("nan")]),
                             gradtrack.tensor([0.3, 0.8]))
    assert [str(v) for v in out.tolist()] == ["nan", "nan"]
    assert gradtrack.rand(2).tolist() == expected
