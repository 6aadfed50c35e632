"""Data for the MNIST example: finding the IDX files, scaling images to [-1, 1] as the seeds'
1.x reader does, and the image-file side of inference (the seeds' `load_image`).

Where the digits come from, in order:

1. `data_dir`, holding either the standard files (`train-images-idx3-ubyte.gz`,
   `train-labels-idx1-ubyte.gz`, `t10k-images-idx3-ubyte.gz`, `t10k-labels-idx1-ubyte.gz`,
   gzipped or not) or one image file and one label file (`images-idx3-ubyte.gz` and
   `labels-idx1-ubyte.gz`, the layout of a 10k MNIST subset), split into the first 80% for
   training and the last 20% for testing (8,000 and 2,000 of 10,000);
2. the data home (`$DYGRAPH_HOME/mnist/`, see `dygraph.vision.datasets`), downloading the
   standard files into it when `download` is true;
3. for MNIST only, the 8,000 / 2,000-digit sample that ships with DyGraph.

Example:
    >>> data = load_data()  # the shipped sample unless the data home holds full MNIST
    >>> data.train_x.shape[1:], data.train_x.dtype, data.test_y.dtype
    ((1, 28, 28), dtype('float32'), dtype('int64'))
"""

import os
from dataclasses import dataclass

import numpy as np

from dygraph.vision.datasets import FashionMNIST, data_home, mnist_sample_paths, read_idx
from dygraph.vision.datasets.download import find_file
from dygraph.vision.datasets.mnist import MNIST

__all__ = ["MNISTData", "load_data", "scale_images", "unscale_image", "load_image",
           "write_digit_png", "SINGLE_FILES", "TRAIN_FRACTION"]

DATASETS = {"mnist": MNIST, "fashion-mnist": FashionMNIST}
# The layout of a one-file subset (such as a 10k MNIST extract): images and labels only.
SINGLE_FILES = ("images-idx3-ubyte.gz", "labels-idx1-ubyte.gz")
TRAIN_FRACTION = 0.8


@dataclass
class MNISTData:
    """Scaled images float32 [N, 1, 28, 28] in [-1, 1], int64 labels [N], and a sentence
    saying where they came from.

    Example:
        >>> z = np.zeros((0, 1, 28, 28), np.float32)
        >>> MNISTData(z, np.zeros(0, np.int64), z, np.zeros(0, np.int64), 'nothing').source
        'nothing'
    """

    train_x: np.ndarray
    train_y: np.ndarray
    test_x: np.ndarray
    test_y: np.ndarray
    source: str
    is_sample: bool = False


def scale_images(images):
    """uint8 images [N, 28, 28] -> float32 [N, 1, 28, 28] in [-1, 1] (x / 255 * 2 - 1).

    Example:
        >>> scale_images(np.array([[[0, 255]]], np.uint8)).tolist()
        [[[[-1.0, 1.0]]]]
    """
    images = np.asarray(images)
    out = images.astype(np.float32).reshape(images.shape[0], 1, *images.shape[1:])
    out *= np.float32(2.0 / 255.0)
    out -= np.float32(1.0)
    return out


def _read_pair(image_path, label_path):
    images = read_idx(image_path, expect_dims=3)
    labels = read_idx(label_path, expect_dims=1).astype(np.int64)
    if len(images) != len(labels):
        raise ValueError(f"{image_path} holds {len(images)} images but {label_path} holds "
                         f"{len(labels)} labels")
    return images, labels


def _standard_files(folder, cls):
    """{'train': (images, labels), 'test': (...)} paths in `folder`, or None if incomplete."""
    paths = {}
    for mode, files in cls.FILES.items():
        found = [find_file(folder, name) for name, _ in files]
        if None in found:
            return None
        paths[mode] = tuple(found)
    return paths


def _from_standard(paths, source, is_sample=False):
    train_images, train_y = _read_pair(*paths["train"])
    test_images, test_y = _read_pair(*paths["test"])
    return MNISTData(scale_images(train_images), train_y, scale_images(test_images), test_y,
                     source, is_sample)


