"""roi_align, roi_pool, psroi_pool and their layers beyond the recorded Paddle cases: the
gradient where Paddle's is not the derivative of its forward, the layers, argument
handling and errors, boxes that read nothing, and static programs fed new boxes."""

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.autograd import gradcheck, gradgradcheck
from dygraph.vision.ops import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from tests.op_specs.spec_vision_ops import psroi_pool_ref, roi_align_ref, roi_pool_ref

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 8, 9, 11))
BOXES = np.array([[0.5, 1.0, 6.0, 7.5], [2.0, 0.0, 9.5, 4.0], [-3.0, -2.0, 4.0, 12.0]])
NUM = np.array([2, 1], np.int32)


def _args(x=X, boxes=BOXES, num=NUM, grad=False):
    return (dygraph.to_tensor(x, stop_gradient=not grad), dygraph.to_tensor(boxes),
            dygraph.to_tensor(num))


def test_roi_align_gradient_of_boxes_under_a_pixel_is_the_derivative():
    """Paddle 3.3's roi_align gradient treats a box under a pixel on a side as a pixel
    wide (its forward does not): ours is the derivative of the forward, which is Paddle's
    (tests/data/vision_ops_roi.json, case 'tiny')."""
    tiny = np.array([[4.0, 4.0, 4.2, 4.1], [1.5, 6.0, 2.0, 8.5]])
    x, boxes, num = _args(X[:, :2], tiny, np.array([1, 1], np.int32), grad=True)
    assert gradcheck(lambda t: roi_align(t, boxes, num, 2), [x])


@pytest.mark.parametrize("fn", [roi_align, roi_pool, psroi_pool])
def test_double_backward(fn):
    x, boxes, num = _args(grad=True)
    assert gradgradcheck(lambda t: fn(t, boxes, num, 2) ** 2, [x])


@pytest.mark.parametrize("fn, ref", [(roi_align, roi_align_ref), (roi_pool, roi_pool_ref),
                                     (psroi_pool, psroi_pool_ref)])
def test_values_against_the_loop_references(fn, ref):
    x, boxes, num = _args()
    np.testing.assert_allclose(fn(x, boxes, num, (2, 2)).numpy(),
                               ref(X, BOXES, NUM, (2, 2)), rtol=1e-12, atol=1e-12)


def test_layers_call_their_functions():
    x, boxes, num = _args()
    np.testing.assert_array_equal(RoIAlign((2, 3), 0.5)(x, boxes, num, aligned=False).numpy(),
                                  roi_align(x, boxes, num, (2, 3), 0.5,
                                            aligned=False).numpy())
    np.testing.assert_array_equal(RoIPool(3)(x, boxes, num).numpy(),
                                  roi_pool(x, boxes, num, 3).numpy())
    np.testing.assert_array_equal(PSRoIPool(2, 0.5)(x, boxes, num).numpy(),
                                  psroi_pool(x, boxes, num, 2, 0.5).numpy())
    assert repr(RoIPool(7)) == "RoIPool(output_size=7, spatial_scale=1.0)"
    assert repr(RoIAlign(7)) == "RoIAlign()"
    assert RoIAlign(7).full_name().startswith("ro_i_align")


def test_boxes_of_another_float_dtype_are_cast_to_x():
    x, _, num = _args(X.astype(np.float32))
    out = roi_align(x, dygraph.to_tensor(BOXES), num, 2)  # float64 boxes
    assert out.dtype == dygraph.float32
    want = roi_align(x, dygraph.to_tensor(BOXES.astype(np.float32)), num, 2)
    np.testing.assert_array_equal(out.numpy(), want.numpy())


@pytest.mark.parametrize("fn", [roi_align, roi_pool, psroi_pool])
def test_no_boxes_and_boxes_off_the_map(fn):
    x, _, _ = _args(grad=True)
    empty = fn(x, dygraph.zeros([0, 4], "float64"), dygraph.to_tensor([0, 0], "int32"), 2)
    assert empty.shape == [0, 8 // (4 if fn is psroi_pool else 1), 2, 2]
    far = dygraph.to_tensor([[40.0, 40.0, 50.0, 50.0]], "float64")
    out = fn(x, far, dygraph.to_tensor([1, 0], "int32"), 2)
    assert not out.numpy().any()
    out.sum().backward()
    assert not x.grad.numpy().any()


@pytest.mark.parametrize("call, error, text", [
    (lambda x, b, n: roi_align(x, b, None, 2), TypeError, "boxes_num"),
    (lambda x, b, n: roi_align(x, b, dygraph.to_tensor([1, 1], "int32"), 2), ValueError,
     "add up to the 3 boxes"),
    (lambda x, b, n: roi_pool(x, b, dygraph.to_tensor([3], "int32"), 2), ValueError,
     "one count per image"),
    (lambda x, b, n: roi_align(x[0], b, n, 2), ValueError, "4-D"),
    (lambda x, b, n: roi_align(x, b[:, :3], n, 2), ValueError, "[num_boxes, 4]"),
    (lambda x, b, n: roi_align(x, b, n, (2, 0)), ValueError, "output_size"),
    (lambda x, b, n: roi_align(x, b, n, "big"), TypeError, "output_size"),
    (lambda x, b, n: psroi_pool(x, b, n, 3), ValueError, "C' x 3 x 3"),
    (lambda x, b, n: roi_pool(dygraph.cast(x, "int32"), b, n, 2), TypeError, "float32"),
    (lambda x, b, n: roi_pool(x, b, dygraph.cast(n, "float32"), 2), TypeError, "int tensor"),
])
def test_errors_name_the_op_and_what_was_given(call, error, text):
    with pytest.raises(error, match="roi_align|roi_pool|psroi_pool") as info:
        call(*_args())
    assert text in str(info.value)


def test_a_missing_boxes_num_is_an_assertion_as_in_paddle():
    with pytest.raises(AssertionError):
        roi_align(*_args()[:2], None, 2)


@pytest.mark.parametrize("fn", [roi_align, roi_pool, psroi_pool])
def test_a_static_program_reads_the_boxes_of_each_run(fn):
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2, 8, 9, 11], "float64")
            boxes = static.data("boxes", [None, 4], "float64")
            num = static.data("num", [2], "int32")
            x.stop_gradient = False
            out = fn(x, boxes, num, 2)
            (gx,) = static.gradients([(out * out).sum()], [x])
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    for b, n in ((BOXES, NUM), (BOXES[::-1][:2] * 0.7, np.array([0, 2], np.int32))):
        got, got_gx = exe.run(main, feed={"x": X, "boxes": b, "num": n}, fetch_list=[out, gx])
        xt, bt, nt = _args(X, b, n, grad=True)
        want = fn(xt, bt, nt, 2)
        (want_gx,) = dygraph.grad((want * want).sum(), [xt])
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
        np.testing.assert_allclose(got_gx, want_gx.numpy(), rtol=1e-12)
