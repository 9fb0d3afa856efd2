"""Parallel training: :class:`DistributedDataParallel` on ``gradtrack.distributed`` (MPI)."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
