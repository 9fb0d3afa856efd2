"""Hostile input: graphs 100 000 deep (backward, autograd.grad, double backward, repr,
freeing) and hooks that raise, interrupt, exit, delete the graph, re-enter backward or
return the wrong thing. hostile_cases.py runs them (gradtrack in a child process).
"""

import pytest

from hostile_cases import case_table, check_case

torch = pytest.importorskip("torch")

CASES, case = case_table()   # CASES: name -> (source, mode)


# -- graphs 100 000 deep ------------------------------------------------------------------------------
DEEP = "x = lib.ones(2, requires_grad=True)\ny = x\n"
for name, src in {
    "mul_100k_backward": DEEP + ("for _ in range(100000): y = y * 1.0\ns = y.sum(); del y\n"
                                 "s.backward()\nout = x.grad"),
    "mul_tensor_100k_freed": DEEP + ("for _ in range(100000): y = y * x\ns = y.sum(); del y\n"
                                     "s.backward()\ntry:\n    s.backward()\n"
                                     "except RuntimeError as e:\n    out = (x.grad, str(e)[:52])"),
    "exp_log_100k_backward": DEEP + ("for _ in range(100000): y = y.exp().log()\n"
                                     "y.sum().backward()\nout = x.grad"),
    "mul_200k_built_and_dropped": DEEP + "for _ in range(200000): y = y * 1.0\ndel y\nout = 1",
    "slice_100k_backward": DEEP + "for _ in range(100000): y = y[:]\ny.sum().backward()\nout = x.grad",
    "inplace_100k_backward": ("x = lib.ones(2, requires_grad=True)\ny = x * 1\n"
                              "for _ in range(100000): y.mul_(1.0)\n"
                              "y.sum().backward()\nout = (x.grad, y._version)"),
    "view_inplace_20k_backward": ("x = lib.ones(2, requires_grad=True)\ny = x * 1\n"
                                  "for _ in range(20000): y[0].mul_(1.0)\n"
                                  "y.sum().backward()\nout = x.grad"),
    "mul_100k_autograd_grad": DEEP + ("for _ in range(100000): y = y * 1.0\n"
                                      "out = lib.autograd.grad(y.sum(), [x])"),
    "mul_30k_double_backward": DEEP + ("for _ in range(30000): y = y * 1.0\n"
                                       "g, = lib.autograd.grad(y.sum(), [x], create_graph=True)\n"
                                       "g.sum().backward()\nout = x.grad"),
    "wide_20k_backward": ("x = lib.ones(2, requires_grad=True)\nys = [x * 1.0 for _ in range(20000)]\n"
                           "s = ys[0]\nfor y in ys[1:]: s = s + y\ns.sum().backward()\nout = x.grad"),
    "repr_of_deep_result": DEEP + "for _ in range(100000): y = y * 1.0\nout = repr(y)",
}.items():
    case(f"deep_{name}", src)

