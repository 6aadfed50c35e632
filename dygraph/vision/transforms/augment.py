"""Random augmentation transforms (`paddle.vision.transforms`): colour jitter and its parts,
RandomResizedCrop, RandomAffine, RandomPerspective and RandomErasing.

Like the other transforms they take NumPy HWC arrays, PIL images and CHW Tensors, and draw
their random choices from `dygraph.seed`'s generator, once per call, so that every input of
a `keys` tuple gets the same ones.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> _ = dygraph.seed(0)
    >>> RandomResizedCrop(4)(np.zeros((10, 12, 3), np.uint8)).shape
    (4, 4, 3)
"""

import math
import numbers
from collections.abc import Sequence

import numpy as np

from dygraph.framework.random import rng
from dygraph.tensor.tensor import Tensor
from dygraph.vision.transforms import functional as F
from dygraph.vision.transforms.transforms import BaseTransform, Compose, _size_pair

__all__ = ["BrightnessTransform", "ContrastTransform", "SaturationTransform", "HueTransform",
           "ColorJitter", "RandomResizedCrop", "RandomAffine", "RandomPerspective",
           "RandomErasing", "TransformArgumentError"]


class TransformArgumentError(ValueError, AssertionError):
    """A bad transform argument. Paddle checks these with `assert`, so its callers catch
    AssertionError; this is a ValueError too.

    Example:
        >>> issubclass(TransformArgumentError, AssertionError)
        True
    """


