"""The handle an ``async_op=True`` collective returns."""


class Work:
    """A collective or point-to-point operation in flight (torch's ``Work``).

    ``wait()`` blocks until it is done and returns True; ``is_completed()`` asks
    without blocking. What must happen after the data arrived (an average divided,
    outputs copied out of a staging buffer, version counters bumped) runs once,
    on whichever of the two sees completion first.

    >>> Work([], outputs=[]).wait()
    True
    """

    def __init__(self, requests, finish=None, outputs=(), status=None, group=None, op_name="",
                 timeout=None):
        self._requests = [r for r in requests if r is not None]
        self._finish = finish
        self._outputs = list(outputs)
        self._status = status
        self._done = False
        self._group = group  # to wait within its timeout, noticing ranks that left
        self._op_name = op_name
        self._timeout = timeout

    def _complete(self):
        self._done = True
        self._requests = []
        finish, self._finish = self._finish, None
        if finish is not None:
            finish()

    def is_completed(self):
        """True once the operation finished (progresses MPI; never blocks)."""
        if self._done:
            return True
        if self._requests:
            from mpi4py import MPI
            if not MPI.Request.Testall(self._requests, self._statuses()):
                return False
        self._complete()
        return True

    def wait(self, timeout=None):
        """Blocks until the operation finished; returns True. Raises torch's
        ``RuntimeError`` when ``timeout`` (a ``datetime.timedelta``; the process group's
        timeout if None) ran out or a rank of the group left."""
        if not self._done:
            if self._requests:
                from mpi4py import MPI
                if self._group is None:
                    MPI.Request.Waitall(self._requests, self._statuses())
                else:
                    from . import _faults
                    limit = _faults.call_seconds(timeout, self._timeout)
                    _faults.wait(self._requests, self._group, self._op_name, limit,
                                 self._statuses())
            self._complete()
        return True

    def _statuses(self):
        return [self._status] + [None] * (len(self._requests) - 1) if self._status else None

    def is_success(self):
        """True once completed (MPI reports failures by aborting the job)."""
        if not self._done:
            raise RuntimeError("Invalid call to AsyncWork::isSuccess before work has completed")
        return True

    def exception(self):
        return None

    def result(self):
        """The output tensors of the operation."""
        return list(self._outputs)

    def source_rank(self):
        """For a receive: the rank the message came from."""
        if self._status is None:
            raise RuntimeError("sourceRank() may only be called on recv or recvAnysource work "
                               "objects")
        return self._status.Get_source()

    def synchronize(self):
        self.wait()
