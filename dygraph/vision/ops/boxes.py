"""SSD's box arithmetic: prior_box (the anchor boxes of a feature map) and box_coder (boxes to
offsets from priors and back). Neither has a gradient in Paddle; each runs as one call in
a static program, so it is recomputed from each run's inputs.

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import box_coder
    >>> prior = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> target = dygraph.to_tensor([[1.0, 1.0, 3.0, 3.0]])
    >>> box_coder(prior, [1.0, 1.0, 1.0, 1.0], target).numpy()
    array([[[0.5, 0.5, 0. , 0. ]]], dtype=float32)
"""

import math

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import get_array_module
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["prior_box", "box_coder"]


def _floats(value, name):
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        raise op_error("prior_box", f"{name} must be a number or a list of numbers, got "
                       f"{value!r}", TypeError) from None


def _aspect_ratios(ratios, flip):
    """1 first, then each ratio not yet listed (and its inverse with flip)."""
    out = [1.0]
    for r in ratios:
        if any(abs(r - s) < 1e-6 for s in out):
            continue
        out.append(r)
        if flip:
            out.append(1.0 / r)
    return out


def _prior_sizes(min_sizes, max_sizes, ratios, ratio_first):
    """The (width, height) of each prior at one position, in Paddle's order."""
    sizes = []
    for k, low in enumerate(min_sizes):
        shaped = [(low * math.sqrt(r), low / math.sqrt(r)) for r in ratios]
        big = [(math.sqrt(low * max_sizes[k]),) * 2] if max_sizes else []
        if ratio_first:
            sizes += [(low, low)] + big + [s for s, r in zip(shaped, ratios)
                                           if abs(r - 1.0) >= 1e-6]
        else:
            sizes += shaped + big
    return sizes


