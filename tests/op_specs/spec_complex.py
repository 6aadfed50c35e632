"""Spec entries for the complex basics (dygraph/ops/complex.py).

The spec runner differentiates real inputs and real outputs, so each entry builds its
complex tensors from real parts with `complex` and reads complex results back with
`as_real`: the finite differences then probe the real and imaginary parts separately, which
checks the gradient convention (dL/da + i dL/db) end to end. Entries square their output so
that double backward has a non-zero second derivative to check.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec


def _z(re, im):
    return D.complex(re, im)


def _nz(re, im):
    return re + 1j * im


def _ri(z):
    return np.stack([z.real, z.imag], axis=-1)


SPECS = [
    OpSpec("complex", lambda a, b: D.as_real(_z(a, b)) ** 2, lambda a, b: _ri(_nz(a, b)) ** 2,
           [(2, 3), (2, 3)]),
    OpSpec("complex", lambda a, b: D.as_real(_z(a, b)), lambda a, b: _ri(_nz(a, b)),
           [(2, 3), (3,)], id="broadcast"),
    OpSpec("real", lambda a, b: D.real(_z(a, b) * 1) * b, lambda a, b: a * b,
           [(2, 3), (2, 3)]),
    OpSpec("imag", lambda a, b: D.imag(_z(a, b)) * a, lambda a, b: b * a, [(2, 3), (2, 3)]),
    OpSpec("conj", lambda a, b: D.as_real(D.conj(_z(a, b))) ** 2,
           lambda a, b: _ri(np.conj(_nz(a, b))) ** 2, [(4,), (4,)]),
    OpSpec("as_real", lambda a, b: D.as_real(_z(a, b)) ** 3, lambda a, b: _ri(_nz(a, b)) ** 3,
           [(2, 2), (2, 2)]),
    OpSpec("view_as_real", lambda a, b: D.view_as_real(_z(a, b)) ** 2,
           lambda a, b: _ri(_nz(a, b)) ** 2, [(3,), (3,)]),
    OpSpec("as_complex", lambda x: D.imag(D.as_complex(x)) * D.real(D.as_complex(x)),
           lambda x: x[..., 0] * x[..., 1], [(3, 2)]),
    OpSpec("view_as_complex", lambda x: D.as_real(D.view_as_complex(x)) ** 2,
           lambda x: x ** 2, [(2, 3, 2)]),
    OpSpec("angle", lambda a, b: D.angle(_z(a, b)), lambda a, b: np.angle(_nz(a, b)),
           [(5,), (5,)], domain=(0.2, 1.0)),
    OpSpec("angle", D.angle, np.angle, [(5,)], domain=(0.2, 1.0), id="of_real"),
    # Complex arithmetic follows the same convention (g times the conjugate derivative).
    OpSpec("multiply", lambda a, b, c, d: D.as_real(_z(a, b) * _z(c, d)) ** 2,
           lambda a, b, c, d: _ri(_nz(a, b) * _nz(c, d)) ** 2, [(3,), (3,), (2, 3), (2, 3)],
           id="complex"),
    OpSpec("divide", lambda a, b, c, d: D.as_real(_z(a, b) / _z(c, d)) ** 2,
           lambda a, b, c, d: _ri(_nz(a, b) / _nz(c, d)) ** 2, [(3,), (3,), (3,), (3,)],
           domain=(0.5, 1.0), id="complex"),
    OpSpec("matmul", lambda a, b, c, d: D.as_real(D.matmul(_z(a, b), _z(c, d))) ** 2,
           lambda a, b, c, d: _ri(_nz(a, b) @ _nz(c, d)) ** 2, [(2, 3), (2, 3), (3, 2), (3, 2)],
           id="complex"),
    OpSpec("polar", lambda r, t: D.as_real(D.polar(r, t)) ** 2,
           lambda r, t: _ri(r * np.exp(1j * t)) ** 2, [(4,), (4,)]),
]
