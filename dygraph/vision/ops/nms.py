"""Non-maximum suppression: nms (greedy, optionally per category) and matrix_nms (SOLOv2's
decayed scores, per class and image).

Both read box values to decide how many boxes survive, so each is one whole call in a
static program (its output length free). The work is on the host: greedy suppression is a
loop over the kept boxes, each step one vectorised row of the IoU matrix.

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import nms
    >>> boxes = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.5, 0.0, 2.5, 2.0],
    ...                            [4.0, 4.0, 5.0, 5.0]])
    >>> nms(boxes, 0.3, scores=dygraph.to_tensor([0.6, 0.9, 0.5])).numpy()
    array([1, 2])
"""

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.framework.stand_in import is_stand_in
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import _new_tensor

__all__ = ["nms", "matrix_nms", "iou_matrix", "greedy_nms"]


def _on_device_of(array, like):
    """`array` (host) moved to the device of the Tensor `like`."""
    from dygraph.backend import get_array_module

    return _new_tensor(get_array_module(like._data).asarray(array), None, 0, True)


def iou_matrix(a, b, normalized=True):
    """IoU of every box of a [n, 4] with every box of b [m, 4] (x1, y1, x2, y2), [n, m];
    unnormalized boxes count pixels, so a side is x2 - x1 + 1.

    Example:
        >>> import numpy as np
        >>> iou_matrix(np.array([[0.0, 0.0, 2.0, 2.0]]), np.array([[1.0, 0.0, 3.0, 2.0]]))
        array([[0.33333333]])
    """
    one = a.dtype.type(0 if normalized else 1)

    def area(boxes):  # 0 for a box whose corners are the wrong way round
        w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        return np.where((w < 0) | (h < 0), 0, (w + one) * (h + one))

    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    # Disjoint boxes share nothing, even where the pixel count would reach across a gap.
    inter = np.where((w < 0) | (h < 0), 0, (w + one) * (h + one))
    area_a, area_b = area(a), area(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a[:, None] + area_b[None, :] - inter)
    return np.where(np.isfinite(iou), iou, 0).astype(a.dtype, copy=False)


def greedy_nms(boxes, threshold):
    """Positions (in the given order) of the boxes kept by greedy suppression: a box stays
    when its IoU with every box kept before it is at most `threshold`.

    Example:
        >>> import numpy as np
        >>> greedy_nms(np.array([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 1.9]]), 0.5).tolist()
        [0]
    """
    n = boxes.shape[0]
    iou = iou_matrix(boxes, boxes)
    suppressed = np.zeros(n, np.bool_)
    keep = []
    for i in range(n):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > threshold
    return np.array(keep, np.int64)


def _descending(scores):
    """Indices that sort scores from the highest, ties in index order."""
    return np.argsort(-scores, kind="stable")


@captured_whole(free_dims=(0,))
def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    """Indices of the boxes [N, 4] (x1, y1, x2, y2) kept by non-maximum suppression: int64.

    Without scores the boxes are taken in their order and the indices come back ascending;
    with scores, in descending score order. With category_idxs (and the list of
    `categories` to consider) suppression runs within each category, the survivors are
    ordered by score and the first top_k kept.

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import nms
        >>> boxes = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.0, 2.0, 2.0],
        ...                            [0.0, 0.0, 1.0, 1.0]])
        >>> scores = dygraph.to_tensor([0.5, 0.9, 0.7])
        >>> nms(boxes, 0.5, scores, dygraph.to_tensor([0, 0, 1]), [0, 1]).numpy()
        array([1, 2])
    """
    boxes = as_tensor(boxes, "nms")
    shape = list(boxes._data.shape)
    if len(shape) != 2 or shape[1] != 4:
        raise op_error("nms", f"boxes must have shape [num_boxes, 4], got {shape}")
    if boxes._data.dtype.kind != "f":
        raise op_error("nms", f"boxes must be float32 or float64, got "
                       f"{boxes._data.dtype.name}", TypeError)
    host = as_numpy(boxes._data)
    if scores is None:
        return _on_device_of(greedy_nms(host, iou_threshold), boxes)
    score = as_numpy(as_tensor(scores, "nms")._data).reshape(-1)
    if score.shape[0] != shape[0]:
        raise op_error("nms", f"scores has {score.shape[0]} values for {shape[0]} boxes")
    if category_idxs is None:
        order = _descending(score)
        return _on_device_of(order[greedy_nms(host[order], iou_threshold)], boxes)
    # (a program's build-time stand-in has a made-up number of boxes: no check then)
    if top_k is not None and top_k > shape[0] and not is_stand_in(boxes._data):
        raise op_error("nms", f"top_k ({top_k}) must be at most the number of boxes "
                       f"({shape[0]})", AssertedValueError)
    if categories is None:
        raise op_error("nms", "categories (the list of category ids to consider) is needed "
                       "with category_idxs", AssertedValueError)
    category = as_numpy(as_tensor(category_idxs, "nms")._data).reshape(-1)
    kept = np.zeros(shape[0], np.bool_)
    for c in categories:
        members = np.flatnonzero(category == c)
        order = members[_descending(score[members])]
        kept[order[greedy_nms(host[order], iou_threshold)]] = True
    survivors = np.flatnonzero(kept)
    survivors = survivors[_descending(score[survivors])]
    if top_k is not None:
        survivors = survivors[:top_k]
    return _on_device_of(survivors, boxes)


