"""Vision datasets (`paddle.vision.datasets`): MNIST, FashionMNIST, Cifar10, Cifar100,
Flowers, VOC2012, DatasetFolder and ImageFolder, plus the IDX helpers.

Example:
    >>> from dygraph.vision.datasets import MNIST
    >>> len(MNIST(mode='test', sample=True, backend='cv2'))
    2000
"""

from dygraph.vision.datasets.cifar import Cifar10, Cifar100
from dygraph.vision.datasets.download import data_home
from dygraph.vision.datasets.flowers import Flowers
from dygraph.vision.datasets.folder import DatasetFolder, ImageFolder
from dygraph.vision.datasets.idx import IDXFormatError, read_idx, write_idx
from dygraph.vision.datasets.mnist import MNIST, SAMPLE_SIZES, FashionMNIST, mnist_sample_paths
from dygraph.vision.datasets.voc2012 import VOC2012

__all__ = ["MNIST", "FashionMNIST", "Cifar10", "Cifar100", "Flowers", "VOC2012", "DatasetFolder",
           "ImageFolder", "mnist_sample_paths", "SAMPLE_SIZES", "data_home", "read_idx",
           "write_idx", "IDXFormatError"]
