"""Process groups on MPI: the state behind ``gradtrack.distributed``.

MPI (through mpi4py) does transport, launch and multi-host: ranks and world
size come from ``mpiexec``, and a process group is an MPI communicator. mpi4py
is imported on the first :func:`init_process_group`, so ``import gradtrack``
neither needs it nor starts MPI.
"""

import enum
import sys
import time
import warnings
from typing import Any

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
           "Backend", "ReduceOp", "ProcessGroup", "GroupMember", "group", "is_available",
           "is_mpi_available", "is_gloo_available", "is_nccl_available", "is_initialized",
           "init_process_group", "destroy_process_group", "new_group", "get_rank",
           "get_world_size", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "is_torchelastic_launched"]

NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                   "init_process_group.")


def is_available():
    """True when mpi4py can be imported (``pip install "gradtrack[distributed]"``).

    >>> import gradtrack.distributed as dist
    >>> isinstance(dist.is_available(), bool)
    True
    """
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_torchelastic_launched():
    """Whether this process was started by a torchrun-style launcher (torch's test: the
    ``TORCHELASTIC_RUN_ID`` variable, which ``python -m gradtrack.distributed.run`` sets).

    >>> import gradtrack.distributed as dist
    >>> isinstance(dist.is_torchelastic_launched(), bool)
    True
    """
    import os
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_mpi_available():
    """The one backend gradtrack has: MPI, when mpi4py is installed.

    >>> import gradtrack.distributed as dist
    >>> isinstance(dist.is_mpi_available(), bool)
    True
    """
    return is_available()


def is_gloo_available():
    """gradtrack has no Gloo: ``backend="gloo"`` runs on MPI (see init_process_group).

    >>> import gradtrack.distributed as dist
    >>> dist.is_gloo_available()  # backend='gloo' runs on MPI
    False
    """
    return False


def is_nccl_available():
    """gradtrack runs on the CPU only: no NCCL.

    >>> import gradtrack.distributed as dist
    >>> dist.is_nccl_available()
    False
    """
    return False


class DistError(RuntimeError):
    """Base of the errors of the distributed package, a ``RuntimeError`` (torch's hierarchy).

    >>> import gradtrack.distributed as dist
    >>> issubclass(dist.DistStoreError, dist.DistError), issubclass(dist.DistError, RuntimeError)
    (True, True)
    """


class DistBackendError(DistError):
    """An error of the communication backend.

    >>> import gradtrack.distributed as dist
    >>> issubclass(dist.DistBackendError, RuntimeError)
    True
    """


class DistNetworkError(DistError):
    """An error of the network between ranks.

    >>> import gradtrack.distributed as dist
    >>> issubclass(dist.DistNetworkError, RuntimeError)
    True
    """


class DistStoreError(DistError):
    """The rendezvous failed: ``init_process_group`` timed out waiting for the other ranks.

    >>> import gradtrack.distributed as dist
    >>> issubclass(dist.DistStoreError, dist.DistError)
    True
    """


