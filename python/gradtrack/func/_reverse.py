"""Reverse-mode transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` and
``hessian``, composed on ``autograd.grad``.

NOTE [Transforms on autograd.grad]
torch's transforms wrap the differentiated inputs at a new "level" so that the
gradients they compute never reach ``.grad`` and their results carry a graph only where
an enclosing autograd computation needs one. Here each differentiated tensor becomes a
fresh leaf (an alias of the caller's tensor when that one requires grad, so an enclosing
graph stays connected), the gradient is taken with ``autograd.grad`` (which never touches
``.grad``), and the graph of the result is kept (``create_graph``) only when it is
needed: inside another reverse-mode transform, or when the function's graph reaches a
tensor that requires grad from outside the transform (a captured parameter, an input
that requires grad). Otherwise results come back detached, as torch's do.

>>> import gradtrack
>>> from gradtrack.func import grad
>>> grad(lambda x: (x ** 3).sum())(gradtrack.tensor([1.0, 2.0]))
tensor([ 3., 12.])
"""

import functools
import threading
from typing import Any, Callable

import gradtrack

from .. import _C
from .._batched_tensor import BatchedTensor, NoRule, batched_size
from ..autograd import grad as _autograd_grad
from ..autograd._function_transforms import hessian_mode, running, second_pass
from ..autograd.grad_mode import enable_grad
from ._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "hessian"]

_Tensor = _C.Tensor
_state = threading.local()


def _depth():
    return getattr(_state, "depth", 0)


class _nested:
    """Counts the reverse-mode transforms running on this thread."""

    def __enter__(self):
        _state.depth = _depth() + 1
        self.level = running("grad")
        self.level.__enter__()

    def __exit__(self, *exc):
        self.level.__exit__(*exc)
        _state.depth -= 1


def _argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _check_argnums(argnums):
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    elif not isinstance(argnums, int):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _select(args, argnums):
    """(normalised argnums, the selected args: one arg for an int, a tuple for a tuple)."""
    _check_argnums(argnums)
    if isinstance(argnums, int):
        i = _argnum(argnums, len(args))
        return i, args[i]
    idx = tuple(_argnum(a, len(args)) for a in argnums)
    return idx, tuple(args[i] for i in idx)


def _replace(args, argnums, new):
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for i, value in zip(argnums, new):
            args[i] = value
    return tuple(args)


def _fresh(x):
    if not isinstance(x, _Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    _refuse_tangent(x)
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_()


def _refuse_tangent(x):
    """A reverse-mode transform of a dual tensor (forward-over-reverse: ``jacfwd(jacrev(f))``,
    ``jvp`` of ``grad``) would drop its tangent and answer zeros: refused instead, as
    ``autograd.grad(create_graph=True)`` refuses it."""
    from ..autograd import forward_ad
    if forward_ad._current_level >= 0 and forward_ad.unpack_dual(x).tangent is not None:
        raise NotImplementedError(
            "gradtrack: a reverse-mode transform (grad, vjp, jacrev) of tensors that have a "
            "forward-AD tangent (forward-over-reverse, such as jacfwd(jacrev(f))) is not "
            "implemented; its result would have no tangent. hessian(f) and "
            "jacrev(jacrev(f)) give the same second derivatives.")


def _differentiable(tree):
    """(``tree`` with its tensors as fresh leaves that require grad (NOTE [Transforms on
    autograd.grad]), those leaves in order, the tree's spec)."""
    flat, spec = tree_flatten(tree)
    fresh = [_fresh(x) for x in flat]
    return tree_unflatten(fresh, spec), fresh, spec


def _reaches_outside(outputs, fresh):
    """True when the graph of ``outputs`` reaches a leaf that requires grad and is not
    one of the ``fresh`` leaves (nor reached only through them)."""
    fresh_leaves = [t for t in fresh if t.grad_fn is None]
    if any(t.grad_fn is not None for t in fresh):
        # an alias of a caller's tensor that requires grad: the caller's graph is reached
        return True
    stack = [t.grad_fn for t in outputs if isinstance(t, _Tensor) and t.grad_fn is not None]
    # the visited node objects stay referenced, so no id is reused while walking
    visited, seen = [], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        visited.append(node)
        if type(node).__name__ == "AccumulateGrad":
            variable = node.variable
            if not any(variable is t for t in fresh_leaves):
                return True
            continue
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return False


def _needs_graph(outputs, fresh, grad_enabled):
    """Whether the transform's results keep their graph (NOTE [Transforms on
    autograd.grad]); ``grad_enabled``: the grad mode the transform was called in."""
    if not grad_enabled:
        return False
    return _depth() > 0 or _reaches_outside(outputs, fresh)


def _detach_all(tree):
    return tree_map(lambda t: t.detach() if isinstance(t, _Tensor) else t, tree)


def _grads(outputs, inputs, cotangents, create_graph, retain_graph):
    if cotangents is None:
        cotangents = [None] * len(outputs)
    # an output that does not require grad is constant: it adds nothing
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [gradtrack.zeros_like(x) for x in inputs]
    found = _autograd_grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                           retain_graph=retain_graph, create_graph=create_graph,
                           allow_unused=True)
    return [gradtrack.zeros_like(x) if g is None else g for g, x in zip(found, inputs)]


