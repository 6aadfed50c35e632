"""Affine and perspective warps, and erasing a region, on NumPy HWC arrays, PIL images and
CHW Tensors.

Warps map each output pixel back to the input (inverse mapping) with Pillow's conventions:
pixel (x, y) covers [x, x + 1) x [y, y + 1), its centre is (x + 0.5, y + 0.5), and the
default centre of an affine warp is (w / 2, h / 2). NumPy arrays and Tensors are warped by
the same NumPy code ('nearest' or 'bilinear'), which follows Pillow's arithmetic (16.16
fixed point for nearest affine sampling, truncation after bilinear interpolation); PIL
images by Pillow itself. The three agree pixel for pixel.

Example:
    >>> import numpy as np
    >>> img = np.arange(4, dtype=np.uint8).reshape(2, 2)
    >>> affine(img, angle=0, translate=(1, 0), scale=1.0, shear=0).tolist()
    [[0, 0], [0, 2]]
"""

import functools
import math
import numbers

import numpy as np

from dygraph.tensor.tensor import Tensor
from dygraph.vision.image import is_pil_image, require_pil

__all__ = ["affine", "perspective", "erase", "rotate_array", "affine_matrix",
           "perspective_coeffs", "per_image"]


def per_image(fn):
    """Let `fn`, written for one image, take a batch of CHW Tensors ([N, C, H, W]) too:
    each image is processed alone and the results are stacked, as Paddle's tensor
    functions treat batches.

    Example:
        >>> import dygraph
        >>> per_image(lambda img: img * 2)(dygraph.ones([2, 1, 1, 1])).shape
        [2, 1, 1, 1]
    """
    @functools.wraps(fn)
    def wrapper(img, *args, **kwargs):
        if isinstance(img, Tensor) and len(img.shape) == 4:
            import dygraph

            return dygraph.stack([fn(img[i], *args, **kwargs) for i in range(img.shape[0])])
        return fn(img, *args, **kwargs)

    return wrapper


