"""Datasets and samplers of dygraph.io."""

import numpy as np
import pytest

import dygraph
from dygraph.io import (
    BatchSampler,
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    DistributedBatchSampler,
    IterableDataset,
    RandomSampler,
    SequenceSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def test_tensor_dataset_rows_of_tensors_and_arrays():
    x = dygraph.to_tensor(np.arange(6, dtype=np.float32).reshape(3, 2), stop_gradient=False)
    ds = TensorDataset([x, np.array([7, 8, 9])])
    row, label = ds[2]
    assert isinstance(row, dygraph.Tensor) and row.stop_gradient
    np.testing.assert_array_equal(row.numpy(), [4.0, 5.0])
    assert label == 9 and len(ds) == 3
    with pytest.raises(ValueError, match=r"\[3, 2\]"):
        TensorDataset([np.zeros(3), np.zeros(2)])


def test_compose_concat_chain_subset():
    a = TensorDataset([np.arange(3)])
    b = TensorDataset([np.arange(3) * 10, np.arange(3) * 100])
    assert ComposeDataset([a, b])[1] == (1, 10, 100)
    with pytest.raises(ValueError, match="same length"):
        ComposeDataset([a, TensorDataset([np.arange(2)])])
    cat = ConcatDataset([a, TensorDataset([np.arange(2) + 50])])
    assert len(cat) == 5
    assert [int(cat[i][0]) for i in range(5)] == [0, 1, 2, 50, 51]
    assert int(cat[-1][0]) == 51
    with pytest.raises(IndexError):
        cat[5]
    assert list(ChainDataset([Stream([1, 2]), Stream([3])])) == [1, 2, 3]
    with pytest.raises(TypeError):
        ChainDataset([a])
    sub = Subset(b, [2, 0])
    assert len(sub) == 2 and int(sub[0][1]) == 200


def test_iterable_dataset_has_no_len_or_getitem():
    ds = Stream([1])
    with pytest.raises(TypeError):
        len(ds)
    with pytest.raises(RuntimeError):
        ds[0]
    with pytest.raises(NotImplementedError):
        Dataset()[0]


def test_random_split_is_a_seeded_partition():
    ds = TensorDataset([np.arange(10)])
    dygraph.seed(3)
    parts = random_split(ds, [6, 4])
    dygraph.seed(3)
    again = random_split(ds, [6, 4])
    assert [p.indices for p in parts] == [p.indices for p in again]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    assert [len(p) for p in random_split(ds, [0.5, 0.3, 0.2])] == [5, 3, 2]
    with pytest.raises(ValueError, match="sum"):
        random_split(ds, [5, 4])


def test_sequence_random_and_weighted_samplers():
    assert list(SequenceSampler(range(4))) == [0, 1, 2, 3]
    dygraph.seed(11)
    first = list(RandomSampler(range(20)))
    dygraph.seed(11)
    assert list(RandomSampler(range(20))) == first
    assert sorted(first) == list(range(20)) and first != list(range(20))
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2}
    short = list(RandomSampler(range(5), num_samples=3))
    assert len(short) == 3 and len(set(short)) == 3
    assert list(RandomSampler(range(3), generator=iter([2, 0, 1, 5]))) == [2, 0, 1]
    own = dygraph.framework.random.Generator(5)
    assert sorted(RandomSampler(range(4), generator=own)) == [0, 1, 2, 3]
    weighted = list(WeightedRandomSampler([0.0, 3.0, 1.0, 0.0], 200))
    counts = np.bincount(weighted, minlength=4)
    assert counts[0] == counts[3] == 0 and counts[1] > counts[2] > 0
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    with pytest.raises(ValueError):
        WeightedRandomSampler([1.0, 0.0], 2, replacement=False)
    with pytest.raises(ValueError):
        WeightedRandomSampler([-1.0, 2.0], 2)
    assert sorted(SubsetRandomSampler([4, 8, 6])) == [4, 6, 8]


def test_batch_sampler():
    assert list(BatchSampler(range(5), batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), batch_size=2)) == 3
    assert len(BatchSampler(range(5), batch_size=2, drop_last=True)) == 2
    dygraph.seed(0)
    shuffled = list(BatchSampler(range(6), shuffle=True, batch_size=3))
    assert sorted(sum(shuffled, [])) == list(range(6))
    custom = BatchSampler(sampler=SequenceSampler(range(3)), batch_size=2)
    assert list(custom) == [[0, 1], [2]]
    with pytest.raises(ValueError):
        BatchSampler()
    with pytest.raises(ValueError):
        BatchSampler(range(3), sampler=SequenceSampler(range(3)))
    with pytest.raises(ValueError):
        BatchSampler(sampler=SequenceSampler(range(3)), shuffle=True)
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(range(3), batch_size=0)


@pytest.mark.parametrize("n", [1, 7, 10, 13, 24])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("batch_size", [1, 3])
def test_distributed_batch_sampler_partitions(n, replicas, batch_size):
    shards = []
    for rank in range(replicas):
        sampler = DistributedBatchSampler(range(n), batch_size, num_replicas=replicas,
                                          rank=rank)
        batches = list(sampler)
        assert len(batches) == len(sampler)
        assert all(len(b) == batch_size for b in batches[:-1])
        shards.append([i for b in batches for i in b])
    per_replica = -(-n // replicas)
    assert all(len(s) == per_replica for s in shards)  # equal lengths
    everything = sum(shards, [])
    assert sorted(set(everything)) == list(range(n))  # together they cover the data
    # Padding repeats the first indices: each index appears once, plus the padded ones.
    padding = per_replica * replicas - n
    expected = sorted(list(range(n)) + np.resize(np.arange(n), padding).tolist())
    assert sorted(everything) == expected
    if padding == 0:
        assert len(set(everything)) == len(everything)  # disjoint


def test_distributed_batch_sampler_shuffle_epochs_and_env(monkeypatch):
    samplers = [DistributedBatchSampler(range(12), 2, num_replicas=2, rank=r, shuffle=True)
                for r in range(2)]
    epoch0 = [sum(list(s), []) for s in samplers]
    assert sorted(epoch0[0] + epoch0[1]) == list(range(12))
    epoch1 = [sum(list(s), []) for s in samplers]  # the epoch advanced: a new order
    assert epoch1 != epoch0 and sorted(epoch1[0] + epoch1[1]) == list(range(12))
    for s in samplers:
        s.set_epoch(0)
    assert [sum(list(s), []) for s in samplers] == epoch0
    dropped = DistributedBatchSampler(range(10), 4, num_replicas=2, rank=1, drop_last=True)
    assert [len(b) for b in dropped] == [4] and len(dropped) == 1
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "2")
    from_env = DistributedBatchSampler(range(9), 3)
    assert (from_env.nranks, from_env.local_rank) == (3, 2)
    assert list(from_env) == [[6, 7, 8]]
    with pytest.raises(ValueError, match="rank"):
        DistributedBatchSampler(range(9), 3, num_replicas=2, rank=2)
