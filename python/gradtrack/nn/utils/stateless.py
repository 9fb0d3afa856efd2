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


def _slots(module):
    """Every (module, name) that holds a parameter or buffer, shared ones included."""
    seen, stack, out = set(), [module], []
    while stack:
        m = stack.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        out += [(m, n) for n in list(m._parameters) + list(m._buffers)]
        stack += [c for c in m._modules.values() if c is not None]
    return out


@contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
    given = dict(parameters_and_buffers)
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
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
    swaps = []
    for name, tensor in given.items():
        owner, attr = _owner(module, name)
        swaps.append((owner, attr, tensor))
    if tie_weights:
        # a tensor shared by several names (tied weights) is replaced under all of them
        targets = {}
        for owner, attr, tensor in swaps:
            old = owner._parameters.get(attr, owner._buffers.get(attr))
            if old is not None:
                targets[id(old)] = tensor
        named = {(id(o), a) for o, a, _ in swaps}
        for owner, attr in _slots(module):
            old = owner._parameters.get(attr, owner._buffers.get(attr))
            if old is not None and id(old) in targets and (id(owner), attr) not in named:
                swaps.append((owner, attr, targets[id(old)]))
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
