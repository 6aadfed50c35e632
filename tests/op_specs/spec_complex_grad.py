"""Spec entries for the complex paths of ops with real formulas (dygraph/autograd/complex_grad.py).

Holomorphic ops (exp, sin, pow, matmul...) run their real gradient formula conjugated
around on complex data, and abs has its own complex formula. As in spec_complex.py, each
entry builds complex inputs from real parts with `complex` and reads complex results back
with `as_real`, so the real finite differences check the convention (dL/da + i dL/db),
and the second derivatives check double backward through the conjugated formulas.

The random parts lie in (0.3, 1), so every point is off the real axis, where the branch cuts
of log, sqrt, asin, acosh, atanh... lie; `_left` entries mirror the real part to probe the
left half-plane, where acosh's and sqrt's principal branches need care.
"""

import inspect

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec


def _z(re, im):
    return D.complex(re, im)


def _nz(re, im):
    return re + 1j * im


def _ri(z):
    return np.stack([z.real, z.imag], axis=-1)


def _unary(name, fn, ref, left=False, id="complex"):
    sign = -1.0 if left else 1.0
    return OpSpec(name, lambda a, b: D.as_real(fn(_z(a * sign, b))),
                  lambda a, b: _ri(ref(_nz(a * sign, b))), [(2, 3), (2, 3)],
                  domain=(0.3, 1.0), id=id)


def _binary(name, fn, ref, shapes, id="complex", domain=(0.3, 1.0)):
    """fn/ref of two complex operands, built from four real parts of the given shapes."""
    (sa, sb) = shapes
    return OpSpec(name, lambda a, b, c, d: D.as_real(fn(_z(a, b), _z(c, d))),
                  lambda a, b, c, d: _ri(ref(_nz(a, b), _nz(c, d))), [sa, sa, sb, sb],
                  domain=domain, id=id)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


_UNARY = [
    ("exp", D.exp, np.exp), ("log", D.log, np.log), ("log2", D.log2, np.log2),
    ("log10", D.log10, np.log10), ("log1p", D.log1p, np.log1p), ("expm1", D.expm1, np.expm1),
    ("sin", D.sin, np.sin), ("cos", D.cos, np.cos), ("tan", D.tan, np.tan),
    ("sinh", D.sinh, np.sinh), ("cosh", D.cosh, np.cosh), ("tanh", D.tanh, np.tanh),
    ("asin", D.asin, np.arcsin), ("acos", D.acos, np.arccos), ("atan", D.atan, np.arctan),
    ("asinh", D.asinh, np.arcsinh), ("acosh", D.acosh, np.arccosh),
    ("atanh", D.atanh, np.arctanh), ("sqrt", D.sqrt, np.sqrt),
    # rsqrt and solve: the public names refuse complex64 as Paddle 3.3 does (no complex
    # kernel); the entries check DyGraph's complex math under them, in complex64 too
    ("rsqrt", inspect.unwrap(D.rsqrt), lambda z: 1.0 / np.sqrt(z)),
    ("reciprocal", D.reciprocal, lambda z: 1.0 / z), ("square", D.square, np.square),
    ("nn.functional.sigmoid", D.nn.functional.sigmoid, _sigmoid),
    ("neg", lambda z: D.neg(z) ** 2, lambda z: (-z) ** 2),
    ("scale", lambda z: D.scale(z, 2.0, 1.0) ** 2, lambda z: (2.0 * z + 1.0) ** 2),
]

