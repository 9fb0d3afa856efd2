"""``ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))`` (``torch.distributions.ExponentialFamily``).

A family names its natural parameters ``theta`` (``_natural_params``), its log
normalizer ``F`` (``_log_normalizer``) and the mean of its carrier measure ``k``
(``_mean_carrier_measure``); then its entropy, and the KL divergence between two
members of the same family, follow from the gradient of ``F`` (a Bregman divergence).

>>> from gradtrack.distributions import ExponentialFamily, Normal
>>> issubclass(Normal, ExponentialFamily)
True
"""

import gradtrack

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base class of the exponential families (Normal, Bernoulli).

    >>> from gradtrack.distributions import Bernoulli, ExponentialFamily
    >>> isinstance(Bernoulli(0.3), ExponentialFamily)
    True
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy, from the log normalizer and its gradient at the natural
        parameters: ``F(theta) - <theta, grad F(theta)> - E[k(x)]``.

        >>> import gradtrack
        >>> from gradtrack.distributions import ExponentialFamily, Normal
        >>> ExponentialFamily.entropy(Normal(0.0, 1.0))
        tensor(1.4189, grad_fn=<SubBackward0>)
        """
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        grads = gradtrack.autograd.grad(log_normalizer.sum(), params, create_graph=True)
        result += log_normalizer
        for param, grad in zip(params, grads):
            result -= (param * grad).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