def affine_matrix(center, angle, translate, scale, shear):
    """The inverse affine map (output to input) as 6 numbers [a, b, c, d, e, f], for a
    rotation by `angle` degrees (clockwise on screen, as Paddle's `affine`) and `shear`
    (x, y) degrees about `center`, then scaling by `scale` and translating by `translate`.

    Example:
        >>> [round(v, 6) + 0.0 for v in affine_matrix((0, 0), 0, (2, 3), 1.0, (0, 0))]
        [1.0, 0.0, -2.0, 0.0, 1.0, -3.0]
    """
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    # Forward rotation-with-shear [[a, b], [c, d]] has determinant 1, so its inverse is
    # [[d, -b], [-c, a]]; scale divides it.
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
    (cx, cy), (tx, ty) = center, translate
    m[2] = m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] = m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients (a, b, c, d, e, f, g, h) mapping output points to input points:
    (x, y) -> ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)), fitted
    so that each of the four `endpoints` maps to its `startpoints` corner.

    Example:
        >>> pts = [[0, 0], [3, 0], [3, 3], [0, 3]]
        >>> (np.round(perspective_coeffs(pts, pts), 6) + 0.0).tolist()
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    """
    rows = []
    for (ox, oy), (ix, iy) in zip(endpoints, startpoints):
        rows.append([ox, oy, 1, 0, 0, 0, -ix * ox, -ix * oy])
        rows.append([0, 0, 0, ox, oy, 1, -iy * ox, -iy * oy])
    target = np.asarray(startpoints, np.float64).reshape(8)
    return np.linalg.lstsq(np.asarray(rows, np.float64), target, rcond=None)[0].tolist()


def _fill_pixel(fill, img):
    fill = np.asarray(fill, np.float64)
    channels = img.shape[2] if img.ndim == 3 else 1
    if fill.size not in (1, channels):
        raise ValueError(f"fill should be a number or one value per channel ({channels}), "
                         f"but got {fill.tolist()}")
    return fill.reshape(-1)[:channels] if img.ndim == 3 else fill.reshape(-1)[0]


def _warp(img, src_x, src_y, interpolation, fill):
    """Sample `img` at input coordinates (pixel corners at integers; integer arrays are
    taken as the pixel indices themselves); points outside the image get `fill`. Integer
    images are truncated after bilinear interpolation, as Pillow does."""
    h, w = img.shape[:2]
    if src_x.dtype.kind == "f":  # a degenerate warp maps points to infinity: outside
        finite = np.isfinite(src_x) & np.isfinite(src_y)
        src_x, src_y = np.where(finite, src_x, -1.0), np.where(finite, src_y, -1.0)
    if interpolation == "nearest":
        xi, yi = np.floor(src_x).astype(np.int64), np.floor(src_y).astype(np.int64)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        out = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)].astype(np.float64)
    elif interpolation == "bilinear":
        inside = (src_x >= 0) & (src_x < w) & (src_y >= 0) & (src_y < h)
        fx, fy = np.clip(src_x - 0.5, 0, w - 1), np.clip(src_y - 0.5, 0, h - 1)
        x0, y0 = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
        x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
        wx, wy = fx - x0, fy - y0
        if img.ndim == 3:
            wx, wy = wx[..., None], wy[..., None]
        data = img.astype(np.float64)
        # Pillow's form and order of operations, so that truncation agrees with it.
        top = data[y0, x0] + (data[y0, x1] - data[y0, x0]) * wx
        bottom = data[y1, x0] + (data[y1, x1] - data[y1, x0]) * wx
        out = top + (bottom - top) * wy
    else:
        raise ValueError(f"NumPy arrays and Tensors support 'nearest' and 'bilinear' "
                         f"interpolation, but got {interpolation!r} (use a PIL image for "
                         f"'bicubic')")
    out[~inside] = _fill_pixel(fill, img)
    if img.dtype.kind in "iu":
        info = np.iinfo(img.dtype)
        out = np.clip(np.floor(out), info.min, info.max)
    return out.astype(img.dtype)


def _output_grid(h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    return xx + 0.5, yy + 0.5


def _affine_coords(m, out_h, out_w, interpolation):
    """Input coordinates of every output pixel under the inverse affine map `m`. For
    nearest sampling they are Pillow's: pixel indices in 16.16 fixed point (or exact for a
    pure scale and shift), so that arrays and PIL images agree pixel for pixel."""
    yy, xx = np.mgrid[0:out_h, 0:out_w].astype(np.int64)
    if interpolation != "nearest":
        xs, ys = _output_grid(out_h, out_w)
        return m[0] * xs + m[1] * ys + m[2], m[3] * xs + m[4] * ys + m[5]
    if m[1] == 0 and m[3] == 0:
        return (m[2] + m[0] * 0.5 + xx * m[0], m[5] + m[4] * 0.5 + yy * m[4])
    corners = [(0, 0), (out_w, 0), (0, out_h), (out_w, out_h)]
    if all(abs(x * m[0] + y * m[1] + m[2]) < 32768.0 and abs(x * m[3] + y * m[4] + m[5])
           < 32768.0 for x, y in corners):
        def fix(v):
            return int(math.floor(v * 65536.0 + 0.5))

        a0, a1, a3, a4 = fix(m[0]), fix(m[1]), fix(m[3]), fix(m[4])
        a2 = fix(m[2] + m[0] * 0.5 + m[1] * 0.5)
        a5 = fix(m[5] + m[3] * 0.5 + m[4] * 0.5)
        return (a2 + xx * a0 + yy * a1) >> 16, (a5 + xx * a3 + yy * a4) >> 16
    xs, ys = _output_grid(out_h, out_w)
    return m[0] * xs + m[1] * ys + m[2], m[3] * xs + m[4] * ys + m[5]


def _on_hwc(img, owner, fn):
    """Apply an HWC-array function to an array or a CHW Tensor (returning the same kind)."""
    if isinstance(img, Tensor):
        from dygraph.vision.transforms.functional import _tensor_out

        data = img.numpy()
        hwc = data.transpose(1, 2, 0) if data.ndim == 3 else data
        out = fn(hwc)
        return _tensor_out(out.transpose(2, 0, 1) if out.ndim == 3 else out)
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{owner}: expected a NumPy array, a PIL image or a Tensor, but got "
                        f"{type(img).__name__}")
    if img.ndim not in (2, 3):
        raise ValueError(f"{owner}: expected an H x W or H x W x C array, but got shape "
                         f"{list(img.shape)}")
    return fn(img)


def _pil_resample(interpolation):
    from dygraph.vision.transforms.functional import _pil_filter

    return _pil_filter(interpolation)


def pil_fill(fill, img):
    """Pillow's fill colour for `fill`: a number fills every band (Pillow alone would take
    a number as a packed colour and fill only the first band of an RGB image)."""
    if isinstance(fill, numbers.Number):
        return fill if len(img.getbands()) == 1 else (fill,) * len(img.getbands())
    return tuple(fill)


@per_image
def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotate by `angle` degrees (clockwise, unlike `rotate`) about `center` (default the image
    centre), shear by `shear` degrees (a number for x only, or (x, y)), scale by `scale`
    and translate by `translate` pixels (dx, dy); uncovered pixels get `fill`.

    Example:
        >>> import numpy as np
        >>> img = np.array([[1, 2], [3, 4]], np.uint8)
        >>> affine(img, 90, (0, 0), 1.0, 0).tolist()
        [[3, 1], [4, 2]]
    """
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"affine: angle should be a number, but got {type(angle).__name__}")
    if not (isinstance(translate, (list, tuple)) and len(translate) == 2):
        raise TypeError(f"affine: translate should be a sequence of 2 numbers, got "
                        f"{translate!r}")
    if scale <= 0:
        raise ValueError(f"affine: scale should be positive, but got {scale!r}")
    if isinstance(shear, numbers.Number):
        shear = (shear, 0.0)
    shear = tuple(shear)
    if len(shear) == 1:
        shear = shear * 2
    if len(shear) != 2:
        raise ValueError(f"affine: shear should be a number or 1 or 2 numbers, got {shear!r}")
    if is_pil_image(img):
        w, h = img.size
        matrix = affine_matrix(center or (w * 0.5, h * 0.5), angle, translate, scale, shear)
        return img.transform(img.size, require_pil().Transform.AFFINE, matrix,
                             _pil_resample(interpolation), fillcolor=pil_fill(fill, img))

    def warp(hwc):
        h, w = hwc.shape[:2]
        m = affine_matrix(center or (w * 0.5, h * 0.5), angle, translate, scale, shear)
        return _warp(hwc, *_affine_coords(m, h, w, interpolation), interpolation, fill)

    return _on_hwc(img, "affine", warp)


