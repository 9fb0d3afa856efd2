"""Containers: ``nn.Sequential``, ``nn.ModuleList``, ``nn.ModuleDict``, ``nn.ParameterList``,
``nn.ParameterDict``."""

import operator
from typing import Any
import warnings
from collections import OrderedDict
from itertools import islice

from .module import Module, _addindent


def _item_by_index(items, size, idx):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return next(islice(items, idx % size, None))


class Sequential(Module):
    """Chains modules: the output of each is the input of the next.

    Built from modules (named ``"0"``, ``"1"``, ...) or from one ``OrderedDict``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    >>> model
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> len(model), type(model[-1]).__name__, model(gradtrack.ones(4, 2)).shape
    (2, 'ReLU', gradtrack.Size([4, 3]))
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return _item_by_index(iter(self._modules.values()), len(self._modules), idx)

    def __setitem__(self, idx, module):
        key = _item_by_index(iter(self._modules.keys()), len(self._modules), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            key = _item_by_index(iter(self._modules.keys()), len(self._modules), idx)
            delattr(self, key)
        # Keep the names 0..n-1, as PyTorch does.
        self.__dict__["_modules"] = dict(
            (str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{str(type(other))} is given.")
        result = Sequential()
        for module in list(self) + list(other):
            result.append(module)
        return result

    def append(self, module):
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        """Appends every module of ``sequential``; returns ``self``."""
        for module in sequential:
            self.append(module)
        return self

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleList(Module):
    """A list of submodules, registered so their parameters are found.

    >>> from gradtrack import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    >>> len(layers), len(list(layers.parameters()))
    (3, 6)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return _item_by_index(iter(self._modules.values()), len(self._modules), idx)

    def __setitem__(self, idx, module):
        key = _item_by_index(iter(self._modules.keys()), len(self._modules), idx)
        setattr(self, key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Appends every module of the iterable ``modules``; returns ``self``."""
        for module in modules:
            self.append(module)
        return self

    def __repr__(self):
        # Runs of identical children print once, as "(0-2): 3 x Linear(...)".
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for first, last, text in runs:
            if first == last:
                line = f"({first}): {text}"
            else:
                line = f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


# ---- nn layers: ModuleDict, ParameterList, ParameterDict ------------------------------------

class ModuleDict(Module):
    """An ordered dict of submodules, registered so their parameters are found.

    >>> from gradtrack import nn
    >>> layers = nn.ModuleDict({"lin": nn.Linear(2, 2), "act": nn.ReLU()})
    >>> list(layers), list(layers.state_dict())
    (['lin', 'act'], ['lin.weight', 'lin.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Removes every module."""
        self._modules.clear()

    def pop(self, key):
        """Removes the module ``key`` and returns it."""
        module = self[key]
        del self[key]
        return module

    def keys(self):
        """The names, in order."""
        return self._modules.keys()

    def items(self):
        """``(name, module)`` pairs, in order."""
        return self._modules.items()

    def values(self):
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules):
        """Adds (or replaces) the modules of a mapping or an iterable of pairs."""
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self[key] = module


def _as_parameter(value):
    from ... import _C
    from ..parameter import Parameter
    if isinstance(value, _C.Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _parameter_line(key, p, dtype_text):
    size = "x".join(str(s) for s in p.size())
    kind = "Parameter" if type(p).__name__ == "Parameter" else "Tensor"
    return f"  ({key}): {kind} containing: [{dtype_text(p)} of size {size}]"


class ParameterList(Module):
    """A list of parameters (tensors become ``Parameter``), named ``"0"``, ``"1"``, ...

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> params = nn.ParameterList([gradtrack.zeros(2), gradtrack.ones(3)])
    >>> len(params), [p.shape for p in params]
    (2, [gradtrack.Size([2]), gradtrack.Size([3])])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _key(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._key(idx))

    def __setitem__(self, idx, param):
        key = self._key(idx)
        setattr(self, key, _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        """Adds ``value`` at the end; returns ``self``."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Appends every value of ``values``; returns ``self``."""
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_parameter_line(i, p, lambda t: str(t.dtype))
                         for i, p in enumerate(self))


_TENSOR_TYPE = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
                "int32": "IntTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


class ParameterDict(Module):
    """An ordered dict of parameters (tensors become ``Parameter``).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> params = nn.ParameterDict({"scale": gradtrack.ones(2)})
    >>> list(params.state_dict())
    ['scale']
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        """The names, in order."""
        return self._keys.keys()

    def items(self):
        """``(name, parameter)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The parameters, in order."""
        return (self[k] for k in self._keys)

    def pop(self, key):
        """Removes the parameter ``key`` and returns it."""
        value = self[key]
        del self[key]
        return value

    def clear(self):
        """Removes every parameter."""
        for key in list(self._keys):
            del self[key]

    def update(self, parameters):
        """Adds (or replaces) the parameters of a mapping or an iterable of pairs."""
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(
            _parameter_line(k, p, lambda t: "gradtrack." + _TENSOR_TYPE.get(
                str(t.dtype).split(".")[-1], "Tensor")) for k, p in self.items())


class Container(Module):
    """Deprecated: a :class:`Module` holding the keyword arguments as its children (it
    warns when built; subclass ``Module`` instead).

    >>> import warnings
    >>> from gradtrack import nn
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     box = nn.Container(fc=nn.Linear(2, 2))
    >>> [name for name, _ in box.named_children()]
    ['fc']
    """

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
