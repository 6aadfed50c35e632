"""PASCAL VOC 2012 segmentation: images and their class masks, from
`VOCtrainval_11-May-2012.tar`, read straight from the archive (nothing is extracted).

As in Paddle, mode 'train' uses the 'trainval' image list, 'test' the 'train' list and
'valid' the 'val' list.

Example:
    >>> VOC2012.SPLITS['train']
    'trainval'
"""

import io

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.vision.datasets.download import fetch_file
from dygraph.vision.datasets.tar_reader import TarReader
from dygraph.vision.image import check_backend, require_pil

__all__ = ["VOC2012"]

_ROOT = "VOCdevkit/VOC2012"


class VOC2012(Dataset):
    """`dataset[i]` is (image, mask): PIL images (backend 'pil') or float32 arrays (backend
    'cv2': HWC RGB image and H x W mask of class ids), the image after `transform`.
    `data_file` is the archive's path; without it the archive in the data home
    (`$DYGRAPH_HOME/voc2012/`) is used, downloaded when missing and `download=True`.

    Example:
        >>> ds = VOC2012(mode='valid', download=False)  # doctest: +SKIP
    """

    URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
    MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
    SPLITS = {"train": "trainval", "test": "train", "valid": "val"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        self.mode = str(mode).lower()
        if self.mode not in self.SPLITS:
            raise ValueError(f"VOC2012: mode should be 'train', 'valid' or 'test', but got "
                             f"{mode!r}")
        self.backend = check_backend(backend, "VOC2012")
        require_pil()  # JPEG and PNG decoding
        self.transform = transform
        self.dtype = np.float32
        self.flag = self.SPLITS[self.mode]
        self.data_file = fetch_file("VOC2012", data_file, "voc2012",
                                    "VOCtrainval_11-May-2012.tar", [self.URL], self.MD5,
                                    download)
        self._archive = TarReader(self.data_file)
        listing = self._archive.read(f"{_ROOT}/ImageSets/Segmentation/{self.flag}.txt")
        ids = [line.strip().decode() for line in listing.splitlines() if line.strip()]
        self.data = [f"{_ROOT}/JPEGImages/{i}.jpg" for i in ids]
        self.labels = [f"{_ROOT}/SegmentationClass/{i}.png" for i in ids]

    def __getitem__(self, idx):
        pil = require_pil()
        image = pil.open(io.BytesIO(self._archive.read(self.data[idx])))
        label = pil.open(io.BytesIO(self._archive.read(self.labels[idx])))
        if self.backend == "cv2":
            image, label = np.array(image), np.array(label)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            return np.asarray(image).astype(self.dtype), label.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.data)
