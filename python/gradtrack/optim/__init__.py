"""Optimizers: :class:`Optimizer` (the base class), :class:`SGD` and the adaptive
ones (:class:`Adam`, :class:`AdamW`, :class:`RMSprop`, :class:`Adagrad`,
:class:`Adamax`, :class:`NAdam`, :class:`RAdam`).

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

from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adagrad", "Adam", "Adamax", "AdamW", "NAdam", "RAdam", "RMSprop"]


# optim.lr_scheduler is imported on first use, so `import gradtrack` does not load it.
def __getattr__(name):
    if name == "lr_scheduler":
        import importlib
        return importlib.import_module(".lr_scheduler", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
