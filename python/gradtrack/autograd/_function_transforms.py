"""Custom Functions under ``gradtrack.func``'s transforms.

NOTE [Custom Functions under transforms]
The transforms note on this thread which of them are running (``running``): ``"vmap"``
for ``vmap`` (and ``jacfwd``/``hessian``, which torch builds on a vmap over the basis),
``"grad"`` for the reverse-mode ones, ``"jvp"`` for the forward-mode ones. A Function
applied while any runs must have a ``setup_context``; under a vmap it must have a
``vmap`` staticmethod or ``generate_vmap_rule = True`` (not both), as torch requires. The
``vmap`` staticmethod is what a batched call runs (``call_vmap_rule``): it receives the
physical tensors, the batch size and randomness (``VmapInfo``) and each argument's batch
dimension, and answers ``(output, out_dims)``.

``hessian`` is torch's forward-over-reverse: derivatives of the backward pass's values
come from forward mode, so a Function's ``jvp`` (not its ``backward``) gives the
derivatives of its outputs there. gradtrack's engine does not carry tangents through a
backward pass, so ``hessian`` differentiates the gradient in reverse mode again, and
while that second pass runs (``second_pass``) a Function's node answers with the
transpose of its ``jvp`` (``jvp_transposed``): the same numbers forward-over-reverse
gives, including a ``jvp`` that disagrees with ``backward``. A Function without ``jvp``
applied to a differentiated value raises torch's NotImplementedError.

>>> from gradtrack.autograd._function_transforms import VmapInfo
>>> VmapInfo(batch_size=3, randomness="error")
VmapInfo(batch_size=3, randomness='error')
"""

import threading
from typing import NamedTuple

from .. import _C

__all__ = ["VmapInfo", "running", "check_apply", "call_vmap_rule", "second_pass",
           "jvp_transposed"]

_Tensor = _C.Tensor
_state = threading.local()
_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod learns about the vmap calling it."""

    batch_size: int
    randomness: str


def _stack():
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


class running:
    """Marks a transform as running on this thread: ``kind`` is ``"vmap"``, ``"grad"`` or
    ``"jvp"``; a vmap gives its batch size and randomness."""

    def __init__(self, kind, batch_size=None, randomness="error"):
        self.entry = (kind, batch_size, randomness)

    def __enter__(self):
        _stack().append(self.entry)

    def __exit__(self, *exc):
        _stack().pop()


class _suspended:
    """The innermost vmap stops counting while its Function's vmap rule runs."""

    def __init__(self, index):
        self.index = index

    def __enter__(self):
        stack = _stack()
        self.saved = stack[self.index:]
        del stack[self.index:]

    def __exit__(self, *exc):
        _stack().extend(self.saved)


def active():
    """True while any transform runs on this thread (the fast check of ``apply``)."""
    return bool(getattr(_state, "stack", None))


def _innermost_vmap():
    stack = _stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == "vmap":
            return i
    return None


def check_apply(cls, args, base_setup_context, base_vmap, base_jvp):
    """torch's refusals of ``cls.apply(*args)`` under the running transforms."""
    if cls.setup_context is base_setup_context:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms "
                           "(vmap, grad, jvp, jacrev, ...), it must override the setup_context "
                           f"staticmethod. {_DOCS}")
    if _innermost_vmap() is not None:
        has_rule = cls.vmap is not base_vmap
        if has_rule and cls.generate_vmap_rule:
            raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both "
                               "generate_vmap_rule=True and an overridden vmap staticmethod. "
                               "Please set generate_vmap_rule=False or delete the overridden "
                               f"vmap staticmethod to avoid ambiguity. {_DOCS}")
        if not has_rule and not cls.generate_vmap_rule:
            raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have "
                               "vmap support. Please override and implement the vmap "
                               f"staticmethod or set generate_vmap_rule=True. {_DOCS}")
    if getattr(_state, "hessian", 0) and cls.jvp is base_jvp and any(
            isinstance(a, _Tensor) and a.requires_grad for a in args):
        cls.jvp(None)  # raises torch's NotImplementedError


