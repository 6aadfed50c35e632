"""Data loading (`paddle.io`): datasets, samplers and the DataLoader.

`save` and `load` (checkpoints) are also reachable here; they load on first use so that
`import dygraph.io` stays light.

Example:
    >>> import numpy as np
    >>> from dygraph.io import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset([np.arange(6.0).reshape(3, 2)]), batch_size=2)
    >>> [batch[0].shape for batch in loader]
    [[2, 2], [1, 2]]
"""

import importlib as _importlib

from dygraph.io.collate import default_collate_fn, default_convert_fn
from dygraph.io.dataloader import DataLoader
from dygraph.io.dataset import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from dygraph.io.sampler import (
    BatchSampler,
    DistributedBatchSampler,
    RandomSampler,
    Sampler,
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from dygraph.io.worker import WorkerInfo, get_worker_info

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "ConcatDataset", "Subset", "random_split", "Sampler", "SequenceSampler",
           "RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler", "BatchSampler",
           "DistributedBatchSampler", "DataLoader", "get_worker_info", "WorkerInfo",
           "default_collate_fn", "default_convert_fn", "save", "load"]

_LAZY = {"save": "dygraph.io.checkpoint", "load": "dygraph.io.checkpoint"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dygraph.io' has no attribute {name!r}")
