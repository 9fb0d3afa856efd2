"""Optimizers: :class:`Optimizer` (the base class), :class:`SGD`, :class:`ASGD`,
the adaptive ones (:class:`Adam`, :class:`AdamW`, :class:`RMSprop`,
:class:`Adagrad`, :class:`Adadelta`, :class:`Adafactor`, :class:`Adamax`,
:class:`NAdam`, :class:`RAdam`, :class:`Rprop`, :class:`SparseAdam`), :class:`Muon`
and :class:`LBFGS`.

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

from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from ._swap_in_state import swap_in_optimizer_params_and_state
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax",
           "AdamW", "LBFGS", "Muon", "NAdam", "RAdam", "RMSprop", "Rprop", "SparseAdam",
           "swap_in_optimizer_params_and_state"]


# optim.lr_scheduler is imported on first use, so `import gradtrack` does not load it.
def __getattr__(name):
    if name in ("lr_scheduler", "swa_utils"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
