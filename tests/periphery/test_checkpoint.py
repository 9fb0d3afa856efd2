"""``torch.utils.checkpoint`` against torch 2.13: values, gradients and grad_fn names in
both variants, the RNG state replayed for dropout, the number of forward calls, the
warnings and errors, ``checkpoint_sequential``; and the activations actually freed."""

import importlib
import warnings

import pytest

import gradtrack

from helpers import same


def _checkpoint(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_matches_torch_and_the_plain_run(use_reentrant):
    def scenario(lib):
        calls = []

        def f(x, w):
            calls.append(1)
            return lib.nn.functional.dropout((x * w).tanh(), 0.5, True)

        x = lib.linspace(-1.0, 1.0, 6, requires_grad=True)
        w = lib.full((6,), 0.5, requires_grad=True)
        lib.manual_seed(0)
        y = _checkpoint(lib).checkpoint(f, x, w, use_reentrant=use_reentrant)
        seen = [y, len(calls)]
        y.sum().backward()
        seen += [x.grad, w.grad, len(calls)]
        x.grad = w.grad = None
        lib.manual_seed(0)
        f(x, w).sum().backward()
        return seen + [x.grad, w.grad]
    same(scenario)


CASES = {
    "no_use_reentrant": lambda lib: _checkpoint(lib).checkpoint(lambda t: t * 2,
                                                               lib.ones(2, requires_grad=True)),
    "no_grad_inputs": lambda lib: _checkpoint(lib).checkpoint(lambda t: t * 2, lib.ones(2),
                                                             use_reentrant=True),
    "bad_kwargs": lambda lib: _checkpoint(lib).checkpoint(lambda t: t, lib.ones(2),
                                                         use_reentrant=True, foo=1),
    "kwargs_non_reentrant": lambda lib: _checkpoint(lib).checkpoint(
        lambda t, scale: t * scale, lib.ones(2, requires_grad=True), use_reentrant=False,
        scale=3.0),
    "tuple_output": lambda lib: (lambda out: (out, out[0].sum().backward()))(
        _checkpoint(lib).checkpoint(lambda a, b: (a * b, a + b), lib.ones(2, requires_grad=True),
                                    lib.full((2,), 2.0), use_reentrant=True)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_checkpoint_cases_match_torch(case):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = CASES[case](lib)
        return result, [str(w.message) for w in caught]
    same(scenario)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential_matches_torch(use_reentrant):
    def scenario(lib):
        lib.manual_seed(0)
        seq = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 4),
                                lib.nn.Tanh(), lib.nn.Linear(4, 2))
        inp = lib.ones(2, 3, requires_grad=True)
        out = _checkpoint(lib).checkpoint_sequential(seq, 2, inp, use_reentrant=use_reentrant)
        out.sum().backward()
        return out, inp.grad, seq[0].weight.grad, seq[4].weight.grad
    same(scenario)


def test_checkpoint_keeps_fewer_activations():
    # What the graph keeps for backward, seen by an outer saved-tensor hook (the innermost
    # hooks apply, as in torch): the plain run keeps exp's and sin's inputs; the
    # checkpoints keep only their input (torch's non-reentrant one saves it through a
    # node, gradtrack's holds it in the recomputation's closure: no tensor is packed).
    def scenario(lib, variants):
        def f(x):
            return (x * 2).exp().sin()

        kept = {}
        runs = {"plain": f,
                "reentrant": lambda x: _checkpoint(lib).checkpoint(f, x, use_reentrant=True),
                "non_reentrant": lambda x: _checkpoint(lib).checkpoint(f, x,
                                                                      use_reentrant=False)}
        for name in variants:
            run = runs[name]
            packed = []
            x = lib.ones(1000, requires_grad=True)
            with lib.autograd.graph.saved_tensors_hooks(
                    lambda t: packed.append(t.numel()) or t, lambda t: t):
                y = run(x)
            y.sum().backward()
            kept[name] = (len(packed), sum(packed), x.grad.sum().item())
        return kept
    same(lambda lib: scenario(lib, ("plain", "reentrant")))
    packs, numel, _ = scenario(gradtrack, ("non_reentrant",))["non_reentrant"]
    assert (packs, numel) == (0, 0)


def test_recomputed_activations_are_freed_block_by_block(torch):
    # Two checkpointed blocks: when the gradient reaches the first block's output, the
    # second block's recomputed activation has been used and is gone, as in torch
    # (NOTE [A recomputed tensor is dropped once used]); keeping them to the end of
    # backward saved no memory at the peak.
    import weakref

    import numpy as np

    def scenario(lib):
        made = []

        def block(x):
            h = (x * 2).exp()
            made.append(weakref.ref(h))
            return h.sin()

        ckpt = _checkpoint(lib).checkpoint
        x = lib.linspace(-1.0, 1.0, 50, requires_grad=True)
        mid = ckpt(block, x, use_reentrant=False)
        out = ckpt(block, mid, use_reentrant=False)
        seen = []
        mid.register_hook(lambda g: seen.append([r() is None for r in made]))
        out.sum().backward()
        return seen, x.grad.numpy()

    ours_seen, ours_grad = scenario(gradtrack)
    theirs_seen, theirs_grad = scenario(torch)
    # made: the two forward runs' h (freed with their frames), then block 2's recomputed h
    assert ours_seen == theirs_seen == [[True, True, True]]
    np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-6)
