"""``torch.poisson``: a Poisson draw per rate, with torch's sampler and order of draws.

>>> import gradtrack
>>> gradtrack.poisson(gradtrack.zeros(2))
tensor([0., 0.])
"""

import math

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd._named_nodes import ZeroGradient, _has_tangent, named_node
from . import c_math, generator_arg, tensor_arg

# NOTE [Poisson draws]
# torch.poisson draws each element in turn (C order) with torch's sampler: for a rate of 10
# or more Hormann's transformed rejection (two uniform doubles a try), below it the product
# of uniform doubles until it falls under exp(-rate). The uniforms are the generator's
# doubles, as ``rand(dtype=float64)`` draws them, so the draws here are torch's: blocks of
# doubles are drawn, as many as the sampler used are counted, and the generator is then
# moved on by exactly that many (and no further). lgamma is the C library's, as torch's.
_INT64_MIN = -(2 ** 63)
_POISSON_BLOCK = 256


def _c_lgamma():
    import ctypes  # loaded with the C library, on the first draw

    fn = c_math.libm().lgamma
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    return fn


def _as_int64(x):
    # C's (int64_t) of a double on x86: the integer part, INT64_MIN when out of range or NaN
    if x != x or not -9.223372036854775808e18 <= x < 9.223372036854775808e18:
        return _INT64_MIN
    return int(x)


def _poisson_one(rate, draw, lgamma):
    if rate >= 10:
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = draw() - 0.5
            v = draw()
            us = 0.5 - abs(u)
            with_nan = (2 * a / us + b) * u + rate + 0.43
            k = _as_int64(math.floor(with_nan) if math.isfinite(with_nan) else with_nan)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - lgamma(float(k) + 1)):
                return k
    if rate == 0:
        return 0
    enlam, count, prod = math.exp(-rate), 0, 1.0
    while True:
        prod *= draw()
        if prod > enlam:
            count += 1
        else:
            return count


def each_drawn(values, generator, sample):
    """``sample(value, draw)`` for each of ``values`` in turn, ``draw()`` giving the
    generator's next uniform double as torch's CPU samplers take them; afterwards the
    generator has moved on by exactly the doubles used (NOTE [Poisson draws])."""
    gen = _C._random.default_generator if generator is None else generator
    state = gen.get_state()
    block, pos, used = [], 0, 0

    def draw():
        nonlocal block, pos, used
        if pos == len(block):
            block, pos = _C.rand(_POISSON_BLOCK, dtype=_C.float64, generator=gen).tolist(), 0
        pos += 1
        used += 1
        return block[pos - 1]

    out = []
    try:
        for value in values:
            out.append(sample(value, draw))
    finally:
        # the generator moves on by the doubles the sampler used, not the block's rest
        gen.set_state(state)
        if used:
            _C.rand(used, dtype=_C.float64, generator=gen)
    return out


def _poisson_values(rates, generator):
    lgamma = _c_lgamma()

    def sample(rate, draw):
        if not rate >= 0:
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return _poisson_one(rate, draw, lgamma)

    return each_drawn(rates, generator, sample)


def _poisson_draw(input, generator):  # noqa: A002
    if not input.is_floating_point():
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for "
                                  f"'{SCALAR_NAME[dtype_key(input.dtype)]}'")
    values = _poisson_values(input.detach().contiguous().view(-1).tolist(), generator)
    flat = _C.tensor([float(v) for v in values], dtype=_C.float64)
    return flat.to(input.dtype).reshape(tuple(input.shape)).clone()


class _Poisson(ZeroGradient):
    # torch's PoissonBackward0: a draw has zero gradient for its rate (and a zero tangent)
    @staticmethod
    def forward(ctx, input, generator):  # noqa: A002
        return _poisson_draw(input, generator)


named_node(_Poisson, "PoissonBackward0")


def poisson(input, generator=None):  # noqa: A002 - torch's name
    """A draw from Poisson(rate) for each rate in ``input`` (non-negative): torch's sampler
    and order of draws, so a seeded draw equals torch's (NOTE [Poisson draws]); the result
    records ``PoissonBackward0``, whose gradient is zero.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.poisson(gradtrack.tensor([1.0, 4.0, 0.0]))
    tensor([2., 5., 0.])
    """
    tensor_arg(input, "poisson", "input", 1)
    generator_arg(generator, "poisson")
    if (input.requires_grad and _C.is_grad_enabled()) or _has_tangent((input,)):
        return _Poisson.apply(input, generator)
    return _poisson_draw(input, generator)


FUNCTIONS = (poisson,)
