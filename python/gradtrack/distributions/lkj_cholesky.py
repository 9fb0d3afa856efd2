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
        conc = self.concentration
        # onion method: a row's squared off-diagonal norm is
        # Beta(i + 1/2, eta + (dim - 2 - i) / 2) for i = 0, 0, 1, ..., dim - 2 (row 0
        # has nothing off the diagonal and just borrows row 1's law)
        row_idx = gradtrack.arange(-1, dim - 1, dtype=conc.dtype, device=conc.device).clamp(min=0)
        eta_shifted = conc + 0.5 * (dim - 2)
        self._beta = Beta(row_idx + 0.5, eta_shifted.unsqueeze(-1) - 0.5 * row_idx)
        super().__init__(conc.size(), gradtrack.Size((dim, dim)), validate_args)

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
        sq_norm = self._beta.sample(sample_shape).unsqueeze(-1)
        gauss = gradtrack.randn(self._extended_shape(sample_shape), dtype=sq_norm.dtype,
                                device=sq_norm.device).tril(-1)
        unit = gauss / gauss.norm(dim=-1, keepdim=True)
        unit[..., 0, :].fill_(0.0)  # row 0 came out 0 / 0
        factor = gradtrack.sqrt(sq_norm) * unit
        # the diagonal entry tops each row up to unit length (kept above 0)
        rest = 1 - gradtrack.sum(factor ** 2, dim=-1)
        diagonal = rest.clamp(min=gradtrack.finfo(factor.dtype).tiny).sqrt()
        return factor + gradtrack.diag_embed(diagonal)

    def _log_normalizer(self):
        # Lewandowski et al. (2009), p. 1999; mvlgamma carries (d - 1)(d - 2) / 4 log(pi)
        # of their d (d - 1) / 4 log(pi), so (d - 1) / 2 log(pi) is added here
        k = self.dim - 1
        shape = self.concentration + 0.5 * k
        return (0.5 * k * math.log(math.pi) + gradtrack.mvlgamma(shape - 0.5, k)
                - gradtrack.lgamma(shape) * k)

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
        # density of L: prod_i L_ii ** (2 (eta - 1) + dim - i), det(LL^T)'s power
        # times the Jacobian of L -> LL^T; row 1's L_11 = 1 drops out
        rows = gradtrack.arange(2, self.dim + 1, device=self.concentration.device)
        powers = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        log_diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:].log()
        return gradtrack.sum(powers * log_diag, dim=-1) - self._log_normalizer()
