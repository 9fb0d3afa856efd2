"""``LowRankMultivariateNormal``: the Gaussian over vectors whose covariance is a
low-rank matrix plus a diagonal, ``cov_factor @ cov_factor.mT + diag(cov_diag)``
(``torch.distributions.LowRankMultivariateNormal``).

With ``W`` of shape ``n x m`` and ``m`` small, densities never factor the ``n x n``
covariance: the Woodbury identity and the matrix determinant lemma reduce them to
the ``m x m`` "capacitance" matrix ``I + W.mT @ diag(1 / D) @ W``.

>>> import gradtrack
>>> from gradtrack.distributions import LowRankMultivariateNormal
>>> d = LowRankMultivariateNormal(gradtrack.zeros(2), gradtrack.tensor([[1.0], [0.5]]), gradtrack.ones(2))
>>> d.covariance_matrix, d.log_prob(gradtrack.tensor([1.0, -1.0]))
(tensor([[2.0000, 0.5000],
        [0.5000, 1.2500]]), tensor(-3.1878))
"""

import math

import gradtrack

from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _add_identity(K):
    """``K`` (square matrices, contiguous) with 1 added in place to each diagonal."""
    n = K.size(-1)
    K.view(-1, n * n)[:, ::n + 1] += 1
    return K


def _batch_capacitance_tril(W, D):
    """The lower Cholesky factor of ``I + W.mT @ diag(1 / D) @ W``."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return gradtrack.linalg.cholesky(_add_identity(gradtrack.matmul(Wt_Dinv, W).contiguous()))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """``log det(W @ W.mT + diag(D))``, by the matrix determinant lemma: the log
    determinant of the capacitance plus that of ``diag(D)``."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x.mT @ inv(W @ W.mT + diag(D)) @ x``, by the Woodbury identity: the
    diagonal part's term less the capacitance's term of ``W.mT @ diag(1 / D) @ x``."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    diagonal_term = (x.pow(2) / D).sum(-1)
    return diagonal_term - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