# -- hooks that raise, interrupt, delete, re-enter ----------------------------------------------------
HOOK = "x = lib.ones(3, requires_grad=True)\ny = x * 2\n"
for name, src in {
    "raise_custom_type": HOOK + (
        "class Boom(ValueError):\n    pass\n"
        "def h(g):\n    raise Boom('hook says no')\n"
        "y.register_hook(h)\n"
        "try:\n    y.sum().backward(retain_graph=True)\nexcept Boom as e:\n    first = str(e)\n"
        "out = (first, x.grad)"),
    "raise_then_same_graph_again": HOOK + (
        "calls = []\n"
        "def h(g):\n    calls.append(1)\n    if len(calls) == 1:\n        raise ValueError('once')\n"
        "y.register_hook(h)\n"
        "try:\n    y.sum().backward(retain_graph=True)\nexcept ValueError:\n    pass\n"
        "y.sum().backward()\nz = lib.ones(2, requires_grad=True)\n(z * 3).sum().backward()\n"
        "out = (x.grad, len(calls), z.grad)"),
    "leaf_hook_zero_division": (
        "x = lib.ones(3, requires_grad=True)\nx.register_hook(lambda g: 1 / 0)\n"
        "try:\n    (x * 2).sum().backward()\nexcept ZeroDivisionError as e:\n    r = str(e)\n"
        "z = lib.ones(2, requires_grad=True)\n(z * 3).sum().backward()\nout = (r, x.grad, z.grad)"),
    "keyboard_interrupt": HOOK + (
        "def h(g):\n    raise KeyboardInterrupt\n"
        "y.register_hook(h)\n"
        "try:\n    y.sum().backward(retain_graph=True)\nexcept KeyboardInterrupt:\n    r = 'KI'\n"
        "z = lib.ones(2, requires_grad=True)\n(z * 3).sum().backward()\n"
        "w = lib.ones(2, requires_grad=True)\nlib.autograd.grad((w * w).sum(), [w])\n"
        "out = (r, x.grad, z.grad)"),
    "keyboard_interrupt_propagates": HOOK + (
        "def h(g):\n    raise KeyboardInterrupt\ny.register_hook(h)\ny.sum().backward()"),
    "system_exit": HOOK + (
        "def h(g):\n    raise SystemExit(3)\ny.register_hook(h)\n"
        "try:\n    y.sum().backward()\nexcept SystemExit as e:\n    r = e.code\nout = (r, x.grad)"),
    "post_accumulate_hook_raises": (
        "x = lib.ones(3, requires_grad=True)\nx.register_post_accumulate_grad_hook(lambda t: 1 / 0)\n"
        "try:\n    (x * 2).sum().backward()\nexcept ZeroDivisionError:\n    r = 'zde'\nout = (r, x.grad)"),
    "delete_graph_tensors_in_hook": (
        "x = lib.ones(3, requires_grad=True)\nns = {}\n"
        "def h(g):\n    ns.clear()\n    import gc; gc.collect()\n    return g * 2\n"
        "y = x * 2\nz = y * 3\nns['y'] = y\nns['z'] = z\ny.register_hook(h)\n"
        "s = z.sum()\ndel y, z\ns.backward()\nout = x.grad"),
    "grad_none_in_hook": (
        "x = lib.ones(3, requires_grad=True)\n"
        "def h(g):\n    x.grad = None\n    return g\nx.register_hook(h)\n"
        "(x * 2).sum().backward()\n(x * 2).sum().backward()\nout = x.grad"),
    "del_grad_in_hook": (
        "x = lib.ones(3, requires_grad=True)\n"
        "def h(g):\n    del x.grad\n    return g\nx.register_hook(h)\n"
        "(x * 2).sum().backward()\n(x * 2).sum().backward()\nout = x.grad"),
    "reentrant_backward_other_graph": HOOK + (
        "other = lib.ones(2, requires_grad=True)\n"
        "def h(g):\n    (other * 5).sum().backward()\n    return g\n"
        "y.register_hook(h)\ny.sum().backward()\nout = (x.grad, other.grad)"),
    "reentrant_autograd_grad": HOOK + (
        "def h(g):\n    gg, = lib.autograd.grad((x * x).sum(), [x])\n    return g + gg\n"
        "y.register_hook(h)\ny.sum().backward()\nout = x.grad"),
    "reentrant_backward_same_graph": HOOK + (
        "def h(g):\n    y.sum().backward(retain_graph=True)\n    return g\n"
        "y.register_hook(h)\ny.sum().backward(retain_graph=True)\nout = x.grad"),
    "enable_grad_in_hook": HOOK + (
        "def h(g):\n    with lib.enable_grad():\n        return g * x\n"
        "y.register_hook(h)\ny.sum().backward()\nout = (x.grad, x.grad.requires_grad)"),
    "hook_modifies_grad_in_place": HOOK + (
        "y.register_hook(lambda g: g.add_(1))\ny.sum().backward()\nout = x.grad"),
    "hook_returns_wrong_shape": HOOK + "y.register_hook(lambda g: lib.ones(2))\ny.sum().backward()",
    "hook_returns_str": HOOK + "y.register_hook(lambda g: 'a')\ny.sum().backward()",
    "hook_returns_double": HOOK + "y.register_hook(lambda g: g.double())\ny.sum().backward()",
    "hook_takes_no_argument": HOOK + "y.register_hook(lambda: None)\ny.sum().backward()",
}.items():
    case(f"hook_{name}", src)


# ---- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, gradtrack_outcomes):
    check_case(torch, CASES[name], gradtrack_outcomes[name])
