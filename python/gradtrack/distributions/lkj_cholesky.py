"""``LKJCholesky``: the LKJ distribution over lower Cholesky factors ``L`` of
correlation matrices, under which ``L @ L.T`` has a density proportional to
``det(L @ L.T) ** (concentration - 1)`` (``torch.distributions.LKJCholesky``).

Draws follow the onion method of Lewandowski, Kurowicka and Joe (2009): each row's
squared off-diagonal norm is a Beta draw, its direction a normalized normal draw.

>>> import gradtrack
>>> from gradtrack.distributions import LKJCholesky
>>> LKJCholesky(2, 1.0).log_prob(gradtrack.eye(2))
tensor(-0.6931)
"""

import math

import gradtrack

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of Cholesky factors of ``dim`` x ``dim`` correlation
    matrices, of shape ``concentration`` (eta; a number or a tensor). At
    ``concentration == 1`` the correlation matrices are uniform.

    >>> import gradtrack
    >>> from gradtrack.distributions import LKJCholesky
    >>> _ = gradtrack.manual_seed(0)
    >>> LKJCholesky(3, 0.5).sample()
    tensor([[ 1.0000,  0.0000,  0.0000],
            [ 0.2073,  0.9783,  0.0000],
            [-0.3881, -0.7827,  0.4865]])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = gradtrack.Size((dim, dim))
        # row i (from 0) of a factor: its squared off-diagonal norm is
        # Beta(i / 2, marginal - i / 2), with row 0 given the same as row 1
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = gradtrack.arange(self.dim - 1, dtype=self.concentration.dtype,
                                  device=self.concentration.device)
        offset = gradtrack.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``concentration`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import LKJCholesky
        >>> LKJCholesky(3, 2.0).expand([2]).concentration
        tensor([2., 2.])
        """
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=gradtrack.Size()):
        """A factor per entry: the Beta draws of the rows' squared norms, then
        standard normal draws below the diagonal for their directions; the diagonal
        makes each row a unit vector.

        >>> import gradtrack
        >>> from gradtrack.distributions import LKJCholesky
        >>> _ = gradtrack.manual_seed(0)
        >>> x = LKJCholesky(4, 2.0).sample((2,))
        >>> x.shape, x[0, 1]
        (gradtrack.Size([2, 4, 4]), tensor([-0.1289,  0.9917,  0.0000,  0.0000]))
        """
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = gradtrack.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                                   device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # the first row is all zeros below the diagonal (0 / 0 above)
        u_hypersphere[..., 0, :].fill_(0.0)
        w = gradtrack.sqrt(y) * u_hypersphere
        eps = gradtrack.finfo(w.dtype).tiny
        diag_elems = gradtrack.clamp(1 - gradtrack.sum(w ** 2, dim=-1), min=eps).sqrt()
        w += gradtrack.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        """``sum_i (2 (eta - 1) + dim - i) log(L_ii)`` over rows ``i = 2..dim``, less
        the log of the normalizing constant.

        >>> import gradtrack
        >>> from gradtrack.distributions import LKJCholesky
        >>> LKJCholesky(3, 2.0).log_prob(gradtrack.eye(3))
        tensor(-0.6155)
        """
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = gradtrack.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = gradtrack.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = gradtrack.lgamma(alpha) * dm1
        numerator = gradtrack.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
