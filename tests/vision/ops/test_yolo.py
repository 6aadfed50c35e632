"""yolo_box and yolo_loss beyond the recorded Paddle cases: the loss's gradient where two
ground truths share a cell and an anchor (Paddle's is not the derivative of its loss
there), static programs fed new targets, and errors."""

import json
import pathlib
import warnings

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.autograd import gradcheck
from dygraph.vision.ops import yolo_box, yolo_loss

RECORDED = json.loads((pathlib.Path(__file__).resolve().parents[2] / "data" /
                       "vision_ops_yolo.json").read_text())
ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


def _case(case_id):
    case = next(c for c in RECORDED["cases"] if c["op"] == "yolo_loss" and c["id"] == case_id)
    args = [RECORDED["arrays"][a["array"]] if "array" in a else a for a in case["args"]]
    return [np.array(a["data"], a["dtype"]).reshape(a["shape"]) if "dtype" in a else
            a["value"] for a in args]


def test_yolo_loss_gradient_where_ground_truths_share_a_cell():
    """Case 'shared-cell' (recorded forward only): both boxes' losses reach the cell's
    entries, as finite differences of the loss say; Paddle 3.3's gradient keeps one."""
    head, gt, labels, anchors, mask, classes, thresh, ratio = _case("shared-cell")
    x = dygraph.to_tensor(head.astype(np.float64), stop_gradient=False)
    gt, labels = dygraph.to_tensor(gt.astype(np.float64)), dygraph.to_tensor(labels)
    assert gradcheck(lambda t: yolo_loss(t, gt, labels, anchors, mask, classes, thresh,
                                         ratio), [x])


def test_yolo_loss_in_a_static_program_reads_each_run_targets():
    head, gt, labels, anchors, mask, classes, thresh, ratio = _case("mask012")
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            xs = static.data("x", list(head.shape), "float32")
            gs = static.data("gt", [2, None, 4], "float32")
            ls = static.data("labels", [2, None], "int32")
            xs.stop_gradient = False
            loss = yolo_loss(xs, gs, ls, anchors, mask, classes, thresh, ratio)
            (gx,) = static.gradients([loss.sum()], [xs])
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    for g, lab in ((gt, labels), (gt[:, :3] * 0.9, labels[:, :3])):
        got, got_gx = exe.run(main, feed={"x": head, "gt": g, "labels": lab},
                              fetch_list=[loss, gx])
        x = dygraph.to_tensor(head, stop_gradient=False)
        want = yolo_loss(x, dygraph.to_tensor(g), dygraph.to_tensor(lab), anchors, mask,
                         classes, thresh, ratio)
        (want_gx,) = dygraph.grad(want.sum(), [x])
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(got_gx, want_gx.numpy(), rtol=1e-6, atol=1e-7)


def test_yolo_box_follows_each_run_image_size():
    x = np.random.default_rng(0).standard_normal((1, 14, 2, 3)).astype(np.float32)

    def decode(t, size):
        return yolo_box(t, size, ANCHORS[:4], 2, 0.1, 32)

    converted = dygraph.jit.to_static(decode)
    for size in ([[64, 96]], [[100, 50]]):
        size = dygraph.to_tensor(size, dtype="int32")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a fallback to eager running would warn
            got = converted(dygraph.to_tensor(x), size)
        want = yolo_box(dygraph.to_tensor(x), size, ANCHORS[:4], 2, 0.1, 32)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("call, text", [
    (lambda x, s: yolo_box(x, s, ANCHORS[:3], 2, 0.1, 32), "(width, height) pairs"),
    (lambda x, s: yolo_box(x, s, ANCHORS[:6], 2, 0.1, 32), "want 21"),
    (lambda x, s: yolo_box(x, s[:, :1], ANCHORS[:4], 2, 0.1, 32), "img_size"),
    (lambda x, s: yolo_loss(x, dygraph.zeros([1, 2, 4]), dygraph.zeros([1, 2], "int32"),
                            ANCHORS, [0, 9], 2, 0.5, 32), "anchor_mask"),
    (lambda x, s: yolo_loss(x, dygraph.zeros([1, 2, 3]), dygraph.zeros([1, 2], "int32"),
                            ANCHORS, [0, 1], 2, 0.5, 32), "gt_box"),
    (lambda x, s: yolo_loss(x, dygraph.zeros([1, 2, 4]), dygraph.zeros([1, 3], "int32"),
                            ANCHORS, [0, 1], 2, 0.5, 32), "gt_label"),
])
def test_errors(call, text):
    x = dygraph.zeros([1, 14, 2, 2])
    with pytest.raises(ValueError, match="yolo_box|yolo_loss") as info:
        call(x, dygraph.to_tensor([[64, 64]], dtype="int32"))
    assert text in str(info.value)
