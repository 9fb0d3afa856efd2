"""``nn.Module``: the base class of every layer and model.

NOTE [Module attribute storage]
As in PyTorch, parameters, buffers and submodules live in three dicts
(``_parameters``, ``_buffers``, ``_modules``) and are found through
``__getattr__`` when normal lookup fails. ``__setattr__`` routes a
``Parameter`` / ``Module`` / registered-buffer assignment into the right dict,
which is what makes ``self.fc = nn.Linear(...)`` register a submodule.
Every layer's ``forward`` reads its parameters as attributes (``self.weight``),
never from ``_parameters`` directly, so that what torch allows works the same:
a parameter deleted and replaced by a plain attribute (the forward-AD
tutorial's ``delattr(model, "weight"); setattr(model, "weight", dual)``), a
property installed by a parametrization, or a tensor written straight into
``_parameters`` is what the layer computes with. The cost is ``__getattr__``,
reached only after a failed instance lookup (about 1.5 us a read on CPython 3.11,
in torch too); the hottest forwards skip it where the answer is known to be the
dict's (NOTE [Reading parameters in forward], ``Linear.forward``).
"""

import functools
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, TypeVar

from ... import _C
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle  # noqa: F401 - torch.nn.modules.module's name
from ..parameter import Parameter, is_lazy
from ._module_hooks import (  # noqa: F401 - torch.nn.modules.module's names
    _global_buffer_registration_hooks, _global_module_registration_hooks,
    _global_parameter_registration_hooks, _ModuleHooks, _WrappedHook,
    register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook,
)
from ._module_state import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys, _ModuleState  # noqa: F401

_Tensor = _C.Tensor
_MISSING = object()  # what Module.__getattr__'s dict.get returns for an absent name
_grad_get = _Tensor._grad.fget
_set_grad = _C._set_grad


