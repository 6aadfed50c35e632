"""Bad input gives a clear Python exception naming the op, what it got and expected, and
pointing at the user's line (this file), not at framework internals."""

import re

import numpy as np
import pytest

import dygraph as paddle

HERE = re.escape(__file__.rsplit("/", 1)[-1]) + r":\d+"


def test_matmul_shape_mismatch_names_op_shapes_and_user_line():
    x, y = paddle.ones([2, 3]), paddle.ones([4, 5])
    with pytest.raises(ValueError) as info:
        paddle.matmul(x, y)
    text = str(info.value)
    assert text.startswith("matmul:")
    assert "[2, 3]" in text and "[4, 5]" in text and "3 vs 4" in text
    assert re.search(HERE, text)


def test_broadcast_failure_in_an_elementwise_op():
    with pytest.raises(ValueError) as info:
        paddle.ones([2, 3]) + paddle.ones([4])
    text = str(info.value)
    assert text.startswith("add:")
    assert "shape=[2, 3], dtype=float32" in text and "shape=[4], dtype=float32" in text
    assert re.search(HERE, text)


def test_reshape_to_a_wrong_size():
    with pytest.raises(ValueError, match=r"reshape: cannot reshape a tensor of shape \[2, 3\]"):
        paddle.reshape(paddle.ones([2, 3]), [4, 2])


def test_bad_axis_and_bad_dtype():
    with pytest.raises(ValueError, match=r"sum: axis 3 is out of range"):
        paddle.sum(paddle.ones([2, 2]), axis=3)
    with pytest.raises(TypeError, match="unknown dtype 'float33'"):
        paddle.ones([2], dtype="float33")
    with pytest.raises(TypeError, match="to_tensor: cannot make a tensor"):
        paddle.to_tensor(["a", "b"])


def test_index_out_of_range():
    with pytest.raises(IndexError) as info:
        paddle.ones([2, 2])[3]
    assert "getitem" in str(info.value) and re.search(HERE, str(info.value))


def test_errors_from_inside_a_model_point_at_the_model_line():
    def model(t):
        return paddle.matmul(t, paddle.ones([5, 1]))  # the user's line

    with pytest.raises(ValueError) as info:
        model(paddle.ones([1, 4]))
    assert re.search(HERE, str(info.value))


def test_backward_of_a_non_float_tensor_computes_nothing():
    # as Paddle: backward() of a tensor that stops gradients is a silent no-op, and no
    # (wrong) gradient appears anywhere
    x = paddle.to_tensor([1, 2])
    assert x.sum().backward() is None and x.grad is None


def test_a_dtype_without_a_kernel_is_a_runtime_error_and_a_type_error():
    # Paddle raises RuntimeError where it has no kernel for a dtype; the array library's
    # TypeError is kept as the other base, and the message still names the op and inputs.
    complex_x = paddle.to_tensor(np.array([1 + 1j], np.complex64))
    bools = paddle.to_tensor([True, False])
    for call in (lambda: paddle.ceil(complex_x), lambda: paddle.lgamma(complex_x),
                 lambda: paddle.sign(bools), lambda: paddle.subtract(bools, bools),
                 lambda: paddle.copysign(complex_x, complex_x)):
        with pytest.raises(RuntimeError) as info:
            call()
        assert isinstance(info.value, TypeError) and re.search(HERE, str(info.value))
    assert str(info.value).startswith("copysign:")
