"""gradtrack: PyTorch's autograd semantics, in-place rules included, in a small
library with a C++ core.

>>> import gradtrack
>>> X = gradtrack.tensor([[5., 1., 9.], [6., 5., 7.]], requires_grad=True)
>>> (X ** 2).sum().backward()
>>> X.grad
tensor([[10.,  2., 18.],
        [12., 10., 14.]])
"""

__version__ = "0.1.0"

from . import _core

_C = _core.load()

# Every gradtrack.* name, and every Tensor method written in Python: NOTE [One registry].
from . import _registry  # noqa: E402

_registry.install(globals())

# The submodules a user reaches through gradtrack (gradtrack.linalg.inv, ...); nn, optim,
# the profiler, distributed and multiprocessing load on first use: NOTE [Loaded on first use].
from . import (  # noqa: E402
    __config__, accelerator, amp, autograd, backends, compiler, cuda, func, functional, jit,
    linalg, onnx, random, return_types, special, utils,
)
from ._lazy import SUBMODULES as _LAZY, submodule_hooks as _submodule_hooks  # noqa: E402

__getattr__, __dir__ = _submodule_hooks(__name__, _LAZY)
