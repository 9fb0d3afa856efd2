"""``Dirichlet``: a distribution over probability vectors, of concentration
``concentration`` (``torch.distributions.Dirichlet``).

Its draws are reparameterized through an autograd Function whose backward uses
``gradtrack._dirichlet_grad`` (torch's pathwise gradient).

>>> import gradtrack
>>> from gradtrack.distributions import Dirichlet
>>> Dirichlet(gradtrack.tensor([1.0, 2.0, 3.0])).mean
tensor([0.1667, 0.3333, 0.5000])
"""

import gradtrack
from gradtrack.autograd import Function
from gradtrack.autograd.function import once_differentiable

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):
    """The gradient reaching ``concentration`` from ``grad_output`` at the draw ``x``:
    the pathwise gradient of each coordinate, projected so that the draw stays on the
    simplex.

    >>> import gradtrack
    >>> from gradtrack.distributions.dirichlet import _Dirichlet_backward
    >>> x = gradtrack.tensor([0.25, 0.75])
    >>> _Dirichlet_backward(x, gradtrack.tensor([1.0, 1.0]), gradtrack.tensor([1.0, 0.0]))
    tensor([ 0.3466, -0.2158])
    """
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = gradtrack._dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    """A Dirichlet draw of ``concentration`` (the last dim the event), whose backward
    is ``_Dirichlet_backward`` (itself not differentiable again)."""

    @staticmethod
    def forward(ctx, concentration):
        x = gradtrack._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution of ``concentration`` (a tensor of at least one dim:
    its last dim is the event, the dims before it the batch).

    >>> import gradtrack
    >>> from gradtrack.distributions import Dirichlet
    >>> _ = gradtrack.manual_seed(0)
    >>> Dirichlet(gradtrack.tensor([0.5, 2.0, 10.0])).sample()
    tensor([7.3046e-05, 5.8442e-02, 9.4148e-01])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``concentration`` expanded to ``batch_shape`` (plus
        the event dim).

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.ones(3)).expand([2]).concentration.shape
        gradtrack.Size([2, 3])
        """
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        """A draw of the expanded ``concentration`` through ``_Dirichlet``, so that
        gradients reach ``concentration``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> _ = gradtrack.manual_seed(0)
        >>> Dirichlet(gradtrack.tensor([1.0, 1.0], requires_grad=True)).rsample()
        tensor([0.8638, 0.1362], grad_fn=<_DirichletBackward>)
        """
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        """``sum((alpha - 1) log(x)) + lgamma(sum(alpha)) - sum(lgamma(alpha))``,
        with ``0 * log(0)`` taken as 0.

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.tensor([1.0, 1.0, 1.0])).log_prob(gradtrack.tensor([0.2, 0.3, 0.5]))
        tensor(0.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        return (gradtrack.xlogy(self.concentration - 1.0, value).sum(-1)
                + gradtrack.lgamma(self.concentration.sum(-1))
                - gradtrack.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        """``concentration`` normalized to sum to 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.tensor([1.0, 3.0])).mean
        tensor([0.2500, 0.7500])
        """
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """``max(alpha - 1, 0)`` normalized; where every ``alpha < 1``, the one-hot
        vector of the first largest entry of that (NaN: the first).

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.tensor([[2.0, 3.0], [0.5, 0.5]])).mode
        tensor([[0.3333, 0.6667],
                [1.0000, 0.0000]])
        """
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = gradtrack.nn.functional.one_hot(
            mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        """``alpha_i (alpha_0 - alpha_i) / (alpha_0 ** 2 (alpha_0 + 1))``, where
        ``alpha_0`` is the sum of the concentration.

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.tensor([1.0, 1.0])).variance
        tensor([0.0833, 0.0833])
        """
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        """``log B(alpha) + (alpha_0 - k) digamma(alpha_0)
        - sum((alpha - 1) digamma(alpha))``, for ``k`` categories.

        >>> import gradtrack
        >>> from gradtrack.distributions import Dirichlet
        >>> Dirichlet(gradtrack.tensor([1.0, 1.0, 1.0])).entropy()
        tensor(-0.6931)
        """
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (gradtrack.lgamma(self.concentration).sum(-1) - gradtrack.lgamma(a0)
                - (k - a0) * gradtrack.digamma(a0)
                - ((self.concentration - 1.0) * gradtrack.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - gradtrack.lgamma(x.sum(-1))