def rotate_array(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """`rotate` for an HWC (or H x W) array, with Pillow's geometry: counter-clockwise by
    `angle` degrees about `center` (default (w / 2, h / 2)); `expand` makes the output
    ceil/floor-bounded around the rotated corners, as Pillow does.

    Example:
        >>> import numpy as np
        >>> rotate_array(np.array([[1, 2, 3]], np.uint8), 90, expand=True).tolist()
        [[3], [2], [1]]
    """
    h, w = img.shape[:2]
    cx, cy = (w / 2.0, h / 2.0) if center is None else center
    theta = -math.radians(angle % 360.0)
    # Pillow rounds the matrix to 15 digits, which makes 90-degree turns exact.
    m = [round(math.cos(theta), 15), round(math.sin(theta), 15), 0.0,
         round(-math.sin(theta), 15), round(math.cos(theta), 15), 0.0]
    m[2] = m[0] * -cx + m[1] * -cy + cx
    m[5] = m[3] * -cx + m[4] * -cy + cy
    out_h, out_w = h, w
    if expand:
        corners = [(0, 0), (w, 0), (w, h), (0, h)]
        xs = [m[0] * x + m[1] * y + m[2] for x, y in corners]
        ys = [m[3] * x + m[4] * y + m[5] for x, y in corners]
        out_w = math.ceil(max(xs)) - math.floor(min(xs))
        out_h = math.ceil(max(ys)) - math.floor(min(ys))
        dx, dy = -(out_w - w) / 2.0, -(out_h - h) / 2.0
        m[2], m[5] = m[0] * dx + m[1] * dy + m[2], m[3] * dx + m[4] * dy + m[5]
    return _warp(img, *_affine_coords(m, out_h, out_w, interpolation), interpolation, fill)


@per_image
def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warp so that the four corner points `startpoints` ([top-left, top-right,
    bottom-right, bottom-left], each [x, y]) move to `endpoints`; uncovered pixels get
    `fill`.

    Example:
        >>> import numpy as np
        >>> img = np.arange(16, dtype=np.uint8).reshape(4, 4)
        >>> corners = [[0, 0], [3, 0], [3, 3], [0, 3]]
        >>> bool((perspective(img, corners, corners) == img).all())
        True
    """
    for name, points in (("startpoints", startpoints), ("endpoints", endpoints)):
        if np.shape(points) != (4, 2):
            raise ValueError(f"perspective: {name} should be 4 [x, y] points, but got shape "
                             f"{list(np.shape(points))}")
    coeffs = perspective_coeffs(startpoints, endpoints)
    if is_pil_image(img):
        return img.transform(img.size, require_pil().Transform.PERSPECTIVE, coeffs,
                             _pil_resample(interpolation), fillcolor=pil_fill(fill, img))

    def warp(hwc):
        a, b, c, d, e, f, g, h_ = coeffs
        xx, yy = _output_grid(*hwc.shape[:2])
        denom = g * xx + h_ * yy + 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            src_x, src_y = (a * xx + b * yy + c) / denom, (d * xx + e * yy + f) / denom
        return _warp(hwc, src_x, src_y, interpolation, fill)

    return _on_hwc(img, "perspective", warp)


def erase(img, i, j, h, w, v, inplace=False):
    """Replace the `h` x `w` region whose top-left corner is row `i`, column `j` with `v`
    (a number, or an array broadcastable to the region: HWC for arrays and PIL images,
    CHW for Tensors, which may be batches [N, C, H, W]). `inplace` writes into an array or
    Tensor instead of a copy. On Tensors it is differentiable: no gradient reaches the
    erased pixels of `img`, and a Tensor `v` gets the gradient of the region.

    Example:
        >>> import numpy as np
        >>> erase(np.ones((2, 3), np.uint8), 0, 1, 2, 1, 0).tolist()
        [[1, 0, 1], [1, 0, 1]]
    """
    if isinstance(img, Tensor):
        if not isinstance(v, Tensor):
            v = np.asarray(v, dtype=img.numpy().dtype)
        out = img if inplace else img.clone()
        out[..., i:i + h, j:j + w] = v
        return out
    if is_pil_image(img):
        data = np.array(img)
        _erase_hwc(data, i, j, h, w, v)
        return require_pil().fromarray(data, img.mode)
    if not isinstance(img, np.ndarray):
        raise TypeError(f"erase: expected a NumPy array, a PIL image or a Tensor, but got "
                        f"{type(img).__name__}")
    out = img if inplace else img.copy()
    _erase_hwc(out, i, j, h, w, v)
    return out


def _erase_hwc(data, i, j, h, w, v):
    value = np.asarray(v)
    if data.ndim == 2 and value.ndim == 3:
        value = value[..., 0]  # an H x W x 1 value for an image without a channel axis
    data[i:i + h, j:j + w] = value
