"""Transforms: invertible maps with the log of the absolute determinant of their
Jacobian, which carry densities from one space to another
(``torch.distributions.transforms``). This module holds the elementwise ones (with
``CumulativeDistributionTransform``, a distribution's cdf), those to the simplex
(``SoftmaxTransform``, ``StickBreakingTransform``) and to lower-Cholesky and
positive-definite matrices, and gathers the base class and the combinators of
``gradtrack.distributions.transform``, the transforms that rearrange their input of
``structural_transforms`` and ``CorrCholeskyTransform``.

>>> import gradtrack
>>> from gradtrack.distributions.transforms import AffineTransform, ExpTransform
>>> t = ExpTransform()
>>> x = gradtrack.tensor([0.0, 1.0])
>>> t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x))
(tensor([1.0000, 2.7183]), tensor([0.0000, 1.0000]), tensor([0., 1.]))
"""

import math

import gradtrack

from . import constraints
from .corr_cholesky_transform import CorrCholeskyTransform
from .structural_transforms import CatTransform, ReshapeTransform, StackTransform
from .transform import ComposeTransform, IndependentTransform, Transform, identity_transform
from .utils import _NUMBER, broadcast_all, lazy_property

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


class ExpTransform(Transform):
    """``y = exp(x)``, from the reals to the positive reals.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import ExpTransform
    >>> ExpTransform()(gradtrack.tensor([0.0, 2.0]))
    tensor([1.0000, 7.3891])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """``x``: the log of ``dy/dx = exp(x)``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> ExpTransform().log_abs_det_jacobian(gradtrack.tensor([0.5]), None)
        tensor([0.5000])
        """
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import PowerTransform
    >>> t = PowerTransform(gradtrack.tensor(2.0))
    >>> t(gradtrack.tensor([3.0])), t.inv(gradtrack.tensor([4.0]))
    (tensor([9.]), tensor([2.]))
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        """This transform with ``cache_size``.

        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(2.0).with_cache().exponent
        tensor(2.)
        """
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        """The sign of ``exponent``.

        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(-0.5).sign
        tensor(-1.)
        """
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """``log |exponent * y / x|``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(2.0).log_abs_det_jacobian(gradtrack.tensor(3.0), gradtrack.tensor(9.0))
        tensor(1.7918)
        """
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        """``shape`` broadcast with the exponent's.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(gradtrack.ones(2)).forward_shape((3, 1))
        gradtrack.Size([3, 2])
        """
        return gradtrack.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        """``shape`` broadcast with the exponent's.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import PowerTransform
        >>> PowerTransform(gradtrack.ones(2)).inverse_shape(())
        gradtrack.Size([2])
        """
        return gradtrack.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _clipped_sigmoid(x):
    # kept inside (0, 1): the inverse's logs stay finite
    finfo = gradtrack.finfo(x.dtype)
    return gradtrack.clamp(gradtrack.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))`` (clamped to [tiny, 1 - eps] of the dtype), with
    ``logit`` as its inverse.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import SigmoidTransform
    >>> SigmoidTransform()(gradtrack.tensor([0.0, 100.0]))
    tensor([0.5000, 1.0000])
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = gradtrack.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x) - softplus(x)``: the log of ``sigmoid(x) * (1 - sigmoid(x))``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import SigmoidTransform
        >>> SigmoidTransform().log_abs_det_jacobian(gradtrack.tensor(0.0), None)
        tensor(-1.3863)
        """
        softplus = gradtrack.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))`` (``x`` itself above 20), from the reals to the
    positive reals.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import SoftplusTransform
    >>> t = SoftplusTransform()
    >>> t(gradtrack.tensor([-1.0, 0.0, 30.0])), t.inv(gradtrack.tensor([0.5, 1.0]))
    (tensor([ 0.3133,  0.6931, 30.0000]), tensor([-0.4328,  0.5413]))
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return gradtrack.nn.functional.softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1), written as y + log(1 - exp(-y))
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x)``: the log of ``dy/dx = sigmoid(x)``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import SoftplusTransform
        >>> SoftplusTransform().log_abs_det_jacobian(gradtrack.tensor([0.0, 2.0]), None)
        tensor([-0.6931, -0.1269])
        """
        return -gradtrack.nn.functional.softplus(-x)

class TanhTransform(Transform):
    """``y = tanh(x)``, from the reals to (-1, 1).

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import TanhTransform
    >>> TanhTransform().inv(gradtrack.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5493])
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return gradtrack.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """``2 * (log 2 - x - softplus(-2x))``: the log of ``1 - tanh(x) ** 2``,
        written to stay finite for large ``|x|``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import TanhTransform
        >>> TanhTransform().log_abs_det_jacobian(gradtrack.tensor([0.0, 30.0]), None)
        tensor([  0.0000, -58.6137])
        """
        return 2.0 * (math.log(2.0) - x - gradtrack.nn.functional.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|``; not bijective: its inverse returns ``y`` itself.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import AbsTransform
    >>> AbsTransform()(gradtrack.tensor([-2.0, 3.0]))
    tensor([2., 3.])
    """

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x`` (numbers or tensors); ``event_dim`` is the number of
    dims of one event, over which ``log_abs_det_jacobian`` sums.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import AffineTransform
    >>> t = AffineTransform(1.0, gradtrack.tensor([2.0, -1.0]))
    >>> t(gradtrack.tensor([1.0, 1.0])), t.inv(gradtrack.tensor([3.0, 0.0]))
    (tensor([3., 0.]), tensor([1., 1.]))
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The number of dims of one event, as given.

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 1.0, event_dim=1).event_dim
        1
        """
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The reals, over ``event_dim`` dims.

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 1.0, event_dim=1).domain
        IndependentConstraint(Real(), 1)
        """
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The reals, over ``event_dim`` dims.

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 1.0).codomain
        Real()
        """
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        """This transform with ``cache_size``.

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(1.0, 2.0).with_cache()._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, _NUMBER) and isinstance(theirs, _NUMBER):
                if mine != theirs:
                    return False
            elif not (mine == theirs).all().item():
                return False
        return True

    @property
    def sign(self):
        """The sign of ``scale`` (a number for a number, else a tensor).

        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, -3.0).sign, AffineTransform(0.0, 0.0).sign
        (-1, 0)
        """
        if isinstance(self.scale, _NUMBER):
            scale = float(self.scale)
            return 1 if scale > 0 else -1 if scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """``log |scale|`` in ``x``'s shape, summed over the ``event_dim`` dims.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 2.0, event_dim=1).log_abs_det_jacobian(gradtrack.zeros(2, 3), None)
        tensor([2.0794, 2.0794])
        """
        shape = x.shape
        if isinstance(self.scale, _NUMBER):
            result = gradtrack.full_like(x, math.log(abs(self.scale)))
        else:
            result = gradtrack.abs(self.scale).log()
        if self.event_dim:
            result = result.view(result.size()[:-self.event_dim] + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """``shape`` broadcast with those of ``loc`` and ``scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(gradtrack.zeros(3), 1.0).forward_shape((2, 1))
        gradtrack.Size([2, 3])
        """
        return gradtrack.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                          getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        """``shape`` broadcast with those of ``loc`` and ``scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, gradtrack.ones(2)).inverse_shape(())
        gradtrack.Size([2])
        """
        return gradtrack.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                          getattr(self.scale, "shape", ()))


class SoftmaxTransform(Transform):
    """The softmax of the last dim, from vectors to the simplex. Not bijective
    (adding a constant to ``x`` changes nothing); its inverse is the log.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import SoftmaxTransform
    >>> SoftmaxTransform()(gradtrack.tensor([0.0, 0.0, gradtrack.log(gradtrack.tensor(2.0))]))
    tensor([0.2500, 0.2500, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        """``shape``, which needs a dim.

        >>> from gradtrack.distributions.transforms import SoftmaxTransform
        >>> SoftmaxTransform().forward_shape((2, 3))
        (2, 3)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        """``shape``, which needs a dim.

        >>> from gradtrack.distributions.transforms import SoftmaxTransform
        >>> SoftmaxTransform().inverse_shape((3,))
        (3,)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """From vectors of size ``K - 1`` to the simplex of size ``K``, bijectively: each
    entry, through a sigmoid, is the fraction taken of what the entries before it
    left (the stick-breaking construction of the Dirichlet).

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import StickBreakingTransform
    >>> t = StickBreakingTransform()
    >>> y = t(gradtrack.zeros(2))
    >>> y, t.inv(y)
    (tensor([0.3333, 0.3333, 0.3333]), tensor([ 0.0000e+00, -1.1921e-07]))
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        # shifted by log(K - k), so that x = 0 maps to the uniform vector
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        pad = gradtrack.nn.functional.pad
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        left = gradtrack.clamp(1 - y_crop.cumsum(-1), min=gradtrack.finfo(y.dtype).tiny)
        return y_crop.log() - left.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        """The log of the triangular Jacobian's diagonal, summed over the vector.

        >>> import gradtrack
        >>> from gradtrack.distributions.transforms import StickBreakingTransform
        >>> t = StickBreakingTransform()
        >>> x = gradtrack.tensor([0.5, -1.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor(-3.6234)
        """
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + gradtrack.nn.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        """``shape`` with one more entry in the last dim.

        >>> from gradtrack.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform().forward_shape((2, 3))
        (2, 4)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        """``shape`` with one entry fewer in the last dim.

        >>> from gradtrack.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform().inverse_shape((2, 3))
        (2, 2)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """From square matrices to lower-triangular ones with a positive diagonal: the
    strict lower triangle kept, the diagonal exponentiated. Not bijective (the
    upper triangle is dropped).

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import LowerCholeskyTransform
    >>> LowerCholeskyTransform()(gradtrack.tensor([[0.0, 5.0], [2.0, 1.0]]))
    tensor([[1.0000, 0.0000],
            [2.0000, 2.7183]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """From square matrices to positive-definite ones: ``L @ L.mT`` for ``L`` the
    ``LowerCholeskyTransform`` of the input; its inverse goes through the Cholesky
    factor.

    >>> import gradtrack
    >>> from gradtrack.distributions.transforms import PositiveDefiniteTransform
    >>> PositiveDefiniteTransform()(gradtrack.tensor([[0.0, 5.0], [1.0, 0.0]]))
    tensor([[1., 1.],
            [1., 2.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(gradtrack.linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``, from the distribution's support to the unit
    interval; its inverse is the distribution's icdf and ``log |dy/dx|`` its log
    density. Sent through it, a multivariate normal with unit variances becomes a
    Gaussian copula.

    >>> import gradtrack
    >>> from gradtrack.distributions import Normal
    >>> from gradtrack.distributions.transforms import CumulativeDistributionTransform
    >>> t = CumulativeDistributionTransform(Normal(0.0, 1.0))
    >>> x = gradtrack.tensor([0.0, 1.0])
    >>> t(x), t.inv(t(x)), t.log_abs_det_jacobian(x, t(x))
    (tensor([0.5000, 0.8413]), tensor([0.0000, 1.0000]), tensor([-0.9189, -1.4189]))
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The distribution's support.

        >>> from gradtrack.distributions import Exponential
        >>> from gradtrack.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Exponential(1.0)).domain
        GreaterThanEq(lower_bound=0.0)
        """
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        """The distribution's log density at ``x``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Exponential
        >>> from gradtrack.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Exponential(2.0)).log_abs_det_jacobian(gradtrack.tensor(1.0), None)
        tensor(-1.3069)
        """
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        """This transform of the same distribution with ``cache_size``.

        >>> from gradtrack.distributions import Normal
        >>> from gradtrack.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Normal(0.0, 1.0)).with_cache()._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