class Backend(str):
    """Backend names as torch's: ``Backend("MPI") == "mpi"``.

    >>> import gradtrack.distributed as dist
    >>> dist.Backend("MPI"), dist.Backend.GLOO
    ('mpi', 'gloo')
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return str.__new__(cls, value)


class ReduceOp:
    """Reduction operations: ``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``,
    ``BAND``, ``BOR``, ``BXOR`` (torch's values; PREMUL_SUM is not supported here).

    >>> import gradtrack.distributed as dist
    >>> dist.ReduceOp.SUM, dist.ReduceOp.MAX
    (<RedOpType.SUM: 0>, <RedOpType.MAX: 4>)
    """

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

    def __init__(self, op):
        self.op = ReduceOp.RedOpType(op)

    def __eq__(self, other):
        return self.op == (other.op if isinstance(other, ReduceOp) else other)

    def __hash__(self):
        return hash(self.op)


for _op in ReduceOp.RedOpType:
    setattr(ReduceOp, _op.name, _op)


class ProcessGroup:
    """A group of ranks: an MPI communicator plus the global ranks in group order.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> pg = dist.new_group([0, 1])  # doctest: +SKIP
    >>> pg.rank(), pg.size()  # on rank 0  # doctest: +SKIP
    (0, 2)
    """

    def __init__(self, comm, ranks, timeout=1800.0):
        self._comm = comm
        self._ranks = list(ranks)
        self._timeout = timeout  # seconds: how long a collective may wait for the others
        self._sequence = 0  # collectives run so far, as torch's fingerprints count them
        self._timed_out = False  # a collective timed out: the group is unusable, as gloo's

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return Backend.MPI


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialised; a rank that is
    not in a :func:`new_group` gets ``GroupMember.NON_GROUP_MEMBER`` back.

    >>> import gradtrack.distributed as dist
    >>> dist.GroupMember.WORLD is None  # before init_process_group
    True
    """

    WORLD = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 - torch's name: dist.group.WORLD
    """``dist.group.WORLD``: the default group (None before initialisation).

    >>> import gradtrack.distributed as dist
    >>> dist.group.WORLD is None  # before init_process_group
    True
    """

    WORLD = None


class _State:
    """Every group this process knows, so destroy_process_group frees them all."""

    mpi = None
    groups = []  # ProcessGroup objects other than WORLD, to free their communicators
    previous_excepthook = None


_state = _State()


def _mpi():
    """The MPI module, imported (which initialises MPI) on first use."""
    if _state.mpi is None:
        from mpi4py import MPI
        _state.mpi = MPI
    return _state.mpi


def is_initialized():
    """Whether the default process group has been initialised.

    >>> import gradtrack.distributed as dist
    >>> dist.is_initialized()  # before init_process_group
    False
    """
    return GroupMember.WORLD is not None


def _default_group():
    if GroupMember.WORLD is None:
        raise ValueError(NOT_INITIALIZED)
    return GroupMember.WORLD


def _not_in_group(pg):
    return pg is GroupMember.NON_GROUP_MEMBER


def _check_backend(backend):
    """torch's checks of the backend name; every accepted name runs on MPI."""
    if backend is None:
        return
    name = Backend(backend)
    if name in (Backend.MPI, Backend.GLOO, Backend.UNDEFINED, "cpu:mpi", "cpu:gloo"):
        return
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name == Backend.XCCL:
        raise RuntimeError("Distributed package doesn't have XCCL built in")
    warnings.warn(f"Device capability of {name} unknown, assuming `cpu` and `cuda`. You can "
                  "specify it in `device:backend` format in `init_process_group` call.",
                  UserWarning, stacklevel=3)
    raise AssertionError(f"Unknown backend type {name}")


def _abort_on_uncaught_exception(comm):
    """One rank dying of an exception would leave the others blocked forever in their next
    collective (and in MPI_Finalize). As ``python -m mpi4py`` does, an uncaught
    exception prints its traceback and then aborts the whole MPI job."""
    previous = sys.excepthook
    _state.previous_excepthook = previous

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        # The abort tears the job down at once; give mpiexec a moment to forward the
        # traceback first, or the user sees only its first line.
        time.sleep(0.5)
        comm.Abort(1)
    sys.excepthook = hook


def init_process_group(backend: Any = None, init_method: Any = None, timeout: Any = None, world_size: int = -1,
                       rank: int = -1, store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Initialises the default process group on MPI.

    Rank and world size come from the MPI launcher (``mpiexec -n 2 python train.py``);
    a script started without ``mpiexec`` is a world of one. ``backend`` may be
    ``"mpi"``, ``None`` or ``"gloo"`` (torch's CPU backend name, accepted so a torch
    script runs unchanged; the transport is MPI either way and :func:`get_backend`
    says ``"mpi"``). ``init_method`` and ``store`` are not needed: MPI does the
    rendezvous.

    >>> import gradtrack.distributed as dist
    >>> dist.is_initialized()
    False
    """
    from . import _faults, _mpich_shm
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    limit = _faults.seconds(timeout)
    _check_backend(backend)
    if world_size != -1 or rank != -1:
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored "
                      "since they are assigned by the MPI runtime.", UserWarning, stacklevel=2)
    MPI = _mpi()
    _check_launched_by_mpi(MPI.COMM_WORLD.Get_size(), world_size)
    comm = _rendezvous(MPI.COMM_WORLD, limit)
    # Every rank is past MPI_Init: MPICH's node file can go (NOTE [MPICH's shared-memory file]).
    _mpich_shm.unlink_mapped()
    world = ProcessGroup(comm, range(comm.Get_size()), limit)
    _faults.open_world(comm)
    GroupMember.WORLD = world
    group.WORLD = world
    if comm.Get_size() > 1 and _state.previous_excepthook is None:
        _abort_on_uncaught_exception(MPI.COMM_WORLD)


def _check_launched_by_mpi(mpi_size, world_size):
    """A rank started by mp.spawn (or by torch's own torchrun) is alone in its MPI world:
    fail at once, naming the launcher, rather than train as a world of one."""
    import os
    wanted = world_size if world_size != -1 else int(os.environ.get("WORLD_SIZE") or -1)
    if mpi_size == 1 and wanted > 1:
        raise RuntimeError(
            f"init_process_group: a world of {wanted} ranks was asked for, but this process is "
            "alone in its MPI world. gradtrack's process groups run on MPI, so the ranks must "
            "be started by MPI's launcher: python -m gradtrack.distributed.run "
            f"--nproc-per-node {wanted} script.py (torchrun's command line), or mpiexec -n "
            f"{wanted} python script.py; processes started by mp.spawn cannot join one world.")


def _rendezvous(comm, limit):
    """A duplicate of ``comm`` (our own context: the user's own mpi4py traffic cannot mix in),
    made once every rank called init_process_group; raises torch's ``DistStoreError`` when
    some rank has not within ``limit`` seconds (a blocking duplication would wait forever)."""
    new, request = comm.Idup()
    start = time.monotonic()
    while not request.Test():
        if time.monotonic() - start > limit:
            raise DistStoreError(f"Timed out after {limit:g} seconds waiting for clients. "
                                 "Not every rank of the MPI job called init_process_group.")
        time.sleep(0.001)
    return new


def destroy_process_group(group: Any = None) -> None:  # noqa: F811 - torch's argument name
    """Destroys ``group``; the default group (or None) destroys every group.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> dist.destroy_process_group()  # doctest: +SKIP
    >>> dist.is_initialized()  # doctest: +SKIP
    False
    """
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    world = GroupMember.WORLD
    if world is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is world:
        from . import _faults
        _faults.say_farewell()  # a rank still waiting on this one raises instead of hanging
        for pg in _state.groups:
            pg._comm.Free()
        _state.groups = []
        world._comm.Free()
        GroupMember.WORLD = None
        globals()["group"].WORLD = None
        if _state.previous_excepthook is not None:
            sys.excepthook = _state.previous_excepthook
            _state.previous_excepthook = None
        return
    if group not in _state.groups:
        raise ValueError("Invalid process group specified")
    _state.groups.remove(group)
    group._comm.Free()


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None, sort_ranks=True):
    """A group of the given global ranks; every rank of the world must call it.

    Ranks outside the group get ``GroupMember.NON_GROUP_MEMBER`` (their rank in it
    is -1, and collectives on it are skipped with a warning, as torch's).

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> evens = dist.new_group([0])  # doctest: +SKIP
    >>> dist.get_world_size(evens) if dist.get_rank() == 0 else None  # doctest: +SKIP
    1
    """
    world = _default_group()
    size = world.size()
    if ranks is None or len(ranks) == 0:
        ranks = list(range(size))
    else:
        ranks = sorted(ranks) if sort_ranks else list(ranks)
        for r in ranks:
            if r < 0 or r >= size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {size - 1} "
                                 f"(world_size={size})")
    _check_backend(backend)
    from . import _faults
    limit = _faults.seconds(timeout)
    MPI = _mpi()
    members = world._comm.Get_group().Incl(ranks)
    comm = world._comm.Create(members)  # collective over the world, as torch's new_group
    members.Free()
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, limit)
    _state.groups.append(pg)
    return pg


def get_rank(group: Any = None) -> int:  # noqa: F811
    """This process's rank in ``group`` (the default group if None); -1 if not a member.

    >>> import gradtrack.distributed as dist
    >>> dist.get_rank()  # before init_process_group
    Traceback (most recent call last):
        ...
    ValueError: Default process group has not been initialized, please make sure to call init_process_group.
    """
    if _not_in_group(group):
        return -1
    pg = group or _default_group()
    return pg.rank()


def get_world_size(group: Any = None) -> int:  # noqa: F811
    """The number of ranks in ``group``; -1 if this process is not a member.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> dist.get_world_size()  # doctest: +SKIP
    2
    """
    if _not_in_group(group):
        return -1
    return (group or _default_group()).size()


def get_backend(group=None):  # noqa: F811
    """The backend of ``group``: always ``"mpi"``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> dist.get_backend()  # doctest: +SKIP
    'mpi'
    """
    pg = group or _default_group()
    if _not_in_group(pg):
        raise ValueError("Invalid process group specified")
    return Backend(pg.name())


def _check_registered(pg):
    if pg not in _state.groups:
        raise ValueError(f"Group {pg} is not registered, please create group with "
                         "torch.distributed.new_group API")


def get_group_rank(group, global_rank):  # noqa: F811
    """The rank in ``group`` of the process with ``global_rank``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> pg = dist.new_group([1])  # doctest: +SKIP
    >>> dist.get_group_rank(pg, 1)  # on rank 1  # doctest: +SKIP
    0
    """
    if group is GroupMember.WORLD:
        return global_rank
    _check_registered(group)
    if global_rank not in group._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return group._ranks.index(global_rank)


def get_global_rank(group, group_rank):  # noqa: F811
    """The global rank of the process with ``group_rank`` in ``group``.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> pg = dist.new_group([1])  # doctest: +SKIP
    >>> dist.get_global_rank(pg, 0)  # on rank 1  # doctest: +SKIP
    1
    """
    if group is GroupMember.WORLD:
        return group_rank
    _check_registered(group)
    if not 0 <= group_rank < len(group._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return group._ranks[group_rank]


def get_process_group_ranks(group):  # noqa: F811
    """The global ranks of ``group``, in group-rank order.

    >>> import gradtrack, gradtrack.distributed as dist  # doctest: +SKIP
    >>> dist.init_process_group("mpi")  # doctest: +SKIP
    >>> pg = dist.new_group([1])  # doctest: +SKIP
    >>> dist.get_process_group_ranks(pg)  # on rank 1  # doctest: +SKIP
    [1]
    """
    return list((group or _default_group())._ranks)
