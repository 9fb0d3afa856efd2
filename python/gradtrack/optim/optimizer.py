"""``optim.Optimizer``: parameter groups, per-parameter state, state_dict, and the
hooks around ``step``, ``state_dict`` and ``load_state_dict``.

The format and the error messages are PyTorch's: ``state_dict()`` replaces
each parameter by an integer id (its position across all groups), and
``load_state_dict`` maps the ids back onto this optimizer's parameters in
order.

NOTE [Step hooks]
As in torch, the first optimizer made of a class replaces the class's ``step`` with a
wrapper (marked ``hooked``) that runs the step hooks: the global pre-hooks
(:func:`register_optimizer_step_pre_hook`), then the optimizer's own; then ``step``
itself; then the optimizer's post-hooks, then the global ones. Each hook gets
``(optimizer, args, kwargs)``, ``args`` holding the optimizer first, as ``step`` was
called; a pre-hook may return ``(new_args, new_kwargs)`` for the hooks after it and for
``step``. A subclass's ``step`` is wrapped when the first optimizer of that subclass is
made, so a subclass whose ``step`` calls ``super().step()`` runs the hooks twice once
the parent class has been wrapped too, as torch's does.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import _C
from ..nn.modules.module import _zero_grad_in_place, typename
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_Tensor = _C.Tensor
_grad_get = _Tensor._grad.fget
_set_grad = _C._set_grad


class _RequiredParameter:
    """Marks a hyper-parameter that every group must set."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# The hooks of every optimizer's step (NOTE [Step hooks]), by handle id.
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()

# The optimizer's own hook tables, empty until a hook is registered.
_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def _add_hook(hooks, hook, prepend=False):
    """Puts ``hook`` in the table ``hooks`` (first with ``prepend``); returns its handle."""
    handle = RemovableHandle(hooks)  # its id from the counter all hooks share, as torch's
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Any) -> RemovableHandle:
    """Calls ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``, before
    the optimizer's own pre-hooks; it may return ``(new_args, new_kwargs)``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> from gradtrack.optim.optimizer import register_optimizer_step_pre_hook
    >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
    >>> with register_optimizer_step_pre_hook(lambda o, args, kwargs: print(type(o).__name__)):
    ...     opt.step()
    SGD
    """
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Any) -> RemovableHandle:
    """Calls ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``, after
    the optimizer's own post-hooks.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> from gradtrack.optim.optimizer import register_optimizer_step_post_hook
    >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
    >>> with register_optimizer_step_post_hook(lambda o, args, kwargs: print(len(args))):
    ...     opt.step()
    1
    """
    return _add_hook(_global_optimizer_post_hooks, hook)


def _before_step(step, opt, args, kwargs):
    """The call's ``(args, kwargs)`` once the global pre-hooks, then ``opt``'s, have run;
    a hook that returns a pair swaps them in for the hooks after it and for ``step``."""
    # live views, not copies: a hook that registers another mid-run raises, as in torch
    every = chain(_global_optimizer_pre_hooks.values(), opt._optimizer_step_pre_hooks.values())
    for hook in every:
        swapped = hook(opt, args, kwargs)
        if swapped is None:
            continue
        if not isinstance(swapped, tuple) or len(swapped) != 2:
            raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                               f"but got {swapped}.")
        args, kwargs = swapped
    return args, kwargs


def _after_step(opt, args, kwargs):
    """Runs ``opt``'s post-hooks, then the global ones (the pre-hooks' order reversed)."""
    for hook in chain(opt._optimizer_step_post_hooks.values(),
                      _global_optimizer_post_hooks.values()):
        hook(opt, args, kwargs)


def _notify(hooks, opt):
    for hook in hooks.values():
        hook(opt)


def _handed_along(hooks, opt, state_dict):
    """``state_dict`` after each hook in ``hooks`` saw it; a dict a hook returns is what
    the next hook (and the caller) gets."""
    for hook in hooks.values():
        replacement = hook(opt, state_dict)
        if replacement is not None:
            state_dict = replacement
    return state_dict


