"""DataLoader behaviour that must be the same with and without worker processes."""

import numpy as np
import pytest

import dygraph
from dygraph.io import (
    BatchSampler,
    DataLoader,
    TensorDataset,
    default_collate_fn,
)
from tests.io.worker_data import Indexed, Ragged, Sharded

WORKERS = [0, 2]


def labels_of(loader):
    return [batch[1].numpy().tolist() for batch in loader]


@pytest.mark.parametrize("num_workers", WORKERS)
def test_order_batches_and_types(num_workers):
    loader = DataLoader(Indexed(7), batch_size=3, num_workers=num_workers, timeout=30)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    x, y = batches[0]
    assert isinstance(batches[0], list)
    assert isinstance(x, dygraph.Tensor) and x.shape == [3, 2] and x.dtype == dygraph.float32
    assert y.dtype == dygraph.int64 and x.stop_gradient
    assert labels_of(loader) == [[0, 1, 2], [3, 4, 5], [6]]
    np.testing.assert_array_equal(batches[2][0].numpy(), np.full((1, 2), 6.0))


@pytest.mark.parametrize("num_workers", WORKERS)
def test_drop_last(num_workers):
    loader = DataLoader(Indexed(7), batch_size=3, drop_last=True, num_workers=num_workers,
                        timeout=30)
    assert len(loader) == 2
    assert labels_of(loader) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("num_workers", WORKERS)
def test_shuffle_is_reproducible_with_seed(num_workers):
    loader = DataLoader(Indexed(10), batch_size=4, shuffle=True, num_workers=num_workers,
                        timeout=30)
    dygraph.seed(123)
    first = labels_of(loader)
    dygraph.seed(123)
    assert labels_of(loader) == first
    flat = sum(first, [])
    assert sorted(flat) == list(range(10)) and flat != list(range(10))


def test_shuffle_order_does_not_depend_on_workers():
    orders = []
    for workers in WORKERS:
        dygraph.seed(5)
        orders.append(labels_of(DataLoader(Indexed(9), batch_size=2, shuffle=True,
                                           num_workers=workers, timeout=30)))
    assert orders[0] == orders[1]


