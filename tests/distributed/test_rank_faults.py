"""Faults of a running job under mpiexec: a rank that leaves early, stalls, never
initialises, or passes a tensor of another shape. Each run has a timeout (mpi_run), so a
hang fails its test instead of CI.

torch's words, measured with torch 2.13 on two local gloo processes:

- a peer that exited: ``RuntimeError: [.../gloo/transport/tcp/pair.cc:553] Connection closed
  by peer [127.0.0.1]:PORT. This is typically caused by a remote worker crashing. Check the
  logs of the remote worker before reporting an error. GLHF!`` (and an emoji), at once, for
  the pending collective and every later one;
- a peer alive but not joining: ``RuntimeError: [.../unbound_buffer.cc:78] Timed out waiting
  500ms for recv operation to complete`` after ``barrier(timeout=)`` or the group's timeout,
  and ``Application timeout caused pair closure`` from the group afterwards;
- ``monitored_barrier``: rank 0 raises ``[Rank 0]: Rank 1 failed to pass monitoredBarrier in
  1000 ms\n Original exception: \n[...] Timed out waiting 1000ms for recv operation to
  complete``; another rank that does not hear from rank 0 within the group's timeout raises
  ``Rank 1 successfully reached monitoredBarrier, but received errors while waiting for
  send/recv from rank 0. Please check rank 0 logs for faulty rank.\n Original exception:
  \n...``;
- a peer that never calls init_process_group: ``DistStoreError: Timed out after 4 seconds
  waiting for clients. 1/2 clients joined.`` (a store rendezvous; MPI's has no count);
- ``timeout=5`` (not a timedelta): ``TypeError: Expected timeout argument to be of type
  datetime.timedelta, got 5``;
- tensors of different shapes: gloo reads garbage, hangs or aborts; under
  ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` every rank raises ``RuntimeError: Detected mismatch
  between collectives on ranks. Rank 0 is running collective:
  CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[3],
  TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), ...)), but Rank
  1 is running collective: ... .Collectives differ in the following aspects:   Tensor Tensor
  shapes: 3vs 4`` (``Tensor Tensor dtypes: Floatvs Double`` for dtypes; the device options
  are the same for every CPU tensor, whatever its dtype). gradtrack always checks (an
  all-gather of each rank's shape and dtype before the data).
"""

import json
import os

import pytest
from mpi_run import run

pytest.importorskip("mpi4py")

CLOSED = ("RuntimeError: Connection closed by peer [rank {rank}]. This is typically caused by a "
          "remote worker crashing. Check the logs of the remote worker before reporting an "
          "error. Rank {rank} left the process group before this {op} completed.")
TIMED_OUT = ("RuntimeError: Timed out waiting {ms}ms for recv operation to complete. The other "
             "ranks did not complete this {op} within the timeout.")


def _outcomes(ranks, rank):
    results = ranks[rank]
    assert "worker" not in results, results["worker"]
    return {name: r["outcome"] for name, r in results.items() if isinstance(r, dict)}, results


@pytest.mark.parametrize("n", [2, 3])
def test_a_rank_that_leaves_early_makes_the_others_raise(tmp_path, n):
    ranks = run(n, "faults.py", tmp_path, timeout=90, args=["leaves_early"])
    last = n - 1
    assert ranks[last] == {"first_step": [float(n)] * 4}
    for rank in range(last):
        outcomes, results = _outcomes(ranks, rank)
        assert results["first_step"] == [float(n)] * 4
        assert outcomes == {
            "pending_all_reduce": CLOSED.format(rank=last, op="all_reduce"),
            "later_broadcast": CLOSED.format(rank=last, op="broadcast"),
            "later_barrier": CLOSED.format(rank=last, op="barrier"),
            "later_async_all_reduce": CLOSED.format(rank=last, op="all_reduce"),
            "later_object_collective": CLOSED.format(rank=last, op="all_gather_object"),
            **({"later_recv_from_it": CLOSED.format(rank=last, op="recv")} if rank == 0 else {})}
        # within seconds, far from the group's 60 s timeout; later ones at once
        assert results["pending_all_reduce"]["seconds"] < 30
        assert results["later_barrier"]["seconds"] < 1
        if n > 2:
            assert results["group_without_it"] == [float(n - 1)] * 2


def test_ddp_with_a_rank_one_batch_short_raises_in_backward(tmp_path):
    ranks = run(2, "faults.py", tmp_path, timeout=60, args=["ddp_uneven_batches"])
    assert ranks[1] == {"grad_after_first_step": [4.0, 4.0]}
    outcomes, results = _outcomes(ranks, 0)
    assert results["grad_after_first_step"] == [4.0, 4.0]
    assert outcomes == {"backward_of_the_extra_batch": CLOSED.format(rank=1, op="all_reduce")}


def test_a_rank_killed_by_a_signal_ends_the_whole_job(tmp_path):
    # The group's timeout is 10 minutes: only mpiexec ending the job keeps this under 60 s.
    with pytest.raises(AssertionError) as failed:
        run(2, "faults.py", tmp_path, timeout=60, args=["killed"])
    message = str(failed.value)
    assert "timed out" not in message and "exited" in message
    assert "Killed (signal 9)" in message
    # MPICH's node-shared file (/dev/shm/mpich_shm_*), which only MPI_Finalize would
    # unlink, did not outlive the job: the ranks unlinked it once all of them mapped it.
    ranks = [json.loads((tmp_path / f"faults.py.2.{r}").read_text()) for r in range(2)]
    files = {name for r in ranks for name in r["node_files"]}
    assert files and all(name.startswith("/dev/shm/mpich_shm_") for name in files)
    assert [r["node_files_after_init"] for r in ranks] == [[], []]
    assert [name for name in files if os.path.exists(name)] == []


