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

# The submodules a user reaches through gradtrack (gradtrack.nn.Linear, ...).
from . import (  # noqa: E402
    __config__, accelerator, amp, autograd, backends, compiler, cuda, distributed, func, functional,
    jit, linalg, nn, onnx, optim, profiler, random, return_types, special, utils,
)


def __getattr__(name):
    # gradtrack.multiprocessing loads on first use: importing the standard library's
    # multiprocessing is a cost `import gradtrack` does not pay.
    if name == "multiprocessing":
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
