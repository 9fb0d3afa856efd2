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
>>> from gradtrack.autograd._named_nodes import composite_node
>>> double = composite_node("DoubleBackward0", lambda x: x * 2)
>>> double(gradtrack.ones(2, requires_grad=True)).grad_fn.name()
'DoubleBackward0'
"""

from .. import _C
from . import forward_ad
from .function import Function


def named_node(function, name):
    """Gives the ``autograd.Function`` ``function``'s backward node torch's ``name``."""
    function._backward_cls.__name__ = name
    function._backward_cls.__qualname__ = name
    # printed as torch prints its built-in nodes: <PoissonBackward0 object at 0x...>
    function._backward_cls.__module__ = "builtins"
    return function


class ZeroGradient(Function):
    """A node whose gradient for its first input, and tangent, are zeros (torch's nodes
    of fills and random draws); subclasses give ``forward`` and their second input gets
    no gradient."""

    @staticmethod
    def backward(ctx, grad):
        return _C._like("zeros", grad, None, False, None), None

    @staticmethod
    def jvp(ctx, tangent, _):
        return _C._like("zeros", tangent, None, False, None)


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
                   no_double_backward=None, forward=None, linear=False):
    """``compute(*tensors, *rest)`` as one node named ``name``: its first
    ``differentiable`` arguments are the floating tensors it is differentiated by, the
    others (targets, options, optional weights) pass through as they are.
    ``no_forward_ad``: the name of torch's op when torch has no forward-mode derivative
    for it (a tangent then raises torch's NotImplementedError). ``no_double_backward``:
    ``(exception type, message)`` when torch's backward has no derivative of its own.
    ``forward``: a faster computation of the same values, without a graph, for the
    forward pass (``compute`` then runs only for derivatives). ``linear``: ``compute``
    is linear in its differentiable arguments, so its derivatives read only their
    geometry: the node keeps detached aliases, not saved tensors, and an in-place write
    to an input afterwards does not make backward raise (torch's node saves nothing).
    """
    first = compute if forward is None else forward

    class _Composite(Function):
        @staticmethod
        def forward(ctx, *args):
            if linear:
                ctx.geometry = tuple(a.detach() for a in args[:differentiable])
            else:
                ctx.save_for_backward(*args[:differentiable])
            ctx.rest = args[differentiable:]
            return _not_a_view(first(*args))

        @staticmethod
        def backward(ctx, grad):
            from ..autograd import grad as autograd_grad
            from ..autograd.grad_mode import enable_grad
            saved = ctx.geometry if linear else ctx.saved_tensors
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


def _has_tangent(tensors):
    return forward_ad._current_level >= 0 and any(
        _C._forward_ad.tangent(t) is not None for t in tensors)


def _contiguous_copy(t):
    # a new tensor even where the view already is contiguous
    return t.contiguous() if not t.is_contiguous() else t.clone()


def copy_node(name, view, tangent_view=None):
    """``view(input, *rest)`` (one view or a tuple of them) as new contiguous tensors,
    recorded as one node named ``name``, as torch's ``*_copy`` functions.

    NOTE [View copies as one node]
    torch's ``permute_copy`` records ``PermuteBackward0_copy``, whose backward is
    ``permute``'s with nothing saved. The node's backward here takes the view's
    vector-Jacobian product on a detached alias of the input (its geometry is all the
    view's backward reads; not a saved tensor, so a later in-place write to the input
    does not make backward raise, as in torch), with a graph when one is being built,
    so double backward works. Forward-mode AD applies the view (or ``tangent_view``,
    where torch's formula applies another) to the tangent and copies it.
    """
    on_tangent = view if tangent_view is None else tangent_view

    class _Copy(Function):
        @staticmethod
        def forward(ctx, input, *rest):  # noqa: A002 - torch's name
            ctx.geometry = input.detach()
            ctx.rest = rest
            out = view(input, *rest)
            return tuple(_contiguous_copy(o) for o in out) if isinstance(out, tuple) \
                else _contiguous_copy(out)

        @staticmethod
        def backward(ctx, *grads):
            from ..autograd import grad as autograd_grad
            from ..autograd.grad_mode import enable_grad
            create = _C.is_grad_enabled()
            with enable_grad():
                source = ctx.geometry.detach().requires_grad_()
                outs = view(source, *ctx.rest)
                outs = outs if isinstance(outs, tuple) else (outs,)
                pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
                (found,) = autograd_grad([o for o, _ in pairs], [source],
                                         [g for _, g in pairs], create_graph=create,
                                         allow_unused=True)
            if found is None:
                found = _C.zeros(list(source.shape), dtype=source.dtype)
            return (found,) + (None,) * len(ctx.rest)

        @staticmethod
        def jvp(ctx, tangent, *_):
            out = on_tangent(tangent, *ctx.rest)
            return tuple(_contiguous_copy(o) for o in out) if isinstance(out, tuple) \
                else _contiguous_copy(out)

    named_node(_Copy, name)
    apply = _Copy.apply

    def run(input, *rest):  # noqa: A002
        if (input.requires_grad and _C.is_grad_enabled()) or _has_tangent((input,)):
            return apply(input, *rest)
        out = view(input, *rest)
        return tuple(_contiguous_copy(o) for o in out) if isinstance(out, tuple) \
            else _contiguous_copy(out)

    return run


class _NotImplemented(Function):
    # NOTE [Ops without a derivative]
    # torch's fallback for an op with no derivative (histogram, bincount's weights,
    # detach_copy, binomial): its outputs require grad through a NotImplemented node with
    # an edge to each input that requires grad (and none to the others); backward raises
    # "derivative for aten::NAME is not implemented", and a tangent raises forward-mode
    # AD's error. torch makes the node without a sequence number, so that it runs as
    # early as an AccumulateGrad: a backward that meets it raises before (or after) the
    # leaves' accumulations as torch's does; the Function's node drops its number too.
    @staticmethod
    def forward(ctx, aten, outputs, *inputs):
        # ``outputs`` comes in a list: a tensor there would be taken for an input
        ctx.aten = aten
        return outputs[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.aten} is not implemented")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(f"Trying to use forward AD with aten::{ctx.aten} that does "
                                  "not support it.")


named_node(_NotImplemented, "NotImplemented")
_NotImplemented._backward_cls.name = lambda self: "gradtrack::autograd::NotImplemented"


def not_implemented_node(aten, outputs, *inputs):
    """``outputs`` (a tensor or a tuple of tensors, computed without a graph) recorded as
    torch records an op with no derivative, ``aten::<aten>``: a NotImplemented node with
    an edge to each of ``inputs`` (tensors or None) that requires grad, whose backward
    raises; a tangent on an input raises torch's forward-AD error."""
    inputs = [t for t in inputs if isinstance(t, _C.Tensor)]
    graded = [t for t in inputs if t.requires_grad] if _C.is_grad_enabled() else []
    if not graded and not _has_tangent(inputs):
        return outputs
    if graded:
        inputs = graded
    result = _NotImplemented.apply(aten, [outputs], *inputs)
    first = result[0] if isinstance(result, tuple) else result
    if first.grad_fn is not None:
        first.grad_fn._cdata()._drop_sequence_nr()
    return result
