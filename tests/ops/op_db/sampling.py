"""Random draws with a seeded generator: poisson and binomial.

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


def _seeded(lib):
    return lib.Generator().manual_seed(0)


def _contiguous_draw(name, *arrays):
    import gradtrack  # the draw itself: what is checked is the order of a view's draws

    tensors = [gradtrack.tensor(np.array(a, order="C", copy=True)) for a in arrays]
    out = getattr(gradtrack, name)(*tensors, generator=_seeded(gradtrack))
    return out.numpy()


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
]
