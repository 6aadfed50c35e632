"""CIFAR-10 and CIFAR-100: 32x32 colour images in 10 or 100 classes, read from the
original `cifar-10-python.tar.gz` / `cifar-100-python.tar.gz` archives.

The batches inside are pickles; they are read with a restricted unpickler
(`safe_pickle.safe_load`) that admits only arrays, lists, dicts, strings, bytes and
numbers, so a tampered archive cannot run code, and builds only what the file's bytes
back, so a tiny archive cannot claim gigabytes of images. Missing archives are downloaded
into `$DYGRAPH_HOME/cifar/` (md5-checked) when `download=True`.

Example:
    >>> Cifar10.FLAGS, Cifar100.FLAGS
    ({'train': 'data_batch', 'test': 'test_batch'}, {'train': 'train', 'test': 'test'})
"""

import tarfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.vision.datasets.download import fetch_file
from dygraph.vision.datasets.safe_pickle import safe_load
from dygraph.vision.image import check_backend, require_pil

__all__ = ["Cifar10", "Cifar100"]

_URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"


class Cifar10(Dataset):
    """CIFAR-10; `dataset[i]` is `(image, label)`: a PIL image (backend 'pil') or a float32
    32x32x3 HWC array (backend 'cv2'), after `transform` when given, and an int64 0-D label
    array. `data_file` is the path of the archive; without it the archive in the data
    home is used (downloaded when missing and `download=True`).

    Example:
        >>> ds = Cifar10(mode='test', download=False)  # doctest: +SKIP
    """

    ARCHIVE = "cifar-10-python.tar.gz"
    MD5 = "c58f30108f718f92721af3b95e74349a"
    FLAGS = {"train": "data_batch", "test": "test_batch"}
    LABEL_KEYS = (b"labels",)

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        owner = type(self).__name__
        self.mode = str(mode).lower()
        if self.mode not in ("train", "test"):
            raise ValueError(f"{owner}: mode should be 'train' or 'test', but got {mode!r}")
        self.backend = check_backend(backend, owner)
        if self.backend == "pil":
            require_pil()
        self.transform = transform
        self.dtype = np.float32
        self.data_file = fetch_file(owner, data_file, "cifar", self.ARCHIVE,
                                    [_URL_PREFIX + self.ARCHIVE], self.MD5, download)
        self.images, self.labels = self._load(self.data_file)

    def _load(self, path):
        owner, flag = type(self).__name__, self.FLAGS[self.mode]
        images, labels = [], []
        with tarfile.open(path, mode="r") as archive:
            names = sorted(m.name for m in archive.getmembers()
                           if m.isfile() and flag in m.name.rsplit("/", 1)[-1])
            if not names:
                raise ValueError(f"{owner}: {path} holds no '{flag}' batch; is it the "
                                 f"{self.ARCHIVE} archive?")
            for name in names:
                batch = safe_load(archive.extractfile(name),
                                  name=f"{owner}: batch {name} in {path}")
                data, batch_labels = self._check_batch(batch, name)
                images.append(data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
                labels.append(batch_labels)
        return np.concatenate(images), np.concatenate(labels)

    def _check_batch(self, batch, name):
        owner = type(self).__name__
        if not isinstance(batch, dict):
            raise ValueError(f"{owner}: batch {name} should be a dict, got "
                             f"{type(batch).__name__}")
        data = batch.get(b"data")
        labels = next((batch[k] for k in self.LABEL_KEYS if k in batch), None)
        if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 \
                or data.shape[1] != 3 * 32 * 32:
            raise ValueError(f"{owner}: batch {name} should hold b'data' as a uint8 "
                             f"[N, 3072] array")
        try:
            labels = None if labels is None else np.asarray(labels, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):  # not a list of integers
            labels = None
        if labels is None or labels.shape != (len(data),):
            raise ValueError(f"{owner}: batch {name} should hold one integer label per image "
                             f"under {' or '.join(map(repr, self.LABEL_KEYS))}")
        return data, labels

    def __getitem__(self, idx):
        image = self.images[idx]
        label = np.array(self.labels[idx], dtype=np.int64)
        if self.backend == "pil":
            image = require_pil().fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and isinstance(image, np.ndarray):
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 (the 100 fine labels); same API as Cifar10.

    Example:
        >>> Cifar100.ARCHIVE
        'cifar-100-python.tar.gz'
    """

    ARCHIVE = "cifar-100-python.tar.gz"
    MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
    FLAGS = {"train": "train", "test": "test"}
    LABEL_KEYS = (b"fine_labels", b"labels")
