"""Collectives on picklable Python objects.

As torch's, these use :mod:`pickle`: unpickling data from another rank runs
whatever code that data names, so only use them between processes you trust
(the ranks of your own job). mpi4py's lower-case ``bcast`` / ``allgather`` do
the pickling and the transport.
"""

from ._collectives import _group, _root

__all__ = ["broadcast_object_list", "all_gather_object"]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces ``object_list``'s items on every rank by those of rank ``src`` (pickled).

    >>> import gradtrack.distributed as dist   # doctest: +SKIP
    >>> objs = [{"lr": 0.1}, 7] if dist.get_rank() == 0 else [None, None]   # doctest: +SKIP
    >>> dist.broadcast_object_list(objs, src=0)   # doctest: +SKIP
    """
    pg = _group(group, "broadcast_object_list")
    if pg is None:
        return
    root = _root(pg, src, group_src, "broadcast")
    received = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root)
    if pg.rank() != root:
        object_list[:len(received)] = received


def all_gather_object(object_list, obj, group=None):
    """Fills ``object_list[i]`` with ``obj`` of rank ``i`` (pickled); the list must have one
    slot per rank."""
    pg = _group(group, "all_gather_object")
    if pg is None:
        return
    for i, item in enumerate(pg._comm.allgather(obj)):
        object_list[i] = item
