"""Elementwise binary arithmetic: add, subtract, multiply, divide, pow and friends (the
element-wise extrema are in extrema.py).

Each op is its forward and its gradient side by side. Broadcasting is undone by the engine,
so a gradient here may have the broadcast shape.
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import BoolDivisionByZero, IntegerDivisionByZero, op_error
from dygraph.ops.common import as_tensor, binary_operands, cast, float_operand
from dygraph.ops.inplace import run_inplace
from dygraph.tensor.tensor import Tensor

__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod",
           "floor_mod", "pow", "atan2", "scale", "lerp", "add_n", "increment", "neg"]
NONDIFF = {"floor_divide", "increment"}


def _same_shape_result(xp, a, b):
    """A workspace array for the result of a big NumPy element-wise op on two arrays of one
    shape and dtype (a residual add, a gate product), else None: such results are allocated
    every step, and fresh memory costs its page faults again (backend/workspace.py)."""
    if a.size >= POOLED_SIZE and a.shape == b.shape and a.dtype == b.dtype:
        return workspace.result(xp, a.shape, a.dtype)
    return None


class Add(Op):
    complex_grad = "same"

    def forward(self, xp, a, b):
        if a.size < POOLED_SIZE:  # the small case first: no call (hot in every net)
            return a + b
        out = _same_shape_result(xp, a, b)
        return a + b if out is None else xp.add(a, b, out=out)

    def backward(self, m, g):
        return g, g


class Subtract(Op):
    complex_grad = "same"

    def forward(self, xp, a, b):
        if a.size < POOLED_SIZE:  # the small case first: no call (hot in every net)
            return a - b
        out = _same_shape_result(xp, a, b)
        return a - b if out is None else xp.subtract(a, b, out=out)

    def backward(self, m, g):
        return g, (-g if self.edges[1] is not None else None)


class Multiply(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, a, b):
        if a.size < POOLED_SIZE:  # the small case first: no call (hot in every net)
            return a * b
        out = _same_shape_result(xp, a, b)
        return a * b if out is None else xp.multiply(a, b, out=out)

    def backward(self, m, g):
        e = self.edges
        return (g * self.x(1, m) if e[0] is not None else None,
                g * self.x(0, m) if e[1] is not None else None)


class Divide(Op):
    complex_grad = "holomorphic"
    save_inputs = True

    def forward(self, xp, a, b):
        return a / b

    def backward(self, m, g):
        b = self.x(1, m)
        a = self.x(0, m) if self.edges[1] is not None else None
        ga = g / b
        gb = -ga * a / b if a is not None else None
        return ga, gb


class BoolDivide(Op):
    """x / y of two bool tensors, as Paddle divides them: in bool, so x where y is True;
    a False divisor is an integer division by zero."""

    differentiable = False

    def forward(self, xp, a, b):
        if not b.all():
            raise BoolDivisionByZero("divide: integer division by zero (a False divisor "
                                     "of bool tensors)")
        return a & b


class FloorDivide(Op):
    differentiable = False

    def forward(self, xp, a, b):
        if a.dtype.kind in "iu" and (b == 0).any():
            raise IntegerDivisionByZero("floor_divide: integer division by zero")
        return xp.floor_divide(a, b)


class RoundedDivide(Op):
    """x / y rounded toward zero ("trunc") or down ("floor"), in the inputs' dtype; the
    result is piecewise constant, so its gradient is zero (given, as Paddle gives it)."""

    attrs = ("mode",)

    def __init__(self, mode):
        self.mode = mode

    def forward(self, xp, a, b):
        if a.dtype.kind not in "iub":
            q = a / b
            return xp.floor(q) if self.mode == "floor" else xp.trunc(q)
        if (b == 0).any():
            raise IntegerDivisionByZero(f"divide: integer division by zero ({self.mode})")
        q = xp.floor_divide(a, b)
        if self.mode == "trunc":  # floor and trunc differ where a remainder is left
            q = q + ((q < 0) & (q * b != a)).astype(q.dtype)
        return q

    def backward(self, m, g):
        return m.zeros_like(g), m.zeros_like(g)


def _round_half_away(xp, v):
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


class Remainder(Op):
    save_inputs = True

    def forward(self, xp, a, b):
        if a.dtype.kind == "c":
            # As Paddle: x - q * y, q being x / y rounded to the nearest Gaussian integer
            # (each part to the nearest integer, halves away from zero).
            q = a / b
            q = _round_half_away(xp, q.real) + 1j * _round_half_away(xp, q.imag)
            return (a - q * b).astype(a.dtype, copy=False)
        return xp.remainder(a, b)

    def backward(self, m, g):
        a, b = self.x(0, m), self.x(1, m)
        return g, (-g * m.floor(a / b) if self.edges[1] is not None else None)


def _integer_pow(xp, a, b):
    """a ** b for integers, some exponents negative: as in Paddle, a negative power is its
    quotient truncated toward zero (1 for a base 1, 1 or -1 for -1, 0 for the others);
    a zero base is a division by zero (NumPy refuses every negative integer power)."""
    negative = b < 0
    if (negative & (a == 0)).any():
        raise IntegerDivisionByZero("pow: 0 cannot be raised to a negative integer power")
    out = xp.power(a, xp.where(negative, 0, b))
    sign = xp.where(b % 2 == 0, 1, -1)
    inverse = xp.where(a == 1, 1, xp.where(a == -1, sign, 0))
    return xp.where(negative, inverse, out).astype(out.dtype, copy=False)


class Pow(Op):
    complex_grad = "holomorphic"
    save_inputs = True
    save_output = True

    def forward(self, xp, a, b):
        if a.dtype.kind in "iu" and b.dtype.kind in "iu" and (b < 0).any():
            return _integer_pow(xp, a, b)
        return xp.power(a, b)

    def backward(self, m, g):
        a, b = self.x(0, m), self.x(1, m)
        gb = None
        if self.edges[1] is not None:
            safe = m.where(a > 0, a, m.ones_like(a))
            gb = g * self.y(m) * m.log(safe)
        return self._base_grad(m, g, a, b), gb

    def backward_complex(self, m, g):
        # The holomorphic derivatives, conjugated around by the engine: d/db is a**b log(a)
        # for every a != 0 (principal log); the real formula's a > 0 test means nothing here.
        a, b = self.x(0, m), self.x(1, m)
        gb = None
        if self.edges[1] is not None:
            safe = m.where(a == 0, m.ones_like(a), a)
            gb = g * self.y(m) * m.log(safe)
        return self._base_grad(m, g, a, b), gb

    def _base_grad(self, m, g, a, b):
        if self.edges[0] is None:
            return None
        # b * a**(b-1) is 0 * inf at a = 0, b = 0, where the derivative is 0; a stand-in
        # exponent keeps the discarded branch finite.
        zero_b = b == 0
        safe_b = m.where(zero_b, m.ones_like(b), b)
        return m.where(zero_b, m.zeros_like(g), g * safe_b * m.power(a, safe_b - 1))


class Atan2(Op):
    save_inputs = True

    def forward(self, xp, a, b):
        return xp.arctan2(a, b)

    def backward(self, m, g):
        a, b = self.x(0, m), self.x(1, m)
        denom = a * a + b * b
        return g * b / denom, -g * a / denom


class Neg(Op):
    complex_grad = "same"

    def forward(self, xp, a):
        # Paddle's neg of a bool tensor is its scale by -1, cast back: x unchanged
        return -a if a.dtype.kind != "b" else a.copy()

    def backward(self, m, g):
        return (-g,)


def add(x, y, name=None, *, alpha=1):
    """Elementwise x + alpha * y with broadcasting.

    Example:
        >>> import dygraph
        >>> dygraph.add(dygraph.to_tensor([1.0, 2.0]), dygraph.to_tensor(1.0)).numpy()
        array([2., 3.], dtype=float32)
        >>> dygraph.add(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0]), alpha=3).numpy()
        array([4.], dtype=float32)
    """
    x, y = binary_operands(x, y, "add")
    if isinstance(alpha, Tensor) or alpha != 1:
        x, y = binary_operands(x, multiply(y, alpha), "add")
    return apply(Add(), x, y)


def subtract(x, y, name=None, *, alpha=1):
    """Elementwise x - alpha * y.

    Example:
        >>> import dygraph
        >>> dygraph.subtract(dygraph.to_tensor([3.0]), dygraph.to_tensor([1.0])).numpy()
        array([2.], dtype=float32)
        >>> dygraph.subtract(dygraph.to_tensor([3.0]), dygraph.to_tensor([1.0]),
        ...                  alpha=2).numpy()
        array([1.], dtype=float32)
    """
    x, y = binary_operands(x, y, "subtract")
    if isinstance(alpha, Tensor) or alpha != 1:
        x, y = binary_operands(x, multiply(y, alpha), "subtract")
    return apply(Subtract(), x, y)


def multiply(x, y, name=None):
    """Elementwise x * y.

    Example:
        >>> import dygraph
        >>> dygraph.multiply(dygraph.to_tensor([3.0]), dygraph.to_tensor([2.0])).numpy()
        array([6.], dtype=float32)
    """
    return apply(Multiply(), *binary_operands(x, y, "multiply"))


def divide(x, y, name=None, *, rounding_mode=None):
    """Elementwise true division x / y; integer inputs give the default float, two bool
    ones a bool (Paddle divides them in bool: x, where no divisor is False).

    `rounding_mode` "trunc" rounds the quotient toward zero, "floor" down; both keep the
    inputs' dtype and have a zero gradient.

    Example:
        >>> import dygraph
        >>> dygraph.divide(dygraph.to_tensor([3]), dygraph.to_tensor([2])).numpy()
        array([1.5], dtype=float32)
        >>> dygraph.divide(dygraph.to_tensor([-7]), dygraph.to_tensor([2]),
        ...                rounding_mode="trunc").numpy()
        array([-3])
    """
    if rounding_mode not in (None, "trunc", "floor"):
        raise ValueError("divide: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    x, y = binary_operands(x, y, "divide")
    if rounding_mode is not None:
        return apply(RoundedDivide(rounding_mode), x, y)
    if x._data.dtype.kind == "b":  # Paddle divides bools in bool (see BoolDivide)
        return apply(BoolDivide(), x, y)
    if x._data.dtype.kind not in "fc":
        x, y = float_operand(x, "divide"), float_operand(y, "divide")
    return apply(Divide(), x, y)


def floor_divide(x, y, name=None):
    """Elementwise floor(x / y) (no gradient).

    Example:
        >>> import dygraph
        >>> dygraph.floor_divide(dygraph.to_tensor([7]), dygraph.to_tensor([2])).numpy()
        array([3])
    """
    return apply(FloorDivide(), *binary_operands(x, y, "floor_divide"))


def floor_divide_(x, y, name=None):
    """In-place `floor_divide`; returns x. As in Paddle, which records no gradient for it,
    a leaf that requires grad is not refused: it stays that leaf, with the new values.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([7.0, 9.0], stop_gradient=False)
        >>> x.floor_divide_(dygraph.to_tensor([2.0, 4.0])).numpy(), x.stop_gradient
        (array([3., 2.], dtype=float32), False)
    """
    if isinstance(x, Tensor) and x._node is None and not x._sg:
        with grad_mode.no_grad():
            return run_inplace("floor_divide_", floor_divide, x, y)
    return run_inplace("floor_divide_", floor_divide, x, y)


def remainder(x, y, name=None):
    """Elementwise x mod y with the sign of y (Python's %).

    Example:
        >>> import dygraph
        >>> dygraph.remainder(dygraph.to_tensor([7.0]), dygraph.to_tensor([3.0])).numpy()
        array([1.], dtype=float32)
    """
    return apply(Remainder(), *binary_operands(x, y, "remainder"))


mod = remainder
floor_mod = remainder


def pow_(x, y, name=None):
    """In-place `pow` with a number y: x ** y; returns x. As in Paddle, y may not be a
    Tensor (TypeError, checked before anything else).

    Example:
        >>> import dygraph
        >>> dygraph.to_tensor([2.0, 3.0]).pow_(2).numpy()
        array([4., 9.], dtype=float32)
    """
    if isinstance(y, Tensor):
        raise op_error("pow_", f"y must be a number, got a Tensor (shape {y.shape}, dtype "
                       f"{y.dtype}); use x.pow(y) for a Tensor exponent", TypeError)
    return run_inplace("pow_", pow, x, y)


Tensor.pow_ = pow_
Tensor.floor_divide_ = floor_divide_


def pow(x, y, name=None):  # noqa: A001 - Paddle's public name
    """Elementwise x ** y; y may be a number or a Tensor.

    Example:
        >>> import dygraph
        >>> dygraph.pow(dygraph.to_tensor([1, 2, 3]), 2).numpy()
        array([1, 4, 9])
    """
    return apply(Pow(), *binary_operands(x, y, "pow"))


def atan2(x, y, name=None):
    """Elementwise arctan(x / y) in the right quadrant.

    Example:
        >>> import dygraph
        >>> round(float(dygraph.atan2(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0]))), 4)
        0.7854
    """
    x, y = binary_operands(x, y, "atan2")
    if x._data.dtype.kind in "iu" and y._data.dtype.kind in "iu":
        # integer inputs give float64, as in Paddle (bool ones the default float)
        x, y = cast(x, np.float64), cast(y, np.float64)
    return apply(Atan2(), float_operand(x, "atan2"), float_operand(y, "atan2"))


def neg(x, name=None):
    """Elementwise -x (a bool x comes back unchanged, as Paddle's neg gives it).

    Example:
        >>> import dygraph
        >>> dygraph.neg(dygraph.to_tensor([1.0])).numpy()
        array([-1.], dtype=float32)
    """
    return apply(Neg(), as_tensor(x, "neg"))


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias) when bias_after_scale=False).

    Example:
        >>> import dygraph
        >>> dygraph.scale(dygraph.to_tensor([1.0]), scale=2.0, bias=1.0).numpy()
        array([3.], dtype=float32)
    """
    x = as_tensor(x, "scale")
    if isinstance(scale, Tensor):
        out = multiply(x, scale) if bias_after_scale else multiply(add(x, bias), scale)
        return add(out, bias) if bias_after_scale else out
    if bias_after_scale:
        out = multiply(x, scale) if scale != 1.0 else x
        out = add(out, bias) if bias != 0.0 else out
    else:
        out = multiply(add(x, bias), scale)
    if out is x:
        out = apply(_Copy(), x)
    if act is not None:
        from dygraph.ops.activation import piecewise as activation

        out = getattr(activation, act)(out)
    return out


class _Copy(Op):
    complex_grad = "same"

    def forward(self, xp, a):
        return a.copy()

    def backward(self, m, g):
        return (g,)


def lerp(x, y, weight, name=None):
    """x + weight * (y - x).

    Example:
        >>> import dygraph
        >>> dygraph.lerp(dygraph.to_tensor([0.0]), dygraph.to_tensor([10.0]), 0.3).numpy()
        array([3.], dtype=float32)
    """
    return add(x, multiply(weight, subtract(y, x)))


def add_n(inputs, name=None):
    """Sum of a list of tensors of one shape.

    Example:
        >>> import dygraph
        >>> t = dygraph.ones([2])
        >>> dygraph.add_n([t, t, t]).numpy()
        array([3., 3.], dtype=float32)
    """
    if isinstance(inputs, Tensor):
        return apply(_Copy(), inputs)
    tensors = [as_tensor(t, "add_n") for t in inputs]
    return apply(AddN(), *tensors)


class AddN(Op):
    complex_grad = "same"

    def forward(self, xp, *arrays):
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            from dygraph.framework.errors import op_error

            raise op_error("add_n", f"all inputs must have one shape, got "
                           f"{[list(a.shape) for a in arrays]}")
        out = arrays[0].copy()
        for a in arrays[1:]:
            out += a
        return out

    def backward(self, m, g):
        return tuple(g for _ in self.edges)


def increment(x, value=1.0, name=None):
    """x + value (cast to x's dtype), written back into x, which must hold one element (in
    place, as Paddle's increment; in a static program the op is recorded and x stands for
    its result from then on).

    Example:
        >>> import dygraph
        >>> dygraph.increment(dygraph.to_tensor([1.0])).numpy()
        array([2.], dtype=float32)
        >>> dygraph.increment(dygraph.to_tensor([1], 'int64'), 2.0).numpy()
        array([3])
    """
    from dygraph.ops.inplace import run_inplace

    x = as_tensor(x, "increment")
    if x._data.size != 1:
        from dygraph.framework.errors import op_error

        raise op_error("increment", f"the number of elements in x should be 1, got "
                       f"{x._data.size} (shape {list(x.shape)})")
    return run_inplace("increment", lambda t: apply(Increment(value), t), x)


class Increment(Op):
    """x + value in x's dtype (a float step on an integer counter is cast, as Paddle
    casts it)."""

    attrs = ("value",)

    def __init__(self, value):
        self.value = value

    def forward(self, xp, x):
        return x + xp.asarray(self.value).astype(x.dtype)

    def backward(self, m, g):
        return (g,)