def grad_and_value(func: Callable, argnums: "int | tuple[int, ...]" = 0,
                   has_aux: bool = False) -> Callable:
    """A function that returns ``(gradient, value)`` of ``func``: the gradient of its
    scalar output w.r.t. the positional arguments ``argnums`` (a pytree of tensors each),
    and the output itself; with ``has_aux``, ``func`` returns ``(output, aux)`` and the
    result is ``(gradient, (value, aux))``. ``.grad`` is never written.

    >>> import gradtrack
    >>> from gradtrack.func import grad_and_value
    >>> grad_and_value(lambda x: (x ** 2).sum())(gradtrack.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if batched_size() is not None:
            return _batched_grad_and_value(func, argnums, has_aux, args, kwargs)
        grad_enabled = gradtrack.is_grad_enabled()
        with enable_grad():
            argnums_, diff = _select(args, argnums)
            diff, flat_diff, diff_spec = _differentiable(diff)
            with _nested():
                output = func(*_replace(args, argnums_, diff), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be "
                                       "a tuple: (output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, _Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            keep = _needs_graph([output], flat_diff, grad_enabled)
            if output.requires_grad:
                grads = _grads([output], flat_diff, None, keep, None)
            else:  # the output does not depend on anything differentiable
                grads = [gradtrack.zeros_like(x) for x in flat_diff]
            grads = tree_unflatten(grads, diff_spec)
            if aux is not None:
                aux = tree_map(_aux_tensor, aux)
            if not keep:
                output, aux = output.detach(), _detach_all(aux)
            if has_aux:
                return grads, (output, aux)
            return grads, output
    return wrapper


def _batched_grad_and_value(func, argnums, has_aux, args, kwargs):
    """``grad_and_value`` inside vmap's batched call (NOTE [vmap batching rules]): the
    differentiated tensors become batched leaves (an unbatched one expanded along the
    batch), so the gradient of the summed per-sample outputs w.r.t. them is one gradient
    a sample. A tensor that requires grad becomes an alias in its graph instead, and the
    results keep their graph, as the per-sample path's do (NOTE [Transforms on
    autograd.grad]); inside another reverse-mode transform this refuses (NoRule)."""
    size = batched_size()
    if _depth() > 0:
        raise NoRule("grad")
    grad_enabled = gradtrack.is_grad_enabled()
    with enable_grad():
        argnums_, diff = _select(args, argnums)
        flat, spec = tree_flatten(diff)
        leaves = []
        for x in flat:
            if type(x) is BatchedTensor:
                v = x.value
            elif isinstance(x, _Tensor):
                v = x.unsqueeze(0).expand(size, *x.shape)
            else:
                raise NoRule("grad")
            leaves.append(v.view_as(v) if v.requires_grad else v.detach().requires_grad_())
        batched = tree_unflatten([BatchedTensor(v) for v in leaves], spec)
        with _nested():
            output = func(*_replace(args, argnums_, batched), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise NoRule("grad")
            output, aux = output
        if type(output) is not BatchedTensor or output.dim() != 0 \
                or not output.value.requires_grad:
            raise NoRule("grad")
        value = output.value
        keep = _needs_graph([value], leaves, grad_enabled)
        grads = _grads([value], leaves, [gradtrack.ones_like(value)], keep, None)
    grads = tree_unflatten([BatchedTensor(g) for g in grads], spec)
    if aux is not None:
        aux = tree_map(_batched_aux if keep else _detached_batched, aux)
    if not keep:
        value = value.detach()
    if has_aux:
        return grads, (BatchedTensor(value), aux)
    return grads, BatchedTensor(value)


def _batched_aux(x):
    if isinstance(x, (BatchedTensor, _Tensor)):
        return x
    raise NoRule("aux")


def _detached_batched(x):
    if type(x) is BatchedTensor:
        return BatchedTensor(x.value.detach())
    if isinstance(x, _Tensor):
        return x.detach()
    raise NoRule("aux")


def _aux_tensor(x):
    if not isinstance(x, _Tensor):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return x


def grad(func: Callable, argnums: "int | tuple[int, ...]" = 0, has_aux: bool = False) -> Callable:
    """A function that returns the gradient of ``func``'s scalar output w.r.t. its
    positional arguments ``argnums`` (each a tensor or a pytree of tensors, e.g. a dict
    of parameters); with ``has_aux``, ``func`` returns ``(output, aux)`` and the result
    is ``(gradient, aux)``. Gradients never reach ``.grad``; transforms nest
    (``grad(grad(f))``) and compose with ``vmap`` (per-sample gradients).

    >>> import gradtrack
    >>> from gradtrack.func import grad
    >>> x = gradtrack.tensor(0.5)
    >>> grad(grad(gradtrack.sin))(x)
    tensor(-0.4794)
    >>> grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(gradtrack.ones(2), gradtrack.tensor([3.0, 4.0]))
    (tensor([3., 4.]), tensor([1., 1.]))
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        if has_aux:
            return grads, value[1]
        return grads
    return wrapper


