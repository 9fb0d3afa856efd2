"""``autograd.graph``: register_multi_grad_hook, GradientEdge / get_gradient_edge (also as
inputs and outputs of grad and backward) and allow_mutation_on_saved_tensors, against torch."""

import pytest

import gradtrack


def _values(grads):
    return [None if g is None else g.tolist() for g in grads]


def _errors(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the error is the observation
        return type(e).__name__, str(e)


# ---- register_multi_grad_hook ------------------------------------------------------------

def _multi_all(lib):
    reg = lib.autograd.graph.register_multi_grad_hook
    log = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([5.0], requires_grad=True)
    handle = reg((a, b, c), lambda grads: log.append(("all", type(grads).__name__,
                                                      _values(grads))))
    a.register_hook(lambda g: log.append("a"))
    b.register_hook(lambda g: log.append("b"))
    (a * 2 + b * 3).sum().backward(retain_graph=True)
    (a * 5).sum().backward()
    lib.autograd.backward((a * b).sum(), inputs=[b])
    (c * 2).sum().backward()
    log.append((type(handle).__name__, len(handle.handles), hasattr(handle, "id")))
    handle.remove()
    (a * b).sum().backward()
    return log


def test_mode_all_calls_once_per_pass_with_what_the_pass_computes(torch):
    assert _multi_all(gradtrack) == _multi_all(torch)


def _multi_nonleaf(lib):
    reg = lib.autograd.graph.register_multi_grad_hook
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y1, y2 = x * 2, x * 3
    y1.register_hook(lambda g: log.append("y1"))
    handle = reg([y1, y2], lambda grads: log.append(_values(grads)))
    y2.register_hook(lambda g: log.append("y2"))
    x.register_hook(lambda g: log.append("x"))
    (y1 * y2).sum().backward(retain_graph=True)
    y1.sum().backward(retain_graph=True)
    log.append(lib.autograd.grad(y2.sum(), x, retain_graph=True)[0].tolist())
    handle.remove()
    dup = reg([x, x], lambda grads: log.append(("dup", _values(grads))))
    (x * 3).sum().backward()
    dup.remove()
    return log


def test_mode_all_on_non_leaves_runs_in_hook_order(torch):
    assert _multi_nonleaf(gradtrack) == _multi_nonleaf(torch)


def _multi_any(lib):
    reg = lib.autograd.graph.register_multi_grad_hook
    log = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    handle = reg((a, b, lib.ones(2)), lambda g: log.append(g.tolist()) or g * 100, mode="any")
    (a * 2 + b * 3).sum().backward()
    (b * 7).sum().backward()
    log.append(lib.autograd.grad((a * b).sum(), [a, b])[0].tolist())
    handle.remove()
    (a * 2).sum().backward()
    log.append((a.grad.tolist(), b.grad.tolist()))
    return log


def test_mode_any_calls_once_per_pass_and_ignores_what_fn_returns(torch):
    assert _multi_any(gradtrack) == _multi_any(torch)


def _multi_errors(lib):
    reg = lib.autograd.graph.register_multi_grad_hook
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    out = [_errors(lambda: reg((a,), lambda g: None, mode="some")),
           _errors(lambda: reg((a, lib.ones(2)), lambda g: None))]
    handle = reg((a, b), lambda grads: None)
    y = (a * b).sum()
    out.append(_errors(lambda: lib.autograd.grad(y, (a,), retain_graph=True)))
    handle.remove()
    failing = reg((a, b), lambda grads: 1 / 0)
    out.append(_errors(lambda: (a * b).sum().backward()))
    failing.remove()
    return out


def test_multi_grad_hook_errors(torch):
    assert _multi_errors(gradtrack) == _multi_errors(torch)


# ---- GradientEdge -------------------------------------------------------------------------

def _edges(lib):
    graph = lib.autograd.graph
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    z = (y * y).sum()
    e, ea = graph.get_gradient_edge(y), graph.get_gradient_edge(a)
    grad = lib.autograd.grad
    out = [type(e).__name__, e._fields, e.node.name().split("::")[-1], e.output_nr,
           ea.node.name().split("::")[-1], ea.node is graph.get_gradient_edge(a).node,
           e == graph.GradientEdge(e.node, 0),
           _values(grad(z, e, retain_graph=True)),
           _values(grad(z, [e, a], retain_graph=True)),
           _values(grad(z, ea, retain_graph=True)),
           _values(grad(graph.get_gradient_edge(z), a, retain_graph=True)),
           _values(grad(e, a, grad_outputs=lib.ones(2), retain_graph=True)),
           _values(grad(z, {"e": e}, retain_graph=True).values()),
           _values(grad(z, e, create_graph=True)), ]
    u = lib.randn(2, 3, requires_grad=True).unbind(0)[1]
    out.append((graph.get_gradient_edge(u).output_nr, graph.get_gradient_edge(u).node.name()))
    return out


def test_gradient_edges_stand_for_their_tensors(torch):
    assert _edges(gradtrack) == _edges(torch)


def _edge_after_inplace(lib):
    graph = lib.autograd.graph
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    e = graph.get_gradient_edge(y)
    y.mul_(2)
    z = (y * y).sum()
    w = lib.tensor([1.0], requires_grad=True)
    unused = graph.get_gradient_edge(w * 1)
    return [_values(lib.autograd.grad(z, e, retain_graph=True)),
            _values(lib.autograd.grad(z, [e, y], retain_graph=True)),
            _values(lib.autograd.grad(z, [graph.GradientEdge(y.grad_fn, 0)], retain_graph=True)),
            _errors(lambda: lib.autograd.grad(z, [unused], retain_graph=True)),
            _values(lib.autograd.grad(z, [unused], retain_graph=True, allow_unused=True)),
            _errors(lambda: lib.autograd.grad(z, [unused], retain_graph=True,
                                              materialize_grads=True))]


def test_gradient_edge_keeps_the_gradient_before_an_inplace_write(torch):
    assert _edge_after_inplace(gradtrack) == _edge_after_inplace(torch)


def _edge_backward(lib):
    graph = lib.autograd.graph
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    z = (y * y).sum()
    out = []
    lib.autograd.backward(z, inputs=[graph.get_gradient_edge(a)], retain_graph=True)
    out.append(a.grad.tolist())
    lib.autograd.backward(z, inputs=[graph.get_gradient_edge(y)], retain_graph=True)
    z.backward(inputs=[graph.get_gradient_edge(y)], retain_graph=True)
    out.append((a.grad.tolist(), y.retains_grad))
    lib.autograd.backward(graph.get_gradient_edge(z), grad_tensors=lib.tensor(1.0),
                          retain_graph=True)
    out.append(a.grad.tolist())
    out.append(_errors(lambda: lib.autograd.backward([graph.get_gradient_edge(y)])))
    out.append(_errors(lambda: graph.get_gradient_edge(lib.ones(2))))
    out.append(_errors(lambda: lib.autograd.grad(z, (graph.get_gradient_edge(y), 3))))
    return out


def test_backward_takes_gradient_edges(torch):
    assert _edge_backward(gradtrack) == _edge_backward(torch)


# ---- allow_mutation_on_saved_tensors -------------------------------------------------------

def _mutation(lib):
    allow = lib.autograd.graph.allow_mutation_on_saved_tensors
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    out = []
    with allow() as ctx:
        out.append(type(ctx).__name__)
        b = a.clone()
        y = (b * b).sum()
        b.mul_(3)
        y.backward()
        out.append((a.grad.tolist(), b.tolist()))
        b = a.clone()
        s = b.sin().sum()
        b.zero_()
        s.backward(retain_graph=True)
        s.backward()
        b = a.clone()
        v = b[:1]
        y = (b * b).sum()
        v.mul_(10)
        y.backward()
        e = a.exp()
        y = e.sum()
        e.mul_(0)
        y.backward()
        out.append([round(g, 4) for g in a.grad.tolist()])
        out.append(_errors(lambda: a.mul_(2)))
        b = a.clone()
        later = (b * b).sum()
        b.add_(1)
    out.append(_errors(later.backward))
    with pytest.raises(RuntimeError) as nested:
        with allow():
            with allow():
                pass
    out.append(str(nested.value))
    return out


def test_allow_mutation_on_saved_tensors_uses_the_saved_values(torch):
    assert _mutation(gradtrack) == _mutation(torch)


def test_allow_mutation_keeps_history_of_unwritten_saved_tensors(torch):
    def check(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            y = (x * x * x).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            (h,) = lib.autograd.grad(g.sum(), x)
        return g.tolist(), h.tolist()

    assert check(gradtrack) == check(torch)
