"""The value-reading ops of dygraph.vision.ops (nms, matrix_nms, generate_proposals,
distribute_fpn_proposals, box_coder, prior_box) in static programs: each run computes them
from its own feed, output sizes free, and the results equal eager calls; plus argument
errors that the recorded Paddle cases do not cover."""

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.vision.ops import (
    box_coder,
    distribute_fpn_proposals,
    generate_proposals,
    matrix_nms,
    nms,
    prior_box,
)

RNG = np.random.default_rng(3)


def _boxes(*shape):
    corners = RNG.uniform(0, 20, (*shape, 2))
    return np.concatenate([corners, corners + RNG.uniform(2, 8, (*shape, 2))], -1).astype(
        np.float32)


def _program(build, specs):
    """A program of build(*data vars); returns (program, outputs as a list)."""
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", shape, dtype) for i, (shape, dtype) in enumerate(specs)]
            outs = build(*xs)
    finally:
        dygraph.disable_static()
    outs = [o for o in (outs if isinstance(outs, (list, tuple)) else [outs]) if o is not None]
    return main, outs


def _flat(result):
    if isinstance(result, (list, tuple)):
        return [o for part in result for o in _flat(part)]
    return [] if result is None else [result]


CALLS = {
    "nms": (lambda b, s, c: nms(b, 0.3, s, c, [0, 1, 2], top_k=5),
            lambda n: (_boxes(n), RNG.uniform(0, 1, n).astype(np.float32),
                       RNG.integers(0, 3, n).astype(np.int64)),
            lambda: [([None, 4], "float32"), ([None], "float32"), ([None], "int64")]),
    "matrix_nms": (lambda b, s: matrix_nms(b, s, 0.3, 0.2, -1, 8, return_index=True),
                   lambda n: (_boxes(2, n), RNG.uniform(0, 1, (2, 3, n)).astype(np.float32)),
                   lambda: [([2, None, 4], "float32"), ([2, 3, None], "float32")]),
    "box_coder": (lambda p, t: box_coder(p, [0.1, 0.1, 0.2, 0.2], t),
                  lambda n: (_boxes(n), _boxes(3)),
                  lambda: [([None, 4], "float32"), ([3, 4], "float32")]),
    "distribute_fpn_proposals": (
        lambda r, k: distribute_fpn_proposals(r * 20, 2, 4, 3, 112, rois_num=k),
        lambda n: (_boxes(n), np.array([n - 2, 2], np.int32)),
        lambda: [([None, 4], "float32"), ([2], "int32")]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_program_computes_each_run_from_its_feed(name):
    call, make, specs = CALLS[name]
    main, outs = _program(call, specs())
    exe = static.Executor()
    for n in (12, 7):
        arrays = make(n)
        got = exe.run(main, feed={f"x{i}": a for i, a in enumerate(arrays)}, fetch_list=outs)
        want = _flat(call(*[dygraph.to_tensor(a) for a in arrays]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())


def test_generate_proposals_in_a_program():
    n, a, h, w = 1, 2, 3, 3
    anchors = np.tile(np.array([0, 0, 8, 8], np.float32), (h, w, a, 1)) + np.repeat(
        np.arange(h * w * a, dtype=np.float32), 4).reshape(h, w, a, 4)
    variances = np.ones((h, w, a, 4), np.float32)

    def call(s, d, size):
        return generate_proposals(s, d, size, dygraph.to_tensor(anchors),
                                  dygraph.to_tensor(variances), nms_thresh=0.6,
                                  return_rois_num=True)

    main, outs = _program(call, [([n, a, h, w], "float32"), ([n, 4 * a, h, w], "float32"),
                                 ([n, 2], "float32")])
    for _ in range(2):
        arrays = (RNG.uniform(0, 1, (n, a, h, w)).astype(np.float32),
                  RNG.normal(0, 0.2, (n, 4 * a, h, w)).astype(np.float32),
                  np.array([[30.0, 30.0]], np.float32))
        got = static.Executor().run(main, feed={f"x{i}": v for i, v in enumerate(arrays)},
                                    fetch_list=outs)
        want = call(*[dygraph.to_tensor(v) for v in arrays])
        for g, wt in zip(got, want):
            np.testing.assert_array_equal(g, wt.numpy())


def test_prior_box_follows_the_feature_size():
    def priors(feature, image):
        return prior_box(feature, image, [4.0], [8.0], [2.0], flip=True, clip=True)

    main, outs = _program(priors, [([1, 3, None, None], "float32"),
                                   ([1, 3, 32, 32], "float32")])
    for size in (4, 2):
        feature = np.zeros((1, 3, size, size), np.float32)
        image = np.zeros((1, 3, 32, 32), np.float32)
        got = static.Executor().run(main, feed={"x0": feature, "x1": image}, fetch_list=outs)
        want = priors(dygraph.to_tensor(feature), dygraph.to_tensor(image))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())
        assert got[0].shape == (size, size, 4, 4)


@pytest.mark.parametrize("call, error, text", [
    (lambda: nms(dygraph.ones([3, 3]), 0.5), ValueError, "[num_boxes, 4]"),
    (lambda: nms(dygraph.ones([3, 4], "int32"), 0.5), TypeError, "float32"),
    (lambda: nms(dygraph.ones([3, 4]), 0.5, dygraph.ones([2])), ValueError, "2 values"),
    (lambda: box_coder(dygraph.ones([2, 4]), dygraph.ones([3, 4]), dygraph.ones([1, 4])),
     ValueError, "prior_box_var"),
    (lambda: box_coder(dygraph.ones([2, 4]), [1.0] * 4, dygraph.ones([1, 2, 4]),
                       "decode_center_size", axis=2), ValueError, "axis"),
    (lambda: box_coder(dygraph.ones([2, 4]), [1.0] * 4, dygraph.ones([1, 3, 4]),
                       "decode_center_size"), ValueError, "2 priors"),
    (lambda: prior_box(dygraph.ones([1, 1, 2, 2]), dygraph.ones([1, 1, 8, 8]), [4.0],
                       variance=[0.1]), ValueError, "variance"),
    (lambda: prior_box(dygraph.ones([1, 1, 2, 2]), dygraph.ones([1, 1, 8, 8]), [4.0],
                       [2.0]), ValueError, "at least its min size"),
    (lambda: matrix_nms(dygraph.ones([1, 3, 4]), dygraph.ones([1, 2, 4]), 0.1, 0.1, -1, -1),
     ValueError, "scores must have shape"),
    (lambda: distribute_fpn_proposals(dygraph.ones([3, 4]), 2, 4, 3, 224,
                                      rois_num=dygraph.to_tensor([2], "int32")), ValueError,
     "add up to the 3 rois"),
])
def test_errors_name_the_op(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value)
