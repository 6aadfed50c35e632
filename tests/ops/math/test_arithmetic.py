"""Behaviour of the binary arithmetic ops (dygraph/ops/math/arithmetic.py) beyond the spec
table: dtype rules and inputs Paddle treats in its own way."""

import numpy as np
import pytest

import dygraph as D


def test_remainder_of_complex_numbers_rounds_the_quotient_to_the_nearest_gaussian_integer():
    x = np.array([5 + 3j, -5 + 3j, 5 - 3j, 2.5 + 0j], np.complex64)
    y = np.array([2 + 1j, 2 + 1j, 2 + 0j, -2 + 0j], np.complex64)
    out = D.remainder(D.to_tensor(x), D.to_tensor(y))
    assert out.dtype == D.complex64
    # 2.6+0.2j rounds to 3; -1.4+2.2j to -1+2j; 2.5-1.5j to 3-2j (halves away from zero)
    np.testing.assert_allclose(out.numpy(), [-1 + 0j, -1 + 0j, -1 + 1j, 0.5 + 0j], atol=1e-6)


def test_integer_pow_with_negative_exponents_truncates_as_paddle():
    base = D.to_tensor(np.array([2, 3, -2, 1, -1, -1, 4], np.int32))
    exponent = D.to_tensor(np.array([-1, -2, -1, -5, -3, -2, 2], np.int32))
    out = D.pow(base, exponent)
    assert out.dtype == D.int32 and out.tolist() == [0, 0, 0, 1, -1, 1, 16]
    with pytest.raises(ZeroDivisionError, match="pow: 0 cannot"):
        D.pow(D.to_tensor([0, 2]), D.to_tensor([-1, 1]))


def test_pow_in_place_takes_a_number_exponent_only():
    x = D.to_tensor([2.0, 3.0])
    assert x.pow_(2) is x and x.tolist() == [4.0, 9.0]
    leaf = D.to_tensor([2.0], stop_gradient=False)
    with pytest.raises(TypeError, match="pow_: y must be a number"):
        leaf.pow_(D.to_tensor([2.0]))  # refused for the exponent, before the leaf check
    assert D.pow_(x, 0.5).tolist() == [2.0, 3.0]


def test_atan2_of_integers_is_float64_as_paddle():
    out = D.atan2(D.to_tensor([1, -1], "int32"), D.to_tensor([1, 1], "int64"))
    assert out.dtype == D.float64
    np.testing.assert_allclose(out.numpy(), [np.pi / 4, -np.pi / 4])
    assert D.atan2(D.to_tensor([1.0]), D.to_tensor([1.0])).dtype == D.float32


def test_floor_divide_in_place_keeps_a_leaf_that_requires_grad_as_paddle():
    # Paddle records no gradient for floor_divide_, so it does not refuse such a leaf: x
    # keeps its place in the graph with the new values (its gradient is the loss's own)
    x = D.to_tensor([7.0, 9.0], stop_gradient=False)
    assert x.floor_divide_(D.to_tensor([2.0, 4.0])) is x
    assert x.tolist() == [3.0, 2.0] and not x.stop_gradient
    (x * D.to_tensor([1.0, 2.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0]
    y = D.to_tensor([5.0], stop_gradient=False)
    assert D.floor_divide_(y, D.to_tensor([2.0])) is y and y.tolist() == [2.0]
    with pytest.raises(RuntimeError, match="leaf"):  # other in-place ops still refuse it
        y.exp_()
