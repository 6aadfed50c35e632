"""UCI Housing (Boston house prices): 13 features and the median value, from
`housing.data` (whitespace-separated numbers, 14 per house).

Features are centred on their mean and divided by their range, over the whole file; the
first 80% of the houses are 'train', the rest 'test' (as Paddle does).

Example:
    >>> len(UCIHousing.FEATURE_NAMES)
    13
"""

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["UCIHousing"]


class UCIHousing(Dataset):
    """`dataset[i]` is (features float32 [13], price float32 [1]).

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
        self.dtype = np.float32
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
