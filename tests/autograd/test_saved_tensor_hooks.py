"""autograd.graph: saved-tensor hooks (pack/unpack calls, order, counts,
nesting, what backward uses), disable_saved_tensors_hooks, save_on_cpu and the
Node ABC, each compared with torch 2.13."""

import numpy as np

import gradtrack

from helpers import raised


def _vals(t):
    return None if t is None else np.round(t.detach().numpy().astype(np.float64), 5).tolist()


def _same(run, torch):
    ours, theirs = run(gradtrack), run(torch)
    assert ours == theirs
    return ours


def _logging_hooks(log):
    def pack(t):
        log.append(("pack", tuple(t.shape), _vals(t), t.requires_grad, t.grad_fn is not None))
        return t.detach()

    def unpack(t):
        log.append(("unpack", _vals(t)))
        return t

    return pack, unpack


def test_pack_unpack_order_and_counts(torch):
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
            a = x * y          # saves x and y
            b = a.exp()        # saves its result
            c = b.sin()        # saves its input
            d = c.pow(2)       # saves its input
            e = x * 2          # saves no tensor
            f = d.sum() + e.sum()
        log.append("backward")
        f.backward()
        log.append(("grads", _vals(x.grad), _vals(y.grad)))
        return log

    _same(run, torch)


def test_unpack_result_is_what_backward_uses(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t * 10):
            y = x.sin()
            z = x * x
        (y.sum() + z.sum()).backward()
        return _vals(x.grad)

    _same(run, torch)


def test_unpack_called_per_use_with_retain_graph(torch):
    def run(lib):
        counts = [0, 0]

        def pack(t):
            counts[0] += 1
            return t.detach()

        def unpack(t):
            counts[1] += 1
            return t

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).exp().sum()
        seen = [tuple(counts)]
        y.backward(retain_graph=True)
        seen.append(tuple(counts))
        y.backward()
        seen.append(tuple(counts))
        seen.append(raised(y.backward, lib)[0])
        seen.append(_vals(x.grad))
        return seen

    _same(run, torch)


def test_nesting_uses_innermost_pair(torch):
    def run(lib):
        log = []
        x = lib.ones(2, requires_grad=True)
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: (log.append("outer"), t.detach())[1], lambda t: t):
            with graph.saved_tensors_hooks(lambda t: (log.append("inner"), t.detach())[1],
                                           lambda t: t):
                x.sin()
            x.sin()
        x.sin()
        return log

    _same(run, torch)


def test_no_version_check_with_hooks(torch):
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            q = x.clone()
            w = q.sin()
        q.add_(1)
        w.sum().backward()
        return _vals(x.grad)

    _same(run, torch)


def test_hook_errors(torch):
    def run(lib):
        graph = lib.autograd.graph
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        out = []
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: 5):
            w = x.sin()
        out.append(raised(lambda: w.sum().backward(), lib))

        def modifying_pack():
            with graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
                x.detach().clone().requires_grad_().sin()

        out.append(raised(modifying_pack, lib))

        def raising_pack():
            with graph.saved_tensors_hooks(lambda t: 1 / 0, lambda t: t):
                x.sin()

        out.append(raised(raising_pack, lib))
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: 1 / 0):
            w = x.sin()
        out.append(raised(lambda: w.sum().backward(), lib))
        return out

    _same(run, torch)


def test_grad_mode_inside_hooks(torch):
    def run(lib):
        modes = []
        x = lib.ones(2, requires_grad=True)

        def pack(t):
            modes.append(("pack", lib.is_grad_enabled()))
            return t.detach()

        def unpack(t):
            modes.append(("unpack", lib.is_grad_enabled()))
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.sin()
        y.sum().backward()
        return modes

    _same(run, torch)


def test_double_backward_through_packed_tensors(torch):
    def run(lib):
        out = []
        for saves_output in (False, True):
            x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
                w = x.exp().sum() if saves_output else (x ** 3).sum()
            g, = lib.autograd.grad(w, x, create_graph=True)
            out.append((_vals(g), g.requires_grad))
            g.sum().backward()
            out.append(_vals(x.grad))
        return out

    _same(run, torch)


def test_custom_function_save_for_backward(torch):
    def run(lib):
        log = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                out = a * a
                ctx.save_for_backward(a, out)
                return out

            @staticmethod
            def backward(ctx, g):
                a, out = ctx.saved_tensors
                log.append(("backward", _vals(a), a.requires_grad, out.grad_fn is not None))
                return 2 * a * g

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
            y = Square.apply(x)
            log.append("after apply")
            log.append(len(y.grad_fn.saved_tensors))
        y.sum().backward()
        log.append(_vals(x.grad))
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t * 3):
            y = Square.apply(x)
        y.sum().backward()
        log.append(_vals(x.grad))
        return log

    _same(run, torch)


def test_disable_saved_tensors_hooks(torch):
    def run(lib):
        graph = lib.autograd.graph
        out = []

        def push():
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

        with graph.disable_saved_tensors_hooks("outer message"):
            with graph.disable_saved_tensors_hooks("inner message"):
                out.append(raised(push, lib))
            out.append(raised(push, lib))

            def cpu():
                with graph.save_on_cpu():
                    pass

            out.append(raised(cpu, lib))
        out.append(raised(push, lib))

        def disable_inside_hooks():
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                with graph.disable_saved_tensors_hooks("not now"):
                    pass

        out.append(raised(disable_inside_hooks, lib))
        out.append(raised(push, lib))
        return out

    _same(run, torch)


def test_save_on_cpu(torch):
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (x.sin() * x).sum()
        y.backward()
        return _vals(x.grad)

    _same(run, torch)


def test_node_abc(torch):
    def run(lib):
        Node = lib.autograd.graph.Node

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = lib.ones(2, requires_grad=True)
        y = x.sin()
        acc = (x * 1).grad_fn.next_functions[0][0]
        return [isinstance(y.grad_fn, Node), isinstance(Twice.apply(x).grad_fn, Node),
                isinstance(acc, Node), issubclass(type(y.grad_fn), Node), isinstance(x, Node),
                sorted(Node.__abstractmethods__), raised(Node, lib)]

    _same(run, torch)


def test_post_accumulate_grad_hook(torch):
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)

        def hook(t):
            log.append(("hook", t is x, _vals(t.grad)))
            t.grad.mul_(10)

        handle = x.register_post_accumulate_grad_hook(hook)
        (x * 3).sum().backward()
        (x * 3).sum().backward()
        log.append(_vals(x.grad))
        handle.remove()
        (x * 3).sum().backward()
        log.append(_vals(x.grad))
        y = x * 2
        log.append(raised(lambda: y.register_post_accumulate_grad_hook(hook), lib))
        z = lib.ones(2)
        log.append(raised(lambda: z.register_post_accumulate_grad_hook(hook), lib))
        return log

    _same(run, torch)