def _tree_pprint(spec):
    if spec.is_leaf():
        return "*"
    parts = [_tree_pprint(c) for c in spec.children]
    if spec.type is tuple:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if spec.type is list:
        return "[" + ", ".join(parts) + "]"
    if spec.type is dict or spec.type.__name__ == "OrderedDict":
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(spec.context, parts)) + "}"
    return f"{spec.type.__name__}(" + ", ".join(parts) + ")"


def _vjp(func, primals, argnums, has_aux, api="vjp(f, *primals)"):
    """(output, vjp_fn, aux) where vjp_fn gives the gradients w.r.t. the primals selected
    by ``argnums`` (all of them when None, as a tuple)."""
    grad_enabled = gradtrack.is_grad_enabled()
    with enable_grad():
        if argnums is None:
            diff, flat_diff, diff_spec = _differentiable(primals)
            args = diff
        else:
            argnums_, diff = _select(primals, argnums)
            diff, flat_diff, diff_spec = _differentiable(diff)
            args = _replace(primals, argnums_, diff)
        with _nested():
            output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(f"{api.split('(')[0]}(f, *primals): output of function f "
                                   "should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
            aux = tree_map(_aux_tensor, aux)
        flat_out, out_spec = tree_flatten(output)
        for o in flat_out:
            if not isinstance(o, _Tensor):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
        keep = _needs_graph(flat_out, flat_diff, grad_enabled)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function. cotangents: "
                               f"{_tree_pprint(cot_spec)}, primal output: {_tree_pprint(out_spec)}")
        create = keep if create_graph is None else create_graph
        with enable_grad():
            grads = _grads(flat_out, flat_diff, flat_cot, create, retain_graph)
        return tree_unflatten(grads, diff_spec)

    shown = flat_out if keep else [o.detach() for o in flat_out]
    if aux is not None and not keep:
        aux = _detach_all(aux)
    return tree_unflatten(shown, out_spec), vjp_fn, aux


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian
    product w.r.t. each primal (a tuple, one entry per primal), and may be called many
    times; with ``has_aux``, ``func`` returns ``(output, aux)`` and ``aux`` comes third.

    >>> import gradtrack
    >>> from gradtrack.func import vjp
    >>> out, vjp_fn = vjp(gradtrack.mul, gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([3.0, 4.0]))
    >>> vjp_fn(gradtrack.ones(2))
    (tensor([3., 4.]), tensor([1., 2.]))
    """
    output, vjp_fn, aux = _vjp(func, primals, None, has_aux)
    if has_aux:
        return output, vjp_fn, aux
    return output, vjp_fn


def jacrev(func: Callable, argnums: "int | tuple[int, ...]" = 0, *, has_aux: bool = False,
           chunk_size: "int | None" = None, _preallocate_and_copy: bool = False) -> Callable:
    """A function that returns the Jacobian of ``func`` w.r.t. the arguments
    ``argnums``, by reverse mode (one vector-Jacobian product per output element):
    for an output of shape ``S`` and an input of shape ``T`` the block has shape
    ``S + T``, nested as the outputs, then as ``argnums``.

    >>> import gradtrack
    >>> from gradtrack.func import jacrev
    >>> jacrev(lambda x: x ** 2)(gradtrack.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        output, vjp_fn, aux = _vjp(func, args, argnums, has_aux)
        flat_out, out_spec = tree_flatten(output)
        rows = _jacobian_rows(vjp_fn, flat_out, out_spec)
        with _nested():
            jac = _assemble(rows, flat_out, out_spec, vjp_fn)
        if has_aux:
            return jac, aux
        return jac
    return wrapper


def _jacobian_rows(vjp_fn, flat_out, out_spec):
    """For every element of the flattened outputs, the vjp with its one-hot cotangent."""
    rows = []
    for i, o in enumerate(flat_out):
        for k in range(o.numel()):
            cot = [gradtrack.zeros(p.shape, dtype=p.dtype) for p in flat_out]
            cot[i].view(-1)[k] = 1
            rows.append(vjp_fn(tree_unflatten(cot, out_spec)))
    return rows


def _assemble(rows, flat_out, out_spec, vjp_fn):
    if not rows:  # outputs without elements: empty blocks, shaped by one (zero) vjp
        zeros = [gradtrack.zeros(o.shape, dtype=o.dtype) for o in flat_out]
        like = vjp_fn(tree_unflatten(zeros, out_spec))
        return tree_unflatten([tree_map(lambda g, o=o: gradtrack.zeros(
            (*o.shape, *g.shape), dtype=g.dtype), like) for o in flat_out], out_spec)
    flat_first, in_spec = tree_flatten(rows[0])
    per_input = [[tree_flatten(r)[0][j] for r in rows] for j in range(len(flat_first))]
    stacked = [gradtrack.stack(col) for col in per_input]
    blocks = []
    start = 0
    for o in flat_out:
        n = o.numel()
        blocks.append(tree_unflatten([s[start:start + n].reshape(*o.shape, *s.shape[1:])
                                      for s in stacked], in_spec))
        start += n
    return tree_unflatten(blocks, out_spec)


def hessian(func: Callable, argnums: "int | tuple[int, ...]" = 0) -> Callable:
    """A function that returns the Hessian of ``func``'s output w.r.t. ``argnums``:
    the Jacobian of its Jacobian, as torch's ``jacfwd(jacrev(func))``: custom Functions
    differentiate their outputs with their ``jvp`` in the second derivative (NOTE
    [Custom Functions under transforms]).

    >>> import gradtrack
    >>> from gradtrack.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(gradtrack.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inner = jacrev(func, argnums)

    @functools.wraps(func)
    def wrapper(*args):
        _, diff = _select(args, argnums)
        size = sum(x.numel() for x in tree_flatten(diff)[0] if isinstance(x, _Tensor))
        with hessian_mode(), running("vmap", size, "error"):
            output, vjp_fn, _ = _vjp(inner, args, argnums, False)
            flat_out, out_spec = tree_flatten(output)
            with second_pass():
                rows = _jacobian_rows(vjp_fn, flat_out, out_spec)
                with _nested():
                    return _assemble(rows, flat_out, out_spec, vjp_fn)
    return wrapper
