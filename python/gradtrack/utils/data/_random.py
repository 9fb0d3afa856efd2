"""The random draws of the data utilities, made exactly as PyTorch's samplers make them.

Every order (shuffling, ``random_split``, sampling with replacement) comes from
``randperm`` / ``randint`` / ``random_`` / ``multinomial`` with an optional
``Generator``, called in the same pattern as torch 2.13 calls them; gradtrack's
generator is torch's mt19937, so the orders equal torch's for the same seeds.
"""

import gradtrack

Generator = gradtrack.Generator


def _kw(generator):
    return {} if generator is None else {"generator": generator}


def randperm(n, generator=None):
    """``torch.randperm(n, generator=generator)`` (int64)."""
    return gradtrack.randperm(n, **_kw(generator))


def randint(high, size, generator=None):
    """``torch.randint(high=high, size=size, dtype=torch.int64, generator=generator)``."""
    return gradtrack.randint(high, size, dtype=gradtrack.int64, **_kw(generator))


def random_seed(generator=None):
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``."""
    return gradtrack.empty((), dtype=gradtrack.int64).random_(**_kw(generator)).item()


def multinomial(weights, num_samples, replacement, generator=None):
    """``torch.multinomial(weights, num_samples, replacement, generator=generator)``."""
    return gradtrack.multinomial(weights, num_samples, replacement, **_kw(generator))
