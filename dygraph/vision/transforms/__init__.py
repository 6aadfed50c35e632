"""Image transforms (`paddle.vision.transforms`): the transform classes, and the functional
forms both here and in `.functional`, as in Paddle.

Example:
    >>> import numpy as np
    >>> from dygraph.vision import transforms as T
    >>> T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])(np.zeros((2, 2), np.uint8)).shape
    [1, 2, 2]
"""

from dygraph.vision.transforms import functional
from dygraph.vision.transforms.augment import (
    BrightnessTransform,
    ColorJitter,
    ContrastTransform,
    HueTransform,
    RandomAffine,
    RandomErasing,
    RandomPerspective,
    RandomResizedCrop,
    SaturationTransform,
)
from dygraph.vision.transforms.functional import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    adjust_saturation,
    affine,
    center_crop,
    crop,
    erase,
    hflip,
    normalize,
    pad,
    perspective,
    resize,
    rotate,
    to_grayscale,
    to_tensor,
    vflip,
)
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

__all__ = ["BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
           "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
           "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation",
           "RandomPerspective", "Grayscale", "ToTensor", "RandomErasing", "to_tensor", "hflip",
           "vflip", "resize", "pad", "affine", "rotate", "perspective", "to_grayscale", "crop",
           "center_crop", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "normalize", "erase", "functional"]