def _factor_range(value, owner, name, center=1.0, bound=None):
    """(low, high) for a jitter amount: a number v gives (center - v, center + v) (clipped
    at 0 for factors), a pair is taken as is; None or 0 means "leave unchanged"."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{owner}: {name} should be non-negative, but got {value!r}")
        low, high = center - value, center + value
        if center == 1.0:
            low = max(low, 0.0)
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        low, high = float(value[0]), float(value[1])
    else:
        raise TypeError(f"{owner}: {name} should be a number or (min, max), got {value!r}")
    if bound is not None and not (bound[0] <= low <= high <= bound[1]):
        raise ValueError(f"{owner}: {name} range should lie in {list(bound)}, got "
                         f"{[low, high]}")
    if low > high:
        raise ValueError(f"{owner}: {name} range should be (min, max), got {[low, high]}")
    return None if low == high == center else (low, high)


class _ColorTransform(BaseTransform):
    _name = "value"
    _center = 1.0
    _bound = (0.0, float("inf"))

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = value
        self.range = _factor_range(value, type(self).__name__, self._name, self._center,
                                   self._bound)

    def _get_params(self, inputs):
        return None if self.range is None else float(rng().uniform(*self.range))

    def _apply_image(self, img):
        return img if self.params is None else self._adjust(img, self.params)


class BrightnessTransform(_ColorTransform):
    """Scale brightness by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> import numpy as np
        >>> BrightnessTransform(0.4)(np.full((2, 2, 3), 100, np.uint8)).shape
        (2, 2, 3)
    """

    _name = "brightness"
    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_ColorTransform):
    """Scale contrast by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> import numpy as np
        >>> ContrastTransform(0.4)(np.full((2, 2, 3), 100, np.uint8)).tolist()[0][0]
        [100, 100, 100]
    """

    _name = "contrast"
    _adjust = staticmethod(F.adjust_contrast)


class SaturationTransform(_ColorTransform):
    """Scale saturation by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> import numpy as np
        >>> SaturationTransform(0.4)(np.full((2, 2, 3), 7, np.uint8))[0, 0].tolist()
        [7, 7, 7]
    """

    _name = "saturation"
    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_ColorTransform):
    """Shift the hue by an amount drawn from [-value, value] (value in [0, 0.5]).

    Example:
        >>> import numpy as np
        >>> HueTransform(0.5)(np.zeros((2, 2, 3), np.uint8)).sum()
        np.uint64(0)
    """

    _name = "hue"
    _center = 0.0
    _bound = (-0.5, 0.5)
    _adjust = staticmethod(F.adjust_hue)


class ColorJitter(BaseTransform):
    """Randomly change brightness, contrast, saturation and hue, in a random order (each
    amount as in the single transforms; 0 leaves that property unchanged).

    Example:
        >>> import numpy as np
        >>> ColorJitter(0.4, 0.4, 0.4, 0.1)(np.zeros((3, 3, 3), np.uint8)).shape
        (3, 3, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._parts = [BrightnessTransform(brightness), ContrastTransform(contrast),
                       SaturationTransform(saturation), HueTransform(hue)]

    def _get_params(self, inputs):
        order = rng().permutation(len(self._parts))
        return Compose([self._parts[i] for i in order if self._parts[i].range is not None])

    def _apply_image(self, img):
        return self.params(img)


class RandomResizedCrop(BaseTransform):
    """Crop a random region (area a fraction in `scale` of the image, aspect ratio in
    `ratio`, drawn log-uniformly) and resize it to `size`. After 10 failed draws it takes
    the largest central crop whose aspect ratio fits.

    Example:
        >>> import numpy as np
        >>> RandomResizedCrop((3, 5))(np.zeros((8, 8), np.uint8)).shape
        (3, 5)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "RandomResizedCrop")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise TransformArgumentError(f"RandomResizedCrop: scale and ratio should be "
                                         f"(min, max), got scale={scale!r}, ratio={ratio!r}")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = interpolation

    def _crop_box(self, height, width, attempts=10):
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = rng().uniform(*self.scale) * area
            aspect = math.exp(rng().uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return (int(rng().integers(0, height - h + 1)),
                        int(rng().integers(0, width - w + 1)), h, w)
        in_ratio = width / height
        w, h = width, height
        if in_ratio < min(self.ratio):
            h = int(round(w / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w = int(round(h * max(self.ratio)))
        return (height - h) // 2, (width - w) // 2, h, w

    def _get_params(self, inputs):
        return self._crop_box(*F.image_size(inputs[0]))

    def _apply_image(self, img):
        top, left, h, w = self.params
        return F.resize(F.crop(img, top, left, h, w), self.size, self.interpolation)


def _angle_range(value, owner, name, sizes):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{owner}: a single {name} value should be >= 0, got {value!r}")
        return (-float(value), float(value))
    if not (isinstance(value, Sequence) and len(value) in sizes):
        raise ValueError(f"{owner}: {name} should be a number or a sequence of "
                         f"{' or '.join(map(str, sizes))} numbers, got {value!r}")
    return tuple(float(v) for v in value)


class RandomAffine(BaseTransform):
    """Random affine warp: an angle from `degrees`, a translation up to `translate`
    (fractions of width and height), a scale from `scale` and shears from `shear`
    (a number s for x in (-s, s); (min, max) for x; 4 numbers for x and y).

    Example:
        >>> import numpy as np
        >>> RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1))(
        ...     np.zeros((6, 6, 3), np.uint8)).shape
        (6, 6, 3)
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation="nearest", fill=0, center=None, keys=None):
        super().__init__(keys)
        self.degrees = _angle_range(degrees, "RandomAffine", "degrees", (2,))
        if translate is not None and not (len(translate) == 2
                                          and all(0.0 <= t <= 1.0 for t in translate)):
            raise ValueError(f"RandomAffine: translate should be 2 fractions in [0, 1], got "
                             f"{translate!r}")
        if scale is not None and not (len(scale) == 2 and all(s > 0 for s in scale)):
            raise ValueError(f"RandomAffine: scale should be 2 positive numbers, got {scale!r}")
        if not isinstance(fill, (numbers.Number, Sequence)):
            raise TypeError(f"RandomAffine: fill should be a number or a sequence, got "
                            f"{type(fill).__name__}")
        if center is not None and not (isinstance(center, Sequence) and len(center) == 2):
            raise ValueError(f"RandomAffine: center should be (x, y), got {center!r}")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _angle_range(shear, "RandomAffine", "shear",
                                                             (2, 4))
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _draw(self, height, width):
        angle = float(rng().uniform(*self.degrees))
        translate = (0, 0)
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * width, self.translate[1] * height
            translate = (int(rng().uniform(-max_dx, max_dx)),
                         int(rng().uniform(-max_dy, max_dy)))
        scale = 1.0 if self.scale is None else float(rng().uniform(*self.scale))
        shear = (0.0, 0.0)
        if self.shear is not None:
            shear_y = float(rng().uniform(*self.shear[2:])) if len(self.shear) == 4 else 0.0
            shear = (float(rng().uniform(*self.shear[:2])), shear_y)
        return angle, translate, scale, shear

    def _get_params(self, inputs):
        return self._draw(*F.image_size(inputs[0]))

    def _apply_image(self, img):
        angle, translate, scale, shear = self.params
        return F.affine(img, angle, translate, scale, shear, self.interpolation, self.fill,
                        self.center)


