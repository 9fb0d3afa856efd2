"""DistributedDataParallel on 2 and 3 MPI ranks: parameters identical on every rank after
every step and equal to one process on the whole batch; torch's errors and versions."""

import pytest
from mpi_run import run

pytest.importorskip("mpi4py")

CHECKS = ["sgd_momentum_equals_one_process_on_the_whole_batch",
          "tiny_buckets_many_all_reduces_same_result",
          "construction_broadcasts_rank0_and_bumps_versions_once", "grad_versions_as_torchs",
          "no_sync_accumulates_locally_then_averages",
          "unused_parameter_without_find_unused_is_torchs_error",
          "find_unused_parameters_averages_what_was_used", "module_state_dict_repr_and_errors"]


@pytest.fixture(scope="module", params=[2, 3])
def ranks(request, tmp_path_factory):
    return run(request.param, "ddp.py", tmp_path_factory.mktemp("mpi"))


@pytest.mark.parametrize("name", CHECKS)
def test_ddp_on_every_rank(ranks, name):
    for rank, results in enumerate(ranks):
        assert results.get(name) == "ok", f"rank {rank}: {results.get(name)}"
