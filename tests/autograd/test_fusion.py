"""The fused relu backward (NOTE [Fused relu backward], csrc/autograd/fusion.cpp).

The engine may run ReluBackward0 and the MulBackward0 it feeds as one pass. A
user must not be able to tell: every scenario is run three times, gradtrack
with fusion, gradtrack without it, and torch 2.13, and everything observable is
compared (values to the bit, shapes, strides, versions, grad_fn names, hook
calls, error messages and notes). Each scenario also says whether it must fuse,
so a condition that silently stops fusing (or starts fusing where something
could see the gradient) fails here.
"""

import math
import random
import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack import _C

SPECIAL = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 1e-40, -3.0, 7.0]


def values(n, seed):
    """n floats with every special value in the mix (NaN, infinities, signed zeros, subnormals)."""
    rng = random.Random(seed)
    head = SPECIAL[:n] if seed % 2 == 0 else []  # even seeds: every special value, in order
    return head + [rng.choice(SPECIAL + [rng.uniform(-4, 4)]) for _ in range(n - len(head))]


def make(L, shape, seed, dtype="float32", requires_grad=False):
    n = math.prod(shape)
    t = L.tensor(values(n, seed), dtype=getattr(L, dtype)).reshape(shape)
    return t.requires_grad_() if requires_grad else t


def observe(t):
    """Everything a user can see of a tensor, NaN and -0.0 included."""
    if t is None:
        return None
    flat = t.detach().reshape(-1).tolist()
    return {
        "bits": [repr(v) for v in flat],
        "shape": tuple(t.shape),
        "stride": tuple(t.stride()),
        "version": t._version,
        "dtype": str(t.dtype).split(".")[-1],
        "requires_grad": t.requires_grad,
        "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
    }


