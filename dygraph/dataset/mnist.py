"""MNIST as 1.x readers: each sample is `(image, label)`, the image a float32[784] array
scaled to [-1, 1] and the label an int, as Paddle 1.x gave them.

The full MNIST is read from the data home (`$DYGRAPH_HOME/mnist/`, default
`~/.cache/dygraph/dataset/mnist/`, standard file names, gzipped or not) when present;
otherwise the small MNIST sample that ships with DyGraph is used (8,000 train / 2,000
test digits), with a warning the first time (per data home). Nothing is downloaded.

Example:
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter('ignore')
    ...     image, label = next(test()())
    >>> image.shape, image.dtype, bool(-1.0 <= image.min() <= image.max() <= 1.0), type(label)
    ((784,), dtype('float32'), True, <class 'int'>)
"""

import os
import warnings

import numpy as np

from dygraph.vision.datasets.download import dataset_dir, find_file
from dygraph.vision.datasets.idx import read_idx
from dygraph.vision.datasets.mnist import MNIST, mnist_sample_paths

__all__ = ["train", "test", "files"]

_cache = {}
_warned = set()  # data homes already reported as missing


def files(mode):
    """(image_path, label_path) that the `mode` reader reads: the data home's, else the
    shipped sample's.

    Example:
        >>> len(files('test'))
        2
    """
    folder = dataset_dir(MNIST.NAME)
    paths = [find_file(folder, name) for name, _ in MNIST.FILES[mode]]
    if all(paths):
        return tuple(paths)
    if folder not in _warned:
        _warned.add(folder)
        warnings.warn(f"dygraph.dataset.mnist: no full MNIST in {folder}; using the small "
                      f"MNIST sample that ships with DyGraph (8,000 train / 2,000 test "
                      f"digits). Put the standard MNIST files there for the full data set.",
                      stacklevel=3)
    return mnist_sample_paths(mode)


def _arrays(mode):
    paths = files(mode)
    key = tuple(os.path.abspath(p) for p in paths)
    if key not in _cache:
        _cache[key] = (read_idx(paths[0], expect_dims=3), read_idx(paths[1], expect_dims=1))
    return _cache[key]


def _reader_creator(mode):
    def reader():
        images, labels = _arrays(mode)
        scaled = images.reshape(len(images), -1).astype(np.float32) * np.float32(2.0 / 255.0)
        scaled -= np.float32(1.0)
        yield from zip(scaled, labels.tolist())

    return reader


def train():
    """The MNIST training reader (60,000 samples, or the 8,000 of the shipped sample).

    Example:
        >>> import warnings; warnings.simplefilter('ignore')
        >>> sum(1 for _ in train()()) in (60000, 8000)
        True
    """
    return _reader_creator("train")


def test():
    """The MNIST test reader (10,000 samples, or the 2,000 of the shipped sample).

    Example:
        >>> import warnings; warnings.simplefilter('ignore')
        >>> sum(1 for _ in test()()) in (10000, 2000)
        True
    """
    return _reader_creator("test")