def _from_single(folder):
    images, labels = _read_pair(*(find_file(folder, name) for name in SINGLE_FILES))
    split = int(round(len(labels) * TRAIN_FRACTION))
    scaled = scale_images(images)
    source = (f"{folder}: {len(labels):,} digits, the first {split:,} for training and the "
              f"last {len(labels) - split:,} for testing")
    return MNISTData(scaled[:split], labels[:split], scaled[split:], labels[split:], source)


def load_data(data_dir=None, dataset="mnist", download=False):
    """Find and load the training and test digits (see the module docstring for the order).

    Raises FileNotFoundError naming the folders searched when nothing fits.

    Example:
        >>> float(load_data(dataset='mnist').train_x.max())
        1.0
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset should be one of {sorted(DATASETS)}, got {dataset!r}")
    cls = DATASETS[dataset]
    if data_dir is not None:
        folder = os.path.abspath(os.path.expanduser(data_dir))
        paths = _standard_files(folder, cls)
        if paths is not None:
            return _from_standard(paths, f"{folder} ({cls.TITLE} train and t10k files)")
        if all(find_file(folder, name) for name in SINGLE_FILES):
            return _from_single(folder)
        names = ", ".join(name for files in cls.FILES.values() for name, _ in files)
        raise FileNotFoundError(
            f"no {cls.TITLE} files in {folder}: expected {names} (gzipped or not), or "
            f"{' + '.join(SINGLE_FILES)}")
    home = os.path.join(data_home(), cls.NAME)
    paths = _standard_files(home, cls)
    if paths is not None:
        return _from_standard(paths, f"{home} ({cls.TITLE})")
    if download:
        train = cls(mode="train", download=True, backend="cv2")
        test = cls(mode="test", download=True, backend="cv2")
        return _from_standard({"train": (train.image_path, train.label_path),
                               "test": (test.image_path, test.label_path)},
                              f"{home} ({cls.TITLE}, downloaded)")
    if dataset == "mnist":
        paths = {mode: mnist_sample_paths(mode) for mode in ("train", "test")}
        return _from_standard(paths, f"the MNIST sample that ships with DyGraph (no MNIST "
                                     f"in {home}; use --data-dir DIR or --download for the "
                                     f"full 60,000 / 10,000 set)", is_sample=True)
    raise FileNotFoundError(
        f"no {cls.TITLE} files in {home} and no sample of it ships with DyGraph: pass "
        f"--data-dir DIR (a folder with the standard IDX files) or --download")


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("predicting an image file needs Pillow: pip install pillow") from None
    return Image


def load_image(path):
    """The seeds' `load_image`: grey, resized to 28x28 (Lanczos, formerly ANTIALIAS),
    float32 [1, 1, 28, 28] scaled to [-1, 1].

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     png = write_digit_png(np.full((28, 28), 255, np.uint8), folder, 1)
        ...     float(load_image(png).min())
        1.0
    """
    image = _pil()
    im = image.open(path).convert("L")
    im = im.resize((28, 28), image.Resampling.LANCZOS)
    im = np.array(im).reshape(1, 1, 28, 28).astype(np.float32)
    return im / 255.0 * 2.0 - 1.0


def write_digit_png(pixels, folder, label):
    """Write a 28x28 uint8 image as `infer_<label>.png` in `folder`; returns the path.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     os.path.basename(write_digit_png(np.zeros((28, 28), np.uint8), folder, 3))
        'infer_3.png'
    """
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"infer_{int(label)}.png")
    _pil().fromarray(np.asarray(pixels, dtype=np.uint8)).save(path)
    return path


def unscale_image(image):
    """Inverse of scale_images for one image: float [1, 28, 28] in [-1, 1] -> uint8 28x28.

    Example:
        >>> unscale_image(np.array([[[-1.0, 1.0]]], np.float32)).tolist()
        [[0, 255]]
    """
    return np.clip(np.rint((np.asarray(image)[0] + 1.0) * 127.5), 0, 255).astype(np.uint8)
