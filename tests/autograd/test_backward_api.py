"""backward / autograd.grad / grad modes, compared with torch 2.13.

``lib``-parametrized tests pin the measured behaviour (gradtrack always runs; the
torch run checks the reference and is skipped without torch). ``same(scenario)``
tests run one scenario with both libraries and compare outcomes.

Not covered (gradtrack's inference_mode is documented to behave as no_grad):
inference tensors (``is_inference``, "Inference tensors cannot be saved for
backward", "Inplace update to inference tensor outside InferenceMode").
"""

import threading
import warnings

import pytest

import gradtrack

from helpers import raises, same


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    """A test that flips the global grad mode must not leak it."""
    yield
    gradtrack.set_grad_enabled(True)
    try:
        import torch
    except ImportError:
        return
    torch.set_grad_enabled(True)


SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
SECOND_TIME = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")
NO_GRAD_ELEMENT = "element {} of tensors does not require grad and does not have a grad_fn"
UNUSED = ("The differentiated Tensor at index 1 appears to not have been used in the graph. Set "
          "allow_unused=True if this is the desired behavior.")


def x123(lib):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


# ============================================================================================
# Tensor.backward
# ============================================================================================

def test_non_scalar_backward_needs_gradient(lib):
    x = x123(lib)
    raises(lib, RuntimeError, SCALAR_ONLY, lambda: (x * 2).backward())
    (x * 2).backward(lib.ones(3))
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_numel_one_outputs_backward_without_gradient(lib, shape):
    a = lib.ones(shape, requires_grad=True)
    (a * 2).backward()
    assert a.grad.tolist() == (lib.ones(shape) * 2).tolist()


@pytest.mark.parametrize("grad_shape,text", [((2,), "torch.Size([2])"), ((), "torch.Size([])"),
                                             ((3, 1), "torch.Size([3, 1])")])
def test_gradient_shape_mismatch(lib, grad_shape, text):
    x = x123(lib)
    raises(lib, RuntimeError,
           f"Mismatch in shape: grad_output[0] has a shape of {text} and output[0] has a shape "
           "of torch.Size([3]).", lambda: (x * 2).backward(lib.ones(grad_shape)))


@pytest.mark.parametrize("dtype", ["float64", "int64", "int32"])
def test_gradient_dtype_is_silently_cast(lib, dtype):
    x = x123(lib)
    (x * 2).backward(lib.ones(3, dtype=getattr(lib, dtype)))
    assert x.grad.dtype == lib.float32
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_scalar_gradient_scales(lib):
    x = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
    (x * x).sum().backward(lib.tensor(2.0))
    assert x.grad.tolist() == [8.0, 12.0, 16.0]


def test_second_backward_error_when_something_was_saved(lib):
    x = x123(lib)
    s = (x * x).sum()
    s.backward()
    raises(lib, RuntimeError, SECOND_TIME, lambda: s.backward())
    s = (x * 2).sum()  # MulBackward0 saved the wrapped scalar
    s.backward()
    raises(lib, RuntimeError, SECOND_TIME, lambda: s.backward())


def test_second_backward_ok_when_nothing_was_saved(lib):
    x = x123(lib)
    s = (x + 2).sum()
    s.backward()
    s.backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_retain_graph_then_third_call_fails(lib):
    x = x123(lib)
    s = (x * x).sum()
    s.backward(retain_graph=True)
    s.backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]
    raises(lib, RuntimeError, SECOND_TIME, lambda: s.backward())


def test_create_graph_implies_retain_graph():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        s = (x ** 3).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s.backward(create_graph=True)
            s.backward()
        return x.grad.tolist()

    same(scenario)


def test_second_backward_through_ops_matches_torch():
    def scenario(L):
        out = []
        makers = {
            "neg": lambda x: (-x).sum(), "view": lambda x: x.view(3, 1).sum(),
            "sub": lambda x: (x - x).sum(), "div_scalar": lambda x: (x / 2).sum(),
            "exp": lambda x: x.exp().sum(), "mean": lambda x: x.mean(),
            "t": lambda x: x.unsqueeze(0).t().sum(), "clone": lambda x: x.clone().sum(),
            "relu": lambda x: x.relu().sum(), "select": lambda x: x[1],
            "mm": lambda x: (x.unsqueeze(0) @ x.unsqueeze(1)).sum(),
        }
        for key, make in makers.items():
            x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
            s = make(x)
            s.backward()
            try:
                s.backward()
                out.append((key, "ok", x.grad))
            except RuntimeError as e:
                out.append((key, str(e)))
        return out

    same(scenario)