def call_vmap_rule(cls, args):
    """The output of ``cls``'s vmap staticmethod on batched ``args`` (NOTE [Custom
    Functions under transforms]), as batched values."""
    from .._batched_tensor import BatchedTensor, active as batched_active

    index = _innermost_vmap()
    _, size, randomness = _stack()[index]
    in_dims = tuple(a.bdim if type(a) is BatchedTensor else None for a in args)
    physical = [(a.value if a.bdim == 0 else a.value.movedim(0, a.bdim))
                if type(a) is BatchedTensor else a for a in args]
    try:
        with _suspended(index), batched_active(None):
            result = cls.vmap(VmapInfo(size, randomness), in_dims, *physical)
        return _rule_output(result)
    except Exception as e:  # the rule's answer is final: vmap does not retry per sample
        e.vmap_final = True
        raise


def _rule_output(result):
    from .._batched_tensor import BatchedTensor
    from ..func._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError("Expected the vmap staticmethod to have two returns, an output and "
                           "out_dims with pytree structure compatible with the output. Got a "
                           f"{type(result)} instead")
    output, out_dims = result
    flat, spec = tree_flatten(output)
    dims = broadcast_to_and_flatten(out_dims, spec)
    if dims is None:
        raise RuntimeError("The autograd.Function's vmap staticmethod returned an incompatible "
                           f"(output, out_dims) tuple. Expected out_dims={out_dims} to be "
                           "compatible with the structure of `output`. out_dims has structure "
                           f"{tree_flatten(out_dims)[1]} but output has structure {spec}. "
                           f"{_DOCS}")
    wrapped = [BatchedTensor(o if d == 0 else o.movedim(d, 0))
               if isinstance(o, _Tensor) and d is not None else o for o, d in zip(flat, dims)]
    return tree_unflatten(wrapped, spec)


class hessian_mode:
    """Marks the computation of a ``hessian``: Functions applied need a ``jvp``."""

    def __enter__(self):
        _state.hessian = getattr(_state, "hessian", 0) + 1

    def __exit__(self, *exc):
        _state.hessian -= 1


class second_pass:
    """Marks ``hessian``'s differentiation of the gradient: Function nodes answer with
    their transposed ``jvp``."""

    def __enter__(self):
        _state.second = getattr(_state, "second", 0) + 1

    def __exit__(self, *exc):
        _state.second -= 1


def in_second_pass():
    return bool(getattr(_state, "second", 0))


def remember_inputs(outputs, args):
    """Keeps a Function call's inputs on its node, for ``jvp_transposed``."""
    if not getattr(_state, "hessian", 0):
        return
    for o in outputs if isinstance(outputs, tuple) else (outputs,):
        node = getattr(o, "grad_fn", None) if isinstance(o, _Tensor) else None
        if node is not None and hasattr(node, "_forward_cls"):
            node._transform_inputs = args
            return


def jvp_transposed(ctx, grad_outputs):
    """The gradients w.r.t. a Function call's inputs that its ``jvp`` implies: the
    transpose of the (linear) map from input tangents to output tangents."""
    from . import grad as autograd_grad
    from .grad_mode import enable_grad

    inputs = ctx.__dict__.get("_transform_inputs")
    if inputs is None:
        return None
    create = _C.is_grad_enabled()
    with enable_grad():
        tangents = [_C.zeros(tuple(a.shape), dtype=a.dtype).requires_grad_()
                    if isinstance(a, _Tensor) and (a.is_floating_point() or a.is_complex())
                    else None for a in inputs]
        ctx._in_jvp = True
        try:
            out = ctx._forward_cls.jvp(ctx, *tangents)
        finally:
            ctx._in_jvp = False
        out = out if isinstance(out, tuple) else (out,)
        total = None
        for t, g in zip(out, grad_outputs):
            if isinstance(t, _Tensor) and isinstance(g, _Tensor) and t.requires_grad:
                term = (t * g).sum()
                total = term if total is None else total + term
        wanted = [t for t in tangents if t is not None]
        if total is None or not wanted:
            return tuple(None for _ in inputs)
        found = iter(autograd_grad(total, wanted, create_graph=create, allow_unused=True))
    return tuple(None if t is None else next(found) for t in tangents)
