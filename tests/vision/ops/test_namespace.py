"""dygraph.vision.ops offers Paddle 3.3's paddle.vision.ops names, reached lazily from
dygraph.vision."""

import inspect

import dygraph.vision as vision

# paddle.vision.ops.__all__ of Paddle 3.3.
PADDLE_ALL = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d",
              "DeformConv2D", "distribute_fpn_proposals", "generate_proposals", "read_file",
              "decode_jpeg", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "roi_align",
              "RoIAlign", "nms", "matrix_nms"]


def test_every_name_of_paddle_is_there_with_a_docstring_example():
    ops = vision.ops
    assert sorted(ops.__all__) == sorted(PADDLE_ALL)
    for name in PADDLE_ALL:
        doc = inspect.getdoc(getattr(ops, name)) or ""
        assert ">>>" in doc, name


def test_signatures_take_paddle_s_arguments():
    ops = vision.ops
    assert list(inspect.signature(ops.roi_align).parameters) == [
        "x", "boxes", "boxes_num", "output_size", "spatial_scale", "sampling_ratio",
        "aligned", "name"]
    assert list(inspect.signature(ops.nms).parameters) == [
        "boxes", "iou_threshold", "scores", "category_idxs", "categories", "top_k"]
    assert list(inspect.signature(ops.deform_conv2d).parameters) == [
        "x", "offset", "weight", "bias", "stride", "padding", "dilation",
        "deformable_groups", "groups", "mask", "name"]
    assert list(inspect.signature(ops.yolo_loss).parameters)[-3:] == [
        "use_label_smooth", "name", "scale_x_y"]
