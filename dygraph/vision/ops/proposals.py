"""Two-stage detection's region proposals: generate_proposals (RPN outputs to boxes) and
distribute_fpn_proposals (boxes to FPN levels by size).

Both decide how many boxes come out from the values, so each is one whole call in a static
program (the box counts free); the work is on the host.

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import distribute_fpn_proposals
    >>> rois = dygraph.to_tensor([[0.0, 0.0, 10.0, 10.0], [0.0, 0.0, 300.0, 300.0]])
    >>> levels, restore, _ = distribute_fpn_proposals(
    ...     rois, 2, 5, 4, 224, rois_num=dygraph.to_tensor([2], dtype='int32'))
    >>> [lv.shape[0] for lv in levels], restore.numpy().ravel().tolist()
    ([1, 0, 1, 0], [0, 1])
"""

import math

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy, get_array_module
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.framework.stand_in import is_stand_in
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import _new_tensor
from dygraph.vision.ops.nms import iou_matrix

__all__ = ["generate_proposals", "distribute_fpn_proposals"]

# The largest log-scale a box may grow by when decoded (Detectron's bbox_xform_clip).
_LOG_CLIP = math.log(1000.0 / 16.0)


def _tensor(array, like):
    return _new_tensor(get_array_module(like._data).asarray(array), None, 0, True)


def _decode(anchors, deltas, variances, pixel):
    """Anchors [K, 4] moved by deltas [K, 4] (scaled by variances), as corner boxes."""
    w = anchors[:, 2] - anchors[:, 0] + pixel
    h = anchors[:, 3] - anchors[:, 1] + pixel
    cx, cy = anchors[:, 0] + w / 2, anchors[:, 1] + h / 2
    d = deltas * variances
    px, py = d[:, 0] * w + cx, d[:, 1] * h + cy
    pw = np.exp(np.minimum(d[:, 2], _LOG_CLIP)) * w
    ph = np.exp(np.minimum(d[:, 3], _LOG_CLIP)) * h
    return np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - pixel, py + ph / 2 - pixel], 1)


def _adaptive_nms(boxes, threshold, eta, normalized):
    """Greedy NMS of boxes in score order, the threshold shrinking by eta (while above 0.5)
    after each kept box."""
    iou = iou_matrix(boxes, boxes, normalized)
    keep = []
    for i in range(boxes.shape[0]):
        if all(iou[i, k] <= threshold for k in keep):
            keep.append(i)
            if eta < 1 and threshold > 0.5:
                threshold *= eta
    return np.array(keep, np.int64)


def _proposals_of_image(score, delta, size, anchors, variances, pre_n, post_n, thresh,
                        min_size, eta, pixel_offset):
    pixel = 1.0 if pixel_offset else 0.0
    order = np.argsort(-score, kind="stable")
    if 0 < pre_n < order.size:
        order = order[:pre_n]
    boxes = _decode(anchors[order], delta[order], variances[order], pixel)
    height, width = size
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, width - pixel)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, height - pixel)
    score = score[order]
    w = boxes[:, 2] - boxes[:, 0] + pixel
    h = boxes[:, 3] - boxes[:, 1] + pixel
    keep = (w >= min_size) & (h >= min_size)
    if pixel_offset:
        keep &= (boxes[:, 0] + w / 2 <= width) & (boxes[:, 1] + h / 2 <= height)
    boxes, score = boxes[keep], score[keep]
    if boxes.shape[0] == 0:  # Paddle gives one empty box then
        return np.zeros((1, 4), boxes.dtype), np.zeros(1, score.dtype)
    if thresh > 0:
        chosen = _adaptive_nms(boxes, thresh, eta, not pixel_offset)
        if 0 < post_n < chosen.size:
            chosen = chosen[:post_n]
        boxes, score = boxes[chosen], score[chosen]
    return boxes, score


