"""Behaviour of the comparison, logical and bitwise ops (dygraph/ops/compare.py) beyond the
spec table: the aliases and in-place comparisons, the logical right shift, and isclose,
allclose and equal_all against NumPy."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None):
    return D.to_tensor(np.asarray(values), dtype=dtype)


def test_logical_right_shift_fills_the_sign_bit_with_zero():
    x = _t([-8, 8], "int8")
    out = D.bitwise_right_shift(x, _t([1, 1], "int8"), is_arithmetic=False)
    assert out.numpy().tolist() == [124, 4] and out.dtype == D.int8


def test_comparison_aliases_and_in_place_comparisons():
    x, y = _t([1.0, 2.0, 3.0]), _t([2.0, 2.0, 2.0])
    for alias, op in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater_than"),
                      ("ge", "greater_equal"), ("lt", "less_than"), ("le", "less_equal"),
                      ("greater", "greater_than"), ("less", "less_than")):
        np.testing.assert_array_equal(getattr(D, alias)(x, y).numpy(),
                                      getattr(D, op)(x, y).numpy())
    z = _t([1.0, 2.0, 3.0])
    version = z.inplace_version
    assert z.less_equal_(y) is z
    assert z.dtype == D.bool and z.tolist() == [True, True, False]
    assert z.inplace_version == version + 1
    w = _t([True, False])
    D.logical_xor_(w, _t([True, True]))
    assert w.tolist() == [False, True]


def test_in_place_comparison_of_a_leaf_that_requires_grad_makes_it_a_bool_constant():
    # As Paddle: the bool result has no gradient, so the leaf may take it; it then stops
    # gradients, while an in-place change that keeps a float leaf is still refused.
    x = D.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.equal_(D.to_tensor([1.0, 3.0])) is x
    assert x.tolist() == [True, False] and x.stop_gradient and x.grad is None
    leaf = D.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="leaf"):
        leaf.add_(D.to_tensor([1.0, 1.0]))


def test_in_place_bitwise_ops_check_x_shape_before_the_dtypes():
    # As Paddle: a y that broadcasts x beyond its shape is a ValueError even for floats
    with pytest.raises(ValueError, match=r"bitwise_and_: y of shape \[1, 4\]"):
        D.ones([3, 1]).bitwise_and_(D.ones([1, 4]))
    with pytest.raises(RuntimeError, match="expects integer or bool"):
        D.ones([3, 4]).bitwise_xor_(D.ones([1, 4]))
    x = _t([[1], [6]])
    assert x.bitwise_left_shift_(_t([1])) is x and x.tolist() == [[2], [12]]


# -- allclose / isclose / equal_all ------------------------------------------------------

@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_and_allclose_match_numpy(equal_nan):
    a = np.array([1.0, np.nan, 3.0, 1e-9])
    b = np.array([1.0 + 1e-6, np.nan, 3.1, 0.0])
    got = D.isclose(D.to_tensor(a), D.to_tensor(b), equal_nan=equal_nan)
    np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, equal_nan=equal_nan))
    assert got.dtype == D.bool
    close = D.allclose(D.to_tensor(a[[0, 1, 3]]), D.to_tensor(b[[0, 1, 3]]), equal_nan=equal_nan)
    assert close.shape == [] and close.dtype == D.bool
    assert bool(close) == np.allclose(a[[0, 1, 3]], b[[0, 1, 3]], equal_nan=equal_nan)
    assert not bool(D.allclose(D.to_tensor(a), D.to_tensor(b), rtol=0.01, atol=0.0))
    assert bool(D.allclose(D.to_tensor([3.0]), D.to_tensor([3.1]), rtol=0.05))


@pytest.mark.parametrize("op", [D.isclose, D.allclose])
@pytest.mark.parametrize("shape_y", [[3], [1, 3], [], [2, 2]])
def test_isclose_and_allclose_refuse_other_shapes_as_paddle(op, shape_y):
    # Paddle does not broadcast them (RuntimeError); the error names both shapes
    with pytest.raises(RuntimeError, match=r"\[2, 3\] and \[" + ", ".join(map(str, shape_y))):
        op(D.ones([2, 3]), D.ones(shape_y))
    with pytest.raises(ValueError):
        op(D.ones([2, 3]), D.ones(shape_y))


def test_equal_all():
    out = D.equal_all(D.to_tensor([1, 2, 3]), D.to_tensor([1, 2, 3]))
    assert out.shape == [] and out.dtype == D.bool and bool(out)
    assert not bool(D.equal_all(D.to_tensor([1, 2, 3]), D.to_tensor([1, 2, 4])))
    # Shapes differ: never equal.
    assert not bool(D.equal_all(D.to_tensor([1, 2]), D.to_tensor([[1, 2]])))
    assert bool(D.to_tensor([1.0, 2.0]).equal_all(D.to_tensor([1.0, 2.0])))
