"""``MultivariateNormal``: the Gaussian distribution over vectors, given by its mean
and one of its covariance matrix, its precision matrix or the lower Cholesky factor
of its covariance (``torch.distributions.MultivariateNormal``).

Everything is computed from the Cholesky factor ``L`` (covariance ``L @ L.mT``): a
covariance or precision given is factored once, at construction.

>>> import gradtrack
>>> from gradtrack.distributions import MultivariateNormal
>>> d = MultivariateNormal(gradtrack.zeros(2), gradtrack.tensor([[2.0, 0.5], [0.5, 1.0]]))
>>> d.log_prob(gradtrack.tensor([1.0, -1.0]))
tensor(-3.2605)
"""

import math

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batches of matrices and vectors."""
    return gradtrack.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^-1 x`` for each vector of ``bx``, with one triangular solve
    for all of them: ``bx``'s batch, of which ``bL``'s is a broadcastable suffix, is
    split into the dims ``bL`` broadcasts over and the dims it has, so that each
    of ``bL``'s matrices solves against the columns of all the vectors it meets."""
    n = bx.size(-1)
    x_batch_shape = bx.shape[:-1]
    x_batch_dims = len(x_batch_shape)
    L_batch_dims = bL.dim() - 2
    outer_dims = x_batch_dims - L_batch_dims
    old_dims = outer_dims + L_batch_dims
    new_dims = outer_dims + 2 * L_batch_dims
    # each dim that L has becomes (repeats, L's size): the repeats are broadcasting
    split_shape = bx.shape[:outer_dims]
    for size_L, size_x in zip(bL.shape[:-2], bx.shape[outer_dims:-1]):
        split_shape += (size_x // size_L, size_L)
    split_shape += (n,)
    bx = bx.reshape(split_shape)
    # the repeats first, then L's dims, then the vector
    order = (list(range(outer_dims)) + list(range(outer_dims, new_dims, 2))
             + list(range(outer_dims + 1, new_dims, 2)) + [new_dims])
    bx = bx.permute(order)
    flat_L = bL.reshape(-1, n, n)
    flat_x = bx.reshape(-1, flat_L.size(0), n)
    columns = flat_x.permute(1, 2, 0)
    squared = gradtrack.linalg.solve_triangular(flat_L, columns, upper=False).pow(2).sum(-2)
    permuted = squared.t().reshape(bx.shape[:-1])
    # back to the interleaved order of the split shape
    inverse = list(range(outer_dims))
    for i in range(L_batch_dims):
        inverse += [outer_dims + i, old_dims + i]
    return permuted.permute(inverse).reshape(x_batch_shape)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P``'s inverse, without inverting ``P``: the
    Cholesky factor of ``P`` with rows and columns reversed gives, flipped back and
    transposed, a lower-triangular ``L^-1``, whose inverse is one triangular solve."""
    flipped_factor = gradtrack.linalg.cholesky(gradtrack.flip(P, (-2, -1)))
    L_inv = gradtrack.transpose(gradtrack.flip(flipped_factor, (-2, -1)), -2, -1)
    identity = gradtrack.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return gradtrack.linalg.solve_triangular(L_inv, identity, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal of mean ``loc`` (at least 1-dim) and exactly one of
    ``covariance_matrix``, ``precision_matrix`` (positive definite) or ``scale_tril``
    (lower triangular with a positive diagonal); their batch dims broadcast with
    ``loc``'s.

    >>> import gradtrack
    >>> from gradtrack.distributions import MultivariateNormal
    >>> _ = gradtrack.manual_seed(0)
    >>> MultivariateNormal(gradtrack.zeros(2), scale_tril=gradtrack.eye(2) * 2).sample()
    tensor([ 3.0820, -0.5869])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            name, matrix = "scale_tril", scale_tril
            message = "scale_tril matrix must be at least two-dimensional, "
        elif covariance_matrix is not None:
            name, matrix = "covariance_matrix", covariance_matrix
            message = "covariance_matrix must be at least two-dimensional, "
        else:
            name, matrix = "precision_matrix", precision_matrix
            message = "precision_matrix must be at least two-dimensional, "
        if matrix.dim() < 2:
            raise ValueError(message + "with optional leading batch dimensions")
        batch_shape = gradtrack.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        # factored after validation, so that a matrix that is not positive definite
        # gets the validation message rather than the factorization's
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = gradtrack.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``loc`` and the matrices it holds expanded to
        ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> MultivariateNormal(gradtrack.zeros(2), gradtrack.eye(2)).expand([3]).batch_shape
        gradtrack.Size([3])
        """
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        matrix_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance, expanded to the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> cov = gradtrack.tensor([[4.0, 2.0], [2.0, 2.0]])
        >>> MultivariateNormal(gradtrack.zeros(2), cov).scale_tril
        tensor([[2., 0.],
                [1., 1.]])
        """
        return self._unbroadcasted_scale_tril.expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        """``L @ L.mT``, expanded to the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> L = gradtrack.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> MultivariateNormal(gradtrack.zeros(2), scale_tril=L).covariance_matrix
        tensor([[4., 2.],
                [2., 2.]])
        """
        L = self._unbroadcasted_scale_tril
        return gradtrack.matmul(L, L.mT).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """The inverse of the covariance (from its Cholesky factor), expanded to
        the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> cov = gradtrack.tensor([[2.0, 1.0], [1.0, 2.0]])
        >>> MultivariateNormal(gradtrack.zeros(2), cov).precision_matrix
        tensor([[ 0.6667, -0.3333],
                [-0.3333,  0.6667]])
        """
        return gradtrack.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self):
        """``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> MultivariateNormal(gradtrack.ones(2), gradtrack.eye(2)).mean
        tensor([1., 1.])
        """
        return self.loc

    @property
    def mode(self):
        """``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> MultivariateNormal(gradtrack.ones(2), gradtrack.eye(2)).mode
        tensor([1., 1.])
        """
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance: the squared rows of ``L``, summed.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> cov = gradtrack.tensor([[4.0, 1.0], [1.0, 2.0]])
        >>> MultivariateNormal(gradtrack.zeros(2), cov).variance
        tensor([4.0000, 2.0000])
        """
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=gradtrack.Size()):
        """``loc + L @ eps`` with standard normal ``eps`` (one ``normal_`` over a new
        tensor, torch's draw): differentiable in ``loc`` and the matrix given.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> _ = gradtrack.manual_seed(0)
        >>> MultivariateNormal(gradtrack.zeros(2), gradtrack.eye(2)).rsample((2,))
        tensor([[ 1.5410, -0.2934],
                [-2.1788,  0.5684]])
        """
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """The log density at ``value`` (vectors in the last dim).

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> MultivariateNormal(gradtrack.zeros(2), gradtrack.eye(2)).log_prob(gradtrack.zeros(2))
        tensor(-1.8379)
        """
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) \
            - half_log_det

    def entropy(self):
        """``n / 2 * (1 + log(2 pi)) + log(det(L))`` for vectors of size ``n``.

        >>> import gradtrack
        >>> from gradtrack.distributions import MultivariateNormal
        >>> MultivariateNormal(gradtrack.zeros(2), gradtrack.eye(2)).entropy()
        tensor(2.8379)
        """
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return entropy
        return entropy.expand(self._batch_shape)
