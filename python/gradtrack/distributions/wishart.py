"""``Wishart``: the distribution of ``X @ X.mT`` for ``df`` independent columns ``X``
drawn from a zero-mean multivariate normal, over symmetric positive definite
matrices (``torch.distributions.Wishart``).

It is given by its degrees of freedom ``df`` and one of the normal's covariance
matrix, its precision matrix or the lower Cholesky factor ``L`` of its covariance;
everything is computed from ``L``. Draws use the Bartlett decomposition: ``C @ C.mT``
for ``C = L @ A``, with ``A`` lower triangular, the square roots of chi-squared draws
on its diagonal and standard normal draws below it.

>>> import gradtrack
>>> from gradtrack.distributions import Wishart
>>> d = Wishart(gradtrack.tensor(4.0), covariance_matrix=gradtrack.eye(2))
>>> d.mean
tensor([[4., 0.],
        [0., 4.]])
>>> d.log_prob(gradtrack.eye(2) * 3)
tensor(-5.1256)
"""

import math
import warnings

import gradtrack

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import _NUMBER, lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma of order ``p``: the sum of ``digamma(x - i / 2)`` for
    ``i`` in ``0 .. p - 1``; defined only where ``x > (p - 1) / 2``."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = gradtrack.arange(p, dtype=x.dtype, device=x.device).div(2)
    return gradtrack.digamma(x.unsqueeze(-1) - halves.expand(x.shape + (-1,))).sum(-1)


def _at_least_eps(x):
    """``x`` (nonnegative) raised to at least its dtype's machine epsilon."""
    return x.clamp(min=gradtrack.finfo(x.dtype).eps)


