"""ONNX mappings of elementwise ops, activations, casts and reductions.

Binary ops broadcast in ONNX as in NumPy, so they map one to one; activations without an
ONNX op of the chosen opset are written as their formula.

Example:
    >>> from dygraph.ops.activation.piecewise import Relu
    >>> from dygraph.onnx.graph import MAPPINGS
    >>> Relu in MAPPINGS
    True
"""

import math

import numpy as np

from dygraph.onnx.graph import maps
from dygraph.ops import compare
from dygraph.ops.activation import piecewise as act
from dygraph.ops.activation import smooth, softmax
from dygraph.ops.common import Cast
from dygraph.ops.math import arithmetic as arith
from dygraph.ops.math import extrema
from dygraph.ops.reduction import cumulative
from dygraph.ops.reduction import reduce as reduction
from dygraph.ops.reduction import statistics as statistic
from dygraph.ops.unary import core as unary
from dygraph.ops.unary import explog as unary_explog
from dygraph.ops.unary import trig as unary_trig

__all__ = []

_SAME = {
    arith.Add: "Add", arith.Subtract: "Sub", arith.Multiply: "Mul", arith.Pow: "Pow",
    extrema.Maximum: "Max", extrema.Minimum: "Min", arith.Neg: "Neg", arith.AddN: "Sum",
    unary.Exp: "Exp", unary.Log: "Log", unary.Sqrt: "Sqrt", unary.Tanh: "Tanh",
    unary.Sin: "Sin", unary.Cos: "Cos", unary.Abs: "Abs", unary_explog.Reciprocal: "Reciprocal",
    unary_trig.Tan: "Tan", unary_trig.Asin: "Asin", unary_trig.Acos: "Acos",
    unary_trig.Atan: "Atan", unary_trig.Sinh: "Sinh", unary_trig.Cosh: "Cosh",
    unary_trig.Asinh: "Asinh", unary_trig.Acosh: "Acosh", unary_trig.Atanh: "Atanh",
    act.Relu: "Relu", act.Prelu: "PRelu", smooth.Sigmoid: "Sigmoid",
    smooth.Softsign: "Softsign", unary.Where: "Where",
}

# Names of the xp functions behind the non-differentiable elementwise ops.
_NAMED = {"greater": "Greater", "less": "Less", "equal": "Equal",
          "greater_equal": "GreaterOrEqual", "less_equal": "LessOrEqual",
          "logical_and": "And", "logical_or": "Or", "logical_xor": "Xor",
          "logical_not": "Not", "sign": "Sign", "floor": "Floor", "ceil": "Ceil",
          "round": "Round", "isnan": "IsNaN", "isinf": "IsInf"}


def _same(op_type):
    return lambda g, op, ins, outs: g.add(op_type, ins, outs)


for _cls, _type in _SAME.items():
    maps(_cls)(_same(_type))


@maps(compare._Elementwise, unary._Elementwise)
def _named(g, op, ins, outs):
    if op.fn_name == "not_equal":
        return g.add("Not", [g.add("Equal", ins)], outs)
    if op.fn_name not in _NAMED:
        raise NotImplementedError(f"paddle.onnx.export: no ONNX mapping for the elementwise "
                                  f"op {op.fn_name!r}")
    return g.add(_NAMED[op.fn_name], ins, outs)


@maps(arith.Divide)
def _divide(g, op, ins, outs):
    # Paddle's divide of integers is a true division; ONNX Div of integers truncates.
    if g.dtype(ins[0]).kind in "iub" and g.dtype(outs[0]).kind == "f":
        to = g.helper.np_dtype_to_tensor_dtype(g.dtype(outs[0]))
        ins = [g.add("Cast", [i], to=to) for i in ins]
    return g.add("Div", ins, outs)


@maps(unary.Square)
def _square(g, op, ins, outs):
    return g.add("Mul", [ins[0], ins[0]], outs)


@maps(unary_explog.Rsqrt)
def _rsqrt(g, op, ins, outs):
    return g.add("Reciprocal", [g.add("Sqrt", ins)], outs)


@maps(unary_explog.Expm1)
def _expm1(g, op, ins, outs):
    return g.add("Sub", [g.add("Exp", ins), g.scalar(1.0, ins[0])], outs)


@maps(unary_explog.Log1p)
def _log1p(g, op, ins, outs):
    return g.add("Log", [g.add("Add", [ins[0], g.scalar(1.0, ins[0])])], outs)


