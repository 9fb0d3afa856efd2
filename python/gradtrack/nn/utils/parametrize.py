"""``nn.utils.parametrize``: a module's tensor computed from other tensors, as torch's.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (``original0``, ``original1``, ... when
``P.right_inverse`` returns several tensors), changes the module's class to a subclass
``Parametrized<Class>`` with a property ``weight`` that returns ``P(original)``, and
setting ``module.weight`` calls ``P.right_inverse``. A layer's ``forward`` reads
``self.weight`` (NOTE [Module attribute storage]), so it computes with the
parametrized tensor; ``cached()`` computes each one once inside its block.

>>> import gradtrack
>>> from gradtrack import nn
>>> from gradtrack.nn.utils import parametrize
>>> class Symmetric(nn.Module):
...     def forward(self, x):
...         return x.triu() + x.triu(1).transpose(-1, -2)
>>> layer = parametrize.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
>>> bool((layer.weight == layer.weight.T).all())
True
>>> list(layer.state_dict())
['bias', 'parametrizations.weight.original']
"""

from contextlib import contextmanager

from ... import _C
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Inside this block each parametrized tensor is computed once, on first use.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import parametrize
    >>> with parametrize.cached():
    ...     pass
    """
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_original(dest, src):
    """Writes ``src`` into the original tensor ``dest`` in place (torch's ``set_``: the
    tensor object, and so an optimizer's reference to it, stays the same)."""
    if tuple(dest.shape) != tuple(src.shape) or dest.dtype is not src.dtype:
        raise RuntimeError(f"gradtrack: cannot write a tensor of shape {list(src.shape)} and "
                           f"dtype {src.dtype} into the original tensor of shape "
                           f"{list(dest.shape)} and dtype {dest.dtype} (no Tensor.set_ yet)")
    with no_grad():
        dest.copy_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to its original tensor(s).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> class Double(nn.Module):
    ...     def forward(self, x):
    ...         return x * 2
    >>> plist = parametrize.ParametrizationList([Double()], nn.Parameter(gradtrack.ones(2)))
    >>> plist()
    tensor([2., 2.], grad_fn=<MulBackward0>)
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, _C.Tensor) and not isinstance(new, (list, tuple)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, _C.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new is not original:
                _set_original(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, _C.Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali.detach(), original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, _C.Tensor):
                raise ValueError("A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype is not original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 "tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def right_inverse(self, value):
        """Sets the original tensor(s) so that the parametrization gives ``value``."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, _C.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                _set_original(self.original, value)
            else:
                if not isinstance(value, (list, tuple)):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                     f"{type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    _set_original(getattr(self, f"original{i}"), tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` applied to the
    original tensor (kept as ``module.parametrizations.<tensor_name>.original``).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> class Positive(nn.Module):
    ...     def forward(self, x):
    ...         return x.abs()
    >>> layer = parametrize.register_parametrization(nn.Linear(2, 2), "bias", Positive())
    >>> type(layer).__name__
    'ParametrizedLinear'
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            if x.dtype is not y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {x.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` (or its tensor ``tensor_name``) has a parametrization.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> parametrize.is_parametrized(nn.Linear(2, 2))
    False
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Removes the parametrizations of ``module.<tensor_name>``: the tensor becomes a
    parameter again, holding its parametrized value (``leave_parametrized``) or the
    original.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> class Double(nn.Module):
    ...     def forward(self, x):
    ...         return x * 2
    >>> layer = parametrize.register_parametrization(nn.Linear(2, 2), "bias", Double())
    >>> type(parametrize.remove_parametrizations(layer, "bias")).__name__
    'Linear'
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _set_original(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> parametrize.type_before_parametrizations(nn.Linear(2, 2)).__name__
    'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers ``from_module``'s parametrizations (and their original tensors) on
    ``to_module``.

    >>> from gradtrack import nn
    >>> from gradtrack.nn.utils import parametrize
    >>> target = parametrize.transfer_parametrizations_and_params(nn.Linear(2, 2),
    ...                                                           nn.Linear(2, 2))
    >>> parametrize.is_parametrized(target)
    False
    """
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source = from_module.parametrizations[name]
        target = to_module.parametrizations[name]
        if source.is_tensor:
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module
