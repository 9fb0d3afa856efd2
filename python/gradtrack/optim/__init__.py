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

# Learning-rate schedulers (training toolkit)
from . import lr_scheduler  # noqa: E402,F401 - torch.optim.lr_scheduler after `import torch`
