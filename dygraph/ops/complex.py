"""Complex numbers: real and imaginary parts, conjugate, angle, building complex tensors.

Gradients follow Paddle's (and PyTorch's) convention for a real loss L of a complex z = a + ib:
the gradient held for z is dL/da + i dL/db (the conjugate Wirtinger derivative, times 2).
So `real` sends a real gradient g back as g + 0i, `imag` sends it back as 0 + gi, `conj`
conjugates it, and a real input of a complex op receives the real part of its gradient.
"""

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.ops.common import _Identity, as_tensor, binary_operands, float_operand

__all__ = ["real", "imag", "conj", "angle", "complex", "as_real", "as_complex",
           "view_as_real", "view_as_complex", "polar", "is_complex"]
NONDIFF = {"is_complex"}
NOT_METHODS = {"complex"}

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.float16): np.complex64}


def _is_complex(x):
    return x._data.dtype.kind == "c"


class Real(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.real(x).copy()

    def backward(self, m, g):
        return (g,)  # the engine casts g to the complex input dtype: g + 0i


class Imag(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.imag(x).copy()

    def backward(self, m, g):
        return (m.complex(m.zeros_like(g), g),)


class Conj(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.conj(x)

    def backward(self, m, g):
        return (m.conj(g),)


class Complex(Op):
    complex_grad = "same"

    def forward(self, xp, re, im):
        out = xp.empty(np.broadcast_shapes(re.shape, im.shape), dtype=_COMPLEX_OF[re.dtype])
        out.real, out.imag = re, im
        return out

    def backward(self, m, g):
        return m.real(g), m.imag(g)


class AsReal(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        return xp.stack([x.real, x.imag], axis=-1)

    def backward(self, m, g):
        return (m.complex(g[..., 0], g[..., 1]),)


class AsComplex(Op):
    complex_grad = "same"

    def forward(self, xp, x):
        out = xp.empty(x.shape[:-1], dtype=_COMPLEX_OF[x.dtype])
        out.real, out.imag = x[..., 0], x[..., 1]
        return out

    def backward(self, m, g):
        return (m.as_real(g),)


def _complex_input(x, op):
    """`x`, refused when real: Paddle has no real or imag kernel for real dtypes
    (RuntimeError)."""
    x = as_tensor(x, op)
    if not _is_complex(x):
        raise op_error(op, f"expects a complex64 or complex128 tensor, got {x.dtype}",
                       UnsupportedDTypeError)
    return x


def real(x, name=None):
    """The real part of a complex tensor (real tensors are refused, as in Paddle).

    Example:
        >>> import dygraph
        >>> dygraph.real(dygraph.to_tensor([1 + 2j, 3 - 1j])).numpy()
        array([1., 3.], dtype=float32)
    """
    return apply(Real(), _complex_input(x, "real"))


def imag(x, name=None):
    """The imaginary part of a complex tensor (real tensors are refused, as in Paddle).

    Example:
        >>> import dygraph
        >>> dygraph.imag(dygraph.to_tensor([1 + 2j, 3 - 1j])).numpy()
        array([ 2., -1.], dtype=float32)
    """
    return apply(Imag(), _complex_input(x, "imag"))


def conj(x, name=None):
    """The complex conjugate (x itself, copied, when x is real).

    Example:
        >>> import dygraph
        >>> dygraph.conj(dygraph.to_tensor([1 + 2j])).numpy()
        array([1.-2.j], dtype=complex64)
    """
    x = as_tensor(x, "conj")
    return apply(Conj() if _is_complex(x) else _Identity(), x)


def complex(real, imag, name=None):  # noqa: A001 - Paddle's name
    """A complex tensor from real and imaginary parts (float32 gives complex64, float64
    complex128); the two broadcast against each other.

    Example:
        >>> import dygraph
        >>> dygraph.complex(dygraph.to_tensor([1.0]), dygraph.to_tensor([2.0])).numpy()
        array([1.+2.j], dtype=complex64)
    """
    re, im = binary_operands(float_operand(real, "complex"), float_operand(imag, "complex"),
                             "complex")
    if re._data.dtype.kind != "f":
        raise op_error("complex", f"real and imag must be float tensors, got "
                       f"{re._data.dtype} and {im._data.dtype}", TypeError)
    return apply(Complex(), re, im)


def as_real(x, name=None):
    """A complex tensor [*] as a real one [*, 2]: the last axis holds (real, imag).

    Example:
        >>> import dygraph
        >>> dygraph.as_real(dygraph.to_tensor([1 + 2j])).numpy()
        array([[1., 2.]], dtype=float32)
    """
    x = as_tensor(x, "as_real")
    if not _is_complex(x):
        raise op_error("as_real", f"expected a complex64/complex128 tensor, got "
                       f"{x._data.dtype}", UnsupportedDTypeError)
    return apply(AsReal(), x)


def as_complex(x, name=None):
    """A real tensor [*, 2] (real, imag in the last axis) as a complex one [*].

    Example:
        >>> import dygraph
        >>> dygraph.as_complex(dygraph.to_tensor([[1.0, 2.0]])).numpy()
        array([1.+2.j], dtype=complex64)
    """
    x = as_tensor(x, "as_complex")
    if x._data.dtype.kind != "f":
        raise op_error("as_complex", f"expected a float tensor, got {x._data.dtype}",
                       UnsupportedDTypeError)
    if x._data.ndim == 0 or x._data.shape[-1] != 2:
        raise op_error("as_complex", f"expected a tensor whose last axis has size 2, "
                       f"got shape {list(x._data.shape)} and dtype {x._data.dtype}")
    return apply(AsComplex(), x)


def view_as_real(input, name=None):  # noqa: A002 - Paddle's argument name
    """Same as `as_real` (Paddle's torch-style name).

    Example:
        >>> import dygraph
        >>> dygraph.view_as_real(dygraph.to_tensor([3j])).shape
        [1, 2]
    """
    return as_real(input)


def view_as_complex(input, name=None):  # noqa: A002 - Paddle's argument name
    """Same as `as_complex` (Paddle's torch-style name).

    Example:
        >>> import dygraph
        >>> dygraph.view_as_complex(dygraph.ones([3, 2])).shape
        [3]
    """
    return as_complex(input)


def angle(x, name=None):
    """Elementwise argument of a complex number in (-pi, pi]; for real x, 0 or pi.

    Example:
        >>> import dygraph
        >>> float(dygraph.angle(dygraph.to_tensor([1j]))[0])  # doctest: +ELLIPSIS
        1.5707963...
    """
    from dygraph.ops.math.arithmetic import atan2

    x = as_tensor(x, "angle")
    if _is_complex(x):
        return atan2(imag(x), real(x))
    from dygraph.ops.creation.constructors import zeros_like

    x = float_operand(x, "angle")
    return atan2(zeros_like(x), x)  # +0, not x * 0: atan2(-0, -1) would give -pi


def polar(abs, angle, name=None):  # noqa: A002 - Paddle's argument names
    """The complex tensor abs * (cos(angle) + i sin(angle)).

    Example:
        >>> import dygraph, math
        >>> z = dygraph.polar(dygraph.to_tensor([2.0]), dygraph.to_tensor([math.pi / 2]))
        >>> [round(v, 4) for v in dygraph.as_real(z).numpy()[0].tolist()]
        [-0.0, 2.0]
    """
    from dygraph.ops.unary.core import cos, sin

    r, theta = binary_operands(float_operand(abs, "polar"), float_operand(angle, "polar"),
                               "polar")
    return complex(r * cos(theta), r * sin(theta))


def is_complex(x):
    """True when x has a complex dtype.

    Example:
        >>> import dygraph
        >>> dygraph.is_complex(dygraph.to_tensor([1j])), dygraph.is_complex(dygraph.ones([1]))
        (True, False)
    """
    return _is_complex(as_tensor(x, "is_complex"))


def _array_complex(xp):
    def make(re, im):
        out = xp.empty(np.broadcast_shapes(re.shape, im.shape),
                       dtype=_COMPLEX_OF.get(re.dtype, np.complex128))
        out.real, out.imag = re, im
        return out

    return make


# The Tensor versions of the names the gradient formulas use (see backward_math).
register("complex", array_fn=_array_complex, tensor_fn=complex)
register("as_real", array_fn=lambda xp: lambda g: xp.stack([g.real, g.imag], axis=-1),
         tensor_fn=as_real)
register("real", array_fn=lambda xp: lambda g: xp.real(g), tensor_fn=real)
register("imag", array_fn=lambda xp: lambda g: xp.imag(g), tensor_fn=imag)
register("conj", tensor_fn=conj)
