"""Collectives and point-to-point operations on tensors, over MPI.

Tensors go to MPI zero-copy: ``tensor.detach().numpy()`` shares the tensor's
memory, and mpi4py hands that buffer to MPI. MPI writes into the tensor behind
the version counter's back, which is what torch's collectives do too: measured
with torch 2.13 (gloo), ``all_reduce``, ``broadcast``, ``reduce``, ``scatter``,
``all_to_all_single`` and ``recv`` leave ``_version`` unchanged, while the
operations that copy out of a staging buffer bump it (each output of
``all_gather`` / ``gather`` once, ``reduce_scatter_tensor`` once,
``all_gather_into_tensor`` twice). :func:`_bump` reproduces those numbers.

Messages are torch's: its Python-level checks word for word, and for the
checks torch leaves to the backend, the words of torch's MPI backend
(``ProcessGroupMPI``), e.g. "input tensor has to be contiguous" (torch's gloo
backend accepts non-contiguous tensors; its MPI backend, like this one, refuses
them). torch's MPI backend has no AVG, no bool, no ``all_gather_into_tensor``
and no ``reduce_scatter_tensor``; gradtrack has them with gloo's results, and
their size checks (and an invalid root rank) are worded by gradtrack.
"""

import warnings

from . import _faults
from . import distributed_c10d as c10d
from ._work import Work
from .distributed_c10d import ReduceOp

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor",
           "all_gather_single", "gather", "scatter", "reduce_scatter_tensor",
           "reduce_scatter_single", "all_to_all_single", "send", "recv", "isend", "irecv",
           "barrier", "monitored_barrier"]


# ---- argument checks ------------------------------------------------------------------------

def _is_tensor(obj):
    from .. import Tensor
    return isinstance(obj, Tensor)


def _check_single_tensor(param, name):
    if not _is_tensor(param):
        raise TypeError(f"""Invalid function argument. Expected parameter `{name}` of type torch.Tensor
             but got {type(param)} instead.""")


def _check_tensor_list(param, name):
    if not isinstance(param, list):
        raise TypeError(f"""Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]
             but got {type(param)} instead.""")
    if not all(_is_tensor(p) for p in param):
        raise TypeError(f"""Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]
             but got {type(param)} with elements of type {[type(p) for p in param]}.""")


def _same_dtype(*tensors):
    last = None
    for t in tensors:
        for x in (t if isinstance(t, list) else [t]):
            if last is not None and x.dtype is not last:
                raise ValueError(f"Invalid usage of tensors with different dtypesFound {last} and  "
                                 f"{x.dtype}")
            last = x.dtype


def _array(t):
    """The tensor's memory as a flat numpy array (no copy); torch's MPI backend check first."""
    if not t.is_contiguous():
        raise RuntimeError("input tensor has to be contiguous")
    return t.detach().numpy().reshape(-1)


def _bump(t, times=1):
    """Bumps ``t``'s version counter as an in-place write does, in O(1): an in-place op on
    an empty view shares the counter of its base."""
    view = t.detach().view(-1)[:0]
    for _ in range(times):
        view.zero_()


def _group(group, op_name):
    """The process group to run on, or None when this rank is not a member (torch warns and
    does nothing)."""
    if c10d._not_in_group(group):
        rank = c10d.GroupMember.WORLD.rank() if c10d.GroupMember.WORLD is not None else -1
        warnings.warn(f"Running {op_name} on global rank {rank} which does not belong to the "
                      "given group.", UserWarning, stacklevel=3)
        return None
    return group or c10d._default_group()


