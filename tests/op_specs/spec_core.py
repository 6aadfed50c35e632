"""Spec entries for the core families: math, unary (basic set), reduction, shape, linalg."""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 4)
POS = (0.5, 2.0)


def _pos(shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


SPECS = [
    OpSpec("add", D.add, np.add, [A, (4,)], id="broadcast"),
    OpSpec("subtract", D.subtract, np.subtract, [A, (3, 1)]),
    OpSpec("multiply", D.multiply, np.multiply, [A, A]),
    OpSpec("add", lambda x, y: D.add(x, y, alpha=2.5), lambda x, y: x + 2.5 * y, [A, A],
           id="alpha"),
    OpSpec("subtract", lambda x, y: D.subtract(x, y, alpha=-3), lambda x, y: x + 3 * y,
           [A, (4,)], id="alpha"),
    OpSpec("divide", D.divide, np.divide, [A, _pos((4,))]),
    OpSpec("divide", lambda x, y: D.divide(x, y, rounding_mode="floor"),
           lambda x, y: np.floor(x / y), [A, _pos((4,))], id="floor"),
    OpSpec("divide", lambda x, y: D.divide(x, y, rounding_mode="trunc"),
           lambda x, y: np.trunc(x / y), [A, _pos((4,))], id="trunc"),
    OpSpec("remainder", D.remainder, np.remainder, [_pos(A), np.full(A, 0.7)]),
    OpSpec("mod", D.mod, np.remainder, [_pos(A), np.full(A, 0.7)]),
    OpSpec("floor_mod", D.floor_mod, np.remainder, [_pos(A), np.full(A, 0.7)]),
    OpSpec("pow", D.pow, np.power, [_pos(A), A]),
    OpSpec("pow", lambda x: D.pow(x, 3), lambda x: x ** 3, [A], id="scalar"),
    OpSpec("maximum", D.maximum, np.maximum, [A, A]),
    OpSpec("minimum", D.minimum, np.minimum, [A, A]),
    OpSpec("fmax", D.fmax, np.fmax, [A, A]),
    OpSpec("fmin", D.fmin, np.fmin, [A, A]),
    OpSpec("atan2", D.atan2, np.arctan2, [A, _pos(A)]),
    OpSpec("neg", D.neg, np.negative, [A]),
    OpSpec("scale", lambda x: D.scale(x, 2.0, 0.5), lambda x: 2 * x + 0.5, [A]),
    OpSpec("lerp", lambda x, y: D.lerp(x, y, 0.3), lambda x, y: x + 0.3 * (y - x), [A, A]),
    OpSpec("add_n", lambda a, b, c: D.add_n([a, b, c]), lambda a, b, c: a + b + c, [A, A, A]),
    OpSpec("exp", D.exp, np.exp, [A]),
    OpSpec("log", D.log, np.log, [A], domain=POS),
    OpSpec("sqrt", D.sqrt, np.sqrt, [A], domain=POS),
    OpSpec("tanh", D.tanh, np.tanh, [A]),
    OpSpec("sin", D.sin, np.sin, [A]),
    OpSpec("cos", D.cos, np.cos, [A]),
    OpSpec("abs", D.abs, np.abs, [A], domain=POS),
    OpSpec("square", D.square, np.square, [A]),
    OpSpec("where", lambda c, x, y: D.where(c, x, y), np.where,
           [np.array([[True, False, True, False]] * 3), A, A]),
    OpSpec("sum", lambda x: D.sum(x, axis=1), lambda x: x.sum(1), [A]),
    OpSpec("sum", lambda x: D.sum(x), lambda x: x.sum(), [A], id="all"),
    OpSpec("mean", lambda x: D.mean(x, axis=[0], keepdim=True),
           lambda x: x.mean(0, keepdims=True), [A]),
    OpSpec("reshape", lambda x: D.reshape(x, [2, -1]), lambda x: x.reshape(2, -1), [A]),
    OpSpec("transpose", lambda x: D.transpose(x, [1, 0]), lambda x: x.T, [A]),
    OpSpec("broadcast_to", lambda x: D.broadcast_to(x, [2, 3, 4]),
           lambda x: np.broadcast_to(x, (2, 3, 4)), [(3, 1)]),
    OpSpec("expand", lambda x: D.expand(x, [3, 4]), lambda x: np.broadcast_to(x, (3, 4)),
           [(1, 4)]),
    OpSpec("squeeze", lambda x: D.squeeze(x, 1), lambda x: x.squeeze(1), [(3, 1, 4)]),
    OpSpec("unsqueeze", lambda x: D.unsqueeze(x, [0, 2]), lambda x: x[None, :, None], [A]),
    OpSpec("flatten", lambda x: D.flatten(x, 1), lambda x: x.reshape(2, -1), [(2, 3, 4)]),
    OpSpec("matmul", D.matmul, np.matmul, [A, (4, 5)]),
    OpSpec("matmul", D.matmul, np.matmul, [(2, 3, 4), (4,)], id="batched-vector"),
    OpSpec("matmul", lambda x, y: D.matmul(x, y, transpose_x=True, transpose_y=True),
           lambda x, y: x.T @ y.T, [(4, 3), (5, 4)], id="transposed"),
    OpSpec("matmul", D.matmul, np.matmul, [(2, 3, 4), (4, 2)], id="broadcast"),
    OpSpec("getitem", lambda x: x[1:, ::2], lambda x: x[1:, ::2], [A]),
    OpSpec("getitem", lambda x: x[np.array([0, 2, 0])], lambda x: x[[0, 2, 0]], [A],
           id="int-array"),
    OpSpec("getitem", lambda x: x[x > 0], lambda x: x[x > 0], [A], id="mask"),
    OpSpec("cast", lambda x: D.cast(x, "float32"), lambda x: x.astype(np.float32), [A],
           grad=False),
]
SPECS.append(OpSpec("assign", lambda x: D.assign(x), lambda x: x.copy(), [A]))

# Piecewise constant: the gradient is zero (inputs avoid the jumps with probability one).
SPECS += [
    OpSpec("sign", D.sign, np.sign, [A]),
    OpSpec("floor", D.floor, np.floor, [A], domain=(-3.0, 3.0)),
    OpSpec("ceil", D.ceil, np.ceil, [A], domain=(-3.0, 3.0)),
    OpSpec("round", D.round, np.round, [A], domain=(-3.0, 3.0)),
    OpSpec("round", lambda x: D.round(x, decimals=1), lambda x: np.round(x, 1), [A],
           domain=(-3.0, 3.0), id="decimals"),
    OpSpec("var", lambda x: D.var(x, axis=1, correction=0), lambda x: x.var(1), [A],
           id="correction"),
    OpSpec("trunc", D.trunc, np.trunc, [A], domain=(-3.0, 3.0)),
]
