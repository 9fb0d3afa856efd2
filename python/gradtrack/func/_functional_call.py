"""``functional_call`` and ``stack_module_state``: running a module on tensors given
for one call, so a module's parameters can be the differentiated (or mapped) input of a
transform.

>>> import gradtrack
>>> from gradtrack import nn
>>> from gradtrack.func import functional_call
>>> layer = nn.Linear(2, 1)
>>> functional_call(layer, {"weight": gradtrack.ones(1, 2), "bias": gradtrack.zeros(1)}, gradtrack.ones(2))
tensor([2.])
"""

from typing import Any

import gradtrack

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module: "gradtrack.nn.Module", parameter_and_buffer_dicts: Any,
                    args: Any = None, kwargs: "dict[str, Any] | None" = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the module's parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a tuple of dicts without repeated names)
    replaced by the given tensors for this call only.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.func import functional_call, grad
    >>> model = nn.Linear(2, 1, bias=False)
    >>> params = {"weight": gradtrack.tensor([[1.0, 2.0]])}
    >>> loss = lambda p, x: functional_call(model, p, (x,)).sum()
    >>> grad(loss)(params, gradtrack.tensor([3.0, 4.0]))
    {'weight': tensor([[3., 4.]])}
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    from ..nn.utils.stateless import _reparametrize_module  # nn loads on first use

    with _reparametrize_module(module, given, tie_weights, strict):
        return module(*args, **kwargs)


def stack_module_state(models: Any) -> tuple:
    """``(params, buffers)``: each a dict from the models' names to their tensors
    stacked along a new first dimension (detached parameters that require grad), ready
    for ``vmap(functional_call...)`` over an ensemble of same-shaped models.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.func import stack_module_state
    >>> params, buffers = stack_module_state([nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape
    gradtrack.Size([4, 2, 3])
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    needs = [t.requires_grad for t in tensors]
    if any(needs) and not all(needs):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = gradtrack.stack(tensors)
    return result.detach().requires_grad_() if all(needs) else result
