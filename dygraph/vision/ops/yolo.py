"""YOLOv3's head: yolo_box (decode a head's output into boxes and class scores) and
yolo_loss (its training loss).

The input's channels are, for each anchor of the head, (tx, ty, tw, th, objectness, class
logits...). Both ops read values (the confidence threshold, the matching of ground truth
to anchors and the ignore mask), so each is one whole call in a static program. The loss
matches on the host and is then written with the library's differentiable ops, so its
gradient reaches x (as in Paddle; the targets get none).

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import yolo_box
    >>> x = dygraph.zeros([1, 2 * 7, 2, 2])
    >>> boxes, scores = yolo_box(x, dygraph.to_tensor([[64, 64]], dtype='int32'),
    ...                          [10, 13, 16, 30], 2, 0.01, 32)
    >>> boxes.shape, scores.shape
    ([1, 8, 4], [1, 8, 2])
"""

import numpy as np

from dygraph import ops as P
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy, get_array_module
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.loss.regression import binary_cross_entropy_with_logits
from dygraph.tensor.tensor import _new_tensor

__all__ = ["yolo_box", "yolo_loss"]


def _sigmoid(xp, v):
    return 1 / (1 + xp.exp(-v))


def _anchor_pairs(anchors, op):
    values = [int(a) for a in anchors]
    if not values or len(values) % 2:
        raise op_error(op, f"anchors must list (width, height) pairs, got {list(anchors)}")
    return np.array(values).reshape(-1, 2)


def _head(x, per_anchor, anchors_n, op, extra=0):
    if x._data.ndim != 4:
        raise op_error(op, f"x must be a 4-D tensor [N, C, H, W], got shape {x.shape}")
    if x._data.dtype.kind != "f":
        raise op_error(op, f"x must be float32 or float64, got {x._data.dtype.name}",
                       TypeError)
    channels = x._data.shape[1]
    if channels != anchors_n * (per_anchor + extra):
        raise op_error(op, f"x has {channels} channels; {anchors_n} anchors with "
                       f"{per_anchor - 5} classes want {anchors_n * (per_anchor + extra)}")


