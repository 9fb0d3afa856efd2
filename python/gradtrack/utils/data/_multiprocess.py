"""The DataLoader iterator with worker processes (``num_workers > 0``).

Index batches go round-robin to the workers (up to ``prefetch_factor`` per
worker in flight); results come back on one queue, tagged with their send
number, and are handed out in that order (``in_order=True``) or as they come.
A worker killed by a signal, or exiting with an error code, is reported at
once with its pid and the signal or code (NOTE [Dead workers and SIGCHLD]); one
that vanishes otherwise is noticed at the next wait (checked every few
seconds). Both are reported as torch does.
"""

import itertools
import multiprocessing
import os
import queue
import time

from . import _signal_handling, _worker
from ._fetch import _DatasetKind
from ._iterators import _BaseDataLoaderIter


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or multiprocessing
        self._worker_result_queue = context.Queue()
        self._data_queue = self._worker_result_queue
        self._workers_done_event = context.Event()
        self._shutdown = False
        self._worker_pids_set = False
        # A forked worker inherits this object: only its creator may shut it down.
        self._owner_pid = os.getpid()
        self._index_queues, self._workers = [], []
        for i in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            w = context.Process(target=_worker._worker_loop, args=(
                self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                self._workers_done_event, self._auto_collation, self._collate_fn,
                self._drop_last, self._base_seed, loader.worker_init_fn, i,
                self._num_workers))
            w.daemon = True
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        _signal_handling._set_worker_pids(id(self), (w.pid for w in self._workers))
        _signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_worker._ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                tag, _ = self._get_data()
                if isinstance(tag, _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_worker.MP_STATUS_CHECK_INTERVAL):
        # Waits in short slices, so a worker that died is reported within one
        # slice instead of after the whole timeout.
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                with _signal_handling.handler_raises(True):
                    return True, self._data_queue.get(timeout=max(0.0, min(remaining, 0.5)))
            except Exception as e:  # Empty, a broken pipe, or the SIGCHLD handler's error
                self._raise_if_workers_died(e)
                if not isinstance(e, queue.Empty):
                    raise
                if remaining <= 0.5:
                    return False, None

    def _raise_if_workers_died(self, cause):
        if self._worker_pids_set:  # before is_alive() reaps them: their status names the signal
            try:
                _signal_handling._error_if_any_worker_fails(only=id(self))
            except RuntimeError as e:
                self._worker_pids_set = False
                cause = e
        failed = [(i, w) for i, w in enumerate(self._workers)
                  if self._workers_status[i] and not w.is_alive()]
        for i, _ in failed:
            self._mark_worker_as_unavailable(i)
        if failed:
            if not isinstance(cause, RuntimeError):  # died after the status read
                named = [_signal_handling.exit_message(w.pid, w.exitcode) for _, w in failed]
                named = [m for m in named if m is not None]
                if named:
                    _signal_handling._remove_worker_pids(id(self))
                    self._worker_pids_set = False
                    cause = RuntimeError(named[0])
            pids = ", ".join(str(w.pid) for _, w in failed)
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from cause

    def _get_data(self):
        with _signal_handling.handler_raises(False):  # NOTE [Dead workers and SIGCHLD]
            return self._wait_for_data()

    def _wait_for_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_ready(self):
        """Skips the tasks of workers that ended; True if a task is left to receive."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info:
                if len(info) == 2 or self._workers_status[info[0]]:
                    return True
                del self._task_info[self._rcvd_idx]
            self._rcvd_idx += 1
        return False

    def _next_data(self):
        # NOTE [Dead workers and SIGCHLD]: between waits the liveness check names a
        # dead worker, not the signal handler.
        with _signal_handling.handler_raises(False):
            return self._next_batch()

    def _next_batch(self):
        while True:
            if not self._next_ready():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if (self._dataset_kind == _DatasetKind.Iterable
                    and isinstance(data, _worker._IterableDatasetStopIteration)):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id] and (
                    self._in_order
                    or self._workers_num_tasks[worker_id] < max_tasks // sum(self._workers_status)):
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if getattr(self, "_shutdown", True) or os.getpid() != self._owner_pid:
            return
        if _signal_handling.python_exiting:  # NOTE [Workers at interpreter exit]
            return
        self._shutdown = True
        if self._worker_pids_set:  # stopping workers on purpose is no failure
            _signal_handling._remove_worker_pids(id(self))
            self._worker_pids_set = False
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=_worker.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_worker.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        self._shutdown_workers()
