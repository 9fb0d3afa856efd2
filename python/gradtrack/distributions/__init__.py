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
from . import transforms  # noqa: F401 - torch.distributions.transforms (not in __all__)
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,
                         IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, PowerTransform, SigmoidTransform,
                         SoftmaxTransform, StickBreakingTransform, TanhTransform, Transform,
                         identity_transform)
from .uniform import Uniform

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Binomial", "Categorical", "Cauchy",
           "ComposeTransform", "Distribution", "ExpTransform", "Exponential",
           "ExponentialFamily", "Geometric", "Gumbel", "HalfNormal", "Independent",
           "IndependentTransform", "Laplace", "LogNormal", "LowerCholeskyTransform",
           "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "PositiveDefiniteTransform",
           "PowerTransform", "SigmoidTransform", "SoftmaxTransform", "StickBreakingTransform",
           "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "biject_to",
           "identity_transform", "kl_divergence", "register_kl", "transform_to"]
