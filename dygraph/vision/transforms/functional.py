"""Image operations behind the transforms, on NumPy HWC arrays, PIL images and CHW Tensors.

Arrays are H x W or H x W x C; a Tensor is taken as C x H x W (or H x W) and a Tensor comes
back. PIL images are handled by Pillow itself; NumPy arrays by NumPy code (nearest and
bilinear interpolation, with OpenCV's pixel-centre convention).

Example:
    >>> import numpy as np
    >>> img = np.arange(12, dtype=np.uint8).reshape(3, 4)
    >>> hflip(img)[0].tolist(), center_crop(img, 2).shape
    ([3, 2, 1, 0], (2, 2))
"""

import functools
import numbers

import numpy as np

from dygraph.tensor.tensor import Tensor, _new_tensor
from dygraph.tensor.tensor import to_tensor as _make_tensor
from dygraph.vision.image import is_pil_image, require_pil
from dygraph.vision.transforms.functional_color import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    adjust_saturation,
)
from dygraph.vision.transforms.functional_warp import (
    affine,
    erase,
    perspective,
    pil_fill,
    rotate_array,
)

__all__ = ["to_tensor", "normalize", "resize", "crop", "center_crop", "pad", "hflip", "vflip",
           "rotate", "to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "affine", "perspective", "erase"]

_PIL_FILTERS = {"nearest": "NEAREST", "bilinear": "BILINEAR", "bicubic": "BICUBIC",
                "box": "BOX", "lanczos": "LANCZOS", "hamming": "HAMMING"}


def _tensor_out(array):
    """A CPU Tensor inside DataLoader workers (batches travel as arrays), else the default
    device's."""
    from dygraph.io.worker import get_worker_info

    array = np.ascontiguousarray(array)
    if get_worker_info() is not None:
        return _new_tensor(array, None, 0, True)
    return _make_tensor(array)


def _geometric(fn):
    """Run an HWC-array operation on a CHW Tensor too (and return a Tensor)."""
    @functools.wraps(fn)
    def wrapper(img, *args, **kwargs):
        if not isinstance(img, Tensor):
            return fn(img, *args, **kwargs)
        data = img.numpy()
        hwc = data.transpose(1, 2, 0) if data.ndim == 3 else data
        out = fn(hwc, *args, **kwargs)
        return _tensor_out(out.transpose(2, 0, 1) if out.ndim == 3 else out)

    return wrapper


def _check_image(img, owner):
    if not (isinstance(img, np.ndarray) or is_pil_image(img)):
        raise TypeError(f"{owner}: expected a NumPy array, a PIL image or a Tensor, but got "
                        f"{type(img).__name__}")
    if isinstance(img, np.ndarray) and img.ndim not in (2, 3):
        raise ValueError(f"{owner}: expected an H x W or H x W x C array, but got shape "
                         f"{list(img.shape)}")


def _pil_filter(interpolation):
    image_module = require_pil()
    if interpolation not in _PIL_FILTERS:
        raise ValueError(f"interpolation should be one of {sorted(_PIL_FILTERS)}, but got "
                         f"{interpolation!r}")
    return getattr(image_module.Resampling, _PIL_FILTERS[interpolation])


def to_tensor(pic, data_format="CHW"):
    """A PIL image or HWC array as a Tensor (CHW by default); uint8 values (and PIL images
    of 8-bit modes) are scaled to float32 in [0, 1], other dtypes are kept.

    Example:
        >>> import numpy as np
        >>> t = to_tensor(np.full((2, 3), 255, np.uint8)); t.shape, float(t.numpy().max())
        ([1, 2, 3], 1.0)
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    if is_pil_image(pic):
        array = np.asarray(pic)
        if pic.mode == "I;16":  # uint16 has no tensor dtype: widen, as Paddle does
            array = array.astype(np.int32)
        if pic.mode == "1":
            array = array.astype(np.uint8) * 255
    elif isinstance(pic, np.ndarray):
        array = pic
    else:
        raise TypeError(f"to_tensor: expected a PIL image or a NumPy array, but got "
                        f"{type(pic).__name__}")
    if array.ndim == 2:
        array = array[:, :, None]
    if data_format == "CHW":
        array = array.transpose(2, 0, 1)
    if array.dtype == np.uint8:
        array = array.astype(np.float32) * np.float32(1 / 255)
    return _tensor_out(array)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """`(img - mean) / std` per channel, for CHW or HWC data; `to_rgb` first reverses the
    channel order (BGR to RGB). Arrays and PIL images give float32 arrays, Tensors Tensors.

    Example:
        >>> import numpy as np
        >>> normalize(np.full((1, 2, 2), 3.0), [1.0], [2.0])[0, 0].tolist()
        [1.0, 1.0]
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    is_tensor = isinstance(img, Tensor)
    array = img.numpy() if is_tensor else np.asarray(img)
    if not is_tensor or array.dtype.kind != "f":
        array = array.astype(np.float32)
    channel_axis = -3 if data_format == "CHW" else -1
    if to_rgb:
        array = np.flip(array, axis=channel_axis if array.ndim == 3 else -1)
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean = np.asarray(mean, dtype=array.dtype).reshape(shape)
    std = np.asarray(std, dtype=array.dtype).reshape(shape)
    out = (array - mean) / std
    return _tensor_out(out) if is_tensor else out


def _target_size(size, height, width):
    """(h, w) for `size`: a pair, or an int for the shorter side (aspect ratio kept)."""
    if isinstance(size, numbers.Integral):
        if height <= width:
            return int(size), int(size * width / height)
        return int(size * height / width), int(size)
    if len(size) != 2:
        raise ValueError(f"resize: size should be an int or (height, width), got {size!r}")
    return int(size[0]), int(size[1])


def _source_coords(out, inp, interpolation):
    scale = inp / out
    if interpolation == "nearest":
        return np.minimum(np.floor(np.arange(out) * scale).astype(np.int64), inp - 1), None, None
    src = np.clip((np.arange(out) + 0.5) * scale - 0.5, 0, inp - 1)
    low = np.floor(src).astype(np.int64)
    return low, np.minimum(low + 1, inp - 1), (src - low).astype(np.float32)


def _cast_like(values, dtype):
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        values = np.clip(np.rint(values), info.min, info.max)
    return values.astype(dtype)


@_geometric
def resize(img, size, interpolation="bilinear"):
    """Resize to `size` ((h, w), or an int for the shorter side keeping the aspect ratio).

    NumPy arrays support 'nearest' and 'bilinear'; PIL images every Pillow filter.

    Example:
        >>> import numpy as np
        >>> resize(np.zeros((4, 8, 3), np.uint8), 2).shape
        (2, 4, 3)
    """
    _check_image(img, "resize")
    if is_pil_image(img):
        h, w = _target_size(size, img.size[1], img.size[0])
        return img.resize((w, h), _pil_filter(interpolation))
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"resize: NumPy arrays support 'nearest' and 'bilinear' "
                         f"interpolation, got {interpolation!r} (use a PIL image for others)")
    h, w = _target_size(size, img.shape[0], img.shape[1])
    y0, y1, wy = _source_coords(h, img.shape[0], interpolation)
    x0, x1, wx = _source_coords(w, img.shape[1], interpolation)
    if interpolation == "nearest":
        return img[y0][:, x0]
    data = img.astype(np.float32)
    if data.ndim == 3:
        wy, wx = wy[:, None, None], wx[None, :, None]
    else:
        wy, wx = wy[:, None], wx[None, :]
    top = data[y0][:, x0] * (1 - wx) + data[y0][:, x1] * wx
    bottom = data[y1][:, x0] * (1 - wx) + data[y1][:, x1] * wx
    return _cast_like(top * (1 - wy) + bottom * wy, img.dtype)


