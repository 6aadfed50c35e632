"""dygraph.signal: short-time Fourier transform and its inverse (paddle.signal), with
gradients, built from framing, windowing and dygraph.fft.

Framing is a gather (x[..., index]); overlap-add, its adjoint, is one op here whose
backward is that gather again.

Example:
    >>> import dygraph
    >>> spec = dygraph.signal.stft(dygraph.ones([16]), n_fft=8, hop_length=4)
    >>> spec.shape, spec.dtype
    ([5, 5], dygraph.complex64)
"""

import numpy as np

from dygraph import fft as _fft
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import defer_check, get_array_module
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, float_operand
from dygraph.ops.manipulation.rearrange import concat
from dygraph.ops.manipulation.shape import broadcast_to, transpose, unsqueeze
from dygraph.tensor.tensor import _new_tensor, to_tensor

__all__ = ["stft", "istft", "frame", "overlap_add"]


def _frame_index(xp, frame_length, hop_length, n_frames):
    """index[j, k]: the sample at offset j of frame k, an array of `xp` (made there: a copy
    from the host could not be captured into a CUDA graph)."""
    return xp.arange(frame_length)[:, None] + hop_length * xp.arange(n_frames)[None, :]


class OverlapAdd(Op):
    """[..., frame_length, n_frames] -> [..., (n_frames - 1) * hop + frame_length]."""

    attrs = ("hop",)

    complex_grad = "same"

    def __init__(self, hop_length):
        self.hop = hop_length

    def forward(self, xp, x):
        length, n = x.shape[-2:]
        self.index = _frame_index(xp, length, self.hop, n)
        out = xp.zeros(x.shape[:-2] + ((n - 1) * self.hop + length,), dtype=x.dtype)
        end = (n - 1) * self.hop + 1
        for j in range(length):  # one strided add per offset, vectorised over frames
            out[..., j:j + end:self.hop] += x[..., j, :]
        return out

    def backward(self, m, g):
        return (g[..., self.index],)


