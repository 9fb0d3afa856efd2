"""Forward-mode transforms: ``jvp`` and ``jacfwd``, on ``autograd.forward_ad``.

gradtrack has one dual level at a time, so forward transforms do not nest inside each
other (torch's do); they compose with the reverse-mode transforms and ``vmap`` applied
around them. ``jacfwd`` runs the function once per input element, with that element's
one-hot tangent (torch maps ``jvp`` over the basis with ``vmap``).

>>> import gradtrack
>>> from gradtrack.func import jvp
>>> jvp(gradtrack.sin, (gradtrack.tensor(0.0),), (gradtrack.tensor(2.0),))
(tensor(0.), tensor(2.))
"""

import functools
from typing import Any, Callable

import gradtrack

from .. import _C
from ..autograd import forward_ad as fwAD
from ..autograd._function_transforms import running
from ..random import get_rng_state, set_rng_state
from ._pytree import tree_flatten, tree_map, tree_unflatten
from ._reverse import _aux_tensor, _replace, _select

__all__ = ["jvp", "jacfwd", "linearize"]

_Tensor = _C.Tensor
_JVP = "jvp(f, primals, tangents)"


def _only_tensors(items, argname):
    if len(items) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in items:
        if not isinstance(x, _Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got {type(x)}")


def _jvp(func, primals, tangents, strict, has_aux, argnums=None):
    """(outputs, output tangents, aux); ``argnums`` selects which primals the tangents
    belong to (all of them when None)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if argnums is None:
        diff = primals
    else:
        argnums, diff = _select(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {primals_spec} and tangents "
                           f"with structure {tangents_spec}")
    _only_tensors(flat_primals, "primals")
    _only_tensors(flat_tangents, "tangents")
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        duals = tree_unflatten(duals, primals_spec)
        args = duals if argnums is None else _replace(primals, argnums, duals)
        with running("jvp"):
            result = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            result, aux = result
            aux = tree_map(lambda a: fwAD.unpack_dual(_aux_tensor(a)).primal, aux)
        flat_out, out_spec = tree_flatten(result)
        if len(flat_out) == 0:
            raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty output "
                               f"(got output = {result})")
        for o in flat_out:
            if not isinstance(o, _Tensor):
                raise RuntimeError(f"{_JVP}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        outs, tans = [], []
        for o in flat_out:
            primal, tangent = fwAD.unpack_dual(o)
            if tangent is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                tangent = gradtrack.zeros_like(primal)
            outs.append(primal)
            tans.append(tangent)
    return tree_unflatten(outs, out_spec), tree_unflatten(tans, out_spec), aux


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple:
    """``(func(*primals), the Jacobian-vector product)``: the derivative of ``func`` at
    ``primals`` in the direction ``tangents`` (a tuple shaped as ``primals``), by
    forward-mode AD; with ``has_aux``, ``func`` returns ``(output, aux)`` and ``aux``
    comes third.

    >>> import gradtrack
    >>> from gradtrack.func import jvp
    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> jvp(lambda x: x ** 2, (x,), (gradtrack.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    out, tangent, aux = _jvp(func, primals, tangents, strict, has_aux)
    if has_aux:
        return out, tangent, aux
    return out, tangent


def jacfwd(func: Callable, argnums: "int | tuple[int, ...]" = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """A function that returns the Jacobian of ``func`` w.r.t. ``argnums`` by forward
    mode (one Jacobian-vector product per input element), shaped as ``jacrev``'s.
    ``randomness`` as ``vmap``'s: ``"same"`` gives every product the same draws.

    >>> import gradtrack
    >>> from gradtrack.func import jacfwd
    >>> jacfwd(lambda x: x.sin())(gradtrack.tensor([0.0, 1.0]))
    tensor([[1.0000, 0.0000],
            [0.0000, 0.5403]])
    """
    from ._vmap import _check_randomness
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        argnums_, diff = _select(args, argnums)
        flat_diff, diff_spec = tree_flatten(diff)
        for x in flat_diff:
            if not isinstance(x, _Tensor):
                raise RuntimeError(f"{_JVP}: Expected primals to only contain Tensors, got "
                                   f"{type(x)}")
        start = get_rng_state()
        columns, output, aux = [], None, None
        for i, p in enumerate(flat_diff):
            for k in range(p.numel()):
                tangents = [gradtrack.zeros(q.shape, dtype=q.dtype) for q in flat_diff]
                tangents[i].view(-1)[k] = 1
                if randomness == "same":
                    set_rng_state(start)
                # torch maps the jvp over the basis with a vmap
                with running("vmap", sum(q.numel() for q in flat_diff), randomness):
                    output, tan, aux = _jvp(func, args, tree_unflatten(tangents, diff_spec),
                                            False, has_aux, argnums_)
                if randomness == "error" and not bool(gradtrack.equal(get_rng_state(), start)):
                    set_rng_state(start)
                    raise RuntimeError("vmap: called random operation while in randomness error "
                                       "mode. Please either use the 'same' or 'different' "
                                       "randomness flags on vmap or perform the randomness "
                                       "operation out of vmap")
                columns.append(tree_flatten(tan)[0])
        if output is None:
            raise RuntimeError("jacfwd: the inputs to differentiate have no elements")
        flat_out, out_spec = tree_flatten(output)
        blocks = []
        for j, o in enumerate(flat_out):
            col = gradtrack.stack([c[j] for c in columns], dim=-1)
            per_input, start_col = [], 0
            for p in flat_diff:
                n = p.numel()
                per_input.append(col[..., start_col:start_col + n].reshape(*o.shape, *p.shape))
                start_col += n
            blocks.append(tree_unflatten(per_input, diff_spec))
        jac = tree_unflatten(blocks, out_spec)
        if has_aux:
            return jac, aux
        return jac
    return wrapper


def linearize(func: Callable, *primals: Any) -> "tuple[Any, Callable[..., Any]]":
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector
    product of ``func`` at ``primals`` (the tangents shaped as the primals), the
    derivative of the linear approximation of ``func`` there; it may be called many
    times. Each call runs ``func`` once more in forward mode, from the random
    generator's state at the time of ``linearize``.

    >>> import gradtrack
    >>> from gradtrack.func import linearize
    >>> out, jvp_fn = linearize(gradtrack.sin, gradtrack.tensor([0.0, 1.0]))
    >>> jvp_fn(gradtrack.tensor([2.0, 1.0]))
    tensor([2.0000, 0.5403])
    """
    flat_primals, primals_spec = tree_flatten(primals)
    for p in flat_primals:
        p.new_empty(())  # a non-tensor primal fails here, as torch's does
        if not (p.is_floating_point() or p.is_complex()):
            raise ValueError(f"Expected primal to be floating point or complex, but got: "
                             f"{p.dtype}")
    start = get_rng_state()
    output = func(*primals)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        for i, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            if t.shape != p.shape:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree "
                                   f"doesn't match the shape {p.shape} of the corresponding "
                                   "primal.")
            if t.dtype != p.dtype:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree "
                                   f"doesn't match the dtype {p.dtype} of the corresponding "
                                   "primal.")
        caller_state = get_rng_state()
        set_rng_state(start)
        try:
            return _tangents_of(func, flat_primals, primals_spec, flat_tangents)
        finally:
            set_rng_state(caller_state)

    return output, jvp_fn


def _tangents_of(func, flat_primals, primals_spec, flat_tangents):
    """``func``'s outputs with each tensor replaced by its tangent (zeros where the output
    does not depend on the primals); other outputs stay as they are."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        with running("jvp"):
            result = func(*tree_unflatten(duals, primals_spec))
        flat_out, out_spec = tree_flatten(result)
        tangents = []
        for o in flat_out:
            if isinstance(o, _Tensor):
                primal, tangent = fwAD.unpack_dual(o)
                o = gradtrack.zeros_like(primal) if tangent is None else tangent
            tangents.append(o)
    return tree_unflatten(tangents, out_spec)
