"""dygraph.fft: discrete Fourier transforms (paddle.fft), with gradients.

Every transform takes Paddle's arguments: the signal length `n` (1-D) or lengths `s`
(2-D/N-D), which truncate or zero-pad the input first; the axis or axes; and `norm`:
'backward' (scale the inverse by 1/n, the default), 'forward' (scale the forward transform)
or 'ortho' (1/sqrt(n) both ways). Real inputs of fft/ifft become complex; rfft needs a
real input and returns the n//2 + 1 non-negative frequencies; irfft turns such a half
spectrum back into a real signal of length n (default 2 * (m - 1)); hfft/ihfft are the
pair for signals whose spectrum is real (Hermitian-symmetric signals).

Example:
    >>> import dygraph
    >>> dygraph.fft.fft(dygraph.to_tensor([1.0, 0.0, 0.0, 0.0])).numpy()
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
"""

import numpy as np

from dygraph.framework import dtype as _dt
from dygraph.framework.errors import UnsupportedDTypeError, op_error
from dygraph.ops.common import as_tensor, cast, check_axis, float_operand
from dygraph.ops.complex import conj
from dygraph.ops.creation.constructors import zeros
from dygraph.ops.fft import transforms as fft_ops
from dygraph.ops.manipulation.rearrange import roll
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]
NONDIFF = {"fftfreq", "rfftfreq"}

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _check_norm(norm, op):
    if norm not in _SWAP:
        raise op_error(op, f"norm must be 'backward', 'forward' or 'ortho', got {norm!r}")
    return norm


def _plan(x, s, axes, op):
    """(axes, sizes) of an N-D transform from Paddle's s/axes: both None means every axis;
    s alone means the last len(s) axes; axes alone keeps their sizes."""
    nd = x._data.ndim
    if nd == 0:
        raise op_error(op, "expected an input with at least 1 dim, got a 0-D tensor")
    if isinstance(s, Tensor):
        s = s.tolist()
    if axes is None:
        count = nd if s is None else len(s)
        if count > nd:
            raise op_error(op, f"s has {count} entries but the input has only {nd} dims")
        axes = list(range(nd - count, nd))
    axes = [check_axis(int(a), nd, op) for a in axes]
    if len(set(axes)) != len(axes) or not axes and nd:
        raise op_error(op, f"axes must be distinct and non-empty, got {axes}")
    if s is None:
        sizes = [x._data.shape[a] for a in axes]
    else:
        sizes = [int(n) for n in s]
        if len(sizes) != len(axes):
            raise op_error(op, f"s and axes must have the same length, got s={list(s)} "
                           f"and axes={axes}")
    # (a length of 0 taken from an empty input gives an empty result: see _empty)
    if any(n < 1 for n in sizes) and (s is not None or any(n < 0 for n in sizes)):
        raise op_error(op, f"the transform lengths must be positive, got {sizes}")
    return axes, sizes


def _empty(x, axes, sizes, dtype):
    """The empty result of a transform of an empty input (NumPy refuses length 0), or None
    when every length is positive."""
    if all(sizes):
        return None
    shape = list(x._data.shape)
    for a, n in zip(axes, sizes):
        shape[a] = n
    return zeros(shape, dtype=dtype)


def _complex_input(x, op):
    x = as_tensor(x, op)
    if x._data.dtype.kind == "c":
        return x
    x = float_operand(x, op)
    return cast(x, fft_ops.complex_dtype(x._data.dtype))


def _real_input(x, op):
    x = as_tensor(x, op)
    if x._data.dtype.kind == "c":
        raise op_error(op, f"expected a real input, got dtype {x._data.dtype}",
                       UnsupportedDTypeError)
    return float_operand(x, op)


def _c2c(x, s, axes, norm, forward, op):
    x = _complex_input(x, op)
    axes, sizes = _plan(x, s, axes, op)
    empty = _empty(x, axes, sizes, x.dtype)
    if empty is not None:
        return empty
    x = fft_ops.resize(x, axes, sizes)
    return fft_ops.c2c(x, axes, _check_norm(norm, op), forward)


