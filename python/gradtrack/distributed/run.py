"""``python -m gradtrack.distributed.run``: torchrun's command line, on MPI's launcher.

::

    python -m gradtrack.distributed.run --nproc-per-node 4 train.py --epochs 3

starts ``train.py --epochs 3`` in 4 processes, each with torchrun's environment
(``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``,
``MASTER_PORT``, ``GROUP_RANK``, ``ROLE_RANK``, ``TORCHELASTIC_RUN_ID``...), so a DDP
script written for torchrun runs unchanged: ``init_process_group()`` or
``init_process_group(init_method="env://")`` forms the world. gradtrack's process
groups run on MPI, so the processes are started by ``mpiexec`` (from the ``mpich``
wheel of ``pip install "gradtrack[distributed]"``, or on the PATH), which also does the
rendezvous: ``MASTER_ADDR``/``MASTER_PORT`` are set for the script's sake, not needed.
As torchrun's, a rank that fails ends the others and the launcher exits non-zero.

One machine only (``--nnodes 1``); for several, start the script with ``mpiexec
-hosts ...`` directly.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

__all__ = ["get_args_parser", "parse_args", "run", "main"]

OMP_BANNER = ("\n*****************************************\n"
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
              "to avoid your system being overloaded, please further tune the variable for "
              "optimal performance in your application as needed. \n"
              "*****************************************")


def get_args_parser():
    """torchrun's main options (dashes or underscores, as torchrun accepts both).

    >>> from gradtrack.distributed import run
    >>> run.get_args_parser().parse_args(["--nproc_per_node", "2", "x.py"]).nproc_per_node
    '2'
    """
    parser = argparse.ArgumentParser(
        prog="python -m gradtrack.distributed.run",
        description="Starts a script in several processes with torchrun's environment, "
                    "on MPI's launcher.")
    parser.add_argument("--nnodes", type=str, default="1:1",
                        help="number of nodes, or MIN:MAX (gradtrack's launcher runs on one)")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", type=str, default="1",
                        help="processes per node: an integer, 'cpu' or 'auto'")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0)
    parser.add_argument("--master-addr", "--master_addr", type=str, default=None)
    parser.add_argument("--master-port", "--master_port", type=int, default=None)
    parser.add_argument("--standalone", action="store_true",
                        help="a single-node job with a free local port")
    parser.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    parser.add_argument("--rdzv-backend", "--rdzv_backend", type=str, default="static")
    parser.add_argument("--rdzv-endpoint", "--rdzv_endpoint", type=str, default="")
    parser.add_argument("--rdzv-id", "--rdzv_id", type=str, default="none")
    parser.add_argument("-m", "--module", action="store_true",
                        help="run the script as a module, as python -m")
    parser.add_argument("--no-python", "--no_python", action="store_true",
                        help="run the script as an executable, without python")
    parser.add_argument("training_script", type=str)
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args):
    """The parsed command line ``args`` (a list of strings).

    >>> from gradtrack.distributed import run
    >>> run.parse_args(["--nproc-per-node=3", "train.py", "--lr", "0.1"]).training_script_args
    ['--lr', '0.1']
    """
    return get_args_parser().parse_args(args)


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"Unsupported nproc_per_node value: {value}") from None
    if n < 1:
        raise ValueError(f"Unsupported nproc_per_node value: {value}")
    return n


def _one_node(nnodes):
    low, _, high = nnodes.partition(":")
    if int(low) != 1 or int(high or low) != 1:
        raise ValueError(f"gradtrack.distributed.run starts the processes of one node; "
                         f"--nnodes {nnodes} needs mpiexec -hosts ... to start the script")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def mpiexec():
    """MPI's launcher: next to this Python (the ``mpich`` wheel puts it there) or on the PATH.

    >>> from gradtrack.distributed import run
    >>> run.mpiexec() is None or run.mpiexec().endswith(("mpiexec", "mpirun"))
    True
    """
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    return shutil.which("mpiexec") or shutil.which("mpirun")


def _environment(args, nproc):
    env = dict(os.environ)
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        print(OMP_BANNER, file=sys.stderr, flush=True)
        env["OMP_NUM_THREADS"] = "1"
    if args.standalone or args.master_addr is None:
        addr = args.master_addr or "localhost"
    else:
        addr = args.master_addr
    port = args.master_port if args.master_port is not None else _free_port()
    run_id = str(uuid.uuid4()) if args.standalone or args.rdzv_id == "none" else args.rdzv_id
    env.update({
        "MASTER_ADDR": addr, "MASTER_PORT": str(port), "WORLD_SIZE": str(nproc),
        "LOCAL_WORLD_SIZE": str(nproc), "GROUP_RANK": str(args.node_rank),
        "GROUP_WORLD_SIZE": "1", "ROLE_NAME": "default", "ROLE_WORLD_SIZE": str(nproc),
        "TORCHELASTIC_RUN_ID": run_id, "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": str(args.max_restarts),
    })
    return env


def run(args):
    """Starts ``args.training_script`` on ``args.nproc_per_node`` ranks and waits; returns
    the exit code (0 when every rank succeeded).

    >>> from gradtrack.distributed import run
    >>> callable(run.run)
    True
    """
    _one_node(args.nnodes)
    nproc = _nproc(args.nproc_per_node)
    launcher = mpiexec()
    if launcher is None:
        raise RuntimeError("gradtrack.distributed.run starts the ranks with MPI's launcher, "
                           "and no mpiexec was found: pip install \"gradtrack[distributed]\" "
                           "(the mpich wheel brings one) or put one on the PATH")
    if args.no_python and args.module:
        raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at "
                         "the same time.")
    if args.no_python:
        target = [args.training_script]
    elif args.module:
        target = [sys.executable, "-u", "-m", args.training_script]
    else:
        target = [sys.executable, "-u", args.training_script]
    cmd = [launcher, "-n", str(nproc), sys.executable, "-m", "gradtrack.distributed._rank_env",
           *target, *args.training_script_args]
    errors = tempfile.mkdtemp(prefix="gradtrack_run_")
    env = _environment(args, nproc)
    env.update(GRADTRACK_RUN_ERRORS=errors, GRADTRACK_RUN_PID=str(os.getpid()))
    try:
        code = _supervise(cmd, env)
        failures = _failures(errors)
    finally:
        shutil.rmtree(errors, ignore_errors=True)
    if code == 0 and not failures:
        return 0
    _summary(args.training_script, failures, code)
    return 1


def _supervise(cmd, env):
    """Runs ``cmd`` (mpiexec) to its end, or stops it all once a rank reports a failure
    (NOTE [A failing rank ends the job] in _rank_env.py)."""
    failed = threading.Event()
    previous = signal.signal(signal.SIGUSR1, lambda sig, frame: failed.set())
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    try:
        while True:
            try:
                return proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
            if failed.is_set():
                time.sleep(0.5)  # lets the failing rank's traceback reach the terminal
                _stop(proc)
                proc.wait()
                return 1
    except KeyboardInterrupt:
        _stop(proc, signal.SIGINT)
        proc.wait()
        raise
    finally:
        signal.signal(signal.SIGUSR1, previous)


def _stop(proc, sig=signal.SIGTERM):
    """Ends mpiexec and its ranks: ``sig``, then SIGKILL for what is left after 5 s."""
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=5)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _failures(folder):
    found = []
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            found.append(json.load(f))
    return sorted(found, key=lambda r: r["time"])


def _describe(failure):
    code = failure["exitcode"]
    how = f"exit code {code}"
    if code < 0:
        how = f"signal {-code} ({signal.Signals(-code).name})"
    return (f"rank {failure['rank']} (local_rank: {failure['local_rank']}) ended with {how} "
            f"(pid {failure['pid']})")


def _summary(script, failures, code):
    lines = ["=" * 60, f"{script} FAILED", "-" * 60]
    if failures:
        lines.append("first failure: " + _describe(failures[0]))
        lines += ["then:          " + _describe(f) for f in failures[1:]]
    else:
        lines.append(f"mpiexec exited with code {code}")
    lines.append("=" * 60)
    print("\n".join(lines), file=sys.stderr, flush=True)


def main(args=None):
    """The command line: ``python -m gradtrack.distributed.run [options] script [args]``.

    >>> from gradtrack.distributed import run
    >>> callable(run.main)
    True
    """
    code = run(parse_args(sys.argv[1:] if args is None else args))
    sys.exit(1 if code else 0)


if __name__ == "__main__":
    main()
