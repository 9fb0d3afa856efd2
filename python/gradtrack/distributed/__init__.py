"""Data-parallel building blocks with torch.distributed's API, on MPI (mpi4py).

Launch one process per rank with torchrun's command line (on one machine), or with
MPI's launcher, on one machine or several::

    python -m gradtrack.distributed.run --nproc-per-node 4 train.py
    mpiexec -n 4 python train.py
    mpiexec -hosts node1,node2 -n 8 python train.py

and in the script::

    import gradtrack.distributed as dist
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

Collectives hand tensor memory to MPI without copying (the buffer protocol);
``broadcast_object_list`` / ``all_gather_object`` pickle, as torch's do.
mpi4py (``pip install "gradtrack[distributed]"``) is imported by
``init_process_group``, not by ``import gradtrack``.

>>> import gradtrack.distributed as dist
>>> dist.is_initialized()
False
"""

from ._collectives import (all_gather, all_gather_into_tensor, all_gather_single, all_reduce,
                           all_to_all_single, barrier, broadcast, gather, irecv, isend,
                           monitored_barrier, recv,
                           reduce, reduce_scatter_single, reduce_scatter_tensor, scatter, send)
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._work import Work
from .distributed_c10d import (Backend, DistBackendError, DistError, DistNetworkError, DistStoreError,
                               GroupMember, ProcessGroup, ReduceOp, destroy_process_group,
                               get_backend, get_global_rank, get_group_rank,
                               get_process_group_ranks, get_rank, get_world_size, group,
                               init_process_group, is_available, is_gloo_available,
                               is_initialized, is_mpi_available, is_nccl_available,
                               is_torchelastic_launched, new_group)

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
           "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "group",
           "is_available", "is_mpi_available", "is_gloo_available", "is_nccl_available",
           "is_initialized", "init_process_group", "destroy_process_group", "new_group",
           "get_rank", "get_world_size", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "barrier", "monitored_barrier", "all_reduce", "reduce", "broadcast",
           "all_gather", "all_gather_into_tensor", "all_gather_single", "gather", "scatter",
           "reduce_scatter_tensor", "reduce_scatter_single", "all_to_all_single", "send", "recv",
           "isend", "irecv", "broadcast_object_list", "all_gather_object", "gather_object",
           "scatter_object_list", "is_torchelastic_launched"]
