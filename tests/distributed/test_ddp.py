"""DistributedDataParallel on 2 and 3 MPI ranks: parameters identical on every rank after
every step and equal to one process on the whole batch; torch's errors and versions."""

import pytest
from mpi_run import run

pytest.importorskip("mpi4py")

CHECKS = ["sgd_momentum_equals_one_process_on_the_whole_batch",
          "tiny_buckets_many_all_reduces_same_result",
          "construction_broadcasts_rank0_and_bumps_versions_once", "grad_versions_as_torchs",
          "a_dropped_wrapper_stops_reducing",
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


def test_ddp_digits_example_matches_one_process():
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from mpi_run import mpiexec
    example = Path(__file__).resolve().parents[2] / "examples" / "ddp_digits.py"
    cmd = [mpiexec(), "-n", "2", sys.executable, str(example), "--epochs", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"), start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.returncode == 0, out
    assert "epoch   2" in out and "-> equal (to rounding)" in out, out
