"""Oxford 102 Flowers: 8,189 flower photos in 102 classes, from `102flowers.tgz` (the JPEGs),
`imagelabels.mat` (the labels) and `setid.mat` (the splits), as Paddle reads them.

As in Paddle, mode 'train' uses the split the .mat file calls 'tstid' (6,149 images) and
'test' the one it calls 'trnid' (1,020), 'valid' the 'valid' split. Images are read
straight from the archive (nothing is extracted). Reading the .mat files needs SciPy.

Example:
    >>> Flowers.SPLITS['train']
    'tstid'
"""

import io

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.utils.lazy_import import try_import
from dygraph.vision.datasets.download import fetch_file
from dygraph.vision.datasets.tar_reader import TarReader
from dygraph.vision.image import check_backend, require_pil

__all__ = ["Flowers"]

_URL_PREFIX = "http://paddlemodels.bj.bcebos.com/flowers/"


class Flowers(Dataset):
    """102 Flowers; `dataset[i]` is `(image, label)`: a PIL image (backend 'pil') or a
    float32 HWC RGB array (backend 'cv2'), after `transform`, and an int64 label array of
    shape [1] (labels 1-102, as in the .mat file). Each of the three files is taken from
    its argument or the data home (`$DYGRAPH_HOME/flowers/`), downloaded when missing.

    Example:
        >>> ds = Flowers(mode='valid', download=False)  # doctest: +SKIP
    """

    FILES = {"data": ("102flowers.tgz", "52808999861908f626f3c1f4e79d11fa"),
             "label": ("imagelabels.mat", "e0620be6f572b9609742df49c70aed4d"),
             "setid": ("setid.mat", "a5357ecc9cb78c4bef273ce3793fc85c")}
    SPLITS = {"train": "tstid", "test": "trnid", "valid": "valid"}

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train",
                 transform=None, download=True, backend=None):
        self.mode = str(mode).lower()
        if self.mode not in self.SPLITS:
            raise ValueError(f"Flowers: mode should be 'train', 'valid' or 'test', but got "
                             f"{mode!r}")
        self.backend = check_backend(backend, "Flowers")
        require_pil()  # JPEG decoding
        self.transform = transform
        given = {"data": data_file, "label": label_file, "setid": setid_file}
        paths = {key: fetch_file("Flowers", given[key], "flowers", name,
                                 [_URL_PREFIX + name], md5, download)
                 for key, (name, md5) in self.FILES.items()}
        self.data_file, self.label_file, self.setid_file = (paths["data"], paths["label"],
                                                            paths["setid"])
        loadmat = try_import("scipy.io", "Flowers reads its .mat files with SciPy, which "
                             "is not installed: run `pip install scipy`").loadmat
        self.labels = np.asarray(loadmat(self.label_file)["labels"]).reshape(-1)
        self.indexes = np.asarray(loadmat(self.setid_file)[self.SPLITS[self.mode]]).reshape(-1)
        self._images = TarReader(self.data_file)

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]], dtype=np.int64)
        image = require_pil().open(io.BytesIO(self._images.read(f"jpg/image_{index:05d}.jpg")))
        if self.backend == "cv2":
            image = np.asarray(image.convert("RGB"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2" and isinstance(image, np.ndarray):
            image = image.astype(np.float32)
        return image, label

    def __len__(self):
        return len(self.indexes)
