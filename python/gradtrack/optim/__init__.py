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

from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD"]

# the adaptive optimizers
from .adagrad import Adagrad  # noqa: E402
from .adam import Adam  # noqa: E402
from .adamax import Adamax  # noqa: E402
from .adamw import AdamW  # noqa: E402
from .nadam import NAdam  # noqa: E402
from .radam import RAdam  # noqa: E402
from .rmsprop import RMSprop  # noqa: E402

__all__ += ["Adagrad", "Adam", "Adamax", "AdamW", "NAdam", "RAdam", "RMSprop"]
