"""Datasets of image files on disk: DatasetFolder (one sub-folder per class) and ImageFolder
(all images under a folder, without labels).

Example:
    >>> import os, tempfile, numpy as np
    >>> from dygraph.vision.image import require_pil
    >>> root = tempfile.mkdtemp()
    >>> for name in ('cat', 'dog'):
    ...     os.makedirs(os.path.join(root, name))
    ...     require_pil().fromarray(np.zeros((2, 2, 3), np.uint8)).save(
    ...         os.path.join(root, name, 'a.png'))
    >>> ds = DatasetFolder(root)
    >>> ds.classes, ds.targets
    (['cat', 'dog'], [0, 1])
"""

import os

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.vision.image import get_image_backend, image_load, require_pil

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def default_loader(path):
    """An image file as RGB: a PIL image with the 'pil' backend, else a uint8 HWC array.

    Example:
        >>> callable(default_loader)
        True
    """
    if get_image_backend() == "pil":
        return require_pil().open(path).convert("RGB")
    return np.ascontiguousarray(image_load(path, backend="cv2")[:, :, ::-1])


def _validity_check(extensions, is_valid_file, owner):
    if extensions is not None and is_valid_file is not None:
        raise ValueError(f"{owner}: give extensions or is_valid_file, not both")
    if is_valid_file is not None:
        return is_valid_file
    extensions = tuple(e.lower() for e in (extensions or IMG_EXTENSIONS))
    return lambda path: path.lower().endswith(extensions)


def _files_under(folder, is_valid):
    found = []
    for directory, _, names in sorted(os.walk(folder, followlinks=True)):
        found.extend(os.path.join(directory, n) for n in sorted(names)
                     if is_valid(os.path.join(directory, n)))
    return found


class DatasetFolder(Dataset):
    """Samples from `root/<class>/**/<file>`; `dataset[i]` is `(loader(path), class_index)`.

    Classes are the sub-folder names in sorted order (`classes`, `class_to_idx`); `samples`
    lists (path, class_index) and `targets` the class indices.

    Example:
        >>> DatasetFolder.__name__
        'DatasetFolder'
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        is_valid = _validity_check(extensions, is_valid_file, type(self).__name__)
        self.classes = sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        self.samples = [(path, self.class_to_idx[name]) for name in self.classes
                        for path in _files_under(os.path.join(root, name), is_valid)]
        if not self.samples:
            raise RuntimeError(f"{type(self).__name__}: found no valid files in the class "
                               f"folders of {root} (extensions: "
                               f"{extensions or IMG_EXTENSIONS})")
        self.targets = [target for _, target in self.samples]
        self.loader = default_loader if loader is None else loader
        self.transform = transform

    def __getitem__(self, idx):
        path, target = self.samples[idx]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every valid file under `root` (recursively); `dataset[i]` is `[loader(path)]`.

    Example:
        >>> ImageFolder.__name__
        'ImageFolder'
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        is_valid = _validity_check(extensions, is_valid_file, type(self).__name__)
        self.samples = _files_under(root, is_valid)
        if not self.samples:
            raise RuntimeError(f"{type(self).__name__}: found no valid files under {root} "
                               f"(extensions: {extensions or IMG_EXTENSIONS})")
        self.loader = default_loader if loader is None else loader
        self.transform = transform

    def __getitem__(self, idx):
        sample = self.loader(self.samples[idx])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
