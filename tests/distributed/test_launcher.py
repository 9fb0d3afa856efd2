"""``python -m gradtrack.distributed.run``, torchrun's command line on MPI: each rank gets
torchrun's variables, ``init_process_group`` (default and ``env://``) forms the world, a
failing rank ends the others and the launcher's exit code, and torchrun's flags. Every
run has a timeout, and the launcher's process group is killed when it is up."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import gradtrack.distributed as dist

pytest.importorskip("mpi4py")

SCRIPT = textwrap.dedent("""
    import json, os, sys
    import gradtrack
    import gradtrack.distributed as dist

    keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
            "MASTER_PORT", "GROUP_RANK", "ROLE_RANK", "TORCHELASTIC_RUN_ID", "OMP_NUM_THREADS"]
    env = {k: os.environ.get(k) for k in keys}
    launched = dist.is_torchelastic_launched()
    if sys.argv[2] == "env":
        dist.init_process_group(init_method="env://")
    else:
        dist.init_process_group("gloo")
    t = gradtrack.tensor([float(dist.get_rank())])
    dist.all_reduce(t)
    out = dict(env=env, launched=launched, rank=dist.get_rank(),
               world=dist.get_world_size(), total=t.item(), argv=sys.argv[1:],
               main=__name__)
    with open(os.path.join(sys.argv[1], os.environ["RANK"] + ".json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()
""")


def launch(args, cwd, timeout=90):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "RANK")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    proc = subprocess.Popen([sys.executable, "-m", "gradtrack.distributed.run", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"the launcher timed out after {timeout} s:\n{out}\n{err}")
    return proc.returncode, out, err


@pytest.mark.parametrize("flags,mode", [(["--nproc-per-node", "2"], "env"),
                                        (["--nproc_per_node=3", "--standalone"], "default"),
                                        (["--nnodes=1", "--nproc-per-node", "2",
                                          "--master-addr", "127.0.0.1", "--master-port",
                                          "29517"], "env")])
def test_ranks_get_torchruns_environment(tmp_path, flags, mode):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    code, out, err = launch([*flags, str(script), str(tmp_path), mode], tmp_path)
    assert code == 0, out + err
    n = 3 if "--nproc_per_node=3" in flags else 2
    results = [json.loads((tmp_path / f"{r}.json").read_text()) for r in range(n)]
    run_ids = {r["env"]["TORCHELASTIC_RUN_ID"] for r in results}
    assert len(run_ids) == 1 and None not in run_ids  # one job, as torchrun's
    for rank, r in enumerate(results):
        env = r["env"]
        assert (r["rank"], r["world"], r["total"]) == (rank, n, float(sum(range(n))))
        assert env["RANK"] == env["LOCAL_RANK"] == env["ROLE_RANK"] == str(rank)
        assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == str(n)
        assert env["GROUP_RANK"] == "0" and env["OMP_NUM_THREADS"] == "1"
        assert r["launched"] is True and r["main"] == "__main__"
        assert r["argv"] == [str(tmp_path), mode]
        if "--master-port" in flags:
            assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("127.0.0.1", "29517")
        else:
            assert env["MASTER_ADDR"] == "localhost" and int(env["MASTER_PORT"]) > 0
    # torchrun's banner when it sets OMP_NUM_THREADS for the ranks
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in err


def test_a_failing_rank_ends_the_others(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(textwrap.dedent("""
        import os, sys, time
        if os.environ["RANK"] == "1":
            sys.exit(3)
        time.sleep(120)  # the launcher must not wait for this rank
    """))
    code, out, err = launch(["--nproc-per-node", "2", str(script)], tmp_path, timeout=60)
    assert code == 1, out + err
    assert f"{script} FAILED" in err and "first failure: rank 1 (local_rank: 1) ended with exit code 3" in err


def test_an_exception_in_a_rank_fails_the_launch(tmp_path):
    script = tmp_path / "raise.py"
    script.write_text(textwrap.dedent("""
        import os
        import gradtrack.distributed as dist
        dist.init_process_group()
        if dist.get_rank() == 0:
            raise ValueError("rank zero broke")
        dist.barrier()  # rank 1 waits here for a rank that is gone
    """))
    code, out, err = launch(["--nproc-per-node", "2", str(script)], tmp_path, timeout=60)
    assert code == 1 and "ValueError: rank zero broke" in out + err


def test_module_flag_and_errors(tmp_path):
    (tmp_path / "hello_rank.py").write_text("import os\nprint('rank', os.environ['RANK'])\n")
    code, out, err = launch(["--nproc-per-node", "2", "-m", "hello_rank"], tmp_path)
    assert code == 0 and sorted(out.split("\n")[:2]) == ["rank 0", "rank 1"], out + err
    code, out, err = launch(["--nproc-per-node", "0", "x.py"], tmp_path)
    assert code != 0 and "Unsupported nproc_per_node value: 0" in err
    code, out, err = launch(["--nnodes", "2", "x.py"], tmp_path)
    assert code != 0 and "mpiexec -hosts" in err


def test_not_launched_here():
    assert dist.is_torchelastic_launched() is ("TORCHELASTIC_RUN_ID" in os.environ)


def test_ranks_from_mp_spawn_fail_at_once_naming_the_launcher(tmp_path):
    script = tmp_path / "spawned.py"
    script.write_text(textwrap.dedent("""
        import gradtrack.distributed as dist
        import gradtrack.multiprocessing as mp

        def rank(i, world):
            dist.init_process_group("gloo", rank=i, world_size=world)

        if __name__ == "__main__":
            try:
                mp.spawn(rank, args=(2,), nprocs=2)
            except mp.ProcessRaisedException as e:
                print(str(e).strip().splitlines()[-1])
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.stdout.startswith(
        "RuntimeError: init_process_group: a world of 2 ranks was asked for, but this process "
        "is alone in its MPI world."), out.stdout + out.stderr
    assert "python -m gradtrack.distributed.run --nproc-per-node 2 script.py" in out.stdout
