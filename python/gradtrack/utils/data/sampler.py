"""Samplers: which indices a ``DataLoader`` reads, in which order (PyTorch 2.13's).

The random samplers draw exactly as torch's do (see ``_random``): a
``RandomSampler`` without a generator first draws a seed from the default
generator and shuffles with a fresh generator seeded by it.

>>> from gradtrack.utils.data import BatchSampler, SequentialSampler
>>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
[[0, 1, 2], [3, 4, 5], [6]]
"""

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Generic, TypeVar

import gradtrack

from . import _random

if TYPE_CHECKING:
    from ..._C import Tensor
    from ..._C._random import Generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]


# The item type: Sampler[T] in annotations, as torch's samplers are Generic.
_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses implement ``__iter__`` (and ``__len__`` when they can).

    >>> from gradtrack.utils.data import Sampler
    >>> class Backwards(Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n - 1, -1, -1))
    ...     def __len__(self):
    ...         return self.n
    >>> list(Backwards(3))
    [2, 1, 0]
    """

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError

    def __class_getitem__(cls, item):
        return cls


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``.

    >>> from gradtrack.utils.data import SequentialSampler
    >>> list(SequentialSampler(["a", "b", "c"]))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random permutation (or, with ``replacement``, independent uniform draws).

    ``num_samples`` beyond the dataset's length chains several permutations.

    >>> import gradtrack
    >>> from gradtrack.utils.data import RandomSampler
    >>> sorted(RandomSampler(range(5)))
    [0, 1, 2, 3, 4]
    >>> len(RandomSampler(range(5), replacement=True, num_samples=12))
    12
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: "Generator | None" = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (the dataset's length by default)."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = _random.Generator()
            generator.manual_seed(int(_random.random_seed()))
        if self.replacement:
            # Draws come in chunks of 32, as torch's (the stream depends on it).
            for _ in range(self.num_samples // 32):
                yield from _random.randint(n, (32,), generator).tolist()
            yield from _random.randint(n, (self.num_samples % 32,), generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(n, generator).tolist()
            yield from _random.randperm(n, generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a random order (one ``randperm`` per pass).

    >>> import gradtrack
    >>> from gradtrack.utils.data import SubsetRandomSampler
    >>> _ = gradtrack.manual_seed(0)
    >>> list(SubsetRandomSampler([10, 20, 30, 40]))
    [10, 20, 40, 30]
    """

    def __init__(self, indices: Sequence[int], generator: "Generator | None" = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _random.randperm(len(self.indices), self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``.

    >>> from gradtrack.utils.data import WeightedRandomSampler
    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights: "Tensor | Sequence[float]", num_samples: int, replacement: bool = True,
                 generator: "Generator | None" = None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = gradtrack.as_tensor(weights, dtype=gradtrack.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = _random.multinomial(self.weights, self.num_samples, self.replacement,
                                    self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    >>> from gradtrack.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: "Sampler[int] | Iterable[int]", batch_size: int, drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[it] * self.batch_size))
            return
        batch = list(itertools.islice(it, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(it, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