class RandomPerspective(BaseTransform):
    """With probability `prob`, move each corner inwards by a random amount up to
    `distortion_scale` times half the image size, and warp accordingly.

    Example:
        >>> import numpy as np
        >>> RandomPerspective(prob=1.0)(np.zeros((6, 8), np.uint8)).shape
        (6, 8)
    """

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0,
                 keys=None):
        super().__init__(keys)
        if not (0 <= prob <= 1 and 0 <= distortion_scale <= 1):
            raise TransformArgumentError(f"RandomPerspective: prob and distortion_scale "
                                         f"should be in [0, 1], got {prob!r} and "
                                         f"{distortion_scale!r}")
        self.prob, self.distortion_scale = prob, distortion_scale
        self.interpolation, self.fill = interpolation, fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and where they move to."""
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(low_edge, size, reach):
            lo, hi = (0, reach + 1) if low_edge else (size - reach - 1, size)
            return int(rng().uniform(lo, hi))

        endpoints = [[near(True, width, dx), near(True, height, dy)],
                     [near(False, width, dx), near(True, height, dy)],
                     [near(False, width, dx), near(False, height, dy)],
                     [near(True, width, dx), near(False, height, dy)]]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def _get_params(self, inputs):
        if rng().random() >= self.prob:
            return None
        height, width = F.image_size(inputs[0])
        return self.get_params(width, height, self.distortion_scale)

    def _apply_image(self, img):
        if self.params is None:
            return img
        return F.perspective(img, *self.params, self.interpolation, self.fill)


class RandomErasing(BaseTransform):
    """With probability `prob`, erase a random rectangle (area a fraction in `scale`,
    aspect ratio in `ratio`) with `value`: a number, one value per channel, or 'random'
    (normal noise, times 255 for arrays and PIL images). Works on CHW Tensors, HWC arrays
    and PIL images.

    Example:
        >>> import numpy as np
        >>> out = RandomErasing(prob=1.0, value=0)(np.ones((8, 8, 3), np.float32))
        >>> out.shape, bool(out.min() == 0)
        ((8, 8, 3), True)
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
                 inplace=False, keys=None):
        super().__init__(keys)
        # Paddle's messages, so that code matching them keeps working.
        for name, pair in (("scale", scale), ("ratio", ratio)):
            if not isinstance(pair, (tuple, list)):
                raise TransformArgumentError(f"RandomErasing: {name} should be a tuple or "
                                             f"list, got {pair!r}")
        if not 0 <= scale[0] <= scale[1] <= 1:
            raise TransformArgumentError(f"RandomErasing: scale should be of kind (min, max) "
                                         f"and in range [0, 1], got {scale!r}")
        if not 0 <= ratio[0] <= ratio[1]:
            raise TransformArgumentError(f"RandomErasing: ratio should be of kind (min, max), "
                                         f"got {ratio!r}")
        if not 0 <= prob <= 1:
            raise TransformArgumentError(f"RandomErasing: The probability should be in range "
                                         f"[0, 1], got {prob!r}")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"RandomErasing: value should be a number, tuple, list or str, "
                            f"got {type(value).__name__}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be 'random' when type is str, got "
                             f"{value!r}")
        self.prob, self.scale, self.ratio = prob, tuple(scale), tuple(ratio)
        self.value, self.inplace = value, inplace

    def _box(self, channels, height, width, dtype, chw):
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            erase_area = rng().uniform(*self.scale) * area
            aspect = math.exp(rng().uniform(*log_ratio))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if h >= height or w >= width or h < 1 or w < 1:
                continue
            shape = (channels, h, w) if chw else (h, w, channels)
            if self.value == "random":
                fill = rng().standard_normal(shape) * (1.0 if chw else 255.0)
                if dtype.kind in "iu":
                    fill = np.clip(fill, np.iinfo(dtype).min, np.iinfo(dtype).max)
                fill = fill.astype(dtype)
            else:
                per_channel = np.asarray(self.value, dtype).reshape(-1)
                fill = per_channel.reshape((-1, 1, 1) if chw else (1, 1, -1))
            return (int(rng().integers(0, height - h + 1)),
                    int(rng().integers(0, width - w + 1)), h, w, fill)
        return None

    def _get_params(self, inputs):
        if rng().random() >= self.prob:
            return None
        img = inputs[0]
        chw = isinstance(img, Tensor)
        data = img.numpy() if chw else np.asarray(img)
        if data.ndim == 2 and not chw:
            data = data[:, :, None]
        if data.ndim != 3 and not (chw and data.ndim == 4):
            raise ValueError(f"RandomErasing: expected a CHW Tensor (or a batch of them) or "
                             f"an HWC image, but got shape {list(data.shape)}")
        channels, height, width = data.shape[-3:] if chw else (data.shape[2], *data.shape[:2])
        return self._box(channels, height, width, data.dtype, chw)

    def _apply_image(self, img):
        if self.params is None:
            return img
        top, left, h, w, fill = self.params
        return F.erase(img, top, left, h, w, fill, self.inplace)
