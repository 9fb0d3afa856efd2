"""gradtrack.distributed's collectives on 2 and 3 MPI ranks, each against numpy, and the
errors torch raises before any process group exists."""

import pytest
from mpi_run import run

import gradtrack as gt
import gradtrack.distributed as dist

pytest.importorskip("mpi4py")

CHECKS = ["all_reduce_every_dtype_and_op", "all_reduce_avg_on_integers_is_torchs_error",
          "all_reduce_async_work",
          "all_reduce_of_a_2d_and_a_0d_tensor_and_a_leaf_that_requires_grad",
          "reduce_to_the_last_rank", "broadcast_from_every_rank", "all_gather_into_a_list",
          "all_gather_into_tensor_and_single", "gather_to_rank_1_and_scatter_from_it",
          "reduce_scatter_tensor_sum_and_avg", "all_to_all_single_even_and_with_splits",
          "send_recv_around_the_ring", "objects_are_pickled_across",
          "gather_and_scatter_objects_and_root_0_by_default", "groups_and_non_members",
          "errors_are_torchs", "barrier_destroy_and_init_again"]


@pytest.fixture(scope="module", params=[2, 3])
def ranks(request, tmp_path_factory):
    return run(request.param, "collectives.py", tmp_path_factory.mktemp("mpi"))


@pytest.mark.parametrize("name", CHECKS)
def test_collective_on_every_rank(ranks, name):
    for rank, results in enumerate(ranks):
        assert results.get(name) == "ok", f"rank {rank}: {results.get(name)}"


NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                   "init_process_group.")


@pytest.mark.parametrize("call", [
    lambda: dist.all_reduce(gt.ones(2)), lambda: dist.broadcast(gt.ones(2), 0),
    lambda: dist.barrier(), lambda: dist.get_rank(), lambda: dist.get_world_size(),
    lambda: dist.get_backend(), lambda: dist.new_group([0])])
def test_before_init_process_group_torchs_error(torch, call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as ours:
        call()
    with pytest.raises(ValueError) as theirs:
        torch.distributed.all_reduce(torch.ones(2))
    assert str(ours.value) == str(theirs.value) == NOT_INITIALIZED


def test_destroy_before_init_is_torchs_error():
    with pytest.raises(AssertionError, match="^Process group cannot be None$"):
        dist.destroy_process_group()


def test_unknown_and_missing_backends_are_torchs_errors():
    with pytest.warns(UserWarning, match="Device capability of foo unknown"):
        with pytest.raises(AssertionError, match="^Unknown backend type foo$"):
            dist.init_process_group("foo")
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_import_gradtrack_does_not_start_mpi():
    import subprocess
    import sys
    code = "import sys, gradtrack; print('mpi4py' in sys.modules, gradtrack.distributed.is_available())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"]


def test_reduce_op_and_backend_names_are_torchs(torch):
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(torch.distributed.ReduceOp, name)
        assert repr(ours) == repr(theirs) and int(ours) == int(theirs)
    assert dist.Backend("MPI") == torch.distributed.Backend("MPI") == "mpi"


def test_an_uncaught_exception_on_one_rank_ends_the_whole_job(tmp_path):
    with pytest.raises(AssertionError) as failed:
        run(2, "one_rank_dies.py", tmp_path, timeout=60)
    message = str(failed.value)
    assert "timed out" not in message and "exited" in message
    assert "RuntimeError: rank 1 fails on purpose" in message
