"""Comparison, logic and bitwise ops. Their results are bool or integer: no gradients."""

import operator

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import ShapeRuntimeError, UnsupportedDTypeError, op_error
from dygraph.ops.common import as_tensor, binary_operands
from dygraph.ops.inplace import make_inplace
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["equal", "not_equal", "greater_than", "greater_equal", "less_than", "less_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite", "allclose", "isclose",
           "equal_all", "eq", "ne", "gt", "ge", "lt", "le", "greater", "less", "bitwise_invert",
           "bitwise_left_shift", "bitwise_right_shift", "signbit", "isneginf", "isposinf", "isreal"]
NONDIFF = set(__all__)


# The `xp` functions an _Elementwise op may apply, by name: a closed table, so that a saved
# program can select one of these and nothing else.
_FUNCTIONS = {name: operator.attrgetter(name) for name in (
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "invert", "isnan", "isinf", "isfinite")}


class _Elementwise(Op):
    """Apply the `xp` function named `fn_name` (a key of _FUNCTIONS) to the inputs; never
    differentiable."""

    attrs = ("fn_name",)
    attr_kinds = {"fn_name": _FUNCTIONS}

    differentiable = False

    def __init__(self, fn_name):
        self.fn_name = fn_name

    @property
    def name(self):
        return self.fn_name

    def forward(self, xp, *arrays):
        return _FUNCTIONS[self.fn_name](xp)(*arrays)


def _integer_only(op_name, *tensors):
    """Refuse float and complex inputs of a bitwise op (Paddle has no kernel for them)."""
    if op_name.startswith("bitwise"):
        for t in tensors:
            if t._data.dtype.kind not in "iub":
                raise op_error(op_name, f"expects integer or bool tensors, got {t.dtype}",
                               UnsupportedDTypeError)
    return tensors


def _binary(fn_name, op_name):
    def op(x, y, name=None):
        operands = _integer_only(op_name, *binary_operands(x, y, op_name))
        return apply(_Elementwise(fn_name), *operands)

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = (f"Elementwise `{fn_name}` of x and y with broadcasting (no gradient).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{op_name}(dygraph.to_tensor([1, 2]), "
                  f"dygraph.to_tensor([2, 2])).shape\n        [2]\n")
    return op


def _unary(fn_name, op_name):
    def op(x, name=None):
        return apply(_Elementwise(fn_name), *_integer_only(op_name, as_tensor(x, op_name)))

    op.__name__ = op.__qualname__ = op_name
    # the example's input: a float one for the float tests (Paddle has no bool kernel)
    example = "[1.0, 2.0]" if op_name.startswith("is") else "[True, False]"
    op.__doc__ = (f"Elementwise `{fn_name}` (no gradient).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{op_name}(dygraph.to_tensor({example})).shape\n"
                  f"        [2]\n")
    return op


equal = _binary("equal", "equal")
not_equal = _binary("not_equal", "not_equal")
greater_than = _binary("greater", "greater_than")
greater_equal = _binary("greater_equal", "greater_equal")
less_than = _binary("less", "less_than")
less_equal = _binary("less_equal", "less_equal")
logical_and = _binary("logical_and", "logical_and")
logical_or = _binary("logical_or", "logical_or")
logical_xor = _binary("logical_xor", "logical_xor")
logical_not = _unary("logical_not", "logical_not")
bitwise_and = _binary("bitwise_and", "bitwise_and")
bitwise_or = _binary("bitwise_or", "bitwise_or")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor")
bitwise_not = _unary("invert", "bitwise_not")
isnan = _unary("isnan", "isnan")
isinf = _unary("isinf", "isinf")
isfinite = _unary("isfinite", "isfinite")


def _tolerance(value, name):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise op_error(name, f"rtol and atol must be numbers, got {value!r}", TypeError)
    return float(value)


