"""The differentiable detection ops behind dygraph.vision.ops: RoIAlign and position-sensitive
RoI pooling as separable linear maps (roi_maps.py) and RoI max pooling (roi_pool.py).

They live here, beside the rest of the op library, because saved programs name op classes
by module (dygraph/static/program_format.py lists these modules); the public functions,
layers and the ops without gradients are in dygraph/vision/ops/. None of these is a Tensor
method or a top-level name, so this is not an op family of dygraph.ops.FAMILIES.

Example:
    >>> import dygraph
    >>> from dygraph.vision.ops import roi_align
    >>> x = dygraph.ones([1, 2, 4, 4])
    >>> boxes = dygraph.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> roi_align(x, boxes, dygraph.to_tensor([1], dtype='int32'), 2).shape
    [1, 2, 2, 2]
"""