@captured_whole(free_dims=(0,))
def _generate(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n,
              post_nms_top_n, nms_thresh, min_size, eta, pixel_offset):
    op = "generate_proposals"
    scores = as_tensor(scores, op)
    score, delta = as_numpy(scores._data), as_numpy(as_tensor(bbox_deltas, op)._data)
    sizes = as_numpy(as_tensor(img_size, op)._data)
    anchor, variance = (as_numpy(as_tensor(t, op)._data).reshape(-1, 4).astype(score.dtype)
                        for t in (anchors, variances))
    if score.ndim != 4:
        raise op_error(op, f"scores must be [N, A, H, W], got shape {list(score.shape)}")
    n, a, h, w = score.shape
    if delta.shape != (n, 4 * a, h, w):
        raise op_error(op, f"bbox_deltas must have shape {[n, 4 * a, h, w]}, got "
                       f"{list(delta.shape)}")
    if anchor.shape[0] != a * h * w or variance.shape != anchor.shape:
        raise op_error(op, f"anchors and variances must hold {h} x {w} x {a} boxes [H, W, A, "
                       f"4], got {anchor.size // 4} and {variance.size // 4}")
    if sizes.shape != (n, 2):
        raise op_error(op, f"img_size must have shape [{n}, 2], got {list(sizes.shape)}")
    rois, probs, counts = [], [], []
    for i in range(n):
        boxes, kept = _proposals_of_image(
            score[i].transpose(1, 2, 0).reshape(-1),
            delta[i].reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4),
            sizes[i].astype(score.dtype), anchor, variance, pre_nms_top_n, post_nms_top_n,
            nms_thresh, min_size, eta, pixel_offset)
        rois.append(boxes)
        probs.append(kept)
        counts.append(boxes.shape[0])
    return (_tensor(np.concatenate(rois).astype(score.dtype), scores),
            _tensor(np.concatenate(probs).astype(score.dtype).reshape(-1, 1), scores),
            _tensor(np.array(counts, np.int32), scores))


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """Faster R-CNN's region proposals. For each image: the pre_nms_top_n best anchors by
    score ([N, A, H, W]) are moved by their deltas ([N, 4A, H, W], scaled by variances,
    anchors and variances [H, W, A, 4]), clipped to the image (img_size [N, 2] as height,
    width), freed of boxes smaller than min_size, and reduced by NMS (nms_thresh, shrunk by
    eta after each kept box while above 0.5) to post_nms_top_n. Returns (rois [K, 4],
    roi_probs [K, 1], rois_num [N] int32); as in Paddle's dynamic mode, return_rois_num
    must be True.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import generate_proposals
        >>> scores = dygraph.to_tensor([[[[0.9]], [[0.4]]]])
        >>> deltas = dygraph.zeros([1, 8, 1, 1])
        >>> anchors = dygraph.to_tensor([[[[0.0, 0.0, 8.0, 8.0], [2.0, 2.0, 6.0, 6.0]]]])
        >>> variances = dygraph.ones([1, 1, 2, 4])
        >>> rois, probs, num = generate_proposals(scores, deltas,
        ...     dygraph.to_tensor([[16.0, 16.0]]), anchors, variances, return_rois_num=True)
        >>> rois.numpy().tolist(), num.numpy().tolist()
        ([[0.0, 0.0, 8.0, 8.0], [2.0, 2.0, 6.0, 6.0]], [2])
    """
    if not return_rois_num:
        raise op_error("generate_proposals", "return_rois_num must be True (the counts are "
                       "what tells the images' proposals apart)", AssertedValueError)
    return _generate(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n,
                     post_nms_top_n, nms_thresh, min_size, eta, pixel_offset)


@captured_whole(free_dims=(0,))
def _distribute(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset,
                rois_num):
    op = "distribute_fpn_proposals"
    fpn_rois = as_tensor(fpn_rois, op)
    rois = as_numpy(fpn_rois._data)
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise op_error(op, f"fpn_rois must have shape [K, 4], got {list(rois.shape)}")
    rois_num = as_tensor(rois_num, op)
    counts = as_numpy(rois_num._data).astype(np.int64)
    if is_stand_in(rois_num._data) or is_stand_in(fpn_rois._data):  # a program being built
        counts = np.zeros(counts.shape, np.int64)
        counts[0] = rois.shape[0]
    if int(counts.sum()) != rois.shape[0]:
        raise op_error(op, f"rois_num {counts.tolist()} must add up to the {rois.shape[0]} "
                       "rois")
    pixel = rois.dtype.type(1 if pixel_offset else 0)
    w = rois[:, 2] - rois[:, 0] + pixel
    h = rois[:, 3] - rois[:, 1] + pixel
    area = np.where((w < pixel) | (h < pixel) | (w <= 0) | (h <= 0), 0, w * h)
    with np.errstate(divide="ignore"):
        level = np.floor(np.log2(np.sqrt(area) / refer_scale + 1e-8) + refer_level)
    level = np.clip(level, min_level, max_level).astype(np.int64)
    image = np.repeat(np.arange(counts.size), counts)
    levels, per_level, order = [], [], []
    for lv in range(min_level, max_level + 1):
        members = np.flatnonzero(level == lv)
        order.append(members)
        levels.append(_tensor(rois[members], fpn_rois))
        per_level.append(_tensor(np.bincount(image[members], minlength=counts.size).astype(
            np.int32), fpn_rois))
    restore = np.empty(rois.shape[0], np.int32)
    restore[np.concatenate(order).astype(np.int64)] = np.arange(rois.shape[0])
    return (*levels, _tensor(restore.reshape(-1, 1), fpn_rois), *per_level)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Assign each RoI [K, 4] to an FPN level: floor(refer_level + log2(sqrt(area) /
    refer_scale)), clipped to [min_level, max_level]. Returns (the rois of each level in
    their order, restore_ind [K, 1] int32 (where each roi went in the levels' concatenation),
    the per-image counts of each level, [N] int32 each). rois_num [N], the rois of each
    image, is required, as in Paddle's dynamic mode.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import distribute_fpn_proposals
        >>> rois = dygraph.to_tensor([[0.0, 0.0, 500.0, 500.0], [0.0, 0.0, 20.0, 20.0],
        ...                           [0.0, 0.0, 100.0, 100.0]])
        >>> levels, restore, counts = distribute_fpn_proposals(
        ...     rois, 2, 5, 4, 224, rois_num=dygraph.to_tensor([2, 1], dtype='int32'))
        >>> restore.numpy().ravel().tolist(), [c.numpy().tolist() for c in counts]
        ([2, 0, 1], [[1, 1], [0, 0], [0, 0], [1, 0]])
    """
    op = "distribute_fpn_proposals"
    n_levels = max_level - min_level + 1
    if not 1 < n_levels < 100:
        raise op_error(op, f"max_level ({max_level}) must exceed min_level ({min_level}), by "
                       "fewer than 99 levels", AssertedValueError)
    if rois_num is None:
        raise op_error(op, "rois_num (the number of rois of each image) is required in "
                       "dynamic mode, as in Paddle", AssertedValueError)
    outs = _distribute(fpn_rois, min_level, max_level, refer_level, refer_scale,
                       pixel_offset, rois_num)
    return list(outs[:n_levels]), outs[n_levels], list(outs[n_levels + 1:])