@captured_whole
def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Boxes [N, A*H*W, 4] (x1, y1, x2, y2 in the pixels of each image, img_size [N, 2] as
    (height, width)) and scores [N, A*H*W, class_num] (objectness times each class's
    sigmoid) of a YOLOv3 head x [N, A*(5+class_num), H, W]; entries whose objectness is
    under conf_thresh are zeros. With iou_aware, x starts with A IoU channels and the
    objectness becomes obj^(1-f) * iou^f (f = iou_aware_factor).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import yolo_box
        >>> x = dygraph.zeros([1, 6, 1, 1])
        >>> boxes, scores = yolo_box(x, dygraph.to_tensor([[32, 32]], dtype='int32'),
        ...                          [16, 8], 1, 0.1, 32)
        >>> boxes.numpy(), scores.numpy()
        (array([[[ 8., 12., 24., 20.]]], dtype=float32), array([[[0.25]]], dtype=float32))
    """
    op = "yolo_box"
    x = as_tensor(x, op)
    pairs = _anchor_pairs(anchors, op)
    a = len(pairs)
    _head(x, 5 + class_num, a, op, 1 if iou_aware else 0)
    data = x._data
    xp = get_array_module(data)
    n, _, h, w = data.shape
    sizes = as_numpy(as_tensor(img_size, op)._data).astype(np.int64)
    if sizes.shape != (n, 2):
        raise op_error(op, f"img_size must have shape [{n}, 2], got {list(sizes.shape)}")
    dtype = data.dtype
    if iou_aware:
        iou, data = data[:, :a], data[:, a:]
    head = data.reshape(n, a, 5 + class_num, h, w)
    conf = _sigmoid(xp, head[:, :, 4])
    if iou_aware:
        conf = conf ** (1 - iou_aware_factor) * _sigmoid(xp, iou) ** iou_aware_factor
    keep = conf >= conf_thresh
    bias = -0.5 * (scale_x_y - 1)
    img_h = xp.asarray(sizes[:, 0].astype(dtype)).reshape(n, 1, 1, 1)
    img_w = xp.asarray(sizes[:, 1].astype(dtype)).reshape(n, 1, 1, 1)
    cols = xp.arange(w, dtype=dtype).reshape(1, 1, 1, w)
    rows = xp.arange(h, dtype=dtype).reshape(1, 1, h, 1)
    anchor_w = xp.asarray(pairs[:, 0].astype(dtype)).reshape(1, a, 1, 1)
    anchor_h = xp.asarray(pairs[:, 1].astype(dtype)).reshape(1, a, 1, 1)
    cx = (cols + _sigmoid(xp, head[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (rows + _sigmoid(xp, head[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = xp.exp(head[:, :, 2]) * anchor_w * img_w / (downsample_ratio * w)
    bh = xp.exp(head[:, :, 3]) * anchor_h * img_h / (downsample_ratio * h)
    corners = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
    if clip_bbox:
        corners = [xp.maximum(corners[0], 0), xp.maximum(corners[1], 0),
                   xp.minimum(corners[2], img_w - 1), xp.minimum(corners[3], img_h - 1)]
    boxes = xp.stack(corners, axis=-1) * keep[..., None]
    scores = (conf * keep)[:, :, None] * _sigmoid(xp, head[:, :, 5:])
    boxes = boxes.reshape(n, a * h * w, 4).astype(dtype, copy=False)
    scores = scores.transpose(0, 1, 3, 4, 2).reshape(n, a * h * w, class_num)
    return (_new_tensor(boxes, None, 0, True),
            _new_tensor(scores.astype(dtype, copy=False), None, 0, True))


def _center_iou(a, b):
    """IoU of centre-size boxes (..., 4) broadcast against each other."""
    inter_w = (np.minimum(a[..., 0] + a[..., 2] / 2, b[..., 0] + b[..., 2] / 2)
               - np.maximum(a[..., 0] - a[..., 2] / 2, b[..., 0] - b[..., 2] / 2))
    inter_h = (np.minimum(a[..., 1] + a[..., 3] / 2, b[..., 1] + b[..., 3] / 2)
               - np.maximum(a[..., 1] - a[..., 3] / 2, b[..., 1] - b[..., 3] / 2))
    inter = np.where((inter_w < 0) | (inter_h < 0), 0, inter_w * inter_h)
    union = a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / union


def _match(head, gt, labels, scores, pairs, mask, ignore_thresh, input_size, scale_x_y):
    """The objectness weights [N, M, H, W] (score at a matched cell, -1 where the
    prediction already overlaps some ground truth by more than ignore_thresh, else 0) and
    the matched ground truths as (image, mask slot, row, col, box, label, score) rows."""
    n, m, _, h, w = head.shape
    bias = -0.5 * (scale_x_y - 1)
    anchors = pairs[mask]
    pred = np.stack([
        (np.arange(w)[None, None, None, :] + _sigmoid(np, head[:, :, 0]) * scale_x_y + bias) / h,
        (np.arange(h)[None, None, :, None] + _sigmoid(np, head[:, :, 1]) * scale_x_y + bias) / h,
        np.exp(head[:, :, 2]) * anchors[None, :, 0, None, None] / input_size,
        np.exp(head[:, :, 3]) * anchors[None, :, 1, None, None] / input_size], axis=-1)
    valid = (gt[..., 2] >= 1e-6) & (gt[..., 3] >= 1e-6)
    iou = _center_iou(pred[:, :, :, :, None, :], gt[:, None, None, None, :, :])
    iou = np.where(valid[:, None, None, None, :], np.nan_to_num(iou), 0)
    best = iou.max(axis=-1, initial=0.0)
    objectness = np.where(best > ignore_thresh, -1.0, 0.0)
    shapes = np.concatenate([np.zeros((len(pairs), 2)), pairs / input_size], axis=1)
    matched = []
    for i, t in zip(*np.nonzero(valid)):
        box = gt[i, t]
        gt_shape = np.array([0.0, 0.0, box[2], box[3]], box.dtype)
        shape_iou = _center_iou(shapes, gt_shape)
        best_anchor = int(np.argmax(shape_iou))  # the first of the best shapes
        slot = np.flatnonzero(mask == best_anchor)
        if slot.size == 0:
            continue
        col, row = min(int(box[0] * w), w - 1), min(int(box[1] * h), h - 1)
        objectness[i, slot[0], row, col] = scores[i, t]
        matched.append((i, int(slot[0]), row, col, box, int(labels[i, t]), scores[i, t]))
    return objectness, matched


@captured_whole
def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None,
              scale_x_y=1.0):
    """YOLOv3's loss per image, [N], of a head x [N, M*(5+class_num), H, W] (M the anchors
    of anchor_mask) against gt_box [N, B, 4] (centre x, centre y, width, height as
    fractions of the input image; boxes without area are padding), gt_label [N, B] and
    gt_score [N, B] (default ones). Each ground truth is matched to the anchor of the best
    shape among all anchors; if that anchor is this head's, the cell holding its centre
    gets the location loss (sigmoid cross-entropy on x, y, L1 on log w, log h, weighted by
    2 - w*h), the class loss (sigmoid cross-entropy, targets smoothed by min(1/C, 1/40)
    with use_label_smooth) and a positive objectness; predictions overlapping some ground
    truth by more than ignore_thresh get no objectness loss, the rest a negative one.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import yolo_loss
        >>> x = dygraph.zeros([1, 2 * 6, 2, 2], dtype='float64')
        >>> gt = dygraph.to_tensor([[[0.3, 0.6, 0.4, 0.5]]], dtype='float64')
        >>> loss = yolo_loss(x, gt, dygraph.to_tensor([[0]], dtype='int32'), [8, 8, 20, 20],
        ...                  [0, 1], 1, 0.7, 32, use_label_smooth=False)
        >>> loss.shape, round(float(loss), 4)
        ([1], 10.024)
    """
    op = "yolo_loss"
    x = as_tensor(x, op)
    pairs = _anchor_pairs(anchors, op).astype(np.float64)
    mask = np.array([int(k) for k in anchor_mask])
    if mask.size == 0 or mask.min() < 0 or mask.max() >= len(pairs):
        raise op_error(op, f"anchor_mask {list(anchor_mask)} must index the {len(pairs)} "
                       "anchors")
    m = len(mask)
    _head(x, 5 + class_num, m, op)
    n, _, h, w = x._data.shape
    dtype = x._data.dtype
    gt = as_numpy(as_tensor(gt_box, op)._data).astype(dtype)
    labels = as_numpy(as_tensor(gt_label, op)._data)
    if gt.ndim != 3 or gt.shape[0] != n or gt.shape[2] != 4:
        raise op_error(op, f"gt_box must have shape [{n}, B, 4], got {list(gt.shape)}")
    if labels.shape != gt.shape[:2]:
        raise op_error(op, f"gt_label must have shape {list(gt.shape[:2])}, got "
                       f"{list(labels.shape)}")
    scores = (np.ones(gt.shape[:2], dtype) if gt_score is None
              else as_numpy(as_tensor(gt_score, op)._data).astype(dtype))
    input_size = downsample_ratio * h
    per = 5 + class_num
    head = as_numpy(x._data).reshape(n, m, per, h, w)
    objectness, matched = _match(head, gt, labels, scores, pairs, mask, ignore_thresh,
                                 input_size, scale_x_y)
    xp = get_array_module(x._data)

    def constant(values, kind=dtype):
        return _new_tensor(xp.asarray(np.asarray(values, kind)), None, 0, True)

    grid = P.reshape(x, [n, m, per, h, w])
    logits = grid[:, :, 4]
    positive = np.where(objectness > 1e-5, objectness, 0)
    negative = (objectness > -0.5) & (objectness <= 1e-5)
    loss = (binary_cross_entropy_with_logits(logits, constant(np.ones_like(positive)),
                                             reduction="none") * constant(positive)
            + binary_cross_entropy_with_logits(logits, constant(np.zeros_like(positive)),
                                               reduction="none") * constant(negative))
    loss = P.sum(P.reshape(loss, [n, -1]), axis=1)
    if not matched:
        return loss
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    flat = P.reshape(x, [-1])
    image, slot, row, col, box, label, score = (np.array(v) for v in zip(*matched))
    cell = ((image * m + slot) * per * h + row) * w + col  # entry 0 of each matched cell
    at = [constant(cell + k * h * w, np.int64) for k in range(per)]
    targets = np.stack([box[:, 0] * h - col, box[:, 1] * h - row,
                        np.log(box[:, 2] * input_size / pairs[mask[slot], 0]),
                        np.log(box[:, 3] * input_size / pairs[mask[slot], 1])])
    weight = (2.0 - box[:, 2] * box[:, 3]) * score
    terms = ((binary_cross_entropy_with_logits(P.gather(flat, at[0]), constant(targets[0]),
                                               reduction="none")
              + binary_cross_entropy_with_logits(P.gather(flat, at[1]), constant(targets[1]),
                                                 reduction="none")
              + P.abs(P.gather(flat, at[2]) - constant(targets[2]))
              + P.abs(P.gather(flat, at[3]) - constant(targets[3]))) * constant(weight))
    onehot = np.eye(class_num)[label]
    classes = P.stack([P.gather(flat, at[5 + k]) for k in range(class_num)], axis=1)
    class_loss = binary_cross_entropy_with_logits(
        classes, constant(onehot * (1 - 2 * smooth) + smooth), reduction="none")
    terms = terms + P.sum(class_loss, axis=1) * constant(score)
    owner = constant(np.arange(n)[:, None] == image[None, :])  # [N, matches]
    return loss + P.matmul(owner, terms)
