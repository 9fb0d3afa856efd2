"""DistributedSampler: each rank draws its own share of a data set, as torch splits it."""

import math
from collections.abc import Iterator
from typing import Any

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _permutation(n, seed):
    """A permutation of range(n) that every rank computes the same from ``seed``.

    As torch: a fresh ``Generator`` seeded with ``seed`` feeds ``randperm``; gradtrack's
    generator is torch's mt19937, so the order equals torch's.
    """
    import gradtrack

    g = gradtrack.Generator()
    g.manual_seed(seed)
    return gradtrack.randperm(n, generator=g).tolist()


def _default_group():
    """``gradtrack.distributed``, for the default group's rank and size; torch's error when
    the package cannot run here."""
    from ... import distributed as dist
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist


class DistributedSampler(Sampler):
    """Restricts data loading to the subset of the data set for this rank.

    Arguments, defaults and index split are torch's: indices padded (by repeating the
    first ones) to a multiple of ``num_replicas``, or cut with ``drop_last``, then
    rank ``r`` takes every ``num_replicas``-th index from ``r``. With ``shuffle``
    the order is a permutation seeded by ``seed + epoch``: call :meth:`set_epoch`
    at the start of every epoch.

    Without ``num_replicas`` or ``rank`` they come from the default process group
    (``gradtrack.distributed``), which must be initialised by then.

    >>> sampler = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
    >>> list(sampler), len(sampler)
    ([1, 4, 7, 0], 4)
    >>> shuffled = DistributedSampler(range(10), num_replicas=3, rank=1, seed=7)
    >>> shuffled.set_epoch(2)
    >>> len(list(shuffled))
    4
    """

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _default_group().get_world_size()
        if rank is None:
            rank = _default_group().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        indices = _permutation(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        # NOTE [Data set resized after construction]: the sizes were fixed by __init__; a
        # data set that grew or shrank since then fails here, with torch's message.
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match "
                                 f"total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not "
                                 f"match num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch: with ``shuffle``, each epoch gets another order (the same on every
        rank). Call it before creating the ``DataLoader`` iterator of each epoch.

        >>> sampler = DistributedSampler(range(4), num_replicas=2, rank=0, seed=1)
        >>> sampler.set_epoch(3)
        >>> sampler.epoch
        3
        """
        self.epoch = epoch
