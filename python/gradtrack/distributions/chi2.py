"""``Chi2``: the sum of the squares of ``df`` independent standard normals, a gamma
distribution of shape ``df / 2`` and rate 1/2 (``torch.distributions.Chi2``).

>>> import gradtrack
>>> from gradtrack.distributions import Chi2
>>> Chi2(gradtrack.tensor([2.0, 4.0])).mean
tensor([2., 4.])
"""

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom (a number or a tensor):
    ``Gamma(0.5 * df, 0.5)``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Chi2
    >>> _ = gradtrack.manual_seed(0)
    >>> Chi2(gradtrack.tensor([1.0, 4.0])).sample()
    tensor([0.0016, 1.2631])
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``df`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Chi2
        >>> Chi2(3.0).expand([2]).df
        tensor([3., 3.])
        """
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        """The degrees of freedom: twice the concentration.

        >>> from gradtrack.distributions import Chi2
        >>> Chi2(3.0).df
        tensor(3.)
        """
        return self.concentration * 2
