"""How a DataLoader fetches one batch from its dataset: a map-style dataset by
index (``dataset[i]``, or ``__getitems__`` for a whole batch), an iterable one by
``next()``; both then collate.

NOTE [TensorDataset fast path]
With a plain ``TensorDataset`` (no tensor requiring grad), batched loading and
the default collate, a batch is ``[t.index_select(0, idx) for t in tensors]``
instead of stacking ``len(idx)`` indexed rows per tensor. The result is the
same tensors (values, dtype, shape, a fresh contiguous tensor each); it only
saves the per-sample Python work.
"""

import numpy as np

import gradtrack

from ._collate import default_collate
from .dataset import TensorDataset


class _DatasetKind:
    Map = 0
    Iterable = 1


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.fast = (auto_collation and collate_fn is default_collate
                     and type(dataset) is TensorDataset
                     and not any(t.requires_grad for t in dataset.tensors))

    def fetch(self, possibly_batched_index):
        if self.fast:
            idx = _index_tensor(possibly_batched_index, len(self.dataset))
            if idx is not None:  # NOTE [TensorDataset fast path]
                return [t.index_select(0, idx) for t in self.dataset.tensors]
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[i] for i in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


def _index_tensor(index, n):
    """``index`` as an int64 tensor when it is a non-empty list of in-range integers.

    Anything else (negative, out of range, bools, floats, an empty batch) returns
    None and goes the per-sample way, with torch's errors. NumPy infers the dtype
    in one C pass (measured: 6 us for 64 ints against 32 us for gradtrack.tensor).
    """
    if not isinstance(index, list) or not index:
        return None
    arr = np.array(index)
    if arr.dtype.kind != "i" or min(index) < 0 or max(index) >= n:
        return None
    return gradtrack.from_numpy(arr.astype(np.int64, copy=False))


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def _create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    cls = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
