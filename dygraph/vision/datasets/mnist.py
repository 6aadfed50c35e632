"""MNIST and Fashion-MNIST: 28x28 grey images of digits / clothes with labels 0-9.

Files are found, in order: the explicit `image_path`/`label_path`; `data_dir`; the data
home (`$DYGRAPH_HOME/mnist/` or `fashion-mnist/`, default `~/.cache/dygraph/dataset`),
where missing files are downloaded from the usual mirrors (md5-checked) when
`download=True`. Standard file names, gzipped or not: `train-images-idx3-ubyte.gz`,
`train-labels-idx1-ubyte.gz`, `t10k-images-idx3-ubyte.gz`, `t10k-labels-idx1-ubyte.gz`.

DyGraph ships a small real MNIST sample (8,000 training and 2,000 test digits, see
docs/DATA.md): `MNIST(mode=..., sample=True)`, or its file paths from
`mnist_sample_paths(mode)`. It needs no download.

Example:
    >>> ds = MNIST(mode='test', sample=True, backend='cv2')
    >>> image, label = ds[0]
    >>> len(ds), image.shape, image.dtype, label.shape, label.dtype
    (2000, (28, 28), dtype('float32'), (1,), dtype('int64'))
"""

import os

import numpy as np

from dygraph.framework.dtype import get_default_dtype
from dygraph.io.dataset import Dataset
from dygraph.tensor.tensor import Tensor
from dygraph.vision.datasets.download import (
    DownloadError,
    data_home,
    download,
    find_file,
    mirror_urls,
)
from dygraph.vision.datasets.idx import IDXFormatError, read_idx
from dygraph.vision.image import check_backend, require_pil

__all__ = ["MNIST", "FashionMNIST", "mnist_sample_paths", "SAMPLE_SIZES"]

SAMPLE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SAMPLE_SIZES = {"train": 8000, "test": 2000}


def mnist_sample_paths(mode="train"):
    """(image_path, label_path) of the MNIST sample that ships with DyGraph.

    Example:
        >>> [os.path.basename(p) for p in mnist_sample_paths('test')]
        ['t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz']
    """
    mode = _check_mode(mode, "mnist_sample_paths")
    return tuple(os.path.join(SAMPLE_DIR, name) for name, _ in MNIST.FILES[mode])


def _check_mode(mode, owner):
    mode = str(mode).lower()
    if mode not in ("train", "test"):
        raise ValueError(f"{owner}: mode should be 'train' or 'test', but got {mode!r}")
    return mode