@_geometric
def crop(img, top, left, height, width):
    """The `height` x `width` region whose top-left corner is (`top`, `left`).

    Example:
        >>> import numpy as np
        >>> crop(np.arange(16).reshape(4, 4), 1, 2, 2, 2).tolist()
        [[6, 7], [10, 11]]
    """
    _check_image(img, "crop")
    if is_pil_image(img):
        return img.crop((left, top, left + width, top + height))
    return img[top:top + height, left:left + width]


def _pair(size, owner):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if len(size) != 2:
        raise ValueError(f"{owner}: size should be an int or (height, width), got {size!r}")
    return int(size[0]), int(size[1])


def image_size(img):
    """(height, width) of an array, PIL image or CHW Tensor."""
    if is_pil_image(img):
        return img.size[1], img.size[0]
    if isinstance(img, Tensor):
        return tuple(img.shape[-2:])
    if not isinstance(img, np.ndarray):
        raise TypeError(f"expected a NumPy array, a PIL image or a Tensor, but got "
                        f"{type(img).__name__}")
    return img.shape[0], img.shape[1]


def center_crop(img, output_size):
    """The centre region of size `output_size` (an int or (h, w)).

    Example:
        >>> import numpy as np
        >>> center_crop(np.arange(16).reshape(4, 4), 2).tolist()
        [[5, 6], [9, 10]]
    """
    th, tw = _pair(output_size, "center_crop")
    h, w = image_size(img)
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def _padding(padding):
    """(left, top, right, bottom) from an int, a 2-sequence or a 4-sequence."""
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    padding = tuple(int(p) for p in padding)
    if len(padding) == 2:
        return padding * 2
    if len(padding) == 4:
        return padding
    raise ValueError(f"pad: padding should be an int or a 2- or 4-sequence, got {padding!r}")