@captured_whole
def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=(1.0,),  # noqa: A002
              variance=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, steps=(0.0, 0.0),
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD's prior boxes for each position of the feature map `input` [N, C, H, W] over
    `image` [N, C, IH, IW]: boxes [H, W, P, 4] (x1, y1, x2, y2) as fractions of the image,
    and their variances in the same shape. Each position gets, for each min size, one box
    per aspect ratio (1 first; with `flip` also the inverses) and one of size
    sqrt(min * max) where max_sizes are given; `min_max_aspect_ratios_order` puts the
    min-size square and the max-size box before the other ratios, as Caffe's SSD.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import prior_box
        >>> boxes, var = prior_box(dygraph.ones([1, 3, 2, 2]), dygraph.ones([1, 3, 8, 8]),
        ...                        min_sizes=[4.0])
        >>> boxes.shape, boxes.numpy()[0, 0, 0].tolist()
        ([2, 2, 1, 4], [0.0, 0.0, 0.5, 0.5])
    """
    input, image = as_tensor(input, "prior_box"), as_tensor(image, "prior_box")  # noqa: A001
    for what, t in (("input", input), ("image", image)):
        if t._data.ndim != 4:
            raise op_error("prior_box", f"{what} must be a 4-D tensor [N, C, H, W], got "
                           f"shape {t.shape}")
    steps = _floats(steps, "steps")
    if len(steps) != 2:
        raise op_error("prior_box", f"steps should be (step_w, step_h), got {steps}")
    mins = _floats(min_sizes, "min_sizes")
    maxes = [] if max_sizes is None else _floats(max_sizes, "max_sizes")
    if maxes and maxes[0] <= 0:
        maxes = []
    if maxes and len(maxes) != len(mins):
        raise op_error("prior_box", f"max_sizes ({len(maxes)}) must pair with min_sizes "
                       f"({len(mins)})")
    if any(hi < lo for lo, hi in zip(mins, maxes)):
        raise op_error("prior_box", f"each max size must be at least its min size, got "
                       f"min_sizes {mins} and max_sizes {maxes}")
    variances = _floats(variance, "variance")
    if len(variances) != 4:
        raise op_error("prior_box", f"variance must have 4 values, got {variances}")
    ratios = _aspect_ratios(_floats(aspect_ratios, "aspect_ratios"), flip)
    sizes = np.array(_prior_sizes(mins, maxes, ratios, min_max_aspect_ratios_order))
    feat_h, feat_w = input._data.shape[2:]
    img_h, img_w = image._data.shape[2:]
    step_w = steps[0] if steps[0] else img_w / feat_w
    step_h = steps[1] if steps[1] else img_h / feat_h
    cx = (np.arange(feat_w) + offset) * step_w
    cy = (np.arange(feat_h) + offset) * step_h
    half_w, half_h = sizes[:, 0] / 2, sizes[:, 1] / 2
    boxes = np.empty((feat_h, feat_w, len(sizes), 4))
    boxes[..., 0] = (cx[None, :, None] - half_w) / img_w
    boxes[..., 1] = (cy[:, None, None] - half_h) / img_h
    boxes[..., 2] = (cx[None, :, None] + half_w) / img_w
    boxes[..., 3] = (cy[:, None, None] + half_h) / img_h
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    dtype = input._data.dtype if input._data.dtype.kind == "f" else np.float32
    xp = get_array_module(input._data)
    var = np.broadcast_to(np.array(variances, np.float32), boxes.shape)  # float32, as Paddle
    return (_new_tensor(xp.asarray(boxes.astype(dtype)), None, 0, True),
            _new_tensor(xp.asarray(var.astype(dtype)), None, 0, True))


def _corners(xp, boxes, pixel):
    """(width, height, centre x, centre y) of boxes [..., 4]."""
    w = boxes[..., 2] - boxes[..., 0] + pixel
    h = boxes[..., 3] - boxes[..., 1] + pixel
    return w, h, boxes[..., 0] + w / 2, boxes[..., 1] + h / 2


@captured_whole
def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    """Encode boxes as offsets from priors, or decode offsets back to boxes (SSD, Faster
    R-CNN). prior_box [M, 4] (x1, y1, x2, y2); prior_box_var a Tensor [M, 4] or 4 numbers.

    encode_center_size: target_box [N, 4] -> [N, M, 4] of ((tx - px) / pw, (ty - py) / ph,
    log(tw / pw), log(th / ph)) over the variances, (px, py) centres and (pw, ph) sizes.
    decode_center_size: target_box [N, M, 4] offsets -> boxes [N, M, 4]; `axis` says which
    dimension of target_box the priors run along (0: prior j for column j, 1: for row i).
    Unnormalized boxes count pixels (a side is x2 - x1 + 1).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import box_coder
        >>> prior = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0]])
        >>> deltas = dygraph.to_tensor([[[0.5, 0.5, 0.0, 0.0]]])
        >>> box_coder(prior, [1.0, 1.0, 1.0, 1.0], deltas, 'decode_center_size').numpy()
        array([[[1., 1., 3., 3.]]], dtype=float32)
    """
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise op_error("box_coder", "code_type must be 'encode_center_size' or "
                       f"'decode_center_size', got {code_type!r}")
    prior = as_tensor(prior_box, "box_coder")._data
    target = as_tensor(target_box, "box_coder")._data
    xp = get_array_module(prior)
    if isinstance(prior_box_var, Tensor):
        var = prior_box_var._data.astype(prior.dtype, copy=False)
        if var.shape != prior.shape:
            raise op_error("box_coder", f"prior_box_var of shape {list(var.shape)} must have "
                           f"prior_box's shape {list(prior.shape)}")
    elif isinstance(prior_box_var, (list, tuple)):
        if len(prior_box_var) != 4:
            raise op_error("box_coder", "prior_box_var must be a Tensor or 4 numbers, got "
                           f"{list(prior_box_var)}", AssertedValueError)
        # Paddle keeps these as float32 attributes, whatever the boxes' dtype
        var = xp.asarray(np.float32(prior_box_var).astype(prior.dtype))
    else:
        raise op_error("box_coder", "prior_box_var must be a Tensor or a list|tuple of 4 "
                       f"numbers, got {type(prior_box_var).__name__}", TypeError)
    if prior.ndim != 2 or prior.shape[1] != 4:
        raise op_error("box_coder", f"prior_box must have shape [M, 4], got "
                       f"{list(prior.shape)}")
    target = target.astype(prior.dtype, copy=False)
    pixel = prior.dtype.type(0 if box_normalized else 1)
    pw, ph, pcx, pcy = _corners(xp, prior, pixel)
    if code_type == "encode_center_size":
        if target.ndim != 2 or target.shape[1] != 4:
            raise op_error("box_coder", f"target_box must have shape [N, 4] to encode, got "
                           f"{list(target.shape)}")
        tw, th, _, _ = (v[:, None] for v in _corners(xp, target, pixel))
        # the target's centre leaves out the pixel that its size counts
        tcx = (target[:, None, 0] + target[:, None, 2]) / 2
        tcy = (target[:, None, 1] + target[:, None, 3]) / 2
        out = xp.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, xp.log(xp.abs(tw / pw)),
                        xp.log(xp.abs(th / ph))], axis=-1)
        out = out / (var[None] if var.ndim == 2 else var)
    else:
        if target.ndim != 3 or target.shape[2] != 4:
            raise op_error("box_coder", f"target_box must have shape [N, M, 4] to decode, got "
                           f"{list(target.shape)}")
        if axis not in (0, 1):
            raise op_error("box_coder", f"axis must be 0 or 1, got {axis!r}")
        if target.shape[1 - axis] != prior.shape[0]:
            raise op_error("box_coder", f"target_box {list(target.shape)} must have "
                           f"{prior.shape[0]} priors along dimension {1 - axis}")

        def spread(v):  # a per-prior value against target_box's [N, M] grid
            return v[None] if axis == 0 else v[:, None]

        pw, ph, pcx, pcy = (spread(v) for v in (pw, ph, pcx, pcy))
        v = [spread(var[:, k]) if var.ndim == 2 else var[k] for k in range(4)]
        cx = v[0] * target[..., 0] * pw + pcx
        cy = v[1] * target[..., 1] * ph + pcy
        w = xp.exp(v[2] * target[..., 2]) * pw
        h = xp.exp(v[3] * target[..., 3]) * ph
        out = xp.stack([cx - w / 2, cy - h / 2, cx + w / 2 - pixel, cy + h / 2 - pixel],
                       axis=-1)
    return _new_tensor(out.astype(prior.dtype, copy=False), None, 0, True)
