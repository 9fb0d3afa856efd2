"""``nn.utils.stateless.functional_call``: calls a module with some of its parameters and
buffers replaced by given tensors, for that call only.

>>> import gradtrack
>>> from gradtrack import nn
>>> layer = nn.Linear(2, 1)
>>> params = {"weight": gradtrack.ones(1, 2), "bias": gradtrack.zeros(1)}
>>> nn.utils.stateless.functional_call(layer, params, (gradtrack.ones(1, 2),))
tensor([[2.]])
"""

import warnings
from contextlib import contextmanager

__all__ = ["functional_call"]

_ABSENT = object()


def _owner(module, name):
    *path, attr = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, attr


def _untied(module, given):
    """``given`` with each tensor also under the names tied to its own (one tensor held
    under several names); torch's refusal of different tensors for tied names."""
    names_of = {}
    for name, t in [*module.named_parameters(remove_duplicate=False),
                    *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), (t, set()))[1].add(name)
    tied = {name: group for _, group in names_of.values() if len(group) > 1 for name in group}
    given_tied = set(given) & set(tied)
    for name in given_tied:
        group = tied[name]
        # every name of the group is looked up, given or not (a KeyError otherwise)
        values = {id(given[n]) for n in group} if len(group & given_tied) > 1 else ()
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _check_strict(module, given):
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
        {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing = sorted(names - set(given))
    unexpected = sorted(set(given) - names)
    if missing or unexpected:
        lines = []
        if unexpected:
            lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                           + "\n\t".join(lines))


@contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
    given = dict(parameters_and_buffers)
    replaced = _untied(module, given) if tie_weights else given
    if strict:
        _check_strict(module, replaced)
    swaps = []
    for name, tensor in replaced.items():
        owner, attr = _owner(module, name)
        swaps.append((owner, attr, tensor))
    saved = []
    try:
        for owner, attr, tensor in swaps:
            for store in (owner._parameters, owner._buffers):
                if attr in store:
                    saved.append((store, attr, store[attr]))
                    store[attr] = tensor
                    break
            else:
                saved.append((owner, attr, owner.__dict__.get(attr, _ABSENT)))
                owner.__dict__[attr] = tensor
        yield
    finally:
        for store, attr, old in reversed(saved):
            if isinstance(store, dict):
                store[attr] = old
            elif old is _ABSENT:
                store.__dict__.pop(attr, None)
            else:
                store.__dict__[attr] = old


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameters_and_buffers`` (names
    as in ``named_parameters``) in place of the module's own, for this call only.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.Linear(2, 1, bias=False)
    >>> w = gradtrack.ones(1, 2, requires_grad=True)
    >>> out = nn.utils.stateless.functional_call(layer, {"weight": w}, gradtrack.ones(1, 2))
    >>> out.grad_fn.name()
    'MmBackward0'
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)