def _root(pg, global_rank, group_rank, op_name):
    """The root's rank in ``pg``, from a global rank or a group rank, as torch checks them."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
    else:
        if global_rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        group_rank = c10d.get_group_rank(pg, global_rank)
    if not 0 <= group_rank < pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{op_name}: invalid root rank: {group_rank}")
    return group_rank


def _mpi_op(op, dtype):
    """The MPI reduction for ``op`` on ``dtype``; AVG is a SUM followed by a division."""
    MPI = c10d._mpi()
    op = ReduceOp.RedOpType(op.op if isinstance(op, ReduceOp) else op)
    name = str(dtype).rsplit(".", 1)[-1]
    if op == ReduceOp.AVG and not dtype.is_floating_point:
        from .._dtype_names import SCALAR_NAME
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{SCALAR_NAME[name]}")
    if op == ReduceOp.PREMUL_SUM:
        raise RuntimeError("PREMUL_SUM is not supported by the MPI process group")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.is_floating_point:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if name == "bool":  # MPI's logical ops: True + True is True, as torch's bool sum
        table = {ReduceOp.SUM: MPI.LOR, ReduceOp.MAX: MPI.LOR, ReduceOp.BOR: MPI.LOR,
                 ReduceOp.PRODUCT: MPI.LAND, ReduceOp.MIN: MPI.LAND, ReduceOp.BAND: MPI.LAND,
                 ReduceOp.BXOR: MPI.LXOR}
        return table[op]
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def _is_avg(op):
    return (op.op if isinstance(op, ReduceOp) else op) == ReduceOp.AVG


def _run(async_op, pg, name, *args, finish=None, outputs=(), op_name=None, timeout=None):
    """Starts the non-blocking ``comm.I<name>(*args)`` on ``pg``'s communicator. Blocking,
    waits for it (within the timeout, noticing ranks that left: NOTE [Ranks that leave]
    in _faults.py) and runs ``finish``; otherwise returns a Work that does so."""
    op_name = op_name or name.lower()
    _faults.check_members(pg, op_name)
    if op_name not in _faults._OP_CODES:  # check_same_tensor counted those
        pg._sequence += 1
    request = getattr(pg._comm, "I" + name[0].lower() + name[1:])(*args)
    if not async_op:
        _faults.wait([request], pg, op_name, timeout)
        if finish is not None:
            finish()
        return None
    return Work([request], finish, outputs, group=pg, op_name=op_name, timeout=timeout)


def _same_size_and_type(t_in, tensors):
    for t in tensors:
        if t.numel() != t_in.numel() or t.dtype is not t_in.dtype:
            raise RuntimeError("Tensors are not equal in size or data type")
        if not t.is_contiguous():
            raise RuntimeError("input tensor has to be contiguous")


# ---- reductions -----------------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` over the group in place; every rank gets the result.

    >>> import gradtrack, gradtrack.distributed as dist   # doctest: +SKIP
    >>> t = gradtrack.ones(3); dist.all_reduce(t)           # doctest: +SKIP
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    buf = _array(tensor)
    mpi_op = _mpi_op(op, tensor.dtype)
    _faults.check_same_tensor(pg, "all_reduce", tensor)
    finish = (lambda: buf.__itruediv__(pg.size())) if _is_avg(op) else None
    return _run(async_op, pg, "Allreduce", c10d._mpi().IN_PLACE, buf, mpi_op, finish=finish,
                outputs=[tensor], op_name="all_reduce")


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces ``tensor`` over the group; only rank ``dst`` gets the result.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([dist.get_rank() + 1.0])  # doctest: +SKIP
    >>> dist.reduce(t, dst=0)  # doctest: +SKIP
    >>> t  # on rank 0  # doctest: +SKIP
    tensor([3.])
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "reduce")
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "reduce")
    buf = _array(tensor)
    mpi_op = _mpi_op(op, tensor.dtype)
    mine = pg.rank() == root
    _faults.check_same_tensor(pg, "reduce", tensor)
    finish = (lambda: buf.__itruediv__(pg.size())) if _is_avg(op) and mine else None
    send = c10d._mpi().IN_PLACE if mine else buf
    return _run(async_op, pg, "Reduce", send, buf if mine else None, mpi_op, root, finish=finish,
                outputs=[tensor], op_name="reduce")


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies ``tensor`` of rank ``src`` into ``tensor`` on every other rank.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([float(dist.get_rank())])  # doctest: +SKIP
    >>> dist.broadcast(t, src=1)  # doctest: +SKIP
    >>> t  # on both ranks  # doctest: +SKIP
    tensor([1.])
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    root = _root(pg, src, group_src, "broadcast")
    buf = _array(tensor)
    _faults.check_same_tensor(pg, "broadcast", tensor)
    return _run(async_op, pg, "Bcast", buf, root, outputs=[tensor], op_name="broadcast")


def barrier(group=c10d.GroupMember.WORLD, async_op=False, device_ids=None, timeout=None):
    """Blocks until every rank of the group entered barrier.

    ``timeout`` (a ``datetime.timedelta``; the group's timeout if None) bounds the wait:
    past it, or when a rank of the group left, barrier raises torch's ``RuntimeError``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> dist.barrier()  # every rank waits here for the others  # doctest: +SKIP
    """
    pg = _group(group, "barrier")
    if pg is None:
        return None
    limit = _faults.call_seconds(timeout, pg._timeout)
    return _run(async_op, pg, "Barrier", op_name="barrier", timeout=limit)


_ARRIVED_TAG, _RELEASED_TAG = 32001, 32002  # monitored_barrier's messages on the group


def monitored_barrier(group=c10d.GroupMember.WORLD, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not reach it: every other rank tells rank 0
    it arrived and waits for rank 0 to release it; rank 0 raises torch's ``RuntimeError``
    naming the first rank (every rank with ``wait_all_ranks=True``) that did not arrive
    within ``timeout`` (the group's if None).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> dist.monitored_barrier(timeout=datetime.timedelta(seconds=60))  # doctest: +SKIP
    """
    pg = _group(group, "monitored_barrier")
    if pg is None:
        return None
    limit = _faults.call_seconds(timeout, pg._timeout)
    _faults.check_members(pg, "monitored_barrier")
    me, comm = pg.rank(), pg._comm
    if pg.size() == 1:
        return None
    MPI = c10d._mpi()
    if me != 0:
        _faults.keep(comm.Isend([bytearray(1), MPI.BYTE], 0, _ARRIVED_TAG))
        try:
            _faults.wait([comm.Irecv([bytearray(1), MPI.BYTE], 0, _RELEASED_TAG)], pg,
                         "monitored_barrier")
        except RuntimeError as e:
            raise RuntimeError(f"Rank {me} successfully reached monitoredBarrier, but received "
                               "errors while waiting for send/recv from rank 0. Please check rank "
                               f"0 logs for faulty rank.\n Original exception: \n{e}") from None
        return None
    ms = int(round(limit * 1000))
    arrivals = {r: comm.Irecv([bytearray(1), MPI.BYTE], r, _ARRIVED_TAG)
                for r in range(1, pg.size())}
    try:
        _faults.wait(list(arrivals.values()), pg, "monitored_barrier", limit)
    except RuntimeError as e:
        missing = [r for r, req in arrivals.items() if not req.Test()]
        if wait_all_ranks:
            raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, missing))} failed to pass "
                               f"monitoredBarrier in {ms} ms") from None
        raise RuntimeError(f"[Rank 0]: Rank {missing[0]} failed to pass monitoredBarrier in "
                           f"{ms} ms\n Original exception: \n{e}") from None
    for r in arrivals:
        _faults.keep(comm.Isend([bytearray(1), MPI.BYTE], r, _RELEASED_TAG))
    return None


