"""Image transforms (`paddle.vision.transforms`); functional forms in `.functional`.

Example:
    >>> import numpy as np
    >>> from dygraph.vision import transforms as T
    >>> T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])(np.zeros((2, 2), np.uint8)).shape
    [1, 2, 2]
"""

from dygraph.vision.transforms import functional
from dygraph.vision.transforms.transforms import (
    BaseTransform,
    CenterCrop,
    Compose,
    Grayscale,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomRotation,
    RandomVerticalFlip,
    Resize,
    ToTensor,
    Transpose,
)

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "CenterCrop",
           "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation",
           "Transpose", "Pad", "Grayscale", "functional"]
