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

from dygraph.ops.fft.stft import frame, istft, overlap_add, stft

__all__ = ["frame", "istft", "overlap_add", "stft"]
