"""Paddle's in-place variants: x.op_(...) and paddle.op_(x, ...) give op(x, ...)'s values in
x itself, keep x's identity, and record the change for backward when x is in a graph."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F

UNARY = ["abs", "acos", "asin", "atan", "atanh", "cos", "cosh", "erf", "erfinv", "exp",
         "expm1", "log", "log10", "log1p", "log2", "neg", "reciprocal", "rsqrt", "sin",
         "sinh", "sqrt", "square", "tan", "tanh", "trunc", "floor", "ceil", "round"]
WITH_ARGS = [
    ("acosh", lambda x: (x + 2.0,), ()), ("asinh", lambda x: (x,), ()),
    ("add", lambda x: (x,), (0.5,)), ("subtract", lambda x: (x,), (0.25,)),
    ("multiply", lambda x: (x,), (3.0,)), ("divide", lambda x: (x,), (2.0,)),
    ("pow", lambda x: (x,), (2.0,)), ("cumsum", lambda x: (x,), (1,)),
    ("cumprod", lambda x: (x,), (1,)), ("reshape", lambda x: (x,), ([3, 2],)),
    ("squeeze", lambda x: (x.reshape([1, 2, 3]),), ()),
    ("unsqueeze", lambda x: (x,), (0,)), ("transpose", lambda x: (x,), ([1, 0],)),
    ("t", lambda x: (x,), ()), ("tril", lambda x: (x,), ()), ("triu", lambda x: (x,), ()),
    ("flatten", lambda x: (x,), ()), ("clip", lambda x: (x,), (0.2, 0.4)),
    ("mod", lambda x: (x,), (0.3,)), ("floor_mod", lambda x: (x,), (0.3,)),
    ("remainder", lambda x: (x,), (0.3,)), ("floor_divide", lambda x: (x * 10,), (3.0,)),
]


def _x():
    return dygraph.to_tensor(np.linspace(0.1, 0.9, 6, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("name, make, args",
                         [(n, lambda x: (x,), ()) for n in UNARY] + WITH_ARGS,
                         ids=[n for n in UNARY] + [c[0] for c in WITH_ARGS])
def test_inplace_method_and_function_equal_the_op(name, make, args):
    expected = getattr(dygraph, name)(*make(_x()), *args).numpy()
    for call in (lambda t: getattr(t, name + "_")(*args),
                 lambda t: getattr(dygraph, name + "_")(t, *args)):
        (x,) = make(_x())
        version = x._version[0]
        assert call(x) is x
        np.testing.assert_allclose(x.numpy(), expected, rtol=1e-6)
        assert x._version[0] > version


def test_bitwise_inplace_and_torch_style_aliases():
    a = dygraph.to_tensor([6, 3])
    assert dygraph.bitwise_and_(a, dygraph.to_tensor([3, 1])).tolist() == [2, 1]
    x = dygraph.to_tensor([2.0, 4.0])
    x.mul_(2.0).sub_(1.0).div_(2.0)
    assert x.tolist() == [1.5, 3.5]
    assert dygraph.clamp_(x, 2.0, 3.0).tolist() == [2.0, 3.0]


def test_recorded_inplace_change_backpropagates():
    leaf = dygraph.to_tensor([0.3, -0.4], stop_gradient=False)
    y = leaf * 1.0
    y.tanh_()
    y.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 1 - np.tanh([0.3, -0.4]) ** 2, rtol=1e-6)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        leaf.tanh_()


def test_inplace_forms_keep_the_input_for_backward():
    x = dygraph.to_tensor([0.5, -1.0], stop_gradient=False)
    y = x * 1.0
    y.sin_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, -1.0]))
    x.clear_grad()
    F.elu_(x * 1.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, np.exp(-1.0)])


def test_inplace_result_takes_the_promoted_dtype_and_keeps_the_shape():
    x = dygraph.to_tensor([1, 4])
    assert x.log_() is x and x.dtype == dygraph.float32  # as Paddle: int log_ is float
    y = dygraph.to_tensor([[1.0], [2.0]])
    with pytest.raises(ValueError, match="broadcast"):
        y.add_(dygraph.ones([2, 3]))
    assert y.shape == [2, 1]
    assert y.reshape_([1, 2]).shape == [1, 2]  # a view op may rearrange x
