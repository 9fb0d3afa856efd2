"""Waiting on MPI with a deadline, noticing ranks that left, and checking that the ranks
run the same collective.

NOTE [Ranks that leave]
MPI has no notion of a peer that went away: a collective one of whose ranks exited
never completes, and the others block in it forever. torch's gloo sees the TCP
connection close and raises at once ("Connection closed by peer"), and it raises
after the process group's timeout when a peer is alive but never joins. gradtrack
gets both failures this way:

- no wait blocks inside MPI: every one polls its non-blocking requests against the
  group's deadline (``timeout=`` of ``init_process_group`` / ``new_group``, or the
  call's own, as ``barrier(timeout=)``; torch's default is 30 minutes);
- a rank that leaves (its interpreter exits, or it destroys the default group) first
  sends a farewell (which world it leaves) to every other rank, on a communicator of its own; a
  waiting rank that finds one from a member of its group raises torch's error if its
  request still does not complete within a short grace. The grace covers a peer that
  finished this very collective and then left: its part may still be on the way.
  Every later collective on a group with a departed member raises at once, as gloo's.

A rank killed by a signal (or ``os._exit``) cannot say goodbye; mpiexec then ends the
whole job (MPI's rule), which is not a hang either. An eager 8-byte send completes
without its receiver, so farewells that nobody reads do not hold up ``MPI_Finalize``.
Every rank creates its worlds in the same order (init_process_group is collective), so
the count of worlds names one across ranks.
"""

import array
import atexit
import datetime
import time

DEFAULT_TIMEOUT = 1800.0  # torch's default_pg_timeout: 30 minutes
GRACE = 1.0  # seconds a request may still take after its peer said farewell
_FAREWELL_TAG = 1

CLOSED = ("Connection closed by peer [rank {rank}]. This is typically caused by a remote worker "
          "crashing. Check the logs of the remote worker before reporting an error. Rank {rank} "
          "left the process group before this {op} completed.")
TIMED_OUT = ("Timed out waiting {ms}ms for recv operation to complete. The other ranks did not "
             "complete this {op} within the timeout.")


class _Farewells:
    comm = None  # the world's farewell communicator (global ranks)
    epoch = 0  # which world of this process: init_process_group calls so far
    me = -1  # this process's rank in it
    left = set()  # global ranks that said farewell to this world
    sent = []  # (request, buffer) pairs: the buffers live until the sends completed
    registered = False


_farewells = _Farewells()


def seconds(timeout, default=DEFAULT_TIMEOUT):
    """``timeout`` (a ``datetime.timedelta``, None for ``default``) in seconds, checked as
    torch's ``init_process_group`` / ``new_group`` check it."""
    if timeout is None:
        return default
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    return timeout.total_seconds()


def call_seconds(timeout, default):
    """A collective's own ``timeout=``: a timedelta or (as torch's binding converts it) a float
    of seconds; None keeps the group's."""
    if timeout is None:
        return default
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, float):
        return timeout
    raise TypeError("(): incompatible function arguments. The following argument types are "
                    "supported:\n    1. (self: torch._C._distributed_c10d.BarrierOptions, arg0: "
                    f"datetime.timedelta) -> None\n\nInvoked with: {timeout!r}")


# ---- farewells ------------------------------------------------------------------------------

def open_world(comm):
    """Starts listening for farewells on a duplicate of the new world's communicator."""
    _farewells.comm = comm.Dup()
    _farewells.me = comm.Get_rank()
    _farewells.left = set()
    _farewells.epoch += 1
    if not _farewells.registered:
        _farewells.registered = True
        atexit.register(say_farewell)  # runs before mpi4py's MPI_Finalize


def say_farewell():
    """Tells every other rank of the world that this one leaves it (once per world)."""
    comm = _farewells.comm
    if comm is None:
        return
    _farewells.comm = None
    from mpi4py import MPI
    if MPI.Is_finalized():
        return
    me = comm.Get_rank()
    buf = array.array("q", [_farewells.epoch])
    for r in range(comm.Get_size()):
        if r != me:
            _farewells.sent.append((comm.Isend([buf, MPI.INT64_T], r, _FAREWELL_TAG), buf))
    MPI.Request.Testall([req for req, _ in _farewells.sent])
    comm.Free()  # MPI frees it once the sends completed


def _departed(pg):
    """The first member of ``pg`` (other than this rank) known to have left, or None."""
    comm = _farewells.comm
    if comm is None:
        return None
    from mpi4py import MPI
    status = MPI.Status()
    while comm.Iprobe(MPI.ANY_SOURCE, _FAREWELL_TAG, status):
        source = status.Get_source()
        epoch = array.array("q", [0])
        comm.Recv([epoch, MPI.INT64_T], source, _FAREWELL_TAG)
        # MPI reuses a freed communicator's context for the next one, so a farewell to a
        # destroyed world may arrive here: only this world's count.
        if epoch[0] == _farewells.epoch:
            _farewells.left.add(source)
    return _first_departed(pg)


def _first_departed(pg):
    if not _farewells.left:
        return None
    for r in pg._ranks:
        if r != _farewells.me and r in _farewells.left:
            return r
    return None


def keep(request):
    """Keeps a request that nobody waits for (and, through it, its buffer) alive until it
    completes: MPI may still write into a buffer whose request was dropped."""
    _in_flight[:] = [r for r in _in_flight if not r.Test()]
    _in_flight.append(request)