def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, nms_top_k,
                      use_gaussian, sigma, normalized):
    """(box indices, decayed scores) of one class of one image."""
    candidates = np.flatnonzero(scores > score_threshold)
    order = candidates[_descending(scores[candidates])]
    if nms_top_k > -1:
        order = order[:nms_top_k]
    if order.size == 0:
        return order, scores[:0]
    iou = np.triu(iou_matrix(boxes[order], boxes[order], normalized), k=1)  # [j, i], j < i
    # How much each earlier box j was itself suppressed: its largest IoU with a better box.
    compensate = iou.max(axis=0)
    if use_gaussian:
        decay = np.exp((compensate[:, None] ** 2 - iou ** 2) * sigma)
    else:
        decay = (1 - iou) / (1 - compensate[:, None])
    decay = np.where(np.triu(np.ones_like(iou, np.bool_), k=1), decay, 1).min(axis=0)
    decayed = decay * scores[order]
    keep = decayed > post_threshold
    return order[keep], decayed[keep].astype(scores.dtype)


@captured_whole(free_dims=(0,))
def _matrix_nms_all(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
                    use_gaussian, gaussian_sigma, background_label, normalized):
    """matrix_nms's three outputs: detections [K, 6], box indices [K, 1], counts [N]."""
    op = "matrix_nms"
    bboxes, scores = as_tensor(bboxes, op), as_tensor(scores, op)
    boxes, score = as_numpy(bboxes._data), as_numpy(scores._data)
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        raise op_error(op, f"bboxes must have shape [N, M, 4], got {list(boxes.shape)}")
    if score.ndim != 3 or score.shape[0] != boxes.shape[0] or score.shape[2] != boxes.shape[1]:
        raise op_error(op, f"scores must have shape [N, C, M] = [{boxes.shape[0]}, C, "
                       f"{boxes.shape[1]}], got {list(score.shape)}")
    rows, index, counts = [], [], []
    for n in range(boxes.shape[0]):
        found = []
        for c in range(score.shape[1]):
            if c == background_label:
                continue
            kept, decayed = _matrix_nms_class(boxes[n], score[n, c], score_threshold,
                                              post_threshold, nms_top_k, use_gaussian,
                                              gaussian_sigma, normalized)
            found += [(s, c, k) for s, k in zip(decayed, kept)]
        found.sort(key=lambda item: -item[0])  # stable: class, then box order among ties
        if keep_top_k > -1:
            found = found[:keep_top_k]
        counts.append(len(found))
        for s, c, k in found:
            rows.append([c, s, *boxes[n, k]])
            index.append(n * boxes.shape[1] + k)
    out = np.array(rows, boxes.dtype).reshape(-1, 6)
    return (_on_device_of(out, bboxes),
            _on_device_of(np.array(index, np.int32).reshape(-1, 1), bboxes),
            _on_device_of(np.array(counts, np.int32), bboxes))


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix NMS (SOLOv2): for each image and class (background_label skipped), the boxes
    scoring over score_threshold (the best nms_top_k) have their scores decayed by their
    IoU with better boxes, linearly ((1 - iou) / (1 - iou of that better box with its own
    betters)) or, with use_gaussian, by exp((iou_b^2 - iou^2) * gaussian_sigma); those
    still over post_threshold are kept, the best keep_top_k of each image.

    bboxes [N, M, 4], scores [N, C, M]. Returns (out [K, 6] rows of (class, score, x1, y1,
    x2, y2), rois_num [N] int32 or None, index [K, 1] int32 (n * M + box) or None).

    Example:
        >>> import dygraph
        >>> from dygraph.vision.ops import matrix_nms
        >>> boxes = dygraph.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9]]])
        >>> scores = dygraph.to_tensor([[[0.0, 0.0], [0.9, 0.8]]])
        >>> out, num, _ = matrix_nms(boxes, scores, 0.1, 0.5, -1, -1)
        >>> out.numpy()[:, :2], num.numpy()
        (array([[1. , 0.9]], dtype=float32), array([1], dtype=int32))
    """
    out, index, counts = _matrix_nms_all(bboxes, scores, score_threshold, post_threshold,
                                         nms_top_k, keep_top_k, use_gaussian, gaussian_sigma,
                                         background_label, normalized)
    return out, counts if return_rois_num else None, index if return_index else None