class _Close(Op):
    attrs = ("atol", "equal_nan", "rtol")

    differentiable = False

    def __init__(self, rtol, atol, equal_nan):
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def forward(self, xp, a, b):
        return xp.isclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise |x - y| <= atol + rtol * |y|, as a bool tensor; x and y must have the
    same shape (Paddle does not broadcast them: RuntimeError).

    Example:
        >>> import dygraph
        >>> dygraph.isclose(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor([1.0, 2.1])).numpy()
        array([ True, False])
    """
    op = _Close(_tolerance(rtol, "isclose"), _tolerance(atol, "isclose"), bool(equal_nan))
    x, y = binary_operands(x, y, "isclose")
    if x._data.shape != y._data.shape:
        raise op_error("isclose", f"x and y must have the same shape, got "
                       f"{list(x._data.shape)} and {list(y._data.shape)}", ShapeRuntimeError)
    return apply(op, x, y)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Whether every |x - y| <= atol + rtol * |y|, as a 0-D bool tensor (x and y of the
    same shape).

    Example:
        >>> import dygraph
        >>> bool(dygraph.allclose(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0 + 1e-7])))
        True
    """
    close = isclose(x, y, rtol, atol, equal_nan)
    data = close._data
    return _new_tensor(_xp(data).asarray(data.all()), None, 0, True)


def equal_all(x, y, name=None):
    """Whether x and y have the same shape and equal elements, as a 0-D bool tensor.

    Example:
        >>> import dygraph
        >>> bool(dygraph.equal_all(dygraph.to_tensor([1, 2]), dygraph.to_tensor([1, 3])))
        False
    """
    x, y = binary_operands(x, y, "equal_all")
    a, b = x._data, y._data
    xp = _xp(a)
    same = a.shape == b.shape and bool((a == b).all())
    return _new_tensor(xp.asarray(same), None, 0, True)


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)


class _ElementwiseFunction(Op):
    attrs = ("fn", "op_name")

    differentiable = False

    def __init__(self, op_name, fn):
        self.op_name = op_name
        self.fn = fn

    @property
    def name(self):
        return self.op_name

    def forward(self, xp, *arrays):
        return self.fn(xp, *arrays)


def _alias(target, alias):
    def op(x, y, name=None):
        return target(x, y)

    op.__name__ = op.__qualname__ = alias
    op.__doc__ = (f"The same as `{target.__name__}` (elementwise, bool result).\n\n"
                  f"    Example:\n        >>> import dygraph\n"
                  f"        >>> dygraph.{alias}(dygraph.to_tensor([1, 2]), "
                  f"dygraph.to_tensor([2, 2])).dtype\n        dygraph.bool\n")
    return op


eq = _alias(equal, "eq")
ne = _alias(not_equal, "ne")
gt = _alias(greater_than, "gt")
ge = _alias(greater_equal, "ge")
lt = _alias(less_than, "lt")
le = _alias(less_equal, "le")
greater = _alias(greater_than, "greater")
less = _alias(less_than, "less")


def _integer(x, op):
    x = as_tensor(x, op)
    if x._data.dtype.kind not in "iub":
        raise op_error(op, f"expects an integer or bool tensor, got {x.dtype}",
                       UnsupportedDTypeError)
    return x


def bitwise_invert(x, out=None, name=None):
    """Bitwise NOT (logical NOT for bool); the same as `bitwise_not`.

    Example:
        >>> import dygraph
        >>> dygraph.bitwise_invert(dygraph.to_tensor([0, 5])).numpy()
        array([-1, -6])
    """
    return bitwise_not(_integer(x, "bitwise_invert"))


def _shift(x, y, op, left, is_arithmetic):
    x, y = binary_operands(x, y, op)
    if x._data.dtype.kind not in "iu":
        raise op_error(op, f"expects integer tensors, got {x.dtype} and {y.dtype}",
                       UnsupportedDTypeError)

    def fn(xp, a, b):
        if left:
            return xp.left_shift(a, b)
        if is_arithmetic or a.dtype.kind == "u":
            return xp.right_shift(a, b)
        # A logical shift moves zeros into the sign bit: shift the unsigned view.
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        return xp.right_shift(a.view(unsigned), b.astype(unsigned)).view(a.dtype)

    return apply(_ElementwiseFunction(op, fn), x, y)


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """x << y elementwise for integer tensors.

    Example:
        >>> import dygraph
        >>> dygraph.bitwise_left_shift(dygraph.to_tensor([1, 3]), dygraph.to_tensor([2, 1])).numpy()
        array([4, 6])
    """
    return _shift(x, y, "bitwise_left_shift", True, is_arithmetic)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """x >> y elementwise for integer tensors; is_arithmetic=False shifts zeros into the
    sign bit of negative values (a logical shift).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([-8], dtype='int32')
        >>> dygraph.bitwise_right_shift(x, dygraph.to_tensor([1], dtype='int32')).numpy()
        array([-4], dtype=int32)
        >>> dygraph.bitwise_right_shift(x, dygraph.to_tensor([1], dtype='int32'),
        ...                             is_arithmetic=False).numpy()
        array([2147483644], dtype=int32)
    """
    return _shift(x, y, "bitwise_right_shift", False, is_arithmetic)


