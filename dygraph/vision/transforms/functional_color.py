"""Colour adjustments behind ColorJitter: brightness, contrast, saturation and hue.

NumPy HWC arrays and CHW Tensors (or batches of them) share one NumPy implementation with
the semantics of Paddle's Tensor functions: the image is blended with an "extreme" image (black for
brightness, the mean grey level for contrast, the grey image for saturation) and clipped to
the dtype's range (255 for integer images, 1.0 for floats); integer results are truncated,
as Paddle's Tensor path does. PIL images use Pillow's own `ImageEnhance` and HSV conversion.

Example:
    >>> import numpy as np
    >>> img = np.full((2, 2, 3), 100, np.uint8)
    >>> int(adjust_brightness(img, 1.5)[0, 0, 0]), int(adjust_contrast(img, 0.0)[0, 0, 0])
    (150, 100)
"""

import importlib

import numpy as np

from dygraph.tensor.tensor import Tensor
from dygraph.vision.image import is_pil_image, require_pil
from dygraph.vision.transforms.functional_warp import per_image

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue"]

# ITU-R 601 grey weights for arrays; Paddle's tensor functions use 0.2989 for red.
_GREY_WEIGHTS = np.array([0.299, 0.587, 0.114], np.float32)
_TENSOR_GREY_WEIGHTS = np.array([0.2989, 0.587, 0.114], np.float32)


def _as_hwc(img, owner):
    """(HWC float-or-int array, restore) for an array or a CHW Tensor."""
    if isinstance(img, Tensor):
        from dygraph.vision.transforms.functional import _tensor_out

        data = img.numpy()
        if data.ndim != 3:
            raise ValueError(f"{owner}: expected a C x H x W Tensor, but got shape "
                             f"{list(data.shape)}")
        return data.transpose(1, 2, 0), lambda out: _tensor_out(out.transpose(2, 0, 1))
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{owner}: expected a NumPy array, a PIL image or a Tensor, but got "
                        f"{type(img).__name__}")
    if img.ndim == 2:
        return img[:, :, None], lambda out: out[:, :, 0]
    if img.ndim != 3:
        raise ValueError(f"{owner}: expected an H x W or H x W x C array, but got shape "
                         f"{list(img.shape)}")
    return img, lambda out: out


def _channels(hwc, owner):
    if hwc.shape[2] not in (1, 3):
        raise ValueError(f"{owner}: the image should have 1 or 3 channels, but got "
                         f"{hwc.shape[2]}")
    return hwc.shape[2]


def _blend(img, target, factor):
    """`target + factor * (img - target)`, clipped to the dtype's range, in img's dtype."""
    top = 1.0 if img.dtype.kind == "f" else 255.0
    out = target + np.float32(factor) * (img.astype(np.float32) - target)
    return np.clip(out, 0.0, top).astype(img.dtype)


def _grey(hwc, img):
    weights = _TENSOR_GREY_WEIGHTS if isinstance(img, Tensor) else _GREY_WEIGHTS
    return (hwc.astype(np.float32) @ weights)[:, :, None]


def _check_factor(factor, owner, name):
    if factor < 0:
        raise ValueError(f"{owner}: {name} should be non-negative, but got {factor!r}")


def _enhance(img, enhancer, factor):
    image_enhance = importlib.import_module("PIL.ImageEnhance")
    return getattr(image_enhance, enhancer)(img).enhance(factor)


@per_image
def adjust_brightness(img, brightness_factor):
    """Scale brightness: 0 gives a black image, 1 the original, 2 twice as bright.

    Example:
        >>> import numpy as np
        >>> adjust_brightness(np.array([[10, 200]], np.uint8), 2.0).tolist()
        [[20, 255]]
    """
    _check_factor(brightness_factor, "adjust_brightness", "brightness_factor")
    if is_pil_image(img):
        return _enhance(img, "Brightness", brightness_factor)
    hwc, restore = _as_hwc(img, "adjust_brightness")
    _channels(hwc, "adjust_brightness")
    return restore(_blend(hwc, np.float32(0.0), brightness_factor))


