"""``vmap``: maps a function over a dimension of its inputs.

NOTE [vmap by looping over the batch]
vmap first tries one call on batched values (NOTE [vmap batching rules] in
``gradtrack/_batched_tensor.py``): when every op the function meets has a batching
rule, that call is the result, as torch's. Otherwise (an op without a rule, a random
draw, a mix of dtypes, a nested vmap, an empty batch) the try is dropped, the
generator's state restored, and this fallback runs the function once per sample, on
the sample's slices (``select`` views, so in-place writes reach the caller's tensor as
torch's do), and stacks the results along ``out_dims``: exact for every op, and for
every composition with the other transforms (``vmap(grad(f))`` is one gradient per
sample), at the cost of one call per sample. A function's side effects other than
tensor writes (printing, appending to a list) happen in the dropped try too. The
randomness modes: ``"error"`` raises torch's error when the function drew from the
default generator (the draw is undone first); ``"same"`` gives every sample the
generator's state at the start, so all draw the same numbers, torch's numbers for one
unbatched call; ``"different"`` lets the samples draw one after the other, which is
torch's batched draw wherever the generator fills a batch in order (``rand``,
``bernoulli``, dropout masks). ``chunk_size`` is checked as torch checks it; the loop
already holds one sample's intermediates at a time.

Known differences of the fallback: a result that requires grad has the stacking's
``grad_fn`` (``StackBackward0``), not the last op's; an error raised inside the
function is the unbatched op's (torch's batching rules word some differently); a
function whose per-sample outputs differ in shape is refused differently; an output
returned with ``out_dims=None`` counts as unbatched when every sample gives equal
values; an unbatched tensor written in place by batched values is written once per
sample where torch raises; data-dependent control flow (``if x.sum() > 0``) runs per
sample where torch raises.

>>> import gradtrack
>>> from gradtrack.func import vmap
>>> vmap(gradtrack.dot)(gradtrack.ones(3, 2), gradtrack.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
tensor([ 3.,  7., 11.])
"""

import functools
from typing import Any, Callable

import gradtrack

from .. import _C
from .._batched_tensor import BatchedTensor, NoRule, active, batched_size
from ..autograd._function_transforms import running
from ..random import get_rng_state, set_rng_state
from . import _batching_rules  # noqa: F401 - fills the rules of nn.functional
from ._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]

_Tensor = _C.Tensor
_RANDOMNESS = ("error", "different", "same")


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_randomness(randomness):
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be "
                             "an int, None or a python collection of ints representing where in "
                             "the outputs the vmapped dimension should appear.")


def _batched_inputs(in_dims, args, func):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         "be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if not isinstance(d, int) and d is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for an input but in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, _Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(arg)}. We cannot vmap "
                             "over non-Tensor arguments, please use None as the respective in_dim")
        if d is not None and (d < -arg.dim() or d >= arg.dim()):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for some input, but that input is a Tensor of dimensionality "
                             f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim "
                             f"< {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _flat_out_dims(output, out_dims, out_spec, func):
    def incompatible():
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                         "not compatible with the structure of `outputs`. out_dims has "
                         f"structure {tree_flatten(out_dims)[1]} but outputs has structure "
                         f"{out_spec}.")
    if isinstance(output, (_Tensor, BatchedTensor)):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        incompatible()
    flat = broadcast_to_and_flatten(out_dims, out_spec)
    if flat is None:
        incompatible()
    return flat


class _RandomnessGuard:
    """Applies the randomness mode around the per-sample calls (NOTE [vmap by looping
    over the batch])."""

    def __init__(self, randomness):
        self.mode = randomness
        self.start = get_rng_state()

    def before_sample(self, index):
        if self.mode == "same" and index > 0:
            set_rng_state(self.start)

    def after_sample(self):
        if self.mode == "error" and not bool(gradtrack.equal(get_rng_state(), self.start)):
            set_rng_state(self.start)
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags on "
                               "vmap or perform the randomness operation out of vmap")


def _run_samples(func, batch_size, flat_dims, flat_args, spec, randomness, kwargs):
    guard = _RandomnessGuard(randomness)
    results = []
    # An empty batch still runs the function once, on zeros of one sample's shape, for
    # the shapes and dtypes of its outputs.
    for b in range(max(batch_size, 1)):
        sample = []
        for arg, d in zip(flat_args, flat_dims):
            if d is None:
                sample.append(arg)
            elif batch_size == 0:
                shape = arg.shape[:d] + arg.shape[d + 1:]
                sample.append(gradtrack.zeros(shape, dtype=arg.dtype))
            else:
                sample.append(arg.select(d, b))
        guard.before_sample(b)
        results.append(func(*tree_unflatten(sample, spec), **kwargs))
        if b == 0 or b == batch_size - 1:
            guard.after_sample()
    return results