def typename(obj):
    """PyTorch's ``torch.typename``: ``gradtrack.FloatTensor`` for tensors,
    the qualified class name otherwise."""
    if isinstance(obj, _Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(text, num_spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * num_spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


_M = TypeVar("_M", bound="Module")  # train() and eval() return self, typed as its class


def _checks_device(init, index, positional):
    """``init`` checking its ``device`` argument (NOTE [A layer's device= is checked]):
    ``index`` is the parameter's place, ``self`` included; it may be passed by position
    when ``index < positional``."""
    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        if "device" in kwargs:
            _C._ops.check_device(kwargs["device"])
        elif index < positional and len(args) >= index:
            _C._ops.check_device(args[index - 1])
        init(self, *args, **kwargs)
    return checked


class Module(_ModuleHooks, _ModuleState):
    """Base class for all neural network modules.

    Subclasses assign parameters and submodules as attributes in ``__init__``
    and compute their output in ``forward``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> net = Net()
    >>> [name for name, _ in net.named_parameters()]
    ['fc.weight', 'fc.bias']
    >>> net
    Net(
      (fc): Linear(in_features=2, out_features=1, bias=True)
    )
    """

    # Version of the state_dict layout, recorded in ``state_dict()._metadata``.
    _version = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # NOTE [A layer's device= is checked]
        # torch's layers make their parameters on ``device=``, so ``nn.Linear(2, 3,
        # device="cuda")`` raises on a CPU build, as the factories do. gradtrack's layers
        # make theirs on the CPU and read no device: they took any, silently. Each of
        # gradtrack's own layers whose __init__ has a ``device`` parameter now checks it
        # first, as the factories check theirs. A program's own modules are left alone:
        # their ``device`` means what they make it mean.
        init = cls.__dict__.get("__init__")
        if cls.__module__.startswith("gradtrack.") and init is not None:
            code = init.__code__
            names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            if "device" in names:
                cls.__init__ = _checks_device(init, names.index("device"), code.co_argcount)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}

    def forward(self, *args, **kwargs):
        """Computes the module's output; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._has_hooks:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    # ---- registration ----------------------------------------------------------------------

    def register_buffer(self, name: str, tensor: "_Tensor | None", persistent: bool = True) -> None:
        """Adds a tensor that is state but not a parameter (saved in ``state_dict``
        unless ``persistent=False``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: "Parameter | None") -> None:
        """Adds a parameter (or ``None``) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        if param is not None:
            for hook in _global_parameter_registration_hooks.values():
                output = hook(self, name, param)
                if output is not None:
                    param = output
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        d = self.__dict__
        params = d.get("_parameters")
        if params is not None:
            value = params.get(name, _MISSING)
            if value is not _MISSING:
                return value
            value = d["_buffers"].get(name, _MISSING)
            if value is not _MISSING:
                return value
            value = d["_modules"].get(name, _MISSING)
            if value is not _MISSING:
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, d, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = d.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_name(name, d, self._parameters, self._buffers)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            d["_modules"][name] = value
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, _Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = (value.persistent if getattr(value, "_is_buffer", False)
                          else name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
        elif isinstance(value, _Tensor) and getattr(value, "_is_buffer", False):
            self.register_buffer(name, value, value.persistent)  # an nn.Buffer
        else:
            object.__setattr__(self, name, value)

    def _remove_name(self, name, *dicts):
        for d in dicts:
            d.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __setstate__(self, state):
        d = self.__dict__
        d.update(state)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks", "_backward_pre_hooks", "_backward_hooks",
                     "_forward_hooks"):
            d.setdefault(name, OrderedDict())
        d.setdefault("_non_persistent_buffers_set", set())
        d.setdefault("_is_full_backward_hook", None)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules)
        keys += list(self._buffers)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``""`` is ``self``).

        >>> from gradtrack import nn
        >>> net = nn.Sequential(nn.Sequential(nn.Linear(2, 2)))
        >>> net.get_submodule("0.0")
        Linear(in_features=2, out_features=2, bias=True)
        """
        mod = self
        for item in target.split(".") if target else ():
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replaces (or, unless ``strict``, adds) the submodule at dotted path ``target``.

        >>> from gradtrack import nn
        >>> net = nn.Sequential(nn.Linear(2, 2))
        >>> net.set_submodule("0", nn.ReLU())
        >>> net
        Sequential(
          (0): ReLU()
        )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            if not isinstance(getattr(parent, atoms[-1]), Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_buffer(self, target):
        """The buffer at dotted path ``target``.

        >>> from gradtrack import nn
        >>> nn.Sequential(nn.BatchNorm1d(2)).get_buffer("0.running_mean")
        tensor([0., 0.])
        """
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_parameter(self, target):
        """The parameter at dotted path ``target``.

        >>> from gradtrack import nn
        >>> nn.Sequential(nn.Linear(2, 1)).get_parameter("0.bias").shape
        gradtrack.Size([1])
        """
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    # ---- iteration -------------------------------------------------------------------------

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yields ``(name, module)`` for ``self`` and every descendant, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    def modules(self, remove_duplicate=True):
        """Yields ``self`` and every descendant module."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self):
        """Yields ``(name, module)`` for the direct children."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        """Yields the direct child modules."""
        for _, module in self.named_children():
            yield module

    def _named_members(self, kind, prefix, recurse, remove_duplicate):
        seen = set()
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = ((prefix, self),)
        for module_prefix, module in modules:
            members = module.__dict__[kind]
            for name, value in members.items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yields ``(dotted name, parameter)``; a parameter shared twice is yielded once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Yields every parameter once (the argument an optimizer takes).

        >>> from gradtrack import nn
        >>> [tuple(p.shape) for p in nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        # The common leaf-module case skips the module walk: the linear-regression
        # benchmark calls this every step.
        if not self._modules or not recurse:
            seen = set()
            for p in self._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield p
            return
        for _, p in self._named_members("_parameters", "", True, True):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields ``(dotted name, buffer)``."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Yields every buffer once."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes and gradients ---------------------------------------------------------------

    def train(self: "_M", mode: bool = True) -> "_M":
        """Sets training mode on ``self`` and all descendants; returns ``self``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: "_M") -> "_M":
        """``train(False)``; returns ``self``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` on every parameter; returns ``self``."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets every parameter's ``.grad`` (to ``None`` by default).

        With ``set_to_none=False`` each grad keeps its object: it is detached
        (or stops requiring grad) and zero-filled in place, as in PyTorch.
        """
        for p in self.parameters():
            grad = _grad_get(p)
            if grad is None:
                continue
            if set_to_none:
                _set_grad(p, None)
            else:
                _zero_grad_in_place(grad)

    def apply(self, fn):
        """Calls ``fn`` on every descendant, then on ``self`` (custom init); returns ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- dtype conversion ------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                # Keeps the Parameter object (optimizers hold it); like PyTorch's set_data path.
                p.data = fn(p)
                grad = _grad_get(p)
                if grad is not None:
                    grad.data = fn(grad)
            for name, buf in self._buffers.items():
                if buf is None:
                    continue
                if is_lazy(buf):  # stays uninitialized, with the converted dtype
                    buf.data = fn(buf)
                else:
                    self._buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Converts floating parameters and buffers to a dtype (``to(gradtrack.float64)``);
        a device must be the CPU (a CUDA one raises as on torch's CPU build);
        ``memory_format=`` lays out 4-d and 5-d parameters and buffers in that format."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        memory_format = kwargs.get("memory_format")
        for arg in args:
            if isinstance(arg, _C.dtype):
                dtype = arg
            elif isinstance(arg, _Tensor):
                dtype = arg.dtype
            elif isinstance(arg, str) or type(arg).__name__ == "device":
                device = arg
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")
        if dtype is None and device is None and memory_format is None:
            return self

        def convert(t):
            if device is not None:
                t = t.to(device)
            cast = dtype if dtype is not None and t.is_floating_point() else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(cast, memory_format=memory_format)
            return t.to(cast) if cast is not None else t

        return self._apply(convert)

    def cuda(self, device=None):
        """Raises torch's CPU-build error at the first parameter or buffer (no CUDA)."""
        return self._apply(lambda t: t.cuda(device))

    def double(self):
        """Casts floating parameters and buffers to float64."""
        return self.to(_C.float64)

    def float(self):  # noqa: A003 - PyTorch's name
        """Casts floating parameters and buffers to float32."""
        return self.to(_C.float32)

    def half(self):
        """Casts floating parameters and buffers to float16."""
        return self.to(_C.float16)

    def bfloat16(self):
        """Casts floating parameters and buffers to bfloat16."""
        return self.to(_C.bfloat16)

    def cpu(self):
        """A no-op: gradtrack computes on the CPU only."""
        return self

    def to_empty(self, *, device, recurse=True):
        """Replaces every parameter and buffer by uninitialized memory of its shape
        and dtype on ``device`` (the CPU).

        >>> from gradtrack import nn
        >>> nn.Linear(3, 2).to_empty(device="cpu").weight.shape
        gradtrack.Size([2, 3])
        """
        from ... import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self: "_M") -> "_M":
        """Moves every parameter and buffer (and their gradients) to shared memory, with
        ``share_memory_()``; returns ``self``. Processes that receive the module (through
        ``gradtrack.multiprocessing``) then train the same memory: the Hogwild pattern.

        >>> from gradtrack import nn
        >>> net = nn.Linear(2, 2)
        >>> net.share_memory() is net, net.weight.is_shared()
        (True, True)
        """
        return self._apply(lambda t: t.share_memory_())

    # ---- printing --------------------------------------------------------------------------

    def extra_repr(self):
        """The text inside the parentheses of the repr; subclasses override it."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _zero_grad_in_place(grad):
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
