"""One fault of a running job per run (argv[2]); each rank records what it saw.

Every rank writes ``{check: "ok" or traceback}`` to ``argv[1].<rank>`` before it
leaves, so a rank that leaves early reports too. A check records the exception a
collective raised (type and message) and how long it took to raise.
"""

import datetime
import json
import sys
import time
import traceback

from mpi4py import MPI

import gradtrack as gt
import gradtrack.distributed as dist

RANK, SIZE = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
LAST = SIZE - 1
results = {}


def record(name, fn, *args, **kwargs):
    """Runs ``fn``; records the exception it raised (or "returned") and the seconds it took."""
    start = time.monotonic()
    try:
        fn(*args, **kwargs)
        outcome = "returned"
    except Exception as e:  # noqa: BLE001 - the test compares it
        outcome = f"{type(e).__name__}: {e}"
    results[name] = {"outcome": outcome, "seconds": time.monotonic() - start}


def finish():
    with open(f"{sys.argv[1]}.{RANK}", "w") as f:
        json.dump(results, f)


def seconds(s):
    return datetime.timedelta(seconds=s)


def leaves_early():
    """The last rank has one batch fewer and exits; the others are in its all_reduce."""
    dist.init_process_group("mpi", timeout=seconds(60))
    others = dist.new_group(list(range(SIZE - 1)))  # every rank but the one that leaves
    t = gt.ones(4)
    dist.all_reduce(t)  # a step every rank takes
    results["first_step"] = t.tolist()
    if RANK == LAST:
        finish()
        sys.exit(0)  # the interpreter's exit says farewell
    record("pending_all_reduce", dist.all_reduce, gt.ones(4))
    record("later_broadcast", dist.broadcast, gt.ones(4), 0)
    record("later_barrier", dist.barrier)
    record("later_async_all_reduce", lambda: dist.all_reduce(gt.ones(4), async_op=True).wait())
    record("later_object_collective", dist.all_gather_object, [None] * SIZE, RANK)
    if RANK == 0:
        record("later_recv_from_it", dist.recv, gt.zeros(1), LAST)
    if SIZE > 2:  # a group without the rank that left still works
        u = gt.ones(2)
        dist.all_reduce(u, group=others)
        results["group_without_it"] = u.tolist()


def ddp_uneven_batches():
    """DistributedDataParallel where the last rank has one batch fewer: the others' backward
    of the extra batch raises instead of hanging in the gradient all_reduce."""
    from gradtrack.nn.parallel import DistributedDataParallel
    dist.init_process_group("mpi", timeout=seconds(60))
    gt.manual_seed(0)
    model = DistributedDataParallel(gt.nn.Linear(3, 2))
    model(gt.ones(4, 3)).sum().backward()  # the step every rank takes
    results["grad_after_first_step"] = model.module.bias.grad.tolist()
    if RANK == LAST:
        return  # no batch left: finish() and the interpreter's exit say farewell
    loss = model(gt.ones(4, 3)).sum()
    record("backward_of_the_extra_batch", loss.backward)


def killed():
    """Rank 1 is killed by a signal while rank 0 waits in all_reduce: it cannot say farewell,
    and mpiexec ends the whole job."""
    import os
    import signal

    from gradtrack.distributed import _mpich_shm
    # MPICH's node file, mapped since MPI_Init; gone once the group is up, so the killed
    # job leaves nothing in /dev/shm (NOTE [MPICH's shared-memory file]).
    results["node_files"] = _mpich_shm.mapped_names()
    dist.init_process_group("mpi", timeout=seconds(600))
    results["node_files_after_init"] = _mpich_shm.mapped_names()
    finish()  # the job ends below, before the usual finish()
    MPI.COMM_WORLD.Barrier()  # both files written before rank 1 dies
    if RANK == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    dist.all_reduce(gt.ones(2))


def destroys_early():
    """Rank 1 destroys the default group (and lives on) while rank 0 waits in a barrier."""
    dist.init_process_group("mpi", timeout=seconds(60))
    if RANK == 1:
        dist.destroy_process_group()
        time.sleep(2)
        return
    record("pending_barrier", dist.barrier)


def stalls():
    """Rank 1 is alive but does not join for 6 s: timeouts of the call and of the group. A
    group whose collective timed out is unusable (as gloo's), so each case has its own."""
    dist.init_process_group("mpi", timeout=seconds(60))  # imports may take seconds on a busy host
    groups = [dist.new_group([0, 1]) for _ in range(3)]
    two_seconds = dist.new_group([0, 1], timeout=seconds(2))
    if RANK == 1:
        time.sleep(6)
        return
    record("barrier_timeout", dist.barrier, groups[0], timeout=seconds(0.5))
    record("barrier_float_timeout", dist.barrier, groups[1], timeout=0.5)
    record("barrier_int_timeout", dist.barrier, groups[2], timeout=1)
    work = dist.barrier(groups[2], async_op=True)
    record("work_wait_timeout", work.wait, timeout=seconds(0.5))
    record("group_timeout", dist.all_reduce, gt.ones(3), group=two_seconds)
    record("after_a_timeout", dist.barrier, groups[0])


def monitored():
    """Rank 2 does not reach monitored_barrier: rank 0 names it, rank 1 is told to look at
    rank 0's logs."""
    dist.init_process_group("mpi", timeout=seconds(60))
    first, second = dist.new_group(timeout=seconds(2)), dist.new_group()
    if RANK == 2:
        time.sleep(5)
        return
    record("first", dist.monitored_barrier, first, timeout=seconds(1))
    if RANK == 0:
        record("wait_all_ranks", dist.monitored_barrier, second, timeout=seconds(0.5),
               wait_all_ranks=True)


def init_alone():
    """Rank 1 never calls init_process_group."""
    if RANK == 1:
        time.sleep(3)
        return
    record("init_timeout", dist.init_process_group, "mpi", timeout=seconds(1))
    record("init_int_timeout", dist.init_process_group, "mpi", timeout=1)
    results["initialized"] = dist.is_initialized()


def mismatched():
    """Ranks pass tensors of different shapes or dtypes, then agree again."""
    dist.init_process_group("mpi")
    record("all_reduce_1d", dist.all_reduce, gt.ones(3 + RANK))
    record("all_reduce_2d", dist.all_reduce, gt.ones(2, 3) if RANK == 0 else gt.ones(3, 2))
    record("all_reduce_dtype", dist.all_reduce,
           gt.ones(3) if RANK == 0 else gt.ones(3, dtype=gt.float64))
    record("broadcast", dist.broadcast, gt.ones(3 + RANK), 0)
    record("reduce", dist.reduce, gt.ones(1 + RANK), 0)
    t = gt.full((2,), float(RANK + 1))
    dist.all_reduce(t)  # the group still works once the shapes agree
    results["after"] = t.tolist()
    dist.destroy_process_group()


try:
    globals()[sys.argv[2]]()
except Exception:  # noqa: BLE001 - the test prints it
    results["worker"] = traceback.format_exc()
finish()