def outcome(L, scenario):
    """The scenario's observables, or its exception (type, message, notes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", scenario(L))
        except Exception as e:  # noqa: BLE001 - the exception is the observable
            notes = tuple(getattr(e, "__notes__", ()))
            return (type(e).__name__, str(e).replace("torch", "gradtrack"), notes)


def run_gradtrack(scenario, fusion):
    previous = _C._set_fusion_enabled(fusion)
    try:
        before = _C._fused_pairs()
        result = outcome(gradtrack, scenario)
        return result, _C._fused_pairs() - before
    finally:
        _C._set_fusion_enabled(previous)


def check(scenario, fuses):
    fused, count = run_gradtrack(scenario, True)
    plain, plain_count = run_gradtrack(scenario, False)
    assert plain_count == 0
    assert (count > 0) == fuses, f"fused {count} pairs, expected fusion: {fuses}"
    assert fused == plain  # notes included: gradtrack's extra knowledge must not change either
    torch = pytest.importorskip("torch")
    expected = outcome(torch, scenario)
    strip = fused[:2] if fused[0] != "ok" else fused
    assert strip == (expected[:2] if expected[0] != "ok" else expected)
    return fused


def grads(*ts):
    return [observe(t.grad) for t in ts]


# ---- graphs that fuse ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 1, 4), (0, 3), (5, 6), (300, 301)])
def test_mul_relu_sum_fuses_and_matches(dtype, shape):
    def scenario(L):
        x = make(L, shape, 1, dtype)
        w = make(L, shape, 2, dtype, requires_grad=True)
        (x * w).relu().sum().backward()
        return grads(w)

    check(scenario, fuses=True)


@pytest.mark.parametrize("seed", range(6))
def test_both_operands_need_grad(seed):
    def scenario(L):
        x = make(L, (4, 9), seed, requires_grad=True)
        w = make(L, (4, 9), seed + 10, requires_grad=True)
        (x * w).relu().sum().backward()
        return grads(x, w)

    check(scenario, fuses=True)


def test_dense_incoming_gradient():
    def scenario(L):
        x = make(L, (6, 5), 3)
        w = make(L, (6, 5), 4, requires_grad=True)
        g = make(L, (6, 5), 5)
        (x * w).relu().backward(g)
        return grads(w)

    check(scenario, fuses=True)


def test_matches_numpy_to_the_bit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 33)).astype(np.float32)
    w = rng.standard_normal((64, 33)).astype(np.float32)
    g = rng.standard_normal((64, 33)).astype(np.float32)
    x[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    gx, gw = gradtrack.tensor(x), gradtrack.tensor(w, requires_grad=True)
    before = _C._fused_pairs()
    (gx * gw).relu().backward(gradtrack.tensor(g))
    assert _C._fused_pairs() == before + 1
    y = x * w
    with np.errstate(invalid="ignore"):  # 0 * inf is NaN here as in the kernel
        expected = np.where(y <= 0, np.float32(0), g) * x
    np.testing.assert_array_equal(gw.grad.numpy(), expected)
    assert np.array_equal(np.signbit(gw.grad.numpy()), np.signbit(expected))


def test_accumulates_into_existing_grad_and_versions():
    def scenario(L):
        x = make(L, (5, 4), 6)
        w = make(L, (5, 4), 7, requires_grad=True)
        for _ in range(3):
            (x * w).relu().sum().backward()
        return grads(w)

    check(scenario, fuses=True)


def test_retain_graph_runs_twice():
    def scenario(L):
        x = make(L, (3, 8), 8)
        w = make(L, (3, 8), 9, requires_grad=True)
        loss = (x * w).relu().sum()
        loss.backward(retain_graph=True)
        first = observe(w.grad)
        loss.backward()
        return first, grads(w)

    check(scenario, fuses=True)


def test_second_backward_after_fused_release_raises():
    def scenario(L):
        x = make(L, (3, 8), 8)
        w = make(L, (3, 8), 9, requires_grad=True)
        loss = (x * w).relu().sum()
        loss.backward()
        loss.backward()

    result = check(scenario, fuses=True)
    assert result[0] == "RuntimeError"


def test_autograd_grad_of_a_leaf_and_backward_inputs():
    def scenario(L):
        x = make(L, (4, 4), 10)
        w = make(L, (4, 4), 11, requires_grad=True)
        (gw,) = L.autograd.grad((x * w).relu().sum(), [w])
        (x * w).relu().sum().backward(inputs=[w])
        return observe(gw), grads(w)

    check(scenario, fuses=True)


def test_inplace_relu_of_a_product():
    def scenario(L):
        x = make(L, (6, 2), 12)
        w = make(L, (6, 2), 13, requires_grad=True)
        y = x * w
        y.relu_()
        y.sum().backward()
        return observe(y), grads(w)

    check(scenario, fuses=True)


def test_leaf_hooks_run_in_the_same_order():
    def scenario(L):
        order = []
        x = make(L, (3, 3), 14)
        w = make(L, (3, 3), 15, requires_grad=True)
        v = make(L, (3, 3), 16, requires_grad=True)
        w.register_hook(lambda g: order.append(("w", observe(g)["bits"])))
        v.register_hook(lambda g: order.append(("v", observe(g)["bits"])))
        ((x * w).relu().sum() + (v * 2).sum()).backward()
        return order, grads(w, v)

    check(scenario, fuses=True)


def test_mlp_layer_gradients():
    def scenario(L):
        L.manual_seed(0) if L is gradtrack else None
        x = make(L, (8, 5), 17)
        m = make(L, (8, 5), 18)
        w = make(L, (5, 3), 19, requires_grad=True)
        h = (x * m).relu() @ w  # dropout-like mask, then a layer
        h.sum().backward()
        return grads(w)

    check(scenario, fuses=False)  # x*m needs no gradient: nothing to fuse


# ---- graphs that must not fuse: something can see the gradient between the nodes ------------

def _graph(L):
    x = make(L, (4, 6), 20)
    w = make(L, (4, 6), 21, requires_grad=True)
    y = x * w
    return x, w, y


def test_retain_grad_on_the_product():
    def scenario(L):
        _, w, y = _graph(L)
        y.retain_grad()
        y.relu().sum().backward()
        return grads(y, w)

    check(scenario, fuses=False)


def test_tensor_hook_on_the_product_sees_and_replaces_the_gradient():
    def scenario(L):
        _, w, y = _graph(L)
        seen = []
        y.register_hook(lambda g: (seen.append(observe(g)), g * 3)[1])
        y.relu().sum().backward()
        return seen, grads(w)

    check(scenario, fuses=False)


def test_node_hooks():
    def post_on_relu(L):
        _, w, y = _graph(L)
        seen = []
        r = y.relu()
        r.grad_fn.register_hook(lambda gi, go: seen.append([observe(t) for t in gi]))
        r.sum().backward()
        return seen, grads(w)

    def prehook_on_mul(L):
        _, w, y = _graph(L)
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append([observe(t) for t in go]))
        y.relu().sum().backward()
        return seen, grads(w)

    def post_on_mul(L):
        _, w, y = _graph(L)
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append([observe(t) for t in go]))
        y.relu().sum().backward()
        return seen, grads(w)

    for scenario in (post_on_relu, prehook_on_mul, post_on_mul):
        check(scenario, fuses=False)


def test_hook_on_the_relu_output_still_fuses():
    # It runs before ReluBackward0, on the gradient the pair receives.
    def scenario(L):
        _, w, y = _graph(L)
        r = y.relu()
        r.register_hook(lambda g: g * 2)
        r.sum().backward()
        return grads(w)

    check(scenario, fuses=True)


def test_autograd_grad_of_the_product():
    def scenario(L):
        _, w, y = _graph(L)
        gy, gw = L.autograd.grad(y.relu().sum(), [y, w])
        return observe(gy), observe(gw)

    check(scenario, fuses=False)


def test_backward_inputs_naming_the_product():
    def scenario(L):
        _, w, y = _graph(L)
        y.relu().sum().backward(inputs=[y, w])
        return grads(y, w)

    check(scenario, fuses=False)


def test_create_graph_builds_the_gradient_graph():
    def first_order(L):
        x = make(L, (3, 5), 22, requires_grad=True)
        w = make(L, (3, 5), 23, requires_grad=True)
        (gw,) = L.autograd.grad((x * w).relu().sum(), [w], create_graph=True)
        return observe(gw), [type(f[0]).__name__ for f in gw.grad_fn.next_functions]

    def second_order(L):
        x = make(L, (3, 5), 22, requires_grad=True)
        w = make(L, (3, 5), 23, requires_grad=True)
        (gw,) = L.autograd.grad((x * w).relu().sum(), [w], create_graph=True)
        (gw * gw).sum().backward()
        return observe(gw), grads(x, w)

    check(first_order, fuses=False)
    # The second backward reaches the same relu and mul nodes again (through
    # threshold_backward's zero gradient for relu's result), without a graph
    # being built this time: there they fuse.
    check(second_order, fuses=True)


def test_anomaly_mode():
    def scenario(L):
        _, w, y = _graph(L)
        with L.autograd.detect_anomaly():
            y.relu().sum().backward()
        return grads(w)

    check(scenario, fuses=False)


def test_product_used_twice():
    # The other use's gradient arrives first (its sum node is newer), then the
    # relu node's: MulBackward0 gets their sum.
    def other_first(L):
        _, w, y = _graph(L)
        (y.relu().sum() + y.sum()).backward()
        return grads(w)

    # The relu node runs first, while the other use's gradient is still to come.
    def relu_first(L):
        _, w, y = _graph(L)
        s = y.sum()
        (s + y.relu().sum()).backward()
        return grads(w)

    check(other_first, fuses=False)
    check(relu_first, fuses=False)


def test_another_node_runs_between_them():
    # z's node is newer than y's and ready when the relu node runs: PyTorch runs
    # it before MulBackward0, so the pair is not adjacent and must not fuse.
    def scenario(L):
        order = []
        x, w, y = _graph(L)
        z = w * 3
        z.register_hook(lambda g: order.append("z"))
        w.register_hook(lambda g: order.append("w"))
        r = y.relu()
        r.register_hook(lambda g: order.append("r"))
        (r.sum() + z.sum()).backward()
        return order, grads(w)

    check(scenario, fuses=False)


@pytest.mark.parametrize("case, fuses", [
    ("broadcast", False), ("mixed_dtype", False), ("transposed_operand", False),
    ("scalar_operand", False), ("int_operand", False),
    # threshold_backward's result follows relu's result first, so it is contiguous.
    ("transposed_gradient", True)])
def test_layouts_and_dtypes(case, fuses):
    def scenario(L):
        w = make(L, (4, 6), 24, requires_grad=True)
        g = None
        if case == "broadcast":
            x = make(L, (6,), 25)
        elif case == "mixed_dtype":
            x = make(L, (4, 6), 25, "float64")
        elif case == "transposed_operand":
            x = make(L, (6, 4), 25).t()
        elif case == "scalar_operand":
            x = make(L, (), 25)
        elif case == "int_operand":
            x = L.arange(24).reshape(4, 6) - 10
        else:
            x = make(L, (4, 6), 25)
            g = make(L, (6, 4), 26).t()
        r = (x * w).relu()
        r.backward(g if g is not None else L.ones_like(r))
        return grads(w)

    check(scenario, fuses)


def test_transposed_leaf_gradient_layout():
    def scenario(L):
        x = make(L, (6, 4), 27).t()
        w = make(L, (6, 4), 28, requires_grad=True)
        (x * w.t()).relu().sum().backward()
        return grads(w)

    check(scenario, fuses=False)


# ---- errors raise at the same point, with the same message and notes -------------------------

def test_operand_modified_after_forward():
    def scenario(L):
        x, w, y = _graph(L)
        loss = y.relu().sum()
        x.add_(1)
        loss.backward()

    result = check(scenario, fuses=False)
    assert "modified by an inplace operation" in result[1]


def test_then_backward_again_reports_the_released_relu():
    # ReluBackward0 ran (and freed its result) before MulBackward0 raised.
    def scenario(L):
        x, w, y = _graph(L)
        loss = y.relu().sum()
        x.add_(1)
        try:
            loss.backward()
        except RuntimeError:
            pass
        loss.backward()

    result = check(scenario, fuses=False)
    assert "backward through the graph a second time" in result[1]


def test_relu_output_modified_after_forward():
    def scenario(L):
        _, w, y = _graph(L)
        r = y.relu()
        loss = (r * 1.0).sum()
        r.add_(1)
        loss.backward()

    result = check(scenario, fuses=False)
    assert "modified by an inplace operation" in result[1]


def test_retain_graph_then_modified_operand():
    def scenario(L):
        x, w, y = _graph(L)
        loss = y.relu().sum()
        loss.backward(retain_graph=True)
        first = observe(w.grad)
        x.mul_(2)
        loss.backward()
        return first

    result = check(scenario, fuses=True)  # the first backward fused; the second raised
    assert result[0] == "RuntimeError"
