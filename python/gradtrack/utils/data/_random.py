"""The random draws of the data utilities, made exactly as PyTorch's samplers make them.

Every order (shuffling, ``random_split``, sampling with replacement) comes
from ``randperm`` / ``randint`` / ``random_`` / ``multinomial`` with an optional
``Generator``, called in the same pattern as torch 2.13 calls them, so the
orders equal torch's once gradtrack's generator produces torch's stream.

NOTE [Generator fallback]
Where the build has no ``gradtrack.Generator`` (nor ``generator=`` arguments on
the random factories) yet, :class:`Generator` here stands in for it: its own
(seed, offset) state, used by swapping it into the default generator for the
duration of one draw. Once ``gradtrack.Generator`` exists, it is used directly
and this fallback is dead code.
"""

import math

import gradtrack

from ... import _C

_NATIVE = hasattr(gradtrack, "Generator")


class _FallbackGenerator:
    """A generator with its own state, drawn from through the default one."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721
        self._offset = 0

    def manual_seed(self, seed):
        """Seeds this generator; returns it (as ``torch.Generator.manual_seed``)."""
        self._seed = int(seed) & (2**64 - 1)
        self._offset = 0
        return self

    def initial_seed(self):
        """The seed last set."""
        return self._seed

    def _draw(self, fn):
        saved = _C._get_rng_state()
        _C._set_rng_state(self._seed, self._offset)
        try:
            return fn()
        finally:
            self._seed, self._offset = _C._get_rng_state()
            _C._set_rng_state(*saved)


Generator = gradtrack.Generator if _NATIVE else _FallbackGenerator


def _call(generator, fn, **kwargs):
    if _NATIVE:
        return fn(generator=generator, **kwargs) if generator is not None else fn(**kwargs)
    if generator is None:
        return fn(**kwargs)
    return generator._draw(lambda: fn(**kwargs))


def randperm(n, generator=None):
    """``torch.randperm(n, generator=generator)`` (int64)."""
    return _call(generator, lambda **kw: gradtrack.randperm(n, **kw))


def randint(high, size, generator=None):
    """``torch.randint(high=high, size=size, dtype=torch.int64, generator=generator)``."""
    return _call(generator, lambda **kw: gradtrack.randint(high, size, dtype=gradtrack.int64,
                                                           **kw))


def random_seed(generator=None):
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``."""
    def draw(**kw):
        t = _C.empty((), dtype=gradtrack.int64)
        if hasattr(t, "random_"):
            return t.random_(**kw)
        # Before Tensor.random_ exists: one int64 draw in the same range.
        return gradtrack.randint(0, 2**63 - 1, (), dtype=gradtrack.int64, **kw)
    return _call(generator, draw).item()


def multinomial(weights, num_samples, replacement, generator=None):
    """``torch.multinomial(weights, num_samples, replacement, generator=generator)``."""
    native = getattr(gradtrack, "multinomial", None)
    if native is not None:
        if generator is None:
            return native(weights, num_samples, replacement)
        return native(weights, num_samples, replacement, generator=generator)
    return _call(generator, lambda **kw: _multinomial_1d(weights, num_samples, replacement, **kw))


def _uniform(n, generator):
    kw = {} if generator is None else {"generator": generator}
    return gradtrack.rand(n, dtype=gradtrack.float64, **kw).tolist()


def _multinomial_1d(weights, num_samples, replacement, generator=None):
    # Checks and algorithm of torch's CPU multinomial on a 1-D weight vector:
    # with replacement, inverse-CDF sampling of uniforms; without, the
    # exponential trick (the n largest of weights / Exp(1) draws).
    n = weights.shape[0]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    w = weights.tolist()
    # One sample, or no replacement: torch's exponential-trick path and its check.
    exponential = not replacement or num_samples == 1
    if exponential and any(not x >= 0 or x == float("inf") for x in w):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    for x in w:
        if not x >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if x == float("inf"):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
    if sum(w) <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not exponential:
        total, cdf = 0.0, []
        for x in w:
            total += x
            cdf.append(total)
        picks = []
        for u in _uniform(num_samples, generator):
            target = u * total
            lo, hi = 0, n - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if cdf[mid] <= target:
                    lo = mid + 1
                else:
                    hi = mid
            picks.append(lo)
        return gradtrack.tensor(picks, dtype=gradtrack.int64)
    exp = [-math.log(1.0 - u) for u in _uniform(n, generator)]
    keys = [x / e for x, e in zip(w, exp)]
    order = sorted(range(n), key=lambda i: -keys[i])[:num_samples]
    return gradtrack.tensor(order, dtype=gradtrack.int64)