@maps(unary_explog.Log2, unary_explog.Log10)
def _log_base(g, op, ins, outs):
    base = 2.0 if isinstance(op, unary_explog.Log2) else 10.0
    return g.add("Div", [g.add("Log", ins), g.scalar(math.log(base), ins[0])], outs)


def _clip(g, x, low, high, outs):
    bounds = ["" if v is None else g.scalar(v, x) for v in (low, high)]
    while bounds and bounds[-1] == "":
        bounds.pop()
    return g.add("Clip", [x, *bounds], outs)


@maps(unary.Clip)
def _clip_op(g, op, ins, outs):
    return _clip(g, ins[0], op.low, op.high, outs)


@maps(act.Relu6)
def _relu6(g, op, ins, outs):
    return _clip(g, ins[0], 0.0, 6.0, outs)


@maps(act.Hardtanh)
def _hardtanh(g, op, ins, outs):
    return _clip(g, ins[0], op.low, op.high, outs)


@maps(act.LeakyRelu)
def _leaky(g, op, ins, outs):
    return g.add("LeakyRelu", ins, outs, alpha=float(op.slope))


@maps(act.Hardsigmoid)
def _hardsigmoid(g, op, ins, outs):
    return g.add("HardSigmoid", ins, outs, alpha=float(op.slope), beta=float(op.offset))


@maps(act.Hardswish)
def _hardswish(g, op, ins, outs):
    if g.opset >= 14:
        return g.add("HardSwish", ins, outs)
    gate = g.add("HardSigmoid", ins, alpha=1.0 / 6.0, beta=0.5)
    return g.add("Mul", [ins[0], gate], outs)


@maps(act.ThresholdedRelu)
def _thresholded(g, op, ins, outs):
    x = ins[0]
    above = g.add("Greater", [x, g.scalar(op.threshold, x)])
    return g.add("Where", [above, x, g.scalar(op.value, x)], outs)


@maps(act.Shrink)
def _shrink(g, op, ins, outs):
    return g.add("Shrink", ins, outs, lambd=float(op.threshold),
                 bias=float(op.threshold) if op.soft else 0.0)


@maps(smooth.Silu)
def _silu(g, op, ins, outs):
    return g.add("Mul", [ins[0], g.add("Sigmoid", ins)], outs)


@maps(smooth.LogSigmoid)
def _log_sigmoid(g, op, ins, outs):
    # log(sigmoid(x)) = -softplus(-x), stable for large |x| in ONNX Runtime's Softplus.
    return g.add("Neg", [g.add("Softplus", [g.add("Neg", ins)])], outs)


@maps(smooth.ExpLinear)
def _exp_linear(g, op, ins, outs):
    alpha = float(op.alpha)
    if op.inv == 1.0 and op.scale == 1.0:
        return g.add("Elu", ins, outs, alpha=alpha)
    if op.inv == 1.0:
        return g.add("Selu", ins, outs, alpha=alpha, gamma=float(op.scale))
    if op.scale == 1.0 and math.isclose(op.inv * alpha, 1.0):
        return g.add("Celu", ins, outs, alpha=alpha)
    raise NotImplementedError("paddle.onnx.export: no ONNX mapping for ExpLinear with "
                              f"alpha={op.alpha}, scale={op.scale}, inv={op.inv}")


@maps(smooth.Gelu)
def _gelu(g, op, ins, outs):
    x = ins[0]
    if g.opset >= 20:
        return g.add("Gelu", ins, outs, approximate="tanh" if op.approximate else "none")
    half_x = g.add("Mul", [x, g.scalar(0.5, x)])
    if op.approximate:
        cube = g.add("Mul", [g.add("Mul", [x, x]), x])
        inner = g.add("Add", [x, g.add("Mul", [cube, g.scalar(smooth._GELU_CUBIC, x)])])
        core = g.add("Tanh", [g.add("Mul", [inner, g.scalar(smooth._SQRT_2_OVER_PI, x)])])
    else:
        core = g.add("Erf", [g.add("Mul", [x, g.scalar(smooth._SQRT_HALF, x)])])
    return g.add("Mul", [half_x, g.add("Add", [core, g.scalar(1.0, x)])], outs)


@maps(smooth.Softplus)
def _softplus(g, op, ins, outs):
    x = ins[0]
    z = x if op.beta == 1 else g.add("Mul", [x, g.scalar(op.beta, x)])
    soft = g.add("Softplus", [z])
    if op.beta != 1:
        soft = g.add("Div", [soft, g.scalar(op.beta, x)])
    linear = g.add("Greater", [z, g.scalar(op.threshold, x)])
    return g.add("Where", [linear, x, soft], outs)


