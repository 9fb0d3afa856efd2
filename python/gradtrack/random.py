"""``gradtrack.random``: the CPU generator, torch's mt19937, seeded and saved as torch does.

``manual_seed(s)`` followed by any draw gives the numbers ``torch.manual_seed(s)``
gives, and a state from ``get_rng_state`` restores in either library.

>>> import gradtrack
>>> _ = gradtrack.manual_seed(0)
>>> gradtrack.rand(2)
tensor([0.4963, 0.7682])
>>> state = gradtrack.get_rng_state()
>>> a = gradtrack.randn(3)
>>> gradtrack.set_rng_state(state)
>>> bool((gradtrack.randn(3) == a).all())
True
"""

import contextlib

from . import _C
from ._inplace import check as _check

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]

_R = _C._random
Generator = _R.Generator
Generator.__module__ = "gradtrack"
default_generator = _R.default_generator


def manual_seed(seed: int) -> "_C._random.Generator":
    """Seeds the default generator and returns it.

    >>> import gradtrack
    >>> gradtrack.manual_seed(3).initial_seed()
    3
    """
    return _R.manual_seed(int(seed))


def seed():
    """Seeds the default generator from the system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (torch's 5056-byte layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores a state from ``get_rng_state`` (gradtrack's or torch's)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Restores the default generator's state on exit.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> with gradtrack.random.fork_rng():
    ...     inside = gradtrack.rand(2)
    >>> bool((gradtrack.rand(2) == inside).all())
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# ---- the random fills, as Tensor methods and module functions ----------------------------


def bernoulli_(self, p=0.5, *, generator=None):
    """Fills ``self`` with 0/1 draws, 1 with probability ``p`` (a number or a tensor)."""
    _check(self)
    if isinstance(p, _C.Tensor):
        return _R.bernoulli_tensor_(self, p, generator)
    return _R.bernoulli_scalar_(self, float(p), generator)


def bernoulli(input, p=None, *, generator=None, out=None):  # noqa: A002 - torch's name
    """0/1 draws with the probabilities in ``input`` (or the number ``p``).

    >>> import gradtrack
    >>> gradtrack.bernoulli(gradtrack.ones(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    if p is not None:
        from . import empty_like
        return _R.bernoulli_scalar_(empty_like(input), float(p), generator)
    result = _R.bernoulli(input, generator)
    if out is not None:
        return out.copy_(result)
    return result


def exponential_(self, lambd=1.0, *, generator=None):
    """Fills ``self`` with Exp(lambd) draws."""
    _check(self)
    return _R.exponential_(self, float(lambd), generator)


def geometric_(self, p, *, generator=None):
    """Fills ``self`` with the number of Bernoulli(p) trials up to the first success."""
    _check(self)
    return _R.geometric_(self, float(p), generator)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills ``self`` with Cauchy(median, sigma) draws."""
    _check(self)
    return _R.cauchy_(self, float(median), float(sigma), generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills ``self`` with exp(N(mean, std^2)) draws."""
    _check(self)
    return _R.log_normal_(self, float(mean), float(std), generator)


def random_(self, *args, generator=None, **kwargs):
    """``random_(from, to)``, ``random_(to)`` or ``random_()``: integers drawn uniformly."""
    values = dict(zip(("from", "to"), args))
    values.update({k.rstrip("_"): v for k, v in kwargs.items()})
    _check(self)
    if not values:
        return _R.random_(self, 0, None, 2, generator)
    if "from" in values and "to" not in values and len(args) == 1 and not kwargs:
        return _R.random_(self, 0, int(values["from"]), 1, generator)
    to = values.get("to")
    return _R.random_(self, int(values.get("from", 0)), None if to is None else int(to), 0,
                      generator)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):  # noqa: A002
    """Indices drawn from the categories of ``input``'s last dimension (weights, not logits).

    >>> import gradtrack
    >>> gradtrack.multinomial(gradtrack.tensor([0.0, 1.0]), 2, True).tolist()
    [1, 1]
    """
    result = _R.multinomial(input, int(num_samples), bool(replacement), generator)
    if out is not None:
        return out.copy_(result)
    return result


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None,
           requires_grad=False, **_ignored):
    """Draws from N(mean, std^2): numbers with ``size``, or tensors elementwise.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.normal(gradtrack.zeros(2), 1.0).shape
    gradtrack.Size([2])
    """
    from . import empty, empty_like, is_tensor, no_grad
    if not is_tensor(mean) and not is_tensor(std):
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        result = empty(tuple(size), dtype=dtype)  # a tuple: () is a 0-dim result
        _R.normal_(result, float(mean), float(std), generator)
        result.requires_grad_(requires_grad)
    elif not is_tensor(std):
        # torch: contiguous N(0, std) draws shaped like mean, then + mean
        with no_grad():
            noise = empty_like(mean).contiguous()
            _R.normal_(noise, 0.0, float(std), generator)
        result = noise + mean
    else:
        if bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = _C._broadcast_shape(list(mean.shape), list(std.shape)) if is_tensor(mean) \
            else list(std.shape)
        # torch: N(0, 1) draws, then * std, then + mean (two roundings)
        with no_grad():
            noise = empty(tuple(shape), dtype=std.dtype)
            _R.normal_(noise, 0.0, 1.0, generator)
            noise.mul_(std)
        result = noise + mean
    if out is not None:
        return out.copy_(result)
    return result


def randint_like(input, low=0, high=None, *, generator=None, dtype=None,  # noqa: A002
                 requires_grad=False, memory_format=None, **_ignored):
    """Integers in [low, high) shaped like ``input`` (``randint_like(x, high)`` also works).

    >>> import gradtrack
    >>> bool((gradtrack.randint_like(gradtrack.zeros(5), 3) < 3).all())
    True
    """
    from . import empty_like
    if high is None:
        low, high = 0, low
    result = empty_like(input, dtype=dtype, memory_format=memory_format)
    _R.random_(result, int(low), int(high), 0, generator)
    result.requires_grad_(requires_grad)
    return result


METHODS = {f.__name__: f for f in (bernoulli_, exponential_, geometric_, cauchy_, log_normal_,
                                   random_)}


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


METHODS["bernoulli"] = _bernoulli_method
METHODS["multinomial"] = _multinomial_method

# What this module gives gradtrack.* and Tensor (NOTE [One registry] in _registry.py):
# the random factories bound in C++, and the functions and fills above.
BOUND = ("rand", "randn", "randint", "randperm")
FUNCTIONS = (manual_seed, seed, initial_seed, get_rng_state, set_rng_state, bernoulli, multinomial,
             normal, randint_like)
NAMES = {"Generator": Generator, "default_generator": default_generator}
