"""Parallel training: :class:`DistributedDataParallel` on ``gradtrack.distributed`` (MPI),
and :class:`DataParallel` as torch's build without GPUs has it."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
