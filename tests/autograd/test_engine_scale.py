"""The backward engine: graphs 100 000 nodes deep, execution order (newest
first), accumulation across branches, and exceptions raised by hooks.
"""

import math

import pytest

import gradtrack

from helpers import round4

DEPTH = 100_000


def same(scenario):
    torch = pytest.importorskip("torch")
    assert _run(gradtrack, scenario) == _run(torch, scenario)


def _run(lib, scenario):
    try:
        return ("ok", scenario(lib))
    except Exception as e:
        return (type(e).__name__, str(e).replace("torch", "gradtrack"))


# ============================================================================================
# Depth
# ============================================================================================

def test_chain_100k_deep_backward():
    x = gradtrack.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(DEPTH):
        y = y * 1.0001
    y.sum().backward()
    assert math.isclose(x.grad.item(), 1.0001 ** DEPTH, rel_tol=1e-2)


def test_chain_100k_deep_freed_without_backward():
    x = gradtrack.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(DEPTH):
        y = y + 1.0
    assert y.item() == DEPTH + 1
    del y  # dropping the graph must not recurse 100k frames deep


def test_chain_100k_deep_retain_graph_then_release():
    x = gradtrack.tensor([2.0], requires_grad=True)
    y = x
    for _ in range(DEPTH):
        y = y.neg()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 2.0
    del y


def test_inplace_chain_100k_deep():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    for _ in range(DEPTH):
        y.add_(1.0)
    assert y._version == DEPTH
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_deep_chain_matches_torch():
    def scenario(L):
        x = L.tensor([0.5, -0.25], requires_grad=True)
        y = x
        for i in range(2000):
            y = (y * 0.999 + 0.001).tanh() if i % 2 else y.sigmoid() * 1.5
        y.sum().backward()
        return round4(x.grad.tolist())

    same(scenario)


def test_wide_graph_accumulates():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    total = x * 0
    for i in range(10_000):
        total = total + x * (i % 3)
    total.sum().backward()
    assert x.grad.tolist() == [9999.0, 9999.0]


# ============================================================================================
# Order and accumulation
# ============================================================================================

def test_engine_runs_newest_node_first():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        order = []
        tensors = {}
        tensors["a"] = x * 2
        tensors["b"] = x * 3
        tensors["c"] = tensors["a"] + tensors["b"]
        tensors["d"] = tensors["a"].exp()
        tensors["e"] = tensors["b"].sin()
        for key, t in tensors.items():
            t.register_hook(lambda g, key=key: order.append(key))
        loss = tensors["a"].sum() + tensors["c"].sum() + tensors["d"].sum() + tensors["e"].sum()
        loss.backward()
        return order

    same(scenario)


def test_engine_order_independent_branches():
    def scenario(L):
        x = L.tensor([1.0], requires_grad=True)
        order = []
        outs = []
        for i in range(6):
            t = x * (i + 1)
            t.register_hook(lambda g, i=i: order.append(i))
            outs.append(t)
        L.autograd.backward([o.sum() for o in outs])
        return order, x.grad.tolist()

    same(scenario)


def test_accumulation_across_branches_and_diamonds():
    def scenario(L):
        x = L.tensor([0.5, 1.5], requires_grad=True)
        w = L.tensor([2.0, -1.0], requires_grad=True)
        a = x * w
        b = a.exp() + a.sin()
        c = b * a + x
        d = c[0] * c[1] + (c * w).sum()
        d.backward()
        return round4(x.grad.tolist()), round4(w.grad.tolist())

    same(scenario)


def test_leaf_used_many_times_accumulates_into_one_grad():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 2 + x * 3 + x.exp() * 0).sum().backward()
    assert seen == [[5.0, 5.0]]
    assert x.grad.tolist() == [5.0, 5.0]


# ============================================================================================
# Exceptions from hooks
# ============================================================================================

class HookError(Exception):
    pass


def test_hook_exception_propagates_and_engine_stays_usable():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def boom(g):
        raise HookError("boom")

    h = y.register_hook(boom)
    with pytest.raises(HookError, match="^boom$"):
        (y * y).sum().backward(retain_graph=True)
    assert x.grad is None
    h.remove()
    (y * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    z = x * 3
    z.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_leaf_hook_exception_propagates():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)

    def boom(g):
        raise ValueError("leaf hook failed")

    x.register_hook(boom)
    with pytest.raises(ValueError, match="^leaf hook failed$"):
        (x * 2).sum().backward()
    assert x.grad is None


def test_keyboard_interrupt_from_hook_propagates():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def interrupt(g):
        raise KeyboardInterrupt

    h = y.register_hook(interrupt)
    with pytest.raises(KeyboardInterrupt):
        y.sum().backward(retain_graph=True)
    h.remove()
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_hook_exception_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = x * 3
        calls = []
        a.register_hook(lambda g: calls.append("a"))

        def bad(g):
            calls.append("b")
            raise HookError("bad hook")

        b.register_hook(bad)
        try:
            (a + b).sum().backward()
        except HookError as e:
            calls.append(str(e))
        grad_after_failure = None if x.grad is None else x.grad.tolist()
        (x * 4).sum().backward()
        return calls, grad_after_failure, x.grad.tolist()

    same(scenario)


def test_exception_in_deep_graph_hook_leaves_engine_usable():
    x = gradtrack.tensor([1.0], requires_grad=True)
    y = x
    for i in range(10_000):
        y = y * 1.0
        if i == 5_000:
            y.register_hook(lambda g: (_ for _ in ()).throw(HookError("deep")))
    with pytest.raises(HookError, match="deep"):
        y.backward()
    z = (x * 7).sum()
    z.backward()
    assert x.grad.tolist() == [7.0]