def _combine(func, results, batch_size, out_dims):
    name = _name(func)
    output = results[0]
    flat_first, out_spec = tree_flatten(output)
    flat_dims = _flat_out_dims(output, out_dims, out_spec, func)
    per_sample = [tree_flatten(r)[0] for r in results]
    combined = []
    for j, d in enumerate(flat_dims):
        values = [leaves[j] for leaves in per_sample]
        first = values[0]
        if d is None:
            if isinstance(first, _Tensor) and any(
                    v is not first and not (isinstance(v, _Tensor) and v.shape == first.shape
                                            and bool(gradtrack.equal(v, first)))
                    for v in values[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            combined.append(first)
            continue
        if not isinstance(first, _Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(first)}. Did you mean to set out_dims= to None for output?")
        stacked = gradtrack.stack(values, dim=d)
        if batch_size == 0:
            stacked = stacked.narrow(d % stacked.dim(), 0, 0).clone()
        combined.append(stacked)
    return tree_unflatten(combined, out_spec)


_FALLBACK = object()


def _run_batched(func, batch_size, flat_dims, flat_args, spec, out_dims, kwargs):
    """The outputs of one call on batched values (NOTE [vmap batching rules]), or
    ``_FALLBACK`` (with the generator's state as it was) when the call met an op without
    a rule, drew random numbers or returned what this path does not give back."""
    if batch_size == 0:
        return _FALLBACK
    state = get_rng_state()
    try:
        with active(batch_size):
            sample = [arg if d is None else BatchedTensor(arg if d == 0 else arg.movedim(d, 0), d)
                      for arg, d in zip(flat_args, flat_dims)]
            output = func(*tree_unflatten(sample, spec), **kwargs)
            result = _unbatched(func, output, batch_size, out_dims)
    except Exception as e:  # any failure: the per-sample calls give the result or the error
        set_rng_state(state)
        if getattr(e, "vmap_final", False):  # a custom Function's vmap rule raised it
            raise
        return _FALLBACK
    if not bool(gradtrack.equal(get_rng_state(), state)):
        set_rng_state(state)
        return _FALLBACK
    return result


def _unbatched(func, output, batch_size, out_dims):
    """The batched call's outputs as tensors with the batch at ``out_dims``."""
    flat, out_spec = tree_flatten(output)
    flat_dims = _flat_out_dims(output, out_dims, out_spec, func)
    combined = []
    for leaf, d in zip(flat, flat_dims):
        if type(leaf) is BatchedTensor:
            v = leaf.value
            if d is None or not -v.dim() <= d < v.dim():
                raise NoRule("out_dims")
            combined.append(v if d % v.dim() == 0 else v.movedim(0, d))
        elif isinstance(leaf, _Tensor):  # the same for every sample, as the loop gives it
            combined.append(leaf if d is None else gradtrack.stack([leaf] * batch_size, dim=d))
        else:
            raise NoRule("output")
    return tree_unflatten(combined, out_spec)


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: "int | None" = None) -> Callable:
    """Vectorizing map: ``vmap(func)`` takes inputs with an extra dimension (``in_dims``:
    an int for every input, or a pytree matching the positional arguments with an int or
    None — not mapped — per leaf), calls ``func`` on each sample and returns outputs
    with that dimension at ``out_dims``. Nests (``vmap(vmap(f))``) and composes with the
    other transforms: ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` gives
    per-sample gradients. ``randomness`` is ``"error"``, ``"different"`` or ``"same"``.
    Runs one call on the whole batch when every op has a batching rule (NOTE [vmap
    batching rules]), else one call per sample (NOTE [vmap by looping over the batch]).

    >>> import gradtrack
    >>> from gradtrack.func import vmap
    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> vmap(gradtrack.sum)(x)
    tensor([3., 7.])
    >>> vmap(gradtrack.mul, in_dims=(1, None))(x, gradtrack.tensor(10.0))
    tensor([[10., 30.],
            [20., 40.]])
    >>> vmap(vmap(gradtrack.outer))(x.view(2, 1, 2), x.view(2, 1, 2)).shape
    gradtrack.Size([2, 1, 2, 2])
    """
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if batched_size() is not None:  # inside a batched call: its vmap runs per sample
            raise NoRule("vmap")
        _check_out_dims(out_dims, func)
        batch_size, flat_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
        with running("vmap", batch_size, randomness):
            result = _run_batched(func, batch_size, flat_dims, flat_args, spec, out_dims, kwargs)
            if result is not _FALLBACK:
                return result
            results = _run_samples(func, batch_size, flat_dims, flat_args, spec, randomness,
                                   kwargs)
        return _combine(func, results, batch_size, out_dims)
    return wrapped
