"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes; the first
failure terminates the others and is raised in the parent with the child's traceback,
as torch's ``ProcessRaisedException``/``ProcessExitedException``."""

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` (its rank) and ``error_pid``.

    >>> import gradtrack.multiprocessing as mp
    >>> mp.ProcessException("failed", 1, 42).error_index
    1
    """

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback.

    >>> import gradtrack.multiprocessing as mp
    >>> issubclass(mp.ProcessRaisedException, mp.ProcessException)
    True
    """


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal.

    >>> import gradtrack.multiprocessing as mp
    >>> mp.ProcessExitedException("exited", 0, 42, 3).exit_code
    3
    """

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The spawned processes; ``join()`` waits, raising the first failure.

    >>> import gradtrack.multiprocessing as mp
    >>> mp.ProcessContext.__name__
    'ProcessContext'
    """

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The processes' ids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """True once every process exited cleanly; raises the first failure."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        failed = self.processes[error_index]
        if self.error_queues[error_index].empty():
            exitcode = failed.exitcode
            if exitcode < 0:
                name = signal.Signals(-exitcode).name
                raise ProcessExitedException(
                    f"process {error_index:d} terminated with signal {name}", error_index,
                    failed.pid, exitcode, name)
            raise ProcessExitedException(
                f"process {error_index:d} terminated with exit code {exitcode:d}", error_index,
                failed.pid, exitcode)
        original = self.error_queues[error_index].get()
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n" + original
        raise ProcessRaisedException(msg, error_index, failed.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``.

    >>> import gradtrack.multiprocessing as mp
    >>> callable(mp.start_processes)
    True
    """
    context = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, queue), daemon=daemon)
        process.start()
        processes.append(process)
        queues.append(queue)
    result = ProcessContext(processes, queues)
    if not join:
        return result
    while not result.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a new process.

    >>> import gradtrack.multiprocessing as mp
    >>> callable(mp.spawn)
    True
    """
    return start_processes(fn, args, nprocs, join, daemon, start_method)
