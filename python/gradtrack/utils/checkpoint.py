"""``torch.utils.checkpoint``: activation checkpointing. The checkpointed function runs
without keeping its intermediate activations; backward runs it again (with the RNG
state it first ran with, so dropout draws the same mask) and uses what that recomputes.

Both of torch's variants: ``use_reentrant=True`` (an ``autograd.Function`` whose
backward recomputes and runs a nested backward; its node is
``CheckpointFunctionBackward``) and ``use_reentrant=False`` (saved-tensor hooks: the
forward keeps only a counter per saved tensor, the first unpack recomputes them all;
the graph keeps the function's own nodes). Without ``use_reentrant`` the reentrant
variant runs, with torch's warning.

>>> import gradtrack
>>> from gradtrack.utils.checkpoint import checkpoint
>>> x = gradtrack.ones(3, requires_grad=True)
>>> y = checkpoint(lambda t: (t * 2).tanh(), x, use_reentrant=False)
>>> y.sum().backward()
>>> x.grad
tensor([0.1413, 0.1413, 0.1413])
"""

import contextlib
import warnings

from .. import random as _random
from ..autograd import _is_checkpoint_valid, backward as _backward
from ..autograd import function as _function
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential"]

_DETERMINISM_CHECKS = ("default", "none")

_REENTRANT_GRAD = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


def noop_context_fn():
    """The default ``context_fn`` of ``checkpoint``: two contexts that do nothing, one
    around the forward, one around the recomputation.

    >>> from gradtrack.utils.checkpoint import noop_context_fn
    >>> len(noop_context_fn())
    2
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(value):
    return hasattr(value, "requires_grad") and hasattr(value, "grad_fn")


def _run_with_rng(rng_state, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with the global RNG set to ``rng_state``, restoring it after."""
    if rng_state is None:
        return fn(*args, **kwargs)
    current = _random.get_rng_state()
    _random.set_rng_state(rng_state)
    try:
        return fn(*args, **kwargs)
    finally:
        _random.set_rng_state(current)


class CheckpointFunction(_function.Function):
    """The reentrant checkpoint: forward without a graph, backward by recomputing."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, arg in enumerate(args):
            if _is_tensor(arg):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        # the nested backward below writes .grad, which grad() and backward(inputs=...)
        # must not see: NOTE [Checkpoint validity]
        if not _is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_GRAD)
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            detached = tensor.detach()
            detached.requires_grad_(tensor.requires_grad)
            inputs[i] = detached
        with enable_grad():
            outputs = _run_with_rng(ctx.rng_state, ctx.run_function, *inputs)
        if _is_tensor(outputs):
            outputs = (outputs,)
        pairs = [(out, grad) for out, grad in zip(outputs, grads)
                 if _is_tensor(out) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(inp.grad if _is_tensor(inp) else None for inp in inputs)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, *args, **kwargs):
    forward_context, recompute_context = context_fn()
    rng_state = _random.get_rng_state() if preserve_rng_state else None
    recomputed = []
    state = {"count": 0, "done": False}

    def pack(tensor):
        index = state["count"]
        state["count"] += 1
        return index

    def recompute():
        def keep(tensor):
            recomputed.append(tensor)
            return len(recomputed) - 1

        recomputed.clear()
        with enable_grad(), recompute_context, \
                saved_tensors_hooks(keep, lambda index: recomputed[index]):
            _run_with_rng(rng_state, function, *args, **kwargs)
        state["done"] = True

    # NOTE [A recomputed tensor is dropped once used]
    # Each saved tensor is unpacked once per backward, so the list lets go of it
    # then, as torch's does: the recomputed activations of a block are freed as
    # its nodes use them, and a block at a time is alive during backward. Keeping
    # them all until backward ended made per-block checkpointing save nothing at
    # the peak (16 blocks of 4 MiB activations: 137 MiB against 72 for torch). An
    # index asked for again (a second backward through a retained graph)
    # recomputes the block.
    def unpack(index):
        if not state["done"] or (index < len(recomputed) and recomputed[index] is None):
            recompute()
        if index >= len(recomputed):
            raise RuntimeError("torch.utils.checkpoint: A different number of tensors was saved "
                               "during the original forward and recomputation.")
        tensor, recomputed[index] = recomputed[index], None
        return tensor

    with forward_context, saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Runs ``function(*args)`` without keeping its activations; backward recomputes them.

    >>> import gradtrack
    >>> from gradtrack.utils.checkpoint import checkpoint
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> checkpoint(lambda t: t * 3, x, use_reentrant=True).sum().backward()
    >>> x.grad
    tensor([3., 3.])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if not any(_is_tensor(a) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError("determinism_check should be one of "
                         f"{list(_DETERMINISM_CHECKS)}, but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, *args,
                                         **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None,  # noqa: A002
                          **kwargs):
    """Runs a ``Sequential`` (or a list of modules) in ``segments`` checkpointed chunks;
    the last chunk runs normally, as in torch.

    >>> import gradtrack
    >>> from gradtrack.utils.checkpoint import checkpoint_sequential
    >>> seq = gradtrack.nn.Sequential(gradtrack.nn.Linear(3, 3), gradtrack.nn.ReLU())
    >>> checkpoint_sequential(seq, 2, gradtrack.ones(1, 3), use_reentrant=False).shape
    gradtrack.Size([1, 3])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is "
            "not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from gradtrack.nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,  # noqa: A001
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
