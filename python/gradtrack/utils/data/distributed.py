"""DistributedSampler: each rank draws its own share of a data set, as torch splits it."""

import math
from typing import Any

from .sampler import Sampler


def _permutation(n, seed):
    """A permutation of range(n) that every rank computes the same from ``seed``.

    As torch: a fresh ``Generator`` seeded with ``seed`` feeds ``randperm``; gradtrack's
    generator is torch's mt19937, so the order equals torch's.
    """
    import gradtrack

    g = gradtrack.Generator()
    g.manual_seed(seed)
    return gradtrack.randperm(n, generator=g).tolist()


class DistributedSampler(Sampler):
    """Restricts data loading to the subset of the data set for this rank.

    Arguments, defaults and index split are torch's: indices padded (by repeating the
    first ones) to a multiple of ``num_replicas``, or cut with ``drop_last``, then
    rank ``r`` takes every ``num_replicas``-th index from ``r``. With ``shuffle``
    the order is a permutation seeded by ``seed + epoch``: call :meth:`set_epoch`
    at the start of every epoch.

    >>> sampler = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
    >>> list(sampler), len(sampler)
    ([1, 4, 7, 0], 4)
    """

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
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

    def __iter__(self):
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
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch: with ``shuffle``, each epoch gets another order (the same on every
        rank)."""
        self.epoch = epoch