# ---- gathers and scatters -------------------------------------------------------------------

def _copy_rows(flat, outputs, bump):
    """Copies row ``i`` of the staging buffer into ``outputs[i]`` (torch's MPI backend stages
    list outputs the same way: their version goes up by one)."""
    def finish():
        import numpy as np
        for row, out in zip(flat, outputs):
            np.copyto(_array(out), row)
            if bump:
                _bump(out)
    return finish


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers ``tensor`` of every rank into ``tensor_list`` (one tensor per rank).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = [gradtrack.zeros(1), gradtrack.zeros(1)]  # doctest: +SKIP
    >>> dist.all_gather(out, gradtrack.tensor([float(dist.get_rank())]))  # doctest: +SKIP
    >>> out  # doctest: +SKIP
    [tensor([0.]), tensor([1.])]
    """
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    _same_dtype(tensor_list, tensor)
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise RuntimeError("All gather: number of output tensors should equal to the world size")
    buf = _array(tensor)
    _same_size_and_type(tensor, tensor_list)
    import numpy as np
    flat = np.empty((pg.size(), buf.size), dtype=buf.dtype)
    return _run(async_op, pg, "Allgather", buf, flat, finish=_copy_rows(flat, tensor_list, True),
                outputs=tensor_list, op_name="all_gather")


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers ``input_tensor`` of every rank into ``output_tensor``, rank after rank.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = gradtrack.zeros(2)  # doctest: +SKIP
    >>> dist.all_gather_single(out, gradtrack.tensor([float(dist.get_rank())]))  # doctest: +SKIP
    >>> out  # doctest: +SKIP
    tensor([0., 1.])
    """
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    _same_dtype(output_tensor, input_tensor)
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    send, recv = _array(input_tensor), _array(output_tensor)
    if recv.size != send.size * pg.size():
        raise RuntimeError("output tensor size must be equal to world_size times input tensor size")
    return _run(async_op, pg, "Allgather", send, recv, finish=lambda: _bump(output_tensor, 2),
                outputs=[output_tensor], op_name="all_gather_into_tensor")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated name of :func:`all_gather_single` (torch 2.13 warns the same way).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = gradtrack.zeros(2)  # doctest: +SKIP
    >>> dist.all_gather_into_tensor(out, gradtrack.tensor([float(dist.get_rank())]))  # doctest: +SKIP
    >>> out  # doctest: +SKIP
    tensor([0., 1.])
    """
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gathers ``tensor`` of every rank into ``gather_list`` on rank ``dst``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([float(dist.get_rank())])  # doctest: +SKIP
    >>> got = [gradtrack.zeros(1), gradtrack.zeros(1)] if dist.get_rank() == 0 else None  # doctest: +SKIP
    >>> dist.gather(t, got, dst=0)  # doctest: +SKIP
    >>> got  # on rank 0  # doctest: +SKIP
    [tensor([0.]), tensor([1.])]
    """
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _same_dtype(tensor, gather_list)
    pg = _group(group, "gather")
    if pg is None:
        return None
    if dst is None and group_dst is None:
        dst = 0  # torch's default root for gather (not for reduce or broadcast)
    root = _root(pg, dst, group_dst, "gather")
    mine = pg.rank() == root
    if mine and not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not mine and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    buf = _array(tensor)
    flat, finish = None, None
    if mine:
        if len(gather_list) != pg.size():
            raise RuntimeError("Gather: number of output tensors should equal to the world size")
        _same_size_and_type(tensor, gather_list)
        import numpy as np
        flat = np.empty((pg.size(), buf.size), dtype=buf.dtype)
        finish = _copy_rows(flat, gather_list, True)
    return _run(async_op, pg, "Gather", buf, flat, root, finish=finish, outputs=gather_list,
                op_name="gather")


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Sends ``scatter_list[i]`` of rank ``src`` into ``tensor`` of rank ``i``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.zeros(1)  # doctest: +SKIP
    >>> parts = [gradtrack.tensor([5.0]), gradtrack.tensor([6.0])] if dist.get_rank() == 0 else None  # doctest: +SKIP
    >>> dist.scatter(t, parts, src=0)  # doctest: +SKIP
    >>> t  # on rank 1  # doctest: +SKIP
    tensor([6.])
    """
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _same_dtype(tensor, scatter_list)
    pg = _group(group, "scatter")
    if pg is None:
        return None
    if src is None and group_src is None:
        src = 0
    root = _root(pg, src, group_src, "scatter")
    mine = pg.rank() == root
    if mine and not scatter_list:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if not mine and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    buf = _array(tensor)
    flat = None
    if mine:
        if len(scatter_list) != pg.size():
            raise RuntimeError("Scatter: number of input tensors should equal to the world size")
        _same_size_and_type(tensor, scatter_list)
        import numpy as np
        flat = np.stack([_array(t) for t in scatter_list])
    return _run(async_op, pg, "Scatter", flat, buf, root, outputs=[tensor], op_name="scatter")


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """Reduces ``input`` over the group and leaves block ``rank`` of the result in ``output``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = gradtrack.zeros(1)  # doctest: +SKIP
    >>> dist.reduce_scatter_single(out, gradtrack.tensor([1.0, 2.0]))  # doctest: +SKIP
    >>> out  # on rank 0  # doctest: +SKIP
    tensor([2.])
    """
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _same_dtype(output, input)
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    send, recv = _array(input), _array(output)
    if send.size != recv.size * pg.size():
        raise RuntimeError("input tensor size must be equal to world_size times output tensor size")
    mpi_op = _mpi_op(op, output.dtype)
    avg = _is_avg(op)

    def finish():
        if avg:
            recv.__itruediv__(pg.size())
        _bump(output)
    return _run(async_op, pg, "Reduce_scatter_block", send, recv, mpi_op, finish=finish,
                outputs=[output], op_name="reduce_scatter_tensor")


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """Deprecated name of :func:`reduce_scatter_single` (torch 2.13 warns the same way).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> out = gradtrack.zeros(1)  # doctest: +SKIP
    >>> dist.reduce_scatter_tensor(out, gradtrack.tensor([1.0, 2.0]))  # doctest: +SKIP
    >>> out  # on rank 1: the sum of every rank's second element  # doctest: +SKIP
    tensor([4.])
    """
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def _counts(splits, t, size):
    """Element counts and offsets of the dim-0 splits of ``t`` (torch's checks and words)."""
    rows = t.shape[0] if t.dim() > 0 else 1
    per_row = t.numel() // rows if rows else 0
    if not splits:
        if rows % size != 0:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
        splits = [rows // size] * size
    elif len(splits) != size:
        raise RuntimeError("Number of tensor splits not equal to group size")
    elif sum(splits) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    counts = [s * per_row for s in splits]
    offsets = [sum(counts[:i]) for i in range(size)]
    return counts, offsets


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,  # noqa: A002
                      group=None, async_op=False):
    """Splits ``input`` along dim 0, sends split ``i`` to rank ``i``, and concatenates what
    every rank sent into ``output``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> r = dist.get_rank()  # doctest: +SKIP
    >>> out = gradtrack.zeros(2)  # doctest: +SKIP
    >>> dist.all_to_all_single(out, gradtrack.tensor([10.0 * r, 10.0 * r + 1]))  # doctest: +SKIP
    >>> out  # on rank 1: element 1 of each rank's input  # doctest: +SKIP
    tensor([ 1., 11.])
    """
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _same_dtype(output, input)
    pg = _group(group, "all_to_all_single")
    if pg is None:
        return None
    send, recv = _array(input), _array(output)
    size = pg.size()
    if not output_split_sizes and not input_split_sizes:
        if send.size != recv.size:
            raise RuntimeError("Tensors are not equal in size or data type")
    scounts, sdispl = _counts(input_split_sizes, input, size)
    rcounts, rdispl = _counts(output_split_sizes, output, size)
    from mpi4py.util import dtlib
    kind = dtlib.from_numpy_dtype(send.dtype)
    return _run(async_op, pg, "Alltoallv", [send, scounts, sdispl, kind],
                [recv, rcounts, rdispl, kind], outputs=[output], op_name="all_to_all_single")


# ---- point to point -------------------------------------------------------------------------

def _peer(pg, global_rank, group_rank, kind):
    peer = _root(pg, global_rank, group_rank, kind)
    if peer == pg.rank():
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of "
                         "the current process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending ``tensor`` to rank ``dst``; returns a Work (None off-group).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([7.0]) if dist.get_rank() == 0 else gradtrack.zeros(1)  # doctest: +SKIP
    >>> work = dist.isend(t, dst=1) if dist.get_rank() == 0 else dist.irecv(t, src=0)  # doctest: +SKIP
    >>> work.wait()  # doctest: +SKIP
    True
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "isend")
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "destination")
    _faults.check_members(pg, "send")
    return Work([pg._comm.Isend(_array(tensor), peer, tag)], group=pg, op_name="send")


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends ``tensor`` to rank ``dst`` and waits until it left.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([7.0])  # doctest: +SKIP
    >>> if dist.get_rank() == 0:  # doctest: +SKIP
    ...     dist.send(t, dst=1)  # doctest: +SKIP
    ... else:  # doctest: +SKIP
    ...     _ = dist.recv(t, src=0)  # doctest: +SKIP
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into ``tensor`` from rank ``src`` (any rank if None).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.tensor([7.0]) if dist.get_rank() == 0 else gradtrack.zeros(1)  # doctest: +SKIP
    >>> work = dist.isend(t, dst=1) if dist.get_rank() == 0 else dist.irecv(t, src=0)  # doctest: +SKIP
    >>> work.wait()  # doctest: +SKIP
    True
    >>> t  # on rank 1  # doctest: +SKIP
    tensor([7.])
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "irecv")
    if pg is None:
        return None
    MPI = c10d._mpi()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _root(pg, src, group_src, "recv")
    status = MPI.Status()
    _faults.check_members(pg, "recv")
    return Work([pg._comm.Irecv(_array(tensor), peer, tag)], outputs=[tensor], status=status,
                group=pg, op_name="recv")


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into ``tensor`` from rank ``src`` (any rank if None); returns the sender's
    global rank (-1 off-group).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> t = gradtrack.zeros(1)  # doctest: +SKIP
    >>> if dist.get_rank() == 1:  # doctest: +SKIP
    ...     _ = dist.recv(t, src=0)  # the rank it came from  # doctest: +SKIP
    ... else:  # doctest: +SKIP
    ...     dist.send(gradtrack.tensor([7.0]), dst=1)  # doctest: +SKIP
    >>> t  # on rank 1  # doctest: +SKIP
    tensor([7.])
    """
    _check_single_tensor(tensor, "tensor")
    pg = _group(group, "recv")
    if pg is None:
        return -1
    work = irecv(tensor, src, pg, tag, group_src)
    work.wait()
    return c10d.get_global_rank(pg, work.source_rank())