SPECS = [_unary(name, fn, ref) for name, fn, ref in _UNARY] + [
    _unary("acosh", D.acosh, np.arccosh, left=True, id="complex_left"),
    _unary("sqrt", D.sqrt, np.sqrt, left=True, id="complex_left"),
    _unary("log", D.log, np.log, left=True, id="complex_left"),
    # abs is not holomorphic: g z / |z| (a real output, so no as_real).
    OpSpec("abs", lambda a, b: D.abs(_z(a, b)) ** 2 * a, lambda a, b: np.abs(_nz(a, b)) ** 2 * a,
           [(2, 3), (2, 3)], domain=(0.3, 1.0), id="complex"),
    OpSpec("abs", lambda a, b: D.abs(_z(a, b) * _z(b, a)), lambda a, b: np.abs(_nz(a, b) *
           _nz(b, a)), [(4,), (4,)], domain=(-1.0, 1.0), id="complex_signs"),
    # pow: complex base with a real exponent, and complex base and exponent.
    OpSpec("pow", lambda a, b: D.as_real(D.pow(_z(a, b), 2.5)),
           lambda a, b: _ri(_nz(a, b) ** 2.5), [(2, 3), (2, 3)], domain=(0.3, 1.0),
           id="complex_base"),
    OpSpec("pow", lambda a, b, e: D.as_real(D.pow(_z(a, b), e)),
           lambda a, b, e: _ri(_nz(a, b) ** e), [(2, 3), (2, 3), (2, 3)], domain=(0.3, 1.0),
           id="complex_base_real_tensor_exponent"),
    _binary("pow", D.pow, np.power, [(2, 3), (2, 3)], id="complex_both"),
    # Products that are holomorphic in each operand.
    OpSpec("prod", lambda a, b: D.as_real(D.prod(_z(a, b), axis=1)),
           lambda a, b: _ri(np.prod(_nz(a, b), axis=1)), [(2, 3), (2, 3)], domain=(0.3, 1.0),
           id="complex"),
    OpSpec("cumprod", lambda a, b: D.as_real(D.cumprod(_z(a, b), dim=1)),
           lambda a, b: _ri(np.cumprod(_nz(a, b), axis=1)), [(2, 3), (2, 3)],
           domain=(0.3, 1.0), id="complex"),
    _binary("dot", lambda x, y: D.dot(x, y) ** 2, lambda x, y: np.dot(x, y) ** 2,
            [(3,), (3,)]),
    _binary("outer", lambda x, y: D.outer(x, y) ** 2, lambda x, y: np.outer(x, y) ** 2,
            [(3,), (2,)]),
    _binary("kron", lambda x, y: D.kron(x, y) ** 2, lambda x, y: np.kron(x, y) ** 2,
            [(2,), (2,)]),
    _binary("cross", lambda x, y: D.cross(x, y) ** 2, lambda x, y: np.cross(x, y) ** 2,
            [(2, 3), (2, 3)]),
    _binary("einsum", lambda x, y: D.einsum("ij,jk->ik", x, y) ** 2,
            lambda x, y: np.einsum("ij,jk->ik", x, y) ** 2, [(2, 3), (3, 2)]),
    _binary("nn.functional.linear", lambda x, w: D.nn.functional.linear(x, w) ** 2,
            lambda x, w: (x @ w) ** 2, [(2, 3), (3, 4)]),
    OpSpec("linalg.inv", lambda a, b: D.as_real(D.linalg.inv(_z(a, b))),
           lambda a, b: _ri(np.linalg.inv(_nz(a, b))),
           [lambda r: np.eye(3) * 2 + r.uniform(-0.3, 0.3, (3, 3)), (3, 3)], id="complex"),
    OpSpec("linalg.det", lambda a, b: D.as_real(D.linalg.det(_z(a, b))),
           lambda a, b: _ri(np.linalg.det(_nz(a, b))),
           [lambda r: np.eye(3) * 2 + r.uniform(-0.3, 0.3, (3, 3)), (3, 3)], id="complex"),
    OpSpec("linalg.solve",
           lambda a, b, c, d: D.as_real(inspect.unwrap(D.linalg.solve)(_z(a, b), _z(c, d))),
           lambda a, b, c, d: _ri(np.linalg.solve(_nz(a, b), _nz(c, d))),
           [lambda r: np.eye(3) * 2 + r.uniform(-0.3, 0.3, (3, 3)), (3, 3), (3, 2), (3, 2)],
           id="complex"),
    # Linear maps with real coefficients need nothing: one entry as a witness.
    OpSpec("sum", lambda a, b: D.as_real(D.sum(_z(a, b), axis=0) ** 2),
           lambda a, b: _ri(np.sum(_nz(a, b), axis=0) ** 2), [(2, 3), (2, 3)], id="complex"),
]
