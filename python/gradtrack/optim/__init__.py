"""Optimizers: :class:`Optimizer` (the base class) and :class:`SGD`.

>>> import gradtrack
>>> from gradtrack import nn, optim
>>> model = nn.Linear(3, 1)
>>> opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
>>> loss = model(gradtrack.ones(4, 3)).pow(2).mean()
>>> loss.backward()
>>> opt.step()
>>> model.weight._version
2
"""

from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD"]

# Learning-rate schedulers (training toolkit): optim.lr_scheduler is imported on
# first use, so `import gradtrack` does not compile it.


def __getattr__(name):
    if name == "lr_scheduler":
        import importlib
        return importlib.import_module(".lr_scheduler", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
