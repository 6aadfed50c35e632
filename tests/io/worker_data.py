"""Datasets for the DataLoader worker tests, at module level so that 'spawn' can pickle them."""

import os
import time

import numpy as np

from dygraph.framework.random import rng
from dygraph.io import Dataset, IterableDataset, get_worker_info


class Indexed(Dataset):
    """Sample i is (an array full of i, i): order is easy to check."""

    def __init__(self, n, shape=(2,)):
        self.n, self.shape = n, shape

    def __getitem__(self, idx):
        return np.full(self.shape, idx, np.float32), idx

    def __len__(self):
        return self.n


class WhoLoads(Dataset):
    """Each sample says which worker loaded it and what get_worker_info() reported."""

    def __len__(self):
        return 8

    def __getitem__(self, idx):
        info = get_worker_info()
        return {"idx": idx, "worker": info.id, "num_workers": info.num_workers,
                "seed": info.seed, "same_dataset": info.dataset is not None,
                "env": int(os.environ.get("H8_INIT_WORKER", "-1")),
                "draw": float(rng().random())}


def init_worker(worker_id):
    os.environ["H8_INIT_WORKER"] = str(worker_id)


def failing_init(worker_id):
    raise OSError(f"cannot open the resource for worker {worker_id}")


def explode_in_dataset(idx):
    raise ValueError(f"sample {idx} is corrupt")


class Failing(Dataset):
    """Raises ValueError for one index, from a named helper so the traceback shows it."""

    def __init__(self, n, bad):
        self.n, self.bad = n, bad

    def __getitem__(self, idx):
        if idx == self.bad:
            explode_in_dataset(idx)
        return np.zeros(2, np.float32)

    def __len__(self):
        return self.n


class Slow(Dataset):
    def __init__(self, n, delay):
        self.n, self.delay = n, delay

    def __getitem__(self, idx):
        time.sleep(self.delay)
        return np.zeros(1, np.float32)

    def __len__(self):
        return self.n


class Ragged(Dataset):
    """Sample 2's image is longer than the others' (as if a resize were forgotten)."""

    def __len__(self):
        return 4

    def __getitem__(self, idx):
        return {"image": np.zeros(7 if idx == 2 else 3, np.float32), "label": idx}


class Dies(Dataset):
    """The worker process exits abruptly on one index (like a crash in native code)."""

    def __len__(self):
        return 6

    def __getitem__(self, idx):
        if idx == 3:
            os._exit(7)
        return np.zeros(1, np.float32)


class Large(Dataset):
    """Samples of `mb` megabytes: far more than a pipe holds, so sending one takes many
    writes, each waiting for the main process to read."""

    def __init__(self, n, mb):
        self.n, self.mb = n, mb

    def __getitem__(self, idx):
        return np.full(self.mb << 20, idx, np.uint8)

    def __len__(self):
        return self.n


class Unpicklable(Dataset):
    """Returns a sample that cannot be sent back to the main process."""

    def __len__(self):
        return 2

    def __getitem__(self, idx):
        return [lambda: idx]


class Sharded(IterableDataset):
    """0..n-1, split between the workers with get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (info.id, info.num_workers) if info is not None else (0, 1)
        return iter(range(start, self.n, step))


def keep(batch):
    """A collate_fn that returns the samples as they are."""
    return batch
