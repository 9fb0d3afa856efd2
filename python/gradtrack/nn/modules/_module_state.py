"""The ``state_dict`` half of :class:`Module`: saving, loading, extra state and
the state-dict hooks, in PyTorch's format and with its messages."""

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, is_lazy
from ...utils.hooks import RemovableHandle
from ._module_hooks import _WrappedHook

_Tensor = _C.Tensor
_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match.

    >>> from gradtrack import nn
    >>> nn.Linear(2, 1).load_state_dict({}, strict=False)
    _IncompatibleKeys(missing_keys=['weight', 'bias'], unexpected_keys=[])
    """

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _has_own(module, name, base):
    return getattr(type(module), name, base) is not base


class _ModuleState:
    """``state_dict`` / ``load_state_dict`` and their hooks."""

    def get_extra_state(self):
        """What a subclass saves under ``<prefix>_extra_state`` (overridden with
        :meth:`set_extra_state`; the base raises).

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> class Counter(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.count = 3
        ...     def get_extra_state(self):
        ...         return {"count": self.count}
        ...     def set_extra_state(self, state):
        ...         self.count = state["count"]
        >>> dict(Counter().state_dict())
        {'_extra_state': {'count': 3}}
        """
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please "
            "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml"
            " to report this bug.")

    def set_extra_state(self, state):
        """Restores what :meth:`get_extra_state` saved (the base raises).

        >>> from gradtrack import nn
        >>> callable(nn.Module.set_extra_state)
        True
        """
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please "
            "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml"
            " to report this bug.")

    # ---- hooks ---------------------------------------------------------------------------------

    def _register_state_dict_hook(self, hook):
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """Calls ``hook(module, state_dict, prefix, local_metadata)`` at the end of
        ``state_dict()``; it edits the dict in place and must return None.

        >>> from gradtrack import nn
        >>> layer = nn.Linear(2, 1)
        >>> def drop_bias(module, state_dict, prefix, local_metadata):
        ...     del state_dict[prefix + "bias"]
        >>> _ = layer.register_state_dict_post_hook(drop_bias)
        >>> list(layer.state_dict())
        ['weight']
        """
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """Calls ``hook(module, prefix, keep_vars)`` before ``state_dict()`` saves.

        >>> from gradtrack import nn
        >>> layer = nn.Linear(2, 1)
        >>> _ = layer.register_state_dict_pre_hook(lambda m, prefix, keep: print(repr(prefix)))
        >>> _ = layer.state_dict()
        ''
        """
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """Calls ``hook(module, state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)`` before this module loads.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> layer = nn.Linear(1, 1)
        >>> def rename(m, sd, prefix, *rest):
        ...     if prefix + "w" in sd:
        ...         sd[prefix + "weight"] = sd.pop(prefix + "w")
        >>> _ = layer.register_load_state_dict_pre_hook(rename)
        >>> layer.load_state_dict({"w": gradtrack.ones(1, 1), "bias": gradtrack.zeros(1)})
        <All keys matched successfully>
        """
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Calls ``hook(module, incompatible_keys)`` after this module loaded; it may
        edit the key lists in place and must return None.

        >>> from gradtrack import nn
        >>> layer = nn.Linear(1, 1)
        >>> _ = layer.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
        >>> layer.load_state_dict({})
        <All keys matched successfully>
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- saving --------------------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if _has_own(self, "get_extra_state", _ModuleState.get_extra_state):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` of every parameter and persistent buffer, by dotted name.

        Values are ``detach()``-ed aliases (they share memory and version counter).

        >>> from gradtrack import nn
        >>> list(nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)).state_dict())
        ['0.weight', '0.bias', '2.weight', '2.bias']
        """
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    # ---- loading -------------------------------------------------------------------------------

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key in state_dict:
                error = _copy_into(self, name, key, param, state_dict[key], assign)
                if error is not None:
                    error_msgs.append(error)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _has_own(self, "set_extra_state", _ModuleState.set_extra_state):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head = key[len(prefix):].split(".", 1)
                if len(head) > 1:
                    if head[0] not in self._modules:
                        unexpected_keys.append(key)
                elif head[0] not in local:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from ``state_dict`` (in place, under no_grad).

        With ``strict=True`` missing or unexpected keys raise PyTorch's
        ``Error(s) in loading state_dict for ...`` RuntimeError. Returns
        ``_IncompatibleKeys(missing_keys, unexpected_keys)``.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> nn.Linear(1, 1).load_state_dict({"weight": gradtrack.ones(1, 1), "x": 1},
        ...                                  strict=False)
        _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['x'])
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)


def _copy_into(module, name, key, param, value, assign):
    """Loads one state_dict entry; returns PyTorch's error text or None."""
    if not isinstance(value, _Tensor):
        return (f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}")
    lazy = is_lazy(param)  # an uninitialized parameter takes any shape (lazy modules)
    # Checkpoints from PyTorch 0.3 stored scalars as 1-element vectors.
    if not lazy and param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
        value = value[0]
    if not lazy and value.shape != param.shape:
        return (f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}.")
    try:
        with no_grad():
            if assign:
                if isinstance(param, Parameter) and not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=param.requires_grad)
                elif isinstance(param, Parameter):
                    value.requires_grad_(param.requires_grad)
                setattr(module, name, value)
            else:
                param.copy_(value)
    except Exception as ex:  # PyTorch reports any copy failure in the aggregated message
        return (f'While copying the parameter named "{key}", whose dimensions in the model are '
                f"{param.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                f"exception occurred : {ex.args}.")
    return None