@per_image
def adjust_contrast(img, contrast_factor):
    """Scale contrast about the mean grey level: 0 gives a solid grey image, 1 the original.

    Example:
        >>> import numpy as np
        >>> adjust_contrast(np.array([[10, 30]], np.uint8), 2.0).tolist()
        [[0, 40]]
    """
    _check_factor(contrast_factor, "adjust_contrast", "contrast_factor")
    if is_pil_image(img):
        return _enhance(img, "Contrast", contrast_factor)
    hwc, restore = _as_hwc(img, "adjust_contrast")
    one = _channels(hwc, "adjust_contrast") == 1
    grey = hwc.astype(np.float32) if one else _grey(hwc, img)
    return restore(_blend(hwc, np.float32(grey.mean()), contrast_factor))


@per_image
def adjust_saturation(img, saturation_factor):
    """Scale colour saturation: 0 gives the grey image, 1 the original, 2 twice as vivid.
    One-channel images are returned unchanged.

    Example:
        >>> import numpy as np
        >>> adjust_saturation(np.array([[[200, 100, 0]]], np.uint8), 0.0).tolist()
        [[[118, 118, 118]]]
    """
    _check_factor(saturation_factor, "adjust_saturation", "saturation_factor")
    if is_pil_image(img):
        return _enhance(img, "Color", saturation_factor)
    hwc, restore = _as_hwc(img, "adjust_saturation")
    if _channels(hwc, "adjust_saturation") == 1:
        return img
    return restore(_blend(hwc, _grey(hwc, img), saturation_factor))


def _rgb_to_hsv(rgb):
    """HSV in [0, 1] from RGB floats in [0, 1] (Pillow's formulas), channel-last."""
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = maxc - minc
    flat = delta == 0
    sat = np.where(flat, 0.0, delta / np.where(maxc == 0, 1.0, maxc))
    safe = np.where(flat, 1.0, delta)
    r, g, b = (rgb[..., i] for i in range(3))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    hue = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    hue = np.where(flat, 0.0, (hue / 6.0) % 1.0)
    return hue, sat, maxc


def _hsv_to_rgb(hue, sat, val):
    sector = np.floor(hue * 6.0)
    frac = hue * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p = np.clip(val * (1.0 - sat), 0.0, 1.0)
    q = np.clip(val * (1.0 - sat * frac), 0.0, 1.0)
    t = np.clip(val * (1.0 - sat * (1.0 - frac)), 0.0, 1.0)
    choices = [(val, t, p), (q, val, p), (p, val, t), (p, q, val), (t, p, val), (val, p, q)]
    channels = [np.choose(sector, [c[k] for c in choices]) for k in range(3)]
    return np.stack(channels, axis=-1)


@per_image
def adjust_hue(img, hue_factor):
    """Shift the hue by `hue_factor` turns (in [-0.5, 0.5]; +-0.5 gives the complementary
    colours). One-channel images are returned unchanged.

    Example:
        >>> import numpy as np
        >>> adjust_hue(np.array([[[1.0, 0.0, 0.0]]], np.float32), 1 / 3).round(3).tolist()
        [[[0.0, 1.0, 0.0]]]
    """
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor should be in [-0.5, 0.5], but got "
                         f"{hue_factor!r}")
    if is_pil_image(img):
        if img.mode in ("L", "1", "I", "F"):
            return img
        hsv = np.array(img.convert("HSV"))
        hsv[..., 0] = (hsv[..., 0].astype(np.int64) + int(hue_factor * 255)) % 256
        return require_pil().fromarray(hsv, "HSV").convert(img.mode)
    hwc, restore = _as_hwc(img, "adjust_hue")
    if _channels(hwc, "adjust_hue") == 1:
        return img
    rgb = hwc.astype(np.float32)
    if hwc.dtype.kind != "f":
        rgb = rgb / 255.0
    hue, sat, val = _rgb_to_hsv(rgb)
    out = _hsv_to_rgb((hue + hue_factor) % 1.0, sat, val)
    if hwc.dtype.kind != "f":
        out = out * 255.0
    return restore(out.astype(hwc.dtype))
