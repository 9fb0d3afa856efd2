"""Distributed benchmark: gradtrack on MPI against torch on gloo, same run, same machine.

Cases (1 thread per rank):

* ``ddp_step``: one DistributedDataParallel train step (SGD) of the MLP 784-128-10 on
  a batch of 64 per rank; goal: gradtrack <= 0.8x torch's time with 2 ranks;
* ``all_reduce``: a SUM all-reduce of 1M and 16M float32; goal <= 1.0x torch's;
* scaling of the DDP step from 1 to 2 ranks (samples per second, 2 ranks / 1 rank).

Multi-process runs do not fit the single-worker runner of ``python -m benchmarks``, so
this is a script of its own: ``python -m benchmarks.distributed [--reps 200]``.
gradtrack runs under the ``mpiexec`` next to this Python (the mpich wheel's); torch
runs its ranks with ``MASTER_ADDR``/``MASTER_PORT`` set, as ``torchrun`` would.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

GOALS = {"ddp_step": 0.8, "all_reduce 1M": 1.0, "all_reduce 16M": 1.0}


def _timeit(fn, reps, barrier):
    fn()
    barrier()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    barrier()
    return (time.perf_counter() - start) / reps


def worker(lib_name, reps, out):
    """One rank: measures every case and (rank 0) writes the times in seconds to ``out``."""
    if lib_name == "torch":
        import torch as T
        backend = "gloo"
    else:
        import gradtrack as T
        backend = "mpi"
    import importlib
    dist = importlib.import_module(f"{lib_name}.distributed")
    T.set_num_threads(1)
    dist.init_process_group(backend)
    ddp_cls = importlib.import_module(f"{lib_name}.nn.parallel").DistributedDataParallel
    results = {}
    for label, n in (("all_reduce 1M", 1 << 20), ("all_reduce 16M", 1 << 24)):
        x = T.ones(n)
        results[label] = _timeit(lambda: dist.all_reduce(x), max(3, reps // (10 if n > 1e6 else 1) // 4),
                                 dist.barrier)
    T.manual_seed(0)
    model = ddp_cls(T.nn.Sequential(T.nn.Linear(784, 128), T.nn.ReLU(), T.nn.Linear(128, 10)))
    opt = T.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = T.nn.CrossEntropyLoss()
    x, y = T.randn(64, 784), T.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    results["ddp_step"] = _timeit(step, reps, dist.barrier)
    if dist.get_rank() == 0:
        Path(out).write_text(json.dumps(results))
    dist.destroy_process_group()


def _launch(lib_name, ranks, reps, out, timeout=600):
    me = str(Path(__file__).resolve())
    args = ["--worker", lib_name, "--reps", str(reps), "--out", str(out)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if lib_name == "gradtrack":
        mpiexec = Path(sys.executable).parent / "mpiexec"
        procs = [subprocess.Popen([str(mpiexec), "-n", str(ranks), sys.executable, me, *args],
                                  env=env)]
    else:
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29561", WORLD_SIZE=str(ranks))
        procs = [subprocess.Popen([sys.executable, me, *args], env=dict(env, RANK=str(r)))
                 for r in range(ranks)]
    for p in procs:
        if p.wait(timeout=timeout) != 0:
            raise RuntimeError(f"{lib_name} on {ranks} ranks failed")
    return json.loads(Path(out).read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--worker")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.reps, args.out)
    import tempfile
    tmp = Path(tempfile.mkdtemp())
    runs = {(lib, n): _launch(lib, n, args.reps, tmp / f"{lib}{n}.json")
            for lib in ("gradtrack", "torch") for n in (1, 2)}
    print(f"{'case (2 ranks)':18} {'gradtrack':>12} {'torch':>12} {'ratio':>7} {'goal':>6}")
    for case, goal in GOALS.items():
        ours, theirs = runs["gradtrack", 2][case], runs["torch", 2][case]
        verdict = "met" if ours / theirs <= goal else "missed"
        print(f"{case:18} {ours * 1e3:10.3f}ms {theirs * 1e3:10.3f}ms {ours / theirs:7.2f} "
              f"{goal:5.1f}x {verdict}")
    for lib in ("gradtrack", "torch"):
        one, two = runs[lib, 1]["ddp_step"], runs[lib, 2]["ddp_step"]
        print(f"{lib}: DDP step 1 rank {one * 1e3:.3f} ms, 2 ranks {two * 1e3:.3f} ms; "
              f"throughput scaling 1 -> 2 ranks: {2 * one / two:.2f}x")


if __name__ == "__main__":
    main()
