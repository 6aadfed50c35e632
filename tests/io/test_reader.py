"""The 1.x reader API (dygraph.batch, dygraph.reader.*) and dygraph.dataset.mnist."""

import os
import threading
import time

import numpy as np
import pytest

import dygraph
from dygraph import reader as R
from dygraph.vision.datasets import write_idx


def numbers(n):
    return lambda: iter(range(n))


def test_batch():
    assert list(dygraph.batch(numbers(5), 2)()) == [[0, 1], [2, 3], [4]]
    assert list(dygraph.batch(numbers(5), 2, drop_last=True)()) == [[0, 1], [2, 3]]
    reader = dygraph.batch(numbers(3), 3)
    assert list(reader()) == list(reader())  # a reader can be read again
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="batch_size should be a positive integer"):
            dygraph.batch(numbers(3), bad)


def test_shuffle_is_a_seeded_permutation_within_buffers():
    dygraph.seed(0)
    first = list(R.shuffle(numbers(20), 20)())
    dygraph.seed(0)
    assert list(R.shuffle(numbers(20), 20)()) == first
    assert sorted(first) == list(range(20)) and first != list(range(20))
    windows = list(R.shuffle(numbers(9), 3)())
    assert [sorted(windows[i:i + 3]) for i in (0, 3, 6)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert dygraph.reader.shuffle is R.shuffle


def test_decorators():
    assert list(R.chain(numbers(2), numbers(3))()) == [0, 1, 0, 1, 2]
    assert list(R.compose(numbers(2), lambda: iter([(5, 6), (7, 8)]))()) == [(0, 5, 6),
                                                                             (1, 7, 8)]
    with pytest.raises(R.ComposeNotAligned):
        list(R.compose(numbers(2), numbers(3))())
    assert list(R.compose(numbers(2), numbers(3), check_alignment=False)()) == [(0, 0), (1, 1)]
    assert list(R.map_readers(lambda a, b: a * b, numbers(3), numbers(3))()) == [0, 1, 4]
    assert list(R.firstn(numbers(100), 4)()) == [0, 1, 2, 3]
    assert list(R.buffered(numbers(50), 4)()) == list(range(50))
    calls = []
    cached = R.cache(lambda: (calls.append(1) or iter([1, 2])))
    assert list(cached()) + list(cached()) == [1, 2, 1, 2] and len(calls) == 1


def test_buffered_reraises_errors_and_stops_its_thread():
    def failing():
        yield 1
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        list(R.buffered(failing, 2)())
    before = threading.active_count()
    for _ in R.buffered(numbers(1000), 2)():
        break
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert threading.active_count() <= before


def test_xmap_readers():
    def slow_square(x):
        time.sleep(0.01 * (x % 3))
        return x * x

    ordered = list(R.xmap_readers(slow_square, numbers(10), 3, 4, order=True)())
    assert ordered == [x * x for x in range(10)]
    unordered = list(R.xmap_readers(slow_square, numbers(10), 3, 4)())
    assert sorted(unordered) == ordered


def test_distributed_batch_reader(monkeypatch):
    batches = lambda: iter([[0], [1], [2], [3], [4]])  # noqa: E731
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    seen = []
    for rank in (0, 1):
        monkeypatch.setenv("PADDLE_TRAINER_ID", str(rank))
        seen.append(list(R.distributed_batch_reader(batches)()))
    assert seen == [[[0], [2]], [[1], [3]]]  # the incomplete last group is dropped


def test_mnist_readers_fall_back_to_the_shipped_sample(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    with pytest.warns(UserWarning, match="sample"):
        samples = list(dygraph.dataset.mnist.test()())
    assert len(samples) == 2000
    image, label = samples[0]
    assert image.shape == (784,) and image.dtype == np.float32 and isinstance(label, int)
    stacked = np.stack([s[0] for s in samples])
    assert stacked.min() == -1.0 and stacked.max() == 1.0
    assert sorted({s[1] for s in samples}) == list(range(10))
    first = next(dygraph.batch(dygraph.dataset.mnist.train(), 64, drop_last=True)())
    assert len(first) == 64
    x = np.array([s[0].reshape(1, 28, 28) for s in first]).astype("float32")  # as the seeds do
    assert x.shape == (64, 1, 28, 28)


def test_mnist_readers_use_the_full_data_in_the_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    images = np.array([np.zeros((28, 28)), np.full((28, 28), 255)], np.uint8)
    write_idx(os.path.join(tmp_path, "mnist", "train-images-idx3-ubyte.gz"), images)
    write_idx(os.path.join(tmp_path, "mnist", "train-labels-idx1-ubyte"),
              np.array([3, 8], np.uint8))
    samples = list(dygraph.dataset.mnist.train()())
    assert [s[1] for s in samples] == [3, 8]
    np.testing.assert_array_equal(samples[0][0], -np.ones(784, np.float32))
    np.testing.assert_array_equal(samples[1][0], np.ones(784, np.float32))


def test_batch_accepts_integral_numbers_like_paddle():
    import numpy as np

    import dygraph

    for size in (np.int64(2), 2.0):
        assert [len(b) for b in dygraph.batch(lambda: iter(range(5)), size)()] == [2, 2, 1]
    with pytest.raises(ValueError, match="positive integer"):
        dygraph.batch(lambda: iter(range(5)), 2.5)
