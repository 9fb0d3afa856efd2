"""The DataLoader's worker processes: their loop, ``get_worker_info`` and error transport.

NOTE [Tensors across processes]
A worker sends each batch through a ``multiprocessing`` queue, which pickles
it. A gradtrack tensor pickles as a contiguous NumPy copy of its data (plus
``requires_grad``) and is rebuilt as a fresh tensor in the main process, so no
pointer into the worker's memory ever crosses and nothing can dangle when the
worker exits. Once ``gradtrack.multiprocessing`` is imported, its reducers send
tensors as shared memory instead (as torch's workers do): the main process maps
the batch's memfd or /dev/shm file, received while the worker runs, and the
mapping outlives the worker. Errors in a worker cross as their formatted traceback
(:class:`ExceptionWrapper`) and are raised again, with the same type, in the
main process.

NOTE [Workers and OpenMP]
With the ``fork`` start method a worker inherits the parent's memory but not
its OpenMP thread pool; every worker therefore runs its kernels on one thread
(``set_num_threads(1)``, as torch's workers do), which never waits on the
pool's missing threads.
"""

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import gradtrack

from ._fetch import _create_fetcher

# How long the main process waits on the result queue before checking that the
# workers are alive.
MP_STATUS_CHECK_INTERVAL = 5.0
# How long a worker waits for a request before checking whether it should stop:
# the stop request itself can be lost when the loader is collected as part of a
# reference cycle (the garbage collector runs the queue's close callback, which
# stops its feeder thread, before the iterator's __del__ sends the request).
_WORKER_POLL_INTERVAL = 0.2

_worker_info = None


class WorkerInfo:
    """What a worker knows about itself: ``id``, ``num_workers``, ``seed``, ``dataset``.

    >>> from gradtrack.utils.data import get_worker_info
    >>> get_worker_info() is None  # in the main process; a worker gets its WorkerInfo
    True
    """

    __initialized = False

    def __init__(self, **kwargs):
        for name, value in kwargs.items():
            setattr(self, name, value)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info():
    """This worker's :class:`WorkerInfo`; ``None`` in the main process.

    >>> from gradtrack.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _worker_info


class ExceptionWrapper:
    """An exception with its traceback, as text that can cross processes."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the exception again, its original traceback in the message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            del exception  # no frame <-> exception cycle keeping the loader alive


class _KeyErrorMessage(str):
    # KeyError's str() would repr() the message, quoting its newlines.
    def __repr__(self):
        return self


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """A persistent worker starts a new epoch."""
    seed: object = None


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    gradtrack.manual_seed(seed)
    try:
        import numpy as np
        np.random.seed(_numpy_seed(base_seed, worker_id))
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return seed


def _numpy_seed(base_seed, worker_id):
    # A 32-bit seed derived from both numbers (NumPy's seeds must fit in 32 bits).
    mixed = (base_seed * 0x9E3779B97F4A7C15 + worker_id * 0xBF58476D1CE4E5B9) % (1 << 64)
    return (mixed ^ (mixed >> 31)) & 0xFFFFFFFF


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    try:
        gradtrack.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                      drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        _serve(index_queue, data_queue, done_event, worker_id, init_exception, fetcher,
               lambda: _create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                       drop_last))
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


def _serve(index_queue, data_queue, done_event, worker_id, init_exception, fetcher,
           new_fetcher):
    """Answers index requests until told to stop (``None``)."""
    iteration_end = False
    parent = os.getppid()
    while True:
        try:
            request = index_queue.get(timeout=_WORKER_POLL_INTERVAL)
        except queue.Empty:
            if done_event.is_set() or os.getppid() != parent:
                break
            continue
        if isinstance(request, _ResumeIteration):
            data_queue.put((request, None))
            iteration_end = False
            fetcher = new_fetcher()
            continue
        if request is None:
            break
        if done_event.is_set() or iteration_end:
            continue
        idx, index = request
        if init_exception is not None:
            data, init_exception = init_exception, None
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                data = _IterableDatasetStopIteration(worker_id)
                iteration_end = True
            except Exception:
                data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        data_queue.put((idx, data))
        del data, idx, index, request
