"""One graph node named as torch's for a layer composed from existing ops.

NOTE [Named composite nodes]
A layer written from existing ops records the nodes of those ops, but where torch has a
kernel of its own the user sees one node with its name (``grad_fn.name()``, graph
walkers, ``repr``). An ``autograd.Function`` gives one node; ``named_node`` gives its
backward class torch's name. ``composite_node`` makes such a node from the composite
itself: the forward runs it without a graph, the backward runs it again with one and
takes its vector-Jacobian product, so the gradient is the composite's (exact for every
corner its ops handle) and, when a graph is being built, differentiable again (the
second derivative's nodes are those ops', where torch names a ``...BackwardBackward0``).
Forward-mode AD runs the composite itself.

>>> import gradtrack
>>> from gradtrack.nn._named_nodes import composite_node
>>> double = composite_node("DoubleBackward0", lambda x: x * 2)
>>> double(gradtrack.ones(2, requires_grad=True)).grad_fn.name()
'DoubleBackward0'
"""

from .. import _C
from ..autograd import forward_ad
from ..autograd.function import Function


def named_node(function, name):
    """Gives the ``autograd.Function`` ``function``'s backward node torch's ``name``."""
    function._backward_cls.__name__ = name
    function._backward_cls.__qualname__ = name
    return function


class _Refused(Function):
    """Stands where a backward's own derivative would be when torch has none: the first
    derivative is there; differentiating it raises torch's error."""

    @staticmethod
    def forward(ctx, x, error, *inputs):
        # ``inputs``: the inputs of the node this derivative belongs to, so that the graph
        # reaches them through this node, as torch's does.
        ctx.error = error
        return x.detach()

    @staticmethod
    def backward(ctx, grad):
        kind, message = ctx.error
        raise kind(message)


named_node(_Refused, "NotImplemented")


def _not_a_view(out):
    """A composite that ends in a reshape or slice would hand out a view of its own
    temporary; torch's kernel gives a tensor of its own (``_base`` is None)."""
    return out.clone() if out._base is not None else out


def composite_node(name, compute, differentiable=1, no_forward_ad=None,
                   no_double_backward=None, forward=None):
    """``compute(*tensors, *rest)`` as one node named ``name``: its first
    ``differentiable`` arguments are the floating tensors it is differentiated by, the
    others (targets, options, optional weights) pass through as they are.
    ``no_forward_ad``: the name of torch's op when torch has no forward-mode derivative
    for it (a tangent then raises torch's NotImplementedError). ``no_double_backward``:
    ``(exception type, message)`` when torch's backward has no derivative of its own.
    ``forward``: a faster computation of the same values, without a graph, for the
    forward pass (``compute`` then runs only for derivatives)."""
    first = compute if forward is None else forward

    class _Composite(Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.save_for_backward(*args[:differentiable])
            ctx.rest = args[differentiable:]
            return _not_a_view(first(*args))

        @staticmethod
        def backward(ctx, grad):
            from ..autograd import grad as autograd_grad
            from ..autograd.grad_mode import enable_grad
            saved = ctx.saved_tensors
            create = _C.is_grad_enabled()
            refuse = create and no_double_backward is not None
            if refuse:
                create = False
            needs = ctx.needs_input_grad[:differentiable]
            with enable_grad():
                sources = [s if create and s.requires_grad else s.detach().requires_grad_(need)
                           for s, need in zip(saved, needs)]
                out = compute(*sources, *ctx.rest)
            wanted = [s for s, need in zip(sources, needs) if need]
            if out.requires_grad:
                found = iter(autograd_grad(out, wanted, grad, create_graph=create,
                                           allow_unused=True))
            else:  # no path from the inputs (grid_sample's nearest mode): zero gradients
                found = iter([None] * len(wanted))
            grads = [next(found) if need else None for need in needs]
            grads = [g if g is not None or not need else _C.zeros(list(s.shape), dtype=s.dtype)
                     for g, need, s in zip(grads, needs, saved)]
            if refuse:
                grads = [None if g is None else
                         _Refused.apply(g, no_double_backward, *saved) for g in grads]
            return tuple(grads) + (None,) * len(ctx.rest)

    named_node(_Composite, name)
    apply = _Composite.apply

    def run(*args):
        # Forward-mode AD goes through the composite's own ops (their tangents are
        # torch's); the named node is for the backward graph.
        if forward_ad._current_level >= 0 and any(
                isinstance(a, _C.Tensor) and _C._forward_ad.tangent(a) is not None
                for a in args):
            if no_forward_ad is not None:
                raise NotImplementedError(
                    f"Trying to use forward AD with {no_forward_ad} that does not support it "
                    "because it has not been implemented yet.\nPlease file an issue to PyTorch "
                    "at https://github.com/pytorch/pytorch/issues/new?template=feature-request"
                    ".yml so that we can prioritize its implementation or submit a PR adding "
                    "the implementation to derivatives.yaml")
            return compute(*args)
        return apply(*args)

    return run
