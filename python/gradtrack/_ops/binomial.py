"""``torch.binomial``: a Binomial(count, prob) draw per element, with torch's CPU sampler
and order of draws.

>>> import gradtrack
>>> gradtrack.binomial(gradtrack.tensor([4.0, 0.0]), gradtrack.tensor([1.0, 0.5]))
tensor([4., 0.])
"""

import math
import warnings


from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from .._out import _RESIZED
from ..autograd._named_nodes import not_implemented_node
from . import c_math, generator_arg, tensor_arg
from .poisson import each_drawn
from .views import _broadcast_pair

# NOTE [Binomial draws]
# torch.binomial draws each element in turn (C order of the result, count and prob
# broadcast together) from the generator's uniform doubles, as poisson does (NOTE [Poisson draws]):
# prob <= 0 or count <= 0 gives 0 and prob >= 1 gives count with no draw; otherwise, with
# p the smaller of prob and 1 - prob (the draw is then count minus it), Hormann's BTRS
# rejection (two doubles a try) when count * p >= 10, else the inversion that adds up
# geometric waiting times (one double each). Both are computed as torch's kernel computes
# them: some steps in the tensor's dtype (the float32 steps are rounded to float32 here:
# one rounding of a double +, -, *, / or sqrt of float32 values is the float32 result) and
# the rest in double, with the C library's log1pf for float32's log1p. A NaN prob gives
# NaN. Where torch's inversion never ends (a NaN count: its waiting times never pass it)
# gradtrack returns count, drawing nothing.


def _libm():
    import ctypes  # loaded with the C library, on the first draw

    lib = c_math.libm()
    for name, kind in (("log1pf", ctypes.c_float), ("log1p", ctypes.c_double),
                       ("log", ctypes.c_double)):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = kind, [kind]
    return lib


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _floor(x):
    return float(math.floor(x)) if math.isfinite(x) else x


def _stirling_tail(k):
    # log(k!) minus Stirling's approximation of it: a table to 9, the series after
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _sampler(single):
    """The sampler of one element for float32 (``single``) or float64 values."""
    import ctypes

    libm = _libm()
    log = libm.log
    rnd = (lambda v: ctypes.c_float(v).value) if single else (lambda v: v)
    log1p = libm.log1pf if single else libm.log1p

    def btrs(count, prob, draw):
        stddev = rnd(math.sqrt(rnd(rnd(count * prob) * rnd(1 - prob))))
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * prob
        c = rnd(count * prob) + 0.5
        v_r = 0.92 - 4.2 / b
        r = rnd(prob / rnd(1 - prob))
        alpha = (2.83 + 5.1 / b) * stddev
        m = _floor(rnd(rnd(count + 1) * prob))
        while True:
            u = draw() - 0.5
            v = draw()
            us = 0.5 - abs(u)
            t = (2 * a / us + b) * u + c
            k = rnd(_floor(t))
            if k < 0 or k > count:
                continue
            if us >= 0.07 and v <= v_r:
                return k
            v = log(v * alpha / (a / (us * us) + b))
            bound = ((m + 0.5) * log((m + 1) / (r * (count - m + 1)))
                     + rnd(count + 1) * log((count - m + 1) / rnd(rnd(count - k) + 1))
                     + (k + 0.5) * log(r * rnd(rnd(count - k) + 1) / rnd(k + 1))
                     + _stirling_tail(m) + _stirling_tail(count - m)
                     - _stirling_tail(k) - _stirling_tail(rnd(count - k)))
            if v <= bound:
                return k

    def inversion(count, prob, draw):
        if not math.isfinite(count):
            return count  # torch's loop never ends here (NOTE [Binomial draws])
        logprob = log1p(-prob)
        total, n = 0.0, 0.0
        while True:
            u = draw()
            total += math.ceil(log(u) / logprob) if u > 0 else math.inf
            if total > count:
                return n
            n += 1

    def one(pair, draw):
        count, prob = pair
        if count <= 0 or prob <= 0:
            return 0.0
        if prob >= 1:
            return count
        if prob <= 0.5:
            if rnd(count * prob) >= 10:
                return btrs(count, prob, draw)
            return inversion(count, prob, draw)
        if prob > 0.5:
            q = rnd(1.0 - prob)
            if rnd(count * q) >= 10:
                return rnd(count - btrs(count, q, draw))
            return rnd(count - inversion(count, q, draw))
        return math.nan

    return one


def _check(count, prob, generator):
    tensor_arg(count, "binomial", "count", 1)
    tensor_arg(prob, "binomial", "prob", 2)
    generator_arg(generator, "binomial")
    for name, t in (("count", count), ("prob", prob)):
        if not t.is_floating_point():
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{SCALAR_NAME[dtype_key(t.dtype)]}")
    shape = _broadcast_pair(tuple(count.shape), tuple(prob.shape))
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {SCALAR_NAME[dtype_key(prob.dtype)]} but expected "
                           f"{SCALAR_NAME[dtype_key(count.dtype)]}")
    if shape != tuple(count.shape) and count.numel():
        # torch's kernel writes into a tensor of count's shape, resized to the broadcast one
        warnings.warn(_RESIZED.format(old=list(count.shape), new=list(shape)), UserWarning,
                      stacklevel=3)
    return shape


def _draw(count, prob, shape, generator):
    if count.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for "
                                  f"'{SCALAR_NAME[dtype_key(count.dtype)]}'")
    pairs = zip(count.detach().expand(shape).reshape(-1).tolist(),
                prob.detach().expand(shape).reshape(-1).tolist())
    values = each_drawn(pairs, generator, _sampler(count.dtype == _C.float32))
    return _C.tensor(values, dtype=_C.float64).to(count.dtype).reshape(shape).clone()


def binomial(count, prob, generator=None):
    """A draw from Binomial(count, prob) for each element (``count`` and ``prob`` floating
    tensors of one dtype, broadcast together): torch's CPU sampler and order of draws, so a
    seeded draw equals torch's (NOTE [Binomial draws]). torch has no derivative for it: a
    result of inputs that require grad records a NotImplemented node, whose backward
    raises.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.binomial(gradtrack.tensor([10.0, 100.0, 3.0]), gradtrack.tensor([0.5, 0.2, 1.0]))
    tensor([ 7., 21.,  3.])
    """
    shape = _check(count, prob, generator)
    return not_implemented_node("binomial", _draw(count, prob, shape, generator), count, prob)


FUNCTIONS = (binomial,)