def _no_grad_outputs(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    with L.no_grad():
        z = (a * 2).sum()
    return {
        "plain_scalar": lambda: L.tensor(1.0).backward(),
        "plain_vector": lambda: L.ones(3).backward(),
        "detached": lambda: a.detach().sum().backward(),
        "no_grad_result": lambda: z.backward(),
        "long": lambda: (a * 2).long().backward(),
    }


@pytest.mark.parametrize("case", ["plain_scalar", "plain_vector", "detached", "no_grad_result",
                                  "long"])
def test_backward_on_tensor_without_grad(lib, case):
    raises(lib, RuntimeError, NO_GRAD_ELEMENT.format(0), _no_grad_outputs(lib)[case])


def test_autograd_backward_element_index(lib):
    a = lib.tensor(1.0, requires_grad=True)
    raises(lib, RuntimeError, NO_GRAD_ELEMENT.format(1),
           lambda: lib.autograd.backward([a * 2, lib.ones(1).sum()]))


def test_autograd_backward_list(lib):
    a = lib.tensor(1.0, requires_grad=True)
    lib.autograd.backward([a * 2, a * 3])
    assert a.grad.item() == 5.0
    b = lib.tensor([1.0, 2.0], requires_grad=True)
    lib.autograd.backward([b * 2, b * b], [lib.ones(2), lib.tensor([1.0, 10.0])])
    assert b.grad.tolist() == [4.0, 42.0]


def test_backward_on_leaf(lib):
    x2 = lib.tensor(3.0, requires_grad=True)
    x2.backward()
    assert repr(x2.grad) == "tensor(1.)"


def test_backward_inputs_limits_accumulation(lib):
    x = x123(lib)
    w = lib.tensor([1.0, 1.0, 1.0], requires_grad=True)
    (x * w).sum().backward(inputs=[x])
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and w.grad is None


def test_backward_inputs_non_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    assert h.grad.tolist() == [4.0, 8.0]
    assert x.grad is None


def test_backward_inputs_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([3.0, 4.0], requires_grad=True)
        h = x * w
        loss = (h * h).sum()
        loss.backward(inputs=[w, h], retain_graph=True)
        first = (x.grad, w.grad, h.grad)
        loss.backward(inputs=x)
        return first, x.grad, w.grad

    same(scenario)


def test_backward_gradient_requiring_grad():
    def scenario(L):
        a = L.tensor(1.0, requires_grad=True)
        g = L.tensor(2.0, requires_grad=True)
        (a * 2).backward(g)
        return a.grad, g.grad

    same(scenario)


# ============================================================================================
# autograd.grad
# ============================================================================================

def test_grad_returns_tuple_and_leaves_dot_grad_alone(lib):
    x = x123(lib)
    g = lib.autograd.grad((x * x).sum(), x)
    assert isinstance(g, tuple) and len(g) == 1
    assert g[0].tolist() == [2.0, 4.0, 6.0]
    assert x.grad is None


def test_grad_unused_input(lib):
    x = x123(lib)
    w = lib.tensor([1.0, 1.0, 1.0], requires_grad=True)
    raises(lib, RuntimeError, UNUSED, lambda: lib.autograd.grad((x * x).sum(), [x, w]))
    gx, gw = lib.autograd.grad((x * x).sum(), [x, w], allow_unused=True)
    assert (gx.tolist(), gw) == ([2.0, 4.0, 6.0], None)
    gx, gw = lib.autograd.grad((x * x).sum(), [x, w], allow_unused=True, materialize_grads=True)
    assert (gx.tolist(), gw.tolist()) == ([2.0, 4.0, 6.0], [0.0, 0.0, 0.0])


def test_grad_materialize_without_allow_unused():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([1.0, 1.0], requires_grad=True)
        return L.autograd.grad((x * x).sum(), [x, w], materialize_grads=True)

    same(scenario)


def test_grad_input_not_requiring_grad(lib):
    x = x123(lib)
    raises(lib, RuntimeError, "One of the differentiated Tensors does not require grad",
           lambda: lib.autograd.grad((x * x).sum(), [lib.ones(3)]))


def test_grad_non_scalar_needs_grad_outputs(lib):
    x = x123(lib)
    raises(lib, RuntimeError, SCALAR_ONLY, lambda: lib.autograd.grad(x * 2, x))
    (g,) = lib.autograd.grad(x * 2, x, grad_outputs=lib.ones(3))
    assert g.tolist() == [2.0, 2.0, 2.0]


def test_grad_of_output_not_requiring_grad(lib):
    x = x123(lib)
    raises(lib, RuntimeError, NO_GRAD_ELEMENT.format(0),
           lambda: lib.autograd.grad(lib.ones(1).sum(), [x]))


def test_grad_create_graph_and_second_order(lib):
    x = x123(lib)
    (g,) = lib.autograd.grad((x * x * x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0] and g.requires_grad
    (g2,) = lib.autograd.grad(g.sum(), x)
    assert g2.tolist() == [6.0, 12.0, 18.0]
    (g3,) = lib.autograd.grad((x * x).sum(), x)
    assert g3.requires_grad is False


def test_grad_create_graph_grad_fn_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = []
        for make in (lambda: (x * x * x).sum(), lambda: (x ** 3).sum(), lambda: x.exp().sum(),
                     lambda: (x * x).sum(), lambda: (x / (x + 1)).sum(), lambda: x.log().sum()):
            (g,) = L.autograd.grad(make(), x, create_graph=True)
            (g2,) = L.autograd.grad(g.sum(), x)
            out.append((g, g2))
        return out

    same(scenario)


@pytest.mark.parametrize("op", ["sigmoid", "tanh"])
def test_double_backward_node_of_result_saving_ops(op):
    # torch differentiates these backward formulas with their own nodes
    # (SigmoidBackwardBackward0, TanhBackwardBackward0).
    def scenario(L):
        x = L.tensor([0.5, 1.0], requires_grad=True)
        (g,) = L.autograd.grad(getattr(x, op)().sum(), x, create_graph=True)
        (g2,) = L.autograd.grad(g.sum(), x)
        return g, g2

    same(scenario)


def test_grad_with_respect_to_non_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    g = lib.autograd.grad((h * h).sum(), h)
    assert [t.tolist() for t in g] == [[6.0, 12.0]]
    assert x.grad is None


def test_grad_twice_on_same_graph(lib):
    x = x123(lib)
    y = (x * x).sum()
    lib.autograd.grad(y, x)
    raises(lib, RuntimeError, SECOND_TIME, lambda: lib.autograd.grad(y, x))


def test_grad_retain_graph_and_multiple_outputs():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([0.5, -1.0], requires_grad=True)
        y1 = (x * w).sum()
        y2 = (x * x).sum()
        a = L.autograd.grad([y1, y2], [x, w], retain_graph=True)
        b = L.autograd.grad([y1, y2], [w, x], grad_outputs=[L.tensor(2.0), L.tensor(-1.0)])
        return a, b, x.grad, w.grad

    same(scenario)


# ============================================================================================
# Grad modes
# ============================================================================================

def test_grad_mode_nesting(lib):
    x = x123(lib)
    assert lib.is_grad_enabled() is True
    with lib.no_grad():
        assert lib.is_grad_enabled() is False
        y = x * 2
        with lib.enable_grad():
            assert lib.is_grad_enabled() is True
            z = x * 2
        assert lib.is_grad_enabled() is False
    assert lib.is_grad_enabled() is True
    assert (y.requires_grad, y.is_leaf, z.requires_grad) == (False, True, True)


def test_set_grad_enabled_context_and_plain_call(lib):
    with lib.set_grad_enabled(False):
        assert lib.is_grad_enabled() is False
    assert lib.is_grad_enabled() is True
    lib.set_grad_enabled(False)
    try:
        assert lib.is_grad_enabled() is False
        assert (x123(lib) * 2).requires_grad is False
    finally:
        lib.set_grad_enabled(True)
    assert lib.is_grad_enabled() is True
    with lib.set_grad_enabled(True):
        assert lib.is_grad_enabled() is True


def test_grad_mode_decorators(lib):
    x = x123(lib)

    @lib.no_grad()
    def f(a):
        return a * 2

    @lib.no_grad
    def g(a):
        return a * 2

    @lib.enable_grad()
    def h(a):
        return a * 2

    @lib.set_grad_enabled(False)
    def k(a):
        return a * 2

    assert (f(x).requires_grad, g(x).requires_grad, k(x).requires_grad) == (False, False, False)
    with lib.no_grad():
        assert h(x).requires_grad is True
    assert f.__name__ == "f" and lib.is_grad_enabled()


def test_no_grad_decorated_generator(lib):
    x = x123(lib)

    @lib.no_grad()
    def gen():
        yield x * 2
        yield x * 3

    assert [t.requires_grad for t in gen()] == [False, False]


def test_inference_mode_flags(lib):
    x = x123(lib)
    with lib.inference_mode():
        assert lib.is_grad_enabled() is False
        assert lib.is_inference_mode_enabled() is True
        i = x * 2
    assert i.requires_grad is False
    assert lib.is_inference_mode_enabled() is False
    with lib.inference_mode(False):
        assert lib.is_inference_mode_enabled() is False
        assert lib.is_grad_enabled() is True


def test_no_grad_result_flags(lib):
    x = x123(lib)
    with lib.no_grad():
        n = x * 2
    assert (n.requires_grad, n.is_leaf, n.grad_fn) == (False, True, None)


def test_exception_inside_no_grad_restores_mode(lib):
    with pytest.raises(ValueError):
        with lib.no_grad():
            raise ValueError("boom")
    assert lib.is_grad_enabled() is True


def test_grad_mode_is_thread_local(lib):
    x = x123(lib)
    inside_no_grad = threading.Event()
    main_checked = threading.Event()
    seen = {}

    def worker():
        with lib.no_grad():
            seen["worker"] = lib.is_grad_enabled()
            inside_no_grad.set()
            main_checked.wait(5)
            seen["worker_result_rg"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    assert inside_no_grad.wait(5)
    seen["main"] = lib.is_grad_enabled()
    seen["main_result_rg"] = (x * 2).requires_grad
    main_checked.set()
    t.join(5)
    assert seen == {"worker": False, "main": True, "main_result_rg": True,
                    "worker_result_rg": False}


def test_new_thread_starts_with_grad_enabled(lib):
    x = x123(lib)
    seen = {}

    def worker():
        seen["enabled"] = lib.is_grad_enabled()
        seen["rg"] = (x * 2).requires_grad

    with lib.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join(5)
    assert seen == {"enabled": True, "rg": True}


def test_plain_set_grad_enabled_in_thread_does_not_leak(lib):
    def worker():
        lib.set_grad_enabled(False)

    t = threading.Thread(target=worker)
    t.start()
    t.join(5)
    assert lib.is_grad_enabled() is True


# ---- capturing runs send gradients only where they are used ---------------------------------

def test_backward_inputs_does_not_feed_nodes_it_does_not_run():
    # Found by the fuzzer: t1 retains its grad after backward(inputs=[t1]); a later
    # backward(inputs=[t4]) runs t4's node but must not hand t1 a gradient.
    def scenario(L):
        t0 = L.tensor([2.0], requires_grad=True)
        t1 = t0 - t0
        (t1 * t1).sum().backward(retain_graph=True, inputs=[t1])
        calls = []
        t1.register_hook(lambda g: calls.append(g.tolist()))
        t4 = L.matmul(t1, t0)
        t4.backward(L.ones_like(t4), retain_graph=True, inputs=[t4])
        return t1.grad, t4.grad, t0.grad, calls

    same(scenario)


def test_autograd_grad_leaves_other_branches_alone():
    def scenario(L):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        w = L.tensor([3.0, 4.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        calls = []
        y.register_hook(lambda g: calls.append(g.tolist()))
        x.register_hook(lambda g: calls.append(("x", g.tolist())))
        (gw,) = L.autograd.grad((y * w).sum(), [w])
        return gw, y.grad, x.grad, calls

    same(scenario)


def test_grad_with_no_inputs_is_torchs_error():
    x = gradtrack.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `grad\(\)` cannot be empty\.$"):
        gradtrack.autograd.grad(x.sum(), [])