def _r2c(x, s, axes, norm, forward, op):
    """rfftn (forward) or ihfftn: the conjugate of rfftn with the opposite scaling."""
    x = _real_input(x, op)
    axes, sizes = _plan(x, s, axes, op)
    norm = _check_norm(norm, op)
    empty = _empty(x, axes, sizes[:-1] + [sizes[-1] // 2 + 1],
                   fft_ops.complex_dtype(x._data.dtype))
    if empty is not None:
        return empty
    out = fft_ops.r2c(fft_ops.resize(x, axes, sizes), axes, norm if forward else _SWAP[norm],
                      True)
    return out if forward else conj(out)


def _c2r(x, s, axes, norm, forward, op):
    """irfftn, or hfftn (forward): irfftn of the conjugate with the opposite scaling."""
    x = _complex_input(x, op)
    nd = x._data.ndim
    if s is None:
        axes = list(range(nd)) if axes is None else axes
        axes, sizes = _plan(x, None, axes, op)
        sizes[-1] = 2 * (sizes[-1] - 1)
        if sizes[-1] < 1:
            raise op_error(op, f"an input of length 1 along axis {axes[-1]} gives an output "
                           "of length 0; pass n or s")
    else:
        axes, sizes = _plan(x, s, axes, op)
    norm = _check_norm(norm, op)
    empty = _empty(x, axes, sizes, fft_ops.real_dtype(x._data.dtype))
    if empty is not None:
        return empty
    x = fft_ops.resize(x, axes, sizes[:-1] + [sizes[-1] // 2 + 1])
    if forward:
        x, norm = conj(x), _SWAP[norm]
    return fft_ops.c2r(x, axes, norm, sizes[-1])


def _one(n, axis):
    return (None if n is None else [n]), [axis]


def _two(s, axes, op):
    if s is not None and len(s) != 2 or len(axes) != 2:
        raise op_error(op, f"expects two axes and at most two lengths, got s={s} and "
                       f"axes={axes}")
    return s, axes


def fft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D discrete Fourier transform along `axis`.

    Example:
        >>> import dygraph
        >>> dygraph.fft.fft(dygraph.to_tensor([1.0, 2.0])).numpy()
        array([ 3.+0.j, -1.+0.j], dtype=complex64)
    """
    return _c2c(x, *_one(n, axis), norm, True, "fft")


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D inverse discrete Fourier transform along `axis`.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ifft(dygraph.to_tensor([3.0, -1.0])).numpy()
        array([1.+0.j, 2.+0.j], dtype=complex64)
    """
    return _c2c(x, *_one(n, axis), norm, False, "ifft")


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D transform of a real signal: the n // 2 + 1 non-negative frequencies.

    Example:
        >>> import dygraph
        >>> dygraph.fft.rfft(dygraph.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _r2c(x, *_one(n, axis), norm, True, "rfft")


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of rfft: a real signal of length n (default 2 * (m - 1)) from a half spectrum.

    Example:
        >>> import dygraph
        >>> dygraph.fft.irfft(dygraph.to_tensor([10 + 0j, -2 + 2j, -2 + 0j])).numpy()
        array([1., 2., 3., 4.], dtype=float32)
    """
    return _c2r(x, *_one(n, axis), norm, False, "irfft")


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    """Transform of a Hermitian-symmetric signal given by its first half: a real spectrum.

    Example:
        >>> import dygraph
        >>> dygraph.fft.hfft(dygraph.to_tensor([1 + 0j, 2 + 0j])).numpy()
        array([ 3., -1.], dtype=float32)
    """
    return _c2r(x, *_one(n, axis), norm, True, "hfft")


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of hfft: the first half of the Hermitian signal of a real spectrum.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ihfft(dygraph.to_tensor([3.0, -1.0])).numpy()
        array([1.-0.j, 2.-0.j], dtype=complex64)
    """
    return _r2c(x, *_one(n, axis), norm, False, "ihfft")


def fftn(x, s=None, axes=None, norm="backward", name=None):
    """N-D discrete Fourier transform over `axes` (default: all, or the last len(s)).

    Example:
        >>> import dygraph
        >>> dygraph.fft.fftn(dygraph.ones([2, 2])).numpy()
        array([[4.+0.j, 0.+0.j],
               [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return _c2c(x, s, axes, norm, True, "fftn")


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    """N-D inverse discrete Fourier transform.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ifftn(dygraph.to_tensor([[4.0, 0.0], [0.0, 0.0]])).numpy()
        array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return _c2c(x, s, axes, norm, False, "ifftn")


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    """N-D transform of a real signal; the last axis keeps n // 2 + 1 frequencies.

    Example:
        >>> import dygraph
        >>> dygraph.fft.rfftn(dygraph.ones([2, 4])).shape
        [2, 3]
    """
    return _r2c(x, s, axes, norm, True, "rfftn")


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    """Inverse of rfftn; the last axis's output length defaults to 2 * (m - 1).

    Example:
        >>> import dygraph
        >>> dygraph.fft.irfftn(dygraph.fft.rfftn(dygraph.ones([2, 4]))).numpy()
        array([[1., 1., 1., 1.],
               [1., 1., 1., 1.]], dtype=float32)
    """
    return _c2r(x, s, axes, norm, False, "irfftn")


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    """N-D hfft: the real spectrum of a Hermitian-symmetric signal given by its half.

    Example:
        >>> import dygraph
        >>> dygraph.fft.hfftn(dygraph.to_tensor([[1 + 0j, 0j], [0j, 0j]])).numpy()
        array([[1., 1.],
               [1., 1.]], dtype=float32)
    """
    return _c2r(x, s, axes, norm, True, "hfftn")


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    """Inverse of hfftn.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ihfftn(dygraph.ones([2, 2])).numpy()
        array([[1.-0.j, 0.-0.j],
               [0.-0.j, 0.-0.j]], dtype=complex64)
    """
    return _r2c(x, s, axes, norm, False, "ihfftn")


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D discrete Fourier transform (fftn over two axes).

    Example:
        >>> import dygraph
        >>> dygraph.fft.fft2(dygraph.ones([2, 2])).numpy()[0, 0]
        np.complex64(4+0j)
    """
    return fftn(x, *_two(s, axes, "fft2"), norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D inverse discrete Fourier transform.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ifft2(dygraph.ones([2, 2])).numpy()[0, 0]
        np.complex64(1+0j)
    """
    return ifftn(x, *_two(s, axes, "ifft2"), norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D transform of a real signal.

    Example:
        >>> import dygraph
        >>> dygraph.fft.rfft2(dygraph.ones([2, 4])).shape
        [2, 3]
    """
    return rfftn(x, *_two(s, axes, "rfft2"), norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D inverse of rfft2.

    Example:
        >>> import dygraph
        >>> dygraph.fft.irfft2(dygraph.fft.rfft2(dygraph.ones([2, 4]))).shape
        [2, 4]
    """
    return irfftn(x, *_two(s, axes, "irfft2"), norm)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D hfft.

    Example:
        >>> import dygraph
        >>> dygraph.fft.hfft2(dygraph.ones([2, 3])).shape
        [2, 4]
    """
    return hfftn(x, *_two(s, axes, "hfft2"), norm)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D inverse of hfft2.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ihfft2(dygraph.ones([2, 4])).shape
        [2, 3]
    """
    return ihfftn(x, *_two(s, axes, "ihfft2"), norm)


def _float_dtype(dtype):
    """The dtype of sample frequencies: the default float, or `dtype`; an integer dtype
    gives float32, as Paddle (frequencies are fractions)."""
    np_dtype = (_dt.default_float() if dtype is None else _dt.convert_dtype(dtype)).np_dtype
    return np.dtype(np.float32) if np_dtype.kind in "iu" else np_dtype


def fftfreq(n, d=1.0, dtype=None, name=None, *, requires_grad=False):
    """Sample frequencies of an n-point fft with sample spacing d: [0, 1, ..., -1] / (d n);
    `requires_grad` makes the result a leaf that needs a gradient.

    Example:
        >>> import dygraph
        >>> dygraph.fft.fftfreq(4).numpy()
        array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    if int(n) < 1:
        raise op_error("fftfreq", f"n must be positive, got {n}")
    return to_tensor(np.fft.fftfreq(int(n), float(d)).astype(_float_dtype(dtype)),
                     stop_gradient=not requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, requires_grad=False):
    """Sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (d n); `requires_grad`
    makes the result a leaf that needs a gradient.

    Example:
        >>> import dygraph
        >>> dygraph.fft.rfftfreq(4).numpy()
        array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    if int(n) < 1:
        raise op_error("rfftfreq", f"n must be positive, got {n}")
    return to_tensor(np.fft.rfftfreq(int(n), float(d)).astype(_float_dtype(dtype)),
                     stop_gradient=not requires_grad)


def _shift(x, axes, sign, op):
    x = as_tensor(x, op)
    nd = x._data.ndim
    if axes is None:
        axes = list(range(nd))
    elif isinstance(axes, int):
        axes = [axes]
    axes = [check_axis(int(a), nd, op) for a in axes]
    shifts = [sign * (x._data.shape[a] // 2) for a in axes]
    return roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """Move the zero frequency to the centre (a roll by n // 2 along each axis).

    Example:
        >>> import dygraph
        >>> dygraph.fft.fftshift(dygraph.fft.fftfreq(4)).numpy()
        array([-0.5 , -0.25,  0.  ,  0.25], dtype=float32)
    """
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None, name=None):
    """Inverse of fftshift.

    Example:
        >>> import dygraph
        >>> dygraph.fft.ifftshift(dygraph.fft.fftshift(dygraph.fft.fftfreq(5))).numpy()
        array([ 0. ,  0.2,  0.4, -0.4, -0.2], dtype=float32)
    """
    return _shift(x, axes, -1, "ifftshift")
