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

from dygraph.ops.fft.functions import (
    NONDIFF,  # noqa: F401 - read by the spec tests
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

from dygraph.framework.kernel_dtypes import guard_namespace as _guard_namespace  # noqa: E402

_guard_namespace(globals(), "fft")  # the dtypes Paddle refuses
