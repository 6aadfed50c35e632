"""Transform classes (`paddle.vision.transforms`): callables applied to one image or to a
tuple of inputs named by `keys`.

Every transform takes NumPy HWC arrays, PIL images and (most of them) CHW Tensors. Random
choices come from `dygraph.seed`'s generator, so `dygraph.seed(n)` reproduces them.

Example:
    >>> import numpy as np
    >>> t = Compose([CenterCrop(2), ToTensor()])
    >>> t(np.zeros((4, 4, 3), np.uint8)).shape
    [3, 2, 2]
"""

import numbers
from collections.abc import Sequence

import numpy as np

from dygraph.framework.random import rng
from dygraph.tensor.tensor import Tensor
from dygraph.vision.image import is_pil_image
from dygraph.vision.transforms import functional as F

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "CenterCrop",
           "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation",
           "Transpose", "Pad", "Grayscale"]


class Compose:
    """Apply transforms one after another.

    Example:
        >>> Compose([lambda x: x + 1, lambda x: x * 2])(3)
        8
    """

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for transform in self.transforms:
            data = transform(data)
        return data

    def __repr__(self):
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}({inner}\n)"


class BaseTransform:
    """Base of the transforms. `keys` names the inputs when a tuple is given (default
    ('image',)); input i is passed to `_apply_<keys[i]>` when the class defines it, else
    returned unchanged. `_get_params(inputs)` draws the random choices once per call, so
    that every input of a tuple gets the same ones.

    Example:
        >>> class AddOne(BaseTransform):
        ...     def _apply_image(self, img):
        ...         return img + 1
        >>> AddOne(keys=['image', 'label'])((1, 'cat'))
        (2, 'cat')
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(f"{type(self).__name__}: keys should be a sequence of names, got "
                             f"{keys!r}")
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        inputs = (inputs,) if single else inputs
        self.params = self._get_params(inputs)
        outputs = []
        for i, value in enumerate(inputs):
            apply = getattr(self, f"_apply_{self.keys[i]}", None) if i < len(self.keys) else None
            outputs.append(value if apply is None else apply(value))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items()
                           if k not in ("keys", "params"))
        return f"{type(self).__name__}({fields})"


class ToTensor(BaseTransform):
    """PIL image or HWC array to a float32 Tensor in [0, 1] (uint8 input), CHW by default.

    Example:
        >>> import numpy as np
        >>> ToTensor()(np.zeros((2, 3, 1), np.uint8)).shape
        [1, 2, 3]
    """

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """`(img - mean) / std` per channel; `to_rgb` swaps BGR to RGB first. A number for `mean`
    or `std` applies to every channel.

    Example:
        >>> import numpy as np
        >>> float(Normalize(mean=[127.5], std=[127.5])(np.full((1, 2, 2), 255.0))[0, 0, 0])
        1.0
    """

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean, self.std = mean, std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resize to `size`: (h, w), or an int for the shorter side (aspect ratio kept).

    Example:
        >>> import numpy as np
        >>> Resize((2, 3))(np.zeros((4, 6), np.uint8)).shape
        (2, 3)
    """

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, numbers.Integral) or (isinstance(size, Sequence)
                                                        and len(size) == 2)):
            raise ValueError(f"Resize: size should be an int or (height, width), got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


def _size_pair(size, owner):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{owner}: size should be an int or (height, width), got {size!r}")


class CenterCrop(BaseTransform):
    """Crop the centre region of `size` (an int or (h, w)).

    Example:
        >>> import numpy as np
        >>> CenterCrop(2)(np.arange(9).reshape(3, 3)).tolist()
        [[0, 1], [3, 4]]
    """

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "CenterCrop")

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """Crop a region of `size` at a random place, after optional `padding` (see Pad);
    `pad_if_needed` pads an image smaller than `size` first.

    Example:
        >>> import numpy as np
        >>> RandomCrop(2, padding=1)(np.ones((2, 2), np.uint8)).shape
        (2, 2)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "RandomCrop")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        th, tw = self.size
        h, w = F.image_size(img)
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        h, w = F.image_size(img)
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size {[th, tw]} is larger than the image size "
                             f"{[h, w]}; use padding or pad_if_needed=True")
        top = int(rng().integers(0, h - th + 1))
        left = int(rng().integers(0, w - tw + 1))
        return F.crop(img, top, left, th, tw)


def _check_prob(prob, owner):
    if not 0.0 <= prob <= 1.0:
        raise ValueError(f"{owner}: prob should be in [0, 1], got {prob!r}")
    return prob


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability `prob`.

    Example:
        >>> import numpy as np
        >>> RandomHorizontalFlip(prob=1.0)(np.array([[1, 2]])).tolist()
        [[2, 1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob, "RandomHorizontalFlip")

    def _get_params(self, inputs):
        return rng().random() < self.prob

    def _apply_image(self, img):
        return F.hflip(img) if self.params else img


class RandomVerticalFlip(BaseTransform):
    """Mirror top-bottom with probability `prob`.

    Example:
        >>> import numpy as np
        >>> RandomVerticalFlip(prob=1.0)(np.array([[1], [2]])).tolist()
        [[2], [1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob, "RandomVerticalFlip")

    def _get_params(self, inputs):
        return rng().random() < self.prob

    def _apply_image(self, img):
        return F.vflip(img) if self.params else img


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from `degrees` ((min, max), or d for (-d, d)).

    Example:
        >>> import numpy as np
        >>> RandomRotation((90, 90))(np.array([[1, 2], [3, 4]], np.uint8)).tolist()
        [[2, 4], [1, 3]]
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        super().__init__(keys)
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError(f"RandomRotation: a single degrees value should be >= 0, "
                                 f"got {degrees!r}")
            degrees = (-degrees, degrees)
        elif not (isinstance(degrees, Sequence) and len(degrees) == 2):
            raise ValueError(f"RandomRotation: degrees should be a number or (min, max), got "
                             f"{degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _get_params(self, inputs):
        return float(rng().uniform(self.degrees[0], self.degrees[1]))

    def _apply_image(self, img):
        return F.rotate(img, self.params, self.interpolation, self.expand, self.center,
                        self.fill)


class Transpose(BaseTransform):
    """Reorder the axes of an image (HWC to CHW by default); PIL images become arrays and
    H x W arrays get a channel axis first.

    Example:
        >>> import numpy as np
        >>> Transpose()(np.zeros((4, 5, 3))).shape
        (3, 4, 5)
    """

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            return img.transpose(list(self.order))
        if is_pil_image(img):
            img = np.asarray(img)
        if img.ndim == 2:
            img = img[:, :, None]
        return img.transpose(self.order)


class Pad(BaseTransform):
    """Pad the borders (see `functional.pad` for `padding` and `padding_mode`).

    Example:
        >>> import numpy as np
        >>> Pad(1)(np.zeros((2, 2), np.uint8)).shape
        (4, 4)
    """

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class Grayscale(BaseTransform):
    """Convert RGB to grey, with 1 or 3 output channels.

    Example:
        >>> import numpy as np
        >>> Grayscale(3)(np.zeros((2, 2, 3), np.uint8)).shape
        (2, 2, 3)
    """

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)
