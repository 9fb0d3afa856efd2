"""The engine's fast paths for small graphs keep torch's behaviour.

Small graphs take shortcuts: a flat node index instead of a hash map, pooled
node blocks, no type checks for single-output nodes, and one loop for both
gradients of a product whose gradient is a full reduction's expanded value.
Each test compares the observable results with torch 2.13: gradients bit for
bit, their layout and versions, grad_fn names, hook order and the errors.
"""

import threading

import numpy as np
import pytest

import gradtrack
from helpers import TRIGGERED, torch_to_gradtrack


def _data(shape, seed, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _leaves(lib, shape, dtype="float32"):
    a = lib.tensor(_data(shape, 1, dtype), requires_grad=True)
    b = lib.tensor(_data(shape, 2, dtype), requires_grad=True)
    return a, b


def _grad_facts(t):
    g = t.grad
    return g.detach().numpy().tobytes(), list(g.shape), list(g.stride()), g._version, str(g.dtype).split(".")[-1]


@pytest.mark.parametrize("shape,dtype", [((2, 3), "float32"), ((1,), "float32"), ((3, 1, 2), "float64"),
                                         ((), "float32"), ((7, 5), "float64"), ((200, 300), "float32")])
def test_mul_add_sum_gradients_bit_for_bit(torch, shape, dtype):
    out = {}
    for lib in (torch, gradtrack):
        a, b = _leaves(lib, shape, dtype)
        y = a * b + a
        names = [type(y.grad_fn).__name__, [type(n).__name__ for n, _ in y.grad_fn.next_functions]]
        y.sum().backward()
        out[lib.__name__] = (_grad_facts(a), _grad_facts(b), names)
    got = out["gradtrack"]
    want = out["torch"]
    assert got[:2] == want[:2]
    assert got[2][0] == want[2][0]
    assert got[2][1] == [n.replace("torch", "gradtrack") for n in want[2][1]]


@pytest.mark.parametrize("case", ["only_a", "only_b", "transposed", "mixed_dtype", "keep_grad_graph"])
def test_product_gradient_variants_match_torch(torch, case):
    """The cases the one-loop product gradient must leave to the general path."""
    out = {}
    for lib in (torch, gradtrack):
        a = lib.tensor(_data((3, 4), 3), requires_grad=case != "only_b")
        b = lib.tensor(_data((4, 3), 4)).t() if case == "transposed" else lib.tensor(_data((3, 4), 4))
        if case == "mixed_dtype":
            b = b.double()
        b.requires_grad_(case != "only_a")
        create = case == "keep_grad_graph"
        (a * b).sum().backward(create_graph=create)
        facts = []
        for t in (a, b):
            facts.append(None if t.grad is None else
                         (t.grad.detach().numpy().tobytes(), list(t.grad.stride()), t.grad._version,
                          t.grad.requires_grad))
        out[lib.__name__] = facts
        if create:
            a.grad = None
            b.grad = None
    assert out["gradtrack"] == out["torch"]


def test_repeated_steps_keep_identity_and_values(torch):
    """The benchmark's loop: .grad set to None between steps, the same answers each time."""
    def run(lib):
        a, b = _leaves(lib, (2, 3))
        seen = []
        for _ in range(5):
            (a * b + a).sum().backward()
            assert a.grad is a.grad
            seen.append((_grad_facts(a), _grad_facts(b)))
            a.grad = None
            b.grad = None
        # accumulation without resetting: in place into the existing .grad
        (a * b + a).sum().backward()
        g = a.grad
        (a * b + a).sum().backward()
        assert a.grad is g
        seen.append(_grad_facts(a))
        return seen
    assert run(gradtrack) == run(torch)


def test_second_backward_without_retain_graph_raises_torch_message(torch):
    messages = []
    for lib in (torch, gradtrack):
        a, b = _leaves(lib, (2, 3))
        y = (a * b + a).sum()
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
        messages.append(TRIGGERED.sub("", str(info.value)))
    want = torch_to_gradtrack(messages[0])
    assert messages[1] == want or messages[1].startswith(want + " ")


def test_retain_graph_runs_twice_and_accumulates(torch):
    facts = []
    for lib in (torch, gradtrack):
        a, b = _leaves(lib, (2, 3))
        y = (a * b + a).sum()
        y.backward(retain_graph=True)
        y.backward()
        facts.append((_grad_facts(a), _grad_facts(b)))
    assert facts[0] == facts[1]


def test_hooks_run_in_torch_order(torch):
    orders = []
    for lib in (torch, gradtrack):
        order = []
        a, b = _leaves(lib, (2, 3))
        a.register_hook(lambda g: order.append(("a", g.sum().item())))
        b.register_hook(lambda g: order.append(("b", g.sum().item())))
        m = a * b
        m.register_hook(lambda g: order.append(("m", g.sum().item())))
        y = m + a
        y.grad_fn.register_prehook(lambda go: order.append(("add-pre", len(go))))
        y.grad_fn.register_hook(lambda gi, go: order.append(("add-post", len(gi))))
        y.retain_grad()
        y.sum().backward()
        order.append(("y.grad", y.grad.sum().item()))
        orders.append([(k, round(v, 4)) for k, v in order])
    assert orders[0] == orders[1]


def test_graphs_wider_and_deeper_than_the_first_index(torch):
    """More nodes than the node index starts with: it grows, every edge still counts."""
    results = []
    for lib in (torch, gradtrack):
        leaves = [lib.tensor([float(i + 1)], requires_grad=True) for i in range(100)]
        total = leaves[0] * 1.0
        for i, t in enumerate(leaves[1:]):
            total = total + t * float(i % 7) if i % 2 else total * t
        x = lib.tensor([0.5], requires_grad=True)
        chain = x
        for _ in range(500):
            chain = chain * 1.001 + x
        (total.sum() + chain.sum()).backward()
        results.append([t.grad.item() for t in leaves] + [x.grad.item()])
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)


def test_diamond_counts_every_incoming_edge(torch):
    results = []
    for lib in (torch, gradtrack):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        h = x * x
        y = (h * 2 + h * 3 + h).sum()
        y.backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1]


def test_nodes_freed_on_another_thread():
    """Node blocks are pooled; graphs made on one thread and dropped on another stay correct."""
    graphs = []

    def build():
        a = gradtrack.ones(2, 3, requires_grad=True)
        for _ in range(200):
            graphs.append(((a * a + a).sum(), a))

    worker = threading.Thread(target=build)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive()
    y, a = graphs[-1]
    graphs.clear()  # frees 199 graphs here, on the main thread
    y.backward()
    assert a.grad.tolist() == [[3.0] * 3] * 2
    for _ in range(100):
        a.grad = None
        (a * a + a).sum().backward()
        assert a.grad.tolist() == [[3.0] * 3] * 2


def test_gradient_summed_into_a_buffer_nobody_else_sees(torch):
    """a's two gradients (the sum's expanded value and b * it) are added where only the
    engine holds them; a gradient a node hook kept must stay as the hook saw it."""
    out = []
    for lib in (torch, gradtrack):
        a, b = _leaves(lib, (4, 5), "float64")
        kept = []
        m = a * b
        m.grad_fn.register_hook(lambda gi, go: kept.append([g.clone() for g in gi] + list(gi)))
        (m + a).sum().backward()
        cloned, held = kept[0][:2], kept[0][2:]
        out.append((_grad_facts(a), _grad_facts(b),
                    [x.numpy().tobytes() for x in cloned], [x.numpy().tobytes() for x in held]))
    assert out[0] == out[1]
    assert out[1][2] == out[1][3]