_in_flight = []  # requests of sends not waited for, and of collectives that failed


def check_members(pg, op_name):
    """Raises torch's error at once when a member of ``pg`` is already known to have left, or
    a collective on ``pg`` timed out: the late ranks' parts of it could otherwise complete
    a later collective (gloo closes its connections after a timeout too)."""
    if pg._timed_out:
        raise RuntimeError("Application timeout caused pair closure")
    gone = _first_departed(pg)
    if gone is not None:
        raise RuntimeError(CLOSED.format(rank=gone, op=op_name))


# ---- waiting --------------------------------------------------------------------------------

def wait(requests, pg, op_name, timeout=None, statuses=None):
    """Completes ``requests`` (of a collective on ``pg``), or raises torch's error when a
    member of ``pg`` left or the timeout (the group's if None) ran out."""
    from mpi4py import MPI
    if MPI.Request.Testall(requests, statuses):
        return
    limit = pg._timeout if timeout is None else timeout
    start = time.monotonic()
    gone, gone_at = None, 0.0
    while not MPI.Request.Testall(requests, statuses):
        now = time.monotonic()
        if gone is None:
            gone = _departed(pg)
            gone_at = now
        elif now - gone_at > GRACE:
            _in_flight.extend(requests)
            raise RuntimeError(CLOSED.format(rank=gone, op=op_name))
        if now - start > limit:
            _in_flight.extend(requests)
            pg._timed_out = True
            raise RuntimeError(TIMED_OUT.format(ms=int(round(limit * 1000)), op=op_name))
        # As MPI's own wait: poll for a while, then give the core away between polls (on a
        # crowded host the peer may need it to make progress), and back off for a slow peer.
        waited = now - start
        if waited > 0.002:
            time.sleep(0 if waited < 0.05 else min(0.001, waited / 100))


# ---- the same collective on every rank ------------------------------------------------------

_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
_DTYPE_CODES = {name: i for i, name in enumerate(_DTYPE_NAMES)}
_MAX_DIMS = 8  # dims kept in a fingerprint; a deeper shape is compared through a hash


def _fingerprint(seq, op_code, tensor):
    import numpy as np
    shape = list(tensor.shape)
    dtype = str(tensor.dtype).rsplit(".", 1)[-1]
    row = np.full(4 + _MAX_DIMS, -1, dtype=np.int64)
    row[:4] = (seq, op_code, _DTYPE_CODES.get(dtype, 99), len(shape))
    if len(shape) <= _MAX_DIMS:
        row[4:4 + len(shape)] = shape
    else:
        row[4] = hash(tuple(shape)) & 0x7FFFFFFFFFFFFFFF
    return row


def _describe(row, op_name):
    ndim = int(row[3])
    dims = [int(d) for d in row[4:4 + ndim]] if ndim <= _MAX_DIMS else ["..."]
    dtype = list(_DTYPE_NAMES.values())[int(row[2])] if row[2] < len(_DTYPE_NAMES) else "?"
    return (f"CollectiveFingerPrint(SequenceNumber={int(row[0])}, OpType={op_name.upper().replace('_', '')}, "
            f"TensorShape=[{', '.join(map(str, dims))}], TensorDtypes={dtype}, "
            f"TensorDeviceTypes={_CPU_OPTIONS})"), dims, dtype


# torch prints the options of the tensors' device type, the same for every CPU tensor
_CPU_OPTIONS = ("TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), "
                "requires_grad=false (default), pinned_memory=false (default), "
                "memory_format=(nullopt))")
_OP_CODES = {"all_reduce": 0, "reduce": 1, "broadcast": 2}  # the collectives checked


def check_same_tensor(pg, op_name, tensor):
    """Raises torch's "Detected mismatch between collectives on ranks" error (as torch words
    it under ``TORCH_DISTRIBUTED_DEBUG=DETAIL``) when the ranks of ``pg`` run ``op_name``
    on tensors of different shapes or dtypes: MPI would read past the smaller buffer or
    never complete. One small all-gather of each rank's shape and dtype comes first."""
    import numpy as np
    check_members(pg, op_name)
    seq = pg._sequence
    pg._sequence += 1
    if pg.size() == 1:
        return
    mine = _fingerprint(seq, _OP_CODES[op_name], tensor)
    rows = np.empty((pg.size(), mine.size), dtype=np.int64)
    wait([pg._comm.Iallgather(mine, rows)], pg, op_name)
    me = pg.rank()
    for other, row in enumerate(rows):
        if np.array_equal(row[1:], mine[1:]):
            continue
        ours, our_dims, our_dtype = _describe(mine, op_name)
        theirs, their_dims, their_dtype = _describe(row, op_name)
        aspects = ""
        if our_dims != their_dims:
            aspects += (f"  Tensor Tensor shapes: {' '.join(map(str, our_dims))}vs "
                        f"{' '.join(map(str, their_dims))}")
        if our_dtype != their_dtype:
            aspects += f"  Tensor Tensor dtypes: {our_dtype}vs {their_dtype}"
        raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {me} is "
                           f"running collective: {ours}, but Rank {other} is running collective: "
                           f"{theirs}.Collectives differ in the following aspects: {aspects}")
