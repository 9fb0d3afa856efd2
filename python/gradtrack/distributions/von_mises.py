"""``VonMises``: the circular normal distribution of angles, with density
``exp(concentration * cos(x - loc)) / (2 pi I0(concentration))``
(``torch.distributions.VonMises``).

``loc`` and values may be any real numbers, read as angles modulo ``2 pi``; draws
lie in [-pi, pi).

>>> import gradtrack
>>> from gradtrack.distributions import VonMises
>>> VonMises(gradtrack.tensor(0.0), gradtrack.tensor(2.0)).log_prob(gradtrack.tensor([0.0, 3.0]))
tensor([-0.6619, -4.6419])
"""

import math

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _eval_poly(y, coef):
    """The polynomial with coefficients ``coef`` (constant first) at ``y``, by
    Horner's rule."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz
# and Stegun 9.8.1 to 9.8.4): in (x / 3.75)^2 below 3.75, and of
# sqrt(x) exp(-x) I(x) in 3.75 / x above.
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                  -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                  0.32411e-3]
_I1_COEF_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                  0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _log_bessel_series(x, order):
    """``log(I_order(x))`` from the power series in ``(x / 3.75)^2`` (for x < 3.75);
    I1's series is of ``I1(x) / x``, hence the extra factor."""
    t = x / 3.75
    series = _eval_poly(t * t, _COEF_SMALL[order])
    if order == 1:
        series = x.abs() * series
    return series.log()


def _log_bessel_asymptotic(x, order):
    """``log(I_order(x))`` from the fit of ``sqrt(x) exp(-x) I(x)`` in ``3.75 / x``
    (for x >= 3.75)."""
    fit = _eval_poly(3.75 / x, _COEF_LARGE[order])
    return x - 0.5 * x.log() + fit.log()


def _log_modified_bessel_fn(x, order=0):
    """``log(I_order(x))`` for positive ``x`` and ``order`` 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    near = _log_bessel_series(x, order)
    far = _log_bessel_asymptotic(x, order)
    return gradtrack.where(x < 3.75, near, far)


def _wrap_angle(theta, loc):
    """``theta + loc`` brought back into [-pi, pi)."""
    return (theta + math.pi + loc) % (2 * math.pi) - math.pi


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's (1979) rejection sampler: each round draws three uniforms
    for every entry (one ``gradtrack.rand`` of shape ``(3,) + x.shape``) and keeps
    the first accepted proposal of each entry, until all are accepted."""
    filled = gradtrack.zeros(x.shape, dtype=gradtrack.bool, device=loc.device)
    while not filled.all():
        uniforms = gradtrack.rand((3,) + x.shape, dtype=loc.dtype, device=loc.device)
        u_angle, u_test, u_sign = uniforms.unbind()
        cos_w = gradtrack.cos(math.pi * u_angle)
        # candidate cos(theta) and the quantity both acceptance tests use
        cand = (1 + proposal_r * cos_w) / (proposal_r + cos_w)
        k_gap = concentration * (proposal_r - cand)
        cheap_test = (k_gap * (2 - k_gap) - u_test) > 0
        full_test = (k_gap / u_test).log() + 1 - k_gap >= 0
        taken = cheap_test | full_test
        if taken.any():
            signed_angle = (u_sign - 0.5).sign() * cand.acos()
            x = gradtrack.where(taken, signed_angle, x)
            filled = filled | taken
    return _wrap_angle(x, loc)


class VonMises(Distribution):
    """The von Mises distribution of mean angle ``loc`` and (positive)
    ``concentration``, broadcast together.

    >>> import gradtrack
    >>> from gradtrack.distributions import VonMises
    >>> _ = gradtrack.manual_seed(0)
    >>> VonMises(gradtrack.tensor([0.0, 3.0]), gradtrack.tensor([1.0, 50.0])).sample()
    tensor([-0.2782,  2.9131])
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, gradtrack.Size(), validate_args)

    def log_prob(self, value):
        """``concentration * cos(value - loc) - log(2 pi) - log(I0(concentration))``.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> VonMises(gradtrack.tensor(0.0), gradtrack.tensor(1.0)).log_prob(gradtrack.tensor(0.0))
        tensor(-1.0738)
        """
        if self._validate_args:
            self._validate_sample(value)
        kappa = self.concentration
        log_norm = math.log(2 * math.pi)
        return kappa * gradtrack.cos(value - self.loc) - log_norm - _log_modified_bessel_fn(kappa)

    @lazy_property
    def _loc(self):
        return self.loc.to(gradtrack.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(gradtrack.double)

    @lazy_property
    def _proposal_r(self):
        # Best and Fisher's r = (1 + b^2) / (2 b), b = (a - sqrt(2 a)) / (2 k),
        # a = 1 + sqrt(1 + 4 k^2); for k below 1e-5 that cancels to noise, and the
        # expansion 1 / k + k takes over
        k = self._concentration
        a = 1 + (1 + 4 * k**2).sqrt()
        b = (a - (2 * a).sqrt()) / (2 * k)
        closed_form = (1 + b**2) / (2 * b)
        return gradtrack.where(k < 1e-5, 1 / k + k, closed_form)

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient by rejection sampling, computed in float64 (for
        small concentrations float32 would all but never accept) and returned in
        ``loc``'s dtype.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> _ = gradtrack.manual_seed(0)
        >>> VonMises(gradtrack.tensor(1.0), gradtrack.tensor(4.0)).sample((3,))
        tensor([0.7584, 0.5763, 0.8580])
        """
        with gradtrack.no_grad():
            out = gradtrack.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype,
                                  device=self.loc.device)
            drawn = _rejection_sample(self._loc, self._concentration, self._proposal_r, out)
            return drawn.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        """A new ``VonMises`` of ``loc`` and ``concentration`` expanded to
        ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> VonMises(gradtrack.tensor(0.0), gradtrack.tensor(1.0)).expand([2]).loc
        tensor([0., 0.])
        """
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean: ``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> VonMises(gradtrack.tensor(1.5), gradtrack.tensor(1.0)).mean
        tensor(1.5000)
        """
        return self.loc

    @property
    def mode(self):
        """``loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> VonMises(gradtrack.tensor(1.5), gradtrack.tensor(1.0)).mode
        tensor(1.5000)
        """
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance: ``1 - I1(concentration) / I0(concentration)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import VonMises
        >>> VonMises(gradtrack.tensor(0.0), gradtrack.tensor(1.0)).variance
        tensor(0.5536)
        """
        log_i1 = _log_modified_bessel_fn(self.concentration, order=1)
        log_i0 = _log_modified_bessel_fn(self.concentration, order=0)
        return 1 - (log_i1 - log_i0).exp()
