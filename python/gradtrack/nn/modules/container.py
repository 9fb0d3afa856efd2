"""Containers: ``nn.Sequential`` and ``nn.ModuleList``."""

import operator
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

    def __init__(self, *args):
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
