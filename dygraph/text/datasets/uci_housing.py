"""UCI Housing (Boston house prices): 13 features and the median value, from
`housing.data` (whitespace-separated numbers, 14 per house).

Features are centred on their mean and divided by their range, over the whole file; the
first 80% of the houses are 'train', the rest 'test' (as Paddle does).

Example:
    >>> len(UCIHousing.FEATURE_NAMES)
    13
"""

import numpy as np

from dygraph.framework.dtype import get_default_dtype
from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["UCIHousing"]


class UCIHousing(Dataset):
    """`dataset[i]` is (features [13], price [1]) as NumPy arrays of the default dtype
    (`dygraph.get_default_dtype()` when the dataset is built, as Paddle: float32 unless
    set_default_dtype changed it).

    Example:
        >>> ds = UCIHousing(mode='test', download=False)  # doctest: +SKIP
    """

    FOLDER = "uci_housing"
    URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
    MD5 = "d4accdce7a25600298819f8e28e8d593"
    FEATURE_NAMES = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                     "PTRATIO", "B", "LSTAT"]

    def __init__(self, data_file=None, mode="train", download=True):
        self.mode = check_choice("UCIHousing", "mode", mode, ("train", "test"))
        self.data_file = fetch_file("UCIHousing", data_file, self.FOLDER, "housing.data",
                                    [self.URL], self.MD5, download)
        # Paddle keeps the default dtype's name at construction, so a float64 model reads
        # float64 houses; a later set_default_dtype does not change a built dataset.
        self.dtype = get_default_dtype()
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % 14:
            raise ValueError(f"UCIHousing: {self.data_file} should hold 14 numbers per house, "
                             f"but holds {data.size} numbers")
        data = data.reshape(-1, 14)
        features = data[:, :13]
        spread = features.max(axis=0) - features.min(axis=0)
        data[:, :13] = (features - features.mean(axis=0)) / np.where(spread == 0, 1, spread)
        offset = int(len(data) * 0.8)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self):
        return len(self.data)
