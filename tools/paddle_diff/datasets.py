"""Cases for ``paddle.io``: samplers, batch samplers, datasets and the DataLoader.

Each case names a recipe of ``RECIPES`` (a function of the framework returning the answer's
parts) over a dataset of 5 or 7 seeded items. Deterministic ones compare the indices,
batches and items; random ones (``RandomSampler``, ``WeightedRandomSampler``, a shuffled
``BatchSampler``, ``random_split``) their lengths, the types of what they yield and that the
indices are in range.
"""

import numpy as np

from .classes import describe, parts
from .values import array, rng_for

X = array(rng_for("io:x"), (7, 3), "float32")
Y = np.arange(7, dtype="int64")


def _dataset(fw, n=5):
    return fw.io.TensorDataset([fw.to_tensor(X[:n]), fw.to_tensor(Y[:n])])


def _types(items):
    return {"py": sorted({type(i).__name__ for i in items})}


def _indices(items):
    return {"py": [int(i) for i in items]}


def _batches(batches):
    return {"py": [[int(i) for i in b] for b in batches]}


def sequence_sampler(fw):
    sampler = fw.io.SequenceSampler(_dataset(fw))
    return parts(indices=_indices(sampler), length={"py": len(sampler)},
                 types=_types(sampler))


def random_sampler(fw):
    items = list(fw.io.RandomSampler(_dataset(fw)))
    return parts(sorted=_indices(sorted(items)), types=_types(items))


def random_sampler_replacement(fw):
    sampler = fw.io.RandomSampler(_dataset(fw), replacement=True, num_samples=7)
    items = list(sampler)
    return parts(length={"py": len(sampler)}, drawn={"py": len(items)}, types=_types(items),
                 in_range={"py": all(0 <= int(i) < 5 for i in items)})


def subset_random_sampler(fw):
    sampler = fw.io.SubsetRandomSampler([4, 1, 3])
    items = list(sampler)
    return parts(length={"py": len(sampler)}, sorted=_indices(sorted(items)),
                 types=_types(items))


def weighted_random_sampler(fw):
    sampler = fw.io.WeightedRandomSampler(np.array([0.1, 0.2, 0.7]), num_samples=5,
                                       replacement=True)
    items = list(sampler)
    return parts(length={"py": len(sampler)}, drawn={"py": len(items)}, types=_types(items),
                 in_range={"py": all(0 <= int(i) < 3 for i in items)})


def batch_sampler(fw, **kwargs):
    sampler = fw.io.BatchSampler(dataset=_dataset(fw), batch_size=2, **kwargs)
    batches = list(sampler)
    return parts(batches=_batches(batches), length={"py": len(sampler)},
                 types=_types([i for b in batches for i in b]))


def batch_sampler_shuffled(fw):
    sampler = fw.io.BatchSampler(dataset=_dataset(fw), batch_size=2, shuffle=True)
    batches = list(sampler)
    return parts(sizes={"py": [len(b) for b in batches]}, length={"py": len(sampler)},
                 sorted=_indices(sorted(i for b in batches for i in b)))


def batch_sampler_over_sampler(fw):
    sampler = fw.io.BatchSampler(sampler=fw.io.SequenceSampler(_dataset(fw, 7)),
                                 batch_size=3)
    return parts(batches=_batches(sampler), length={"py": len(sampler)})


def distributed_batch_sampler(fw, rank, **kwargs):
    sampler = fw.io.DistributedBatchSampler(_dataset(fw, 7), batch_size=2, num_replicas=2,
                                            rank=rank, **kwargs)
    return parts(batches=_batches(sampler), length={"py": len(sampler)})


def tensor_dataset(fw):
    dataset = _dataset(fw)
    return parts(length={"py": len(dataset)}, item0=describe(dataset[0], fw),
                 item4=describe(dataset[4], fw))


def compose_dataset(fw):
    dataset = fw.io.ComposeDataset([_dataset(fw), _dataset(fw)])
    return parts(length={"py": len(dataset)}, item1=describe(dataset[1], fw))


def concat_dataset(fw):
    dataset = fw.io.ConcatDataset([_dataset(fw, 3), _dataset(fw, 2)])
    return parts(length={"py": len(dataset)}, item2=describe(dataset[2], fw),
                 item3=describe(dataset[3], fw))


def subset(fw):
    dataset = fw.io.Subset(_dataset(fw), [3, 0])
    return parts(length={"py": len(dataset)}, item0=describe(dataset[0], fw),
                 item1=describe(dataset[1], fw))


def chain_dataset(fw):
    class Count(fw.io.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    return parts(items=_indices(fw.io.ChainDataset([Count(2), Count(3)])))


def random_split(fw, lengths):
    pieces = fw.io.random_split(_dataset(fw), lengths)
    return parts(lengths={"py": [len(p) for p in pieces]},
                 types={"py": sorted({type(p).__name__ for p in pieces})})


def data_loader(fw, **kwargs):
    loader = fw.io.DataLoader(_dataset(fw), batch_size=2, shuffle=False, **kwargs)
    return parts(length={"py": len(loader)}, batches=describe(list(loader), fw))


RECIPES = {
    "SequenceSampler:default": sequence_sampler,
    "RandomSampler:default": random_sampler,
    "RandomSampler:replacement": random_sampler_replacement,
    "SubsetRandomSampler:default": subset_random_sampler,
    "WeightedRandomSampler:default": weighted_random_sampler,
    "BatchSampler:default": batch_sampler,
    "BatchSampler:drop_last": lambda fw: batch_sampler(fw, drop_last=True),
    "BatchSampler:shuffle": batch_sampler_shuffled,
    "BatchSampler:sampler": batch_sampler_over_sampler,
    "BatchSampler:bad": lambda fw: fw.io.BatchSampler(dataset=_dataset(fw), batch_size=0),
    "BatchSampler:bad_both": lambda fw: fw.io.BatchSampler(
        dataset=_dataset(fw), sampler=fw.io.SequenceSampler(_dataset(fw)), batch_size=2),
    "DistributedBatchSampler:rank0": lambda fw: distributed_batch_sampler(fw, 0),
    "DistributedBatchSampler:rank1": lambda fw: distributed_batch_sampler(fw, 1),
    "DistributedBatchSampler:drop_last": lambda fw: distributed_batch_sampler(
        fw, 1, drop_last=True),
    "DistributedBatchSampler:bad": lambda fw: distributed_batch_sampler(fw, 3),
    "TensorDataset:default": tensor_dataset,
    "TensorDataset:bad": lambda fw: fw.io.TensorDataset(
        [fw.to_tensor(X[:5]), fw.to_tensor(Y[:4])]),
    "ComposeDataset:default": compose_dataset,
    "ConcatDataset:default": concat_dataset,
    "Subset:default": subset,
    "ChainDataset:default": chain_dataset,
    "random_split:lengths": lambda fw: random_split(fw, [3, 2]),
    "random_split:fractions": lambda fw: random_split(fw, [0.6, 0.4]),
    "random_split:bad": lambda fw: random_split(fw, [3, 3]),
    "DataLoader:default": data_loader,
    "DataLoader:drop_last": lambda fw: data_loader(fw, drop_last=True),
}


def cases():
    """The io cases."""
    return [{"id": f"io.{key.replace(':', ':c:')}", "name": key.split(":")[0], "kind": "io",
             "recipe": key, "args": [], "kwargs": {}} for key in RECIPES]


def run(case, fw):
    """The answer of an io recipe; a bad recipe's answer is whatever it returns or raises."""
    result = RECIPES[case["recipe"]](fw)
    return result if isinstance(result, dict) else {"out": {"other": type(result).__name__}}
