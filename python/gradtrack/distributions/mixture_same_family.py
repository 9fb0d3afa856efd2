"""``MixtureSameFamily``: a mixture of ``k`` components of one family, chosen by a
``Categorical`` (``torch.distributions.MixtureSameFamily``).

The component distribution's rightmost batch dim (of size ``k``) runs over the
components; a draw picks a component with the categorical, then draws from it.

>>> import gradtrack
>>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
>>> mix = Categorical(gradtrack.tensor([0.3, 0.7]))
>>> gmm = MixtureSameFamily(mix, Normal(gradtrack.tensor([-1.0, 2.0]), gradtrack.tensor([0.5, 1.0])))
>>> gmm.log_prob(gradtrack.tensor([0.0, 2.0])), gmm.mean
(tensor([-2.6566, -1.2756]), tensor(1.1000))
"""

import gradtrack

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """The mixture of ``component_distribution`` (whose last batch dim, ``k``,
    indexes the components) weighted by ``mixture_distribution``, a ``Categorical``
    over ``k`` categories whose batch shape broadcasts with the components' batch
    without that dim.

    >>> import gradtrack
    >>> from gradtrack.distributions import Categorical, Independent, MixtureSameFamily, Normal
    >>> comp = Independent(Normal(gradtrack.zeros(3, 4, 2), 1.0), 1)
    >>> d = MixtureSameFamily(Categorical(gradtrack.ones(3, 4)), comp)
    >>> d.batch_shape, d.event_shape
    (gradtrack.Size([3]), gradtrack.Size([2]))
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an "
                             " instance of gradtrack.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an "
                             "instance of gradtrack.distributions.Distribution")
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for m, c in zip(reversed(mixture_batch), reversed(component_batch)):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 "compatible with `component_distribution."
                                 f"batch_shape`({component_batch})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km is not None and kc is not None and km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=component_batch, event_shape=event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This mixture with the categorical expanded to ``batch_shape`` and the
        components to ``batch_shape + (k,)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> d = MixtureSameFamily(Categorical(gradtrack.ones(2)), Normal(gradtrack.zeros(2), 1.0))
        >>> d.expand([3]).component_distribution.batch_shape
        gradtrack.Size([3, 2])
        """
        batch_shape = gradtrack.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(
            batch_shape=batch_shape, event_shape=new._component_distribution.event_shape,
            validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        """The components' support, checked against every component.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, Exponential, MixtureSameFamily
        >>> d = MixtureSameFamily(Categorical(gradtrack.ones(2)), Exponential(gradtrack.ones(2)))
        >>> d.support
        MixtureSameFamilyConstraint(GreaterThanEq(lower_bound=0.0))
        """
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The ``Categorical`` that picks the component.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> d = MixtureSameFamily(Categorical(gradtrack.ones(2)), Normal(gradtrack.zeros(2), 1.0))
        >>> d.mixture_distribution
        Categorical(probs: gradtrack.Size([2]), logits: gradtrack.Size([2]))
        """
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The components, indexed by the last batch dim.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> d = MixtureSameFamily(Categorical(gradtrack.ones(2)), Normal(gradtrack.zeros(2), 1.0))
        >>> d.component_distribution
        Normal(loc: gradtrack.Size([2]), scale: gradtrack.Size([2]))
        """
        return self._component_distribution

    @property
    def mean(self):
        """The components' means weighted by the mixture probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(gradtrack.tensor([0.25, 0.75]))
        >>> MixtureSameFamily(mix, Normal(gradtrack.tensor([0.0, 4.0]), 1.0)).mean
        tensor(3.)
        """
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return gradtrack.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        """The law of total variance: the weighted mean of the components'
        variances plus the weighted variance of their means.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(gradtrack.tensor([0.5, 0.5]))
        >>> MixtureSameFamily(mix, Normal(gradtrack.tensor([-1.0, 1.0]), 1.0)).variance
        tensor(2.)
        """
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = gradtrack.sum(probs * self.component_distribution.variance, dim=dim)
        spread = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        var_cond_mean = gradtrack.sum(probs * spread, dim=dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        """The components' cdfs at ``x`` weighted by the mixture probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(gradtrack.tensor([0.5, 0.5]))
        >>> MixtureSameFamily(mix, Normal(gradtrack.tensor([-1.0, 1.0]), 1.0)).cdf(gradtrack.tensor(0.0))
        tensor(0.5000)
        """
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return gradtrack.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        """``logsumexp`` over the components of their log densities at ``x`` plus
        the log mixture probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(gradtrack.tensor([0.5, 0.5]))
        >>> MixtureSameFamily(mix, Normal(gradtrack.tensor([-1.0, 1.0]), 1.0)).log_prob(gradtrack.tensor(1.0))
        tensor(-1.4852)
        """
        if self._validate_args:
            self._validate_sample(x)
        per_component = self.component_distribution.log_prob(self._pad(x))
        log_weights = gradtrack.log_softmax(self.mixture_distribution.logits, dim=-1)
        return gradtrack.logsumexp(per_component + log_weights, dim=-1)

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: the categorical's draw first, then a draw of every
        component, of which the chosen one is kept.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical, MixtureSameFamily, Normal
        >>> _ = gradtrack.manual_seed(0)
        >>> mix = Categorical(gradtrack.tensor([0.5, 0.5]))
        >>> MixtureSameFamily(mix, Normal(gradtrack.tensor([-10.0, 10.0]), 1.0)).sample((3,))
        tensor([  9.3126,   9.3935, -10.7831])
        """
        with gradtrack.no_grad():
            chosen = self.mixture_distribution.sample(sample_shape)
            every = self.component_distribution.sample(sample_shape)
            # the components' dim of `every` follows the sample and batch dims; the
            # chosen index is laid out like `every`, 1 long in that dim
            comp_dim = len(sample_shape) + len(self.batch_shape)
            event = tuple(self.event_shape)
            index = chosen.reshape(tuple(chosen.shape) + (1,) * (len(event) + 1))
            index = index.repeat((1,) * (chosen.dim() + 1) + event)
            return every.gather(comp_dim, index).squeeze(comp_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        # the mixture probabilities lined up against the components: a dim of 1 for
        # each batch dim the categorical lacks and for each event dim
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else len(self.batch_shape) - cat_batch_ndims
        xs = x.shape
        return x.reshape(xs[:-1] + gradtrack.Size(pad_ndims * [1]) + xs[-1:]
                         + gradtrack.Size(self._event_ndims * [1]))

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},"
                f"\n  {self.component_distribution})")
