"""Module hooks: forward (pre-)hooks, backward hooks, and the global
``register_module_*`` hooks that apply to every module.

NOTE [Module call fast path]
``Module.__call__`` reads one flag, ``_has_hooks``, and calls ``forward``
directly while it is false. A module's own registration sets the flag in its
``__dict__``; a global registration sets it on :class:`_ModuleHooks` (the
class ``Module`` inherits it from), so every module without hooks of its own
reads ``True`` and takes :meth:`_ModuleHooks._call_with_hooks`. The first call
after the last hook was removed finds no hook and puts the flag back. The call
without hooks stays one attribute read and one branch.

NOTE [Full backward hooks]
As in PyTorch, the module's tensor inputs and outputs pass through an
identity autograd function (``BackwardHookFunctionBackward``). A hook on the
outputs' node sees the gradients with respect to the outputs (and runs the
backward pre-hooks, which may replace them); a hook on the inputs' node sees
the gradients with respect to the inputs and runs the full backward hooks,
which may replace those.
"""

import functools
import sys
import warnings
import weakref
from collections import OrderedDict

from ... import _C
from ..._out import _PACKAGE
from ...autograd.function import Function
from ...utils.hooks import RemovableHandle

_Tensor = _C.Tensor

_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_state = {"is_full_backward_hook": None}


# torch's Python frames between a hook and the code that started backward: its
# Tensor.backward, autograd.backward and the engine call; the same minus Tensor.backward
# for autograd.backward and autograd.grad.
_TORCH_ENTRY_FRAMES = {"_tensor_backward": 3}


def _torch_level_in_backward(stacklevel):
    """The ``stacklevel`` for a warning raised in a hook during backward that names the
    frame torch's ``stacklevel`` names in torch's stack: gradtrack's own frames are
    skipped, and torch's frames between the engine and the caller are counted."""
    frame, level, entry = sys._getframe(1), 1, None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        entry = frame.f_code.co_name
        frame, level = frame.f_back, level + 1
    # the frame named is this many frames above the first one outside gradtrack
    above = stacklevel - 2 - _TORCH_ENTRY_FRAMES.get(entry, 2)
    while above > 0 and frame is not None and frame.f_back is not None:
        frame, level, above = frame.f_back, level + 1, above - 1
    return level


def _refresh_global_flag():
    _ModuleHooks._has_hooks = bool(
        _global_backward_pre_hooks or _global_backward_hooks or _global_forward_pre_hooks
        or _global_forward_hooks)


def _global_handle(hooks, hook, extra_dict=None):
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    _refresh_global_flag()
    return handle