class Optimizer:
    """Base class of optimizers.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of
    dicts (parameter groups, each with its own hyper-parameters);
    ``defaults`` fills the hyper-parameters a group does not set.

    >>> import gradtrack
    >>> from gradtrack import nn, optim
    >>> model = nn.Linear(2, 1)
    >>> opt = optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=0.1)
    >>> [g["lr"] for g in opt.param_groups]
    [0.1, 0.5]
    >>> opt.state_dict()["param_groups"][1]["params"]
    [1]
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, OrderedDict())
        self._patch_step_function()  # (before the check below, as torch: a refused call hooks too)
        if isinstance(params, _Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for table in _HOOK_TABLES:  # hooks are not pickled: a copy starts without them
            if table not in self.__dict__:
                setattr(self, table, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own hyper-parameters.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.zeros(2, requires_grad=True)], lr=0.1)
        >>> opt.add_param_group({"params": gradtrack.zeros(1, requires_grad=True), "lr": 1.0})
        >>> len(opt.param_groups), opt.param_groups[1]["momentum"]
        (2, 0)
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        _extract_params(param_group)
        for param in param_group["params"]:
            if not isinstance(param, _Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        self._check_disjoint(param_group)
        self.param_groups.append(param_group)

    def _check_disjoint(self, param_group):
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all optimized tensors (to ``None`` by default).

        With ``set_to_none=False`` each grad keeps its object and is zero-filled
        in place (after being detached).
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = _grad_get(p)
                if grad is None:
                    continue
                if set_to_none:
                    _set_grad(p, None)
                else:
                    _zero_grad_in_place(grad)

    def step(self, closure: Any = None) -> Any:
        """Performs one optimization step; subclasses implement it."""
        raise NotImplementedError

    # ---- hooks (NOTE [Step hooks]) ------------------------------------------------------------

    def _optimizer_step_code(self) -> None:
        """Runs after every ``step`` (torch's profiler entry point); does nothing."""

    @staticmethod
    def profile_hook_step(func: Any) -> Any:
        """``func`` (a class's ``step``) running the step hooks around it (NOTE [Step
        hooks]).

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> type(opt).step.hooked, type(opt).step.__name__
        (True, 'step')
        """

        @functools.wraps(func)
        def step_with_hooks(*args, **kwargs):
            opt, *_unused = args  # step's own self, as the hooks see it
            args, kwargs = _before_step(func, opt, args, kwargs)
            returned = func(*args, **kwargs)
            opt._optimizer_step_code()
            _after_step(opt, args, kwargs)
            return returned

        return step_with_hooks

    def _patch_step_function(self) -> None:
        owner = type(self)
        if getattr(owner.step, "hooked", None):
            return  # wrapped already (maybe inherited from a wrapped parent)
        wrapped = self.profile_hook_step(owner.step)
        wrapped.hooked = True
        owner.step = wrapped

    def register_step_pre_hook(self, hook: Any) -> RemovableHandle:
        """Calls ``hook(optimizer, args, kwargs)`` before each ``step``; a returned
        ``(new_args, new_kwargs)`` replaces what ``step`` is called with.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> handle = opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 3.0}))
        >>> opt.step()
        3.0
        >>> handle.remove()
        """
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Any) -> RemovableHandle:
        """Calls ``hook(optimizer, args, kwargs)`` after each ``step``.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> _ = opt.register_step_post_hook(lambda o, args, kwargs: print(kwargs))
        >>> opt.step(closure=None)
        {'closure': None}
        """
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(optimizer)`` at the start of ``state_dict()`` (before the hooks
        registered earlier with ``prepend=True``).

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> _ = opt.register_state_dict_pre_hook(lambda o: print("saving"))
        >>> _ = opt.state_dict()
        saving
        """
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(optimizer, state_dict)`` at the end of ``state_dict()``; a dict it
        returns replaces the state dict.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> _ = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "note": 1})
        >>> opt.state_dict()["note"]
        1
        """
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Any,
                                          prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(optimizer, state_dict)`` at the start of ``load_state_dict``, with
        a shallow copy of the dict given; a dict it returns is loaded instead.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> saved = opt.state_dict()
        >>> def halve(o, sd):
        ...     sd["param_groups"] = [dict(g, lr=g["lr"] / 2) for g in sd["param_groups"]]
        >>> _ = opt.register_load_state_dict_pre_hook(halve)
        >>> opt.load_state_dict(saved)
        >>> opt.param_groups[0]["lr"]
        0.05
        """
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Any,
                                           prepend: bool = False) -> RemovableHandle:
        """Calls ``hook(optimizer)`` at the end of ``load_state_dict``.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> opt = optim.SGD([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        >>> _ = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
        >>> opt.load_state_dict(opt.state_dict())
        loaded
        """
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {id: {...}}, 'param_groups': [{..., 'params': [ids]}]}``.

        Parameters are replaced by integer ids, counted across the groups in order.

        >>> import gradtrack
        >>> from gradtrack import optim
        >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> opt.state_dict()["state"]
        {0: {'momentum_buffer': tensor([ 2., -4.])}}
        """
        _notify(self._optimizer_state_dict_pre_hooks, self)
        mapping = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, _Tensor) else k): v
                        for k, v in self.state.items()}
        return _handed_along(self._optimizer_state_dict_post_hooks, self,
                             {"state": packed_state, "param_groups": param_groups})

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a ``state_dict()`` (of an optimizer over same-shaped groups).

        Tensors in the per-parameter state are cast to their parameter's dtype.
        """
        # the hooks get a shallow copy, so one that edits it leaves the caller's dict alone
        state_dict = _handed_along(self._optimizer_load_state_dict_pre_hooks, self,
                                   state_dict.copy())
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = _cast(param, value)
            else:
                state[key] = value
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        _notify(self._optimizer_load_state_dict_post_hooks, self)


def _extract_params(param_group):
    """Normalizes ``param_group['params']`` to a list of tensors (+ ``param_names``)."""
    params = param_group["params"]
    if isinstance(params, _Tensor):
        params = [params]
    elif isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                        "the ordering of tensors in sets will change between runs. Please use a "
                        "list instead.")
    else:
        params = list(params)
    tensors, names = [], []
    for param in params:
        if isinstance(param, tuple):
            names.append(param[0])
            tensors.append(param[1])
        else:
            tensors.append(param)
    param_group["params"] = tensors
    if names:
        if len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        param_group["param_names"] = names


def _cast(param, value, key=None):
    """A copy of a state value whose tensors follow ``param``'s floating dtype."""
    if isinstance(value, _Tensor):
        if key == "step" or not param.is_floating_point():
            return value
        return value.to(param.dtype)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value
