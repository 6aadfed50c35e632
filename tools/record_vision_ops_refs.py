"""Record what Paddle 3.3 answers for paddle.vision.ops into tests/data/vision_ops_*.json.

tests/vision/ops/test_paddle_refs.py replays every case on DyGraph without Paddle. A case
is a call of one paddle.vision.ops function on fixed inputs (stored in the file's table of
arrays, which cases share): its
outputs, or the type of the exception it raised, and for the ops with gradients the
gradients of sum(out * cos(arange(out.size))) with respect to the listed inputs. Run it
with a Python that has paddlepaddle (CPU build), PYTHONPATH not pointing at dygraph:

    /tmp/paddle-venv/bin/python tools/record_vision_ops_refs.py
"""

import hashlib
import json
import pathlib
import warnings

import numpy as np
import paddle
from paddle.vision import ops

warnings.filterwarnings("ignore")
DATA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"


# The arrays of the file being written, by content: a case names an input array that
# several cases share ({"array": key}) instead of repeating it.
ARRAYS = {}


def encode_array(value):
    flat = value.reshape(-1)
    # float32 values by their shortest decimal form (it reads back to the same float32)
    data = [float(str(v)) for v in flat] if value.dtype == np.float32 else flat.tolist()
    return {"dtype": value.dtype.name, "shape": list(value.shape), "data": data}


def encode(value, shared=False):
    """A JSON form of a call argument or result: arrays carry dtype and shape; `shared`
    arrays go to the file's table of arrays."""
    if isinstance(value, paddle.Tensor):
        value = value.numpy()
    if not isinstance(value, np.ndarray):
        return {"value": value}
    if not shared:
        return encode_array(value)
    key = hashlib.sha1(value.dtype.name.encode() + str(value.shape).encode()
                       + value.tobytes()).hexdigest()[:12]
    ARRAYS.setdefault(key, encode_array(value))
    return {"array": key}


def decode(spec):
    spec = ARRAYS[spec["array"]] if "array" in spec else spec
    if "dtype" not in spec:
        return spec["value"]
    return paddle.to_tensor(np.array(spec["data"], spec["dtype"]).reshape(spec["shape"]))


def weights(shape, dtype):
    """The cotangent of an output: cos(0), cos(1), ... in the output's shape."""
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(dtype)


def flatten(result):
    """The outputs of a call as one list: nested lists and tuples spread, None kept."""
    if isinstance(result, (tuple, list)):
        return [o for part in result for o in flatten(part)]
    return [result]


def run_case(op, args, kwargs=None, grad=(), case_id=""):
    """Call ops.<op>(*args, **kwargs) on the encoded arguments and record the outcome."""
    kwargs = kwargs or {}
    record = {"op": op, "id": case_id, "args": [encode(a, shared=True) for a in args],
              "kwargs": {k: encode(v, shared=True) for k, v in kwargs.items()},
              "grad": list(grad)}
    call_args = [decode(a) for a in record["args"]]
    call_kwargs = {k: decode(v) for k, v in record["kwargs"].items()}
    for i in grad:
        call_args[i].stop_gradient = False
    try:
        result = getattr(ops, op)(*call_args, **call_kwargs)
    except Exception as exc:  # the exception's type is what is recorded
        record["raises"] = type(exc).__name__
        return record
    outs = flatten(result)
    record["outputs"] = [encode(o) for o in outs]
    outs = [o for o in outs if o is not None]
    if grad:
        total = sum((o * paddle.to_tensor(weights(o.shape, o.numpy().dtype))).sum()
                    for o in outs if o.dtype in (paddle.float32, paddle.float64)
                    and not o.stop_gradient)
        # backward(), not paddle.grad: Paddle 3.3's deform_conv2d crashes on a gradient
        # asked for a subset of its inputs
        total.backward()
        record["grads"] = [None if call_args[i].grad is None else encode(call_args[i].grad)
                           for i in grad]
    return record


