"""Autograd corners against PyTorch 2.13: every ``grad_fn`` is a
``autograd.graph.Node`` (built-in, custom Function, module hook nodes), its
``name()`` and ``metadata``; ``autograd.graph.increment_version``; and
``gradgradcheck`` of a function that ignores one of its inputs."""

import pytest


from helpers import same


def test_nodes_are_graph_nodes_with_names_and_metadata():
    def scenario(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = lib.ones(2, requires_grad=True)
        nodes = [(x * 3).grad_fn, (x * 3).sum().grad_fn, Double.apply(x).grad_fn,
                 x.view(2, 1).grad_fn]
        out = []
        for node in nodes:
            node.metadata["tag"] = node.name()
            out.append((isinstance(node, lib.autograd.graph.Node), node.name(),
                        dict(node.metadata)))
        return out

    same(scenario)


def test_accumulate_grad_node():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        acc = (x * 1).grad_fn.next_functions[0][0]
        return isinstance(acc, lib.autograd.graph.Node), acc.name(), acc.metadata

    same(scenario)


def test_module_backward_hook_node_name():
    def scenario(lib):
        m = lib.nn.ReLU()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        out = m(lib.ones(2, requires_grad=True))
        return out.grad_fn.name(), isinstance(out.grad_fn, lib.autograd.graph.Node)

    same(scenario)


def test_increment_version_bumps_only_the_counter():
    def scenario(lib):
        x = lib.tensor([1.0, -0.0, 3.0])
        base = lib.zeros(3, 2)
        view = base[:, 0]
        scalar = lib.tensor(2.0, requires_grad=True)
        lib.autograd.graph.increment_version(x)
        lib.autograd.graph.increment_version([x, view, scalar])
        return x._version, x, base._version, view._version, scalar._version, scalar

    same(scenario)


def test_increment_version_makes_backward_refuse_saved_tensor():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        z = y * y
        lib.autograd.graph.increment_version(y)
        z.sum().backward()

    same(scenario)


@pytest.mark.parametrize("which", ["second", "first"])
def test_gradgradcheck_with_an_ignored_input(which):
    def scenario(lib):
        a = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([2.0, -1.0], dtype=lib.float64, requires_grad=True)
        if which == "second":
            def fn(x, y):
                return x ** 3
        else:
            def fn(x, y):
                return y.sin() * y
        return (lib.autograd.gradgradcheck(fn, (a, b)),
                lib.autograd.gradcheck(fn, (a, b)))

    same(scenario)


def test_gradgradcheck_with_a_linear_function():
    # The first derivative does not depend on the input at all.
    def scenario(lib):
        a = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        return lib.autograd.gradgradcheck(lambda x: x * 3, (a,))

    same(scenario)

