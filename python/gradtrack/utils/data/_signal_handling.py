"""Noticing a DataLoader worker that died, the moment it dies.

NOTE [Dead workers and SIGCHLD]
A worker killed by a signal (the out-of-memory killer's SIGKILL, a segfault in
a dataset's C extension) cannot say so itself. Like torch, the main process
installs a ``SIGCHLD`` handler (chained after any handler already there) that
looks at the registered worker pids with ``waitid(WNOWAIT)``, which reads a
dead child's status without reaping it, and raises torch's ``RuntimeError``
naming the pid and the signal (or the exit code). The handler runs in the main
thread while it waits on the result queue, so the wait ends at once instead of
at the next liveness check. The signal may reach another thread (a queue's
feeder thread), and then the handler runs only when the main thread's wait
ends; so the liveness check asks the same question before it reaps any worker,
and a worker's signal is named whichever runs first. An iterator unregisters
its pids before it stops its workers, so a deliberate shutdown raises nothing.

While an iterator's own code runs (between its waits, inside ``__next__``) the
handler holds back: its error would escape from wherever the signal landed (the
liveness check itself, or the bookkeeping after a batch) and bypass the
iterator's "pid(s) ... exited unexpectedly" RuntimeError, whose cause names the
signal. The worker stays registered, so the next wait's liveness check (at most
one half-second slice later) reports it, once. During the wait, and anywhere
outside a loader (a training step between batches), the handler raises at once,
as torch's does.

NOTE [Workers at interpreter exit]
When the interpreter exits with an iterator still alive (a Ctrl-C mid-epoch, an
uncaught error), multiprocessing's exit function terminates every daemon worker,
and only later does the garbage collector reach the iterator. By then a queue's
feeder thread may have been frozen while holding the queue's lock, so the usual
shutdown (which puts a stop request on each index queue) would wait forever, and
each terminated worker would raise a "killed by signal" error from the SIGCHLD
handler. So, as torch does, a flag set at exit (by a hook registered after
multiprocessing's, hence run before it) turns both off: the workers are daemons
and are ended by multiprocessing itself.
"""

import atexit
import contextlib
import multiprocessing.util  # noqa: F401  (registers its exit function first)
import os
import signal
import threading

# id(iterator) -> the pids of its workers.
_worker_pids = {}
_handler_set = False
python_exiting = False
# False while an iterator's own code runs between waits. NOTE [Dead workers and SIGCHLD]
handler_may_raise = True


def _set_python_exiting():
    global python_exiting
    python_exiting = True


# multiprocessing.util registered its exit function on import above; hooks run last in,
# first out, so this flag is up before the workers are terminated.
atexit.register(_set_python_exiting)


@contextlib.contextmanager
def handler_raises(may_raise):
    """Within: the SIGCHLD handler raises (True) or leaves a dead worker to the
    iterator's liveness check (False). NOTE [Dead workers and SIGCHLD]"""
    global handler_may_raise
    before, handler_may_raise = handler_may_raise, may_raise
    try:
        yield
    finally:
        handler_may_raise = before


def _set_worker_pids(key, pids):
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    _worker_pids.pop(key, None)


def _failure_message(pid, status):
    """torch's message for a worker that ended as ``status`` said, or None if it ended well."""
    if status.si_code == os.CLD_EXITED:
        return exit_message(pid, status.si_status)
    if status.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
        return exit_message(pid, -status.si_status)
    return None


def exit_message(pid, exitcode):
    """torch's message for a worker whose ``Process.exitcode`` is ``exitcode`` (minus
    the signal's number when a signal ended it), or None if it ended well. The
    liveness check reaps a worker that died after the status read and before it,
    and names its end from the exit code instead."""
    if exitcode is None or exitcode == 0:
        return None
    if exitcode > 0:
        return (f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                f"{exitcode}. Details are lost due to multiprocessing. Rerunning "
                "with num_workers=0 may give better error trace.")
    signum = -exitcode
    try:
        name = signal.strsignal(signum) or f"Unknown signal {signum}"
    except ValueError:
        name = f"Unknown signal {signum}"
    message = f"DataLoader worker (pid {pid}) is killed by signal: {name}. "
    if signum == signal.SIGBUS:
        message += ("It is possible that dataloader's workers are out of shared memory. "
                    "Please try to raise your shared memory limit.")
    return message


def _error_if_any_worker_fails(only=None):
    """Raises torch's RuntimeError if a registered worker (of iterator ``only``, if
    given) ended badly; its iterator is then unregistered, so it is reported once."""
    for key, pids in list(_worker_pids.items()):
        if only is not None and key != only:
            continue
        for pid in pids:
            try:
                status = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except (ChildProcessError, OSError):  # reaped already, or not our child
                continue
            if status is None:  # still running
                continue
            message = _failure_message(pid, status)
            if message is not None:
                _worker_pids.pop(key, None)
                raise RuntimeError(message)


def _set_SIGCHLD_handler():
    """Installs the handler once, from the main thread only (as torch does)."""
    global _handler_set
    if _handler_set or threading.current_thread() is not threading.main_thread():
        return
    if not hasattr(os, "waitid"):  # pragma: no cover - not Linux
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame):
        if not python_exiting and handler_may_raise:  # NOTEs above
            _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _handler_set = True