def boxes_in(rng, n, size, scale=1.0, min_side=1.0):
    """n random boxes (x1, y1, x2, y2) inside a size x size image, float32."""
    corners = rng.uniform(0, size - min_side, (n, 2))
    sides = rng.uniform(min_side, size / 2, (n, 2))
    return (np.concatenate([corners, np.minimum(corners + sides, size)], 1) * scale).astype(
        np.float32)


def grid_values(rng, shape):
    """Random float32 values on a grid of 1/64 (short in the file, no ties in practice)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) / 64 - 4).astype(np.float32)


def roi_cases():
    rng = np.random.default_rng(0)
    cases = []
    x4 = grid_values(rng, (2, 4, 9, 11))
    boxes = boxes_in(rng, 7, 10)
    boxes[5] = [-2.0, -1.5, 3.0, 12.0]  # crosses the map's edges
    tiny = np.array([[4.0, 4.0, 4.2, 4.1], [1.5, 6.0, 2.0, 8.5]], np.float32)
    num = np.array([4, 3], np.int32)
    x8 = grid_values(rng, (2, 8, 9, 11))  # psroi_pool wants more than one output channel
    for op in ("roi_align", "roi_pool", "psroi_pool"):
        x = x8 if op == "psroi_pool" else x4
        for size in (2, (3, 2)):
            if op == "psroi_pool" and size != 2:
                continue
            cases.append(run_case(op, [x, boxes, num, size], grad=[0], case_id=f"{size}"))
        cases.append(run_case(op, [x, boxes * 2, num, 2], {"spatial_scale": 0.5},
                              grad=[0], case_id="scale"))
        cases.append(run_case(op, [x.astype(np.float64), boxes.astype(np.float64), num, 2],
                              grad=[0], case_id="float64"))
        cases.append(run_case(op, [x, boxes, np.array([7, 0], np.int32), 2], grad=[0],
                              case_id="one-image"))
        # Boxes under a pixel on a side: Paddle's roi_align gradient is not the derivative
        # of its forward there (tests/vision/ops/test_roi.py checks ours by differences).
        cases.append(run_case(op, [x, tiny, np.array([1, 1], np.int32), 2],
                              grad=[] if op == "roi_align" else [0], case_id="tiny"))
        cases.append(run_case(op, [x, boxes, np.array([3], np.int32), 2], case_id="bad-num"))
        cases.append(run_case(op, [x[0], boxes, num, 2], case_id="bad-x"))
        cases.append(run_case(op, [x, boxes[:, :3], num, 2], case_id="bad-boxes"))
    for ratio in (1, 2, 3):
        cases.append(run_case("roi_align", [x4, boxes, num, (2, 3)],
                              {"sampling_ratio": ratio}, grad=[0], case_id=f"ratio{ratio}"))
    for aligned in (False,):
        cases.append(run_case("roi_align", [x4, boxes, num, 3], {"aligned": aligned},
                              grad=[0], case_id="unaligned"))
        cases.append(run_case("roi_align", [x4, boxes * 3, num, 3],
                              {"aligned": aligned, "spatial_scale": 1 / 3,
                               "sampling_ratio": 2}, grad=[0], case_id="unaligned-scale"))
    wide = grid_values(rng, (1, 18, 12, 12))
    cases.append(run_case("psroi_pool", [wide, boxes_in(rng, 5, 12, 2.0),
                                         np.array([5], np.int32), 3, 0.5], grad=[0],
                          case_id="3x3"))
    cases.append(run_case("psroi_pool", [wide, boxes_in(rng, 4, 12), np.array([4], np.int32),
                                         (2, 3)], grad=[0], case_id="2x3"))
    cases.append(run_case("psroi_pool", [x4, boxes, num, 2], case_id="one-channel"))
    big = grid_values(rng, (1, 2, 32, 32))
    cases.append(run_case("roi_align", [big, boxes_in(rng, 6, 32, min_side=8), np.array(
        [6], np.int32), 4], grad=[0], case_id="large-boxes"))
    cases.append(run_case("roi_pool", [big, boxes_in(rng, 6, 32, min_side=8), np.array(
        [6], np.int32), (3, 5)], grad=[0], case_id="large-boxes"))
    return cases


def nms_cases():
    rng = np.random.default_rng(1)
    cases = []
    boxes = boxes_in(rng, 40, 20)
    scores = rng.permutation(40).astype(np.float32) / 40
    category = rng.integers(0, 4, 40).astype(np.int64)
    for threshold in (0.1, 0.3, 0.7):
        cases.append(run_case("nms", [boxes, threshold], case_id=f"plain-{threshold}"))
        cases.append(run_case("nms", [boxes, threshold, scores], case_id=f"scores-{threshold}"))
        cases.append(run_case("nms", [boxes, threshold, scores, category, [0, 1, 2, 3]],
                              case_id=f"categories-{threshold}"))
    cases.append(run_case("nms", [boxes, 0.3, scores, category, [1, 3]], case_id="some"))
    cases.append(run_case("nms", [boxes, 0.3, scores, category, [0, 1, 2, 3], 5],
                          case_id="top_k"))
    cases.append(run_case("nms", [boxes, 0.3, scores, None, None, 5], case_id="top_k-alone"))
    cases.append(run_case("nms", [boxes.astype(np.float64), 0.3, scores.astype(np.float64)],
                          case_id="float64"))
    cases.append(run_case("nms", [boxes, 0.3, scores, category, [0, 1, 2, 3], 41],
                          case_id="top_k-too-large"))
    cases.append(run_case("nms", [boxes, 0.3, scores, category], case_id="no-categories"))
    touching = np.array([[0, 0, 2, 2], [1, 0, 3, 2], [0, 0, 2, 1], [5, 5, 6, 6]], np.float32)
    for threshold in (0.33, 0.34, 0.5):
        cases.append(run_case("nms", [touching, threshold], case_id=f"edges-{threshold}"))
    return cases


def box_cases():
    rng = np.random.default_rng(2)
    cases = []
    feat = np.zeros((1, 2, 3, 4), np.float32)
    image = np.zeros((1, 3, 24, 30), np.float32)
    for kwargs in ({}, {"aspect_ratios": [2.0, 3.0], "flip": True},
                   {"max_sizes": [9.0], "aspect_ratios": [2.0], "flip": True},
                   {"max_sizes": [9.0], "aspect_ratios": [2.0, 0.5], "flip": True,
                    "min_max_aspect_ratios_order": True},
                   {"clip": True, "steps": [8.0, 6.0], "offset": 0.25},
                   {"variance": [0.5, 0.5, 1.0, 1.0], "aspect_ratios": 1.5}):
        case_id = ",".join(sorted(kwargs)) or "defaults"
        cases.append(run_case("prior_box", [feat, image, [4.0, 10.0] if "max_sizes" not in
                                            kwargs else [4.0]], kwargs, case_id=case_id))
    cases.append(run_case("prior_box", [feat.astype(np.float64), image, 5.0],
                          case_id="float64"))
    cases.append(run_case("prior_box", [feat, image, [4.0], [9.0, 12.0]],
                          case_id="max-sizes-unpaired"))
    cases.append(run_case("prior_box", [feat, image, [4.0], None, [1.0], [0.1] * 4, False,
                                        False, [1.0]], case_id="bad-steps"))
    prior = boxes_in(rng, 5, 10)
    target = boxes_in(rng, 3, 10)
    prior_var = rng.uniform(0.1, 0.5, (5, 4)).astype(np.float32)
    for var in ([0.1, 0.1, 0.2, 0.2], prior_var):
        kind = "list" if isinstance(var, list) else "tensor"
        for normalized in (True, False):
            cases.append(run_case("box_coder", [prior, var, target], {
                "box_normalized": normalized}, case_id=f"encode-{kind}-{normalized}"))
        deltas = rng.uniform(-0.5, 0.5, (3, 5, 4)).astype(np.float32)
        for normalized in (True, False):
            cases.append(run_case("box_coder", [prior, var, deltas, "decode_center_size"],
                                  {"box_normalized": normalized},
                                  case_id=f"decode-{kind}-{normalized}"))
        deltas = rng.uniform(-0.5, 0.5, (5, 3, 4)).astype(np.float32)
        cases.append(run_case("box_coder", [prior, var, deltas, "decode_center_size"],
                              {"axis": 1}, case_id=f"decode-axis1-{kind}"))
    cases.append(run_case("box_coder", [prior.astype(np.float64), [0.1, 0.1, 0.2, 0.2],
                                        target.astype(np.float64)], case_id="float64"))
    cases.append(run_case("box_coder", [prior, [0.1, 0.2], target], case_id="bad-var"))
    cases.append(run_case("box_coder", [prior, None, target], case_id="no-var"))
    cases.append(run_case("box_coder", [prior, [0.1] * 4, target, "center"],
                          case_id="bad-code"))
    return cases


def deform_cases():
    rng = np.random.default_rng(3)
    cases = []

    def offsets(shape, spread=1.5):
        # away from whole pixels, where the bilinear weights have kinks
        return (rng.uniform(-spread, spread, shape) + 0.01).astype(np.float32)

    x = rng.standard_normal((2, 4, 6, 7)).astype(np.float32)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    off = offsets((2, 18, 4, 5))
    mask = rng.uniform(0, 1, (2, 9, 4, 5)).astype(np.float32)
    # With a mask, Paddle 3.3's backward crashes (a segmentation fault) unless every input
    # wants a gradient: the cases with a mask differentiate all of them.
    cases.append(run_case("deform_conv2d", [x, off, w, b], grad=[0, 1, 2, 3], case_id="v1"))
    cases.append(run_case("deform_conv2d", [x, off, w, b, 1, 0, 1, 1, 1, mask],
                          grad=[0, 1, 2, 3, 9], case_id="v2"))
    cases.append(run_case("deform_conv2d", [x, off, w, None, 1, 0, 1, 1, 1, mask],
                          case_id="no-bias"))
    cases.append(run_case("deform_conv2d", [
        x, offsets((2, 36, 6, 7), 3.0), w[:, :2], b, 1, 1, 1, 2, 2,
        rng.uniform(0, 1, (2, 18, 6, 7)).astype(np.float32)], grad=[0, 1, 2, 3, 9],
        case_id="groups"))
    cases.append(run_case("deform_conv2d", [x, offsets((2, 18, 3, 2)), w, b, [2, 3], [1, 0],
                                            [1, 2]], grad=[0, 1, 2, 3],
                          case_id="stride-dilation"))
    cases.append(run_case("deform_conv2d", [x.astype(np.float64),
                                            offsets((2, 18, 4, 5)).astype(np.float64),
                                            w.astype(np.float64)], grad=[0, 1, 2],
                          case_id="float64"))
    cases.append(run_case("deform_conv2d", [x, offsets((2, 16, 4, 5)), w],
                          case_id="bad-offset"))
    return cases


def yolo_cases():
    rng = np.random.default_rng(4)
    cases = []
    anchors = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]
    x = rng.standard_normal((2, 3 * 7, 4, 5)).astype(np.float32)
    sizes = np.array([[128, 160], [100, 90]], np.int32)
    cases.append(run_case("yolo_box", [x, sizes, anchors[:6], 2, 0.5, 32], case_id="basic"))
    cases.append(run_case("yolo_box", [x, sizes, anchors[:6], 2, 0.3, 32, False],
                          case_id="no-clip"))
    cases.append(run_case("yolo_box", [x, sizes, anchors[:6], 2, 0.4, 16, True, None, 1.2],
                          case_id="scale_x_y"))
    aware = rng.standard_normal((2, 3 * 8, 4, 5)).astype(np.float32)
    cases.append(run_case("yolo_box", [aware, sizes, anchors[:6], 2, 0.3, 32, True, None,
                                       1.0, True, 0.4], case_id="iou_aware"))
    cases.append(run_case("yolo_box", [x.astype(np.float64), sizes, anchors[:6], 2, 0.5, 32],
                          case_id="float64"))
    cases.append(run_case("yolo_box", [x, sizes, anchors[:6], 3, 0.5, 32],
                          case_id="bad-channels"))
    # yolo_loss: a head of 3 anchors over 2 classes, 6 ground truths per image (the last
    # ones padding), some matched to anchors of other heads.
    head = (rng.standard_normal((2, 3 * 7, 4, 4)) * 0.5).astype(np.float32)
    # Centres in distinct cells: where two ground truths share a cell and an anchor, Paddle
    # 3.3's gradient keeps one of them (not the derivative of its loss); a forward-only
    # case covers that, and tests/vision/ops/test_yolo.py checks our gradient there.
    cells = np.stack([rng.permutation(16)[:6] for _ in range(2)])
    centres = (np.stack([cells % 4, cells // 4], axis=2) + rng.uniform(0.05, 0.95, (2, 6, 2)))
    gt = np.concatenate([centres / 4, rng.uniform(0.05, 0.6, (2, 6, 2))], axis=2).astype(
        np.float32)
    gt[1, 4:] = 0
    labels = rng.integers(0, 2, (2, 6)).astype(np.int32)
    score = rng.uniform(0.3, 1.0, (2, 6)).astype(np.float32)
    for mask, smooth, thresh, case_id in (([0, 1, 2], True, 0.7, "mask012"),
                                          ([3, 4, 5], False, 0.5, "mask345"),
                                          ([1, 3, 5], True, 0.3, "mask135")):
        cases.append(run_case("yolo_loss", [head, gt, labels, anchors, mask, 2, thresh, 32],
                              {"use_label_smooth": smooth}, grad=[0], case_id=case_id))
    cases.append(run_case("yolo_loss", [head, gt, labels, anchors, [0, 1, 2], 2, 0.7, 32,
                                        score], grad=[0], case_id="gt_score"))
    cases.append(run_case("yolo_loss", [head, gt, labels, anchors, [0, 1, 2], 2, 0.7, 32],
                          {"scale_x_y": 1.1}, grad=[0], case_id="scale_x_y"))
    shared = gt.copy()
    shared[0, 0, 2:] = [0.1, 0.12]  # anchor 0's shape (10 x 13 of 128 pixels)
    shared[0, 1] = shared[0, 0] + [0.01, 0.01, 0.0, 0.01]  # the same cell and anchor
    cases.append(run_case("yolo_loss", [head, shared, labels, anchors, [0, 1, 2], 2, 0.7,
                                        32], case_id="shared-cell"))
    cases.append(run_case("yolo_loss", [head.astype(np.float64), gt.astype(np.float64),
                                        labels, anchors, [3, 4, 5], 2, 0.6, 16], grad=[0],
                          case_id="float64"))
    return cases


def matrix_nms_cases():
    rng = np.random.default_rng(5)
    cases = []
    corners = rng.uniform(0, 10, (2, 12, 2))
    boxes = np.concatenate([corners, corners + rng.uniform(1, 6, (2, 12, 2))], 2).astype(
        np.float32)
    scores = rng.uniform(0, 1, (2, 4, 12)).astype(np.float32)
    for args, kwargs, case_id in (
            ([0.3, 0.2, -1, -1], {}, "linear"),
            ([0.3, 0.2, -1, -1], {"use_gaussian": True}, "gaussian"),
            ([0.3, 0.1, -1, -1], {"use_gaussian": True, "gaussian_sigma": 0.5}, "sigma"),
            ([0.2, 0.2, 4, 6], {}, "top-k"),
            ([0.3, 0.2, -1, -1], {"background_label": -1}, "no-background"),
            ([0.3, 0.2, -1, -1], {"background_label": 2, "normalized": False},
             "unnormalized"),
            ([0.3, 0.2, -1, -1], {"return_index": True, "return_rois_num": False}, "index"),
            ([0.999, 0.2, -1, -1], {"return_index": True}, "none-left")):
        cases.append(run_case("matrix_nms", [boxes, scores, *args], kwargs, case_id=case_id))
    cases.append(run_case("matrix_nms", [boxes.astype(np.float64), scores.astype(np.float64),
                                         0.3, 0.2, -1, -1], case_id="float64"))
    return cases


def proposal_cases():
    rng = np.random.default_rng(6)
    cases = []
    n, a, h, w = 2, 3, 4, 5
    scores = rng.uniform(0, 1, (n, a, h, w)).astype(np.float32)
    deltas = rng.normal(0, 0.3, (n, 4 * a, h, w)).astype(np.float32)
    sizes = np.array([[64, 80], [50, 70]], np.float32)
    centres = np.stack(np.meshgrid(np.arange(w) * 16 + 8, np.arange(h) * 16 + 8), -1)
    sides = np.array([[16, 16], [32, 16], [16, 40]])
    anchors = np.concatenate([centres[:, :, None] - sides / 2, centres[:, :, None] + sides / 2],
                             -1).astype(np.float32)
    variances = np.full((h, w, a, 4), 1.0, np.float32)
    variances[..., :2] = 0.5
    for kwargs, case_id in (({"return_rois_num": True}, "defaults"),
                            ({"pre_nms_top_n": 20, "post_nms_top_n": 8, "nms_thresh": 0.4,
                              "return_rois_num": True}, "top-n"),
                            ({"min_size": 12.0, "pixel_offset": True,
                              "return_rois_num": True}, "pixel_offset"),
                            ({"nms_thresh": 0.8, "eta": 0.7, "return_rois_num": True}, "eta"),
                            ({}, "no-rois-num"),
                            ({"nms_thresh": 0.0, "return_rois_num": True}, "no-nms"),
                            ({"min_size": 1000.0, "return_rois_num": True}, "none-left")):
        cases.append(run_case("generate_proposals", [scores, deltas, sizes, anchors, variances],
                              kwargs, case_id=case_id))
    corners = rng.uniform(0, 300, (9, 2))
    rois = np.concatenate([corners, corners + rng.uniform(4, 400, (9, 2))], 1).astype(
        np.float32)
    rois[3] = [10, 10, 10, 10]  # no area
    for args, kwargs, case_id in (([2, 5, 4, 224], {}, "plain"),
                                  ([2, 5, 4, 224], {"rois_num": np.array([4, 5], np.int32)},
                                   "rois_num"),
                                  ([3, 4, 4, 100], {"pixel_offset": True,
                                                    "rois_num": np.array([9], np.int32)},
                                   "pixel_offset"),
                                  ([3, 3, 4, 224], {"rois_num": np.array([9], np.int32)},
                                   "one-level")):
        cases.append(run_case("distribute_fpn_proposals", [rois, *args], kwargs,
                              case_id=case_id))
    return cases


GROUPS = {"roi": roi_cases, "nms": nms_cases, "boxes": box_cases, "deform": deform_cases,
          "yolo": yolo_cases, "matrix_nms": matrix_nms_cases, "proposals": proposal_cases}


def main():
    for name, make in GROUPS.items():
        path = DATA / f"vision_ops_{name}.json"
        ARRAYS.clear()
        cases = make()
        path.write_text(json.dumps({"paddle": paddle.__version__, "arrays": ARRAYS,
                                    "cases": cases}) + "\n")
        print(f"{path.name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
