"""Runs a worker script under ``mpiexec -n N`` with a timeout, and reads what each rank wrote.

A rank that hangs fails the test by timeout and never hangs CI: the launcher runs
in its own process group, killed as a whole when the time is up.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

WORKERS = Path(__file__).parent / "workers"


def mpiexec():
    """The launcher next to this Python (the ``mpich`` wheel puts it there)."""
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def run(n, worker, tmp_path, timeout=60, args=()):
    """Runs ``workers/<worker>`` on ``n`` ranks; returns the list of per-rank result dicts."""
    out = tmp_path / f"{worker}.{n}"
    # A rank that crashes prints its Python stack (faulthandler) into the log the test shows.
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path),
               PYTHONFAULTHANDLER="1")
    cmd = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / worker), str(out), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True, text=True)
    try:
        log, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        raise AssertionError(f"mpiexec -n {n} {worker} timed out after {timeout} s:\n{log}")
    assert proc.returncode == 0, f"mpiexec -n {n} {worker} exited {proc.returncode}:\n{log}"
    return [json.loads(Path(f"{out}.{r}").read_text()) for r in range(n)]