def test_a_rank_that_destroys_the_group_makes_the_others_raise(tmp_path):
    ranks = run(2, "faults.py", tmp_path, timeout=60, args=["destroys_early"])
    outcomes, _ = _outcomes(ranks, 0)
    assert outcomes == {"pending_barrier": CLOSED.format(rank=1, op="barrier")}


def test_timeouts_of_barrier_of_the_group_and_of_wait(tmp_path):
    ranks = run(2, "faults.py", tmp_path, timeout=60, args=["stalls"])
    outcomes, results = _outcomes(ranks, 0)
    assert outcomes == {
        "barrier_timeout": TIMED_OUT.format(ms=500, op="barrier"),
        "barrier_float_timeout": TIMED_OUT.format(ms=500, op="barrier"),
        "barrier_int_timeout": (
            "TypeError: (): incompatible function arguments. The following argument types are "
            "supported:\n    1. (self: torch._C._distributed_c10d.BarrierOptions, arg0: "
            "datetime.timedelta) -> None\n\nInvoked with: 1"),
        "work_wait_timeout": TIMED_OUT.format(ms=500, op="barrier"),
        "group_timeout": TIMED_OUT.format(ms=2000, op="all_reduce"),
        "after_a_timeout": "RuntimeError: Application timeout caused pair closure"}
    assert 0.5 <= results["barrier_timeout"]["seconds"] < 5
    assert 2 <= results["group_timeout"]["seconds"] < 10


def test_monitored_barrier_names_the_rank_that_did_not_come(tmp_path):
    ranks = run(3, "faults.py", tmp_path, timeout=60, args=["monitored"])
    assert ranks[2] == {}
    outcomes, _ = _outcomes(ranks, 0)
    assert outcomes == {
        "first": ("RuntimeError: [Rank 0]: Rank 2 failed to pass monitoredBarrier in 1000 ms\n "
                  "Original exception: \n" + TIMED_OUT.format(ms=1000, op="monitored_barrier")
                  .removeprefix("RuntimeError: ")),
        "wait_all_ranks": ("RuntimeError: [Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier "
                           "in 500 ms")}
    outcomes, _ = _outcomes(ranks, 1)
    assert outcomes == {
        "first": ("RuntimeError: Rank 1 successfully reached monitoredBarrier, but received "
                  "errors while waiting for send/recv from rank 0. Please check rank 0 logs for "
                  "faulty rank.\n Original exception: \n"
                  + TIMED_OUT.format(ms=2000, op="monitored_barrier").removeprefix("RuntimeError: "))}


def test_init_process_group_timeout(tmp_path):
    ranks = run(2, "faults.py", tmp_path, timeout=60, args=["init_alone"])
    outcomes, results = _outcomes(ranks, 0)
    assert outcomes == {
        "init_timeout": ("DistStoreError: Timed out after 1 seconds waiting for clients. Not "
                         "every rank of the MPI job called init_process_group."),
        "init_int_timeout": ("TypeError: Expected timeout argument to be of type "
                             "datetime.timedelta, got 1")}
    assert results["initialized"] is False


def _fingerprint(op, shape, dtype="Float"):
    return (f"CollectiveFingerPrint(SequenceNumber={{seq}}, OpType={op}, TensorShape={shape}, "
            f"TensorDtypes={dtype}, TensorDeviceTypes=TensorOptions(dtype=float (default), "
            "device=cpu, layout=Strided (default), requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt)))")


def test_mismatched_shapes_raise_on_every_rank(tmp_path):
    ranks = run(2, "faults.py", tmp_path, timeout=60, args=["mismatched"])
    cases = {  # name: (op, rank 0's shape, rank 1's shape, dtypes, aspects)
        "all_reduce_1d": ("ALLREDUCE", "[3]", "[4]", ("Float", "Float"),
                          ["  Tensor Tensor shapes: 3vs 4", "  Tensor Tensor shapes: 4vs 3"]),
        "all_reduce_2d": ("ALLREDUCE", "[2, 3]", "[3, 2]", ("Float", "Float"),
                          ["  Tensor Tensor shapes: 2 3vs 3 2", "  Tensor Tensor shapes: 3 2vs 2 3"]),
        "all_reduce_dtype": ("ALLREDUCE", "[3]", "[3]", ("Float", "Double"),
                             ["  Tensor Tensor dtypes: Floatvs Double",
                              "  Tensor Tensor dtypes: Doublevs Float"]),
        "broadcast": ("BROADCAST", "[3]", "[4]", ("Float", "Float"),
                      ["  Tensor Tensor shapes: 3vs 4", "  Tensor Tensor shapes: 4vs 3"]),
        "reduce": ("REDUCE", "[1]", "[2]", ("Float", "Float"),
                   ["  Tensor Tensor shapes: 1vs 2", "  Tensor Tensor shapes: 2vs 1"]),
    }
    for rank in (0, 1):
        outcomes, results = _outcomes(ranks, rank)
        for seq, (name, (op, s0, s1, dtypes, aspects)) in enumerate(cases.items()):
            prints = [_fingerprint(op, s0, dtypes[0]).format(seq=seq),
                      _fingerprint(op, s1, dtypes[1]).format(seq=seq)]
            other = 1 - rank
            assert outcomes[name] == (
                f"RuntimeError: Detected mismatch between collectives on ranks. Rank {rank} is "
                f"running collective: {prints[rank]}, but Rank {other} is running collective: "
                f"{prints[other]}.Collectives differ in the following aspects: {aspects[rank]}")
        assert results["after"] == [3.0, 3.0]