def _chi2_of_bartlett(df, p, batch_shape, like):
    """The chi-squared distributions of the Bartlett factor's diagonal: ``df - i``
    degrees of freedom in its ``i``-th entry."""
    steps = gradtrack.arange(p, dtype=like.dtype, device=like.device)
    return Chi2(df=df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom (a number, or a tensor
    broadcasting with the matrices' batch) and exactly one of ``covariance_matrix``,
    ``precision_matrix`` (positive definite) or ``scale_tril`` (lower triangular with a
    positive diagonal), each at least 2-dim. ``df`` must exceed the matrices' size
    minus one; below their size, a warning says that singular draws are likely.

    >>> import gradtrack
    >>> from gradtrack.distributions import Wishart
    >>> _ = gradtrack.manual_seed(0)
    >>> d = Wishart(3.0, scale_tril=gradtrack.tensor([[1.0, 0.0], [0.5, 2.0]]))
    >>> d
    Wishart(scale_tril: gradtrack.Size([2, 2]), df: 3.0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     d.sample()
    tensor([[0.4285, 1.6047],
            [1.6047, 7.6898]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        """The matrices' constraints, and ``df`` greater than their size minus one.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(3.0, gradtrack.eye(2)).arg_constraints["df"]
        GreaterThan(lower_bound=1)
        """
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, _NUMBER):
            # a number stays 0-dim, whatever the matrices' batch
            batch_shape = gradtrack.Size(matrix.shape[:-2])
            self.df = gradtrack.tensor(df, dtype=matrix.dtype, device=matrix.device)
        else:
            batch_shape = gradtrack.broadcast_shapes(matrix.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = matrix.shape[-2:]
        size = event_shape[-1]
        if self.df.le(size - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than "
                             f"ndim - 1 = {size - 1}.")
        if scale_tril is not None:
            self.scale_tril = matrix.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = matrix.expand(batch_shape + (-1, -1))
        if self.df.lt(size).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(k + 1) for k in range(len(self._batch_shape))]
        # factored after validation: a matrix outside its constraint gets the
        # validation message rather than the factorization's
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = gradtrack.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = _chi2_of_bartlett(self.df, size, batch_shape,
                                            self._unbroadcasted_scale_tril)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``df`` and its matrices expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(3.0, gradtrack.eye(2)).expand([4]).df
        tensor([3., 3., 3., 3.])
        """
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        matrix_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(k + 1) for k in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        new._dist_chi2 = _chi2_of_bartlett(new.df, self.event_shape[-1], batch_shape,
                                           new._unbroadcasted_scale_tril)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance, expanded to the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(3.0, gradtrack.tensor([[4.0, 2.0], [2.0, 2.0]])).scale_tril
        tensor([[2., 0.],
                [1., 1.]])
        """
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        """``L @ L.mT``, expanded to the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> L = gradtrack.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> Wishart(3.0, scale_tril=L).covariance_matrix
        tensor([[4., 2.],
                [2., 2.]])
        """
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """The inverse of the covariance, solved from its Cholesky factor, expanded
        to the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(3.0, gradtrack.tensor([[2.0, 1.0], [1.0, 2.0]])).precision_matrix
        tensor([[ 0.6667, -0.3333],
                [-0.3333,  0.6667]])
        """
        L = self._unbroadcasted_scale_tril
        identity = gradtrack.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return gradtrack.cholesky_solve(identity, L).expand(
            self._batch_shape + self._event_shape)

    def _per_matrix(self, x):
        """``x``, one entry per batch entry, shaped to scale each matrix (a ``df``
        given as a number is 0-dim, and cannot be viewed so over a batch)."""
        return x.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        """``df`` times the covariance.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(gradtrack.tensor(3.0), gradtrack.tensor([[2.0, 0.5], [0.5, 1.0]])).mean
        tensor([[6.0000, 1.5000],
                [1.5000, 3.0000]])
        """
        return self._per_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        """``df - p - 1`` times the covariance for ``p`` x ``p`` matrices; NaN where
        ``df <= p + 1``, where the density has no maximum.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(gradtrack.tensor([2.5, 5.0]), gradtrack.eye(2)).mode
        tensor([[[nan, nan],
                 [nan, nan]],
        <BLANKLINE>
                [[2., 0.],
                 [0., 2.]]])
        """
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return self._per_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        """The variance of each entry: ``df * (V_ij ** 2 + V_ii * V_jj)`` for the
        covariance ``V``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(gradtrack.tensor(3.0), gradtrack.eye(2)).variance
        tensor([[6., 3.],
                [3., 6.]])
        """
        V = self.covariance_matrix
        diagonal = V.diagonal(dim1=-2, dim2=-1)
        outer = gradtrack.einsum("...i,...j->...ij", diagonal, diagonal)
        return self._per_matrix(self.df) * (V.pow(2) + outer)

    def _bartlett_sampling(self, sample_shape=gradtrack.Size()):
        """``C @ C.mT`` for ``C = L @ A``: ``A``'s diagonal holds the square roots of
        the chi-squared draws (at least eps), its lower triangle standard normal draws
        (after the chi-squared ones, in row order), its upper triangle zeros."""
        p = self._event_shape[-1]
        roots = _at_least_eps(self._dist_chi2.rsample(sample_shape).sqrt())
        factor = roots.diag_embed(dim1=-2, dim2=-1)
        rows, cols = gradtrack.tril_indices(p, p, offset=-1)
        below = gradtrack.Size(sample_shape) + self._batch_shape + (int(p * (p - 1) / 2),)
        factor[..., rows, cols] = gradtrack.randn(below, dtype=factor.dtype,
                                                  device=factor.device)
        chol = self._unbroadcasted_scale_tril @ factor
        return chol @ chol.transpose(-2, -1)

    def _flags(self, sample):
        """The support's answer for each draw of ``sample``, over the batch: True
        where any of the draw's batch entries is in the support."""
        flags = self.support.check(sample)
        if self._batch_shape:
            flags = flags.amax(self._batch_dims)
        return flags

    def rsample(self, sample_shape=gradtrack.Size(), max_try_correction=None):
        """A Bartlett draw, differentiable in ``df`` and the matrix given, then up to
        ``max_try_correction`` (default 10) rounds of redraws, as torch makes them.

        As in torch, the first round's mask is the support's answer itself, so a
        draw in the support is redrawn (with a "Singular sample detected." warning)
        and the rounds go on while the redraws are outside it; the draws are then
        written in place into the first draw (``CopySlices`` for a single draw,
        ``IndexPutBackward0`` over a sample shape). A draw may still be singular,
        with a ``log_prob`` of ``-inf``.

        >>> import warnings
        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> df = gradtrack.tensor(3.0, requires_grad=True)
        >>> _ = gradtrack.manual_seed(0)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     x = Wishart(df, gradtrack.eye(2)).rsample()
        >>> x
        tensor([[0.4285, 0.6953],
                [0.6953, 1.5480]], grad_fn=<CopySlices>)
        >>> x.trace().backward()
        >>> df.grad
        tensor(0.8309)
        """
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = gradtrack.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        redraw = self._flags(sample)
        if redraw.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(redraw[redraw].shape)
                sample[redraw] = fresh
                still = ~self.support.check(fresh)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                redraw[redraw.clone()] = still
                if not redraw.any():
                    break
        return sample

    def _log_det_scale(self):
        """``log(det(L))``, one per matrix."""
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        """The log density at the matrices ``value``:
        ``(df - p - 1) / 2 * log|det(X)| - tr(V^-1 X) / 2 - df / 2 * log(det(2 V))
        - mvlgamma(df / 2, p)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(3.0, gradtrack.eye(2)).log_prob(gradtrack.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor(-4.5310)
        """
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det = gradtrack.linalg.slogdet(value).logabsdet
        trace = gradtrack.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + self._log_det_scale())
                - gradtrack.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * log_det
                - trace / 2)

    def entropy(self):
        """``(p + 1) / 2 * log(det(2 V)) + mvlgamma(df / 2, p)
        - (df - p - 1) / 2 * mvdigamma(df / 2, p) + df * p / 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Wishart
        >>> Wishart(gradtrack.tensor(3.0), gradtrack.eye(2)).entropy()
        tensor(5.5310)
        """
        nu = self.df
        p = self._event_shape[-1]
        return ((p + 1) * (p * _LOG_2 / 2 + self._log_det_scale())
                + gradtrack.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
                + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        shifted = y + (p + 1) / 2
        log_det = gradtrack.linalg.slogdet(-2 * x).logabsdet
        return shifted * (-log_det + _LOG_2 * p) + gradtrack.mvlgamma(shifted, p=p)
