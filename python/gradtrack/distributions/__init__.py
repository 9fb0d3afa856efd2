"""Probability distributions with sampling, log densities, entropies and KL
divergences, as ``torch.distributions`` has them: the same names, the same
argument checks and messages, the same random draws after the same seed.

Loaded on first use (``gradtrack.distributions``; NOTE [Loaded on first use] in
``gradtrack/_lazy.py``), so its modules import ``gradtrack`` whole at their top.

>>> import gradtrack
>>> from gradtrack.distributions import Categorical
>>> _ = gradtrack.manual_seed(0)
>>> policy = Categorical(logits=gradtrack.tensor([0.0, 1.0, 2.0], requires_grad=True))
>>> action = policy.sample()
>>> loss = -policy.log_prob(action)
>>> action, loss
(tensor(2), tensor(0.4076, grad_fn=<NegBackward0>))
"""

from . import constraints  # noqa: F401 - torch.distributions.constraints (not in __all__)
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Independent",
           "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Uniform",
           "kl_divergence", "register_kl"]
