"""Random draws with a seeded generator: poisson, binomial, the Gamma and Dirichlet
samplers, and the pathwise gradients of Gamma and Dirichlet draws.

Each row draws from a fresh generator seeded with 0, so gradtrack's values must be torch's
draw for draw (the torch column). The numpy reference is the same seeded draw from the
contiguous input: a row's non-contiguous and expanded samples must draw in the input's
logical order, as torch's kernels do.
"""

import numpy as np

from .rows import FLOAT, A, Domain, E, OpSpec, S, Step, T

RATE = Domain("rate", 0.0, 30.0, 0, 30)
COUNT = Domain("count", 0.0, 60.0, 0, 60)
PROB = Domain("prob", 0.0, 1.0, 0, 1)
CONCENTRATION = Domain("concentration", 0.05, 12.0, 1, 12)
SHAPE = Domain("shape", 0.5, 10.0, 1, 10)
DRAW = Domain("draw", 0.2, 10.0, 1, 10)
COORDINATE = Domain("coordinate", 0.15, 0.85, 0, 1)
PART = Domain("part", 0.5, 5.0, 1, 5)
TOTAL = Domain("total", 6.0, 11.0, 6, 11)


def _seeded(lib):
    return lib.Generator().manual_seed(0)


def _contiguous_draw(name, *arrays):
    import gradtrack  # the draw itself: what is checked is the order of a view's draws

    tensors = [gradtrack.tensor(np.array(a, order="C", copy=True)) for a in arrays]
    out = getattr(gradtrack, name)(*tensors, generator=_seeded(gradtrack))
    return out.numpy()


def _gamma_pathwise_gradient(np_, alpha, x):
    # The exact -(dP/dalpha) / p of a Gamma(alpha, 1) draw x, P its CDF and p its density
    # (P's alpha-derivative by central differences): torch's formula approximates it to
    # about 2e-3 on this row's domain.
    from scipy.special import gammainc
    from scipy.stats import gamma

    alpha, x = np_.broadcast_arrays(np_.asarray(alpha, np_.float64), np_.asarray(x, np_.float64))
    h = 1e-5 * alpha
    dcdf = (gammainc(alpha + h, x) - gammainc(alpha - h, x)) / (2 * h)
    return -dcdf / gamma.pdf(x, alpha)


def _beta_pathwise_gradient(np_, x, alpha, total):
    # The exact -(dI/dalpha) / p / (1 - x) of coordinate x of a Dirichlet draw, I and p
    # the CDF and density of its Beta(alpha, total - alpha) marginal: torch's formula
    # approximates it to about 3e-2 on this row's domain.
    from scipy.special import betainc
    from scipy.stats import beta

    x, alpha, total = np_.broadcast_arrays(*(np_.asarray(v, np_.float64)
                                             for v in (x, alpha, total)))
    rest, h = total - alpha, 1e-6 * alpha
    dcdf = (betainc(alpha + h, rest, x) - betainc(alpha - h, rest, x)) / (2 * h)
    return -dcdf / beta.pdf(x, alpha, rest) / (1 - x)


_RATES = (S("2x3", A(2, 3)), S("1d", A(40)), S("0d", A()), S("empty", A(0, 3)),
          S("t", T(2, 3)), S("step", Step(2, 3)), S("expand", E((1, 3), (2, 3))))

OPS = [
    # PoissonBackward0: the gradient of a draw is zero (finite differences would move
    # draws, so only torch's gradient is compared)
    OpSpec("poisson", lambda lib, a: lib.poisson(a, generator=_seeded(lib)), _RATES, FLOAT,
           domain=RATE, ref=lambda np_, a: _contiguous_draw("poisson", a), gradcheck=False),
    # torch has no derivative: inputs that require grad give a NotImplemented node
    OpSpec("binomial", lambda lib, c, p: lib.binomial(c, p, generator=_seeded(lib)),
           (S("same", A(2, 3, domain=COUNT), A(2, 3, domain=PROB)),
            S("1d", A(40, domain=COUNT), A(40, domain=PROB)),
            S("t_step", T(2, 3, domain=COUNT), Step(2, 3, domain=PROB)),
            S("bcast_prob", A(2, 3, domain=COUNT), A(3, domain=PROB)),
            S("expand_count", E((1, 3), (2, 3), domain=COUNT), A(2, 3, domain=PROB))),
           FLOAT, differentiable=False,
           ref=lambda np_, c, p: _contiguous_draw("binomial", c, p)),
    # StandardGammaBackward0: the pathwise gradient, compared with torch's (the draws
    # themselves move under finite differences of alpha)
    OpSpec("_standard_gamma", lambda lib, a: lib._standard_gamma(a, generator=_seeded(lib)),
           _RATES, FLOAT, domain=CONCENTRATION,
           ref=lambda np_, a: _contiguous_draw("_standard_gamma", a), gradcheck=False),
    OpSpec("_sample_dirichlet", lambda lib, a: lib._sample_dirichlet(a, generator=_seeded(lib)),
           _RATES, FLOAT, domain=CONCENTRATION, differentiable=False,
           ref=lambda np_, a: _contiguous_draw("_sample_dirichlet", a)),
    OpSpec("_standard_gamma_grad", lambda lib, a, x: lib._standard_gamma_grad(a, x),
           (S("same", A(2, 3, domain=SHAPE), A(2, 3, domain=DRAW)),
            S("1d", A(60, domain=SHAPE), A(60, domain=DRAW)),
            S("t_step", T(2, 3, domain=SHAPE), Step(2, 3, domain=DRAW)),
            S("expand_alpha", E((1, 3), (2, 3), domain=SHAPE), A(2, 3, domain=DRAW))),
           FLOAT, differentiable=False, ref=_gamma_pathwise_gradient, rtol=5e-3, atol=1e-6,
           rtol64=5e-3, atol64=1e-9),
    OpSpec("_dirichlet_grad", lambda lib, x, a, t: lib._dirichlet_grad(x, a, t),
           (S("same", A(2, 3, domain=COORDINATE), A(2, 3, domain=PART), A(2, 3, domain=TOTAL)),
            S("1d", A(60, domain=COORDINATE), A(60, domain=PART), A(60, domain=TOTAL)),
            S("bcast_total", T(2, 3, domain=COORDINATE), A(2, 3, domain=PART),
              A(2, 1, domain=TOTAL))),
           FLOAT, differentiable=False, ref=_beta_pathwise_gradient, rtol=4e-2, atol=1e-6,
           rtol64=4e-2, atol64=1e-9),
]