def register_module_buffer_registration_hook(hook):
    """Calls ``hook(module, name, buffer)`` in every ``register_buffer``; it may
    return a replacement buffer.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.modules.module import register_module_buffer_registration_hook
    >>> handle = register_module_buffer_registration_hook(lambda m, name, b: b * 2)
    >>> m = nn.Module(); m.register_buffer("b", gradtrack.ones(2)); handle.remove()
    >>> m.b
    tensor([2., 2.])
    """
    return _global_handle(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Calls ``hook(module, name, submodule)`` when a submodule is registered; it
    may return a replacement submodule.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.modules.module import register_module_module_registration_hook
    >>> handle = register_module_module_registration_hook(lambda m, name, sub: nn.Tanh())
    >>> seq = nn.Sequential(nn.ReLU()); handle.remove()
    >>> seq
    Sequential(
      (0): Tanh()
    )
    """
    return _global_handle(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Calls ``hook(module, name, param)`` in every ``register_parameter``; it may
    return a replacement parameter.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.modules.module import register_module_parameter_registration_hook
    >>> names = []
    >>> handle = register_module_parameter_registration_hook(lambda m, n, p: names.append(n))
    >>> _ = nn.Linear(2, 2); handle.remove()
    >>> names
    ['weight', 'bias']
    """
    return _global_handle(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """Calls ``hook(module, args)`` before every module's ``forward``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.modules.module import register_module_forward_pre_hook
    >>> seen = []
    >>> handle = register_module_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
    >>> _ = nn.Sequential(nn.ReLU())(gradtrack.ones(1)); handle.remove()
    >>> seen
    ['Sequential', 'ReLU']
    """
    return _global_handle(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Calls ``hook(module, args, output)`` after every module's ``forward``
    (``hook(module, args, kwargs, output)`` with ``with_kwargs=True``).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.modules.module import register_module_forward_hook
    >>> handle = register_module_forward_hook(lambda m, args, out: out + 1)
    >>> y = nn.ReLU()(gradtrack.zeros(2)); handle.remove()
    >>> y
    tensor([1., 1.])
    """
    handle = _global_handle(_global_forward_hooks, hook,
                            extra_dict=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    """The deprecated global backward hook (use :func:`register_module_full_backward_hook`).
    Once it is used, the process can no longer register a global full backward hook
    (as in PyTorch), so the example only names it.

    >>> from gradtrack.nn.modules.module import register_module_backward_hook
    >>> register_module_backward_hook.__name__
    'register_module_backward_hook'
    """
    if _global_state["is_full_backward_hook"] is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_state["is_full_backward_hook"] = False
    return _global_handle(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """Calls ``hook(module, grad_output)`` before every module's backward; it may
    return a new ``grad_output``.

    >>> from gradtrack.nn.modules.module import register_module_full_backward_pre_hook
    >>> register_module_full_backward_pre_hook(lambda m, go: None).remove()
    """
    return _global_handle(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Calls ``hook(module, grad_input, grad_output)`` after every module's
    backward; it may return a new ``grad_input``.

    >>> from gradtrack.nn.modules.module import register_module_full_backward_hook
    >>> register_module_full_backward_hook(lambda m, gi, go: None).remove()
    """
    if _global_state["is_full_backward_hook"] is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_state["is_full_backward_hook"] = True
    return _global_handle(_global_backward_hooks, hook)


class _WrappedHook:
    """A hook called with its module first (held weakly), as PyTorch's."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class BackwardHookFunction(Function):
    """The identity on tensors whose node carries a module's backward hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """Runs a module's full backward (pre-)hooks (NOTE [Full backward hooks])."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the
                # outputs (double backward): there is nothing to report.
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, _Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and _C.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if len(grad_fns) == 0:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with "
                               "a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        """Routes the tensor ``args`` through the identity node whose hook runs the
        full backward hooks."""
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        """Routes the output tensors through the identity node whose hook records
        ``grad_output`` and runs the backward pre-hooks."""
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of "
                                               f"grad_output, got {actual_len}, but expected "
                                               f"{expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # No input requires grad: the full hooks run here, with no grad_input.
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=_torch_level_in_backward(5))
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input "
                                               "requires gradient should always return None or "
                                               "None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


class _ModuleHooks:
    """The hook half of :class:`Module`: registration and the call that runs them."""

    # NOTE [Module call fast path]
    _has_hooks = False

    def _refresh_hook_flag(self):
        d = self.__dict__
        if (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"]):
            d["_has_hooks"] = True
        else:
            d.pop("_has_hooks", None)

    def _has_call_hooks(self):
        """Whether a hook of this module or a global one runs in ``__call__``. A handle
        does not put the flag back when it removes the last hook: the call does."""
        d = self.__dict__
        return bool(d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                    or d["_backward_pre_hooks"] or _global_backward_pre_hooks
                    or _global_backward_hooks or _global_forward_pre_hooks
                    or _global_forward_hooks)

    def _new_handle(self, hooks, hook, extra_dict=None, prepend=False):
        handle = RemovableHandle(hooks, extra_dict=extra_dict)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        self._refresh_hook_flag()
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Calls ``hook(module, args)`` before ``forward``; it may return new args.
        With ``with_kwargs=True`` it is ``hook(module, args, kwargs)`` and may return
        ``(args, kwargs)``; ``prepend=True`` runs it before the hooks already there.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> relu = nn.ReLU()
        >>> _ = relu.register_forward_pre_hook(lambda m, args: (-args[0],))
        >>> relu(gradtrack.tensor([1.0, -2.0]))
        tensor([0., 2.])
        """
        handle = self._new_handle(self._forward_pre_hooks, hook,
                                  self._forward_pre_hooks_with_kwargs, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Calls ``hook(module, args, output)`` after ``forward``; it may return a new
        output. ``with_kwargs=True`` passes ``kwargs`` before ``output``;
        ``always_call=True`` runs it even when ``forward`` raises.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> relu = nn.ReLU()
        >>> _ = relu.register_forward_hook(lambda m, args, out: out * 10)
        >>> relu(gradtrack.tensor([1.0, -2.0]))
        tensor([10.,  0.])
        """
        handle = self._new_handle(
            self._forward_hooks, hook,
            [self._forward_hooks_with_kwargs, self._forward_hooks_always_called], prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Calls ``hook(module, grad_output)`` when the gradients with respect to the
        module's outputs are known; it may return a new ``grad_output``.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> layer = nn.Linear(2, 1)
        >>> _ = layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
        >>> layer(gradtrack.ones(1, 2)).sum().backward()
        >>> layer.bias.grad
        tensor([0.])
        """
        return self._new_handle(self._backward_pre_hooks, hook, None, prepend)

    def register_backward_hook(self, hook):
        """The deprecated backward hook: ``hook(module, grad_input, grad_output)`` on
        the last node of ``forward`` (use :meth:`register_full_backward_hook`).

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> layer = nn.ReLU()
        >>> _ = layer.register_backward_hook(lambda m, gi, go: print(len(gi), len(go)))
        >>> layer(gradtrack.ones(2, requires_grad=True)).sum().backward()
        1 1
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = False
        return self._new_handle(self._backward_hooks, hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """Calls ``hook(module, grad_input, grad_output)`` with the gradients with
        respect to the module's inputs and outputs; it may return a new ``grad_input``.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> layer = nn.Linear(2, 1)
        >>> _ = layer.register_full_backward_hook(lambda m, gi, go: print(gi[0].shape))
        >>> layer(gradtrack.ones(1, 2, requires_grad=True)).sum().backward()
        gradtrack.Size([1, 2])
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = True
        return self._new_handle(self._backward_hooks, hook, None, prepend)

    def _get_backward_hooks(self):
        full, non_full = [], []
        is_full_global = _global_state["is_full_backward_hook"]
        if is_full_global is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if is_full_global is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _call_with_hooks(self, args, kwargs):
        if not self._has_call_hooks():
            # every hook was removed through its handle since the flag was set
            self._refresh_hook_flag()
            _refresh_global_flag()
            return self.forward(*args, **kwargs)
        state = {"result": None, "args": args, "kwargs": kwargs, "called": set()}
        try:
            return self._run_hooks_and_forward(state)
        except Exception:
            self._run_always_called_hooks(state)
            raise

    def _run_hooks_and_forward(self, state):
        args, kwargs = state["args"], state["kwargs"]
        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            with_kwargs = self._forward_pre_hooks_with_kwargs
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if isinstance(result, tuple) and len(result) == 2:
                            args, kwargs = result
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {result}.")
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
                state["args"], state["kwargs"] = args, kwargs
        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)
            state["args"] = args
        result = self.forward(*args, **kwargs)
        state["result"] = result
        if _global_forward_hooks or self._forward_hooks:
            always = self._forward_hooks_always_called
            with_kwargs = self._forward_hooks_with_kwargs
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in always or hook_id in _global_forward_hooks_always_called:
                    state["called"].add(hook_id)
                if hook_id in with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
                    state["result"] = result
        if bw_hook:
            if not isinstance(result, (_Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor "
                              f"or a tuple of Tensors but received {type(result)}", stacklevel=3)
            result = bw_hook.setup_output_hook(result)
        if non_full_backward_hooks:
            var = result
            while not isinstance(var, _Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, _Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
        return result

    def _run_always_called_hooks(self, state):
        args, kwargs, called = state["args"], state["kwargs"], state["called"]
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in called:
                try:
                    hook_result = hook(self, args, state["result"])
                    if hook_result is not None:
                        state["result"] = hook_result
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}", stacklevel=3)
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in called:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        hook_result = hook(self, args, kwargs, state["result"])
                    else:
                        hook_result = hook(self, args, state["result"])
                    if hook_result is not None:
                        state["result"] = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}", stacklevel=3)

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        future = FutureWarning
        if not isinstance(result, _Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, _Tensor) for r in result)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not return a single "
                    "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                    "versions. This hook will be missing some of the grad_output. Please use "
                    "register_full_backward_hook to get the documented behavior.", future,
                    stacklevel=4)
                return
        else:
            result = (result,)
        if not isinstance(inputs, _Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, _Tensor) for i in inputs)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                    "future versions. This hook will be missing some of the grad_input. Please "
                    "use register_full_backward_hook to get the documented behavior.", future,
                    stacklevel=4)
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output.", future, stacklevel=4)
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. Please use register_full_backward_hook to get the "
                "documented behavior.", future, stacklevel=4)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    "be missing some grad_input. Please use register_full_backward_hook to get "
                    "the documented behavior.", future, stacklevel=4)