@maps(smooth.Mish)
def _mish(g, op, ins, outs):
    if g.opset >= 18:
        return g.add("Mish", ins, outs)
    return g.add("Mul", [ins[0], g.add("Tanh", [g.add("Softplus", ins)])], outs)


@maps(smooth.Tanhshrink)
def _tanhshrink(g, op, ins, outs):
    return g.add("Sub", [ins[0], g.add("Tanh", ins)], outs)


@maps(softmax.Softmax, softmax.LogSoftmax)
def _softmax(g, op, ins, outs):
    if op.axis is None:  # a 0-d input: softmax is 1, log_softmax 0
        fill = 1.0 if isinstance(op, softmax.Softmax) else 0.0
        return g.add("Add", [g.add("Mul", [ins[0], g.scalar(0.0, ins[0])]),
                             g.scalar(fill, ins[0])], outs)
    kind = "Softmax" if isinstance(op, softmax.Softmax) else "LogSoftmax"
    return g.add(kind, ins, outs, axis=int(op.axis))


@maps(Cast)
def _cast(g, op, ins, outs):
    return g.add("Cast", ins, outs, to=g.helper.np_dtype_to_tensor_dtype(np.dtype(op.dtype)))


def _axes(op, x, g):
    return None if op.axes is None else [int(a) % max(g.rank(x), 1) for a in op.axes]


@maps(reduction.Sum)
def _sum(g, op, ins, outs):
    x = ins[0]
    if op.dtype is not None and np.dtype(op.dtype) != g.dtype(x):
        x = g.add("Cast", [x], to=g.helper.np_dtype_to_tensor_dtype(np.dtype(op.dtype)))
    return g.axes_op("ReduceSum", x, _axes(op, ins[0], g), outs, keepdims=int(op.keepdim))


@maps(reduction.Mean)
def _mean(g, op, ins, outs):
    return g.axes_op("ReduceMean", ins[0], _axes(op, ins[0], g), outs,
                     keepdims=int(op.keepdim))


@maps(reduction.Extreme)
def _extreme(g, op, ins, outs):
    kind = "ReduceMax" if op.fn in ("max", "amax") else "ReduceMin"
    return g.axes_op(kind, ins[0], _axes(op, ins[0], g), outs, keepdims=int(op.keepdim))


@maps(reduction.ArgExtreme)
def _arg_extreme(g, op, ins, outs):
    x, axis = ins[0], op.axis
    if axis is None:  # of the flattened tensor
        x, axis = g.add("Reshape", [x, g.ints([-1])]), 0
    kind = "ArgMax" if op.fn == "argmax" else "ArgMin"
    y = g.add(kind, [x], axis=int(axis), keepdims=int(op.keepdim and op.axis is not None))
    if op.axis is None and op.keepdim:
        y = g.add("Reshape", [y, g.ints([1] * g.rank(ins[0]))])
    if np.dtype(op.dtype) != np.int64:
        y = g.add("Cast", [y], to=g.helper.np_dtype_to_tensor_dtype(np.dtype(op.dtype)))
    return g.add("Identity", [y], outs)


@maps(cumulative.Cumsum)
def _cumsum(g, op, ins, outs):
    axis = g.const(np.array(op.axis, np.int64), hint="axis")
    return g.add("CumSum", [ins[0], axis], outs, reverse=int(op.reverse))


@maps(statistic.Var, statistic.Std)
def _var_std(g, op, ins, outs):
    """sum((x - mean)^2) / (n - ddof), n read from the shape (reduced dims may be free),
    and its square root for std."""
    x = ins[0]
    rank = max(g.rank(x), 1)
    axes = list(range(rank)) if op.axes is None else [int(a) % rank for a in op.axes]
    centered = g.add("Sub", [x, g.axes_op("ReduceMean", x, axes, keepdims=1)])
    total = g.axes_op("ReduceSum", g.add("Mul", [centered, centered]), axes,
                      keepdims=int(op.keepdim))
    dims = g.add("Gather", [g.add("Shape", [x]), g.ints(axes)])
    count = g.add("Cast", [g.axes_op("ReduceProd", dims, [0], keepdims=0)],
                  to=g.helper.np_dtype_to_tensor_dtype(np.dtype(g.dtype(x))))
    dof = g.add("Sub", [count, g.scalar(float(op.ddof), x)])
    if type(op) is statistic.Std:
        return g.add("Sqrt", [g.add("Div", [total, dof])], outs)
    return g.add("Div", [total, dof], outs)
