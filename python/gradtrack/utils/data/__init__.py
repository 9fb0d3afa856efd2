"""``utils.data``: datasets, samplers and ``DataLoader``, as ``torch.utils.data``.

>>> import gradtrack
>>> from gradtrack.utils.data import DataLoader, TensorDataset
>>> x, y = gradtrack.arange(8.0).view(4, 2), gradtrack.tensor([0, 1, 0, 1])
>>> for xb, yb in DataLoader(TensorDataset(x, y), batch_size=3):
...     print(xb.shape, yb.tolist())
gradtrack.Size([3, 2]) [0, 1, 0]
gradtrack.Size([1, 2]) [1]
"""

from ._collate import default_collate, default_convert

from ._worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader, _DatasetKind
from .dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "_DatasetKind",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]