class Nested:
    """Samples with nested dicts, lists, numbers and strings."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"pair": (np.full(3, i, np.int32), float(i) / 2),
                "meta": {"name": f"s{i}", "ids": [i, i + 10]},
                "tensor": dygraph.to_tensor([i, i], dtype="float32")}


@pytest.mark.parametrize("num_workers", WORKERS)
def test_collate_of_nested_structures(num_workers):
    batch = next(iter(DataLoader(Nested(), batch_size=4, num_workers=num_workers, timeout=30)))
    arr, half = batch["pair"]
    assert arr.shape == [4, 3] and arr.dtype == dygraph.int32
    assert half.numpy().tolist() == [0.0, 0.5, 1.0, 1.5]
    assert batch["meta"]["name"] == ["s0", "s1", "s2", "s3"]
    first_ids, second_ids = batch["meta"]["ids"]
    assert first_ids.numpy().tolist() == [0, 1, 2, 3]
    assert second_ids.numpy().tolist() == [10, 11, 12, 13]
    assert batch["tensor"].shape == [4, 2]


def test_default_collate_fn_errors():
    with pytest.raises(ValueError, match=r"cannot stack the samples into one batch, the "
                                         r"samples have different shapes: sample 0 has shape "
                                         r"\[2\], sample 1 has shape \[3\]; make"):
        default_collate_fn([np.zeros(2), np.zeros(3)])
    with pytest.raises(ValueError, match=r"same number of fields in the samples; sample 0 has "
                                         r"2 fields, sample 1 has 1 fields"):
        default_collate_fn([(1, 2), (1,)])
    with pytest.raises(TypeError, match="object"):
        default_collate_fn([object(), object()])


def test_collate_errors_name_the_field_and_the_samples():
    image = {"image": np.zeros((2, 3)), "label": 0}
    wide = {"image": np.zeros((2, 4)), "label": 1}
    with pytest.raises(ValueError, match=r"field \['image'\] into one batch.*: sample 0 has "
                                         r"shape \[2, 3\], sample 2 has shape \[2, 4\];"):
        default_collate_fn([image, image, wide, image, wide])
    with pytest.raises(ValueError, match=r"field \[1\] .*sample 0 has shape \[1\], sample 1 "
                                         r"has shape \[2\]"):
        default_collate_fn([(0, np.zeros(1)), (1, np.zeros(2))])
    nested = [{"meta": [i, (np.zeros(i % 2 + 1),)]} for i in range(3)]
    with pytest.raises(ValueError, match=r"field \['meta'\]\[1\]\[0\] .*sample 0 has shape "
                                         r"\[1\], sample 1 has shape \[2\];"):
        default_collate_fn(nested)
    mixed = [dygraph.to_tensor(np.zeros(2)), [0.0, 1.0, 2.0]]
    with pytest.raises(ValueError, match=r"sample 0 has shape \[2\], sample 1 is a list"):
        default_collate_fn(mixed)
    many = [np.zeros(n) for n in (1, 1, 2, 3, 4, 5, 6)]
    with pytest.raises(ValueError, match=r"sample 4 has shape \[4\], and 2 more;"):
        default_collate_fn(many)
    with pytest.raises(ValueError, match=r"fields in field \['pair'\]; sample 0 has 2 fields, "
                                         r"sample 1 has 3 fields"):
        default_collate_fn([{"pair": (1, 2)}, {"pair": (1, 2, 3)}])


@pytest.mark.parametrize("num_workers", WORKERS)
def test_collate_error_through_the_loader(num_workers):
    loader = DataLoader(Ragged(), batch_size=4, num_workers=num_workers, timeout=30)
    with pytest.raises(ValueError, match=r"cannot stack field \['image'\] into one batch, the "
                                         r"samples have different shapes: sample 0 has shape "
                                         r"\[3\], sample 2 has shape \[7\]"):
        next(iter(loader))


@pytest.mark.parametrize("num_workers", WORKERS)
def test_iterable_dataset_batches(num_workers):
    loader = DataLoader(Sharded(7), batch_size=2, num_workers=num_workers, timeout=30)
    values = sorted(v for batch in loader for v in batch.numpy().tolist())
    assert values == list(range(7))
    with pytest.raises(TypeError):
        len(loader)


def test_iterable_dataset_with_workers_round_robin_and_drop_last():
    loader = DataLoader(Sharded(10), batch_size=3, num_workers=2, timeout=30)
    assert [b.numpy().tolist() for b in loader] == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    dropped = DataLoader(Sharded(10), batch_size=3, drop_last=True, num_workers=2, timeout=30)
    assert [b.numpy().tolist() for b in dropped] == [[0, 2, 4], [1, 3, 5]]


@pytest.mark.parametrize("num_workers", WORKERS)
def test_batch_size_none_and_custom_batch_sampler(num_workers):
    single = list(DataLoader(Indexed(3), batch_size=None, num_workers=num_workers, timeout=30))
    assert [s[1] for s in single] == [0, 1, 2]  # numbers stay numbers without batching
    assert single[0][0].shape == [2]
    sampler = BatchSampler(sampler=[4, 0, 2], batch_size=2)
    loader = DataLoader(Indexed(5), batch_sampler=sampler, num_workers=num_workers, timeout=30)
    assert labels_of(loader) == [[4, 0], [2]]


@pytest.mark.parametrize("num_workers", WORKERS)
def test_custom_collate_fn_output_becomes_tensors(num_workers):
    def collate(samples):  # only used with fork, so a local function is fine
        return np.stack([s[0] for s in samples]).sum(axis=0), len(samples)

    loader = DataLoader(Indexed(4), batch_size=2, collate_fn=collate, num_workers=num_workers,
                        timeout=30)
    total, count = next(iter(loader))
    assert total.numpy().tolist() == [1.0, 1.0] and count == 2


def test_argument_checks():
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(Indexed(2), num_workers=-1)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(Indexed(2), batch_size=0)
    with pytest.raises(ValueError, match="timeout"):
        DataLoader(Indexed(2), timeout=-1)
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Sharded(2), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(Indexed(2), batch_sampler=BatchSampler(range(2)), batch_size=2)


def test_feed_list_dict_call_syntax_and_from_generator():
    loader = DataLoader(TensorDataset([np.zeros((2, 3)), np.arange(2)]), batch_size=2,
                        return_list=False, feed_list=["image", "label"])
    batch = next(loader())
    assert sorted(batch) == ["image", "label"] and batch["image"].shape == [2, 3]

    def samples():
        for i in range(5):
            yield np.full(2, i, np.float32), i

    gen = DataLoader.from_generator(capacity=4, return_list=True)
    gen.set_sample_generator(samples, batch_size=2, drop_last=False)
    assert [y.numpy().tolist() for _, y in gen()] == [[0, 1], [2, 3], [4]]
    gen.set_sample_list_generator(dygraph.batch(samples, 5))
    (x, y), = list(gen)
    assert x.shape == [5, 2] and y.numpy().tolist() == [0, 1, 2, 3, 4]
    empty = DataLoader.from_generator()
    with pytest.raises(RuntimeError, match="set a source"):
        list(empty())


def test_batches_do_not_share_memory_with_the_dataset():
    data = np.zeros((3, 2), np.float32)
    (row,) = next(iter(DataLoader(TensorDataset([data]), batch_size=None)))
    row.numpy()[...] = 5.0
    assert data.max() == 0.0


@pytest.mark.parametrize("num_workers", WORKERS)
def test_tensor_dataset_batches_equal_per_sample_collation(num_workers):
    # TensorDataset batches are read with one indexing per field; they must be what
    # collating the samples one by one gives, for Tensors and arrays alike.
    images = dygraph.to_tensor(np.arange(40, dtype=np.float32).reshape(10, 2, 2))
    labels = np.arange(10, dtype=np.int64).reshape(10, 1)
    dataset = TensorDataset([images, labels])
    dygraph.seed(3)
    fast = list(DataLoader(dataset, batch_size=4, shuffle=True, num_workers=num_workers))
    dygraph.seed(3)
    slow = list(DataLoader(dataset, batch_size=4, shuffle=True, num_workers=num_workers,
                           collate_fn=lambda samples: default_collate_fn(samples)))
    assert len(fast) == len(slow) == 3
    for a, b in zip(fast, slow):
        for fa, fb in zip(a, b):
            assert fa.dtype == fb.dtype and fa.shape == fb.shape
            np.testing.assert_array_equal(fa.numpy(), fb.numpy())
    fast[0][0].numpy()[...] = -1.0  # a batch is a copy, not a view of the dataset
    assert images.numpy().min() == 0.0