class MNIST(Dataset):
    """The MNIST handwritten digits; `dataset[i]` is `(image, label)`.

    `image` is a PIL image (backend 'pil', the default: mode 'L', uint8) or a 28x28 array
    with values 0-255 of the default dtype (backend 'cv2': float32 unless set_default_dtype
    changed it when the dataset was built), after `transform` when one is given; `label` is
    an int64 array of shape [1]. The backend defaults to `dygraph.vision.get_image_backend()`.
    `data_dir` (a folder with the standard file names) and `sample=True` (the digits that
    ship with DyGraph) are DyGraph extensions.

    Example:
        >>> ds = MNIST(mode='train', sample=True, backend='cv2')
        >>> len(ds), int(ds[0][1][0]) in range(10)
        (8000, True)
    """

    NAME = "mnist"
    TITLE = "MNIST"
    MIRRORS = ["https://dataset.bj.bcebos.com/mnist/",
               "https://ossci-datasets.s3.amazonaws.com/mnist/"]
    FILES = {"train": (("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                       ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432")),
             "test": (("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                      ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"))}

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None, *, data_dir=None, sample=False):
        self.mode = _check_mode(mode, type(self).__name__)
        self.backend = check_backend(backend, type(self).__name__)
        if self.backend == "pil":
            require_pil()
        self.transform = transform
        # Paddle 3.3 keeps get_default_dtype() at construction for the 'cv2' images
        self.dtype = get_default_dtype()
        if sample:
            image_path, label_path = self._sample_paths()
        folder = data_dir if data_dir is not None else os.path.join(data_home(), self.NAME)
        (image_name, image_md5), (label_name, label_md5) = self.FILES[self.mode]
        wanted = []
        if image_path is None:
            wanted.append((image_name, image_md5))
        if label_path is None:
            wanted.append((label_name, label_md5))
        found = self._locate(folder, wanted, download)
        self.image_path = image_path if image_path is not None else found[image_name]
        self.label_path = label_path if label_path is not None else found[label_name]
        self.images, self.labels = self._load(self.image_path, self.label_path)

    def _sample_paths(self):
        return mnist_sample_paths(self.mode)

    def _locate(self, folder, wanted, allow_download):
        """Paths of the `wanted` (name, md5) files in `folder`, downloading missing ones."""
        found, missing = {}, []
        for name, md5 in wanted:
            path = find_file(folder, name)
            if path is None:
                missing.append((name, md5))
            else:
                found[name] = path
        if not missing:
            return found
        if not allow_download:
            raise FileNotFoundError(self._missing_message(folder, missing, None))
        failures = []
        for name, md5 in missing:
            try:
                found[name] = download(mirror_urls(self.NAME, name, self.MIRRORS),
                                       os.path.join(folder, name), md5)
            except DownloadError as exc:
                failures.append(str(exc))
        if failures:
            raise RuntimeError(self._missing_message(folder, missing, "\n".join(failures)))
        return found

    def _missing_message(self, folder, missing, failure):
        names = ", ".join(name for name, _ in missing)
        head = (f"{type(self).__name__}: the {self.TITLE} {self.mode} files are missing and "
                + ("download=False" if failure is None else "could not be downloaded"))
        lines = [head + ".",
                 f"Put {names} (the standard files, gzipped or not) into {folder}",
                 "  (set $DYGRAPH_HOME to use another data home, or pass data_dir=, or "
                 "image_path= and label_path=),"]
        if failure is not None:
            lines.append("  or check the network connection (mirrors can be replaced with "
                         "$DYGRAPH_DATASET_MIRROR).")
            lines.append(failure)
        lines.append(self._sample_hint())
        return "\n".join(lines)

    def _sample_hint(self):
        return (f"Without the full data set, MNIST(mode='{self.mode}', sample=True) uses the "
                f"small MNIST sample that ships with DyGraph ({SAMPLE_SIZES['train']:,} train "
                f"/ {SAMPLE_SIZES['test']:,} test digits).")

    def _load(self, image_path, label_path):
        for path in (image_path, label_path):
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{type(self).__name__}: no such file: {path}")
        images = read_idx(image_path, expect_dims=3)
        labels = read_idx(label_path, expect_dims=1)
        if images.dtype != np.uint8 or labels.dtype != np.uint8:
            raise IDXFormatError(f"{type(self).__name__}: expected uint8 IDX files, got "
                                 f"images {images.dtype} and labels {labels.dtype}")
        if len(images) != len(labels):
            raise IDXFormatError(f"{type(self).__name__}: {image_path} holds {len(images)} "
                                 f"images but {label_path} holds {len(labels)} labels")
        return images, labels.astype(np.int64)

    def __getitem__(self, idx):
        image = self.images[idx]
        label = np.array([self.labels[idx]], dtype=np.int64)
        if self.backend == "pil":
            image = require_pil().fromarray(image)
        else:
            image = image.astype(np.float32)  # the transform sees float32 (as Paddle)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and isinstance(image, (np.ndarray, Tensor)):
            # Paddle casts what the transform returns (an array or a Tensor) to the dtype
            image = (image.astype(self.dtype, copy=False) if isinstance(image, np.ndarray)
                     else image.astype(self.dtype))
        return image, label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando): the MNIST format with 10 kinds of clothing; same API as
    MNIST, files in `$DYGRAPH_HOME/fashion-mnist/`. No sample of it ships with DyGraph.

    Example:
        >>> FashionMNIST.FILES['test'][1][0]
        't10k-labels-idx1-ubyte.gz'
    """

    NAME = "fashion-mnist"
    TITLE = "Fashion-MNIST"
    MIRRORS = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    FILES = {"train": (("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                       ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe")),
             "test": (("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                      ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"))}

    def _sample_paths(self):
        raise ValueError("FashionMNIST: no Fashion-MNIST sample ships with DyGraph "
                         "(sample=True exists for MNIST only)")

    def _sample_hint(self):
        return ("No Fashion-MNIST sample ships with DyGraph; MNIST(sample=True) gives a small "
                "MNIST sample.")