def _lowrank_event_shape(loc, cov_factor, cov_diag):
    """The event shape ``(n,)`` from ``loc``, after checking that ``cov_factor`` is
    (a batch of) ``n x m`` and ``cov_diag`` (a batch of) ``n``-vectors."""
    if loc.dim() < 1:
        raise ValueError("loc must be at least one-dimensional.")
    event_shape = loc.shape[-1:]
    if cov_factor.dim() < 2:
        raise ValueError("cov_factor must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    if cov_factor.shape[-2:-1] != event_shape:
        raise ValueError(
            f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
    if cov_diag.shape[-1:] != event_shape:
        raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
    return event_shape


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal of mean ``loc`` (at least 1-dim, ``batch + (n,)``)
    and covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``, with
    ``cov_factor`` of shape ``batch + (n, m)`` and ``cov_diag`` (positive) of shape
    ``batch + (n,)``; the three batches broadcast.

    >>> import gradtrack
    >>> from gradtrack.distributions import LowRankMultivariateNormal
    >>> _ = gradtrack.manual_seed(0)
    >>> LowRankMultivariateNormal(gradtrack.zeros(2), gradtrack.ones(2, 1), gradtrack.ones(2)).sample()
    tensor([ 1.2476, -0.6378])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        event_shape = _lowrank_event_shape(loc, cov_factor, cov_diag)
        # a trailing 1 on loc and the diagonal lines them up with the n x m factor,
        # so one broadcast settles the batch dims of all three
        try:
            loc_col, self.cov_factor, diag_col = gradtrack.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_col[..., 0]
        self.cov_diag = diag_col[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape`` (the
        unbroadcast ones and the capacitance factor are shared).

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> d = LowRankMultivariateNormal(gradtrack.zeros(2), gradtrack.ones(2, 1), gradtrack.ones(2))
        >>> d.expand([3]).cov_factor.shape
        gradtrack.Size([3, 2, 1])
        """
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                       validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> LowRankMultivariateNormal(gradtrack.ones(2), gradtrack.ones(2, 1), gradtrack.ones(2)).mean
        tensor([1., 1.])
        """
        return self.loc

    @property
    def mode(self):
        """``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> LowRankMultivariateNormal(gradtrack.ones(2), gradtrack.ones(2, 1), gradtrack.ones(2)).mode
        tensor([1., 1.])
        """
        return self.loc

    @lazy_property
    def variance(self):
        """The covariance's diagonal: the squared rows of ``cov_factor``, summed,
        plus ``cov_diag``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> W = gradtrack.tensor([[1.0], [2.0]])
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), W, gradtrack.ones(2)).variance
        tensor([2., 5.])
        """
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        """The covariance's lower Cholesky factor, ``sqrt(D) * cholesky(I + V @ V.mT)``
        with ``V = W / sqrt(D)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> W = gradtrack.tensor([[1.0], [0.0]])
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), W, gradtrack.ones(2)).scale_tril
        tensor([[1.4142, 0.0000],
                [0.0000, 1.0000]])
        """
        sqrt_D = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        V = self._unbroadcasted_cov_factor / sqrt_D
        K = _add_identity(gradtrack.matmul(V, V.mT).contiguous())
        scale_tril = sqrt_D * gradtrack.linalg.cholesky(K)
        return scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        """``cov_factor @ cov_factor.mT + diag(cov_diag)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> W = gradtrack.tensor([[1.0], [1.0]])
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), W, gradtrack.ones(2)).covariance_matrix
        tensor([[2., 1.],
                [1., 2.]])
        """
        W = self._unbroadcasted_cov_factor
        covariance_matrix = (gradtrack.matmul(W, W.mT)
                             + gradtrack.diag_embed(self._unbroadcasted_cov_diag))
        return covariance_matrix.expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance by the Woodbury identity:
        ``diag(1 / D) - A.mT @ A`` with ``A`` the capacitance factor solved against
        ``W.mT @ diag(1 / D)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> W = gradtrack.tensor([[1.0], [1.0]])
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), W, gradtrack.ones(2)).precision_matrix
        tensor([[ 0.6667, -0.3333],
                [-0.3333,  0.6667]])
        """
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        # inv(W W^T + D) = inv(D) - inv(D) W inv(C) W^T inv(D), with C = L L^T the
        # capacitance; the subtracted term is H^T H for H = inv(L) W^T inv(D)
        h = gradtrack.linalg.solve_triangular(self._capacitance_tril, W.mT / D.unsqueeze(-2),
                                              upper=False)
        full = self._batch_shape + self._event_shape + self._event_shape
        return (gradtrack.diag_embed(D.reciprocal()) - h.mT @ h).expand(full)

    def rsample(self, sample_shape=gradtrack.Size()):
        """``loc + W @ eps_W + sqrt(D) * eps_D``: ``eps_W`` (of size ``m``) then
        ``eps_D`` (of size ``n``), each from one ``normal_`` over a new tensor.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> _ = gradtrack.manual_seed(0)
        >>> W = gradtrack.zeros(2, 1)
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), W, gradtrack.ones(2)).rsample()
        tensor([-0.2934, -2.1788])
        """
        out_shape = self._extended_shape(sample_shape)
        opts = {"dtype": self.loc.dtype, "device": self.loc.device}
        # the factor's m-dim noise is drawn before the diagonal's n-dim noise
        z_low = _standard_normal(out_shape[:-1] + self.cov_factor.shape[-1:], **opts)
        z_diag = _standard_normal(out_shape, **opts)
        low_rank_part = _batch_mv(self._unbroadcasted_cov_factor, z_low)
        return self.loc + low_rank_part + self._unbroadcasted_cov_diag.sqrt() * z_diag

    def log_prob(self, value):
        """The log density at ``value`` (vectors in the last dim).

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> d = LowRankMultivariateNormal(gradtrack.zeros(2), gradtrack.zeros(2, 1), gradtrack.ones(2))
        >>> d.log_prob(gradtrack.zeros(2))
        tensor(-1.8379)
        """
        if self._validate_args:
            self._validate_sample(value)
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        M = _batch_lowrank_mahalanobis(W, D, value - self.loc, self._capacitance_tril)
        log_det = _batch_lowrank_logdet(W, D, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        """``(n (1 + log(2 pi)) + log det(covariance)) / 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import LowRankMultivariateNormal
        >>> LowRankMultivariateNormal(gradtrack.zeros(2), gradtrack.zeros(2, 1), gradtrack.ones(2)).entropy()
        tensor(2.8379)
        """
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        entropy = 0.5 * (n * (1.0 + math.log(2 * math.pi))
                         + _batch_lowrank_logdet(W, D, self._capacitance_tril))
        return entropy.expand(self._batch_shape) if self._batch_shape else entropy
