"""Collectives on picklable Python objects.

As torch's, these use :mod:`pickle`: unpickling data from another rank runs
whatever code that data names, so only use them between processes you trust
(the ranks of your own job). mpi4py's lower-case ``bcast`` / ``allgather`` do
the pickling and the transport. Their transport blocks inside MPI, so each
first waits for every rank in a barrier that notices ranks that left and
honours the group's timeout (NOTE [Ranks that leave] in _faults.py).
"""

from ._collectives import _group, _root, _run


def _everyone_here(pg, op_name):
    _run(False, pg, "Barrier", op_name=op_name)

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list"]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces ``object_list``'s items on every rank by those of rank ``src`` (pickled).

    >>> import gradtrack.distributed as dist   # doctest: +SKIP
    >>> objs = [{"lr": 0.1}, 7] if dist.get_rank() == 0 else [None, None]   # doctest: +SKIP
    >>> dist.broadcast_object_list(objs, src=0)   # doctest: +SKIP
    """
    pg = _group(group, "broadcast_object_list")
    if pg is None:
        return
    if src is None and group_src is None:
        src = 0
    root = _root(pg, src, group_src, "broadcast")
    _everyone_here(pg, "broadcast_object_list")
    received = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root)
    if pg.rank() != root:
        object_list[:len(received)] = received


def all_gather_object(object_list, obj, group=None):
    """Fills ``object_list[i]`` with ``obj`` of rank ``i`` (pickled); the list must have one
    slot per rank.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> got = [None, None]  # doctest: +SKIP
    >>> dist.all_gather_object(got, {"rank": dist.get_rank()})  # doctest: +SKIP
    >>> got  # doctest: +SKIP
    [{'rank': 0}, {'rank': 1}]
    """
    pg = _group(group, "all_gather_object")
    if pg is None:
        return
    _everyone_here(pg, "all_gather_object")
    for i, item in enumerate(pg._comm.allgather(obj)):
        object_list[i] = item


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Fills ``object_gather_list[i]`` on rank ``dst`` (default 0) with ``obj`` of rank ``i``
    (pickled); the other ranks pass None.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> got = [None, None] if dist.get_rank() == 0 else None  # doctest: +SKIP
    >>> dist.gather_object(dist.get_rank() * 10, got, dst=0)  # doctest: +SKIP
    >>> got  # on rank 0  # doctest: +SKIP
    [0, 10]
    """
    pg = _group(group, "gather_object")
    if pg is None:
        return
    if dst is None and group_dst is None:
        dst = 0
    root = _root(pg, dst, group_dst, "gather")
    mine = pg.rank() == root
    if mine and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not mine and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _everyone_here(pg, "gather_object")
    gathered = pg._comm.gather(obj, root)
    if mine:
        for i, item in enumerate(gathered):
            object_gather_list[i] = item


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Puts ``scatter_object_input_list[i]`` of rank ``src`` (default 0) into
    ``scatter_object_output_list[0]`` of rank ``i`` (pickled).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = [None]  # doctest: +SKIP
    >>> dist.scatter_object_list(out, ["a", "b"] if dist.get_rank() == 0 else None, src=0)  # doctest: +SKIP
    >>> out  # on rank 1  # doctest: +SKIP
    ['b']
    """
    pg = _group(group, "scatter_object_list")
    if pg is None:
        return
    if src is None and group_src is None:
        src = 0
    root = _root(pg, src, group_src, "scatter")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    if pg.rank() == root and scatter_object_input_list is None:
        raise ValueError("source rank must provide non-None scatter_object_input_list")
    items = list(scatter_object_input_list) if pg.rank() == root else None
    _everyone_here(pg, "scatter_object_list")
    scatter_object_output_list[0] = pg._comm.scatter(items, root)
