"""Started by ``mpiexec`` for each rank of ``gradtrack.distributed.run``: sets torchrun's
per-rank variables from MPI's, then runs the user's program in a child that ``exec``s it
(so the script is ``__main__`` as under torchrun, and MPI is initialised by the script,
which inherits the MPI launcher's connection).

NOTE [A failing rank ends the job]
MPI's launcher ends a job when a rank dies inside MPI, but a rank that exits with an
error before or without MPI leaves the others running. So this process stays as the
rank's parent: when the program fails it writes what happened where the launcher reads
it (``GRADTRACK_RUN_ERRORS``) and signals the launcher (``GRADTRACK_RUN_PID``), which
then stops every rank, as torchrun's agent does.
"""

import json
import os
import signal
import sys
import time

# Where MPI's launchers put a process's rank and its rank on its node.
_RANK = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
_LOCAL_RANK = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK")


def _first(names, default):
    for name in names:
        if name in os.environ:
            return os.environ[name]
    return default


def _program(target):
    if os.path.sep in target[0]:
        return target[0]
    import shutil
    return shutil.which(target[0]) or target[0]


def _report(rank, status, pid):
    code = os.waitstatus_to_exitcode(status)
    folder = os.environ.get("GRADTRACK_RUN_ERRORS")
    if folder:
        with open(os.path.join(folder, f"{rank}.json"), "w") as f:
            json.dump({"rank": int(rank), "local_rank": int(os.environ["LOCAL_RANK"]),
                       "exitcode": code, "pid": pid, "time": time.time()}, f)
    launcher = os.environ.get("GRADTRACK_RUN_PID")
    if launcher:
        try:
            os.kill(int(launcher), signal.SIGUSR1)
        except ProcessLookupError:
            pass
    return code


def _forward(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:  # the program has ended already
        pass


def main():
    rank = _first(_RANK, "0")
    os.environ["RANK"] = rank
    os.environ["LOCAL_RANK"] = _first(_LOCAL_RANK, rank)
    os.environ["ROLE_RANK"] = rank
    target = sys.argv[1:]
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(_program(target), target)
        finally:
            os._exit(127)
    # The program gets the signals meant for the rank (the launcher's SIGTERM).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, frame: _forward(pid, s))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        _report(rank, status, pid)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