@_geometric
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: `padding` is an int, (left/right, top/bottom) or (left, top, right,
    bottom); `padding_mode` is 'constant' (with `fill`), 'edge', 'reflect' or 'symmetric'.

    Example:
        >>> import numpy as np
        >>> pad(np.ones((1, 1), np.uint8), (1, 0)).tolist()
        [[0, 1, 0]]
    """
    _check_image(img, "pad")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError(f"pad: padding_mode should be 'constant', 'edge', 'reflect' or "
                         f"'symmetric', got {padding_mode!r}")
    left, top, right, bottom = _padding(padding)
    if is_pil_image(img):
        out = require_pil().fromarray(pad(np.asarray(img), padding, fill, padding_mode))
        if img.mode == "P":
            out.putpalette(img.getpalette())
        return out
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if padding_mode != "constant":
        return np.pad(img, widths, mode=padding_mode)
    if img.ndim == 3 and not isinstance(fill, numbers.Number):
        out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right,
                        img.shape[2]), img.dtype)
        out[...] = np.asarray(fill, dtype=img.dtype)
        out[top:top + img.shape[0], left:left + img.shape[1]] = img
        return out
    return np.pad(img, widths, mode="constant", constant_values=fill)


@_geometric
def hflip(img):
    """Mirror left-right.

    Example:
        >>> import numpy as np
        >>> hflip(np.array([[1, 2]])).tolist()
        [[2, 1]]
    """
    _check_image(img, "hflip")
    if is_pil_image(img):
        return img.transpose(require_pil().Transpose.FLIP_LEFT_RIGHT)
    return img[:, ::-1]


@_geometric
def vflip(img):
    """Mirror top-bottom.

    Example:
        >>> import numpy as np
        >>> vflip(np.array([[1], [2]])).tolist()
        [[2], [1]]
    """
    _check_image(img, "vflip")
    if is_pil_image(img):
        return img.transpose(require_pil().Transpose.FLIP_TOP_BOTTOM)
    return img[::-1]


@_geometric
def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate by `angle` degrees counter-clockwise about `center` ((x, y), default the
    middle); `expand` grows the output to hold the whole rotated image; uncovered pixels
    get `fill`. Arrays and tensors are rotated with Pillow's geometry and arithmetic, so
    the three image kinds agree pixel for pixel.

    Example:
        >>> import numpy as np
        >>> rotate(np.array([[1, 2], [3, 4]], np.uint8), 90).tolist()
        [[2, 4], [1, 3]]
    """
    _check_image(img, "rotate")
    if is_pil_image(img):
        return img.rotate(angle, _pil_filter(interpolation), expand, center,
                          fillcolor=pil_fill(fill, img))
    return rotate_array(img, angle, interpolation, expand, center, fill)


def to_grayscale(img, num_output_channels=1):
    """Grey image from RGB: H x W x 1 (or x 3, repeated). Arrays and PIL images use the
    ITU-R 601 weights (0.299, 0.587, 0.114), as OpenCV and Pillow do; Tensors Paddle's
    tensor weights (0.2989, 0.587, 0.114).

    Example:
        >>> import numpy as np
        >>> to_grayscale(np.full((1, 1, 3), 100, np.uint8)).shape
        (1, 1, 1)
    """
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be 1 or 3, got "
                         f"{num_output_channels!r}")
    if isinstance(img, Tensor):
        hwc = img.numpy().transpose(1, 2, 0)
        out = _grey_hwc(hwc, num_output_channels, TENSOR_GREY_WEIGHTS)
        return _tensor_out(out.transpose(2, 0, 1))
    _check_image(img, "to_grayscale")
    if is_pil_image(img):
        grey = img.convert("L")
        if num_output_channels == 1:
            return grey
        return require_pil().merge("RGB", [grey, grey, grey])
    return _grey_hwc(img, num_output_channels, GREY_WEIGHTS)


GREY_WEIGHTS = np.array([0.299, 0.587, 0.114], np.float32)
TENSOR_GREY_WEIGHTS = np.array([0.2989, 0.587, 0.114], np.float32)


def _grey_hwc(img, num_output_channels, weights):
    if img.ndim == 2 or img.shape[2] == 1:
        grey = img.reshape(img.shape[0], img.shape[1]).astype(np.float32)
    else:
        grey = img[..., :3].astype(np.float32) @ weights
    grey = _cast_like(grey, img.dtype)[:, :, None]
    return np.repeat(grey, num_output_channels, axis=2)