def _check_int(value, op, what):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise op_error(op, f"{what} must be a positive int, got {value!r}")
    return int(value)


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slice x into overlapping frames: axis -1 gives [..., frame_length, n_frames], axis 0
    gives [n_frames, frame_length, ...], n_frames = 1 + (seq_length - frame_length) // hop.

    Example:
        >>> import dygraph
        >>> dygraph.signal.frame(dygraph.arange(5), 3, 2).numpy()
        array([[0, 2],
               [1, 3],
               [2, 4]])
    """
    x = as_tensor(x, "frame")
    frame_length = _check_int(frame_length, "frame", "frame_length")
    hop_length = _check_int(hop_length, "frame", "hop_length")
    if axis not in (0, -1):
        raise op_error("frame", f"axis must be 0 or -1, got {axis}")
    seq = x._data.shape[axis] if x._data.ndim else 0
    if frame_length > seq:
        raise op_error("frame", f"frame_length {frame_length} is longer than the sequence "
                       f"({seq} samples along axis {axis}, input shape {x.shape})")
    index = _frame_index(np, frame_length, hop_length, 1 + (seq - frame_length) // hop_length)
    if axis == -1:
        return x[..., index]
    return x[index.T]


def overlap_add(x, hop_length, axis=-1, name=None):
    """Sum overlapping frames back into a sequence (the adjoint of `frame`): axis -1 reads
    [..., frame_length, n_frames], axis 0 reads [n_frames, frame_length, ...].

    Example:
        >>> import dygraph
        >>> dygraph.signal.overlap_add(dygraph.ones([3, 2]), 2).numpy()
        array([1., 1., 2., 1., 1.], dtype=float32)
    """
    x = as_tensor(x, "overlap_add")
    hop_length = _check_int(hop_length, "overlap_add", "hop_length")
    if axis not in (0, -1):
        raise op_error("overlap_add", f"axis must be 0 or -1, got {axis}")
    nd = x._data.ndim
    if nd < 2:
        raise op_error("overlap_add", f"expected at least 2 dims, got shape {x.shape}")
    if axis == -1:
        return apply(OverlapAdd(hop_length), x)
    perm = list(range(2, nd)) + [1, 0]
    out = apply(OverlapAdd(hop_length), transpose(x, perm))
    return transpose(out, [nd - 2] + list(range(nd - 2)))


def _zeros(count, like):
    data = like._data
    return _new_tensor(get_array_module(data).zeros(data.shape[:-1] + (count,), data.dtype),
                       None, 0, True)


def _pad_ends(x, left, right):
    """x with zeros before and after along the last axis."""
    parts = ([_zeros(left, x)] if left else []) + [x] + ([_zeros(right, x)] if right else [])
    return concat(parts, axis=-1) if len(parts) > 1 else x


def _window(window, win_length, n_fft, dtype, op):
    """The window, zero-padded on both sides to n_fft (rectangular when None)."""
    if window is None:
        window = to_tensor(np.ones(win_length, dtype=dtype))
    window = as_tensor(window, op)
    if window._data.dtype.kind != "c":
        window = float_operand(window, op)
    if window._data.ndim != 1 or window._data.shape[0] != win_length:
        raise op_error(op, f"window must be 1-D of size win_length={win_length}, got shape "
                       f"{window.shape}")
    left = (n_fft - win_length) // 2
    return _pad_ends(window, left, n_fft - win_length - left)


def _lengths(n_fft, hop_length, win_length, op):
    n_fft = _check_int(n_fft, op, "n_fft")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    hop_length = _check_int(hop_length, op, "hop_length")
    win_length = n_fft if win_length is None else _check_int(win_length, op, "win_length")
    if win_length > n_fft:
        raise op_error(op, f"win_length must be in (0, n_fft={n_fft}], got {win_length}")
    return n_fft, hop_length, win_length


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """Short-time Fourier transform of x [seq_length] or [batch, seq_length]: frames of
    n_fft samples every hop_length (default n_fft // 4), times the window (win_length,
    default n_fft, centred and zero-padded to n_fft), each transformed. center=True pads
    n_fft // 2 samples at both ends (pad_mode 'reflect' or 'constant') so that frame t is
    centred at t * hop_length. Returns a complex [..., n_fft // 2 + 1, n_frames] (onesided,
    the default for real input) or [..., n_fft, n_frames]; normalized scales by
    1 / sqrt(n_fft).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.0, 1.0, 0.0, -1.0] * 4)
        >>> dygraph.signal.stft(x, n_fft=4, hop_length=4, center=False).numpy()[:, 0]
        array([0.+0.j, 0.-2.j, 0.+0.j], dtype=complex64)
    """
    x = as_tensor(x, "stft")
    if x._data.dtype.kind != "c":
        x = float_operand(x, "stft")
    if x._data.ndim not in (1, 2):
        raise op_error("stft", f"expected x of shape [seq_length] or [batch, seq_length], got "
                       f"{x.shape}")
    n_fft, hop_length, win_length = _lengths(n_fft, hop_length, win_length, "stft")
    seq = x._data.shape[-1]
    if n_fft > seq:
        raise op_error("stft", f"n_fft must be in (0, seq_length={seq}], got {n_fft}")
    real_dtype = np.dtype(x._data.dtype.char.lower()) if x._data.dtype.kind == "c" else (
        x._data.dtype)
    window = _window(window, win_length, n_fft, real_dtype, "stft")
    if center:
        pad = n_fft // 2
        if pad_mode == "reflect":
            if pad >= seq:
                raise op_error("stft", f"reflect padding of {pad} needs more than {pad} "
                               f"samples, got {seq}")
            index = np.concatenate([np.arange(pad, 0, -1), np.arange(seq),
                                    np.arange(seq - 2, seq - 2 - pad, -1)])
            x = x[..., index]
        elif pad_mode == "constant":
            x = _pad_ends(x, pad, pad)
        else:
            raise op_error("stft", f"pad_mode must be 'reflect' or 'constant', got "
                           f"{pad_mode!r}")
    frames = frame(x, n_fft, hop_length) * unsqueeze(window, -1)
    complex_frames = frames._data.dtype.kind == "c"
    if onesided is None:
        onesided = not complex_frames
    if onesided and complex_frames:
        raise op_error("stft", "onesided must be False for a complex input or window")
    norm = "ortho" if normalized else "backward"
    if onesided:
        return _fft.rfft(frames, axis=-2, norm=norm)
    return _fft.fft(frames, axis=-2, norm=norm)


@captured_whole
def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """Inverse of stft by weighted overlap-add: x is complex [freq, n_frames] or [batch,
    freq, n_frames] with freq = n_fft // 2 + 1 (onesided) or n_fft. The window's
    overlap-added square must be non-zero everywhere (NOLA). `length` keeps at most that
    many samples (after the n_fft // 2 that center=True drops); return_complex=True
    (with onesided=False) keeps the result complex.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.0, 1.0, 2.0, 3.0, 2.0, 1.0, 0.0, -1.0])
        >>> spec = dygraph.signal.stft(x, n_fft=4, hop_length=1)
        >>> [round(v, 4) for v in dygraph.signal.istft(spec, n_fft=4, hop_length=1).tolist()]
        [0.0, 1.0, 2.0, 3.0, 2.0, 1.0, 0.0, -1.0]
    """
    x = as_tensor(x, "istft")
    if x._data.dtype.kind != "c" or x._data.ndim not in (2, 3):
        raise op_error("istft", f"expected a complex [freq, n_frames] or [batch, freq, "
                       f"n_frames] tensor, got shape {x.shape} and dtype {x._data.dtype}",
                       TypeError if x._data.dtype.kind != "c" else ValueError)
    n_fft, hop_length, win_length = _lengths(n_fft, hop_length, win_length, "istft")
    if hop_length > win_length:
        raise op_error("istft", f"hop_length must be in (0, win_length={win_length}], got "
                       f"{hop_length}")
    freq, n_frames = x._data.shape[-2:]
    want = n_fft // 2 + 1 if onesided else n_fft
    if freq != want:
        raise op_error("istft", f"with n_fft={n_fft} and onesided={onesided} the frequency "
                       f"axis must have {want} bins, got {freq} (shape {x.shape})")
    window = _window(window, win_length, n_fft, np.dtype(x._data.dtype.char.lower()), "istft")
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise op_error("istft", "return_complex=True needs onesided=False")
        frames = _fft.ifft(x, axis=-2, norm=norm)
    else:
        if window._data.dtype.kind == "c":
            raise op_error("istft", "the window must be real when return_complex is False",
                           TypeError)
        if not onesided:
            x = x[..., :n_fft // 2 + 1, :]
        frames = _fft.irfft(x, n=n_fft, axis=-2, norm=norm)
    column = unsqueeze(window, -1)
    out = overlap_add(frames * column, hop_length)
    envelope = overlap_add(broadcast_to(column * column, [n_fft, n_frames]), hop_length)
    start = n_fft // 2 if center else 0
    stop = out._data.shape[-1] - start if length is None else start + int(length)
    out, envelope = out[..., start:stop], envelope[start:stop]
    if envelope._data.size:  # while a CUDA graph captures, checked after each run
        defer_check(abs(envelope._data).min() < 1e-11, lambda: op_error(
            "istft", "the window's overlap-added square is zero somewhere (the Nonzero "
            "Overlap Add condition fails); use another window or hop_length"))
    return out / envelope