def _test(op, fn, doc):
    def test(x, name=None):
        return apply(_ElementwiseFunction(op, fn), as_tensor(x, op))

    test.__name__ = test.__qualname__ = op
    test.__doc__ = doc
    return test


signbit = _test("signbit", lambda xp, a: xp.signbit(a) if a.dtype.kind == "f"
                else a < 0 if a.dtype.kind == "i" else xp.zeros(a.shape, bool), """\
True where the sign bit is set (negative values and -0.0).

    Example:
        >>> import dygraph
        >>> dygraph.signbit(dygraph.to_tensor([-1.0, 0.0, -0.0])).numpy()
        array([ True, False,  True])
    """)
isneginf = _test("isneginf", lambda xp, a: xp.isneginf(a) if a.dtype.kind == "f"
                 else xp.zeros(a.shape, bool), """\
True where x is -inf.

    Example:
        >>> import dygraph
        >>> dygraph.isneginf(dygraph.to_tensor([-float('inf'), 1.0])).numpy()
        array([ True, False])
    """)
isposinf = _test("isposinf", lambda xp, a: xp.isposinf(a) if a.dtype.kind == "f"
                 else xp.zeros(a.shape, bool), """\
True where x is +inf.

    Example:
        >>> import dygraph
        >>> dygraph.isposinf(dygraph.to_tensor([float('inf'), 1.0])).numpy()
        array([ True, False])
    """)
isreal = _test("isreal", lambda xp, a: a.imag == 0 if a.dtype.kind == "c"
               else xp.ones(a.shape, bool), """\
True where x has no imaginary part (everywhere for real dtypes).

    Example:
        >>> import dygraph
        >>> dygraph.isreal(dygraph.to_tensor([1 + 0j, 1 + 1j])).numpy()
        array([ True, False])
    """)


def _to_result(name, fn):
    """In-place form whose result may change x's dtype (comparisons give bool)."""

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if out._data.shape != self._data.shape:
            raise op_error(name, f"the result shape {out.shape} differs from x's shape "
                           f"{self.shape}; an in-place op cannot broadcast x")
        # x becomes a bool tensor, which has no gradient: as in Paddle, this is allowed on
        # a leaf that requires grad (it stops requiring it), so x stops gradients before
        # the version check that refuses in-place changes of such leaves.
        self._node, self._idx, self._sg = None, 0, True
        self._bump_version(name)
        self._data = out._data
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place `{fn.__name__}`: x holds the result; returns x."
    return method


for _name, _fn in (("equal_", equal), ("not_equal_", not_equal),
                   ("greater_than_", greater_than),
                   ("greater_equal_", greater_equal),
                   ("less_than_", less_than), ("less_equal_", less_equal),
                   ("less_", less_than), ("logical_and_", logical_and),
                   ("logical_or_", logical_or), ("logical_xor_", logical_xor),
                   ("logical_not_", logical_not)):
    setattr(Tensor, _name, _to_result(_name, _fn))


def _shape_checked_first(name, fn):
    """`fn` for the in-place form `name`: as in Paddle, a y that would broadcast x beyond
    its shape is refused (ValueError) before the dtypes are checked."""

    def checked(x, y, *args, **kwargs):
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            try:
                shape = np.broadcast_shapes(x._data.shape, y._data.shape)
            except ValueError:
                shape = None
            if shape != x._data.shape:
                raise op_error(name, f"y of shape {y.shape} does not broadcast to x's shape "
                               f"{x.shape}; an in-place op cannot change x's shape")
        return fn(x, y, *args, **kwargs)

    checked.__name__ = checked.__qualname__ = fn.__name__
    return checked


Tensor.bitwise_invert_ = make_inplace("bitwise_invert_", bitwise_invert)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
              "bitwise_right_shift"):
    setattr(Tensor, _name + "_",
            make_inplace(_name + "_", _shape_checked_first(_name + "_", globals()[_name])))
